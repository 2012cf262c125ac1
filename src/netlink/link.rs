//! Soft-RDMA links over RDMA netlink: create and delete rxe (Soft-RoCE) and siw
//! (Soft-iWARP) devices, and list every port with its state and netdev, as
//! `rdma link add|del|show` does, with no iproute2 in the container.
//!
//! Creating and deleting links needs `CAP_NET_ADMIN` and the driver's module
//! (`rdma_rxe`, `siw`) loaded or loadable.

use super::{attrs, nl_type, parse_answer, NlSocket, Request};
use crate::error::{Error, Op, Result};
use crate::raw::abi::netlink::*;
use crate::types::{PhysState, PortState};

/// One port as nldev `PORT_GET` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    /// The device's kernel index.
    pub dev_index: u32,
    /// The device name.
    pub device: String,
    /// The port number.
    pub port: u32,
    /// Logical port state.
    pub state: PortState,
    /// Physical port state.
    pub phys_state: PhysState,
    /// The port's netdev (RoCE, iWARP, IPoIB parents), if any.
    pub netdev: Option<String>,
    /// Its ifindex.
    pub netdev_index: Option<u32>,
}

/// A software link type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkType {
    /// Soft-RoCE (`rdma_rxe`).
    Rxe,
    /// Soft-iWARP (`siw`).
    Siw,
}

impl LinkType {
    /// The kernel's name of the type.
    pub fn as_str(self) -> &'static str {
        match self {
            LinkType::Rxe => "rxe",
            LinkType::Siw => "siw",
        }
    }
}

/// An nldev request of command `cmd`: see [`Request`].
pub fn request(cmd: u16, flags: u16, seq: u32) -> Request {
    Request::new(nl_type(RDMA_NL_NLDEV, cmd), flags, seq)
}

fn check_name(op: &'static str, what: &str, name: &str) -> Result<()> {
    // IFNAMSIZ and IB_DEVICE_NAME_MAX are 16 with the NUL.
    if name.is_empty() || name.len() > 15 || name.contains(['/', '\0', ' ']) {
        return Err(Error::BadArgument {
            op: Op::new(op, name),
            reason: format!("{what} must be 1 to 15 characters without '/', spaces or NUL"),
        });
    }
    Ok(())
}

fn exchange(
    op: &'static str,
    cmd: u16,
    req_of: impl FnOnce(u32) -> Result<Request>,
) -> Result<Vec<Vec<u8>>> {
    let mut sock = NlSocket::open()?;
    let seq = sock.fresh_seq();
    let req = req_of(seq)?;
    let ty = nl_type(RDMA_NL_NLDEV, cmd);
    let datagrams = sock.raw_exchange(req.bytes(), seq, ty)?;
    for d in &datagrams {
        parse_answer(d, seq, ty, op, |_| Ok(()))?;
    }
    Ok(datagrams)
}

/// The `NEWLINK` request that [`add`] sends.
///
/// # Errors
///
/// [`Error::BadArgument`] when the names do not fit in one request (names of up to 15
/// bytes, as [`add`] checks, always fit).
pub fn newlink_request(seq: u32, name: &str, kind: LinkType, netdev: &str) -> Result<Request> {
    let mut r = request(RDMA_NLDEV_CMD_NEWLINK, NLM_F_REQUEST | NLM_F_ACK, seq);
    r.attr_str(RDMA_NLDEV_ATTR_DEV_NAME, name)?
        .attr_str(RDMA_NLDEV_ATTR_LINK_TYPE, kind.as_str())?
        .attr_str(RDMA_NLDEV_ATTR_NDEV_NAME, netdev)?;
    Ok(r)
}

/// Creates the software device `name` of `kind` over the network interface `netdev`
/// (`rdma link add NAME type rxe|siw netdev NETDEV`).
///
/// # Errors
///
/// [`Error::BadArgument`] for a name the kernel cannot take (empty, over 15 bytes, with
/// `/`, a space or NUL) and when no network interface is called `netdev`; as
/// [`NlSocket::open`](crate::netlink::NlSocket::open); the kernel's errno, classified:
/// [`Error::Os`] with `EPERM` without `CAP_NET_ADMIN`, `EEXIST` when the name is taken,
/// [`Error::NotSupported`] when the driver of `kind` is not available.
pub fn add(name: &str, kind: LinkType, netdev: &str) -> Result<()> {
    const OP: &str = "link add";
    check_name(OP, "the device name", name)?;
    check_name(OP, "the netdev name", netdev)?;
    exchange(OP, RDMA_NLDEV_CMD_NEWLINK, |seq| {
        newlink_request(seq, name, kind, netdev)
    })
    .map(|_| ())
    .map_err(|e| match e.errno() {
        // The kernel's answer when the netdev does not exist.
        Some(rustix::io::Errno::NODEV) => Error::BadArgument {
            op: Op::new(OP, name),
            reason: format!("no network interface named '{netdev}' (ENODEV)"),
        },
        _ => e.for_op(Op::new(OP, name)),
    })
}

