//! Network interfaces over `NETLINK_ROUTE`, as far as a self-test needs them: create a
//! dummy interface to put a software RDMA link on, set it up or down (which rxe and
//! siw report as port events), delete it, give it an IPv4 address and list those. What
//! `ip link add NAME type dummy`, `ip link set NAME up|down`, `ip link del NAME` and
//! `ip -4 addr` do, with no iproute2 in the root.
//!
//! Each needs `CAP_NET_ADMIN`; a dummy interface needs the `dummy` module (loaded by
//! the kernel on demand where it can).

use std::net::Ipv4Addr;

use zerocopy::{FromBytes, IntoBytes};

use super::{attrs, parse_answer, NlSocket, Request};
use crate::error::{Error, Op, Result};
use crate::raw::abi::netlink::*;

fn check_name(op: &'static str, name: &str) -> Result<()> {
    // IFNAMSIZ is 16 with the NUL.
    if name.is_empty() || name.len() > 15 || name.contains(['/', '\0', ' ', ':']) {
        return Err(Error::BadArgument {
            op: Op::new(op, name),
            reason: "an interface name is 1 to 15 characters without '/', ':', spaces or NUL"
                .into(),
        });
    }
    Ok(())
}

/// A request of type `ty` naming interface `name`, with `flags` and `change` in its
/// `ifinfomsg`.
fn link_request(
    ty: u16,
    extra: u16,
    seq: u32,
    name: &str,
    flags: u32,
    change: u32,
) -> Result<Request> {
    let mut r = Request::new(ty, NLM_F_REQUEST | NLM_F_ACK | extra, seq);
    let ifi = ifinfomsg {
        ifi_flags: flags,
        ifi_change: change,
        ..ifinfomsg::default()
    };
    r.family_header(ifi.as_bytes())?
        .attr_str(IFLA_IFNAME, name)?;
    Ok(r)
}

/// The request [`add_dummy`] sends: `RTM_NEWLINK`, create-exclusive, named, of kind
/// `dummy`.
///
/// # Errors
///
/// [`Error::BadArgument`] for a name that does not fit (checked names always do).
pub fn add_dummy_request(seq: u32, name: &str) -> Result<Request> {
    let mut r = link_request(RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL, seq, name, 0, 0)?;
    r.nested(IFLA_LINKINFO, |i| i.attr_str(IFLA_INFO_KIND, "dummy"))?;
    Ok(r)
}

/// The request [`set_up`] sends: `RTM_NEWLINK` on an existing interface, changing only
/// `IFF_UP`.
///
/// # Errors
///
/// As [`add_dummy_request`].
pub fn set_up_request(seq: u32, name: &str, up: bool) -> Result<Request> {
    link_request(
        RTM_NEWLINK,
        0,
        seq,
        name,
        if up { IFF_UP } else { 0 },
        IFF_UP,
    )
}

/// The request [`delete`] sends: `RTM_DELLINK` by name.
///
/// # Errors
///
/// As [`add_dummy_request`].
pub fn delete_request(seq: u32, name: &str) -> Result<Request> {
    link_request(RTM_DELLINK, 0, seq, name, 0, 0)
}

/// Sends the request `req_of` builds and waits for the kernel's acknowledgement. Not
/// inlined: the three requests share one copy of the exchange.
#[inline(never)]
fn acked(op: &'static str, name: &str, req_of: &dyn Fn(u32) -> Result<Request>) -> Result<()> {
    check_name(op, name)?;
    let mut sock = NlSocket::open_route()?;
    let seq = sock.fresh_seq();
    let req = req_of(seq)?;
    let ty = u16::from_ne_bytes([req.bytes()[4], req.bytes()[5]]);
    let datagrams = sock.raw_exchange(req.bytes(), seq, ty)?;
    for d in &datagrams {
        parse_answer(d, seq, ty, op, |_| Ok(())).map_err(|e| e.for_op(Op::new(op, name)))?;
    }
    Ok(())
}

