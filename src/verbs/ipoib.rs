//! IPoIB interfaces and the network devices of RDMA ports, read from sysfs.
//!
//! Everything here reads a sysfs tree whose root is a parameter (`/sys` on a live
//! system, a fixture tree in tests) and never calls the kernel otherwise.
//!
//! ## Which netdev belongs to which port
//!
//! [`netdevs`] answers what `ibdev2netdev` answers, from these kernel facts:
//!
//! - A hardware device's netdevs (IPoIB `ib0`, or the Ethernet function of a RoCE or
//!   iWARP adapter) share the RDMA device's parent (the PCI function): their
//!   `class/net/X/device/infiniband/` directory lists the RDMA device. The port is
//!   `dev_port + 1` (IPoIB sets `dev_port` to `port - 1`, and also `dev_id` for old
//!   tools; on kernels before `dev_port` existed only `dev_id` says it).
//! - An IPoIB child interface (`ib0.8001`, made by `create_child` or `ip link add ...
//!   type ipoib`) has no device of its own: its `parent` file names the parent
//!   interface, whose port it shares.
//! - A Soft-RoCE (rxe) device names its netdev in its own `parent` file (port 1).
//! - RoCE GID table entries name their netdev (`ports/N/gid_attrs/ndevs/I`): this
//!   finds VLAN and other upper devices, and siw's netdev from Linux 6.12 on.
//! - Soft-iWARP (siw) on Linux 6.1 gives no sysfs link at all; its only GID is the
//!   netdev's MAC address followed by zeros, which is matched against the netdevs'
//!   `address` as a last resort (only for a port nothing else mapped).
//!
//! ## IPoIB
//!
//! [`Ipoib::read`] decodes an IPoIB interface: its mode (`datagram` or `connected`),
//! MTU, P_Key and 20-byte link address (4 bytes of flags and QPN, then the port GID),
//! and the RDMA device and port under it. [`mtu_warnings`] checks the MTU against the
//! port: in datagram mode one IPoIB packet is one UD message, so the MTU can be at most
//! the port's active MTU minus the 4-byte IPoIB header (2044 for a 2048 port, 4092 for
//! 4096); connected mode sends over RC connections and allows up to 65520
//! (`IPOIB_CM_MTU`), though multicast still goes over UD and is bound by the broadcast
//! group's MTU (the kernel warns about drops when the interface MTU exceeds it).

use core::fmt;
use std::path::Path;

use crate::error::{Error, Op, Result};
use crate::sysfs::{NumName, SysDir};
use crate::types::Gid;
use crate::types::{LinkLayer, Mtu};
use crate::verbs::port::PortAttr;

/// `ARPHRD_INFINIBAND`: the `type` of an IPoIB netdev.
pub const ARPHRD_INFINIBAND: u32 = 32;
/// `IPOIB_ENCAP_LEN`: the IPoIB header in front of every packet.
pub const IPOIB_ENCAP_LEN: u32 = 4;
/// `IPOIB_CM_MTU`: the largest MTU of connected mode (64 KiB minus 16 bytes).
pub const IPOIB_CM_MTU: u32 = 0x10000 - 0x10;
/// Length of an IPoIB link address.
pub const IPOIB_HW_ADDR_LEN: usize = 20;
/// Flag of the link address: the interface accepts connected-mode (RC) connections
/// (`IPOIB_FLAGS_RC`).
pub const IPOIB_FLAGS_RC: u8 = 0x80;
/// Flag of the link address: unreliable connected (`IPOIB_FLAGS_UC`).
pub const IPOIB_FLAGS_UC: u8 = 0x40;

/// The transport mode of an IPoIB interface (sysfs `mode`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum IpoibMode {
    /// Unreliable datagram (`datagram`): MTU bound by the port's MTU.
    Datagram,
    /// Reliable connected (`connected`): MTU up to 65520.
    Connected,
    /// Anything else, as read (trimmed); empty when the file is missing.
    Unknown(String),
}

impl IpoibMode {
    /// Parses the sysfs text (`datagram\n`, `connected\n`).
    pub fn parse(text: &str) -> IpoibMode {
        match text.trim() {
            "datagram" => IpoibMode::Datagram,
            "connected" => IpoibMode::Connected,
            other => IpoibMode::Unknown(other.to_owned()),
        }
    }
}

