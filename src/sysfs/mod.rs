//! Sysfs discovery: `<root>/class/infiniband/<dev>/...` for the devices and
//! `<root>/class/infiniband_verbs/uverbsN/{ibdev,abi_version,dev}` for their uverbs nodes.
//!
//! The value parsers are pure functions over `&str`, public for tests and fuzzing.

use std::io;
use std::path::{Path, PathBuf};

use crate::error::{Error, Op, Result};
use crate::verbs::gid::{Gid, GidEntry};
use crate::verbs::types::{GidType, Guid, NodeType};

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

fn errno_of(e: &io::Error) -> rustix::io::Errno {
    rustix::io::Errno::from_io_error(e).unwrap_or(rustix::io::Errno::IO)
}

fn bad(dev: &str, path: &Path, what: &str, raw: &str) -> Error {
    Error::Protocol {
        op: Op::new("read sysfs", dev),
        detail: format!(
            "malformed {what} in {}: {:?}",
            path.display(),
            raw.trim_end()
        ),
    }
}

/// Reads a small text attribute without its trailing newline; `None` when absent.
fn read_attr(dev: &str, path: &Path) -> Result<Option<String>> {
    match std::fs::read(path) {
        Ok(b) => {
            // sysfs text is ASCII; keep anything else readable rather than failing.
            let s = String::from_utf8_lossy(&b);
            Ok(Some(s.trim_end_matches(['\n', '\0']).to_owned()))
        }
        // ENOENT, ENOTDIR (by errno: ErrorKind::NotADirectory needs Rust 1.83).
        Err(e)
            if matches!(
                errno_of(&e),
                rustix::io::Errno::NOENT | rustix::io::Errno::NOTDIR
            ) =>
        {
            Ok(None)
        }
        // Some attributes exist but cannot be read for a given driver (EOPNOTSUPP,
        // ENODATA, EINVAL from the show function): treat those as absent too.
        Err(e)
            if matches!(
                errno_of(&e),
                rustix::io::Errno::OPNOTSUPP
                    | rustix::io::Errno::NODATA
                    | rustix::io::Errno::INVAL
                    | rustix::io::Errno::NODEV
            ) =>
        {
            Ok(None)
        }
        Err(e) => Err(Error::Os {
            op: Op::new("read sysfs", dev),
            errno: errno_of(&e),
        }),
    }
}

fn link_basename(path: &Path) -> Option<String> {
    let target = std::fs::read_link(path).ok()?;
    Some(target.file_name()?.to_string_lossy().into_owned())
}

/// `<root>/class/infiniband`.
pub(crate) fn class_dir(root: &Path) -> PathBuf {
    root.join("class").join("infiniband")
}

/// `<root>/class/infiniband_verbs`.
pub(crate) fn verbs_dir(root: &Path) -> PathBuf {
    root.join("class").join("infiniband_verbs")
}

