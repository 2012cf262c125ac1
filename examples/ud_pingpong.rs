//! `ud_pingpong`: a UD ping-pong over uverbs that talks to rdma-core's `ibv_ud_pingpong`
//! (either end may be either program) with the same options and output. rxe only: UD is
//! a RoCE and InfiniBand transport (siw, iWARP, has RC alone).
//!
//! ```text
//! ud_pingpong -d rxe0 -g 1                # server
//! ud_pingpong -d rxe0 -g 1 SERVER         # client (or ibv_ud_pingpong -d rxe0 -g 1 SERVER)
//! ```
//!
//! What it shows beside `rc_pingpong`: a datagram QP, which needs no connection (INIT
//! with a Q_Key, RTR, RTS with its PSN) but an address handle for the peer
//! ([`AhAttr`]); a send names the handle, the peer's QP number and its Q_Key; and a
//! receive starts with the 40-byte GRH the device writes in front of the message.

use uverbs::verbs::datapath::{RecvWr, SendOp, SendWr, Sge};
use uverbs::verbs::objects::{AhAttr, ModifyQp, MrBuf, QpCap, QpInit};
use uverbs::{AccessFlags, Gid, QpType};

#[path = "common/pingpong.rs"]
mod pingpong;

use pingpong::{exchange, Dest, RECV_WRID, SEND_WRID};

/// The Global Route Header a UD receive starts with.
const GRH: usize = 40;
/// The Q_Key both sides use, as ibv_ud_pingpong's.
const QKEY: u32 = 0x1111_1111;

fn main() {
    let o = pingpong::parse(2048, false);
    let ctx = pingpong::open(&o);
    let port = ctx.query_port(u32::from(o.ib_port)).expect("QUERY_PORT");
    if o.size > port.active_mtu.bytes().unwrap_or(0) as usize {
        eprintln!(
            "Requested size larger than port MTU ({})",
            port.active_mtu.bytes().unwrap_or(0)
        );
        std::process::exit(1);
    }

    // One buffer: the GRH and the message received into it, the message sent from past
    // the GRH.
    let pd = ctx.alloc_pd().expect("ALLOC_PD");
    let mut buf = MrBuf::new(o.size + GRH).expect("allocate the buffer");
    buf.write_at(0, &vec![0x7b; o.size + GRH]);
    let mut mr = pd.reg_mr(buf, AccessFlags::LOCAL_WRITE).expect("REG_MR");
    const PAGE: usize = 4096;
    if o.server.is_some() && o.check {
        for i in (0..o.size).step_by(PAGE) {
            mr.write_at(GRH + i, &[0]);
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
        .create_qp(&QpInit::new(QpType::Ud, &cq, &cq).cap(cap))
        .expect("CREATE_QP");
    qp.modify(&mut ModifyQp::init(
        QpType::Ud,
        o.ib_port,
        AccessFlags::empty(),
        QKEY,
    ))
    .expect("Failed to modify QP to INIT");

    let recv_sge = [Sge::new(&mr, 0, (o.size + GRH) as u32).expect("in the MR")];
    let post_recvs = |n: u32| {
        let wrs = vec![RecvWr::new(RECV_WRID, &recv_sge); n as usize];
        qp.post_recv(&wrs).map(|()| n).unwrap_or(0)
    };
    let routs = post_recvs(o.rx_depth);
    if routs < o.rx_depth {
        eprintln!("Couldn't post receive ({routs})");
        std::process::exit(1);
    }

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
    // (ibv_ud_pingpong's local line has a colon before the GID)
    mine.show("local", ':');

    // UD has no connection: RTR and RTS at once, and an address handle for the peer.
    let ready = || {
        qp.modify(&mut ModifyQp::rtr(
            QpType::Ud,
            port.active_mtu,
            0,
            0,
            AhAttr::default(),
        ))
        .expect("Failed to modify QP to RTR");
        qp.modify(&mut ModifyQp::rts(QpType::Ud, mine.psn))
            .expect("Failed to modify QP to RTS");
    };
    let mut ready_once = Some(ready);
    let rem = exchange(&o, &mine, |_| (ready_once.take().expect("once"))());
    if let Some(r) = ready_once {
        r();
    }
    let ah = pd
        .create_ah(&match o.gid_idx {
            Some(i) => AhAttr::global(o.ib_port, i, rem.gid, 64),
            None => AhAttr {
                dlid: rem.lid,
                port_num: o.ib_port,
                ..AhAttr::default()
            },
        })
        .expect("Failed to create AH");
    rem.show("remote", ',');

    let send_sge = [Sge::new(&mr, GRH, o.size as u32).expect("in the MR")];
    let send = || {
        let wr = [SendWr::new(SEND_WRID, SendOp::Send)
            .sg(&send_sge)
            .signaled()
            .ud(&ah, rem.qpn, QKEY)];
        qp.post_send(&wr).expect("Couldn't post send");
    };
    pingpong::run(&o, &cq, send, post_recvs, routs);
    if o.server.is_none() && o.check {
        let mut b = [0u8; 1];
        for i in (0..o.size).step_by(PAGE) {
            if !mr.read_at(GRH + i, &mut b) || b[0] != 0 {
                println!("invalid data in page {}", i / PAGE);
            }
        }
    }
    drop((qp, ah, cq, mr, pd));
}
