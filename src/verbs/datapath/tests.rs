//! The encoders against the drivers' layouts: requests posted into queues backed by a
//! memfd (mapped as the driver's queue would be), the bytes read back from the file.
//! No driver is involved (host tests; the VM tests prove the same against the kernel).

use super::*;
use crate::raw::driver::*;
use crate::raw::ring::tests::{file_bytes, memfd};
use crate::raw::ring::{Doorbell, RxeConsumer, RxeProducer, RxeQueue, SiwQueue};
use crate::verbs::datapath::rxe::{RxeCq, RxeRq, RxeSq};
use crate::verbs::datapath::siw::{SiwCq, SiwRq, SiwSq};
use zerocopy::{FromBytes, IntoBytes};

const HDR: usize = 384;

fn rxe_ring(log2: u32, mask: u32) -> (crate::raw::lifeline::RevocableFd, RxeQueue) {
    let mut h = log2.to_ne_bytes().to_vec();
    h.extend_from_slice(&mask.to_ne_bytes());
    let len = HDR + ((mask as usize + 1) << log2);
    let fd = memfd(len, &[(0, &h)]);
    let q = RxeQueue::new(fd.map_shared(0, len).unwrap(), 1 << log2).unwrap();
    (fd, q)
}

#[test]
#[cfg_attr(miri, ignore)]
fn rxe_send_wqe_layout() {
    let (fd, q) = rxe_ring(9, 3); // 4 slots of 512 bytes
    let mut sq = RxeSq {
        ring: RxeProducer::new(q),
        doorbell: Doorbell::new(1),
        max_sge: 2,
        max_inline: 64,
    };
    let sges = [Sge::test(0x1000, 100, 7), Sge::test(0x3000, 28, 7)];
    let remote = Remote {
        addr: 0xabc0,
        rkey: 0x55,
    };
    let wrs = [
        SendWr::new(11, SendOp::RdmaWriteWithImm(remote, 0x0102_0304))
            .sg(&sges)
            .signaled(),
        SendWr::new(12, SendOp::Send).inline(b"hello"),
        SendWr::new(
            13,
            SendOp::AtomicCmpSwap {
                remote,
                compare: 1,
                swap: 2,
            },
        )
        .sg(&sges[..1]),
    ];
    sq.post(QpType::Rc, &wrs).unwrap();
    let slot = |k: usize| file_bytes(&fd, HDR + k * 512, 512);
    let w = rxe_send_wqe::read_from_bytes(&slot(0)[..208]).unwrap();
    assert_eq!(w.wr.wr_id, 11);
    assert_eq!(
        w.wr.opcode,
        crate::raw::abi::IB_UVERBS_WR_RDMA_WRITE_WITH_IMM
    );
    assert_eq!(w.wr.send_flags, 2, "IBV_SEND_SIGNALED");
    assert_eq!(
        w.wr.ex,
        0x0102_0304u32.to_be(),
        "immediate data in network order"
    );
    let r = rxe_send_wr_rdma::read_from_bytes(w.wr.as_bytes()).unwrap();
    assert_eq!((r.remote_addr, r.rkey), (0xabc0, 0x55));
    assert_eq!(w.iova, 0xabc0);
    assert_eq!((w.dma.length, w.dma.resid, w.dma.num_sge), (128, 128, 2));
    let s1 = rxe_sge::read_from_bytes(&slot(0)[208 + 16..208 + 32]).unwrap();
    assert_eq!((s1.addr, s1.length, s1.lkey), (0x3000, 28, 7));

    let w = rxe_send_wqe::read_from_bytes(&slot(1)[..208]).unwrap();
    assert_eq!(w.wr.send_flags, 8, "IBV_SEND_INLINE");
    assert_eq!((w.dma.length, w.dma.num_sge), (5, 1));
    assert_eq!(&slot(1)[208..213], b"hello");

    let w = rxe_send_wqe::read_from_bytes(&slot(2)[..208]).unwrap();
    let a = rxe_send_wr_atomic::read_from_bytes(w.wr.as_bytes()).unwrap();
    assert_eq!(
        (a.remote_addr, a.compare_add, a.swap, a.rkey),
        (0xabc0, 1, 2, 0x55)
    );
    assert_eq!(
        file_bytes(&fd, 128, 4),
        3u32.to_ne_bytes(),
        "producer index"
    );

    // One slot left of three: four requests are refused whole, nothing written.
    let four = [SendWr::new(1, SendOp::Send); 4];
    assert_eq!(sq.post(QpType::Rc, &four), Err(PostFail::Full(0)));
    // Too many SGEs, inline too long, an unaligned atomic: refused before writing.
    let three = [Sge::test(0, 1, 1); 3];
    assert!(matches!(
        sq.post(QpType::Rc, &[SendWr::new(1, SendOp::Send).sg(&three)]),
        Err(PostFail::Bad(0, WrProblem::TooManySges { max: 2, got: 3 }))
    ));
    assert!(matches!(
        sq.post(QpType::Rc, &[SendWr::new(1, SendOp::Send).inline(&[0; 65])]),
        Err(PostFail::Bad(
            0,
            WrProblem::InlineTooLong { max: 64, got: 65 }
        ))
    ));
    let odd = Remote { addr: 4, rkey: 1 };
    assert!(matches!(
        sq.post(
            QpType::Rc,
            &[SendWr::new(
                1,
                SendOp::AtomicFetchAdd {
                    remote: odd,
                    add: 1
                }
            )
            .sg(&sges[..1])]
        ),
        Err(PostFail::Bad(0, WrProblem::AtomicOperands))
    ));
    assert_eq!(file_bytes(&fd, 128, 4), 3u32.to_ne_bytes(), "still 3");
}