impl fmt::Display for IpoibMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IpoibMode::Datagram => f.write_str("datagram"),
            IpoibMode::Connected => f.write_str("connected"),
            IpoibMode::Unknown(s) if s.is_empty() => f.write_str("unknown"),
            IpoibMode::Unknown(s) => write!(f, "unknown ({s})"),
        }
    }
}

/// An IPoIB link address: flags (1 byte), QPN (3 bytes), then the port GID (16 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IpoibHwAddr(pub [u8; IPOIB_HW_ADDR_LEN]);

impl IpoibHwAddr {
    /// From exactly 20 bytes.
    pub fn from_bytes(bytes: &[u8]) -> Option<IpoibHwAddr> {
        Some(IpoibHwAddr(bytes.try_into().ok()?))
    }

    /// Parses the sysfs form: 20 bytes as two hex digits each, separated by colons
    /// (`80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:a1:b2:c1`); surrounding
    /// whitespace is ignored.
    pub fn parse(text: &str) -> Option<IpoibHwAddr> {
        let mut out = [0u8; IPOIB_HW_ADDR_LEN];
        let mut n = 0;
        for part in text.trim().split(':') {
            if n == IPOIB_HW_ADDR_LEN
                || part.len() != 2
                || !part.bytes().all(|b| b.is_ascii_hexdigit())
            {
                return None;
            }
            out[n] = u8::from_str_radix(part, 16).ok()?;
            n += 1;
        }
        (n == IPOIB_HW_ADDR_LEN).then_some(IpoibHwAddr(out))
    }

    /// The flags byte (the top byte of the first 4): [`IPOIB_FLAGS_RC`],
    /// [`IPOIB_FLAGS_UC`].
    pub fn flags(&self) -> u8 {
        self.0[0]
    }

    /// The queue pair number of the interface's UD QP (low 24 bits of the first 4
    /// bytes, big-endian).
    pub fn qpn(&self) -> u32 {
        u32::from_be_bytes([0, self.0[1], self.0[2], self.0[3]])
    }

    /// The GID of the port (bytes 4 to 19).
    pub fn gid(&self) -> Gid {
        let mut g = [0u8; 16];
        g.copy_from_slice(&self.0[4..]);
        Gid(g)
    }

    /// True when the interface accepts connected-mode connections (flag 0x80): the
    /// kernel sets it when the device supports connected mode, whatever the current mode.
    pub fn connected_mode_capable(&self) -> bool {
        self.flags() & IPOIB_FLAGS_RC != 0
    }
}

impl fmt::Display for IpoibHwAddr {
    /// The sysfs form: 20 lowercase hex bytes separated by colons.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, b) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(":")?;
            }
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

/// The operational state of a network interface (sysfs `operstate`, RFC 2863).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum OperState {
    /// `up`.
    Up,
    /// `down`.
    Down,
    /// `unknown`: the driver does not report it (dummy, loopback); see
    /// [`NetdevLink::is_up`].
    Unknown,
    /// `lowerlayerdown`.
    LowerLayerDown,
    /// `dormant`.
    Dormant,
    /// `testing`.
    Testing,
    /// `notpresent`.
    NotPresent,
    /// Anything else, as read (trimmed); empty when the file is missing.
    Other(String),
}

impl OperState {
    /// Parses the sysfs text.
    pub fn parse(text: &str) -> OperState {
        match text.trim() {
            "up" => OperState::Up,
            "down" => OperState::Down,
            "unknown" => OperState::Unknown,
            "lowerlayerdown" => OperState::LowerLayerDown,
            "dormant" => OperState::Dormant,
            "testing" => OperState::Testing,
            "notpresent" => OperState::NotPresent,
            other => OperState::Other(other.to_owned()),
        }
    }

    /// The sysfs word.
    pub fn as_str(&self) -> &str {
        match self {
            OperState::Up => "up",
            OperState::Down => "down",
            OperState::Unknown => "unknown",
            OperState::LowerLayerDown => "lowerlayerdown",
            OperState::Dormant => "dormant",
            OperState::Testing => "testing",
            OperState::NotPresent => "notpresent",
            OperState::Other(s) => s,
        }
    }
}

