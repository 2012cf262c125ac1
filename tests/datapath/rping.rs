//! uverbs as one end of librdmacm's `rping` (rdmacm-utils 44 in the guest), on siw,
//! connected through uverbs' own RDMA CM.
//!
//! What rping does, read from its source (librdmacm/examples/rping.c): each side posts
//! one receive of 16 bytes (`struct rping_rdma_info`: buffer address, rkey and size, in
//! network order) before connecting. For each ping the client fills its start buffer
//! with `"rdma-ping-%d: "` and then the letters `A`..`z` from a start letter that moves
//! on by one per ping (wrapping after `z`), the last byte 0; sends the start buffer's
//! info; the server RDMA-reads it into its own buffer (printing `server ping data: %s`
//! with `-v`) and sends a go-ahead (16 bytes); the client sends its sink buffer's info;
//! the server RDMA-writes `strlen + 1` bytes of what it read there and sends another
//! go-ahead; the client compares start and sink (`-V`: "data mismatch!", status 1) and
//! prints `ping data: %s` (`-v`). After `-C` pings the client disconnects.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use uverbs::cm::{CmChannel, CmId, ConnParam};
use uverbs::verbs::datapath::{RecvWr, Remote, SendOp, SendWr, Sge, Wc};
use uverbs::verbs::objects::{Cq, Mr, MrBuf, Pd, Qp, QpCap, QpInit};
use uverbs::{AccessFlags, CmEventType, Context, QpType, WcOpcode, WcStatus};

use super::pingpong::Peer;

const T: Duration = Duration::from_secs(20);

/// The start buffer of ping `ping`, as rping's client fills it.
pub fn rping_payload(ping: usize, size: usize) -> Vec<u8> {
    let mut v = format!("rdma-ping-{ping}: ").into_bytes();
    let mut c = 65 + (ping % 58) as u8;
    while v.len() < size {
        v.push(c);
        c += 1;
        if c > 122 {
            c = 65;
        }
    }
    v.truncate(size);
    if let Some(last) = v.last_mut() {
        *last = 0;
    }
    v
}

/// rping's `struct rping_rdma_info`: 8-byte address, rkey, size, network order.
fn info(addr: u64, rkey: u32, size: u32) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&addr.to_be_bytes());
    b[8..12].copy_from_slice(&rkey.to_be_bytes());
    b[12..].copy_from_slice(&size.to_be_bytes());
    b
}

fn parse_info(b: &[u8]) -> (u64, u32, u32) {
    (
        u64::from_be_bytes(b[..8].try_into().unwrap()),
        u32::from_be_bytes(b[8..12].try_into().unwrap()),
        u32::from_be_bytes(b[12..16].try_into().unwrap()),
    )
}

struct Conn {
    _ctx: Arc<Context>,
    pd: Pd,
    cq: Cq,
    qp: Qp,
    recv: Mr,
    send: Mr,
}

fn mr(pd: &Pd, len: usize) -> Mr {
    pd.reg_mr(
        MrBuf::new(len).unwrap(),
        AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_READ | AccessFlags::REMOTE_WRITE,
    )
    .unwrap()
}

impl Conn {
    fn new(id: &CmId) -> Conn {
        let dev = id.query_addr().unwrap().device().unwrap();
        let ctx = Arc::new(Context::open(&dev).unwrap());
        let pd = ctx.alloc_pd().unwrap();
        let cq = ctx.create_cq(32, None, 0).unwrap();
        let qp = pd
            .create_qp(&QpInit::new(QpType::Rc, &cq, &cq).cap(QpCap {
                max_send_wr: 16,
                max_recv_wr: 2,
                max_send_sge: 1,
                max_recv_sge: 1,
                max_inline_data: 0,
            }))
            .unwrap();
        let recv = mr(&pd, 16);
        let send = mr(&pd, 16);
        Conn {
            _ctx: ctx,
            pd,
            cq,
            qp,
            recv,
            send,
        }
    }

    fn post_recv(&self) {
        let s = [Sge::new(&self.recv, 0, 16).unwrap()];
        self.qp.post_recv(&[RecvWr::new(1, &s)]).unwrap();
    }

