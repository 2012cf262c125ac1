//! `uverbs selftest`'s RDMA CM cases (`cm.*`, issue 25) in the VM: on rxe (RoCE, the IB
//! CM) and on siw (iWARP, the iWARP CM over TCP) every case passes with the answer the
//! kernel's source gives (cited in src/selftest/cm_cases.rs), on Debian's 6.1 and 6.12
//! alike, over the addresses the rig gives both devices' interfaces; the one case that
//! cannot apply to iWARP (the IB CM's private data limit) is skipped on siw, saying why.

mod common;

use std::time::Instant;

use common::selftest::{ktap, results_of, run, text};

const CASES: [&str; 16] = [
    "cm.bind.query",
    "cm.bind.in_use",
    "cm.bind.no_device",
    "cm.listen.twice",
    "cm.resolve_addr.local",
    "cm.resolve_addr.async",
    "cm.resolve_addr.no_route",
    "cm.resolve_route.ok",
    "cm.resolve_route.unresolved",
    "cm.connect.no_listener",
    "cm.connect.private_data",
    "cm.connect.private_data_limit",
    "cm.connect.query",
    "cm.connect.send",
    "cm.disconnect",
    "cm.destroy.pending_event",
];

/// The case siw skips, and the start of its reason.
const SIW_SKIPS: (&str, &str) = (
    "cm.connect.private_data_limit",
    "iWARP's private data limit (MPA_MAX_PRIVDATA, 256 bytes)",
);

/// Every `cm.*` case passes on rxe and siw without a directive, but the one siw skips
/// with its reason; the KTAP is strict and the exit status kselftest's 0.
#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn cm_cases_pass_on_rxe_and_siw() {
    let (rxe, siw) = (common::device("rxe"), common::device("siw"));
    let t0 = Instant::now();
    let record = std::env::temp_dir().join("selftest-cm.record");
    let rec = format!("--record={}", record.display());
    let o = run(&["-d", &rxe, "-d", &siw, "--filter", "cm.*", &rec]);
    let took = t0.elapsed();
    let doc = text(&o);
    // The kernel's answers (the facts), for the reader of the log.
    println!("{}", std::fs::read_to_string(&record).unwrap_or_default());
    ktap::parse_strict(&doc).unwrap_or_else(|e| panic!("not KTAP: {e}\n{doc}"));
    for dev in [&rxe, &siw] {
        let r = results_of(&doc, dev);
        let names: Vec<&str> = r.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, CASES, "{dev}:\n{doc}");
        for (i, c) in r.iter().enumerate() {
            let skip = *dev == siw && c.name == SIW_SKIPS.0;
            let want = if skip {
                format!("ok {} {} # SKIP {}", i + 1, c.name, SIW_SKIPS.1)
            } else {
                format!("ok {} {}", i + 1, c.name)
            };
            assert!(
                c.line.starts_with(&want) && (skip || c.line == want),
                "{dev}: {}: {} (expected {want})\n{doc}",
                c.name,
                c.line
            );
        }
    }
    assert_eq!(o.status.code(), Some(0), "{doc}");
    println!("{doc}");
    println!(
        "kernel {}: cm.* on {rxe} and {siw}: {} cases each pass ({} skipped on siw) in {:.2} s",
        common::kernel(),
        CASES.len(),
        SIW_SKIPS.0,
        took.as_secs_f64()
    );
}
