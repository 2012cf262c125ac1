//! Helpers of the data-path tests: queue pairs connected by hand (RC, UC, UD on rxe),
//! memory, completions with a deadline.

use std::sync::Arc;
use std::time::{Duration, Instant};

use uverbs::cm::{CmChannel, CmId, ConnParam};
use uverbs::verbs::datapath::Wc;
use uverbs::verbs::objects::{AhAttr, Cq, ModifyQp, Mr, MrBuf, Pd, Qp, QpCap, QpInit};
use uverbs::{AccessFlags, Context, Gid, Mtu, QpType};

/// Opens a device by name.
pub fn open(dev: &str) -> Arc<Context> {
    Arc::new(Context::open_by_name(dev).unwrap_or_else(|e| panic!("open {dev}: {e}")))
}

/// The GID at `index` of port 1.
pub fn gid(ctx: &Context, index: u32) -> Gid {
    ctx.query_gid(1, index)
        .unwrap_or_else(|e| panic!("{}: GID {index}: {e}", ctx.name()))
        .unwrap_or_else(|| panic!("{}: no GID {index}", ctx.name()))
        .gid
}

/// A registered buffer of `len` bytes filled with `fill`.
pub fn mr(pd: &Pd, len: usize, fill: u8) -> Mr {
    let buf = MrBuf::from_slice(&vec![fill; len]).unwrap();
    pd.reg_mr(
        buf,
        AccessFlags::LOCAL_WRITE
            | AccessFlags::REMOTE_WRITE
            | AccessFlags::REMOTE_READ
            | AccessFlags::REMOTE_ATOMIC,
    )
    .unwrap_or_else(|e| panic!("reg_mr: {e}"))
}

/// The capacities the tests ask for.
pub fn cap(depth: u32, inline: u32) -> QpCap {
    QpCap {
        max_send_wr: depth,
        max_recv_wr: depth,
        max_send_sge: 2,
        max_recv_sge: 2,
        max_inline_data: inline,
    }
}

/// A QP of `t` on `cq`.
pub fn qp(pd: &Pd, cq: &Cq, t: QpType, cap: QpCap) -> Qp {
    pd.create_qp(&QpInit::new(t, cq, cq).cap(cap))
        .unwrap_or_else(|e| panic!("create_qp {t:?}: {e}"))
}

/// What the other end of an RC or UC connection tells this one.
#[derive(Debug, Clone, Copy)]
pub struct Dest {
    pub qpn: u32,
    pub psn: u32,
    pub gid: Gid,
}

/// INIT, RTR, RTS as ibv_rc_pingpong does (RC; UC without the RC-only attributes; UD
/// with a Q_Key), towards `dest` through GID `sgid` of port 1.
pub fn connect(qp: &Qp, t: QpType, sgid: u8, my_psn: u32, dest: &Dest, mtu: Mtu) {
    to_init(qp, t);
    to_rts(qp, t, sgid, my_psn, dest, mtu);
}

/// RESET to INIT (port 1, P_Key index 0; every access right, or UD's Q_Key).
pub fn to_init(qp: &Qp, t: QpType) {
    let access = AccessFlags::LOCAL_WRITE
        | AccessFlags::REMOTE_WRITE
        | AccessFlags::REMOTE_READ
        | AccessFlags::REMOTE_ATOMIC;
    let mut init = ModifyQp::init(t, 1, access, 0x1111_1111);
    qp.modify(&mut init).unwrap_or_else(|e| panic!("INIT: {e}"));
}

/// INIT to RTR to RTS towards `dest`, as ibv_rc_pingpong's pp_connect_ctx.
pub fn to_rts(qp: &Qp, t: QpType, sgid: u8, my_psn: u32, dest: &Dest, mtu: Mtu) {
    let path = AhAttr::global(1, sgid, dest.gid, 1);
    let mut rtr = ModifyQp::rtr(t, mtu, dest.qpn, dest.psn, path);
    qp.modify(&mut rtr).unwrap_or_else(|e| panic!("RTR: {e}"));
    let mut rts = ModifyQp::rts(t, my_psn);
    qp.modify(&mut rts).unwrap_or_else(|e| panic!("RTS: {e}"));
}

/// Polls `cq` until `n` completions came, or `limit` passed (then panics with what
/// came).
pub fn wait(cq: &Cq, n: usize, limit: Duration) -> Vec<Wc> {
    let t0 = Instant::now();
    let mut got = Vec::new();
    let mut wc = [Wc::default(); 16];
    while got.len() < n {
        // No more than asked for: a later wait gets the rest.
        let room = (n - got.len()).min(wc.len());
        let k = cq
            .poll(&mut wc[..room])
            .unwrap_or_else(|e| panic!("poll: {e}"));
        got.extend_from_slice(&wc[..k]);
        if k == 0 {
            if t0.elapsed() > limit {
                panic!("{} of {n} completions after {limit:?}: {got:?}", got.len());
            }
            std::thread::yield_now();
        }
    }
    got
}

