//! The uverbs side of the object benchmarks that `bench/objects.sh` runs in the VM rig
//! beside `bench/objects_loops.c` (the same loops through libibverbs).
//!
//! ```text
//! bench_objects pairs DEV PAIRS
//!     query_qp and modify_qp against their floors, as interleaved pairs of short
//!     batches (the order alternates from pair to pair), each side's batch run from
//!     each of 4 places in the code in turn (FP, AP: which, see `PLACES`):
//!     P uverbs DEV query_qp FLOOR_NS API_NS FP AP    (one line per pair: Qp::query)
//!     P uverbs DEV query_into FLOOR_NS API_NS FP AP  (Qp::query_into, one QpQuery kept)
//!     P uverbs DEV modify_qp FLOOR_NS API_NS FP AP   (per modify of the walk)
//!   and after each operation's pairs, as many A/A pairs: its floor from one place
//!   against the same floor from another, the same way:
//!     Q uverbs DEV OP FLOOR_NS FLOOR_NS X Y          (how far the rig tells a loop from
//!                                                     itself; 1.0 without noise)
//! bench_objects create DEV N
//!     R uverbs DEV OP NS_PER_CYCLE   for pd, cq, qp, mr: create + destroy
//! bench_objects attrib DEV [ROUNDS]
//!     A DEV floor NS built NS api NS  query_qp three ways, rotated within each round
//!     (medians): the prebuilt request, the request built afresh for each call (what
//!     building costs), and Qp::query (what the rest of the typed method costs)
//! ```
//!
//! Floors: the same request the typed method sends, built once and issued again and
//! again on the same fd with `ctx.raw().call` (QUERY_QP by INVOKE_WRITE; each MODIFY_QP
//! of the walk by INVOKE_WRITE): no building, no decoding, no fallback logic.
//!
//! The modify walk: RESET -> INIT -> RTR -> RTS -> RESET on rxe (RC, looped back to
//! itself through GID 1), RESET -> INIT -> RESET on siw (RTR and RTS need the iWARP
//! CM). The QP is created once.
//!
//! Build: `cargo build --release --target x86_64-unknown-linux-musl --example bench_objects`.

use std::process::exit;
use std::sync::Arc;
use std::time::Instant;

use uverbs::raw::abi::{ib_uverbs_modify_qp, ib_uverbs_query_qp, ib_uverbs_query_qp_resp};
use uverbs::raw::method::{self, DriverIn};
use uverbs::verbs::datapath::{RecvWr, Remote, SendOp, SendWr, Sge, Wc};
use uverbs::verbs::objects::{
    AhAttr, Cq, ModifyQp, MrBuf, Pd, Qp, QpCap, QpInit, QpQuery, SrqInit,
};
use uverbs::{AccessFlags, Context, Mtu, QpState, QpType};
use zerocopy::IntoBytes;

fn fail(what: &str, e: impl std::fmt::Display) -> ! {
    eprintln!("bench_objects: {what}: {e}");
    exit(1)
}

/// A timed call's answer: an error ends the run (a failing call is not what is timed).
#[inline(always)]
fn ok<T, E: std::fmt::Display>(what: &str, r: Result<T, E>) {
    if let Err(e) = r {
        fail(what, e)
    }
}

/// The time of one call of `f`, in ns, over `k` calls in a row.
#[inline(always)]
fn per_call(k: usize, mut f: impl FnMut()) -> f64 {
    let t = Instant::now();
    for _ in 0..k {
        f();
    }
    t.elapsed().as_nanos() as f64 / k as f64
}

/// Pair `i` of two batches, `batch(false)` and `batch(true)`: the first first in even
/// pairs, the second first in odd; their times in that order.
fn pair(i: usize, mut batch: impl FnMut(bool) -> f64) -> (f64, f64) {
    if i % 2 == 0 {
        let x = batch(false);
        (x, batch(true))
    } else {
        let y = batch(true);
        (batch(false), y)
    }
}

/// One floor call: the prebuilt request, issued again.
#[inline(always)]
fn floor_call<const N: usize>(
    file: &uverbs::raw::VerbsFile,
    req: &mut method::Request<'_, N>,
) -> Result<(), rustix::io::Errno> {
    std::hint::black_box(file.call(std::hint::black_box(req)))
}

