//! `rc_pingpong`: an RC ping-pong over uverbs that talks to rdma-core's `ibv_rc_pingpong`
//! (either end may be either program) with the same options and the same output.
//!
//! ```text
//! rc_pingpong -d rxe0 -g 1                # server
//! rc_pingpong -d rxe0 -g 1 SERVER         # client (or ibv_rc_pingpong -d rxe0 -g 1 SERVER)
//! ```
//!
//! What it shows, in order: opening a device ([`Context`]), a PD, a buffer registered as
//! an MR, a CQ, an RC QP; exchanging the QP's address over TCP (the text
//! `LID:QPN:PSN:GID` that `ibv_rc_pingpong` writes); moving the QP to INIT, RTR and RTS
//! with the [`ModifyQp`] helpers (an RoCE path needs a GID: `-g`); posting receives and
//! sends, and polling the CQ (the loop both ping-pongs share: `run` in
//! `common/pingpong.rs`); and the drop order: the QP before the CQ and the MR, the PD
//! last, each holding what it needs alive.
//!
//! The run: the server posts `-r` receives, the client sends first, and each side sends
//! again once its last send completed and the other's message came in, `-n` times; with
//! `-c` the client zeroes the first byte of every page of the buffer it sends and the
//! server checks those bytes once the run ends (the buffer goes back and forth, sent
//! from and received into the same memory).

use uverbs::verbs::datapath::{RecvWr, SendOp, SendWr, Sge};
use uverbs::verbs::objects::{AhAttr, ModifyQp, MrBuf, QpCap, QpInit};
use uverbs::{AccessFlags, Gid, QpType};

#[path = "common/pingpong.rs"]
mod pingpong;

use pingpong::{exchange, Dest, RECV_WRID, SEND_WRID};

fn main() {
    let o = pingpong::parse(4096, true);
    // Discover and open: the named device, or the first one.
    let ctx = pingpong::open(&o);

    // The objects. Each holds what it needs (a QP its PD and CQ, an MR its PD), so
    // dropping them in any order is safe; they are dropped QP first, PD last, below.
    let pd = ctx.alloc_pd().expect("ALLOC_PD");
    let buf = MrBuf::new(o.size).expect("allocate the buffer");
    let mut mr = pd.reg_mr(buf, AccessFlags::LOCAL_WRITE).expect("REG_MR");
    // With -c the client zeroes the first byte of every page before it sends.
    const PAGE: usize = 4096;
    if o.server.is_some() && o.check {
        for i in (0..o.size).step_by(PAGE) {
            mr.write_at(i, &[0]);
        }
    }
    let cq = ctx.create_cq(o.rx_depth + 1, None, 0).expect("CREATE_CQ");
    let cap = QpCap {
        max_send_wr: 1,
        max_recv_wr: o.rx_depth,
        max_send_sge: 1,
        max_recv_sge: 1,
        max_inline_data: 0,
    };
    let qp = pd
        .create_qp(&QpInit::new(QpType::Rc, &cq, &cq).cap(cap))
        .expect("CREATE_QP");
    qp.modify(&mut ModifyQp::init(
        QpType::Rc,
        o.ib_port,
        AccessFlags::empty(),
        0,
    ))
    .expect("Failed to modify QP to INIT");

    // Receives are posted before the exchange, as ibv_rc_pingpong does.
    let sge = [Sge::new(&mr, 0, o.size as u32).expect("an SGE in the MR")];
    let post_recvs = |n: u32| {
        let wrs = vec![RecvWr::new(RECV_WRID, &sge); n as usize];
        qp.post_recv(&wrs).map(|()| n).unwrap_or(0)
    };
    let routs = post_recvs(o.rx_depth);
    if routs < o.rx_depth {
        eprintln!("Couldn't post receive ({routs})");
        std::process::exit(1);
    }

    let port = ctx.query_port(u32::from(o.ib_port)).expect("QUERY_PORT");
    let gid = match o.gid_idx {
        Some(i) => {
            ctx.query_gid(u32::from(o.ib_port), u32::from(i))
                .ok()
                .flatten()
                .expect("can't read sgid")
                .gid
        }
        None => Gid([0; 16]),
    };
    let mine = Dest {
        lid: port.lid,
        qpn: qp.qp_num(),
        psn: pingpong::psn(),
        gid,
    };
    mine.show("local", ',');

    let connect = |rem: &Dest| {
        let path = match o.gid_idx {
            Some(i) => AhAttr::global(o.ib_port, i, rem.gid, 1),
            None => AhAttr {
                dlid: rem.lid,
                port_num: o.ib_port,
                ..AhAttr::default()
            },
        };
        qp.modify(&mut ModifyQp::rtr(
            QpType::Rc,
            o.mtu,
            rem.qpn,
            rem.psn,
            path,
        ))
        .expect("Failed to modify QP to RTR");
        qp.modify(&mut ModifyQp::rts(QpType::Rc, mine.psn))
            .expect("Failed to modify QP to RTS");
    };
    let rem = exchange(&o, &mine, connect);
    if o.server.is_some() {
        connect(&rem);
    }
    rem.show("remote", ',');

    // The run.
    let send = || {
        let wr = [SendWr::new(SEND_WRID, SendOp::Send).sg(&sge).signaled()];
        qp.post_send(&wr).expect("Couldn't post send");
    };
    pingpong::run(&o, &cq, send, post_recvs, routs);
    if o.server.is_none() && o.check {
        let mut b = [0u8; 1];
        for i in (0..o.size).step_by(PAGE) {
            if !mr.read_at(i, &mut b) || b[0] != 0 {
                println!("invalid data in page {}", i / PAGE);
            }
        }
    }
    // The drop order: the QP (it holds the CQ and the PD), the CQ, the MR, the PD; the
    // context goes with the last of them.
    drop(qp);
    drop(cq);
    drop(mr);
    drop(pd);
}
