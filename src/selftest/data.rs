//! The `data.rc.*` cases: payloads moved by the data path and compared byte for byte,
//! and every completion field the IBTA promises for them. Two RC QPs of the device are
//! connected to each other through the port's first GID (rxe delivers a packet for its
//! own address through its loopback: no wire, no peer), the memory is registered by the
//! case, and each completion is waited for by polling under a deadline, never a sleep.
//!
//! siw connects only through the iWARP CM (a TCP socket and MPA): its pair is connected
//! by the crate's RDMA CM over the IPv4 address of its interface ([`super::cm_pair`]),
//! and without one its cases are skipped, saying so. iWARP has no immediate data:
//! `send_imm` is skipped on siw.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::raw::abi::{RDMA_DRIVER_RXE, RDMA_DRIVER_SIW};
use crate::selftest::Outcome;
use crate::types::{AccessFlags, AtomicCap, Gid, Mtu, QpType, WcFlags, WcOpcode, WcStatus};
use crate::verbs::context::Context;
use crate::verbs::datapath::{RecvWr, Remote, SendOp, SendWr, Sge, Wc};
use crate::verbs::discover::DeviceInfo;
use crate::verbs::event::EventStream;
use crate::verbs::objects::{AhAttr, Cq, ModifyQp, Mr, MrBuf, Pd, Qp, QpCap, QpInit, Srq, SrqInit};

/// How long a completion may take (TCG is slow; a lost packet is not retried sooner).
pub(super) const DEADLINE: Duration = Duration::from_secs(10);

/// The data cases: name, what they move.
pub(super) const CASES: [(&str, &str); 6] = [
    (
        "send",
        "POST_RECV, POST_SEND (SEND): 3 SGEs across a page into 2 larger ones",
    ),
    (
        "send_imm",
        "POST_SEND (SEND_WITH_IMM, RDMA_WRITE_WITH_IMM): immediate data, WITH_IMM",
    ),
    (
        "write_read",
        "POST_SEND (RDMA_WRITE, RDMA_READ): unaligned, across MTUs and pages",
    ),
    (
        "inline",
        "POST_SEND (SEND, inline): 0, 1 and max_inline_data bytes; max + 1 refused",
    ),
    (
        "unsignaled",
        "POST_SEND: unsignaled requests leave no completion",
    ),
    (
        "atomic",
        "POST_SEND (ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD): old values back, 8 bytes changed",
    ),
];

/// A byte pattern that differs at every offset of a page and from one buffer to the
/// next, so that a byte moved to the wrong place does not compare equal.
pub(super) fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| {
            (i as u8)
                .wrapping_mul(31)
                .wrapping_add(seed ^ (i >> 8) as u8)
        })
        .collect()
}

/// Two RC QPs of one device connected to each other, with their PD and CQ (dropped in
/// the order objects must go: the connection, QPs, CQ, PD, context), and the device's
/// async events when they were asked for.
pub(super) struct Pair {
    /// siw's connection (its CM ids), closed first; `None` on rxe.
    pub(super) cm: Option<super::cm_pair::CmConn>,
    pub(super) a: Qp,
    pub(super) b: Qp,
    /// The SRQ both QPs receive from, when asked for ([`Shape::srq`]).
    pub(super) srq: Option<Srq>,
    pub(super) cq: Cq,
    pub(super) pd: Pd,
    /// The stream QP events of `a` and `b` go to (made before them: a QP's events go to
    /// the stream its context had when it was created).
    pub(super) events: Option<EventStream>,
    _ctx: Arc<Context>,
}

/// The RC pair on port 1 of `info`, or the outcome that says why not.
pub(super) fn pair(info: &DeviceInfo, inline: u32) -> Result<Pair, Outcome> {
    connect(info, inline, false, &|_, m| m)
}

/// [`pair`], with an async event stream made first when `events`, and each MODIFY_QP
/// step (`"RESET->INIT"`, `"INIT->RTR"`, `"RTR->RTS"`) passed through `tune` (to change
/// the RNR timer or retries; the same for both QPs).
pub(super) fn connect(
    info: &DeviceInfo,
    inline: u32,
    events: bool,
    tune: &dyn Fn(&str, ModifyQp) -> ModifyQp,
) -> Result<Pair, Outcome> {
    connect_as(info, Shape::RC, inline, events, tune)
}

