//! GIDs: the 128-bit identifier of a port, and one entry of its table.

use core::fmt;
use std::net::Ipv6Addr;

use super::GidType;

/// A 128-bit GID, in network byte order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
#[doc(alias = "ibv_gid")]
pub struct Gid(pub [u8; 16]);

impl Gid {
    /// The subnet prefix (first 8 bytes).
    pub fn subnet_prefix(&self) -> u64 {
        u64::from_be_bytes(self.0[..8].try_into().unwrap_or([0; 8]))
    }
    /// The interface id (last 8 bytes).
    pub fn interface_id(&self) -> u64 {
        u64::from_be_bytes(self.0[8..].try_into().unwrap_or([0; 8]))
    }
    /// True when all bytes are zero (an empty table slot).
    pub fn is_zero(&self) -> bool {
        self.0 == [0; 16]
    }
    /// The GID as an IPv6 address (an IPv4-mapped one for RoCE v2 over IPv4).
    pub fn to_ipv6(&self) -> Ipv6Addr {
        Ipv6Addr::from(self.0)
    }
    /// Parses the sysfs form `fe80:0000:0000:0000:0200:00ff:fe00:0000`.
    pub fn parse_sysfs(text: &str) -> Option<Gid> {
        let mut out = [0u8; 16];
        let mut groups = 0;
        for (i, g) in text.trim().split(':').enumerate() {
            if i >= 8 || g.len() != 4 || !g.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            let v = u16::from_str_radix(g, 16).ok()?;
            out[i * 2..i * 2 + 2].copy_from_slice(&v.to_be_bytes());
            groups += 1;
        }
        (groups == 8).then_some(Gid(out))
    }
}

impl fmt::Display for Gid {
    /// Eight groups of four hex digits, like sysfs and `ibv_devinfo`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, pair) in self.0.chunks(2).enumerate() {
            if i > 0 {
                f.write_str(":")?;
            }
            write!(f, "{:02x}{:02x}", pair[0], pair[1])?;
        }
        Ok(())
    }
}

/// One valid entry of a port's GID table.
///
/// `#[non_exhaustive]`: build one with [`GidEntry::new`] and set the other public
/// fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
#[doc(alias = "ibv_gid_entry")]
pub struct GidEntry {
    /// The GID.
    pub gid: Gid,
    /// Index in the port's table.
    pub index: u32,
    /// Port number.
    pub port: u32,
    /// Type (IB, RoCE v1, RoCE v2).
    pub gid_type: GidType,
    /// ifindex of the network device the GID belongs to, 0 if none.
    pub netdev_ifindex: u32,
}

impl GidEntry {
    /// The entry `index` of port `port`'s table holding `gid`, of type
    /// [`GidType::Ib`], without a netdev (`netdev_ifindex` 0).
    ///
    /// ```
    /// use uverbs::{Gid, GidEntry, GidType};
    ///
    /// let mut e = GidEntry::new(1, 0, Gid([0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]));
    /// e.gid_type = GidType::RoceV2;
    /// e.netdev_ifindex = 2;
    /// ```
    pub fn new(port: u32, index: u32, gid: Gid) -> Self {
        GidEntry {
            gid,
            index,
            port,
            gid_type: GidType::Ib,
            netdev_ifindex: 0,
        }
    }
}
