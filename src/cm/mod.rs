//! A minimal RDMA connection manager (`/dev/infiniband/rdma_cm`, librdmacm's job), for
//! what the verbs alone cannot do: a siw (iWARP) queue pair reaches RTS only through
//! the iWARP CM, which hands it a TCP socket and the MPA parameters (`modify_qp` to RTS
//! fails on siw). It also connects rxe (RoCE) queue pairs the way librdmacm does.
//!
//! The active side:
//!
//! ```no_run
//! # fn main() -> uverbs::Result<()> {
//! use std::sync::Arc;
//! use std::time::Duration;
//! use uverbs::cm::{CmChannel, ConnParam};
//! use uverbs::verbs::objects::{QpCap, QpInit};
//! use uverbs::{CmEventType, Context, QpType};
//!
//! let t = Duration::from_secs(5);
//! let ch = CmChannel::open()?;
//! let id = ch.create_id()?;
//! id.resolve_addr("169.254.129.1:7174".parse().unwrap(), t)?;
//! id.resolve_route(t)?;
//! let ctx = Arc::new(Context::open(&id.query_addr()?.device()?)?);
//! let pd = ctx.alloc_pd()?;
//! let cq = ctx.create_cq(16, None, 0)?;
//! let qp = pd.create_qp(&QpInit::new(QpType::Rc, &cq, &cq).cap(QpCap {
//!     max_send_wr: 16, max_recv_wr: 16, max_send_sge: 1, max_recv_sge: 1, max_inline_data: 0,
//! }))?;
//! id.init_qp(&qp)?;
//! id.connect(&qp, &ConnParam::default(), t)?; // ESTABLISHED: the QP is in RTS
//! # Ok(())
//! # }
//! ```
//!
//! The passive side binds an id, listens, takes the [`CmEventType::ConnectRequest`]
//! event ([`CmChannel::get_event`]), adopts the new id it names
//! ([`CmId::from_request`]), and accepts ([`CmId::accept`]).
//!
//! Commands that resolve or connect answer by an event; the methods here that wait for
//! one keep the other ids' events for their own waits ([`CmChannel::get_event`] gives
//! them out in order).

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rustix::io::Errno;
use zerocopy::FromBytes;

use crate::error::{Error, Op, Result};
use crate::raw::abi::ib_uverbs_qp_attr;
use crate::raw::abi::rdma_cm::*;
use crate::raw::cm::{self as raw, CmFile};
use crate::raw::lifeline::PollOnly;
use crate::types::Gid;
use crate::types::{AccessFlags, CmEventType, MigState, Mtu, QpAttrMask, QpState};
use crate::verbs::discover::{DeviceInfo, Discovery};
use crate::verbs::objects::{AhAttr, GlobalRoute, ModifyQp, Qp};

const DEV: &str = "rdma_cm";

fn err(what: &'static str, e: Errno) -> Error {
    Error::from_errno(Op::new(what, DEV), e)
}

/// The open `rdma_cm` file: the channel every id of it reports its events on.
#[derive(Debug)]
pub struct CmChannel {
    file: CmFile,
    /// What [`CmChannel::poll_fd`] lends.
    poll: PollOnly,
    next_uid: AtomicU64,
    /// Events read while waiting for another id's.
    pending: Mutex<VecDeque<CmEvent>>,
    /// The new ids that connection requests announced and no [`CmId`] owns yet: each is
    /// adopted at most once ([`CmId::from_request`]), so that no two `CmId`s destroy the
    /// same kernel id (the second DESTROY_ID could take an unrelated id that reused the
    /// number).
    requests: Mutex<Vec<u32>>,
    /// The ids with a CONNECT sent ([`CmId::connect_nowait`]) and not yet completed, with
    /// the kind of the answer read for each from the kernel: [`CmId::complete_connect`]
    /// acts only on an answer the kernel gave (an event's fields are public, so a made-up
    /// ESTABLISHED would otherwise record a QP as connected).
    connecting: Mutex<Vec<(u32, Option<CmEventType>)>>,
}

/// An event of the RDMA CM (`struct rdma_cm_event`).
#[derive(Debug, Clone)]
pub struct CmEvent {
    /// What happened.
    pub kind: CmEventType,
    /// The id it concerns (for a connection request: the new id).
    pub id: u32,
    /// The `uid` of the id it concerns (for a connection request: the listening id's).
    pub uid: u64,
    /// 0, a negative errno, or a reject reason.
    pub status: i32,
    /// The peer's connection parameters (connection requests and responses,
    /// ESTABLISHED).
    pub conn: ConnParam,
}

