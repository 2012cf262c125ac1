//! The `traffic.*` cases: the data path beyond the RC pair of `data.rc.*`, each a
//! behaviour of the kernel's drivers a CI wants named when it breaks.
//!
//! - `traffic.ud.*`: SEND and SEND_WITH_IMM between two UD QPs of the device through an
//!   address handle: the 40 bytes of GRH in front of the payload (on RoCE v2 the IP
//!   header rxe copies there, `execute()` in rxe_resp.c), the completion's `src_qp` and
//!   `IBV_WC_GRH`, zero bytes, the port's MTU and one byte more (rxe_req.c: not sent,
//!   yet completed successfully, the IBTA's C10-93.1.1), a wrong Q_Key (dropped by
//!   `check_keys()` in rxe_recv.c, the port's Q_Key violation counter up), a receive too
//!   short, a QP sending to itself, a UD QP on an SRQ;
//! - `traffic.uc.*`: SEND, SEND_WITH_IMM, RDMA WRITE and WRITE_WITH_IMM over connected UC
//!   QPs, and the UC errors rxe_resp.c drops silently (class D/E): a SEND with no
//!   receive, a WRITE with a wrong rkey;
//! - `traffic.rc.*`: receives from an SRQ (one QP, two QPs sharing it, WRITE_WITH_IMM),
//!   zero-length RDMA WRITE and READ (no address or key needed, the IBTA's C9-88),
//!   memory registered with `RELAXED_ORDERING`, the path MTU's edges, an RDMA READ of
//!   several response packets;
//! - `traffic.rc.atomic_*`: an atomic's errors, as `wire.rc.*` checks them (the exact
//!   status, the flush behind, both QPs' states, the async events: [`super::wire`]).
//!
//! The pairs are [`super::data`]'s (rxe through its loopback, siw through the RDMA CM).
//! siw (iWARP) has neither UD nor UC QPs, no immediate data and no atomics: those cases
//! are skipped on it, saying so. Nothing waits on a fixed sleep: a message that must
//! not arrive is followed by one that must, which arrives behind it (the loopback keeps
//! their order), so its absence is known when the second one came.

use crate::selftest::data::{
    self, bytes, check_wc, pattern, same_bytes, wc_text, Pair, Shape, QKEY,
};
use crate::selftest::wire::{self, End, Side, FLUSH, REM_ACCESS};
use crate::selftest::Outcome;
use crate::types::{
    AccessFlags, AtomicCap, EventType, Gid, QpState, QpType, TransportType, WcFlags, WcOpcode,
    WcStatus,
};
use crate::verbs::datapath::{RecvWr, Remote, SendOp, SendWr, Sge, Wc};
use crate::verbs::discover::DeviceInfo;
use crate::verbs::objects::{Ah, AhAttr, ModifyQp, Mr, Qp};

/// The cases: full name, the kernel methods they exercise and what they check.
pub(super) const CASES: [(&str, &str); 30] = [
    (
        "traffic.ud.send",
        "POST_SEND (UD SEND through an AH): byte_len payload + 40, IBV_WC_GRH, src_qp",
    ),
    (
        "traffic.ud.send_imm",
        "POST_SEND (UD SEND_WITH_IMM): imm_data, WITH_IMM and GRH",
    ),
    (
        "traffic.ud.grh",
        "POST_SEND (UD SEND): the GRH's fields (IP version, next header, length, GIDs)",
    ),
    (
        "traffic.ud.send_zero",
        "POST_SEND (UD SEND of 0 bytes): the GRH alone arrives",
    ),
    (
        "traffic.ud.send_mtu",
        "POST_SEND (UD SEND of the port's active MTU): arrives whole",
    ),
    (
        "traffic.ud.send_mtu_plus_one",
        "POST_SEND (UD SEND of MTU + 1): completes successfully, nothing is sent (C10-93.1.1)",
    ),
    (
        "traffic.ud.qkey_mismatch",
        "POST_SEND (UD SEND with a wrong Q_Key): dropped, qkey_viol_cntr up; QUERY_PORT",
    ),
    (
        "traffic.ud.recv_too_short",
        "POST_SEND (UD SEND longer than the receive): the receive's status, QUERY_QP",
    ),
    (
        "traffic.ud.self",
        "POST_SEND (UD SEND to the sending QP itself): src_qp and qp_num the same QP",
    ),
    (
        "traffic.ud.srq",
        "CREATE_SRQ, POST_SRQ_RECV, POST_SEND (UD SEND into an SRQ's receive)",
    ),
    (
        "traffic.uc.send",
        "POST_SEND (UC SEND over 3 packets): byte_len, payload",
    ),
    (
        "traffic.uc.send_imm",
        "POST_SEND (UC SEND_WITH_IMM): imm_data, WITH_IMM",
    ),
    (
        "traffic.uc.write",
        "POST_SEND (UC RDMA_WRITE over 3 packets): no receive consumed",
    ),
    (
        "traffic.uc.write_imm",
        "POST_SEND (UC RDMA_WRITE_WITH_IMM): RECV_RDMA_WITH_IMM, imm_data",
    ),
    (
        "traffic.uc.send_no_receive",
        "POST_SEND (UC SEND, no receive posted): dropped, no RNR, the QPs stay RTS",
    ),
    (
        "traffic.uc.write_bad_rkey",
        "POST_SEND (UC RDMA_WRITE, wrong rkey): dropped, the QPs stay RTS",
    ),
    (
        "traffic.rc.srq",
        "CREATE_SRQ, POST_SRQ_RECV, POST_SEND (SEND): receives taken from the SRQ in order",
    ),
    (
        "traffic.rc.srq_shared",
        "POST_SRQ_RECV, POST_SEND both ways: two QPs share one SRQ, qp_num names the receiver",
    ),
    (
        "traffic.rc.srq_write_imm",
        "POST_SRQ_RECV, POST_SEND (RDMA_WRITE_WITH_IMM): an SRQ's receive consumed",
    ),
    (
        "traffic.rc.write_zero",
        "POST_SEND (RDMA_WRITE of 0 bytes, with a valid and a wrong rkey): success (C9-88)",
    ),
    (
        "traffic.rc.read_zero",
        "POST_SEND (RDMA_READ of 0 bytes, with a valid and a wrong rkey): success (C9-88)",
    ),
    (
        "traffic.rc.relaxed_ordering",
        "REG_MR (RELAXED_ORDERING), POST_SEND (RDMA_WRITE, SEND, RDMA_READ) through it",
    ),
    (
        "traffic.rc.send_mtu",
        "POST_SEND (SEND of exactly the path MTU, one packet)",
    ),
    (
        "traffic.rc.send_mtu_plus_one",
        "POST_SEND (SEND of the path MTU + 1, two packets)",
    ),
    (
        "traffic.rc.read_multi",
        "POST_SEND (RDMA_READ of 5 response packets into 3 SGEs)",
    ),
    (
        "traffic.rc.atomic_bad_rkey",
        "POST_SEND (ATOMIC_FETCH_AND_ADD, wrong rkey); QUERY_QP; the async event file",
    ),
    (
        "traffic.rc.atomic_no_right",
        "POST_SEND (ATOMIC_FETCH_AND_ADD on an MR without REMOTE_ATOMIC); QUERY_QP",
    ),
    (
        "traffic.rc.atomic_qp_no_right",
        "POST_SEND (ATOMIC_FETCH_AND_ADD to a QP without REMOTE_ATOMIC); QUERY_QP",
    ),
    (
        "traffic.rc.atomic_foreign_lkey",
        "POST_SEND (ATOMIC_FETCH_AND_ADD, its result into another PD's MR); QUERY_QP",
    ),
    (
        "traffic.rc.atomic_out_of_range",
        "POST_SEND (ATOMIC_FETCH_AND_ADD past the MR's end); QUERY_QP",
    ),
];

