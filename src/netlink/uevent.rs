//! Kernel uevents (`NETLINK_KOBJECT_UEVENT`): a device's `add`, `remove` and `move`
//! (rename), as the kernel broadcasts them to multicast group 1. A pure parser over
//! `&[u8]` ([`parse`]) and a non-blocking socket ([`UeventSocket`]).
//!
//! A kernel uevent is one datagram: `ACTION@DEVPATH`, a NUL, then `KEY=VALUE` strings
//! each ended by a NUL (`ACTION`, `DEVPATH`, `SUBSYSTEM`, `DEVNAME`, `SEQNUM`,
//! `DEVPATH_OLD` for a rename, ...). Messages udevd rebroadcasts (group 2, starting with
//! `libudev`) are never received here: the socket joins group 1 only.

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

use rustix::net::netlink::SocketAddrNetlink;
use rustix::net::{self, AddressFamily, Protocol, RecvFlags, SocketFlags, SocketType};

use crate::error::{Error, Op, Result};

/// `NETLINK_KOBJECT_UEVENT`.
const NETLINK_KOBJECT_UEVENT: u32 = 15;
/// The kernel's uevent multicast group.
const KERNEL_GROUP: u32 = 1;

/// What happened to the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Action {
    /// `add`.
    Add,
    /// `remove`.
    Remove,
    /// `move`: renamed (`DEVPATH_OLD` has the old path).
    Move,
    /// `change`.
    Change,
    /// Any other action (`bind`, `unbind`, `online`, ...).
    Other,
}

/// One kernel uevent, borrowed from the datagram.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Uevent<'a> {
    /// The action.
    pub action: Action,
    /// `DEVPATH`: the device's sysfs path under `/sys` (`/devices/virtual/infiniband/rxe0`).
    pub devpath: &'a str,
    /// `SUBSYSTEM` (`infiniband`, `infiniband_verbs`, `net`, ...).
    pub subsystem: Option<&'a str>,
    /// `DEVNAME`: the device node under `/dev`, if any (`infiniband/uverbs0`).
    pub devname: Option<&'a str>,
    /// `DEVPATH_OLD`, on a rename.
    pub devpath_old: Option<&'a str>,
    /// `SEQNUM`.
    pub seqnum: Option<u64>,
}

impl Uevent<'_> {
    /// The device's name: the last component of `DEVPATH` (`rxe0`, `uverbs0`).
    pub fn name(&self) -> &str {
        last(self.devpath)
    }

    /// The device's name before a rename: the last component of `DEVPATH_OLD`.
    pub fn old_name(&self) -> Option<&str> {
        self.devpath_old.map(last)
    }
}

