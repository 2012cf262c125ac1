//! The `limits.*` cases: the sizes at the edges of a device's limits, zero, the limit
//! itself and one past it, for each size the object methods take (a CQ's entries, a
//! QP's work requests, scatter/gather entries and inline bytes, an SRQ's work requests
//! and entries), when created and when resized. The limit is the device's own answer:
//! QUERY_DEVICE's `max_cqe`, `max_qp_wr`, `max_sge`, `max_srq_wr` and `max_srq_sge`;
//! the inline limit, which QUERY_DEVICE does not carry, is QUERY_QP's `max_inline_data`
//! of a QP made with `max_send_sge` at `max_sge` (rxe grants that QP its whole send
//! entry, `max_sge` SGEs' worth of bytes, which is `RXE_MAX_INLINE_DATA`,
//! `rxe_qp_init_req` in rxe_qp.c; siw answers `SIW_MAX_INLINE` for every QP,
//! `siw_query_qp` in siw_verbs.c and include/uapi/rdma/siw-abi.h).
//!
//! The core passes these sizes to the driver unchecked (`create_cq`, `create_qp`,
//! `ib_uverbs_resize_cq`, `ib_uverbs_create_srq` in drivers/infiniband/core/uverbs_cmd.c
//! and their ioctl twins in uverbs_std_types_*.c), so each answer is the driver's rule,
//! which the table cites per driver (file and function, under drivers/infiniband/sw/):
//! rxe's `rxe_cq_chk_attr`, `rxe_qp_chk_cap`, `rxe_srq_chk_init` and `rxe_srq_chk_attr`;
//! siw's `siw_create_cq`, `siw_create_qp`, `siw_create_srq` and `siw_modify_srq`. Where
//! the drivers differ the table says what each answers; both were observed to answer so
//! on Debian's Linux 6.1 and 6.12.
//!
//! Left to other cases: a CQ of `max_cqe + 1` entries and a QP of `max_qp_wr + 1` send
//! requests are `probe.error_paths`; inline data past `max_inline_data` in a work request
//! is `data.rc.inline`. Not asked: an MR of 0 bytes (an `MrBuf` has at least one, so no
//! request is sent) or of `max_mr_size + 1` (both drivers report 2^64 - 1), and more SGEs
//! in a work request than the QP has (refused in user space, by the crate's queue, before
//! the kernel sees it).
//!
//! Each case opens its own context, makes what it needs (a PD, a CQ of 4 entries, an SRQ
//! of 4 requests) and destroys everything before it returns.

use std::sync::Arc;

use rustix::io::Errno;

use crate::error::Result;
use crate::raw::abi::{RDMA_DRIVER_RXE, RDMA_DRIVER_SIW};
use crate::selftest::Outcome;
use crate::types::QpType;
use crate::verbs::context::Context;
use crate::verbs::device_attr::DeviceAttr;
use crate::verbs::discover::DeviceInfo;
use crate::verbs::objects::{ModifySrq, Pd, QpCap, QpInit, Srq, SrqInit};
use crate::verbs::probe::Expect;
use Size::{Max, MaxPlus1, Zero};

/// What a case asks for, one size of it set to the case's [`Size`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ask {
    /// CREATE_CQ with that many entries (limit `max_cqe`).
    Cqe,
    /// RESIZE_CQ of a CQ of 4 entries to that many (limit `max_cqe`).
    CqResize,
    /// CREATE_QP, RC, with that capacity; the others one request, one SGE, no inline.
    Qp(Cap),
    /// CREATE_QP, RC, on an SRQ, with `max_recv_wr` at that size (limit `max_qp_wr`)
    /// and `max_recv_sge` at `max_sge` + 1, which the verbs say an SRQ's QP ignores.
    QpOnSrq,
    /// CREATE_SRQ with that many requests of one SGE (limit `max_srq_wr`).
    SrqWr,
    /// CREATE_SRQ of 4 requests with that many SGEs (limit `max_srq_sge`).
    SrqSge,
    /// MODIFY_SRQ `max_wr` of an SRQ of 4 requests (limit `max_srq_wr`).
    SrqResize,
}

/// The QP capacity a [`Ask::Qp`] sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cap {
    SendWr,
    RecvWr,
    SendSge,
    RecvSge,
    Inline,
}