impl fmt::Display for OperState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An IPoIB network interface.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ipoib {
    /// Interface name (`ib0`, `ib0.8001`).
    pub name: String,
    /// Interface index.
    pub ifindex: u32,
    /// Datagram or connected mode.
    pub mode: IpoibMode,
    /// The interface MTU.
    pub mtu: u32,
    /// The partition key, with the full-membership bit (0x8000) as the kernel shows it.
    pub pkey: u16,
    /// The link address.
    pub hw_addr: IpoibHwAddr,
    /// The RDMA device under the interface, when found.
    pub device: Option<String>,
    /// The port (from 1) of that device, when found.
    pub port: Option<u32>,
    /// Operational state.
    pub operstate: OperState,
    /// For a child interface, the parent interface's name (sysfs `parent`).
    pub parent: Option<String>,
    /// Whether user-level multicast is allowed (sysfs `umcast`), when readable.
    pub umcast: Option<bool>,
}

impl Ipoib {
    /// Reads interface `name` from `sysfs_root/class/net/name`.
    ///
    /// Fails with [`Error::BadArgument`] if it is not an IPoIB interface (`type` not
    /// 32), and with [`Error::Protocol`] naming the file when `ifindex`, `mtu`, `pkey`
    /// or `address` is missing or malformed. A missing or unknown `mode` is
    /// [`IpoibMode::Unknown`]; an unresolvable device or port is `None`.
    pub fn read(sysfs_root: &Path, name: &str) -> Result<Ipoib> {
        let op = || Op::new("read IPoIB interface", name);
        if !valid_name(name) {
            return Err(Error::BadArgument {
                op: op(),
                reason: "not a network interface name".into(),
            });
        }
        let path = sysfs_root.join("class/net").join(name);
        let bad = |file: &str, why: &str| Error::Protocol {
            op: op(),
            detail: format!("{}: {why}", path.join(file).display()),
        };
        let net = Net::open(sysfs_root);
        let dir = net.netdev(name);
        let read = |file: &str| dir.as_ref().and_then(|d| d.attr_trim(file));
        let ty = read("type").ok_or_else(|| bad("type", "missing or unreadable"))?;
        let ty: u32 = ty.parse().map_err(|_| bad("type", "not a number"))?;
        if ty != ARPHRD_INFINIBAND {
            return Err(Error::BadArgument {
                op: op(),
                reason: format!("not an IPoIB interface (type {ty}, not {ARPHRD_INFINIBAND})"),
            });
        }
        let num = |file: &str| -> Result<u32> {
            read(file)
                .ok_or_else(|| bad(file, "missing or unreadable"))?
                .parse()
                .map_err(|_| bad(file, "not a number"))
        };
        let ifindex = num("ifindex")?;
        let mtu = num("mtu")?;
        let pkey_text = read("pkey").ok_or_else(|| bad("pkey", "missing or unreadable"))?;
        let pkey =
            parse_hex_u16(&pkey_text).ok_or_else(|| bad("pkey", "not a 16-bit hex number"))?;
        let addr_text = read("address").ok_or_else(|| bad("address", "missing or unreadable"))?;
        let hw_addr = IpoibHwAddr::parse(&addr_text)
            .ok_or_else(|| bad("address", "not a 20-byte IPoIB link address"))?;
        let mode = IpoibMode::parse(&read("mode").unwrap_or_default());
        let operstate = OperState::parse(&read("operstate").unwrap_or_default());
        let umcast = match read("umcast").as_deref() {
            Some("0") => Some(false),
            Some("1") => Some(true),
            _ => None,
        };
        let dir = dir.ok_or_else(|| bad("type", "missing or unreadable"))?;
        let parent = net.parent_of(&dir, name, ifindex);
        let (device, port) = match net.ib_port_of(&dir, name, None, 0) {
            Some((d, p)) => (Some(d), Some(p)),
            None => (None, None),
        };
        Ok(Ipoib {
            name: name.to_owned(),
            ifindex,
            mode,
            mtu,
            pkey,
            hw_addr,
            device,
            port,
            operstate,
            parent,
            umcast,
        })
    }