fn last(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Parses one kernel uevent datagram. `None` for anything else (a udev message, a
/// truncated or malformed one): never a panic.
pub fn parse(datagram: &[u8]) -> Option<Uevent<'_>> {
    let mut parts = datagram.split(|&b| b == 0).filter(|p| !p.is_empty());
    let head = core::str::from_utf8(parts.next()?).ok()?;
    let (action, devpath) = head.split_once('@')?;
    let mut ev = Uevent {
        action: match action {
            "add" => Action::Add,
            "remove" => Action::Remove,
            "move" => Action::Move,
            "change" => Action::Change,
            _ => Action::Other,
        },
        devpath,
        subsystem: None,
        devname: None,
        devpath_old: None,
        seqnum: None,
    };
    for p in parts {
        let Ok(kv) = core::str::from_utf8(p) else {
            continue;
        };
        let Some((k, v)) = kv.split_once('=') else {
            continue;
        };
        match k {
            "SUBSYSTEM" => ev.subsystem = Some(v),
            "DEVNAME" => ev.devname = Some(v),
            "DEVPATH_OLD" => ev.devpath_old = Some(v),
            "DEVPATH" => ev.devpath = v,
            "SEQNUM" => ev.seqnum = v.parse().ok(),
            _ => {}
        }
    }
    Some(ev)
}

/// The largest uevent: the kernel's buffer is 2 KiB of environment (`UEVENT_BUFFER_SIZE`).
pub const MAX_UEVENT: usize = 8192;

/// A non-blocking socket on the kernel's uevents.
#[derive(Debug)]
pub struct UeventSocket {
    fd: OwnedFd,
}

impl UeventSocket {
    /// Opens and binds it (no privilege needed), with a receive buffer large enough for
    /// the bursts of 32 devices appearing at once.
    ///
    /// # Errors
    ///
    /// [`Error::Os`] with the errno of `socket(2)`, `bind(2)` (e.g. `EPERM` in a
    /// sandbox without netlink).
    pub fn open() -> Result<Self> {
        let os = |what| {
            move |errno| Error::Os {
                op: Op::new(what, ""),
                errno,
            }
        };
        const PROTO: core::num::NonZeroU32 =
            match core::num::NonZeroU32::new(NETLINK_KOBJECT_UEVENT) {
                Some(p) => p,
                None => panic!("NETLINK_KOBJECT_UEVENT is not 0"),
            };
        let fd = net::socket_with(
            AddressFamily::NETLINK,
            SocketType::RAW,
            SocketFlags::CLOEXEC | SocketFlags::NONBLOCK,
            Some(Protocol::from_raw(PROTO)),
        )
        .map_err(os("uevent socket"))?;
        // Best effort: a larger buffer loses fewer events in a burst (the kernel caps it).
        let _ = net::sockopt::set_socket_recv_buffer_size(&fd, 1 << 20);
        net::bind(&fd, &SocketAddrNetlink::new(0, KERNEL_GROUP)).map_err(os("uevent bind"))?;
        Ok(UeventSocket { fd })
    }

    /// Receives one datagram from the kernel into `buf` without waiting: its length, or
    /// `None` when nothing is queued. Datagrams from anything but the kernel are dropped.
    ///
    /// # Errors
    ///
    /// [`Error::Os`] with the errno of `recvfrom(2)` (`ENOBUFS`: the kernel dropped
    /// uevents for lack of room; the caller should rescan).
    pub fn recv(&self, buf: &mut [u8]) -> Result<Option<usize>> {
        loop {
            match net::recvfrom(&self.fd, &mut *buf, RecvFlags::DONTWAIT) {
                Ok((n, _, from)) => {
                    let from_kernel = match from.map(SocketAddrNetlink::try_from) {
                        Some(Ok(a)) => a.pid() == 0,
                        _ => false,
                    };
                    if from_kernel {
                        return Ok(Some(n));
                    }
                }
                Err(rustix::io::Errno::AGAIN) => return Ok(None),
                Err(rustix::io::Errno::INTR) => {}
                Err(errno) => {
                    return Err(Error::Os {
                        op: Op::new("uevent recv", ""),
                        errno,
                    })
                }
            }
        }
    }
}

impl AsFd for UeventSocket {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_kernel_layout() {
        let d = b"remove@/devices/virtual/infiniband_verbs/uverbs0\0ACTION=remove\0\
                  DEVPATH=/devices/virtual/infiniband_verbs/uverbs0\0SUBSYSTEM=infiniband_verbs\0\
                  MAJOR=231\0MINOR=192\0DEVNAME=infiniband/uverbs0\0SEQNUM=2301\0";
        let e = parse(d).unwrap();
        assert_eq!(e.action, Action::Remove);
        assert_eq!(e.subsystem, Some("infiniband_verbs"));
        assert_eq!(e.devname, Some("infiniband/uverbs0"));
        assert_eq!(e.name(), "uverbs0");
        assert_eq!(e.seqnum, Some(2301));
        let m = b"move@/devices/virtual/infiniband/rxe_b\0ACTION=move\0\
                  DEVPATH=/devices/virtual/infiniband/rxe_b\0SUBSYSTEM=infiniband\0\
                  DEVPATH_OLD=/devices/virtual/infiniband/rxe_a\0SEQNUM=7\0";
        let e = parse(m).unwrap();
        assert_eq!(
            (e.action, e.name(), e.old_name()),
            (Action::Move, "rxe_b", Some("rxe_a"))
        );
    }

    #[test]
    fn garbage_is_none_never_a_panic() {
        assert!(parse(b"").is_none());
        assert!(parse(b"libudev\0\xfe\xed").is_none());
        assert!(parse(b"no-at-sign\0").is_none());
        let good = b"add@/devices/x/infiniband/rxe0\0SUBSYSTEM=infiniband\0";
        for n in 0..good.len() {
            let _ = parse(&good[..n]);
        }
        for i in 0..good.len() {
            let mut b = good.to_vec();
            b[i] = 0xff;
            let _ = parse(&b);
        }
    }
}
