//! Device discovery: which RDMA devices exist, what they are, and where their uverbs
//! character device is, without opening anything.
//!
//! [`Discovery`] asks the kernel over RDMA netlink first (nldev `GET` dump, then
//! `GET_CHARDEV` per device, as libibverbs does since rdma-core 24), and falls back to
//! sysfs (`/sys/class/infiniband`, `/sys/class/infiniband_verbs`) when netlink is not
//! available or answers nonsense. Either way, the sysfs attributes netlink lacks
//! (`node_desc`, `board_id`, `hw_rev`, the bound kernel driver, ...) are added when
//! sysfs is readable.
//!
//! ```no_run
//! use uverbs::verbs::discover::Discovery;
//!
//! for dev in Discovery::new().devices()? {
//!     let node = dev.uverbs.as_ref().map_or("-".into(), |u| u.path.display().to_string());
//!     println!("{} {} {} {}", dev.name, dev.node_guid, dev.transport.as_raw(), node);
//! }
//! # Ok::<(), uverbs::error::Error>(())
//! ```
//!
//! Every path is injectable ([`Discovery::sysfs_root`], [`Discovery::dev_root`]) so the
//! sysfs path runs on fixture trees; turn netlink off ([`Discovery::netlink`]) there, or
//! the host's real devices are reported.

use std::path::{Path, PathBuf};

use crate::error::{Error, Op, Result};
use crate::netlink;
use crate::raw::abi::ioctl_verbs::*;
#[allow(unused_imports)] // for the docs
use crate::raw::abi::IB_USER_VERBS_ABI_VERSION;
use crate::sysfs;
use crate::sysfs::attr::sort_small;
use crate::types::{Guid, NodeType, TransportType};

/// Where and how to look for devices. Built with [`Discovery::new`] and the chainable
/// setters; [`Discovery::devices`] does the work.
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use = "a Discovery does nothing until asked for devices"]
pub struct Discovery {
    sysfs_root: PathBuf,
    dev_root: PathBuf,
    netlink: bool,
    details: bool,
    index_order: bool,
}

impl Default for Discovery {
    fn default() -> Self {
        Discovery {
            sysfs_root: PathBuf::from("/sys"),
            dev_root: PathBuf::from("/dev"),
            netlink: true,
            details: false,
            index_order: false,
        }
    }
}

/// Where the information about a device came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Source {
    /// RDMA netlink (nldev), completed from sysfs.
    Netlink,
    /// Sysfs only.
    Sysfs,
    /// Built by the caller ([`DeviceInfo::new`]), not discovered.
    Caller,
}

/// The uverbs character device of an RDMA device (`/dev/infiniband/uverbsN`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct UverbsDev {
    /// The node's name (`uverbs0`).
    pub name: String,
    /// The node's path: `<dev_root>/infiniband/<name>`.
    pub path: PathBuf,
    /// The device number's major, as the kernel reports it (231 for the first 32 devices,
    /// a dynamic major past that: never assume 231).
    pub major: u32,
    /// The device number's minor.
    pub minor: u32,
    /// The driver's uverbs ABI version (`ib_device_ops.uverbs_abi_ver`: netlink
    /// `CHARDEV_ABI`, sysfs `infiniband_verbs/uverbsN/abi_version`): the version of the
    /// driver-specific udata layouts, e.g. 2 for rxe and 1 for siw. It is **not** the
    /// core uverbs ABI (6, [`IB_USER_VERBS_ABI_VERSION`]), which is class-wide: see
    /// [`Discovery::core_abi_version`].
    pub abi_version: u32,
}

impl UverbsDev {
    /// Checks that [`path`](Self::path) is a character device with the device number the
    /// kernel reported (as libibverbs does before trusting a node: a stale or hand-made
    /// `/dev` entry, or a container's, may point elsewhere).
    ///
    /// Errors: [`Error::Os`] with op `"stat"` and the errno (`ENOENT` when the node is
    /// missing, e.g. no udev/devtmpfs in a container); [`Error::DevMismatch`] when the
    /// node is not a character device or its number differs.
    pub fn check_node(&self) -> Result<()> {
        let st = rustix::fs::stat(&self.path).map_err(|errno| Error::Os {
            op: Op::new("stat", &self.name),
            errno,
        })?;
        let is_chr = rustix::fs::FileType::from_raw_mode(st.st_mode)
            == rustix::fs::FileType::CharacterDevice;
        let (found_major, found_minor) = if is_chr {
            (rustix::fs::major(st.st_rdev), rustix::fs::minor(st.st_rdev))
        } else {
            (0, 0)
        };
        if !is_chr || (found_major, found_minor) != (self.major, self.minor) {
            return Err(Error::DevMismatch {
                op: Op::new("stat", &self.name),
                path: self.path.clone(),
                found_major,
                found_minor,
                expected_major: self.major,
                expected_minor: self.minor,
            });
        }
        Ok(())
    }
}