/// The bytes of GRH in front of a UD message in the receive buffer.
const GRH: usize = 40;

/// Immediate data, asymmetric so that a swapped byte order shows.
const IMM: u32 = 0x0a0b_0c0d;

/// Runs case `name` on `info`.
pub(super) fn run(info: &DeviceInfo, name: &str) -> Outcome {
    let rest = name.strip_prefix("traffic.").unwrap_or(name);
    let (group, case) = rest.split_once('.').unwrap_or(("", rest));
    if info.transport == TransportType::Iwarp {
        let why = match group {
            "ud" => Some("iWARP (siw) has no UD QPs"),
            "uc" => Some("iWARP (siw) has no UC QPs"),
            _ if case.starts_with("atomic_") => {
                Some("iWARP (siw) has no atomics (atomic_cap IBV_ATOMIC_NONE)")
            }
            _ if case == "srq_write_imm" => Some("iWARP (siw) carries no immediate data"),
            _ => None,
        };
        if let Some(why) = why {
            return Outcome::skip(why);
        }
    }
    let mut o = Outcome::new();
    match group {
        "ud" => ud_case(info, case, &mut o),
        "uc" => uc_case(info, case, &mut o),
        _ if case.starts_with("atomic_") => atomic_error(info, case, &mut o),
        _ => rc_case(info, case, &mut o),
    }
    o
}

/// A pair of `qp_type` (on an SRQ when `srq`), each MODIFY_QP step through `tune`, with
/// its event stream; when it cannot be made, `o` becomes the reason (skip or failure).
fn pair_tuned(
    info: &DeviceInfo,
    qp_type: QpType,
    srq: bool,
    o: &mut Outcome,
    tune: &dyn Fn(&str, ModifyQp) -> ModifyQp,
) -> Option<Pair> {
    data::connect_as(info, Shape { qp_type, srq }, 0, true, tune)
        .map_err(|why| *o = why)
        .ok()
}

fn pair(info: &DeviceInfo, qp_type: QpType, srq: bool, o: &mut Outcome) -> Option<Pair> {
    pair_tuned(info, qp_type, srq, o, &|_, m| m)
}

/// `len` bytes of `mr` from `off`, or the case failed.
fn sge<'a>(mr: &'a Mr, off: usize, len: usize, o: &mut Outcome) -> Option<Sge<'a>> {
    let s = u32::try_from(len).ok().and_then(|l| Sge::new(mr, off, l));
    if s.is_none() {
        o.fail(format!("SGE {off}+{len} out of a buffer of {}", mr.len()));
    }
    s
}

