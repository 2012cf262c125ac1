//! `rping`: an RDMA CM ping on uverbs that talks to librdmacm's `rping` (either end may
//! be either program), with its options and its `-v` output. It works on iWARP (siw),
//! whose QPs reach RTS only through the CM, and on RoCE (rxe) alike.
//!
//! ```text
//! rping -s -a 169.254.129.1 -v                  # server
//! rping -c -a 169.254.129.1 -C 10 -v -V         # client
//! ```
//!
//! What it shows: the RDMA CM ([`CmChannel`], [`CmId`]: bind and listen, or resolve the
//! address and the route and connect; accept), the device and its objects found from
//! the CM id's address, receives posted before the connection, and the three kinds of
//! work request: SEND (the buffers' address, rkey and length), RDMA READ and RDMA WRITE.
//!
//! One ping, as rping does it: the client writes `rdma-ping-N: ` and then letters into
//! its start buffer and sends the buffer's address; the server RDMA-reads it, and says so
//! with a send; the client sends its sink buffer's address; the server RDMA-writes what it
//! read there, and says so; the client compares (`-V`). After `-C` pings the client
//! disconnects.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use uverbs::cm::{CmChannel, CmId, ConnParam};
use uverbs::verbs::datapath::{RecvWr, Remote, SendOp, SendWr, Sge, Wc};
use uverbs::verbs::objects::{Cq, Mr, MrBuf, Pd, Qp, QpCap, QpInit};
use uverbs::{AccessFlags, CmEventType, Context, QpType, WcOpcode, WcStatus};

const T: Duration = Duration::from_secs(30);

struct Opts {
    server: bool,
    addr: String,
    port: u16,
    count: usize,
    size: usize,
    verbose: bool,
    validate: bool,
}

fn fail(what: impl std::fmt::Display) -> ! {
    eprintln!("rping: {what}");
    std::process::exit(1)
}

