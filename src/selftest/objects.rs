//! The `objects.*` and `events.*` cases: a queue pair walked through the IBTA state
//! table, a CQ resized around its contents, an SRQ's limit event, a completion channel
//! armed and acknowledged, and the asynchronous events of a QP and a CQ.
//!
//! Completions are made without a peer where the case allows it: receives posted to a
//! QP that is then moved to the error state are flushed into its CQ (`IBV_WC_WR_FLUSH_ERR`),
//! by rxe and siw alike. Where a case needs traffic (the SRQ limit, the send queue drain)
//! an RC QP of rxe sends to itself through the port's first GID (rxe's loopback), which
//! siw cannot: it reaches RTS only through the iWARP CM. Every wait polls under a
//! deadline, never a sleep.
//!
//! The expectations are the IBTA's, as the kernel states them in `ib_modify_qp_is_ok`
//! (drivers/infiniband/core/verbs.c), which rxe calls from its modify_qp. Where a driver
//! answers otherwise the case expects what it was observed to answer (Linux 6.1 and
//! 6.12), with a comment citing the driver's source: siw's states are iWARP's, and its
//! modify_qp does not consult that table.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rustix::io::Errno;

use crate::error::{Error, Result};
use crate::raw::abi::{RDMA_DRIVER_RXE, RDMA_DRIVER_SIW};
use crate::selftest::data::wc_text;
use crate::selftest::Outcome;
use crate::types::{AccessFlags, EventType, Gid, Mtu, QpAttrMask, QpState, QpType, WcStatus};
use crate::verbs::context::Context;
use crate::verbs::datapath::{RecvWr, SendOp, SendWr, Sge, Wc};
use crate::verbs::discover::DeviceInfo;
use crate::verbs::event::{Event, EventStream, Next};
use crate::verbs::objects::{
    AhAttr, Cq, ModifyQp, ModifySrq, Mr, MrBuf, Pd, Qp, QpCap, QpInit, QpQuery, SrqInit,
};

/// How long a completion, an event or a drain may take (a loaded TCG guest).
const DEADLINE: Duration = Duration::from_secs(10);

/// The cases: full name, what they exercise.
pub(super) const CASES: [(&str, &str); 8] = [
    (
        "objects.qp_states.rc",
        "MODIFY_QP, QUERY_QP: the IBTA QP state table, RC",
    ),
    (
        "objects.qp_states.uc",
        "MODIFY_QP, QUERY_QP: the IBTA QP state table, UC",
    ),
    (
        "objects.qp_states.ud",
        "MODIFY_QP, QUERY_QP: the IBTA QP state table, UD",
    ),
    (
        "objects.cq_resize",
        "RESIZE_CQ: larger and smaller than its contents, which survive",
    ),
    (
        "objects.srq_limit",
        "MODIFY_SRQ, QUERY_SRQ, async event: IBV_EVENT_SRQ_LIMIT_REACHED",
    ),
    (
        "events.comp_channel",
        "CREATE_COMP_CHANNEL, REQ_NOTIFY_CQ: one event per arming, acknowledged",
    ),
    (
        "events.qp_async",
        "async event: IBV_EVENT_SQ_DRAINED after RTS->SQD",
    ),
    (
        "events.cq_async",
        "async event: IBV_EVENT_CQ_ERR on a CQ overrun",
    ),
];

/// Runs case `name` on `info`.
pub(super) fn run(info: &DeviceInfo, name: &str) -> Outcome {
    let bed = match Bed::open(info) {
        Ok(b) => b,
        Err(o) => return o,
    };
    let mut o = Outcome::new();
    let r = match name {
        "objects.qp_states.rc" => qp_states(&bed, QpType::Rc, &mut o),
        "objects.qp_states.uc" => qp_states(&bed, QpType::Uc, &mut o),
        "objects.qp_states.ud" => qp_states(&bed, QpType::Ud, &mut o),
        "objects.cq_resize" => cq_resize(&bed, &mut o),
        "objects.srq_limit" => srq_limit(bed, &mut o),
        "events.comp_channel" => comp_channel(&bed, &mut o),
        "events.qp_async" => qp_async(bed, &mut o),
        _ => cq_async(bed, &mut o),
    };
    match r {
        Ok(()) => o,
        Err(Stop::Failed(why)) => {
            o.fail(why);
            o
        }
        Err(Stop::Skip(why)) if o.status.is_none() => {
            let mut s = Outcome::skip(why);
            s.diag = o.diag;
            s.facts = o.facts;
            s
        }
        Err(Stop::Skip(_)) => o,
    }
}

