//! The cases of tests/vm/dp_oracle.c with uverbs: the same steps on the same kernel,
//! printed as the same keys (see the contract at the top of that file). libibverbs'
//! answers are the expected values.
//!
//! On siw the pair is connected through the RDMA CM (librdmacm's there, uverbs' own
//! here) at siw's own address, each pair on a port of its own.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use uverbs::cm::{CmId, ConnParam};
use uverbs::raw::mr::RawSge;
use uverbs::verbs::datapath::{RecvWr, Remote, SendOp, SendWr, Sge, Wc};
use uverbs::verbs::objects::{
    Ah, AhAttr, Cq, ModifyQp, Mr, MrBuf, Pd, Qp, QpCap, QpInit, Srq, SrqInit,
};
use uverbs::{AccessFlags, Context, Gid, Mtu, Next, QpState, QpType, WcFlags};

use super::util;

pub type Lines = BTreeMap<String, String>;

/// The next port for a CM-connected pair (the oracle's and ours alike).
static CM_PORT: AtomicU16 = AtomicU16::new(7400);

/// Where a pair on `dev` is connected through the RDMA CM: siw's own address (the rig
/// gives siw<i> 169.254.<129+i>.1) on a fresh port; `None` for other devices.
fn cm_at(dev: &str) -> Option<SocketAddr> {
    let n: u32 = dev.strip_prefix("siw")?.parse().ok()?;
    let port = CM_PORT.fetch_add(1, Ordering::Relaxed);
    format!("169.254.{}.1:{port}", 129 + n).parse().ok()
}

