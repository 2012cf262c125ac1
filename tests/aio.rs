//! `uverbs::aio` (feature `tokio`) in the VM: an async wait for a port event, an async
//! ping-pong through a completion channel, an async wait for a device's removal, and an
//! async RDMA CM connection, each on a current-thread tokio runtime.

mod common;

use std::sync::Arc;
use std::time::Duration;

use uverbs::aio::{AsyncCmChannel, AsyncCompChannel, AsyncDeviceMonitor, AsyncEventStream};
use uverbs::cm::{CmChannel, CmId, ConnParam};
use uverbs::verbs::datapath::{RecvWr, SendOp, SendWr, Sge, Wc};
use uverbs::verbs::objects::{AhAttr, ModifyQp, MrBuf, QpCap, QpInit};
use uverbs::{
    AccessFlags, CmEventType, Context, DeviceChange, DeviceMonitor, EventType, Mtu, Next, QpType,
    WcStatus,
};

use common::scratch::{run, ScratchDevice};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()
        .unwrap()
}

const LIMIT: Duration = Duration::from_secs(30);

fn rxe() -> String {
    common::device("rxe")
}

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn a_port_event_is_awaited() {
    let dev = rxe();
    let parent = std::fs::read_to_string(format!("/sys/class/infiniband/{dev}/parent"))
        .unwrap()
        .trim()
        .to_string();
    let ctx = Context::open_by_name(&dev).unwrap();
    runtime().block_on(async {
        let mut events = AsyncEventStream::new(ctx.events().unwrap()).unwrap();
        for (state, want) in [("down", EventType::PortErr), ("up", EventType::PortActive)] {
            let (st, out) = run(&["ip", "link", "set", &parent, state], LIMIT);
            assert_eq!(st, 0, "{out}");
            let got = tokio::time::timeout(LIMIT, events.next())
                .await
                .expect("an event within the limit")
                .unwrap();
            match got {
                Next::Event(e) => assert_eq!((e.kind, e.port()), (want, Some(1)), "{e}"),
                other => panic!("{other:?}"),
            }
        }
    });
}

/// Two RC QPs on rxe's loopback; b's CQ reports on a completion channel awaited
/// asynchronously: armed, awaited, polled, acknowledged, ten times, payload checked.
#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn an_async_ping_pong_through_a_completion_channel() {
    let dev = rxe();
    let ctx = Arc::new(Context::open_by_name(&dev).unwrap());
    runtime().block_on(async {
        let pd = ctx.alloc_pd().unwrap();
        let channel = AsyncCompChannel::new(ctx.create_comp_channel().unwrap()).unwrap();
        let cq_a = ctx.create_cq(16, None, 0).unwrap();
        let cq_b = ctx.create_cq(16, Some(channel.get_ref()), 0).unwrap();
        let cap = QpCap {
            max_send_wr: 16,
            max_recv_wr: 16,
            max_send_sge: 1,
            max_recv_sge: 1,
            max_inline_data: 0,
        };
        let a = pd
            .create_qp(&QpInit::new(QpType::Rc, &cq_a, &cq_a).cap(cap))
            .unwrap();
        let b = pd
            .create_qp(&QpInit::new(QpType::Rc, &cq_b, &cq_b).cap(cap))
            .unwrap();
        let gid = ctx.query_gid(1, 1).unwrap().expect("rxe's IPv4 GID").gid;
        for (q, peer, psn) in [(&a, &b, 0x10u32), (&b, &a, 0x20)] {
            q.modify(&mut ModifyQp::init(
                QpType::Rc,
                1,
                AccessFlags::LOCAL_WRITE,
                0,
            ))
            .unwrap();
            let path = AhAttr::global(1, 1, gid, 1);
            let peer_psn = if psn == 0x10 { 0x20 } else { 0x10 };
            q.modify(&mut ModifyQp::rtr(
                QpType::Rc,
                Mtu::Mtu1024,
                peer.qp_num(),
                peer_psn,
                path,
            ))
            .unwrap();
            q.modify(&mut ModifyQp::rts(QpType::Rc, psn)).unwrap();
        }
        let send = pd
            .reg_mr(MrBuf::new(256).unwrap(), AccessFlags::LOCAL_WRITE)
            .unwrap();
        let recv = pd
            .reg_mr(MrBuf::new(256).unwrap(), AccessFlags::LOCAL_WRITE)
            .unwrap();
        let mut send = send;
        for i in 0..10u8 {
            assert!(send.write_at(0, &[i; 256]));
            let rs = [Sge::new(&recv, 0, 256).unwrap()];
            b.post_recv(&[RecvWr::new(u64::from(i), &rs)]).unwrap();
            cq_b.req_notify(false).unwrap();
            let ss = [Sge::new(&send, 0, 256).unwrap()];
            a.post_send(&[SendWr::new(100 + u64::from(i), SendOp::Send)
                .sg(&ss)
                .signaled()])
                .unwrap();
            let cq = tokio::time::timeout(LIMIT, channel.get_event())
                .await
                .expect("a completion event within the limit")
                .unwrap();
            cq.ack_events(1);
            let mut wc = [Wc::default(); 2];
            let mut n = 0;
            while n == 0 {
                n = cq_b.poll(&mut wc).unwrap();
            }
            assert_eq!(
                (wc[0].wr_id, wc[0].status, wc[0].byte_len),
                (u64::from(i), WcStatus::Success, 256)
            );
            let mut got = [0u8; 256];
            assert!(recv.read_at(0, &mut got));
            assert!(got.iter().all(|&x| x == i), "payload of message {i}");
            // a's send completion, polled without waiting
            let mut wa = [Wc::default(); 1];
            while cq_a.poll(&mut wa).unwrap() == 0 {}
            assert_eq!(wa[0].status, WcStatus::Success);
        }
    });
}

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn a_device_removal_is_awaited() {
    let _ = common::devices();
    runtime().block_on(async {
        let mut monitor = AsyncDeviceMonitor::new(DeviceMonitor::new().unwrap()).unwrap();
        let d = ScratchDevice::create("rxe", "rxe_aio", "aionet", 241);
        let (st, out) = run(&["rdma", "link", "delete", &d.name], LIMIT);
        assert_eq!(st, 0, "{out}");
        loop {
            let c = tokio::time::timeout(LIMIT, monitor.next())
                .await
                .expect("the removal within the limit")
                .unwrap();
            if matches!(&c, DeviceChange::Removed { name } if name == "rxe_aio") {
                break;
            }
        }
    });
}