/// Why a case stopped early.
enum Stop {
    /// A call failed that the case needs (the text names it).
    Failed(String),
    /// The rest cannot run on this driver (the reason); what ran before held.
    Skip(String),
}

/// The failure of a call the case needs.
fn needed(what: &str) -> impl FnOnce(Error) -> Stop + '_ {
    move |e| Stop::Failed(format!("{what}: {e}"))
}

/// A device opened for a case: its context, an async event stream made before any
/// object (the kernel routes an object's events to the stream that existed when it was
/// created), a PD, and the port's first GID.
struct Bed {
    events: EventStream,
    pd: Pd,
    gid: Gid,
    rxe: bool,
    ctx: Arc<Context>,
}

impl Bed {
    #[inline(never)]
    fn open(info: &DeviceInfo) -> core::result::Result<Bed, Outcome> {
        let fail = |what: &str, e: Error| {
            let mut o = Outcome::new();
            o.fail(format!("{what}: {e}"));
            o
        };
        let ctx = Arc::new(Context::open(info).map_err(|e| fail("open", e))?);
        let rxe = match ctx.driver_id() {
            RDMA_DRIVER_RXE => true,
            RDMA_DRIVER_SIW => false,
            _ => return Err(Outcome::skip("objects are made on rxe and siw only")),
        };
        let events = ctx.events().map_err(|e| fail("ASYNC_EVENT_ALLOC", e))?;
        let gid = match ctx.query_gid(1, 0) {
            Ok(Some(g)) if g.gid != Gid::default() => g.gid,
            Ok(_) => return Err(Outcome::skip("port 1 has no GID at index 0 (IPv6 off?)")),
            Err(e) => return Err(fail("QUERY_GID port 1 index 0", e)),
        };
        let pd = ctx.alloc_pd().map_err(|e| fail("ALLOC_PD", e))?;
        Ok(Bed {
            events,
            pd,
            gid,
            rxe,
            ctx,
        })
    }

    fn cq(&self, cqe: u32) -> core::result::Result<Cq, Stop> {
        self.ctx
            .create_cq(cqe, None, 0)
            .map_err(needed("CREATE_CQ"))
    }

    /// A QP of type `t` completing into `cq`, with `recv` receive requests.
    fn qp(&self, t: QpType, cq: &Cq, recv: u32) -> Result<Qp> {
        self.pd.create_qp(&QpInit::new(t, cq, cq).cap(QpCap {
            max_send_wr: 8,
            max_recv_wr: recv,
            max_send_sge: 1,
            max_recv_sge: 1,
            max_inline_data: 0,
        }))
    }

    /// A registered buffer of `len` bytes.
    fn mr(&self, len: usize) -> core::result::Result<Mr, Stop> {
        let buf = MrBuf::from_slice(&vec![0u8; len])
            .map_err(|e| Stop::Failed(format!("buffer of {len} bytes: {e}")))?;
        self.pd
            .reg_mr(buf, AccessFlags::LOCAL_WRITE)
            .map_err(needed("REG_MR"))
    }
}

/// The modification of the legal step to `to` (INIT, RTR or RTS) for a QP of type `t`
/// with exactly the attributes the IBTA requires of it: for RC and UC towards QP `qpn`
/// through `gid` (the QP itself, in these cases).
fn legal(t: QpType, to: QpState, qpn: u32, gid: Gid) -> ModifyQp {
    match to {
        QpState::Init => {
            let access = match t {
                QpType::Rc => {
                    AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE | AccessFlags::REMOTE_READ
                }
                _ => AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE,
            };
            ModifyQp::init(t, 1, access, 0x1111_1111)
        }
        QpState::Rtr => ModifyQp::rtr(t, Mtu::Mtu1024, qpn, 0x123, AhAttr::global(1, 0, gid, 1)),
        _ => ModifyQp::rts(t, 0x123),
    }
}

/// RESET -> INIT -> RTR -> RTS, connected to itself (rxe: its loopback).
fn to_rts(qp: &Qp, t: QpType, gid: Gid) -> core::result::Result<(), Stop> {
    for (what, to) in [
        ("RESET->INIT", QpState::Init),
        ("INIT->RTR", QpState::Rtr),
        ("RTR->RTS", QpState::Rts),
    ] {
        modify(qp, legal(t, to, qp.qp_num(), gid))
            .map_err(|e| Stop::Failed(format!("MODIFY_QP {what}: {e}")))?;
    }
    Ok(())
}