/// Connection parameters (`struct rdma_conn_param`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnParam {
    /// Private data, and its length: on InfiniBand and RoCE at most 56 bytes on CONNECT
    /// (the IB CM's REQ carries 92, of which the RDMA CM's header takes 36: 57 is
    /// EINVAL, `selftest` case `cm.connect.private_data_limit`) and 196 on ACCEPT (a
    /// REP's, cm.c `ib_send_cm_rep`); on iWARP the driver's MPA limit (siw's
    /// `MPA_MAX_PRIVDATA`, 256 bytes).
    pub private_data: [u8; RDMA_MAX_PRIVATE_DATA],
    /// Bytes of `private_data` used.
    pub private_data_len: u8,
    /// RDMA reads and atomics the local side serves at once.
    pub responder_resources: u8,
    /// RDMA reads and atomics the local side has outstanding at once.
    pub initiator_depth: u8,
    /// Transport retries (InfiniBand, RoCE).
    pub retry_count: u8,
    /// RNR retries (InfiniBand, RoCE).
    pub rnr_retry_count: u8,
}

impl Default for ConnParam {
    /// One outstanding read each way, 7 retries: as rping asks.
    fn default() -> Self {
        ConnParam {
            private_data: [0; RDMA_MAX_PRIVATE_DATA],
            private_data_len: 0,
            responder_resources: 1,
            initiator_depth: 1,
            retry_count: 7,
            rnr_retry_count: 7,
        }
    }
}

impl ConnParam {
    /// The private data.
    pub fn private_data(&self) -> &[u8] {
        &self.private_data[..usize::from(self.private_data_len).min(RDMA_MAX_PRIVATE_DATA)]
    }

    fn to_raw(self, qp: &Qp) -> rdma_ucm_conn_param {
        rdma_ucm_conn_param {
            qp_num: qp.qp_num(),
            qkey: 0,
            private_data: self.private_data,
            private_data_len: self.private_data_len,
            srq: u8::from(qp.srq().is_some()),
            responder_resources: self.responder_resources,
            initiator_depth: self.initiator_depth,
            flow_control: 0,
            retry_count: self.retry_count,
            rnr_retry_count: self.rnr_retry_count,
            valid: 1,
        }
    }

    fn from_raw(p: &rdma_ucm_conn_param) -> ConnParam {
        ConnParam {
            private_data: p.private_data,
            private_data_len: p.private_data_len,
            responder_resources: p.responder_resources,
            initiator_depth: p.initiator_depth,
            retry_count: p.retry_count,
            rnr_retry_count: p.rnr_retry_count,
        }
    }
}

