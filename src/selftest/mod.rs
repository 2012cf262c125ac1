//! The conformance cases of `uverbs selftest`: what one device's kernel interface must
//! answer, case by case, each with a stable name that a kernel CI compares from run to
//! run and a bisect from commit to commit.
//!
//! A case runs on its own (its context and objects are made and dropped inside it), so
//! that the kernel's health can be checked between cases ([`health`]): the device's
//! resource counts back to where they were, nothing in the kernel log. Each case
//! returns an [`Outcome`]: pass, fail with diagnostics, or skip with the reason; and its
//! facts, the kernel's answers as `key = value` lines, which a baseline records and a
//! later run compares ([`compare_facts`]; what varies from boot to boot is left out by
//! one rule, [`volatile`]).
//!
//! The groups (the first word of a name):
//! - `device.*`: QUERY_DEVICE (extended), its invariants, and what RDMA netlink and
//!   sysfs say of the same device;
//! - `port.N.*`: QUERY_PORT, through ioctl and `write()` alike, against sysfs and RDMA
//!   netlink; the GID table (QUERY_GID_TABLE against sysfs) and the P_Keys;
//! - `probe.*`: every object's lifecycle through each interface, and the error paths
//!   ([`probe`]);
//! - `port.N.events`: the port's asynchronous events when its network interface goes
//!   down and up, only on an interface the self-test made itself ([`Env`]);
//! - `data.rc.*`: payloads moved by SEND, immediate data, RDMA WRITE and READ and
//!   inline sends between two connected RC QPs of the device, compared byte for byte,
//!   with every completion field (`data`; rxe, through its loopback);
//! - `wire.rc.*`: errors on the wire between two such QPs: remote access, local
//!   protection, RNR and length errors, with the exact completion status, the flush of
//!   what was posted behind, the QPs' states and async events (`wire`).
//! - `objects.*`, `events.*`: the QP state table, CQ resize, the SRQ limit, completion
//!   channels and QP and CQ async events (`objects`).
//! - `raw.*`: the kernel's rules for malformed requests: undefined attributes, methods
//!   and objects, a wrong driver id, unknown `comp_mask` bits, trailing request bytes,
//!   short and long response buffers (`raw`).
//! - `limits.*`: sizes at the edges of the device's limits, zero, the limit and one past
//!   it: a CQ's entries, a QP's requests, SGEs and inline bytes, an SRQ's requests and
//!   SGEs, created and resized, each with the answer the driver's source gives (`limits`).
//! - `args.*`: the methods' arguments, one kernel rule a case: ports, GID and P_Key
//!   indexes, MR access rights, AH fields, completion vectors, QP attributes read back,
//!   SRQ resize, destroy order, RDMA netlink's SYS_GET (`verbs_args`).
//! - `cm.*`: the RDMA CM (`/dev/infiniband/rdma_cm`): binding, address and route
//!   resolution and their errors, events read synchronously and asynchronously, a
//!   refused connection, private data, traffic and DISCONNECT over a CM connection
//!   (`cm_cases`).
//! - `traffic.*`: UD (through an AH, the GRH) and UC traffic, RC through an SRQ,
//!   zero-length and MTU-edge requests, and atomics' errors (`traffic`).

mod cm_cases;
mod cm_pair;
mod data;
pub mod health;
mod limits;
pub mod modules;
mod objects;
mod raw;
pub mod testbed;
mod traffic;
mod verbs_args;
mod wire;

use core::fmt::Debug;

use crate::error::Error;
use crate::netlink::{link, route};
use crate::raw::fallback::CallPath;
use crate::sysfs::attr::{read_attr, Attr};
use crate::types::{EventType, GidType, LinkLayer, Mtu, PhysState, PortState, TransportType};
use crate::verbs::context::Context;
use crate::verbs::discover::DeviceInfo;
use crate::verbs::port::PortAttr;
use crate::verbs::probe::{self, Check, Expect};

/// How a case ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// Every check held.
    Pass,
    /// A check did not hold (the diagnostics say which).
    Fail,
    /// The case cannot run on this device or kernel, for this reason.
    Skip(String),
    /// A check failed the way a known kernel behaviour makes it fail (the reason names
    /// it); every other check held. KTAP's `XFAIL`.
    XFail(String),
}

/// A case's result: its status, diagnostic lines, and the kernel's answers as facts.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Outcome {
    /// How it ended.
    pub status: Option<Status>,
    /// What a reader needs to see why (one line each, no newline).
    pub diag: Vec<String>,
    /// The kernel's answers, `key = value`, in a stable order.
    pub facts: Vec<(String, String)>,
}

impl Outcome {
    fn new() -> Outcome {
        Outcome::default()
    }