/// The bytes of an MR.
pub fn bytes(mr: &Mr) -> Vec<u8> {
    let mut v = vec![0u8; mr.len()];
    assert!(mr.read_at(0, &mut v));
    v
}

/// Runs a command of the guest; panics with its output when it fails.
pub fn sh(cmd: &str, args: &[&str]) {
    let out = std::process::Command::new(cmd)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{cmd}: {e}"));
    assert!(
        out.status.success(),
        "{cmd} {args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Two rxe devices on the ends of a veth pair (10.77.0.1 and 10.77.0.2), which can
/// reach each other with `accept_local` on (without it the kernel drops packets from a
/// local source address, and modify_qp to RTR fails to resolve the path). Deleted when
/// dropped.
pub struct VethPair {
    pub a: String,
    pub b: String,
}

impl VethPair {
    pub fn new() -> VethPair {
        let _ = std::process::Command::new("ip")
            .args(["link", "del", "uvva"])
            .output();
        sh(
            "ip",
            &[
                "link", "add", "uvva", "type", "veth", "peer", "name", "uvvb",
            ],
        );
        for (nd, addr) in [("uvva", "10.77.0.1/24"), ("uvvb", "10.77.0.2/24")] {
            sh("ip", &["addr", "add", addr, "dev", nd]);
            sh("ip", &["link", "set", nd, "up"]);
        }
        for f in ["all", "uvva", "uvvb"] {
            std::fs::write(format!("/proc/sys/net/ipv4/conf/{f}/accept_local"), "1")
                .unwrap_or_else(|e| panic!("accept_local of {f}: {e}"));
        }
        let p = VethPair {
            a: "rxva".into(),
            b: "rxvb".into(),
        };
        sh(
            "rdma",
            &["link", "add", "rxva", "type", "rxe", "netdev", "uvva"],
        );
        sh(
            "rdma",
            &["link", "add", "rxvb", "type", "rxe", "netdev", "uvvb"],
        );
        // The port ACTIVE and the IPv4 GID (index 1) in place, on both.
        let t0 = Instant::now();
        for d in [&p.a, &p.b] {
            loop {
                let base = format!("/sys/class/infiniband/{d}/ports/1");
                let st = std::fs::read_to_string(format!("{base}/state")).unwrap_or_default();
                let g = std::fs::read_to_string(format!("{base}/gids/1")).unwrap_or_default();
                if st.contains("ACTIVE")
                    && !g.trim().is_empty()
                    && !g.starts_with("0000:0000:0000:0000:0000:0000:0000:0000")
                {
                    break;
                }
                assert!(
                    t0.elapsed() < Duration::from_secs(20),
                    "{d}: not ready: {st} {g}"
                );
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        p
    }
}

impl Drop for VethPair {
    fn drop(&mut self) {
        for d in [&self.a, &self.b] {
            let _ = std::process::Command::new("rdma")
                .args(["link", "delete", d])
                .output();
        }
        let _ = std::process::Command::new("ip")
            .args(["link", "del", "uvva"])
            .output();
    }
}

/// `a` and `b` connected by uverbs' RDMA CM at `at`, in one process: a listening id;
/// a's id resolves, moves `a` to INIT and connects; `b` is accepted on the request's id
/// (in a thread: both calls wait for ESTABLISHED). Each step waits at most `t`. The
/// listening, connecting and accepted ids, which the connection lives as long as.
pub fn cm_pair(
    a: &Qp,
    b: &Qp,
    at: std::net::SocketAddr,
    param: &ConnParam,
    t: Duration,
) -> [CmId; 3] {
    let lch = CmChannel::open().unwrap();
    let listen = lch.create_id().unwrap();
    listen.bind(at).unwrap();
    listen.listen(1).unwrap();
    let cch = CmChannel::open().unwrap();
    let cid = cch.create_id().unwrap();
    cid.resolve_addr(at, t).unwrap();
    cid.resolve_route(t).unwrap();
    cid.init_qp(a).unwrap();
    let sid = std::thread::scope(|sc| {
        let server = sc.spawn(|| {
            let req = lch
                .get_event(Some(t))
                .unwrap()
                .expect("a connection request");
            let sid = CmId::from_request(&lch, &req).unwrap();
            sid.accept(b, param, t).unwrap();
            sid
        });
        cid.connect(a, param, t).unwrap();
        server.join().unwrap()
    });
    [listen, cid, sid]
}
