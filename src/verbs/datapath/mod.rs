//! The data path: posting work requests and polling completions on the queues rxe and
//! siw map into the process, with no provider library.
//!
//! ```no_run
//! # fn main() -> uverbs::Result<()> {
//! use std::sync::Arc;
//! use uverbs::verbs::datapath::{RecvWr, SendWr, SendOp, Sge, Wc};
//! use uverbs::verbs::objects::{MrBuf, QpCap, QpInit};
//! use uverbs::{AccessFlags, Context, QpType};
//!
//! let ctx = Arc::new(Context::open_by_name("rxe0")?);
//! let pd = ctx.alloc_pd()?;
//! let cq = ctx.create_cq(16, None, 0)?;
//! let qp = pd.create_qp(&QpInit::new(QpType::Rc, &cq, &cq).cap(QpCap {
//!     max_send_wr: 8, max_recv_wr: 8, max_send_sge: 1, max_recv_sge: 1, max_inline_data: 64,
//! }))?;
//! let mr = pd.reg_mr(MrBuf::new(4096).unwrap(), AccessFlags::LOCAL_WRITE)?;
//! // ... connect the QP (INIT, RTR, RTS) ...
//! let sge = [Sge::new(&mr, 0, 4096).expect("inside the MR")];
//! qp.post_recv(&[RecvWr::new(1, &sge)])?;
//! qp.post_send(&[SendWr::new(2, SendOp::Send).inline(b"hello").signaled()])?;
//! let mut wc = [Wc::default(); 4];
//! let n = cq.poll(&mut wc)?;
//! # let _ = n;
//! # Ok(())
//! # }
//! ```
//!
//! ## What the calls cost
//!
//! [`Qp::post_send`](crate::verbs::objects::Qp::post_send) writes the requests into the
//! mapped send queue and rings the doorbell once per call (an empty POST_SEND `write()`;
//! on siw only when the kernel is not already working on the queue, as libsiw does).
//! [`Qp::post_recv`](crate::verbs::objects::Qp::post_recv),
//! [`Srq::post_recv`](crate::verbs::objects::Srq::post_recv) and
//! [`Cq::poll`](crate::verbs::objects::Cq::poll) make no system call. None allocates.
//! Each queue has its own lock, so one thread may post sends while another posts
//! receives or polls.
//!
//! ## Checks before anything is written
//!
//! A call either posts all its work requests or none: every request is checked first
//! (SGE count, inline length, what the driver supports), then the room in the queue,
//! then the QP's state (as the crate last saw it: set by
//! [`Qp::modify`](crate::verbs::objects::Qp::modify), by
//! [`Qp::query`](crate::verbs::objects::Qp::query) on rxe only (siw does not report the
//! state), and by the RDMA CM). Posting sends in RESET, INIT or RTR, or receives in RESET, is
//! [`crate::Error::BadQpState`] and leaves the queue untouched.
//!
//! An [`Sge`] names a range of an [`Mr`] checked at construction; an SGE of any
//! address and key is [`Sge::from_raw`] of a [`RawSge`](crate::raw::mr::RawSge),
//! whose constructor is `unsafe`. Inline payloads are copied
//! from the caller's slice into the queue.
//!
//! ## Drivers
//!
//! rxe: the seven opcodes of [`SendOp`] (send, send with immediate, RDMA write, RDMA
//! write with immediate, RDMA read, compare-and-swap, fetch-and-add) on its RC, UC and UD
//! queue pairs as each type allows (UD through the AH's `ah_num`), inline data up to the
//! `max_inline_data` the kernel granted; not the others rxe has (send with invalidate,
//! local invalidate, memory-window binds, flush, atomic write). siw (RC only): sends,
//! RDMA write and read, inline data up to 80 bytes; immediate data and atomics are
//! [`crate::Error::NotSupported`] before anything is written, as
//! libsiw refuses them.

mod rxe;
mod siw;
#[cfg(test)]
mod tests;

