//! A port attribute cache kept fresh by the device's async events.
//!
//! [`PortCache`] answers [`query_port`](PortCache::query_port) from memory and re-asks
//! the kernel only for a port that an event said may have changed. The cache owns its
//! own [`EventStream`], so it sees every event whatever else reads events of the same
//! context.
//!
//! ## Staleness guarantee
//!
//! Every event that the kernel had queued on the cache's event file when
//! `query_port` starts is applied before the answer: the call first drains the file
//! (non-blocking reads until it is empty) and then re-queries every port an event
//! touched. So the answer is never older than the last event the kernel delivered.
//!
//! It can still be older than the port itself for a short while: drivers change the
//! port's state first and then dispatch the event, which the RDMA core delivers from
//! a workqueue (`ib_dispatch_event` → `ib_wq`, Linux 6.1 and 6.12 alike). Between the
//! change and the event's arrival a direct [`Context::query_port`] may already see the
//! new state while the cache still answers the old one. A caller that must see a
//! change it caused itself should wait for the event ([`PortCache::wait`]) or call
//! [`PortCache::refresh_all`].
//!
//! Port fields that change without an event (the `bad_pkey_cntr` and `qkey_viol_cntr`
//! counters, and on some drivers the MTU) are as of the last refresh.
//!
//! ## What refreshes what
//!
//! | event | effect |
//! |---|---|
//! | `PORT_ACTIVE`, `PORT_ERR`, `LID_CHANGE`, `PKEY_CHANGE`, `SM_CHANGE`, `CLIENT_REREGISTER`, `GID_CHANGE` | that port is re-queried on next use |
//! | `DEVICE_SPEED_CHANGE` (since Linux 7.0: the speed of one or several ports changed; the kernel does not say which), a port event with an impossible port, an unknown event type | every port is re-queried, `effective_speed` and `active_speed(_ex)` included |
//! | `DEVICE_FATAL` (or the end of the stream) | the cache is dead: every query fails with [`Error::DeviceGone`] |
//! | QP, CQ, SRQ and WQ events | nothing |
//!
//! ## Cost
//!
//! A query of an unchanged port costs one `read(2)` that returns `EAGAIN`, and no
//! allocation. [`CacheStats`] counts hits and refreshes.

use core::ops::Deref;
use core::time::Duration;
use std::os::fd::BorrowedFd;

use rustix::io::Errno;

use crate::error::{Error, Op, Result};
use crate::types::EventType;
use crate::verbs::context::Context;
use crate::verbs::event::{Event, EventScope, EventStream, Next};
use crate::verbs::port::PortAttr;

/// At most this many events are read by one drain; if more are queued, every port is
/// re-queried (which covers whatever the unread events say) and the rest are read by
/// the next call.
const MAX_DRAIN: usize = 4096;

// The thread-safety of the caches, checked at compile time: a `PortCache` (holding its
// context by reference or by `Arc`) can move to another thread; a `WatchedPortCache` is
// shared between threads, each with its own `PortReader`.
const _: () = {
    const fn send<T: Send>() {}
    const fn send_sync<T: Send + Sync>() {}
    send::<PortCache<&Context>>();
    send::<PortCache<std::sync::Arc<Context>>>();
    send_sync::<WatchedPortCache>();
    send::<PortReader<'_>>();
};

/// Counters of a [`PortCache`], for tests and monitoring.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Queries answered from memory.
    pub hits: u64,
    /// QUERY_PORT calls made to fill or refresh a port (the initial fill included).
    pub refreshes: u64,
    /// Events read from the event file.
    pub events: u64,
    /// Events that marked at least one port stale.
    pub invalidations: u64,
}

/// What an event makes stale in a cache of a device's ports (the table in the
/// [module documentation](self)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stale {
    /// Nothing (QP, CQ, SRQ and WQ events).
    Nothing,
    /// That port (from 1).
    Port(usize),
    /// Every port: `DEVICE_SPEED_CHANGE` (a speed changed on one or several ports: the
    /// kernel does not say which, whatever the element holds), a port event with a port
    /// the device does not have, an event type this crate does not know.
    AllPorts,
    /// The device: `DEVICE_FATAL`.
    Dead,
}

