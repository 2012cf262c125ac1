//! The uverbs side of the side-by-side benchmark that `bench/run.sh` runs in the VM rig
//! next to `bench/ibv_loops.c` (the same loops through libibverbs).
//!
//! ```text
//! bench_loops loops DEV [BATCHES [SCALE [OPS]]]
//!     one line per batch:  R uverbs DEV OP NS_PER_OP
//!     OPS: comma-separated subset of the ops below (default: all);
//!     SCALE multiplies every op's iteration count.
//! bench_loops cold DEV
//!     from main(), the first of the process, the path a user writes:
//!     Discovery::new().device(DEV) + Context::open + query_port(1):
//!     C uverbs DEV disc_cold NS                    (Discovery::device alone)
//!     C uverbs DEV disc_open_query_cold NS
//!     then the same again in the process, and the first round's minor page faults:
//!     C uverbs DEV disc_open_query_second NS
//!     C uverbs DEV disc_open_query_cold_minflt N
//!     (with `once` after DEV: the first round only, no second round and no minflt line)
//! bench_loops cold-all DEV
//!     the same through Discovery::devices (every device) and a search by name:
//!     disc_all_cold, disc_all_open_query_cold, disc_all_open_query_second, ..._minflt
//! bench_loops cold-lean DEV
//!     the same with netlink requests built by hand (no library discovery at all):
//!     lean_open_query_cold, lean_open_query_second, lean_open_query_cold_minflt
//! bench_loops count DEV OP N
//!     N calls of OP and nothing else that depends on N (no clock, no output), after
//!     the same set-up whatever N and OP: for bench/hotcalls.sh, which counts the run's
//!     instructions under callgrind at two N and takes the difference over the
//!     difference of N. OP: floor_qp, query_port, floor_qd, query_device,
//!     query_device_into, floor_gid_table (the full table's request, prebuilt),
//!     gid_table (`query_gid_table_into` a `GidTable` of gid_tbl_len entries made once,
//!     every entry read), gid_table_vec (`query_gid_table(gid_tbl_len)`, allocating),
//!     gid_entry (`query_gid(1, 0)`)
//! ```
//!
//! `floor_qp`/`query_port`, `floor_qd`/`query_device` and `floor_qd`/`query_device_into`
//! run as back-to-back pairs of short batches, and each pair also prints
//! `Q uverbs DEV OP RATIO` (op / floor). After each of `floor_qp` and `floor_qd`'s
//! pairs, as many A/A pairs: the floor against a second copy of itself (the same
//! request built again, its own buffers), printing only `Q uverbs DEV floor_qp_aa RATIO`
//! (`floor_qd_aa`): the rig's own spread, which bench/run.sh judges the targets by.
//!
//! Ops: `floor_qp` (a QUERY_PORT ioctl built once with `method::query_port` and issued
//! again and again through `VerbsFile::call` on the context's fd: no building, no
//! decoding), `query_port`, `floor_qd` (the same for INVOKE_WRITE of the extended
//! QUERY_DEVICE), `query_device`, `query_device_into` (the same query into a
//! `DeviceAnswer` reused from call to call, decoded only when read), `gid_table` (`query_gid_table(gid_tbl_len)`),
//! `gid_entry`, `gid_scan` (`query_gid` of every index of port 1, as `ibv_devinfo -v`
//! does), `cached_qp` (`PortCache::query_port`, the strict cache: one `read(2)` per
//! query), `cache_peek` (`PortCache::peek`, no system call), `watched_qp`
//! (`WatchedPortCache::query_port`: from memory, a watcher thread applies the events),
//! `open_close` (`Context::open` + drop), `disc` (`Discovery::devices`, every device),
//! `disc_one` (`Discovery::device(DEV)`), `disc_open_query` (`Discovery::device(DEV)` +
//! `Context::open` + `query_port(1)` + drop, warm: repeated in one process),
//! `disc_all_open_query` (the same through `Discovery::devices` and a search by name).
//!
//! Profile ops (uverbs only; they split the ops above into their parts): `build_qp`
//! (`method::query_port` alone), `decode_port` (`PortAttr::from_resp` of a real
//! answer), `build_qd` (a zeroed QUERY_DEVICE response buffer and `method::query_device_ex`,
//! what `query_device` does before its ioctl), `decode_device` (`DeviceAttr::from_ex` of
//! a real answer, in place, as `query_device` now decodes), `floor_gid_table`
//! (QUERY_GID_TABLE built once into a buffer of `min(gid_tbl_len, 64)` entries: the
//! call `query_gid_table` makes first), `floor_gid_table_full` (the same with a
//! `gid_tbl_len`-entry buffer, what libibverbs is asked for), `disc_details`
//! (`Discovery::sysfs_details(true).devices()`, the discovery the CLI asks for),
//! `lean_open_query` (discovery + open + first answer with netlink requests built by
//! hand: the nldev dump, one GET_CHARDEV, `open_target`, `query_port`; a floor for
//! `disc_open_query`), `rwlock_copy` (a `std::sync::RwLock` read of a port vector and a
//! copy of one entry: what `WatchedPortCache::query_port` does after its checks),
//! `gen_copy` (one atomic load of a generation and a copy from a vector the reader
//! owns: what a per-reader handle would cost instead).
//!
//! Build: `cargo build --release --target x86_64-unknown-linux-musl --example bench_loops`.

