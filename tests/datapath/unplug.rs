//! The device deleted mid-traffic: a guarded context's rings are let go of at once
//! (each mapping replaced in place by zeroed memory), so the delete completes as soon
//! as with no uverbs file open, while a thread keeps posting and polling on them; that
//! thread sees `DeviceRemoved`, and nothing panics or reads past a ring (a read of an
//! unmapped page would kill the test with SIGSEGV).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::common::scratch::*;
use super::util;
use uverbs::cm::{CmId, ConnParam};
use uverbs::verbs::datapath::{RecvWr, SendOp, SendWr, Sge, Wc};
use uverbs::verbs::objects::{Cq, Mr, Qp};
use uverbs::{Context, Error, Mtu, QpType, WcStatus};

fn timed_delete(name: &str) -> Duration {
    let t = Instant::now();
    let (st, out) = run(&["rdma", "link", "delete", name], Duration::from_secs(30));
    assert_eq!(st, 0, "rdma link delete {name}: {out}");
    t.elapsed()
}

/// What one side of the traffic works with.
struct End {
    qp: Qp,
    cq: Cq,
    buf: Mr,
}

/// Sends and receives in a loop on `a` -> `b` until an error, counting the messages that
/// went through. A failed completion is a test failure, but for a flushed one once
/// `deleting` is set: that is the removal's doing (on 6.12 the kernel flushes rxe's QPs,
/// and a send comes back `WrFlushErr`, before the uverbs node goes), and the loop goes
/// on, counting no message, until the rings answer `DeviceRemoved`.
fn traffic(a: End, b: End, count: Arc<AtomicU64>, deleting: Arc<AtomicBool>) -> Error {
    let sa = [Sge::new(&a.buf, 0, 256).unwrap()];
    let sb = [Sge::new(&b.buf, 0, 256).unwrap()];
    let mut wc = [Wc::default(); 8];
    loop {
        let r = b.qp.post_recv(&[RecvWr::new(1, &sb)]).and_then(|_| {
            a.qp.post_send(&[SendWr::new(2, SendOp::Send).sg(&sa).signaled()])
        });
        if let Err(e) = r {
            return e;
        }
        let (mut got, mut flushed) = (0, false);
        let t0 = Instant::now();
        while got < 2 {
            for cq in [&a.cq, &b.cq] {
                match cq.poll(&mut wc) {
                    Ok(n) => {
                        for w in &wc[..n] {
                            let flush = w.status == WcStatus::WrFlushErr;
                            assert!(
                                w.is_ok() || flush && deleting.load(Ordering::Acquire),
                                "a completion failed (before the removal, or not flushed): \
                                 {w:?}"
                            );
                            flushed |= flush;
                        }
                        got += n;
                    }
                    Err(e) => return e,
                }
            }
            assert!(t0.elapsed() < Duration::from_secs(20), "traffic stalled");
        }
        if !flushed {
            count.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// rxe: two QPs connected by hand; siw: by uverbs' CM.
fn connected(ctx: &Arc<Context>, kind: &str, addr: &str, keep: &mut Vec<CmId>) -> (End, End) {
    let pd = ctx.alloc_pd().unwrap();
    let mk = || {
        let cq = ctx.create_cq(16, None, 0).unwrap();
        let qp = util::qp(&pd, &cq, QpType::Rc, util::cap(8, 0));
        let buf = util::mr(&pd, 4096, 7);
        End { qp, cq, buf }
    };
    let (a, b) = (mk(), mk());
    if kind == "rxe" {
        let g = util::gid(ctx, 1);
        let d = |qpn| util::Dest {
            qpn,
            psn: 0,
            gid: g,
        };
        util::connect(&a.qp, QpType::Rc, 1, 0, &d(b.qp.qp_num()), Mtu::Mtu1024);
        util::connect(&b.qp, QpType::Rc, 1, 0, &d(a.qp.qp_num()), Mtu::Mtu1024);
    } else {
        let t = Duration::from_secs(20);
        let at: std::net::SocketAddr = format!("{addr}:7400").parse().unwrap();
        // (CmId::accept moves b to INIT itself.)
        keep.extend(util::cm_pair(&a.qp, &b.qp, at, &ConnParam::default(), t));
    }
    (a, b)
}

pub fn deleted_mid_traffic(kind: &'static str, name: &str, netdev: &str, subnet: u8) {
    let d = ScratchDevice::create(kind, name, netdev, subnet);
    timed_delete(name);
    d.add_link();
    let baseline = timed_delete(name);
    d.add_link();
    if kind == "rxe" {
        // The IPv4 GID (index 1) comes a moment after the port is ACTIVE.
        assert!(wait_until(Duration::from_secs(20), || {
            std::fs::read_to_string(format!("/sys/class/infiniband/{name}/ports/1/gids/1"))
                .is_ok_and(|g| !g.starts_with("0000:0000:0000:0000:0000:0000:0000:0000"))
        }));
    }
    // The guard's thread and socket are process-wide: started before counting fds.
    Context::open_by_name(name).unwrap().guard().unwrap();
    let fds0 = fd_count();

    let ctx = Arc::new(Context::open_by_name(name).unwrap());
    ctx.guard().unwrap();
    let mut cm_ids = Vec::new();
    let (a, b) = connected(&ctx, kind, &format!("169.254.{subnet}.1"), &mut cm_ids);
    let count = Arc::new(AtomicU64::new(0));
    let deleting = Arc::new(AtomicBool::new(false));
    let (c2, d2) = (count.clone(), deleting.clone());
    let worker = std::thread::spawn(move || traffic(a, b, c2, d2));
    // Traffic flows before the delete starts.
    assert!(wait_until(Duration::from_secs(20), || count
        .load(Ordering::Relaxed)
        >= 20));

    let t = Instant::now();
    deleting.store(true, Ordering::Release);
    let p = spawn(&["rdma", "link", "delete", name]);
    let done = wait_child(p, prompt_bound(baseline) + HANG);
    let took = t.elapsed();
    let (st, out) = done.unwrap_or_else(|| {
        panic!("{name}: rdma link delete still blocked after {took:?} with traffic running")
    });
    assert_eq!(st, 0, "{name}: rdma link delete: {out}");
    let e = worker.join().expect("the traffic thread panicked");
    assert!(
        matches!(e, Error::DeviceRemoved { .. }),
        "{name}: the traffic ended with {e} instead of DeviceRemoved"
    );
    assert!(
        took <= prompt_bound(baseline),
        "{name}: the delete took {took:?} with traffic running, baseline {baseline:?}"
    );
    println!(
        "{name} (kernel {}): delete mid-traffic after {} messages: {took:?} (baseline {baseline:?}); the traffic ended with: {e}",
        super::common::kernel(),
        count.load(Ordering::Relaxed)
    );
    drop(cm_ids);
    let errors = ctx.take_destroy_errors();
    assert!(errors.is_empty(), "{errors:?}");
    drop(ctx);
    assert_eq!(fd_count(), fds0, "{name}: fds left open");
    drop(d);
}
