//! Devices that come and go (VM rig only): a device being removed is never held hostage
//! by the crate, and its long-running parts report the removal and follow the device
//! when it comes back.
//!
//! Each test makes its own scratch rxe and siw devices on dummy netdevs (the rig's
//! devices stay untouched) and first measures, in the same boot, how long
//! `rdma link delete` takes with no uverbs file open: the baseline. Every holder (a
//! guarded context with objects, a `WatchedPortCache`, a `PortCache` in a query loop,
//! `uverbs watch` with and without `-d`) must let the same delete finish at most
//! [`SLACK`] later than that, and report the removal.
//!
//! Without the guard the delete waits for as long as the holder runs (the kernel's
//! unregistration of rxe and siw waits until every uverbs file is closed):
//! `tests/faults.rs` (`objects_hold_the_device_until_dropped`) shows that side.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::scratch::*;
use uverbs::verbs::objects::{MrBuf, QpInit};
use uverbs::{
    AccessFlags, Context, DeviceEvent, DeviceMonitor, Error, PortCache, PortState, QpType,
    WatchedPortCache,
};

/// How much later than the baseline a delete may finish with a holder running.
const SLACK: Duration = Duration::from_secs(1);

/// The scratch devices: kind, name, netdev, subnet.
const SCRATCH: [(&str, &str, &str, u8); 2] = [
    ("rxe", "rxe_hp", "hpnet0", 211),
    ("siw", "siw_hp", "hpnet1", 212),
];

/// Runs `rdma link delete NAME` to completion (at most 30 s) and returns how long it
/// took.
fn timed_delete(name: &str) -> Duration {
    let t = Instant::now();
    let (st, out) = run(&["rdma", "link", "delete", name], Duration::from_secs(30));
    assert_eq!(st, 0, "rdma link delete {name}: {out}");
    t.elapsed()
}

/// Starts `rdma link delete NAME` while `holder` runs, and checks that it finishes at
/// most `SLACK` after `baseline`. Returns how long it took.
fn prompt_delete(d: &ScratchDevice, baseline: Duration, holder: &str) -> Duration {
    let t = Instant::now();
    let p = spawn(&["rdma", "link", "delete", &d.name]);
    let done = wait_child(p, baseline + SLACK + Duration::from_secs(10));
    let took = t.elapsed();
    let (st, out) = done.unwrap_or_else(|| {
        panic!(
            "{}: rdma link delete still blocked after {took:?} with {holder} running",
            d.name
        )
    });
    assert_eq!(st, 0, "{}: rdma link delete: {out}", d.name);
    assert!(
        took <= baseline + SLACK,
        "{}: the delete took {took:?} with {holder} running, baseline {baseline:?}",
        d.name
    );
    println!(
        "{} (kernel {}): delete with {holder}: {took:?} (baseline {baseline:?})",
        d.name,
        common::kernel()
    );
    took
}

/// The scratch device of `kind`, made now, with the baseline delete measured (the device
/// is deleted and added again for that).
fn scratch_with_baseline(kind: &str) -> Option<(ScratchDevice, Duration)> {
    let &(kind, name, netdev, subnet) = SCRATCH.iter().find(|s| s.0 == kind)?;
    if kind == "siw" && !std::path::Path::new("/sys/module/siw").exists() {
        println!("siw is not loaded: the siw half is skipped");
        return None;
    }
    let d = ScratchDevice::create(kind, name, netdev, subnet);
    // The first delete and add warm the kernel's paths; the second delete is measured.
    timed_delete(name);
    d.add_link();
    let baseline = timed_delete(name);
    d.add_link();
    println!(
        "{name} (kernel {}): baseline delete with no uverbs file open: {baseline:?}",
        common::kernel()
    );
    Some((d, baseline))
}