/// Posts receives where `p.b` takes them: its SRQ, or its own queue.
fn post_recv_b(p: &Pair, wrs: &[RecvWr<'_>], o: &mut Outcome) -> bool {
    match &p.srq {
        Some(srq) => srq
            .post_recv(wrs)
            .map_err(|e| o.fail(format!("POST_SRQ_RECV: {e}")))
            .is_ok(),
        None => p.post_recv(wrs, o),
    }
}

/// QUERY_QP of both QPs: each must still be in RTS (an error the responder dropped
/// changes no state). siw before Linux 6.8 reports no state (`siw_query_qp()` leaves
/// it 0, RESET: "RDMA/siw: Set qp_state in siw_query_qp" added it): RESET from siw is
/// that answer, said in a diagnostic.
fn both_rts(p: &Pair, o: &mut Outcome) {
    for (side, qp) in [("requester", &p.a), ("responder", &p.b)] {
        match qp.query() {
            Ok(q) => {
                let s = q.state();
                o.fact(format!("{side}.state"), format!("{s:?}"));
                if p.cm.is_some() && s == QpState::Reset {
                    o.diag.push(format!(
                        "the {side}: QUERY_QP state RESET (siw before Linux 6.8 reports none)"
                    ));
                    continue;
                }
                o.check(s == QpState::Rts, || {
                    format!("the {side}: QUERY_QP state {s:?}, expected RTS")
                });
            }
            Err(e) => o.fail(format!("the {side}: QUERY_QP: {e}")),
        }
    }
}

/// Whether `buf` holds `fill` everywhere outside `[from, to)`.
fn outside(buf: &[u8], from: usize, to: usize, fill: u8) -> bool {
    buf[..from].iter().chain(&buf[to..]).all(|&b| b == fill)
}

// ---------------------------------------------------------------------------------
// UD

/// A UD pair with an address handle to the port's own first GID, the GID, and the
/// port's active MTU in bytes (a UD message's limit: `get_mtu()` in rxe_req.c).
struct Ud {
    ah: Ah,
    gid: Gid,
    mtu: usize,
    p: Pair,
}

fn ud(info: &DeviceInfo, srq: bool, o: &mut Outcome) -> Option<Ud> {
    let p = pair(info, QpType::Ud, srq, o)?;
    let ctx = p.pd.context().clone();
    let gid = match ctx.query_gid(1, 0) {
        Ok(Some(g)) => g.gid,
        Ok(None) => {
            o.fail("QUERY_GID port 1 index 0: no entry");
            return None;
        }
        Err(e) => {
            o.fail(format!("QUERY_GID port 1 index 0: {e}"));
            return None;
        }
    };
    let mtu = match ctx.query_port(1) {
        Ok(a) => a.active_mtu.bytes(),
        Err(e) => {
            o.fail(format!("QUERY_PORT 1: {e}"));
            return None;
        }
    };
    let Some(mtu) = mtu else {
        o.fail("QUERY_PORT 1: no active MTU");
        return None;
    };
    o.fact("port.active_mtu", mtu);
    let ah = match p.pd.create_ah(&AhAttr::global(1, 0, gid, 64)) {
        Ok(ah) => ah,
        Err(e) => {
            o.fail(format!("CREATE_AH to port 1's GID 0: {e}"));
            return None;
        }
    };
    Some(Ud {
        ah,
        gid,
        mtu: mtu as usize,
        p,
    })
}

impl Ud {
    /// A signaled UD send to `to` with Q_Key `qkey`.
    fn wr<'a>(&'a self, id: u64, op: SendOp, sg: &'a [Sge<'a>], to: &Qp, qkey: u32) -> SendWr<'a> {
        SendWr::new(id, op)
            .sg(sg)
            .ud(&self.ah, to.qp_num(), qkey)
            .signaled()
    }

    /// Checks a UD receive's completion: request `wr_id` on `to`, `len` bytes behind the
    /// GRH, from `from`, with `imm` when given.
    fn check_recv(
        &self,
        o: &mut Outcome,
        what: &str,
        w: &Wc,
        (wr_id, len, to, from): (u64, usize, &Qp, &Qp),
        imm: Option<u32>,
    ) {
        check_wc(
            o,
            what,
            w,
            (wr_id, WcOpcode::Recv, (GRH + len) as u32, to.qp_num()),
            imm.is_some(),
        );
        o.check(w.wc_flags.contains(WcFlags::GRH), || {
            format!(
                "{what}: wc_flags {:#x} without IBV_WC_GRH",
                w.wc_flags.bits()
            )
        });
        o.check(w.src_qp == from.qp_num(), || {
            format!(
                "{what}: src_qp {}, the sender is {}",
                w.src_qp,
                from.qp_num()
            )
        });
        o.fact(
            format!("{what}.src_qp_is_sender"),
            w.src_qp == from.qp_num(),
        );
        if let Some(i) = imm {
            o.check(w.imm_data == i, || {
                format!("{what}: imm_data {:#010x}, posted {i:#010x}", w.imm_data)
            });
        }
    }

    /// One message of `len` bytes (with `imm`) from `a` to `to` (`b`, or `a` itself),
    /// received into a buffer 64 bytes larger than GRH and payload: both completions,
    /// the payload behind the GRH and nothing past it. Returns the receive buffer.
    fn one(
        &self,
        o: &mut Outcome,
        what: &str,
        len: usize,
        imm: Option<u32>,
        to: &Qp,
    ) -> Option<Vec<u8>> {
        let p = &self.p;
        let data = pattern(len.max(1), 0x61);
        let src = p.mr(&data, o)?;
        let room = GRH + len + 64;
        let rbuf = p.mr(&vec![0xee; room], o)?;
        let rs = [sge(&rbuf, 0, room, o)?];
        let ss: Vec<Sge<'_>> = match len {
            0 => Vec::new(),
            _ => vec![sge(&src, 0, len, o)?],
        };
        let op = imm.map_or(SendOp::Send, SendOp::SendWithImm);
        let recv = [RecvWr::new(1, &rs)];
        let posted = if to.qp_num() == p.a.qp_num() {
            to.post_recv(&recv)
                .map_err(|e| o.fail(format!("POST_RECV: {e}")))
                .is_ok()
        } else {
            post_recv_b(p, &recv, o)
        };
        if !posted || !p.post_send(&[self.wr(2, op, &ss, to, QKEY)], what, o) {
            return None;
        }
        let wcs = p.wait(2, o)?;
        for w in &wcs {
            match w.wr_id {
                1 => self.check_recv(o, &format!("{what}.recv"), w, (1, len, to, &p.a), imm),
                _ => check_wc(
                    o,
                    &format!("{what}.send"),
                    w,
                    (2, WcOpcode::Send, 0, p.a.qp_num()),
                    false,
                ),
            }
        }
        let got = bytes(&rbuf);
        same_bytes(o, what, &got[GRH..GRH + len], &data[..len]);
        o.check(outside(&got, 0, GRH + len, 0xee), || {
            format!("{what}: bytes past the message changed")
        });
        Some(got)
    }

    /// A message of `bad_len` bytes sent with Q_Key `bad_qkey` that must not arrive,
    /// then one of 16 bytes that must: both sends complete successfully, and the first
    /// of two receives holds the second message (the first did not take it).
    fn dropped(&self, o: &mut Outcome, what: &str, bad_len: usize, bad_qkey: u32) {
        let p = &self.p;
        let big = pattern(bad_len, 0x62);
        let small = pattern(16, 0x63);
        let (Some(bsrc), Some(ssrc), Some(rbuf)) = (
            p.mr(&big, o),
            p.mr(&small, o),
            p.mr(&vec![0xee; 2 * (GRH + bad_len)], o),
        ) else {
            return;
        };
        let room = GRH + bad_len;
        let (Some(b), Some(s), Some(r0), Some(r1)) = (
            sge(&bsrc, 0, bad_len, o),
            sge(&ssrc, 0, 16, o),
            sge(&rbuf, 0, room, o),
            sge(&rbuf, room, room, o),
        ) else {
            return;
        };
        let (bs, ss, r0, r1) = ([b], [s], [r0], [r1]);
        if !post_recv_b(p, &[RecvWr::new(1, &r0), RecvWr::new(2, &r1)], o)
            || !p.post_send(
                &[
                    self.wr(3, SendOp::Send, &bs, &p.b, bad_qkey),
                    self.wr(4, SendOp::Send, &ss, &p.b, QKEY),
                ],
                what,
                o,
            )
        {
            return;
        }
        let Some(wcs) = p.wait(3, o) else { return };
        for w in &wcs {
            match w.wr_id {
                1 => self.check_recv(o, &format!("{what}.recv"), w, (1, 16, &p.b, &p.a), None),
                2 => o.fail(format!(
                    "{what}: the second receive completed: {}",
                    wc_text(w)
                )),
                id => check_wc(
                    o,
                    &format!("{what}.send{id}"),
                    w,
                    (id, WcOpcode::Send, 0, p.a.qp_num()),
                    false,
                ),
            }
        }
        let got = bytes(&rbuf);
        same_bytes(o, what, &got[GRH..GRH + 16], &small);
        o.check(outside(&got, 0, GRH + 16, 0xee), || {
            format!("{what}: the dropped message's bytes landed")
        });
    }
}

