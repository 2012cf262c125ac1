//! The object model against real kernels (in the VM rig): every object's lifecycle by
//! every interface, the QP state walk compared field by field with libibverbs, objects
//! in `rdma resource show`, the kernel's error paths, and no leaks.
mod common;

use std::sync::Arc;

use std::collections::BTreeMap;

use common::{devices, parse_lines, NEEDS_DEVICES};
use uverbs::verbs::objects::{
    AhAttr, GlobalRoute, ModifyQp, MrBuf, Qp, QpAttr, QpCap, QpInit, QpInitAttr, SrqInit,
};
use uverbs::{AccessFlags, CallPath, Context, Discovery, Error, Mtu, OpenOptions, QpState, QpType};

fn open(dev: &str, path: CallPath) -> Arc<Context> {
    let info = Discovery::new().device(dev).expect("discover");
    Arc::new(OpenOptions::new().objects(path).open(&info).expect("open"))
}

fn is_rxe(dev: &str) -> bool {
    dev.starts_with("rxe")
}

/// Every object, created and destroyed through each interface.
#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn lifecycle_through_every_interface() {
    let _ = NEEDS_DEVICES;
    for dev in devices() {
        for path in [CallPath::Auto, CallPath::Ioctl, CallPath::Write] {
            let ctx = open(&dev, path);
            let pd = ctx
                .alloc_pd()
                .unwrap_or_else(|e| panic!("{dev} {path:?}: {e}"));
            let mut buf = MrBuf::new(8192).unwrap();
            buf.write_at(0, b"uverbs");
            let mr = pd
                .reg_mr(buf, AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE)
                .unwrap_or_else(|e| panic!("{dev} {path:?}: {e}"));
            assert_ne!(mr.lkey(), 0, "{dev} {path:?}");
            let ch = ctx
                .create_comp_channel()
                .unwrap_or_else(|e| panic!("{dev} {path:?}: {e}"));
            let cq = ctx
                .create_cq(16, Some(&ch), 0)
                .unwrap_or_else(|e| panic!("{dev} {path:?}: {e}"));
            assert!(cq.cqe() >= 16, "{dev} {path:?}: cqe {}", cq.cqe());
            let resized = cq.resize(64);
            if is_rxe(&dev) {
                assert!(resized.unwrap() >= 64, "{dev} {path:?}");
            } else {
                let e = resized.unwrap_err();
                assert!(
                    matches!(e, Error::NotSupported { .. }),
                    "{dev} {path:?}: {e}"
                );
            }
            let srq = pd
                .create_srq(&SrqInit {
                    max_wr: 16,
                    max_sge: 1,
                    srq_limit: 0,
                })
                .unwrap_or_else(|e| panic!("{dev} {path:?}: {e}"));
            let a = srq
                .query()
                .unwrap_or_else(|e| panic!("{dev} {path:?}: {e}"));
            assert!(a.max_wr >= 16, "{dev} {path:?}: {a:?}");
            srq.modify(&uverbs::verbs::objects::ModifySrq::new().limit(4))
                .unwrap_or_else(|e| panic!("{dev} {path:?}: {e}"));
            assert_eq!(srq.query().unwrap().srq_limit, 4, "{dev} {path:?}");
            let qp = pd
                .create_qp(&QpInit::new(QpType::Rc, &cq, &cq).cap(QpCap {
                    max_send_wr: 8,
                    max_recv_wr: 8,
                    max_send_sge: 1,
                    max_recv_sge: 1,
                    max_inline_data: 0,
                }))
                .unwrap_or_else(|e| panic!("{dev} {path:?}: {e}"));
            qp.modify(
                &mut ModifyQp::new()
                    .state(QpState::Init)
                    .pkey_index(0)
                    .port(1)
                    .access(AccessFlags::REMOTE_WRITE),
            )
            .unwrap_or_else(|e| panic!("{dev} {path:?}: {e}"));
            let q = qp.query().unwrap_or_else(|e| panic!("{dev} {path:?}: {e}"));
            let (attr, init) = (q.attr(), q.init_attr());
            // siw's answer differs by kernel (state_walk_equals_libibverbs compares it
            // with libibverbs): 6.1's siw_query_qp leaves the state 0 (RESET), 6.12's
            // maps its IDLE state to INIT.
            let want = match (is_rxe(&dev), common::kernel().as_str()) {
                (true, _) => Some(QpState::Init),
                (false, "6.1") => Some(QpState::Reset),
                (false, "6.12") => Some(QpState::Init),
                _ => None,
            };
            if let Some(want) = want {
                assert_eq!(attr.qp_state, want, "{dev} {path:?}");
            }
            assert_eq!(init.qp_type, QpType::Rc);
            let srq_qp = pd.create_qp(&QpInit::new(QpType::Rc, &cq, &cq).srq(&srq));
            let srq_qp = srq_qp.unwrap_or_else(|e| panic!("{dev} {path:?}: {e}"));
            // query_into over the answer of another QP: every field is then this QP's,
            // the creation attributes (its SRQ) as well as the kernel's answer.
            let mut kept = q;
            srq_qp
                .query_into(&mut kept)
                .unwrap_or_else(|e| panic!("{dev} {path:?}: {e}"));
            assert_eq!(kept.init_attr().srq, Some(srq.handle()), "{dev} {path:?}");
            assert_eq!(
                Some(kept),
                srq_qp.query().ok(),
                "{dev} {path:?}: query_into and query differ"
            );
            assert_ne!(kept, q, "{dev} {path:?}");
            if is_rxe(&dev) {
                let ud = pd
                    .create_qp(&QpInit::new(QpType::Ud, &cq, &cq))
                    .unwrap_or_else(|e| panic!("{dev} {path:?}: {e}"));
                let uc = pd
                    .create_qp(&QpInit::new(QpType::Uc, &cq, &cq))
                    .unwrap_or_else(|e| panic!("{dev} {path:?}: {e}"));
                let gid = ctx.query_gid(1, 1).unwrap().expect("GID 1");
                let ah = pd
                    .create_ah(&AhAttr {
                        grh: GlobalRoute {
                            dgid: gid.gid,
                            sgid_index: 1,
                            hop_limit: 64,
                            ..Default::default()
                        },
                        is_global: true,
                        port_num: 1,
                        ..Default::default()
                    })
                    .unwrap_or_else(|e| panic!("{dev} {path:?}: {e}"));
                ah.try_destroy().map_err(|(_, e)| e).unwrap();
                uc.try_destroy().map_err(|(_, e)| e).unwrap();
                ud.try_destroy().map_err(|(_, e)| e).unwrap();
            } else {
                for t in [QpType::Ud, QpType::Uc] {
                    let e = pd.create_qp(&QpInit::new(t, &cq, &cq)).unwrap_err();
                    assert!(
                        matches!(e, Error::NotSupported { .. }),
                        "{dev} {path:?} {t:?}: {e}"
                    );
                }
            }
            srq_qp.try_destroy().map_err(|(_, e)| e).unwrap();
            qp.try_destroy().map_err(|(_, e)| e).unwrap();
            srq.try_destroy().map_err(|(_, e)| e).unwrap();
            cq.try_destroy().map_err(|(_, e)| e).unwrap();
            let back = mr.try_destroy().map_err(|(_, e)| e).unwrap();
            let mut hello = [0u8; 6];
            assert!(back.read_at(0, &mut hello));
            assert_eq!(&hello, b"uverbs");
            pd.try_destroy().map_err(|(_, e)| e).unwrap();
            assert!(ctx.take_destroy_errors().is_empty());
            drop(ch);
            eprintln!("{dev} {path:?}: lifecycle ok");
        }
    }
}

