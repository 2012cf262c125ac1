//! `uverbs selftest`'s argument cases (`args.*`, issue 25) in the VM: on rxe every case
//! passes with the answer the kernel's source gives (cited in src/selftest/verbs_args.rs);
//! on siw the same, except the cases iWARP cannot run (no P_Keys, address handles or
//! UD QPs, and RC QPs past INIT only through the iWARP CM), which skip with the reason;
//! on Debian's 6.1 and 6.12 alike. The KTAP is strict and the exit status kselftest's 0.

mod common;

use common::selftest::{ktap, results_of, run, text};

const CASES: [&str; 46] = [
    "args.port.zero.ioctl",
    "args.port.zero.write",
    "args.port.past_last.ioctl",
    "args.port.past_last.write",
    "args.gid.empty_index",
    "args.gid.past_table",
    "args.gid.port_zero",
    "args.gid.table_zero",
    "args.gid.table_exact",
    "args.pkey.past_table",
    "args.mr.remote_write_alone",
    "args.mr.remote_atomic_alone",
    "args.mr.access.none",
    "args.mr.access.local_write",
    "args.mr.access.remote_read",
    "args.mr.access.remote_write",
    "args.mr.access.remote_atomic",
    "args.mr.access.mw_bind",
    "args.mr.unknown_bit",
    "args.mr.optional_bit",
    "args.mr.on_demand",
    "args.mr.flush_global",
    "args.ah.no_grh",
    "args.ah.port_zero",
    "args.ah.past_last",
    "args.ah.sgid_empty",
    "args.cq.vector_past.ioctl",
    "args.cq.vector_past.write",
    "args.cq.vector_last",
    "args.cq.one_entry",
    "args.pd.many",
    "args.qp.port_zero",
    "args.qp.past_last",
    "args.qp.ud_qkey_psn",
    "args.qp.privileged_qkey",
    "args.qp.psn_masked",
    "args.qp.rc_rtr",
    "args.qp.rc_rts",
    "args.qp.rd_atomic_rounded",
    "args.qp.rd_atomic_past_max",
    "args.srq.resize",
    "args.srq.limit_past_size",
    "args.destroy.pd_with_mr",
    "args.destroy.cq_with_qp",
    "args.destroy.srq_with_qp",
    "args.netlink.copy_on_fork",
];

/// What siw skips (observed on 6.1 and 6.12): the start of each reason.
const SIW_SKIPS: [(&str, &str); 12] = [
    (
        "args.gid.empty_index",
        "every one of port 1's 1 GID entries is valid",
    ),
    ("args.pkey.past_table", "iWARP has no P_Keys"),
    ("args.ah.no_grh", "siw has no address handles"),
    ("args.ah.port_zero", "siw has no address handles"),
    ("args.ah.past_last", "siw has no address handles"),
    ("args.ah.sgid_empty", "siw has no address handles"),
    ("args.qp.ud_qkey_psn", "iWARP has no UD QPs"),
    ("args.qp.privileged_qkey", "iWARP has no UD QPs"),
    ("args.qp.psn_masked", "iWARP has no UD QPs"),
    (
        "args.qp.rc_rtr",
        "siw takes an RC QP past INIT only through the iWARP CM",
    ),
    (
        "args.qp.rc_rts",
        "siw takes an RC QP past INIT only through the iWARP CM",
    ),
    (
        "args.qp.rd_atomic_rounded",
        "siw takes an RC QP past INIT only through the iWARP CM",
    ),
];

/// Every `args.*` case passes on rxe without a directive; on siw each passes but the
/// [`SIW_SKIPS`], which skip with their reason (`args.qp.rd_atomic_past_max` too).
#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn args_cases_pass_on_rxe_and_siw() {
    let (rxe, siw) = (common::device("rxe"), common::device("siw"));
    let t0 = std::time::Instant::now();
    let o = run(&["-d", &rxe, "-d", &siw, "--filter", "args.*"]);
    let took = t0.elapsed();
    let doc = text(&o);
    println!("{doc}");
    ktap::parse_strict(&doc).unwrap_or_else(|e| panic!("not KTAP: {e}\n{doc}"));
    for dev in [&rxe, &siw] {
        let r = results_of(&doc, dev);
        let names: Vec<&str> = r.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, CASES, "{dev}");
        for (i, c) in r.iter().enumerate() {
            let plain = format!("ok {} {}", i + 1, c.name);
            let skip = SIW_SKIPS
                .iter()
                .chain([("args.qp.rd_atomic_past_max", "siw takes an RC QP past INIT")].iter())
                .find(|(n, _)| *dev == siw && *n == c.name);
            match skip {
                Some((_, why)) => assert!(
                    c.line.starts_with(&format!("{plain} # SKIP {why}")),
                    "{dev}: {} skips: {why}",
                    c.line
                ),
                None => assert_eq!(c.line, plain, "{dev}: passes without a directive"),
            }
        }
    }
    assert_eq!(o.status.code(), Some(0));
    println!(
        "kernel {}: args.* on {rxe} and {siw}: {} cases each ({} skipped on siw) in {:.2} s",
        common::kernel(),
        CASES.len(),
        SIW_SKIPS.len() + 1,
        took.as_secs_f64()
    );
}