/// Which size of the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Size {
    Zero,
    Max,
    MaxPlus1,
}

/// One case: its name and summary, what it asks, and what rxe and siw answer by their
/// source (`rule`: where, per driver). `departs`: siw's expected answer departs from the
/// verbs' rule, this way (said in a diagnostic when siw answers so).
struct Limit {
    name: &'static str,
    what: &'static str,
    ask: Ask,
    size: Size,
    rxe: Expect,
    siw: Expect,
    rule: (&'static str, &'static str),
    departs: Option<&'static str>,
}

const OK: Expect = Expect::Ok;
const EINVAL: Expect = Expect::Errno(Errno::INVAL);
const EOPNOTSUPP: Expect = Expect::Errno(Errno::OPNOTSUPP);

const RXE_CQ: &str = "rxe_cq_chk_attr, drivers/infiniband/sw/rxe/rxe_cq.c";
const SIW_CQ: &str = "siw_create_cq, drivers/infiniband/sw/siw/siw_verbs.c";
const SIW_RESIZE: &str = "siw has no resize_cq: UAPI_DEF_METHOD_NEEDS_FN(resize_cq), drivers/infiniband/core/uverbs_cmd.c";
const RXE_QP: &str = "rxe_qp_chk_cap, drivers/infiniband/sw/rxe/rxe_qp.c";
const SIW_QP: &str = "siw_create_qp, drivers/infiniband/sw/siw/siw_verbs.c";
const RXE_SRQ: &str = "rxe_srq_chk_init, drivers/infiniband/sw/rxe/rxe_srq.c";
const RXE_SRQ_MOD: &str = "rxe_srq_chk_attr, drivers/infiniband/sw/rxe/rxe_srq.c";
const SIW_SRQ: &str = "siw_create_srq, drivers/infiniband/sw/siw/siw_verbs.c";
const SIW_SRQ_MOD: &str =
    "siw_modify_srq, drivers/infiniband/sw/siw/siw_verbs.c: a resize is EOPNOTSUPP";

/// A row of [`LIMITS`] (a `const fn` keeps the table one line a case).
#[allow(clippy::too_many_arguments)]
const fn row(
    name: &'static str,
    what: &'static str,
    ask: Ask,
    size: Size,
    rxe: Expect,
    siw: Expect,
    rule: (&'static str, &'static str),
) -> Limit {
    Limit {
        name,
        what,
        ask,
        size,
        rxe,
        siw,
        rule,
        departs: None,
    }
}

