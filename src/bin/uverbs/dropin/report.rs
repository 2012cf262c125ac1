//! What is known about one device: gathered from the kernel in the order rdma-core's
//! `ibv_devinfo` asks, stopping at the first failure as it does, then rendered as text
//! (`text.rs`) or JSON (`json.rs`). The renderers only see this model, so they are
//! tested with fixed values.

use std::path::Path;
use std::sync::OnceLock;

use uverbs::error::Error;
use uverbs::types::GidEntry;
use uverbs::verbs::context::Context;
use uverbs::verbs::device_attr::DeviceAttr;
use uverbs::verbs::discover::DeviceInfo;
use uverbs::verbs::gid::NetdevNames;
use uverbs::verbs::port::PortAttr;

/// Where gathering stopped.
#[derive(Debug)]
pub enum Failure {
    /// The device could not be opened (`ibv_open_device`).
    Open(Error),
    /// QUERY_DEVICE failed.
    QueryDevice(Error),
    /// The requested port is past the device's port count.
    BadPort { port: u8, port_count: u8 },
    /// QUERY_PORT of this port failed.
    QueryPort(u32, Error),
    /// QUERY_GID_ENTRY of this port and index failed.
    QueryGid(u32, u32, Error),
    /// QUERY_GID_TABLE failed (JSON only; the ports are complete, without GIDs).
    QueryGidTable(Error),
}

impl Failure {
    /// `ibv_devinfo`'s return code for this failure (OR-ed over devices, then the exit
    /// status): 1 open, 2 query device, 4 bad port, the errno for a port, -1 for a GID.
    pub fn rc(&self) -> i32 {
        match self {
            Failure::Open(_) => 1,
            Failure::QueryDevice(_) => 2,
            Failure::BadPort { .. } => 4,
            Failure::QueryPort(_, e) => e.errno().map_or(EINVAL, |e| e.raw_os_error()),
            Failure::QueryGid(..) | Failure::QueryGidTable(_) => -1,
        }
    }

    /// Short stage name (JSON `error.stage`).
    pub fn stage(&self) -> &'static str {
        match self {
            Failure::Open(_) => "open",
            Failure::QueryDevice(_) => "query_device",
            Failure::BadPort { .. } => "port",
            Failure::QueryPort(..) => "query_port",
            Failure::QueryGid(..) => "query_gid",
            Failure::QueryGidTable(_) => "query_gid_table",
        }
    }

    /// The library error, when there is one.
    pub fn error(&self) -> Option<&Error> {
        match self {
            Failure::Open(e)
            | Failure::QueryDevice(e)
            | Failure::QueryPort(_, e)
            | Failure::QueryGid(_, _, e)
            | Failure::QueryGidTable(e) => Some(e),
            Failure::BadPort { .. } => None,
        }
    }
}

/// The errno `ibv_query_port` would return when the library error carries none.
const EINVAL: i32 = 22;

/// One GID table entry, with the name of its netdev.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GidView {
    pub entry: GidEntry,
    pub netdev: Option<String>,
}

/// One port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PortReport {
    pub num: u32,
    pub attr: PortAttr,
    /// The valid GIDs (index order) below `gid_tbl_len`, when asked for.
    pub gids: Vec<GidView>,
    /// The P_Key table (sysfs), when asked for and readable.
    pub pkeys: Option<Vec<u16>>,
}

/// Everything about one device.
#[derive(Debug)]
pub struct HcaReport {
    /// The device as discovery reported it.
    pub ident: DeviceInfo,
    /// `board_id` as rdma-core reads it (sysfs; `None`: not printed).
    pub board_id: Option<Vec<u8>>,
    pub attr: Option<DeviceAttr>,
    pub num_comp_vectors: u32,
    /// The driver id the context uses.
    pub driver_id: Option<u32>,
    pub ports: Vec<PortReport>,
    pub failure: Option<Failure>,
}

impl HcaReport {
    /// The return code `ibv_devinfo` gives this device.
    pub fn rc(&self) -> i32 {
        self.failure.as_ref().map_or(0, Failure::rc)
    }
}

/// How to read GIDs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GidMode {
    /// Not at all.
    None,
    /// Index by index, as `ibv_devinfo -v` does (QUERY_GID_ENTRY for each index below
    /// `gid_tbl_len`; an empty slot is skipped, any other error stops).
    PerIndex,
    /// In one QUERY_GID_TABLE call.
    Table,
    /// In one QUERY_GID_TABLE call (the same valid entries `PerIndex` finds, in one
    /// system call instead of one per index); index by index if that call fails, so
    /// that an error is reported as `ibv_devinfo -v` reports it.
    TableOrPerIndex,
}

/// What to gather.
#[derive(Debug, Clone, Copy)]
pub struct Want {
    /// `ibv_devinfo -i`: 0 for every port.
    pub port: u8,
    pub gids: GidMode,
    /// P_Keys and netdev names (JSON).
    pub extras: bool,
}