/// Creates the dummy interface `name` (down, as a new interface is).
///
/// # Errors
///
/// [`Error::BadArgument`] for a name the kernel cannot take; as
/// [`NlSocket::open_route`]; the kernel's errno, classified: `EEXIST` when the name is
/// taken, `EPERM` without `CAP_NET_ADMIN`, `EOPNOTSUPP` without the `dummy` module.
pub fn add_dummy(name: &str) -> Result<()> {
    acked("interface add", name, &|seq| add_dummy_request(seq, name))
}

/// Sets interface `name` administratively up or down.
///
/// # Errors
///
/// As [`add_dummy`]; `ENODEV` when no interface has that name.
pub fn set_up(name: &str, up: bool) -> Result<()> {
    acked(
        if up { "interface up" } else { "interface down" },
        name,
        &|seq| set_up_request(seq, name, up),
    )
}

/// Deletes interface `name`.
///
/// # Errors
///
/// As [`set_up`].
pub fn delete(name: &str) -> Result<()> {
    acked("interface delete", name, &|seq| delete_request(seq, name))
}

/// The request [`add_ipv4`] sends: `RTM_NEWADDR`, create-exclusive, `addr/prefix` on
/// the interface with index `ifindex` (scope universe; the local and the interface
/// address the same, as on a broadcast interface).
///
/// # Errors
///
/// None in practice: the request always fits.
pub fn add_ipv4_request(seq: u32, ifindex: u32, addr: Ipv4Addr, prefix: u8) -> Result<Request> {
    let mut r = Request::new(
        RTM_NEWADDR,
        NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL,
        seq,
    );
    let ifa = ifaddrmsg {
        ifa_family: AF_INET,
        ifa_prefixlen: prefix,
        ifa_index: ifindex,
        ..ifaddrmsg::default()
    };
    r.family_header(ifa.as_bytes())?
        .attr(IFA_LOCAL, &addr.octets())?
        .attr(IFA_ADDRESS, &addr.octets())?;
    Ok(r)
}

/// Adds `addr/prefix` to the interface with index `ifindex` (what `ip addr add` does).
///
/// # Errors
///
/// As [`NlSocket::open_route`]; the kernel's errno, classified: `EEXIST` when the
/// interface has the address, `ENODEV` for no such interface, `EPERM` without
/// `CAP_NET_ADMIN`, `EINVAL` for a prefix over 32.
pub fn add_ipv4(ifindex: u32, addr: Ipv4Addr, prefix: u8) -> Result<()> {
    const OP: &str = "address add";
    let what = format!("{addr}/{prefix} on ifindex {ifindex}");
    let mut sock = NlSocket::open_route()?;
    let seq = sock.fresh_seq();
    let req = add_ipv4_request(seq, ifindex, addr, prefix)?;
    let datagrams = sock.raw_exchange(req.bytes(), seq, RTM_NEWADDR)?;
    for d in &datagrams {
        parse_answer(d, seq, RTM_NEWADDR, OP, |_| Ok(()))
            .map_err(|e| e.for_op(Op::new(OP, &what)))?;
    }
    Ok(())
}

/// The request [`ipv4_addrs`] sends: `RTM_GETADDR`, a dump of the IPv4 addresses of
/// every interface (the kernel filters a dump by family only).
///
/// # Errors
///
/// None in practice: the request always fits.
pub fn ipv4_addrs_request(seq: u32) -> Result<Request> {
    let mut r = Request::new(RTM_GETADDR, NLM_F_REQUEST | NLM_F_DUMP, seq);
    let ifa = ifaddrmsg {
        ifa_family: AF_INET,
        ..ifaddrmsg::default()
    };
    r.family_header(ifa.as_bytes())?;
    Ok(r)
}

