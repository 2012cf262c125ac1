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
//! sends and polling the CQ; and the drop order: the QP before the CQ and the MR, the PD
//! last, each holding what it needs alive.
//!
//! The run: the server posts `-r` receives, the client sends first, and each side sends
//! again once its last send completed and the other's message came in, `-n` times; with
//! `-c` the client zeroes the first byte of every page of the buffer it sends and the
//! server checks those bytes once the run ends (the buffer goes back and forth, sent
//! from and received into the same memory).

use std::io::{Read, Write};
use std::net::{Ipv6Addr, TcpListener, TcpStream};
use std::sync::Arc;
use std::time::Instant;

use uverbs::verbs::datapath::{RecvWr, SendOp, SendWr, Sge, Wc};
use uverbs::verbs::objects::{AhAttr, ModifyQp, MrBuf, QpCap, QpInit};
use uverbs::{AccessFlags, Context, Gid, Mtu, QpType, WcStatus};

const RECV_WRID: u64 = 1;
const SEND_WRID: u64 = 2;
/// The address text: `%04x:%06x:%06x:` and 32 hex digits of the GID, then a NUL.
const MSG: usize = 52;

struct Opts {
    port: u16,
    dev: Option<String>,
    ib_port: u8,
    size: usize,
    mtu: Mtu,
    rx_depth: u32,
    iters: u64,
    gid_idx: Option<u8>,
    check: bool,
    server: Option<String>,
}

fn usage(prog: &str) -> ! {
    eprintln!(
        "Usage:\n  {prog}            start a server and wait for connection\n  \
         {prog} <host>     connect to server at <host>\n\nOptions:\n  \
         -p, --port=<port>      listen on/connect to port <port> (default 18515)\n  \
         -d, --ib-dev=<dev>     use IB device <dev> (default first device found)\n  \
         -i, --ib-port=<port>   use port <port> of IB device (default 1)\n  \
         -s, --size=<size>      size of message to exchange (default 4096)\n  \
         -m, --mtu=<size>       path MTU (default 1024)\n  \
         -r, --rx-depth=<dep>   number of receives to post at a time (default 500)\n  \
         -n, --iters=<iters>    number of exchanges (default 1000)\n  \
         -g, --gid-idx=<gid index> local port gid index\n  \
         -c, --chk              validate received buffer"
    );
    std::process::exit(1)
}

fn parse() -> Opts {
    let args: Vec<String> = std::env::args().collect();
    let prog = args[0]
        .rsplit('/')
        .next()
        .unwrap_or("rc_pingpong")
        .to_string();
    let mut o = Opts {
        port: 18515,
        dev: None,
        ib_port: 1,
        size: 4096,
        mtu: Mtu::Mtu1024,
        rx_depth: 500,
        iters: 1000,
        gid_idx: None,
        check: false,
        server: None,
    };
    let mut i = 1;
    while i < args.len() {
        let a = args[i].as_str();
        // `-x VALUE`, `-xVALUE`, `--long=VALUE` or `--long VALUE`
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) if a.starts_with("--") => (f, Some(v.to_string())),
            _ if a.starts_with('-') && !a.starts_with("--") && a.len() > 2 => {
                (&a[..2], Some(a[2..].to_string()))
            }
            _ => (a, None),
        };
        let mut value = || {
            inline.clone().unwrap_or_else(|| {
                i += 1;
                args.get(i).cloned().unwrap_or_else(|| usage(&prog))
            })
        };
        let num = |v: String| v.parse::<u64>().unwrap_or_else(|_| usage(&prog));
        match flag {
            "-p" | "--port" => o.port = num(value()) as u16,
            "-d" | "--ib-dev" => o.dev = Some(value()),
            "-i" | "--ib-port" => o.ib_port = num(value()) as u8,
            "-s" | "--size" => o.size = num(value()) as usize,
            "-m" | "--mtu" => {
                o.mtu = match num(value()) {
                    256 => Mtu::Mtu256,
                    512 => Mtu::Mtu512,
                    1024 => Mtu::Mtu1024,
                    2048 => Mtu::Mtu2048,
                    4096 => Mtu::Mtu4096,
                    _ => usage(&prog),
                }
            }
            "-r" | "--rx-depth" => o.rx_depth = num(value()) as u32,
            "-n" | "--iters" => o.iters = num(value()),
            "-g" | "--gid-idx" => o.gid_idx = Some(num(value()) as u8),
            "-c" | "--chk" => o.check = true,
            _ if !a.starts_with('-') && o.server.is_none() => o.server = Some(a.to_string()),
            _ => usage(&prog),
        }
        i += 1;
    }
    o
}

/// One side's address, as the examples exchange it.
#[derive(Debug, Clone, Copy)]
struct Dest {
    lid: u16,
    qpn: u32,
    psn: u32,
    gid: Gid,
}

impl Dest {
    fn encode(&self) -> [u8; MSG] {
        let mut s = format!("{:04x}:{:06x}:{:06x}:", self.lid, self.qpn, self.psn);
        for b in self.gid.0 {
            s.push_str(&format!("{b:02x}"));
        }
        let mut m = [0u8; MSG];
        m[..s.len()].copy_from_slice(s.as_bytes());
        m
    }