/// The answer of a call, as a fact's value.
fn answer<T>(r: &Result<T>) -> String {
    match r {
        Ok(_) => "ok".into(),
        Err(e) => match e.errno() {
            Some(n) => format!("errno {}", n.raw_os_error()),
            None => format!("failed: {e}"),
        },
    }
}

/// A state's C name.
fn state_name(s: QpState) -> String {
    s.c_name()
        .map_or_else(|| s.as_raw().to_string(), str::to_owned)
}

/// MODIFY_QP, out of line: [`Qp::modify`] inlines its whole request path into every
/// caller, and the cases call it from many places.
#[inline(never)]
fn modify(qp: &Qp, mut m: ModifyQp) -> Result<()> {
    qp.modify(&mut m)
}

/// QUERY_QP, out of line (as [`modify`]).
#[inline(never)]
fn query(qp: &Qp) -> Result<QpQuery> {
    qp.query()
}

/// What a modification must answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Want {
    /// Success, the QP then in this state.
    To(QpState),
    /// Success, the state unchanged (siw: a request it does not act on).
    Stay,
    /// This errno, the state unchanged.
    Refused(Errno),
    /// EINVAL when the modification carries an address vector, else as `Stay`: ib_uverbs'
    /// modify_qp refuses an RTR whose address vector's port is not the QP's
    /// (drivers/infiniband/core/uverbs_cmd.c), which RESET->INIT sets (0 before).
    AvPort,
}

const EINVAL: Want = Want::Refused(Errno::INVAL);

/// What a step of the walk asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ask {
    /// The legal modification to this state ([`legal`]) for the QP's type.
    Legal(QpState),
    /// This state alone.
    Bare(QpState),
    /// RTS->SQD, asking for the drained event (optional).
    SqdNotify,
    /// INIT->INIT with an attribute that transition does not take (SQ_PSN).
    InitSqPsn,
}

/// One step of the walk: its name, what it asks, whether each required attribute is
/// left out in turn first (each refused: EINVAL on rxe, siw's answer on siw), what rxe
/// (the IBTA table) answers, what siw answers.
type Step = (&'static str, Ask, bool, Want, Want);

/// The walk of `objects.qp_states.*`. rxe checks every transition with
/// `ib_modify_qp_is_ok` (rxe_qp_chk_attr on 6.1, __qp_chk_state on 6.12). siw (iWARP)
/// maps the IB states onto its own (siw_verbs.c, ib_qp_state_to_siw_qp_state: RESET
/// and INIT are IDLE, SQD is CLOSING), reads only the state and the access flags of a
/// request (siw_verbs_modify_qp: the mask is not checked), and moves only where
/// siw_qp_modify knows a way (siw_qp.c): from IDLE to RTS only with the CM's socket and
/// MPA (else EINVAL), or to ERROR; every other request is answered 0 without a change,
/// and nothing leaves ERROR.
const WALK: [Step; 15] = [
    // RESET: only INIT (and RESET) are legal.
    (
        "RESET->RTR",
        Ask::Legal(QpState::Rtr),
        false,
        EINVAL,
        Want::AvPort,
    ),
    (
        "RESET->RTS",
        Ask::Legal(QpState::Rts),
        false,
        EINVAL,
        EINVAL,
    ),
    (
        "RESET->INIT",
        Ask::Legal(QpState::Init),
        true,
        Want::To(QpState::Init),
        Want::Stay,
    ),
    (
        "INIT->INIT with SQ_PSN",
        Ask::InitSqPsn,
        false,
        EINVAL,
        Want::Stay,
    ),
    // INIT
    ("INIT->RTS", Ask::Legal(QpState::Rts), false, EINVAL, EINVAL),
    (
        "INIT->SQD",
        Ask::Bare(QpState::Sqd),
        false,
        EINVAL,
        Want::Stay,
    ),
    (
        "INIT->RTR",
        Ask::Legal(QpState::Rtr),
        true,
        Want::To(QpState::Rtr),
        Want::Stay,
    ),
    // RTR
    (
        "RTR->INIT",
        Ask::Legal(QpState::Init),
        false,
        EINVAL,
        Want::Stay,
    ),
    (
        "RTR->RTS",
        Ask::Legal(QpState::Rts),
        true,
        Want::To(QpState::Rts),
        EINVAL,
    ),
    // RTS: SQD, and back once drained (rxe refuses SQD->RTS while draining).
    (
        "RTS->SQD",
        Ask::SqdNotify,
        false,
        Want::To(QpState::Sqd),
        Want::Stay,
    ),
    (
        "SQD->RTS",
        Ask::Bare(QpState::Rts),
        false,
        Want::To(QpState::Rts),
        EINVAL,
    ),
    (
        "RTS->ERR",
        Ask::Bare(QpState::Err),
        false,
        Want::To(QpState::Err),
        Want::To(QpState::Err),
    ),
    // ERR: only RESET (and ERR) are legal.
    (
        "ERR->RTS",
        Ask::Bare(QpState::Rts),
        false,
        EINVAL,
        Want::Stay,
    ),
    (
        "ERR->RESET",
        Ask::Bare(QpState::Reset),
        false,
        Want::To(QpState::Reset),
        Want::Stay,
    ),
    // The table has no RESET->ERR.
    (
        "RESET->ERR",
        Ask::Bare(QpState::Err),
        false,
        EINVAL,
        Want::Stay,
    ),
];

/// A QP walked through its states, each step checked against the driver's rules and
/// followed by QUERY_QP.
struct Walk<'a> {
    qp: &'a Qp,
    rxe: bool,
    /// The state the QP is in, as the rules say.
    cur: QpState,
    /// siw: whether QUERY_QP reports the state (since Linux 6.8, "RDMA/siw: Set
    /// qp_state in siw_query_qp"; before, the answer's state is always 0, RESET).
    siw_reports: bool,
}