/// The events of `m` up to the first that `until` matches (at most 15 s).
fn events_until(
    m: &mut DeviceMonitor,
    mut until: impl FnMut(&DeviceEvent) -> bool,
) -> Vec<DeviceEvent> {
    let t = Instant::now();
    let mut seen = Vec::new();
    while t.elapsed() < Duration::from_secs(15) {
        if let Some(ev) = m.next(Some(Duration::from_millis(200))).expect("monitor") {
            let stop = until(&ev);
            seen.push(ev);
            if stop {
                return seen;
            }
        }
    }
    panic!("the awaited device event did not come in 15 s; seen {seen:?}");
}

/// The RDMA netlink notification group: 6.1 has none, and the monitor detects it absent;
/// 6.12 has it (its source and its `SYS_GET` answer say so), and then the kernel's own
/// messages for a device added and deleted parse: REGISTER and NETDEV_ATTACH with the
/// names, UNREGISTER.
#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn notifications_detected_per_kernel() {
    use uverbs::netlink::nldev::{self, NotifyKind};
    let _ = common::devices();
    let m = DeviceMonitor::new().expect("device monitor");
    let kernel = common::kernel();
    let on = m.rdma_notifications();
    println!("kernel {kernel}: RDMA netlink notifications: {on}");
    match kernel.as_str() {
        "6.1" => assert!(!on, "6.1 has no RDMA_NL_GROUP_NOTIFY"),
        "6.12" => assert!(on, "6.12 has RDMA_NL_GROUP_NOTIFY"),
        _ => {}
    }
    for d in common::devices() {
        assert!(
            m.devices().any(|x| x == d),
            "{d} is not in the monitor's list"
        );
    }
    if !on {
        return;
    }
    let sock = nldev::notify_socket().expect("notify socket");
    let d = ScratchDevice::create("rxe", "rxe_nt", "ntnet0", 213);
    timed_delete(&d.name);
    let mut seen = Vec::new();
    let mut buf = vec![0u8; 8192];
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(5)
        && !seen.iter().any(|(k, _, _)| *k == NotifyKind::Unregister)
    {
        match rustix::net::recv(&sock, &mut buf, rustix::net::RecvFlags::DONTWAIT) {
            Ok((n, _)) => {
                for msg in uverbs::netlink::messages(&buf[..n]).flatten() {
                    if msg.header.nlmsg_type != nldev::TYPE_MONITOR {
                        continue;
                    }
                    let n = nldev::parse_notify(msg.payload).expect("a kernel notification");
                    seen.push((
                        n.kind,
                        n.dev_name.map(str::to_owned),
                        n.netdev_name.map(str::to_owned),
                    ));
                }
            }
            Err(rustix::io::Errno::AGAIN) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => panic!("notify recv: {e}"),
        }
    }
    println!("kernel {kernel}: notifications for rxe_nt: {seen:?}");
    let name = Some("rxe_nt".to_owned());
    assert!(
        seen.contains(&(NotifyKind::Register, name.clone(), None)),
        "{seen:?}"
    );
    assert!(
        seen.contains(&(NotifyKind::Unregister, name, None)),
        "{seen:?}"
    );
    assert!(
        seen.iter()
            .any(|s| s.0 == NotifyKind::NetdevAttach && s.2.as_deref() == Some("ntnet0")),
        "{seen:?}"
    );
}

