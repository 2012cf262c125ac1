//! Devices that come and go: a monitor of RDMA devices being added, removed and
//! renamed, and the guard that lets go of a device's files when its removal starts.
//!
//! ## The monitor
//!
//! [`DeviceMonitor`] reports [`DeviceChange`]s without polling:
//!
//! - kobject uevents (`NETLINK_KOBJECT_UEVENT`), on every kernel: the `infiniband` class
//!   (devices added, removed, renamed) and the `infiniband_verbs` class (the
//!   `/dev/infiniband/uverbsN` nodes). The uverbs node is removed at the *start* of a
//!   device's removal (`ib_uverbs_remove_one` deletes the character device before the
//!   kernel waits for the device's files to be closed), so [`DeviceChange::NodeRemoved`]
//!   is the moment to let go;
//! - the RDMA netlink notification group (`RDMA_NL_GROUP_NOTIFY`, Linux 6.12), where the
//!   kernel has it, detected at run time from `SYS_GET`
//!   ([`DeviceMonitor::rdma_notifications`]); on older kernels it is not used.
//!
//! Both sources are merged: a device is reported added once and removed once, whichever
//! source tells first.
//!
//! ## The guard
//!
//! rxe and siw cannot disassociate a user context: the kernel's removal of such a
//! device waits until this process closes every file of it. [`guard`] puts a context
//! under a process-wide watch (one thread, started on first use, blocked on the
//! monitor's sockets, holding no device file): when the device's removal starts, the
//! context is revoked ([`Context::revoke`]) at once, with its event streams, completion
//! channels and objects, and every later call answers [`Error::DeviceRemoved`]. The
//! port caches guard their context themselves.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

use rustix::event::{PollFd, PollFlags, Timespec};
use rustix::io::Errno;

use crate::error::{Error, Op, Result};
use crate::netlink::nldev::{self, NotifyKind};
use crate::netlink::uevent::{self, Action, UeventSocket};
use crate::netlink::{messages, NlSocket};
use crate::raw::lifeline::Lifeline;
use crate::verbs::context::Context;

/// A change of the RDMA devices, as [`DeviceMonitor`] reports it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DeviceChange {
    /// An RDMA device appeared (`rxe0`).
    Added {
        /// Its name.
        name: String,
    },
    /// An RDMA device is gone (its removal has finished).
    Removed {
        /// Its name.
        name: String,
    },
    /// An RDMA device was renamed.
    Renamed {
        /// The old name.
        from: String,
        /// The new name.
        to: String,
    },
    /// A uverbs node appeared (`uverbs0`): the device can be opened.
    NodeAdded {
        /// The node's name under `/dev/infiniband`.
        node: String,
        /// The device it belongs to, when sysfs says.
        device: Option<String>,
    },
    /// A uverbs node is gone: the device's removal has started (the kernel now waits for
    /// its files to be closed).
    NodeRemoved {
        /// The node's name.
        node: String,
        /// The device it belonged to, when known.
        device: Option<String>,
    },
}

impl DeviceChange {
    /// The device the event is about, when known.
    pub fn device(&self) -> Option<&str> {
        match self {
            DeviceChange::Added { name } | DeviceChange::Removed { name } => Some(name),
            DeviceChange::Renamed { to, .. } => Some(to),
            DeviceChange::NodeAdded { device, .. } | DeviceChange::NodeRemoved { device, .. } => {
                device.as_deref()
            }
        }
    }

    /// True for the events that mean the device is leaving: [`Self::NodeRemoved`] (the
    /// start) and [`Self::Removed`] (the end).
    pub fn is_removal(&self) -> bool {
        matches!(
            self,
            DeviceChange::Removed { .. } | DeviceChange::NodeRemoved { .. }
        )
    }
}

/// A monitor of RDMA devices (see the [module docs](self)).
#[derive(Debug)]
pub struct DeviceMonitor {
    uevents: UeventSocket,
    notify: Option<OwnedFd>,
    sysfs_root: PathBuf,
    devices: BTreeSet<String>,
    /// uverbs node -> device.
    nodes: BTreeMap<String, String>,
    /// Device index -> name, from notifications.
    indexes: BTreeMap<u32, String>,
    pending: VecDeque<DeviceChange>,
    buf: Vec<u8>,
}