impl Walk<'_> {
    /// Queries the QP and checks its state against the rules' (`after`: the step).
    fn check_state(&self, o: &mut Outcome, after: &str) {
        let want = if self.rxe || self.siw_reports {
            self.cur
        } else {
            QpState::Reset
        };
        match query(self.qp) {
            Ok(q) => {
                let got = state_name(q.state());
                o.check(q.state() == want, || {
                    format!(
                        "QUERY_QP after {after}: {got}, expected {}",
                        state_name(want)
                    )
                });
                o.fact(format!("{after}.query"), got);
            }
            Err(e) => o.fail(format!("QUERY_QP after {after}: {e}")),
        }
    }

    /// One modification, answered as `want` says.
    fn step(&mut self, o: &mut Outcome, what: &str, m: ModifyQp, want: Want) {
        let want = match want {
            Want::Stay => Want::To(self.cur),
            Want::AvPort if m.mask().contains(QpAttrMask::AV) => EINVAL,
            Want::AvPort => Want::To(self.cur),
            w => w,
        };
        let r = modify(self.qp, m);
        let got = answer(&r);
        let ok = match (want, &r) {
            (Want::To(s), Ok(())) => {
                self.cur = s;
                true
            }
            (Want::Refused(e), Err(err)) => err.errno() == Some(e),
            _ => false,
        };
        o.check(ok, || {
            let w = match want {
                Want::To(s) => format!("ok ({})", state_name(s)),
                _ => "errno 22".into(),
            };
            format!(
                "MODIFY_QP {what} (mask {:?}): {got}, expected {w}",
                m.mask()
            )
        });
        o.fact(format!("{what}.modify"), got);
        self.check_state(o, what);
    }
}

/// `objects.qp_states.<type>`: the QP state table through MODIFY_QP ([`WALK`]), each
/// step followed by QUERY_QP: each legal transition with exactly its required
/// attributes is accepted, each with one of them left out and each illegal one is
/// refused with EINVAL and the state does not change (rxe); siw answers as iWARP.
fn qp_states(bed: &Bed, t: QpType, o: &mut Outcome) -> core::result::Result<(), Stop> {
    let cq = bed.cq(16)?;
    let qp = match bed.qp(t, &cq, 8) {
        Ok(q) => q,
        Err(e) if !bed.rxe && t != QpType::Rc => {
            // iWARP has reliable connections only: siw_create_qp refuses other types.
            o.check(e.errno() == Some(Errno::OPNOTSUPP), || {
                format!("CREATE_QP {t:?} on siw: {e}, expected EOPNOTSUPP")
            });
            let name = if t == QpType::Uc { "UC" } else { "UD" };
            return Err(Stop::Skip(format!(
                "iWARP has no {name} QPs (siw: CREATE_QP EOPNOTSUPP)"
            )));
        }
        Err(e) => return Err(needed("CREATE_QP")(e)),
    };
    let mut w = Walk {
        qp: &qp,
        rxe: bed.rxe,
        cur: QpState::Reset,
        siw_reports: false,
    };
    if !bed.rxe {
        // A new siw QP is IDLE, which a siw that reports states calls INIT.
        let s = query(&qp).map_err(needed("QUERY_QP"))?.state();
        w.siw_reports = s == QpState::Init;
        o.check(w.siw_reports || s == QpState::Reset, || {
            format!(
                "QUERY_QP of a new siw QP: {}, expected INIT (IDLE) or RESET (none reported)",
                state_name(s)
            )
        });
        o.fact("siw.query_reports_state", w.siw_reports);
        w.cur = QpState::Init;
    }
    w.check_state(o, "create");
    for (what, ask, each_left_out, ibta, siw) in WALK {
        let want = if bed.rxe { ibta } else { siw };
        let m = match ask {
            Ask::Legal(s) => legal(t, s, qp.qp_num(), bed.gid),
            Ask::Bare(s) => ModifyQp::new().state(s),
            Ask::SqdNotify => ModifyQp::new()
                .state(QpState::Sqd)
                .en_sqd_async_notify(true),
            Ask::InitSqPsn => legal(t, QpState::Init, 0, bed.gid).sq_psn(0),
        };
        if each_left_out {
            for (name, bit) in m.mask().iter_names() {
                if bit != QpAttrMask::STATE {
                    let left_out = if bed.rxe { EINVAL } else { siw };
                    w.step(
                        o,
                        &format!("{what} without {name}"),
                        m.without(bit),
                        left_out,
                    );
                }
            }
        }
        w.step(o, what, m, want);
        if ask == Ask::SqdNotify && bed.rxe {
            wait_drained(&qp)?;
        }
    }
    Ok(())
}