/// The name of the network device with `ifindex`, through one [`NetdevNames`] kept for
/// the process (one system call per GID).
fn netdev_name(ifindex: u32) -> Option<String> {
    static NAMES: OnceLock<Option<NetdevNames>> = OnceLock::new();
    NAMES
        .get_or_init(|| NetdevNames::new().ok())
        .as_ref()?
        .name(ifindex)
}

/// Opens `info` and gathers what `want` asks, in `ibv_devinfo`'s order.
pub fn gather(info: &DeviceInfo, want: &Want) -> HcaReport {
    let sysfs = Path::new("/sys");
    let mut r = HcaReport {
        ident: info.clone(),
        board_id: None,
        attr: None,
        num_comp_vectors: 0,
        driver_id: None,
        ports: Vec::new(),
        failure: None,
    };
    let ctx = match Context::open(info) {
        Ok(c) => c,
        Err(e) => {
            r.failure = Some(Failure::Open(e));
            return r;
        }
    };
    r.driver_id = Some(ctx.driver_id());
    r.num_comp_vectors = ctx.num_comp_vectors();
    let attr = match ctx.query_device() {
        Ok(a) => a,
        Err(e) => {
            r.failure = Some(Failure::QueryDevice(e));
            return r;
        }
    };
    r.attr = Some(attr);
    if want.port != 0 && want.port > attr.phys_port_cnt {
        r.failure = Some(Failure::BadPort {
            port: want.port,
            port_count: attr.phys_port_cnt,
        });
        return r;
    }
    // The text output prints it; JSON has the device's sysfs details instead.
    if !want.extras {
        r.board_id = uverbs::sysfs::attr::board_id(sysfs, &info.name);
    }
    for port in 1..=u32::from(attr.phys_port_cnt) {
        if want.port != 0 && port != u32::from(want.port) {
            continue;
        }
        let pa = match ctx.query_port(port) {
            Ok(p) => p,
            Err(e) => {
                r.failure = Some(Failure::QueryPort(port, e));
                return r;
            }
        };
        let mut pr = PortReport {
            num: port,
            attr: pa,
            gids: Vec::new(),
            pkeys: None,
        };
        if want.gids == GidMode::PerIndex {
            for i in 0..pa.gid_tbl_len {
                match ctx.query_gid(port, i) {
                    Ok(Some(e)) => pr.gids.push(GidView {
                        entry: e,
                        netdev: None,
                    }),
                    Ok(None) => {}
                    Err(e) => {
                        r.ports.push(pr);
                        r.failure = Some(Failure::QueryGid(port, i, e));
                        return r;
                    }
                }
            }
        }
        if want.extras {
            pr.pkeys = ctx.query_pkeys(port).ok();
        }
        r.ports.push(pr);
    }
    if want.gids == GidMode::Table || want.gids == GidMode::TableOrPerIndex {
        let total: usize = r.ports.iter().map(|p| p.attr.gid_tbl_len as usize).sum();
        // The table call covers every port: size it for all of them.
        let all_ports_total = if want.port == 0 {
            total
        } else {
            (1..=u32::from(attr.phys_port_cnt))
                .map(|p| ctx.query_port(p).map_or(0, |a| a.gid_tbl_len as usize))
                .sum()
        };
        match ctx.query_gid_table(all_ports_total.max(total)) {
            Ok(entries) => {
                for e in entries {
                    if let Some(p) = r.ports.iter_mut().find(|p| p.num == e.port) {
                        if e.index < p.attr.gid_tbl_len {
                            let netdev = if want.extras {
                                netdev_name(e.netdev_ifindex)
                            } else {
                                None
                            };
                            p.gids.push(GidView { entry: e, netdev });
                        }
                    }
                }
                for p in &mut r.ports {
                    uverbs::sysfs::attr::sort_small(&mut p.gids, |a, b| {
                        a.entry.index > b.entry.index
                    });
                }
            }
            Err(e) if want.gids == GidMode::Table => r.failure = Some(Failure::QueryGidTable(e)),
            Err(_) => {
                // As ibv_devinfo -v: index by index; an empty slot is skipped, any other
                // error stops the report after that port.
                for k in 0..r.ports.len() {
                    let (num, len) = (r.ports[k].num, r.ports[k].attr.gid_tbl_len);
                    for i in 0..len {
                        match ctx.query_gid(num, i) {
                            Ok(Some(e)) => r.ports[k].gids.push(GidView {
                                entry: e,
                                netdev: None,
                            }),
                            Ok(None) => {}
                            Err(e) => {
                                r.ports.truncate(k + 1);
                                r.failure = Some(Failure::QueryGid(num, i, e));
                                return r;
                            }
                        }
                    }
                }
            }
        }
    }
    r
}