    /// Waits for one completion of `op`, successful.
    fn one(&self, op: WcOpcode) -> Wc {
        let t0 = std::time::Instant::now();
        let mut wc = [Wc::default(); 1];
        while self.cq.poll(&mut wc).unwrap() == 0 {
            assert!(
                t0.elapsed() < T,
                "no completion ({op:?} awaited); the receive queue has {} free, the send \
                 queue {}; QP state {:?}",
                self.qp.recv_queue_free(),
                self.qp.send_queue_free(),
                self.qp.query().map(|q| q.state())
            );
            std::thread::yield_now();
        }
        let w = wc[0];
        assert_eq!((w.status, w.opcode), (WcStatus::Success, op), "{w:?}");
        w
    }

    fn send_info(&mut self, addr: u64, rkey: u32, size: u32) {
        assert!(self.send.write_at(0, &info(addr, rkey, size)));
        let s = [Sge::new(&self.send, 0, 16).unwrap()];
        self.qp
            .post_send(&[SendWr::new(2, SendOp::Send).sg(&s).signaled()])
            .unwrap();
        self.one(WcOpcode::Send);
    }

    fn recv_info(&self) -> (u64, u32, u32) {
        let w = self.one(WcOpcode::Recv);
        assert_eq!(w.byte_len, 16);
        let mut b = [0u8; 16];
        assert!(self.recv.read_at(0, &mut b));
        self.post_recv();
        parse_info(&b)
    }
}

/// uverbs as the client of `rping -s`: every echo checked against what was sent, and
/// the server's printed ping data against it.
pub fn uverbs_client(dev_addr: &str, port: u16, count: usize, size: usize) {
    let addr: SocketAddr = format!("{dev_addr}:{port}").parse().unwrap();
    let mut cmd = std::process::Command::new("rping");
    let peer = Peer::spawn(
        cmd.args(["-s", "-a", dev_addr, "-p", &port.to_string(), "-v"])
            .args(["-C", &count.to_string(), "-S", &size.to_string()]),
    );
    // The server may not listen yet (the connection is refused): try again, with a
    // fresh id, for a few seconds.
    let mut tries = 0;
    loop {
        let ch = CmChannel::open().unwrap();
        let id = ch.create_id().unwrap();
        id.resolve_addr(addr, T).unwrap();
        id.resolve_route(T).unwrap();
        let mut c = Conn::new(&id);
        id.init_qp(&c.qp).unwrap();
        c.post_recv();
        match id.connect(&c.qp, &ConnParam::default(), T) {
            Ok(_) => {
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    run_client(&mut c, count, size)
                }));
                if let Err(p) = r {
                    // Disconnecting ends rping cleanly: its output is flushed.
                    let _ = id.disconnect();
                    let (_, text) = peer.finish(Duration::from_secs(5));
                    eprintln!("rping's side:\n{text}");
                    std::panic::resume_unwind(p);
                }
                id.disconnect().unwrap();
                finish_client(peer, &id, count, size);
                return;
            }
            Err(e) => {
                tries += 1;
                assert!(tries < 50, "connect to rping: {e}");
                std::thread::sleep(Duration::from_millis(100));
            }
        }
    }
}

fn run_client(c: &mut Conn, count: usize, size: usize) {
    let mut start = mr(&c.pd, size);
    let sink = mr(&c.pd, size);
    for ping in 0..count {
        let data = rping_payload(ping, size);
        assert!(start.write_at(0, &data));
        c.send_info(start.addr(), start.rkey(), size as u32);
        c.recv_info(); // the go-ahead after the server's read
        c.send_info(sink.addr(), sink.rkey(), size as u32);
        c.recv_info(); // the go-ahead after its write
        let mut got = vec![0u8; size];
        assert!(sink.read_at(0, &mut got));
        assert_eq!(
            got, data,
            "ping {ping}: the echo differs from what was sent"
        );
    }
}

fn finish_client(peer: Peer, id: &CmId, count: usize, size: usize) {
    let e = id.next_event(T).unwrap();
    assert_eq!(e.kind, CmEventType::Disconnected, "{e:?}");
    let (ok, text) = peer.finish(T);
    assert!(ok, "rping failed:\n{text}");
    for ping in 0..count {
        let p = rping_payload(ping, size);
        let line = format!(
            "server ping data: {}",
            String::from_utf8_lossy(&p[..p.len() - 1])
        );
        assert!(text.contains(&line), "rping did not read {line:?}:\n{text}");
    }
}

