//! The uverbs side of the side-by-side benchmark that `bench/run.sh` runs in the VM rig
//! next to `bench/ibv_loops.c` (the same loops through libibverbs).
//!
//! ```text
//! bench_loops loops DEV [BATCHES [SCALE [OPS]]]
//!     one line per batch:  R uverbs DEV OP NS_PER_OP
//!     OPS: comma-separated subset of the ops below (default: all);
//!     SCALE multiplies every op's iteration count.
//! bench_loops cold DEV
//!     from main(): Discovery + Context::open + query_port, the first of the process:
//!     C uverbs DEV disc_open_query_cold NS
//! ```
//!
//! `floor_qp`/`query_port` and `floor_qd`/`query_device` run as back-to-back pairs of
//! short batches, and each pair also prints `Q uverbs DEV OP RATIO` (op / floor).
//!
//! Ops: `floor_qp` (a QUERY_PORT ioctl built once with `method::query_port` and issued
//! again and again through `Context::ioctl` on the context's fd: no building, no
//! decoding), `query_port`, `floor_qd` (the same for INVOKE_WRITE of the extended
//! QUERY_DEVICE), `query_device`, `gid_table`, `gid_entry`, `cached_qp`
//! (`PortCache::query_port`), `cache_peek` (`PortCache::peek`, no system call),
//! `open_close` (`Context::open` + drop), `disc_open_query` (`Discovery::devices` +
//! `Context::open` + `query_port` + drop, warm: repeated in one process).
//!
//! Profile ops (uverbs only; they split the ops above into their parts): `build_qp`
//! (`method::query_port` alone), `decode_port` (`PortAttr::from_resp` of a real
//! answer), `decode_device` (`DeviceAttr::from_ex_bytes` of a real answer),
//! `fw_format` (`driver::format_fw_ver`, which `query_device` runs per call),
//! `floor_gid_table` (QUERY_GID_TABLE built once into a buffer allocated once),
//! `gid_scan` (`query_gid` of every index of port 1, as `ibv_devinfo -v` does),
//! `gid_buf_alloc` (allocating and zeroing the raw buffer `query_gid_table` uses),
//! `disc` (`Discovery::devices` alone), `lean_open_query` (what discovery + open + first
//! answer costs with netlink alone: the nldev dump, one GET_CHARDEV, `open_target`,
//! `query_port`; no sysfs). `cold` prints `disc_cold` (discovery alone, first of the
//! process) too, and `cold-lean DEV` times the lean path as the first of a process.
//!
//! Build: `cargo build --release --target x86_64-unknown-linux-musl --example bench_loops`.

use std::process::exit;
use std::time::Instant;

use uverbs::abi::{
    ib_uverbs_ex_query_device, ib_uverbs_ex_query_device_resp, ib_uverbs_gid_entry,
    ib_uverbs_query_port_resp_ex, IB_USER_VERBS_CMD_FLAG_EXTENDED,
    IB_USER_VERBS_EX_CMD_QUERY_DEVICE,
};
use uverbs::discover::netlink as nl;
use uverbs::{
    method, Context, DeviceAttr, DeviceInfo, Discovery, FwVersion, OpenTarget, PortAttr, PortCache,
};
use zerocopy::IntoBytes;

struct Bench {
    dev: String,
    scale: f64,
    ops: Option<Vec<String>>,
}

impl Bench {
    fn wanted(&self, op: &str) -> bool {
        self.ops
            .as_ref()
            .map_or(true, |v| v.iter().any(|o| o == op))
    }

    /// Times `iters * scale` runs of `f` as one batch and prints the ns per run.
    fn batch(&self, op: &str, iters: u64, mut f: impl FnMut()) {
        if !self.wanted(op) {
            return;
        }
        let n = ((iters as f64 * self.scale) as u64).max(1);
        let t0 = Instant::now();
        for _ in 0..n {
            f();
        }
        let ns = t0.elapsed().as_nanos() as f64 / n as f64;
        println!("R uverbs {} {op} {ns:.1}", self.dev);
    }
}

/// Runs `n` iterations of `f` and returns the ns per iteration.
fn timed(n: u64, f: &mut impl FnMut()) -> f64 {
    let t0 = Instant::now();
    for _ in 0..n {
        f();
    }
    t0.elapsed().as_nanos() as f64 / n as f64
}