impl DeviceMonitor {
    /// A monitor of the devices of `/sys`.
    ///
    /// # Errors
    ///
    /// The errors of opening the uevent socket (`EPERM` where netlink is not allowed).
    pub fn new() -> Result<Self> {
        Self::with_sysfs_root("/sys")
    }

    /// A monitor whose device list (at the start, and after lost events) comes from the
    /// sysfs tree at `root`.
    ///
    /// # Errors
    ///
    /// As [`DeviceMonitor::new`].
    pub fn with_sysfs_root(root: impl Into<PathBuf>) -> Result<Self> {
        // The sockets first, then the scan: nothing can slip between the two.
        let uevents = UeventSocket::open()?;
        let notify = NlSocket::open()
            .and_then(|mut s| nldev::notifications_supported(&mut s))
            .unwrap_or(false)
            .then(nldev::notify_socket)
            .transpose()
            .unwrap_or(None);
        let mut m = DeviceMonitor {
            uevents,
            notify,
            sysfs_root: root.into(),
            devices: BTreeSet::new(),
            nodes: BTreeMap::new(),
            indexes: BTreeMap::new(),
            pending: VecDeque::new(),
            buf: vec![0; uevent::MAX_UEVENT],
        };
        let (devices, nodes) = scan(&m.sysfs_root);
        m.devices = devices;
        m.nodes = nodes;
        Ok(m)
    }

    /// True when the kernel's RDMA netlink notifications (Linux 6.12) are in use beside
    /// the uevents.
    pub fn rdma_notifications(&self) -> bool {
        self.notify.is_some()
    }

    /// The devices present now, as far as the monitor has seen.
    pub fn devices(&self) -> impl Iterator<Item = &str> {
        self.devices.iter().map(String::as_str)
    }

    /// The device of a uverbs node, as far as the monitor has seen.
    pub fn device_of_node(&self, node: &str) -> Option<&str> {
        self.nodes.get(node).map(String::as_str)
    }

    /// The next event without waiting: `None` when nothing happened.
    ///
    /// # Errors
    ///
    /// The errno of reading a socket (never `EAGAIN`; `ENOBUFS` is handled: the device
    /// list is read again and the differences reported).
    pub fn try_next(&mut self) -> Result<Option<DeviceChange>> {
        loop {
            if let Some(e) = self.pending.pop_front() {
                return Ok(Some(e));
            }
            if !self.read_some()? {
                return Ok(None);
            }
        }
    }

    /// The next event, waiting at most `timeout` (`None`: no limit); `None` on timeout.
    ///
    /// # Errors
    ///
    /// As [`DeviceMonitor::try_next`]; the errno of `poll(2)`.
    pub fn next(&mut self, timeout: Option<Duration>) -> Result<Option<DeviceChange>> {
        if let Some(e) = self.try_next()? {
            return Ok(Some(e));
        }
        if !self.wait(timeout, None)? {
            return Ok(None);
        }
        self.try_next()
    }

    /// Waits until an event may be read, at most `timeout`, or until `extra` is
    /// readable. Returns false on timeout.
    ///
    /// # Errors
    ///
    /// The errno of `poll(2)` (not `EINTR`, which returns true).
    pub fn wait(
        &self,
        timeout: Option<Duration>,
        extra: Option<std::os::fd::BorrowedFd<'_>>,
    ) -> Result<bool> {
        if !self.pending.is_empty() {
            return Ok(true);
        }
        let ts = timeout.map(|d| Timespec {
            tv_sec: i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
            tv_nsec: i64::from(d.subsec_nanos()),
        });
        let mine: Vec<_> = self.fds().chain(extra).collect();
        let mut fds: Vec<_> = mine.iter().map(|f| PollFd::new(f, PollFlags::IN)).collect();
        match rustix::event::poll(&mut fds, ts.as_ref()) {
            Ok(0) => Ok(false),
            Ok(_) | Err(Errno::INTR) => Ok(true),
            Err(errno) => Err(Error::Os {
                op: Op::new("poll device events", ""),
                errno,
            }),
        }
    }

