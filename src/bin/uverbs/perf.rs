//! `uverbs perf TEST [OPTIONS] [SERVER]`: perftest's latency and bandwidth tests
//! (`ib_write_lat`, `ib_write_bw`, `ib_send_lat`, `ib_send_bw`) on uverbs' own data path,
//! speaking perftest's exchange so that either side may be perftest.
//!
//! The exchange, as perftest 4.5 does it over TCP (its `perftest_communication.c`;
//! `-R` below): the client connects to port 18515. Each exchange of N bytes is written by
//! the client first and read back, and read first and answered by the server:
//! the version text (16 bytes), the page size (cycle buffer) and cache-line size (4
//! bytes each, network order; each side takes the larger), the MTU (2 bytes of text,
//! e.g. "3"; each side takes the smaller), then handshakes of the QP's address as
//! 108 bytes of text (`LID:OUT_READS:QPN:PSN:RKEY:VADDR:` then the 16 GID bytes and the
//! SRQ number, colon-separated hex). The number of handshakes and where the QP moves
//! to RTR/RTS differ by test (below); the bandwidth tests end with the client's report
//! (size, iterations, peak and average bandwidth, message rate: 8 bytes each, network
//! order) and both close with a handshake and `done`.
//!
//! With `-R` (perftest's `--rdma_cm`; iWARP devices such as siw need it: their QPs reach
//! RTS only through the iWARP CM) the same exchange runs over an RDMA CM connection
//! instead of TCP, and the test's QP is connected through the RDMA CM too, as perftest
//! 4.5 does it:
//! - the exchange's own connection: the server binds the port on every address and
//!   listens (backlog 1); the client resolves SERVER:PORT and connects (no private
//!   data, no RDMA reads, 7 retries). Each side has one receive of 56 bytes posted
//!   before connecting; a message is one signaled send of exactly its size, and a
//!   received message is copied out before its receive is posted again. The server
//!   destroys its listening id once it has accepted.
//! - the versions, sizes and MTU as over TCP; then the RDMA CM connection of the test's
//!   QP, between two handshakes (their content is not used): the server listens on the
//!   same port again, the client connects (again after 100 ms while it is refused).
//! - a handshake is perftest's `struct pingpong_dest` in binary, 56 bytes: LID,
//!   outstanding reads, QPN, PSN, rkey (4 bytes each, network order), 4 bytes of
//!   padding, the buffer's address (8 bytes, network order), the GID (16 bytes), the
//!   SRQ number and the GID index (4 bytes each, network order).
//! - the test's handshakes as over TCP, but the QP is not moved by hand (the CM did),
//!   and the close is the handshake alone (no `done`); then the client disconnects the
//!   test's connection, and each side waits for its end (at most 2 s) before it goes.
//!
//! On an iWARP device (with or without `-R`), send_bw has perftest's receive credits
//! (iWARP has no RNR retry: a send meeting an empty receive queue ends the
//! connection): each side's handshake names a 4-byte credit word instead of its
//! buffer; the server RDMA-writes its count of receives (host order) there at every
//! third of its receive depth, and the client posts a send only while fewer than the
//! receive depth (at most the iterations) are beyond the last credit.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::{Duration, Instant};

use uverbs::cm::{CmChannel, CmId, ConnParam};
use uverbs::raw::cycles;
use uverbs::verbs::datapath::{RecvWr, Remote, SendOp, SendWr, Sge, Wc};
use uverbs::verbs::objects::{AhAttr, Cq, GlobalRoute, ModifyQp, Mr, MrBuf, Pd, Qp, QpCap, QpInit};
use uverbs::{
    AccessFlags, CmEventType, Context, DeviceInfo, Discovery, Gid, GidType, LinkLayer, Mtu,
    QpState, QpType, TransportType,
};

use crate::getopt::{opt, Getopt, LongOpt};
use crate::io::Io;

const HELP: &str = "\
Usage: uverbs perf TEST [OPTIONS]            the server
       uverbs perf TEST [OPTIONS] SERVER     the client

perftest's tests on uverbs' own data path (no libibverbs), speaking perftest's
exchange (over TCP, or over the RDMA CM with -R): either side may be perftest's
ib_write_lat, ib_write_bw, ib_send_lat or ib_send_bw (perftest 4.5, RC). TEST is one
of:

  write_lat   RDMA write ping-pong; each side polls its buffer for the other's write
  write_bw    RDMA writes streamed from the client (the server only waits)
  send_lat    send/receive ping-pong
  send_bw     sends streamed from the client into the server's receives

  -d, --ib-dev=DEV        the device (default: the first one)
  -i, --ib-port=PORT      the port (default 1)
  -x, --gid-index=INDEX   the GID index (default: RoCE v2 with an IPv4 address on
                          Ethernet ports, none on InfiniBand)
  -s, --size=BYTES        message size (default 2 for latency, 65536 for bandwidth)
  -n, --iters=N           iterations (default 1000; 5000 for write_bw, send_bw)
  -p, --port=PORT         TCP (or RDMA CM) port of the exchange (default 18515)
  -t, --tx-depth=N        send queue depth (default 1 for latency, 128 for bandwidth)
  -r, --rx-depth=N        receive queue depth (default 512; send tests)
  -Q, --cq-mod=N          a completion every N sends (default 100; bandwidth tests)
  -I, --inline-size=N     send messages up to N bytes inline (default 0)
  -m, --mtu=BYTES         path MTU 256..4096 (default: the port's)
  -R, --rdma_cm           connect through the RDMA CM, as perftest -R does (iWARP
                          devices such as siw need it): the exchange runs over an
                          RDMA CM connection to SERVER, and the test's QP is
                          connected by the CM; the device is the one SERVER's
                          address leads to
  -C, --report-cycles     latency in CPU cycles (as perftest -C), not microseconds
  -F, --cpu-freq          accepted for perftest's command lines (no CPU frequency is
                          read)
  -h, --help              this text

Latency (write_lat, send_lat): perftest's report line: bytes, iterations, then the
minimum, maximum, typical (median), average, standard deviation, 99% and 99.9% of
half the time between consecutive posts, the 2 largest left out. Bandwidth: bytes,
iterations, peak and average MB/s (2^20) and million messages per second, by the wall
clock. On iWARP, send_bw keeps perftest's receive credits.

Exit status: 0 the test ran; 1 a device, connection or exchange error; 2 usage error.
";

const LONGS: &[LongOpt] = &[
    opt("ib-dev", true, b'd'),
    opt("ib-port", true, b'i'),
    opt("gid-index", true, b'x'),
    opt("size", true, b's'),
    opt("iters", true, b'n'),
    opt("port", true, b'p'),
    opt("tx-depth", true, b't'),
    opt("rx-depth", true, b'r'),
    opt("cq-mod", true, b'Q'),
    opt("inline-size", true, b'I'),
    opt("mtu", true, b'm'),
    opt("rdma_cm", false, b'R'),
    opt("report-cycles", false, b'C'),
    opt("cpu-freq", false, b'F'),
    opt("help", false, b'h'),
];

/// perftest's version text this side sends (the version of Debian's perftest 4.5-0.17;
/// the peer needs at least 5.70, and from 5.33 on it sends the iterations in 8 bytes).
const VERSION: &[u8] = b"6.06";
const KEY: usize = 108;
const MIN_RNR_TIMER: u8 = 12;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Test {
    WriteLat,
    WriteBw,
    SendLat,
    SendBw,
}

