//! The `wire.rc.*` cases: errors on the wire between two RC QPs of the device, connected
//! as the `data.rc.*` cases connect them ([`super::data`]'s pair, memory and polling).
//! Each error is made on a fresh pair, since it leaves a QP in the error state. Every
//! case checks the exact completion status of the request that failed, that the
//! requests posted behind it complete with `WR_FLUSH_ERR` (unsignaled ones too: a
//! request completed in error always completes), the state of both QPs afterwards
//! (QUERY_QP, polled under a deadline until the error state), and the async events
//! the error raised.
//!
//! What is compared is what the IBTA specifies (Vol 1, 9.9 and 10.8.3, the "responder
//! class A-J" errors and their completions), and where rxe answers otherwise, rxe's
//! answer as observed in the rig on Debian's Linux 6.1 and 6.12, named with the place
//! in its source that decides it (the same on both kernels but for one status, which
//! the case says). Either is a pass (the case's diagnostics say which rxe answer it
//! saw), any other status is a failure; the status seen is a fact, so a baseline
//! notices a kernel that changes from one to another.
//!
//! Async events: the IBTA has the responder raise "Local Access Violation Work Queue
//! Error" (`IBV_EVENT_QP_ACCESS_ERR`) for an R_Key violation and "Invalid Request Local
//! Work Queue Error" (`IBV_EVENT_QP_REQ_ERR`) for a length error. rxe raises neither,
//! nor `QP_FATAL`, on any path (6.1 and 6.12: its only QP events are `SQ_DRAINED`, and
//! from 6.12 `QP_LAST_WQE_REACHED` for a QP with an SRQ). So the responder may raise
//! the IBTA's event or none, and nothing else may come, on either QP.

use crate::selftest::data::{self, c_name, wc_text, Pair};
use crate::selftest::{Outcome, Status};
use crate::types::{AccessFlags, EventType, QpState, TransportType, WcStatus};
use crate::verbs::datapath::{RecvWr, Remote, SendOp, SendWr, Sge, Wc};
use crate::verbs::discover::DeviceInfo;
use crate::verbs::event::{EventScope, Next};
use crate::verbs::objects::{ModifyQp, Mr, Qp};

/// The cases: name, the kernel methods they exercise.
pub(super) const CASES: [(&str, &str); 4] = [
    (
        "remote_access",
        "POST_SEND (RDMA_WRITE, RDMA_READ) to an MR without the remote right, with a wrong rkey; QUERY_QP; the async event file",
    ),
    (
        "local_protection",
        "POST_SEND (SEND from another PD's MR, RDMA_READ into an MR without LOCAL_WRITE); QUERY_QP",
    ),
    (
        "rnr",
        "POST_SEND (SEND) with no receive posted, rnr_retry 0; QUERY_QP",
    ),
    (
        "length",
        "POST_RECV, POST_SEND (SEND longer than the receive); QUERY_QP; the async event file",
    ),
];

/// A completion status a case expects: the IBTA's, and rxe's where it differs.
#[derive(Debug, Clone, Copy)]
pub(super) struct Want {
    ibta: WcStatus,
    /// rxe's statuses (one per kernel where they differ), each with where its source
    /// decides it.
    rxe: &'static [(WcStatus, &'static str)],
}

pub(super) const fn ibta(s: WcStatus) -> Want {
    Want { ibta: s, rxe: &[] }
}

pub(super) const FLUSH: Want = ibta(WcStatus::WrFlushErr);

/// Which QP of the pair: the requester (`a`) or the responder (`b`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Side {
    Req,
    Resp,
}

impl Side {
    fn name(self) -> &'static str {
        match self {
            Side::Req => "requester",
            Side::Resp => "responder",
        }
    }
    fn qp(self, p: &Pair) -> &Qp {
        match self {
            Side::Req => &p.a,
            Side::Resp => &p.b,
        }
    }
}

/// What a step must end with: each completion (side, wr_id, status), each QP's state,
/// and the events the IBTA lets the error raise.
pub(super) struct End<'a> {
    pub(super) wcs: &'a [(Side, u64, Want)],
    pub(super) req: QpState,
    pub(super) resp: QpState,
    pub(super) events: &'a [(Side, EventType)],
}

