//! Storms (issue 29, VM rig only): 1,000 device and netdev additions and removals, fired
//! as fast as the kernel takes them, under a running `uverbs watch` and `uverbs
//! exporter` (and the library's `DeviceMonitor` in this process).
//!
//! The storm runs over [`SLOTS`] slots, each a dummy netdev `stnetN` with an rxe (even
//! N) or siw (odd N) link `st_rN` / `st_sN` on it: netdevs added, set up and down and
//! deleted (a netdev deleted under its link removes the link too), links added and
//! deleted, chosen by a seeded generator and made through the crate's own netlink
//! (`netlink::route`, `netlink::link`: no process start per operation). Part of it runs
//! with the watch and the exporter stopped (SIGSTOP), on slots they hold nothing of, so
//! that the kernel's queues on their netlink sockets overflow (ENOBUFS, seen in
//! `/proc/net/netlink`'s `Drops` of their sockets): they must answer it with a rescan.
//!
//! After the storm: what the watch follows (its DEVICE_ADDED and DEVICE_REMOVED lines
//! replayed, and the uverbs nodes it holds open), what the exporter holds and its next
//! scrape (devices, port states from its event-refreshed cache) equal the kernel's
//! (sysfs and `rdma link`). After every storm device is deleted: the same, with the
//! watch's files and threads back to their count before the storm and its allocated
//! memory (`RssAnon`) within [`ANON_GROWTH_KIB`] of what it was after the first 300
//! operations (the first ones set what the devices open at once and the allocator's
//! groups take; a leak grows with every device), the exporter's within
//! [`EXPORTER_GROWTH_KIB`] of it, and its threads within one reader per storm device
//! name of what they were.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::scratch::{open_files, spawn, wait_until, Proc};
use uverbs::netlink::link::{self, LinkType};
use uverbs::netlink::route;
use uverbs::{DeviceChange, DeviceMonitor};

/// Netdev slots of the storm.
const SLOTS: usize = 12;
/// Operations the kernel accepted: with the watch and the exporter running, then with
/// them stopped.
const RUNNING_OPS: usize = 600;
const STOPPED_OPS: usize = 400;
/// The same for the exporter (KiB): its reader threads, one per device name collected,
/// touch their stacks deeper as they meet more devices (measured: +44 to +548 KiB; the
/// level after 300 operations varied from 0.5 to 3.3 MiB between boots). A leak of 10
/// KiB per device added would exceed it.
const EXPORTER_GROWTH_KIB: u64 = 1024;
/// How much the watch's allocated memory (`RssAnon`) may grow over the last 700
/// operations of the storm, past what it was after the first 300 (KiB): about 100
/// devices are added in them, so a leak of 3 KiB per device would exceed it.
const ANON_GROWTH_KIB: u64 = 256;

/// One slot: a netdev and the link that may sit on it.
struct Slot {
    netdev: String,
    link: String,
    kind: LinkType,
    has_netdev: bool,
    up: bool,
    has_link: bool,
}

/// What the storm did, as the kernel accepted it.
#[derive(Default, Debug)]
struct Tally {
    netdev_add: usize,
    netdev_del: usize,
    up: usize,
    down: usize,
    link_add: usize,
    link_del: usize,
    /// Link adds the kernel refused with ENFILE or EEXIST: the name of a link removed
    /// with its netdev was still being unregistered (not counted as operations).
    refused: usize,
    /// Successful adds per link name.
    adds: BTreeMap<String, usize>,
}

impl Tally {
    fn ops(&self) -> usize {
        self.netdev_add + self.netdev_del + self.up + self.down + self.link_add + self.link_del
    }
}

/// A small seeded generator (xorshift64): the same storm every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

fn ib_exists(name: &str) -> bool {
    Path::new("/sys/class/infiniband").join(name).exists()
}

/// The devices sysfs lists.
fn sysfs_devices() -> BTreeSet<String> {
    std::fs::read_dir("/sys/class/infiniband")
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

/// uverbs node path -> device, from sysfs.
fn sysfs_nodes() -> BTreeMap<String, String> {
    std::fs::read_dir("/sys/class/infiniband_verbs")
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let ibdev = std::fs::read_to_string(e.path().join("ibdev")).ok()?;
            Some((
                format!("/dev/infiniband/{}", e.file_name().to_string_lossy()),
                ibdev.trim().to_owned(),
            ))
        })
        .collect()
}