fn parse() -> Opts {
    let mut o = Opts {
        server: false,
        addr: String::new(),
        port: 7174,
        count: 0,
        size: 64,
        verbose: false,
        validate: false,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut it = args.iter();
    let mut client = false;
    while let Some(a) = it.next() {
        let mut value = || {
            it.next()
                .cloned()
                .unwrap_or_else(|| fail(format!("{a} needs a value")))
        };
        match a.as_str() {
            "-s" => o.server = true,
            "-c" => client = true,
            "-a" => o.addr = value(),
            "-p" => o.port = value().parse().unwrap_or_else(|_| fail("bad port")),
            "-C" => o.count = value().parse().unwrap_or_else(|_| fail("bad count")),
            "-S" => o.size = value().parse().unwrap_or_else(|_| fail("bad size")),
            "-v" => o.verbose = true,
            "-V" => o.validate = true,
            _ => fail(format!(
                "usage: rping -s|-c -a ADDR [-p PORT] [-C COUNT] [-S SIZE] [-v] [-V] (not {a})"
            )),
        }
    }
    if o.server == client || o.addr.is_empty() {
        fail("one of -s and -c, and -a ADDR, are needed");
    }
    if o.size < 16 {
        fail("-S must be at least 16");
    }
    o
}

/// The start buffer of ping `ping`: `rdma-ping-N: ` and letters from `A` + N on, the
/// last byte 0 (what rping's client writes).
fn payload(ping: usize, size: usize) -> Vec<u8> {
    let mut v = format!("rdma-ping-{ping}: ").into_bytes();
    let mut c = b'A' + (ping % 58) as u8;
    while v.len() < size {
        v.push(c);
        c = if c == b'z' { b'A' } else { c + 1 };
    }
    v.truncate(size);
    if let Some(last) = v.last_mut() {
        *last = 0;
    }
    v
}

/// One side of the connection: the objects on the device the CM id's address is on.
struct Side {
    _ctx: Arc<Context>,
    pd: Pd,
    cq: Cq,
    qp: Qp,
    /// What the other side's messages land in, and what this side's are sent from: a
    /// buffer's address, rkey and length, 16 bytes in network order.
    recv: Mr,
    send: Mr,
    /// Completions polled while another kind was awaited (the send and receive queues
    /// share the CQ, and complete in any order between them).
    early: std::cell::RefCell<std::collections::VecDeque<Wc>>,
}

fn buffer(pd: &Pd, len: usize) -> Mr {
    let access = AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_READ | AccessFlags::REMOTE_WRITE;
    pd.reg_mr(MrBuf::new(len).expect("memory"), access)
        .unwrap_or_else(|e| fail(e))
}

impl Side {
    fn new(id: &CmId) -> Side {
        let dev = id
            .query_addr()
            .and_then(|a| a.device())
            .unwrap_or_else(|e| fail(e));
        let ctx = Arc::new(Context::open(&dev).unwrap_or_else(|e| fail(e)));
        let pd = ctx.alloc_pd().unwrap_or_else(|e| fail(e));
        let cq = ctx.create_cq(32, None, 0).unwrap_or_else(|e| fail(e));
        let cap = QpCap {
            max_send_wr: 16,
            max_recv_wr: 2,
            max_send_sge: 1,
            max_recv_sge: 1,
            max_inline_data: 0,
        };
        let qp = pd
            .create_qp(&QpInit::new(QpType::Rc, &cq, &cq).cap(cap))
            .unwrap_or_else(|e| fail(e));
        id.init_qp(&qp).unwrap_or_else(|e| fail(e));
        let (recv, send) = (buffer(&pd, 16), buffer(&pd, 16));
        let s = Side {
            _ctx: ctx,
            pd,
            cq,
            qp,
            recv,
            send,
            early: Default::default(),
        };
        s.post_recv();
        s
    }

    fn post_recv(&self) {
        let sge = [Sge::new(&self.recv, 0, 16).expect("in the MR")];
        self.qp
            .post_recv(&[RecvWr::new(1, &sge)])
            .unwrap_or_else(|e| fail(e));
    }

    /// A completion of `op` polled now or earlier, if any; another kind is kept for
    /// later, a failed one ends the program.
    fn try_complete(&self, op: WcOpcode) -> Option<Wc> {
        let mut early = self.early.borrow_mut();
        if let Some(i) = early.iter().position(|w| w.opcode == op) {
            return early.remove(i);
        }
        let mut wc = [Wc::default(); 1];
        while self.cq.poll(&mut wc).unwrap_or_else(|e| fail(e)) > 0 {
            if wc[0].status != WcStatus::Success {
                fail(format!("completion {:?} {:?}", wc[0].status, wc[0].opcode));
            }
            if wc[0].opcode == op {
                return Some(wc[0]);
            }
            early.push_back(wc[0]);
        }
        None
    }

    /// The next completion of `op`, successful.
    fn complete(&self, op: WcOpcode) -> Wc {
        let t0 = std::time::Instant::now();
        loop {
            if let Some(w) = self.try_complete(op) {
                return w;
            }
            if t0.elapsed() > T {
                fail(format!("no completion of {op:?}"));
            }
            std::thread::yield_now();
        }
    }

    /// Sends a buffer's address, rkey and length.
    fn send_info(&mut self, mr: &Mr, len: usize) {
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&mr.addr().to_be_bytes());
        b[8..12].copy_from_slice(&mr.rkey().to_be_bytes());
        b[12..].copy_from_slice(&(len as u32).to_be_bytes());
        self.send.write_at(0, &b);
        let sge = [Sge::new(&self.send, 0, 16).expect("in the MR")];
        self.qp
            .post_send(&[SendWr::new(2, SendOp::Send).sg(&sge).signaled()])
            .unwrap_or_else(|e| fail(e));
        self.complete(WcOpcode::Send);
    }

    /// Receives the other side's buffer: its address, rkey and length.
    fn recv_info(&self) -> (u64, u32, u32) {
        self.complete(WcOpcode::Recv);
        let mut b = [0u8; 16];
        self.recv.read_at(0, &mut b);
        self.post_recv();
        (
            u64::from_be_bytes(b[..8].try_into().expect("8 bytes")),
            u32::from_be_bytes(b[8..12].try_into().expect("4 bytes")),
            u32::from_be_bytes(b[12..].try_into().expect("4 bytes")),
        )
    }

    /// Posts an RDMA READ or WRITE of `len` bytes of `mr` and waits for it.
    fn rdma(&self, op: SendOp, mr: &Mr, len: usize, done: WcOpcode) {
        let sge = [Sge::new(mr, 0, len as u32).expect("in the MR")];
        self.qp
            .post_send(&[SendWr::new(3, op).sg(&sge).signaled()])
            .unwrap_or_else(|e| fail(e));
        self.complete(done);
    }
}

fn text(b: &[u8]) -> String {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    String::from_utf8_lossy(&b[..end]).into_owned()
}