/// What kind of pair [`connect_as`] makes: the QPs' type (UC and UD on rxe only; a UD
/// pair is two QPs in RTS with Q_Key [`QKEY`], no peer of its own) and whether both
/// receive from one SRQ (16 receives of 3 SGEs).
#[derive(Debug, Clone, Copy)]
pub(super) struct Shape {
    pub(super) qp_type: QpType,
    pub(super) srq: bool,
}

impl Shape {
    const RC: Shape = Shape {
        qp_type: QpType::Rc,
        srq: false,
    };
}

/// The Q_Key of a UD pair's QPs.
pub(super) const QKEY: u32 = 0x1111_2222;

/// [`connect`] of a pair of the given [`Shape`].
pub(super) fn connect_as(
    info: &DeviceInfo,
    shape: Shape,
    inline: u32,
    events: bool,
    tune: &dyn Fn(&str, ModifyQp) -> ModifyQp,
) -> Result<Pair, Outcome> {
    let fail = |what: &str, e: crate::error::Error| {
        let mut o = Outcome::new();
        o.fail(format!("{what}: {e}"));
        o
    };
    let ctx = Arc::new(Context::open(info).map_err(|e| fail("open", e))?);
    let siw = match ctx.driver_id() {
        RDMA_DRIVER_RXE => false,
        RDMA_DRIVER_SIW => true,
        _ => return Err(Outcome::skip("objects are made on rxe and siw only")),
    };
    let events = match events {
        true => Some(ctx.events().map_err(|e| fail("ASYNC_EVENT_ALLOC", e))?),
        false => None,
    };
    let pd = ctx.alloc_pd().map_err(|e| fail("ALLOC_PD", e))?;
    let cq = ctx
        .create_cq(64, None, 0)
        .map_err(|e| fail("CREATE_CQ", e))?;
    let srq = match shape.srq {
        true => Some(
            pd.create_srq(&SrqInit {
                max_wr: 16,
                max_sge: 3,
                srq_limit: 0,
            })
            .map_err(|e| fail("CREATE_SRQ", e))?,
        ),
        false => None,
    };
    // A QP on an SRQ has no receive queue of its own (siw refuses capacities for one).
    let recv = if shape.srq { 0 } else { 16 };
    let cap = QpCap {
        max_send_wr: 16,
        max_recv_wr: recv,
        max_send_sge: 3,
        max_recv_sge: recv.min(3),
        max_inline_data: inline,
    };
    let t = shape.qp_type;
    let qp = || {
        let init = QpInit::new(t, &cq, &cq).cap(cap);
        let init = match &srq {
            Some(s) => init.srq(s),
            None => init,
        };
        pd.create_qp(&init)
            .map_err(|e| fail(&format!("CREATE_QP {t:?}"), e))
    };
    let (a, b) = (qp()?, qp()?);
    if siw {
        let cm = super::cm_pair::connect(info, &a, &b, DEADLINE)?;
        return Ok(Pair {
            cm: Some(cm),
            a,
            b,
            srq,
            cq,
            pd,
            events,
            _ctx: ctx,
        });
    }
    let gid = match ctx.query_gid(1, 0) {
        Ok(Some(g)) if g.gid != Gid::default() => g.gid,
        Ok(_) => return Err(Outcome::skip("port 1 has no GID at index 0 (IPv6 off?)")),
        Err(e) => return Err(fail("QUERY_GID port 1 index 0", e)),
    };
    let access = AccessFlags::LOCAL_WRITE
        | AccessFlags::REMOTE_WRITE
        | AccessFlags::REMOTE_READ
        | AccessFlags::REMOTE_ATOMIC;
    for (q, peer, psn, peer_psn) in [(&a, &b, 0x100, 0x200), (&b, &a, 0x200, 0x100)] {
        let steps = [
            ("RESET->INIT", ModifyQp::init(t, 1, access, QKEY)),
            (
                "INIT->RTR",
                ModifyQp::rtr(
                    t,
                    Mtu::Mtu1024,
                    peer.qp_num(),
                    peer_psn,
                    AhAttr::global(1, 0, gid, 1),
                ),
            ),
            ("RTR->RTS", ModifyQp::rts(t, psn)),
        ];
        for (what, m) in steps {
            q.modify(&mut tune(what, m))
                .map_err(|e| fail(&format!("MODIFY_QP {what}"), e))?;
        }
    }
    Ok(Pair {
        cm: None,
        a,
        b,
        srq,
        cq,
        pd,
        events,
        _ctx: ctx,
    })
}