/// The devices whose uverbs node process `pid` holds open.
fn held_devices(pid: u32) -> BTreeSet<String> {
    let nodes = sysfs_nodes();
    open_files(pid)
        .iter()
        .filter_map(|f| nodes.get(&*f.to_string_lossy()).cloned())
        .collect()
}

/// The devices `rdma link show` lists (RDMA netlink).
fn rdma_links() -> BTreeSet<String> {
    link::show()
        .expect("rdma link show")
        .into_iter()
        .map(|l| l.device)
        .collect()
}

/// `RssAnon` (the heap and the stacks: what the process allocated), `VmRSS` (with the
/// binary's pages it ran; the VM's binary is a debug build), `VmHWM` (KiB) and
/// `Threads` of process `pid`.
fn memory(pid: u32) -> (u64, u64, u64, u64) {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let get = |k: &str| {
        s.lines()
            .find_map(|l| l.strip_prefix(k))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap_or(0)
    };
    (
        get("RssAnon:"),
        get("VmRSS:"),
        get("VmHWM:"),
        get("Threads:"),
    )
}

fn fd_count(pid: u32) -> usize {
    open_files(pid).len()
}

/// The packets the kernel dropped on process `pid`'s netlink sockets for lack of room
/// (the ENOBUFS its reads got), per protocol (15: kobject uevents, 20: RDMA), from
/// `/proc/net/netlink`'s `Drops`.
fn netlink_drops(pid: u32) -> BTreeMap<u32, u64> {
    let inodes: BTreeSet<String> = open_files(pid)
        .iter()
        .filter_map(|f| {
            let s = f.to_string_lossy();
            Some(s.strip_prefix("socket:[")?.strip_suffix(']')?.to_owned())
        })
        .collect();
    let table = std::fs::read_to_string("/proc/net/netlink").expect("/proc/net/netlink");
    let mut lines = table.lines();
    let head: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    let col = |name: &str| {
        head.iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("no {name} in /proc/net/netlink: {head:?}"))
    };
    let (eth, drops, inode) = (col("Eth"), col("Drops"), col("Inode"));
    let mut out = BTreeMap::new();
    for l in lines {
        let w: Vec<&str> = l.split_whitespace().collect();
        if w.len() > inode && inodes.contains(w[inode]) {
            let proto: u32 = w[eth].parse().unwrap();
            *out.entry(proto).or_insert(0) += w[drops].parse::<u64>().unwrap();
        }
    }
    out
}

/// One GET of /metrics on a new connection: the body, or `None` unless 200.
fn scrape(addr: SocketAddr) -> Option<String> {
    common::http_get(addr, "/metrics", Duration::from_secs(30))
}

/// The value of metric `name` with exactly the labels `device` and `port` 1.
fn port_value<'a>(text: &'a str, name: &str, device: &str) -> Option<&'a str> {
    let head = format!("{name}{{device=\"{device}\",port=\"1\"}} ");
    text.lines().find_map(|l| l.strip_prefix(head.as_str()))
}

/// What differs between a scrape and the kernel: every device sysfs lists, and only
/// those, in `uverbs_device_info`, each with its port's MTU from the uverbs cache (the
/// cache is live, not revoked) and its port state as sysfs has it, none late. Empty
/// when they agree.
fn scrape_differs(text: &str, devices: &BTreeSet<String>) -> Vec<String> {
    let mut diffs = Vec::new();
    let listed: BTreeSet<String> = text
        .lines()
        .filter(|l| l.starts_with("uverbs_device_info{"))
        .filter_map(|l| Some(l.split("device=\"").nth(1)?.split('"').next()?.to_owned()))
        .collect();
    if &listed != devices {
        diffs.push(format!("scrape lists {listed:?}, sysfs {devices:?}"));
    }
    for d in devices {
        if port_value(text, "uverbs_port_active_mtu_bytes", d).is_none() {
            diffs.push(format!(
                "{d}: no uverbs_port_active_mtu_bytes (no live port cache)"
            ));
        }
        let state = std::fs::read_to_string(format!("/sys/class/infiniband/{d}/ports/1/state"))
            .unwrap_or_default();
        let want = state.split(':').next().unwrap_or("").trim().to_owned();
        let got = port_value(text, "uverbs_port_state", d);
        if got != Some(want.as_str()) {
            diffs.push(format!("{d}: uverbs_port_state {got:?}, sysfs {state:?}"));
        }
        let late = format!("uverbs_device_scrape_timeout{{device=\"{d}\"}} 1");
        if text.lines().any(|l| l == late) {
            diffs.push(format!("{d}: late"));
        }
    }
    diffs
}