/// Waits until QUERY_QP says the send queue no longer drains.
fn wait_drained(qp: &Qp) -> core::result::Result<(), Stop> {
    let t0 = Instant::now();
    while query(qp).map_err(needed("QUERY_QP"))?.attr().sq_draining {
        if t0.elapsed() > DEADLINE {
            return Err(Stop::Failed(format!(
                "SQD: still draining after {} s",
                DEADLINE.as_secs()
            )));
        }
        std::thread::yield_now();
    }
    Ok(())
}

/// Posts `n` receives of 64 bytes each (wr_id `base + i`) from `mr` to `qp`.
fn post_recvs(qp: &Qp, mr: &Mr, base: u64, n: u32) -> core::result::Result<(), Stop> {
    for i in 0..n {
        let Some(s) = Sge::new(mr, 64 * i as usize, 64) else {
            return Err(Stop::Failed("receive SGE out of the buffer".into()));
        };
        qp.post_recv(&[RecvWr::new(base + u64::from(i), &[s])])
            .map_err(needed("post_recv"))?;
    }
    Ok(())
}

/// A QP of type RC on `cq` moved to INIT, with `n` receives posted from `mr`; then moved
/// to ERR, which flushes them into `cq`. Returns the QP once its receive queue is empty
/// again: every receive was flushed. siw flushes within MODIFY_QP; rxe in its responder
/// task, writing each completion before it frees the receive on 6.12 (flush_recv_queue)
/// and just after on 6.1 (do_complete), in the same task run, which the rig's one-CPU
/// guest does not interrupt (6.1's rxe tasks are tasklets).
fn flush(bed: &Bed, cq: &Cq, mr: &Mr, base: u64, n: u32) -> core::result::Result<Qp, Stop> {
    let qp = bed.qp(QpType::Rc, cq, n).map_err(needed("CREATE_QP"))?;
    modify(&qp, legal(QpType::Rc, QpState::Init, 0, bed.gid))
        .map_err(needed("MODIFY_QP RESET->INIT"))?;
    let free = qp.recv_queue_free();
    post_recvs(&qp, mr, base, n)?;
    modify(&qp, ModifyQp::new().state(QpState::Err)).map_err(needed("MODIFY_QP INIT->ERR"))?;
    let t0 = Instant::now();
    while qp.recv_queue_free() != free {
        if t0.elapsed() > DEADLINE {
            return Err(Stop::Failed(format!(
                "{} of {n} receives flushed after {} s",
                n - (free - qp.recv_queue_free()),
                DEADLINE.as_secs()
            )));
        }
        std::thread::yield_now();
    }
    Ok(qp)
}