/// How many places each side's batch runs from. Under TCG a loop's time moves with
/// where its code lies (QEMU chains translated blocks only within a guest page, so
/// which jumps cross a page is decided by the addresses), by a few per cent, the size
/// of the target: no one placement of either side decides a row.
const PLACES: usize = 4;

/// `k` calls of `f`, from place `P`: each `P` makes its own function at its own
/// address (the constant is only passed to `black_box`), with `f` inlined into it.
#[inline(never)]
fn batch<const P: usize>(k: usize, f: &mut impl FnMut()) -> f64 {
    std::hint::black_box(P);
    per_call(k, f)
}

/// [`batch`] from place `p` of [`PLACES`].
fn placed(p: usize, k: usize, f: &mut impl FnMut()) -> f64 {
    match p % PLACES {
        0 => batch::<0>(k, f),
        1 => batch::<1>(k, f),
        2 => batch::<2>(k, f),
        _ => batch::<3>(k, f),
    }
}

/// `n` pairs of `k` calls of `floor` and of `api` (the time per call divided by
/// `per`), each side from each of its places in turn (every combination once in 16
/// pairs, each order once in 32), as `P` lines; then `n` A/A pairs, the floor from two
/// different places (every such combination in turn), as `Q` lines.
fn measure(
    dev: &str,
    op: &str,
    n: usize,
    (k, per): (usize, f64),
    floor: &mut impl FnMut(),
    api: &mut impl FnMut(),
) {
    for i in 0..n {
        let c = (i / 2) % (PLACES * PLACES);
        let (fp, ap) = (c % PLACES, c / PLACES);
        let (f, a) = pair(i, |second| match second {
            false => placed(fp, k, floor) / per,
            true => placed(ap, k, api) / per,
        });
        println!("P uverbs {dev} {op} {f:.0} {a:.0} {fp} {ap}");
    }
    for i in 0..n {
        let c = (i / 2) % (PLACES * (PLACES - 1));
        let (x, y) = (c % PLACES, (c % PLACES + 1 + c / PLACES) % PLACES);
        let (f, g) = pair(i, |second| {
            placed(if second { y } else { x }, k, floor) / per
        });
        println!("Q uverbs {dev} {op} {f:.0} {g:.0} {x} {y}");
    }
}

/// QUERY_QP of `handle` with every standard attribute bit (0-20), as `Qp::query` asks.
fn query_cmd(handle: u32) -> ib_uverbs_query_qp {
    ib_uverbs_query_qp {
        qp_handle: handle,
        attr_mask: (1 << 21) - 1,
        ..Default::default()
    }
}

/// The device's context with a PD, a CQ of 16 and an RC QP on it.
fn objects(dev: &str) -> (Arc<Context>, Pd, Cq, Qp) {
    let ctx = Arc::new(Context::open_by_name(dev).unwrap_or_else(|e| fail("open", e)));
    let pd = ctx.alloc_pd().unwrap_or_else(|e| fail("alloc_pd", e));
    let cq = ctx
        .create_cq(16, None, 0)
        .unwrap_or_else(|e| fail("create_cq", e));
    let qp = pd
        .create_qp(&QpInit::new(QpType::Rc, &cq, &cq))
        .unwrap_or_else(|e| fail("create_qp", e));
    (ctx, pd, cq, qp)
}

/// The modify walk of this device, as typed modifications.
fn walk(ctx: &Context, qp: &Qp) -> Vec<ModifyQp> {
    let rxe = ctx.name().starts_with("rxe");
    let init = ModifyQp::init(QpType::Rc, 1, AccessFlags::REMOTE_WRITE, 0);
    let reset = ModifyQp::new().state(QpState::Reset);
    if !rxe {
        return vec![init, reset];
    }
    let gid = ctx
        .query_gid(1, 1)
        .ok()
        .flatten()
        .map(|g| g.gid)
        .unwrap_or_default();
    let path = AhAttr::global(1, 1, gid, 64);
    let rtr = ModifyQp::rtr(QpType::Rc, Mtu::Mtu1024, qp.qp_num(), 0, path);
    let rts = ModifyQp::rts(QpType::Rc, 0);
    vec![init, rtr, rts, reset]
}

