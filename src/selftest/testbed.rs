//! Devices a self-test makes for itself: software RDMA links (rxe, siw) over a network
//! interface the caller names or over a dummy interface made for them, removed again when
//! the run ends. No iproute2 or rdma-core: RDMA netlink for the links
//! ([`crate::netlink::link`]), `NETLINK_ROUTE` for the dummy ([`crate::netlink::route`]).
//!
//! The names are fixed, so that a baseline recorded on them compares with a later run:
//! the dummies are [`dummy_name`]s, the links [`link_name`] of their kind. A name that is taken
//! already (another self-test, or one that could not clean up) is an error, never
//! reused.

use std::net::Ipv4Addr;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::error::{Error, Op, Result};
use crate::netlink::link::{self, LinkType};
use crate::netlink::route;
use crate::selftest::Env;
use crate::sysfs;
use crate::verbs::discover::Discovery;
use crate::verbs::monitor::DeviceMonitor;

/// The dummy interface a test bed makes for its `i`th link when it is given none: one
/// each, so that an address on siw's reaches siw through the RDMA CM (rxe on the same
/// interface would take it: the CM binds an address to the first device whose GID
/// table has it).
pub fn dummy_name(i: usize) -> String {
    format!("uvst{i}")
}

/// The IPv4 address a test bed gives the dummy under its siw link (link-local, /24):
/// siw's data cases connect through the RDMA CM over it.
pub const SIW_ADDRESS: (Ipv4Addr, u8) = (Ipv4Addr::new(169, 254, 250, 1), 24);

/// How long a new link's uverbs node may take to appear.
const NODE_WAIT: Duration = Duration::from_secs(10);

/// The name of the test bed's link of `kind`.
pub fn link_name(kind: LinkType) -> &'static str {
    match kind {
        LinkType::Rxe => "uvst_rxe",
        LinkType::Siw => "uvst_siw",
    }
}

/// Software RDMA devices made for a self-test, removed by [`Testbed::remove`] (or, quietly,
/// when dropped).
#[derive(Debug)]
pub struct Testbed {
    /// The dummy interfaces made for the links, in order.
    dummies: Vec<String>,
    /// The links made, in order.
    links: Vec<String>,
}

impl Testbed {
    /// Makes a link of each of `kinds` over `netdev`, or each over a dummy interface
    /// of its own ([`dummy_name`], set up; siw's with [`SIW_ADDRESS`]) when `netdev` is
    /// `None`, and waits until each has its uverbs node. What was made is removed again
    /// if a later step fails.
    ///
    /// # Errors
    ///
    /// As [`route::add_dummy`], [`route::set_up`], [`route::add_ipv4`] and
    /// [`link::add`] (`EEXIST` when a name is taken, `EPERM` without `CAP_NET_ADMIN`,
    /// [`Error::NotSupported`] without the driver); [`Error::DeviceGone`] when a link's
    /// uverbs node does not appear within 10 seconds, or a dummy's ifindex cannot be read.
    pub fn make(kinds: &[LinkType], netdev: Option<&str>) -> Result<Testbed> {
        let mut bed = Testbed {
            dummies: Vec::new(),
            links: Vec::new(),
        };
        // Watch for the nodes before any link exists, so that none is missed.
        let mut monitor = DeviceMonitor::new().ok();
        for (i, &kind) in kinds.iter().enumerate() {
            let over = match netdev {
                Some(n) => n.to_owned(),
                None => bed.dummy(i, kind)?,
            };
            let name = link_name(kind);
            link::add(name, kind, &over)?;
            bed.links.push(name.to_owned());
            wait_node(name, monitor.as_mut())?;
        }
        Ok(bed)
    }

    /// Makes and sets up the dummy for the `i`th link, of `kind`; siw's gets its address.
    fn dummy(&mut self, i: usize, kind: LinkType) -> Result<String> {
        let name = dummy_name(i);
        route::add_dummy(&name)?;
        self.dummies.push(name.clone());
        route::set_up(&name, true)?;
        if kind == LinkType::Siw {
            let ifindex =
                sysfs::ifindex_of(Path::new("/sys"), &name).ok_or_else(|| Error::DeviceGone {
                    op: Op::new("ifindex", &name),
                    errno: rustix::io::Errno::NODEV,
                })?;
            let (addr, prefix) = SIW_ADDRESS;
            route::add_ipv4(ifindex, addr, prefix)?;
        }
        Ok(name)
    }

    /// The RDMA devices made, in order.
    pub fn devices(&self) -> &[String] {
        &self.links
    }

    /// What the cases may do on these devices: flap the dummies the test bed made
    /// (never an interface the caller named).
    pub fn env(&self) -> Env {
        Env {
            own_netdevs: self.dummies.clone(),
        }
    }

    /// Removes the links, then the dummy; returns what could not be removed. Every
    /// context on the links must be closed first: rxe and siw wait for their files to
    /// close before a link is gone.
    pub fn remove(mut self) -> Vec<Error> {
        self.remove_all()
    }

    fn remove_all(&mut self) -> Vec<Error> {
        let mut errors = Vec::new();
        while let Some(l) = self.links.pop() {
            if let Err(e) = link::del(&l) {
                errors.push(e);
            }
        }
        while let Some(d) = self.dummies.pop() {
            if let Err(e) = route::delete(&d) {
                errors.push(e);
            }
        }
        errors
    }
}

impl Drop for Testbed {
    fn drop(&mut self) {
        let _ = self.remove_all();
    }
}

/// Waits until device `name` has a uverbs node: at once when discovery finds one,
/// else on the monitor's events (NodeAdded for it), at most [`NODE_WAIT`].
fn wait_node(name: &str, mut monitor: Option<&mut DeviceMonitor>) -> Result<()> {
    let has_node = || {
        Discovery::new()
            .device(name)
            .is_ok_and(|i| i.uverbs.is_some())
    };
    let deadline = Instant::now() + NODE_WAIT;
    while !has_node() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(Error::DeviceGone {
                op: Op::new("wait for the uverbs node", name),
                errno: rustix::io::Errno::TIMEDOUT,
            });
        }
        // Any event may be the node (or a rename on the way to it): look again after
        // each; without a monitor (no uevent socket), after a short pause.
        let waited = monitor.as_deref_mut().map(|m| m.next(Some(left)));
        if !matches!(waited, Some(Ok(_))) {
            std::thread::sleep(Duration::from_millis(50).min(left));
        }
    }
    Ok(())
}