/// A guarded context with a PD, a CQ on a completion channel, a QP, an MR and an event
/// stream: the delete is prompt, every later call answers `DeviceRemoved`, the stream
/// says so, and dropping everything leaks no fd and records no destroy error. The
/// monitor reports the removal (the node first, then the device) and the device's
/// return.
#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn guarded_context_lets_go() {
    let _ = common::devices();
    for kind in ["rxe", "siw"] {
        let Some((d, baseline)) = scratch_with_baseline(kind) else {
            continue;
        };
        // The guard's thread and its socket are process-wide and stay: count fds after.
        Context::open_by_name(&d.name).unwrap().guard().unwrap();
        let mut monitor = DeviceMonitor::new().expect("device monitor");
        let fds0 = fd_count();

        let ctx = Arc::new(Context::open_by_name(&d.name).unwrap());
        ctx.guard().expect("guard");
        let mut events = ctx.events().unwrap();
        let channel = ctx.create_comp_channel().unwrap();
        let pd = ctx.alloc_pd().unwrap();
        let cq = ctx.create_cq(8, Some(&channel), 0).unwrap();
        let qp = pd.create_qp(&QpInit::new(QpType::Rc, &cq, &cq)).unwrap();
        let mr = pd
            .reg_mr(MrBuf::new(4096).unwrap(), AccessFlags::LOCAL_WRITE)
            .unwrap();
        assert!(!ctx.is_revoked());

        prompt_delete(&d, baseline, "a guarded context with objects");
        assert!(ctx.is_revoked(), "{}: not revoked after the delete", d.name);
        let e = ctx.query_port(1).unwrap_err();
        assert!(
            matches!(e, Error::DeviceRemoved { .. }),
            "query_port: {e:?}"
        );
        assert!(e.to_string().contains(&d.name), "{e}");
        let e = ctx.query_device().unwrap_err();
        assert!(
            matches!(e, Error::DeviceRemoved { .. }),
            "query_device: {e:?}"
        );
        let e = qp.query().map(drop).unwrap_err();
        assert!(matches!(e, Error::DeviceRemoved { .. }), "query_qp: {e:?}");
        let e = ctx.alloc_pd().map(drop).unwrap_err();
        assert!(matches!(e, Error::DeviceRemoved { .. }), "alloc_pd: {e:?}");
        match events.read_timeout(Duration::from_millis(100)) {
            Err(Error::DeviceRemoved { .. }) => {}
            other => panic!("{}: event stream after the removal: {other:?}", d.name),
        }
        drop((qp, mr, cq, channel, pd));
        let errs = ctx.take_destroy_errors();
        assert!(errs.is_empty(), "{}: destroy errors {errs:?}", d.name);
        drop((events, ctx));
        assert_eq!(fd_count(), fds0, "{}: fds left after the drop", d.name);

        let seen = events_until(
            &mut monitor,
            |e| matches!(e, DeviceEvent::Removed { name } if *name == d.name),
        );
        let node_gone = seen.iter().position(
            |e| matches!(e, DeviceEvent::NodeRemoved { device: Some(x), .. } if *x == d.name),
        );
        assert!(
            node_gone.is_some_and(|i| i + 1 < seen.len()),
            "{}: NodeRemoved not reported before Removed: {seen:?}",
            d.name
        );
        // On registration the kernel holds the device's own "add" uevent back until its
        // clients (uverbs among them) are added: the node comes first.
        d.add_link();
        let (mut node, mut added) = (false, false);
        let seen = events_until(&mut monitor, |e| {
            match e {
                DeviceEvent::NodeAdded {
                    device: Some(x), ..
                } if *x == d.name => node = true,
                DeviceEvent::Added { name } if *name == d.name => added = true,
                _ => {}
            }
            node && added
        });
        println!("{}: monitor on re-add: {seen:?}", d.name);
    }
}

/// A `WatchedPortCache` (made with `new`, not following): the delete is prompt and its
/// queries answer `DeviceRemoved`. A `PortCache` in a query loop on another thread: the
/// same, and the loop ends with `DeviceRemoved`.
#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn caches_let_go() {
    let _ = common::devices();
    for kind in ["rxe", "siw"] {
        let Some((d, baseline)) = scratch_with_baseline(kind) else {
            continue;
        };
        let ctx = Arc::new(Context::open_by_name(&d.name).unwrap());
        let cache = WatchedPortCache::new(ctx.clone()).unwrap();
        assert_eq!(cache.query_port(1).unwrap().state, PortState::Active);
        drop(ctx);
        prompt_delete(&d, baseline, "a WatchedPortCache");
        let gone = wait_until(Duration::from_secs(2), || {
            matches!(cache.query_port(1), Err(Error::DeviceRemoved { .. }))
        });
        assert!(gone, "{}: watched cache: {:?}", d.name, cache.query_port(1));
        drop(cache);
        d.add_link();

        let stop = AtomicBool::new(false);
        let ctx = Context::open_by_name(&d.name).unwrap();
        let end = std::thread::scope(|s| {
            let h = s.spawn(|| {
                let mut cache = PortCache::new(&ctx).unwrap();
                let mut n = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    if let Err(e) = cache.query_port(1) {
                        return (n, Some(e));
                    }
                    n += 1;
                }
                (n, None)
            });
            std::thread::sleep(Duration::from_millis(200));
            prompt_delete(&d, baseline, "a PortCache in a query loop");
            let ended = wait_until(Duration::from_secs(2), || h.is_finished());
            stop.store(true, Ordering::Relaxed);
            assert!(ended, "{}: the query loop did not end", d.name);
            h.join().unwrap()
        });
        println!(
            "{}: PortCache loop: {} queries, then {:?}",
            d.name, end.0, end.1
        );
        assert!(end.0 > 0);
        assert!(
            matches!(end.1, Some(Error::DeviceRemoved { .. })),
            "{}: {:?}",
            d.name,
            end.1
        );
        drop(ctx);
        d.add_link();
    }
}