/// The devices the watch follows by its own account: those it started with, then its
/// DEVICE_ADDED and DEVICE_REMOVED lines in order. Each line must make sense where it
/// stands (an ADDED for a device not followed, a REMOVED for one followed).
fn replay(start: &BTreeSet<String>, out: &str) -> (BTreeSet<String>, usize, usize) {
    let mut now = start.clone();
    let (mut added, mut removed) = (0, 0);
    for l in out.lines() {
        if let Some(d) = l.strip_suffix(": DEVICE_ADDED") {
            assert!(now.insert(d.to_owned()), "{d} added twice:\n{out}");
            added += 1;
        } else if let Some(d) = l.strip_suffix(": DEVICE_REMOVED") {
            assert!(now.remove(d), "{d} removed but not followed:\n{out}");
            removed += 1;
        }
    }
    (now, added, removed)
}

fn signal(pid: u32, sig: &str) {
    let st = std::process::Command::new("kill")
        .args([sig, &pid.to_string()])
        .status()
        .unwrap();
    assert!(st.success(), "kill {sig} {pid}");
}

/// One operation on a slot, chosen by `rng`; true when the kernel accepted it (counted
/// in `t`). `may_remove`: whether the slot's link may be removed (not while a stopped
/// process may hold it).
fn step(s: &mut Slot, rng: &mut Rng, t: &mut Tally, may_remove: bool) -> bool {
    let ok = |r: uverbs::Result<()>, what: &str, name: &str| {
        r.unwrap_or_else(|e| panic!("{what} {name}: {e}"));
        true
    };
    if !s.has_netdev {
        if !may_remove {
            return false;
        }
        ok(route::add_dummy(&s.netdev), "add", &s.netdev);
        (s.has_netdev, s.up, s.has_link) = (true, false, false);
        t.netdev_add += 1;
        return true;
    }
    match rng.next(10) {
        0..=4 if !s.has_link && may_remove => {
            if ib_exists(&s.link) {
                return false; // still being unregistered (its netdev was deleted)
            }
            match link::add(&s.link, s.kind, &s.netdev) {
                Ok(()) => {
                    s.has_link = true;
                    t.link_add += 1;
                    *t.adds.entry(s.link.clone()).or_default() += 1;
                    true
                }
                // The name of a link removed with its netdev is still taken while its
                // unregistration finishes (its sysfs entry already gone): the kernel
                // answers ENFILE (assign_name) or EEXIST.
                Err(e)
                    if matches!(
                        e.errno(),
                        Some(rustix::io::Errno::EXIST | rustix::io::Errno::NFILE)
                    ) =>
                {
                    t.refused += 1;
                    false
                }
                Err(e) => panic!("link add {}: {e}", s.link),
            }
        }
        0..=4 if s.has_link && may_remove => {
            ok(link::del(&s.link), "link del", &s.link);
            s.has_link = false;
            t.link_del += 1;
            true
        }
        5..=7 => {
            let up = !s.up;
            ok(route::set_up(&s.netdev, up), "set up/down", &s.netdev);
            s.up = up;
            if up {
                t.up += 1;
            } else {
                t.down += 1;
            }
            true
        }
        8 | 9 if may_remove => {
            ok(route::delete(&s.netdev), "delete", &s.netdev);
            (s.has_netdev, s.has_link) = (false, false);
            t.netdev_del += 1;
            true
        }
        _ => false,
    }
}