/// Runs wire case `name` on `info`.
pub(super) fn run(info: &DeviceInfo, name: &str) -> Outcome {
    // iWARP has no RNR, and its errors (DDP/RDMAP terminate messages) are not the IBTA
    // classes these cases check.
    if info.transport == TransportType::Iwarp {
        return Outcome::skip(
            "iWARP's wire errors are not the IBTA's (no RNR, terminate messages)",
        );
    }
    let mut o = Outcome::new();
    match name {
        "remote_access" => remote_access(info, &mut o),
        "local_protection" => local_protection(info, &mut o),
        "rnr" => rnr(info, &mut o),
        _ => length(info, &mut o),
    }
    o
}

/// The connected pair with its event stream, each MODIFY_QP step through `tune`; when
/// it cannot be made, `o` takes the reason (a skip or the failure) and `None` comes.
fn pair(
    info: &DeviceInfo,
    o: &mut Outcome,
    tune: &dyn Fn(&str, ModifyQp) -> ModifyQp,
) -> Option<Pair> {
    match data::connect(info, 0, true, tune) {
        Ok(p) => Some(p),
        Err(why) => {
            o.diag.extend(why.diag);
            if o.status != Some(Status::Fail) {
                o.status = why.status;
            }
            None
        }
    }
}

fn plain(_: &str, m: ModifyQp) -> ModifyQp {
    m
}

