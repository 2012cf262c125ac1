//! An ABI regression probe of the object methods: on one device, every object's whole
//! lifecycle through each kernel interface, then the error paths, each compared with
//! what the kernel is expected to answer. `uverbs probe` prints it.
//!
//! The expectations are the answers of the kernels this crate is tested on (Linux 6.1
//! and 6.12, rxe and siw; see `tests/objects.rs`): a kernel that answers otherwise
//! fails the probe, which is what it is for. Some error paths cannot be reached through
//! the safe object API by design (a PD destroyed under its QP, a stale handle, memory
//! that is not mapped); the probe reaches them through crate-private raw calls that
//! send the same requests.
//!
//! The probe leaves nothing behind: every object it makes is destroyed before it
//! returns, and its contexts are closed.

use std::sync::Arc;

use rustix::io::Errno;

use crate::error::{Error, Result};
use crate::raw::abi::{RDMA_DRIVER_RXE, RDMA_DRIVER_SIW};
use crate::raw::fallback::CallPath;
use crate::types::{AccessFlags, GidType, Mtu, QpState, QpType};
use crate::verbs::context::{Context, OpenOptions};
use crate::verbs::discover::DeviceInfo;
use crate::verbs::objects::{
    AhAttr, GlobalRoute, ModifyQp, ModifySrq, MrBuf, Pd, QpCap, QpInit, SrqInit,
};

/// What the kernel is expected to answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// Success.
    Ok,
    /// This errno.
    Errno(Errno),
}

/// One call of the probe and the kernel's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    /// The kernel method or command (`CREATE_QP`, `MODIFY_QP`).
    pub method: &'static str,
    /// The interface it was forced through (`None`: the error paths, by the default).
    pub path: Option<CallPath>,
    /// What was asked, in a few words.
    pub what: String,
    /// What the kernel is expected to answer.
    pub expected: Expect,
    /// What it answered: `Ok`, or its errno (`None` when the call failed without one).
    pub got: core::result::Result<(), Option<Errno>>,
}

impl Check {
    /// True when the answer is the expected one.
    pub fn passed(&self) -> bool {
        match (self.expected, &self.got) {
            (Expect::Ok, Ok(())) => true,
            (Expect::Errno(e), Err(Some(g))) => e == *g,
            _ => false,
        }
    }
}

/// The probe of one device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probe {
    /// The device.
    pub device: String,
    /// Its driver's short name.
    pub driver: String,
    /// Every call, in order.
    pub checks: Vec<Check>,
}

impl Probe {
    /// True when every answer was the expected one.
    pub fn passed(&self) -> bool {
        self.checks.iter().all(Check::passed)
    }
}

/// What the driver answers where drivers differ (observed on Linux 6.1 and 6.12).
struct Driver {
    rxe: bool,
    /// The source GID index of an address vector on port 1 (see [`source_gid`]).
    sgid: u8,
}

impl Driver {
    /// rxe resizes CQs and SRQs, creates UC/UD QPs and AHs, and reaches RTS; siw has no
    /// resize, RC only, no AH (`EOPNOTSUPP`), and RTS needs the iWARP CM (`EINVAL`: no
    /// socket, no MPA).
    fn only_rxe(&self, siw: Errno) -> Expect {
        if self.rxe {
            Expect::Ok
        } else {
            Expect::Errno(siw)
        }
    }
}

/// The source GID index for an address vector on port 1: the first RoCE v2 GID of an
/// IPv4 address (rxe's index 1 on a netdev with one), else the first valid entry (the
/// default, link-local one of a netdev without an address), else 0.
fn source_gid(ctx: &Context) -> u8 {
    let table = ctx.query_gid_table(256).unwrap_or_default();
    let on_port = || table.iter().filter(|e| e.port == 1);
    on_port()
        .find(|e| e.gid_type == GidType::RoceV2 && e.gid.to_ipv6().to_ipv4_mapped().is_some())
        .or_else(|| on_port().next())
        .and_then(|e| u8::try_from(e.index).ok())
        .unwrap_or(0)
}

struct Run {
    checks: Vec<Check>,
}

impl Run {
    fn record<T>(
        &mut self,
        method: &'static str,
        path: Option<CallPath>,
        what: impl Into<String>,
        expected: Expect,
        r: Result<T>,
    ) -> Option<T> {
        let (got, v) = match r {
            Ok(v) => (Ok(()), Some(v)),
            Err(e) => (Err(e.errno()), None),
        };
        self.checks.push(Check {
            method,
            path,
            what: what.into(),
            expected,
            got,
        });
        v
    }