impl Test {
    fn parse(s: &[u8]) -> Option<Test> {
        Some(match s {
            b"write_lat" => Test::WriteLat,
            b"write_bw" => Test::WriteBw,
            b"send_lat" => Test::SendLat,
            b"send_bw" => Test::SendBw,
            _ => return None,
        })
    }
    fn lat(self) -> bool {
        matches!(self, Test::WriteLat | Test::SendLat)
    }
    fn send(self) -> bool {
        matches!(self, Test::SendLat | Test::SendBw)
    }
}

#[derive(Debug, Clone)]
struct Params {
    test: Test,
    dev: Option<String>,
    ib_port: u8,
    gid_index: Option<u32>,
    size: usize,
    iters: usize,
    port: u16,
    tx_depth: usize,
    rx_depth: usize,
    cq_mod: usize,
    inline: usize,
    mtu: Option<Mtu>,
    cycles: bool,
    rdma_cm: bool,
    server: Option<String>,
}

fn num<T: TryFrom<i64>>(v: Option<Vec<u8>>, what: &str, min: i64, max: i64) -> Result<T, String> {
    let v = v.unwrap_or_default();
    let s = String::from_utf8_lossy(&v);
    let n: i64 = s
        .trim()
        .parse()
        .map_err(|_| format!("{what} '{s}' is not a number"))?;
    if n < min || n > max {
        return Err(format!("{what} {n} is out of range ({min}..{max})"));
    }
    T::try_from(n).map_err(|_| format!("{what} {n} is out of range"))
}

fn parse(io: &mut Io, args: &[Vec<u8>]) -> Result<Params, i32> {
    let Some(first) = args.first() else {
        return Err(io.usage_error(
            "perf",
            "a test is needed: write_lat, write_bw, send_lat or send_bw",
        ));
    };
    if first == b"-h" || first == b"--help" {
        io.out(HELP);
        return Err(0);
    }
    let Some(test) = Test::parse(first) else {
        let msg = format!(
            "unknown test '{}' (write_lat, write_bw, send_lat, send_bw)",
            String::from_utf8_lossy(first)
        );
        return Err(io.usage_error("perf", &msg));
    };
    let mut p = Params {
        test,
        dev: None,
        ib_port: 1,
        gid_index: None,
        size: if test.lat() { 2 } else { 65536 },
        iters: if test.lat() { 1000 } else { 5000 },
        port: 18515,
        tx_depth: if test.lat() { 1 } else { 128 },
        rx_depth: 512,
        cq_mod: 100,
        inline: 0,
        mtu: None,
        cycles: false,
        rdma_cm: false,
        server: None,
    };
    let mut g = Getopt::new(&args[1..], "d:i:x:s:n:p:t:r:Q:I:m:RCFh", LONGS);
    while let Some(r) = g.next_opt() {
        let r = match r {
            Ok((b'h', _)) => {
                io.out(HELP);
                return Err(0);
            }
            Ok((c, v)) => match c {
                b'd' => {
                    p.dev = Some(String::from_utf8_lossy(&v.unwrap_or_default()).into_owned());
                    Ok(())
                }
                b'i' => num(v, "port", 1, 255).map(|n| p.ib_port = n),
                b'x' => num(v, "GID index", 0, 65535).map(|n| p.gid_index = Some(n)),
                b's' => num(v, "size", 1, 1 << 30).map(|n| p.size = n),
                b'n' => num(v, "iterations", 5, 100_000_000).map(|n| p.iters = n),
                b'p' => num(v, "TCP port", 1, 65535).map(|n| p.port = n),
                b't' => num(v, "tx depth", 1, 16384).map(|n| p.tx_depth = n),
                b'r' => num(v, "rx depth", 1, 16384).map(|n| p.rx_depth = n),
                b'Q' => num(v, "CQ moderation", 1, 1024).map(|n| p.cq_mod = n),
                b'I' => num(v, "inline size", 0, 4096).map(|n| p.inline = n),
                b'm' => num::<u32>(v, "MTU", 256, 4096).and_then(|n| {
                    p.mtu = Some(match n {
                        256 => Mtu::Mtu256,
                        512 => Mtu::Mtu512,
                        1024 => Mtu::Mtu1024,
                        2048 => Mtu::Mtu2048,
                        4096 => Mtu::Mtu4096,
                        _ => return Err(format!("MTU {n} is not 256, 512, 1024, 2048 or 4096")),
                    });
                    Ok(())
                }),
                b'C' => {
                    p.cycles = true;
                    Ok(())
                }
                b'R' => {
                    p.rdma_cm = true;
                    Ok(())
                }
                b'F' => Ok(()),
                _ => Err(format!("unexpected option '{}'", c as char)),
            },
            Err(e) => Err(e.short_message()),
        };
        if let Err(msg) = r {
            return Err(io.usage_error("perf", &msg));
        }
    }
    match g.operands.as_slice() {
        [] => {}
        [s] => p.server = Some(String::from_utf8_lossy(s).into_owned()),
        [_, extra, ..] => {
            let msg = format!("unexpected argument '{}'", String::from_utf8_lossy(extra));
            return Err(io.usage_error("perf", &msg));
        }
    }
    if p.test.lat() && p.iters < 5 {
        return Err(io.usage_error("perf", "latency tests need at least 5 iterations"));
    }
    Ok(p)
}

/// What one side tells the other about its QP (perftest's `struct pingpong_dest`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Dest {
    lid: u16,
    out_reads: u32,
    qpn: u32,
    psn: u32,
    rkey: u32,
    vaddr: u64,
    gid: [u8; 16],
    srqn: u32,
}

impl Dest {
    /// perftest's 108-byte text, NUL-terminated.
    fn encode(&self) -> [u8; KEY] {
        use std::fmt::Write as _;
        let mut s = format!(
            "{:04x}:{:04x}:{:06x}:{:06x}:{:08x}:{:016x}:",
            self.lid, self.out_reads, self.qpn, self.psn, self.rkey, self.vaddr
        );
        for b in self.gid {
            let _ = write!(s, "{b:02x}:");
        }
        let _ = write!(s, "{:08x}:", self.srqn);
        let mut out = [0u8; KEY];
        let n = s.len().min(KEY - 1);
        out[..n].copy_from_slice(&s.as_bytes()[..n]);
        out
    }

    fn decode(m: &[u8; KEY]) -> Option<Dest> {
        let end = m.iter().position(|&b| b == 0).unwrap_or(KEY);
        let s = std::str::from_utf8(&m[..end]).ok()?;
        let f: Vec<&str> = s.split(':').collect();
        if f.len() < 23 {
            return None;
        }
        let h = |i: usize| u64::from_str_radix(f[i], 16).ok();
        let mut gid = [0u8; 16];
        for (i, g) in gid.iter_mut().enumerate() {
            *g = u8::from_str_radix(f[6 + i], 16).ok()?;
        }
        Some(Dest {
            lid: h(0)? as u16,
            out_reads: h(1)? as u32,
            qpn: h(2)? as u32,
            psn: h(3)? as u32,
            rkey: h(4)? as u32,
            vaddr: h(5)?,
            gid,
            srqn: h(22)? as u32,
        })
    }
}