/// The cases, in the order they run.
#[rustfmt::skip]
const LIMITS: [Limit; 21] = [
    row("limits.cq.cqe_zero", "CREATE_CQ of 0 entries: EINVAL", Ask::Cqe, Zero, EINVAL, EINVAL, (RXE_CQ, SIW_CQ)),
    row("limits.cq.cqe_max", "CREATE_CQ of max_cqe entries: made, at least that many", Ask::Cqe, Max, OK, OK, (RXE_CQ, SIW_CQ)),
    row("limits.cq.resize_zero", "RESIZE_CQ to 0 entries: EINVAL (siw: no resize, EOPNOTSUPP)", Ask::CqResize, Zero, EINVAL, EOPNOTSUPP, (RXE_CQ, SIW_RESIZE)),
    row("limits.cq.resize_max", "RESIZE_CQ to max_cqe entries: resized (siw: no resize, EOPNOTSUPP)", Ask::CqResize, Max, OK, EOPNOTSUPP, (RXE_CQ, SIW_RESIZE)),
    row("limits.cq.resize_max_plus_1", "RESIZE_CQ to max_cqe + 1 entries: EINVAL (siw: no resize, EOPNOTSUPP)", Ask::CqResize, MaxPlus1, EINVAL, EOPNOTSUPP, (RXE_CQ, SIW_RESIZE)),
    // rxe makes a send queue of no request (rxe_qp_init_req); siw refuses one: "we
    // don't allow for a QP unable to hold any SQ WQE" (siw_create_qp).
    row("limits.qp.send_wr_zero", "CREATE_QP, max_send_wr 0: rxe makes it, siw EINVAL", Ask::Qp(Cap::SendWr), Zero, OK, EINVAL, (RXE_QP, SIW_QP)),
    // Both make a QP without a receive queue (rxe_qp_init_resp; siw_create_qp: no recvq,
    // num_rqe 0 and no key in its answer, which the crate then does not map).
    row("limits.qp.recv_wr_zero", "CREATE_QP, max_recv_wr 0: made, without a receive queue", Ask::Qp(Cap::RecvWr), Zero, OK, OK, (RXE_QP, SIW_QP)),
    row("limits.qp.recv_wr_max_plus_1", "CREATE_QP, max_recv_wr max_qp_wr + 1: EINVAL", Ask::Qp(Cap::RecvWr), MaxPlus1, EINVAL, EINVAL, (RXE_QP, SIW_QP)),
    row("limits.qp.send_sge_max", "CREATE_QP, max_send_sge max_sge: made", Ask::Qp(Cap::SendSge), Max, OK, OK, (RXE_QP, SIW_QP)),
    row("limits.qp.send_sge_max_plus_1", "CREATE_QP, max_send_sge max_sge + 1: EINVAL", Ask::Qp(Cap::SendSge), MaxPlus1, EINVAL, EINVAL, (RXE_QP, SIW_QP)),
    row("limits.qp.recv_sge_max", "CREATE_QP, max_recv_sge max_sge: made", Ask::Qp(Cap::RecvSge), Max, OK, OK, (RXE_QP, SIW_QP)),
    row("limits.qp.recv_sge_max_plus_1", "CREATE_QP, max_recv_sge max_sge + 1: EINVAL", Ask::Qp(Cap::RecvSge), MaxPlus1, EINVAL, EINVAL, (RXE_QP, SIW_QP)),
    row("limits.qp.inline_max", "CREATE_QP, max_inline_data the driver's limit: made", Ask::Qp(Cap::Inline), Max, OK, OK, (RXE_QP, SIW_QP)),
    row("limits.qp.inline_max_plus_1", "CREATE_QP, max_inline_data the driver's limit + 1: EINVAL", Ask::Qp(Cap::Inline), MaxPlus1, EINVAL, EINVAL, (RXE_QP, SIW_QP)),
    // The verbs ignore a QP's receive capacities when it receives from an SRQ
    // (ibv_create_qp(3)); rxe checks them only without one (rxe_qp_chk_cap); siw checks
    // them before it looks at the SRQ (siw_create_qp), its own "Verbs 6.3.7: ignore RQ
    // size, if SRQ present" coming after: EINVAL, which the case expects of siw (what
    // the kernel does; the uapi promises nothing here) and says.
    Limit {
        departs: Some("siw refuses an SRQ's QP's max_recv_wr and max_recv_sge past its limits, which the verbs ignore: siw_create_qp checks them before it looks at the SRQ"),
        ..row("limits.qp.srq_recv_caps", "CREATE_QP on an SRQ, max_recv_wr max_qp_wr + 1, max_recv_sge max_sge + 1: ignored (siw: EINVAL)", Ask::QpOnSrq, MaxPlus1, OK, EINVAL, (RXE_QP, SIW_QP))
    },
    row("limits.srq.wr_zero", "CREATE_SRQ of 0 requests: EINVAL", Ask::SrqWr, Zero, EINVAL, EINVAL, (RXE_SRQ, SIW_SRQ)),
    row("limits.srq.wr_max_plus_1", "CREATE_SRQ of max_srq_wr + 1 requests: EINVAL", Ask::SrqWr, MaxPlus1, EINVAL, EINVAL, (RXE_SRQ, SIW_SRQ)),
    row("limits.srq.sge_max", "CREATE_SRQ with max_srq_sge SGEs: made", Ask::SrqSge, Max, OK, OK, (RXE_SRQ, SIW_SRQ)),
    row("limits.srq.sge_max_plus_1", "CREATE_SRQ with max_srq_sge + 1 SGEs: EINVAL", Ask::SrqSge, MaxPlus1, EINVAL, EINVAL, (RXE_SRQ, SIW_SRQ)),
    row("limits.srq.resize_zero", "MODIFY_SRQ max_wr 0: EINVAL (siw: no resize, EOPNOTSUPP)", Ask::SrqResize, Zero, EINVAL, EOPNOTSUPP, (RXE_SRQ_MOD, SIW_SRQ_MOD)),
    row("limits.srq.resize_max_plus_1", "MODIFY_SRQ max_wr max_srq_wr + 1: EINVAL (siw: no resize, EOPNOTSUPP)", Ask::SrqResize, MaxPlus1, EINVAL, EOPNOTSUPP, (RXE_SRQ_MOD, SIW_SRQ_MOD)),
];