// ---------------------------------------------------------------- the state walk

/// The keys of one query, as tests/vm/qp_oracle.c prints them.
fn query_lines(step: &str, qp: &Qp, m: &mut BTreeMap<String, String>) {
    let q = qp.query().unwrap_or_else(|e| panic!("{step}: {e}"));
    let (a, i): (QpAttr, QpInitAttr) = (q.attr(), q.init_attr());
    let mut put = |k: &str, v: String| {
        m.insert(format!("{step}.{k}"), v);
    };
    put("qp_state", a.qp_state.as_raw().to_string());
    put("cur_qp_state", a.cur_qp_state.as_raw().to_string());
    put("path_mtu", a.path_mtu.as_raw().to_string());
    put("path_mig_state", a.path_mig_state.as_raw().to_string());
    put("qkey", a.qkey.to_string());
    put("rq_psn", a.rq_psn.to_string());
    put("sq_psn", a.sq_psn.to_string());
    put("dest_qp_num", a.dest_qp_num.to_string());
    put("qp_access_flags", a.qp_access_flags.bits().to_string());
    put("cap.max_send_wr", a.cap.max_send_wr.to_string());
    put("cap.max_recv_wr", a.cap.max_recv_wr.to_string());
    put("cap.max_send_sge", a.cap.max_send_sge.to_string());
    put("cap.max_recv_sge", a.cap.max_recv_sge.to_string());
    put("cap.max_inline_data", a.cap.max_inline_data.to_string());
    for (p, ah) in [("ah", a.ah_attr), ("alt_ah", a.alt_ah_attr)] {
        put(
            &format!("{p}.dgid"),
            ah.grh.dgid.0.iter().map(|b| format!("{b:02x}")).collect(),
        );
        put(&format!("{p}.flow_label"), ah.grh.flow_label.to_string());
        put(&format!("{p}.sgid_index"), ah.grh.sgid_index.to_string());
        put(&format!("{p}.hop_limit"), ah.grh.hop_limit.to_string());
        put(
            &format!("{p}.traffic_class"),
            ah.grh.traffic_class.to_string(),
        );
        put(&format!("{p}.dlid"), ah.dlid.to_string());
        put(&format!("{p}.sl"), ah.sl.to_string());
        put(&format!("{p}.src_path_bits"), ah.src_path_bits.to_string());
        put(&format!("{p}.static_rate"), ah.static_rate.to_string());
        put(
            &format!("{p}.is_global"),
            u8::from(ah.is_global).to_string(),
        );
        put(&format!("{p}.port_num"), ah.port_num.to_string());
    }
    put("pkey_index", a.pkey_index.to_string());
    put("alt_pkey_index", a.alt_pkey_index.to_string());
    put(
        "en_sqd_async_notify",
        u8::from(a.en_sqd_async_notify).to_string(),
    );
    put("sq_draining", u8::from(a.sq_draining).to_string());
    put("max_rd_atomic", a.max_rd_atomic.to_string());
    put("max_dest_rd_atomic", a.max_dest_rd_atomic.to_string());
    put("min_rnr_timer", a.min_rnr_timer.to_string());
    put("port_num", a.port_num.to_string());
    put("timeout", a.timeout.to_string());
    put("retry_cnt", a.retry_cnt.to_string());
    put("rnr_retry", a.rnr_retry.to_string());
    put("alt_port_num", a.alt_port_num.to_string());
    put("alt_timeout", a.alt_timeout.to_string());
    put("init.qp_type", i.qp_type.as_raw().to_string());
    let created = |h: u32, cq: u32| if h == cq { "created" } else { "other" }.to_string();
    put("init.send_cq", created(i.send_cq, qp.send_cq().handle()));
    put("init.recv_cq", created(i.recv_cq, qp.send_cq().handle()));
    put(
        "init.srq",
        if i.srq.is_some() { "some" } else { "none" }.to_string(),
    );
    put("init.cap.max_send_wr", i.cap.max_send_wr.to_string());
    put("init.cap.max_recv_wr", i.cap.max_recv_wr.to_string());
    put("init.cap.max_send_sge", i.cap.max_send_sge.to_string());
    put("init.cap.max_recv_sge", i.cap.max_recv_sge.to_string());
    put(
        "init.cap.max_inline_data",
        i.cap.max_inline_data.to_string(),
    );
    put("init.sq_sig_all", u8::from(i.sq_sig_all).to_string());
}