/// Deletes the software device `name` (`rdma link delete NAME`). The kernel waits for
/// every process to close the device's uverbs file first (rxe, siw: no disassociation).
///
/// # Errors
///
/// [`Error::BadArgument`] for an impossible name; [`Error::NoSuchDevice`]; as
/// [`NlSocket::open`](crate::netlink::NlSocket::open) and the device dump; the kernel's
/// errno, classified ([`Error::Os`] with `EPERM` without `CAP_NET_ADMIN`,
/// [`Error::NotSupported`] for a device that is not a soft link).
pub fn del(name: &str) -> Result<()> {
    const OP: &str = "link delete";
    check_name(OP, "the device name", name)?;
    let index = NlSocket::open()?
        .devices()?
        .into_iter()
        .find(|d| d.name == name)
        .ok_or_else(|| Error::NoSuchDevice {
            name: name.to_owned(),
        })?
        .index;
    exchange(OP, RDMA_NLDEV_CMD_DELLINK, |seq| {
        let mut r = request(RDMA_NLDEV_CMD_DELLINK, NLM_F_REQUEST | NLM_F_ACK, seq);
        r.attr_u32(RDMA_NLDEV_ATTR_DEV_INDEX, index)?;
        Ok(r)
    })
    .map(|_| ())
    .map_err(|e| e.for_op(Op::new(OP, name)))
}

/// Decodes one `PORT_GET` answer message.
///
/// # Errors
///
/// [`Error::Protocol`] for a malformed attribute, a short `DEV_INDEX`, `PORT_INDEX`,
/// `PORT_STATE` or `PORT_PHYS_STATE`, or a port without device name or number.
pub fn parse_port(payload: &[u8]) -> Result<Link> {
    let bad = |detail: String| Error::Protocol {
        op: Op::new("nldev PORT_GET", ""),
        detail,
    };
    let mut l = Link {
        dev_index: u32::MAX,
        device: String::new(),
        port: 0,
        state: PortState::Nop,
        phys_state: PhysState::Unknown(0),
        netdev: None,
        netdev_index: None,
    };
    let u32_of =
        |v: &[u8]| -> Option<u32> { Some(u32::from_ne_bytes(v.get(..4)?.try_into().ok()?)) };
    let str_of = |v: &[u8]| -> String {
        let v = v.split(|&c| c == 0).next().unwrap_or(&[]);
        String::from_utf8_lossy(v).into_owned()
    };
    for a in attrs(payload) {
        let a = a?;
        match a.kind {
            RDMA_NLDEV_ATTR_DEV_INDEX => {
                l.dev_index = u32_of(a.value).ok_or_else(|| bad("short DEV_INDEX".into()))?
            }
            RDMA_NLDEV_ATTR_DEV_NAME => l.device = str_of(a.value),
            RDMA_NLDEV_ATTR_PORT_INDEX => {
                l.port = u32_of(a.value).ok_or_else(|| bad("short PORT_INDEX".into()))?
            }
            RDMA_NLDEV_ATTR_PORT_STATE => {
                l.state = PortState::from_raw(
                    *a.value
                        .first()
                        .ok_or_else(|| bad("empty PORT_STATE".into()))?,
                )
            }
            RDMA_NLDEV_ATTR_PORT_PHYS_STATE => {
                l.phys_state = PhysState::from_raw(
                    *a.value
                        .first()
                        .ok_or_else(|| bad("empty PORT_PHYS_STATE".into()))?,
                )
            }
            RDMA_NLDEV_ATTR_NDEV_INDEX => l.netdev_index = u32_of(a.value),
            RDMA_NLDEV_ATTR_NDEV_NAME => l.netdev = Some(str_of(a.value)),
            _ => {}
        }
    }
    if l.device.is_empty() || l.port == 0 {
        return Err(bad("a port without device name or port number".into()));
    }
    Ok(l)
}