    /// The P_Key without the membership bit.
    pub fn pkey_base(&self) -> u16 {
        self.pkey & 0x7fff
    }

    /// True for a full member of the partition (bit 0x8000), false for a limited one.
    pub fn is_full_member(&self) -> bool {
        self.pkey & 0x8000 != 0
    }

    /// True for a child interface (it has a parent interface).
    pub fn is_child(&self) -> bool {
        self.parent.is_some()
    }

    /// The largest MTU the interface's mode allows on `port`: the active MTU minus the
    /// IPoIB header in datagram mode, [`IPOIB_CM_MTU`] in connected mode; `None` when
    /// the mode or the port's MTU is unknown.
    pub fn mtu_limit(&self, port: &PortAttr) -> Option<u32> {
        match self.mode {
            IpoibMode::Datagram => Some(port.active_mtu.bytes()? - IPOIB_ENCAP_LEN),
            IpoibMode::Connected => Some(IPOIB_CM_MTU),
            IpoibMode::Unknown(_) => None,
        }
    }
}

/// Every IPoIB interface (`type` 32) under `sysfs_root/class/net`, sorted by name.
///
/// Fails if the directory cannot be read, or with the first error of [`Ipoib::read`]
/// for an IPoIB interface whose files are malformed. Interfaces of other types are
/// skipped.
pub fn ipoib_interfaces(sysfs_root: &Path) -> Result<Vec<Ipoib>> {
    let net = Net::open(sysfs_root);
    let mut out = Vec::new();
    for name in net.names()? {
        if net
            .netdev(&name)
            .and_then(|d| d.parse("type", |t| t.parse().ok()))
            != Some(ARPHRD_INFINIBAND)
        {
            continue;
        }
        out.push(Ipoib::read(sysfs_root, &name)?);
    }
    Ok(out)
}

/// Something wrong with an IPoIB interface's MTU, found by [`mtu_warnings`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum MtuWarning {
    /// Datagram mode, and the MTU is more than one UD message on the port can carry:
    /// larger packets are dropped.
    DatagramAbovePortMtu {
        /// The interface MTU.
        mtu: u32,
        /// The port's active MTU minus [`IPOIB_ENCAP_LEN`].
        limit: u32,
        /// The port's active MTU.
        active_mtu: Mtu,
    },
    /// Connected mode, and the MTU is above [`IPOIB_CM_MTU`] (the kernel never sets
    /// that: the sysfs file is not what the kernel wrote).
    ConnectedAboveMax {
        /// The interface MTU.
        mtu: u32,
    },
    /// The port's active MTU is not a known value: the MTU cannot be checked.
    PortMtuUnknown {
        /// The port's active MTU as reported.
        active_mtu: Mtu,
    },
    /// The interface's mode is neither `datagram` nor `connected`.
    UnknownMode {
        /// The mode as read.
        mode: String,
    },
    /// The port is not an InfiniBand port (IPoIB runs only on InfiniBand).
    NotInfiniband {
        /// The port's link layer.
        link_layer: LinkLayer,
    },
}

impl fmt::Display for MtuWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MtuWarning::DatagramAbovePortMtu {
                mtu,
                limit,
                active_mtu,
            } => write!(
                f,
                "datagram mode MTU {mtu} exceeds {limit} (the port's active MTU {} minus the \
                 {IPOIB_ENCAP_LEN}-byte IPoIB header): larger packets will be dropped",
                active_mtu.bytes().unwrap_or(0)
            ),
            MtuWarning::ConnectedAboveMax { mtu } => {
                write!(
                    f,
                    "connected mode MTU {mtu} exceeds the maximum {IPOIB_CM_MTU}"
                )
            }
            MtuWarning::PortMtuUnknown { active_mtu } => {
                write!(
                    f,
                    "the port's active MTU ({active_mtu}) is unknown: MTU not checked"
                )
            }
            MtuWarning::UnknownMode { mode } => {
                write!(f, "unknown IPoIB mode {mode:?}: MTU not checked")
            }
            MtuWarning::NotInfiniband { link_layer } => {
                write!(f, "the port's link layer is {link_layer}, not InfiniBand")
            }
        }
    }
}