/// One RDMA device.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DeviceInfo {
    /// The device name (`rxe0`, `mlx5_0`).
    pub name: String,
    /// The kernel's device index (netlink `DEV_INDEX`); `None` from sysfs.
    pub index: Option<u32>,
    /// The node type.
    pub node_type: NodeType,
    /// The transport, derived from the node type as libibverbs does.
    pub transport: TransportType,
    /// The node GUID.
    pub node_guid: Guid,
    /// The system image GUID, when reported.
    pub sys_image_guid: Option<Guid>,
    /// The firmware version (netlink `FW_VERSION` or sysfs `fw_ver`); empty when the
    /// device has none (software devices).
    pub fw_ver: String,
    /// The last port number: the port count of a channel adapter (netlink `PORT_INDEX`
    /// of the `GET` answer; sysfs: the highest entry of `ports/`).
    pub port_count: u32,
    /// The uverbs node; `None` when the device has none (`ib_uverbs` not loaded, or a
    /// device without user-space verbs).
    pub uverbs: Option<UverbsDev>,
    /// The `rdma_driver_id` to put in every ioctl header (netlink `UVERBS_DRIVER_ID`);
    /// `None` when unknown (sysfs, kernels before 5.3, drivers without driver-id
    /// binding). See [`DeviceInfo::driver_id_guess`].
    pub driver_id: Option<u32>,
    /// Where the information came from.
    pub source: Source,
    /// The protocol (netlink `DEV_PROTOCOL`, since Linux 5.3): `ib`, `roce`, `iw`, `opa`,
    /// `usnic`.
    pub protocol: Option<String>,
    /// The device capability flags (netlink `CAP_FLAGS`: the kernel's `IB_DEVICE_*` set).
    pub cap_flags: Option<u64>,
    /// The node description (sysfs `node_desc`).
    pub node_desc: Option<String>,
    /// The HCA type (sysfs `hca_type`, some drivers only).
    pub hca_type: Option<String>,
    /// The hardware revision (sysfs `hw_rev`, some drivers only).
    pub hw_rev: Option<String>,
    /// The board id (sysfs `board_id`, some drivers only), as `ibv_devinfo` prints it.
    pub board_id: Option<String>,
    /// The kernel driver bound to the device's parent (basename of sysfs
    /// `device/driver`, e.g. `mlx5_core`); `None` for software devices without one.
    pub kernel_driver: Option<String>,
    /// The parent netdev of a software device (sysfs `parent`, rxe only).
    pub parent: Option<String>,
}

/// Driver ids by the kernel driver bound to the device's parent (sysfs `device/driver`).
const BY_KERNEL_DRIVER: &[(&str, u32)] = &[
    ("mlx5_core", RDMA_DRIVER_MLX5),
    ("mlx5_ib", RDMA_DRIVER_MLX5),
    ("mlx4_core", RDMA_DRIVER_MLX4),
    ("mlx4_ib", RDMA_DRIVER_MLX4),
    ("ib_mthca", RDMA_DRIVER_MTHCA),
    ("cxgb4", RDMA_DRIVER_CXGB4),
    ("iw_cxgb4", RDMA_DRIVER_CXGB4),
    ("bnxt_en", RDMA_DRIVER_BNXT_RE),
    ("bnxt_re", RDMA_DRIVER_BNXT_RE),
    ("be2net", RDMA_DRIVER_OCRDMA),
    ("ocrdma", RDMA_DRIVER_OCRDMA),
    ("ice", RDMA_DRIVER_IRDMA),
    ("i40e", RDMA_DRIVER_IRDMA),
    ("idpf", RDMA_DRIVER_IRDMA),
    ("irdma", RDMA_DRIVER_IRDMA),
    ("vmw_pvrdma", RDMA_DRIVER_VMW_PVRDMA),
    ("qede", RDMA_DRIVER_QEDR),
    ("qedr", RDMA_DRIVER_QEDR),
    ("hns3", RDMA_DRIVER_HNS),
    ("hns_roce_hw_v2", RDMA_DRIVER_HNS),
    ("enic", RDMA_DRIVER_USNIC),
    ("usnic_verbs", RDMA_DRIVER_USNIC),
    ("hfi1", RDMA_DRIVER_HFI1),
    ("ib_qib", RDMA_DRIVER_QIB),
    ("efa", RDMA_DRIVER_EFA),
    ("erdma", RDMA_DRIVER_ERDMA),
    ("mana", RDMA_DRIVER_MANA),
    ("mana_ib", RDMA_DRIVER_MANA),
    ("ionic", RDMA_DRIVER_IONIC),
    ("ionic_rdma", RDMA_DRIVER_IONIC),
];

