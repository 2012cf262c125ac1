//! uverbs as one end of libibverbs' ping-pong examples (`ibv_rc_pingpong`,
//! `ibv_uc_pingpong`, `ibv_ud_pingpong`, `ibv_srq_pingpong`, rdma-core 44 in the
//! guest), the other end being the example itself, run beside the test.
//!
//! What the examples do, read from their source (libibverbs/examples): the client
//! connects to TCP port `-p` and writes its address as text,
//! `"%04x:%06x:%06x:%s"` of LID, QP number, PSN and the GID's 16 bytes in hex, NUL
//! included (52 bytes; `ibv_srq_pingpong` writes 256 of them, one per possible QP);
//! the server answers the same way after moving its QP(s) to RTS, and the client
//! closes with `"done"` and its NUL. The client then posts the first send; each side
//! sends again once its last send completed and a message came in, `-n` times. Both
//! send from and receive into the same buffer, so from the second message on each side
//! sends back what it last received. The buffer starts as `0x7b` bytes (srq: zeros);
//! with `-c` the client zeroes the first byte of every page and the server checks those
//! bytes at the end ("invalid data in page N"). UD prefixes the receive buffer with the
//! 40-byte GRH and sends from past it.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use uverbs::verbs::datapath::{RecvWr, SendOp, SendWr, Sge};
use uverbs::verbs::objects::{Ah, AhAttr, Cq, GlobalRoute, Mr, Pd, Qp, QpInit, Srq, SrqInit};
use uverbs::{Context, Gid, Mtu, QpType, WcOpcode, WcStatus};

use super::util::{self, Dest};

/// One message of the address exchange: 51 characters and a NUL.
const MSG: usize = 52;
/// `ibv_srq_pingpong` exchanges this many addresses (its `MAX_QP`), used or not.
const SRQ_MAX_QP: usize = 256;
/// The GRH in front of a UD receive.
const GRH: usize = 40;
const RECV_WRID: u64 = 1;
const SEND_WRID: u64 = 2;

/// Which example.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Rc,
    Uc,
    Ud,
    Srq,
}

impl Kind {
    pub fn program(self) -> &'static str {
        match self {
            Kind::Rc => "ibv_rc_pingpong",
            Kind::Uc => "ibv_uc_pingpong",
            Kind::Ud => "ibv_ud_pingpong",
            Kind::Srq => "ibv_srq_pingpong",
        }
    }
    fn qp_type(self) -> QpType {
        match self {
            Kind::Rc | Kind::Srq => QpType::Rc,
            Kind::Uc => QpType::Uc,
            Kind::Ud => QpType::Ud,
        }
    }
    /// Addresses exchanged each way.
    fn messages(self) -> usize {
        if self == Kind::Srq {
            SRQ_MAX_QP
        } else {
            1
        }
    }
    /// The example's buffer before anything is received.
    fn initial_fill(self) -> u8 {
        if self == Kind::Srq {
            0
        } else {
            0x7b
        }
    }
}

/// One run: which example, the device of each end, the message size, the iterations.
#[derive(Debug, Clone)]
pub struct Run {
    pub kind: Kind,
    /// The device uverbs uses.
    pub ours: String,
    /// The device the example uses.
    pub theirs: String,
    pub size: usize,
    pub iters: usize,
    pub port: u16,
    /// QPs (`ibv_srq_pingpong -q`).
    pub num_qp: usize,
}

/// The address text of `d`, NUL-terminated.
fn encode(d: &Dest) -> [u8; MSG] {
    let mut hex = String::new();
    for b in d.gid.0 {
        hex.push_str(&format!("{b:02x}"));
    }
    let s = format!("{:04x}:{:06x}:{:06x}:{}", 0, d.qpn, d.psn, hex);
    let mut out = [0u8; MSG];
    out[..s.len()].copy_from_slice(s.as_bytes());
    out
}

/// The address a peer wrote.
fn decode(m: &[u8; MSG]) -> Dest {
    let end = m.iter().position(|&b| b == 0).unwrap_or(MSG);
    let s = std::str::from_utf8(&m[..end]).expect("address text");
    let f: Vec<&str> = s.split(':').collect();
    assert_eq!(f.len(), 4, "address text {s:?}");
    let mut gid = [0u8; 16];
    for (i, b) in gid.iter_mut().enumerate() {
        *b = u8::from_str_radix(&f[3][2 * i..2 * i + 2], 16).expect("GID hex");
    }
    Dest {
        qpn: u32::from_str_radix(f[1], 16).expect("QPN"),
        psn: u32::from_str_radix(f[2], 16).expect("PSN"),
        gid: Gid(gid),
    }
}

