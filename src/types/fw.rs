//! The firmware version text of a device.

use core::fmt;

/// A firmware version string, held inline (at most 63 bytes, like `ibv_device_attr`'s
/// `fw_ver[64]`) so that copying device attributes never allocates.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct FwVersion {
    len: u8,
    buf: [u8; 63],
}

impl Default for FwVersion {
    fn default() -> Self {
        FwVersion {
            len: 0,
            buf: [0; 63],
        }
    }
}

impl FwVersion {
    /// From text (sysfs `fw_ver`, netlink): surrounding white space is dropped, the rest
    /// is cut at 63 bytes on a character boundary.
    pub fn new(text: &str) -> Self {
        let t = text.trim();
        let mut end = t.len().min(63);
        while !t.is_char_boundary(end) {
            end -= 1;
        }
        // Cutting can leave white space at the end: drop it too, so that
        // FwVersion::new(x.as_str()) == x.
        let t = t[..end].trim_end();
        let end = t.len();
        let mut buf = [0u8; 63];
        buf[..end].copy_from_slice(t.as_bytes());
        FwVersion {
            len: end as u8,
            buf,
        }
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        // Built from a &str cut on a char boundary: always valid UTF-8.
        core::str::from_utf8(&self.buf[..usize::from(self.len)]).unwrap_or("")
    }

    /// True when the device reports no firmware version.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl fmt::Debug for FwVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for FwVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