/// Runs operations on the slots `on` until the kernel accepted `n` of them.
fn storm(slots: &mut [Slot], on: &[usize], held: &[usize], rng: &mut Rng, t: &mut Tally, n: usize) {
    let mut done = 0;
    while done < n {
        // Mostly the slots that may change; now and then a held one's netdev up/down.
        let i = if held.is_empty() || rng.next(8) != 0 {
            on[rng.next(on.len())]
        } else {
            held[rng.next(held.len())]
        };
        let may_remove = !held.contains(&i);
        if step(&mut slots[i], rng, t, may_remove) {
            done += 1;
        }
    }
}

/// The library's monitor, read on a thread of this process all along: every change it
/// reports.
struct Witness {
    seen: Arc<Mutex<Vec<DeviceChange>>>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Witness {
    fn start() -> Witness {
        let mut m = DeviceMonitor::new().expect("device monitor");
        let seen = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (s, st) = (seen.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            while !st.load(Ordering::Relaxed) {
                match m.next(Some(Duration::from_millis(200))) {
                    Ok(Some(c)) => s.lock().unwrap().push(c),
                    Ok(None) => {}
                    Err(e) => panic!("device monitor: {e}"),
                }
            }
        });
        Witness {
            seen,
            stop,
            thread: Some(thread),
        }
    }

    /// Added and Removed per device so far, and the devices present by its account
    /// (`start`, then its changes).
    fn counts(
        &self,
        start: &BTreeSet<String>,
    ) -> (BTreeMap<String, (usize, usize)>, BTreeSet<String>) {
        let mut per: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        let mut present = start.clone();
        for c in self.seen.lock().unwrap().iter() {
            match c {
                DeviceChange::Added { name } => {
                    per.entry(name.clone()).or_default().0 += 1;
                    present.insert(name.clone());
                }
                DeviceChange::Removed { name } => {
                    per.entry(name.clone()).or_default().1 += 1;
                    present.remove(name);
                }
                _ => {}
            }
        }
        (per, present)
    }
}