/// Driver ids by the default device name prefix of each driver. Longer prefixes first.
const BY_NAME_PREFIX: &[(&str, u32)] = &[
    ("mlx5_", RDMA_DRIVER_MLX5),
    ("mlx4_", RDMA_DRIVER_MLX4),
    ("mthca", RDMA_DRIVER_MTHCA),
    ("cxgb4_", RDMA_DRIVER_CXGB4),
    ("bnxt_re", RDMA_DRIVER_BNXT_RE),
    ("ocrdma", RDMA_DRIVER_OCRDMA),
    ("irdma", RDMA_DRIVER_IRDMA),
    ("i40iw", RDMA_DRIVER_IRDMA),
    ("vmw_pvrdma", RDMA_DRIVER_VMW_PVRDMA),
    ("qedr", RDMA_DRIVER_QEDR),
    ("hns", RDMA_DRIVER_HNS),
    ("usnic_", RDMA_DRIVER_USNIC),
    ("rxe", RDMA_DRIVER_RXE),
    ("hfi1_", RDMA_DRIVER_HFI1),
    ("qib", RDMA_DRIVER_QIB),
    ("efa_", RDMA_DRIVER_EFA),
    ("siw", RDMA_DRIVER_SIW),
    ("erdma_", RDMA_DRIVER_ERDMA),
    ("mana_", RDMA_DRIVER_MANA),
    ("ionic_", RDMA_DRIVER_IONIC),
];

impl DeviceInfo {
    /// A device described by the caller rather than discovered (a device known from
    /// elsewhere, a test fixture): `name` and `node_type`, the transport derived from
    /// the node type as libibverbs does, [`Source::Caller`], and nothing else known
    /// (no index, GUIDs 0 or `None`, no uverbs node). Set the other fields afterwards:
    /// they are public, and the struct is `#[non_exhaustive]` so that discovery can
    /// learn more without breaking callers.
    ///
    /// ```
    /// use uverbs::{DeviceInfo, NodeType, TransportType};
    ///
    /// let mut d = DeviceInfo::new("rxe0", NodeType::Ca);
    /// d.port_count = 1;
    /// assert_eq!(d.transport, TransportType::Ib);
    /// ```
    pub fn new(name: impl Into<String>, node_type: NodeType) -> DeviceInfo {
        DeviceInfo {
            name: name.into(),
            index: None,
            node_type,
            transport: node_type.transport(),
            node_guid: Guid(0),
            sys_image_guid: None,
            fw_ver: String::new(),
            port_count: 0,
            uverbs: None,
            driver_id: None,
            source: Source::Caller,
            protocol: None,
            cap_flags: None,
            node_desc: None,
            hca_type: None,
            hw_rev: None,
            board_id: None,
            kernel_driver: None,
            parent: None,
        }
    }

