//! `uverbs exporter`: RDMA devices and ports for Prometheus, over HTTP (`GET /metrics`)
//! or as a file for node_exporter's textfile collector.
//!
//! Two ways to read the devices:
//!
//! - with uverbs (the default, when `/dev/infiniband` has the devices' nodes): every
//!   device is followed through a device monitor and its ports held in a
//!   [`WatchedPortCache`]: port attributes come from memory (no uverbs system call per
//!   scrape), refreshed by the device's async events, which also count the port's state
//!   changes (link flaps). A device whose removal starts is let go of at once (the
//!   caches are guarded), so `rdma link delete` never waits for the exporter. GIDs come
//!   from one QUERY_GID_TABLE per device and scrape;
//! - from sysfs alone (`--sysfs-only`, a `--sysfs` root other than `/sys`, or no uverbs
//!   node that opens), as node_exporter's containers run with only `/sys` mounted: what
//!   sysfs has, read at each scrape.
//!
//! Either way a serving exporter keeps the sysfs attribute files it reads open from one
//! scrape to the next and reads each again with one `pread` ([`KeptFiles`]: a third of
//! the system calls of opening, reading and closing it). An open sysfs file does not
//! hold its device (kernfs lets the node go and fails later reads with `ENODEV`, upon
//! which the file is opened again by name); the files not read in a scrape are closed
//! at its end, and at most 256 are kept (the GID and P_Key tables never: they are read
//! whole). Files are kept under their directory's identity (device, inode, modification
//! time), so a renamed device keeps its own and a changed directory is read afresh.
//!
//! One device or port whose file is missing or whose call fails costs only its own
//! metrics, and counts in `uverbs_device_scrape_errors_total`.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use uverbs::sysfs::{KeptFiles, SysDir};
use uverbs::verbs::counters::{sysfs_device_in, sysfs_device_names, CounterReader, PortStatus};
use uverbs::verbs::gid_select::Netdevs;
use uverbs::{Context, DeviceChange, DeviceInfo, DeviceMonitor, Discovery, WatchedPortCache};

use crate::ops::metrics;
use crate::plumbing::deadline::{self, Late, Outcome, Progress};
use crate::plumbing::getopt::{opt, LongOpt};
use crate::plumbing::http::{self, Response};
use crate::plumbing::io::Io;
use crate::plumbing::prom::{Exposition, Kind};

/// The default listen address.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:9550";

const HELP: &str = "\
Usage: uverbs exporter [--listen ADDR] [--sysfs ROOT] [--sysfs-only] [-d DEV]...
                       [--device-timeout SECS] [--web.max-requests N]
                       [--web.max-connections N]
       uverbs exporter --textfile PATH | --once  [--sysfs ROOT] [--sysfs-only] [-d DEV]...
                       [--device-timeout SECS]

Exports RDMA devices and ports in the Prometheus text format: port state, physical
state, link layer, MTU, width, speed and rate, the port counters (bytes for the
4-octet data counters), the driver counters (hw_counters, per port and per device),
an info metric per device and per GID, the P_Keys, and the port state changes seen
through async events (link flaps). docs/metrics.md lists every metric and maps it to
node_exporter's infiniband collector.

It serves GET /metrics on ADDR until it is stopped; with --textfile it writes one
collection to PATH (atomically: a temporary file renamed) for node_exporter's textfile
collector and exits; with --once it prints one collection on stdout and exits.

With /dev/infiniband it follows devices added and removed, holds each device's ports
in an event-refreshed cache (a scrape makes no uverbs call for them) and lets go of a
device being removed at once. With --sysfs-only, with a --sysfs root other than /sys,
or when no device can be opened, it reads only sysfs, as node_exporter does in a
container with only /sys mounted. While serving, it keeps the sysfs files it reads
open between scrapes (at most 256, GID and P_Key tables not); they do not hold a
device.