/// The reasons a work request is refused ([`Error::BadWorkRequest`](crate::Error)).
pub use crate::error::WrProblem;
use core::fmt;

use crate::raw::abi::RDMA_DRIVER_RXE;
use crate::types::{QpType, SendFlags, WcFlags, WcOpcode, WcStatus};
use crate::verbs::objects::{Ah, Mr};

pub(crate) use rxe::{RxeCq, RxeRq, RxeSq};
pub(crate) use siw::{SiwCq, SiwRq, SiwSq};

/// A scatter/gather entry (`struct ibv_sge`): a range of a memory region, checked
/// against the region when made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[doc(alias = "ibv_sge")]
pub struct Sge<'a> {
    addr: u64,
    length: u32,
    lkey: u32,
    _mr: core::marker::PhantomData<&'a Mr>,
}

impl<'a> Sge<'a> {
    /// `len` bytes of `mr` from `offset`; `None` when the range is not inside it.
    pub fn new(mr: &'a Mr, offset: usize, len: u32) -> Option<Sge<'a>> {
        let end = offset.checked_add(len as usize)?;
        if end > mr.len() {
            return None;
        }
        Some(Sge {
            addr: mr.addr().checked_add(offset as u64)?,
            length: len,
            lkey: mr.lkey(),
            _mr: core::marker::PhantomData,
        })
    }

    /// The whole region; `None` when it is longer than an SGE can say (4 GiB).
    pub fn whole(mr: &'a Mr) -> Option<Sge<'a>> {
        Sge::new(mr, 0, u32::try_from(mr.len()).ok()?)
    }

    /// An SGE of any address, length and local key: made `unsafe`ly as a
    /// [`RawSge`](crate::raw::mr::RawSge), whose contract says what the caller answers
    /// for.
    pub fn from_raw(raw: crate::raw::mr::RawSge) -> Sge<'static> {
        Sge {
            addr: raw.addr(),
            length: raw.length(),
            lkey: raw.lkey(),
            _mr: core::marker::PhantomData,
        }
    }

    /// An SGE of any numbers, for the unit tests of the encoders (which write into a
    /// memfd, never to a device).
    #[cfg(test)]
    pub(crate) fn test(addr: u64, length: u32, lkey: u32) -> Sge<'static> {
        Sge {
            addr,
            length,
            lkey,
            _mr: core::marker::PhantomData,
        }
    }

    /// The address.
    pub fn addr(&self) -> u64 {
        self.addr
    }
    /// The length in bytes.
    pub fn len(&self) -> u32 {
        self.length
    }
    /// True for an empty range.
    pub fn is_empty(&self) -> bool {
        self.length == 0
    }
    /// The local key.
    pub fn lkey(&self) -> u32 {
        self.lkey
    }
}

/// The remote side of an RDMA or atomic request: an address in the peer's memory
/// region and its rkey (checked by the peer's kernel, never trusted here).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Remote {
    /// The remote address.
    pub addr: u64,
    /// The remote key.
    pub rkey: u32,
}

/// The operation of a send work request (`enum ibv_wr_opcode`, with its operands).
/// Immediate data is a host-order number (sent in network order, received as the same
/// number).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
#[doc(alias = "ibv_wr_opcode")]
pub enum SendOp {
    /// `IBV_WR_SEND`.
    Send,
    /// `IBV_WR_SEND_WITH_IMM`.
    SendWithImm(u32),
    /// `IBV_WR_RDMA_WRITE`.
    RdmaWrite(Remote),
    /// `IBV_WR_RDMA_WRITE_WITH_IMM`.
    RdmaWriteWithImm(Remote, u32),
    /// `IBV_WR_RDMA_READ`.
    RdmaRead(Remote),
    /// `IBV_WR_ATOMIC_CMP_AND_SWP`: the 8 bytes at the remote address become `swap` if
    /// they equal `compare`; their old value lands in the local SGE.
    AtomicCmpSwap {
        /// The remote 8 bytes (8-byte aligned).
        remote: Remote,
        /// The value to compare with.
        compare: u64,
        /// The value to store.
        swap: u64,
    },
    /// `IBV_WR_ATOMIC_FETCH_AND_ADD`: adds `add` to the 8 bytes at the remote address;
    /// their old value lands in the local SGE.
    AtomicFetchAdd {
        /// The remote 8 bytes (8-byte aligned).
        remote: Remote,
        /// The value to add.
        add: u64,
    },
}

