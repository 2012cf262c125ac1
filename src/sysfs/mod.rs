//! Sysfs: `<root>/class/infiniband/<dev>/...` for the devices, their ports, GIDs and
//! P_Keys, `<root>/class/infiniband_verbs/uverbsN/{ibdev,abi_version,dev}` for their
//! uverbs nodes, and `<root>/class/net/<netdev>/...` for network devices.
//!
//! Every read goes through one reader, [`SysDir`]: a directory is opened once and each
//! file under it is read relative to its descriptor with one `read(2)` (see
//! [`dir`]). The root is a parameter everywhere (`/sys` on a live system, a fixture
//! tree in tests), and only the files the caller asks for are read.
//!
//! The value parsers are pure functions over `&str`, public for tests and fuzzing.

pub mod attr;
pub mod dir;
pub mod stats;

use std::path::Path;

use rustix::io::Errno;

pub use dir::{is_absent, read_file, KeptFiles, NumName, SysDir, ATTR_MAX};

use crate::error::{Error, Op, Result};
use crate::types::{Gid, GidEntry};
use crate::types::{GidType, Guid, NodeType};

/// Parses a sysfs GUID (`node_guid`, `sys_image_guid`): four groups of four hex digits
/// separated by colons, as the kernel prints them (`0200:00ff:fe00:0000`), surrounding
/// white space ignored.
pub fn parse_guid(s: &str) -> Option<Guid> {
    let s = s.trim();
    let mut v = 0u64;
    let mut groups = 0;
    for g in s.split(':') {
        if g.len() != 4 || !g.bytes().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        v = (v << 16) | u64::from(u16::from_str_radix(g, 16).ok()?);
        groups += 1;
    }
    (groups == 4).then_some(Guid(v))
}

/// Parses sysfs `node_type` (`1: CA`, `4: RNIC`): the number before the colon.
pub fn parse_node_type(s: &str) -> Option<NodeType> {
    let (n, _) = s.trim().split_once(':')?;
    n.trim().parse::<u32>().ok().map(NodeType::from_raw)
}

/// Parses a sysfs `dev` file (`231:192`) into (major, minor).
pub fn parse_dev(s: &str) -> Option<(u32, u32)> {
    let (ma, mi) = s.trim().split_once(':')?;
    Some((ma.parse().ok()?, mi.parse().ok()?))
}

/// Parses a decimal number file (`abi_version`).
pub fn parse_u32(s: &str) -> Option<u32> {
    s.trim().parse().ok()
}

/// What sysfs says about one device.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SysDevice {
    pub node_type: Option<NodeType>,
    pub node_guid: Option<Guid>,
    pub sys_image_guid: Option<Guid>,
    pub fw_ver: Option<String>,
    pub node_desc: Option<String>,
    pub hca_type: Option<String>,
    pub hw_rev: Option<String>,
    pub board_id: Option<String>,
    pub port_count: Option<u32>,
    pub kernel_driver: Option<String>,
    pub parent: Option<String>,
}

/// Which attributes of a device [`read_device`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Wanted {
    /// `node_type`, `node_guid`, `sys_image_guid`, `fw_ver` (netlink has them).
    pub ids: bool,
    /// The highest entry of `ports/` (netlink has it).
    pub ports: bool,
    /// What only sysfs has: `node_desc`, `hca_type`, `hw_rev`, `board_id`, the
    /// `device/driver` link and `parent`.
    pub details: bool,
}

impl Wanted {
    /// Everything (discovery from sysfs alone).
    pub const ALL: Wanted = Wanted {
        ids: true,
        ports: true,
        details: true,
    };
    /// What netlink does not report.
    pub const DETAILS: Wanted = Wanted {
        ids: false,
        ports: false,
        details: true,
    };
}

fn os_err(dev: &str) -> impl FnOnce(Errno) -> Error + '_ {
    move |errno| Error::Os {
        op: Op::new("read sysfs", dev),
        errno,
    }
}

/// `<root>/class/infiniband/<dev>/<file>`, for messages.
fn dev_path(root: &Path, dev: &str, file: &str) -> String {
    root.join("class/infiniband")
        .join(dev)
        .join(file)
        .display()
        .to_string()
}

fn bad(dev: &str, path: String, what: &str, raw: &str) -> Error {
    Error::Protocol {
        op: Op::new("read sysfs", dev),
        detail: format!("malformed {what} in {path}: {:?}", raw.trim_end()),
    }
}