impl CmChannel {
    /// A descriptor for an event loop: readable when an event waits
    /// ([`CmChannel::get_event`] reads it). It can only be polled: an `epoll` set that
    /// watches the `rdma_cm` file, made on the first call. The file itself is not lent:
    /// a `write(2)` on it carries any RDMA CM command, with a response address the writer
    /// chooses, which the kernel then writes to (issue 39's hole C).
    ///
    /// ```compile_fail,E0599
    /// # fn main() -> uverbs::Result<()> {
    /// use std::os::fd::AsFd;
    /// let ch = uverbs::cm::CmChannel::open()?;
    /// let _cm_file = ch.as_fd().try_clone_to_owned(); // error[E0599]: no `as_fd`
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    ///
    /// The errno of `epoll_create1(2)` or `epoll_ctl(2)`, the first time.
    pub fn poll_fd(&self) -> Result<std::os::fd::BorrowedFd<'_>> {
        self.poll
            .get(self.file.fd(), None)
            .map_err(|e| err("epoll of rdma_cm", e))
    }

    /// The `rdma_cm` file, for the crate's own waits (`uverbs::aio`, selftest).
    pub(crate) fn file_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.file.fd()
    }

    /// Opens `/dev/infiniband/rdma_cm` (see [`CmChannel::open_at`]).
    ///
    /// # Errors
    ///
    /// As [`CmChannel::open_at`].
    #[doc(alias = "rdma_create_event_channel")]
    pub fn open() -> Result<Arc<CmChannel>> {
        Self::open_at(Path::new("/dev/infiniband/rdma_cm"))
    }

    /// Opens the RDMA CM's file at `path`, checked to be the kernel's `rdma_cm`
    /// device (by its device number, against the kernel's own tables).
    ///
    /// # Errors
    ///
    /// The errno of `open(2)`, classified as by [`Error::from_errno`]; `ENODEV`
    /// ([`Error::DeviceGone`]) when the file is not the `rdma_cm` device (the
    /// `rdma_ucm` module is not loaded).
    pub fn open_at(path: &Path) -> Result<Arc<CmChannel>> {
        let file = CmFile::open(path).map_err(|e| err("open", e))?;
        Ok(Arc::new(CmChannel {
            file,
            poll: PollOnly::default(),
            next_uid: AtomicU64::new(1),
            pending: Mutex::new(VecDeque::new()),
            requests: Mutex::new(Vec::new()),
            connecting: Mutex::new(Vec::new()),
        }))
    }

    /// Creates an id for RC connections (CREATE_ID, port space TCP).
    ///
    /// # Errors
    ///
    /// The kernel's errno.
    #[doc(alias = "rdma_create_id")]
    pub fn create_id(self: &Arc<Self>) -> Result<CmId> {
        let uid = self.next_uid.fetch_add(1, Ordering::Relaxed);
        let mut resp = rdma_ucm_create_id_resp::default();
        // IB_QPT_RC = 2.
        self.file
            .call(&mut raw::create_id(uid, RDMA_PS_TCP, 2, &mut resp))
            .map_err(|e| err("CREATE_ID", e))?;
        Ok(CmId {
            ch: self.clone(),
            id: resp.id,
            uid,
        })
    }

    /// The next event of any id, waiting at most `timeout` (`None`: no limit);
    /// `Ok(None)` on timeout. Events an id's wait set aside come first.
    ///
    /// # Errors
    ///
    /// The errno of GET_EVENT or `poll(2)`.
    #[doc(alias = "rdma_get_cm_event")]
    pub fn get_event(&self, timeout: Option<Duration>) -> Result<Option<CmEvent>> {
        if let Some(e) = self
            .pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .pop_front()
        {
            return Ok(Some(e));
        }
        self.read_event(timeout)
    }

    fn read_event(&self, timeout: Option<Duration>) -> Result<Option<CmEvent>> {
        let deadline = timeout.map(|t| Instant::now() + t);
        loop {
            let mut r = rdma_ucm_event_resp::default();
            match self.file.call(&mut raw::get_event(&mut r)) {
                Ok(()) => {
                    let conn = rdma_ucm_conn_param::read_from_prefix(&r.param[..])
                        .map(|(p, _)| ConnParam::from_raw(&p))
                        .unwrap_or_default();
                    let kind = CmEventType::from_raw(r.event);
                    if kind == CmEventType::ConnectRequest {
                        self.requests
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .push(r.id);
                    }
                    if let Some(c) = self
                        .connecting
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .iter_mut()
                        .find(|c| c.0 == r.id && c.1.is_none())
                    {
                        c.1 = Some(kind);
                    }
                    return Ok(Some(CmEvent {
                        kind,
                        id: r.id,
                        uid: r.uid,
                        status: r.status as i32,
                        conn,
                    }));
                }
                Err(Errno::AGAIN) | Err(Errno::INTR) => {}
                Err(e) => return Err(err("GET_EVENT", e)),
            }
            let left = match deadline {
                Some(d) => match d.checked_duration_since(Instant::now()) {
                    Some(l) => Some(l),
                    None => return Ok(None),
                },
                None => None,
            };
            let ts = left.map(|d| rustix::event::Timespec {
                tv_sec: i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
                tv_nsec: i64::from(d.subsec_nanos()),
            });
            let fd = self.file.fd();
            let mut fds = [rustix::event::PollFd::new(
                &fd,
                rustix::event::PollFlags::IN,
            )];
            match rustix::event::poll(&mut fds, ts.as_ref()) {
                Ok(_) | Err(Errno::INTR) => {}
                Err(e) => return Err(err("poll rdma_cm", e)),
            }
        }
    }

    /// Waits for the next event of id `id`, setting the others aside.
    fn wait_for(&self, id: u32, timeout: Duration) -> Result<CmEvent> {
        let deadline = Instant::now() + timeout;
        {
            let mut p = self.pending.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(i) = p.iter().position(|e| e.id == id) {
                if let Some(e) = p.remove(i) {
                    return Ok(e);
                }
            }
        }
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.read_event(Some(left))? {
                Some(e) if e.id == id => return Ok(e),
                Some(e) => self
                    .pending
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push_back(e),
                None => {
                    return Err(Error::Os {
                        op: Op::new("wait for an RDMA CM event", DEV),
                        errno: Errno::TIMEDOUT,
                    })
                }
            }
        }
    }
}

