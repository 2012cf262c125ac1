//! Port and driver counters, and port status from sysfs: what an exporter or a
//! monitoring agent reads, typed.
//!
//! - [`CounterReader::read`]: every counter of a device: per port the InfiniBand PMA set
//!   (`counters/`, and mlx4's `counters_ext/`) and the driver's counters (per port: one
//!   RDMA netlink `STAT_GET` request, as `rdma statistic show` sends, or sysfs
//!   `hw_counters/` where netlink cannot answer); the device's own driver counters
//!   (`hw_counters/` of the device). The PMA data counters count 4-octet words:
//!   [`Counter::bytes`] converts.
//! - [`PortStatus`]: state, physical state, link layer, width, speed, rate and LID, from
//!   a QUERY_PORT answer ([`PortStatus::from_attr`]) or from sysfs
//!   ([`PortStatus::read_sysfs`]), for a host or container with only `/sys`.
//! - [`sysfs_devices`]: the devices of a sysfs tree, read leniently (a tree that lacks
//!   files, like node_exporter's test data, still lists its devices).
//!
//! Nothing here holds a file open between calls. Errors are collected per device, never
//! fatal to the other devices.

use std::path::{Path, PathBuf};

use rustix::io::Errno;

use crate::error::{Error, Op, Result};
use crate::netlink::NlSocket;
use crate::sysfs::stats::{open_optional, parse_rate, parse_state, read_counter_files};
use crate::sysfs::{NumName, SysDir};
use crate::types::{LinkLayer, NodeType, PhysState, PortState};
use crate::verbs::discover::DeviceInfo;
use crate::verbs::port::PortAttr;

/// One counter: its name (the sysfs file's, or netlink's, which is the same) and value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counter {
    /// The name (`port_rcv_packets`, `rcvd_pkts`).
    pub name: String,
    /// The value, in the counter's own unit (4-octet words for the PMA data counters).
    pub value: u64,
}

/// The PMA counters that count 4-octet words (IBA `PortXmitData`, `PortRcvData`, and
/// their 64-bit `counters_ext` forms).
pub const OCTETS4: [&str; 4] = [
    "port_xmit_data",
    "port_rcv_data",
    "port_xmit_data_64",
    "port_rcv_data_64",
];

impl Counter {
    /// Whether the counter counts 4-octet words ([`OCTETS4`]).
    pub fn is_octets4(&self) -> bool {
        OCTETS4.contains(&self.name.as_str())
    }

    /// The value in bytes for a 4-octet data counter (saturating), `None` for the others.
    pub fn bytes(&self) -> Option<u64> {
        self.is_octets4().then(|| self.value.saturating_mul(4))
    }
}

/// Where a port's driver counters came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CounterSource {
    /// RDMA netlink `STAT_GET` (one request for every counter of the port).
    Netlink,
    /// sysfs `hw_counters/`, one file per counter.
    #[default]
    Sysfs,
}

/// The counters of one port.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PortCounters {
    /// The port (from 1).
    pub port: u32,
    /// `counters/`: the PMA counters the driver has (those it shows as `N/A` left out),
    /// sorted by name.
    pub pma: Vec<Counter>,
    /// `counters_ext/` (mlx4), sorted by name.
    pub pma_ext: Vec<Counter>,
    /// The driver's counters of the port, in the driver's order (netlink) or by name
    /// (sysfs).
    pub hw: Vec<Counter>,
    /// Where [`PortCounters::hw`] came from.
    pub hw_source: CounterSource,
}

/// Every counter of a device.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct DeviceCounters {
    /// The device.
    pub device: String,
    /// The device's own driver counters (`hw_counters/` of the device), sorted by name.
    pub hw: Vec<Counter>,
    /// Its ports, in order.
    pub ports: Vec<PortCounters>,
    /// What could not be read (a file that cannot be read or does not hold a number, a
    /// port directory that cannot be opened): each costs only its own counters.
    pub errors: Vec<Error>,
}

/// Reads counters from a sysfs tree and RDMA netlink.
#[derive(Debug)]
pub struct CounterReader {
    root: PathBuf,
    use_netlink: bool,
    netlink: Option<NlSocket>,
}

impl Default for CounterReader {
    fn default() -> Self {
        Self::new()
    }
}

fn sys_err(op: Op, errno: Errno) -> Error {
    Error::Os { op, errno }
}

/// An error about one file: the operation on the device (and port), the file and what
/// went wrong with it (the errno, or the text that does not parse).
fn file_err(dev: &str, port: u32, file: &str, cause: impl core::fmt::Display) -> Error {
    Error::Protocol {
        op: if port == 0 {
            Op::new("read sysfs", dev)
        } else {
            Op::port("read sysfs", dev, port)
        },
        detail: format!("{file}: {cause}"),
    }
}