fn read_msgs(s: &mut TcpStream, n: usize) -> Vec<Dest> {
    (0..n)
        .map(|_| {
            let mut m = [0u8; MSG];
            s.read_exact(&mut m).expect("read an address");
            decode(&m)
        })
        .collect()
}

fn write_msgs(s: &mut TcpStream, ds: &[Dest]) {
    for d in ds {
        s.write_all(&encode(d)).expect("write an address");
    }
}

/// The example as a child process; its output is collected when it ends.
pub struct Peer {
    child: Child,
    what: String,
}

impl Peer {
    /// Starts a command, its output collected.
    pub fn spawn(c: &mut Command) -> Peer {
        let what = format!("{c:?}");
        let child = c
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        Peer { child, what }
    }

    pub fn start(run: &Run, server_addr: Option<&str>) -> Peer {
        let mut c = Command::new(run.kind.program());
        c.args(["-d", &run.theirs, "-i", "1", "-g", "1", "-c"]);
        c.args(["-p", &run.port.to_string()]);
        c.args(["-s", &run.size.to_string(), "-n", &run.iters.to_string()]);
        if run.kind == Kind::Srq {
            c.args(["-q", &run.num_qp.to_string()]);
        }
        if matches!(run.kind, Kind::Rc | Kind::Uc | Kind::Srq) {
            c.args(["-m", "1024"]);
        }
        if let Some(a) = server_addr {
            c.arg(a);
        }
        let what = format!("{c:?}");
        let child = c
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        Peer { child, what }
    }

    /// Waits for the example to end (at most `limit`); its exit status and output.
    pub fn finish(mut self, limit: Duration) -> (bool, String) {
        let t0 = Instant::now();
        loop {
            match self.child.try_wait().expect("wait") {
                Some(_) => break,
                None if t0.elapsed() > limit => {
                    let _ = self.child.kill();
                    break;
                }
                None => std::thread::sleep(Duration::from_millis(20)),
            }
        }
        let out = self.child.wait_with_output().expect("output");
        let text = format!(
            "{}\n--- stdout ---\n{}--- stderr ---\n{}",
            self.what,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.success(), text)
    }
}

/// uverbs' side: the QPs, their CQ, the buffer and where receives are posted.
struct Side {
    ctx: Arc<Context>,
    pd: Pd,
    cq: Cq,
    srq: Option<Srq>,
    qps: Vec<Qp>,
    send_buf: Mr,
    recv_buf: Mr,
    psns: Vec<u32>,
    ahs: Vec<Ah>,
}

impl Side {
    fn new(run: &Run) -> Side {
        let ctx = util::open(&run.ours);
        let pd = ctx.alloc_pd().unwrap();
        let rx_depth = 500u32;
        let cq = ctx
            .create_cq(rx_depth + run.num_qp as u32 + 1, None, 0)
            .unwrap();
        let t = run.kind.qp_type();
        let srq = (run.kind == Kind::Srq).then(|| {
            pd.create_srq(&SrqInit {
                max_wr: rx_depth,
                max_sge: 1,
                srq_limit: 0,
            })
            .unwrap()
        });
        let cap = uverbs::verbs::objects::QpCap {
            max_send_wr: 1,
            max_recv_wr: if srq.is_some() { 0 } else { rx_depth },
            max_send_sge: 1,
            max_recv_sge: 1,
            max_inline_data: 0,
        };
        let qps = (0..run.num_qp)
            .map(|_| {
                let mut init = QpInit::new(t, &cq, &cq).cap(cap);
                if let Some(s) = &srq {
                    init = init.srq(s);
                }
                let qp = pd.create_qp(&init).unwrap();
                util::to_init(&qp, t);
                qp
            })
            .collect::<Vec<_>>();
        let extra = if run.kind == Kind::Ud { GRH } else { 0 };
        let send_buf = util::mr(&pd, run.size + extra, run.kind.initial_fill());
        let recv_buf = util::mr(&pd, run.size + extra, run.kind.initial_fill());
        let psns = (0..run.num_qp as u32).map(|i| 0x1000 + i * 0x101).collect();
        Side {
            ctx,
            pd,
            cq,
            srq,
            qps,
            send_buf,
            recv_buf,
            psns,
            ahs: Vec::new(),
        }
    }