/// siw connects only through the RDMA CM: a listener awaits the connection request
/// and the established event on its async channel while a client connects.
#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn an_rdma_cm_connection_is_awaited_on_siw() {
    let dev = common::devices()
        .into_iter()
        .find(|d| d.starts_with("siw"))
        .expect("a siw device");
    let n: u32 = dev[3..].parse().unwrap();
    let at: std::net::SocketAddr = format!("169.254.{}.1:7490", 129 + n).parse().unwrap();
    runtime().block_on(async {
        let ch = AsyncCmChannel::new(CmChannel::open().unwrap()).unwrap();
        let listen = ch.get_ref().create_id().unwrap();
        listen.bind(at).unwrap();
        listen.listen(1).unwrap();
        let client = std::thread::spawn(move || {
            let ctx = Arc::new(Context::open_by_name(&dev).unwrap());
            let pd = ctx.alloc_pd().unwrap();
            let cq = ctx.create_cq(4, None, 0).unwrap();
            let qp = pd.create_qp(&QpInit::new(QpType::Rc, &cq, &cq)).unwrap();
            let cch = CmChannel::open().unwrap();
            let id = cch.create_id().unwrap();
            id.resolve_addr(at, LIMIT).unwrap();
            id.resolve_route(LIMIT).unwrap();
            let e = id.connect(&qp, &ConnParam::default(), LIMIT).unwrap();
            assert_eq!(e.kind, CmEventType::Established);
            let _ = id.next_event(LIMIT); // the server's disconnect
        });
        let req = tokio::time::timeout(LIMIT, ch.get_event())
            .await
            .expect("a connection request within the limit")
            .unwrap();
        assert_eq!(req.kind, CmEventType::ConnectRequest);
        let id = CmId::from_request(ch.get_ref(), &req).unwrap();
        let info = id.query_addr().unwrap().device().unwrap();
        let ctx = Arc::new(Context::open(&info).unwrap());
        let pd = ctx.alloc_pd().unwrap();
        let cq = ctx.create_cq(4, None, 0).unwrap();
        let qp = pd.create_qp(&QpInit::new(QpType::Rc, &cq, &cq)).unwrap();
        let e = id.accept(&qp, &ConnParam::default(), LIMIT).unwrap();
        assert_eq!(e.kind, CmEventType::Established);
        id.disconnect().unwrap();
        client.join().unwrap();
        drop((listen, id));
    });
}