fn to_counters(v: Vec<(String, u64)>) -> Vec<Counter> {
    v.into_iter()
        .map(|(name, value)| Counter { name, value })
        .collect()
}

impl CounterReader {
    /// A reader of `/sys`, asking netlink for the ports' driver counters.
    pub fn new() -> Self {
        CounterReader {
            root: PathBuf::from("/sys"),
            use_netlink: true,
            netlink: None,
        }
    }

    /// The sysfs mount point (default `/sys`).
    pub fn sysfs_root(mut self, root: impl Into<PathBuf>) -> Self {
        self.root = root.into();
        self
    }

    /// Whether to ask RDMA netlink for the ports' driver counters (default `true`; the
    /// socket is opened on first use, and sysfs is read where netlink cannot answer).
    pub fn netlink(mut self, on: bool) -> Self {
        self.use_netlink = on;
        self
    }

    /// The driver counters of `port` of the device of netlink index `index`, by
    /// `STAT_GET`; `None` when netlink cannot answer (no socket, no such counters: the
    /// kernel says `EINVAL` for siw, for instance).
    fn netlink_hw(&mut self, index: u32, port: u32) -> Option<Vec<Counter>> {
        if !self.use_netlink {
            return None;
        }
        if self.netlink.is_none() {
            match NlSocket::open() {
                Ok(s) => self.netlink = Some(s),
                Err(_) => {
                    self.use_netlink = false;
                    return None;
                }
            }
        }
        let sock = self.netlink.as_mut()?;
        sock.port_hw_counters(index, port).ok().map(to_counters)
    }

    /// Every counter of device `name`: its ports' (those listed under `ports/`), then its
    /// own. `index` is the device's netlink index ([`DeviceInfo::index`]); without it
    /// the ports' driver counters are read from sysfs.
    pub fn read(&mut self, name: &str, index: Option<u32>) -> DeviceCounters {
        let mut out = DeviceCounters {
            device: name.to_owned(),
            ..DeviceCounters::default()
        };
        let dir = match SysDir::open(&self.root.join("class/infiniband").join(name)) {
            Ok(d) => d,
            Err(e) => {
                out.errors.push(sys_err(Op::new("read counters", name), e));
                return out;
            }
        };
        let ports = match open_optional(&dir, "ports") {
            Ok(p) => p,
            Err(e) => {
                out.errors.push(file_err(name, 0, "ports/", e));
                None
            }
        };
        let mut numbers = Vec::new();
        if let Some(ports) = &ports {
            let _ = ports.for_each_name(|n| {
                if let Ok(p) = n.parse::<u32>() {
                    numbers.push(p);
                }
            });
        }
        numbers.sort_unstable();
        let mut port_dirs = Vec::with_capacity(numbers.len());
        for port in numbers {
            if let Some(pdir) = ports.as_ref().and_then(|p| {
                p.dir(NumName::new(port).as_str())
                    .map_err(|e| out.errors.push(file_err(name, port, "ports/N", e)))
                    .ok()
            }) {
                port_dirs.push((port, pdir));
            }
        }
        let port_dirs: Vec<(u32, &SysDir)> = port_dirs.iter().map(|(p, d)| (*p, d)).collect();
        self.read_open(name, &mut out, index, &dir, &port_dirs);
        out
    }

    /// [`read`](Self::read) for a caller that has the device's directory and its ports'
    /// open already (`dir` is `class/infiniband/<name>`, `ports` its `ports/N` in port
    /// order): what reads several things of each port opens each directory once.
    pub fn read_in(
        &mut self,
        name: &str,
        index: Option<u32>,
        dir: &SysDir,
        ports: &[(u32, &SysDir)],
    ) -> DeviceCounters {
        let mut out = DeviceCounters {
            device: name.to_owned(),
            ..DeviceCounters::default()
        };
        self.read_open(name, &mut out, index, dir, ports);
        out
    }

    /// The counters of the ports `ports`, then the device's (`dir`), into `out`.
    fn read_open(
        &mut self,
        name: &str,
        out: &mut DeviceCounters,
        index: Option<u32>,
        dir: &SysDir,
        ports: &[(u32, &SysDir)],
    ) {
        for (port, pdir) in ports {
            let port = *port;
            let mut pc = PortCounters {
                port,
                ..PortCounters::default()
            };
            pc.pma = self.files(pdir, "counters", name, port, &mut out.errors);
            pc.pma_ext = self.files(pdir, "counters_ext", name, port, &mut out.errors);
            match index.and_then(|i| self.netlink_hw(i, port)) {
                Some(hw) => {
                    pc.hw = hw;
                    pc.hw_source = CounterSource::Netlink;
                }
                None => pc.hw = self.files(pdir, "hw_counters", name, port, &mut out.errors),
            }
            out.ports.push(pc);
        }
        out.hw = self.files(dir, "hw_counters", name, 0, &mut out.errors);
    }

