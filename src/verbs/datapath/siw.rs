//! siw's queues: elements handed over and taken back by their `SIW_WQE_VALID` flag.

use core::sync::atomic::Ordering;

use zerocopy::{FromZeros, IntoBytes};

use super::{check_send, PostFail, RecvWr, SendOp, SendWr, Wc, WrProblem};
use crate::raw::driver::*;
use crate::raw::ring::{Doorbell, SiwQueue};
use crate::types::{QpType, SendFlags, WcFlags, WcOpcode, WcStatus};

const FLAGS: usize = core::mem::offset_of!(siw_sqe, flags);
const AFTER_FLAGS: usize = FLAGS + 2;

/// A siw send queue.
#[derive(Debug)]
pub(crate) struct SiwSq {
    pub(crate) q: SiwQueue,
    /// The next element to fill.
    pub(crate) put: u32,
    pub(crate) doorbell: Doorbell,
    pub(crate) max_sge: u32,
    pub(crate) max_inline: u32,
}

/// Elements free from `put` on (up to `limit`): those whose flags lack SIW_WQE_VALID.
fn free_from(q: &SiwQueue, put: u32, limit: usize) -> u32 {
    let mut n = 0u32;
    while (n as usize) < limit && n < q.len() {
        if q.flags16(put.wrapping_add(n)).load(Ordering::Acquire) & SIW_WQE_VALID != 0 {
            break;
        }
        n += 1;
    }
    n
}

/// The siw opcode of a send request; `None` for what siw does not do (immediate data,
/// atomics), which libsiw refuses too.
fn opcode(op: &SendOp) -> Option<u8> {
    match op {
        SendOp::Send => Some(SIW_OP_SEND),
        SendOp::RdmaWrite(_) => Some(SIW_OP_WRITE),
        SendOp::RdmaRead(_) => Some(SIW_OP_READ),
        _ => None,
    }
}

impl SiwSq {
    pub(crate) fn free(&self) -> u32 {
        free_from(&self.q, self.put, self.q.len() as usize)
    }

    /// Writes every request or none; true when the doorbell must ring: the element
    /// before the first new one is no longer the kernel's (so the kernel may have
    /// stopped working on the queue), or the whole queue was written, as libsiw decides.
    pub(crate) fn post(
        &mut self,
        qp_type: QpType,
        sq_sig_all: bool,
        wrs: &[SendWr<'_>],
    ) -> Result<bool, PostFail> {
        let max_inline = self.max_inline.min(SIW_MAX_INLINE as u32);
        for (i, wr) in wrs.iter().enumerate() {
            if opcode(&wr.op).is_none() {
                return Err(PostFail::Unsupported(i));
            }
            check_send(i, wr, qp_type, self.max_sge, max_inline)?;
        }
        if wrs.is_empty() {
            return Ok(false);
        }
        let free = free_from(&self.q, self.put, wrs.len());
        if wrs.len() > free as usize {
            return Err(PostFail::Full(free));
        }
        for (k, wr) in wrs.iter().enumerate() {
            self.write(self.put.wrapping_add(k as u32), wr, sq_sig_all);
        }
        let n = wrs.len() as u32;
        let ring = if n < self.q.len() {
            let before = self.put.wrapping_sub(1);
            self.q.flags16(before).load(Ordering::SeqCst) & SIW_WQE_VALID == 0
        } else {
            true
        };
        self.put = self.put.wrapping_add(n);
        Ok(ring)
    }

    fn write(&mut self, idx: u32, wr: &SendWr<'_>, sq_sig_all: bool) {
        let mut sqe = siw_sqe::new_zeroed();
        let f = wr.send_flags();
        let mut flags = SIW_WQE_VALID;
        if f.contains(SendFlags::SIGNALED) || sq_sig_all {
            flags |= SIW_WQE_SIGNALLED;
        }
        if f.contains(SendFlags::SOLICITED) {
            flags |= SIW_WQE_SOLICITED;
        }
        if f.contains(SendFlags::FENCE) {
            flags |= SIW_WQE_READ_FENCE;
        }
        sqe.id = wr.wr_id;
        sqe.opcode = opcode(&wr.op).unwrap_or(SIW_OP_SEND);
        if let Some(r) = wr.op.remote() {
            sqe.raddr = r.addr;
            sqe.rkey = r.rkey;
        }
        let mut inline: &[u8] = &[];
        match wr.inline {
            Some(d) => {
                flags |= SIW_WQE_INLINE;
                sqe.num_sge = 1;
                sqe.sge[0].length = d.len() as u32;
                inline = d;
            }
            None => {
                sqe.num_sge = wr.sges.len() as u8;
                for (e, s) in sqe.sge.iter_mut().zip(wr.sges) {
                    *e = siw_sge {
                        laddr: s.addr,
                        length: s.length,
                        lkey: s.lkey,
                    };
                }
            }
        }
        let bytes = sqe.as_bytes();
        self.q.write(idx, 0, &bytes[..FLAGS]);
        self.q.write(idx, AFTER_FLAGS, &bytes[AFTER_FLAGS..]);
        if !inline.is_empty() {
            // In the place of sge[1..].
            let at = core::mem::offset_of!(siw_sqe, sge) + core::mem::size_of::<siw_sge>();
            self.q.write(idx, at, inline);
        }
        // Hands the element over, after all its bytes.
        self.q.flags16(idx).store(flags, Ordering::SeqCst);
    }
}

/// A siw receive queue (a QP's or an SRQ's).
#[derive(Debug)]
pub(crate) struct SiwRq {
    pub(crate) q: SiwQueue,
    pub(crate) put: u32,
    pub(crate) max_sge: u32,
}

impl SiwRq {
    pub(crate) fn free(&self) -> u32 {
        free_from(&self.q, self.put, self.q.len() as usize)
    }