impl Limit {
    /// The kernel method the case sizes.
    fn method(&self) -> &'static str {
        match self.ask {
            Ask::Cqe => "CREATE_CQ",
            Ask::CqResize => "RESIZE_CQ",
            Ask::Qp(_) | Ask::QpOnSrq => "CREATE_QP",
            Ask::SrqWr | Ask::SrqSge => "CREATE_SRQ",
            Ask::SrqResize => "MODIFY_SRQ",
        }
    }
}

/// The cases: full name, what they exercise.
pub(super) fn cases() -> impl Iterator<Item = (&'static str, &'static str)> {
    LIMITS.iter().map(|l| (l.name, l.what))
}

/// Runs case `name` on `info`.
pub(super) fn run(info: &DeviceInfo, name: &str) -> Outcome {
    let mut o = Outcome::new();
    let Some(l) = LIMITS.iter().find(|l| l.name == name) else {
        o.fail(format!("no limits case {name}"));
        return o;
    };
    let r = Context::open(info).map(Arc::new).and_then(|ctx| {
        let (want, rule) = match ctx.driver_id() {
            RDMA_DRIVER_RXE => (l.rxe, l.rule.0),
            RDMA_DRIVER_SIW => (l.siw, l.rule.1),
            _ => {
                o = Outcome::skip("the limits are known for rxe and siw only");
                return Ok(());
            }
        };
        let siw = ctx.driver_id() == RDMA_DRIVER_SIW;
        sized(&ctx, l, siw, want, rule, &mut o)
    });
    // A call the case needs failed (the error names the method and the device).
    if let Err(e) = r {
        o.fail(e.to_string());
    }
    o
}

/// An answer or an expectation as a fact's text: `ok` or `errno N`.
fn text(r: Result<(), Errno>) -> String {
    match r {
        Ok(()) => "ok".to_owned(),
        Err(e) => format!("errno {}", e.raw_os_error()),
    }
}

fn as_result(w: Expect) -> Result<(), Errno> {
    match w {
        Expect::Ok => Ok(()),
        Expect::Errno(e) => Err(e),
    }
}

/// The limit `l` sizes against, from QUERY_DEVICE (`dev`), or for inline data from
/// QUERY_QP (see the module's documentation).
fn limit_of(ctx: &Arc<Context>, pd: &Pd, dev: &DeviceAttr, l: &Limit) -> Result<u32> {
    Ok(match l.ask {
        Ask::Cqe | Ask::CqResize => dev.max_cqe,
        Ask::Qp(Cap::SendWr | Cap::RecvWr) | Ask::QpOnSrq => dev.max_qp_wr,
        Ask::Qp(Cap::SendSge | Cap::RecvSge) => dev.max_sge,
        Ask::SrqWr | Ask::SrqResize => dev.max_srq_wr,
        Ask::SrqSge => dev.max_srq_sge,
        Ask::Qp(Cap::Inline) => {
            let cq = ctx.create_cq(4, None, 0)?;
            let cap = QpCap {
                max_send_sge: dev.max_sge,
                ..CAP1
            };
            let qp = pd.create_qp(&QpInit::new(QpType::Rc, &cq, &cq).cap(cap))?;
            qp.query()?.cap().max_inline_data
        }
    })
}

/// One request, one SGE each way, no inline data.
const CAP1: QpCap = QpCap {
    max_send_wr: 1,
    max_recv_wr: 1,
    max_send_sge: 1,
    max_recv_sge: 1,
    max_inline_data: 0,
};

/// An SRQ of `wr` requests of `sge` SGEs.
fn srq(pd: &Pd, wr: u32, sge: u32) -> Result<Srq> {
    pd.create_srq(&SrqInit {
        max_wr: wr,
        max_sge: sge,
        srq_limit: 0,
    })
}