impl Drop for Witness {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The storm's netdevs (and so its links) deleted, whatever the test left.
struct Cleanup(Vec<String>);

impl Drop for Cleanup {
    fn drop(&mut self) {
        for nd in &self.0 {
            if Path::new("/sys/class/net").join(nd).exists() {
                let _ = route::delete(nd);
            }
        }
    }
}

/// The watch and the exporter killed when the test ends, passed or not: a device they
/// held would keep the cleanup's deletes waiting.
struct Kill(Vec<u32>);

impl Drop for Kill {
    fn drop(&mut self) {
        for pid in &self.0 {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
        }
    }
}

fn output(p: &Proc) -> String {
    std::fs::read_to_string(&p.log).unwrap_or_default()
}

/// Waits (at most 60 s) until the watch, the exporter and the witness agree with the
/// kernel; panics with what differs otherwise. Returns the last scrape and how long
/// it took to agree.
fn settled(
    watch: &Proc,
    start: &BTreeSet<String>,
    exporter: (u32, SocketAddr),
    witness: &Witness,
) -> (String, Duration) {
    let t = Instant::now();
    let mut why = Vec::new();
    let mut text = String::new();
    let ok = wait_until(Duration::from_secs(60), || {
        why.clear();
        let kernel = sysfs_devices();
        let links = rdma_links();
        if links != kernel {
            why.push(format!("rdma link {links:?}, sysfs {kernel:?}"));
        }
        let (followed, ..) = replay(start, &output(watch));
        if followed != kernel {
            why.push(format!("watch's lines follow {followed:?}"));
        }
        let held = held_devices(watch.child.id());
        if held != kernel {
            why.push(format!("watch holds {held:?}"));
        }
        let held = held_devices(exporter.0);
        if held != kernel {
            why.push(format!("exporter holds {held:?}"));
        }
        let present = witness.counts(start).1;
        if present != kernel {
            why.push(format!("the monitor has {present:?}"));
        }
        text = scrape(exporter.1).unwrap_or_default();
        why.extend(scrape_differs(&text, &kernel));
        if !why.is_empty() {
            why.insert(0, format!("sysfs {kernel:?}"));
        }
        why.is_empty()
    });
    assert!(
        ok,
        "kernel {}: not settled 60 s after the storm:\n  {}\nwatch output:\n{}",
        common::kernel(),
        why.join("\n  "),
        output(watch)
    );
    (text, t.elapsed())
}

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn storm_under_watch_and_exporter() {
    let _ = common::devices();
    common::require_siw();
    let bin = common::uverbs_bin();
    let bin = bin.to_str().unwrap();
    let mut slots: Vec<Slot> = (0..SLOTS)
        .map(|i| Slot {
            netdev: format!("stnet{i}"),
            link: if i % 2 == 0 {
                format!("st_r{i}")
            } else {
                format!("st_s{i}")
            },
            kind: if i % 2 == 0 {
                LinkType::Rxe
            } else {
                LinkType::Siw
            },
            has_netdev: false,
            up: false,
            has_link: false,
        })
        .collect();
    let _cleanup = Cleanup(slots.iter().map(|s| s.netdev.clone()).collect());
    let start = sysfs_devices();

    let witness = Witness::start();
    let mut watch = spawn(&[bin, "watch"]);
    let (mut exporter, addr) = common::start_exporter(&[] as &[&str], |_| {});
    let epid = exporter.id();
    let _kill = Kill(vec![watch.child.id(), epid]);
    let ready = wait_until(Duration::from_secs(30), || {
        held_devices(watch.child.id()) == start
            && held_devices(epid) == start
            && scrape(addr).is_some_and(|t| scrape_differs(&t, &start).is_empty())
    });
    assert!(
        ready,
        "the watch and the exporter never held {start:?}: {}",
        output(&watch)
    );
    let (wpid, w0, e0) = (watch.child.id(), memory(watch.child.id()), memory(epid));
    let wfds0 = fd_count(wpid);

    // Scrapes all along (as Prometheus would, once a second), but while stopped.
    let paused = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicBool::new(false));
    let scrapes = Arc::new(AtomicUsize::new(0));
    let failed = Arc::new(AtomicUsize::new(0));
    let scraper = {
        let (paused, done, scrapes, failed) = (
            paused.clone(),
            done.clone(),
            scrapes.clone(),
            failed.clone(),
        );
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                if !paused.load(Ordering::Relaxed) {
                    match scrape(addr) {
                        Some(_) => scrapes.fetch_add(1, Ordering::Relaxed),
                        None => failed.fetch_add(1, Ordering::Relaxed),
                    };
                }
                std::thread::sleep(Duration::from_secs(1));
            }
        })
    };

    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut t = Tally::default();
    let all: Vec<usize> = (0..SLOTS).collect();
    let t0 = Instant::now();
    // In two halves: the memory after the first is the reference of the bound (what
    // the devices open at once and the allocator's arenas take), the rest of the storm
    // must not add to it.
    storm(&mut slots, &all, &[], &mut rng, &mut t, RUNNING_OPS / 2);
    let (w_half, e_half) = (memory(wpid), memory(epid));
    storm(
        &mut slots,
        &all,
        &[],
        &mut rng,
        &mut t,
        RUNNING_OPS - RUNNING_OPS / 2,
    );
    let running = t0.elapsed();
    let (w_run, e_run) = (memory(wpid), memory(epid));
    println!("running storm: {t:?} in {running:?}");
    // Stopped: the slots without a link change; the others' links are held (the delete
    // would wait for the stopped processes), only their netdevs go up and down.
    let held: Vec<usize> = all
        .iter()
        .copied()
        .filter(|&i| slots[i].has_link || ib_exists(&slots[i].link))
        .collect();
    let free: Vec<usize> = all.iter().copied().filter(|i| !held.contains(i)).collect();
    assert!(
        free.len() >= 3,
        "too few free slots to storm while stopped: {free:?}"
    );
    paused.store(true, Ordering::Relaxed);
    signal(wpid, "-STOP");
    signal(epid, "-STOP");
    let t1 = Instant::now();
    storm(&mut slots, &free, &held, &mut rng, &mut t, STOPPED_OPS);
    let stopped = t1.elapsed();
    println!("stopped storm: {t:?} in {stopped:?}");
    let stopped_drops = (netlink_drops(wpid), netlink_drops(epid));
    signal(wpid, "-CONT");
    signal(epid, "-CONT");
    paused.store(false, Ordering::Relaxed);

    let (text, took) = settled(&watch, &start, (epid, addr), &witness);
    let kernel = sysfs_devices();
    let (wdrops, edrops) = (netlink_drops(wpid), netlink_drops(epid));
    let mydrops = netlink_drops(std::process::id());
    let out = output(&watch);
    let (_, added, removed) = replay(&start, &out);
    let errors: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("uverbs watch:"))
        .collect();
    let (per, _) = witness.counts(&start);
    println!(
        "kernel {}: storm of {} operations ({t:?}) in {:?} ({running:?} running, {stopped:?} \
         with the watch and the exporter stopped); settled {took:?} after; \
         {} storm devices present; watch: {added} DEVICE_ADDED, {removed} DEVICE_REMOVED, \
         {} error lines; netlink drops (proto: packets) when stopped: watch {:?}, exporter \
         {:?}; after: watch {wdrops:?}, exporter {edrops:?}, this process {mydrops:?}; \
         {} scrapes during the storm ({} failed)",
        common::kernel(),
        t.ops(),
        t0.elapsed(),
        kernel.len() - start.len(),
        errors.len(),
        stopped_drops.0,
        stopped_drops.1,
        scrapes.load(Ordering::Relaxed),
        failed.load(Ordering::Relaxed),
    );
    println!(
        "scrape after the storm:\n{}",
        text.lines()
            .filter(|l| l.starts_with("uverbs_port_state{"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    if !errors.is_empty() {
        println!("watch's error lines:\n{}", errors.join("\n"));
    }
    // The library's monitor, its sockets never overflowed, reported each add the kernel
    // made and each removal, once.
    if mydrops.values().all(|&d| d == 0) {
        for (name, n) in &t.adds {
            let (a, r) = per.get(name).copied().unwrap_or_default();
            let present = usize::from(kernel.contains(name));
            assert_eq!(
                (a, r),
                (*n, n - present),
                "{name}: {n} adds, present {present}; the monitor reported (added, removed)"
            );
        }
    }

    // Every storm device deleted (with its netdev, half of them): back where it began.
    for s in slots.iter_mut().filter(|s| s.has_netdev) {
        if s.has_link && rng.next(2) == 0 {
            link::del(&s.link).unwrap();
        }
        route::delete(&s.netdev).unwrap();
        s.has_netdev = false;
    }
    let (_, took_back) = settled(&watch, &start, (epid, addr), &witness);
    done.store(true, Ordering::Relaxed);
    scraper.join().unwrap();
    let (w1, e1) = (memory(wpid), memory(epid));
    let wfds1 = fd_count(wpid);
    println!(
        "kernel {}: back to {start:?} {took_back:?} after the last delete; (RssAnon, VmRSS, \
         VmHWM KiB, threads) before, after 300 operations, after 600, at the end: watch {w0:?} \
         {w_half:?} {w_run:?} {w1:?}, fds {wfds0} -> {wfds1}; exporter {e0:?} {e_half:?} \
         {e_run:?} {e1:?}",
        common::kernel(),
    );
    assert_eq!(wfds1, wfds0, "the watch's fds");
    assert_eq!(w1.3, w0.3, "the watch's threads");
    assert!(
        w1.0 <= w_half.0 + ANON_GROWTH_KIB,
        "the watch's memory grew after the first 300 operations: {w_half:?} -> {w1:?}"
    );
    assert!(
        e1.0 <= e_half.0 + EXPORTER_GROWTH_KIB,
        "the exporter's memory grew after the first 300 operations: {e_half:?} -> {e1:?}"
    );
    // The exporter keeps one reader thread per device name it collected, for 5 minutes
    // after its last collection: at most one per storm link beside those it had; and an
    // HTTP worker stays 60 s after its last request: at most one per client scraping at
    // once, two here (the scraper thread and this one), of which it may have had none.
    let bound = e0.3 + SLOTS as u64 + 2;
    assert!(
        wait_until(Duration::from_secs(5), || memory(epid).3 <= bound),
        "the exporter's threads: {} before the storm, {} now (bound {bound})",
        e0.3,
        memory(epid).3
    );
    let _ = exporter.kill();
    let _ = exporter.wait();
    let _ = watch.child.kill();
    let _ = watch.child.wait();
    assert!(!output(&watch).contains("panicked"), "{}", output(&watch));
    let _ = std::fs::remove_file(&watch.log);
    drop(witness);
}