    /// A guess of the `rdma_driver_id` for when [`driver_id`](Self::driver_id) is
    /// unknown (sysfs discovery, old kernels): from the kernel driver bound to the
    /// device's parent (`mlx5_core` → `RDMA_DRIVER_MLX5`), else from the driver's default
    /// device name prefix (`rxe`, `siw`, `mlx5_`, `efa_`, ...). Software devices have no
    /// parent driver of their own: rxe is recognised by its sysfs `parent` attribute, siw
    /// by its node description (`Software iWARP stack`), then both by name.
    ///
    /// Only a guess: a hardware device whose parent driver is not in the table and whose
    /// name is not the driver's default (udev's `rdma_rename`, `rdma dev set ... name`)
    /// is not recognised, and a renamed device can be misread. Verify it before use (an `INVOKE_WRITE` probe fails with `EINVAL` for a wrong
    /// driver id, before anything else is checked).
    pub fn driver_id_guess(&self) -> Option<u32> {
        // `parent` (the netdev) is an rxe-only sysfs attribute; an rxe device's
        // `device/driver`, if any, is its netdev's, so look at `parent` first.
        if self.parent.is_some() {
            return Some(RDMA_DRIVER_RXE);
        }
        if let Some(drv) = &self.kernel_driver {
            if let Some(&(_, id)) = BY_KERNEL_DRIVER.iter().find(|(n, _)| n == drv) {
                return Some(id);
            }
        }
        if self.kernel_driver.is_none()
            && self.node_type == NodeType::Rnic
            && self.node_desc.as_deref() == Some(SIW_NODE_DESC)
        {
            return Some(RDMA_DRIVER_SIW);
        }
        by_prefix(&self.name)
    }
}

/// The node description siw gives its devices.
const SIW_NODE_DESC: &str = "Software iWARP stack";

fn by_prefix(name: &str) -> Option<u32> {
    BY_NAME_PREFIX
        .iter()
        .find(|(p, _)| name.starts_with(p))
        .map(|&(_, id)| id)
}

impl Discovery {
    /// Looks in `/sys` and `/dev`, netlink first.
    pub fn new() -> Self {
        Self::default()
    }

    /// The sysfs mount point (default `/sys`).
    pub fn sysfs_root(mut self, p: impl Into<PathBuf>) -> Self {
        self.sysfs_root = p.into();
        self
    }

    /// The devtmpfs mount point (default `/dev`): nodes are `<dev_root>/infiniband/uverbsN`.
    pub fn dev_root(mut self, p: impl Into<PathBuf>) -> Self {
        self.dev_root = p.into();
        self
    }

    /// Whether to ask RDMA netlink first (default `true`). Turn it off to read sysfs
    /// only, e.g. on a fixture tree.
    pub fn netlink(mut self, on: bool) -> Self {
        self.netlink = on;
        self
    }

    /// Whether devices found through netlink are completed with the attributes only
    /// sysfs has (`node_desc`, `hca_type`, `hw_rev`, `board_id`, `kernel_driver`,
    /// `parent`): about a dozen small file reads per device. Default `false`, so that
    /// discovery costs one netlink dump plus one GET_CHARDEV per device; the sysfs
    /// fallback always fills them. A device whose driver id netlink does not report has
    /// them read anyway, for [`DeviceInfo::driver_id_guess`].
    pub fn sysfs_details(mut self, on: bool) -> Self {
        self.details = on;
        self
    }

    /// Whether devices found through netlink keep the kernel's order, by device index
    /// (netlink's dump order, the order of rdma-core's `ibv_get_device_list()`), instead
    /// of being sorted by name. Default `false`. Sysfs knows no index: devices found
    /// there are sorted by name either way.
    pub fn index_order(mut self, on: bool) -> Self {
        self.index_order = on;
        self
    }

    /// All RDMA devices, sorted by name (see [`Discovery::index_order`]): from netlink
    /// (completed from sysfs) when enabled and working, else from sysfs. No device (or no
    /// `ib_core`) gives an empty list.
    #[doc(alias = "ibv_get_device_list")]
    pub fn devices(&self) -> Result<Vec<DeviceInfo>> {
        if self.netlink {
            if let Ok(v) = self.devices_from_netlink() {
                return Ok(v);
            }
        }
        self.devices_from_sysfs()
    }

    /// The device called `name`; [`Error::NoSuchDevice`] if there is none.
    pub fn device(&self, name: &str) -> Result<DeviceInfo> {
        if self.netlink {
            if let Ok(v) = self.netlink_devices(Some(name)) {
                return v.into_iter().next().ok_or_else(|| no_such(name));
            }
        }
        if name.is_empty() || name.contains(['/', '\0']) || name.starts_with('.') {
            return Err(no_such(name));
        }
        let Some(class) = sysfs::open_class(&self.sysfs_root)? else {
            return Err(no_such(name));
        };
        if !class.exists(name) {
            return Err(no_such(name));
        }
        let nodes = self.sysfs_uverbs_nodes()?;
        self.sysfs_device(&class, name, &nodes)
    }