fn missing(dev: &str, path: String) -> Error {
    Error::Protocol {
        op: Op::new("read sysfs", dev),
        detail: format!("{path} is missing"),
    }
}

/// Opens `<root>/class/infiniband`; `Ok(None)` when it does not exist (no `ib_core`).
///
/// # Errors
///
/// Any other errno of `open(2)`.
pub fn open_class(root: &Path) -> Result<Option<SysDir>> {
    match SysDir::open(&root.join("class/infiniband")) {
        Ok(d) => Ok(Some(d)),
        Err(Errno::NOENT | Errno::NOTDIR) => Ok(None),
        Err(e) => Err(os_err("")(e)),
    }
}

/// The device names under `<root>/class/infiniband`, sorted; empty when the class is
/// absent.
pub(crate) fn device_names(root: &Path) -> Result<Vec<String>> {
    match open_class(root)? {
        Some(class) => class.names().map_err(os_err("")),
        None => Ok(Vec::new()),
    }
}

/// One attribute of a strictly or loosely read device: parsed, absent, or malformed.
fn field<T>(
    dir: &SysDir,
    root: &Path,
    dev: &str,
    file: &str,
    strict: bool,
    required: bool,
    parse: impl FnOnce(&str) -> Option<T>,
) -> Result<Option<T>> {
    let got = dir
        .with_attr(file, |s| parse(s).ok_or_else(|| s.to_owned()))
        .map_err(os_err(dev))?;
    match got {
        Some(Ok(v)) => Ok(Some(v)),
        Some(Err(raw)) if strict => Err(bad(dev, dev_path(root, dev, file), file, &raw)),
        None if strict && required => Err(missing(dev, dev_path(root, dev, file))),
        _ => Ok(None),
    }
}

/// The entries of a device directory that [`Wanted::details`] reads (`device` for its
/// `driver` link).
const DETAILS: [&str; 6] = [
    "node_desc",
    "hca_type",
    "hw_rev",
    "board_id",
    "parent",
    "device",
];

/// Reads what `want` asks of device `name` (a directory of `class`, the open
/// `<root>/class/infiniband`). With `strict`, a missing or malformed `node_type` or
/// `node_guid` (or a malformed `sys_image_guid`) is an error; without, it is left out.
/// A device directory that cannot be opened reads as empty, or, with `strict`, as a
/// missing `node_type`.
pub(crate) fn read_device(
    root: &Path,
    class: &SysDir,
    name: &str,
    strict: bool,
    want: Wanted,
) -> Result<SysDevice> {
    let dir = match class.dir(name) {
        Ok(dir) => dir,
        Err(e) if is_absent(e) => {
            if strict && want.ids {
                return Err(missing(name, dev_path(root, name, "node_type")));
            }
            return Ok(SysDevice::default());
        }
        Err(e) => return Err(os_err(name)(e)),
    };
    read_device_in(root, &dir, name, strict, want)
}

/// [`read_device`] of a device whose directory `dir` is open already.
pub(crate) fn read_device_in(
    root: &Path,
    dir: &SysDir,
    name: &str,
    strict: bool,
    want: Wanted,
) -> Result<SysDevice> {
    let mut d = SysDevice::default();
    if want.ids {
        d.node_type = field(dir, root, name, "node_type", strict, true, parse_node_type)?;
        d.node_guid = field(dir, root, name, "node_guid", strict, true, parse_guid)?;
        d.sys_image_guid = field(dir, root, name, "sys_image_guid", strict, false, parse_guid)?;
        d.fw_ver = dir.attr("fw_ver").map_err(os_err(name))?;
    }
    if want.details {
        // Most of these are driver-specific (software devices have few of them): one
        // listing of the directory says which to open, cheaper than a failed open each.
        let mut present = [false; DETAILS.len()];
        dir.for_each_name(|n| {
            if let Some(i) = DETAILS.iter().position(|f| *f == n) {
                present[i] = true;
            }
        })
        .map_err(os_err(name))?;
        let get = |i: usize| -> Result<Option<String>> {
            if present[i] {
                dir.attr(DETAILS[i]).map_err(os_err(name))
            } else {
                Ok(None)
            }
        };
        d.node_desc = get(0)?;
        d.hca_type = get(1)?;
        d.hw_rev = get(2)?;
        d.board_id = get(3)?;
        d.parent = get(4)?;
        if present[5] {
            d.kernel_driver = dir.link_name("device/driver");
        }
    }
    if want.ports {
        // The last port number, as netlink's PORT_INDEX (ports are 1..=N on a channel
        // adapter, 0 alone on a switch).
        if let Ok(ports) = dir.dir("ports") {
            let mut last = 0;
            ports
                .for_each_name(|p| {
                    if let Ok(n) = p.parse::<u32>() {
                        last = last.max(n);
                    }
                })
                .map_err(os_err(name))?;
            d.port_count = Some(last);
        }
    }
    Ok(d)
}