fn ud_case(info: &DeviceInfo, case: &str, o: &mut Outcome) {
    let Some(u) = ud(info, case == "srq", o) else {
        return;
    };
    match case {
        "send" | "srq" => {
            u.one(o, case, 300, None, &u.p.b);
        }
        "send_imm" => {
            u.one(o, case, 300, Some(IMM), &u.p.b);
        }
        "send_zero" => {
            u.one(o, case, 0, None, &u.p.b);
        }
        "send_mtu" => {
            u.one(o, case, u.mtu, None, &u.p.b);
        }
        "self" => {
            u.one(o, case, 100, None, &u.p.a);
        }
        "grh" => {
            if let Some(got) = u.one(o, case, 200, None, &u.p.b) {
                grh(o, &got[..GRH], &u.gid, 200);
            }
        }
        // rxe_req.c: a UD payload above get_mtu() is "sent" as if it were (the IBTA's
        // C10-93.1.1: no packet, no error).
        "send_mtu_plus_one" => u.dropped(o, case, u.mtu + 1, QKEY),
        "qkey_mismatch" => qkey_mismatch(&u, o),
        _ => recv_too_short(u, o),
    }
}

/// The GRH rxe writes in front of a UD message (`execute()` in rxe_resp.c): on RoCE v2
/// over IPv6 the packet's IPv6 header. The fields compared are those the sender's
/// address vector and the packet decide: the IP version, UDP as the next header, the hop
/// limit the AH asked (64), the payload length (UDP 8 + BTH 12 + DETH 8 + payload +
/// ICRC 4) and both addresses (the port's own GID 0, IPv6 link-local).
fn grh(o: &mut Outcome, g: &[u8], gid: &Gid, len: usize) {
    let v4 = gid.0[..10].iter().all(|&b| b == 0) && gid.0[10..12] == [0xff, 0xff];
    let udp = len + 8 + 12 + 8 + 4;
    let be16 = |b: &[u8]| usize::from(u16::from_be_bytes([b[0], b[1]]));
    if v4 {
        // rxe's GID 0 is the IPv6 link-local address of its netdev; an IPv4 GID there
        // (20 zero bytes and the IPv4 header) was never seen in the rig.
        return o.fail(format!(
            "GID 0 is IPv4-mapped ({gid}): the case expects IPv6"
        ));
    }
    o.fact("grh.ip_version", g[0] >> 4);
    o.fact("grh.next_header", g[6]);
    o.fact("grh.hop_limit", g[7]);
    o.fact("grh.payload_length", be16(&g[4..6]));
    let checks = [
        ("version", usize::from(g[0] >> 4), 6),
        ("payload length", be16(&g[4..6]), udp),
        ("next header", usize::from(g[6]), 17),
        ("hop limit", usize::from(g[7]), 64),
    ];
    for (what, got, want) in checks {
        o.check(got == want, || {
            format!("GRH IPv6 {what}: {got}, expected {want}")
        });
    }
    o.check(g[8..24] == gid.0 && g[24..40] == gid.0, || {
        format!(
            "GRH source {} / destination {}, the port's GID {gid}",
            Gid(g[8..24].try_into().unwrap_or_default()),
            Gid(g[24..40].try_into().unwrap_or_default())
        )
    });
}

/// A UD message with a wrong Q_Key is dropped by the receiver (`check_keys()` in
/// rxe_recv.c), which counts it in the port's `qkey_viol_cntr` (QUERY_PORT); the sender
/// cannot know, and completes successfully.
fn qkey_mismatch(u: &Ud, o: &mut Outcome) {
    let ctx = u.p.pd.context();
    let count = |o: &mut Outcome| match ctx.query_port(1) {
        Ok(a) => Some(a.qkey_viol_cntr),
        Err(e) => {
            o.fail(format!("QUERY_PORT 1: {e}"));
            None
        }
    };
    let Some(before) = count(o) else { return };
    u.dropped(o, "qkey_mismatch", 64, QKEY ^ 1);
    let Some(after) = count(o) else { return };
    o.check(after > before || before == 0xffff, || {
        format!("qkey_viol_cntr {before} before, {after} after a wrong Q_Key")
    });
    o.fact("qkey_viol_cntr.rose", after > before);
}