/// The compile-fail example of [`CmChannel::poll_fd`], with its one difference: the
/// descriptor that can only be polled is lent.
///
/// ```no_run
/// # fn main() -> uverbs::Result<()> {
/// let ch = uverbs::cm::CmChannel::open()?;
/// let _poll_only = ch.poll_fd()?.try_clone_to_owned();
/// # Ok(()) }
/// ```
#[cfg(doctest)]
pub struct CompileFailTwins;

/// An RDMA CM id (`struct rdma_cm_id`): one end of a connection, or a listener.
/// Destroyed (DESTROY_ID) when dropped.
#[derive(Debug)]
pub struct CmId {
    ch: Arc<CmChannel>,
    id: u32,
    uid: u64,
}

/// Where an id is bound: the device, the port, the addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CmAddr {
    /// The device's node GUID.
    pub node_guid: u64,
    /// The device's index (netlink `DEV_INDEX`).
    pub ibdev_index: u32,
    /// The port.
    pub port_num: u8,
    /// The local address.
    pub src: Option<SocketAddr>,
    /// The remote address.
    pub dst: Option<SocketAddr>,
}

impl CmAddr {
    /// The device the id is bound to (discovery by its index).
    ///
    /// # Errors
    ///
    /// As [`Discovery::devices`]; [`Error::NoSuchDevice`] when no device has the index.
    pub fn device(&self) -> Result<DeviceInfo> {
        Discovery::new()
            .devices()?
            .into_iter()
            .find(|d| d.index == Some(self.ibdev_index))
            .ok_or_else(|| Error::NoSuchDevice {
                name: format!("#{}", self.ibdev_index),
            })
    }
}

impl CmId {
    /// The kernel's number of the id.
    pub fn id(&self) -> u32 {
        self.id
    }

    /// The channel.
    pub fn channel(&self) -> &Arc<CmChannel> {
        &self.ch
    }

    /// Takes the new id of a connection request event of `ch`: once. The id is then
    /// this `CmId`'s, destroyed when it is dropped.
    ///
    /// # Errors
    ///
    /// [`Error::BadArgument`] for an event of another kind, and for an id that no
    /// connection request of `ch` announced or that was taken already (a second
    /// `CmId` of it would destroy it twice: the second time, perhaps an unrelated id
    /// that reused its number).
    pub fn from_request(ch: &Arc<CmChannel>, ev: &CmEvent) -> Result<CmId> {
        let bad = |reason: String| Error::BadArgument {
            op: Op::new("from_request", DEV),
            reason,
        };
        if ev.kind != CmEventType::ConnectRequest {
            return Err(bad(format!("a {:?} event carries no new id", ev.kind)));
        }
        {
            let mut r = ch.requests.lock().unwrap_or_else(|p| p.into_inner());
            match r.iter().position(|&id| id == ev.id) {
                Some(i) => {
                    r.swap_remove(i);
                }
                None => {
                    return Err(bad(format!(
                        "id {} was announced by no connection request of this channel, or \
                         was taken already",
                        ev.id
                    )))
                }
            }
        }
        Ok(CmId {
            ch: ch.clone(),
            id: ev.id,
            uid: ch.next_uid.fetch_add(1, Ordering::Relaxed),
        })
    }

    fn call(&self, what: &'static str, req: &mut raw::CmRequest<'_>) -> Result<()> {
        self.ch.file.call(req).map_err(|e| err(what, e))
    }

    /// Waits for this id's next event and checks it is `want`.
    fn expect(&self, want: CmEventType, timeout: Duration, what: &'static str) -> Result<CmEvent> {
        let e = self.ch.wait_for(self.id, timeout)?;
        if e.kind != want {
            return Err(Error::Protocol {
                op: Op::new(what, DEV),
                detail: format!(
                    "event {:?} (status {}) where {want:?} was awaited",
                    e.kind, e.status
                ),
            });
        }
        Ok(e)
    }