impl Bench {
    /// `op` against its floor, in `PAIRS` back-to-back pairs of short batches (the
    /// order alternating), so that both see the same moment of a noisy host. Prints
    /// both batches (R lines) and, per pair, the ratio op / floor (a Q line).
    fn pair(
        &self,
        floor_op: &str,
        op: &str,
        iters: u64,
        mut floor: impl FnMut(),
        mut f: impl FnMut(),
    ) {
        const PAIRS: usize = 25;
        if !self.wanted(op) && !self.wanted(floor_op) {
            return;
        }
        let n = ((iters as f64 * self.scale) as u64).max(1);
        for i in 0..PAIRS {
            let (fl, t) = if i % 2 == 0 {
                let fl = timed(n, &mut floor);
                (fl, timed(n, &mut f))
            } else {
                let t = timed(n, &mut f);
                (timed(n, &mut floor), t)
            };
            println!("R uverbs {} {floor_op} {fl:.1}", self.dev);
            println!("R uverbs {} {op} {t:.1}", self.dev);
            println!("Q uverbs {} {op} {:.4}", self.dev, t / fl);
        }
    }
}

fn fail(what: &str, e: impl std::fmt::Display) -> ! {
    eprintln!("bench_loops: {what}: {e}");
    exit(1)
}

fn find(name: &str) -> DeviceInfo {
    let devs = Discovery::new()
        .devices()
        .unwrap_or_else(|e| fail("discovery", e));
    devs.into_iter()
        .find(|d| d.name == name)
        .unwrap_or_else(|| fail(name, "no such device"))
}

/// Discovery + open with netlink alone: the nldev dump, GET_CHARDEV of the one device,
/// and the open (no sysfs reads at all).
fn lean_open(name: &str) -> Context {
    let mut s = nl::NlSocket::open().unwrap_or_else(|e| fail("netlink", e));
    let seq = s.fresh_seq();
    let dump = s
        .raw_exchange(&nl::get_dump_request(seq), seq, nl::TYPE_GET)
        .unwrap_or_else(|e| fail("nldev GET", e));
    let mut found = None;
    for dg in &dump {
        for m in nl::messages(dg).flatten() {
            if m.header.nlmsg_type != nl::TYPE_GET {
                continue;
            }
            let d = nl::parse_device(m.payload).unwrap_or_else(|e| fail("nldev GET", e));
            if d.name == name {
                found = Some((
                    d.index,
                    d.port_count,
                    d.fw_version.unwrap_or("").to_string(),
                ));
            }
        }
    }
    let (index, port_count, fw_text) = found.unwrap_or_else(|| fail(name, "no such device"));
    let seq = s.fresh_seq();
    let answer = s
        .raw_exchange(
            &nl::get_chardev_request(seq, index),
            seq,
            nl::TYPE_GET_CHARDEV,
        )
        .unwrap_or_else(|e| fail("nldev GET_CHARDEV", e));
    let mut target = None;
    for dg in &answer {
        for m in nl::messages(dg).flatten() {
            if m.header.nlmsg_type != nl::TYPE_GET_CHARDEV {
                continue;
            }
            let c = nl::parse_chardev(m.payload).unwrap_or_else(|e| fail("GET_CHARDEV", e));
            target = Some(OpenTarget {
                name: name.to_string(),
                path: format!("/dev/infiniband/{}", c.name).into(),
                dev: Some((c.major, c.minor)),
                driver_id: c.driver_id,
                driver_id_guess: None,
                fw_text: fw_text.clone(),
                port_count: Some(port_count),
                sysfs_root: "/sys".into(),
            });
        }
    }
    let target = target.unwrap_or_else(|| fail(name, "no uverbs chardev"));
    Context::open_target(&target).unwrap_or_else(|e| fail("open", e))
}