/// Polls `cq` until `n` completions came (failing past the deadline), then checks that
/// no more is there.
#[inline(never)]
fn poll_n(cq: &Cq, n: usize) -> core::result::Result<Vec<Wc>, Stop> {
    let t0 = Instant::now();
    let mut got = Vec::with_capacity(n);
    let mut wc = [Wc::default(); 16];
    loop {
        // One more than asked for, so that an extra completion shows.
        let room = (n + 1 - got.len()).min(wc.len());
        let k = cq.poll(&mut wc[..room]).map_err(needed("POLL_CQ"))?;
        got.extend_from_slice(&wc[..k]);
        if got.len() > n {
            return Err(Stop::Failed(format!(
                "a completion more than the {n} expected: {}",
                wc_text(&got[n])
            )));
        }
        if got.len() == n && k == 0 {
            return Ok(got);
        }
        if k == 0 && t0.elapsed() > DEADLINE {
            return Err(Stop::Failed(format!(
                "{} of {n} completions within {} s",
                got.len(),
                DEADLINE.as_secs()
            )));
        }
        if k == 0 {
            std::thread::yield_now();
        }
    }
}

/// Checks that `wcs` are the flushed receives `base..` of `qp`, in order.
fn check_flushed(o: &mut Outcome, what: &str, wcs: &[Wc], qp: &Qp, base: u64) {
    for (i, w) in (base..).zip(wcs) {
        o.check(
            w.wr_id == i && w.status == WcStatus::WrFlushErr && w.qp_num == qp.qp_num(),
            || {
                format!(
                    "{what}: {}, expected wr_id {i} IBV_WC_WR_FLUSH_ERR qp_num {}",
                    wc_text(w),
                    qp.qp_num()
                )
            },
        );
    }
}

/// `objects.cq_resize`: a CQ holding 3 completions is resized below them (refused:
/// EINVAL, rxe_cq_chk_attr), above them (to 64 entries at least) and to exactly them;
/// then it gives the 3, in order. siw has no resize (EOPNOTSUPP).
fn cq_resize(bed: &Bed, o: &mut Outcome) -> core::result::Result<(), Stop> {
    let cq = bed.cq(4)?;
    o.fact("cqe", cq.cqe());
    if !bed.rxe {
        let r = cq.resize(8);
        o.fact("resize", answer(&r));
        return match r {
            Err(Error::NotSupported { errno, .. }) if errno == Errno::OPNOTSUPP => Err(Stop::Skip(
                "siw has no CQ resize (RESIZE_CQ: EOPNOTSUPP)".into(),
            )),
            r => Err(Stop::Failed(format!(
                "RESIZE_CQ on siw: {}, expected EOPNOTSUPP",
                answer(&r)
            ))),
        };
    }
    const N: u32 = 3;
    let mr = bed.mr(64 * N as usize)?;
    let qp = flush(bed, &cq, &mr, 100, N)?;
    let below = cq.resize(N - 1);
    o.fact("resize.below_contents", answer(&below));
    o.check(
        matches!(&below, Err(e) if e.errno() == Some(Errno::INVAL)),
        || {
            format!(
                "RESIZE_CQ to {} with {N} completions in it: {}, expected EINVAL",
                N - 1,
                answer(&below)
            )
        },
    );
    for (what, size, min) in [("larger", 64, 64), ("to_contents", N, N)] {
        match cq.resize(size) {
            Ok(n) => {
                o.fact(format!("resize.{what}"), "ok");
                o.check(n >= min && cq.cqe() == n, || {
                    format!(
                        "RESIZE_CQ to {size}: {n} entries (the CQ says {}), expected at least {min}",
                        cq.cqe()
                    )
                });
            }
            Err(e) => o.fail(format!(
                "RESIZE_CQ to {size} with {N} completions in it: {e}"
            )),
        }
    }
    let wcs = poll_n(&cq, N as usize)?;
    check_flushed(o, "after the resizes", &wcs, &qp, 100);
    Ok(())
}

/// The next async event within `timeout`, as text (`None`: none came); the end of the
/// stream and a failed read are events of a kind too, for these cases.
#[inline(never)]
fn next_event(events: &mut EventStream, timeout: Duration) -> Option<(Option<Event>, String)> {
    match events.read_timeout(timeout) {
        Ok(Next::Event(e)) => Some((Some(e), e.to_string())),
        Ok(Next::Empty) => None,
        Ok(Next::End) => Some((None, "the event file ended".into())),
        Err(e) => Some((None, format!("reading events: {e}"))),
    }
}

/// An event already queued, if any (the cases look after what would raise it has
/// completed).
fn pending_event(events: &mut EventStream) -> Option<String> {
    next_event(events, Duration::ZERO).map(|(_, text)| text)
}