/// Checks an IPoIB interface's MTU against its port's attributes (see the
/// [module documentation](self)). Empty when all is well.
pub fn mtu_warnings(ipoib: &Ipoib, port: &PortAttr) -> Vec<MtuWarning> {
    let mut out = Vec::new();
    if !matches!(
        port.link_layer,
        LinkLayer::InfiniBand | LinkLayer::Unspecified
    ) {
        out.push(MtuWarning::NotInfiniband {
            link_layer: port.link_layer,
        });
    }
    match &ipoib.mode {
        IpoibMode::Datagram => match port.active_mtu.bytes() {
            Some(bytes) => {
                let limit = bytes - IPOIB_ENCAP_LEN;
                if ipoib.mtu > limit {
                    out.push(MtuWarning::DatagramAbovePortMtu {
                        mtu: ipoib.mtu,
                        limit,
                        active_mtu: port.active_mtu,
                    });
                }
            }
            None => out.push(MtuWarning::PortMtuUnknown {
                active_mtu: port.active_mtu,
            }),
        },
        IpoibMode::Connected => {
            if ipoib.mtu > IPOIB_CM_MTU {
                out.push(MtuWarning::ConnectedAboveMax { mtu: ipoib.mtu });
            }
        }
        IpoibMode::Unknown(m) => out.push(MtuWarning::UnknownMode { mode: m.clone() }),
    }
    out
}

/// How a netdev was tied to a port (see the [module documentation](self)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum LinkSource {
    /// The software device's `parent` file (rxe).
    SoftParent,
    /// The netdev shares the RDMA device's parent device; port from `dev_port`/`dev_id`.
    ParentDevice,
    /// An IPoIB child interface, through its parent interface.
    IpoibChild,
    /// A GID table entry's netdev (`gid_attrs/ndevs`).
    GidTable,
    /// The port's GID is the netdev's MAC address (siw before Linux 6.12): a heuristic.
    GidMac,
}

/// One netdev of an RDMA port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetdevLink {
    /// RDMA device name.
    pub device: String,
    /// Port number (from 1).
    pub port: u32,
    /// Network interface name.
    pub netdev: String,
    /// Its ifindex, when readable.
    pub ifindex: Option<u32>,
    /// Its operational state.
    pub operstate: OperState,
    /// Whether it is administratively up (`IFF_UP` in sysfs `flags`), when readable.
    pub admin_up: Option<bool>,
    /// How the link was found.
    pub source: LinkSource,
}

impl NetdevLink {
    /// True when the interface is up: `operstate` is `up`, or `unknown` (drivers that
    /// do not track it, like dummy) while the interface is administratively up.
    pub fn is_up(&self) -> bool {
        match self.operstate {
            OperState::Up => true,
            OperState::Unknown => self.admin_up == Some(true),
            _ => false,
        }
    }
}

impl fmt::Display for NetdevLink {
    /// `mlx4_0 port 1 ==> ib0 (Up)`, as `ibdev2netdev` prints it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} port {} ==> {} ({})",
            self.device,
            self.port,
            self.netdev,
            if self.is_up() { "Up" } else { "Down" }
        )
    }
}