impl Stale {
    fn after(ev: &Event, port_count: usize) -> Stale {
        match ev.kind {
            EventType::DeviceFatal => Stale::Dead,
            EventType::DeviceSpeedChange => Stale::AllPorts,
            kind if Event::is_port_event_type(kind) => match ev.scope() {
                EventScope::Port(p) if (p as usize) <= port_count => Stale::Port(p as usize),
                // A port number the device does not have: trust nothing.
                _ => Stale::AllPorts,
            },
            EventType::Unknown(_) => Stale::AllPorts,
            // QP, CQ, SRQ and WQ events do not change ports.
            _ => Stale::Nothing,
        }
    }
}

/// The async events a cache has seen for one port, by kind: a port's state changes
/// (link flaps) counted from the kernel's own events, without polling.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PortEvents {
    /// `IBV_EVENT_PORT_ACTIVE`: the port became active.
    pub active: u64,
    /// `IBV_EVENT_PORT_ERR`: the port left the active state.
    pub error: u64,
    /// The other port events: LID, P_Key, SM and GID changes, client reregistration.
    pub other: u64,
}

impl PortEvents {
    /// The port's state changes: `PORT_ACTIVE` and `PORT_ERR` events.
    pub fn state_changes(&self) -> u64 {
        self.active + self.error
    }