/// A request refused after others were written into free slots: nothing is published;
/// a queue without room still reports a wrong request first.
#[test]
#[cfg_attr(miri, ignore)]
fn rxe_post_refused_half_way_publishes_nothing() {
    let (fd, q) = rxe_ring(9, 3); // 4 slots: room for 3
    let mut sq = RxeSq {
        ring: RxeProducer::new(q),
        doorbell: Doorbell::new(1),
        max_sge: 1,
        max_inline: 0,
    };
    let two = [Sge::test(0, 1, 1); 2];
    let wrs = [
        SendWr::new(1, SendOp::Send),
        SendWr::new(2, SendOp::Send).sg(&two),
    ];
    assert!(matches!(
        sq.post(QpType::Rc, &wrs),
        Err(PostFail::Bad(1, WrProblem::TooManySges { max: 1, got: 2 }))
    ));
    assert_eq!(
        file_bytes(&fd, 128, 4),
        0u32.to_ne_bytes(),
        "nothing published"
    );
    assert_eq!(sq.free(), 3);
    let four = [SendWr::new(1, SendOp::Send), wrs[1], wrs[0], wrs[0]];
    assert!(matches!(
        sq.post(QpType::Rc, &four),
        Err(PostFail::Bad(1, WrProblem::TooManySges { .. }))
    ));
    sq.post(QpType::Rc, &wrs[..1]).unwrap();
    assert_eq!(file_bytes(&fd, 128, 4), 1u32.to_ne_bytes(), "one published");
}

#[test]
#[cfg_attr(miri, ignore)]
fn rxe_recv_and_completion() {
    let (fd, q) = rxe_ring(7, 1);
    let mut rq = RxeRq {
        ring: RxeProducer::new(q),
        max_sge: 2,
    };
    let sges = [Sge::test(0x1000, 100, 7), Sge::test(0x3000, 28, 8)];
    rq.post(&[RecvWr::new(5, &sges)]).unwrap();
    let w = rxe_recv_wqe::read_from_bytes(&file_bytes(&fd, HDR, 40)).unwrap();
    assert_eq!((w.wr_id, w.dma.length, w.dma.num_sge), (5, 128, 2));
    assert_eq!(rq.post(&[RecvWr::new(6, &sges)]), Err(PostFail::Full(0)));

    // A completion as rxe writes it: slot 0, producer index 1.
    let wc = crate::raw::abi::ib_uverbs_wc {
        wr_id: 77,
        status: 5,
        opcode: 128,
        byte_len: 9,
        ex: 0x0a0b_0c0du32.to_be(),
        qp_num: 3,
        wc_flags: 2,
        ..Default::default()
    };
    let mut h = 6u32.to_ne_bytes().to_vec();
    h.extend_from_slice(&3u32.to_ne_bytes());
    let fd = memfd(
        4096,
        &[(0, &h), (128, &1u32.to_ne_bytes()), (HDR, wc.as_bytes())],
    );
    let q = RxeQueue::new(fd.map_shared(0, 4096).unwrap(), 48).unwrap();
    let mut cq = RxeCq {
        ring: RxeConsumer::new(q),
    };
    let mut out = [Wc::default(); 4];
    assert_eq!(cq.poll(&mut out), 1);
    assert_eq!(out[0].wr_id, 77);
    assert_eq!(out[0].status, WcStatus::WrFlushErr);
    assert_eq!(out[0].opcode, WcOpcode::Recv);
    assert_eq!(out[0].imm_data, 0x0a0b_0c0d);
    assert_eq!(cq.poll(&mut out), 0);
    assert_eq!(
        file_bytes(&fd, 256, 4),
        1u32.to_ne_bytes(),
        "consumer index"
    );
}