/// Checks that the next async event, within the deadline, is `want` about `element`
/// (the object's `user_handle`).
fn expect_event(o: &mut Outcome, events: &mut EventStream, want: EventType, element: u64) {
    let name = want.c_name().unwrap_or("?");
    match next_event(events, DEADLINE) {
        Some((Some(e), _)) if e.kind == want && e.element == element => o.fact("event", name),
        Some((_, text)) => o.fail(format!("{text}, expected {name} of handle {element:#x}")),
        None => o.fail(format!("no {name} within {} s", DEADLINE.as_secs())),
    }
}

/// `objects.srq_limit`: an SRQ with 4 receives, armed at 2 (MODIFY_SRQ, QUERY_SRQ
/// reports it), raises IBV_EVENT_SRQ_LIMIT_REACHED naming it when the third receive is
/// consumed (fewer than 2 left), not before; the limit is then disarmed (QUERY_SRQ: 0)
/// and the fourth raises nothing. rxe: a QP sending to itself, receiving from the SRQ.
/// siw consumes receives only from an iWARP connection: it is armed and queried only.
fn srq_limit(mut bed: Bed, o: &mut Outcome) -> core::result::Result<(), Stop> {
    let cq = bed.cq(16)?;
    let srq = bed
        .pd
        .create_srq(&SrqInit {
            max_wr: 4,
            max_sge: 1,
            srq_limit: 0,
        })
        .map_err(needed("CREATE_SRQ"))?;
    let limit = |o: &mut Outcome, what: &str, want: u32| match srq.query() {
        Ok(a) => {
            o.fact(format!("{what}.srq_limit"), a.srq_limit);
            o.check(a.srq_limit == want, || {
                format!(
                    "QUERY_SRQ {what}: srq_limit {}, expected {want}",
                    a.srq_limit
                )
            });
        }
        Err(e) => o.fail(format!("QUERY_SRQ {what}: {e}")),
    };
    limit(o, "created", 0);
    let qp = bed
        .pd
        .create_qp(&QpInit::new(QpType::Rc, &cq, &cq).srq(&srq).cap(QpCap {
            max_send_wr: 8,
            max_recv_wr: 0,
            max_send_sge: 1,
            max_recv_sge: 0,
            max_inline_data: 0,
        }))
        .map_err(needed("CREATE_QP with an SRQ"))?;
    let mr = bed.mr(64 * 4)?;
    for i in 0..4u32 {
        let Some(s) = Sge::new(&mr, 64 * i as usize, 64) else {
            return Err(Stop::Failed("receive SGE out of the buffer".into()));
        };
        srq.post_recv(&[RecvWr::new(u64::from(i), &[s])])
            .map_err(needed("post_srq_recv"))?;
    }
    srq.modify(&ModifySrq::new().limit(2))
        .map_err(needed("MODIFY_SRQ limit 2"))?;
    limit(o, "armed", 2);
    if !bed.rxe {
        return Err(Stop::Skip(
            "siw consumes SRQ receives only from an iWARP connection (the CM, which needs an IP address)"
                .into(),
        ));
    }
    to_rts(&qp, QpType::Rc, bed.gid)?;
    let Some(s) = Sge::new(&mr, 0, 64) else {
        return Err(Stop::Failed("send SGE out of the buffer".into()));
    };
    for k in 1..=4u64 {
        qp.post_send(&[SendWr::new(100 + k, SendOp::Send).sg(&[s]).signaled()])
            .map_err(needed("POST_SEND"))?;
        // The send's and the receive's completions: the receive was taken from the SRQ
        // (and any event raised) before its completion was written.
        let wcs = poll_n(&cq, 2)?;
        for w in &wcs {
            o.check(w.status == WcStatus::Success, || {
                format!("send {k}: {}", wc_text(w))
            });
        }
        if k == 3 {
            expect_event(
                o,
                &mut bed.events,
                EventType::SrqLimitReached,
                srq.user_handle(),
            );
            limit(o, "after the event", 0);
        } else if let Some(e) = pending_event(&mut bed.events) {
            o.fail(format!(
                "after receive {k} ({} left, limit {}): {e}",
                4 - k,
                if k < 3 { 2 } else { 0 }
            ));
        }
    }
    Ok(())
}