/// The class-wide core uverbs ABI version (`class/infiniband_verbs/abi_version`).
pub(crate) fn core_abi_version(root: &Path) -> Result<Option<u32>> {
    let verbs = match SysDir::open(&root.join("class/infiniband_verbs")) {
        Ok(d) => d,
        Err(e) if is_absent(e) => return Ok(None),
        Err(e) => return Err(os_err("")(e)),
    };
    match verbs
        .with_attr("abi_version", |s| parse_u32(s).ok_or_else(|| s.to_owned()))
        .map_err(os_err(""))?
    {
        None => Ok(None),
        Some(Ok(v)) => Ok(Some(v)),
        Some(Err(raw)) => Err(bad(
            "",
            root.join("class/infiniband_verbs/abi_version")
                .display()
                .to_string(),
            "abi_version",
            &raw,
        )),
    }
}

/// One uverbs node as `<root>/class/infiniband_verbs/uverbsN` describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UverbsNode {
    /// The RDMA device it belongs to (`ibdev`).
    pub ibdev: String,
    /// The node's name (`uverbs0`).
    pub name: String,
    /// `dev`: major and minor.
    pub major: u32,
    pub minor: u32,
    /// `abi_version`: the driver's uverbs ABI.
    pub abi_version: u32,
}

/// Whether `<root>/class/infiniband_verbs/NODE` is listed now. A directory that cannot
/// be read for another reason than its absence counts as listing it: a caller acting on
/// "gone" acts only on what is known.
pub(crate) fn uverbs_node_listed(root: &Path, node: &str) -> bool {
    match SysDir::open(&root.join("class/infiniband_verbs")) {
        Ok(d) => d.exists(node),
        Err(e) => !is_absent(e),
    }
}

/// The uverbs nodes under `<root>/class/infiniband_verbs`.
///
/// Each node's `abi_version` is the driver's uverbs ABI (rxe 2, siw 1), not the
/// class-wide core ABI. Entries without a readable `ibdev`, `dev` or `abi_version` are
/// skipped (they are being created or removed).
pub(crate) fn uverbs_nodes(root: &Path) -> Result<Vec<UverbsNode>> {
    let verbs = match SysDir::open(&root.join("class/infiniband_verbs")) {
        Ok(d) => d,
        Err(e) if is_absent(e) => return Ok(Vec::new()),
        Err(e) => return Err(os_err("")(e)),
    };
    let mut out = Vec::new();
    for n in verbs.names().map_err(os_err(""))? {
        if !n.starts_with("uverbs") {
            continue;
        }
        let Ok(node) = verbs.dir(&n) else {
            continue;
        };
        let Some(ibdev) = node.attr("ibdev").map_err(os_err(&n))? else {
            continue;
        };
        let Some((major, minor)) = node
            .with_attr("dev", parse_dev)
            .map_err(os_err(&n))?
            .flatten()
        else {
            continue;
        };
        let Some(abi_version) = node
            .with_attr("abi_version", parse_u32)
            .map_err(os_err(&n))?
            .flatten()
        else {
            continue;
        };
        out.push(UverbsNode {
            ibdev,
            name: n,
            major,
            minor,
            abi_version,
        });
    }
    Ok(out)
}

/// A name that can be one path component: not empty, no `/`, not `.` or `..`, no NUL.
fn one_component(name: &str) -> bool {
    !name.is_empty() && name != "." && name != ".." && !name.contains(['/', '\0'])
}

/// `<root>/class/infiniband/<device>/ports/<port>`, open.
fn port_dir(root: &Path, device: &str, port: u32) -> std::result::Result<SysDir, Errno> {
    if !one_component(device) {
        return Err(Errno::NOENT);
    }
    SysDir::open(
        &root
            .join("class/infiniband")
            .join(device)
            .join("ports")
            .join(NumName::new(port).as_str()),
    )
}

