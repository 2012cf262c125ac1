//! The GID table as operators read it, and the selection of the GID index a RoCE
//! application needs (`NCCL_IB_GID_INDEX`, `UCX_IB_GID_INDEX`).
//!
//! A RoCE port has one GID per IP address of each netdev on it (its own and the VLAN
//! devices above it), of each RoCE version the device supports: rxe on a netdev with
//! one IPv4 address has the link-local GID `fe80::...` (from the MAC) and the
//! IPv4-mapped `::ffff:a.b.c.d`, both RoCE v2. Which index is which depends on the
//! order addresses were added, so it must be looked up, not assumed.
//!
//! [`GidRow`]s join a port's entries ([`Context::query_gid_table`], or
//! [`crate::sysfs::gids`]) with the netdev names ([`Netdevs`]); a [`GidSelector`] picks
//! one:
//!
//! ```no_run
//! use uverbs::verbs::gid_select::{GidRow, GidSelector, Netdevs};
//! use uverbs::GidType;
//! # fn main() -> uverbs::Result<()> {
//! let ctx = uverbs::Context::open_by_name("rxe0")?;
//! let names = Netdevs::read("/sys".as_ref(), "/proc".as_ref());
//! let rows = GidRow::join(ctx.name(), &ctx.query_gid_table(1024)?, &names);
//! let want = GidSelector {
//!     gid_type: Some(GidType::RoceV2),
//!     ipv4: Some("169.254.1.1".parse().unwrap()),
//!     ..GidSelector::default()
//! };
//! if let Some(row) = want.select(&rows) {
//!     println!("NCCL_IB_GID_INDEX={}", row.index);
//! }
//! # Ok(()) }
//! ```

use std::net::{Ipv4Addr, Ipv6Addr};
use std::path::Path;

use crate::types::GidType;
use crate::types::{Gid, GidEntry};
#[allow(unused_imports)] // the module docs link it
use crate::verbs::context::Context;

/// The network devices of the host, as a GID table names them: names by ifindex, and
/// the VLAN id of each VLAN device.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Netdevs {
    /// (ifindex, name), sorted by ifindex.
    pub names: Vec<(u32, String)>,
    /// (VLAN device name, VLAN id).
    pub vlans: Vec<(String, u16)>,
}

impl Netdevs {
    /// Reads the names from `<sysfs_root>/class/net/*/ifindex` and the VLAN ids from
    /// `<proc_root>/net/vlan/config` (present while the 8021q module is loaded). What
    /// cannot be read is left out.
    pub fn read(sysfs_root: &Path, proc_root: &Path) -> Netdevs {
        let names = crate::sysfs::netdevs_by_ifindex(sysfs_root);
        let vlans = std::fs::read_to_string(proc_root.join("net/vlan/config"))
            .map(|t| parse_vlan_config(&t))
            .unwrap_or_default();
        Netdevs { names, vlans }
    }

    /// The name of `ifindex`, if known.
    pub fn name(&self, ifindex: u32) -> Option<&str> {
        self.names
            .binary_search_by_key(&ifindex, |(i, _)| *i)
            .ok()
            .map(|i| self.names[i].1.as_str())
    }

    /// The VLAN id of netdev `name`, if it is a VLAN device.
    pub fn vlan(&self, name: &str) -> Option<u16> {
        self.vlans.iter().find(|(n, _)| n == name).map(|(_, v)| *v)
    }
}

/// Parses `/proc/net/vlan/config`: two header lines, then `NAME | VID | PARENT` per VLAN
/// device. Lines that do not parse are skipped.
pub fn parse_vlan_config(text: &str) -> Vec<(String, u16)> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut cols = line.split('|').map(str::trim);
        let (Some(name), Some(vid), Some(_parent)) = (cols.next(), cols.next(), cols.next()) else {
            continue;
        };
        if let Ok(v) = vid.parse::<u16>() {
            if !name.is_empty() && v < 4096 {
                out.push((name.to_owned(), v));
            }
        }
    }
    out
}

/// One GID table entry with what an operator needs beside it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct GidRow {
    /// The RDMA device.
    pub device: String,
    /// The port (from 1).
    pub port: u32,
    /// The index in the port's table: the value of `NCCL_IB_GID_INDEX`.
    pub index: u32,
    /// The GID.
    pub gid: Gid,
    /// Its type.
    pub gid_type: GidType,
    /// The ifindex of its netdev (0 when none).
    pub netdev_ifindex: u32,
    /// The name of its netdev, when known.
    pub netdev: Option<String>,
    /// The VLAN id, when its netdev is a VLAN device.
    pub vlan: Option<u16>,
}