    /// The counter files of `sub` under `dir` (port `port`, 0 for the device).
    fn files(
        &self,
        dir: &SysDir,
        sub: &str,
        dev: &str,
        port: u32,
        errors: &mut Vec<Error>,
    ) -> Vec<Counter> {
        let d = match open_optional(dir, sub) {
            Ok(Some(d)) => d,
            Ok(None) => return Vec::new(),
            Err(e) => {
                errors.push(file_err(dev, port, sub, e));
                return Vec::new();
            }
        };
        match read_counter_files(&d) {
            Ok(f) => {
                for (file, text) in f.malformed {
                    let cause = format!("not a counter: {text:?}");
                    errors.push(file_err(dev, port, &format!("{sub}/{file}"), cause));
                }
                for (file, e) in f.unreadable {
                    errors.push(file_err(dev, port, &format!("{sub}/{file}"), e));
                }
                to_counters(f.values)
            }
            Err(e) => {
                errors.push(file_err(dev, port, sub, e));
                Vec::new()
            }
        }
    }
}

/// A port's status: from QUERY_PORT, or from sysfs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PortStatus {
    /// The port (from 1).
    pub port: u32,
    /// The logical state.
    pub state: Option<PortState>,
    /// The physical state.
    pub phys_state: Option<PhysState>,
    /// The link layer.
    pub link_layer: Option<LinkLayer>,
    /// The active width in lanes.
    pub lanes: Option<u32>,
    /// The lane speed in tenths of Gb/s.
    pub lane_decigbps: Option<u32>,
    /// The rate (lanes × lane speed) in tenths of Gb/s, as sysfs `rate` gives it.
    pub rate_decigbps: Option<u32>,
    /// The active MTU in bytes (QUERY_PORT only: sysfs has none).
    pub active_mtu: Option<u32>,
    /// The largest MTU in bytes (QUERY_PORT only).
    pub max_mtu: Option<u32>,
    /// The base LID (InfiniBand ports).
    pub lid: Option<u32>,
}

impl PortStatus {
    /// The status of port `port` from its QUERY_PORT answer.
    pub fn from_attr(port: u32, a: &PortAttr) -> PortStatus {
        PortStatus {
            port,
            state: Some(a.state),
            phys_state: Some(a.phys_state),
            link_layer: Some(a.link_layer),
            lanes: a.active_width.lanes(),
            lane_decigbps: a.speed().lane_rate_decigbps(),
            rate_decigbps: a.rate_decigbps(),
            active_mtu: a.active_mtu.bytes(),
            max_mtu: a.max_mtu.bytes(),
            lid: (a.link_layer == LinkLayer::InfiniBand).then_some(u32::from(a.lid)),
        }
    }

    /// The status of port `port` of device `dev` from the sysfs tree at `root`:
    /// `state`, `phys_state`, `link_layer`, `rate` (width, lane speed, rate) and, on
    /// InfiniBand, `lid`. What is missing or malformed is left out and named in the
    /// errors returned beside.
    pub fn read_sysfs(root: &Path, dev: &str, port: u32) -> (PortStatus, Vec<Error>) {
        match SysDir::open(
            &root
                .join("class/infiniband")
                .join(dev)
                .join("ports")
                .join(NumName::new(port).as_str()),
        ) {
            Ok(dir) => Self::read_sysfs_in(&dir, dev, port),
            Err(e) => (
                PortStatus {
                    port,
                    ..PortStatus::default()
                },
                vec![file_err(dev, port, "ports/N", e)],
            ),
        }
    }

    /// [`read_sysfs`](Self::read_sysfs) of a port whose directory
    /// (`class/infiniband/<dev>/ports/<port>`) is open already.
    pub fn read_sysfs_in(dir: &SysDir, dev: &str, port: u32) -> (PortStatus, Vec<Error>) {
        let mut st = PortStatus {
            port,
            ..PortStatus::default()
        };
        let mut errors = Vec::new();
        let mut text = |file: &'static str| -> Option<String> {
            match dir.attr(file) {
                Ok(Some(t)) => Some(t),
                Ok(None) => {
                    errors.push(file_err(dev, port, file, Errno::NOENT));
                    None
                }
                Err(e) => {
                    errors.push(file_err(dev, port, file, e));
                    None
                }
            }
        };
        let state = text("state");
        let phys = text("phys_state");
        let ll = text("link_layer");
        let rate = text("rate");
        let mut bad = |file: &'static str, t: &str| {
            errors.push(file_err(dev, port, file, format!("malformed: {t:?}")))
        };
        if let Some(t) = state {
            match parse_state(&t) {
                Some(v) => st.state = Some(PortState::from_raw(v)),
                None => bad("state", &t),
            }
        }
        if let Some(t) = phys {
            match parse_state(&t) {
                Some(v) => st.phys_state = Some(PhysState::from_raw(v)),
                None => bad("phys_state", &t),
            }
        }
        if let Some(t) = ll {
            st.link_layer = Some(match t.trim() {
                "InfiniBand" => LinkLayer::InfiniBand,
                "Ethernet" => LinkLayer::Ethernet,
                _ => LinkLayer::Unspecified,
            });
        }
        if let Some(t) = rate {
            match parse_rate(&t) {
                Some(r) => {
                    st.rate_decigbps = Some(r.decigbps);
                    st.lanes = r.lanes;
                    st.lane_decigbps = r
                        .lanes
                        .filter(|&l| l > 0 && r.decigbps % l == 0)
                        .map(|l| r.decigbps / l);
                }
                None => bad("rate", &t),
            }
        }
        if st.link_layer == Some(LinkLayer::InfiniBand) {
            st.lid = dir.parse("lid", |s| {
                u32::from_str_radix(s.strip_prefix("0x").unwrap_or(s), 16).ok()
            });
        }
        (st, errors)
    }
}

