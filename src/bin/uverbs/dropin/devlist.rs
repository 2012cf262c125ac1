//! The device list as rdma-core's `ibv_get_device_list()` builds it: the devices RDMA
//! netlink reports (sysfs when netlink is unavailable), in the kernel's device index
//! order, keeping only those with a uverbs character device whose node exists in
//! `/dev/infiniband`. Devices left out are kept with the reason, for clear messages.

use uverbs::verbs::discover::{DeviceInfo, Discovery, NodeDir};

/// Why a device is not usable through uverbs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Skipped {
    /// No uverbs character device (ib_uverbs not loaded, or a kernel without
    /// `CONFIG_INFINIBAND_USER_ACCESS`).
    NoUverbs,
    /// The kernel has a uverbs device but its node is missing from `/dev/infiniband`
    /// (a container without the device nodes).
    NoNode(String),
}

/// The outcome of listing.
#[derive(Debug, Default)]
pub struct DeviceList {
    /// The usable devices, in rdma-core's order.
    pub usable: Vec<DeviceInfo>,
    /// RDMA devices left out, with the reason.
    pub skipped: Vec<(String, Skipped)>,
}

/// Listing failed as a whole: rdma-core's `ibv_get_device_list()` returns NULL with
/// `ENOSYS` when neither RDMA netlink nor `/sys/class/infiniband_verbs` is there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoRdmaSubsystem;

/// Lists the devices as rdma-core does. `details`: also read the sysfs-only attributes
/// (node_desc, board_id, ...), which only the JSON output prints (a dozen file reads per
/// device).
pub fn list(details: bool) -> Result<DeviceList, NoRdmaSubsystem> {
    // Netlink's devices in the kernel's order, not sorted by name first: sorting these
    // 360-byte values by name and back cost about 1,250 instructions per device.
    let disc = Discovery::new().sysfs_details(details).index_order(true);
    let all = match disc.devices_from_netlink() {
        Ok(v) => v,
        Err(_) => {
            // rdma-core's fallback reads /sys/class/infiniband_verbs; without it the
            // whole call fails with ENOSYS.
            if uverbs::sysfs::SysDir::open(&disc.sysfs_path().join("class/infiniband_verbs"))
                .is_err()
            {
                return Err(NoRdmaSubsystem);
            }
            disc.devices_from_sysfs().map_err(|_| NoRdmaSubsystem)?
        }
    };
    Ok(split(all))
}

/// Keeps the usable devices, in kernel index order (netlink dump order).
pub fn split(mut all: Vec<DeviceInfo>) -> DeviceList {
    // Netlink's index order; without indexes (sysfs), the name order discovery gave. In
    // place: a stable sort of these 360-byte values would take a scratch buffer. What
    // `list` passes is in this order already (one comparison per device, nothing moved).
    uverbs::sysfs::attr::sort_small(&mut all, |a, b| {
        (a.index.unwrap_or(u32::MAX), &a.name) > (b.index.unwrap_or(u32::MAX), &b.name)
    });
    let mut skipped = Vec::new();
    let mut nodes = NodeDir::default();
    // In place, as well: a second vector of them would be one more large block to map
    // and unmap.
    all.retain(|d| {
        let why = match &d.uverbs {
            None => Skipped::NoUverbs,
            Some(u) if !nodes.exists(&u.path) => Skipped::NoNode(u.path.display().to_string()),
            Some(_) => return true,
        };
        skipped.push((d.name.clone(), why));
        false
    });
    crate::plumbing::io::keep(nodes);
    DeviceList {
        usable: all,
        skipped,
    }
}

/// A one-line explanation of why there is no usable device, for `uverbs` mode.
pub fn why_none(list: &DeviceList) -> Option<String> {
    if list.skipped.is_empty() {
        return None;
    }
    let names: Vec<&str> = list.skipped.iter().map(|(n, _)| n.as_str()).collect();
    if list.skipped.iter().all(|(_, s)| *s == Skipped::NoUverbs) {
        return Some(format!(
            "RDMA device(s) {} have no uverbs device: load the ib_uverbs module (or the kernel lacks CONFIG_INFINIBAND_USER_ACCESS)",
            names.join(", ")
        ));
    }
    let parts: Vec<String> = list
        .skipped
        .iter()
        .map(|(n, s)| match s {
            Skipped::NoUverbs => format!("{n} has no uverbs device (load ib_uverbs)"),
            Skipped::NoNode(p) => format!(
                "{n}: {p} does not exist (in a container, mount /dev/infiniband from the host)"
            ),
        })
        .collect();
    Some(parts.join("; "))
}

/// Why a named device is not usable, for `uverbs` mode.
pub fn why_skipped(list: &DeviceList, name: &[u8]) -> Option<String> {
    let (n, s) = list.skipped.iter().find(|(n, _)| n.as_bytes() == name)?;
    Some(match s {
        Skipped::NoUverbs => format!(
            "{n} has no uverbs device: load the ib_uverbs module (or the kernel lacks CONFIG_INFINIBAND_USER_ACCESS)"
        ),
        Skipped::NoNode(p) => format!(
            "{n}: {p} does not exist (in a container, mount /dev/infiniband from the host)"
        ),
    })
}

/// The one-line message when there is no RDMA subsystem at all, for `uverbs` mode.
pub const NO_SUBSYSTEM: &str = "this kernel has no RDMA devices: RDMA netlink does not answer and /sys/class/infiniband_verbs is missing (load ib_core, ib_uverbs and a device driver)";