impl SendOp {
    /// The opcode's number (`IB_UVERBS_WR_*`).
    pub fn as_raw(&self) -> u32 {
        use crate::raw::abi::*;
        match self {
            SendOp::Send => IB_UVERBS_WR_SEND,
            SendOp::SendWithImm(_) => IB_UVERBS_WR_SEND_WITH_IMM,
            SendOp::RdmaWrite(_) => IB_UVERBS_WR_RDMA_WRITE,
            SendOp::RdmaWriteWithImm(..) => IB_UVERBS_WR_RDMA_WRITE_WITH_IMM,
            SendOp::RdmaRead(_) => IB_UVERBS_WR_RDMA_READ,
            SendOp::AtomicCmpSwap { .. } => IB_UVERBS_WR_ATOMIC_CMP_AND_SWP,
            SendOp::AtomicFetchAdd { .. } => IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD,
        }
    }

    fn imm(&self) -> Option<u32> {
        match self {
            SendOp::SendWithImm(i) | SendOp::RdmaWriteWithImm(_, i) => Some(*i),
            _ => None,
        }
    }

    fn remote(&self) -> Option<Remote> {
        match self {
            SendOp::RdmaWrite(r) | SendOp::RdmaWriteWithImm(r, _) | SendOp::RdmaRead(r) => Some(*r),
            SendOp::AtomicCmpSwap { remote, .. } | SendOp::AtomicFetchAdd { remote, .. } => {
                Some(*remote)
            }
            _ => None,
        }
    }

    fn is_atomic(&self) -> bool {
        matches!(
            self,
            SendOp::AtomicCmpSwap { .. } | SendOp::AtomicFetchAdd { .. }
        )
    }
}

/// Where a UD send goes: the address handle, the remote QP number and Q_Key.
#[derive(Debug, Clone, Copy)]
pub struct UdDest<'a> {
    /// The address handle.
    pub ah: &'a Ah,
    /// The remote QP number.
    pub remote_qpn: u32,
    /// The remote Q_Key.
    pub remote_qkey: u32,
}

/// A send work request (`struct ibv_send_wr`): the id its completion reports, the
/// operation, then its payload and flags as chained setters.
#[derive(Debug, Clone, Copy)]
#[doc(alias = "ibv_send_wr")]
#[must_use = "a work request does nothing until posted"]
pub struct SendWr<'a> {
    wr_id: u64,
    op: SendOp,
    sges: &'a [Sge<'a>],
    inline: Option<&'a [u8]>,
    flags: SendFlags,
    ud: Option<UdDest<'a>>,
}