/// A UD message of 300 bytes, then one of 16, into one receive of 40 + 100 bytes. rxe
/// answers in one of two ways, each taken from its source and observed in the rig:
/// - Linux 6.12: `check_length()` in rxe_resp.c finds the receive too small for the
///   first and drops it (RESPST_ERR_LENGTH, on UD without an SRQ "class D", as the
///   IBTA classes UD errors): the receive stays posted, the second message lands in
///   it, the QP stays RTS;
/// - Linux 6.1 (no such check): `copy_data()` refuses the payload with -EINVAL, which
///   `send_data_in()` maps to RESPST_ERR_MALFORMED_WQE (class A): the receive completes
///   LOC_QP_OP_ERR and the QP goes to the error state (the second message is lost).
///
/// Either way three completions come (both sends, UD: successful; the receive); which
/// answer is a fact and a diagnostic, any other a failure.
fn recv_too_short(u: Ud, o: &mut Outcome) {
    let p = &u.p;
    let (Some(long), Some(short), Some(rbuf)) = (
        p.mr(&pattern(300, 0x64), o),
        p.mr(&pattern(16, 0x65), o),
        p.mr(&[0xee; GRH + 100], o),
    ) else {
        return;
    };
    let (Some(l), Some(s), Some(r)) = (
        sge(&long, 0, 300, o),
        sge(&short, 0, 16, o),
        sge(&rbuf, 0, GRH + 100, o),
    ) else {
        return;
    };
    let (ls, ss, rs) = ([l], [s], [r]);
    if !post_recv_b(p, &[RecvWr::new(100, &rs)], o)
        || !p.post_send(
            &[
                u.wr(1, SendOp::Send, &ls, &p.b, QKEY),
                u.wr(2, SendOp::Send, &ss, &p.b, QKEY),
            ],
            "2 SENDs",
            o,
        )
    {
        return;
    }
    let Some(wcs) = p.wait(3, o) else { return };
    let mut recv = None;
    for w in &wcs {
        match w.wr_id {
            100 => recv = Some(*w),
            id => check_wc(
                o,
                &format!("send{id}"),
                w,
                (id, WcOpcode::Send, 0, p.a.qp_num()),
                false,
            ),
        }
    }
    let Some(w) = recv else {
        return o.fail("no completion of the receive");
    };
    let (answer, resp_state) = match w.status {
        WcStatus::Success => {
            u.check_recv(o, "recv", &w, (100, 16, &p.b, &p.a), None);
            let got = bytes(&rbuf);
            same_bytes(
                o,
                "the second message",
                &got[GRH..GRH + 16],
                &pattern(16, 0x65),
            );
            o.check(outside(&got, 0, GRH + 16, 0xee), || {
                "bytes of the dropped message landed".into()
            });
            ("dropped (class D), the receive kept", QpState::Rts)
        }
        WcStatus::LocQpOpErr => ("LOC_QP_OP_ERR (class A), the QP to ERR", QpState::Err),
        _ => {
            return o.fail(format!(
                "the receive: {}, expected the first message dropped (the second received) \
                 or IBV_WC_LOC_QP_OP_ERR",
                wc_text(&w)
            ))
        }
    };
    o.diag.push(format!(
        "rxe: the message too long for the receive: {answer}"
    ));
    o.fact("recv_too_short.answer", answer);
    for (side, qp, want) in [
        ("requester", &p.a, QpState::Rts),
        ("responder", &p.b, resp_state),
    ] {
        match wire::state_after(qp, want) {
            Ok(s) => {
                o.fact(format!("{side}.state"), format!("{s:?}"));
                o.check(s == want, || {
                    format!("the {side}: QUERY_QP state {s:?}, expected {want:?}")
                });
            }
            Err(e) => o.fail(format!("the {side}: QUERY_QP: {e}")),
        }
    }
}

// ---------------------------------------------------------------------------------
// UC and RC: one message

/// How [`one`] moves its message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Move {
    Send,
    SendImm,
    Write,
    WriteImm,
}

/// Moves `len` bytes from `a` to `b` by `how` into a buffer registered with `access`
/// (at offset 64, 64 bytes of room after): the sender's completion, the receive's
/// (none for a plain WRITE), the bytes landed and nothing outside them.
fn one(p: &Pair, o: &mut Outcome, what: &str, len: usize, how: Move, access: AccessFlags) {
    let data = pattern(len, 0x71);
    let (Some(src), Some(dst), Some(rbuf)) = (
        p.mr(&data, o),
        Pair::mr_in(&p.pd, &vec![0xee; len + 128], access, o),
        p.mr(&[0xee; 64], o),
    ) else {
        return;
    };
    let recv_sge = match how {
        Move::Send | Move::SendImm => sge(&dst, 64, len + 64, o),
        _ => sge(&rbuf, 0, 64, o),
    };
    let (Some(s), Some(r)) = (sge(&src, 0, len, o), recv_sge) else {
        return;
    };
    let (ss, rs) = ([s], [r]);
    let remote = Remote {
        addr: dst.addr() + 64,
        rkey: dst.rkey(),
    };
    let (op, done) = match how {
        Move::Send => (SendOp::Send, WcOpcode::Send),
        Move::SendImm => (SendOp::SendWithImm(IMM), WcOpcode::Send),
        Move::Write => (SendOp::RdmaWrite(remote), WcOpcode::RdmaWrite),
        Move::WriteImm => (SendOp::RdmaWriteWithImm(remote, IMM), WcOpcode::RdmaWrite),
    };
    let receives = how != Move::Write;
    if (receives && !post_recv_b(p, &[RecvWr::new(1, &rs)], o))
        || !p.post_send(&[SendWr::new(2, op).sg(&ss).signaled()], what, o)
    {
        return;
    }
    let Some(wcs) = p.wait(1 + usize::from(receives), o) else {
        return;
    };
    let imm = matches!(how, Move::SendImm | Move::WriteImm);
    for w in &wcs {
        if w.wr_id == 1 {
            let opcode = match how {
                Move::WriteImm => WcOpcode::RecvRdmaWithImm,
                _ => WcOpcode::Recv,
            };
            check_wc(
                o,
                &format!("{what}.recv"),
                w,
                (1, opcode, len as u32, p.b.qp_num()),
                imm,
            );
            if imm {
                o.check(w.imm_data == IMM, || {
                    format!("{what}: imm_data {:#010x}, posted {IMM:#010x}", w.imm_data)
                });
            }
        } else {
            check_wc(
                o,
                &format!("{what}.send"),
                w,
                (2, done, 0, p.a.qp_num()),
                false,
            );
        }
    }
    let got = bytes(&dst);
    same_bytes(o, what, &got[64..64 + len], &data);
    o.check(outside(&got, 64, 64 + len, 0xee), || {
        format!("{what}: bytes outside the message changed")
    });
    if how == Move::WriteImm {
        o.check(bytes(&rbuf).iter().all(|&b| b == 0xee), || {
            format!("{what}: the receive's buffer changed")
        });
    }
}

/// The access every target of these cases has.
const RW: AccessFlags = AccessFlags::LOCAL_WRITE
    .union(AccessFlags::REMOTE_WRITE)
    .union(AccessFlags::REMOTE_READ);