impl GidRow {
    /// The rows of `entries` (one device's), with names and VLANs from `names`.
    pub fn join(device: &str, entries: &[GidEntry], names: &Netdevs) -> Vec<GidRow> {
        entries
            .iter()
            .map(|e| {
                let netdev = names.name(e.netdev_ifindex).map(str::to_owned);
                let vlan = netdev.as_deref().and_then(|n| names.vlan(n));
                GidRow {
                    device: device.to_owned(),
                    port: e.port,
                    index: e.index,
                    gid: e.gid,
                    gid_type: e.gid_type,
                    netdev_ifindex: e.netdev_ifindex,
                    netdev,
                    vlan,
                }
            })
            .collect()
    }

    /// The IPv4 address of an IPv4-mapped GID (`::ffff:a.b.c.d`).
    pub fn ipv4(&self) -> Option<Ipv4Addr> {
        let b = self.gid.0;
        (b[..10] == [0; 10] && b[10] == 0xff && b[11] == 0xff)
            .then(|| Ipv4Addr::new(b[12], b[13], b[14], b[15]))
    }

    /// The GID as an IPv6 address.
    pub fn ipv6(&self) -> Ipv6Addr {
        self.gid.to_ipv6()
    }

    /// Whether the GID is link-local (`fe80::/10`): such a GID does not cross a router.
    pub fn is_link_local(&self) -> bool {
        self.gid.0[0] == 0xfe && (self.gid.0[1] & 0xc0) == 0x80
    }

    /// How good a choice the row is for a routed RoCE connection: IPv4-mapped first,
    /// then other IPv6 addresses, link-local last (lower is better).
    fn rank(&self) -> u8 {
        if self.ipv4().is_some() {
            0
        } else if !self.is_link_local() {
            1
        } else {
            2
        }
    }
}

/// What to select: every field that is set must match. Build it with struct update
/// syntax from [`GidSelector::default()`] (which matches every row).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GidSelector {
    /// The GID type (RoCE v2 for NCCL and UCX over routed Ethernet).
    pub gid_type: Option<GidType>,
    /// The IPv4 address the GID maps.
    pub ipv4: Option<Ipv4Addr>,
    /// The GID as an IPv6 address (for IPv6 RoCE v2, or an IB GID).
    pub ipv6: Option<Ipv6Addr>,
    /// The netdev the GID belongs to.
    pub netdev: Option<String>,
    /// The VLAN id of the GID's netdev.
    pub vlan: Option<u16>,
    /// The device.
    pub device: Option<String>,
    /// The port.
    pub port: Option<u32>,
    /// Only GIDs that cross a router: not link-local.
    pub routable: bool,
}

impl GidSelector {
    /// Whether `row` matches every condition.
    pub fn matches(&self, row: &GidRow) -> bool {
        self.gid_type.is_none_or_eq(&row.gid_type)
            && self.ipv4.map_or(true, |a| row.ipv4() == Some(a))
            && self.ipv6.map_or(true, |a| row.ipv6() == a)
            && self
                .netdev
                .as_ref()
                .map_or(true, |n| row.netdev.as_deref() == Some(n.as_str()))
            && self.vlan.map_or(true, |v| row.vlan == Some(v))
            && self.device.as_ref().map_or(true, |d| &row.device == d)
            && self.port.map_or(true, |p| row.port == p)
            && (!self.routable || !row.is_link_local())
    }

    /// Every matching row, best first (IPv4-mapped, then other IPv6, then link-local;
    /// then by device, port and index).
    pub fn all<'a>(&self, rows: &'a [GidRow]) -> Vec<&'a GidRow> {
        let mut v: Vec<&GidRow> = rows.iter().filter(|r| self.matches(r)).collect();
        crate::sysfs::attr::sort_small(&mut v, |a, b| {
            (a.rank(), &a.device, a.port, a.index) > (b.rank(), &b.device, b.port, b.index)
        });
        v
    }

    /// The best matching row ([`GidSelector::all`]'s first), if any.
    pub fn select<'a>(&self, rows: &'a [GidRow]) -> Option<&'a GidRow> {
        let mut best: Option<&GidRow> = None;
        for r in rows.iter().filter(|r| self.matches(r)) {
            if best.map_or(true, |b| Self::before(r, b)) {
                best = Some(r);
            }
        }
        best
    }

    /// Whether `a` comes before `b` in [`GidSelector::all`]'s order.
    fn before(a: &GidRow, b: &GidRow) -> bool {
        (a.rank(), &a.device, a.port, a.index) < (b.rank(), &b.device, b.port, b.index)
    }
}

trait NoneOrEq<T> {
    fn is_none_or_eq(&self, v: &T) -> bool;
}