    /// The addresses to send: one per QP, then empty ones (srq).
    fn dests(&self, run: &Run) -> Vec<Dest> {
        let gid = util::gid(&self.ctx, 1);
        let mut v: Vec<Dest> = self
            .qps
            .iter()
            .zip(&self.psns)
            .map(|(q, &psn)| Dest {
                qpn: q.qp_num(),
                psn,
                gid,
            })
            .collect();
        v.resize(
            run.kind.messages().max(v.len()),
            Dest {
                qpn: 0,
                psn: 0,
                gid: Gid([0; 16]),
            },
        );
        v
    }

    /// INIT (the receives posted before, as the examples do), RTR, RTS; UD: an AH.
    fn connect(&mut self, run: &Run, remote: &[Dest]) {
        let t = run.kind.qp_type();
        for (i, qp) in self.qps.iter().enumerate() {
            util::to_rts(qp, t, 1, self.psns[i], &remote[i], Mtu::Mtu1024);
            if t == QpType::Ud {
                let ah = self
                    .pd
                    .create_ah(&AhAttr {
                        grh: GlobalRoute {
                            dgid: remote[i].gid,
                            sgid_index: 1,
                            hop_limit: 64,
                            ..Default::default()
                        },
                        is_global: true,
                        port_num: 1,
                        ..Default::default()
                    })
                    .unwrap();
                self.ahs.push(ah);
            }
        }
    }

    fn post_recvs(&self, run: &Run, n: usize) {
        let len = (run.size + if run.kind == Kind::Ud { GRH } else { 0 }) as u32;
        let sge = [Sge::new(&self.recv_buf, 0, len).unwrap()];
        let wrs = vec![RecvWr::new(RECV_WRID, &sge); n];
        match &self.srq {
            Some(s) => s.post_recv(&wrs).unwrap(),
            None => self.qps[0].post_recv(&wrs).unwrap(),
        }
    }

    fn post_send(&self, run: &Run, i: usize, remote: &[Dest]) {
        let off = if run.kind == Kind::Ud { GRH } else { 0 };
        let sge = [Sge::new(&self.send_buf, off, run.size as u32).unwrap()];
        let mut wr = SendWr::new(SEND_WRID, SendOp::Send).sg(&sge).signaled();
        if run.kind == Kind::Ud {
            wr = wr.ud(&self.ahs[i], remote[i].qpn, 0x1111_1111);
        }
        self.qps[i].post_send(&[wr]).unwrap();
    }

    /// The payload part of the receive buffer.
    fn received(&self, run: &Run) -> Vec<u8> {
        let b = util::bytes(&self.recv_buf);
        let off = if run.kind == Kind::Ud { GRH } else { 0 };
        b[off..off + run.size].to_vec()
    }

    /// Makes the send buffer's payload `data`.
    fn set_payload(&mut self, run: &Run, data: &[u8]) {
        let off = if run.kind == Kind::Ud { GRH } else { 0 };
        assert!(self.send_buf.write_at(off, data));
    }
}

/// What the example sends first as the client with `-c`: its buffer, `0x7b` (srq:
/// zeros), with the first byte of every page zeroed.
fn client_pattern(run: &Run) -> Vec<u8> {
    let mut v = vec![run.kind.initial_fill(); run.size];
    for i in (0..run.size).step_by(4096) {
        v[i] = 0;
    }
    v
}

/// What uverbs sends: bytes the examples never make, the first byte of every page
/// zero (so that the example, checking with `-c` as the server, finds them).
fn our_pattern(run: &Run) -> Vec<u8> {
    let mut v: Vec<u8> = (0..run.size).map(|i| (i % 251) as u8 | 0x80).collect();
    for i in (0..run.size).step_by(4096) {
        v[i] = 0;
    }
    v
}