fn pairs(dev: &str, n: usize) {
    let (ctx, _pd, _cq, qp) = objects(dev);
    let file = ctx.raw();
    let id = file.driver_id();
    const K: usize = 20;

    // QUERY_QP: the floor re-runs one prebuilt request.
    let qcmd = query_cmd(qp.handle());
    let mut qresp = [0u8; core::mem::size_of::<ib_uverbs_query_qp_resp>()];
    let mut qreq = method::invoke_cmd(id, &qcmd, DriverIn::NONE, &mut qresp);
    for _ in 0..10 {
        file.call(&mut qreq)
            .unwrap_or_else(|e| fail("floor QUERY_QP", e));
        qp.query().unwrap_or_else(|e| fail("query_qp", e));
    }
    measure(
        dev,
        "query_qp",
        n,
        (K, 1.0),
        &mut || ok("floor QUERY_QP", floor_call(file, &mut qreq)),
        &mut || ok("query_qp", std::hint::black_box(qp.query())),
    );
    // Qp::query_into, into one QpQuery kept across calls (as ibv_query_qp's callers do).
    let mut out = QpQuery::default();
    measure(
        dev,
        "query_into",
        n,
        (K, 1.0),
        &mut || ok("floor QUERY_QP", floor_call(file, &mut qreq)),
        &mut || {
            let out = std::hint::black_box(&mut out);
            ok("query_into", std::hint::black_box(qp.query_into(out)))
        },
    );

    // MODIFY_QP through the walk: the floor re-runs the same commands, prebuilt (on the
    // stack, as their requests); the typed call sends the commands in `steps`, the
    // caller's ModifyQps, where they are (with the handle written in), and builds its
    // request on the stack.
    let mut steps = walk(&ctx, &qp);
    let n_steps = steps.len();
    let cmds: [ib_uverbs_modify_qp; 4] =
        core::array::from_fn(|i| steps[i % n_steps].to_uverbs(qp.handle()));
    let mut reqs: [_; 4] =
        core::array::from_fn(|i| method::invoke_cmd(id, &cmds[i], DriverIn::NONE, &mut []));
    for m in steps.iter_mut() {
        qp.modify(m).unwrap_or_else(|e| fail("modify_qp", e));
    }
    measure(
        dev,
        "modify_qp",
        n,
        (K / 4, n_steps as f64),
        &mut || {
            for r in reqs[..n_steps].iter_mut() {
                ok("floor MODIFY_QP", std::hint::black_box(file.call(r)));
            }
        },
        &mut || {
            for m in steps.iter_mut() {
                ok("modify_qp", std::hint::black_box(qp.modify(m)));
            }
        },
    );
}

fn create(dev: &str, n: usize) {
    let (ctx, pd, cq, qp) = objects(dev);
    drop(qp); // the loops below run with the PD and the CQ alone, as the C loops do
    let time = |name: &str, f: &mut dyn FnMut()| {
        for _ in 0..n / 10 + 1 {
            f();
        }
        let t = Instant::now();
        for _ in 0..n {
            f();
        }
        println!(
            "R uverbs {dev} {name} {:.0}",
            t.elapsed().as_nanos() as f64 / n as f64
        );
    };
    time("pd", &mut || {
        drop(ctx.alloc_pd().unwrap_or_else(|e| fail("alloc_pd", e)))
    });
    time("cq", &mut || {
        drop(
            ctx.create_cq(16, None, 0)
                .unwrap_or_else(|e| fail("create_cq", e)),
        )
    });
    time("qp", &mut || {
        drop(
            pd.create_qp(&QpInit::new(QpType::Rc, &cq, &cq))
                .unwrap_or_else(|e| fail("create_qp", e)),
        )
    });
    // One buffer, registered and deregistered again and again (as the C loop does).
    let mut buf = Some(MrBuf::new(4096).unwrap_or_else(|e| fail("MrBuf::new", e)));
    time("mr", &mut || {
        let b = buf.take().unwrap_or_else(|| fail("mr", "no buffer"));
        let mr = pd
            .reg_mr(b, AccessFlags::LOCAL_WRITE)
            .unwrap_or_else(|e| fail("reg_mr", e));
        buf = Some(
            mr.try_destroy()
                .unwrap_or_else(|(_, e)| fail("dereg_mr", e)),
        );
    });
}