/// The valid GIDs of a port from a sysfs tree rooted at `sysfs_root`: nonzero entries,
/// with the type from `gid_attrs/types` and the netdev from `gid_attrs/ndevs`.
///
/// # Errors
///
/// [`Error::Os`] when the port's `gids` directory cannot be read.
pub fn gids(sysfs_root: &Path, device: &str, port: u32) -> Result<Vec<GidEntry>> {
    let pdir = port_dir(sysfs_root, device, port).map_err(|errno| Error::Os {
        op: Op::port("read GIDs", device, port),
        errno,
    })?;
    gids_in(sysfs_root, &pdir, device, port)
}

/// [`gids`] of a port whose directory (`class/infiniband/<device>/ports/<port>` under
/// `sysfs_root`) is open already: what a caller that reads several things of the port
/// uses, to open it once.
///
/// # Errors
///
/// [`Error::Os`] when the port's `gids` directory cannot be read.
pub fn gids_in(sysfs_root: &Path, pdir: &SysDir, device: &str, port: u32) -> Result<Vec<GidEntry>> {
    let op = || Op::port("read GIDs", device, port);
    let os = |errno| Error::Os { op: op(), errno };
    // Never kept open (see [`SysDir::unkept`]): a port has up to 1024 GID entries (rxe),
    // three files each.
    let gdir = pdir.dir("gids").map_err(os)?.unkept();
    let types = pdir.dir("gid_attrs/types").ok().map(SysDir::unkept);
    let ndevs = pdir.dir("gid_attrs/ndevs").ok().map(SysDir::unkept);
    let mut net = None;
    let mut link_layer = None;
    let mut indexes = Vec::new();
    gdir.for_each_name(|n| {
        if let Ok(i) = n.parse::<u32>() {
            indexes.push(i);
        }
    })
    .map_err(os)?;
    attr::sort_small(&mut indexes, |a, b| a > b);
    let mut out = Vec::new();
    for index in indexes {
        let name = NumName::new(index);
        let Some(gid) = gdir.parse(name.as_str(), Gid::parse_sysfs) else {
            continue;
        };
        if gid.is_zero() {
            continue;
        }
        let gid_type = match types
            .as_ref()
            .and_then(|t| t.attr_trim(name.as_str()))
            .as_deref()
        {
            Some("RoCE v2") => GidType::RoceV2,
            Some("IB/RoCE v1") => {
                // The same name serves IB GIDs and RoCE v1: the link layer decides.
                let ethernet = *link_layer.get_or_insert_with(|| {
                    pdir.parse("link_layer", |s| Some(s == "Ethernet"))
                        .unwrap_or(false)
                });
                if ethernet {
                    GidType::RoceV1
                } else {
                    GidType::Ib
                }
            }
            _ => GidType::Ib,
        };
        let netdev_ifindex = ndevs
            .as_ref()
            .and_then(|d| d.attr_trim(name.as_str()))
            .and_then(|n| {
                let net =
                    net.get_or_insert_with(|| SysDir::open(&sysfs_root.join("class/net")).ok());
                net.as_ref().and_then(|net| ifindex_in(net, &n))
            })
            .unwrap_or(0);
        out.push(GidEntry {
            gid,
            index,
            port,
            gid_type,
            netdev_ifindex,
        });
    }
    Ok(out)
}

/// The P_Keys of a port from a sysfs tree rooted at `sysfs_root`, in index order,
/// stopping at the first index that cannot be read (empty when the port has no `pkeys`
/// directory).
///
/// # Errors
///
/// [`Error::Protocol`] for an entry that is not a 16-bit hex number.
pub fn pkeys(sysfs_root: &Path, device: &str, port: u32) -> Result<Vec<u16>> {
    match port_dir(sysfs_root, device, port) {
        Ok(pdir) => pkeys_in(&pdir, device, port),
        Err(_) => Ok(Vec::new()),
    }
}