/// The devices of the sysfs tree at `root`, sorted by name, read leniently: a file a
/// device lacks is left out (node_exporter's test data has no `node_type` or
/// `node_guid`, for instance). `port_count` is the highest entry of `ports/`.
///
/// # Errors
///
/// The errno of listing `class/infiniband` (absent: an empty list).
pub fn sysfs_devices(root: &Path) -> Result<Vec<DeviceInfo>> {
    let Some(class) = crate::sysfs::open_class(root)? else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    sysfs_devices_in(root, &class, |_| true, |info, _| out.push(info))?;
    Ok(out)
}

/// [`sysfs_devices`] under `class`, the open `<root>/class/infiniband`, for a caller
/// that reads more of each device: the devices whose name `want` accepts are given to
/// `each`, in name order, with their directory (`None` when it cannot be opened: the
/// device then reads as empty), opened once for both.
///
/// # Errors
///
/// The errno of listing `class`.
pub fn sysfs_devices_in(
    root: &Path,
    class: &SysDir,
    want: impl Fn(&str) -> bool,
    mut each: impl FnMut(DeviceInfo, Option<SysDir>),
) -> Result<()> {
    let names = sysfs_device_names(class)?;
    for n in names.into_iter().filter(|n| want(n)) {
        let (info, dir) = sysfs_device_in(root, class, n);
        each(info, dir);
    }
    Ok(())
}

/// The device names under `class` (the open `<root>/class/infiniband`), sorted.
///
/// # Errors
///
/// The errno of listing `class`.
pub fn sysfs_device_names(class: &SysDir) -> Result<Vec<String>> {
    class.names().map_err(|errno| Error::Os {
        op: Op::new("list sysfs devices", ""),
        errno,
    })
}

/// One device of [`sysfs_devices_in`]: `name` under `class` (the open
/// `<root>/class/infiniband`), read leniently, with its directory (`None` when it cannot
/// be opened: the device then reads as empty). For a caller that reads each device on
/// its own (under a deadline, on a thread of its own), having listed `class` itself.
pub fn sysfs_device_in(root: &Path, class: &SysDir, name: String) -> (DeviceInfo, Option<SysDir>) {
    let dir = class.dir(&name).ok();
    let d = dir
        .as_ref()
        .and_then(|dir| {
            crate::sysfs::read_device_in(root, dir, &name, false, crate::sysfs::Wanted::ALL).ok()
        })
        .unwrap_or_default();
    (sysfs_info(name, d), dir)
}

fn sysfs_info(n: String, d: crate::sysfs::SysDevice) -> DeviceInfo {
    let mut info = DeviceInfo::new(n, d.node_type.unwrap_or(NodeType::Unknown(0)));
    info.node_guid = d.node_guid.unwrap_or_default();
    info.sys_image_guid = d.sys_image_guid;
    info.fw_ver = d.fw_ver.unwrap_or_default();
    info.port_count = d.port_count.unwrap_or(0);
    info.node_desc = d.node_desc;
    info.hca_type = d.hca_type;
    info.hw_rev = d.hw_rev;
    info.board_id = d.board_id;
    info.kernel_driver = d.kernel_driver;
    info.parent = d.parent;
    info.source = crate::verbs::discover::Source::Sysfs;
    info
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_counters_in_bytes() {
        let c = |name: &str, value| Counter {
            name: name.into(),
            value,
        };
        assert_eq!(c("port_rcv_data", 4631917).bytes(), Some(18527668));
        assert_eq!(c("port_xmit_data_64", u64::MAX).bytes(), Some(u64::MAX));
        assert_eq!(c("port_rcv_packets", 5).bytes(), None);
    }
}
