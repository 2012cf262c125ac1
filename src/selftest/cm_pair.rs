//! siw's side of the data cases' pair: two RC QPs of one siw device connected to each
//! other by the crate's RDMA CM ([`crate::cm`]), since an iWARP QP reaches RTS only
//! through the iWARP CM (a TCP connection and MPA), never by `modify_qp`. The address is
//! the IPv4 address of the device's own interface (its port's netdev, from RDMA
//! netlink), found over `NETLINK_ROUTE`; the passive side runs in a scoped thread of the same process, no fork.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use rustix::io::Errno;

use crate::cm::{CmChannel, CmEvent, CmId, ConnParam};
use crate::netlink::{link, route};
use crate::selftest::Outcome;
use crate::types::CmEventType;
use crate::verbs::discover::DeviceInfo;
use crate::verbs::objects::Qp;

/// The CM ids of a connected pair: the listener and both ends. Dropping them ends the
/// connection (the QPs go to the error state), so the pair keeps them as long as its QPs.
#[derive(Debug)]
pub(super) struct CmConn {
    /// The active end, the passive end, the listener.
    pub(super) ids: [CmId; 3],
    /// The passive side's CONNECT_REQUEST, its ESTABLISHED, and the active side's answer
    /// (ESTABLISHED on iWARP, CONNECT_RESPONSE on InfiniBand and RoCE).
    pub(super) events: [CmEvent; 3],
}

pub(super) fn fail(what: &str, e: impl std::fmt::Display) -> Outcome {
    let mut o = Outcome::new();
    o.fail(format!("{what}: {e}"));
    o
}

/// The first IPv4 address of port 1's network interface (nldev `PORT_GET`'s netdev: an
/// iWARP GID names none).
pub(super) fn address(info: &DeviceInfo) -> Result<IpAddr, Outcome> {
    let links = link::show().map_err(|e| fail("nldev PORT_GET", e))?;
    let Some(ifindex) = links
        .iter()
        .find(|l| l.device == info.name && l.port == 1)
        .and_then(|l| l.netdev_index)
    else {
        return Err(Outcome::skip("port 1 has no network interface"));
    };
    let addrs = route::ipv4_addrs(ifindex).map_err(|e| fail("RTM_GETADDR", e))?;
    match addrs.first() {
        Some(ip) => Ok(IpAddr::V4(*ip)),
        None => Err(Outcome::skip(format!(
            "{}'s interface (ifindex {ifindex}) has no IPv4 address: iWARP connects over TCP",
            info.name
        ))),
    }
}

/// Opens the RDMA CM's file; without one (`rdma_ucm` not loaded: modprobe rdma_ucm, or
/// --modules) the case is skipped.
#[inline(never)]
pub(super) fn open() -> Result<Arc<CmChannel>, Outcome> {
    CmChannel::open().map_err(|e| match e.errno() {
        Some(Errno::NOENT | Errno::NODEV) => {
            Outcome::skip(format!("no RDMA CM (/dev/infiniband/rdma_cm: {e})"))
        }
        _ => fail("open /dev/infiniband/rdma_cm", e),
    })
}

/// Connects `a` (active) and `b` (passive), two RC QPs of `info` in the RESET state,
/// through the RDMA CM on `info`'s own address, each step under `deadline`.
pub(super) fn connect(
    info: &DeviceInfo,
    a: &Qp,
    b: &Qp,
    deadline: Duration,
) -> Result<CmConn, Outcome> {
    let p = ConnParam::default();
    connect_with(info, a, b, deadline, [&p, &p])
}

/// [`connect`] with the active side's CONNECT and the passive side's ACCEPT parameters.
pub(super) fn connect_with(
    info: &DeviceInfo,
    a: &Qp,
    b: &Qp,
    deadline: Duration,
    [cp, ap]: [&ConnParam; 2],
) -> Result<CmConn, Outcome> {
    let ip = address(info)?;
    let cm = |what: &'static str| move |e: crate::error::Error| fail(what, e);
    // One channel per side: a wait on a channel takes its next event, whichever id it is for.
    let (lch, cch) = (open()?, open()?);
    let listen = lch.create_id().map_err(cm("CREATE_ID"))?;
    listen.bind(SocketAddr::new(ip, 0)).map_err(cm("BIND_IP"))?;
    listen.listen(1).map_err(cm("LISTEN"))?;
    let at = listen
        .query_addr()
        .map_err(cm("QUERY (listener)"))?
        .src
        .ok_or_else(|| fail("QUERY (listener)", "no bound address"))?;
    let passive = |lch: &Arc<CmChannel>| -> Result<(CmId, CmEvent, CmEvent), Outcome> {
        let req = lch
            .get_event(Some(deadline))
            .map_err(cm("GET_EVENT"))?
            .ok_or_else(|| fail("GET_EVENT", "no connection request in time"))?;
        if req.kind != CmEventType::ConnectRequest {
            return Err(fail("GET_EVENT", format!("{:?}, not a request", req.kind)));
        }
        let id = CmId::from_request(lch, &req).map_err(cm("MIGRATE_ID"))?;
        id.init_qp(b).map_err(cm("INIT_QP_ATTR (passive)"))?;
        let est = id.accept(b, ap, deadline).map_err(cm("ACCEPT"))?;
        Ok((id, req, est))
    };
    // The active side's address and route first: a device mismatch ends it before
    // anyone waits for a request.
    let id = cch.create_id().map_err(cm("CREATE_ID"))?;
    id.resolve_addr(at, deadline).map_err(cm("RESOLVE_IP"))?;
    id.resolve_route(deadline).map_err(cm("RESOLVE_ROUTE"))?;
    let dev = id
        .query_addr()
        .and_then(|a| a.device())
        .map_err(cm("QUERY (active)"))?;
    if dev.name != info.name {
        return Err(Outcome::skip(format!(
            "{at} leads the RDMA CM to {}, not {}",
            dev.name, info.name
        )));
    }
    id.init_qp(a).map_err(cm("INIT_QP_ATTR (active)"))?;
    let (client, server) = std::thread::scope(|s| {
        let server = s.spawn(|| passive(&lch));
        let client = id.connect(a, cp, deadline);
        // Should the connect fail before the request left, the passive side waits for
        // it until the deadline.
        (client, server.join())
    });
    let answer = client.map_err(cm("CONNECT"))?;
    let (server, req, est) = server.map_err(|_| fail("the passive side", "panicked"))??;
    Ok(CmConn {
        ids: [id, server, listen],
        events: [req, est, answer],
    })
}