/// Records what the kernel granted of `what` (`[granted, asked]`), and checks it is at
/// least what was asked.
fn granted(o: &mut Outcome, what: &str, g: [u32; 2]) {
    o.fact(format!("granted.{what}"), g[0]);
    o.check(g[0] >= g[1], || {
        format!("granted {what} {}, less than the {} asked", g[0], g[1])
    });
}

/// Runs `l`: the size asked, the kernel's answer against `want` (by `rule`), and on
/// success what was granted, at least what was asked. `Err`: a call the case needs
/// failed.
fn sized(
    ctx: &Arc<Context>,
    l: &Limit,
    siw: bool,
    want: Expect,
    rule: &str,
    o: &mut Outcome,
) -> Result<()> {
    let dev = ctx.query_device()?;
    let pd = ctx.alloc_pd()?;
    let max = limit_of(ctx, &pd, &dev, l)?;
    let n = match l.size {
        Size::Zero => 0,
        Size::Max => max,
        Size::MaxPlus1 => max.saturating_add(1),
    };
    if n == max && l.size == Size::MaxPlus1 {
        *o = Outcome::skip("the limit is u32::MAX: one more is not a u32");
        return Ok(());
    }
    o.fact("limit", max);
    o.fact("asked", n);
    let cq = ctx.create_cq(4, None, 0)?;
    let got = match l.ask {
        Ask::Cqe => ctx
            .create_cq(n, None, 0)
            .map(|c| granted(o, "cqe", [c.cqe(), n])),
        Ask::CqResize => cq.resize(n).map(|c| granted(o, "cqe", [c, n])),
        Ask::Qp(_) | Ask::QpOnSrq => {
            let mut cap = CAP1;
            let mut on = None;
            match l.ask {
                Ask::Qp(Cap::SendWr) => cap.max_send_wr = n,
                Ask::Qp(Cap::RecvWr) => cap.max_recv_wr = n,
                Ask::Qp(Cap::SendSge) => cap.max_send_sge = n,
                Ask::Qp(Cap::RecvSge) => cap.max_recv_sge = n,
                Ask::Qp(Cap::Inline) => cap.max_inline_data = n,
                _ => {
                    cap.max_recv_wr = n;
                    cap.max_recv_sge = dev.max_sge.saturating_add(1);
                    on = Some(srq(&pd, 4, 1)?);
                }
            }
            let mut init = QpInit::new(QpType::Rc, &cq, &cq).cap(cap);
            if let Some(s) = &on {
                init = init.srq(s);
            }
            pd.create_qp(&init).map(|qp| {
                let g = qp.cap();
                granted(o, "max_send_wr", [g.max_send_wr, cap.max_send_wr]);
                granted(o, "max_send_sge", [g.max_send_sge, cap.max_send_sge]);
                granted(
                    o,
                    "max_inline_data",
                    [g.max_inline_data, cap.max_inline_data],
                );
                if on.is_none() {
                    granted(o, "max_recv_wr", [g.max_recv_wr, cap.max_recv_wr]);
                    granted(o, "max_recv_sge", [g.max_recv_sge, cap.max_recv_sge]);
                }
            })
        }
        Ask::SrqWr | Ask::SrqSge => {
            let (wr, sge) = if l.ask == Ask::SrqWr { (n, 1) } else { (4, n) };
            srq(&pd, wr, sge).map(|s| {
                granted(o, "max_wr", [s.max_wr(), wr]);
                granted(o, "max_sge", [s.max_sge(), sge]);
            })
        }
        Ask::SrqResize => srq(&pd, 4, 1)?.modify(&ModifySrq::new().max_wr(n)),
    };
    let got = got.map_err(|e| e.errno().unwrap_or(Errno::IO));
    o.fact("answer", text(got));
    let want = as_result(want);
    o.check(got == want, || {
        format!(
            "{} with {n} (limit {max}): expected {}, got {} ({rule})",
            l.method(),
            text(want),
            text(got)
        )
    });
    if let Some(d) = l.departs.filter(|_| siw && got == want) {
        o.diag.push(d.to_owned());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_in_the_group() {
        for (i, l) in LIMITS.iter().enumerate() {
            assert!(l.name.starts_with("limits."), "{}", l.name);
            assert!(
                LIMITS[..i].iter().all(|m| m.name != l.name),
                "{} twice",
                l.name
            );
        }
    }
}
