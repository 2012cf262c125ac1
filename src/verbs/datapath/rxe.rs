//! rxe's queues: send and receive requests written into its mapped work queues, and
//! completions (`ib_uverbs_wc`) read from its mapped completion queue.

use zerocopy::{FromBytes, FromZeros, IntoBytes};

use super::{check_send, PostFail, RecvWr, SendOp, SendWr, Wc, WrProblem};
use crate::raw::abi::ib_uverbs_wc;
use crate::raw::driver::{
    rxe_create_ah_resp, rxe_recv_wqe, rxe_send_wqe, rxe_send_wr, rxe_send_wr_atomic,
    rxe_send_wr_rdma, rxe_sge,
};
use crate::raw::ring::{Doorbell, RxeConsumer, RxeProducer};
use crate::types::{QpType, WcFlags, WcOpcode, WcStatus};

const WQE: usize = core::mem::size_of::<rxe_send_wqe>();
const RWQE: usize = core::mem::size_of::<rxe_recv_wqe>();
const SGE: usize = core::mem::size_of::<rxe_sge>();
const WC: usize = core::mem::size_of::<ib_uverbs_wc>();

/// The slot size a send queue needs for `max_sge` SGEs or `max_inline` inline bytes.
pub(crate) fn send_slot(max_sge: u32, max_inline: u32) -> usize {
    WQE + (max_sge as usize * SGE).max(max_inline as usize)
}

/// The slot size a receive queue needs for `max_sge` SGEs.
pub(crate) fn recv_slot(max_sge: u32) -> usize {
    RWQE + max_sge as usize * SGE
}

/// The smallest completion slot.
pub(crate) const CQ_SLOT: usize = WC;

/// An rxe send queue.
#[derive(Debug)]
pub(crate) struct RxeSq {
    pub(crate) ring: RxeProducer,
    pub(crate) doorbell: Doorbell,
    pub(crate) max_sge: u32,
    pub(crate) max_inline: u32,
}

impl RxeSq {
    pub(crate) fn free(&self) -> u32 {
        self.ring.free()
    }

    /// Each request is checked, then written into the next free slot; the slots are the
    /// kernel's only when the producer index moves past them, after the last one, so a
    /// request refused half-way leaves nothing posted. A queue without room for all
    /// still reports a wrong request first, as the checks come before the room.
    pub(crate) fn post(&mut self, qp_type: QpType, wrs: &[SendWr<'_>]) -> Result<(), PostFail> {
        let free = self.ring.free();
        if wrs.len() > free as usize {
            for (i, wr) in wrs.iter().enumerate() {
                self.check(i, wr, qp_type)?;
            }
            return Err(PostFail::Full(free));
        }
        for (k, wr) in wrs.iter().enumerate() {
            let length = self.check(k, wr, qp_type)?;
            self.write(k as u32, wr, length);
        }
        self.ring.publish(wrs.len() as u32);
        Ok(())
    }

    /// The checks of request `i`; its payload's length.
    fn check(&self, i: usize, wr: &SendWr<'_>, qp_type: QpType) -> Result<u32, PostFail> {
        let length = check_send(i, wr, qp_type, self.max_sge, self.max_inline)?;
        if let Some(ud) = &wr.ud {
            if ah_num(ud.ah) == 0 {
                return Err(PostFail::Bad(i, WrProblem::NoAhNumber));
            }
        }
        Ok(length)
    }

    /// Writes request `wr` of `length` payload bytes into the `k`-th free slot: the
    /// 208-byte `rxe_send_wqe` (every field, so nothing of the slot's last use remains),
    /// then its SGEs or inline data.
    fn write(&mut self, k: u32, wr: &SendWr<'_>, length: u32) {
        let mut wqe = rxe_send_wqe::new_zeroed();
        let flags = wr.send_flags().bits();
        let imm = wr.op.imm().map_or(0, u32::to_be);
        let opcode = wr.op.as_raw();
        match (wr.op, &wr.ud) {
            (
                SendOp::AtomicCmpSwap {
                    remote,
                    compare,
                    swap,
                },
                _,
            ) => {
                wqe.wr = as_send_wr(&rxe_send_wr_atomic {
                    wr_id: wr.wr_id,
                    opcode,
                    send_flags: flags,
                    remote_addr: remote.addr,
                    compare_add: compare,
                    swap,
                    rkey: remote.rkey,
                    ..FromZeros::new_zeroed()
                });
                wqe.iova = remote.addr;
            }
            (SendOp::AtomicFetchAdd { remote, add }, _) => {
                wqe.wr = as_send_wr(&rxe_send_wr_atomic {
                    wr_id: wr.wr_id,
                    opcode,
                    send_flags: flags,
                    remote_addr: remote.addr,
                    compare_add: add,
                    rkey: remote.rkey,
                    ..FromZeros::new_zeroed()
                });
                wqe.iova = remote.addr;
            }
            (_, Some(ud)) => {
                wqe.wr = rxe_send_wr {
                    wr_id: wr.wr_id,
                    opcode,
                    send_flags: flags,
                    ex: imm,
                    remote_qpn: ud.remote_qpn,
                    remote_qkey: ud.remote_qkey,
                    ah_num: ah_num(ud.ah),
                    ..FromZeros::new_zeroed()
                };
            }
            (op, None) => {
                let remote = op.remote().unwrap_or_default();
                wqe.wr = as_send_wr(&rxe_send_wr_rdma {
                    wr_id: wr.wr_id,
                    opcode,
                    send_flags: flags,
                    ex: imm,
                    remote_addr: remote.addr,
                    rkey: remote.rkey,
                    ..FromZeros::new_zeroed()
                });
                wqe.iova = remote.addr;
            }
        }
        wqe.dma.length = length;
        wqe.dma.resid = length;
        match wr.inline {
            Some(data) => {
                // As a libibverbs caller's one SGE of inline data (the kernel reads the
                // inline bytes by `length`, not by `num_sge`).
                wqe.dma.num_sge = u32::from(!data.is_empty());
                self.ring.write(k, WQE, data);
            }
            None => {
                wqe.dma.num_sge = wr.sges.len() as u32;
                for (j, s) in wr.sges.iter().enumerate() {
                    let e = rxe_sge {
                        addr: s.addr,
                        length: s.length,
                        lkey: s.lkey,
                    };
                    self.ring.write(k, WQE + j * SGE, e.as_bytes());
                }
            }
        }
        self.ring.write(k, 0, wqe.as_bytes());
    }
}

/// The same 144 bytes through the union's UD member.
fn as_send_wr<T: IntoBytes + zerocopy::Immutable>(v: &T) -> rxe_send_wr {
    rxe_send_wr::read_from_bytes(v.as_bytes()).unwrap_or_else(|_| rxe_send_wr::new_zeroed())
}

/// The AH's number from CREATE_AH's driver response (0 from kernels before 5.10).
fn ah_num(ah: &crate::verbs::objects::Ah) -> u32 {
    rxe_create_ah_resp::read_from_prefix(ah.driver_data()).map_or(0, |(r, _)| r.ah_num)
}

/// An rxe receive queue (a QP's or an SRQ's).
#[derive(Debug)]
pub(crate) struct RxeRq {
    pub(crate) ring: RxeProducer,
    pub(crate) max_sge: u32,
}

impl RxeRq {
    pub(crate) fn free(&self) -> u32 {
        self.ring.free()
    }