    fn record_errno(
        &mut self,
        method: &'static str,
        what: impl Into<String>,
        expected: Expect,
        r: core::result::Result<(), Errno>,
    ) {
        self.checks.push(Check {
            method,
            path: None,
            what: what.into(),
            expected,
            got: r.map_err(Some),
        });
    }
}

/// Runs the probe on `info`: the lifecycle through [`CallPath::Auto`],
/// [`CallPath::Ioctl`] and [`CallPath::Write`], then the error paths.
///
/// # Errors
///
/// [`Error::DriverNotSupported`] for a driver other than rxe and siw (nothing sent);
/// errors opening the device. Every kernel answer after that is a [`Check`].
pub fn run(info: &DeviceInfo) -> Result<Probe> {
    let mut checks = Vec::new();
    let mut driver = String::new();
    for path in [CallPath::Auto, CallPath::Ioctl, CallPath::Write] {
        let p = lifecycle_via(info, path)?;
        driver = p.driver;
        checks.extend(p.checks);
    }
    checks.extend(error_paths_of(info)?.checks);
    Ok(Probe {
        device: info.name.clone(),
        driver,
        checks,
    })
}

/// One part of the probe: every object's lifecycle on `info` with the objects' methods
/// forced through `path` (a context of its own, closed before it returns).
///
/// # Errors
///
/// As [`run`].
pub fn lifecycle_via(info: &DeviceInfo, path: CallPath) -> Result<Probe> {
    probe_on(info, path, Some(path), |run, ctx, d| {
        lifecycle(run, ctx, path, d)
    })
}

/// The other part: the error paths (a context of its own, closed before it returns).
///
/// # Errors
///
/// As [`run`].
pub fn error_paths_of(info: &DeviceInfo) -> Result<Probe> {
    probe_on(info, CallPath::Auto, None, error_paths)
}

/// Opens `info` with the object methods on `path`, runs `part` on it, and records the
/// errors its objects' drops met (as done through `shown`).
fn probe_on(
    info: &DeviceInfo,
    path: CallPath,
    shown: Option<CallPath>,
    part: impl FnOnce(&mut Run, &Arc<Context>, &Driver),
) -> Result<Probe> {
    let mut run = Run { checks: Vec::new() };
    let ctx = Arc::new(OpenOptions::new().objects(path).open(info)?);
    crate::verbs::objects::check_driver(&ctx, "probe")?;
    let driver = crate::raw::driver::driver_name(ctx.driver_id())
        .unwrap_or("?")
        .to_owned();
    let d = Driver {
        rxe: ctx.driver_id() == RDMA_DRIVER_RXE,
        sgid: source_gid(&ctx),
    };
    debug_assert!(d.rxe || ctx.driver_id() == RDMA_DRIVER_SIW);
    part(&mut run, &ctx, &d);
    for e in ctx.take_destroy_errors() {
        run.record::<()>(
            "destroy in Drop",
            shown,
            "an object's Drop",
            Expect::Ok,
            Err(e),
        );
    }
    Ok(Probe {
        device: info.name.clone(),
        driver,
        checks: run.checks,
    })
}

fn cap(n: u32) -> QpCap {
    QpCap {
        max_send_wr: n,
        max_recv_wr: n,
        max_send_sge: 1,
        max_recv_sge: 1,
        max_inline_data: 0,
    }
}