/// A message the responder must drop (`first`, posted with no receive for it or with a
/// wrong rkey), then a SEND of 200 bytes into a receive posted after the first
/// completed: both sends complete successfully, the receive holds the second message,
/// both QPs stay RTS.
fn dropped_then_send(p: &Pair, o: &mut Outcome, what: &str, first: SendOp) {
    let (Some(src), Some(rbuf)) = (p.mr(&pattern(300, 0x72), o), p.mr(&[0xee; 512], o)) else {
        return;
    };
    let (Some(s1), Some(s2), Some(r)) = (
        sge(&src, 0, 300, o),
        sge(&src, 0, 200, o),
        sge(&rbuf, 0, 512, o),
    ) else {
        return;
    };
    let (s2, rs) = ([s2], [r]);
    let done = match first {
        SendOp::Send => WcOpcode::Send,
        _ => WcOpcode::RdmaWrite,
    };
    if !p.post_one(
        first,
        &[s1],
        (what, &format!("{what}.first")),
        (1, done, 0),
        o,
    ) {
        return;
    }
    if !p.post_recv(&[RecvWr::new(10, &rs)], o)
        || !p.post_send(&[SendWr::new(2, SendOp::Send).sg(&s2).signaled()], what, o)
    {
        return;
    }
    let Some(wcs) = p.wait(2, o) else { return };
    for w in &wcs {
        match w.wr_id {
            10 => check_wc(
                o,
                &format!("{what}.recv"),
                w,
                (10, WcOpcode::Recv, 200, p.b.qp_num()),
                false,
            ),
            _ => check_wc(
                o,
                &format!("{what}.second"),
                w,
                (2, WcOpcode::Send, 0, p.a.qp_num()),
                false,
            ),
        }
    }
    let got = bytes(&rbuf);
    same_bytes(o, what, &got[..200], &pattern(300, 0x72)[..200]);
    o.check(outside(&got, 0, 200, 0xee), || {
        format!("{what}: bytes past the second message changed")
    });
    both_rts(p, o);
}

fn uc_case(info: &DeviceInfo, case: &str, o: &mut Outcome) {
    let Some(p) = pair(info, QpType::Uc, false, o) else {
        return;
    };
    match case {
        "send" => one(&p, o, case, 3000, Move::Send, RW),
        "send_imm" => one(&p, o, case, 300, Move::SendImm, RW),
        "write" => one(&p, o, case, 3000, Move::Write, RW),
        "write_imm" => one(&p, o, case, 300, Move::WriteImm, RW),
        // rxe_resp.c: no receive is RESPST_ERR_RNR, on UC class D: the message dropped.
        "send_no_receive" => dropped_then_send(&p, o, case, SendOp::Send),
        // rxe_resp.c: RESPST_ERR_RKEY_VIOLATION on UC without an SRQ, class E: dropped.
        _ => {
            let Some(target) = p.mr(&[0u8; 512], o) else {
                return;
            };
            let bad = Remote {
                addr: target.addr(),
                rkey: target.rkey() ^ 0x5a,
            };
            dropped_then_send(&p, o, case, SendOp::RdmaWrite(bad));
            o.check(bytes(&target).iter().all(|&b| b == 0), || {
                "a WRITE with a wrong rkey changed the MR".into()
            });
        }
    }
}

// ---------------------------------------------------------------------------------
// RC

fn rc_case(info: &DeviceInfo, case: &str, o: &mut Outcome) {
    let srq = case.starts_with("srq");
    let Some(p) = pair(info, QpType::Rc, srq, o) else {
        return;
    };
    match case {
        "srq" => srq_in_order(&p, o),
        "srq_shared" => srq_shared(&p, o),
        "srq_write_imm" => one(&p, o, case, 300, Move::WriteImm, RW),
        "write_zero" | "read_zero" => zero_length(&p, o, case == "read_zero"),
        "relaxed_ordering" => {
            let ro = RW | AccessFlags::RELAXED_ORDERING;
            one(&p, o, "write", 5000, Move::Write, ro);
            one(&p, o, "send", 3000, Move::Send, ro);
            read_multi(&p, o, ro);
        }
        "send_mtu" => one(&p, o, case, 1024, Move::Send, RW),
        "send_mtu_plus_one" => one(&p, o, case, 1025, Move::Send, RW),
        _ => read_multi(&p, o, RW),
    }
}

/// Two messages into an SRQ's two receives of 256 bytes (ids 1 and 2, in that order,
/// into one buffer): `send` posts the sends, with SGEs of the first 100 and the first
/// 200 bytes of `seed`'s pattern, and checks their completions, saying whether to go
/// on; then the first message must be where the first receive put it and the second
/// where the second did. `names` name the two messages.
fn srq_two_messages(
    p: &Pair,
    o: &mut Outcome,
    seed: u8,
    names: [&str; 2],
    send: impl FnOnce(&[Sge<'_>; 1], &[Sge<'_>; 1], &mut Outcome) -> bool,
) {
    let (Some(src), Some(rbuf)) = (p.mr(&pattern(200, seed), o), p.mr(&[0xee; 512], o)) else {
        return;
    };
    let (Some(s1), Some(s2), Some(r1), Some(r2)) = (
        sge(&src, 0, 100, o),
        sge(&src, 0, 200, o),
        sge(&rbuf, 0, 256, o),
        sge(&rbuf, 256, 256, o),
    ) else {
        return;
    };
    let (r1, r2) = ([r1], [r2]);
    if !post_recv_b(p, &[RecvWr::new(1, &r1), RecvWr::new(2, &r2)], o) || !send(&[s1], &[s2], o) {
        return;
    }
    let got = bytes(&rbuf);
    let want = pattern(200, seed);
    same_bytes(o, names[0], &got[..100], &want[..100]);
    same_bytes(o, names[1], &got[256..456], &want);
}