fn loops(b: &Bench, batches: u32) {
    let info = find(&b.dev);
    let ctx = Context::open(&info).unwrap_or_else(|e| fail("open", e));
    let port = ctx.query_port(1).unwrap_or_else(|e| fail("query_port", e));
    let max_gids = (port.gid_tbl_len as usize).max(1);

    // The floors: requests built once, issued as they are.
    let mut qp_resp = ib_uverbs_query_port_resp_ex::default();
    let mut qp_req = method::query_port(ctx.driver_id(), 1, &mut qp_resp);
    let qd_cmd = ib_uverbs_ex_query_device::default();
    let mut qd_resp = ib_uverbs_ex_query_device_resp::default();
    let mut qd_req = method::invoke_write(
        ctx.driver_id(),
        IB_USER_VERBS_EX_CMD_QUERY_DEVICE | IB_USER_VERBS_CMD_FLAG_EXTENDED,
        qd_cmd.as_bytes(),
        qd_resp.as_mut_bytes(),
    );
    let mut cache = PortCache::new(&ctx).unwrap_or_else(|e| fail("PortCache::new", e));
    let mut gid_raw = vec![ib_uverbs_gid_entry::default(); max_gids];
    let mut gid_n = 0u64;
    let mut gid_req = method::query_gid_table(ctx.driver_id(), &mut gid_raw, &mut gid_n);

    // Every call once before timing (and the floors twice: a request whose outputs the
    // kernel has marked valid must be accepted again as it is).
    for _ in 0..2 {
        ctx.ioctl(&mut qp_req)
            .unwrap_or_else(|e| fail("floor QUERY_PORT", e));
        ctx.ioctl(&mut qd_req)
            .unwrap_or_else(|e| fail("floor INVOKE_WRITE", e));
        ctx.ioctl(&mut gid_req)
            .unwrap_or_else(|e| fail("floor QUERY_GID_TABLE", e));
    }
    // Real answers, for the decode-only ops.
    let mut port_answer = ib_uverbs_query_port_resp_ex::default();
    let mut buf = method::query_port(ctx.driver_id(), 1, &mut port_answer);
    ctx.ioctl(&mut buf)
        .unwrap_or_else(|e| fail("QUERY_PORT", e));
    let mut dev_answer = ib_uverbs_ex_query_device_resp::default();
    let mut buf = method::invoke_write(
        ctx.driver_id(),
        IB_USER_VERBS_EX_CMD_QUERY_DEVICE | IB_USER_VERBS_CMD_FLAG_EXTENDED,
        qd_cmd.as_bytes(),
        dev_answer.as_mut_bytes(),
    );
    ctx.ioctl(&mut buf)
        .unwrap_or_else(|e| fail("INVOKE_WRITE", e));
    let fw = FwVersion::new(&info.fw_ver);
    ctx.query_device()
        .unwrap_or_else(|e| fail("query_device", e));
    ctx.query_gid_table(max_gids)
        .unwrap_or_else(|e| fail("query_gid_table", e));
    ctx.query_gid(1, 0).unwrap_or_else(|e| fail("query_gid", e));
    cache
        .query_port(1)
        .unwrap_or_else(|e| fail("PortCache::query_port", e));

    for _ in 0..batches {
        b.pair(
            "floor_qp",
            "query_port",
            20,
            || {
                if let Err(e) = ctx.ioctl(&mut qp_req) {
                    fail("floor QUERY_PORT", e)
                }
            },
            || match ctx.query_port(1) {
                Ok(p) => {
                    std::hint::black_box(p);
                }
                Err(e) => fail("query_port", e),
            },
        );
        b.batch("build_qp", 20_000, || {
            let mut resp = ib_uverbs_query_port_resp_ex::default();
            let buf = method::query_port(ctx.driver_id(), std::hint::black_box(1), &mut resp);
            std::hint::black_box(&buf);
        });
        b.batch("decode_port", 20_000, || {
            std::hint::black_box(PortAttr::from_resp(std::hint::black_box(&port_answer)));
        });
        b.batch("decode_device", 20_000, || {
            std::hint::black_box(DeviceAttr::from_ex_bytes(
                std::hint::black_box(dev_answer.as_bytes()),
                fw,
            ));
        });
        b.pair(
            "floor_qd",
            "query_device",
            20,
            || {
                if let Err(e) = ctx.ioctl(&mut qd_req) {
                    fail("floor INVOKE_WRITE", e)
                }
            },
            || match ctx.query_device() {
                Ok(d) => {
                    std::hint::black_box(d);
                }
                Err(e) => fail("query_device", e),
            },
        );
        b.batch("gid_table", 300, || match ctx.query_gid_table(max_gids) {
            Ok(v) => {
                std::hint::black_box(v);
            }
            Err(e) => fail("query_gid_table", e),
        });
        b.batch("fw_format", 20_000, || {
            std::hint::black_box(uverbs::driver::format_fw_ver(
                ctx.driver_id(),
                std::hint::black_box(dev_answer.base.fw_ver),
                &info.fw_ver,
            ));
        });
        // (a whole table per run; about 500 queries per batch whatever its length)
        b.batch(
            "gid_scan",
            u64::from((512 / port.gid_tbl_len.max(1)).max(1)),
            || {
                for i in 0..port.gid_tbl_len {
                    if let Err(e) = ctx.query_gid(1, i) {
                        fail("query_gid", e)
                    }
                }
            },
        );
        b.batch("gid_buf_alloc", 300, || {
            std::hint::black_box(vec![ib_uverbs_gid_entry::default(); max_gids]);
        });
        b.batch("floor_gid_table", 300, || {
            if let Err(e) = ctx.ioctl(&mut gid_req) {
                fail("floor QUERY_GID_TABLE", e)
            }
        });
        b.batch("gid_entry", 500, || match ctx.query_gid(1, 0) {
            Ok(g) => {
                std::hint::black_box(g);
            }
            Err(e) => fail("query_gid", e),
        });
        b.batch("cached_qp", 2000, || match cache.query_port(1) {
            Ok(p) => {
                std::hint::black_box(p);
            }
            Err(e) => fail("PortCache::query_port", e),
        });
        b.batch("cache_peek", 100_000, || {
            std::hint::black_box(cache.peek(std::hint::black_box(1)));
        });
        b.batch("open_close", 10, || match Context::open(&info) {
            Ok(c) => drop(c),
            Err(e) => fail("open", e),
        });
        b.batch("disc", 5, || {
            std::hint::black_box(
                Discovery::new()
                    .devices()
                    .unwrap_or_else(|e| fail("discovery", e)),
            );
        });
        b.batch("disc_open_query", 5, || {
            let info = find(&b.dev);
            let c = Context::open(&info).unwrap_or_else(|e| fail("open", e));
            std::hint::black_box(c.query_port(1).unwrap_or_else(|e| fail("query_port", e)));
        });
        b.batch("lean_open_query", 5, || {
            let c = lean_open(&b.dev);
            std::hint::black_box(c.query_port(1).unwrap_or_else(|e| fail("query_port", e)));
        });
    }
}