/// A `WatchedPortCache` asked to follow a device by name: `DeviceRemoved` while the
/// device is gone, then the device of the same name added again is reopened and
/// answers.
#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn following_cache_reopens() {
    let _ = common::devices();
    for kind in ["rxe", "siw"] {
        let Some((d, baseline)) = scratch_with_baseline(kind) else {
            continue;
        };
        let cache = WatchedPortCache::follow(&d.name).unwrap();
        assert_eq!(cache.query_port(1).unwrap().state, PortState::Active);
        prompt_delete(&d, baseline, "a following WatchedPortCache");
        let gone = wait_until(Duration::from_secs(2), || {
            matches!(cache.query_port(1), Err(Error::DeviceRemoved { .. }))
        });
        assert!(gone, "{}: {:?}", d.name, cache.query_port(1));
        assert_eq!(cache.reopened(), 0);
        let t = Instant::now();
        d.add_link();
        let back = wait_until(Duration::from_secs(10), || {
            cache.reopened() == 1 && cache.query_port(1).is_ok()
        });
        assert!(
            back,
            "{}: not reopened: reopened {}, {:?}",
            d.name,
            cache.reopened(),
            cache.query_port(1)
        );
        println!(
            "{}: the following cache answered again {:?} after the add began; port 1 {}",
            d.name,
            t.elapsed(),
            cache.query_port(1).unwrap().state
        );
        // And the reopened device lets go too.
        prompt_delete(&d, baseline, "a following WatchedPortCache, reopened");
        let gone = wait_until(Duration::from_secs(2), || {
            matches!(cache.query_port(1), Err(Error::DeviceRemoved { .. }))
        });
        assert!(gone, "{}: {:?}", d.name, cache.query_port(1));
        drop(cache);
        d.add_link();
    }
}

/// The event stream of a context revoked by hand (`Context::revoke`, as the guard does):
/// a thread blocked waiting on it wakes up with `DeviceRemoved` at once.
#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn revoke_wakes_a_blocked_reader() {
    for dev in common::devices() {
        let ctx = Context::open_by_name(&dev).unwrap();
        let mut events = ctx.events().unwrap();
        let t = std::thread::scope(|s| {
            let h = s.spawn(move || {
                let t = Instant::now();
                let r = events.read_timeout(Duration::from_secs(20));
                (t.elapsed(), r)
            });
            std::thread::sleep(Duration::from_millis(200));
            ctx.revoke().unwrap();
            h.join().unwrap()
        });
        assert!(
            matches!(t.1, Err(Error::DeviceRemoved { .. })),
            "{dev}: {:?}",
            t.1
        );
        assert!(t.0 < Duration::from_secs(2), "{dev}: woke after {:?}", t.0);
        assert!(matches!(
            ctx.query_port(1),
            Err(Error::DeviceRemoved { .. })
        ));
        // The device itself is untouched: a new context answers.
        let again = Context::open_by_name(&dev).unwrap();
        assert!(again.query_port(1).is_ok());
    }
}