/// The ping-pong loop of the examples (main's loop and parse_single_wc), with every
/// received payload checked: the example as client first sends its own buffer, and
/// from then on (and from the start as the server) what it last received from uverbs.
fn play(side: &mut Side, run: &Run, remote: &[Dest], client: bool) {
    let n = run.num_qp;
    let ours = our_pattern(run);
    side.set_payload(run, &ours);
    let mut pending = vec![RECV_WRID; n];
    if client {
        for (i, p) in pending.iter_mut().enumerate() {
            side.post_send(run, i, remote);
            *p |= SEND_WRID;
        }
    }
    let rx_depth = 500usize;
    let mut routs = rx_depth;
    let (mut rcnt, mut scnt) = (0usize, 0usize);
    // The example as the client sends its own buffer first on each QP.
    let mut firsts = if client { 0 } else { n };
    let t0 = Instant::now();
    let mut wc = [uverbs::verbs::datapath::Wc::default(); 32];
    while rcnt < run.iters || scnt < run.iters {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "{:?}: stuck after {rcnt} receives and {scnt} sends",
            run.kind
        );
        let k = side.cq.poll(&mut wc).unwrap();
        for w in &wc[..k] {
            assert_eq!(w.status, WcStatus::Success, "{:?}: {w:?}", run.kind);
            let i = side
                .qps
                .iter()
                .position(|q| q.qp_num() == w.qp_num)
                .unwrap_or_else(|| panic!("completion of an unknown QP: {w:?}"));
            match w.wr_id {
                SEND_WRID => {
                    assert_eq!(w.opcode, WcOpcode::Send);
                    scnt += 1;
                }
                RECV_WRID => {
                    assert_eq!(w.opcode, WcOpcode::Recv);
                    let want_len = run.size + if run.kind == Kind::Ud { GRH } else { 0 };
                    assert_eq!(w.byte_len as usize, want_len, "{:?}", run.kind);
                    let got = side.received(run);
                    let theirs = client_pattern(run);
                    // With several QPs (srq), messages of both kinds may be in flight
                    // at once into the one buffer: either is the peer's.
                    let ok = if n > 1 {
                        got == theirs || got == ours
                    } else if firsts > 0 {
                        got == theirs
                    } else {
                        got == ours
                    };
                    assert!(
                        ok,
                        "{:?} message {rcnt}: payload differs from what the example sends \
                         (first bytes {:02x?}; the example's {:02x?}, uverbs' {:02x?})",
                        run.kind,
                        &got[..16.min(got.len())],
                        &theirs[..16.min(theirs.len())],
                        &ours[..16.min(ours.len())]
                    );
                    firsts = firsts.saturating_sub(1);
                    routs -= 1;
                    if routs <= n {
                        side.post_recvs(run, rx_depth - routs);
                        routs = rx_depth;
                    }
                    rcnt += 1;
                }
                other => panic!("completion of an unknown wr_id {other}"),
            }
            pending[i] &= !w.wr_id;
            if scnt < run.iters && pending[i] == 0 {
                side.post_send(run, i, remote);
                pending[i] = RECV_WRID | SEND_WRID;
            }
        }
    }
}

/// uverbs as the server, the example as the client.
pub fn uverbs_server(run: &Run) -> String {
    let mut side = Side::new(run);
    side.post_recvs(run, 500);
    let listener = TcpListener::bind(("127.0.0.1", run.port)).expect("listen");
    let peer = Peer::start(run, Some("127.0.0.1"));
    let (mut s, _) = listener.accept().expect("accept");
    let remote = read_msgs(&mut s, run.kind.messages());
    side.connect(run, &remote);
    let mine = side.dests(run);
    write_msgs(&mut s, &mine);
    let mut done = [0u8; 5];
    s.read_exact(&mut done).expect("done");
    assert_eq!(&done, b"done\0");
    drop(s);
    play(&mut side, run, &remote, false);
    let (ok, text) = peer.finish(Duration::from_secs(60));
    assert!(ok, "the example failed:\n{text}");
    text
}

/// uverbs as the client, the example as the server.
pub fn uverbs_client(run: &Run) -> String {
    let mut side = Side::new(run);
    side.post_recvs(run, 500);
    let peer = Peer::start(run, None);
    let t0 = Instant::now();
    let mut s = loop {
        match TcpStream::connect(("127.0.0.1", run.port)) {
            Ok(s) => break s,
            Err(e) if t0.elapsed() < Duration::from_secs(20) => {
                let _ = e;
                std::thread::sleep(Duration::from_millis(50));
            }
            Err(e) => panic!("connect to {}: {e}", run.kind.program()),
        }
    };
    let mine = side.dests(run);
    write_msgs(&mut s, &mine);
    let remote = read_msgs(&mut s, run.kind.messages());
    s.write_all(b"done\0").expect("done");
    drop(s);
    side.connect(run, &remote);
    play(&mut side, run, &remote, true);
    let (ok, text) = peer.finish(Duration::from_secs(60));
    assert!(ok, "the example failed:\n{text}");
    assert!(
        !text.contains("invalid data"),
        "the example found other bytes than uverbs sent:\n{text}"
    );
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn address_text_round_trips() {
        let d = Dest {
            qpn: 0x11,
            psn: 0xabcdef,
            gid: Gid([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 169, 254, 1, 1]),
        };
        let m = encode(&d);
        assert_eq!(
            &m[..51],
            b"0000:000011:abcdef:00000000000000000000ffffa9fe0101"
        );
        assert_eq!(m[51], 0);
        let e = decode(&m);
        assert_eq!((e.qpn, e.psn, e.gid), (d.qpn, d.psn, d.gid));
    }
}