Each device is read (sysfs, RDMA netlink, uverbs calls) by a thread of its own, all
at once, within --device-timeout of the collection's start. A device that has not
answered by then is left out of that collection: uverbs_device_scrape_timeout{device}
is 1, its error counted and logged with the read it was in, and the others are
answered on time. Its read keeps its thread until the kernel returns; meanwhile the
device is reported late at once and not read again (at most one outstanding read per
device, never a thread per scrape); once the read returns, the device is read as
before. A device's thread ends after 5 minutes without a read.

One thread holds every connection and reads the requests; at most --web.max-requests
scrapes are answered at once, each by a thread of its own, and a request past that is
answered 503 with Retry-After: 1 at once (never a reset). At most
--web.max-connections connections are held: a new one past that evicts the one that
has waited longest for a request (an idle one is closed, a half-sent request is
answered 408), and waits in the kernel's backlog only when every connection is being
answered. A request head must arrive within 10 s of its first byte (else 408), a
kept-alive connection without a request is closed after 60 s, an answer not written
within 30 s ends its connection. The soft RLIMIT_NOFILE is raised (within the hard
limit) to hold the connections and 1024 files more; the cap is lowered when it cannot.

  -l, --listen=ADDR     HTTP address: IP:PORT, [IPv6]:PORT, localhost:PORT or :PORT
                        (every IPv4 address); default 127.0.0.1:9550
      --textfile=PATH   write one collection to PATH and exit
      --once            print one collection on stdout and exit
      --sysfs=ROOT      sysfs mount point (default /sys), like node_exporter's
                        --path.sysfs
      --sysfs-only      read sysfs only, never /dev/infiniband
  -d, --ib-dev=DEV      export device DEV only (repeatable)
      --device-timeout=SECS
                        how long a collection waits for a device's reads (default
                        5, half Prometheus' default scrape_timeout; 0.001 to 3600)
      --web.max-requests=N
                        scrapes answered at once, 503 past that (default 40, as
                        node_exporter; 0: no limit but the connections)
      --web.max-connections=N
                        connections held at once, idle and slow ones evicted past
                        that (default 2048, at least 1)
  -h, --help            this text

Exit status: 1 when the address cannot be bound or the file cannot be written;
2 usage error. The server runs until it is stopped.
";

const LONGS: &[LongOpt] = &[
    opt("listen", true, b'l'),
    opt("textfile", true, b't'),
    opt("once", false, b'o'),
    opt("sysfs", true, b's'),
    opt("sysfs-only", false, b'S'),
    opt("ib-dev", true, b'd'),
    opt("web.max-requests", true, b'R'),
    opt("web.max-connections", true, b'C'),
    opt("device-timeout", true, b'T'),
    opt("help", false, b'h'),
];

/// The options.
#[derive(Debug, Clone)]
struct Options {
    listen: SocketAddr,
    textfile: Option<PathBuf>,
    once: bool,
    sysfs: PathBuf,
    sysfs_only: bool,
    only: Vec<String>,
    /// The HTTP server's caps (`--web.max-requests`, `--web.max-connections`).
    limits: http::Limits,
    /// How long a collection waits for a device's reads (`--device-timeout`).
    timeout: Duration,
}

/// `--device-timeout`'s value: seconds, to the millisecond.
fn timeout_arg(v: &str) -> Result<Duration, String> {
    deadline::parse_timeout(v)
        .ok_or_else(|| format!("bad --device-timeout '{v}': expected seconds from 0.001 to 3600"))
}

/// A count option's value: a decimal number, at least `min`.
fn count(name: &str, v: &str, min: usize) -> Result<usize, String> {
    match v.parse::<usize>() {
        Ok(n) if n >= min && v.bytes().all(|b| b.is_ascii_digit()) => Ok(n),
        _ => Err(format!(
            "bad --{name} '{v}': expected a whole number from {min}"
        )),
    }
}