/// The netdevs of every port of RDMA device `device`, from the sysfs tree at
/// `sysfs_root`, sorted by port, then source, then name; each netdev once per port.
///
/// Fails with [`Error::NoSuchDevice`] when `class/infiniband/<device>` does not exist.
/// Malformed files are skipped (a netdev whose port cannot be told is left out).
#[doc(alias = "ibdev2netdev")]
pub fn netdevs(sysfs_root: &Path, device: &str) -> Result<Vec<NetdevLink>> {
    let no_such = || Error::NoSuchDevice {
        name: device.to_owned(),
    };
    if !valid_name(device) {
        return Err(no_such());
    }
    let ib =
        SysDir::open(&sysfs_root.join("class/infiniband").join(device)).map_err(|_| no_such())?;
    let ports = port_numbers(&ib);
    let port_ok = |p: u32| ports.is_empty() || ports.contains(&p);
    let mut found: Vec<(u32, String, LinkSource)> = Vec::new();

    // rxe: the parent netdev, on its only port.
    if let Some(parent) = ib.attr_trim("parent").filter(|n| valid_name(n)) {
        add(&mut found, 1, parent, LinkSource::SoftParent);
    }

    // Netdevs sharing the device's parent, then IPoIB children of those.
    let net = Net::open(sysfs_root);
    let names = net.names().unwrap_or_default();
    // Each netdev's directory, opened once.
    let dirs: Vec<Option<SysDir>> = names.iter().map(|n| net.netdev(n)).collect();
    for (name, dir) in names.iter().zip(&dirs) {
        let Some(dir) = dir else { continue };
        if let Some((d, p)) = parent_device_port(dir, Some(device)) {
            if d == device && port_ok(p) {
                add(&mut found, p, name.clone(), LinkSource::ParentDevice);
            }
        }
    }
    for (name, dir) in names.iter().zip(&dirs) {
        let Some(dir) = dir else { continue };
        if found.iter().any(|(_, n, _)| n == name) {
            continue;
        }
        let ifindex = dir.parse("ifindex", |t| t.parse().ok()).unwrap_or(0);
        if let Some(parent) = net.parent_of(dir, name, ifindex) {
            let Some(pdir) = net.netdev(&parent) else {
                continue;
            };
            if let Some((d, p)) = net.ib_port_of(&pdir, &parent, Some(device), 1) {
                if d == device && port_ok(p) {
                    add(&mut found, p, name.clone(), LinkSource::IpoibChild);
                }
            }
        }
    }

    // GID tables: the netdev of each entry.
    for &p in &ports {
        let port = NumName::new(p);
        let Ok(pdir) = ib.dir("ports").and_then(|d| d.dir(port.as_str())) else {
            continue;
        };
        if let Ok(ndevs) = pdir.dir("gid_attrs/ndevs") {
            for (_, ndev) in numbered_files(&ndevs) {
                if valid_name(&ndev) && net.netdev(&ndev).is_some() {
                    add(&mut found, p, ndev, LinkSource::GidTable);
                }
            }
        }
    }

    // Last resort for ports still without a netdev: a GID that is a MAC address.
    for &p in &ports {
        if found.iter().any(|(fp, _, _)| *fp == p) {
            continue;
        }
        let port = NumName::new(p);
        let Ok(gdir) = ib
            .dir("ports")
            .and_then(|d| d.dir(port.as_str())?.dir("gids"))
        else {
            continue;
        };
        for (_, text) in numbered_files(&gdir) {
            let Some(gid) = Gid::parse_sysfs(&text) else {
                continue;
            };
            let mac = &gid.0[..6];
            if gid.0[6..].iter().any(|b| *b != 0) || mac.iter().all(|b| *b == 0) {
                continue;
            }
            for (name, dir) in names.iter().zip(&dirs) {
                let Some(dir) = dir else { continue };
                if dir.parse("addr_len", |t| t.parse::<u32>().ok()) != Some(6) {
                    continue;
                }
                if dir.parse("address", parse_mac).as_deref() == Some(mac) {
                    add(&mut found, p, name.clone(), LinkSource::GidMac);
                }
            }
        }
    }

    let mut out: Vec<NetdevLink> = Vec::with_capacity(found.len());
    for (port, netdev, source) in found {
        let listed = names
            .iter()
            .position(|n| *n == netdev)
            .and_then(|i| dirs[i].as_ref());
        let other;
        let dir = match listed {
            Some(d) => Some(d),
            None => {
                other = net.netdev(&netdev);
                other.as_ref()
            }
        };
        let read = |file: &str| dir.and_then(|d| d.attr_trim(file));
        out.push(NetdevLink {
            device: device.to_owned(),
            port,
            ifindex: read("ifindex").and_then(|t| t.parse().ok()),
            operstate: OperState::parse(&read("operstate").unwrap_or_default()),
            admin_up: read("flags")
                .and_then(|f| parse_hex_u32(&f))
                .map(|f| f & 1 != 0),
            netdev,
            source,
        });
    }
    crate::sysfs::attr::sort_small(&mut out, |a, b| {
        (a.port, a.source, &a.netdev) > (b.port, b.source, &b.netdev)
    });
    Ok(out)
}

// ------------------------------------------------------------------ helpers

/// Adds a (port, netdev) pair unless it is there already (the first source wins).
fn add(found: &mut Vec<(u32, String, LinkSource)>, port: u32, netdev: String, source: LinkSource) {
    if !found.iter().any(|(p, n, _)| *p == port && *n == netdev) {
        found.push((port, netdev, source));
    }
}