    /// Binds the id to a local address (BIND_IP).
    ///
    /// # Errors
    ///
    /// The kernel's errno (`EADDRNOTAVAIL` for an address no RDMA device has).
    #[doc(alias = "rdma_bind_addr")]
    pub fn bind(&self, addr: SocketAddr) -> Result<()> {
        self.call("BIND_IP", &mut raw::bind_ip(self.id, &raw::sockaddr(&addr)))
    }

    /// Listens for connection requests (LISTEN).
    ///
    /// # Errors
    ///
    /// The kernel's errno.
    #[doc(alias = "rdma_listen")]
    pub fn listen(&self, backlog: u32) -> Result<()> {
        self.call("LISTEN", &mut raw::listen(self.id, backlog))
    }

    /// Resolves the destination (RESOLVE_IP) and waits for
    /// [`CmEventType::AddrResolved`].
    ///
    /// # Errors
    ///
    /// The kernel's errno; [`Error::Protocol`] for another event.
    #[doc(alias = "rdma_resolve_addr")]
    pub fn resolve_addr(&self, dst: SocketAddr, timeout: Duration) -> Result<()> {
        self.resolve_addr_nowait(dst, timeout)?;
        self.expect(CmEventType::AddrResolved, timeout * 2, "RESOLVE_IP")
            .map(|_| ())
    }

    /// Starts resolving the destination (RESOLVE_IP) within `timeout` and returns: the
    /// answer is this id's next event ([`CmId::next_event`], [`CmChannel::get_event`]),
    /// [`CmEventType::AddrResolved`] or [`CmEventType::AddrError`] with its status.
    ///
    /// # Errors
    ///
    /// The kernel's errno, when it refuses at once.
    #[doc(alias = "rdma_resolve_addr")]
    pub fn resolve_addr_nowait(&self, dst: SocketAddr, timeout: Duration) -> Result<()> {
        let src = rdma_ucm_resolve_ip::default().src_addr;
        let ms = u32::try_from(timeout.as_millis()).unwrap_or(u32::MAX);
        self.call(
            "RESOLVE_IP",
            &mut raw::resolve_ip(self.id, &src, &raw::sockaddr(&dst), ms),
        )
    }

    /// Resolves the route (RESOLVE_ROUTE) and waits for
    /// [`CmEventType::RouteResolved`].
    ///
    /// # Errors
    ///
    /// The kernel's errno; [`Error::Protocol`] for another event.
    #[doc(alias = "rdma_resolve_route")]
    pub fn resolve_route(&self, timeout: Duration) -> Result<()> {
        let ms = u32::try_from(timeout.as_millis()).unwrap_or(u32::MAX);
        self.call("RESOLVE_ROUTE", &mut raw::resolve_route(self.id, ms))?;
        self.expect(CmEventType::RouteResolved, timeout * 2, "RESOLVE_ROUTE")
            .map(|_| ())
    }

    /// Where the id is bound (QUERY, `RDMA_USER_CM_QUERY_ADDR`).
    ///
    /// # Errors
    ///
    /// The kernel's errno.
    pub fn query_addr(&self) -> Result<CmAddr> {
        let mut r = rdma_ucm_query_addr_resp::default();
        self.call("QUERY", &mut raw::query_addr(self.id, &mut r))?;
        Ok(CmAddr {
            node_guid: u64::from_be(r.node_guid),
            ibdev_index: r.ibdev_index,
            port_num: r.port_num,
            src: raw::socket_addr(&r.src_addr),
            dst: raw::socket_addr(&r.dst_addr),
        })
    }

    /// Moves `qp` to `state` with the attributes the CM gives for it (INIT_QP_ATTR, then
    /// [`Qp::modify`]); a mask of nothing (iWARP's RTS) modifies nothing.
    fn modify_to(&self, qp: &Qp, state: QpState) -> Result<()> {
        let mut a = ib_uverbs_qp_attr::default();
        self.call(
            "INIT_QP_ATTR",
            &mut raw::init_qp_attr(self.id, state.as_raw(), &mut a),
        )?;
        let mut m = modify_from_kernel(&a);
        if m.mask().is_empty() {
            return Ok(());
        }
        qp.modify(&mut m)
    }

    /// Moves `qp` to INIT for this id's connection (`rdma_create_qp` does it).
    ///
    /// # Errors
    ///
    /// The kernel's errno of INIT_QP_ATTR or MODIFY_QP.
    pub fn init_qp(&self, qp: &Qp) -> Result<()> {
        self.modify_to(qp, QpState::Init)
    }