/// One modify step: `STEP.modify` (0 or the errno) and the query after it.
fn step(name: &str, qp: &Qp, m: &ModifyQp, out: &mut BTreeMap<String, String>) {
    let r = match qp.modify(&mut { *m }) {
        Ok(()) => 0,
        Err(e) => e.errno().map_or(-1, |e| e.raw_os_error()),
    };
    out.insert(format!("{name}.modify"), r.to_string());
    query_lines(name, qp, out);
}

/// The walk of tests/vm/qp_oracle.c, with uverbs.
fn walk(ctx: &Arc<Context>, t: QpType, sgid: u8) -> BTreeMap<String, String> {
    let pd = ctx.alloc_pd().unwrap();
    let cq = ctx.create_cq(16, None, 0).unwrap();
    let qp = pd
        .create_qp(&QpInit::new(t, &cq, &cq).cap(QpCap {
            max_send_wr: 8,
            max_recv_wr: 8,
            max_send_sge: 1,
            max_recv_sge: 1,
            max_inline_data: 0,
        }))
        .unwrap();
    let gid = ctx
        .query_gid(1, u32::from(sgid))
        .ok()
        .flatten()
        .map(|g| g.gid)
        .unwrap_or_default();
    let mut out = BTreeMap::new();
    out.insert("qp_num".into(), qp.qp_num().to_string());
    query_lines("reset", &qp, &mut out);
    let access = match t {
        QpType::Rc => AccessFlags::REMOTE_WRITE | AccessFlags::REMOTE_READ,
        _ => AccessFlags::REMOTE_WRITE,
    };
    let init = ModifyQp::init(t, 1, access, 0x1111_1111);
    step("init", &qp, &init, &mut out);
    let path = AhAttr::global(1, sgid, gid, 64);
    let rtr = ModifyQp::rtr(t, Mtu::Mtu1024, qp.qp_num(), 0x123, path);
    step("rtr", &qp, &rtr, &mut out);
    let rts = ModifyQp::rts(t, 0x456);
    step("rts", &qp, &rts, &mut out);
    out
}