/// Two SENDs (100 and 200 bytes) into an SRQ's two receives: taken in the order they
/// were posted, each completion naming the QP that received.
fn srq_in_order(p: &Pair, o: &mut Outcome) {
    srq_two_messages(p, o, 0x73, ["first SEND", "second SEND"], |s1, s2, o| {
        if !p.post_send(
            &[
                SendWr::new(11, SendOp::Send).sg(s1).signaled(),
                SendWr::new(12, SendOp::Send).sg(s2).signaled(),
            ],
            "2 SENDs",
            o,
        ) {
            return false;
        }
        let Some(wcs) = p.wait(4, o) else {
            return false;
        };
        for w in &wcs {
            let (what, want) = match w.wr_id {
                1 => ("recv1", (1, WcOpcode::Recv, 100, p.b.qp_num())),
                2 => ("recv2", (2, WcOpcode::Recv, 200, p.b.qp_num())),
                id => ("send", (id, WcOpcode::Send, 0, p.a.qp_num())),
            };
            check_wc(o, what, w, want, false);
        }
        true
    });
}

/// `a` sends 100 bytes to `b`, then `b` 200 bytes to `a`; both receive from one SRQ:
/// the first receive posted takes the first message and completes on `b`, the second
/// on `a`.
fn srq_shared(p: &Pair, o: &mut Outcome) {
    srq_two_messages(p, o, 0x74, ["a->b", "b->a"], |s1, s2, o| {
        if !p.post_send(
            &[SendWr::new(11, SendOp::Send).sg(s1).signaled()],
            "SEND a->b",
            o,
        ) {
            return false;
        }
        let Some(first) = p.wait(2, o) else {
            return false;
        };
        if let Err(e) =
            p.b.post_send(&[SendWr::new(12, SendOp::Send).sg(s2).signaled()])
        {
            o.fail(format!("POST_SEND b->a: {e}"));
            return false;
        }
        let Some(second) = p.wait(2, o) else {
            return false;
        };
        for w in first.iter().chain(&second) {
            let (what, want) = match w.wr_id {
                1 => ("recv1", (1, WcOpcode::Recv, 100, p.b.qp_num())),
                2 => ("recv2", (2, WcOpcode::Recv, 200, p.a.qp_num())),
                11 => ("send_a", (11, WcOpcode::Send, 0, p.a.qp_num())),
                id => ("send_b", (id, WcOpcode::Send, 0, p.b.qp_num())),
            };
            check_wc(o, what, w, want, false);
        }
        true
    });
}

/// Zero-length RDMA WRITEs (or READs) with no SGE: one to a valid address and rkey, one
/// to address 0 with a wrong rkey. A zero-length request needs neither (the IBTA's
/// C9-88; `check_rkey()` in rxe_resp.c executes it at once): both complete
/// successfully, nothing changes, the QPs stay RTS.
fn zero_length(p: &Pair, o: &mut Outcome, read: bool) {
    let Some(target) = p.mr(&[0xee; 256], o) else {
        return;
    };
    let good = Remote {
        addr: target.addr() + 8,
        rkey: target.rkey(),
    };
    let bad = Remote {
        addr: 0,
        rkey: target.rkey() ^ 0x5a,
    };
    let (op, done): (fn(Remote) -> SendOp, _) = match read {
        true => (SendOp::RdmaRead, WcOpcode::RdmaRead),
        false => (SendOp::RdmaWrite, WcOpcode::RdmaWrite),
    };
    if !p.post_send(
        &[
            SendWr::new(1, op(good)).signaled(),
            SendWr::new(2, op(bad)).signaled(),
        ],
        "zero-length",
        o,
    ) {
        return;
    }
    let Some(wcs) = p.wait(2, o) else { return };
    for w in &wcs {
        let what = if w.wr_id == 1 {
            "valid_key"
        } else {
            "wrong_key"
        };
        check_wc(o, what, w, (w.wr_id, done, 0, p.a.qp_num()), false);
        if read {
            o.check(w.byte_len == 0, || {
                format!("{what}: byte_len {}", w.byte_len)
            });
        }
    }
    o.check(bytes(&target).iter().all(|&b| b == 0xee), || {
        "a zero-length request changed the target".into()
    });
    both_rts(p, o);
}

/// An RDMA READ of 4097 bytes from an odd remote address: five response packets at the
/// 1024-byte path MTU (FIRST, 3 MIDDLE, LAST of 1 byte), scattered into 3 SGEs whose
/// edges are not the packets', or into one where the device's `max_sge_rd` is below 3
/// (siw: 1, `SIW_MAX_SGE_RD`; given 3 it fills the first alone and says success).
fn read_multi(p: &Pair, o: &mut Outcome, access: AccessFlags) {
    let max_sge_rd = match p.pd.context().query_device() {
        Ok(d) => d.max_sge_rd,
        Err(e) => return o.fail(format!("QUERY_DEVICE: {e}")),
    };
    o.fact("device.max_sge_rd", max_sge_rd);
    let data = pattern(8192, 0x75);
    let (Some(remote), Some(local)) = (
        Pair::mr_in(&p.pd, &data, access, o),
        Pair::mr_in(&p.pd, &[0xee; 8192], access, o),
    ) else {
        return;
    };
    let segs: &[(usize, usize)] = match max_sge_rd {
        3.. => &[(3, 1000), (2000, 2000), (5001, 1097)],
        _ => &[(3, 4097)],
    };
    let sges: Vec<Sge<'_>> = segs
        .iter()
        .filter_map(|&(off, len)| sge(&local, off, len, o))
        .collect();
    if sges.len() != segs.len() {
        return;
    }
    let from = Remote {
        addr: remote.addr() + 33,
        rkey: remote.rkey(),
    };
    let read = SendOp::RdmaRead(from);
    if !p.post_one(
        read,
        &sges,
        ("RDMA_READ", "read"),
        (1, WcOpcode::RdmaRead, 4097),
        o,
    ) {
        return;
    }
    let got = bytes(&local);
    let mut landed = Vec::new();
    for &(off, len) in segs {
        landed.extend_from_slice(&got[off..off + len]);
    }
    same_bytes(o, "RDMA_READ", &landed, &data[33..33 + 4097]);
    let mut rest = got.clone();
    for &(off, len) in segs {
        rest[off..off + len].fill(0xee);
    }
    o.check(rest.iter().all(|&b| b == 0xee), || {
        "RDMA_READ: bytes outside the SGEs changed".into()
    });
}

// ---------------------------------------------------------------------------------
// Atomics' errors