pub(super) fn post_send(qp: &Qp, wrs: &[SendWr<'_>], what: &str, o: &mut Outcome) -> bool {
    qp.post_send(wrs)
        .map_err(|e| o.fail(format!("POST_SEND {what}: {e}")))
        .is_ok()
}

pub(super) fn post_recv(qp: &Qp, wrs: &[RecvWr<'_>], o: &mut Outcome) -> bool {
    qp.post_recv(wrs)
        .map_err(|e| o.fail(format!("POST_RECV: {e}")))
        .is_ok()
}

/// Two trailing SENDs of `sge`, the first unsignaled, for the error to flush.
pub(super) fn trailing<'a>(sge: &'a [Sge<'a>], ids: [u64; 2]) -> [SendWr<'a>; 2] {
    [
        SendWr::new(ids[0], SendOp::Send).sg(sge),
        SendWr::new(ids[1], SendOp::Send).sg(sge).signaled(),
    ]
}

/// Checks a completion's status against `want`.
fn check_status(o: &mut Outcome, what: &str, w: &Wc, want: Want) {
    o.fact(
        format!("{what}.status"),
        c_name(w.status.c_name(), w.status.as_raw()),
    );
    if w.status == want.ibta {
        return;
    }
    let name = |s: WcStatus| c_name(s.c_name(), s.as_raw());
    match want.rxe.iter().find(|(s, _)| *s == w.status) {
        Some((s, why)) => o.diag.push(format!(
            "{what}: {} where the IBTA says {} (rxe: {why})",
            name(*s),
            name(want.ibta)
        )),
        None => o.fail(format!(
            "{what}: completion {}, expected {}{}",
            wc_text(w),
            name(want.ibta),
            want.rxe
                .iter()
                .map(|(s, _)| format!(" or rxe's {}", name(*s)))
                .collect::<String>()
        )),
    }
}

/// Waits for the step's completions and checks them, then the QPs' states (an error
/// state is polled for until the deadline: the responder moves there after it sent
/// its NAK), then the events that came.
pub(super) fn finish(p: &mut Pair, o: &mut Outcome, step: &str, end: &End<'_>) {
    let Some(wcs) = p.wait(end.wcs.len(), o) else {
        return;
    };
    for w in &wcs {
        let side = if w.qp_num == p.a.qp_num() {
            Side::Req
        } else {
            Side::Resp
        };
        match end
            .wcs
            .iter()
            .find(|(s, id, _)| *s == side && *id == w.wr_id)
        {
            Some(&(_, id, want)) => {
                check_status(o, &format!("{step}.{}.wr{id}", side.name()), w, want)
            }
            None => o.fail(format!(
                "{step}: unexpected completion on the {}: {}",
                side.name(),
                wc_text(w)
            )),
        }
    }
    for (side, want) in [(Side::Req, end.req), (Side::Resp, end.resp)] {
        let got = state_after(side.qp(p), want);
        let what = format!("{step}.{}", side.name());
        match got {
            Ok(s) => {
                o.fact(format!("{what}.state"), format!("{s:?}"));
                o.check(s == want, || {
                    format!("{what}: QUERY_QP state {s:?}, expected {want:?}")
                });
            }
            Err(e) => o.fail(format!("{what}: QUERY_QP: {e}")),
        }
    }
    check_events(p, o, step, end.events);
}

/// The QP's state: at once, or when `want` is the error state, as soon as it is there
/// (polled until [`data::DEADLINE`]).
pub(super) fn state_after(qp: &Qp, want: QpState) -> crate::error::Result<QpState> {
    let t0 = std::time::Instant::now();
    loop {
        let s = qp.query()?.state();
        if s == want || want != QpState::Err || t0.elapsed() > data::DEADLINE {
            return Ok(s);
        }
        std::thread::yield_now();
    }
}

/// Reads every event that came (without waiting: the kernel raises an error's event
/// before the QP's state changes, which was waited for); each must be one `allowed`
/// lets the step raise, about that QP.
fn check_events(p: &mut Pair, o: &mut Outcome, step: &str, allowed: &[(Side, EventType)]) {
    let (ha, hb) = (p.a.user_handle(), p.b.user_handle());
    let Some(events) = p.events.as_mut() else {
        return o.fail("no event stream");
    };
    let mut seen = Vec::new();
    loop {
        match events.try_read() {
            Ok(Next::Event(e)) => {
                let side = match e.scope() {
                    EventScope::Qp(h) if h == ha => Some(Side::Req),
                    EventScope::Qp(h) if h == hb => Some(Side::Resp),
                    _ => None,
                };
                let text = match side {
                    Some(s) => format!("{} {}", s.name(), c_name(e.kind.c_name(), e.kind.as_raw())),
                    None => e.to_string(),
                };
                o.check(side.is_some_and(|s| allowed.contains(&(s, e.kind))), || {
                    format!("{step}: unexpected async event: {text}")
                });
                seen.push(text);
            }
            Ok(Next::Empty) => break,
            Ok(Next::End) => return o.fail(format!("{step}: the async event file ended")),
            Err(e) => return o.fail(format!("{step}: reading async events: {e}")),
        }
    }
    o.fact(
        format!("{step}.events"),
        if seen.is_empty() {
            "none".to_owned()
        } else {
            seen.join(", ")
        },
    );
}

/// The remote-access error of rxe's responder (rxe_resp.c, RESPST_ERR_RKEY_VIOLATION:
/// a class C error, NAK "remote access error", the QP to the error state): what the
/// IBTA says too.
pub(super) const REM_ACCESS: Want = ibta(WcStatus::RemAccessErr);

/// `wire.rc.remote_access`: an RDMA WRITE to an MR registered without REMOTE_WRITE, an
/// RDMA READ from one without REMOTE_READ, an RDMA WRITE with a wrong rkey. Each:
/// REM_ACCESS_ERR on the request, the two SENDs behind it and the responder's receive
/// flushed, both QPs in ERR, the target's bytes untouched.
fn remote_access(info: &DeviceInfo, o: &mut Outcome) {
    for step in ["write_no_right", "read_no_right", "write_bad_rkey"] {
        let Some(mut p) = pair(info, o, &plain) else {
            return;
        };
        let local_only = AccessFlags::LOCAL_WRITE;
        let target = match step {
            "write_bad_rkey" => p.mr(&[0u8; 4096], o),
            _ => Pair::mr_in(&p.pd, &[0u8; 4096], local_only, o),
        };
        let (Some(target), Some(src), Some(rbuf)) = (
            target,
            p.mr(&data::pattern(256, 7), o),
            p.mr(&[0u8; 256], o),
        ) else {
            return;
        };
        let (Some(s), Some(r)) = (Sge::new(&src, 0, 256), Sge::new(&rbuf, 0, 256)) else {
            return o.fail("SGE out of the buffer");
        };
        let (ss, rs) = ([s], [r]);
        let remote = Remote {
            addr: target.addr() + 64,
            // rxe's key is the pool index and 8 bits of its own: a different low byte
            // names no MR.
            rkey: match step {
                "write_bad_rkey" => target.rkey() ^ 0x5a,
                _ => target.rkey(),
            },
        };
        let op = match step {
            "read_no_right" => SendOp::RdmaRead(remote),
            _ => SendOp::RdmaWrite(remote),
        };
        let [t1, t2] = trailing(&ss, [2, 3]);
        if !post_recv(&p.b, &[RecvWr::new(100, &rs)], o)
            || !post_send(
                &p.a,
                &[SendWr::new(1, op).sg(&ss).signaled(), t1, t2],
                step,
                o,
            )
        {
            return;
        }
        finish(
            &mut p,
            o,
            step,
            &End {
                wcs: &[
                    (Side::Req, 1, REM_ACCESS),
                    (Side::Req, 2, FLUSH),
                    (Side::Req, 3, FLUSH),
                    (Side::Resp, 100, FLUSH),
                ],
                req: QpState::Err,
                resp: QpState::Err,
                events: &[(Side::Resp, EventType::QpAccessErr)],
            },
        );
        untouched(o, step, &target, 0);
        if step == "read_no_right" {
            untouched(o, step, &src, 256);
        }
    }
}

/// Fails the case when `mr` holds other than zeros (`pattern_len` 0) or than the
/// pattern it was made with.
pub(super) fn untouched(o: &mut Outcome, step: &str, mr: &Mr, pattern_len: usize) {
    let mut got = vec![0u8; mr.len()];
    mr.read_at(0, &mut got);
    let ok = match pattern_len {
        0 => got.iter().all(|&b| b == 0),
        n => got == data::pattern(n, 7),
    };
    o.check(ok, || {
        format!("{step}: a request that failed changed the memory it named")
    });
}

/// `wire.rc.local_protection`: a SEND whose SGE is an MR of another PD (a key this QP
/// may not use), and an RDMA READ into an MR registered without LOCAL_WRITE. Each:
/// LOC_PROT_ERR on the request (rxe: see below), the SENDs behind it flushed, the
/// requester in ERR; the responder, which saw nothing wrong, still RTS.
fn local_protection(info: &DeviceInfo, o: &mut Outcome) {
    for step in ["send_foreign_lkey", "read_into_readonly"] {
        let Some(mut p) = pair(info, o, &plain) else {
            return;
        };
        let want = match step {
            // rxe_req.c: finish_packet's copy_data fails in lookup_mr (the MR's PD is
            // not the QP's) with -EINVAL, and rxe_requester maps only -EFAULT (a range
            // outside the MR) to LOC_PROT_ERR, anything else to LOC_QP_OP_ERR. On 6.1
            // the completer then completes the request with that status. On 6.12 the
            // requester's error path calls rxe_qp_error() itself, and the completer,
            // finding the QP in ERR, flushes the whole send queue (flush_send_queue in
            // rxe_completer), the failed request included: its status is lost.
            "send_foreign_lkey" => Want {
                ibta: WcStatus::LocProtErr,
                rxe: &[
                    (
                        WcStatus::LocQpOpErr,
                        "Linux 6.1: rxe_req.c maps a key copy_data cannot look up \
                         (-EINVAL) to LOC_QP_OP_ERR",
                    ),
                    (
                        WcStatus::WrFlushErr,
                        "Linux 6.12: rxe_requester's error path moves the QP to ERR \
                         and rxe_completer flushes the failed request with the rest",
                    ),
                ],
            },
            // rxe_comp.c do_read: copy_data into the MR without LOCAL_WRITE fails.
            _ => ibta(WcStatus::LocProtErr),
        };
        let other_pd = match p.pd.context().alloc_pd() {
            Ok(pd) => pd,
            Err(e) => return o.fail(format!("ALLOC_PD (a second one): {e}")),
        };
        let local = match step {
            "send_foreign_lkey" => Pair::mr_in(
                &other_pd,
                &data::pattern(256, 7),
                AccessFlags::LOCAL_WRITE,
                o,
            ),
            _ => Pair::mr_in(&p.pd, &[0u8; 256], AccessFlags::empty(), o),
        };
        let (Some(local), Some(remote), Some(src)) = (
            local,
            p.mr(&data::pattern(256, 9), o),
            p.mr(&data::pattern(256, 7), o),
        ) else {
            return;
        };
        let (Some(l), Some(s)) = (Sge::new(&local, 0, 256), Sge::new(&src, 0, 256)) else {
            return o.fail("SGE out of the buffer");
        };
        let (ls, ss) = ([l], [s]);
        let op = match step {
            "send_foreign_lkey" => SendOp::Send,
            _ => SendOp::RdmaRead(Remote {
                addr: remote.addr(),
                rkey: remote.rkey(),
            }),
        };
        // The SENDs behind a READ are fenced, so that none reaches the responder (which
        // has no receive posted) before the READ failed.
        let [t1, t2] = trailing(&ss, [2, 3]);
        let (t1, t2) = (t1.fence(), t2.fence());
        if !post_send(
            &p.a,
            &[SendWr::new(1, op).sg(&ls).signaled(), t1, t2],
            step,
            o,
        ) {
            return;
        }
        finish(
            &mut p,
            o,
            step,
            &End {
                wcs: &[
                    (Side::Req, 1, want),
                    (Side::Req, 2, FLUSH),
                    (Side::Req, 3, FLUSH),
                ],
                req: QpState::Err,
                resp: QpState::Rts,
                events: &[],
            },
        );
        if step == "read_into_readonly" {
            untouched(o, step, &local, 0);
        }
    }
}

/// `wire.rc.rnr`: a SEND with no receive posted, from a QP whose rnr_retry is 0 (the
/// responder's RNR timer at its smallest, 0.01 ms): the responder answers RNR NAK
/// (rxe_resp.c, RESPST_ERR_RNR: class B, its state unchanged), the requester gives up at
/// once with RNR_RETRY_EXC_ERR (rxe_comp.c, COMPST_RNR_RETRY), the SENDs behind it are
/// flushed, the requester is in ERR and the responder still RTS.
fn rnr(info: &DeviceInfo, o: &mut Outcome) {
    let tune = |step: &str, m: ModifyQp| match step {
        "INIT->RTR" => m.min_rnr_timer(1),
        "RTR->RTS" => m.rnr_retry(0),
        _ => m,
    };
    let Some(mut p) = pair(info, o, &tune) else {
        return;
    };
    let Some(src) = p.mr(&data::pattern(256, 7), o) else {
        return;
    };
    let Some(s) = Sge::new(&src, 0, 256) else {
        return o.fail("SGE out of the buffer");
    };
    let ss = [s];
    let [t1, t2] = trailing(&ss, [2, 3]);
    if !post_send(
        &p.a,
        &[SendWr::new(1, SendOp::Send).sg(&ss).signaled(), t1, t2],
        "SEND",
        o,
    ) {
        return;
    }
    finish(
        &mut p,
        o,
        "send_no_receive",
        &End {
            wcs: &[
                (Side::Req, 1, ibta(WcStatus::RnrRetryExcErr)),
                (Side::Req, 2, FLUSH),
                (Side::Req, 3, FLUSH),
            ],
            req: QpState::Err,
            resp: QpState::Rts,
            events: &[],
        },
    );
}

/// `wire.rc.length`: a SEND of 300 bytes into a receive of 100. The IBTA: the
/// responder's receive fails with LOC_LEN_ERR and the requester's SEND with
/// REM_INV_REQ_ERR (the NAK "invalid request", class C). rxe: LOC_QP_OP_ERR and
/// REM_OP_ERR (below). Either way the responder's next receive and the requester's
/// SENDs behind it are flushed, and both QPs are in ERR.
fn length(info: &DeviceInfo, o: &mut Outcome) {
    let Some(mut p) = pair(info, o, &plain) else {
        return;
    };
    let (Some(src), Some(rbuf)) = (p.mr(&data::pattern(300, 7), o), p.mr(&[0u8; 200], o)) else {
        return;
    };
    let (Some(s), Some(r0), Some(r1)) = (
        Sge::new(&src, 0, 300),
        Sge::new(&rbuf, 0, 100),
        Sge::new(&rbuf, 100, 100),
    ) else {
        return o.fail("SGE out of the buffer");
    };
    let (ss, r0, r1) = ([s], [r0], [r1]);
    let [t1, t2] = trailing(&ss, [2, 3]);
    if !post_recv(&p.b, &[RecvWr::new(100, &r0), RecvWr::new(101, &r1)], o)
        || !post_send(
            &p.a,
            &[SendWr::new(1, SendOp::Send).sg(&ss).signaled(), t1, t2],
            "SEND",
            o,
        )
    {
        return;
    }
    // rxe (rxe_resp.c send_data_in, rxe_mr.c copy_data): a payload longer than the
    // receive's room fails copy_data's first check (length > resid) with -EINVAL, not
    // the -ENOSPC that send_data_in maps to RESPST_ERR_LENGTH, so it is
    // RESPST_ERR_MALFORMED_WQE: class A, the receive completes LOC_QP_OP_ERR and the
    // NAK is "remote operational error", which rxe_comp.c completes REM_OP_ERR.
    let resp_len = Want {
        ibta: WcStatus::LocLenErr,
        rxe: &[(
            WcStatus::LocQpOpErr,
            "copy_data's -EINVAL for a payload longer than the receive is \
             RESPST_ERR_MALFORMED_WQE in rxe_resp.c, a class A error",
        )],
    };
    let req_len = Want {
        ibta: WcStatus::RemInvReqErr,
        rxe: &[(
            WcStatus::RemOpErr,
            "rxe_resp.c NAKs a class A error \"remote operational error\", which \
             rxe_comp.c completes REM_OP_ERR",
        )],
    };
    finish(
        &mut p,
        o,
        "send_too_long",
        &End {
            wcs: &[
                (Side::Req, 1, req_len),
                (Side::Req, 2, FLUSH),
                (Side::Req, 3, FLUSH),
                (Side::Resp, 100, resp_len),
                (Side::Resp, 101, FLUSH),
            ],
            req: QpState::Err,
            resp: QpState::Err,
            events: &[(Side::Resp, EventType::QpReqErr)],
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::WcOpcode;

    fn wc(status: WcStatus) -> Wc {
        Wc {
            wr_id: 1,
            status,
            opcode: WcOpcode::Send,
            ..Wc::default()
        }
    }

    const RXE: Want = Want {
        ibta: WcStatus::LocProtErr,
        rxe: &[
            (WcStatus::LocQpOpErr, "why one"),
            (WcStatus::WrFlushErr, "why two"),
        ],
    };

    #[test]
    fn the_ibta_status_passes_quietly_and_is_a_fact() {
        let mut o = Outcome::new();
        check_status(&mut o, "s.requester.wr1", &wc(WcStatus::LocProtErr), RXE);
        assert_eq!(o.status, None);
        assert!(o.diag.is_empty());
        assert_eq!(
            o.facts,
            [(
                "s.requester.wr1.status".to_string(),
                "IBV_WC_LOC_PROT_ERR".to_string()
            )]
        );
    }

    #[test]
    fn an_rxe_status_passes_naming_the_deviation() {
        let mut o = Outcome::new();
        check_status(&mut o, "s.requester.wr1", &wc(WcStatus::WrFlushErr), RXE);
        assert_eq!(o.status, None);
        assert_eq!(
            o.diag,
            ["s.requester.wr1: IBV_WC_WR_FLUSH_ERR where the IBTA says IBV_WC_LOC_PROT_ERR (rxe: why two)"]
        );
        assert_eq!(o.facts[0].1, "IBV_WC_WR_FLUSH_ERR");
    }

    #[test]
    fn any_other_status_fails_naming_what_was_expected() {
        for s in [WcStatus::Success, WcStatus::RemAccessErr] {
            let mut o = Outcome::new();
            check_status(&mut o, "s.requester.wr1", &wc(s), RXE);
            assert_eq!(o.status, Some(Status::Fail), "{s:?}");
            assert!(
                o.diag[0].ends_with(
                    "expected IBV_WC_LOC_PROT_ERR or rxe's IBV_WC_LOC_QP_OP_ERR or rxe's IBV_WC_WR_FLUSH_ERR"
                ),
                "{:?}",
                o.diag
            );
        }
        let mut o = Outcome::new();
        check_status(&mut o, "x", &wc(WcStatus::Success), FLUSH);
        assert_eq!(o.status, Some(Status::Fail));
        assert!(
            o.diag[0].ends_with("expected IBV_WC_WR_FLUSH_ERR"),
            "{:?}",
            o.diag
        );
    }

    #[test]
    fn every_case_has_a_name_and_its_methods() {
        let names: Vec<&str> = CASES.iter().map(|c| c.0).collect();
        assert_eq!(
            names,
            ["remote_access", "local_protection", "rnr", "length"]
        );
        assert!(CASES.iter().all(|c| c.1.contains("POST_SEND")));
    }
}