// ------------------------------------------------------------------ what is served

/// A device served with uverbs: its discovery and its port cache (None when the
/// device could not be opened: its ports are then read from sysfs).
struct Served {
    info: DeviceInfo,
    cache: Option<WatchedPortCache>,
}

/// The devices served, kept up to date by the monitor thread.
#[derive(Default)]
struct Registry {
    devices: Mutex<BTreeMap<String, Arc<Served>>>,
}

/// The exporter's state shared by the scrapes.
struct State {
    opts: Options,
    registry: Option<Arc<Registry>>,
    /// Per device: the errors so far (the `uverbs_device_scrape_errors_total` counter)
    /// and the text of the last one logged (each new text is logged once, on stderr).
    errors: Mutex<BTreeMap<String, (u64, String)>>,
    /// The sysfs attributes kept open from one scrape to the next (serving only: a
    /// one-shot collection reads each file once).
    kept: Option<Arc<KeptFiles>>,
    /// Each device's reader thread (and the device list's, for a one-shot collection
    /// with uverbs).
    readers: Readers,
}

/// How many sysfs files a serving exporter keeps open: 256 (a page of kernel memory
/// each, about 1 MiB; a port's attributes and counters are about 10 to 100 files, its
/// GID and P_Key tables are never kept), or half its soft `RLIMIT_NOFILE` when that is
/// lower (the other half for connections and device files). The files past that are
/// opened per scrape.
fn kept_files_cap() -> usize {
    const CAP: usize = 256;
    let soft = rustix::process::getrlimit(rustix::process::Resource::Nofile).current;
    soft.map_or(CAP, |n| usize::try_from(n / 2).unwrap_or(CAP).min(CAP))
}

impl State {
    #[inline(never)]
    fn error(&self, device: &str, what: &str, e: &dyn core::fmt::Display) {
        let text = if what.is_empty() {
            format!("uverbs exporter: {device}: {e}")
        } else {
            format!("uverbs exporter: {device}: {what}: {e}")
        };
        let mut errors = self.errors.lock().unwrap_or_else(|p| p.into_inner());
        let entry = errors.entry(device.to_owned()).or_default();
        entry.0 += 1;
        if entry.1 != text {
            let mut v = crate::plumbing::io::printable(text.as_bytes()).into_bytes();
            v.push(b'\n');
            let _ = rustix::io::write(std::io::stderr(), &v);
            entry.1 = text;
        }
    }
}

fn wanted(opts: &Options, name: &str) -> bool {
    opts.only.is_empty() || opts.only.iter().any(|d| d == name)
}

/// Opens `info` and starts its port cache; a device that cannot be opened is served
/// from sysfs.
fn serve_device(info: DeviceInfo) -> Served {
    let cache = Context::open(&info)
        .and_then(|ctx| WatchedPortCache::new(Arc::new(ctx)))
        .ok();
    Served { info, cache }
}

/// The monitor thread: devices added are opened, devices being removed let go of.
#[inline(never)]
fn follow(reg: &Registry, opts: &Options, mut monitor: DeviceMonitor) {
    let disc = Discovery::new().sysfs_details(true);
    let add = |name: &str| {
        if !wanted(opts, name) {
            return;
        }
        let present = reg
            .devices
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(name)
            .is_some_and(|s| s.cache.as_ref().is_some_and(|c| !c.context().is_revoked()));
        if present {
            return;
        }
        if let Ok(info) = disc.device(name) {
            let s = Arc::new(serve_device(info));
            let old = reg
                .devices
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(name.to_owned(), s);
            drop(old);
        }
    };
    let remove = |name: &str| {
        let old = reg
            .devices
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(name);
        // Dropped outside the lock: a cache's watcher thread is joined.
        drop(old);
    };
    loop {
        match monitor.next(None) {
            Ok(Some(DeviceChange::NodeAdded {
                device: Some(name), ..
            }))
            | Ok(Some(DeviceChange::Added { name })) => add(&name),
            Ok(Some(DeviceChange::NodeRemoved {
                device: Some(name), ..
            }))
            | Ok(Some(DeviceChange::Removed { name })) => remove(&name),
            Ok(Some(DeviceChange::Renamed { from, to })) => {
                remove(&from);
                add(&to);
            }
            Ok(_) => {}
            Err(_) => std::thread::sleep(std::time::Duration::from_millis(100)),
        }
    }
}

