//! `uverbs perf TEST [OPTIONS] [SERVER]`: perftest's latency and bandwidth tests
//! (`ib_write_lat`, `ib_write_bw`, `ib_send_lat`, `ib_send_bw`) on uverbs' own data path,
//! speaking perftest's exchange so that either side may be perftest.
//!

use std::sync::Arc;
use std::time::{Duration, Instant};

use uverbs::cm::{CmChannel, CmId};
use uverbs::raw::cycles;
use uverbs::verbs::datapath::{RecvWr, Remote, SendOp, SendWr, Sge, Wc};
use uverbs::verbs::objects::{AhAttr, Cq, GlobalRoute, ModifyQp, Mr, MrBuf, Pd, Qp, QpCap, QpInit};
use uverbs::{
    AccessFlags, Context, Discovery, Gid, GidType, LinkLayer, Mtu, QpState, QpType, TransportType,
};

mod exchange;

use crate::plumbing::getopt::{opt, Getopt, LongOpt};
use crate::plumbing::io::Io;
use exchange::*;

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
    } else if cfg!(target_arch = "x86_64") {
        // rdtsc ticks at the clock /proc/cpuinfo gives (perftest's conversion).
        uverbs::sysfs::cpu_mhz().unwrap_or(1.0)
    } else {
        // uverbs::raw::cycles() counts nanoseconds of the monotonic clock here.
        1000.0
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

fn run(p: &Params, io: &mut Io) -> Result<(), Fail> {
    let mut ex = Exchange::connect(p.server.as_deref(), p.port, p.rdma_cm)?;
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
                xchg_reports(&mut ex, p.size, p.iters, mbs, mpps).map_err(e)?;
            } else {
                // The server waits for the client's report.
                ex.hand_shake(&my).map_err(e)?;
                xchg_reports(&mut ex, p.size, p.iters, 0.0, 0.0).map_err(e)?;
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
            io.err_line(&crate::plumbing::io::printable(
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