/// `traffic.rc.atomic_*`: a FETCH_AND_ADD that fails, with two SENDs behind it (fenced:
/// they wait for the atomic), checked as `wire.rc.*` checks an error
/// ([`wire::finish`]):
/// - `bad_rkey` (an rkey naming no MR), `no_right` (an MR without REMOTE_ATOMIC),
///   `out_of_range` (the 8 bytes past the MR's end): `check_rkey()` in rxe_resp.c,
///   RESPST_ERR_RKEY_VIOLATION, class C: REM_ACCESS_ERR, both QPs to ERR, the
///   responder's receive flushed;
/// - `qp_no_right` (the responder QP's access without REMOTE_ATOMIC): `check_op_valid()`
///   in rxe_resp.c, RESPST_ERR_UNSUPPORTED_OPCODE, class C, NAK "invalid request":
///   REM_INV_REQ_ERR, both QPs to ERR;
/// - `foreign_lkey` (the result's SGE in another PD's MR): the responder adds (its MR
///   is right) and answers; the requester cannot write the old value back
///   (`do_atomic()` in rxe_comp.c: copy_data fails): LOC_PROT_ERR, the requester alone
///   to ERR, the target's word added to.
fn atomic_error(info: &DeviceInfo, case: &str, o: &mut Outcome) {
    let step = case.strip_prefix("atomic_").unwrap_or(case);
    let qp_rights = RW | AccessFlags::REMOTE_ATOMIC;
    let tune = move |s: &str, m: ModifyQp| match (s, step) {
        ("RESET->INIT", "qp_no_right") => m.access(RW),
        _ => m,
    };
    let Some(mut p) = pair_tuned(info, QpType::Rc, false, o, &tune) else {
        return;
    };
    match p.pd.context().query_device() {
        Ok(d) if d.atomic_cap == AtomicCap::None => {
            *o = Outcome::skip("the device has no atomics (atomic_cap IBV_ATOMIC_NONE)");
            return;
        }
        Ok(_) => {}
        Err(e) => return o.fail(format!("QUERY_DEVICE: {e}")),
    }
    let other_pd = match p.pd.context().alloc_pd() {
        Ok(pd) => pd,
        Err(e) => return o.fail(format!("ALLOC_PD (a second one): {e}")),
    };
    let target_rights = match step {
        "no_right" => RW,
        _ => qp_rights,
    };
    let result = match step {
        "foreign_lkey" => Pair::mr_in(&other_pd, &[0xee; 8], AccessFlags::LOCAL_WRITE, o),
        _ => p.mr(&[0xee; 8], o),
    };
    let (Some(target), Some(result), Some(src), Some(rbuf)) = (
        Pair::mr_in(&p.pd, &[0u8; 64], target_rights, o),
        result,
        p.mr(&pattern(256, 7), o),
        p.mr(&[0u8; 256], o),
    ) else {
        return;
    };
    let remote = Remote {
        addr: match step {
            "out_of_range" => target.addr() + target.len() as u64,
            _ => target.addr() + 8,
        },
        rkey: match step {
            "bad_rkey" => target.rkey() ^ 0x5a,
            _ => target.rkey(),
        },
    };
    if remote.addr % 8 != 0 {
        return o.fail(format!(
            "the target's address {:#x} is not 8-aligned",
            remote.addr
        ));
    }
    let (Some(r), Some(s), Some(rr)) = (
        sge(&result, 0, 8, o),
        sge(&src, 0, 256, o),
        sge(&rbuf, 0, 256, o),
    ) else {
        return;
    };
    let (rs, ss, rrs) = ([r], [s], [rr]);
    let [t1, t2] = wire::trailing(&ss, [2, 3]);
    let wrs = [
        SendWr::new(1, SendOp::AtomicFetchAdd { remote, add: 1 })
            .sg(&rs)
            .signaled(),
        t1.fence(),
        t2.fence(),
    ];
    let remote_error = step != "foreign_lkey";
    if (remote_error && !wire::post_recv(&p.b, &[RecvWr::new(100, &rrs)], o))
        || !wire::post_send(&p.a, &wrs, step, o)
    {
        return;
    }
    let status = match step {
        "foreign_lkey" => wire::ibta(WcStatus::LocProtErr),
        "qp_no_right" => wire::ibta(WcStatus::RemInvReqErr),
        _ => REM_ACCESS,
    };
    let event = match step {
        "qp_no_right" => EventType::QpReqErr,
        _ => EventType::QpAccessErr,
    };
    let mut wcs = vec![
        (Side::Req, 1, status),
        (Side::Req, 2, FLUSH),
        (Side::Req, 3, FLUSH),
    ];
    if remote_error {
        wcs.push((Side::Resp, 100, FLUSH));
    }
    let raised = [(Side::Resp, event)];
    wire::finish(
        &mut p,
        o,
        step,
        &End {
            wcs: &wcs,
            req: QpState::Err,
            resp: if remote_error {
                QpState::Err
            } else {
                QpState::Rts
            },
            events: if remote_error { &raised } else { &[] },
        },
    );
    let word = bytes(&target)[8..16].to_vec();
    let added = u64::from_ne_bytes(word.try_into().unwrap_or([0; 8]));
    let want = u64::from(!remote_error);
    o.fact(format!("{step}.target_word"), added);
    o.check(added == want, || {
        format!("{step}: the target's word is {added} after the atomic, expected {want}")
    });
    o.check(bytes(&result) == [0xee; 8] || remote_error, || {
        format!("{step}: the result MR of another PD was written")
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thirty_named_cases_in_their_groups() {
        assert!(CASES.len() >= 30);
        for (name, what) in CASES {
            assert!(
                name.starts_with("traffic.ud.")
                    || name.starts_with("traffic.uc.")
                    || name.starts_with("traffic.rc.")
            );
            assert!(
                what.contains("POST_SEND") || what.contains("REG_MR"),
                "{name}"
            );
        }
        let mut names: Vec<&str> = CASES.iter().map(|c| c.0).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), CASES.len(), "no name twice");
    }

    #[test]
    fn outside_compares_around_the_range() {
        assert!(outside(&[1, 9, 9, 1], 1, 3, 1));
        assert!(!outside(&[1, 9, 9, 2], 1, 3, 1));
    }
}