// ------------------------------------------------------------------ the collection

/// One device as a collection sees it: its discovery, and where its ports come from
/// (the cache, a context opened for this collection, else sysfs).
struct DeviceData<'a> {
    info: &'a DeviceInfo,
    cache: Option<&'a WatchedPortCache>,
    ctx: Option<&'a Context>,
}

/// What one collection shares among its devices (each read on its own thread): the
/// sysfs class directory, opened once (each device's directory and its ports' are
/// opened under it, once per collection, and every file of a port under its
/// directory), and the netdev names (read on the first GID that names a netdev).
struct Shared {
    class: Option<SysDir>,
    names: OnceLock<Netdevs>,
}

/// Where a device's job finds the device.
enum Source {
    /// Followed with uverbs: its port cache (guarded: revoked when the device's removal
    /// starts, so a job that holds it holds no file of the device).
    Served(Arc<Served>),
    /// By name, from sysfs alone.
    Sysfs(String),
    /// Opened for this collection (one collection with uverbs).
    Open(Box<DeviceInfo>),
}

/// What reading one device gave: its samples and the errors met (what was read, the
/// error), recorded by the collection that waited for it.
struct DeviceRead {
    e: Exposition,
    errors: Vec<(&'static str, uverbs::Error)>,
}

impl DeviceRead {
    fn error(&mut self, what: &'static str, e: uverbs::Error) {
        self.errors.push((what, e));
    }
}

/// A device's job, on its reader thread: `reader` is the thread's counter reader,
/// kept from one collection to the next (its netlink socket holds no device).
fn read_device(
    st: &State,
    sh: &Shared,
    src: Source,
    reader: &mut Option<CounterReader>,
    p: &Progress<'_>,
) -> DeviceRead {
    let reader = reader.get_or_insert_with(|| {
        CounterReader::new()
            .sysfs_root(&st.opts.sysfs)
            .netlink(!st.opts.sysfs_only)
    });
    let mut out = DeviceRead {
        e: Exposition::new(),
        errors: Vec::new(),
    };
    match src {
        Source::Served(s) => {
            let d = DeviceData {
                info: &s.info,
                cache: s.cache.as_ref(),
                ctx: None,
            };
            collect_device(&mut out, st, sh, &d, reader, sh.class.as_ref(), None, p);
        }
        Source::Sysfs(name) => {
            if let Some(class) = &sh.class {
                p.set("the device's description", 0);
                let (info, dir) = sysfs_device_in(&st.opts.sysfs, class, name);
                let d = DeviceData {
                    info: &info,
                    cache: None,
                    ctx: None,
                };
                // A directory that did not open is read by path, which names the error.
                collect_device(&mut out, st, sh, &d, reader, None, dir, p);
            }
        }
        Source::Open(info) => {
            p.set("GET_CONTEXT", 0);
            let ctx = Context::open(&info).ok();
            let d = DeviceData {
                info: &info,
                cache: None,
                ctx: ctx.as_ref(),
            };
            collect_device(&mut out, st, sh, &d, reader, sh.class.as_ref(), None, p);
        }
    }
    out
}

/// Collects one device into `out`; `dev_dir` is its sysfs directory when the caller
/// has it open, else it is opened under `class`. Says what it reads through `p`.
#[allow(clippy::too_many_arguments)]
fn collect_device(
    out: &mut DeviceRead,
    st: &State,
    sh: &Shared,
    d: &DeviceData<'_>,
    reader: &mut CounterReader,
    class: Option<&SysDir>,
    dev_dir: Option<SysDir>,
    p: &Progress<'_>,
) {
    let dev = d.info.name.as_str();
    let e = &mut out.e;
    metrics::device_info(e, d.info);
    // The device's directory and its ports'; None where one cannot be opened: that
    // part is then read by path, which names the error.
    let dev_dir = dev_dir.or_else(|| class.and_then(|c| c.dir(dev).ok()));
    let port_dirs: Vec<Option<SysDir>> = (1..=d.info.port_count)
        .map(|port| {
            dev_dir
                .as_ref()
                .and_then(|dd| dd.dir(format!("ports/{port}")).ok())
        })
        .collect();
    for (port, pdir) in (1..=d.info.port_count).zip(&port_dirs) {
        p.set("the status", port);
        let status = match (d.cache, d.ctx) {
            (Some(c), _) => c.query_port(port).map(|a| PortStatus::from_attr(port, &a)),
            (None, Some(ctx)) => ctx
                .query_port(port)
                .map(|a| PortStatus::from_attr(port, &a)),
            (None, None) => {
                let (s, errors) = match pdir {
                    Some(pd) => PortStatus::read_sysfs_in(pd, dev, port),
                    None => PortStatus::read_sysfs(&st.opts.sysfs, dev, port),
                };
                out.errors
                    .extend(errors.into_iter().map(|err| ("port status", err)));
                Ok(s)
            }
        };
        match status {
            Ok(s) => metrics::port_status(e, dev, &s),
            Err(err) => out.errors.push(("port status", err)),
        }
        if let Some(c) = d.cache {
            if let Ok(ev) = c.port_events(port) {
                let p = port.to_string();
                e.sample(
                    "uverbs_port_state_changes_total",
                    "Port state changes (PORT_ACTIVE and PORT_ERR async events) seen since the exporter opened the device: link flaps, counted without polling.",
                    Kind::Counter,
                    &[("device", dev), ("port", &p)],
                    ev.state_changes(),
                );
            }
        }
        p.set("the P_Key table", port);
        let keys = match pdir {
            Some(pd) => uverbs::sysfs::pkeys_in(pd, dev, port),
            None => uverbs::sysfs::pkeys(&st.opts.sysfs, dev, port),
        };
        match keys {
            Ok(keys) => {
                let p = port.to_string();
                for (i, k) in keys.iter().enumerate() {
                    if *k & 0x7fff == 0 {
                        continue; // an empty entry
                    }
                    e.sample(
                        "uverbs_port_pkey_info",
                        "A valid P_Key table entry of the port (sysfs pkeys/).",
                        Kind::Gauge,
                        &[
                            ("device", dev),
                            ("port", &p),
                            ("index", &i.to_string()),
                            ("pkey", &format!("0x{k:04x}")),
                        ],
                        1u64,
                    );
                }
            }
            Err(err) => out.errors.push(("P_Keys", err)),
        }
    }
    p.set("the counters", 0);
    let counters = match &dev_dir {
        Some(dd) => {
            let open: Vec<(u32, &SysDir)> = (1..=d.info.port_count)
                .zip(&port_dirs)
                .filter_map(|(p, pd)| pd.as_ref().map(|pd| (p, pd)))
                .collect();
            reader.read_in(dev, d.info.index, dd, &open)
        }
        None => reader.read(dev, d.info.index),
    };
    metrics::counters(e, &counters);
    out.errors
        .extend(counters.errors.into_iter().map(|err| ("counters", err)));
    let ctx = d.cache.map(WatchedPortCache::context).or(d.ctx);
    p.set("the GID table", 0);
    let gids = match ctx {
        Some(c) => c.query_gid_table(usize::MAX),
        None => {
            let mut all = Vec::new();
            let mut res = Ok(());
            for (port, pdir) in (1..=d.info.port_count).zip(&port_dirs) {
                let got = match pdir {
                    Some(pd) => uverbs::sysfs::gids_in(&st.opts.sysfs, pd, dev, port),
                    None => uverbs::sysfs::gids(&st.opts.sysfs, dev, port),
                };
                match got {
                    Ok(v) => all.extend(v),
                    // A port without a GID table (a tree that lacks it).
                    Err(err) if err.errno() == Some(rustix::io::Errno::NOENT) => {}
                    Err(err) => res = Err(err),
                }
            }
            res.map(|()| all)
        }
    };
    match gids {
        // In port and index order (the kernel's, and sysfs's as read).
        Ok(entries) => {
            for g in &entries {
                let netdev = if g.netdev_ifindex == 0 {
                    ""
                } else {
                    sh.names
                        .get_or_init(|| Netdevs::read(&st.opts.sysfs, Path::new("/proc")))
                        .name(g.netdev_ifindex)
                        .unwrap_or("")
                };
                e.sample(
                    "uverbs_port_gid_info",
                    "A valid GID table entry of the port: index, GID, type (IB, RoCE v1, RoCE v2) and netdev.",
                    Kind::Gauge,
                    &[
                        ("device", dev),
                        ("port", &g.port.to_string()),
                        ("index", &g.index.to_string()),
                        ("gid", &g.gid.to_string()),
                        ("type", &crate::ops::gids::type_name(g.gid_type)),
                        ("netdev", netdev),
                    ],
                    1u64,
                );
            }
        }
        Err(err) => out.error("GIDs", err),
    }
}

/// The reader threads' state: each keeps its counter reader.
type Readers = deadline::Readers<Option<CounterReader>>;

/// One collection: every device, each read on its own thread under the deadline, then
/// the exporter's own metrics.
fn collect(st: &Arc<State>) -> String {
    let start = Instant::now();
    let within = st.opts.timeout;
    let deadline = start + within;
    let mut e = Exposition::new();
    let (class, class_err) = match uverbs::sysfs::open_class(&st.opts.sysfs) {
        Ok(c) => (
            c.map(|c| match &st.kept {
                Some(k) => c.keep_files(k),
                None => c,
            }),
            None,
        ),
        Err(err) => (None, Some(err)),
    };
    // The collection's number for the kept files' sweep.
    let round = class.as_ref().and_then(SysDir::kept_round);
    let shared = Arc::new(Shared {
        class,
        names: OnceLock::new(),
    });
    // Every device's job started first (they run in parallel), then each waited for.
    let mut jobs = Vec::new();
    let mut start_job = |name: String, src: Source| {
        let (s, sh) = (st.clone(), shared.clone());
        let job = st.readers.start(&name, deadline, within, move |r, p| {
            read_device(&s, &sh, src, r, p)
        });
        jobs.push((name, job));
    };
    if let Some(reg) = &st.registry {
        let served: Vec<Arc<Served>> = reg
            .devices
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .values()
            .cloned()
            .collect();
        for s in served {
            start_job(s.info.name.clone(), Source::Served(s));
        }
    } else if st.opts.sysfs_only {
        // Listing the class reads no device; each device's description is read by its
        // own job.
        let listed = match (&shared.class, class_err) {
            (_, Some(err)) => Err(err),
            (None, None) => Ok(Vec::new()),
            (Some(class), None) => sysfs_device_names(class),
        };
        match listed {
            Ok(names) => {
                for n in names.into_iter().filter(|n| wanted(&st.opts, n)) {
                    start_job(n.clone(), Source::Sysfs(n));
                }
            }
            Err(err) => st.error("", "device list", &err),
        }
    } else {
        // One collection with uverbs (textfile, once): the device list (RDMA netlink and
        // each device's sysfs details) under the deadline too, then each device opened
        // for the time of its collection.
        let listed = st.readers.start("", deadline, within, |_, p| {
            p.set("the device list", 0);
            Discovery::new().sysfs_details(true).devices()
        });
        match listed.wait() {
            Outcome::Done(Ok(infos), _) => {
                for info in infos.into_iter().filter(|i| wanted(&st.opts, &i.name)) {
                    start_job(info.name.clone(), Source::Open(Box::new(info)));
                }
            }
            Outcome::Done(Err(err), _) => st.error("", "device list", &err),
            Outcome::Late(late) => st.error("", "device list", &late),
        }
    }
    // Per device: whether it was late, and how long its read took (or was waited for).
    let mut seen: Vec<(String, bool, Duration)> = Vec::with_capacity(jobs.len());
    for (name, job) in jobs {
        match job.wait() {
            Outcome::Done(read, took) => {
                e.append(read.e);
                for (what, err) in &read.errors {
                    st.error(&name, what, err);
                }
                seen.push((name, false, took));
            }
            Outcome::Late(late) => {
                st.error(&name, "", &late);
                let waited = match late {
                    Late::Stuck { .. } => Duration::ZERO,
                    _ => within,
                };
                seen.push((name, true, waited));
            }
        }
    }
    let errors = st.errors.lock().unwrap_or_else(|p| p.into_inner());
    // The devices collected (in name order), then those that had errors and are gone.
    let gone = errors
        .keys()
        .filter(|k| !k.is_empty() && !seen.iter().any(|(n, ..)| n == *k));
    let devices: Vec<&String> = seen.iter().map(|(n, ..)| n).chain(gone).collect();
    e.declare(
        "uverbs_device_scrape_errors_total",
        "Errors met while collecting a device (a file that cannot be read or parsed, a call that fails, a read past the deadline): each costs only the metrics it would have given.",
        Kind::Counter,
    );
    for d in devices {
        e.sample(
            "uverbs_device_scrape_errors_total",
            "",
            Kind::Counter,
            &[("device", d)],
            errors.get(d).map_or(0, |x| x.0),
        );
    }
    drop(errors);
    for (name, late, _) in &seen {
        e.sample(
            "uverbs_device_scrape_timeout",
            "1 when the device's reads did not return within the deadline (--device-timeout) in this collection, which then has none of its metrics; 0 when they did.",
            Kind::Gauge,
            &[("device", name)],
            u64::from(*late),
        );
    }
    for (name, _, took) in &seen {
        e.sample(
            "uverbs_device_scrape_duration_seconds",
            "How long the device's reads took in this collection; for a device past the deadline, how long the collection waited for it (0 when an earlier read of it had still not returned).",
            Kind::Gauge,
            &[("device", name)],
            crate::plumbing::prom::seconds(*took),
        );
    }
    if let (Some(k), Some(round)) = (&st.kept, round) {
        k.sweep(round);
    }
    e.sample(
        "uverbs_scrape_duration_seconds",
        "How long this collection took.",
        Kind::Gauge,
        &[],
        crate::plumbing::prom::seconds(start.elapsed()),
    );
    e.render()
}

// ------------------------------------------------------------------ the command

/// `uverbs exporter ARGS`.
pub fn uverbs(io: &mut Io, args: &[Vec<u8>]) -> i32 {
    let mut listen = DEFAULT_LISTEN.to_string();
    let mut opts = Options {
        listen: http::parse_listen(DEFAULT_LISTEN).unwrap_or_else(|_| unreachable!()),
        textfile: None,
        once: false,
        sysfs: PathBuf::from("/sys"),
        sysfs_only: false,
        only: Vec::new(),
        limits: http::Limits::default(),
        timeout: deadline::DEFAULT_TIMEOUT,
    };
    let parsed = io.text_options("exporter", HELP, args, "l:d:h", LONGS, |c, v| {
        match c {
            b'l' => listen = v,
            b't' => opts.textfile = Some(PathBuf::from(v)),
            b'o' => opts.once = true,
            b's' => opts.sysfs = PathBuf::from(v),
            b'S' => opts.sysfs_only = true,
            b'd' => opts.only.push(v),
            b'R' => opts.limits.max_requests = count("web.max-requests", &v, 0)?,
            b'C' => opts.limits.max_connections = count("web.max-connections", &v, 1)?,
            b'T' => opts.timeout = timeout_arg(&v)?,
            _ => return Ok(false),
        }
        Ok(true)
    });
    if let Err(status) = parsed {
        return status;
    }
    opts.listen = match http::parse_listen(&listen) {
        Ok(a) => a,
        Err(msg) => return io.usage_error("exporter", &msg),
    };
    if opts.sysfs != Path::new("/sys") {
        opts.sysfs_only = true;
    }
    let one_shot = opts.once || opts.textfile.is_some();
    let mut state = State {
        opts: opts.clone(),
        registry: None,
        errors: Mutex::new(BTreeMap::new()),
        kept: None,
        readers: Readers::new("uverbs-rd-"),
    };
    if one_shot {
        let state = Arc::new(state);
        // A device whose read never returns keeps its thread; the process ends all the
        // same once the collection is written.
        let text = collect(&state);
        return io.out_or_file("exporter", opts.textfile.as_deref(), text);
    }
    let listener = match std::net::TcpListener::bind(opts.listen) {
        Ok(l) => l,
        Err(e) => {
            io.err_line(&format!(
                "uverbs exporter: cannot listen on {}: {e}",
                opts.listen
            ));
            return 1;
        }
    };
    let bound = listener.local_addr().map_or(opts.listen, |a| a);
    // Room for the connections first (the soft RLIMIT_NOFILE raised), then the files kept.
    let mut limits = opts.limits;
    let lowered = http::fit_to_nofile(&mut limits);
    state.kept = Some(KeptFiles::new(kept_files_cap()));
    let mut mode = "sysfs only";
    if !opts.sysfs_only {
        match DeviceMonitor::new() {
            Ok(monitor) => {
                let reg = Arc::new(Registry::default());
                // The monitor first, then the devices present: nothing is missed.
                if let Ok(infos) = Discovery::new().sysfs_details(true).devices() {
                    let mut devs = reg.devices.lock().unwrap_or_else(|p| p.into_inner());
                    for info in infos.into_iter().filter(|i| wanted(&opts, &i.name)) {
                        devs.insert(info.name.clone(), Arc::new(serve_device(info)));
                    }
                }
                let r = reg.clone();
                let o = opts.clone();
                let started = std::thread::Builder::new()
                    .name("uverbs-exporter-monitor".into())
                    .spawn(move || follow(&r, &o, monitor));
                if started.is_ok() {
                    state.registry = Some(reg);
                    mode = "uverbs, following devices";
                }
            }
            Err(e) => io.err_line(&crate::plumbing::io::printable(
                format!("uverbs exporter: cannot follow devices ({e}): reading sysfs only")
                    .as_bytes(),
            )),
        }
    }
    io.err_line(&format!(
        "uverbs exporter: listening on http://{bound}/metrics ({mode})"
    ));
    if let Some(note) = lowered {
        io.err_line(&format!("uverbs exporter: {note}"));
    }
    io.flush();
    let state = Arc::new(state);
    let handler = move |path: &str| match path {
        "/metrics" => Response {
            status: 200,
            content_type: crate::plumbing::prom::CONTENT_TYPE,
            body: collect(&state).into_bytes(),
        },
        "/" => Response::text(
            200,
            "uverbs exporter: RDMA devices and ports for Prometheus at /metrics\n",
        ),
        _ => Response::text(404, "Not Found: the metrics are at /metrics\n"),
    };
    let err = http::serve(listener, Arc::new(handler), limits);
    io.err_line(&format!("uverbs exporter: cannot serve: {err}"));
    1
}