/// Every port of every device with its state and netdev (`rdma link show`), by device
/// index then port.
///
/// # Errors
///
/// As [`NlSocket::open`](crate::netlink::NlSocket::open) and the exchanges on it
/// ([`parse_answer`], [`parse_port`]).
pub fn show() -> Result<Vec<Link>> {
    const OP: &str = "nldev PORT_GET";
    let mut sock = NlSocket::open()?;
    let devices = sock.devices()?;
    let mut out = Vec::new();
    let ty = nl_type(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_PORT_GET);
    for d in devices {
        let seq = sock.fresh_seq();
        let mut req = request(RDMA_NLDEV_CMD_PORT_GET, NLM_F_REQUEST | NLM_F_DUMP, seq);
        req.attr_u32(RDMA_NLDEV_ATTR_DEV_INDEX, d.index)?;
        for dg in sock.raw_exchange(req.bytes(), seq, ty)? {
            parse_answer(&dg, seq, ty, OP, |p| {
                out.push(parse_port(p)?);
                Ok(())
            })?;
        }
    }
    out.sort_by_key(|l| (l.dev_index, l.port));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newlink_request_bytes() {
        let r = newlink_request(9, "rxe7", LinkType::Rxe, "eth0").unwrap();
        let want: Vec<u8> = [
            &48u32.to_ne_bytes()[..],
            &((5u16 << 10) + 3).to_ne_bytes(), // RDMA_NL_NLDEV, NEWLINK
            &5u16.to_ne_bytes(),               // REQUEST | ACK
            &9u32.to_ne_bytes(),
            &0u32.to_ne_bytes(),
            &[9, 0, 2, 0],
            b"rxe7\0",
            &[0, 0, 0], // DEV_NAME
            &[8, 0, 65, 0],
            b"rxe\0", // LINK_TYPE
            &[9, 0, 51, 0],
            b"eth0\0",
            &[0, 0, 0], // NDEV_NAME
        ]
        .concat();
        assert_eq!(r.bytes(), &want[..]);
        assert_eq!(r.seq(), 9);
    }

    #[test]
    fn bad_names_are_refused_before_any_syscall() {
        for n in ["", "a/b", "has space", "sixteen_chars_xx"] {
            assert!(
                matches!(
                    add(n, LinkType::Rxe, "eth0"),
                    Err(Error::BadArgument { .. })
                ),
                "{n:?}"
            );
            assert!(
                matches!(
                    add("rxe9", LinkType::Siw, n),
                    Err(Error::BadArgument { .. })
                ),
                "{n:?}"
            );
        }
    }

    #[test]
    fn port_message_decodes_and_garbage_does_not_panic() {
        let mut r = Request::new(0, 0, 0);
        r.attr_u32(RDMA_NLDEV_ATTR_DEV_INDEX, 3)
            .unwrap()
            .attr_str(RDMA_NLDEV_ATTR_DEV_NAME, "siw0")
            .unwrap()
            .attr_u32(RDMA_NLDEV_ATTR_PORT_INDEX, 1)
            .unwrap()
            .attr(RDMA_NLDEV_ATTR_PORT_STATE, &[4])
            .unwrap()
            .attr(RDMA_NLDEV_ATTR_PORT_PHYS_STATE, &[5])
            .unwrap()
            .attr_u32(RDMA_NLDEV_ATTR_NDEV_INDEX, 7)
            .unwrap()
            .attr_str(RDMA_NLDEV_ATTR_NDEV_NAME, "siwnet0")
            .unwrap();
        let p = r.bytes()[16..].to_vec();
        let l = parse_port(&p).unwrap();
        assert_eq!((l.dev_index, l.device.as_str(), l.port), (3, "siw0", 1));
        assert_eq!(
            (l.state, l.phys_state),
            (PortState::Active, PhysState::LinkUp)
        );
        assert_eq!(
            (l.netdev.as_deref(), l.netdev_index),
            (Some("siwnet0"), Some(7))
        );
        for cut in 0..p.len() {
            let _ = parse_port(&p[..cut]);
        }
        let mut empty_state = Request::new(0, 0, 0);
        empty_state.attr(RDMA_NLDEV_ATTR_PORT_STATE, &[]).unwrap();
        assert!(parse_port(&empty_state.bytes()[16..]).is_err());
    }
}