fn lifecycle(run: &mut Run, ctx: &Arc<Context>, path: CallPath, d: &Driver) {
    let p = Some(path);
    let Some(pd) = run.record("ALLOC_PD", p, "a PD", Expect::Ok, ctx.alloc_pd()) else {
        return;
    };
    let mr = MrBuf::new(4096)
        .map_err(|e| Error::from_errno(crate::error::Op::new("allocate", ctx.name()), e))
        .and_then(|b| pd.reg_mr(b, AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE));
    let mr = run.record("REG_MR", p, "4 KiB, local and remote write", Expect::Ok, mr);
    let ch = run.record(
        "CREATE_COMP_CHANNEL",
        p,
        "a channel",
        Expect::Ok,
        ctx.create_comp_channel(),
    );
    let Some(cq) = run.record(
        "CREATE_CQ",
        p,
        "16 entries",
        Expect::Ok,
        ctx.create_cq(16, ch.as_ref(), 0),
    ) else {
        return;
    };
    run.record(
        "RESIZE_CQ",
        p,
        "to 32 entries",
        d.only_rxe(Errno::OPNOTSUPP),
        cq.resize(32),
    );
    let srq = run.record(
        "CREATE_SRQ",
        p,
        "16 work requests",
        Expect::Ok,
        pd.create_srq(&SrqInit {
            max_wr: 16,
            max_sge: 1,
            srq_limit: 0,
        }),
    );
    if let Some(srq) = &srq {
        run.record(
            "MODIFY_SRQ",
            p,
            "limit 4",
            Expect::Ok,
            srq.modify(&ModifySrq::new().limit(4)),
        );
        run.record("QUERY_SRQ", p, "", Expect::Ok, srq.query());
    }
    let qps = [(QpType::Rc, "RC"), (QpType::Uc, "UC"), (QpType::Ud, "UD")];
    for (t, name) in qps {
        let expect = if t == QpType::Rc {
            Expect::Ok
        } else {
            d.only_rxe(Errno::OPNOTSUPP)
        };
        let qp = pd.create_qp(&QpInit::new(t, &cq, &cq).cap(cap(8)));
        let Some(qp) = run.record("CREATE_QP", p, format!("{name} QP"), expect, qp) else {
            continue;
        };
        let mut init = ModifyQp::init(t, 1, AccessFlags::REMOTE_WRITE, 0x1111_1111);
        run.record(
            "MODIFY_QP",
            p,
            format!("{name} RESET->INIT"),
            Expect::Ok,
            qp.modify(&mut init),
        );
        let sgid = d.sgid;
        let gid = ctx
            .query_gid(1, u32::from(sgid))
            .ok()
            .flatten()
            .map(|g| g.gid)
            .unwrap_or_default();
        let mut rtr = ModifyQp::rtr(
            t,
            Mtu::Mtu1024,
            qp.qp_num(),
            0,
            AhAttr::global(1, sgid, gid, 64),
        );
        run.record(
            "MODIFY_QP",
            p,
            format!("{name} INIT->RTR"),
            Expect::Ok,
            qp.modify(&mut rtr),
        );
        let mut rts = ModifyQp::rts(t, 0);
        run.record(
            "MODIFY_QP",
            p,
            format!("{name} RTR->RTS"),
            d.only_rxe(Errno::INVAL),
            qp.modify(&mut rts),
        );
        run.record("QUERY_QP", p, format!("{name} QP"), Expect::Ok, qp.query());
        if t == QpType::Rc {
            if let Some(srq) = &srq {
                let sq = pd.create_qp(&QpInit::new(t, &cq, &cq).cap(cap(8)).srq(srq));
                if let Some(sq) = run.record("CREATE_QP", p, "RC QP on the SRQ", Expect::Ok, sq) {
                    run.record(
                        "DESTROY_QP",
                        p,
                        "RC QP on the SRQ",
                        Expect::Ok,
                        sq.try_destroy().map_err(|(_, e)| e),
                    );
                }
            }
        }
        run.record(
            "DESTROY_QP",
            p,
            format!("{name} QP"),
            Expect::Ok,
            qp.try_destroy().map_err(|(_, e)| e),
        );
    }
    let gid = ctx
        .query_gid(1, u32::from(d.sgid))
        .ok()
        .flatten()
        .map(|g| g.gid)
        .unwrap_or_default();
    let ah = pd.create_ah(&AhAttr {
        grh: GlobalRoute {
            dgid: gid,
            sgid_index: d.sgid,
            hop_limit: 64,
            ..Default::default()
        },
        is_global: true,
        port_num: 1,
        ..Default::default()
    });
    let to = format!("to GID {}", d.sgid);
    if let Some(ah) = run.record("CREATE_AH", p, to, d.only_rxe(Errno::OPNOTSUPP), ah) {
        run.record(
            "DESTROY_AH",
            p,
            "",
            Expect::Ok,
            ah.try_destroy().map_err(|(_, e)| e),
        );
    }
    if let Some(srq) = srq {
        run.record(
            "DESTROY_SRQ",
            p,
            "",
            Expect::Ok,
            srq.try_destroy().map_err(|(_, e)| e),
        );
    }
    run.record(
        "DESTROY_CQ",
        p,
        "",
        Expect::Ok,
        cq.try_destroy().map_err(|(_, e)| e),
    );
    if let Some(mr) = mr {
        run.record(
            "DEREG_MR",
            p,
            "",
            Expect::Ok,
            mr.try_destroy().map(drop).map_err(|(_, e)| e),
        );
    }
    drop(ch);
    run.record(
        "DEALLOC_PD",
        p,
        "",
        Expect::Ok,
        pd.try_destroy().map_err(|(_, e)| e),
    );
}