use std::process::exit;
use std::sync::Arc;
use std::time::Instant;

use uverbs::netlink as nl;
use uverbs::raw::abi::{
    ib_uverbs_ex_query_device, ib_uverbs_ex_query_device_resp, ib_uverbs_gid_entry,
    ib_uverbs_query_port_resp_ex,
};
use uverbs::{
    raw::method, Context, DeviceAnswer, DeviceAttr, DeviceInfo, Discovery, FwVersion, OpenTarget,
    PortAttr, PortCache, WatchedPortCache,
};

/// The entries `Context::query_gid_table` asks the kernel for first (its stack buffer).
const GID_TABLE_FIRST: usize = 64;

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
    fn pair(&self, floor_op: &str, op: &str, iters: u64, floor: impl FnMut(), f: impl FnMut()) {
        if !self.wanted(op) && !self.wanted(floor_op) {
            return;
        }
        self.pairs(iters, floor, f, |fl, t| {
            println!("R uverbs {} {floor_op} {fl:.1}", self.dev);
            println!("R uverbs {} {op} {t:.1}", self.dev);
            println!("Q uverbs {} {op} {:.4}", self.dev, t / fl);
        });
    }

    /// The rig's own spread (A/A) for `floor_op`: the floor against a second copy of
    /// itself, in pairs as [`Bench::pair`] runs them. Prints per pair only the ratio
    /// copy / floor, as `Q uverbs DEV {floor_op}_aa RATIO` (1.0 on a rig without noise).
    fn aa(&self, floor_op: &str, iters: u64, floor: impl FnMut(), copy: impl FnMut()) {
        if !self.wanted(floor_op) {
            return;
        }
        self.pairs(iters, floor, copy, |fl, t| {
            println!("Q uverbs {} {floor_op}_aa {:.4}", self.dev, t / fl);
        });
    }

    /// `PAIRS` back-to-back pairs of short batches of `a` and `b`, the order
    /// alternating; `report` gets each pair's ns per run of `a` and of `b`.
    fn pairs(
        &self,
        iters: u64,
        mut a: impl FnMut(),
        mut b: impl FnMut(),
        mut report: impl FnMut(f64, f64),
    ) {
        const PAIRS: usize = 25;
        let n = ((iters as f64 * self.scale) as u64).max(1);
        for i in 0..PAIRS {
            let (ta, tb) = if i % 2 == 0 {
                let ta = timed(n, &mut a);
                (ta, timed(n, &mut b))
            } else {
                let tb = timed(n, &mut b);
                (timed(n, &mut a), tb)
            };
            report(ta, tb);
        }
    }
}