/// A name that is safe to join to a directory: not empty, no `/`, not `.` or `..`, no
/// control characters or whitespace.
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && name.len() <= 255
        && !name
            .chars()
            .any(|c| c == '/' || c.is_whitespace() || c.is_control())
}

fn parse_hex_u16(text: &str) -> Option<u16> {
    let t = text.trim();
    let h = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X"))?;
    if h.is_empty() || h.len() > 4 || !h.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u16::from_str_radix(h, 16).ok()
}

/// The kernel's `%#x`: `0x1003`, and `0x0` for zero (the kernel, unlike C libraries,
/// prints the prefix for zero too; plain `0` is accepted as well).
fn parse_hex_u32(text: &str) -> Option<u32> {
    let t = text.trim();
    if t == "0" {
        return Some(0);
    }
    let h = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X"))?;
    if h.is_empty() || h.len() > 8 || !h.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(h, 16).ok()
}

fn parse_mac(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(6);
    for part in text.trim().split(':') {
        if part.len() != 2 || out.len() == 6 || !part.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        out.push(u8::from_str_radix(part, 16).ok()?);
    }
    (out.len() == 6).then_some(out)
}

/// `<root>/class/net`, open (`None` inside when it cannot be opened).
struct Net {
    dir: Option<SysDir>,
}

impl Net {
    fn open(sysfs_root: &Path) -> Net {
        Net {
            dir: SysDir::open(&sysfs_root.join("class/net")).ok(),
        }
    }

    /// The valid interface names, sorted.
    fn names(&self) -> Result<Vec<String>> {
        let dir = self.dir.as_ref().ok_or(Error::Os {
            op: Op::new("list network interfaces", ""),
            errno: rustix::io::Errno::NOENT,
        })?;
        let mut names = dir.names().map_err(|errno| Error::Os {
            op: Op::new("list network interfaces", ""),
            errno,
        })?;
        names.retain(|n| valid_name(n));
        Ok(names)
    }

    /// The directory of interface `name`.
    fn netdev(&self, name: &str) -> Option<SysDir> {
        if !valid_name(name) {
            return None;
        }
        self.dir.as_ref()?.dir(name).ok()
    }

    /// The parent interface of an IPoIB child (`dir` is its directory): its `parent`
    /// file, else its `iflink` when that is another interface's index.
    fn parent_of(&self, dir: &SysDir, name: &str, ifindex: u32) -> Option<String> {
        if let Some(p) = dir.attr_trim("parent") {
            return (valid_name(&p) && p != name).then_some(p);
        }
        let iflink: u32 = dir.parse("iflink", |t| t.parse().ok())?;
        if iflink == 0
            || iflink == ifindex
            || dir.parse("type", |t| t.parse().ok()) != Some(ARPHRD_INFINIBAND)
        {
            return None;
        }
        crate::sysfs::netdev_name_in(self.dir.as_ref()?, iflink).filter(|p| p != name)
    }

    /// The RDMA device and port of a netdev (`dir` is its directory): its own parent
    /// device, else its parent interface's (IPoIB children), following at most a few
    /// parents.
    fn ib_port_of(
        &self,
        dir: &SysDir,
        name: &str,
        want: Option<&str>,
        depth: u32,
    ) -> Option<(String, u32)> {
        if let Some(r) = parent_device_port(dir, want) {
            return Some(r);
        }
        if depth >= 4 {
            return None;
        }
        let ifindex = dir.parse("ifindex", |t| t.parse().ok()).unwrap_or(0);
        let parent = self.parent_of(dir, name, ifindex)?;
        let pdir = self.netdev(&parent)?;
        self.ib_port_of(&pdir, &parent, want, depth + 1)
    }
}

/// The numbered ports of an RDMA device directory, sorted.
fn port_numbers(ib: &SysDir) -> Vec<u32> {
    let mut v = Vec::new();
    if let Ok(ports) = ib.dir("ports") {
        let _ = ports.for_each_name(|n| {
            if let Ok(p) = n.parse::<u32>() {
                if p > 0 {
                    v.push(p);
                }
            }
        });
    }
    v.sort_unstable();
    v
}