impl<'a> SendWr<'a> {
    /// A request of operation `op` with no payload and no flags.
    pub fn new(wr_id: u64, op: SendOp) -> Self {
        SendWr {
            wr_id,
            op,
            sges: &[],
            inline: None,
            flags: SendFlags::empty(),
            ud: None,
        }
    }
    /// The payload: these SGEs (the local buffers of a read or an atomic's result).
    pub fn sg(mut self, sges: &'a [Sge<'a>]) -> Self {
        self.sges = sges;
        self.inline = None;
        self
    }
    /// The payload, copied into the request itself (`IBV_SEND_INLINE`): up to the QP's
    /// `max_inline_data` bytes (siw: 80). Not for reads and atomics.
    pub fn inline(mut self, data: &'a [u8]) -> Self {
        self.inline = Some(data);
        self.sges = &[];
        self
    }
    /// Generate a completion (`IBV_SEND_SIGNALED`).
    pub fn signaled(mut self) -> Self {
        self.flags |= SendFlags::SIGNALED;
        self
    }
    /// Set the solicited event bit (`IBV_SEND_SOLICITED`).
    pub fn solicited(mut self) -> Self {
        self.flags |= SendFlags::SOLICITED;
        self
    }
    /// Wait for earlier reads and atomics (`IBV_SEND_FENCE`).
    pub fn fence(mut self) -> Self {
        self.flags |= SendFlags::FENCE;
        self
    }
    /// The flags, replacing those set so far ([`SendFlags::INLINE`] is ignored: use
    /// [`Self::inline`]).
    pub fn flags(mut self, flags: SendFlags) -> Self {
        self.flags = flags - SendFlags::INLINE;
        self
    }
    /// Where a send of a UD QP goes.
    pub fn ud(mut self, ah: &'a Ah, remote_qpn: u32, remote_qkey: u32) -> Self {
        self.ud = Some(UdDest {
            ah,
            remote_qpn,
            remote_qkey,
        });
        self
    }

    /// The id its completion reports.
    pub fn wr_id(&self) -> u64 {
        self.wr_id
    }
    /// The operation.
    pub fn op(&self) -> SendOp {
        self.op
    }
    /// The flags, with [`SendFlags::INLINE`] when the payload is inline.
    pub fn send_flags(&self) -> SendFlags {
        if self.inline.is_some() {
            self.flags | SendFlags::INLINE
        } else {
            self.flags
        }
    }

    /// The payload's length in bytes (`None` past `u32`).
    fn length(&self) -> Option<u32> {
        match self.inline {
            Some(d) => u32::try_from(d.len()).ok(),
            None => self
                .sges
                .iter()
                .try_fold(0u32, |acc, s| acc.checked_add(s.length)),
        }
    }
}

/// A receive work request (`struct ibv_recv_wr`): its id and the buffers a message
/// lands in.
#[derive(Debug, Clone, Copy)]
#[doc(alias = "ibv_recv_wr")]
#[must_use = "a work request does nothing until posted"]
pub struct RecvWr<'a> {
    wr_id: u64,
    sges: &'a [Sge<'a>],
}

impl<'a> RecvWr<'a> {
    /// A receive into `sges` whose completion reports `wr_id`.
    pub fn new(wr_id: u64, sges: &'a [Sge<'a>]) -> Self {
        RecvWr { wr_id, sges }
    }
    /// The id.
    pub fn wr_id(&self) -> u64 {
        self.wr_id
    }
    /// The buffers.
    pub fn sges(&self) -> &'a [Sge<'a>] {
        self.sges
    }
    fn length(&self) -> Option<u32> {
        self.sges
            .iter()
            .try_fold(0u32, |acc, s| acc.checked_add(s.length))
    }
}

/// A work completion (`struct ibv_wc`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[doc(alias = "ibv_wc")]
pub struct Wc {
    /// The id of the work request.
    pub wr_id: u64,
    /// The status; the fields below other than `qp_num` are valid only on success.
    pub status: WcStatus,
    /// What completed.
    pub opcode: WcOpcode,
    /// The driver's error detail.
    pub vendor_err: u32,
    /// Bytes moved (receives: the message's length).
    pub byte_len: u32,
    /// Immediate data (host order), with [`WcFlags::WITH_IMM`].
    pub imm_data: u32,
    /// The local QP number.
    pub qp_num: u32,
    /// The sending QP (UD).
    pub src_qp: u32,
    /// Flags.
    pub wc_flags: WcFlags,
    /// The P_Key index (UD, GSI).
    pub pkey_index: u16,
    /// The source LID (UD on InfiniBand).
    pub slid: u16,
    /// The service level.
    pub sl: u8,
    /// The destination LID path bits.
    pub dlid_path_bits: u8,
}