/// [`pkeys`] of a port whose directory is open already (`device` and `port` name it
/// in errors).
///
/// # Errors
///
/// [`Error::Protocol`] for an entry that is not a 16-bit hex number.
pub fn pkeys_in(pdir: &SysDir, device: &str, port: u32) -> Result<Vec<u16>> {
    // Never kept open (see [`SysDir::unkept`]): up to 128 entries a port (mlx4, mlx5).
    let Ok(dir) = pdir.dir("pkeys").map(SysDir::unkept) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for i in 0..=u32::from(u16::MAX) {
        let got = dir.with_attr(NumName::new(i).as_str(), |t| {
            let t = t.trim();
            let v = t.strip_prefix("0x").unwrap_or(t);
            u16::from_str_radix(v, 16).map_err(|_| t.to_owned())
        });
        match got {
            Ok(Some(Ok(p))) => out.push(p),
            Ok(Some(Err(t))) => {
                return Err(Error::Protocol {
                    op: Op::port("read P_Keys", device, port),
                    detail: format!("P_Key {i} is not a 16-bit hex number: {t:?}"),
                })
            }
            Ok(None) | Err(_) => break,
        }
    }
    Ok(out)
}

/// The ifindex of network interface `name` under an open `class/net`.
fn ifindex_in(net: &SysDir, name: &str) -> Option<u32> {
    if !one_component(name) {
        return None;
    }
    let mut path = String::with_capacity(name.len() + 8);
    path.push_str(name);
    path.push_str("/ifindex");
    net.parse(&path, |s| s.parse().ok())
}

/// The ifindex of a network interface from sysfs (`class/net/NAME/ifindex`).
pub fn ifindex_of(sysfs_root: &Path, name: &str) -> Option<u32> {
    if !one_component(name) {
        return None;
    }
    ifindex_in(&SysDir::open(&sysfs_root.join("class/net")).ok()?, name)
}

/// The name of the network interface with `ifindex`, from sysfs: `class/net` is listed
/// once and the `ifindex` of each interface read until one matches.
pub fn netdev_name(sysfs_root: &Path, ifindex: u32) -> Option<String> {
    if ifindex == 0 {
        return None;
    }
    netdev_name_in(&SysDir::open(&sysfs_root.join("class/net")).ok()?, ifindex)
}

/// [`netdev_name`] under an open `class/net`.
pub(crate) fn netdev_name_in(net: &SysDir, ifindex: u32) -> Option<String> {
    if ifindex == 0 {
        return None;
    }
    let names = net.names().ok()?;
    names
        .into_iter()
        .find(|n| ifindex_in(net, n) == Some(ifindex))
}

/// Every network interface under `<sysfs_root>/class/net` with its ifindex, sorted by
/// ifindex; interfaces whose `ifindex` cannot be read are left out.
pub fn netdevs_by_ifindex(sysfs_root: &Path) -> Vec<(u32, String)> {
    let Ok(net) = SysDir::open(&sysfs_root.join("class/net")) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let _ = net.for_each_name(|n| {
        if let Some(i) = ifindex_in(&net, n) {
            out.push((i, n.to_owned()));
        }
    });
    attr::sort_small(&mut out, |a, b| a > b);
    out
}

/// The CPU's clock in MHz as `/proc/cpuinfo` gives it (the first `cpu MHz` line; procfs,
/// not sysfs, but the same kind of kernel text): what perftest converts cycle counts
/// with. `None` when the file or the line is missing.
pub fn cpu_mhz() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    s.lines()
        .find(|l| l.starts_with("cpu MHz"))?
        .split(':')
        .nth(1)?
        .trim()
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guids() {
        assert_eq!(
            parse_guid("0200:00ff:fe00:0000\n"),
            Some(Guid(0x0200_00ff_fe00_0000))
        );
        assert_eq!(
            parse_guid("ec0d:9a03:0078:6c2c"),
            Some(Guid(0xec0d_9a03_0078_6c2c))
        );
        for bad in [
            "",
            "0200:00ff:fe00",
            "0200:00ff:fe00:0000:0000",
            "0200:00ff:fe00:000g",
            "200:00ff:fe00:0000",
            "+200:00ff:fe00:0000",
            "0200-00ff-fe00-0000",
        ] {
            assert_eq!(parse_guid(bad), None, "{bad}");
        }
    }

    #[test]
    fn node_types_and_devs() {
        assert_eq!(parse_node_type("1: CA\n"), Some(NodeType::Ca));
        assert_eq!(parse_node_type("4: RNIC"), Some(NodeType::Rnic));
        assert_eq!(parse_node_type("9: ?"), Some(NodeType::Unknown(9)));
        assert_eq!(parse_node_type("CA"), None);
        assert_eq!(parse_dev("231:192\n"), Some((231, 192)));
        assert_eq!(parse_dev("231"), None);
        assert_eq!(parse_dev("a:1"), None);
        assert_eq!(parse_u32("6\n"), Some(6));
    }
}