    /// The devices as RDMA netlink reports them (completed from sysfs), sorted by name
    /// (see [`Discovery::index_order`]), without the sysfs fallback.
    pub fn devices_from_netlink(&self) -> Result<Vec<DeviceInfo>> {
        self.netlink_devices(None)
    }

    /// The netlink devices, all or only the one named `only` (whose uverbs node alone is
    /// asked for).
    fn netlink_devices(&self, only: Option<&str>) -> Result<Vec<DeviceInfo>> {
        let mut sock = netlink::NlSocket::open()?;
        let devs = sock.devices_where(&mut |d| only.map_or(true, |n| n == d.name))?;
        // The records, filled in place from here on: a second vector of these 360-byte
        // values would be one more large block to map and unmap (musl's allocator).
        let mut out: Vec<DeviceInfo> = Vec::with_capacity(devs.len());
        for d in devs {
            let node_type = NodeType::from_raw(u32::from(d.node_type));
            out.push(DeviceInfo {
                name: d.name,
                index: Some(d.index),
                node_type,
                transport: node_type.transport(),
                node_guid: Guid(d.node_guid),
                sys_image_guid: d.sys_image_guid.map(Guid),
                fw_ver: d.fw_version.unwrap_or_default(),
                port_count: d.port_count,
                uverbs: None,
                driver_id: None,
                source: Source::Netlink,
                protocol: d.protocol,
                cap_flags: d.cap_flags,
                node_desc: None,
                hca_type: None,
                hw_rev: None,
                board_id: None,
                kernel_driver: None,
                parent: None,
            });
        }
        // The uverbs nodes, asked in one exchange (one answer each).
        let indexes: Vec<u32> = out.iter().map(|d| d.index.unwrap_or(0)).collect();
        let mut refused = Vec::new();
        sock.uverbs_chardevs(&indexes, |i, r| match r {
            Ok(c) => {
                out[i].uverbs = Some(UverbsDev {
                    path: self.node_path(c.name),
                    name: c.name.to_owned(),
                    major: c.major,
                    minor: c.minor,
                    abi_version: u32::try_from(c.abi).unwrap_or(u32::MAX),
                });
                out[i].driver_id = c.driver_id;
            }
            Err(e) => refused.push((i, e)),
        })?;
        let mut nodes = None;
        for (i, e) in refused {
            // The kernel said no (no ib_uverbs, no uverbs for this device, or a kernel
            // before 5.3 without GET_CHARDEV): look in sysfs.
            if e.errno().is_none() {
                return Err(e);
            }
            let nodes = match &nodes {
                Some(n) => n,
                None => nodes.insert(self.sysfs_uverbs_nodes().unwrap_or_default()),
            };
            out[i].uverbs = nodes
                .iter()
                .find(|(ib, _)| *ib == out[i].name)
                .map(|(_, u)| u.clone());
        }
        // `<root>/class/infiniband`, opened on first use (`None` inside: unreadable).
        let mut class: Option<Option<sysfs::SysDir>> = None;
        for d in &mut out {
            if !self.details && d.driver_id.is_some() {
                continue;
            }
            // Best effort: sysfs may be absent or another namespace's.
            let class =
                class.get_or_insert_with(|| sysfs::open_class(&self.sysfs_root).ok().flatten());
            let Some(c) = class else {
                continue;
            };
            let sys =
                sysfs::read_device(&self.sysfs_root, c, &d.name, false, sysfs::Wanted::DETAILS)
                    .unwrap_or_default();
            if d.fw_ver.is_empty() {
                d.fw_ver = sys.fw_ver.unwrap_or_default();
            }
            d.sys_image_guid = d.sys_image_guid.or(sys.sys_image_guid);
            d.node_desc = sys.node_desc;
            d.hca_type = sys.hca_type;
            d.hw_rev = sys.hw_rev;
            d.board_id = sys.board_id;
            d.kernel_driver = sys.kernel_driver;
            d.parent = sys.parent;
        }
        if !self.index_order {
            // In place (a merge sort of these 360-byte values would take a scratch
            // buffer: an mmap and an munmap in musl's allocator); a few devices.
            sort_small(&mut out, |a, b| a.name > b.name);
        }
        Ok(out)
    }