    /// The monitor's sockets, for a caller that polls them beside its own files: when
    /// one is readable, [`DeviceMonitor::try_next`] has something to read.
    pub fn fds(&self) -> impl Iterator<Item = std::os::fd::BorrowedFd<'_>> {
        std::iter::once(self.uevents.as_fd()).chain(self.notify.as_ref().map(|n| n.as_fd()))
    }

    /// Reads what is queued on the sockets into `pending`; false when nothing was.
    fn read_some(&mut self) -> Result<bool> {
        let mut any = false;
        match self.uevents.recv(&mut self.buf) {
            Ok(Some(n)) => {
                any = true;
                let owned = self.buf[..n].to_vec();
                self.uevent(&owned);
            }
            Ok(None) => {}
            Err(e) if e.errno() == Some(Errno::NOBUFS) => {
                any = true;
                self.lost();
            }
            Err(e) => return Err(e),
        }
        if let Some(fd) = &self.notify {
            match rustix::net::recv(fd, &mut self.buf, rustix::net::RecvFlags::DONTWAIT) {
                Ok((n, _)) if n > 0 => {
                    any = true;
                    let owned = self.buf[..n.min(self.buf.len())].to_vec();
                    self.notification(&owned);
                }
                Ok(_) | Err(Errno::AGAIN) | Err(Errno::INTR) => {}
                Err(Errno::NOBUFS) => {
                    any = true;
                    self.lost();
                }
                Err(errno) => {
                    return Err(Error::Os {
                        op: Op::new("netlink notify recv", ""),
                        errno,
                    })
                }
            }
        }
        Ok(any)
    }

    fn uevent(&mut self, datagram: &[u8]) {
        let Some(u) = uevent::parse(datagram) else {
            return;
        };
        match (u.subsystem, u.action) {
            (Some("infiniband"), Action::Add) => self.added(u.name()),
            (Some("infiniband"), Action::Remove) => self.removed(u.name()),
            (Some("infiniband"), Action::Move) => {
                if let Some(old) = u.old_name() {
                    self.renamed(old, u.name());
                }
            }
            (Some("infiniband_verbs"), Action::Add) => {
                let node = u.name().to_owned();
                let device = read_ibdev(&self.sysfs_root, &node);
                if let Some(d) = &device {
                    self.nodes.insert(node.clone(), d.clone());
                }
                self.pending
                    .push_back(DeviceChange::NodeAdded { node, device });
            }
            (Some("infiniband_verbs"), Action::Remove) => {
                let node = u.name().to_owned();
                // The kernel unlists a node before it says so, and a node whose file is
                // open is never reused: a node listed again belongs to a later device
                // (the event was read late). Which device it was is then unknown (the
                // node's entry already names the later one): no holder of the later
                // device may take it for its own removal.
                let device = if crate::sysfs::uverbs_node_listed(&self.sysfs_root, &node) {
                    None
                } else {
                    self.nodes.remove(&node)
                };
                self.pending
                    .push_back(DeviceChange::NodeRemoved { node, device });
            }
            _ => {}
        }
    }

    fn notification(&mut self, datagram: &[u8]) {
        for m in messages(datagram).flatten() {
            if m.header.nlmsg_type != nldev::TYPE_MONITOR {
                continue;
            }
            let Ok(n) = nldev::parse_notify(m.payload) else {
                continue;
            };
            let name = n
                .dev_name
                .map(str::to_owned)
                .or_else(|| n.dev_index.and_then(|i| self.indexes.get(&i).cloned()));
            let Some(name) = name else { continue };
            match n.kind {
                NotifyKind::Register => {
                    if let Some(i) = n.dev_index {
                        self.indexes.insert(i, name.clone());
                    }
                    self.added(&name);
                }
                NotifyKind::Unregister => self.removed(&name),
                NotifyKind::Rename => {
                    let old = n
                        .dev_index
                        .and_then(|i| self.indexes.insert(i, name.clone()));
                    if let Some(old) = old {
                        self.renamed(&old, &name);
                    }
                }
                _ => {}
            }
        }
    }

    fn added(&mut self, name: &str) {
        if self.devices.insert(name.to_owned()) {
            self.pending.push_back(DeviceChange::Added {
                name: name.to_owned(),
            });
        }
    }

    fn removed(&mut self, name: &str) {
        if self.devices.remove(name) {
            self.nodes.retain(|_, d| d != name);
            self.pending.push_back(DeviceChange::Removed {
                name: name.to_owned(),
            });
        }
    }

    fn renamed(&mut self, from: &str, to: &str) {
        if from == to || self.devices.contains(to) {
            return;
        }
        self.devices.remove(from);
        self.devices.insert(to.to_owned());
        for d in self.nodes.values_mut() {
            if d == from {
                *d = to.to_owned();
            }
        }
        self.pending.push_back(DeviceChange::Renamed {
            from: from.to_owned(),
            to: to.to_owned(),
        });
    }

    /// A socket overflowed (`ENOBUFS`): the kernel dropped the events that did not fit,
    /// and what is still queued, on either socket, is older than those. Acting on it
    /// after reading the lists would undo what the lost events did (a device removed,
    /// then added again by a stale event whose removal was dropped). So everything
    /// queued is discarded first, then the lists are read: the kernel changes sysfs
    /// before it sends the event (the class entry exists before `add`, is gone before
    /// `remove`), so what was discarded is in the lists, and what comes later follows
    /// them in order.
    fn lost(&mut self) {
        loop {
            match self.uevents.recv(&mut self.buf) {
                Ok(Some(_)) => {}
                Err(e) if e.errno() == Some(Errno::NOBUFS) => {}
                Ok(None) | Err(_) => break,
            }
        }
        if let Some(fd) = &self.notify {
            loop {
                match rustix::net::recv(fd, &mut self.buf, rustix::net::RecvFlags::DONTWAIT) {
                    Ok((n, _)) if n > 0 => {}
                    Err(Errno::NOBUFS) | Err(Errno::INTR) => {}
                    Ok(_) | Err(_) => break,
                }
            }
        }
        self.rescan();
    }

    /// Events were lost: read the lists again and report the differences.
    fn rescan(&mut self) {
        let (devices, nodes) = scan(&self.sysfs_root);
        let gone_nodes: Vec<(String, String)> = self
            .nodes
            .iter()
            .filter(|(n, _)| !nodes.contains_key(*n))
            .map(|(n, d)| (n.clone(), d.clone()))
            .collect();
        for (node, device) in gone_nodes {
            self.nodes.remove(&node);
            self.pending.push_back(DeviceChange::NodeRemoved {
                node,
                device: Some(device),
            });
        }
        let gone: Vec<String> = self.devices.difference(&devices).cloned().collect();
        for d in gone {
            self.removed(&d);
        }
        for d in devices.difference(&self.devices.clone()) {
            self.added(d);
        }
        for (node, device) in nodes {
            match self.nodes.insert(node.clone(), device.clone()) {
                Some(old) if old == device => continue,
                // The node now belongs to another device: the one it had lost it.
                Some(old) => self.pending.push_back(DeviceChange::NodeRemoved {
                    node: node.clone(),
                    device: Some(old),
                }),
                None => {}
            }
            self.pending.push_back(DeviceChange::NodeAdded {
                node,
                device: Some(device),
            });
        }
    }
}