    /// Connects (CONNECT) and waits for the connection. iWARP: the kernel moves the QP
    /// to RTS and reports ESTABLISHED; InfiniBand and RoCE: the response comes first,
    /// then the QP is moved to RTR and RTS here and the connection accepted, as
    /// librdmacm does. The QP's state is RTS afterwards ([`Qp::state`]). The same as
    /// [`CmId::connect_nowait`], this id's next event, and [`CmId::complete_connect`].
    ///
    /// # Errors
    ///
    /// The kernel's errno; [`Error::Protocol`] naming the event when the connection
    /// is rejected or fails.
    #[doc(alias = "rdma_connect")]
    pub fn connect(&self, qp: &Qp, param: &ConnParam, timeout: Duration) -> Result<CmEvent> {
        self.connect_nowait(qp, param)?;
        let e = self.ch.wait_for(self.id, timeout)?;
        self.complete_connect(qp, &e)?;
        Ok(e)
    }

    /// Sends the connection request (CONNECT) for `qp` and returns at once. The answer
    /// is this id's next event ([`CmChannel::get_event`], or an event loop on
    /// [`CmChannel::poll_fd`]); hand it to [`CmId::complete_connect`], which finishes the
    /// connection as [`CmId::connect`] does.
    ///
    /// # Errors
    ///
    /// The kernel's errno, when it refuses at once.
    #[doc(alias = "rdma_connect")]
    pub fn connect_nowait(&self, qp: &Qp, param: &ConnParam) -> Result<()> {
        self.check_qp_device(qp, "CONNECT")?;
        // Listed before the CONNECT: its answer may be read by another thread's wait the
        // moment the kernel has it.
        let unlist = |c: &mut Vec<(u32, Option<CmEventType>)>| c.retain(|c| c.0 != self.id);
        {
            let mut c = self.ch.connecting.lock().unwrap_or_else(|p| p.into_inner());
            unlist(&mut c);
            c.push((self.id, None));
        }
        let r = self.call("CONNECT", &mut raw::connect(self.id, &param.to_raw(qp)));
        if r.is_err() {
            unlist(&mut self.ch.connecting.lock().unwrap_or_else(|p| p.into_inner()));
        }
        r
    }

    /// `Err(BadArgument)` unless `qp` is of the device this id is bound to: the CM
    /// sends the QP's number, which the kernel looks up on the id's device (an iWARP
    /// connection would move whatever QP has that number there to RTS).
    fn check_qp_device(&self, qp: &Qp, what: &'static str) -> Result<()> {
        let bound = self.query_addr()?.node_guid;
        let ctx = qp.pd().context();
        let own = ctx.query_device()?.node_guid.0;
        if bound == own {
            return Ok(());
        }
        Err(Error::BadArgument {
            op: Op::new(what, DEV),
            reason: format!(
                "the QP is of {} (node GUID {own:016x}); the id is bound to the device of node \
                 GUID {bound:016x}",
                ctx.name()
            ),
        })
    }