    pub(crate) fn post(&mut self, wrs: &[RecvWr<'_>]) -> Result<(), PostFail> {
        let max = self.max_sge.min(SIW_MAX_SGE as u32);
        for (i, wr) in wrs.iter().enumerate() {
            if wr.sges.is_empty() {
                return Err(PostFail::Bad(i, WrProblem::NoSge));
            }
            if wr.sges.len() > max as usize {
                return Err(PostFail::Bad(
                    i,
                    WrProblem::TooManySges {
                        max,
                        got: wr.sges.len(),
                    },
                ));
            }
            wr.length()
                .ok_or(PostFail::Bad(i, WrProblem::LengthOverflow))?;
        }
        let free = free_from(&self.q, self.put, wrs.len());
        if wrs.len() > free as usize {
            return Err(PostFail::Full(free));
        }
        for (k, wr) in wrs.iter().enumerate() {
            let idx = self.put.wrapping_add(k as u32);
            let mut rqe = siw_rqe::new_zeroed();
            rqe.id = wr.wr_id;
            rqe.num_sge = wr.sges.len() as u8;
            for (e, s) in rqe.sge.iter_mut().zip(wr.sges) {
                *e = siw_sge {
                    laddr: s.addr,
                    length: s.length,
                    lkey: s.lkey,
                };
            }
            let bytes = rqe.as_bytes();
            self.q.write(idx, 0, &bytes[..FLAGS]);
            self.q.write(idx, AFTER_FLAGS, &bytes[AFTER_FLAGS..]);
            // Hands the element over after its other bytes (release). Nothing is decided
            // from the kernel's flags after it (no doorbell), so it needs no full fence
            // (a locked instruction on x86), unlike the send queue's.
            self.q.flags16(idx).store(SIW_WQE_VALID, Ordering::Release);
        }
        self.put = self.put.wrapping_add(wrs.len() as u32);
        Ok(())
    }
}

/// A siw completion queue.
#[derive(Debug)]
pub(crate) struct SiwCq {
    pub(crate) q: SiwQueue,
    /// The next element to read.
    pub(crate) get: u32,
}

impl SiwCq {
    /// An empty queue costs one flag load (the copy is out of line).
    #[inline(always)]
    pub(crate) fn poll(&mut self, out: &mut [Wc]) -> usize {
        if out.is_empty()
            || self.q.flags8(self.get).load(Ordering::Acquire) & (SIW_WQE_VALID as u8) == 0
        {
            return 0;
        }
        self.take(out)
    }