/// The devices and the uverbs nodes (node -> device) sysfs lists now.
fn scan(root: &Path) -> (BTreeSet<String>, BTreeMap<String, String>) {
    let devices = crate::sysfs::device_names(root)
        .unwrap_or_default()
        .into_iter()
        .collect();
    let nodes = crate::sysfs::uverbs_nodes(root)
        .unwrap_or_default()
        .into_iter()
        .map(|n| (n.name, n.ibdev))
        .collect();
    (devices, nodes)
}

fn read_ibdev(root: &Path, node: &str) -> Option<String> {
    crate::sysfs::uverbs_nodes(root)
        .ok()?
        .into_iter()
        .find(|n| n.name == node)
        .map(|n| n.ibdev)
}

// ---------------------------------------------------------------- the guard

/// A guarded context: its device's name (followed through renames), its uverbs node
/// and the sysfs tree that lists it, and its lifeline.
#[derive(Debug)]
struct Entry {
    device: String,
    node: String,
    sysfs_root: PathBuf,
    lifeline: Weak<Lifeline>,
}

#[derive(Debug, Default)]
struct Guarded {
    entries: Vec<Entry>,
}

#[derive(Debug)]
struct Guard {
    guarded: Arc<Mutex<Guarded>>,
}

static GUARD: OnceLock<core::result::Result<Guard, Errno>> = OnceLock::new();