    fn count(&mut self, kind: EventType) {
        match kind {
            EventType::PortActive => self.active += 1,
            EventType::PortErr => self.error += 1,
            _ => self.other += 1,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Slot {
    attr: Option<PortAttr>,
    stale: bool,
    events: PortEvents,
}

/// Port attributes of one device, cached and invalidated by async events.
///
/// `C` is how the cache holds its [`Context`]: `&Context` (`PortCache<&Context>`) or an owning
/// pointer such as `Arc<Context>` for a cache that outlives the scope that opened the
/// device. Queries take `&mut self` (they read events and update counters); share a
/// cache between threads behind a `Mutex`.
///
/// ```no_run
/// # fn main() -> uverbs::Result<()> {
/// let ctx = uverbs::Context::open_by_name("rxe0")?;
/// let mut cache = uverbs::PortCache::new(&ctx)?;
/// let state = cache.query_port(1)?.state; // from memory unless an event came
/// # let _ = state;
/// # Ok(())
/// # }
/// ```
///
/// Owning the context, to keep the cache in a long-lived struct:
///
/// ```no_run
/// # fn main() -> uverbs::Result<()> {
/// use std::sync::Arc;
/// let ctx = Arc::new(uverbs::Context::open_by_name("rxe0")?);
/// let cache: uverbs::PortCache<Arc<uverbs::Context>> = uverbs::PortCache::new(ctx.clone())?;
/// # let _ = cache;
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct PortCache<C: Deref<Target = Context>> {
    ctx: C,
    events: EventStream,
    ports: Vec<Slot>,
    dead: Option<Event>,
    stats: CacheStats,
}

impl<C: Deref<Target = Context>> PortCache<C> {
    /// Opens an event stream on `ctx` (see [`Context::events`]), then queries every
    /// port. The stream is opened first, so no change between the two is missed.
    ///
    /// # Errors
    ///
    /// As [`Context::events`], then as [`PortCache::with_events`].
    pub fn new(ctx: C) -> Result<Self> {
        let events = ctx.events()?;
        Self::with_events(ctx, events)
    }

    /// A cache fed by an event stream of the same context that the caller opened (e.g.
    /// with [`Context::events_via`]). The stream must not have been read from since it
    /// was opened, or the changes it reported would be missed.
    ///
    /// Either way the context is put under the device guard ([`Context::guard`]), so
    /// that a removal of the device does not wait for this cache; where the guard cannot
    /// start (a sandbox without netlink) the cache works unguarded.
    ///
    /// # Errors
    ///
    /// [`Error::BadArgument`] for a stream of another context (checked here, once: a
    /// `C` whose `Deref` answers another context later is the caller's to avoid); else as
    /// [`PortCache::refresh_all`]: the first query of the ports.
    pub fn with_events(ctx: C, events: EventStream) -> Result<Self> {
        // Another context's stream would report changes the cache would apply to the
        // wrong device, and keep quiet about this one's.
        if !std::sync::Arc::ptr_eq(events.lifeline(), ctx.raw().lifeline()) {
            return Err(Error::BadArgument {
                op: Op::new("port cache", ctx.name()),
                reason: format!(
                    "the event stream is of another context ({}), not of context #{} of {}",
                    events.device(),
                    ctx.serial(),
                    ctx.name()
                ),
            });
        }
        let _ = ctx.guard();
        let n = usize::from(ctx.port_count());
        let mut cache = PortCache {
            ctx,
            events,
            ports: vec![
                Slot {
                    attr: None,
                    stale: true,
                    events: PortEvents::default(),
                };
                n
            ],
            dead: None,
            stats: CacheStats::default(),
        };
        cache.refresh_all()?;
        Ok(cache)
    }

    /// The context.
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// The counters.
    pub fn stats(&self) -> CacheStats {
        self.stats
    }

    /// The attributes of `port` (from 1): from memory, after applying every event
    /// queued so far (see the [module documentation](self) for the exact guarantee).
    ///
    /// # Errors
    ///
    /// [`Error::NoSuchPort`] for a port the device does not have; [`Error::DeviceGone`]
    /// once `DEVICE_FATAL` has been seen (or the stream ended); the error of reading
    /// the events ([`EventStream::try_read`]); the error of QUERY_PORT when a refresh
    /// fails (the port stays stale and is retried next time).
    #[doc(alias = "ibv_query_port")]
    pub fn query_port(&mut self, port: u32) -> Result<PortAttr> {
        let i = self.ctx.check_port("QUERY_PORT (cached)", port)? as usize - 1;
        self.process_events()?;
        self.check_alive(port)?;
        let slot = self.ports[i];
        match (slot.stale, slot.attr) {
            (false, Some(attr)) => {
                self.stats.hits += 1;
                Ok(attr)
            }
            _ => self.refresh(port),
        }
    }

    /// The cached attributes of `port` as they are, without reading events or calling
    /// the kernel; `None` if the port is not cached or is known to be stale.
    pub fn peek(&self, port: u32) -> Option<PortAttr> {
        let i = usize::try_from(port).ok()?.checked_sub(1)?;
        let slot = self.ports.get(i)?;
        if slot.stale || self.dead.is_some() || self.ctx.is_revoked() {
            None
        } else {
            slot.attr
        }
    }

    /// The port events applied so far for `port` (from 1), by kind (see
    /// [`PortEvents`]); `None` for a port the device does not have. Call
    /// [`process_events`](Self::process_events) first to count what is queued.
    pub fn port_events(&self, port: u32) -> Option<PortEvents> {
        let i = usize::try_from(port).ok()?.checked_sub(1)?;
        self.ports.get(i).map(|s| s.events)
    }

    /// Re-queries every port now, after applying the queued events.
    ///
    /// # Errors
    ///
    /// [`Error::DeviceGone`] once `DEVICE_FATAL` has been seen; the error of reading the
    /// events or of the first QUERY_PORT that fails (the ports after it stay stale).
    pub fn refresh_all(&mut self) -> Result<()> {
        self.process_events()?;
        self.check_alive(0)?;
        for slot in &mut self.ports {
            slot.stale = true;
        }
        for p in 1..=self.ports.len() as u32 {
            self.refresh(p)?;
        }
        Ok(())
    }

    /// Reads every queued event and marks the ports they concern stale (without
    /// querying them). Returns the number of events read. Call it when the cache's fd
    /// ([`poll_fd`](Self::poll_fd)) polls readable, to keep [`peek`](Self::peek) accurate.
    ///
    /// # Errors
    ///
    /// As [`EventStream::try_read`] (the events read before the error are applied).
    pub fn process_events(&mut self) -> Result<usize> {
        let mut n = 0;
        while self.dead.is_none() {
            if n == MAX_DRAIN {
                self.invalidate_all();
                break;
            }
            match self.events.try_read()? {
                Next::Empty => break,
                Next::End => {
                    self.dead.get_or_insert(Event {
                        kind: EventType::DeviceFatal,
                        element: 0,
                    });
                }
                Next::Event(ev) => {
                    n += 1;
                    self.stats.events += 1;
                    self.apply(&ev);
                }
            }
        }
        Ok(n)
    }

    /// Waits until an event is queued (or the stream ended), at most `timeout`, then
    /// applies the queued events. Returns the number of events applied (0 on timeout).
    ///
    /// # Errors
    ///
    /// As [`EventStream::wait`] and [`PortCache::process_events`].
    pub fn wait(&mut self, timeout: Option<Duration>) -> Result<usize> {
        if self.dead.is_none() {
            self.events.wait(timeout)?;
        }
        self.process_events()
    }

    fn events_all(&self) -> Vec<PortEvents> {
        self.ports.iter().map(|s| s.events).collect()
    }

    /// The `DEVICE_FATAL` event (or end of stream) that killed the cache, if any.
    pub fn fatal(&self) -> Option<Event> {
        self.dead
    }

    fn apply(&mut self, ev: &Event) {
        match Stale::after(ev, self.ports.len()) {
            Stale::Nothing => {}
            Stale::Port(p) => {
                self.stats.invalidations += 1;
                let slot = &mut self.ports[p - 1];
                slot.stale = true;
                slot.events.count(ev.kind);
            }
            Stale::AllPorts => {
                self.stats.invalidations += 1;
                self.invalidate_all();
            }
            Stale::Dead => {
                self.stats.invalidations += 1;
                self.dead = Some(*ev);
            }
        }
    }

    fn invalidate_all(&mut self) {
        for slot in &mut self.ports {
            slot.stale = true;
        }
    }

    fn check_alive(&self, port: u32) -> Result<()> {
        match self.dead {
            None => Ok(()),
            Some(_) => Err(Error::DeviceGone {
                op: if port == 0 {
                    Op::new("QUERY_PORT (cached)", self.ctx.name())
                } else {
                    Op::port("QUERY_PORT (cached)", self.ctx.name(), port)
                },
                errno: Errno::IO,
            }),
        }
    }

    fn refresh(&mut self, port: u32) -> Result<PortAttr> {
        let attr = self.ctx.query_port(port)?;
        self.stats.refreshes += 1;
        let slot = &mut self.ports[port as usize - 1];
        slot.attr = Some(attr);
        slot.stale = false;
        Ok(attr)
    }
}

impl<C: Deref<Target = Context>> PortCache<C> {
    /// A descriptor for an event loop: readable when the cache's event stream has an
    /// event queued, or its context was revoked ([`EventStream::poll_fd`]).
    ///
    /// # Errors
    ///
    /// As [`EventStream::poll_fd`].
    pub fn poll_fd(&self) -> Result<BorrowedFd<'_>> {
        self.events.poll_fd()
    }
}

/// A port cache that answers without any system call: a watcher thread reads the
/// device's events and re-queries the ports they concern, and
/// [`query_port`](WatchedPortCache::query_port) copies the latest answer from memory.
///
/// Guarantee: an answer reflects every event the watcher has applied. An event the
/// kernel has queued is applied within the watcher's wake-up latency (it sleeps in
/// `poll(2)` on the event file, so typically microseconds to a millisecond, and at
/// most until the next time slice on a busy machine); during that window the answer is
/// the one from before the event. Use [`PortCache`] when a caller needs every queued
/// event applied before it is answered (one `read(2)` per query).
///
/// The context is guarded ([`crate::verbs::monitor::guard`]): when the device's removal
/// starts, its files are let go of at once and every query fails with
/// [`Error::DeviceRemoved`]. A cache made with [`WatchedPortCache::follow`] then waits
/// for a device of the same name and reopens it. The watcher stops, and its files are
/// closed, when the cache is dropped. After `DEVICE_FATAL` (or the end of the event
/// stream) every query fails with [`Error::DeviceGone`].
#[derive(Debug)]
pub struct WatchedPortCache {
    ctx: std::sync::Arc<Context>,
    name: String,
    shared: std::sync::Arc<Watched>,
    thread: Option<std::thread::JoinHandle<()>>,
}

#[derive(Debug, Default)]
struct Watched {
    ports: std::sync::RwLock<Vec<Option<PortAttr>>>,
    /// The port events counted by the watcher's cache, published with the ports.
    events: std::sync::RwLock<Vec<PortEvents>>,
    /// Why queries fail now: 0 alive, 1 DEVICE_FATAL / end of stream, 2 removed.
    dead: std::sync::atomic::AtomicU8,
    stop: std::sync::atomic::AtomicBool,
    updates: std::sync::atomic::AtomicU64,
    /// How many times a following cache reopened its device.
    reopened: std::sync::atomic::AtomicU64,
}

const ALIVE: u8 = 0;
const FATAL: u8 = 1;
const REMOVED: u8 = 2;

impl Watched {
    fn publish(&self, ports: Vec<Option<PortAttr>>, events: Vec<PortEvents>, dead: u8) {
        use std::sync::atomic::Ordering::Release;
        *self.events.write().unwrap_or_else(|p| p.into_inner()) = events;
        // The counter moves while the new ports are still locked: whoever has seen the
        // new ports (through the lock) then sees the new count too, so a PortReader is
        // never behind WatchedPortCache::query_port.
        let mut shared = self.ports.write().unwrap_or_else(|p| p.into_inner());
        *shared = ports;
        self.dead.store(dead, Release);
        self.updates.fetch_add(1, Release);
        drop(shared);
    }
}

/// How long the watcher sleeps between looks at its stop flag.
const WATCH_TICK: Duration = Duration::from_millis(100);

impl WatchedPortCache {
    /// Opens an event stream on `ctx`, queries every port, and starts the watcher.
    ///
    /// # Errors
    ///
    /// As [`PortCache::new`]; [`Error::Os`] when the watcher thread cannot be started.
    pub fn new(ctx: std::sync::Arc<Context>) -> Result<Self> {
        Self::start(ctx, None)
    }

    /// As [`WatchedPortCache::new`], and when the device is removed, the watcher waits
    /// for a device of the same name to come back (a device monitor, no polling) and
    /// reopens it: queries answer [`Error::DeviceRemoved`] in between.
    ///
    /// # Errors
    ///
    /// The errors of opening the device now, of the device monitor
    /// ([`crate::verbs::monitor::DeviceMonitor::new`]), and of [`PortCache::new`].
    pub fn follow(name: &str) -> Result<Self> {
        let monitor = crate::verbs::monitor::DeviceMonitor::new()?;
        let ctx = std::sync::Arc::new(Context::open_by_name(name)?);
        Self::start(ctx, Some(monitor))
    }

    fn start(
        ctx: std::sync::Arc<Context>,
        monitor: Option<crate::verbs::monitor::DeviceMonitor>,
    ) -> Result<Self> {
        let cache = PortCache::new(ctx.clone())?;
        let n = usize::from(ctx.port_count());
        let shared = std::sync::Arc::new(Watched {
            ports: std::sync::RwLock::new((1..=n as u32).map(|p| cache.peek(p)).collect()),
            events: std::sync::RwLock::new(cache.events_all()),
            ..Default::default()
        });
        let s = shared.clone();
        let name = ctx.name().to_owned();
        let thread_name = name.clone();
        let thread = std::thread::Builder::new()
            .name(format!("uverbs-watch-{name}"))
            .spawn(move || watch(cache, monitor, &thread_name, &s))
            .map_err(|e| Error::Os {
                op: Op::new("start the port cache watcher", ctx.name()),
                errno: Errno::from_io_error(&e).unwrap_or(Errno::AGAIN),
            })?;
        Ok(WatchedPortCache {
            ctx,
            name,
            shared,
            thread: Some(thread),
        })
    }

    /// The context the cache was made with (for a following cache, the first one: see
    /// [`WatchedPortCache::reopened`]).
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// The attributes of `port` (from 1), from memory: no system call, no allocation.
    ///
    /// # Errors
    ///
    /// [`Error::NoSuchPort`]; [`Error::DeviceRemoved`] once the device's removal has
    /// started (until a following cache reopened it); [`Error::DeviceGone`] after
    /// `DEVICE_FATAL`; [`Error::Protocol`] when the port could not be queried at the
    /// last refresh.
    #[doc(alias = "ibv_query_port")]
    pub fn query_port(&self, port: u32) -> Result<PortAttr> {
        use std::sync::atomic::Ordering::Acquire;
        let op = || Op::port("QUERY_PORT (watched)", &self.name, port);
        match self.shared.dead.load(Acquire) {
            ALIVE => {}
            REMOVED => return Err(Error::DeviceRemoved { op: op() }),
            _ => {
                return Err(Error::DeviceGone {
                    op: op(),
                    errno: Errno::IO,
                })
            }
        }
        let ports = self.shared.ports.read().unwrap_or_else(|p| p.into_inner());
        let i = (port as usize).wrapping_sub(1);
        match ports.get(i) {
            None => Err(Error::NoSuchPort {
                op: op(),
                port_count: ports.len() as u32,
            }),
            Some(p) => p.ok_or_else(|| Error::Protocol {
                op: op(),
                detail: "the port could not be queried at its last refresh".into(),
            }),
        }
    }

    /// A reader that keeps its own copy of the ports and re-reads the shared one only
    /// when the watcher has published a change: the query is then one atomic load and a
    /// copy (no lock). One per thread.
    pub fn reader(&self) -> PortReader<'_> {
        PortReader {
            cache: self,
            seen: u64::MAX,
            ports: Vec::new(),
            dead: false,
        }
    }

    /// How many times the watcher has applied events and refreshed the ports (or seen
    /// the device leave or come back).
    pub fn updates(&self) -> u64 {
        self.shared
            .updates
            .load(std::sync::atomic::Ordering::Acquire)
    }

    /// The port events the watcher has applied for `port` (from 1), by kind: the
    /// state changes ([`PortEvents::state_changes`]) are the port's link flaps, counted
    /// from the kernel's events. They count from the cache's start, or from the last
    /// reopening of a following cache.
    ///
    /// # Errors
    ///
    /// As [`WatchedPortCache::query_port`].
    pub fn port_events(&self, port: u32) -> Result<PortEvents> {
        self.query_port(port)?;
        let events = self.shared.events.read().unwrap_or_else(|p| p.into_inner());
        Ok(events
            .get((port as usize).wrapping_sub(1))
            .copied()
            .unwrap_or_default())
    }

    /// How many times a following cache has reopened its device.
    pub fn reopened(&self) -> u64 {
        self.shared
            .reopened
            .load(std::sync::atomic::Ordering::Acquire)
    }
}

/// The watcher's loop: apply events while the device lives; when it is removed, either
/// stop or (with a monitor) wait for a device of that name and reopen it.
fn watch(
    cache: PortCache<std::sync::Arc<Context>>,
    mut monitor: Option<crate::verbs::monitor::DeviceMonitor>,
    name: &str,
    s: &Watched,
) {
    use std::sync::atomic::Ordering::Relaxed;
    let mut cache = Some(cache);
    while !s.stop.load(Relaxed) {
        if let Some(c) = cache.as_mut() {
            // While the device lives the monitor's events do not matter, but they are
            // read, so that its socket does not fill up with the system's uevents.
            if let Some(m) = monitor.as_mut() {
                while let Ok(Some(_)) = m.try_next() {}
            }
            let n = c.ports.len() as u32;
            match c.wait(Some(WATCH_TICK)) {
                Ok(0) if c.fatal().is_none() => continue,
                Ok(_) if c.fatal().is_none() => {
                    let fresh = (1..=n).map(|p| c.query_port(p).ok()).collect();
                    s.publish(fresh, c.events_all(), ALIVE);
                    continue;
                }
                r => {
                    let removed =
                        matches!(r, Err(Error::DeviceRemoved { .. })) || c.context().is_revoked();
                    s.publish(
                        Vec::new(),
                        Vec::new(),
                        if removed { REMOVED } else { FATAL },
                    );
                    // Drop the context now: its files are inert or dead anyway.
                    cache = None;
                    if monitor.is_none() || !removed {
                        break;
                    }
                    // A device of this name may be back already (its events were
                    // drained above): try once before waiting for one.
                    if let Some(c) = reopen(name, s) {
                        cache = Some(c);
                        continue;
                    }
                }
            }
        }
        let Some(m) = monitor.as_mut() else { break };
        // Following: wait for a uverbs node of a device of this name.
        match m.next(Some(WATCH_TICK)) {
            Ok(Some(crate::verbs::monitor::DeviceChange::NodeAdded {
                device: Some(d), ..
            })) if d == name => cache = reopen(name, s),
            Ok(_) => {}
            Err(_) => std::thread::sleep(WATCH_TICK),
        }
    }
}

/// Opens the device `name` again for a following cache and publishes its ports.
fn reopen(name: &str, s: &Watched) -> Option<PortCache<std::sync::Arc<Context>>> {
    let ctx = Context::open_by_name(name).ok()?;
    let c = PortCache::new(std::sync::Arc::new(ctx)).ok()?;
    let n = c.ports.len() as u32;
    s.publish((1..=n).map(|p| c.peek(p)).collect(), c.events_all(), ALIVE);
    s.reopened
        .fetch_add(1, std::sync::atomic::Ordering::Release);
    Some(c)
}

impl Drop for WatchedPortCache {
    fn drop(&mut self) {
        self.shared
            .stop
            .store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// A per-thread reader of a [`WatchedPortCache`] (see [`WatchedPortCache::reader`]),
/// with the same guarantee.
#[derive(Debug)]
pub struct PortReader<'a> {
    cache: &'a WatchedPortCache,
    seen: u64,
    ports: Vec<Option<PortAttr>>,
    dead: bool,
}

impl PortReader<'_> {
    /// The attributes of `port` (from 1), from this reader's copy, refreshed from the
    /// cache when the watcher published a change since the last call.
    ///
    /// # Errors
    ///
    /// As [`WatchedPortCache::query_port`].
    #[doc(alias = "ibv_query_port")]
    pub fn query_port(&mut self, port: u32) -> Result<PortAttr> {
        use std::sync::atomic::Ordering::Acquire;
        let now = self.cache.shared.updates.load(Acquire);
        if now != self.seen {
            self.refresh(now);
        }
        match self.ports.get((port as usize).wrapping_sub(1)) {
            Some(Some(p)) if !self.dead => Ok(*p),
            _ => self.cache.query_port(port),
        }
    }