/// The readable files of a directory named by a number, with their trimmed text, sorted
/// by number (a bounded count: GID tables have at most a few hundred entries).
fn numbered_files(dir: &SysDir) -> Vec<(u32, String)> {
    let mut idx = Vec::new();
    let _ = dir.for_each_name(|n| {
        if idx.len() < 4096 {
            if let Ok(i) = n.parse::<u32>() {
                idx.push(i);
            }
        }
    });
    idx.sort_unstable();
    idx.into_iter()
        .filter_map(|i| Some((i, dir.attr_trim(NumName::new(i).as_str())?)))
        .collect()
}

/// The RDMA device and port of a netdev that shares the device's parent (`dir` is the
/// netdev's directory): the device listed in `device/infiniband/` (`want` if listed,
/// else the only one), the port from `dev_port` (or `dev_id` when `dev_port` is 0, for
/// kernels before `dev_port`).
fn parent_device_port(dir: &SysDir, want: Option<&str>) -> Option<(String, u32)> {
    let mut devs = dir.dir("device/infiniband").ok()?.names().ok()?;
    devs.retain(|n| valid_name(n));
    let dev = match want {
        Some(w) if devs.iter().any(|d| d == w) => w.to_owned(),
        _ if devs.len() == 1 => devs.pop()?,
        _ => return None,
    };
    let dev_port = match dir.attr_trim("dev_port") {
        Some(t) => t.parse::<u32>().ok()?,
        None => 0,
    };
    let index = if dev_port == 0 {
        dir.attr_trim("dev_id")
            .and_then(|t| parse_hex_u32(&t))
            .unwrap_or(0)
    } else {
        dev_port
    };
    Some((dev, index.checked_add(1)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hw_addr() {
        let a = IpoibHwAddr::parse("80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:a1:b2:c1\n")
            .unwrap();
        assert_eq!(a.flags(), 0x80);
        assert!(a.connected_mode_capable());
        assert_eq!(a.qpn(), 0x208);
        assert_eq!(
            a.gid().to_string(),
            "fe80:0000:0000:0000:0002:c903:00a1:b2c1"
        );
        assert_eq!(
            a.to_string(),
            "80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:a1:b2:c1"
        );
        assert_eq!(IpoibHwAddr::from_bytes(&a.0), Some(a));
        for bad in [
            "",
            "80:00:02:08",
            "80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:a1:b2:c1:00",
            "80:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:a1:b2:zz",
            "800:0:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:a1:b2:c1",
            "+8:00:02:08:fe:80:00:00:00:00:00:00:00:02:c9:03:00:a1:b2:c1",
            "f2:4e:d2:77:3b:18",
        ] {
            assert_eq!(IpoibHwAddr::parse(bad), None, "{bad:?}");
        }
        assert_eq!(IpoibHwAddr::from_bytes(&[0; 19]), None);
    }

    #[test]
    fn hex_parsers() {
        assert_eq!(parse_hex_u16("0xffff"), Some(0xffff));
        assert_eq!(parse_hex_u16("0x8001\n"), Some(0x8001));
        assert_eq!(parse_hex_u16("ffff"), None);
        assert_eq!(parse_hex_u16("0x10000"), None);
        assert_eq!(parse_hex_u16("0x"), None);
        assert_eq!(parse_hex_u32("0x0"), Some(0));
        assert_eq!(parse_hex_u32("0"), Some(0));
        assert_eq!(parse_hex_u32("0x1003"), Some(0x1003));
        assert_eq!(parse_hex_u32("-1"), None);
        assert_eq!(
            parse_mac("f2:4e:d2:77:3b:18"),
            Some(vec![0xf2, 0x4e, 0xd2, 0x77, 0x3b, 0x18])
        );
        assert_eq!(parse_mac("f2:4e:d2:77:3b"), None);
        assert_eq!(parse_mac("f2:4e:d2:77:3b:18:00"), None);
    }

    #[test]
    fn names() {
        assert!(valid_name("ib0.8001"));
        for bad in ["", ".", "..", "a/b", "a b", "a\u{0}"] {
            assert!(!valid_name(bad), "{bad:?}");
        }
    }
}