/// How long a step of the RDMA CM (resolving, connecting, a message of the exchange)
/// may take.
const CM_WAIT: Duration = Duration::from_secs(30);
/// The size of perftest's `struct pingpong_dest`: the exchange's receive size with -R.
const BIN_KEY: usize = 56;

impl Dest {
    /// perftest's binary `struct pingpong_dest` (with -R), 56 bytes.
    /// The GID index is sent as -1 (perftest's reader does not use it).
    fn encode_bin(&self) -> [u8; BIN_KEY] {
        let mut m = [0u8; BIN_KEY];
        m[0..4].copy_from_slice(&u32::from(self.lid).to_be_bytes());
        m[4..8].copy_from_slice(&self.out_reads.to_be_bytes());
        m[8..12].copy_from_slice(&self.qpn.to_be_bytes());
        m[12..16].copy_from_slice(&self.psn.to_be_bytes());
        m[16..20].copy_from_slice(&self.rkey.to_be_bytes());
        m[24..32].copy_from_slice(&self.vaddr.to_be_bytes());
        m[32..48].copy_from_slice(&self.gid);
        m[48..52].copy_from_slice(&self.srqn.to_be_bytes());
        m[52..56].copy_from_slice(&u32::MAX.to_be_bytes());
        m
    }

    fn decode_bin(m: &[u8; BIN_KEY]) -> Dest {
        let w = |i: usize| u32::from_be_bytes([m[i], m[i + 1], m[i + 2], m[i + 3]]);
        let mut vaddr = [0u8; 8];
        vaddr.copy_from_slice(&m[24..32]);
        let mut gid = [0u8; 16];
        gid.copy_from_slice(&m[32..48]);
        Dest {
            lid: w(0) as u16,
            out_reads: w(4),
            qpn: w(8),
            psn: w(12),
            rkey: w(16),
            vaddr: u64::from_be_bytes(vaddr),
            gid,
            srqn: w(48),
        }
    }
}

/// The RDMA CM's connection parameters perftest gives for writes and sends: no RDMA
/// reads either way, 7 retries, no private data.
fn cm_param() -> ConnParam {
    ConnParam {
        responder_resources: 0,
        initiator_depth: 0,
        ..ConnParam::default()
    }
}

/// SERVER:PORT as the RDMA CM's destination (IPv4, as perftest resolves it).
fn cm_addr(host: &str, port: u16) -> Result<SocketAddr, Fail> {
    (host, port)
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve {host}: {e}"))?
        .find(SocketAddr::is_ipv4)
        .ok_or_else(|| format!("{host} has no IPv4 address"))
}

/// The exchange over the RDMA CM (-R): one RC QP of its own, one message at a time.
struct CmLink {
    qp: Qp,
    scq: Cq,
    rcq: Cq,
    /// Bytes 0..56: the receive; 64..120: what is sent.
    mr: Mr,
    dev: DeviceInfo,
    _id: CmId,
}

/// How long the exchange's receive waits on siw before each kick (`CmLink::recv`).
const KICK_AFTER: Duration = Duration::from_secs(1);

/// The exchange's QP, CQs and buffer on the device `id` is bound to, its receive posted;
/// `connect` (the client's connect, the server's accept) then makes it a link.
fn cm_link(id: CmId, connect: impl FnOnce(&CmId, &Qp) -> Result<(), Fail>) -> Result<CmLink, Fail> {
    let dev = id
        .query_addr()
        .and_then(|a| a.device())
        .map_err(|e| e.to_string())?;
    let ctx = Arc::new(Context::open(&dev).map_err(|e| e.to_string())?);
    let pd = ctx.alloc_pd().map_err(|e| e.to_string())?;
    let scq = ctx.create_cq(2, None, 0).map_err(|e| e.to_string())?;
    let rcq = ctx.create_cq(2, None, 0).map_err(|e| e.to_string())?;
    let qp = pd
        .create_qp(&QpInit::new(QpType::Rc, &scq, &rcq).cap(QpCap {
            max_send_wr: 2,
            max_recv_wr: 2,
            max_send_sge: 1,
            max_recv_sge: 1,
            max_inline_data: 0,
        }))
        .map_err(|e| e.to_string())?;
    let mr = pd
        .reg_mr(
            MrBuf::new(128).map_err(|e| format!("memory: {e}"))?,
            AccessFlags::LOCAL_WRITE,
        )
        .map_err(|e| e.to_string())?;
    id.init_qp(&qp).map_err(|e| e.to_string())?;
    CmLink::post_recv(&qp, &mr)?;
    connect(&id, &qp)?;
    Ok(CmLink {
        qp,
        scq,
        rcq,
        mr,
        dev,
        _id: id,
    })
}

impl CmLink {
    fn post_recv(qp: &Qp, mr: &Mr) -> Result<(), Fail> {
        let sge = [Sge::new(mr, 0, BIN_KEY as u32).ok_or("the exchange's buffer")?];
        qp.post_recv(&[RecvWr::new(5, &sge)])
            .map_err(|e| e.to_string())
    }

    /// The client's side: resolves, connects; `Err` when refused (the server may not
    /// listen yet).
    fn connect(to: SocketAddr) -> Result<CmLink, Fail> {
        let ch = CmChannel::open().map_err(|e| e.to_string())?;
        let id = ch.create_id().map_err(|e| e.to_string())?;
        id.resolve_addr(to, CM_WAIT).map_err(|e| e.to_string())?;
        id.resolve_route(CM_WAIT).map_err(|e| e.to_string())?;
        cm_link(id, |id, qp| {
            id.connect(qp, &cm_param(), CM_WAIT)
                .map(drop)
                .map_err(|e| e.to_string())
        })
    }

    /// The server's side: listens on `port` of every address, accepts one connection,
    /// stops listening.
    fn accept(port: u16) -> Result<CmLink, Fail> {
        let ch = CmChannel::open().map_err(|e| e.to_string())?;
        let listen = cm_listen(&ch, port)?;
        let req = cm_request(&ch, None)?;
        let id = CmId::from_request(&ch, &req).map_err(|e| e.to_string())?;
        let link = cm_link(id, |id, qp| {
            id.accept(qp, &cm_param(), CM_WAIT)
                .map(drop)
                .map_err(|e| e.to_string())
        })?;
        drop(listen);
        Ok(link)
    }

    /// One completion of `cq`, successful, waiting at most [`CM_WAIT`].
    fn one(cq: &Cq, what: &str) -> Result<Wc, Fail> {
        Self::one_or(cq, what, |_| Ok(()))
    }

    /// [`CmLink::one`], calling `idle` with the time waited while no completion is there.
    fn one_or(
        cq: &Cq,
        what: &str,
        mut idle: impl FnMut(Duration) -> Result<(), Fail>,
    ) -> Result<Wc, Fail> {
        let t0 = Instant::now();
        let mut wc = [Wc::default(); 1];
        loop {
            if cq.poll(&mut wc).map_err(|e| e.to_string())? == 1 {
                if !wc[0].is_ok() {
                    return Err(format!("the exchange's {what} failed: {:?}", wc[0].status));
                }
                return Ok(wc[0]);
            }
            let waited = t0.elapsed();
            if waited > CM_WAIT {
                return Err(format!("the exchange's {what} did not complete"));
            }
            idle(waited)?;
        }
    }