/// Where the time of query_qp goes, without the system call: building the request,
/// and decoding an answer.
fn profile(dev: &str, n: usize) {
    let (ctx, _pd, _cq, qp) = objects(dev);
    let id = ctx.raw().driver_id();
    let t = Instant::now();
    for _ in 0..n {
        let cmd = query_cmd(std::hint::black_box(qp.handle()));
        let mut resp = ib_uverbs_query_qp_resp::default();
        let req = method::invoke_cmd(id, &cmd, DriverIn::NONE, resp.as_mut_bytes());
        std::hint::black_box(&req);
    }
    println!(
        "X uverbs {dev} build_query_qp {:.0}",
        t.elapsed().as_nanos() as f64 / n as f64
    );
    let steps = walk(&ctx, &qp);
    let t = Instant::now();
    for _ in 0..n {
        for m in &steps {
            let c = std::hint::black_box(m).to_uverbs(qp.handle());
            let req = method::invoke_cmd(id, &c, DriverIn::NONE, &mut []);
            std::hint::black_box(&req);
        }
    }
    println!(
        "X uverbs {dev} build_modify_qp {:.0}",
        t.elapsed().as_nanos() as f64 / n as f64 / steps.len() as f64
    );
    // The whole API call against a failing kernel answer is not measurable here; the
    // pairs mode has it.
}

/// query_qp three ways, to see where the typed method's time over its floor goes.
fn attrib(dev: &str, n: usize) {
    let (ctx, _pd, _cq, qp) = objects(dev);
    let file = ctx.raw();
    let id = file.driver_id();
    const K: usize = 20;
    let qcmd = query_cmd(qp.handle());
    let mut qresp = [0u8; core::mem::size_of::<ib_uverbs_query_qp_resp>()];
    let mut qreq = method::invoke_cmd(id, &qcmd, DriverIn::NONE, &mut qresp);
    let mut v = [Vec::new(), Vec::new(), Vec::new()];
    for i in 0..n {
        let mut t3 = [0f64; 3];
        for j in 0..3 {
            let which = (i + j) % 3;
            let t = Instant::now();
            for _ in 0..K {
                match which {
                    0 => ok("floor QUERY_QP", floor_call(file, &mut qreq)),
                    1 => {
                        let c = query_cmd(std::hint::black_box(qp.handle()));
                        let mut r = ib_uverbs_query_qp_resp::default();
                        let mut q = method::invoke_cmd(id, &c, DriverIn::NONE, r.as_mut_bytes());
                        ok("built QUERY_QP", std::hint::black_box(file.call(&mut q)));
                        std::hint::black_box(&r);
                    }
                    _ => {
                        ok("query_qp", std::hint::black_box(qp.query()));
                    }
                }
            }
            t3[which] = t.elapsed().as_nanos() as f64 / K as f64;
        }
        for w in 0..3 {
            v[w].push(t3[w]);
        }
    }
    for w in v.iter_mut() {
        w.sort_by(|a, b| a.partial_cmp(b).unwrap());
    }
    println!(
        "A {dev} floor {:.0} built {:.0} api {:.0}",
        v[0][n / 2],
        v[1][n / 2],
        v[2][n / 2]
    );
}

/// The largest N of the `count` mode: its queues hold 16 requests of each of N
/// iterations.
const COUNT_MAX: u32 = 128;

/// `n` runs of `f`, inlined into the caller's loop.
#[inline(always)]
fn repeat(n: u32, mut f: impl FnMut()) {
    for _ in 0..n {
        f();
    }
}