/// libibverbs' answer to `dp_oracle DEV CASE [ARG]` (on siw connected by librdmacm).
pub fn oracle(dev: &str, case: &str, arg: Option<&str>) -> Lines {
    let exe = std::env::var("UVERBS_DP_ORACLE").unwrap_or_else(|_| "/uverbs/dp_oracle".into());
    let mut c = std::process::Command::new(&exe);
    c.args([dev, case]);
    if let Some(at) = cm_at(dev) {
        c.env("DP_ORACLE_CM", at.to_string());
    }
    if let Some(a) = arg {
        c.arg(a);
    }
    let out = c.output().unwrap_or_else(|e| panic!("{exe}: {e}"));
    assert!(
        out.status.success(),
        "dp_oracle {dev} {case}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

const ALL: AccessFlags = AccessFlags::LOCAL_WRITE
    .union(AccessFlags::REMOTE_WRITE)
    .union(AccessFlags::REMOTE_READ)
    .union(AccessFlags::REMOTE_ATOMIC);

/// What a case works with: a sends, b receives.
pub struct Pair {
    pub pd: Pd,
    pub cqa: Cq,
    pub cqb: Cq,
    pub a: Qp,
    pub b: Qp,
    pub src: Mr,
    pub dst: Mr,
    pub ah: Option<Ah>,
    pub t: QpType,
    gid: Gid,
    /// On siw: the listening id, a's and b's (dropped after the QPs).
    pub cm: Option<(CmId, CmId, CmId)>,
}

fn mr_of(pd: &Pd, bytes: &[u8], len: usize, access: AccessFlags) -> Mr {
    let mut b = MrBuf::new(len).unwrap();
    b.write_at(0, &bytes[..len.min(bytes.len())]);
    pd.reg_mr(b, access).unwrap()
}

impl Pair {
    pub fn new(
        dev: &str,
        t: QpType,
        cqb_size: u32,
        depth: u32,
        dst_access: AccessFlags,
        connect: bool,
        rnr_retry: u8,
    ) -> Pair {
        Self::on(
            util::open(dev),
            t,
            cqb_size,
            depth,
            dst_access,
            connect,
            rnr_retry,
        )
    }

    /// The same on an open context.
    pub fn on(
        ctx: Arc<Context>,
        t: QpType,
        cqb_size: u32,
        depth: u32,
        dst_access: AccessFlags,
        connect: bool,
        rnr_retry: u8,
    ) -> Pair {
        let pd = ctx.alloc_pd().unwrap();
        let cqa = ctx.create_cq(64, None, 0).unwrap();
        let cqb = ctx.create_cq(cqb_size, None, 0).unwrap();
        let pattern: Vec<u8> = (0..8192).map(|i| (i % 251) as u8).collect();
        let src = mr_of(&pd, &pattern, 4096, ALL);
        let dlen = if t == QpType::Ud { 4096 + 40 } else { 4096 };
        let dst = mr_of(&pd, &[], dlen, dst_access);
        // siw (connected by the CM) has no GID 1 and needs none.
        let cm = if connect { cm_at(ctx.name()) } else { None };
        let gid = match cm {
            Some(_) => Gid::default(),
            None => util::gid(&ctx, 1),
        };
        let cap = QpCap {
            max_send_wr: depth,
            max_recv_wr: depth,
            max_send_sge: 2,
            max_recv_sge: 2,
            max_inline_data: 64,
        };
        let a = pd.create_qp(&QpInit::new(t, &cqa, &cqa).cap(cap)).unwrap();
        let b = pd.create_qp(&QpInit::new(t, &cqb, &cqb).cap(cap)).unwrap();
        let mut p = Pair {
            pd,
            cqa,
            cqb,
            a,
            b,
            src,
            dst,
            ah: None,
            t,
            gid,
            cm: None,
        };
        if let Some(at) = cm {
            p.cm = Some(p.cm_connect(at, rnr_retry));
        } else if connect {
            p.init();
            p.rtr();
            p.rts(rnr_retry);
        }
        p
    }

    /// a and b connected by uverbs' RDMA CM at `at`, as dp_oracle.c does with
    /// librdmacm: a listening id; a's id resolves, moves a to INIT and connects (one
    /// read each way, 7 retries, `rnr_retry`); b accepted on the request's id (in a
    /// thread: both calls wait for ESTABLISHED).
    fn cm_connect(&self, at: SocketAddr, rnr_retry: u8) -> (CmId, CmId, CmId) {
        let t = Duration::from_secs(5);
        let param = ConnParam {
            rnr_retry_count: rnr_retry,
            ..ConnParam::default()
        };
        let [listen, cid, sid] = util::cm_pair(&self.a, &self.b, at, &param, t);
        (listen, cid, sid)
    }

    pub fn init(&self) {
        util::to_init(&self.a, self.t);
        util::to_init(&self.b, self.t);
    }

    fn rtr_one(&self, qp: &Qp, dest: u32) {
        let path = AhAttr::global(1, 1, self.gid, 1);
        qp.modify(&mut ModifyQp::rtr(self.t, Mtu::Mtu1024, dest, 0, path))
            .unwrap();
    }

    pub fn rtr(&self) {
        self.rtr_one(&self.a, self.b.qp_num());
        self.rtr_one(&self.b, self.a.qp_num());
    }

    fn rts_one(&self, qp: &Qp, rnr: u8) {
        let mut m = ModifyQp::rts(self.t, 0);
        if self.t == QpType::Rc {
            m = m.rnr_retry(rnr);
        }
        qp.modify(&mut m).unwrap();
    }

    pub fn rts(&mut self, rnr_retry: u8) {
        self.rts_one(&self.a, rnr_retry);
        self.rts_one(&self.b, 7);
        if self.t == QpType::Ud {
            self.ah = Some(
                self.pd
                    .create_ah(&AhAttr::global(1, 1, self.gid, 64))
                    .unwrap(),
            );
        }
    }

    pub fn recv(&self, srq: Option<&Srq>, id: u64, off: usize, len: u32) -> uverbs::Result<()> {
        let s = [Sge::new(&self.dst, off, len).unwrap()];
        let w = [RecvWr::new(id, &s)];
        match srq {
            Some(q) => q.post_recv(&w),
            None => self.b.post_recv(&w),
        }
    }

    /// a and b to ERR; on siw, then both DISCONNECTED events (the connection is gone),
    /// as dp_oracle.c's both_to_err.
    pub fn both_to_err(&self) {
        self.a
            .modify(&mut ModifyQp::new().state(QpState::Err))
            .unwrap();
        self.b
            .modify(&mut ModifyQp::new().state(QpState::Err))
            .unwrap();
        if let Some((_, a, b)) = &self.cm {
            for id in [a, b] {
                let e = id.next_event(Duration::from_secs(5)).unwrap();
                assert_eq!(e.kind, uverbs::CmEventType::Disconnected, "{e:?}");
            }
        }
    }

    /// b's state (raw); on siw once b is in ERR, at most 2 s: its teardown runs in a
    /// kernel thread (libibverbs read RTS right after cqoverrun's event in 2 of 60 runs
    /// on 6.12, uverbs ERR), and 6.1's siw answers RESET for every state (no wait then).
    /// As dp_oracle.c's b_state_settled.
    pub fn b_state_settled(&self) -> String {
        let t0 = Instant::now();
        let mut st = self.b.query().unwrap().state();
        while self.cm.is_some()
            && !matches!(st, QpState::Err | QpState::Reset)
            && t0.elapsed().as_secs_f64() < 2.0
        {
            st = self.b.query().unwrap().state();
        }
        st.as_raw().to_string()
    }

    /// a posts `op` of `sge` (its remote: dst, atomics dst+8), signaled or not.
    pub fn post(
        &self,
        op: &str,
        sig: bool,
        id: u64,
        sge: Sge<'_>,
        inline: Option<&[u8]>,
    ) -> uverbs::Result<()> {
        let dst = Remote {
            addr: self.dst.addr(),
            rkey: self.dst.rkey(),
        };
        let at8 = Remote {
            addr: self.dst.addr() + 8,
            rkey: self.dst.rkey(),
        };
        let o = match op {
            "send" => SendOp::Send,
            "send_imm" => SendOp::SendWithImm(0x0102_0304),
            "write" => SendOp::RdmaWrite(dst),
            "write_imm" => SendOp::RdmaWriteWithImm(dst, 0x0102_0304),
            "read" => SendOp::RdmaRead(dst),
            "cmp_swap" => SendOp::AtomicCmpSwap {
                remote: at8,
                compare: 0,
                swap: 0x1122,
            },
            "fetch_add" => SendOp::AtomicFetchAdd {
                remote: at8,
                add: 5,
            },
            other => panic!("opcode {other}"),
        };
        let sges = [sge];
        let mut w = SendWr::new(id, o);
        w = match inline {
            Some(d) => w.inline(d),
            None => w.sg(&sges),
        };
        if sig {
            w = w.signaled();
        }
        if self.t == QpType::Ud {
            w = w.ud(self.ah.as_ref().unwrap(), self.b.qp_num(), 0x1111_1111);
        }
        self.a.post_send(&[w])
    }

    fn src(&self, off: usize, len: u32) -> Sge<'_> {
        Sge::new(&self.src, off, len).unwrap()
    }
}

fn poll1(cq: &Cq, secs: f64) -> Option<Wc> {
    let t0 = Instant::now();
    let mut wc = [Wc::default(); 1];
    loop {
        if cq.poll(&mut wc).unwrap() == 1 {
            return Some(wc[0]);
        }
        if t0.elapsed().as_secs_f64() >= secs {
            return None;
        }
        std::thread::yield_now();
    }
}

fn put_wc(out: &mut Lines, k: &str, wc: Option<Wc>) {
    let Some(w) = wc else {
        out.insert(k.into(), "none".into());
        return;
    };
    out.insert(format!("{k}.status"), w.status.as_raw().to_string());
    out.insert(format!("{k}.opcode"), w.opcode.as_raw().to_string());
    out.insert(format!("{k}.byte_len"), w.byte_len.to_string());
    out.insert(format!("{k}.wc_flags"), w.wc_flags.bits().to_string());
    let imm = if w.wc_flags.contains(WcFlags::WITH_IMM) {
        w.imm_data
    } else {
        0
    };
    out.insert(format!("{k}.imm"), imm.to_string());
}

fn bytes(mr: &Mr, off: usize, len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    assert!(mr.read_at(off, &mut v));
    v
}

fn takes_recv(op: &str) -> bool {
    matches!(op, "send" | "send_imm" | "write_imm")
}

pub fn matrix(dev: &str, t: QpType) -> Lines {
    let ops: &[&str] = match t {
        QpType::Rc => &[
            "send",
            "send_imm",
            "write",
            "write_imm",
            "read",
            "cmp_swap",
            "fetch_add",
        ],
        QpType::Uc => &["send", "send_imm", "write", "write_imm"],
        _ => &["send", "send_imm"],
    };
    let g = if t == QpType::Ud { 40 } else { 0 };
    let mut p = Pair::new(dev, t, 64, 16, ALL, true, 7);
    let mut out = Lines::new();
    for op in ops {
        for sig in [false, true] {
            let s = u8::from(sig);
            assert!(p.dst.write_at(0, &vec![0u8; p.dst.len()]));
            if takes_recv(op) {
                p.recv(None, 7, 0, 4096 + g as u32).unwrap();
            }
            match *op {
                "cmp_swap" | "fetch_add" => {
                    let v: u64 = if *op == "cmp_swap" { 0 } else { 40 };
                    assert!(p.dst.write_at(8, &v.to_ne_bytes()));
                    assert!(p.src_mut().write_at(64, &[0xee; 8]));
                    p.post(op, sig, 1, p.src(64, 8), None).unwrap();
                }
                "read" => {
                    let head = bytes(&p.src, 0, 100);
                    assert!(p.dst.write_at(0, &head));
                    assert!(p.src_mut().write_at(2048, &[0; 100]));
                    p.post(op, sig, 1, p.src(2048, 100), None).unwrap();
                }
                _ => p.post(op, sig, 1, p.src(0, 100), None).unwrap(),
            }
            if t == QpType::Ud {
                p.recv(None, 8, 4096 - 200, 100 + g as u32).unwrap();
                p.post("send", true, 99, p.src(0, 1), None).unwrap();
            } else {
                p.post("write", true, 99, p.src(0, 0), None).unwrap();
            }
            let mut n = 0;
            let mut first = None;
            while let Some(w) = poll1(&p.cqa, 2.0) {
                if w.wr_id == 99 {
                    break;
                }
                if n == 0 {
                    first = Some(w);
                }
                n += 1;
            }
            out.insert(format!("{op}.{s}.send.n"), n.to_string());
            put_wc(&mut out, &format!("{op}.{s}.send"), first);
            if takes_recv(op) {
                put_wc(&mut out, &format!("{op}.{s}.recv"), poll1(&p.cqb, 2.0));
            }
            if t == QpType::Ud {
                poll1(&p.cqb, 2.0);
            }
            match *op {
                "cmp_swap" | "fetch_add" => {
                    let o = u64::from_ne_bytes(bytes(&p.src, 64, 8).try_into().unwrap());
                    let v = u64::from_ne_bytes(bytes(&p.dst, 8, 8).try_into().unwrap());
                    out.insert(format!("{op}.{s}.old"), o.to_string());
                    out.insert(format!("{op}.{s}.new"), v.to_string());
                }
                "read" => {
                    let ok = bytes(&p.src, 2048, 100) == bytes(&p.src, 0, 100);
                    out.insert(format!("{op}.{s}.data"), u8::from(ok).to_string());
                }
                _ => {
                    let ok = bytes(&p.dst, g, 100) == bytes(&p.src, 0, 100);
                    out.insert(format!("{op}.{s}.data"), u8::from(ok).to_string());
                }
            }
        }
    }
    out
}

impl Pair {
    fn src_mut(&mut self) -> &mut Mr {
        &mut self.src
    }
}

/// The errno libibverbs would report for an error uverbs gives before any system
/// call, as `dp_oracle` prints it; 0 for success.
fn code(r: &uverbs::Result<()>) -> String {
    match r {
        Ok(()) => "0".into(),
        Err(e) => match e.errno() {
            Some(e) => e.raw_os_error().to_string(),
            None => format!("{e:?}")
                .split([' ', '{', '('])
                .next()
                .unwrap_or("?")
                .to_string(),
        },
    }
}

pub fn inline(dev: &str) -> Lines {
    let mut p = Pair::new(dev, QpType::Rc, 64, 16, ALL, true, 7);
    let mut out = Lines::new();
    let max = p.a.cap().max_inline_data;
    out.insert("cap.max_inline_data".into(), max.to_string());
    let data = bytes(&p.src, 0, 4096);
    for len in [0, 1, max, max + 1] {
        assert!(p.dst.write_at(0, &vec![0u8; 4096]));
        p.recv(None, 7, 0, 4096).unwrap();
        let r = p.post("send", true, 1, p.src(0, 0), Some(&data[..len as usize]));
        out.insert(format!("inline.{len}.post"), code(&r));
        if r.is_err() {
            p.b.modify(&mut ModifyQp::new().state(QpState::Err))
                .unwrap();
            poll1(&p.cqb, 2.0);
            continue;
        }
        put_wc(&mut out, &format!("inline.{len}.send"), poll1(&p.cqa, 2.0));
        put_wc(&mut out, &format!("inline.{len}.recv"), poll1(&p.cqb, 2.0));
        let ok = bytes(&p.dst, 0, len as usize) == data[..len as usize];
        out.insert(format!("inline.{len}.data"), u8::from(ok).to_string());
    }
    out
}

pub fn state(dev: &str) -> Lines {
    let mut p = Pair::new(dev, QpType::Rc, 64, 16, ALL, false, 7);
    let mut out = Lines::new();
    let r = p.post("send", true, 1, p.src(0, 10), None);
    out.insert("state.reset.send".into(), code(&r));
    let s = [Sge::new(&p.dst, 0, 10).unwrap()];
    let r = p.a.post_recv(&[RecvWr::new(2, &s)]);
    out.insert("state.reset.recv".into(), code(&r));
    p.init();
    let r = p.post("send", true, 1, p.src(0, 10), None);
    out.insert("state.init.send".into(), code(&r));
    p.rtr();
    let r = p.post("send", true, 1, p.src(0, 10), None);
    out.insert("state.rtr.send".into(), code(&r));
    p.rts(7);
    for _ in 0..4 {
        p.recv(None, 3, 0, 4096).unwrap();
    }
    p.post("send", true, 4, p.src(0, 10), None).unwrap();
    let mut n = 0;
    while poll1(&p.cqa, 1.0).is_some() {
        n += 1;
    }
    out.insert("state.rts.send.n".into(), n.to_string());
    out
}

pub fn flush(dev: &str) -> Lines {
    let p = Pair::new(dev, QpType::Rc, 64, 16, ALL, true, 7);
    let mut out = Lines::new();
    // siw flushes a user-mapped queue only in a state change: b's move to ERR, or the
    // peer-close work that tears b's connection down (siw_qp_llp_close), never at a post
    // in ERR. That work raises DISCONNECTED before it flushes, so a receive posted after
    // the events was flushed only when the work happened to run after the post (libibverbs
    // once, uverbs not, in one CI run). Posted before the moves, as dp_oracle.c does on
    // siw, the receive is flushed by the time b's move returns.
    if p.cm.is_some() {
        p.recv(None, 2, 0, 100).unwrap();
    }
    // a's send, posted after a's own move closed its connection, is never completed on
    // siw, on either side.
    p.both_to_err();
    p.post("send", true, 1, p.src(0, 10), None).unwrap();
    if p.cm.is_none() {
        p.recv(None, 2, 0, 100).unwrap();
    }
    // A receive is a store into the ring, no system call: rxe flushes it when its
    // responder next runs, which only a kernel call makes certain. Both sides move b to
    // ERR again (ERR to ERR is allowed), as dp_oracle.c does; without it the flush
    // depends on when the task run by the first move happens to end (seen on 6.12).
    p.b.modify(&mut ModifyQp::new().state(QpState::Err))
        .unwrap();
    let secs = if p.cm.is_some() { 0.5 } else { 2.0 };
    put_wc(&mut out, "flush.send", poll1(&p.cqa, secs));
    put_wc(&mut out, "flush.recv", poll1(&p.cqb, secs));
    out
}

pub fn rkey(dev: &str) -> Lines {
    let p = Pair::new(
        dev,
        QpType::Rc,
        64,
        16,
        AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_READ,
        true,
        7,
    );
    let mut out = Lines::new();
    p.post("write", true, 1, p.src(0, 100), None).unwrap();
    put_wc(&mut out, "rkey.send", poll1(&p.cqa, 2.0));
    out.insert("rkey.b_state".into(), p.b_state_settled());
    out
}

pub fn sge(dev: &str) -> Lines {
    let p = Pair::new(dev, QpType::Rc, 64, 16, ALL, true, 7);
    let mut out = Lines::new();
    p.recv(None, 2, 0, 4096).unwrap();
    // SAFETY: the range runs past the MR's end, which the kernel refuses (that is the
    // case); the memory it names is the MR's own buffer and the page after it, which
    // the device never reaches: nothing here is written.
    let raw = unsafe { RawSge::new(p.src.addr() + 4000, 200, p.src.lkey()) };
    p.post("send", true, 1, Sge::from_raw(raw), None).unwrap();
    put_wc(&mut out, "sge.send", poll1(&p.cqa, 2.0));
    out
}

pub fn shortrecv(dev: &str) -> Lines {
    let p = Pair::new(dev, QpType::Rc, 64, 16, ALL, true, 7);
    let mut out = Lines::new();
    p.recv(None, 2, 0, 10).unwrap();
    p.post("send", true, 1, p.src(0, 100), None).unwrap();
    put_wc(&mut out, "shortrecv.send", poll1(&p.cqa, 2.0));
    put_wc(&mut out, "shortrecv.recv", poll1(&p.cqb, 2.0));
    out
}

pub fn rnr(dev: &str) -> Lines {
    let p = Pair::new(dev, QpType::Rc, 64, 16, ALL, true, 0);
    let mut out = Lines::new();
    p.post("send", true, 1, p.src(0, 100), None).unwrap();
    put_wc(&mut out, "rnr.send", poll1(&p.cqa, 5.0));
    out
}

/// Posts one at a time until refused: how many were taken, and the refusal.
fn fill(mut post: impl FnMut() -> uverbs::Result<()>) -> (usize, uverbs::Result<()>) {
    let mut n = 0;
    loop {
        let r = post();
        if r.is_err() || n >= 1000 {
            return (n, r);
        }
        n += 1;
    }
}

pub fn full(dev: &str) -> Lines {
    let p = Pair::new(dev, QpType::Rc, 64, 8, ALL, true, 7);
    let mut out = Lines::new();
    // siw has no RNR wait: a send that meets no receive drops the connection, and a QP
    // being torn down refuses the doorbell (ENOTCONN) if it comes while siw holds the
    // QP's state lock, so filling in RTS ended in that errno or in the queue's own error
    // depending on timing (uverbs 107 once in 60 runs). In ERR nothing takes a request
    // off the mapped queues, and each fills to capacity (as dp_oracle.c does).
    if p.cm.is_some() {
        p.both_to_err();
    }
    let (n, r) = fill(|| p.post("send", false, 1, p.src(0, 10), None));
    out.insert("full.sq".into(), n.to_string());
    out.insert("full.sq.err".into(), code(&r));
    // a's receive queue, as dp_oracle.c's: nothing arrives at a, while b's would take a
    // send that an RNR retry brings during the fill (uverbs 16 against 15, once).
    let s = [Sge::new(&p.dst, 0, 10).unwrap()];
    let (n, r) = fill(|| p.a.post_recv(&[RecvWr::new(2, &s)]));
    out.insert("full.rq".into(), n.to_string());
    out.insert("full.rq.err".into(), code(&r));
    let srq =
        p.pd.create_srq(&SrqInit {
            max_wr: 8,
            max_sge: 1,
            srq_limit: 0,
        })
        .unwrap();
    let (n, r) = fill(|| p.recv(Some(&srq), 2, 0, 10));
    out.insert("full.srq".into(), n.to_string());
    out.insert("full.srq.err".into(), code(&r));
    out
}

pub fn cqoverrun(dev: &str) -> Lines {
    // The async event file first: the kernel gives an object the context's async file
    // of the moment it is created, and a CQ made before any has none (libibverbs makes
    // one when it opens the device).
    let ctx = util::open(dev);
    let mut ev = ctx.events().unwrap();
    let p = Pair::on(ctx, QpType::Rc, 4, 16, ALL, true, 7);
    let mut out = Lines::new();
    out.insert("cq.cqe".into(), p.cqb.cqe().to_string());
    // siw: 5 each (4 fill b's CQ, the 5th overruns it). With 16, siw's teardown flushed
    // the receives left into whatever room the CQ had then, so a poll that ran before it
    // found more (libibverbs 5 or 8 in 4 of 30 runs on 6.12, uverbs 8 once); with none
    // left there is nothing to flush (as dp_oracle.c does).
    let count = if p.cm.is_some() { 5 } else { 16 };
    for _ in 0..count {
        p.recv(None, 2, 0, 100).unwrap();
    }
    for _ in 0..count {
        p.post("send", false, 1, p.src(0, 10), None).unwrap();
    }
    let t = match ev.read_timeout(Duration::from_secs(2)).unwrap() {
        Next::Event(e) => i64::from(e.kind.as_raw()),
        _ => -1,
    };
    out.insert("cqoverrun.event".into(), t.to_string());
    out.insert("cqoverrun.b_state".into(), p.b_state_settled());
    let mut n = 0;
    while poll1(&p.cqb, 0.5).is_some() {
        n += 1;
    }
    out.insert("cqoverrun.polled".into(), n.to_string());
    out
}

/// Compares uverbs' lines with libibverbs', except the keys in `differ`, which the
/// caller checks itself (where uverbs refuses before anything reaches the kernel,
/// libibverbs' answer is an errno and uverbs' a typed error).
pub fn compare(case: &str, ours: &Lines, theirs: &Lines, differ: &[&str]) {
    // Two empty answers are equal and prove nothing: each side must have said something.
    assert!(!theirs.is_empty(), "{case}: libibverbs answered nothing");
    assert!(!ours.is_empty(), "{case}: uverbs answered nothing");
    let mut bad = Vec::new();
    for (k, v) in theirs {
        if differ.contains(&k.as_str()) {
            continue;
        }
        match ours.get(k) {
            Some(o) if o == v => {}
            o => bad.push(format!("{k}: libibverbs {v}, uverbs {o:?}")),
        }
    }
    for k in ours.keys() {
        if !theirs.contains_key(k) && !differ.contains(&k.as_str()) {
            bad.push(format!("{k}: uverbs only ({})", ours[k]));
        }
    }
    assert!(
        bad.is_empty(),
        "{case}: {} difference(s) from libibverbs:\n  {}",
        bad.len(),
        bad.join("\n  ")
    );
}
