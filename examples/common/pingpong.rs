//! What `rc_pingpong` and `ud_pingpong` share: the options of rdma-core's ping-pong
//! examples, the address each side tells the other over TCP
//! (`LID:QPN:PSN:GID` in hex, 52 bytes with its NUL), the device to open, and the
//! report lines.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{Ipv6Addr, TcpListener, TcpStream};
use std::sync::Arc;
use std::time::Instant;

use uverbs::verbs::datapath::Wc;
use uverbs::verbs::objects::Cq;
use uverbs::{Context, Gid, Mtu, WcStatus};

/// The address text: `%04x:%06x:%06x:` and 32 hex digits of the GID, then a NUL.
pub const MSG: usize = 52;

/// The work request id of every receive.
pub const RECV_WRID: u64 = 1;
/// The work request id of every send.
pub const SEND_WRID: u64 = 2;

/// The options both programs take (`ibv_rc_pingpong`'s and `ibv_ud_pingpong`'s).
pub struct Opts {
    pub port: u16,
    pub dev: Option<String>,
    pub ib_port: u8,
    pub size: usize,
    pub mtu: Mtu,
    pub rx_depth: u32,
    pub iters: u64,
    pub gid_idx: Option<u8>,
    pub check: bool,
    pub server: Option<String>,
}

/// The usage text, on stderr, and exit status 1.
pub fn usage(prog: &str, size: usize, with_mtu: bool) -> ! {
    eprintln!(
        "Usage:\n  {prog}            start a server and wait for connection\n  \
         {prog} <host>     connect to server at <host>\n\nOptions:\n  \
         -p, --port=<port>      listen on/connect to port <port> (default 18515)\n  \
         -d, --ib-dev=<dev>     use IB device <dev> (default first device found)\n  \
         -i, --ib-port=<port>   use port <port> of IB device (default 1)\n  \
         -s, --size=<size>      size of message to exchange (default {size})\n  \
         {mtu}-r, --rx-depth=<dep>   number of receives to post at a time (default 500)\n  \
         -n, --iters=<iters>    number of exchanges (default 1000)\n  \
         -g, --gid-idx=<gid index> local port gid index\n  \
         -c, --chk              validate received buffer",
        mtu = if with_mtu {
            "-m, --mtu=<size>       path MTU (default 1024)\n  "
        } else {
            ""
        },
    );
    std::process::exit(1)
}

/// Parses the command line; `size` is the default message size, `with_mtu` whether
/// `-m` is taken (RC; UD's messages fit the port's MTU).
pub fn parse(size: usize, with_mtu: bool) -> Opts {
    let args: Vec<String> = std::env::args().collect();
    let prog = args[0].rsplit('/').next().unwrap_or("pingpong").to_string();
    let mut o = Opts {
        port: 18515,
        dev: None,
        ib_port: 1,
        size,
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
                args.get(i)
                    .cloned()
                    .unwrap_or_else(|| usage(&prog, size, with_mtu))
            })
        };
        let num = |v: String| {
            v.parse::<u64>()
                .unwrap_or_else(|_| usage(&prog, size, with_mtu))
        };
        match flag {
            "-p" | "--port" => o.port = num(value()) as u16,
            "-d" | "--ib-dev" => o.dev = Some(value()),
            "-i" | "--ib-port" => o.ib_port = num(value()) as u8,
            "-s" | "--size" => o.size = num(value()) as usize,
            "-m" | "--mtu" if with_mtu => {
                o.mtu = match num(value()) {
                    256 => Mtu::Mtu256,
                    512 => Mtu::Mtu512,
                    1024 => Mtu::Mtu1024,
                    2048 => Mtu::Mtu2048,
                    4096 => Mtu::Mtu4096,
                    _ => usage(&prog, size, with_mtu),
                }
            }
            "-r" | "--rx-depth" => o.rx_depth = num(value()) as u32,
            "-n" | "--iters" => o.iters = num(value()),
            "-g" | "--gid-idx" => o.gid_idx = Some(num(value()) as u8),
            "-c" | "--chk" => o.check = true,
            _ if !a.starts_with('-') && o.server.is_none() => o.server = Some(a.to_string()),
            _ => usage(&prog, size, with_mtu),
        }
        i += 1;
    }
    o
}

/// One side's address, as the examples exchange it.
#[derive(Debug, Clone, Copy)]
pub struct Dest {
    pub lid: u16,
    pub qpn: u32,
    pub psn: u32,
    pub gid: Gid,
}

impl Dest {
    pub fn encode(&self) -> [u8; MSG] {
        let mut s = format!("{:04x}:{:06x}:{:06x}:", self.lid, self.qpn, self.psn);
        for b in self.gid.0 {
            s.push_str(&format!("{b:02x}"));
        }
        let mut m = [0u8; MSG];
        m[..s.len()].copy_from_slice(s.as_bytes());
        m
    }

    pub fn decode(m: &[u8; MSG]) -> Option<Dest> {
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

    /// Prints the address as the examples do; `gid_sep` is what comes before `GID` (a
    /// comma, but ibv_ud_pingpong's local line has a colon).
    pub fn show(&self, which: &str, gid_sep: char) {
        // (the examples align "local address:  LID" and "remote address: LID")
        let pad = if which == "local" { " " } else { "" };
        println!(
            "  {which} address: {pad}LID 0x{:04x}, QPN 0x{:06x}, PSN 0x{:06x}{gid_sep} GID {}",
            self.lid,
            self.qpn,
            self.psn,
            Ipv6Addr::from(self.gid.0)
        );
    }
}

/// The address exchange: the client writes first, the server answers once its QP is
/// ready, and the client closes with "done".
pub fn exchange(o: &Opts, mine: &Dest, ready: impl FnOnce(&Dest)) -> Dest {
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

/// Opens the device `-d` names, or the first one.
pub fn open(o: &Opts) -> Arc<Context> {
    let infos = uverbs::Discovery::new().devices().unwrap_or_default();
    let info = match &o.dev {
        Some(name) => infos.into_iter().find(|d| &d.name == name),
        None => infos.into_iter().next(),
    }
    .unwrap_or_else(|| {
        eprintln!("No IB devices found");
        std::process::exit(1)
    });
    Arc::new(Context::open(&info).unwrap_or_else(|e| {
        eprintln!("Couldn't get context for {}: {e}", info.name);
        std::process::exit(1)
    }))
}

/// A PSN for this run (24 bits).
pub fn psn() -> u32 {
    (std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.subsec_nanos() ^ std::process::id()))
        & 0xff_ffff
}

/// The ping-pong: the client (the side given a server's name) sends first; each side sends again once its last send
/// and a receive have completed, and posts receives again when one is left; then
/// the report. `routs` receives are posted already. Exits on a failed completion.
pub fn run(
    o: &Opts,
    cq: &Cq,
    mut send: impl FnMut(),
    mut post_recvs: impl FnMut(u32) -> u32,
    mut routs: u32,
) {
    let start = Instant::now();
    let mut pending = RECV_WRID;
    if o.server.is_some() {
        send();
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
                send();
                pending = RECV_WRID | SEND_WRID;
            }
        }
    }
    report(o, start);
}

/// The two report lines: bytes and bandwidth, iterations and latency.
fn report(o: &Opts, start: Instant) {
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
}