impl Pair {
    /// A registered buffer holding `data`, with every access right the cases use.
    pub(super) fn mr(&self, data: &[u8], o: &mut Outcome) -> Option<Mr> {
        let access =
            AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE | AccessFlags::REMOTE_READ;
        Self::mr_in(&self.pd, data, access, o)
    }

    /// A buffer holding `data` registered in `pd` with `access`.
    pub(super) fn mr_in(pd: &Pd, data: &[u8], access: AccessFlags, o: &mut Outcome) -> Option<Mr> {
        let r = MrBuf::from_slice(data)
            .map_err(|e| format!("buffer of {} bytes: {e}", data.len()))
            .and_then(|b| {
                pd.reg_mr(b, access).map_err(|e| {
                    format!(
                        "REG_MR {} bytes, access {:#x}: {e}",
                        data.len(),
                        access.bits()
                    )
                })
            });
        r.map_err(|e| o.fail(e)).ok()
    }

    /// Polls until `n` completions came, failing the case when the deadline passes
    /// first or the CQ errs.
    pub(super) fn wait(&self, n: usize, o: &mut Outcome) -> Option<Vec<Wc>> {
        let t0 = Instant::now();
        let mut got = Vec::with_capacity(n);
        let mut wc = [Wc::default(); 16];
        while got.len() < n {
            let room = (n - got.len()).min(wc.len());
            match self.cq.poll(&mut wc[..room]) {
                Ok(0) if t0.elapsed() > DEADLINE => {
                    o.fail(format!(
                        "{} of {n} completions within {} s: {}",
                        got.len(),
                        DEADLINE.as_secs(),
                        got.iter().map(wc_text).collect::<Vec<_>>().join("; ")
                    ));
                    return None;
                }
                Ok(0) => std::thread::yield_now(),
                Ok(k) => got.extend_from_slice(&wc[..k]),
                Err(e) => {
                    o.fail(format!("POLL_CQ: {e}"));
                    return None;
                }
            }
        }
        // Nothing beyond what was asked for may have completed.
        if let Ok(k @ 1..) = self.cq.poll(&mut wc[..1]) {
            o.fail(format!("an extra completion: {}", wc_text(&wc[k - 1])));
        }
        Some(got)
    }

