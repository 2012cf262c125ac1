//! Async events and the event-invalidated port cache on real devices (VM rig only).
//!
//! Each test takes a device's netdev down and up with `ip link` and checks the events
//! the kernel delivers and what [`PortCache`] answers. A guard brings the netdev back up
//! even when a test fails, so that the tests that run after it in the same VM find
//! their devices ACTIVE.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use uverbs::verbs::event::{EventSource, Next};
use uverbs::verbs::ipoib::{netdevs, LinkSource};
use uverbs::{
    CallPath, Context, Discovery, Error, Event, EventStream, EventType, OpenOptions, PortCache,
    PortState,
};

/// How long a test waits for an event the kernel should send at once.
const EVENT_TIMEOUT: Duration = Duration::from_secs(5);

/// The netdev of port 1 of `dev`, from sysfs (rxe: `parent`; siw: the GID table on 6.12,
/// the GID's MAC on 6.1).
fn netdev_of(dev: &str) -> String {
    let links = netdevs(Path::new("/sys"), dev).unwrap_or_else(|e| panic!("{dev}: {e}"));
    let link = links
        .iter()
        .find(|l| l.port == 1)
        .unwrap_or_else(|| panic!("{dev}: no netdev found for port 1: {links:?}"));
    println!(
        "{dev} (kernel {}): port 1 ==> {} ({:?}, source {:?})",
        common::kernel(),
        link.netdev,
        link.operstate,
        link.source
    );
    if dev.starts_with("rxe") {
        assert_eq!(link.source, LinkSource::SoftParent, "{dev}: {links:?}");
    }
    link.netdev.clone()
}

fn ip_link(netdev: &str, state: &str) {
    let st = Command::new("ip")
        .args(["link", "set", "dev", netdev, state])
        .status()
        .unwrap_or_else(|e| panic!("running ip: {e}"));
    assert!(st.success(), "ip link set dev {netdev} {state}: {st}");
}

/// Brings the netdev back up when dropped.
struct LinkGuard(String);

impl LinkGuard {
    fn down(netdev: &str) -> LinkGuard {
        ip_link(netdev, "down");
        LinkGuard(netdev.to_owned())
    }
}

impl Drop for LinkGuard {
    fn drop(&mut self) {
        let _ = Command::new("ip")
            .args(["link", "set", "dev", &self.0, "up"])
            .status();
    }
}

/// Reads events until one of `kind` for port 1 arrives; returns every event read, that
/// one last. Panics after [`EVENT_TIMEOUT`] with what was seen.
fn wait_for(stream: &mut EventStream, kind: EventType, what: &str) -> Vec<Event> {
    let deadline = Instant::now() + EVENT_TIMEOUT;
    let mut seen = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match stream
            .read_timeout(left)
            .unwrap_or_else(|e| panic!("{what}: {e}"))
        {
            Next::Event(ev) => {
                seen.push(ev);
                if ev.kind == kind && ev.port() == Some(1) {
                    return seen;
                }
            }
            Next::Empty if left.is_zero() => {
                panic!("{what}: no {kind} for port 1 within {EVENT_TIMEOUT:?}; saw {seen:?}")
            }
            Next::Empty => {}
            Next::End => panic!("{what}: the stream ended; saw {seen:?}"),
        }
    }
}

/// Reads whatever else is queued within `quiet` (late duplicates, GID changes).
fn drain_late(stream: &mut EventStream, quiet: Duration) -> Vec<Event> {
    let mut seen = Vec::new();
    while let Next::Event(ev) = stream.read_timeout(quiet).unwrap() {
        seen.push(ev);
    }
    seen
}