impl Default for Wc {
    fn default() -> Self {
        Wc {
            wr_id: 0,
            status: WcStatus::Success,
            opcode: WcOpcode::Send,
            vendor_err: 0,
            byte_len: 0,
            imm_data: 0,
            qp_num: 0,
            src_qp: 0,
            wc_flags: WcFlags::empty(),
            pkey_index: 0,
            slid: 0,
            sl: 0,
            dlid_path_bits: 0,
        }
    }
}

impl Wc {
    /// True when the request completed successfully.
    pub fn is_ok(&self) -> bool {
        self.status == WcStatus::Success
    }
}

impl fmt::Display for WrProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WrProblem::TooManySges { max, got } => {
                write!(f, "{got} SGEs, the queue takes at most {max}")
            }
            WrProblem::InlineTooLong { max, got } => {
                write!(f, "{got} inline bytes, the QP takes at most {max}")
            }
            WrProblem::AtomicOperands => {
                f.write_str("an atomic needs an 8-byte aligned remote address and 8 local bytes")
            }
            WrProblem::InlineNotForThisOp => {
                f.write_str("inline data only goes with sends and RDMA writes")
            }
            WrProblem::UdDestination => {
                f.write_str("a UD QP's send needs a destination (and only it takes one)")
            }
            WrProblem::NoAhNumber => {
                f.write_str("the address handle has no number (rxe before Linux 5.10)")
            }
            WrProblem::LengthOverflow => f.write_str("the SGE lengths add up past 4 GiB"),
            WrProblem::NoSge => f.write_str("siw takes receives of 1 to 6 SGEs"),
        }
    }
}

/// Why a post wrote nothing (the queue types' answer; the objects turn it into an
/// [`Error`](crate::Error) naming the device and the call).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PostFail {
    /// Request `usize` is wrong.
    Bad(usize, WrProblem),
    /// Request `usize` asks for something the driver lacks.
    Unsupported(usize),
    /// Room for this many requests only.
    Full(u32),
}

/// The payload bytes of one send or receive, checked: the requests are validated once,
/// before anything is written.
fn check_send(
    i: usize,
    wr: &SendWr<'_>,
    qp_type: QpType,
    max_sge: u32,
    max_inline: u32,
) -> Result<u32, PostFail> {
    let len = wr
        .length()
        .ok_or(PostFail::Bad(i, WrProblem::LengthOverflow))?;
    match wr.inline {
        Some(d) => {
            if matches!(wr.op, SendOp::RdmaRead(_)) || wr.op.is_atomic() {
                return Err(PostFail::Bad(i, WrProblem::InlineNotForThisOp));
            }
            if d.len() > max_inline as usize {
                return Err(PostFail::Bad(
                    i,
                    WrProblem::InlineTooLong {
                        max: max_inline,
                        got: d.len(),
                    },
                ));
            }
        }
        None => {
            if wr.sges.len() > max_sge as usize {
                return Err(PostFail::Bad(
                    i,
                    WrProblem::TooManySges {
                        max: max_sge,
                        got: wr.sges.len(),
                    },
                ));
            }
        }
    }
    if wr.op.is_atomic() {
        let aligned = wr.op.remote().is_some_and(|r| r.addr % 8 == 0);
        if len < 8 || !aligned {
            return Err(PostFail::Bad(i, WrProblem::AtomicOperands));
        }
    }
    if (qp_type == QpType::Ud) != wr.ud.is_some() {
        return Err(PostFail::Bad(i, WrProblem::UdDestination));
    }
    Ok(len)
}

/// The lock of one queue (a CQ's, a QP's send or receive queue, an SRQ's): a spin lock,
/// as libibverbs' providers take (`pthread_spin_lock`), that yields the thread while it
/// waits. It is held for the copy into or out of the mapped queue, and across the
/// doorbell's `write()` and a CQ's RESIZE_CQ. Uncontended: one compare-and-swap and one
/// store; nothing panics while it is held, so there is no poisoning to track.
pub(crate) type QueueLock<T> = spin::mutex::SpinMutex<T, spin::relax::Yield>;