    fn send(&mut self, data: &[u8]) -> Result<(), Fail> {
        if data.len() > BIN_KEY || !self.mr.write_at(64, data) {
            return Err("an exchange message is too long".into());
        }
        let sge = [Sge::new(&self.mr, 64, data.len() as u32).ok_or("the exchange's buffer")?];
        self.qp
            .post_send(&[SendWr::new(5, SendOp::Send).sg(&sge).signaled()])
            .map_err(|e| e.to_string())?;
        Self::one(&self.scq, "send").map(|_| ())
    }

    /// The next message. On siw, every [`KICK_AFTER`] without one, an unsignaled
    /// zero-length RDMA WRITE goes to the other side first: siw (Linux 6.1 and 6.12)
    /// sends the MPA reply of an accepted connection before it hands the socket's
    /// receive callback to the QP, so a message that arrives in between stays unread on
    /// the socket until more data comes (seen once in about 150 `-R` runs: the client
    /// waited 30 s for a reply to a message the server had not seen). The empty WRITE
    /// is such data and changes nothing on the other side: siw uses no receive and
    /// checks no key for it.
    fn recv(&mut self, out: &mut [u8]) -> Result<(), Fail> {
        let qp = &self.qp;
        let siw = qp.pd().context().driver_id() == uverbs::raw::abi::RDMA_DRIVER_SIW;
        let mut kick_at = KICK_AFTER;
        let wc = Self::one_or(&self.rcq, "receive", |waited| {
            if siw && waited > kick_at && qp.send_queue_free() > 0 {
                let empty = Remote { addr: 0, rkey: 0 };
                qp.post_send(&[SendWr::new(6, SendOp::RdmaWrite(empty))])
                    .map_err(|e| format!("the exchange's kick: {e}"))?;
                kick_at = waited + KICK_AFTER;
            }
            Ok(())
        })?;
        if (wc.byte_len as usize) < out.len() {
            return Err(format!(
                "an exchange message of {} bytes where {} were awaited",
                wc.byte_len,
                out.len()
            ));
        }
        self.mr.read_at(0, out);
        Self::post_recv(&self.qp, &self.mr)
    }
}

/// A listening RDMA CM id on `port` of every address.
fn cm_listen(ch: &Arc<CmChannel>, port: u16) -> Result<CmId, Fail> {
    let listen = ch.create_id().map_err(|e| e.to_string())?;
    listen
        .bind(SocketAddr::from(([0, 0, 0, 0], port)))
        .map_err(|e| e.to_string())?;
    listen.listen(1).map_err(|e| e.to_string())?;
    Ok(listen)
}

/// The next connection request of `ch` (other events are left out).
fn cm_request(ch: &Arc<CmChannel>, limit: Option<Duration>) -> Result<uverbs::cm::CmEvent, Fail> {
    let t0 = Instant::now();
    loop {
        let left = limit.map(|l| l.saturating_sub(t0.elapsed()));
        match ch.get_event(left).map_err(|e| e.to_string())? {
            Some(e) if e.kind == CmEventType::ConnectRequest => return Ok(e),
            Some(_) => {}
            None => return Err("no connection request came".into()),
        }
    }
}

/// The out-of-band link of the exchange.
enum Link {
    Tcp(TcpStream),
    Cm(Box<CmLink>),
}

/// The exchange with the other side.
struct Exchange {
    link: Link,
    client: bool,
}

fn io_err(e: Fail) -> std::io::Error {
    std::io::Error::other(e)
}

impl Exchange {
    fn connect(p: &Params) -> Result<Exchange, Fail> {
        let client = p.server.is_some();
        // The server may still be starting: the client tries for 10 s.
        let t0 = Instant::now();
        let retry = |e: Fail| -> Result<(), Fail> {
            if t0.elapsed() > Duration::from_secs(10) {
                return Err(e);
            }
            std::thread::sleep(Duration::from_millis(100));
            Ok(())
        };
        let link = match (&p.server, p.rdma_cm) {
            (Some(host), false) => loop {
                match TcpStream::connect((host.as_str(), p.port)) {
                    Ok(sock) => break Link::Tcp(sock),
                    Err(e) => retry(format!("cannot connect to {host}:{}: {e}", p.port))?,
                }
            },
            (Some(host), true) => {
                let to = cm_addr(host, p.port)?;
                loop {
                    match CmLink::connect(to) {
                        Ok(l) => break Link::Cm(Box::new(l)),
                        Err(e) => {
                            retry(format!("cannot connect to {to} through the RDMA CM: {e}"))?
                        }
                    }
                }
            }
            (None, false) => {
                let l = TcpListener::bind(("0.0.0.0", p.port))
                    .map_err(|e| format!("cannot listen on TCP port {}: {e}", p.port))?;
                let (sock, _) = l
                    .accept()
                    .map_err(|e| format!("cannot accept on TCP port {}: {e}", p.port))?;
                Link::Tcp(sock)
            }
            (None, true) => {
                Link::Cm(Box::new(CmLink::accept(p.port).map_err(|e| {
                    format!("cannot accept on RDMA CM port {}: {e}", p.port)
                })?))
            }
        };
        Ok(Exchange { link, client })
    }

    /// The device of the exchange's RDMA CM connection (-R).
    fn cm_device(&self) -> Option<&DeviceInfo> {
        match &self.link {
            Link::Cm(l) => Some(&l.dev),
            Link::Tcp(_) => None,
        }
    }

    fn write(&mut self, mine: &[u8]) -> std::io::Result<()> {
        match &mut self.link {
            Link::Tcp(s) => s.write_all(mine),
            Link::Cm(l) => l.send(mine).map_err(io_err),
        }
    }

    fn read(&mut self, theirs: &mut [u8]) -> std::io::Result<()> {
        match &mut self.link {
            Link::Tcp(s) => s.read_exact(theirs),
            Link::Cm(l) => l.recv(theirs).map_err(io_err),
        }
    }

    /// One exchange: the client writes first, the server reads first.
    fn xchg(&mut self, mine: &[u8], theirs: &mut [u8]) -> std::io::Result<()> {
        if self.client {
            self.write(mine)?;
            self.read(theirs)
        } else {
            self.read(theirs)?;
            self.write(mine)
        }
    }

    fn hand_shake(&mut self, my: &Dest) -> std::io::Result<Dest> {
        if let Link::Cm(_) = self.link {
            let mut m = [0u8; BIN_KEY];
            self.xchg(&my.encode_bin(), &mut m)?;
            return Ok(Dest::decode_bin(&m));
        }
        let mut m = [0u8; KEY];
        self.xchg(&my.encode(), &mut m)?;
        Dest::decode(&m).ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::InvalidData, "unparsable QP address")
        })
    }

    fn close(&mut self, my: &Dest) -> std::io::Result<()> {
        self.hand_shake(my)?;
        match &mut self.link {
            Link::Tcp(s) => s.write_all(b"done\0"),
            Link::Cm(_) => Ok(()),
        }
    }
}