fn server(o: &Opts, at: SocketAddr) {
    let ch = CmChannel::open().unwrap_or_else(|e| fail(e));
    let listen = ch.create_id().unwrap_or_else(|e| fail(e));
    listen.bind(at).unwrap_or_else(|e| fail(e));
    listen.listen(3).unwrap_or_else(|e| fail(e));
    let req = loop {
        if let Some(e) = ch.get_event(None).unwrap_or_else(|e| fail(e)) {
            if e.kind == CmEventType::ConnectRequest {
                break e;
            }
        }
    };
    let id = CmId::from_request(&ch, &req).unwrap_or_else(|e| fail(e));
    let mut side = Side::new(&id);
    id.accept(&side.qp, &ConnParam::default(), T)
        .unwrap_or_else(|e| fail(e));
    let buf = buffer(&side.pd, o.size);
    let mut got = vec![0u8; o.size];
    // Until the client disconnects: its next message, or its disconnection (the
    // receive still posted is then flushed, which is no error).
    loop {
        let done = loop {
            let mut early = side.early.borrow_mut();
            if let Some(i) = early.iter().position(|w| w.opcode == WcOpcode::Recv) {
                early.remove(i);
                break false;
            }
            let mut wc = [Wc::default(); 1];
            if side.cq.poll(&mut wc).unwrap_or_else(|e| fail(e)) > 0 {
                match (wc[0].status, wc[0].opcode) {
                    (WcStatus::Success, WcOpcode::Recv) => break false,
                    (WcStatus::WrFlushErr, _) => break true,
                    (s, op) => fail(format!("completion {s:?} {op:?}")),
                }
            }
            match id.next_event(Duration::from_millis(1)) {
                Ok(e) if e.kind == CmEventType::Disconnected => break true,
                _ => {}
            }
        };
        if done {
            break;
        }
        let mut b = [0u8; 16];
        side.recv.read_at(0, &mut b);
        side.post_recv();
        let addr = u64::from_be_bytes(b[..8].try_into().expect("8 bytes"));
        let rkey = u32::from_be_bytes(b[8..12].try_into().expect("4 bytes"));
        let len = (u32::from_be_bytes(b[12..].try_into().expect("4 bytes")) as usize).min(o.size);
        side.rdma(
            SendOp::RdmaRead(Remote { addr, rkey }),
            &buf,
            len,
            WcOpcode::RdmaRead,
        );
        buf.read_at(0, &mut got[..len]);
        if o.verbose {
            println!("server ping data: {}", text(&got[..len]));
        }
        side.send_info(&buf, o.size); // the go-ahead
        let (addr, rkey, _) = side.recv_info();
        let n = got[..len]
            .iter()
            .position(|&c| c == 0)
            .map_or(len, |i| i + 1);
        side.rdma(
            SendOp::RdmaWrite(Remote { addr, rkey }),
            &buf,
            n,
            WcOpcode::RdmaWrite,
        );
        side.send_info(&buf, o.size); // the go-ahead
    }
    drop(side);
    drop((id, listen));
}

fn client(o: &Opts, at: SocketAddr) {
    // The server may not listen yet: a refused connection is tried again, for a while.
    let mut tries = 0;
    let (id, mut side) = loop {
        let ch = CmChannel::open().unwrap_or_else(|e| fail(e));
        let id = ch.create_id().unwrap_or_else(|e| fail(e));
        id.resolve_addr(at, T).unwrap_or_else(|e| fail(e));
        id.resolve_route(T).unwrap_or_else(|e| fail(e));
        let side = Side::new(&id);
        match id.connect(&side.qp, &ConnParam::default(), T) {
            Ok(_) => break (id, side),
            Err(e) if tries < 50 => {
                tries += 1;
                let _ = e;
                std::thread::sleep(Duration::from_millis(100));
            }
            Err(e) => fail(e),
        }
    };
    let mut start = buffer(&side.pd, o.size);
    let sink = buffer(&side.pd, o.size);
    let mut ping = 0;
    while o.count == 0 || ping < o.count {
        let data = payload(ping, o.size);
        start.write_at(0, &data);
        side.send_info(&start, o.size);
        side.recv_info(); // the server read it
        side.send_info(&sink, o.size);
        side.recv_info(); // the server wrote it back
        let mut got = vec![0u8; o.size];
        sink.read_at(0, &mut got);
        if o.validate && got != data {
            eprintln!("data mismatch!");
            std::process::exit(1);
        }
        if o.verbose {
            println!("ping data: {}", text(&got));
        }
        ping += 1;
    }
    id.disconnect().unwrap_or_else(|e| fail(e));
    let _ = id.next_event(T);
}

fn main() {
    let o = parse();
    let at: SocketAddr = format!("{}:{}", o.addr, o.port)
        .parse()
        .unwrap_or_else(|_| fail(format!("bad address {}", o.addr)));
    if o.server {
        server(&o, at)
    } else {
        client(&o, at)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_payload_is_rpings() {
        // rping -S 32: pings 0 and 1, as its client writes them (tests/datapath/rping.rs
        // checks rping's own output against the same text in the VM).
        assert_eq!(
            &super::payload(0, 32)[..],
            b"rdma-ping-0: ABCDEFGHIJKLMNOPQR\0"
        );
        assert_eq!(
            &super::payload(1, 32)[..],
            b"rdma-ping-1: BCDEFGHIJKLMNOPQRS\0"
        );
    }
}