    /// Records a check: on failure the case fails and `why` is a diagnostic.
    fn check(&mut self, ok: bool, why: impl FnOnce() -> String) {
        if !ok {
            self.diag.push(why());
            self.status = Some(Status::Fail);
        }
    }

    /// Fails the case with `why`.
    fn fail(&mut self, why: impl Into<String>) {
        self.diag.push(why.into());
        self.status = Some(Status::Fail);
    }

    /// Marks the case failed (a check outside this module found a problem).
    pub fn set_failed(&mut self) {
        self.status = Some(Status::Fail);
    }

    /// Records a check that fails on a known kernel behaviour: when `ok` is false and
    /// `known` holds, the case is an expected failure (unless another check fails).
    fn check_known(&mut self, ok: bool, known: bool, why: impl FnOnce() -> String, reason: &str) {
        if ok {
            return;
        }
        if known {
            self.diag.push(format!("{} (known: {reason})", why()));
            if self.status.is_none() {
                self.status = Some(Status::XFail(reason.to_owned()));
            }
        } else {
            self.fail(why());
        }
    }

    fn fact(&mut self, key: impl Into<String>, value: impl ToString) {
        self.facts.push((key.into(), value.to_string()));
    }

    /// The final status: `Pass` unless something failed or the case was skipped.
    pub fn status(&self) -> Status {
        self.status.clone().unwrap_or(Status::Pass)
    }

    fn skip(why: impl Into<String>) -> Outcome {
        Outcome {
            status: Some(Status::Skip(why.into())),
            ..Outcome::default()
        }
    }
}