/// uverbs as the server of `rping -c -V`: every read payload checked against rping's
/// pattern, the echo checked by rping itself.
pub fn uverbs_server(dev_addr: &str, port: u16, count: usize, size: usize) {
    let addr: SocketAddr = format!("{dev_addr}:{port}").parse().unwrap();
    let ch = CmChannel::open().unwrap();
    let listen = ch.create_id().unwrap();
    listen.bind(addr).unwrap();
    listen.listen(4).unwrap();
    let mut cmd = std::process::Command::new("rping");
    let peer = Peer::spawn(
        cmd.args(["-c", "-a", dev_addr, "-p", &port.to_string(), "-v", "-V"])
            .args(["-C", &count.to_string(), "-S", &size.to_string()]),
    );
    let req = ch
        .get_event(Some(T))
        .unwrap()
        .expect("a connection request");
    assert_eq!(req.kind, CmEventType::ConnectRequest, "{req:?}");
    let id = CmId::from_request(&ch, &req).unwrap();
    let mut c = Conn::new(&id);
    id.init_qp(&c.qp).unwrap();
    c.post_recv();
    id.accept(&c.qp, &ConnParam::default(), T).unwrap();
    let buf = mr(&c.pd, size);
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        serve(&mut c, &buf, count, size)
    }));
    if let Err(p) = r {
        let _ = id.disconnect();
        let (_, text) = peer.finish(Duration::from_secs(5));
        eprintln!("rping's side:\n{text}");
        std::panic::resume_unwind(p);
    }
    let e = id.next_event(T).unwrap();
    assert_eq!(e.kind, CmEventType::Disconnected, "{e:?}");
    let (ok, text) = peer.finish(T);
    assert!(ok, "rping -V failed:\n{text}");
    assert!(!text.contains("mismatch"), "{text}");
    for ping in 0..count {
        let p = rping_payload(ping, size);
        let line = format!("ping data: {}", String::from_utf8_lossy(&p[..p.len() - 1]));
        assert!(
            text.contains(&line),
            "rping did not print {line:?}:\n{text}"
        );
    }
}

fn serve(c: &mut Conn, buf: &Mr, count: usize, size: usize) {
    for ping in 0..count {
        let (raddr, rkey, rlen) = c.recv_info();
        assert_eq!(rlen as usize, size);
        let s = [Sge::new(buf, 0, rlen).unwrap()];
        c.qp.post_send(&[
            SendWr::new(3, SendOp::RdmaRead(Remote { addr: raddr, rkey }))
                .sg(&s)
                .signaled(),
        ])
        .unwrap();
        c.one(WcOpcode::RdmaRead);
        let mut got = vec![0u8; size];
        assert!(buf.read_at(0, &mut got));
        assert_eq!(
            got,
            rping_payload(ping, size),
            "ping {ping}: what rping sent"
        );
        c.send_info(buf.addr(), buf.rkey(), size as u32);
        let (waddr, wkey, _) = c.recv_info();
        let n = got.iter().position(|&b| b == 0).map_or(size, |i| i + 1);
        let s = [Sge::new(buf, 0, n as u32).unwrap()];
        c.qp.post_send(&[SendWr::new(
            4,
            SendOp::RdmaWrite(Remote {
                addr: waddr,
                rkey: wkey,
            }),
        )
        .sg(&s)
        .signaled()])
            .unwrap();
        c.one(WcOpcode::RdmaWrite);
        c.send_info(buf.addr(), buf.rkey(), size as u32);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn payload_is_rpings() {
        // rping -S 32, ping 0 and ping 1, as its client fills them.
        let p = super::rping_payload(0, 32);
        assert_eq!(&p[..], b"rdma-ping-0: ABCDEFGHIJKLMNOPQR\0");
        let p = super::rping_payload(1, 32);
        assert_eq!(&p[..], b"rdma-ping-1: BCDEFGHIJKLMNOPQRS\0");
    }
}