/// Lists directory entry names (files, directories, symlinks); an absent directory is
/// empty.
fn list_dir(dev: &str, dir: &Path) -> Result<Vec<String>> {
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(Error::Os {
                op: Op::new("read sysfs", dev),
                errno: errno_of(&e),
            })
        }
    };
    let mut out = Vec::new();
    for ent in rd {
        let ent = ent.map_err(|e| Error::Os {
            op: Op::new("read sysfs", dev),
            errno: errno_of(&e),
        })?;
        if let Some(n) = ent.file_name().to_str() {
            if !n.starts_with('.') {
                out.push(n.to_owned());
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The device names under `<root>/class/infiniband`, sorted.
pub(crate) fn device_names(root: &Path) -> Result<Vec<String>> {
    list_dir("", &class_dir(root))
}

/// Reads what sysfs has about device `name`. With `strict`, a missing or malformed
/// `node_type` or `node_guid` (or a malformed `sys_image_guid`) is an error; without,
/// it is left out.
pub(crate) fn read_device(root: &Path, name: &str, strict: bool) -> Result<SysDevice> {
    let dir = class_dir(root).join(name);
    let mut d = SysDevice::default();

    let p = dir.join("node_type");
    match read_attr(name, &p)? {
        Some(s) => match parse_node_type(&s) {
            Some(t) => d.node_type = Some(t),
            None if strict => return Err(bad(name, &p, "node_type", &s)),
            None => {}
        },
        None if strict => return Err(missing(name, &p)),
        None => {}
    }
    let p = dir.join("node_guid");
    match read_attr(name, &p)? {
        Some(s) => match parse_guid(&s) {
            Some(g) => d.node_guid = Some(g),
            None if strict => return Err(bad(name, &p, "node_guid", &s)),
            None => {}
        },
        None if strict => return Err(missing(name, &p)),
        None => {}
    }
    let p = dir.join("sys_image_guid");
    if let Some(s) = read_attr(name, &p)? {
        match parse_guid(&s) {
            Some(g) => d.sys_image_guid = Some(g),
            None if strict => return Err(bad(name, &p, "sys_image_guid", &s)),
            None => {}
        }
    }
    d.fw_ver = read_attr(name, &dir.join("fw_ver"))?;
    d.node_desc = read_attr(name, &dir.join("node_desc"))?;
    d.hca_type = read_attr(name, &dir.join("hca_type"))?;
    d.hw_rev = read_attr(name, &dir.join("hw_rev"))?;
    d.board_id = read_attr(name, &dir.join("board_id"))?;
    d.parent = read_attr(name, &dir.join("parent"))?;
    d.kernel_driver = link_basename(&dir.join("device").join("driver"));

    let ports = list_dir(name, &dir.join("ports"))?;
    if !ports.is_empty() || dir.join("ports").is_dir() {
        // The last port number, as netlink's PORT_INDEX (ports are 1..=N on a channel
        // adapter, 0 alone on a switch).
        d.port_count = Some(
            ports
                .iter()
                .filter_map(|p| p.parse::<u32>().ok())
                .max()
                .unwrap_or(0),
        );
    }
    Ok(d)
}

fn missing(dev: &str, path: &Path) -> Error {
    Error::Protocol {
        op: Op::new("read sysfs", dev),
        detail: format!("{} is missing", path.display()),
    }
}

/// The class-wide core uverbs ABI version (`class/infiniband_verbs/abi_version`).
pub(crate) fn core_abi_version(root: &Path) -> Result<Option<u32>> {
    let p = verbs_dir(root).join("abi_version");
    match read_attr("", &p)? {
        None => Ok(None),
        Some(s) => parse_u32(&s)
            .map(Some)
            .ok_or_else(|| bad("", &p, "abi_version", &s)),
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

/// The uverbs nodes under `<root>/class/infiniband_verbs`.
///
/// Each node's `abi_version` is the driver's uverbs ABI (rxe 2, siw 1), not the
/// class-wide core ABI. Entries without a readable `ibdev`, `dev` or `abi_version` are
/// skipped (they are being created or removed).
pub(crate) fn uverbs_nodes(root: &Path) -> Result<Vec<UverbsNode>> {
    let dir = verbs_dir(root);
    let mut out = Vec::new();
    for n in list_dir("", &dir)? {
        if !n.starts_with("uverbs") {
            continue;
        }
        let d = dir.join(&n);
        let Some(ibdev) = read_attr(&n, &d.join("ibdev"))? else {
            continue;
        };
        let Some((major, minor)) = read_attr(&n, &d.join("dev"))?
            .as_deref()
            .and_then(parse_dev)
        else {
            continue;
        };
        let Some(abi_version) = read_attr(&n, &d.join("abi_version"))?
            .as_deref()
            .and_then(parse_u32)
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

/// The valid GIDs of a port from a sysfs tree rooted at `sysfs_root`: nonzero entries,
/// with the type from `gid_attrs/types` and the netdev from `gid_attrs/ndevs`.
pub fn gids(sysfs_root: &Path, device: &str, port: u32) -> Result<Vec<GidEntry>> {
    let dir = sysfs_root.join(format!("class/infiniband/{device}/ports/{port}"));
    let op = || Op::port("read GIDs", device, port);
    let rd = std::fs::read_dir(dir.join("gids")).map_err(|e| Error::Os {
        op: op(),
        errno: rustix::io::Errno::from_io_error(&e).unwrap_or(rustix::io::Errno::IO),
    })?;
    let mut out = Vec::new();
    for ent in rd.flatten() {
        let Some(index) = ent.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(text) = std::fs::read_to_string(ent.path()) else {
            continue;
        };
        let Some(gid) = Gid::parse_sysfs(&text) else {
            continue;
        };
        if gid.is_zero() {
            continue;
        }
        let gid_type = match std::fs::read_to_string(dir.join(format!("gid_attrs/types/{index}"))) {
            Ok(t) if t.trim() == "RoCE v2" => GidType::RoceV2,
            Ok(t) if t.trim() == "IB/RoCE v1" => {
                // The same name serves IB GIDs and RoCE v1: the link layer decides.
                let ll = std::fs::read_to_string(dir.join("link_layer")).unwrap_or_default();
                if ll.trim() == "Ethernet" {
                    GidType::RoceV1
                } else {
                    GidType::Ib
                }
            }
            _ => GidType::Ib,
        };
        let netdev_ifindex = std::fs::read_to_string(dir.join(format!("gid_attrs/ndevs/{index}")))
            .ok()
            .and_then(|n| ifindex_of(sysfs_root, n.trim()))
            .unwrap_or(0);
        out.push(GidEntry {
            gid,
            index,
            port,
            gid_type,
            netdev_ifindex,
        });
    }
    out.sort_by_key(|e| e.index);
    Ok(out)
}

/// The P_Keys of a port from a sysfs tree rooted at `sysfs_root`.
pub fn pkeys(sysfs_root: &Path, device: &str, port: u32) -> Result<Vec<u16>> {
    let dir = sysfs_root.join(format!("class/infiniband/{device}/ports/{port}/pkeys"));
    let mut out = Vec::new();
    for i in 0..=u16::MAX as u32 {
        let Ok(text) = std::fs::read_to_string(dir.join(i.to_string())) else {
            break;
        };
        let t = text.trim();
        let v = t.strip_prefix("0x").unwrap_or(t);
        match u16::from_str_radix(v, 16) {
            Ok(p) => out.push(p),
            Err(_) => {
                return Err(Error::Protocol {
                    op: Op::port("read P_Keys", device, port),
                    detail: format!("P_Key {i} is not a 16-bit hex number: {t:?}"),
                })
            }
        }
    }
    Ok(out)
}

/// The ifindex of a network interface from sysfs (`class/net/NAME/ifindex`).
pub fn ifindex_of(sysfs_root: &Path, name: &str) -> Option<u32> {
    if name.is_empty() || name.contains('/') {
        return None;
    }
    std::fs::read_to_string(sysfs_root.join(format!("class/net/{name}/ifindex")))
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// The name of the network interface with `ifindex`, from sysfs.
pub fn netdev_name(sysfs_root: &Path, ifindex: u32) -> Option<String> {
    if ifindex == 0 {
        return None;
    }
    for ent in std::fs::read_dir(sysfs_root.join("class/net"))
        .ok()?
        .flatten()
    {
        let name = ent.file_name().to_string_lossy().into_owned();
        if ifindex_of(sysfs_root, &name) == Some(ifindex) {
            return Some(name);
        }
    }
    None
}

/// Every network interface under `<sysfs_root>/class/net` with its ifindex, sorted by
/// ifindex; interfaces whose `ifindex` cannot be read are left out.
pub fn netdevs_by_ifindex(sysfs_root: &Path) -> Vec<(u32, String)> {
    let Ok(rd) = std::fs::read_dir(sysfs_root.join("class/net")) else {
        return Vec::new();
    };
    let mut out: Vec<(u32, String)> = rd
        .flatten()
        .filter_map(|ent| {
            let name = ent.file_name().to_str()?.to_owned();
            Some((ifindex_of(sysfs_root, &name)?, name))
        })
        .collect();
    out.sort();
    out
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