    pub(super) fn post_send(&self, wr: &[SendWr<'_>], what: &str, o: &mut Outcome) -> bool {
        self.a
            .post_send(wr)
            .map_err(|e| o.fail(format!("POST_SEND {what}: {e}")))
            .is_ok()
    }

    /// Posts `op` on `a` as one signaled WR over `sges` (`what` in a failure), waits for
    /// its completion and checks it ([`check_wc`], as `name`) against `want`: its WR id,
    /// opcode and byte length. False when it could not be posted or did not complete.
    pub(super) fn post_one(
        &self,
        op: SendOp,
        sges: &[Sge<'_>],
        (what, name): (&str, &str),
        want: (u64, WcOpcode, u32),
        o: &mut Outcome,
    ) -> bool {
        let (wr_id, done, len) = want;
        if !self.post_send(&[SendWr::new(wr_id, op).sg(sges).signaled()], what, o) {
            return false;
        }
        let Some(w) = self.wait(1, o) else {
            return false;
        };
        check_wc(o, name, &w[0], (wr_id, done, len, self.a.qp_num()), false);
        true
    }

    pub(super) fn post_recv(&self, wr: &[RecvWr<'_>], o: &mut Outcome) -> bool {
        self.b
            .post_recv(wr)
            .map_err(|e| o.fail(format!("POST_RECV: {e}")))
            .is_ok()
    }
}

/// A C name of an open enum value, or its number.
pub(super) fn c_name(name: Option<&'static str>, raw: u32) -> String {
    name.map_or_else(|| raw.to_string(), str::to_owned)
}

/// A completion in one line, with the fields the cases compare.
pub(super) fn wc_text(w: &Wc) -> String {
    format!(
        "wr_id {} {} {} byte_len {} qp_num {} wc_flags {:#x} imm {:#010x}",
        w.wr_id,
        c_name(w.status.c_name(), w.status.as_raw()),
        c_name(w.opcode.c_name(), w.opcode.as_raw()),
        w.byte_len,
        w.qp_num,
        w.wc_flags.bits(),
        w.imm_data
    )
}

/// The bytes of an MR.
pub(super) fn bytes(mr: &Mr) -> Vec<u8> {
    let mut v = vec![0u8; mr.len()];
    mr.read_at(0, &mut v);
    v
}

/// Checks a completion against what the IBTA promises for it: its request, success,
/// opcode and QP; for a receive, the message's length and whether it carried immediate
/// data (`imm`). What is left undefined is not compared: a send's byte_len and flags
/// (rxe sets WITH_IMM on the sender's side too), GRH on a connected QP (RoCE has one in
/// every packet, and rxe says so).
pub(super) fn check_wc(
    o: &mut Outcome,
    what: &str,
    w: &Wc,
    want: (u64, WcOpcode, u32, u32),
    imm: bool,
) {
    let (wr_id, opcode, byte_len, qp_num) = want;
    o.check(
        w.wr_id == wr_id
            && w.status == WcStatus::Success
            && w.opcode == opcode
            && w.qp_num == qp_num,
        || {
            format!(
                "{what}: completion {}, expected wr_id {wr_id} IBV_WC_SUCCESS {} qp_num {qp_num}",
                wc_text(w),
                c_name(opcode.c_name(), opcode.as_raw())
            )
        },
    );
    let receive = matches!(opcode, WcOpcode::Recv | WcOpcode::RecvRdmaWithImm);
    if receive || opcode == WcOpcode::RdmaRead {
        o.check(w.byte_len == byte_len, || {
            format!("{what}: byte_len {}, expected {byte_len}", w.byte_len)
        });
        o.fact(format!("{what}.byte_len"), w.byte_len);
    }
    if receive {
        o.check(w.wc_flags.contains(WcFlags::WITH_IMM) == imm, || {
            format!(
                "{what}: wc_flags {:#x}, WITH_IMM expected {imm}",
                w.wc_flags.bits()
            )
        });
        o.fact(
            format!("{what}.wc_flags"),
            format!("{:#x}", w.wc_flags.bits()),
        );
    }
    o.fact(
        format!("{what}.opcode"),
        c_name(w.opcode.c_name(), w.opcode.as_raw()),
    );
    o.fact(
        format!("{what}.status"),
        c_name(w.status.c_name(), w.status.as_raw()),
    );
}

/// Compares `got` with `want`, naming the first differing offset.
pub(super) fn same_bytes(o: &mut Outcome, what: &str, got: &[u8], want: &[u8]) {
    if got != want {
        let at = got
            .iter()
            .zip(want)
            .position(|(a, b)| a != b)
            .unwrap_or(got.len().min(want.len()));
        o.fail(format!(
            "{what}: payload differs at byte {at} of {} (got {}, expected {})",
            want.len(),
            got.get(at).map_or(-1, |&b| i32::from(b)),
            want.get(at).map_or(-1, |&b| i32::from(b))
        ));
    }
}

/// Runs data case `name` on `info`.
pub(super) fn run(info: &DeviceInfo, name: &str) -> Outcome {
    let inline = if name == "inline" { 64 } else { 0 };
    let p = match pair(info, inline) {
        Ok(p) => p,
        Err(o) => return o,
    };
    if name == "send_imm" && p.cm.is_some() {
        return Outcome::skip("iWARP (siw) carries no immediate data");
    }
    let mut o = Outcome::new();
    match name {
        "send" => send(&p, &mut o),
        "send_imm" => send_imm(&p, &mut o),
        "write_read" => write_read(&p, &mut o),
        "inline" => inline_sizes(&p, &mut o),
        "atomic" => atomic(&p, &mut o),
        _ => unsignaled(&p, &mut o),
    }
    o
}

/// Compare-and-swap that matches, one that does not, and fetch-and-add, on 8-byte words
/// of a buffer registered with REMOTE_ATOMIC: each brings the word's old value back into
/// the local SGE, changes (or, not matching, leaves) exactly those 8 bytes, and completes
/// with its own opcode. Skipped where the device has no atomics (siw: ATOMIC_NONE).
fn atomic(p: &Pair, o: &mut Outcome) {
    match p._ctx.query_device() {
        Ok(d) if d.atomic_cap == AtomicCap::None => {
            *o = Outcome::skip("the device has no atomics (atomic_cap IBV_ATOMIC_NONE)");
            return;
        }
        Ok(_) => {}
        Err(e) => return o.fail(format!("QUERY_DEVICE: {e}")),
    }
    const OLD: u64 = 0x0102_0304_0506_0708;
    const SWAP: u64 = 0xfedc_ba98_7654_3210;
    let mut init = pattern(64, 0x5a);
    init[8..16].copy_from_slice(&OLD.to_ne_bytes());
    init[16..24].copy_from_slice(&OLD.to_ne_bytes());
    let all = AccessFlags::LOCAL_WRITE
        | AccessFlags::REMOTE_WRITE
        | AccessFlags::REMOTE_READ
        | AccessFlags::REMOTE_ATOMIC;
    let Some(target) = Pair::mr_in(&p.pd, &init, all, o) else {
        return;
    };
    let Some(result) = p.mr(&[0xee; 24], o) else {
        return;
    };
    let at = |off: u64| Remote {
        addr: target.addr() + off,
        rkey: target.rkey(),
    };
    // (wr_id, what, op, its result's offset in `result`, the old value expected there)
    let steps = [
        (
            1,
            "compare-and-swap",
            SendOp::AtomicCmpSwap {
                remote: at(8),
                compare: OLD,
                swap: SWAP,
            },
            0usize,
            OLD,
        ),
        (
            2,
            "compare-and-swap, not matching",
            SendOp::AtomicCmpSwap {
                remote: at(8),
                compare: OLD,
                swap: 7,
            },
            8,
            SWAP,
        ),
        (
            3,
            "fetch-and-add",
            SendOp::AtomicFetchAdd {
                remote: at(16),
                add: 5,
            },
            16,
            OLD,
        ),
    ];
    for (wr_id, what, op, off, old) in steps {
        let Some(sge) = Sge::new(&result, off, 8) else {
            return o.fail("SGE out of the buffer");
        };
        let want_op = match op {
            SendOp::AtomicCmpSwap { .. } => WcOpcode::CompSwap,
            _ => WcOpcode::FetchAdd,
        };
        if !p.post_one(op, &[sge], (what, what), (wr_id, want_op, 8), o) {
            return;
        }
        let got = bytes(&result);
        let back = u64::from_ne_bytes(got[off..off + 8].try_into().unwrap_or([0; 8]));
        o.check(back == old, || {
            format!("{what}: old value {back:#018x} came back, expected {old:#018x}")
        });
    }
    let mut want = init;
    want[8..16].copy_from_slice(&SWAP.to_ne_bytes());
    want[16..24].copy_from_slice(&(OLD + 5).to_ne_bytes());
    same_bytes(o, "the atomics' target", &bytes(&target), &want);
}

/// Three SGEs, the first ending just past a page boundary, received into two SGEs of a
/// larger buffer: the message lands contiguously from the first receive SGE's start,
/// and the rest of the buffer is untouched.
fn send(p: &Pair, o: &mut Outcome) {
    let src_bytes = pattern(3 * 4096, 0x11);
    let Some(src) = p.mr(&src_bytes, o) else {
        return;
    };
    let Some(dst) = p.mr(&[0xee; 8192], o) else {
        return;
    };
    let segs = [(4093usize, 7u32), (5003, 1500), (9000, 1)];
    let total: u32 = segs.iter().map(|s| s.1).sum();
    let want: Vec<u8> = segs
        .iter()
        .flat_map(|&(off, len)| src_bytes[off..off + len as usize].iter().copied())
        .collect();
    let (Some(r0), Some(r1)) = (Sge::new(&dst, 3, 1000), Sge::new(&dst, 4000, 4000)) else {
        return o.fail("receive SGEs out of the buffer");
    };
    let rs = [r0, r1];
    let ss: Vec<Sge<'_>> = segs
        .iter()
        .filter_map(|&(off, len)| Sge::new(&src, off, len))
        .collect();
    if !p.post_recv(&[RecvWr::new(7, &rs)], o)
        || !p.post_send(
            &[SendWr::new(8, SendOp::Send).sg(&ss).signaled()],
            "SEND",
            o,
        )
    {
        return;
    }
    let Some(wcs) = p.wait(2, o) else { return };
    for w in &wcs {
        match w.wr_id {
            7 => check_wc(
                o,
                "recv",
                w,
                (7, WcOpcode::Recv, total, p.b.qp_num()),
                false,
            ),
            _ => check_wc(
                o,
                "send",
                w,
                (8, WcOpcode::Send, total, p.a.qp_num()),
                false,
            ),
        }
    }
    let got = bytes(&dst);
    // The first receive SGE holds 1000 bytes, the rest goes to the second.
    let mut landed = got[3..1003].to_vec();
    landed.extend_from_slice(&got[4000..4000 + (total as usize - 1000)]);
    same_bytes(o, "SEND", &landed, &want);
    let untouched = got[..3]
        .iter()
        .chain(&got[1003..4000])
        .chain(&got[4000 + total as usize - 1000..]);
    o.check(untouched.clone().all(|&b| b == 0xee), || {
        "SEND: bytes outside the received message changed".to_string()
    });
}

/// SEND_WITH_IMM and RDMA_WRITE_WITH_IMM: the receive's completion carries the
/// immediate value the sender posted (an asymmetric one, so that a swapped byte order
/// shows) and WITH_IMM; the write's data lands, and its receive completes with length 0
/// payload in the receive buffer.
fn send_imm(p: &Pair, o: &mut Outcome) {
    let data = pattern(300, 0x22);
    let Some(src) = p.mr(&data, o) else { return };
    let Some(dst) = p.mr(&[0u8; 4096], o) else {
        return;
    };
    let Some(rbuf) = p.mr(&[0u8; 512], o) else {
        return;
    };
    let (Some(rs0), Some(rs1)) = (Sge::new(&rbuf, 0, 512), Sge::new(&rbuf, 0, 512)) else {
        return o.fail("receive SGE out of the buffer");
    };
    let (r0, r1) = ([rs0], [rs1]);
    let Some(s) = Sge::new(&src, 0, 300) else {
        return o.fail("SGE out of the buffer");
    };
    let ss = [s];
    let remote = Remote {
        addr: dst.addr() + 1001,
        rkey: dst.rkey(),
    };
    const IMM: u32 = 0x0102_0304;
    if !p.post_recv(&[RecvWr::new(1, &r0), RecvWr::new(2, &r1)], o)
        || !p.post_send(
            &[
                SendWr::new(3, SendOp::SendWithImm(IMM)).sg(&ss).signaled(),
                SendWr::new(4, SendOp::RdmaWriteWithImm(remote, !IMM))
                    .sg(&ss)
                    .signaled(),
            ],
            "SEND_WITH_IMM, RDMA_WRITE_WITH_IMM",
            o,
        )
    {
        return;
    }
    let Some(wcs) = p.wait(4, o) else { return };
    for w in &wcs {
        match w.wr_id {
            1 => {
                check_wc(
                    o,
                    "recv_imm",
                    w,
                    (1, WcOpcode::Recv, 300, p.b.qp_num()),
                    true,
                );
                o.check(w.imm_data == IMM, || {
                    format!(
                        "SEND_WITH_IMM: imm_data {:#010x}, posted {IMM:#010x}",
                        w.imm_data
                    )
                });
            }
            2 => {
                check_wc(
                    o,
                    "recv_write_imm",
                    w,
                    (2, WcOpcode::RecvRdmaWithImm, 300, p.b.qp_num()),
                    true,
                );
                o.check(w.imm_data == !IMM, || {
                    format!(
                        "RDMA_WRITE_WITH_IMM: imm_data {:#010x}, posted {:#010x}",
                        w.imm_data, !IMM
                    )
                });
            }
            3 => check_wc(
                o,
                "send_imm",
                w,
                (3, WcOpcode::Send, 0, p.a.qp_num()),
                false,
            ),
            _ => check_wc(
                o,
                "write_imm",
                w,
                (4, WcOpcode::RdmaWrite, 0, p.a.qp_num()),
                false,
            ),
        }
    }
    same_bytes(o, "SEND_WITH_IMM", &bytes(&rbuf)[..300], &data);
    let got = bytes(&dst);
    same_bytes(o, "RDMA_WRITE_WITH_IMM", &got[1001..1301], &data);
    o.check(
        got[..1001].iter().chain(&got[1301..]).all(|&b| b == 0),
        || "RDMA_WRITE_WITH_IMM: bytes outside the written range changed".to_string(),
    );
}

/// RDMA_WRITE of 5000 bytes from an odd offset to an odd remote address (five 1024-byte
/// MTUs, two pages), then RDMA_READ of 3001 of them back into another buffer.
fn write_read(p: &Pair, o: &mut Outcome) {
    let data = pattern(3 * 4096, 0x33);
    let Some(src) = p.mr(&data, o) else { return };
    let Some(dst) = p.mr(&[0u8; 3 * 4096], o) else {
        return;
    };
    let Some(back) = p.mr(&[0u8; 4096], o) else {
        return;
    };
    let Some(ws) = Sge::new(&src, 77, 5000) else {
        return o.fail("SGE out of the buffer");
    };
    let remote = Remote {
        addr: dst.addr() + 3001,
        rkey: dst.rkey(),
    };
    let write = SendOp::RdmaWrite(remote);
    if !p.post_one(
        write,
        &[ws],
        ("RDMA_WRITE", "write"),
        (1, WcOpcode::RdmaWrite, 0),
        o,
    ) {
        return;
    }
    let got = bytes(&dst);
    same_bytes(o, "RDMA_WRITE", &got[3001..8001], &data[77..5077]);
    o.check(
        got[..3001].iter().chain(&got[8001..]).all(|&b| b == 0),
        || "RDMA_WRITE: bytes outside the written range changed".to_string(),
    );
    let Some(rs) = Sge::new(&back, 5, 3001) else {
        return o.fail("SGE out of the buffer");
    };
    let from = Remote {
        addr: dst.addr() + 4000,
        rkey: dst.rkey(),
    };
    let read = SendOp::RdmaRead(from);
    if !p.post_one(
        read,
        &[rs],
        ("RDMA_READ", "read"),
        (2, WcOpcode::RdmaRead, 3001),
        o,
    ) {
        return;
    }
    same_bytes(o, "RDMA_READ", &bytes(&back)[5..3006], &got[4000..7001]);
}

/// Inline sends of 0, 1 and the QP's max_inline_data bytes arrive whole; one byte more
/// is refused before anything is posted (the queue still works after it).
fn inline_sizes(p: &Pair, o: &mut Outcome) {
    let max = p.a.cap().max_inline_data as usize;
    o.fact("max_inline_data", max);
    if max == 0 {
        return o.fail("max_inline_data 0 after asking for 64");
    }
    let data = pattern(max + 1, 0x44);
    let Some(rbuf) = p.mr(&vec![0xee; 3 * (max + 1)], o) else {
        return;
    };
    let over = SendWr::new(9, SendOp::Send).inline(&data).signaled();
    o.check(p.a.post_send(&[over]).is_err(), || {
        format!(
            "POST_SEND inline {} bytes (max_inline_data + 1): accepted",
            max + 1
        )
    });
    for (i, n) in [0usize, 1, max].into_iter().enumerate() {
        let off = i * (max + 1);
        let Some(r) = Sge::new(&rbuf, off, (max + 1) as u32) else {
            return o.fail("SGE out of the buffer");
        };
        let rs = [r];
        let id = 10 + i as u64;
        if !p.post_recv(&[RecvWr::new(id, &rs)], o)
            || !p.post_send(
                &[SendWr::new(id + 100, SendOp::Send)
                    .inline(&data[..n])
                    .signaled()],
                "inline",
                o,
            )
        {
            return;
        }
        let Some(wcs) = p.wait(2, o) else { return };
        for w in &wcs {
            if w.wr_id == id {
                check_wc(
                    o,
                    &format!("inline{n}.recv"),
                    w,
                    (id, WcOpcode::Recv, n as u32, p.b.qp_num()),
                    false,
                );
            } else {
                check_wc(
                    o,
                    &format!("inline{n}.send"),
                    w,
                    (id + 100, WcOpcode::Send, 0, p.a.qp_num()),
                    false,
                );
            }
        }
        let got = bytes(&rbuf);
        same_bytes(o, &format!("inline {n}"), &got[off..off + n], &data[..n]);
        o.check(
            got[off + n..off + max + 1].iter().all(|&b| b == 0xee),
            || format!("inline {n}: bytes past the message changed"),
        );
    }
}

fn ids(v: &[u64]) -> String {
    v.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
}

/// Three sends, only the last signaled: the sender sees one completion, the receiver
/// three, in order.
fn unsignaled(p: &Pair, o: &mut Outcome) {
    let data = pattern(64, 0x55);
    let Some(src) = p.mr(&data, o) else { return };
    let Some(rbuf) = p.mr(&[0u8; 3 * 64], o) else {
        return;
    };
    let (Some(s), Some(r0), Some(r1), Some(r2)) = (
        Sge::new(&src, 0, 64),
        Sge::new(&rbuf, 0, 64),
        Sge::new(&rbuf, 64, 64),
        Sge::new(&rbuf, 128, 64),
    ) else {
        return o.fail("SGE out of the buffer");
    };
    let ss = [s];
    let (r0, r1, r2) = ([r0], [r1], [r2]);
    if !p.post_recv(
        &[
            RecvWr::new(1, &r0),
            RecvWr::new(2, &r1),
            RecvWr::new(3, &r2),
        ],
        o,
    ) || !p.post_send(
        &[
            SendWr::new(11, SendOp::Send).sg(&ss),
            SendWr::new(12, SendOp::Send).sg(&ss),
            SendWr::new(13, SendOp::Send).sg(&ss).signaled(),
        ],
        "3 SENDs",
        o,
    ) {
        return;
    }
    let Some(wcs) = p.wait(4, o) else { return };
    let sends: Vec<u64> = wcs
        .iter()
        .filter(|w| w.qp_num == p.a.qp_num())
        .map(|w| w.wr_id)
        .collect();
    let recvs: Vec<u64> = wcs
        .iter()
        .filter(|w| w.qp_num == p.b.qp_num())
        .map(|w| w.wr_id)
        .collect();
    o.check(sends == [13], || {
        format!(
            "send completions {}, expected only the signaled one (13)",
            ids(&sends)
        )
    });
    o.check(recvs == [1, 2, 3], || {
        format!(
            "receive completions {}, expected 1, 2, 3 in order",
            ids(&recvs)
        )
    });
    let got = bytes(&rbuf);
    for k in 0..3 {
        same_bytes(
            o,
            &format!("send {}", 11 + k),
            &got[k * 64..(k + 1) * 64],
            &data,
        );
    }
}