    /// Finishes a connection started by [`CmId::connect_nowait`], given this id's event
    /// that answered it: ESTABLISHED (iWARP: the kernel moved `qp` to RTS) or CONNECT
    /// RESPONSE (InfiniBand, RoCE: `qp` is moved to INIT again, RTR and RTS with the
    /// CM's attributes, and the connection accepted, as librdmacm does). The QP's state
    /// is RTS afterwards ([`Qp::state`]).
    ///
    /// # Errors
    ///
    /// [`Error::BadArgument`] for an event of another id, or one the kernel did not
    /// give as the answer to this id's CONNECT (none was sent, or the answer read from
    /// the channel was of another kind); [`Error::Protocol`] naming the event when it is
    /// neither ESTABLISHED nor CONNECT RESPONSE (the connection was rejected or failed);
    /// the kernel's errno of INIT_QP_ATTR, MODIFY_QP or ACCEPT.
    pub fn complete_connect(&self, qp: &Qp, event: &CmEvent) -> Result<()> {
        let bad = |reason: String| Error::BadArgument {
            op: Op::new("complete_connect", DEV),
            reason,
        };
        if event.id != self.id {
            return Err(bad(format!(
                "the event is of id {}, not of this id ({})",
                event.id, self.id
            )));
        }
        {
            let mut c = self.ch.connecting.lock().unwrap_or_else(|p| p.into_inner());
            match c.iter().position(|c| c.0 == self.id) {
                Some(i) if c[i].1 == Some(event.kind) => {
                    c.swap_remove(i);
                }
                Some(i) => {
                    return Err(bad(format!(
                        "the kernel's answer to this id's CONNECT was {}, not {:?}",
                        c[i].1.map_or("not read yet".into(), |k| format!("{k:?}")),
                        event.kind
                    )))
                }
                None => {
                    return Err(bad(
                        "this id sent no CONNECT that waits for its answer".into()
                    ))
                }
            }
        }
        match event.kind {
            CmEventType::Established => {
                qp.note_state(QpState::Rts);
                Ok(())
            }
            CmEventType::ConnectResponse => {
                // INIT again first, as librdmacm does: the QP went to INIT before the
                // connection existed, with the CM's defaults (no remote access); now the
                // IB CM knows the responder resources and grants remote reads and
                // atomics (ib_cm_init_qp_attr). Without it the peer's RDMA READ of this
                // side fails with a remote invalid request (found by examples/rping
                // against librdmacm's rping on rxe).
                self.modify_to(qp, QpState::Init)?;
                self.modify_to(qp, QpState::Rtr)?;
                self.modify_to(qp, QpState::Rts)?;
                // The active side's ACCEPT without parameters completes the exchange
                // (the kernel sends the RTU; with parameters it would answer a REP).
                let p = rdma_ucm_conn_param::default();
                self.call("ACCEPT", &mut raw::accept(self.uid, self.id, &p))?;
                qp.note_state(QpState::Rts);
                Ok(())
            }
            other => Err(Error::Protocol {
                op: Op::new("CONNECT", DEV),
                detail: format!("event {other:?} (status {})", event.status),
            }),
        }
    }

    /// Accepts a connection request on this (new) id: moves `qp` to INIT, RTR and RTS
    /// with the CM's attributes (iWARP's RTS is the kernel's, at ACCEPT), ACCEPTs, and
    /// waits for ESTABLISHED, as `rdma_accept` does. The QP's state is RTS afterwards.
    ///
    /// # Errors
    ///
    /// The kernel's errno; [`Error::Protocol`] for another event.
    #[doc(alias = "rdma_accept")]
    pub fn accept(&self, qp: &Qp, param: &ConnParam, timeout: Duration) -> Result<CmEvent> {
        self.check_qp_device(qp, "ACCEPT")?;
        self.modify_to(qp, QpState::Init)?;
        self.modify_to(qp, QpState::Rtr)?;
        self.modify_to(qp, QpState::Rts)?;
        self.call(
            "ACCEPT",
            &mut raw::accept(self.uid, self.id, &param.to_raw(qp)),
        )?;
        let e = self.expect(CmEventType::Established, timeout, "ACCEPT")?;
        qp.note_state(QpState::Rts);
        Ok(e)
    }

    /// Disconnects (DISCONNECT); the [`CmEventType::Disconnected`] event follows.
    ///
    /// # Errors
    ///
    /// The kernel's errno.
    #[doc(alias = "rdma_disconnect")]
    pub fn disconnect(&self) -> Result<()> {
        self.call("DISCONNECT", &mut raw::disconnect(self.id))
    }

    /// Waits for this id's next event.
    ///
    /// # Errors
    ///
    /// As [`CmChannel::get_event`]; [`Error::Os`] with `ETIMEDOUT` when none came.
    pub fn next_event(&self, timeout: Duration) -> Result<CmEvent> {
        self.ch.wait_for(self.id, timeout)
    }
}

impl Drop for CmId {
    fn drop(&mut self) {
        let mut r = rdma_ucm_destroy_id_resp::default();
        let _ = self.ch.file.call(&mut raw::destroy_id(self.id, &mut r));
        // Its events are gone with it.
        self.ch
            .pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|e| e.id != self.id);
        self.ch
            .connecting
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|c| c.0 != self.id);
    }
}