/// The keys that name the QP itself: its number, and the destination QP number where
/// the QP points at itself (RC and UC loop back to their own number). Each side's
/// value is mapped to "self" when it is that side's own QP number.
const SELF_NAMING: &[&str] = &[
    "qp_num",
    "init.dest_qp_num",
    "rtr.dest_qp_num",
    "rts.dest_qp_num",
];

fn normalise(mut m: BTreeMap<String, String>) -> BTreeMap<String, String> {
    let own = m.get("qp_num").cloned().unwrap_or_default();
    for k in SELF_NAMING {
        if let Some(v) = m.get_mut(*k) {
            if *v == own {
                *v = "self".into();
            }
        }
    }
    m
}

/// RESET -> INIT -> RTR -> RTS on rxe (RC, UC, UD) and siw (RC; RTS is `EINVAL`: siw
/// reaches RTS only through the iWARP CM, which hands it a socket and MPA parameters,
/// `siw_qp_nextstate_from_idle`): after every step,
/// `Qp::query` equals libibverbs' `ibv_query_qp` of a QP configured the same way, field
/// by field (every field of `ibv_qp_attr` and `ibv_qp_init_attr`; `qp_num` and a
/// `dest_qp_num` pointing at the QP itself compared after mapping each to "self"), and
/// each modify gets the same answer.
#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn state_walk_equals_libibverbs() {
    let oracle = std::env::var("UVERBS_QP_ORACLE").unwrap_or_else(|_| "/uverbs/qp_oracle".into());
    for dev in devices() {
        let types: &[(QpType, &str)] = if is_rxe(&dev) {
            &[(QpType::Rc, "rc"), (QpType::Uc, "uc"), (QpType::Ud, "ud")]
        } else {
            &[(QpType::Rc, "rc")]
        };
        for path in [CallPath::Auto, CallPath::Write] {
            let ctx = open(&dev, path);
            for (t, name) in types {
                // rxe's IPv4 GID (index 1, RoCE v2); siw has only index 0.
                let sgid: u8 = if is_rxe(&dev) { 1 } else { 0 };
                let out = std::process::Command::new(&oracle)
                    .args([dev.as_str(), name, &sgid.to_string()])
                    .output()
                    .unwrap_or_else(|e| panic!("{oracle}: {e}"));
                assert!(
                    out.status.success(),
                    "qp_oracle {dev} {name}: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                let theirs = normalise(parse_lines(&String::from_utf8_lossy(&out.stdout)));
                let ours = normalise(walk(&ctx, *t, sgid));
                assert!(
                    theirs.len() > 150,
                    "{dev} {name}: {} keys from the oracle",
                    theirs.len()
                );
                let diff: Vec<String> = theirs
                    .iter()
                    .filter(|(k, v)| ours.get(*k) != Some(*v))
                    .map(|(k, v)| format!("{k}: libibverbs {v}, uverbs {:?}", ours.get(k)))
                    .chain(
                        ours.keys()
                            .filter(|k| !theirs.contains_key(*k))
                            .map(|k| format!("{k}: only uverbs")),
                    )
                    .collect();
                assert!(
                    diff.is_empty(),
                    "{dev} {name} {path:?}:\n{}",
                    diff.join("\n")
                );
                eprintln!(
                    "{dev} {name} {path:?}: {} keys equal; rts.qp_state {} rts.modify {}",
                    theirs.len(),
                    theirs["rts.qp_state"],
                    theirs["rts.modify"]
                );
            }
        }
    }
}