fn show(dev: &str, evs: &[Event]) -> String {
    evs.iter()
        .map(|e| e.on(dev).to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Waits until the cache has read at least one more event than `events_before`, so that
/// the cache's own stream (a separate kernel queue, filled a moment after the test's)
/// has the event too.
fn cache_saw_event(cache: &mut PortCache<&Context>, events_before: u64, what: &str) {
    let deadline = Instant::now() + EVENT_TIMEOUT;
    while cache.stats().events == events_before {
        let left = deadline.saturating_duration_since(Instant::now());
        assert!(!left.is_zero(), "{what}: the cache's stream got no event");
        cache.wait(Some(left)).unwrap();
    }
}

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn netdev_down_up_gives_port_events_and_refreshes_the_cache() {
    for dev in common::devices() {
        let netdev = netdev_of(&dev);
        let ctx = Context::open_by_name(&dev).unwrap();
        let mut stream = ctx.events().unwrap();
        assert_eq!(stream.source(), EventSource::Ioctl, "{dev}");
        assert_eq!(stream.device(), dev);
        let mut cache = PortCache::new(&ctx).unwrap();
        assert_eq!(cache.stats().refreshes, u64::from(ctx.port_count()));
        assert_eq!(
            cache.query_port(1).unwrap().state,
            PortState::Active,
            "{dev}"
        );
        assert_eq!(
            stream.try_read().unwrap(),
            Next::Empty,
            "{dev}: no event yet"
        );

        // Down: PORT_ERR on port 1, and the cache re-queries the port.
        let guard = LinkGuard::down(&netdev);
        let mut down = wait_for(&mut stream, EventType::PortErr, &format!("{dev} down"));
        let before = cache.stats();
        cache_saw_event(&mut cache, before.events, &format!("{dev} down"));
        let mid = cache.stats();
        let p = cache.query_port(1).unwrap();
        let after = cache.stats();
        assert_eq!(p.state, PortState::Down, "{dev}: cache after PORT_ERR");
        assert_eq!(
            after.refreshes,
            mid.refreshes + 1,
            "{dev}: one refresh, not a stale hit"
        );
        assert_eq!(after.hits, mid.hits, "{dev}: not answered from memory");
        assert_eq!(
            ctx.query_port(1).unwrap().state,
            PortState::Down,
            "{dev}: kernel"
        );
        // Once late events (if any) are applied, the next query is a hit again.
        down.extend(drain_late(&mut stream, Duration::from_millis(300)));
        assert_eq!(cache.query_port(1).unwrap().state, PortState::Down);
        let s = cache.stats();
        assert_eq!(cache.query_port(1).unwrap().state, PortState::Down);
        assert_eq!(cache.stats().hits, s.hits + 1, "{dev}");
        assert_eq!(cache.stats().refreshes, s.refreshes, "{dev}");
        println!(
            "{dev} (kernel {}): {netdev} down -> {}",
            common::kernel(),
            show(&dev, &down)
        );

        // Up: PORT_ACTIVE, and the cache shows ACTIVE.
        ip_link(&netdev, "up");
        let mut up = wait_for(&mut stream, EventType::PortActive, &format!("{dev} up"));
        let before = cache.stats();
        cache_saw_event(&mut cache, before.events, &format!("{dev} up"));
        let mid = cache.stats();
        let p = cache.query_port(1).unwrap();
        assert_eq!(p.state, PortState::Active, "{dev}: cache after PORT_ACTIVE");
        assert_eq!(cache.stats().refreshes, mid.refreshes + 1, "{dev}");
        up.extend(drain_late(&mut stream, Duration::from_millis(300)));
        println!(
            "{dev} (kernel {}): {netdev} up -> {}",
            common::kernel(),
            show(&dev, &up)
        );
        drop(guard);

        // Every event the test's stream saw is a port-1 event a cache refreshes on.
        for ev in down.iter().chain(&up) {
            assert_eq!(ev.port(), Some(1), "{dev}: {ev}");
        }
        // And the cache agrees with the kernel once everything is applied.
        cache.refresh_all().unwrap();
        let mut fresh = ctx.query_port(1).unwrap();
        let mut cached = cache.query_port(1).unwrap();
        fresh.bad_pkey_cntr = 0;
        fresh.qkey_viol_cntr = 0;
        cached.bad_pkey_cntr = 0;
        cached.qkey_viol_cntr = 0;
        assert_eq!(cached, fresh, "{dev}");
    }
}

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn write_get_context_async_fd_delivers_events() {
    for dev in common::devices() {
        let netdev = netdev_of(&dev);
        let info = Discovery::new().device(&dev).unwrap();
        let ctx = OpenOptions::new()
            .get_context(CallPath::Write)
            .open(&info)
            .unwrap();
        assert_eq!(ctx.get_context_path(), CallPath::Write);
        // The write() GET_CONTEXT's own async fd, then a second stream by ioctl.
        let mut wstream = ctx.events().unwrap();
        assert_eq!(wstream.source(), EventSource::WriteGetContext, "{dev}");
        let mut istream = ctx.events().unwrap();
        assert_eq!(istream.source(), EventSource::Ioctl, "{dev}");
        // The write() fd is taken: asking for it again says so.
        match ctx.events_via(CallPath::Write) {
            Err(Error::BadArgument { .. }) => {}
            other => panic!("{dev}: {other:?}"),
        }
        let guard = LinkGuard::down(&netdev);
        let w = wait_for(&mut wstream, EventType::PortErr, &format!("{dev} write fd"));
        let i = wait_for(&mut istream, EventType::PortErr, &format!("{dev} ioctl fd"));
        ip_link(&netdev, "up");
        let w2 = wait_for(
            &mut wstream,
            EventType::PortActive,
            &format!("{dev} write fd"),
        );
        let _ = wait_for(
            &mut istream,
            EventType::PortActive,
            &format!("{dev} ioctl fd"),
        );
        drop(guard);
        println!(
            "{dev} (kernel {}): write() async fd: {} / {}; ioctl fd: {}",
            common::kernel(),
            show(&dev, &w),
            show(&dev, &w2),
            show(&dev, &i)
        );
    }
}

/// The number of read(2) calls this process made (`syscr` of `/proc/self/io`), when the
/// kernel keeps that count.
fn read_syscalls() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/io").ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("syscr:"))
        .and_then(|v| v.trim().parse().ok())
}

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn cache_answers_repeated_queries_from_memory() {
    for dev in common::devices() {
        let ctx = Context::open_by_name(&dev).unwrap();
        let mut cache = PortCache::new(&ctx).unwrap();
        let start = cache.stats();
        let want = cache.query_port(1).unwrap();
        let n = 10_000u64;
        let reads_before = read_syscalls();
        let t = Instant::now();
        for _ in 0..n {
            assert_eq!(cache.query_port(1).unwrap().state, want.state);
        }
        let cached = t.elapsed();
        // One read(2) (answered EAGAIN) per query, plus the few reads of /proc/self/io.
        if let (Some(a), Some(b)) = (reads_before, read_syscalls()) {
            let reads = b - a;
            assert!(
                (n..=n + 16).contains(&reads),
                "{dev}: {reads} read syscalls for {n} queries"
            );
            println!("{dev}: {reads} read(2) calls for {n} cached queries");
        }
        let s = cache.stats();
        assert_eq!(
            s.refreshes, start.refreshes,
            "{dev}: no QUERY_PORT while nothing changed"
        );
        assert_eq!(s.hits, start.hits + n + 1, "{dev}");
        assert_eq!(s.events, 0, "{dev}");
        assert_eq!(cache.peek(1), Some(want));
        let t = Instant::now();
        for _ in 0..n {
            ctx.query_port(1).unwrap();
        }
        let direct = t.elapsed();
        println!(
            "{dev} (kernel {}): {n} cached queries {:?} ({:?} each), {n} QUERY_PORT ioctls {:?}",
            common::kernel(),
            cached,
            cached / n as u32,
            direct
        );
        // Port numbers are checked before anything else.
        assert!(matches!(cache.query_port(0), Err(Error::NoSuchPort { .. })));
        assert!(matches!(cache.query_port(2), Err(Error::NoSuchPort { .. })));
        assert_eq!(cache.peek(0), None);
        assert_eq!(cache.peek(2), None);
    }
}

#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn quiet_stream_basics() {
    for dev in common::devices() {
        let ctx = Context::open_by_name(&dev).unwrap();
        let mut a = ctx.events_via(CallPath::Ioctl).unwrap();
        let mut b = ctx.events_via(CallPath::Ioctl).unwrap();
        assert_eq!(a.try_read().unwrap(), Next::Empty, "{dev}");
        let t = Instant::now();
        assert!(!a.wait(Some(Duration::from_millis(50))).unwrap(), "{dev}");
        assert!(t.elapsed() >= Duration::from_millis(40));
        assert_eq!(
            a.read_timeout(Duration::from_millis(10)).unwrap(),
            Next::Empty
        );
        assert!(!a.is_ended());
        // Reads never block (the file is made non-blocking, whatever the kernel created
        // it with), and what an event loop gets can only be polled (issue 39): an epoll
        // set, quiet while nothing is queued, that refuses a read (EINVAL), so it cannot
        // take events (nor drain the wake file) from under the stream.
        assert_eq!(b.try_read().unwrap(), Next::Empty, "{dev}");
        let pfd = b.poll_fd().unwrap();
        assert!(!common::readable_within(pfd, 0), "{dev}");
        let mut byte = [0u8; 32];
        assert_eq!(
            rustix::io::read(pfd, &mut byte),
            Err(rustix::io::Errno::INVAL),
            "{dev}"
        );
        // A context opened by ioctl has no write() async fd.
        assert!(matches!(
            ctx.events_via(CallPath::Write),
            Err(Error::BadArgument { .. })
        ));
        // The stream outlives its context; it just stays quiet.
        drop(ctx);
        assert_eq!(a.try_read().unwrap(), Next::Empty, "{dev}");
        // An event loop that first asks for the descriptor after the context's files were
        // revoked (a device being removed) gets one, readable at once, and the stream then
        // says why: the revoked event file is the inert one, which epoll does not take,
        // and the wake file stands for it (found by tests/storm.rs: `uverbs watch` ended
        // when a device went away before its stream was first polled).
        let ctx = Context::open_by_name(&dev).unwrap();
        let mut c = ctx.events().unwrap();
        ctx.revoke().unwrap();
        let pfd = c
            .poll_fd()
            .unwrap_or_else(|e| panic!("{dev}: poll_fd after revoke: {e}"));
        assert!(
            common::readable_within(pfd, 0),
            "{dev}: not readable after revoke"
        );
        assert!(
            matches!(c.try_read(), Err(Error::DeviceRemoved { .. })),
            "{dev}: {:?}",
            c.try_read()
        );
    }
}