/// One case of one device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    /// The stable name (`device.query`, `port.1.gid_table`, `probe.lifecycle.ioctl`).
    pub name: String,
    /// The kernel methods it exercises, for the reader.
    pub methods: &'static str,
    kind: Kind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    DeviceQuery,
    DeviceNetlink,
    DeviceSysfs,
    PortQuery(u32),
    PortPaths(u32),
    PortSysfs(u32),
    PortNetlink(u32),
    PortGids(u32),
    PortPkeys(u32),
    PortEvents(u32),
    Lifecycle(CallPath),
    ErrorPaths,
    Data(&'static str),
    Wire(&'static str),
    Objects(&'static str),
    Raw(&'static str),
    Limits(&'static str),
    Args(&'static str),
    Cm(&'static str),
    Traffic(&'static str),
}

/// What the cases may do beyond reading: set by the caller that made the device.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Env {
    /// The network interfaces the caller made for this self-test (the dummies under the
    /// devices' links), which `port.N.events` may set down and up. Never a user's.
    pub own_netdevs: Vec<String>,
}

/// The cases of every port, after `port.N.`: name, what they compare, and the kind.
type PortCase = (&'static str, &'static str, fn(u32) -> Kind);
const PORT_CASES: [PortCase; 7] = [
    ("query", "QUERY_PORT", Kind::PortQuery),
    (
        "query_paths",
        "QUERY_PORT by ioctl and by write()",
        Kind::PortPaths,
    ),
    ("sysfs", "QUERY_PORT against sysfs", Kind::PortSysfs),
    (
        "netlink",
        "QUERY_PORT against nldev PORT_GET",
        Kind::PortNetlink,
    ),
    (
        "gid_table",
        "QUERY_GID_TABLE, QUERY_GID_ENTRY against sysfs",
        Kind::PortGids,
    ),
    ("pkeys", "the P_Key table (sysfs)", Kind::PortPkeys),
    (
        "events",
        "ASYNC_EVENT_ALLOC: PORT_ERR and PORT_ACTIVE as the netdev goes down and up",
        Kind::PortEvents,
    ),
];

/// The cases of `info`, in the order they run.
pub fn cases(info: &DeviceInfo) -> Vec<Case> {
    let c = |name: String, methods, kind| Case {
        name,
        methods,
        kind,
    };
    let mut v = vec![
        c(
            "device.query".into(),
            "GET_CONTEXT, QUERY_DEVICE (INVOKE_WRITE ex)",
            Kind::DeviceQuery,
        ),
        c(
            "device.netlink".into(),
            "QUERY_DEVICE against nldev GET",
            Kind::DeviceNetlink,
        ),
        c(
            "device.sysfs".into(),
            "QUERY_DEVICE against sysfs",
            Kind::DeviceSysfs,
        ),
    ];
    for p in 1..=info.port_count {
        for (name, what, kind) in PORT_CASES {
            v.push(c(format!("port.{p}.{name}"), what, kind(p)));
        }
    }
    for (path, name) in [
        (CallPath::Auto, "auto"),
        (CallPath::Ioctl, "ioctl"),
        (CallPath::Write, "write"),
    ] {
        v.push(c(
            format!("probe.lifecycle.{name}"),
            "ALLOC_PD ... DESTROY_QP: every object's life",
            Kind::Lifecycle(path),
        ));
    }
    v.push(c(
        "probe.error_paths".into(),
        "invalid transitions, masks, limits, stale handles",
        Kind::ErrorPaths,
    ));
    for (name, what) in data::CASES {
        v.push(c(format!("data.rc.{name}"), what, Kind::Data(name)));
    }
    for (name, what) in wire::CASES {
        v.push(c(format!("wire.rc.{name}"), what, Kind::Wire(name)));
    }
    for (name, what) in objects::CASES {
        v.push(c(name.into(), what, Kind::Objects(name)));
    }
    for (name, what) in raw::CASES {
        v.push(c(name.into(), what, Kind::Raw(name)));
    }
    for (name, what) in limits::cases() {
        v.push(c(name.into(), what, Kind::Limits(name)));
    }
    for (name, what) in verbs_args::CASES {
        v.push(c(name.into(), what, Kind::Args(name)));
    }
    for (name, what) in cm_cases::CASES {
        v.push(c(name.into(), what, Kind::Cm(name)));
    }
    for (name, what) in traffic::CASES {
        v.push(c(name.into(), what, Kind::Traffic(name)));
    }
    v
}

impl Case {
    /// Runs the case on `info`, with nothing of the caller's to change.
    pub fn run(&self, info: &DeviceInfo) -> Outcome {
        self.run_in(info, &Env::default())
    }

    /// Runs the case on `info` in `env`.
    pub fn run_in(&self, info: &DeviceInfo, env: &Env) -> Outcome {
        match self.kind {
            Kind::PortEvents(p) => port_events(info, p, env),
            Kind::Lifecycle(path) => probe_case(probe::lifecycle_via(info, path)),
            Kind::ErrorPaths => probe_case(probe::error_paths_of(info)),
            Kind::Data(name) => data::run(info, name),
            Kind::Wire(name) => wire::run(info, name),
            Kind::Objects(name) => objects::run(info, name),
            Kind::Raw(name) => raw::run(info, name),
            Kind::Limits(name) => limits::run(info, name),
            Kind::Args(name) => verbs_args::run(info, name),
            Kind::Cm(name) => cm_cases::run(info, name),
            Kind::Traffic(name) => traffic::run(info, name),
            _ => match Context::open(info) {
                Ok(ctx) => self.run_on(info, &ctx),
                Err(e) => {
                    let mut o = Outcome::new();
                    o.fail(format!("open: {e}"));
                    o
                }
            },
        }
    }

    fn run_on(&self, info: &DeviceInfo, ctx: &Context) -> Outcome {
        match self.kind {
            Kind::DeviceQuery => device_query(info, ctx),
            Kind::DeviceNetlink => device_netlink(info, ctx),
            Kind::DeviceSysfs => device_sysfs(info, ctx),
            Kind::PortQuery(p) => port_query(info, ctx, p),
            Kind::PortPaths(p) => port_paths(ctx, p),
            Kind::PortSysfs(p) => port_sysfs(info, ctx, p),
            Kind::PortNetlink(p) => port_netlink(info, ctx, p),
            Kind::PortGids(p) => port_gids(info, ctx, p),
            Kind::PortPkeys(p) => port_pkeys(info, ctx, p),
            Kind::Lifecycle(_)
            | Kind::ErrorPaths
            | Kind::PortEvents(_)
            | Kind::Data(_)
            | Kind::Wire(_)
            | Kind::Objects(_)
            | Kind::Raw(_)
            | Kind::Limits(_)
            | Kind::Args(_)
            | Kind::Cm(_)
            | Kind::Traffic(_) => {
                unreachable!("run without a context")
            }
        }
    }
}

/// The fields of a value's `{:#?}` as facts under `prefix` (nested structs joined with
/// dots): every field of the kernel's answer, without a hand-kept list that could miss
/// one.
pub fn debug_facts(prefix: &str, v: &impl Debug) -> Vec<(String, String)> {
    let text = format!("{v:#?}");
    let mut out = Vec::new();
    let mut path: Vec<String> = Vec::new();
    for line in text.lines().skip(1) {
        let t = line.trim();
        if t == "}," || t == "}" || t == ")," || t == "]," {
            path.pop();
            continue;
        }
        let Some((k, v)) = t.split_once(": ") else {
            continue;
        };
        let v = v.trim_end_matches(',');
        if v.ends_with('{') || v.ends_with('(') || v.ends_with('[') {
            path.push(k.to_owned());
            continue;
        }
        let mut key = String::from(prefix);
        for p in &path {
            key.push('.');
            key.push_str(p);
        }
        key.push('.');
        key.push_str(k);
        out.push((key, v.to_owned()));
    }
    out
}

/// What varies from boot to boot or from moment to moment, and so is neither recorded in
/// a baseline nor compared with one: GUIDs and GIDs (rxe and siw derive them from their
/// netdev's address, which a dummy netdev draws at random), interface indexes, the
/// P_Key and Q_Key violation counters, handles, and QP numbers (the kernel gives each new
/// QP the next one: `dest_qp_num` read back differs from run to run).
pub fn volatile(key: &str) -> bool {
    let last = key.rsplit('.').next().unwrap_or(key);
    last.ends_with("guid")
        || last.ends_with("qp_num")
        || last.ends_with("_cntr")
        || last.contains("ifindex")
        || last == "gid"
        || last == "handle"
        || key.contains(".gid.")
}

/// Compares a case's facts with those of a baseline: one line per difference,
/// `key: baseline OLD, now NEW` (or `missing now` / `new`). The [`volatile`] keys are
/// left out.
pub fn compare_facts(baseline: &[(String, String)], now: &[(String, String)]) -> Vec<String> {
    let mut out = Vec::new();
    for (k, old) in baseline.iter().filter(|(k, _)| !volatile(k)) {
        match now.iter().find(|(n, _)| n == k) {
            Some((_, new)) if new == old => {}
            Some((_, new)) => out.push(format!("{k}: baseline {old}, now {new}")),
            None => out.push(format!("{k}: baseline {old}, missing now")),
        }
    }
    for (k, new) in now.iter().filter(|(k, _)| !volatile(k)) {
        if !baseline.iter().any(|(b, _)| b == k) {
            out.push(format!("{k}: not in the baseline, now {new}"));
        }
    }
    out
}

/// QUERY_DEVICE for a case: the attributes, or the case's outcome, failed on the error.
fn query_device(ctx: &Context) -> Result<crate::verbs::device_attr::DeviceAttr, Outcome> {
    ctx.query_device().map_err(|e| {
        let mut o = Outcome::new();
        o.fail(format!("QUERY_DEVICE: {e}"));
        o
    })
}

fn device_query(info: &DeviceInfo, ctx: &Context) -> Outcome {
    let a = match query_device(ctx) {
        Ok(a) => a,
        Err(failed) => return failed,
    };
    let mut o = Outcome::new();
    o.facts = debug_facts("device", &a);
    o.fact("context.num_comp_vectors", ctx.num_comp_vectors());
    o.fact("context.core_support", format!("{:?}", ctx.core_support()));
    for (name, v) in [
        ("max_qp", u64::from(a.max_qp)),
        ("max_qp_wr", u64::from(a.max_qp_wr)),
        ("max_sge", u64::from(a.max_sge)),
        ("max_cq", u64::from(a.max_cq)),
        ("max_cqe", u64::from(a.max_cqe)),
        ("max_mr", u64::from(a.max_mr)),
        ("max_pd", u64::from(a.max_pd)),
        ("max_mr_size", a.max_mr_size),
    ] {
        o.check(v > 0, || {
            format!("{name} is 0: a device that can make none")
        });
    }
    o.check(u32::from(a.phys_port_cnt) == info.port_count, || {
        format!(
            "phys_port_cnt {} but the device has {} port(s) (netlink)",
            a.phys_port_cnt, info.port_count
        )
    });
    let page = rustix::param::page_size() as u64;
    o.check(a.page_size_cap & page != 0, || {
        format!(
            "page_size_cap {:#x} lacks the system's page size {page:#x}",
            a.page_size_cap
        )
    });
    o.check(a.sys_image_guid.0 != 0, || {
        "sys_image_guid is 0 (rxe's regression after 2ac5415022d1)".into()
    });
    o.check(
        !matches!(a.atomic_cap, crate::types::AtomicCap::Unknown(_)),
        || format!("atomic_cap {:?} is no IBV_ATOMIC_* value", a.atomic_cap),
    );
    o
}

fn device_netlink(info: &DeviceInfo, ctx: &Context) -> Outcome {
    let a = match query_device(ctx) {
        Ok(a) => a,
        Err(failed) => return failed,
    };
    let mut o = Outcome::new();
    if info.index.is_none() {
        return Outcome::skip("RDMA netlink does not report this device (read from sysfs)");
    }
    o.check(a.node_guid == info.node_guid, || {
        format!(
            "node_guid: QUERY_DEVICE {}, netlink {}",
            a.node_guid, info.node_guid
        )
    });
    if let Some(sys) = info.sys_image_guid {
        o.check(a.sys_image_guid == sys, || {
            format!(
                "sys_image_guid: QUERY_DEVICE {}, netlink {sys}",
                a.sys_image_guid
            )
        });
    }
    o.fact("netlink.node_type", format!("{:?}", info.node_type));
    o.fact("netlink.protocol", info.protocol.as_deref().unwrap_or("-"));
    o.fact("netlink.port_count", info.port_count);
    o.fact("netlink.fw_ver", &info.fw_ver);
    o
}

/// A sysfs attribute's text, trimmed; `Err` says what failed.
fn sysfs_text(info: &DeviceInfo, ctx: &Context, rel: &str) -> Result<String, String> {
    let path = ctx
        .sysfs_root()
        .join("class/infiniband")
        .join(&info.name)
        .join(rel);
    match read_attr(path.as_os_str().as_encoded_bytes()) {
        Attr::Text(t) => Ok(String::from_utf8_lossy(&t).trim().to_owned()),
        other => Err(format!(
            "{}: {}",
            path.display(),
            other.errno().map_or("?".into(), |e| e.to_string())
        )),
    }
}

fn device_sysfs(info: &DeviceInfo, ctx: &Context) -> Outcome {
    let a = match query_device(ctx) {
        Ok(a) => a,
        Err(failed) => return failed,
    };
    let mut o = Outcome::new();
    for (file, ours) in [
        ("node_guid", a.node_guid.to_string()),
        ("sys_image_guid", a.sys_image_guid.to_string()),
    ] {
        match sysfs_text(info, ctx, file) {
            Ok(t) => o.check(t == ours, || {
                format!("{file}: QUERY_DEVICE {ours}, sysfs {t}")
            }),
            Err(e) => o.fail(e),
        }
    }
    match sysfs_text(info, ctx, "node_type") {
        Ok(t) => {
            let n = t
                .split(':')
                .next()
                .and_then(|n| n.trim().parse::<u32>().ok());
            o.check(n == Some(info.node_type.as_raw()), || {
                format!("node_type: sysfs {t:?}, discovery {:?}", info.node_type)
            });
            o.fact("sysfs.node_type", t);
        }
        Err(e) => o.fail(e),
    }
    o
}

fn query(ctx: &Context, port: u32, o: &mut Outcome) -> Option<PortAttr> {
    match ctx.query_port(port) {
        Ok(p) => Some(p),
        Err(e) => {
            o.fail(format!("QUERY_PORT {port}: {e}"));
            None
        }
    }
}

fn port_query(info: &DeviceInfo, ctx: &Context, port: u32) -> Outcome {
    let mut o = Outcome::new();
    let Some(p) = query(ctx, port, &mut o) else {
        return o;
    };
    o.facts = debug_facts(&format!("port.{port}"), &p);
    o.check(!matches!(p.state, PortState::Unknown(_)), || {
        format!("state {:?} is no IBV_PORT_* value", p.state)
    });
    // siw (Linux 6.12: siw_query_port) derives max_mtu from its netdev's max_mtu, which
    // is 0 ("no limit") on a dummy netdev such as the rig's: IB_MTU_256, below the
    // active MTU derived from the netdev's MTU.
    o.check_known(
        p.active_mtu.bytes() <= p.max_mtu.bytes(),
        info.driver_id == Some(crate::raw::abi::RDMA_DRIVER_SIW) && p.max_mtu == Mtu::Mtu256,
        || {
            format!(
                "active_mtu {:?} above max_mtu {:?}",
                p.active_mtu, p.max_mtu
            )
        },
        "siw's max_mtu from a netdev whose max_mtu is 0 (no limit)",
    );
    o.check(p.gid_tbl_len >= 1, || "gid_tbl_len is 0".into());
    // iWARP has no partitions: siw reports no P_Key table.
    if info.transport != TransportType::Iwarp {
        o.check(p.pkey_tbl_len >= 1, || "pkey_tbl_len is 0".into());
    }
    o.check(!matches!(p.link_layer, LinkLayer::Unknown(_)), || {
        format!("link_layer {:?} is no IBV_LINK_LAYER_* value", p.link_layer)
    });
    if p.state == PortState::Active {
        o.check(p.phys_state == PhysState::LinkUp, || {
            format!("ACTIVE with physical state {:?}", p.phys_state)
        });
    }
    o
}

fn port_paths(ctx: &Context, port: u32) -> Outcome {
    let mut o = Outcome::new();
    let ioctl = ctx.query_port_via(port, CallPath::Ioctl);
    let write = ctx.query_port_via(port, CallPath::Write);
    let (ioctl, write) = match (ioctl, write) {
        (Ok(i), Ok(w)) => (i, w),
        (i, w) => {
            for (what, r) in [("ioctl", i.err()), ("write()", w.err())] {
                if let Some(e) = r {
                    o.fail(format!("QUERY_PORT by {what}: {e}"));
                }
            }
            return o;
        }
    };
    // The legacy write() answer has no extended fields; the counters move between two
    // reads.
    let norm = |mut p: PortAttr, legacy: bool| {
        p.bad_pkey_cntr = 0;
        p.qkey_viol_cntr = 0;
        p.effective_speed = None;
        if legacy {
            p.port_cap_flags2 = Default::default();
            p.active_speed_ex = 0;
        }
        p
    };
    let (i, w) = (norm(ioctl, true), norm(write, true));
    o.check(i == w, || {
        format!("QUERY_PORT by ioctl and by write() differ: {i:?} / {w:?}")
    });
    o
}

fn port_sysfs(info: &DeviceInfo, ctx: &Context, port: u32) -> Outcome {
    let mut o = Outcome::new();
    let Some(p) = query(ctx, port, &mut o) else {
        return o;
    };
    let num = |t: &str| -> Option<u64> {
        let w = t.split(':').next()?.trim();
        match w.strip_prefix("0x") {
            Some(h) => u64::from_str_radix(h, 16).ok(),
            None => w.parse().ok(),
        }
    };
    for (file, ours) in [
        ("state", u64::from(p.state.as_raw())),
        ("phys_state", u64::from(p.phys_state.as_raw())),
        ("lid", u64::from(p.lid)),
        ("sm_lid", u64::from(p.sm_lid)),
        ("lid_mask_count", u64::from(p.lmc)),
    ] {
        match sysfs_text(info, ctx, &format!("ports/{port}/{file}")) {
            Ok(t) => o.check(num(&t) == Some(ours), || {
                format!("{file}: QUERY_PORT {ours}, sysfs {t:?}")
            }),
            Err(e) => o.fail(e),
        }
    }
    match sysfs_text(info, ctx, &format!("ports/{port}/link_layer")) {
        Ok(t) => {
            let want = match p.link_layer {
                LinkLayer::Ethernet => "Ethernet",
                _ => "InfiniBand",
            };
            o.check(t == want, || {
                format!("link_layer: QUERY_PORT {:?}, sysfs {t:?}", p.link_layer)
            });
        }
        Err(e) => o.fail(e),
    }
    o
}

fn port_netlink(info: &DeviceInfo, ctx: &Context, port: u32) -> Outcome {
    let mut o = Outcome::new();
    let Some(p) = query(ctx, port, &mut o) else {
        return o;
    };
    let links = match link::show() {
        Ok(l) => l,
        Err(e) => return Outcome::skip(format!("RDMA netlink PORT_GET: {e}")),
    };
    let Some(l) = links
        .iter()
        .find(|l| l.device == info.name && l.port == port)
    else {
        o.fail(format!(
            "netlink PORT_GET lists no port {port} of {}",
            info.name
        ));
        return o;
    };
    o.check(l.state == p.state, || {
        format!("state: QUERY_PORT {:?}, netlink {:?}", p.state, l.state)
    });
    o.check(l.phys_state == p.phys_state, || {
        format!(
            "phys_state: QUERY_PORT {:?}, netlink {:?}",
            p.phys_state, l.phys_state
        )
    });
    o.fact("netlink.netdev", l.netdev.is_some());
    o
}

fn port_gids(info: &DeviceInfo, ctx: &Context, port: u32) -> Outcome {
    let mut o = Outcome::new();
    let Some(p) = query(ctx, port, &mut o) else {
        return o;
    };
    let table = match ctx.query_gid_table(p.gid_tbl_len as usize * info.port_count as usize) {
        Ok(t) => t,
        Err(e) => {
            o.fail(format!("QUERY_GID_TABLE: {e}"));
            return o;
        }
    };
    let mut ours: Vec<_> = table.into_iter().filter(|g| g.port == port).collect();
    ours.sort_by_key(|g| g.index);
    let mut sys = match crate::sysfs::gids(ctx.sysfs_root(), &info.name, port) {
        Ok(s) => s,
        Err(e) => {
            o.fail(format!("sysfs GIDs: {e}"));
            return o;
        }
    };
    sys.sort_by_key(|g| g.index);
    o.check(!ours.is_empty(), || format!("port {port}: no valid GID"));
    // sysfs names types 0 of the kernel (IB and RoCE v1 share it) "IB/RoCE v1", which
    // reads as RoCE v1; QUERY_GID_TABLE says which (siw's iWARP GID: IB).
    let same_type = |a: GidType, b: GidType| a == b || (a == GidType::Ib && b == GidType::RoceV1);
    let same = ours.len() == sys.len()
        && ours.iter().zip(&sys).all(|(a, b)| {
            a.index == b.index && a.gid == b.gid && same_type(a.gid_type, b.gid_type)
        });
    o.check(same, || {
        let show = |v: &[crate::types::GidEntry]| {
            v.iter()
                .map(|g| format!("{} {} {:?}", g.index, g.gid, g.gid_type))
                .collect::<Vec<_>>()
                .join(", ")
        };
        format!("QUERY_GID_TABLE [{}], sysfs [{}]", show(&ours), show(&sys))
    });
    for g in &ours {
        match ctx.query_gid(port, g.index) {
            Ok(Some(e)) => o.check(e == *g, || {
                format!("QUERY_GID_ENTRY {}: {e:?}, table {g:?}", g.index)
            }),
            Ok(None) => o.fail(format!("QUERY_GID_ENTRY {}: no entry", g.index)),
            Err(e) => o.fail(format!("QUERY_GID_ENTRY {}: {e}", g.index)),
        }
        o.fact(format!("gid.{}.type", g.index), format!("{:?}", g.gid_type));
        o.fact(format!("gid.{}.netdev", g.index), g.netdev_ifindex != 0);
    }
    o.fact("gid.count", ours.len());
    o
}

/// How long a port event may take after its netdev's change (rxe and siw raise it from
/// the netdev notifier, at once; the bound is for a loaded TCG guest).
const EVENT_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// `port.N.events`: the port's netdev (the self-test's own) set down raises PORT_ERR and
/// leaves the port DOWN; set up again, PORT_ACTIVE and the port ACTIVE. The netdev is up
/// again when the case ends, whatever happened.
fn port_events(info: &DeviceInfo, port: u32, env: &Env) -> Outcome {
    if env.own_netdevs.is_empty() {
        return Outcome::skip(
            "needs a network interface the self-test made (--create without --netdev), to set down and up",
        );
    }
    let mut o = Outcome::new();
    let netdev = match link::show() {
        Ok(links) => links
            .into_iter()
            .find(|l| l.device == info.name && l.port == port)
            .and_then(|l| l.netdev),
        Err(e) => {
            o.fail(format!("nldev PORT_GET: {e}"));
            return o;
        }
    };
    let Some(own) = netdev
        .as_deref()
        .filter(|n| env.own_netdevs.iter().any(|o| o == n))
    else {
        return Outcome::skip(format!(
            "the port's netdev is {}, not one of the self-test's own ({})",
            netdev.as_deref().unwrap_or("none"),
            env.own_netdevs.join(", ")
        ));
    };
    let ctx = match Context::open(info) {
        Ok(c) => c,
        Err(e) => {
            o.fail(format!("open: {e}"));
            return o;
        }
    };
    let mut events = match ctx.events() {
        Ok(e) => e,
        Err(e) => {
            o.fail(format!("ASYNC_EVENT_ALLOC: {e}"));
            return o;
        }
    };
    // Sets the netdev up again however the case ends.
    struct Up<'a>(&'a str);
    impl Drop for Up<'_> {
        fn drop(&mut self) {
            let _ = route::set_up(self.0, true);
        }
    }
    let _up = Up(own);
    for (up, want, state) in [
        (false, EventType::PortErr, PortState::Down),
        (true, EventType::PortActive, PortState::Active),
    ] {
        let step = if up { "up" } else { "down" };
        if let Err(e) = route::set_up(own, up) {
            o.fail(format!("setting {own} {step}: {e}"));
            return o;
        }
        match wait_port_event(&mut events, port, want) {
            Ok(seen) => {
                o.fact(format!("{step}.event"), format!("{want:?}"));
                if !seen.is_empty() {
                    o.diag
                        .push(format!("{step}: other events first: {}", seen.join(", ")));
                }
            }
            Err(e) => {
                o.fail(format!("{own} {step}: {e}"));
                return o;
            }
        }
        match ctx.query_port(port) {
            Ok(p) => {
                o.fact(format!("{step}.state"), format!("{:?}", p.state));
                o.check(p.state == state, || {
                    format!(
                        "{own} {step}: QUERY_PORT state {:?} after {want:?}, expected {state:?}",
                        p.state
                    )
                });
            }
            Err(e) => o.fail(format!("QUERY_PORT after {own} {step}: {e}")),
        }
    }
    o
}

/// Reads events until `want` on `port`; returns the others seen first (as text), or
/// what went wrong: none within [`EVENT_WAIT`], the stream ended.
fn wait_port_event(
    events: &mut crate::verbs::event::EventStream,
    port: u32,
    want: EventType,
) -> Result<Vec<String>, String> {
    use crate::verbs::event::Next;
    let deadline = std::time::Instant::now() + EVENT_WAIT;
    let mut others = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            return Err(format!(
                "no {want:?} on port {port} within {} s (seen: {})",
                EVENT_WAIT.as_secs(),
                if others.is_empty() {
                    "nothing".to_owned()
                } else {
                    others.join(", ")
                }
            ));
        }
        match events.read_timeout(left) {
            Ok(Next::Event(e)) if e.kind == want && e.port() == Some(port) => return Ok(others),
            Ok(Next::Event(e)) => others.push(format!("{:?} on {:?}", e.kind, e.scope())),
            Ok(Next::Empty) => {}
            Ok(Next::End) => return Err("the event file ended".into()),
            Err(e) => return Err(format!("reading events: {e}")),
        }
    }
}

fn port_pkeys(info: &DeviceInfo, ctx: &Context, port: u32) -> Outcome {
    if info.transport == TransportType::Iwarp {
        return Outcome::skip("iWARP has no P_Keys");
    }
    let mut o = Outcome::new();
    match ctx.query_pkeys(port) {
        Ok(k) => {
            o.check(!k.is_empty(), || "the P_Key table is empty".into());
            o.check(k.first().is_some_and(|k| k & 0x7fff != 0), || {
                format!(
                    "P_Key 0 is {:#06x}: not a valid key",
                    k.first().unwrap_or(&0)
                )
            });
            for (i, v) in k.iter().enumerate() {
                o.fact(format!("pkey.{i}"), format!("{v:#06x}"));
            }
        }
        Err(e) => o.fail(format!("the P_Key table: {e}")),
    }
    o
}

/// A part of the probe as one case: it fails when one answer is not the expected one;
/// each answer is a fact.
fn probe_case(r: crate::error::Result<probe::Probe>) -> Outcome {
    let p = match r {
        Ok(p) => p,
        Err(Error::DriverNotSupported { .. }) => {
            return Outcome::skip("the objects need a driver uverbs has udata for (rxe, siw)")
        }
        Err(e) => {
            let mut o = Outcome::new();
            o.fail(format!("open: {e}"));
            return o;
        }
    };
    let mut o = Outcome::new();
    let answer = |c: &Check| match &c.got {
        Ok(()) => "ok".to_owned(),
        Err(Some(e)) => format!("errno {}", e.raw_os_error()),
        Err(None) => "failed without an errno".to_owned(),
    };
    for (i, c) in p.checks.iter().enumerate() {
        o.fact(format!("check.{i}.{} {}", c.method, c.what), answer(c));
        if !c.passed() {
            let want = match c.expected {
                Expect::Ok => "ok".to_owned(),
                Expect::Errno(e) => format!("errno {}", e.raw_os_error()),
            };
            o.fail(format!(
                "{} ({}): expected {want}, got {}",
                c.method,
                c.what,
                answer(c)
            ));
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    #[allow(dead_code)] // read through Debug
    struct Inner {
        a: u32,
        b: &'static str,
    }
    #[derive(Debug)]
    #[allow(dead_code)] // read through Debug
    struct Outer {
        x: u8,
        inner: Inner,
        y: bool,
    }

    #[test]
    fn debug_fields_become_facts() {
        let f = debug_facts(
            "t",
            &Outer {
                x: 1,
                inner: Inner { a: 2, b: "s" },
                y: true,
            },
        );
        let want: Vec<(String, String)> = [
            ("t.x", "1"),
            ("t.inner.a", "2"),
            ("t.inner.b", "\"s\""),
            ("t.y", "true"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        assert_eq!(f, want);
    }

    #[test]
    fn volatile_keys_are_left_out_of_comparisons() {
        let kv = |v: &[(&str, &str)]| -> Vec<(String, String)> {
            v.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let old = kv(&[
            ("device.node_guid", "a"),
            ("device.max_qp", "10"),
            ("port.1.bad_pkey_cntr", "0"),
            ("device.max_cq", "5"),
        ]);
        let new = kv(&[
            ("device.node_guid", "b"),
            ("device.max_qp", "11"),
            ("port.1.bad_pkey_cntr", "3"),
            ("device.max_srq", "1"),
        ]);
        assert_eq!(
            compare_facts(&old, &new),
            [
                "device.max_qp: baseline 10, now 11",
                "device.max_cq: baseline 5, missing now",
                "device.max_srq: not in the baseline, now 1",
            ]
        );
        assert!(volatile("port.1.gid.3.gid"));
        assert!(volatile("device.sys_image_guid"));
        assert!(!volatile("device.max_qp"));
        assert!(volatile("dest_qp_num"));
    }
}