// ---------------------------------------------------------------- rdma resource show

/// The counts `rdma resource show` prints per device: `pd N cq N qp N ... mr N`.
fn resource_counts(dev: &str) -> BTreeMap<String, u64> {
    let out = std::process::Command::new("rdma")
        .args(["resource", "show"])
        .output()
        .expect("rdma resource show");
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.split_whitespace().nth(1) == Some(&format!("{dev}:")))
        .unwrap_or_else(|| panic!("{dev} not in rdma resource show:\n{text}"));
    let words: Vec<&str> = line.split_whitespace().skip(2).collect();
    words
        .chunks(2)
        .filter_map(|p| Some((p[0].to_string(), p.get(1)?.parse().ok()?)))
        .collect()
}

/// The objects of this thread that `rdma resource show KIND` lists for `dev`.
fn ours(dev: &str, kind: &str) -> usize {
    let out = std::process::Command::new("rdma")
        .args(["resource", "show", kind])
        .output()
        .expect("rdma resource show");
    // The kernel records the creating task, the test's thread: its id, not the pid.
    let tid = std::fs::read_link("/proc/thread-self").expect("/proc/thread-self");
    let pid = tid.file_name().unwrap().to_string_lossy().into_owned();
    let link = format!("{dev}/");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            let on_dev = w.windows(2).any(|p| {
                (p[0] == "dev" && p[1] == dev) || (p[0] == "link" && p[1].starts_with(&link))
            });
            on_dev && w.windows(2).any(|p| p[0] == "pid" && p[1] == pid)
        })
        .count()
}