fn error_paths(run: &mut Run, ctx: &Arc<Context>, d: &Driver) {
    let Some(pd) = run.record(
        "ALLOC_PD",
        None,
        "for the error paths",
        Expect::Ok,
        ctx.alloc_pd(),
    ) else {
        return;
    };
    let dev = ctx.query_device();
    let Some(dev) = run.record("QUERY_DEVICE", None, "the limits", Expect::Ok, dev) else {
        return;
    };
    // A CQ larger than max_cqe.
    let over = dev.max_cqe.saturating_add(1);
    let r = ctx.create_cq(over, None, 0).map(drop);
    run.record(
        "CREATE_CQ",
        None,
        format!("{over} entries (max_cqe + 1)"),
        Expect::Errno(Errno::INVAL),
        r,
    );
    let Some(cq) = run.record(
        "CREATE_CQ",
        None,
        "16 entries",
        Expect::Ok,
        ctx.create_cq(16, None, 0),
    ) else {
        return;
    };
    // A QP with max_send_wr above max_qp_wr.
    let over = dev.max_qp_wr.saturating_add(1);
    let mut big = cap(8);
    big.max_send_wr = over;
    let r = pd
        .create_qp(&QpInit::new(QpType::Rc, &cq, &cq).cap(big))
        .map(drop);
    run.record(
        "CREATE_QP",
        None,
        format!("max_send_wr {over} (max_qp_wr + 1)"),
        Expect::Errno(Errno::INVAL),
        r,
    );
    let Some(qp) = run.record(
        "CREATE_QP",
        None,
        "RC QP",
        Expect::Ok,
        pd.create_qp(&QpInit::new(QpType::Rc, &cq, &cq).cap(cap(8))),
    ) else {
        return;
    };
    // An invalid transition: RESET -> RTS.
    let mut rts = ModifyQp::new()
        .state(QpState::Rts)
        .sq_psn(0)
        .timeout(14)
        .retry_cnt(7)
        .rnr_retry(7)
        .max_rd_atomic(1);
    run.record(
        "MODIFY_QP",
        None,
        "RESET->RTS",
        Expect::Errno(Errno::INVAL),
        qp.modify(&mut rts),
    );
    // A mask without what RESET -> INIT needs: rxe checks it (ib_modify_qp_is_ok), siw
    // does not look at it.
    run.record(
        "MODIFY_QP",
        None,
        "RESET->INIT with the state bit only",
        if d.rxe {
            Expect::Errno(Errno::INVAL)
        } else {
            Expect::Ok
        },
        qp.modify(&mut ModifyQp::new().state(QpState::Init)),
    );
    // A mask bit past the standard ones (the core refuses it for every driver).
    let r = crate::verbs::objects::modify_qp_raw_mask(&qp, 1 << 26);
    run.record_errno(
        "MODIFY_QP",
        "mask bit 26 (not a standard attribute)",
        Expect::Errno(Errno::OPNOTSUPP),
        r,
    );
    // Destroying a PD that still has a QP: the kernel refuses, nothing leaks.
    let r = crate::verbs::objects::destroy_pd_handle(ctx, pd.handle());
    run.record_errno(
        "DEALLOC_PD",
        "a PD that still has a QP",
        Expect::Errno(Errno::BUSY),
        r,
    );
    // An MR over memory that is not mapped.
    let r = ctx.raw().reg_mr_unmapped_probe(pd.handle(), CallPath::Auto);
    run.record_errno(
        "REG_MR",
        "4 KiB where nothing is mapped",
        Expect::Errno(Errno::FAULT),
        r,
    );
    // A destroyed QP used through its stale handle.
    let stale = qp.handle();
    run.record(
        "DESTROY_QP",
        None,
        "RC QP",
        Expect::Ok,
        qp.try_destroy().map_err(|(_, e)| e),
    );
    let r = crate::verbs::objects::query_qp_handle(ctx, stale).map(drop);
    run.record_errno(
        "QUERY_QP",
        "the destroyed QP's stale handle",
        Expect::Errno(Errno::NOENT),
        r,
    );
    run.record(
        "DESTROY_CQ",
        None,
        "",
        Expect::Ok,
        cq.try_destroy().map_err(|(_, e)| e),
    );
    run.record(
        "DEALLOC_PD",
        None,
        "",
        Expect::Ok,
        Pd::try_destroy(pd).map_err(|(_, e)| e),
    );
}