/// The `count` mode (see the module's documentation).
fn count(dev: &str, op: &str, n: u32) {
    if n > COUNT_MAX {
        fail("count", format!("N {n} is more than {COUNT_MAX}"));
    }
    let (ctx, pd, cq, qp) = objects(dev);
    let rxe = ctx.name().starts_with("rxe");
    let file = ctx.raw();
    let id = file.driver_id();
    let qcmd = query_cmd(qp.handle());
    let mut qresp = [0u8; core::mem::size_of::<ib_uverbs_query_qp_resp>()];
    let mut qreq = method::invoke_cmd(id, &qcmd, DriverIn::NONE, &mut qresp);
    let mut out = QpQuery::default();
    let mut steps = walk(&ctx, &qp);
    let n_steps = steps.len();
    let cmds: [ib_uverbs_modify_qp; 4] =
        core::array::from_fn(|i| steps[i % n_steps].to_uverbs(qp.handle()));
    let mut reqs: [_; 4] =
        core::array::from_fn(|i| method::invoke_cmd(id, &cmds[i], DriverIn::NONE, &mut []));
    let gid = ctx
        .query_gid(1, 1)
        .ok()
        .flatten()
        .map(|g| g.gid)
        .unwrap_or_default();
    let ah_attr = AhAttr::global(1, 1, gid, 64);
    let srq_init = SrqInit {
        max_wr: 16,
        max_sge: 1,
        srq_limit: 0,
    };
    let mut spare = Some(MrBuf::new(4096).unwrap_or_else(|e| fail("MrBuf::new", e)));
    // The data path: a QP of its own with queues as deep as the largest N needs, in RTS
    // looped back to itself on rxe (INIT on siw), its CQ, and one MR for both ends.
    let depth = 16 * COUNT_MAX;
    let dcq = ctx
        .create_cq(depth + 1, None, 0)
        .unwrap_or_else(|e| fail("create_cq", e));
    let dqp = pd
        .create_qp(&QpInit::new(QpType::Rc, &dcq, &dcq).cap(QpCap {
            max_send_wr: depth,
            max_recv_wr: COUNT_MAX,
            max_send_sge: 1,
            max_recv_sge: 1,
            max_inline_data: 64,
        }))
        .unwrap_or_else(|e| fail("create_qp", e));
    let mut dsteps = walk(&ctx, &dqp);
    dsteps.pop(); // not back to RESET
    for m in dsteps.iter_mut() {
        dqp.modify(m).unwrap_or_else(|e| fail("modify_qp", e));
    }
    let mr = pd
        .reg_mr(
            MrBuf::new(4096).unwrap_or_else(|e| fail("MrBuf::new", e)),
            AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE,
        )
        .unwrap_or_else(|e| fail("reg_mr", e));
    let sge = [Sge::new(&mr, 0, 64).unwrap_or_else(|| fail("sge", "past the MR"))];
    let remote = Remote {
        addr: mr.addr() + 2048,
        rkey: mr.rkey(),
    };
    let data = [0x5au8; 64];
    let one = [SendWr::new(1, SendOp::RdmaWrite(remote))
        .sg(&sge)
        .signaled()];
    let inline = [SendWr::new(1, SendOp::RdmaWrite(remote))
        .inline(&data)
        .signaled()];
    let sixteen: [SendWr<'_>; 16] = core::array::from_fn(|i| {
        SendWr::new(i as u64, SendOp::RdmaWrite(remote))
            .sg(&sge)
            .signaled()
    });
    let recv = [RecvWr::new(7, &sge)];
    let mut wc = [Wc::default(); 16];
    let sends = |n: u32, wrs: &[SendWr<'_>]| {
        if !rxe {
            fail(
                op,
                "rxe only (an RC QP on siw sends only once the iWARP CM connected it)",
            );
        }
        repeat(n, || {
            ok("post_send", std::hint::black_box(dqp.post_send(wrs)))
        });
    };
    // The completions of the sends, each poll asking for `per`; the polls that found
    // fewer (the device not done yet) are counted apart, each followed by 10 ms.
    let mut short = 0u32;
    let mut reap = |n: u32, per: usize| {
        std::thread::sleep(std::time::Duration::from_millis(200));
        let mut got = 0usize;
        let want = n as usize * per;
        while got < want {
            let k = dcq.poll(&mut wc[..per]).unwrap_or_else(|e| fail("poll", e));
            if wc[..k].iter().any(|w| !w.is_ok()) {
                fail("poll", "a completion with an error");
            }
            got += k;
            if k < per {
                short += 1;
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
        }
    };
    match op {
        "floor_query_qp" => repeat(n, || ok("floor QUERY_QP", floor_call(file, &mut qreq))),
        "query_qp" => repeat(n, || ok("query_qp", std::hint::black_box(qp.query()))),
        "query_into" => repeat(n, || {
            let out = std::hint::black_box(&mut out);
            ok("query_into", std::hint::black_box(qp.query_into(out)))
        }),
        "floor_modify_qp" => repeat(n, || {
            for r in reqs[..n_steps].iter_mut() {
                ok("floor MODIFY_QP", std::hint::black_box(file.call(r)));
            }
        }),
        "modify_qp" => repeat(n, || {
            for m in steps.iter_mut() {
                ok("modify_qp", std::hint::black_box(qp.modify(m)));
            }
        }),
        "pd" => repeat(n, || drop(pd_of(&ctx))),
        "cq" => repeat(n, || {
            drop(
                ctx.create_cq(16, None, 0)
                    .unwrap_or_else(|e| fail("create_cq", e)),
            )
        }),
        "qp" => repeat(n, || {
            drop(
                pd.create_qp(&QpInit::new(QpType::Rc, &cq, &cq))
                    .unwrap_or_else(|e| fail("create_qp", e)),
            )
        }),
        "mr" => repeat(n, || {
            let b = spare.take().unwrap_or_else(|| fail("mr", "no buffer"));
            let mr = pd
                .reg_mr(b, AccessFlags::LOCAL_WRITE)
                .unwrap_or_else(|e| fail("reg_mr", e));
            spare = Some(
                mr.try_destroy()
                    .unwrap_or_else(|(_, e)| fail("dereg_mr", e)),
            );
        }),
        "ah" => repeat(n, || {
            drop(
                pd.create_ah(&ah_attr)
                    .unwrap_or_else(|e| fail("create_ah", e)),
            )
        }),
        "srq" => repeat(n, || {
            drop(
                pd.create_srq(&srq_init)
                    .unwrap_or_else(|e| fail("create_srq", e)),
            )
        }),
        "req_notify" => repeat(n, || ok("req_notify", cq.req_notify(false))),
        "post_recv" => repeat(n, || ok("post_recv", dqp.post_recv(&recv))),
        "poll_empty" => repeat(n, || {
            if cq.poll(&mut wc[..1]).unwrap_or_else(|e| fail("poll", e)) != 0 {
                fail("poll", "an entry in a CQ nothing completed into");
            }
        }),
        "post_send" => sends(n, &one),
        "post_send_inline" => sends(n, &inline),
        "post_send16" => sends(n, &sixteen),
        "poll1" => {
            sends(n, &one);
            reap(n, 1);
        }
        "poll16" => {
            sends(n, &sixteen);
            reap(n, 16);
        }
        _ => fail("count", format!("no op {op}")),
    }
    if op.starts_with("post_send") {
        // the same wait as the polls' (their difference is then the polls alone)
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    println!("X short_polls {short}");
}

/// A PD of `ctx` (the `pd` op's create).
fn pd_of(ctx: &Arc<Context>) -> Pd {
    ctx.alloc_pd().unwrap_or_else(|e| fail("alloc_pd", e))
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let n = |i: usize, d: usize| a.get(i).and_then(|v| v.parse().ok()).unwrap_or(d);
    match (a.get(1).map(String::as_str), a.get(2)) {
        (Some("pairs"), Some(dev)) => pairs(dev, n(3, 500)),
        (Some("create"), Some(dev)) => create(dev, n(3, 2000)),
        (Some("profile"), Some(dev)) => profile(dev, n(3, 20000)),
        (Some("attrib"), Some(dev)) => attrib(dev, n(3, 600)),
        (Some("count"), Some(dev)) if a.len() == 5 => count(dev, &a[3], n(4, 0) as u32),
        _ => {
            eprintln!("usage: bench_objects pairs|create|profile|attrib DEV [N] | count DEV OP N");
            exit(2)
        }
    }
}