    #[cold]
    fn refresh(&mut self, now: u64) {
        let shared = self
            .cache
            .shared
            .ports
            .read()
            .unwrap_or_else(|p| p.into_inner());
        self.ports.clear();
        self.ports.extend_from_slice(&shared);
        self.dead = self
            .cache
            .shared
            .dead
            .load(std::sync::atomic::Ordering::Acquire)
            != ALIVE;
        self.seen = now;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An event as the kernel writes it (`struct ib_uverbs_async_event_desc`). SYNTHETIC:
    /// soft devices never raise DEVICE_SPEED_CHANGE, so these descriptors are laid out by
    /// hand from the uapi struct.
    fn ev(ty: u32, element: u64) -> Event {
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&element.to_ne_bytes());
        b[8..12].copy_from_slice(&ty.to_ne_bytes());
        Event::from_bytes(&b).unwrap()
    }

    #[test]
    fn a_speed_change_makes_every_port_stale() {
        // IB_EVENT_DEVICE_SPEED_CHANGE = 20: whatever the element (0, or the port the
        // driver names, as rdma-core passes it on in element.port_num), every port of the
        // cache is re-queried.
        for element in [0, 1, 2, 7, u64::MAX] {
            let e = ev(20, element);
            assert_eq!(e.kind, EventType::DeviceSpeedChange);
            assert_eq!(Stale::after(&e, 2), Stale::AllPorts, "element {element}");
        }
    }

    #[test]
    fn what_each_event_makes_stale() {
        for ty in [9, 10, 11, 12, 13, 17, 18] {
            assert_eq!(Stale::after(&ev(ty, 2), 2), Stale::Port(2), "type {ty}");
            assert_eq!(
                Stale::after(&ev(ty, 3), 2),
                Stale::AllPorts,
                "type {ty}, port 3"
            );
            assert_eq!(
                Stale::after(&ev(ty, 0), 2),
                Stale::AllPorts,
                "type {ty}, port 0"
            );
        }
        assert_eq!(Stale::after(&ev(8, 0), 2), Stale::Dead);
        assert_eq!(Stale::after(&ev(42, 1), 2), Stale::AllPorts, "unknown type");
        for ty in [0, 1, 2, 3, 4, 5, 6, 7, 14, 15, 16, 19] {
            assert_eq!(Stale::after(&ev(ty, 1), 2), Stale::Nothing, "type {ty}");
        }
    }
}