fn fail(what: &str, e: impl std::fmt::Display) -> ! {
    eprintln!("bench_loops: {what}: {e}");
    exit(1)
}

/// The natural lookup of one device: netlink, GET_CHARDEV for that device only.
fn find(name: &str) -> DeviceInfo {
    Discovery::new()
        .device(name)
        .unwrap_or_else(|e| fail(name, e))
}

/// Every device (`Discovery::devices`), then the one called `name`.
fn find_in_all(name: &str) -> DeviceInfo {
    let devs = Discovery::new()
        .devices()
        .unwrap_or_else(|e| fail("discovery", e));
    devs.into_iter()
        .find(|d| d.name == name)
        .unwrap_or_else(|| fail(name, "no such device"))
}

fn open(info: &DeviceInfo) -> Context {
    Context::open(info).unwrap_or_else(|e| fail("open", e))
}

fn query1(c: &Context) -> PortAttr {
    c.query_port(1).unwrap_or_else(|e| fail("query_port", e))
}

/// The steps of [`lean_open`], for the timing breakdown of `cold-lean`.
const LEAN_STEPS: [&str; 4] = ["socket", "dump", "chardev", "open"];

/// Discovery + open with netlink alone: the nldev dump, GET_CHARDEV of the one device,
/// and the open (no sysfs reads at all). `marks` gets the time each of [`LEAN_STEPS`]
/// ended.
fn lean_open(name: &str, marks: &mut [Option<Instant>; 4]) -> Context {
    let mut s = nl::NlSocket::open().unwrap_or_else(|e| fail("netlink", e));
    marks[0] = Some(Instant::now());
    let seq = s.fresh_seq();
    let dump = s
        .raw_exchange(
            nl::nldev::get_dump_request(seq).bytes(),
            seq,
            nl::nldev::TYPE_GET,
        )
        .unwrap_or_else(|e| fail("nldev GET", e));
    let mut found = None;
    for dg in &dump {
        for m in nl::messages(dg).flatten() {
            if m.header.nlmsg_type != nl::nldev::TYPE_GET {
                continue;
            }
            let d = nl::nldev::parse_device(m.payload).unwrap_or_else(|e| fail("nldev GET", e));
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
    marks[1] = Some(Instant::now());
    let seq = s.fresh_seq();
    let answer = s
        .raw_exchange(
            nl::nldev::get_chardev_request(seq, index).bytes(),
            seq,
            nl::nldev::TYPE_GET_CHARDEV,
        )
        .unwrap_or_else(|e| fail("nldev GET_CHARDEV", e));
    let mut target = None;
    for dg in &answer {
        for m in nl::messages(dg).flatten() {
            if m.header.nlmsg_type != nl::nldev::TYPE_GET_CHARDEV {
                continue;
            }
            let c = nl::nldev::parse_chardev(m.payload).unwrap_or_else(|e| fail("GET_CHARDEV", e));
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
    marks[2] = Some(Instant::now());
    let c = Context::open_target(&target).unwrap_or_else(|e| fail("open", e));
    marks[3] = Some(Instant::now());
    c
}

fn loops(b: &Bench, batches: u32) {
    let info = find(&b.dev);
    let ctx = Arc::new(open(&info));
    let port = query1(&ctx);
    let max_gids = (port.gid_tbl_len as usize).max(1);

    // The floors: requests built once, issued as they are.
    let mut qp_resp = ib_uverbs_query_port_resp_ex::default();
    let mut qp_req = method::query_port(ctx.driver_id(), 1, &mut qp_resp);
    let qd_cmd = ib_uverbs_ex_query_device::default();
    let mut qd_resp = ib_uverbs_ex_query_device_resp::default();
    let mut qd_req = method::query_device_ex(ctx.driver_id(), &qd_cmd, &mut qd_resp);
    // Second copies of those two floors, for the A/A pairs (built the same way, their
    // own buffers).
    let mut qp_resp_aa = ib_uverbs_query_port_resp_ex::default();
    let mut qp_req_aa = method::query_port(ctx.driver_id(), 1, &mut qp_resp_aa);
    let mut qd_resp_aa = ib_uverbs_ex_query_device_resp::default();
    let mut qd_req_aa = method::query_device_ex(ctx.driver_id(), &qd_cmd, &mut qd_resp_aa);
    let mut cache = PortCache::new(&*ctx).unwrap_or_else(|e| fail("PortCache::new", e));
    let watched =
        WatchedPortCache::new(ctx.clone()).unwrap_or_else(|e| fail("WatchedPortCache::new", e));
    let mut gid_raw = vec![ib_uverbs_gid_entry::default(); max_gids.min(GID_TABLE_FIRST)];
    let mut gid_n = 0u64;
    let mut gid_req = method::query_gid_table(ctx.driver_id(), &mut gid_raw, &mut gid_n);
    let mut gid_raw_full = vec![ib_uverbs_gid_entry::default(); max_gids];
    let mut gid_n_full = 0u64;
    let mut gid_req_full =
        method::query_gid_table(ctx.driver_id(), &mut gid_raw_full, &mut gid_n_full);

    // Every call once before timing (and the floors twice: a request whose outputs the
    // kernel has marked valid must be accepted again as it is).
    for _ in 0..2 {
        ctx.raw()
            .call(&mut qp_req)
            .unwrap_or_else(|e| fail("floor QUERY_PORT", e));
        ctx.raw()
            .call(&mut qd_req)
            .unwrap_or_else(|e| fail("floor INVOKE_WRITE", e));
        ctx.raw()
            .call(&mut qp_req_aa)
            .unwrap_or_else(|e| fail("floor QUERY_PORT (copy)", e));
        ctx.raw()
            .call(&mut qd_req_aa)
            .unwrap_or_else(|e| fail("floor INVOKE_WRITE (copy)", e));
        ctx.raw()
            .call(&mut gid_req)
            .unwrap_or_else(|e| fail("floor QUERY_GID_TABLE", e));
        ctx.raw()
            .call(&mut gid_req_full)
            .unwrap_or_else(|e| fail("floor QUERY_GID_TABLE (full)", e));
    }
    // Real answers, for the decode-only ops.
    let mut port_answer = ib_uverbs_query_port_resp_ex::default();
    let mut buf = method::query_port(ctx.driver_id(), 1, &mut port_answer);
    ctx.raw()
        .call(&mut buf)
        .unwrap_or_else(|e| fail("QUERY_PORT", e));
    let mut dev_answer = ib_uverbs_ex_query_device_resp::default();
    let mut buf = method::query_device_ex(ctx.driver_id(), &qd_cmd, &mut dev_answer);
    ctx.raw()
        .call(&mut buf)
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
    watched
        .query_port(1)
        .unwrap_or_else(|e| fail("WatchedPortCache::query_port", e));

    let mut answer = DeviceAnswer::default();
    ctx.query_device_into(&mut answer)
        .unwrap_or_else(|e| fail("query_device_into", e));
    let own: Vec<Option<PortAttr>> = vec![Some(port)];
    let lock = std::sync::RwLock::new(own.clone());
    let generation = std::sync::atomic::AtomicU64::new(0);
    let valid = ctx
        .query_gid_table(max_gids)
        .unwrap_or_else(|e| fail("query_gid_table", e))
        .len();
    println!("I gids {} {} {valid}", b.dev, port.gid_tbl_len);
    println!(
        "I sizeof DeviceAttr {} PortAttr {}",
        std::mem::size_of::<DeviceAttr>(),
        std::mem::size_of::<PortAttr>()
    );
    for _ in 0..batches {
        b.pair(
            "floor_qp",
            "query_port",
            20,
            || {
                if let Err(e) = ctx.raw().call(&mut qp_req) {
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
        b.aa(
            "floor_qp",
            20,
            || {
                if let Err(e) = ctx.raw().call(&mut qp_req) {
                    fail("floor QUERY_PORT", e)
                }
            },
            || {
                if let Err(e) = ctx.raw().call(&mut qp_req_aa) {
                    fail("floor QUERY_PORT (copy)", e)
                }
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
        b.pair(
            "floor_qd",
            "query_device",
            20,
            || {
                if let Err(e) = ctx.raw().call(&mut qd_req) {
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
        b.pair(
            "floor_qd",
            "query_device_into",
            20,
            || {
                if let Err(e) = ctx.raw().call(&mut qd_req) {
                    fail("floor INVOKE_WRITE", e)
                }
            },
            || match ctx.query_device_into(&mut answer) {
                Ok(()) => {
                    std::hint::black_box(&answer);
                }
                Err(e) => fail("query_device_into", e),
            },
        );
        b.aa(
            "floor_qd",
            20,
            || {
                if let Err(e) = ctx.raw().call(&mut qd_req) {
                    fail("floor INVOKE_WRITE", e)
                }
            },
            || {
                if let Err(e) = ctx.raw().call(&mut qd_req_aa) {
                    fail("floor INVOKE_WRITE (copy)", e)
                }
            },
        );
        b.batch("build_qd", 20_000, || {
            let mut resp = ib_uverbs_ex_query_device_resp::default();
            let cmd = ib_uverbs_ex_query_device::default();
            let buf = method::query_device_ex(ctx.driver_id(), &cmd, &mut resp);
            std::hint::black_box(&buf);
        });
        b.batch("decode_device", 20_000, || {
            std::hint::black_box(DeviceAttr::from_ex(std::hint::black_box(&dev_answer), fw));
        });
        b.batch("gid_table", 300, || match ctx.query_gid_table(max_gids) {
            Ok(v) => {
                std::hint::black_box(v);
            }
            Err(e) => fail("query_gid_table", e),
        });
        b.batch("floor_gid_table", 300, || {
            if let Err(e) = ctx.raw().call(&mut gid_req) {
                fail("floor QUERY_GID_TABLE", e)
            }
        });
        b.batch("floor_gid_table_full", 300, || {
            if let Err(e) = ctx.raw().call(&mut gid_req_full) {
                fail("floor QUERY_GID_TABLE (full)", e)
            }
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
        let mut reader = watched.reader();
        b.batch("watched_reader", 100_000, || {
            match reader.query_port(std::hint::black_box(1)) {
                Ok(p) => {
                    std::hint::black_box(p);
                }
                Err(e) => fail("PortReader::query_port", e),
            }
        });
        b.batch("watched_qp", 100_000, || {
            match watched.query_port(std::hint::black_box(1)) {
                Ok(p) => {
                    std::hint::black_box(p);
                }
                Err(e) => fail("WatchedPortCache::query_port", e),
            }
        });
        // What WatchedPortCache::query_port does after its checks (a read lock and a
        // copy), and what a reader that keeps its own copy would do instead (one atomic
        // load of a generation, then a copy): the cost of the lock, apart.
        b.batch("rwlock_copy", 100_000, || {
            let v = lock.read().unwrap_or_else(|p| p.into_inner());
            std::hint::black_box(v.get(std::hint::black_box(0)).copied().flatten());
        });
        b.batch("gen_copy", 100_000, || {
            let g = generation.load(std::sync::atomic::Ordering::Acquire);
            if g != std::hint::black_box(0) {
                fail("generation", g);
            }
            std::hint::black_box(own.get(std::hint::black_box(0)).copied().flatten());
        });
        b.batch("open_close", 10, || drop(open(&info)));
        b.batch("disc", 5, || {
            std::hint::black_box(
                Discovery::new()
                    .devices()
                    .unwrap_or_else(|e| fail("discovery", e)),
            );
        });
        b.batch("disc_one", 5, || {
            std::hint::black_box(find(&b.dev));
        });
        b.batch("disc_details", 5, || {
            std::hint::black_box(
                Discovery::new()
                    .sysfs_details(true)
                    .devices()
                    .unwrap_or_else(|e| fail("discovery (sysfs details)", e)),
            );
        });
        b.batch("disc_open_query", 5, || {
            let c = open(&find(&b.dev));
            std::hint::black_box(query1(&c));
        });
        b.batch("disc_all_open_query", 5, || {
            let c = open(&find_in_all(&b.dev));
            std::hint::black_box(query1(&c));
        });
        b.batch("lean_open_query", 5, || {
            let c = lean_open(&b.dev, &mut [None; 4]);
            std::hint::black_box(query1(&c));
        });
    }
    if watched.updates() != 0 {
        eprintln!(
            "bench_loops: {}: the watcher refreshed the ports {} times during the run",
            b.dev,
            watched.updates()
        );
    }
}

/// Minor page faults of this process so far (`/proc/self/stat`, field 10).
fn minflt() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    // state ppid pgrp session tty_nr tpgid flags minflt
    rest.split_whitespace().nth(7)?.parse().ok()
}

/// Discovery + open + `query_port(1)` as the first of the process, then again in the
/// same process: what the first round costs over the second is first-execution cost
/// (page faults, and under TCG the translation of code run for the first time).
/// `step` discovers and opens, and says when its discovery part ended. Prints
/// `C uverbs DEV {label}_cold NS`, `{label}_second NS`, `{label}_cold_minflt N`, and
/// `{disc}_cold NS` (discovery alone, first round) when `disc` is given.
fn cold_path(
    dev: &str,
    once: bool,
    label: &str,
    disc: Option<&str>,
    step: impl Fn() -> (Context, Instant),
) {
    let round = || {
        let t0 = Instant::now();
        let (ctx, t_disc) = step();
        let p = ctx.query_port(1);
        let ns = t0.elapsed().as_nanos();
        p.unwrap_or_else(|e| fail("query_port", e));
        (t_disc.duration_since(t0).as_nanos(), ns)
    };
    let f0 = minflt();
    let (disc_ns, ns) = round();
    let f1 = minflt();
    if let Some(d) = disc {
        println!("C uverbs {dev} {d}_cold {disc_ns}");
    }
    println!("C uverbs {dev} {label}_cold {ns}");
    if once {
        return;
    }
    let (_, second) = round();
    println!("C uverbs {dev} {label}_second {second}");
    if let (Some(a), Some(b)) = (f0, f1) {
        println!("C uverbs {dev} {label}_cold_minflt {}", b - a);
    }
}

/// The natural path: `Discovery::device` + open + query_port.
fn cold(dev: &str, once: bool) {
    cold_path(dev, once, "disc_open_query", Some("disc"), || {
        let info = find(dev);
        let t = Instant::now();
        (open(&info), t)
    });
}

/// The same through `Discovery::devices` (every device) and a search by name.
fn cold_all(dev: &str, once: bool) {
    cold_path(dev, once, "disc_all_open_query", Some("disc_all"), || {
        let info = find_in_all(dev);
        let t = Instant::now();
        (open(&info), t)
    });
}

/// The same with netlink requests built by hand, with the time of each step:
/// `C uverbs DEV lean_STEP_cold NS` and `lean_STEP_second NS` for the steps of
/// [`LEAN_STEPS`] and `query` (the first `query_port`).
fn cold_lean(dev: &str, once: bool) {
    let steps = std::cell::RefCell::new(Vec::new());
    cold_path(dev, once, "lean_open_query", None, || {
        let t0 = Instant::now();
        let mut marks = [None; 4];
        let c = lean_open(dev, &mut marks);
        steps.borrow_mut().push((t0, marks));
        (c, Instant::now())
    });
    let steps = steps.into_inner();
    for ((t0, marks), round) in steps.iter().zip(["cold", "second"]) {
        let mut prev = *t0;
        for (m, name) in marks.iter().zip(LEAN_STEPS) {
            let m = m.unwrap_or(prev);
            println!(
                "C uverbs {dev} lean_{name}_{round} {}",
                m.duration_since(prev).as_nanos()
            );
            prev = m;
        }
    }
}

/// `n` runs of `f`, inlined into the caller's loop.
#[inline(always)]
fn repeat(n: u64, mut f: impl FnMut()) {
    for _ in 0..n {
        f();
    }
}

/// The `count` mode: `n` calls of `op`, nothing printed or timed in the loop.
fn count(dev: &str, op: &str, n: u64) {
    let info = find(dev);
    let ctx = open(&info);
    let port = query1(&ctx);
    let max_gids = (port.gid_tbl_len as usize).max(1);
    let mut qp_resp = ib_uverbs_query_port_resp_ex::default();
    let mut qp_req = method::query_port(ctx.driver_id(), 1, &mut qp_resp);
    let qd_cmd = ib_uverbs_ex_query_device::default();
    let mut qd_resp = ib_uverbs_ex_query_device_resp::default();
    let mut qd_req = method::query_device_ex(ctx.driver_id(), &qd_cmd, &mut qd_resp);
    let mut gid_raw = vec![ib_uverbs_gid_entry::default(); max_gids];
    let mut gid_n = 0u64;
    let mut gid_req = method::query_gid_table(ctx.driver_id(), &mut gid_raw, &mut gid_n);
    let mut answer = DeviceAnswer::default();
    let mut gid_table = uverbs::GidTable::new(max_gids);
    let file = ctx.raw();
    match op {
        "floor_qp" => repeat(n, || {
            if let Err(e) = file.call(std::hint::black_box(&mut qp_req)) {
                fail("floor QUERY_PORT", e)
            }
        }),
        "query_port" => repeat(n, || match ctx.query_port(1) {
            Ok(p) => {
                std::hint::black_box(p);
            }
            Err(e) => fail("query_port", e),
        }),
        "floor_qd" => repeat(n, || {
            if let Err(e) = file.call(std::hint::black_box(&mut qd_req)) {
                fail("floor INVOKE_WRITE", e)
            }
        }),
        "query_device" => repeat(n, || match ctx.query_device() {
            Ok(d) => {
                std::hint::black_box(d);
            }
            Err(e) => fail("query_device", e),
        }),
        "query_device_into" => repeat(n, || match ctx.query_device_into(&mut answer) {
            Ok(()) => {
                std::hint::black_box(&answer);
            }
            Err(e) => fail("query_device_into", e),
        }),
        "floor_gid_table" => repeat(n, || {
            if let Err(e) = file.call(std::hint::black_box(&mut gid_req)) {
                fail("floor QUERY_GID_TABLE", e)
            }
        }),
        "gid_table" => repeat(n, || match ctx.query_gid_table_into(&mut gid_table) {
            // every entry read, as ibv_query_gid_table converts every entry it returns
            Ok(_) => gid_table.iter().for_each(|e| {
                std::hint::black_box(e);
            }),
            Err(e) => fail("query_gid_table_into", e),
        }),
        "gid_table_vec" => repeat(n, || match ctx.query_gid_table(max_gids) {
            Ok(v) => {
                std::hint::black_box(v);
            }
            Err(e) => fail("query_gid_table", e),
        }),
        "gid_entry" => repeat(n, || match ctx.query_gid(1, 0) {
            Ok(g) => {
                std::hint::black_box(g);
            }
            Err(e) => fail("query_gid", e),
        }),
        _ => fail("count", format!("no op {op}")),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: bench_loops loops DEV [BATCHES [SCALE [OPS]]] | cold DEV [once] \
                 | cold-all DEV [once] | cold-lean DEV [once] | count DEV OP N";
    if args.len() < 3 {
        fail("arguments", usage);
    }
    let once = args.get(3).map(String::as_str) == Some("once");
    match args[1].as_str() {
        "cold" => cold(&args[2], once),
        "cold-all" => cold_all(&args[2], once),
        "cold-lean" => cold_lean(&args[2], once),
        "count" if args.len() == 5 => count(
            &args[2],
            &args[3],
            args[4].parse().unwrap_or_else(|_| fail("arguments", usage)),
        ),
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