    /// Copies completions while there are some and room in `out` (the first is there).
    #[inline(never)]
    fn take(&mut self, out: &mut [Wc]) -> usize {
        let mut n = 0;
        for w in out.iter_mut() {
            let idx = self.get;
            let flags = self.q.flags8(idx);
            if flags.load(Ordering::Acquire) & (SIW_WQE_VALID as u8) == 0 {
                break;
            }
            let mut cqe = siw_cqe::new_zeroed();
            self.q.read(idx, 0, cqe.as_mut_bytes());
            *w = decode(&cqe);
            // Gives the element back, after reading it.
            flags.store(0, Ordering::Release);
            self.get = self.get.wrapping_add(1);
            n += 1;
        }
        n
    }

    /// Arms the CQ: a store into its control word, as libsiw does.
    pub(crate) fn arm(&self, solicited_only: bool) {
        let v = if solicited_only {
            SIW_NOTIFY_SOLICITED
        } else {
            SIW_NOTIFY_SOLICITED | SIW_NOTIFY_NEXT_COMPLETION
        };
        if let Some(c) = self.q.ctrl() {
            c.store(v, Ordering::SeqCst);
        }
    }
}

/// siw's status as `ibv_wc_status` (libsiw's table); an unknown one as
/// `Unknown(0x1_0000 | status)`, which no `ibv_wc_status` can be.
fn status(s: u16) -> WcStatus {
    match s {
        SIW_WC_SUCCESS => WcStatus::Success,
        SIW_WC_LOC_LEN_ERR => WcStatus::LocLenErr,
        SIW_WC_LOC_PROT_ERR => WcStatus::LocProtErr,
        SIW_WC_LOC_QP_OP_ERR => WcStatus::LocQpOpErr,
        SIW_WC_WR_FLUSH_ERR => WcStatus::WrFlushErr,
        SIW_WC_BAD_RESP_ERR => WcStatus::BadRespErr,
        SIW_WC_LOC_ACCESS_ERR => WcStatus::LocAccessErr,
        SIW_WC_REM_ACCESS_ERR => WcStatus::RemAccessErr,
        SIW_WC_REM_INV_REQ_ERR => WcStatus::RemInvReqErr,
        SIW_WC_GENERAL_ERR => WcStatus::GeneralErr,
        other => WcStatus::Unknown(0x1_0000 | u32::from(other)),
    }
}

/// siw's opcode as `ibv_wc_opcode` (libsiw's table); an unknown one as
/// `Unknown(0x1_0000 | opcode)`.
fn wc_opcode(op: u8) -> WcOpcode {
    match op {
        SIW_OP_WRITE => WcOpcode::RdmaWrite,
        SIW_OP_READ | SIW_OP_READ_LOCAL_INV => WcOpcode::RdmaRead,
        SIW_OP_SEND | SIW_OP_SEND_WITH_IMM | SIW_OP_SEND_REMOTE_INV => WcOpcode::Send,
        SIW_OP_FETCH_AND_ADD => WcOpcode::FetchAdd,
        SIW_OP_COMP_AND_SWAP => WcOpcode::CompSwap,
        SIW_OP_RECEIVE => WcOpcode::Recv,
        other => WcOpcode::Unknown(0x1_0000 | u32::from(other)),
    }
}

/// A completion as siw writes it, as libsiw reports it (no immediate data, no flags).
pub(crate) fn decode(c: &siw_cqe) -> Wc {
    Wc {
        wr_id: c.id,
        status: status(c.status),
        opcode: wc_opcode(c.opcode),
        vendor_err: 0,
        byte_len: c.bytes,
        imm_data: 0,
        qp_num: c.qp_id as u32,
        src_qp: 0,
        wc_flags: WcFlags::empty(),
        pkey_index: 0,
        slid: 0,
        sl: 0,
        dlid_path_bits: 0,
    }
}