fn cold(dev: &str) {
    let t0 = Instant::now();
    let info = find(dev);
    let t_disc = t0.elapsed().as_nanos();
    let ctx = Context::open(&info).unwrap_or_else(|e| fail("open", e));
    let p = ctx.query_port(1);
    let ns = t0.elapsed().as_nanos();
    p.unwrap_or_else(|e| fail("query_port", e));
    println!("C uverbs {dev} disc_cold {t_disc}");
    println!("C uverbs {dev} disc_open_query_cold {ns}");
}

fn cold_lean(dev: &str) {
    let t0 = Instant::now();
    let ctx = lean_open(dev);
    let p = ctx.query_port(1);
    let ns = t0.elapsed().as_nanos();
    p.unwrap_or_else(|e| fail("query_port", e));
    println!("C uverbs {dev} lean_open_query_cold {ns}");
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: bench_loops loops DEV [BATCHES [SCALE [OPS]]] | cold DEV | cold-lean DEV";
    if args.len() < 3 {
        fail("arguments", usage);
    }
    match args[1].as_str() {
        "cold" => cold(&args[2]),
        "cold-lean" => cold_lean(&args[2]),
        "loops" => {
            let num = |i: usize, d: f64| -> f64 {
                args.get(i)
                    .map(|s| s.parse().unwrap_or_else(|_| fail("arguments", usage)))
                    .unwrap_or(d)
            };
            let b = Bench {
                dev: args[2].clone(),
                scale: num(4, 1.0),
                ops: args
                    .get(5)
                    .filter(|s| !s.is_empty() && *s != "all")
                    .map(|s| s.split(',').map(str::to_string).collect()),
            };
            loops(&b, num(3, 21.0) as u32);
        }
        _ => fail("arguments", usage),
    }
}