/// The RDMA side: one RC QP, its CQs and the buffer (two halves: what this side sends
/// from, then what the other side writes into).
struct Side {
    qp: Qp,
    scq: Cq,
    rcq: Cq,
    mr: Mr,
    half: usize,
    my: Dest,
    /// send_bw on iWARP: perftest's receive credits (the module's text).
    credits: bool,
}

type Fail = String;

fn best_gid(ctx: &Context, port: u8) -> Result<Option<u32>, Fail> {
    let attr = ctx.query_port(u32::from(port)).map_err(|e| e.to_string())?;
    if attr.link_layer != LinkLayer::Ethernet {
        return Ok(None);
    }
    let table = ctx
        .query_gid_table(attr.gid_tbl_len as usize)
        .map_err(|e| e.to_string())?;
    let v2_ipv4 = table.iter().find(|g| {
        g.port == u32::from(port)
            && g.gid_type == GidType::RoceV2
            && g.gid.0[..12] == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]
    });
    Ok(Some(v2_ipv4.map_or(0, |g| g.index)))
}

fn setup(p: &Params, ex: &mut Exchange) -> Result<(Arc<Context>, Side, Mtu, Option<u32>), Fail> {
    let info = match (ex.cm_device(), &p.dev) {
        (Some(cm), Some(d)) if cm.name != *d => {
            return Err(format!(
                "the RDMA CM connected through {}, not {d} (with -R the address decides)",
                cm.name
            ))
        }
        (Some(cm), _) => Ok(cm.clone()),
        (None, Some(d)) => Discovery::new().device(d),
        (None, None) => Discovery::new().devices().and_then(|v| {
            v.into_iter().next().ok_or(uverbs::Error::NoSuchDevice {
                name: "(any)".into(),
            })
        }),
    }
    .map_err(|e| e.to_string())?;
    let ctx = Arc::new(Context::open(&info).map_err(|e| e.to_string())?);
    let port = ctx
        .query_port(u32::from(p.ib_port))
        .map_err(|e| e.to_string())?;
    let gid_index = match p.gid_index {
        Some(i) => Some(i),
        None => best_gid(&ctx, p.ib_port)?,
    };
    // Versions, page and cache-line sizes, MTU.
    let io = |e: std::io::Error| format!("the exchange with the other side failed: {e}");
    let mut v = [0u8; 16];
    v[..VERSION.len()].copy_from_slice(VERSION);
    let mut rv = [0u8; 16];
    ex.xchg(&v, &mut rv).map_err(io)?;
    let rv_text =
        String::from_utf8_lossy(&rv[..rv.iter().position(|&b| b == 0).unwrap_or(16)]).into_owned();
    let rem: f64 = rv_text.trim().parse().unwrap_or(0.0);
    if rem < 5.70 {
        return Err(format!(
            "the other side's perftest version {rv_text:?} is older than 5.70"
        ));
    }
    let page = 4096i32;
    let mut cycle_buffer = page;
    let mut r4 = [0u8; 4];
    ex.xchg(&page.to_be_bytes(), &mut r4).map_err(io)?;
    cycle_buffer = cycle_buffer.max(i32::from_be_bytes(r4));
    let cache_line = 64i32;
    ex.xchg(&cache_line.to_be_bytes(), &mut r4).map_err(io)?;
    let mut mtu = p.mtu.unwrap_or(port.active_mtu);
    let mut m = [0u8; 2];
    m[0] = b'0' + mtu.as_raw();
    let mut rm = [0u8; 2];
    ex.xchg(&m, &mut rm).map_err(io)?;
    if let Some(r) = (rm[0] as char).to_digit(10) {
        let r = Mtu::from_raw(r as u8);
        if r.bytes().is_some() && r.as_raw() < mtu.as_raw() {
            mtu = r;
        }
    }

    let half = p.size.max(cycle_buffer as usize);
    let pd = ctx.alloc_pd().map_err(|e| e.to_string())?;
    let scq = ctx
        .create_cq(p.tx_depth as u32 + 1, None, 0)
        .map_err(|e| e.to_string())?;
    let rcq = ctx
        .create_cq(p.rx_depth as u32 + 1, None, 0)
        .map_err(|e| e.to_string())?;
    let qp = new_qp(&pd, &scq, &rcq, p)?;
    let mr = pd
        .reg_mr(
            MrBuf::new(2 * half).map_err(|e| format!("memory: {e}"))?,
            AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE | AccessFlags::REMOTE_READ,
        )
        .map_err(|e| e.to_string())?;
    if !p.rdma_cm {
        qp.modify(
            &mut ModifyQp::new()
                .state(QpState::Init)
                .pkey_index(0)
                .port(p.ib_port)
                .access(
                    AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE | AccessFlags::REMOTE_READ,
                ),
        )
        .map_err(|e| e.to_string())?;
    }
    let gid = match gid_index {
        Some(i) => ctx
            .query_gid(u32::from(p.ib_port), i)
            .map_err(|e| e.to_string())?
            .map(|g| g.gid.0)
            .ok_or_else(|| format!("port {} has no GID {i}", p.ib_port))?,
        None => [0; 16],
    };
    let my = Dest {
        lid: port.lid,
        out_reads: 1,
        qpn: qp.qp_num(),
        psn: (cycles() as u32 ^ std::process::id().wrapping_mul(2654435761)) & 0xff_ffff,
        rkey: mr.rkey(),
        vaddr: mr.addr() + half as u64,
        gid,
        srqn: 0,
    };
    Ok((
        ctx,
        Side {
            qp,
            scq,
            rcq,
            mr,
            half,
            my,
            credits: p.test == Test::SendBw && info.transport == TransportType::Iwarp,
        },
        mtu,
        gid_index,
    ))
}

/// The test's RC QP.
fn new_qp(pd: &Pd, scq: &Cq, rcq: &Cq, p: &Params) -> Result<Qp, Fail> {
    pd.create_qp(&QpInit::new(QpType::Rc, scq, rcq).cap(QpCap {
        max_send_wr: p.tx_depth as u32,
        max_recv_wr: p.rx_depth as u32,
        max_send_sge: 1,
        max_recv_sge: 1,
        max_inline_data: p.inline as u32,
    }))
    .map_err(|e| e.to_string())
}