/// The send queue of a QP, by driver.
#[derive(Debug)]
pub(crate) enum SendRing {
    Rxe(RxeSq),
    Siw(SiwSq),
}

/// A receive queue (a QP's or an SRQ's), by driver.
#[derive(Debug)]
pub(crate) enum RecvRing {
    Rxe(RxeRq),
    Siw(SiwRq),
}

/// A completion queue, by driver.
#[derive(Debug)]
pub(crate) enum CqRing {
    Rxe(RxeCq),
    Siw(SiwCq),
}

impl SendRing {
    /// Writes every request of `wrs` or none; true when the doorbell must ring.
    pub(crate) fn post(
        &mut self,
        qp_type: QpType,
        sq_sig_all: bool,
        wrs: &[SendWr<'_>],
    ) -> Result<bool, PostFail> {
        match self {
            SendRing::Rxe(q) => q.post(qp_type, wrs).map(|()| true),
            SendRing::Siw(q) => q.post(qp_type, sq_sig_all, wrs),
        }
    }

    /// The doorbell.
    pub(crate) fn doorbell(&mut self) -> &mut crate::raw::ring::Doorbell {
        match self {
            SendRing::Rxe(q) => &mut q.doorbell,
            SendRing::Siw(q) => &mut q.doorbell,
        }
    }

    /// Requests the queue can take now.
    pub(crate) fn free(&self) -> u32 {
        match self {
            SendRing::Rxe(q) => q.free(),
            SendRing::Siw(q) => q.free(),
        }
    }
}

impl RecvRing {
    /// Writes every request of `wrs` or none.
    pub(crate) fn post(&mut self, wrs: &[RecvWr<'_>]) -> Result<(), PostFail> {
        match self {
            RecvRing::Rxe(q) => q.post(wrs),
            RecvRing::Siw(q) => q.post(wrs),
        }
    }

    /// Requests the queue can take now.
    pub(crate) fn free(&self) -> u32 {
        match self {
            RecvRing::Rxe(q) => q.free(),
            RecvRing::Siw(q) => q.free(),
        }
    }
}

impl CqRing {
    /// Copies up to `out.len()` completions out and gives their slots back.
    #[inline(always)]
    pub(crate) fn poll(&mut self, out: &mut [Wc]) -> usize {
        match self {
            CqRing::Rxe(q) => q.poll(out),
            CqRing::Siw(q) => q.poll(out),
        }
    }