    fn decode(m: &[u8; MSG]) -> Option<Dest> {
        let end = m.iter().position(|&b| b == 0).unwrap_or(MSG);
        let s = std::str::from_utf8(&m[..end]).ok()?;
        let f: Vec<&str> = s.split(':').collect();
        if f.len() != 4 || f[3].len() != 32 {
            return None;
        }
        let mut gid = [0u8; 16];
        for (i, b) in gid.iter_mut().enumerate() {
            *b = u8::from_str_radix(&f[3][2 * i..2 * i + 2], 16).ok()?;
        }
        Some(Dest {
            lid: u16::from_str_radix(f[0], 16).ok()?,
            qpn: u32::from_str_radix(f[1], 16).ok()?,
            psn: u32::from_str_radix(f[2], 16).ok()?,
            gid: Gid(gid),
        })
    }

    fn show(&self, which: &str) {
        // (ibv_rc_pingpong aligns "local address:  LID" and "remote address: LID")
        let pad = if which == "local" { " " } else { "" };
        println!(
            "  {which} address: {pad}LID 0x{:04x}, QPN 0x{:06x}, PSN 0x{:06x}, GID {}",
            self.lid,
            self.qpn,
            self.psn,
            Ipv6Addr::from(self.gid.0)
        );
    }
}

/// The address exchange: the client writes first, the server answers once its QP is
/// ready, and the client closes with "done".
fn exchange(o: &Opts, mine: &Dest, ready: impl FnOnce(&Dest)) -> Dest {
    let mut theirs = [0u8; MSG];
    match &o.server {
        Some(host) => {
            let mut s = TcpStream::connect((host.as_str(), o.port)).unwrap_or_else(|e| {
                eprintln!("Couldn't connect to {host}:{}: {e}", o.port);
                std::process::exit(1)
            });
            s.write_all(&mine.encode()).expect("write the address");
            s.read_exact(&mut theirs)
                .expect("read the server's address");
            let d = Dest::decode(&theirs).expect("the server's address text");
            s.write_all(b"done\0").expect("write done");
            d
        }
        None => {
            let l = TcpListener::bind(("0.0.0.0", o.port)).unwrap_or_else(|e| {
                eprintln!("Couldn't listen to port {}: {e}", o.port);
                std::process::exit(1)
            });
            let (mut s, _) = l.accept().expect("accept");
            s.read_exact(&mut theirs)
                .expect("read the client's address");
            let d = Dest::decode(&theirs).expect("the client's address text");
            ready(&d);
            s.write_all(&mine.encode()).expect("write the address");
            let mut done = [0u8; 5];
            let _ = s.read_exact(&mut done);
            d
        }
    }
}

fn main() {
    let o = parse();
    // Discover and open: the named device, or the first one.
    let infos = uverbs::Discovery::new().devices().unwrap_or_default();
    let info = match &o.dev {
        Some(name) => infos.into_iter().find(|d| &d.name == name),
        None => infos.into_iter().next(),
    }
    .unwrap_or_else(|| {
        eprintln!("No IB devices found");
        std::process::exit(1)
    });
    let ctx = Arc::new(Context::open(&info).unwrap_or_else(|e| {
        eprintln!("Couldn't get context for {}: {e}", info.name);
        std::process::exit(1)
    }));

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
    let mut routs = post_recvs(o.rx_depth);
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
    let psn = (std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.subsec_nanos() ^ std::process::id()))
        & 0xff_ffff;
    let mine = Dest {
        lid: port.lid,
        qpn: qp.qp_num(),
        psn,
        gid,
    };
    mine.show("local");

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
    rem.show("remote");

    // The run.
    let send = |qp: &uverbs::verbs::objects::Qp| {
        let wr = [SendWr::new(SEND_WRID, SendOp::Send).sg(&sge).signaled()];
        qp.post_send(&wr).expect("Couldn't post send");
    };
    let start = Instant::now();
    let mut pending = RECV_WRID;
    if o.server.is_some() {
        send(&qp);
        pending |= SEND_WRID;
    }
    let (mut rcnt, mut scnt) = (0u64, 0u64);
    let mut wc = [Wc::default(); 2];
    while rcnt < o.iters || scnt < o.iters {
        let n = cq.poll(&mut wc).expect("poll CQ failed");
        for w in &wc[..n] {
            if w.status != WcStatus::Success {
                eprintln!(
                    "Failed status {} ({}) for wr_id {}",
                    w.status,
                    w.status.as_raw(),
                    w.wr_id
                );
                std::process::exit(1);
            }
            match w.wr_id {
                SEND_WRID => scnt += 1,
                RECV_WRID => {
                    routs -= 1;
                    if routs <= 1 {
                        routs += post_recvs(o.rx_depth - routs);
                    }
                    rcnt += 1;
                }
                id => {
                    eprintln!("Completion for unknown wr_id {id}");
                    std::process::exit(1);
                }
            }
            pending &= !w.wr_id;
            if scnt < o.iters && pending == 0 {
                send(&qp);
                pending = RECV_WRID | SEND_WRID;
            }
        }
    }
    let usec = start.elapsed().as_secs_f64() * 1e6;
    let bytes = o.size as u64 * o.iters * 2;
    println!(
        "{bytes} bytes in {:.2} seconds = {:.2} Mbit/sec",
        usec / 1_000_000.0,
        bytes as f64 * 8.0 / usec
    );
    println!(
        "{} iters in {:.2} seconds = {:.2} usec/iter",
        o.iters,
        usec / 1_000_000.0,
        usec / o.iters as f64
    );
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