/// With -R: the RDMA CM connection of the test's QP, between two handshakes, as
/// perftest's create_rdma_cm_connection. The server listens before the first
/// handshake (so a client that has it finds the port open); the client connects, and
/// while it is refused tries again for 10 s with a fresh id and QP. The id is the
/// connection: it lives as long as the QP is used.
fn cm_connect_test_qp(s: &mut Side, p: &Params, ex: &mut Exchange) -> Result<CmId, Fail> {
    let e = |e: std::io::Error| format!("the exchange with the other side failed: {e}");
    let ch = CmChannel::open().map_err(|e| e.to_string())?;
    let id = match &p.server {
        None => {
            let listen = cm_listen(&ch, p.port)?;
            ex.hand_shake(&Dest::default()).map_err(e)?;
            let req = cm_request(&ch, Some(CM_WAIT))?;
            let id = CmId::from_request(&ch, &req).map_err(|e| e.to_string())?;
            id.accept(&s.qp, &cm_param(), CM_WAIT)
                .map_err(|e| format!("accepting the test's connection: {e}"))?;
            drop(listen);
            id
        }
        Some(host) => {
            ex.hand_shake(&Dest::default()).map_err(e)?;
            let to = cm_addr(host, p.port)?;
            let t0 = Instant::now();
            let mut fresh = false;
            loop {
                let attempt = |s: &mut Side, fresh: bool| -> Result<CmId, Fail> {
                    let id = ch.create_id().map_err(|e| e.to_string())?;
                    id.resolve_addr(to, CM_WAIT).map_err(|e| e.to_string())?;
                    id.resolve_route(CM_WAIT).map_err(|e| e.to_string())?;
                    if fresh {
                        // A refused connect may have left the QP in ERR.
                        s.qp = new_qp(s.qp.pd(), &s.scq, &s.rcq, p)?;
                    }
                    id.init_qp(&s.qp).map_err(|e| e.to_string())?;
                    id.connect(&s.qp, &cm_param(), CM_WAIT)
                        .map_err(|e| e.to_string())?;
                    Ok(id)
                };
                match attempt(s, fresh) {
                    Ok(id) => break id,
                    Err(err) if t0.elapsed() > Duration::from_secs(10) => {
                        return Err(format!("connecting the test's QP to {to}: {err}"))
                    }
                    Err(_) => {
                        fresh = true;
                        std::thread::sleep(Duration::from_millis(100));
                    }
                }
            }
        }
    };
    s.my.qpn = s.qp.qp_num();
    ex.hand_shake(&Dest::default()).map_err(e)?;
    Ok(id)
}

/// INIT to RTR to RTS towards `rem`, with perftest's attributes.
fn connect(s: &Side, p: &Params, rem: &Dest, mtu: Mtu, gid_index: Option<u32>) -> Result<(), Fail> {
    let mut av = AhAttr {
        dlid: rem.lid,
        port_num: p.ib_port,
        ..Default::default()
    };
    if let Some(i) = gid_index {
        av.is_global = true;
        av.grh = GlobalRoute {
            dgid: Gid(rem.gid),
            sgid_index: i as u8,
            hop_limit: 0xff,
            ..Default::default()
        };
    }
    s.qp.modify(
        &mut ModifyQp::new()
            .state(QpState::Rtr)
            .av(av)
            .path_mtu(mtu)
            .dest_qp_num(rem.qpn)
            .rq_psn(rem.psn)
            .max_dest_rd_atomic(s.my.out_reads as u8)
            .min_rnr_timer(MIN_RNR_TIMER),
    )
    .map_err(|e| e.to_string())?;
    s.qp.modify(
        &mut ModifyQp::new()
            .state(QpState::Rts)
            .sq_psn(s.my.psn)
            .timeout(14)
            .retry_cnt(7)
            .rnr_retry(7)
            .max_rd_atomic(rem.out_reads.max(1) as u8),
    )
    .map_err(|e| e.to_string())
}

/// One send-queue completion, successful.
fn send_done(cq: &Cq) -> Result<Wc, Fail> {
    let mut wc = [Wc::default(); 1];
    loop {
        if cq.poll(&mut wc).map_err(|e| e.to_string())? == 1 {
            if !wc[0].is_ok() {
                return Err(format!("a completion failed: {:?}", wc[0].status));
            }
            return Ok(wc[0]);
        }
    }
}

fn run_write_lat(s: &mut Side, p: &Params, rem: &Dest, client: bool) -> Result<Vec<u64>, Fail> {
    let mut tposted = vec![0u64; p.iters];
    let remote = Remote {
        addr: rem.vaddr,
        rkey: rem.rkey,
    };
    let poll_at = s.half + p.size - 1;
    let (mut scnt, mut ccnt, mut rcnt) = (0usize, 0usize, 0usize);
    let mut b = [0u8; 1];
    while scnt < p.iters || ccnt < p.iters || rcnt < p.iters {
        // The server writes first; then each side waits for the other's write.
        if rcnt < p.iters && (client || scnt >= 1) {
            rcnt += 1;
            loop {
                s.mr.read_at(poll_at, &mut b);
                if b[0] == rcnt as u8 {
                    break;
                }
                if s.qp.pd().context().is_revoked() {
                    return Err("the device was removed".into());
                }
            }
        }
        if scnt < p.iters {
            tposted[scnt] = cycles();
            scnt += 1;
            s.mr.write_at(p.size - 1, &[scnt as u8]);
            let sge = [Sge::new(&s.mr, 0, p.size as u32).ok_or("size past the buffer")?];
            let wr = SendWr::new(scnt as u64, SendOp::RdmaWrite(remote)).signaled();
            let wr = if p.size <= p.inline {
                let mut data = [0u8; 4096];
                s.mr.read_at(0, &mut data[..p.size]);
                s.qp.post_send(&[wr.inline(&data[..p.size])])
            } else {
                s.qp.post_send(&[wr.sg(&sge)])
            };
            wr.map_err(|e| e.to_string())?;
        }
        if ccnt < p.iters {
            send_done(&s.scq)?;
            ccnt += 1;
        }
    }
    Ok(tposted)
}