    /// The devices as sysfs reports them, sorted by name, without netlink. A malformed
    /// `node_type`, `node_guid` or `sys_image_guid` is an [`Error::Protocol`] naming the
    /// file.
    pub fn devices_from_sysfs(&self) -> Result<Vec<DeviceInfo>> {
        let Some(class) = sysfs::open_class(&self.sysfs_root)? else {
            return Ok(Vec::new());
        };
        let names = class.names().map_err(|errno| Error::Os {
            op: Op::new("read sysfs", ""),
            errno,
        })?;
        let nodes = self.sysfs_uverbs_nodes()?;
        let mut out = Vec::with_capacity(names.len());
        for n in names {
            out.push(self.sysfs_device(&class, &n, &nodes)?);
        }
        // In place (a merge sort of these 360-byte values would take a scratch buffer:
        // an mmap and an munmap in musl's allocator); a few devices.
        sort_small(&mut out, |a, b| a.name > b.name);
        Ok(out)
    }

    fn sysfs_device(
        &self,
        class: &sysfs::SysDir,
        name: &str,
        nodes: &[(String, UverbsDev)],
    ) -> Result<DeviceInfo> {
        let s = sysfs::read_device(&self.sysfs_root, class, name, true, sysfs::Wanted::ALL)?;
        let node_type = s.node_type.unwrap_or(NodeType::Unspecified);
        Ok(DeviceInfo {
            name: name.to_owned(),
            index: None,
            node_type,
            transport: node_type.transport(),
            node_guid: s.node_guid.unwrap_or_default(),
            sys_image_guid: s.sys_image_guid,
            fw_ver: s.fw_ver.unwrap_or_default(),
            port_count: s.port_count.unwrap_or(0),
            uverbs: nodes
                .iter()
                .find(|(ib, _)| ib == name)
                .map(|(_, u)| u.clone()),
            driver_id: None,
            source: Source::Sysfs,
            protocol: None,
            cap_flags: None,
            node_desc: s.node_desc,
            hca_type: s.hca_type,
            hw_rev: s.hw_rev,
            board_id: s.board_id,
            kernel_driver: s.kernel_driver,
            parent: s.parent,
        })
    }

    /// `<dev_root>/infiniband/<node>`, built in one allocation (a temporary freed per
    /// device makes musl's allocator map and unmap a page each time).
    fn node_path(&self, node: &str) -> PathBuf {
        let root = self.dev_root.as_os_str();
        let mut p = PathBuf::with_capacity(root.len() + node.len() + 12);
        p.push(root);
        p.push("infiniband");
        p.push(node);
        p
    }

    /// The uverbs nodes sysfs lists, with the RDMA device each belongs to.
    fn sysfs_uverbs_nodes(&self) -> Result<Vec<(String, UverbsDev)>> {
        Ok(sysfs::uverbs_nodes(&self.sysfs_root)?
            .into_iter()
            .map(|n| {
                let dev = UverbsDev {
                    path: self.node_path(&n.name),
                    name: n.name,
                    major: n.major,
                    minor: n.minor,
                    abi_version: n.abi_version,
                };
                (n.ibdev, dev)
            })
            .collect())
    }

    /// The core uverbs ABI version of the kernel (sysfs
    /// `class/infiniband_verbs/abi_version`; 6 since Linux 2.6.x, the only version this
    /// crate speaks, [`IB_USER_VERBS_ABI_VERSION`]). `None` when the file is absent
    /// (`ib_uverbs` not loaded, or no sysfs); netlink does not report it.
    pub fn core_abi_version(&self) -> Result<Option<u32>> {
        sysfs::core_abi_version(&self.sysfs_root)
    }

    /// The sysfs root in use.
    pub fn sysfs_path(&self) -> &Path {
        &self.sysfs_root
    }

    /// The dev root in use.
    pub fn dev_path(&self) -> &Path {
        &self.dev_root
    }
}

fn no_such(name: &str) -> Error {
    Error::NoSuchDevice {
        name: name.to_owned(),
    }
}