/// Objects made with uverbs appear in `rdma resource show` (pd, cq, qp, mr) with the
/// right counts, under this thread's id, and are gone after Drop; the device's totals
/// come back to what they were (rxe has the kernel's own PD, CQ and QP for QP1).
#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn objects_in_rdma_resource_show() {
    for dev in devices() {
        let before = resource_counts(&dev);
        let ctx = open(&dev, CallPath::Auto);
        let pd = ctx.alloc_pd().unwrap();
        let pd2 = ctx.alloc_pd().unwrap();
        let cq = ctx.create_cq(8, None, 0).unwrap();
        let cq2 = ctx.create_cq(8, None, 0).unwrap();
        let cq3 = ctx.create_cq(8, None, 0).unwrap();
        let qps: Vec<_> = (0..2)
            .map(|_| pd.create_qp(&QpInit::new(QpType::Rc, &cq, &cq2)).unwrap())
            .collect();
        let mrs: Vec<_> = (0..3)
            .map(|_| {
                pd2.reg_mr(MrBuf::new(4096).unwrap(), AccessFlags::LOCAL_WRITE)
                    .unwrap()
            })
            .collect();
        let want = [("pd", 2usize), ("cq", 3), ("qp", 2), ("mr", 3)];
        for (kind, n) in want {
            let got = ours(&dev, kind);
            if got != n {
                let all = std::process::Command::new("rdma")
                    .args(["resource", "show", kind])
                    .output()
                    .unwrap();
                panic!(
                    "{dev}: {got} of our {kind}s in rdma resource show, want {n}:\n{}",
                    String::from_utf8_lossy(&all.stdout)
                );
            }
        }
        let during = resource_counts(&dev);
        for (kind, n) in want {
            assert_eq!(during[kind], before[kind] + n as u64, "{dev}: {kind} total");
        }
        drop((qps, mrs, cq3, cq2, cq, pd2, pd));
        for (kind, _) in want {
            assert_eq!(ours(&dev, kind), 0, "{dev}: our {kind}s after Drop");
        }
        drop(ctx);
        // (6.12 also counts the context itself: compare once it is closed too.)
        assert_eq!(resource_counts(&dev), before, "{dev}: totals after Drop");
        eprintln!("{dev}: rdma resource show {before:?} -> {during:?} -> back");
    }
}

/// `uverbs probe` walks every object method on each device, exits 0 (every answer as
/// expected), in text and JSON, and leaves the device as it found it.
#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn probe_command_passes_and_leaves_nothing() {
    let bin = std::env::var("UVERBS_BIN").expect("UVERBS_BIN (the rig sets it)");
    let devs = devices();
    let before: Vec<_> = devs.iter().map(|d| resource_counts(d)).collect();
    let out = std::process::Command::new(&bin)
        .arg("probe")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "uverbs probe: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for d in &devs {
        assert!(
            text.contains(&format!("{d}: ")) && text.contains("every answer as expected"),
            "{text}"
        );
    }
    assert!(!text.contains("FAIL"), "{text}");
    let n_error_paths = text.lines().filter(|l| l.contains(" error ")).count();
    assert!(
        n_error_paths >= 2 * 10,
        "error paths: {n_error_paths}\n{text}"
    );
    let after: Vec<_> = devs.iter().map(|d| resource_counts(d)).collect();
    assert_eq!(before, after, "uverbs probe left objects behind");
    let json = std::process::Command::new(&bin)
        .args(["probe", "-d", &devs[0], "--json"])
        .output()
        .unwrap();
    assert!(json.status.success());
    let j = String::from_utf8_lossy(&json.stdout);
    assert!(
        j.contains("\"schema_version\": 1") && j.contains("\"passed\": true"),
        "{j}"
    );
    assert!(!j.contains("\"passed\": false"), "{j}");
    // A bad option is a usage error.
    let bad = std::process::Command::new(&bin)
        .args(["probe", "--nope"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    eprintln!(
        "{}",
        text.lines()
            .filter(|l| l.ends_with("as expected"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}