fn post_recvs(s: &Side, p: &Params, n: usize) -> Result<(), Fail> {
    let sge = [Sge::new(&s.mr, s.half, p.size as u32).ok_or("size past the buffer")?];
    for _ in 0..n {
        s.qp.post_recv(&[RecvWr::new(1, &sge)])
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

fn run_send_lat(s: &mut Side, p: &Params, client: bool) -> Result<Vec<u64>, Fail> {
    let mut tposted = vec![0u64; p.iters];
    let (mut scnt, mut rcnt) = (0usize, 0usize);
    let mut wc = [Wc::default(); 1];
    let sge = [Sge::new(&s.mr, 0, p.size as u32).ok_or("size past the buffer")?];
    let mut inline = [0u8; 4096];
    if p.size <= p.inline {
        s.mr.read_at(0, &mut inline[..p.size]);
    }
    let rsge = [Sge::new(&s.mr, s.half, p.size as u32).ok_or("size past the buffer")?];
    while scnt < p.iters || rcnt < p.iters {
        // The client sends first; then each side waits for the other's message.
        if rcnt < p.iters && !(scnt < 1 && client) {
            loop {
                if s.rcq.poll(&mut wc).map_err(|e| e.to_string())? == 1 {
                    break;
                }
            }
            if !wc[0].is_ok() {
                return Err(format!("a receive failed: {:?}", wc[0].status));
            }
            rcnt += 1;
            if rcnt + p.rx_depth.min(p.iters) <= p.iters {
                s.qp.post_recv(&[RecvWr::new(1, &rsge)])
                    .map_err(|e| e.to_string())?;
            }
        }
        if scnt < p.iters {
            tposted[scnt] = cycles();
            scnt += 1;
            let wr = SendWr::new(scnt as u64, SendOp::Send).signaled();
            let wr = if p.size <= p.inline {
                wr.inline(&inline[..p.size])
            } else {
                wr.sg(&sge)
            };
            s.qp.post_send(&[wr]).map_err(|e| e.to_string())?;
            send_done(&s.scq)?;
        }
    }
    Ok(tposted)
}

/// Streams `iters` writes or sends, `tx_depth` at most outstanding, a completion every
/// `cq_mod`; the elapsed wall-clock time.
fn run_bw_client(s: &mut Side, p: &Params, rem: &Dest) -> Result<Duration, Fail> {
    let remote = Remote {
        addr: rem.vaddr,
        rkey: rem.rkey,
    };
    let sge = [Sge::new(&s.mr, 0, p.size as u32).ok_or("size past the buffer")?];
    let mut inline = [0u8; 4096];
    if p.size <= p.inline {
        s.mr.read_at(0, &mut inline[..p.size]);
    }
    let op = if p.test.send() {
        SendOp::Send
    } else {
        SendOp::RdmaWrite(remote)
    };
    let (mut posted, mut done) = (0usize, 0usize);
    let mut wc = [Wc::default(); 16];
    // Receive credits (iWARP send_bw): the server's count of receives, in the second
    // half's first word.
    let window = p.rx_depth.min(p.iters);
    let credit = |s: &Side| {
        let mut c = [0u8; 4];
        s.mr.read_at(s.half, &mut c);
        u32::from_ne_bytes(c) as usize
    };
    let t0 = Instant::now();
    while done < p.iters {
        while posted < p.iters && posted - done < p.tx_depth {
            if s.credits && (posted + 1).saturating_sub(credit(s)) >= window {
                break;
            }
            posted += 1;
            let mut wr = SendWr::new(posted as u64, op);
            wr = if p.size <= p.inline {
                wr.inline(&inline[..p.size])
            } else {
                wr.sg(&sge)
            };
            if posted % p.cq_mod == 0 || posted == p.iters {
                wr = wr.signaled();
            }
            s.qp.post_send(&[wr]).map_err(|e| e.to_string())?;
        }
        let n = s.scq.poll(&mut wc).map_err(|e| e.to_string())?;
        for w in &wc[..n] {
            if !w.is_ok() {
                return Err(format!("a completion failed: {:?}", w.status));
            }
            done = done.max(w.wr_id as usize);
        }
    }
    Ok(t0.elapsed())
}

fn run_bw_server(s: &mut Side, p: &Params, rem: &Dest) -> Result<Duration, Fail> {
    let mut wc = [Wc::default(); 16];
    let mut rcnt = 0usize;
    let depth = p.rx_depth.min(p.iters);
    // Receive credits (iWARP): the count of receives RDMA-written to the client's
    // credit word at every third of the depth, at most tx_depth of them outstanding.
    let every = (depth / 3).max(1);
    let credit_to = SendOp::RdmaWrite(Remote {
        addr: rem.vaddr,
        rkey: rem.rkey,
    });
    let mut credits_out = 0usize;
    let reap = |s: &Side, out: &mut usize, below: usize| -> Result<(), Fail> {
        let mut swc = [Wc::default(); 16];
        while *out > below {
            let n = s.scq.poll(&mut swc).map_err(|e| e.to_string())?;
            for w in &swc[..n] {
                if !w.is_ok() {
                    return Err(format!("a credit write failed: {:?}", w.status));
                }
            }
            *out -= n.min(*out);
        }
        Ok(())
    };
    let mut t0 = None;
    while rcnt < p.iters {
        let n = s.rcq.poll(&mut wc).map_err(|e| e.to_string())?;
        if n > 0 && t0.is_none() {
            t0 = Some(Instant::now());
        }
        for w in &wc[..n] {
            if !w.is_ok() {
                return Err(format!("a receive failed: {:?}", w.status));
            }
            rcnt += 1;
            if rcnt + depth <= p.iters {
                let rsge = [Sge::new(&s.mr, s.half, p.size as u32).ok_or("size past the buffer")?];
                s.qp.post_recv(&[RecvWr::new(1, &rsge)])
                    .map_err(|e| e.to_string())?;
            }
            if s.credits && (rcnt % depth) % every == 0 {
                reap(s, &mut credits_out, p.tx_depth - 1)?;
                s.mr.write_at(0, &(rcnt as u32).to_ne_bytes());
                let csge = [Sge::new(&s.mr, 0, 4).ok_or("the credit word")?];
                s.qp.post_send(&[SendWr::new(0, credit_to).sg(&csge).signaled()])
                    .map_err(|e| e.to_string())?;
                credits_out += 1;
            }
        }
    }
    let t = t0.map_or(Duration::ZERO, |t| t.elapsed());
    reap(s, &mut credits_out, 0)?;
    Ok(t)
}

/// perftest's latency report line from the post times (print_report_lat).
fn lat_report(p: &Params, tposted: &[u64]) -> String {
    let mut delta: Vec<u64> = tposted
        .windows(2)
        .map(|w| w[1].wrapping_sub(w[0]))
        .collect();
    delta.sort_unstable();
    let units = if p.cycles {
        1.0
    } else {
        cpu_mhz().unwrap_or(1.0)
    };
    let q = units * 2.0;
    let n = delta.len().saturating_sub(2).max(1);
    let median = if (n - 1) % 2 == 1 {
        (delta[n / 2] + delta[n / 2 - 1]) / 2
    } else {
        delta[n / 2]
    };
    let vals: Vec<f64> = delta[..n].iter().map(|&d| d as f64 / q).collect();
    let avg = vals.iter().sum::<f64>() / n as f64;
    let var = vals.iter().map(|v| (avg - v).trunc().powi(2)).sum::<f64>() / n as f64;
    let i99 = ((n as f64) * 0.99).ceil() as usize;
    let i999 = ((n as f64) * 0.999).ceil() as usize;
    let at = |i: usize| delta[i.min(delta.len() - 1)] as f64 / q;
    format!(
        " #bytes #iterations    t_min[{u}]    t_max[{u}]  t_typical[{u}]    t_avg[{u}]    t_stdev[{u}]   99% percentile[{u}]   99.9% percentile[{u}] \n {:<7} {}          {:<7.2}        {:<7.2}      {:<7.2}  \t       {:<7.2}     \t{:<7.2}\t\t{:<7.2} \t\t{:<7.2}\n",
        p.size,
        p.iters,
        at(0),
        at(n),
        median as f64 / q,
        avg,
        var.sqrt(),
        at(i99),
        at(i999),
        u = if p.cycles { "cycles" } else { "usec" }
    )
}

/// The CPU's MHz from /proc/cpuinfo (for reports in microseconds).
fn cpu_mhz() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    s.lines()
        .find(|l| l.starts_with("cpu MHz"))?
        .split(':')
        .nth(1)?
        .trim()
        .parse()
        .ok()
}

fn bw_line(p: &Params, t: Duration) -> (f64, f64, String) {
    let secs = t.as_secs_f64().max(1e-9);
    let mbs = (p.size * p.iters) as f64 / secs / 1_048_576.0;
    let mpps = p.iters as f64 / secs / 1e6;
    let line = format!(
        " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n {:<10} {:<10}       {:.2}            {:.2}\t\t   {:.6}\n",
        p.size, p.iters, mbs, mbs, mpps
    );
    (mbs, mpps, line)
}

/// The client's report, as perftest's xchg_bw_reports sends it: size, iterations, peak
/// and average bandwidth, message rate (8 bytes each, network order).
fn xchg_reports(ex: &mut Exchange, p: &Params, mbs: f64, mpps: f64) -> std::io::Result<()> {
    let mut r = [0u8; 8];
    for v in [
        (p.size as u64).to_be_bytes(),
        (p.iters as u64).to_be_bytes(),
        mbs.to_bits().to_be_bytes(),
        mbs.to_bits().to_be_bytes(),
        mpps.to_bits().to_be_bytes(),
    ] {
        ex.xchg(&v, &mut r)?;
    }
    Ok(())
}

fn run(p: &Params, io: &mut Io) -> Result<(), Fail> {
    let mut ex = Exchange::connect(p)?;
    let client = ex.client;
    let (_ctx, mut s, mtu, gid_index) = setup(p, &mut ex)?;
    let e = |e: std::io::Error| format!("the exchange with the other side failed: {e}");
    // With -R the RDMA CM connects the QP (the id lives until the end); else by hand
    // once the other side's address is known.
    let cm = if p.rdma_cm {
        Some(cm_connect_test_qp(&mut s, p, &mut ex)?)
    } else {
        None
    };
    let connect = |s: &Side, rem: &Dest| {
        if p.rdma_cm {
            Ok(())
        } else {
            connect(s, p, rem, mtu, gid_index)
        }
    };
    let my = s.my;
    match p.test {
        Test::WriteLat => {
            ex.hand_shake(&my).map_err(e)?;
            let rem = ex.hand_shake(&my).map_err(e)?;
            connect(&s, &rem)?;
            ex.hand_shake(&my).map_err(e)?;
            ex.hand_shake(&my).map_err(e)?;
            let t = run_write_lat(&mut s, p, &rem, client)?;
            io.out(lat_report(p, &t));
        }
        Test::SendLat => {
            let rem = ex.hand_shake(&my).map_err(e)?;
            connect(&s, &rem)?;
            ex.hand_shake(&my).map_err(e)?;
            ex.hand_shake(&my).map_err(e)?;
            post_recvs(&s, p, p.rx_depth.min(p.iters))?;
            ex.hand_shake(&my).map_err(e)?;
            let t = run_send_lat(&mut s, p, client)?;
            io.out(lat_report(p, &t));
            ex.close(&my).map_err(e)?;
        }
        Test::WriteBw => {
            let rem = ex.hand_shake(&my).map_err(e)?;
            connect(&s, &rem)?;
            ex.hand_shake(&my).map_err(e)?;
            ex.hand_shake(&my).map_err(e)?;
            if client {
                let t = run_bw_client(&mut s, p, &rem)?;
                let (mbs, mpps, line) = bw_line(p, t);
                io.out(line);
                ex.hand_shake(&my).map_err(e)?;
                xchg_reports(&mut ex, p, mbs, mpps).map_err(e)?;
            } else {
                // The server waits for the client's report.
                ex.hand_shake(&my).map_err(e)?;
                xchg_reports(&mut ex, p, 0.0, 0.0).map_err(e)?;
                io.out(" (the client reports the bandwidth)\n");
            }
            ex.close(&my).map_err(e)?;
        }
        Test::SendBw => {
            let rem = ex.hand_shake(&my).map_err(e)?;
            connect(&s, &rem)?;
            ex.hand_shake(&my).map_err(e)?;
            ex.hand_shake(&my).map_err(e)?;
            if !client {
                post_recvs(&s, p, p.rx_depth.min(p.iters))?;
            }
            ex.hand_shake(&my).map_err(e)?;
            let t = if client {
                run_bw_client(&mut s, p, &rem)?
            } else {
                run_bw_server(&mut s, p, &rem)?
            };
            io.out(bw_line(p, t).2);
            ex.close(&my).map_err(e)?;
        }
    }
    if let Some(id) = cm {
        // As perftest's client, the client disconnects; either side then waits (at
        // most 2 s) for the connection's end before its QP goes, so that a peer's last
        // completion is not cut off by this side's teardown (write_lat ends with the
        // client's write, which the server sees before the client's completion).
        if client {
            let _ = id.disconnect();
        }
        let _ = id.next_event(Duration::from_secs(2));
    }
    Ok(())
}

/// `uverbs perf ARGS`.
pub fn uverbs(io: &mut Io, args: &[Vec<u8>]) -> i32 {
    let p = match parse(io, args) {
        Ok(p) => p,
        Err(status) => return status,
    };
    match run(&p, io) {
        Ok(()) => 0,
        Err(msg) => {
            io.err_line(&crate::io::printable(
                format!("uverbs perf: {msg}").as_bytes(),
            ));
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_text_is_perftests() {
        let d = Dest {
            lid: 0,
            out_reads: 1,
            qpn: 0x12,
            psn: 0x293b4f,
            rkey: 0x391,
            vaddr: 0x558bf76b8000,
            gid: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 169, 254, 1, 1],
            srqn: 0,
        };
        let m = d.encode();
        let text = std::str::from_utf8(&m[..107]).unwrap();
        assert_eq!(
            text,
            "0000:0001:000012:293b4f:00000391:0000558bf76b8000:00:00:00:00:00:00:00:00:00:00:ff:ff:a9:fe:01:01:00000000:"
        );
        assert_eq!(m[107], 0);
        assert_eq!(Dest::decode(&m), Some(d));
    }

    #[test]
    fn binary_key_is_perftests_pingpong_dest() {
        // struct pingpong_dest on x86-64 (perftest 4.5): int lid, out_reads, qpn, psn;
        // unsigned rkey; 4 bytes padding; unsigned long long vaddr; union ibv_gid gid;
        // unsigned srqn; int gid_index: 56 bytes, sent in network order (HAVE_ENDIAN).
        let d = Dest {
            lid: 0x0102,
            out_reads: 1,
            qpn: 0x12,
            psn: 0x293b4f,
            rkey: 0x391,
            vaddr: 0x558b_f76b_8000,
            gid: [
                0xfe, 0x80, 0, 0, 0, 0, 0, 0, 2, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55,
            ],
            srqn: 7,
        };
        let m = d.encode_bin();
        let want: [u8; BIN_KEY] = [
            0, 0, 1, 2, 0, 0, 0, 1, 0, 0, 0, 0x12, 0, 0x29, 0x3b, 0x4f, 0, 0, 3, 0x91, 0, 0, 0, 0,
            0, 0, 0x55, 0x8b, 0xf7, 0x6b, 0x80, 0, 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 2, 0x11, 0x22,
            0xff, 0xfe, 0x33, 0x44, 0x55, 0, 0, 0, 7, 0xff, 0xff, 0xff, 0xff,
        ];
        assert_eq!(m, want);
        assert_eq!(Dest::decode_bin(&m), d);
    }

    #[test]
    fn median_as_perftest() {
        let p = Params {
            test: Test::WriteLat,
            dev: None,
            ib_port: 1,
            gid_index: None,
            size: 2,
            iters: 6,
            port: 1,
            tx_depth: 1,
            rx_depth: 1,
            cq_mod: 1,
            inline: 0,
            mtu: None,
            cycles: true,
            rdma_cm: false,
            server: None,
        };
        // Deltas 10, 20, 30, 40, 100: the 2 largest left out, the median of 10, 20, 30
        // is 20, halved: 10.
        let t = [0u64, 10, 30, 60, 100, 200];
        let r = lat_report(&p, &t);
        let line = r.lines().nth(1).unwrap();
        let f: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(f[0], "2");
        assert_eq!(f[4], "10.00", "{line}");
    }
}