/// Which device nodes exist. rdma-core `stat()`s each node (permissions are checked by
/// `open()`); the nodes all live in one directory (`/dev/infiniband`), so it is listed
/// once instead (one `getdents64` for every device), and a node is looked up by name.
/// A node outside the listed directory, or a directory that cannot be listed, is
/// `stat()`ed.
#[derive(Debug, Default)]
pub struct NodeDir {
    /// The directory listed, and its entry names, if it could be listed.
    listed: Option<(std::path::PathBuf, Option<Names>)>,
}

impl NodeDir {
    /// Whether the device node `p` exists.
    pub fn exists(&mut self, p: &Path) -> bool {
        let (Some(dir), Some(name)) = (p.parent(), p.file_name()) else {
            return rustix::fs::stat(p).is_ok();
        };
        // The same bytes (a path spelt otherwise is listed again, which is only slower):
        // `Path`'s own comparison walks the components of both.
        if self.listed.as_ref().map(|(d, _)| d.as_os_str()) != Some(dir.as_os_str()) {
            let names = crate::sysfs::SysDir::open(dir)
                .and_then(|d| {
                    // Room for a few dozen nodes: growing by doubling frees each smaller
                    // buffer on the way. Sizes measured with 32 devices: 512 bytes and
                    // 64 ends left musl's allocator mapping and unmapping a page for
                    // each device in `devinfo --json` afterwards (94 more system calls).
                    let mut n = Names {
                        bytes: Vec::with_capacity(256),
                        ends: Vec::with_capacity(48),
                        last: 0,
                    };
                    d.for_each_raw_name(|e| n.push(e))?;
                    Ok(n)
                })
                .ok();
            self.listed = Some((dir.to_owned(), names));
        }
        match &mut self.listed {
            Some((_, Some(names))) => names.find(std::os::unix::ffi::OsStrExt::as_bytes(name)),
            _ => rustix::fs::stat(p).is_ok(),
        }
    }
}

/// A directory's entry names in the kernel's order, in one buffer.
#[derive(Debug, Default)]
struct Names {
    bytes: Vec<u8>,
    /// Where each name ends in `bytes`.
    ends: Vec<usize>,
    /// The entry found last.
    last: usize,
}

impl Names {
    fn push(&mut self, name: &[u8]) {
        self.bytes.extend_from_slice(name);
        self.ends.push(self.bytes.len());
    }

    fn get(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.bytes[start..self.ends[i]]
    }

    /// Whether `name` is listed, looking outward from the entry found last (itself, the
    /// one after it, the one before it, two after, ...). The nodes are asked for in the
    /// kernel's index order, and a directory lists them in the order they were made or
    /// in its reverse (tmpfs), so each is found in a comparison or three: sorting the
    /// names for a binary search cost some 500 comparisons for 32 devices.
    fn find(&mut self, name: &[u8]) -> bool {
        let n = self.ends.len();
        if n == 0 {
            return false;
        }
        for d in 0..=n / 2 {
            let after = (self.last + d) % n;
            let before = (self.last + n - d) % n;
            for i in [after, before] {
                if self.get(i) == name {
                    self.last = i;
                    return true;
                }
                if after == before {
                    break;
                }
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::Names;

    fn names(list: &[&str]) -> Names {
        let mut n = Names::default();
        for e in list {
            n.push(e.as_bytes());
        }
        n
    }

    #[test]
    fn names_find_every_entry_from_anywhere_and_nothing_else() {
        for len in 0..7 {
            let list: Vec<String> = (0..len).map(|i| format!("uverbs{i}")).collect();
            let refs: Vec<&str> = list.iter().map(String::as_str).collect();
            for start in 0..len.max(1) {
                let mut n = names(&refs);
                n.last = start;
                for (i, e) in list.iter().enumerate() {
                    assert!(n.find(e.as_bytes()), "{e} of {len} from {start}");
                    assert_eq!(n.last, i);
                }
                assert!(!n.find(b"uverbs"), "a prefix, {len} from {start}");
                assert!(!n.find(b"uverbs00"), "longer, {len} from {start}");
                assert!(!n.find(b""), "empty, {len} from {start}");
            }
        }
    }

    #[test]
    fn names_keep_each_entry_whole() {
        let n = names(&["rdma_cm", "", "uverbs1", "uverbs0"]);
        assert_eq!(n.get(0), b"rdma_cm");
        assert_eq!(n.get(1), b"");
        assert_eq!(n.get(2), b"uverbs1");
        assert_eq!(n.get(3), b"uverbs0");
    }
}