    /// siw arms its CQ by a store into the queue's control word: `Some` when done here,
    /// `None` when the kernel must be asked (rxe: REQ_NOTIFY_CQ).
    pub(crate) fn arm(&self, solicited_only: bool) -> Option<()> {
        match self {
            CqRing::Rxe(_) => None,
            CqRing::Siw(q) => {
                q.arm(solicited_only);
                Some(())
            }
        }
    }
}

// ------------------------------------------------------------------ mapping the queues

use crate::error::{Error, Op, Result};
use crate::raw::driver::{
    mminfo, rxe_create_cq_resp, rxe_create_qp_resp, rxe_create_srq_resp, siw_cqe, siw_rqe, siw_sqe,
    siw_uresp_create_cq, siw_uresp_create_qp, siw_uresp_create_srq, SIW_INVAL_UOBJ_KEY,
    SIW_NOTIFY_NOT,
};
use crate::raw::ring::{BadQueue, Doorbell, RxeConsumer, RxeProducer, RxeQueue, SiwQueue};
use crate::verbs::context::Context;
use zerocopy::FromBytes;

fn bad_queue(ctx: &Context, what: &'static str, b: BadQueue) -> Error {
    Error::Protocol {
        op: Op::new(what, ctx.name()),
        detail: b.to_string(),
    }
}

fn short(ctx: &Context, what: &'static str) -> Error {
    Error::Protocol {
        op: Op::new(what, ctx.name()),
        detail: "the driver's response is too short to say where its queue is".into(),
    }
}

/// Maps an rxe queue of `mi` and checks it has slots of at least `min_elem` bytes.
fn rxe_queue(ctx: &Context, what: &'static str, mi: &mminfo, min_elem: usize) -> Result<RxeQueue> {
    let map = ctx
        .raw()
        .map_queue(mi.offset, mi.size as usize)
        .map_err(|e| ctx.kernel_error(Op::new(what, ctx.name()), e))?;
    RxeQueue::new(map, min_elem).map_err(|b| bad_queue(ctx, what, b))
}

/// Maps a siw queue of `num` elements of `elem` bytes at `key`.
fn siw_queue(
    ctx: &Context,
    what: &'static str,
    key: u64,
    num: u32,
    elem: usize,
    ctrl: bool,
) -> Result<SiwQueue> {
    if key == SIW_INVAL_UOBJ_KEY {
        return Err(Error::Protocol {
            op: Op::new(what, ctx.name()),
            detail: "siw could not make the queue mappable (SIW_INVAL_UOBJ_KEY)".into(),
        });
    }
    let len = (num as usize)
        .checked_mul(elem)
        .and_then(|n| n.checked_add(if ctrl { 8 } else { 0 }))
        .ok_or_else(|| short(ctx, what))?;
    let map = ctx
        .raw()
        .map_queue(key, len)
        .map_err(|e| ctx.kernel_error(Op::new(what, ctx.name()), e))?;
    SiwQueue::new(map, num, elem, ctrl).map_err(|b| bad_queue(ctx, what, b))
}

/// Maps a new CQ's queue from its create's driver output.
pub(crate) fn map_cq(ctx: &Context, driver_out: &[u8]) -> Result<CqRing> {
    const OP: &str = "mmap CQ";
    match ctx.driver_id() {
        RDMA_DRIVER_RXE => {
            let (r, _) =
                rxe_create_cq_resp::read_from_prefix(driver_out).map_err(|_| short(ctx, OP))?;
            rxe_cq_ring(ctx, &r.mi)
        }
        _ => {
            let (r, _) =
                siw_uresp_create_cq::read_from_prefix(driver_out).map_err(|_| short(ctx, OP))?;
            let q = siw_queue(
                ctx,
                OP,
                r.cq_key,
                r.num_cqe,
                core::mem::size_of::<siw_cqe>(),
                true,
            )?;
            if let Some(c) = q.ctrl() {
                c.store(SIW_NOTIFY_NOT, core::sync::atomic::Ordering::SeqCst);
            }
            Ok(CqRing::Siw(SiwCq { q, get: 0 }))
        }
    }
}

/// Maps an rxe CQ's queue of `mi` (at creation, and after a resize).
pub(crate) fn rxe_cq_ring(ctx: &Context, mi: &mminfo) -> Result<CqRing> {
    let q = rxe_queue(ctx, "mmap CQ", mi, rxe::CQ_SLOT)?;
    Ok(CqRing::Rxe(RxeCq {
        ring: RxeConsumer::new(q),
    }))
}

/// Maps a new QP's send queue and, without an SRQ, its receive queue, from its create's
/// driver output and the capacities the kernel granted.
pub(crate) fn map_qp(
    ctx: &Context,
    handle: u32,
    driver_out: &[u8],
    cap: &crate::verbs::objects::QpCap,
    has_srq: bool,
) -> Result<(SendRing, Option<RecvRing>)> {
    const SQ: &str = "mmap SQ";
    const RQ: &str = "mmap RQ";
    match ctx.driver_id() {
        RDMA_DRIVER_RXE => {
            let (r, _) =
                rxe_create_qp_resp::read_from_prefix(driver_out).map_err(|_| short(ctx, SQ))?;
            let sq = rxe_queue(
                ctx,
                SQ,
                &r.sq_mi,
                rxe::send_slot(cap.max_send_sge, cap.max_inline_data),
            )?;
            let rq = if has_srq || r.rq_mi.size == 0 {
                None
            } else {
                let q = rxe_queue(ctx, RQ, &r.rq_mi, rxe::recv_slot(cap.max_recv_sge))?;
                Some(RecvRing::Rxe(RxeRq {
                    ring: RxeProducer::new(q),
                    max_sge: cap.max_recv_sge,
                }))
            };
            Ok((
                SendRing::Rxe(RxeSq {
                    ring: RxeProducer::new(sq),
                    doorbell: Doorbell::new(handle),
                    max_sge: cap.max_send_sge,
                    max_inline: cap.max_inline_data,
                }),
                rq,
            ))
        }
        _ => {
            let (r, _) =
                siw_uresp_create_qp::read_from_prefix(driver_out).map_err(|_| short(ctx, SQ))?;
            let sq = siw_queue(
                ctx,
                SQ,
                r.sq_key,
                r.num_sqe,
                core::mem::size_of::<siw_sqe>(),
                false,
            )?;
            // siw makes no receive queue for max_recv_wr 0 (num_rqe 0, no key).
            let rq = if has_srq || r.num_rqe == 0 {
                None
            } else {
                let q = siw_queue(
                    ctx,
                    RQ,
                    r.rq_key,
                    r.num_rqe,
                    core::mem::size_of::<siw_rqe>(),
                    false,
                )?;
                Some(RecvRing::Siw(SiwRq {
                    q,
                    put: 0,
                    max_sge: cap.max_recv_sge,
                }))
            };
            Ok((
                SendRing::Siw(SiwSq {
                    q: sq,
                    put: 0,
                    doorbell: Doorbell::new(handle),
                    max_sge: cap.max_send_sge,
                    max_inline: cap.max_inline_data,
                }),
                rq,
            ))
        }
    }
}

/// Maps a new SRQ's queue from its create's driver output.
pub(crate) fn map_srq(ctx: &Context, driver_out: &[u8], max_sge: u32) -> Result<RecvRing> {
    const OP: &str = "mmap SRQ";
    match ctx.driver_id() {
        RDMA_DRIVER_RXE => {
            let (r, _) =
                rxe_create_srq_resp::read_from_prefix(driver_out).map_err(|_| short(ctx, OP))?;
            rxe_srq_ring(ctx, &r.mi, max_sge)
        }
        _ => {
            let (r, _) =
                siw_uresp_create_srq::read_from_prefix(driver_out).map_err(|_| short(ctx, OP))?;
            let q = siw_queue(
                ctx,
                OP,
                r.srq_key,
                r.num_rqe,
                core::mem::size_of::<siw_rqe>(),
                false,
            )?;
            Ok(RecvRing::Siw(SiwRq { q, put: 0, max_sge }))
        }
    }
}

/// Maps an rxe SRQ's queue of `mi` (at creation, and after a resize).
pub(crate) fn rxe_srq_ring(ctx: &Context, mi: &mminfo, max_sge: u32) -> Result<RecvRing> {
    let q = rxe_queue(ctx, "mmap SRQ", mi, rxe::recv_slot(max_sge))?;
    Ok(RecvRing::Rxe(RxeRq {
        ring: RxeProducer::new(q),
        max_sge,
    }))
}

/// The error of a post that wrote nothing.
#[cold]
#[inline(never)]
pub(crate) fn post_error(ctx: &Context, what: &'static str, wanted: usize, f: PostFail) -> Error {
    let op = Op::new(what, ctx.name());
    match f {
        PostFail::Bad(index, problem) => Error::BadWorkRequest { op, index, problem },
        PostFail::Unsupported(_) => Error::NotSupported {
            op,
            errno: rustix::io::Errno::OPNOTSUPP,
        },
        PostFail::Full(free) => Error::QueueFull { op, free, wanted },
    }
}