/// The modification INIT_QP_ATTR describes: each attribute its mask names.
pub(crate) fn modify_from_kernel(a: &ib_uverbs_qp_attr) -> ModifyQp {
    let mask = QpAttrMask::from_bits_retain(a.qp_attr_mask);
    let ah = |x: &crate::raw::abi::ib_uverbs_ah_attr| AhAttr {
        grh: GlobalRoute {
            dgid: Gid(x.grh.dgid),
            flow_label: x.grh.flow_label,
            sgid_index: x.grh.sgid_index,
            hop_limit: x.grh.hop_limit,
            traffic_class: x.grh.traffic_class,
        },
        dlid: x.dlid,
        sl: x.sl,
        src_path_bits: x.src_path_bits,
        static_rate: x.static_rate,
        is_global: x.is_global != 0,
        port_num: x.port_num,
    };
    let mut m = ModifyQp::new();
    if mask.contains(QpAttrMask::STATE) {
        m = m.state(QpState::from_raw(a.qp_state));
    }
    if mask.contains(QpAttrMask::CUR_STATE) {
        m = m.cur_state(QpState::from_raw(a.cur_qp_state));
    }
    if mask.contains(QpAttrMask::EN_SQD_ASYNC_NOTIFY) {
        m = m.en_sqd_async_notify(a.en_sqd_async_notify != 0);
    }
    if mask.contains(QpAttrMask::ACCESS_FLAGS) {
        m = m.access(AccessFlags::from_bits_retain(a.qp_access_flags));
    }
    if mask.contains(QpAttrMask::PKEY_INDEX) {
        m = m.pkey_index(a.pkey_index);
    }
    if mask.contains(QpAttrMask::PORT) {
        m = m.port(a.port_num);
    }
    if mask.contains(QpAttrMask::QKEY) {
        m = m.qkey(a.qkey);
    }
    if mask.contains(QpAttrMask::AV) {
        m = m.av(ah(&a.ah_attr));
    }
    if mask.contains(QpAttrMask::PATH_MTU) {
        m = m.path_mtu(Mtu::from_raw(a.path_mtu as u8));
    }
    if mask.contains(QpAttrMask::TIMEOUT) {
        m = m.timeout(a.timeout);
    }
    if mask.contains(QpAttrMask::RETRY_CNT) {
        m = m.retry_cnt(a.retry_cnt);
    }
    if mask.contains(QpAttrMask::RNR_RETRY) {
        m = m.rnr_retry(a.rnr_retry);
    }
    if mask.contains(QpAttrMask::RQ_PSN) {
        m = m.rq_psn(a.rq_psn);
    }
    if mask.contains(QpAttrMask::MAX_QP_RD_ATOMIC) {
        m = m.max_rd_atomic(a.max_rd_atomic);
    }
    if mask.contains(QpAttrMask::ALT_PATH) {
        m = m.alt_path(crate::verbs::objects::AltPath {
            ah_attr: ah(&a.alt_ah_attr),
            pkey_index: a.alt_pkey_index,
            port_num: a.alt_port_num,
            timeout: a.alt_timeout,
        });
    }
    if mask.contains(QpAttrMask::MIN_RNR_TIMER) {
        m = m.min_rnr_timer(a.min_rnr_timer);
    }
    if mask.contains(QpAttrMask::SQ_PSN) {
        m = m.sq_psn(a.sq_psn);
    }
    if mask.contains(QpAttrMask::MAX_DEST_RD_ATOMIC) {
        m = m.max_dest_rd_atomic(a.max_dest_rd_atomic);
    }
    if mask.contains(QpAttrMask::PATH_MIG_STATE) {
        m = m.path_mig_state(MigState::from_raw(a.path_mig_state));
    }
    if mask.contains(QpAttrMask::DEST_QPN) {
        m = m.dest_qp_num(a.dest_qp_num);
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn init_qp_attr_answers_become_modifications() {
        // iWARP's INIT: state, access flags, port.
        let a = ib_uverbs_qp_attr {
            qp_attr_mask: (QpAttrMask::STATE | QpAttrMask::ACCESS_FLAGS | QpAttrMask::PORT).bits(),
            qp_state: 1,
            qp_access_flags: 6,
            port_num: 1,
            ..Default::default()
        };
        let m = modify_from_kernel(&a);
        assert_eq!(
            m.mask(),
            QpAttrMask::STATE | QpAttrMask::ACCESS_FLAGS | QpAttrMask::PORT
        );
        let c = m.to_uverbs(9);
        assert_eq!((c.qp_state, c.qp_access_flags, c.port_num), (1, 6, 1));
        // iWARP's RTS: nothing.
        assert!(modify_from_kernel(&ib_uverbs_qp_attr::default())
            .mask()
            .is_empty());
    }
}