/// `events.comp_channel`: a CQ bound to a completion channel and armed reports its next
/// completion by exactly one event naming it, which is acknowledged; a completion
/// without arming again reports nothing; armed again, the next one is reported.
/// Completions are flushed receives, on rxe and siw alike.
fn comp_channel(bed: &Bed, o: &mut Outcome) -> core::result::Result<(), Stop> {
    let ch = bed
        .ctx
        .create_comp_channel()
        .map_err(needed("CREATE_COMP_CHANNEL"))?;
    let cq = bed
        .ctx
        .create_cq(8, Some(&ch), 0)
        .map_err(needed("CREATE_CQ"))?;
    let mr = bed.mr(64)?;
    let none = |o: &mut Outcome, when: &str| match ch.get_event(Some(Duration::ZERO)) {
        Ok(None) => {}
        Ok(Some(c)) => o.fail(format!("{when}: an event of CQ handle {}", c.handle())),
        Err(e) => o.fail(format!("{when}: get_cq_event: {e}")),
    };
    let mut qps = Vec::new();
    for (round, armed) in [(1u64, true), (2, false), (3, true)] {
        if armed {
            cq.req_notify(false).map_err(needed("REQ_NOTIFY_CQ"))?;
        }
        qps.push(flush(bed, &cq, &mr, round, 1)?);
        if armed {
            match ch.get_event(Some(DEADLINE)) {
                Ok(Some(c)) => o.check(c.handle() == cq.handle(), || {
                    format!(
                        "round {round}: an event of CQ handle {}, expected {}",
                        c.handle(),
                        cq.handle()
                    )
                }),
                Ok(None) => o.fail(format!(
                    "round {round}: no completion event within {} s of an armed CQ's completion",
                    DEADLINE.as_secs()
                )),
                Err(e) => return Err(needed("get_cq_event")(e)),
            }
        }
        let wcs = poll_n(&cq, 1)?;
        check_flushed(
            o,
            &format!("round {round}"),
            &wcs,
            &qps[qps.len() - 1],
            round,
        );
        none(o, &format!("round {round}, after its completion"));
        let (got, acked) = cq.events();
        cq.ack_events(got - acked);
        o.fact(format!("round{round}.events"), got);
    }
    let (got, acked) = cq.events();
    o.check((got, acked) == (2, 2), || {
        format!("{got} events taken, {acked} acknowledged: expected 2 and 2")
    });
    Ok(())
}

/// `events.qp_async`: an RC QP in RTS moved to SQD (asking for the drained event)
/// raises IBV_EVENT_SQ_DRAINED naming it once its (empty) send queue drained. rxe raises
/// it from its requester (rxe_req.c); siw reaches RTS only through the iWARP CM.
fn qp_async(mut bed: Bed, o: &mut Outcome) -> core::result::Result<(), Stop> {
    if !bed.rxe {
        return Err(Stop::Skip(
            "siw reaches RTS, and so SQD, only through the iWARP CM".into(),
        ));
    }
    let cq = bed.cq(16)?;
    let qp = bed.qp(QpType::Rc, &cq, 1).map_err(needed("CREATE_QP"))?;
    to_rts(&qp, QpType::Rc, bed.gid)?;
    if let Some(e) = pending_event(&mut bed.events) {
        o.fail(format!("before SQD: {e}"));
    }
    let sqd = ModifyQp::new()
        .state(QpState::Sqd)
        .en_sqd_async_notify(true);
    modify(&qp, sqd).map_err(needed("MODIFY_QP RTS->SQD"))?;
    expect_event(o, &mut bed.events, EventType::SqDrained, qp.user_handle());
    Ok(())
}

/// `events.cq_async`: a CQ that overruns raises IBV_EVENT_CQ_ERR naming it, once, and
/// keeps the completions that fit (its `cqe`): one receive more than it holds, flushed
/// (rxe_cq_post, siw_rqe_complete).
fn cq_async(mut bed: Bed, o: &mut Outcome) -> core::result::Result<(), Stop> {
    let cq = bed.cq(1)?;
    let n = cq.cqe();
    o.fact("cqe", n);
    let mr = bed.mr(64 * (n as usize + 1))?;
    let qp = bed
        .qp(QpType::Rc, &cq, n + 1)
        .map_err(needed("CREATE_QP"))?;
    modify(&qp, legal(QpType::Rc, QpState::Init, 0, bed.gid))
        .map_err(needed("MODIFY_QP RESET->INIT"))?;
    post_recvs(&qp, &mr, 0, n + 1)?;
    modify(&qp, ModifyQp::new().state(QpState::Err)).map_err(needed("MODIFY_QP INIT->ERR"))?;
    expect_event(o, &mut bed.events, EventType::CqErr, cq.user_handle());
    let wcs = poll_n(&cq, n as usize)?;
    check_flushed(o, "the CQ's entries", &wcs, &qp, 0);
    if let Some(e) = pending_event(&mut bed.events) {
        o.fail(format!("a second event: {e}"));
    }
    Ok(())
}