#[test]
#[cfg_attr(miri, ignore)]
fn siw_queues() {
    let fd = memfd(4096, &[]);
    let q = SiwQueue::new(fd.map_shared(0, 4096).unwrap(), 2, 120, false).unwrap();
    let mut sq = SiwSq {
        q,
        put: 0,
        doorbell: Doorbell::new(1),
        max_sge: 6,
        max_inline: 80,
    };
    let r = Remote {
        addr: 0x10,
        rkey: 3,
    };
    let sges = [Sge::test(0x1000, 100, 7)];
    // The first post rings (the element before it is free); the second does not while
    // the first is still the kernel's.
    assert_eq!(
        sq.post(
            QpType::Rc,
            false,
            &[SendWr::new(1, SendOp::RdmaWrite(r)).sg(&sges)]
        ),
        Ok(true)
    );
    assert_eq!(
        sq.post(
            QpType::Rc,
            true,
            &[SendWr::new(2, SendOp::Send).inline(b"abc")]
        ),
        Ok(false)
    );
    let e0 = siw_sqe::read_from_bytes(&file_bytes(&fd, 0, 120)).unwrap();
    assert_eq!(
        (e0.id, e0.opcode, e0.raddr, e0.rkey),
        (1, SIW_OP_WRITE, 0x10, 3)
    );
    assert_eq!(e0.flags, SIW_WQE_VALID);
    assert_eq!(
        (e0.num_sge, e0.sge[0].laddr, e0.sge[0].length),
        (1, 0x1000, 100)
    );
    let e1 = siw_sqe::read_from_bytes(&file_bytes(&fd, 120, 120)).unwrap();
    assert_eq!(
        e1.flags,
        SIW_WQE_VALID | SIW_WQE_SIGNALLED | SIW_WQE_INLINE,
        "sq_sig_all signals"
    );
    assert_eq!(e1.sge[0].length, 3);
    assert_eq!(&file_bytes(&fd, 120 + 40, 3), b"abc", "inline in sge[1..]");
    // Full: both elements are the kernel's.
    assert_eq!(
        sq.post(QpType::Rc, false, &[SendWr::new(3, SendOp::Send)]),
        Err(PostFail::Full(0))
    );
    // What siw lacks, refused before anything is written.
    assert_eq!(
        sq.post(QpType::Rc, false, &[SendWr::new(3, SendOp::SendWithImm(1))]),
        Err(PostFail::Unsupported(0))
    );

    let fd = memfd(4096, &[]);
    let q = SiwQueue::new(fd.map_shared(0, 4096).unwrap(), 4, 112, false).unwrap();
    let mut rq = SiwRq {
        q,
        put: 0,
        max_sge: 2,
    };
    assert_eq!(
        rq.post(&[RecvWr::new(1, &[])]),
        Err(PostFail::Bad(0, WrProblem::NoSge))
    );
    rq.post(&[RecvWr::new(9, &sges)]).unwrap();
    let e = siw_rqe::read_from_bytes(&file_bytes(&fd, 0, 112)).unwrap();
    assert_eq!((e.id, e.flags, e.num_sge), (9, SIW_WQE_VALID, 1));

    // A completion, taken and given back (its flags cleared).
    let c = siw_cqe {
        id: 4,
        flags: SIW_WQE_VALID as u8,
        opcode: SIW_OP_RECEIVE,
        status: SIW_WC_REM_ACCESS_ERR,
        bytes: 12,
        qp_id: 6,
        ..Default::default()
    };
    let fd = memfd(4096, &[(0, c.as_bytes())]);
    let q = SiwQueue::new(fd.map_shared(0, 4096).unwrap(), 4, 32, true).unwrap();
    let mut cq = SiwCq { q, get: 0 };
    let mut out = [Wc::default(); 2];
    assert_eq!(cq.poll(&mut out), 1);
    assert_eq!(
        (
            out[0].wr_id,
            out[0].status,
            out[0].opcode,
            out[0].byte_len,
            out[0].qp_num
        ),
        (4, WcStatus::RemAccessErr, WcOpcode::Recv, 12, 6)
    );
    assert_eq!(file_bytes(&fd, 8, 1), [0]);
    cq.arm(true);
    assert_eq!(file_bytes(&fd, 128, 4), SIW_NOTIFY_SOLICITED.to_ne_bytes());
}