/// The interface index and IPv4 address of one message of an address dump (its
/// `IFA_LOCAL`, else its `IFA_ADDRESS`), or `None` for another family or a message
/// without either.
///
/// # Errors
///
/// [`Error::Protocol`] for a payload shorter than `ifaddrmsg` or a malformed attribute.
pub fn ipv4_of(payload: &[u8]) -> Result<Option<(u32, Ipv4Addr)>> {
    const OP: &str = "address list";
    let bad = |why: &str| Error::Protocol {
        op: Op::new(OP, "NETLINK_ROUTE"),
        detail: why.into(),
    };
    let (ifa, rest) =
        ifaddrmsg::read_from_prefix(payload).map_err(|_| bad("message shorter than ifaddrmsg"))?;
    if ifa.ifa_family != AF_INET {
        return Ok(None);
    }
    let (mut local, mut address) = (None, None);
    for a in attrs(rest) {
        let a = a?;
        let v = <[u8; 4]>::try_from(a.value).ok().map(Ipv4Addr::from);
        match a.kind {
            IFA_LOCAL => local = v,
            IFA_ADDRESS => address = v,
            _ => {}
        }
    }
    Ok(local.or(address).map(|ip| (ifa.ifa_index, ip)))
}

/// The IPv4 addresses of the interface with index `ifindex`, in the kernel's order.
///
/// # Errors
///
/// As [`NlSocket::open_route`] and [`NlSocket::transact`].
pub fn ipv4_addrs(ifindex: u32) -> Result<Vec<Ipv4Addr>> {
    let mut sock = NlSocket::open_route()?;
    let seq = sock.fresh_seq();
    let req = ipv4_addrs_request(seq)?;
    let mut out = Vec::new();
    sock.transact(req.bytes(), seq, RTM_NEWADDR, "address list", |p| {
        if let Some((i, ip)) = ipv4_of(p)? {
            if i == ifindex {
                out.push(ip);
            }
        }
        Ok(())
    })?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    // The bytes the uapi layout gives; tests/selftest.rs's `--create` test has the
    // kernel take them (a dummy made, set up and down, deleted).
    #[test]
    fn add_dummy_bytes() {
        let r = add_dummy_request(7, "uvst0").unwrap();
        let b = r.bytes();
        let mut want = Vec::new();
        // nlmsghdr: length 60, RTM_NEWLINK, REQUEST|ACK|EXCL|CREATE, seq 7, pid 0.
        want.extend_from_slice(&60u32.to_ne_bytes());
        want.extend_from_slice(&16u16.to_ne_bytes());
        want.extend_from_slice(&0x605u16.to_ne_bytes());
        want.extend_from_slice(&7u32.to_ne_bytes());
        want.extend_from_slice(&0u32.to_ne_bytes());
        // ifinfomsg: all zero.
        want.extend_from_slice(&[0; 16]);
        // IFLA_IFNAME "uvst0\0", padded to 8.
        want.extend_from_slice(&10u16.to_ne_bytes());
        want.extend_from_slice(&3u16.to_ne_bytes());
        want.extend_from_slice(b"uvst0\0\0\0");
        // IFLA_LINKINFO (nested, 16 bytes) holding IFLA_INFO_KIND "dummy\0", padded.
        want.extend_from_slice(&16u16.to_ne_bytes());
        want.extend_from_slice(&(18u16 | 0x8000).to_ne_bytes());
        want.extend_from_slice(&10u16.to_ne_bytes());
        want.extend_from_slice(&1u16.to_ne_bytes());
        want.extend_from_slice(b"dummy\0\0\0");
        assert_eq!(b, &want[..]);
    }

    #[test]
    fn up_down_delete_bytes() {
        let up = set_up_request(1, "d", true).unwrap();
        let b = up.bytes();
        assert_eq!(b.len(), 16 + 16 + 8);
        assert_eq!(&b[4..6], &16u16.to_ne_bytes(), "RTM_NEWLINK");
        assert_eq!(&b[6..8], &5u16.to_ne_bytes(), "REQUEST|ACK, no CREATE");
        assert_eq!(&b[24..28], &1u32.to_ne_bytes(), "ifi_flags IFF_UP");
        assert_eq!(&b[28..32], &1u32.to_ne_bytes(), "ifi_change IFF_UP");
        assert_eq!(&b[32..34], &6u16.to_ne_bytes(), "IFLA_IFNAME of 2 bytes");
        assert_eq!(&b[34..36], &3u16.to_ne_bytes());
        assert_eq!(&b[36..40], b"d\0\0\0");
        let down = set_up_request(2, "d", false).unwrap();
        assert_eq!(&down.bytes()[24..28], &0u32.to_ne_bytes());
        assert_eq!(&down.bytes()[28..32], &1u32.to_ne_bytes());
        let del = delete_request(3, "d").unwrap();
        assert_eq!(&del.bytes()[4..6], &17u16.to_ne_bytes(), "RTM_DELLINK");
        assert_eq!(&del.bytes()[16..32], &[0; 16]);
    }

    #[test]
    fn ipv4_dump_request_bytes() {
        let r = ipv4_addrs_request(9).unwrap();
        let mut want = Vec::new();
        // nlmsghdr: length 24, RTM_GETADDR, REQUEST|DUMP, seq 9, pid 0.
        want.extend_from_slice(&24u32.to_ne_bytes());
        want.extend_from_slice(&22u16.to_ne_bytes());
        want.extend_from_slice(&0x301u16.to_ne_bytes());
        want.extend_from_slice(&9u32.to_ne_bytes());
        want.extend_from_slice(&0u32.to_ne_bytes());
        // ifaddrmsg: AF_INET, the rest zero.
        want.extend_from_slice(&[2, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(r.bytes(), &want[..]);
    }

    #[test]
    fn add_ipv4_bytes() {
        let r = add_ipv4_request(5, 7, Ipv4Addr::new(169, 254, 250, 1), 24).unwrap();
        let mut want = Vec::new();
        // nlmsghdr: length 40, RTM_NEWADDR, REQUEST|ACK|EXCL|CREATE, seq 5, pid 0.
        want.extend_from_slice(&40u32.to_ne_bytes());
        want.extend_from_slice(&20u16.to_ne_bytes());
        want.extend_from_slice(&0x605u16.to_ne_bytes());
        want.extend_from_slice(&5u32.to_ne_bytes());
        want.extend_from_slice(&0u32.to_ne_bytes());
        // ifaddrmsg: AF_INET, /24, no flags, scope universe, ifindex 7.
        want.extend_from_slice(&[2, 24, 0, 0]);
        want.extend_from_slice(&7u32.to_ne_bytes());
        // IFA_LOCAL and IFA_ADDRESS, 169.254.250.1 each.
        for ty in [2u16, 1] {
            want.extend_from_slice(&8u16.to_ne_bytes());
            want.extend_from_slice(&ty.to_ne_bytes());
            want.extend_from_slice(&[169, 254, 250, 1]);
        }
        assert_eq!(r.bytes(), &want[..]);
    }

    /// One message of the dump above as Linux 6.1 answered it in the VM rig (x86_64,
    /// tests/link.rs prints the whole dump): siwnet0, ifindex 3, 169.254.129.1/24, with
    /// IFA_ADDRESS, IFA_LOCAL, IFA_LABEL, IFA_FLAGS and IFA_CACHEINFO.
    const SIWNET0: &str =
        "021880000300000008000100a9fe810108000200a9fe81010c0003007369776e65743000080008008000000014000600ffffffffffffffffa2040000a2040000";

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn ipv4_of_a_recorded_message() {
        let mut m = unhex(SIWNET0);
        assert_eq!(
            ipv4_of(&m).unwrap(),
            Some((3, Ipv4Addr::new(169, 254, 129, 1)))
        );
        // Another family is not an IPv4 address.
        m[0] = 10;
        assert_eq!(ipv4_of(&m).unwrap(), None);
        // Shorter than ifaddrmsg, or an attribute running past the end: errors.
        assert!(ipv4_of(&m[..4]).is_err());
        m[0] = 2;
        assert!(ipv4_of(&m[..14]).is_err());
    }

    #[test]
    fn names_are_checked() {
        for bad in ["", "a/b", "a b", "a:b", "sixteen_chars_xx"] {
            assert!(
                matches!(add_dummy(bad), Err(Error::BadArgument { .. })),
                "{bad:?}"
            );
        }
    }
}