fn start_guard() -> core::result::Result<Guard, Errno> {
    let mut monitor = DeviceMonitor::new().map_err(|e| e.errno().unwrap_or(Errno::IO))?;
    let guarded = Arc::new(Mutex::new(Guarded::default()));
    let g = guarded.clone();
    std::thread::Builder::new()
        .name("uverbs-guard".into())
        .spawn(move || loop {
            match monitor.next(None) {
                Ok(Some(ev)) => apply(&g, &ev),
                Ok(None) => {}
                // A socket error: wait a little rather than spin, then go on.
                Err(_) => std::thread::sleep(Duration::from_millis(100)),
            }
        })
        .map_err(|e| Errno::from_io_error(&e).unwrap_or(Errno::AGAIN))?;
    Ok(Guard { guarded })
}

fn apply(g: &Mutex<Guarded>, ev: &DeviceChange) {
    let mut g = g.lock().unwrap_or_else(|p| p.into_inner());
    g.entries.retain(|e| e.lifeline.strong_count() > 0);
    let (device, node) = match ev {
        DeviceChange::NodeRemoved { node, device } => (device.as_deref(), Some(node.as_str())),
        DeviceChange::Removed { name } => (Some(name.as_str()), None),
        DeviceChange::Renamed { from, to } => {
            for e in g.entries.iter_mut().filter(|e| e.device == *from) {
                e.device.clone_from(to);
            }
            return;
        }
        _ => return,
    };
    // A context is let go of when its own node is no longer listed: the kernel unlists
    // it when the removal starts, and never lists it again while the context holds it.
    // So an event read late (a device of the same name removed before this one was
    // added, a node number reused) never revokes a live context.
    g.entries.retain(|e| {
        let concerned = device == Some(e.device.as_str()) || node == Some(e.node.as_str());
        if concerned && !crate::sysfs::uverbs_node_listed(&e.sysfs_root, &e.node) {
            if let Some(l) = e.lifeline.upgrade() {
                let _ = l.revoke();
            }
            false
        } else {
            true
        }
    });
}

/// Puts `ctx` under the process-wide guard: when its device's removal starts, the
/// context is revoked ([`Context::revoke`]) at once, so that the removal does not wait
/// for this process. The guard's thread starts on first use; it holds no device file.
/// Guarding a context twice is harmless.
///
/// If the device's uverbs node is gone already, the context is revoked now.
///
/// # Errors
///
/// [`Error::Os`] when the guard cannot start (no uevent socket: a sandbox without
/// netlink); the context is then not guarded.
pub fn guard(ctx: &Context) -> Result<()> {
    let g = GUARD
        .get_or_init(start_guard)
        .as_ref()
        .map_err(|&errno| Error::Os {
            op: Op::new("start the device guard", ctx.name()),
            errno,
        })?;
    // The device's node, as sysfs lists it (the context holds it: it cannot belong to
    // another device meanwhile). None: its removal started before the entry was listed.
    let node = crate::sysfs::uverbs_nodes(ctx.sysfs_root()).map(|nodes| {
        nodes
            .into_iter()
            .find(|n| n.ibdev == ctx.name())
            .map(|n| n.name)
    });
    let node = match node {
        Ok(Some(n)) => n,
        Ok(None) => {
            let _ = ctx.revoke();
            return Ok(());
        }
        // Unreadable: the node the context was opened on.
        Err(_) => node_name(ctx),
    };
    let lifeline = Arc::downgrade(ctx.raw().lifeline());
    {
        let mut gd = g.guarded.lock().unwrap_or_else(|p| p.into_inner());
        if !gd.entries.iter().any(|e| e.lifeline.ptr_eq(&lifeline)) {
            gd.entries.push(Entry {
                device: ctx.name().to_owned(),
                node: node.clone(),
                sysfs_root: ctx.sysfs_root().to_owned(),
                lifeline,
            });
        }
    }
    // A removal that started before the entry was listed has been missed: check.
    if !crate::sysfs::uverbs_node_listed(ctx.sysfs_root(), &node) {
        let _ = ctx.revoke();
    }
    Ok(())
}

/// The name of the context's uverbs node (`uverbs0`).
fn node_name(ctx: &Context) -> String {
    ctx.path()
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}