impl<T: PartialEq> NoneOrEq<T> for Option<T> {
    fn is_none_or_eq(&self, v: &T) -> bool {
        self.as_ref().map_or(true, |w| w == v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(port: u32, index: u32, gid: &str, ty: GidType, netdev: &str) -> GidRow {
        GidRow {
            device: "rxe0".into(),
            port,
            index,
            gid: Gid(gid.parse::<Ipv6Addr>().unwrap().octets()),
            gid_type: ty,
            netdev_ifindex: 2,
            netdev: Some(netdev.into()),
            vlan: netdev.split_once('.').map(|(_, v)| v.parse().unwrap()),
        }
    }

    /// A table shaped like rxe's on a netdev with an IPv4 address and a VLAN device
    /// above it with another (SYNTHETIC: the VM test reads the real one).
    fn table() -> Vec<GidRow> {
        use GidType::*;
        vec![
            row(1, 0, "fe80::cc9c:64ff:fe59:8cf6", RoceV2, "rnet0"),
            row(1, 1, "::ffff:169.254.1.1", RoceV2, "rnet0"),
            row(1, 2, "fe80::cc9c:64ff:fe59:8cf6", RoceV2, "rnet0.7"),
            row(1, 3, "2001:db8::1", RoceV2, "rnet0.7"),
            row(1, 4, "::ffff:10.7.0.1", RoceV2, "rnet0.7"),
            row(1, 5, "::ffff:10.7.0.1", RoceV1, "rnet0.7"),
        ]
    }

    #[test]
    fn selections() {
        let t = table();
        let pick = |s: GidSelector| s.select(&t).map(|r| r.index);
        let v2 = GidSelector {
            gid_type: Some(GidType::RoceV2),
            ..Default::default()
        };
        assert_eq!(
            pick(GidSelector {
                ipv4: Some("10.7.0.1".parse().unwrap()),
                ..v2.clone()
            }),
            Some(4)
        );
        assert_eq!(
            pick(GidSelector {
                ipv4: Some("10.7.0.1".parse().unwrap()),
                gid_type: Some(GidType::RoceV1),
                ..Default::default()
            }),
            Some(5)
        );
        assert_eq!(
            pick(GidSelector {
                netdev: Some("rnet0".into()),
                ..v2.clone()
            }),
            Some(1),
            "IPv4 first"
        );
        assert_eq!(
            pick(GidSelector {
                vlan: Some(7),
                ipv4: None,
                ipv6: Some("2001:db8::1".parse().unwrap()),
                ..v2.clone()
            }),
            Some(3)
        );
        assert_eq!(
            pick(GidSelector {
                netdev: Some("rnet0.7".into()),
                ..v2.clone()
            }),
            Some(4)
        );
        assert_eq!(
            pick(GidSelector {
                ipv4: Some("10.9.9.9".parse().unwrap()),
                ..v2.clone()
            }),
            None
        );
        assert_eq!(
            pick(GidSelector {
                netdev: Some("eth9".into()),
                ..v2.clone()
            }),
            None
        );
        let all: Vec<u32> = v2.all(&t).iter().map(|r| r.index).collect();
        assert_eq!(all, [1, 4, 3, 0, 2]);
        let routable: Vec<u32> = GidSelector {
            routable: true,
            ..v2
        }
        .all(&t)
        .iter()
        .map(|r| r.index)
        .collect();
        assert_eq!(routable, [1, 4, 3]);
    }

    #[test]
    fn ipv4_mapping_and_link_local() {
        let t = table();
        assert_eq!(t[1].ipv4(), Some(Ipv4Addr::new(169, 254, 1, 1)));
        assert_eq!(t[0].ipv4(), None);
        assert!(t[0].is_link_local() && !t[1].is_link_local() && !t[3].is_link_local());
    }

    #[test]
    fn vlan_config() {
        // The layout of /proc/net/vlan/config (net/8021q/vlanproc.c).
        let text = "VLAN Dev name\t | VLAN ID\nName-Type: VLAN_NAME_TYPE_RAW_PLUS_VID_NO_PAD\n\
                    rnet0.7        | 7  | rnet0\nbad line\nx | 4096 | y\nvl100    | 100  | eth1\n";
        let v = parse_vlan_config(text);
        assert_eq!(v, [("rnet0.7".to_string(), 7), ("vl100".to_string(), 100)]);
    }

    #[test]
    fn join_names_entries() {
        let mut names = Netdevs::default();
        names.names.push((3, "rnet0.7".into()));
        names.vlans.push(("rnet0.7".into(), 7));
        let mut e = GidEntry::new(1, 2, Gid([0; 16]));
        e.netdev_ifindex = 3;
        let mut e2 = GidEntry::new(1, 0, Gid([0; 16]));
        e2.netdev_ifindex = 9;
        let rows = GidRow::join("rxe0", &[e, e2], &names);
        assert_eq!(rows[0].netdev.as_deref(), Some("rnet0.7"));
        assert_eq!(rows[0].vlan, Some(7));
        assert_eq!((rows[1].netdev.as_deref(), rows[1].vlan), (None, None));
    }
}
