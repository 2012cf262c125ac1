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
    AccessFlags, Context, DeviceChange, DeviceMonitor, Error, PortCache, PortState, QpType,
    WatchedPortCache,
};

/// The scratch devices: kind, name, netdev, subnet.
const SCRATCH: [(&str, &str, &str, u8); 2] = [
    ("rxe", "rxe_hp", "hpnet0", 211),
    ("siw", "siw_hp", "hpnet1", 212),
];

/// The scratch device of `kind`, made now, with the baseline delete measured (the device
/// is deleted and added again for that).
fn scratch_with_baseline(kind: &str) -> (ScratchDevice, Duration) {
    let &(kind, name, netdev, subnet) = SCRATCH
        .iter()
        .find(|s| s.0 == kind)
        .expect("a scratch kind");
    if kind == "siw" {
        common::require_siw();
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
    (d, baseline)
}

/// The events of `m` up to the first that `until` matches (at most 15 s).
fn events_until(
    m: &mut DeviceMonitor,
    mut until: impl FnMut(&DeviceChange) -> bool,
) -> Vec<DeviceChange> {
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
        let (d, baseline) = scratch_with_baseline(kind);
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
            |e| matches!(e, DeviceChange::Removed { name } if *name == d.name),
        );
        let node_gone = seen.iter().position(
            |e| matches!(e, DeviceChange::NodeRemoved { device: Some(x), .. } if *x == d.name),
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
                DeviceChange::NodeAdded {
                    device: Some(x), ..
                } if *x == d.name => node = true,
                DeviceChange::Added { name } if *name == d.name => added = true,
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
        let (d, baseline) = scratch_with_baseline(kind);
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
/// device is gone, then the device of the same name added again (`uverbs link add`) is
/// reopened and answers.
#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn following_cache_reopens() {
    let _ = common::devices();
    for kind in ["rxe", "siw"] {
        let (d, baseline) = scratch_with_baseline(kind);
        let cache = WatchedPortCache::follow(&d.name).unwrap();
        assert_eq!(cache.query_port(1).unwrap().state, PortState::Active);
        prompt_delete(&d, baseline, "a following WatchedPortCache");
        let gone = wait_until(Duration::from_secs(2), || {
            matches!(cache.query_port(1), Err(Error::DeviceRemoved { .. }))
        });
        assert!(gone, "{}: {:?}", d.name, cache.query_port(1));
        assert_eq!(cache.reopened(), 0);
        let t = Instant::now();
        d.add_link_with(&std::env::var("UVERBS_BIN").unwrap_or_else(|_| "rdma".into()));
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

/// Waits (at most `timeout`) until the output of `p` contains `what`.
fn output_has(p: &Proc, what: &str, timeout: Duration) -> bool {
    wait_until(timeout, || {
        std::fs::read_to_string(&p.log).is_ok_and(|s| s.contains(what))
    })
}

/// True when process `pid` has the uverbs node of device `name` open.
fn holds_node(pid: u32, name: &str) -> bool {
    let Some(node) = node_of(name) else {
        return false;
    };
    open_files(pid).iter().any(|l| l.to_string_lossy() == node)
}

fn output(p: &Proc) -> String {
    std::fs::read_to_string(&p.log).unwrap_or_default()
}

/// `uverbs watch -d DEV`: the delete is prompt, and the watch ends with a
/// `DEVICE_REMOVED` line, a line on stderr and its own exit status, 3. `uverbs watch`
/// without `-d` (text for rxe, JSON for siw): the delete is prompt, the removal is
/// reported and the watch goes on; the device added again (`uverbs link add`) is
/// reported and watched (its next delete is prompt too).
#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn uverbs_watch_lets_go_and_follows() {
    let _ = common::devices();
    let bin = std::env::var("UVERBS_BIN").expect("UVERBS_BIN names the uverbs binary");
    for kind in ["rxe", "siw"] {
        let (d, baseline) = scratch_with_baseline(kind);
        let name = d.name.as_str();

        let mut p = spawn(&[&bin, "watch", "-d", name]);
        assert!(
            output_has(&p, "watching", Duration::from_secs(5)),
            "{}",
            output(&p)
        );
        prompt_delete(&d, baseline, "uverbs watch -d");
        let (st, out) = wait_child(p, Duration::from_secs(2))
            .unwrap_or_else(|| panic!("{name}: uverbs watch -d still running after the delete"));
        println!("{name}: uverbs watch -d: exit {st}:\n{out}");
        assert_eq!(st, 3, "{name}: {out}");
        assert!(out.contains(&format!("{name}: DEVICE_REMOVED\n")), "{out}");
        assert!(
            out.contains(&format!("uverbs watch: {name}: the device was removed\n")),
            "{out}"
        );
        d.add_link();

        let json = kind == "siw";
        let mut args = vec![bin.as_str(), "watch"];
        if json {
            args.push("--json");
        }
        p = spawn(&args);
        // The JSON form prints no banner: wait until the watch holds the device's node.
        assert!(
            wait_until(Duration::from_secs(5), || holds_node(p.child.id(), name)),
            "{name}: uverbs watch never opened the device: {}",
            output(&p)
        );
        prompt_delete(&d, baseline, "uverbs watch (following)");
        let removed = if json {
            format!(
                "{{\"device\":\"{name}\",\"event\":\"DEVICE_REMOVED\",\"type\":null,\"scope\":\"device\",\"port\":null,\"element\":null}}\n"
            )
        } else {
            format!("{name}: DEVICE_REMOVED\n")
        };
        assert!(
            output_has(&p, &removed, Duration::from_secs(2)),
            "{}",
            output(&p)
        );
        assert!(!p.done(), "{name}: uverbs watch ended: {}", output(&p));
        d.add_link_with(&bin);
        let added = removed.replace("DEVICE_REMOVED", "DEVICE_ADDED");
        assert!(
            output_has(&p, &added, Duration::from_secs(10)),
            "{}",
            output(&p)
        );
        assert!(holds_node(p.child.id(), name), "{name}: not reopened");
        prompt_delete(&d, baseline, "uverbs watch (following, after the re-add)");
        let twice = wait_until(Duration::from_secs(2), || {
            output(&p).matches(&removed).count() == 2
        });
        assert!(twice, "{}", output(&p));
        let _ = p.child.kill();
        let _ = p.child.wait();
        println!(
            "{name}: uverbs watch{}:\n{}",
            if json { " --json" } else { "" },
            output(&p)
        );
        d.add_link();
    }
}

/// A set of scratch devices added and deleted together (one `rdma -b` batch each way),
/// removed when dropped.
struct ScratchSet {
    /// (kind, name, netdev)
    devs: Vec<(&'static str, String, String)>,
    batch: std::path::PathBuf,
}

impl ScratchSet {
    /// `n` rxe and `n` siw devices on dummy netdevs of their own, up and ACTIVE.
    fn create(n: usize) -> ScratchSet {
        let mut devs = Vec::new();
        for i in 0..n {
            devs.push(("rxe", format!("hps_rxe{i}"), format!("hpsr{i}")));
            devs.push(("siw", format!("hps_siw{i}"), format!("hpss{i}")));
        }
        let set = ScratchSet {
            devs,
            batch: std::env::temp_dir().join("uverbs-hotplug-scale.batch"),
        };
        let mut ip = String::new();
        for (_, _, nd) in &set.devs {
            ip.push_str(&format!("link add {nd} type dummy\nlink set {nd} up\n"));
        }
        std::fs::write(&set.batch, ip).unwrap();
        let (st, out) = run(
            &["ip", "-b", set.batch.to_str().unwrap()],
            Duration::from_secs(60),
        );
        assert_eq!(st, 0, "ip -b: {out}");
        set.add_all();
        set
    }

    /// Runs `lines` as one `rdma -b` batch; how long it took. (Several batches at once
    /// do not work: `rdma` resolves names from a device list that the others change.)
    fn rdma_batch(&self, lines: Vec<String>) -> Duration {
        std::fs::write(&self.batch, lines.concat()).unwrap();
        let t = Instant::now();
        let (st, out) = run(
            &["rdma", "-b", self.batch.to_str().unwrap()],
            Duration::from_secs(120),
        );
        assert_eq!(st, 0, "rdma -b: {out}");
        t.elapsed()
    }

    /// Adds every link and waits until each is discovered ACTIVE with a uverbs node.
    fn add_all(&self) -> Duration {
        let t = Instant::now();
        let lines = self
            .devs
            .iter()
            .map(|(k, name, nd)| format!("link add {name} type {k} netdev {nd}\n"))
            .collect();
        self.rdma_batch(lines);
        let ok = wait_until(Duration::from_secs(60), || {
            self.devs.iter().all(|(_, name, _)| {
                std::fs::read_to_string(format!("/sys/class/infiniband/{name}/ports/1/state"))
                    .is_ok_and(|s| s.contains("ACTIVE"))
                    && node_of(name).is_some()
            })
        });
        assert!(ok, "not every scratch device came up ACTIVE in 60 s");
        t.elapsed()
    }

    /// Deletes every link; returns how long the batch took.
    fn delete_all(&self) -> Duration {
        let lines = self
            .devs
            .iter()
            .map(|(_, name, _)| format!("link delete {name}\n"))
            .collect();
        self.rdma_batch(lines)
    }
}

impl Drop for ScratchSet {
    fn drop(&mut self) {
        for (_, name, nd) in &self.devs {
            if std::path::Path::new("/sys/class/infiniband")
                .join(name)
                .exists()
            {
                let _ = run(&["rdma", "link", "delete", name], Duration::from_secs(60));
            }
            let _ = run(&["ip", "link", "del", nd], Duration::from_secs(60));
        }
        let _ = std::fs::remove_file(&self.batch);
    }
}

/// The uverbs node (`/dev/infiniband/uverbsN`) of device `name`, if it has one now.
fn node_of(name: &str) -> Option<String> {
    std::fs::read_dir("/sys/class/infiniband_verbs")
        .ok()?
        .flatten()
        .find(|e| std::fs::read_to_string(e.path().join("ibdev")).is_ok_and(|s| s.trim() == name))
        .map(|e| format!("/dev/infiniband/{}", e.file_name().to_string_lossy()))
}

fn fd_count_of(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|d| d.count())
        .unwrap_or(0)
}

/// Scale: 16 rxe and 16 siw devices deleted and added again in a loop under a running
/// `uverbs watch --json` (rounds: `UVERBS_HOTPLUG_ROUNDS`, default 10). The median
/// round's delete finishes at most `SLACK` later than the same delete with no watch
/// running (measured first, in this boot: the slower of two), and no round takes more
/// than twice that: a device held hostage makes every delete wait for ever, a watch that
/// lets go late moves the median, and a loaded host (TCG, one vCPU, shared with the
/// watch) only some rounds (seen in CI: 2 of 10 at 1.3 and 1.6 s against 1.27 s). The
/// watch reports every removal and every return, holds every device again after each
/// round, keeps the same number of fds, and does not panic.
#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn scale_delete_and_readd_under_watch() {
    let _ = common::devices();
    common::require_siw();
    let bin = std::env::var("UVERBS_BIN").expect("UVERBS_BIN names the uverbs binary");
    let rounds: usize = std::env::var("UVERBS_HOTPLUG_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10);
    let t0 = Instant::now();
    let set = ScratchSet::create(16);
    let made = t0.elapsed();
    // The baseline: the slower of two delete-alls with no uverbs process (one sample
    // would make the comparison with every round's delete a bet on TCG's noise).
    let mut baseline = Duration::ZERO;
    for _ in 0..2 {
        baseline = baseline.max(set.delete_all());
        set.add_all();
    }
    let mut p = spawn(&[&bin, "watch", "--json"]);
    let all_held = |p: &Proc| set.devs.iter().all(|(_, n, _)| holds_node(p.child.id(), n));
    assert!(
        wait_until(Duration::from_secs(10), || all_held(&p)),
        "{}",
        output(&p)
    );
    let fds0 = fd_count_of(p.child.id());
    let count = |out: &str, event: &str, name: &str| {
        out.matches(&format!("{{\"device\":\"{name}\",\"event\":\"{event}\""))
            .count()
    };
    let (mut deletes, mut adds, mut whole) = (Vec::new(), Vec::new(), Vec::new());
    // The median delete-all within SLACK of the baseline (checked after the rounds),
    // every one within twice that (a device held hostage takes for ever, not twice as
    // long; the single-holder tests keep the strict bound).
    let (bound, hiccup_bound) = (baseline + SLACK, 2 * (baseline + SLACK));
    let mut hiccups = Vec::new();
    for r in 1..=rounds {
        let round = Instant::now();
        let del = set.delete_all();
        deletes.push(del);
        if del > bound {
            hiccups.push((r, del));
        }
        assert!(
            del <= hiccup_bound,
            "round {r}: deleting 32 devices took {del:?} under the watch, baseline \
             {baseline:?}; rounds over {bound:?}: {hiccups:?}"
        );
        let reported = wait_until(Duration::from_secs(5), || {
            let out = output(&p);
            set.devs
                .iter()
                .all(|(_, n, _)| count(&out, "DEVICE_REMOVED", n) == r)
        });
        assert!(reported, "round {r}: a removal was missed:\n{}", output(&p));
        adds.push(set.add_all());
        let back = wait_until(Duration::from_secs(10), || {
            let out = output(&p);
            set.devs
                .iter()
                .all(|(_, n, _)| count(&out, "DEVICE_ADDED", n) == r)
                && all_held(&p)
        });
        assert!(back, "round {r}: a return was missed:\n{}", output(&p));
        // A leak stays; a device the watch is still opening again (its events are out,
        // its fds not yet swapped: seen once on a loaded host, 75 against 71) settles.
        let settled = wait_until(Duration::from_secs(5), || fd_count_of(p.child.id()) == fds0);
        let fds = fd_count_of(p.child.id());
        assert!(
            settled,
            "round {r}: the watch's fds grew: {fds} against {fds0}"
        );
        assert!(!p.done(), "round {r}: the watch ended:\n{}", output(&p));
        whole.push(round.elapsed());
    }
    let _ = p.child.kill();
    let _ = p.child.wait();
    let out = output(&p);
    assert!(!out.contains("panicked"), "{out}");
    deletes.sort();
    adds.sort();
    whole.sort();
    let median = deletes.get(deletes.len() / 2).copied().unwrap_or_default();
    assert!(
        median <= bound,
        "the median delete-all under the watch took {median:?}, baseline {baseline:?}; \
         rounds over {bound:?}: {hiccups:?}"
    );
    println!(
        "kernel {}: 16 rxe + 16 siw, {rounds} rounds under uverbs watch: made in {made:?}; \
         delete-all baseline {baseline:?}, under the watch min {:?} median {:?} max {:?}; \
         add-all median {:?}; a whole round (delete, reported, add, reported and reopened) \
         median {:?}; watch fds {fds0} every round; {} removals and {} returns reported; \
         rounds over baseline + {SLACK:?}: {hiccups:?}",
        common::kernel(),
        deletes.first().unwrap(),
        deletes[deletes.len() / 2],
        deletes.last().unwrap(),
        adds[adds.len() / 2],
        whole[whole.len() / 2],
        out.matches("DEVICE_REMOVED").count(),
        out.matches("DEVICE_ADDED").count(),
    );
}

/// `rdma dev set NAME name NEW`: the monitor reports the rename, `uverbs watch` (no
/// `-d`) prints DEVICE_RENAMED and goes on watching the device under its new name, and a
/// guarded context follows the new name (its removal is still prompt).
#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn rename_is_followed() {
    let _ = common::devices();
    let bin = std::env::var("UVERBS_BIN").expect("UVERBS_BIN names the uverbs binary");
    let (mut d, baseline) = scratch_with_baseline("rxe");
    let mut monitor = DeviceMonitor::new().unwrap();
    let ctx = Context::open_by_name(&d.name).unwrap();
    ctx.guard().unwrap();
    let mut p = spawn(&[&bin, "watch"]);
    assert!(
        output_has(&p, "watching", Duration::from_secs(5)),
        "{}",
        output(&p)
    );
    let new = "rxe_hp_renamed";
    let (st, out) = run(
        &["rdma", "dev", "set", &d.name, "name", new],
        Duration::from_secs(10),
    );
    assert_eq!(st, 0, "rdma dev set name: {out}");
    let old = std::mem::replace(&mut d.name, new.to_owned());
    let seen = events_until(&mut monitor, |e| matches!(e, DeviceChange::Renamed { .. }));
    assert_eq!(
        seen.last(),
        Some(&DeviceChange::Renamed {
            from: old.clone(),
            to: new.to_owned()
        }),
        "{seen:?}"
    );
    let line = format!("{new}: DEVICE_RENAMED from {old}\n");
    assert!(
        output_has(&p, &line, Duration::from_secs(5)),
        "{}",
        output(&p)
    );
    prompt_delete(&d, baseline, "a renamed guarded context and uverbs watch");
    assert!(ctx.is_revoked());
    let removed = format!("{new}: DEVICE_REMOVED\n");
    assert!(
        output_has(&p, &removed, Duration::from_secs(2)),
        "{}",
        output(&p)
    );
    let _ = p.child.kill();
    let _ = p.child.wait();
    println!("rename under uverbs watch:\n{}", output(&p));
    d.add_link();
}