    /// As [`RxeSq::post`]: each request checked, then written; published after the last.
    pub(crate) fn post(&mut self, wrs: &[RecvWr<'_>]) -> Result<(), PostFail> {
        let free = self.ring.free();
        if wrs.len() > free as usize {
            for (i, wr) in wrs.iter().enumerate() {
                self.check(i, wr)?;
            }
            return Err(PostFail::Full(free));
        }
        for (k, wr) in wrs.iter().enumerate() {
            let length = self.check(k, wr)?;
            let mut wqe = rxe_recv_wqe::new_zeroed();
            wqe.wr_id = wr.wr_id;
            wqe.dma.length = length;
            wqe.dma.resid = length;
            wqe.dma.num_sge = wr.sges.len() as u32;
            for (j, s) in wr.sges.iter().enumerate() {
                let e = rxe_sge {
                    addr: s.addr,
                    length: s.length,
                    lkey: s.lkey,
                };
                self.ring.write(k as u32, RWQE + j * SGE, e.as_bytes());
            }
            self.ring.write(k as u32, 0, wqe.as_bytes());
        }
        self.ring.publish(wrs.len() as u32);
        Ok(())
    }
}

impl RxeRq {
    /// The checks of request `i`; its payload's length.
    fn check(&self, i: usize, wr: &RecvWr<'_>) -> Result<u32, PostFail> {
        if wr.sges.len() > self.max_sge as usize {
            return Err(PostFail::Bad(
                i,
                WrProblem::TooManySges {
                    max: self.max_sge,
                    got: wr.sges.len(),
                },
            ));
        }
        wr.length()
            .ok_or(PostFail::Bad(i, WrProblem::LengthOverflow))
    }
}

/// An rxe completion queue.
#[derive(Debug)]
pub(crate) struct RxeCq {
    pub(crate) ring: RxeConsumer,
}

impl RxeCq {
    /// An empty queue costs the index loads and nothing else (the copy is out of line).
    #[inline(always)]
    pub(crate) fn poll(&mut self, out: &mut [Wc]) -> usize {
        let n = (self.ring.ready() as usize).min(out.len());
        if n == 0 {
            return 0;
        }
        self.take(&mut out[..n]);
        n
    }

    /// Copies the next `out.len()` completions (all ready) and gives their slots back.
    #[inline(never)]
    fn take(&mut self, out: &mut [Wc]) {
        for (k, w) in out.iter_mut().enumerate() {
            let mut raw = ib_uverbs_wc::new_zeroed();
            self.ring.read(k as u32, 0, raw.as_mut_bytes());
            *w = decode(&raw);
        }
        self.ring.release(out.len() as u32);
    }
}

/// A completion as rxe writes it (`ib_uverbs_wc`: libibverbs' `ibv_wc` layout, with the
/// kernel's numbering of status and opcode).
pub(crate) fn decode(r: &ib_uverbs_wc) -> Wc {
    let flags = WcFlags::from_bits_retain(r.wc_flags);
    Wc {
        wr_id: r.wr_id,
        status: WcStatus::from_raw(r.status),
        opcode: WcOpcode::from_raw(r.opcode),
        vendor_err: r.vendor_err,
        byte_len: r.byte_len,
        imm_data: if flags.contains(WcFlags::WITH_IMM) {
            u32::from_be(r.ex)
        } else {
            r.ex
        },
        qp_num: r.qp_num,
        src_qp: r.src_qp,
        wc_flags: flags,
        pkey_index: r.pkey_index,
        slid: r.slid,
        sl: r.sl,
        dlid_path_bits: r.dlid_path_bits,
    }
}
