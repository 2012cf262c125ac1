//! `uverbs selftest`'s raw ABI cases (`raw.*`, issue 25 item 2) in the VM: on rxe and on
//! siw each case passes, with the errno the kernel's source gives for the malformed
//! request (cited in src/selftest/raw.rs), on Debian's 6.1 and 6.12 alike.

mod common;

use std::time::Instant;

use common::selftest::{ktap, results_of, run, text};

const CASES: [&str; 10] = [
    "raw.ioctl.reserved",
    "raw.ioctl.unknown_attr.mandatory",
    "raw.ioctl.unknown_attr.optional",
    "raw.ioctl.unknown_method",
    "raw.ioctl.driver_id",
    "raw.ex.comp_mask",
    "raw.ex.trailing",
    "raw.write.short_response",
    "raw.write.long_response",
    "raw.handles",
];

/// Issue 25, item 2: every `raw.*` case passes on rxe and on siw, no skip, no
/// directive; the KTAP is strict and the exit status kselftest's 0.
#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn raw_abi_cases_pass_on_rxe_and_siw() {
    let (rxe, siw) = (common::device("rxe"), common::device("siw"));
    let t0 = Instant::now();
    let o = run(&["-d", &rxe, "-d", &siw, "--filter", "raw.*"]);
    let took = t0.elapsed();
    let doc = text(&o);
    ktap::parse_strict(&doc).unwrap_or_else(|e| panic!("not KTAP: {e}\n{doc}"));
    for dev in [&rxe, &siw] {
        let r = results_of(&doc, dev);
        let names: Vec<&str> = r.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, CASES, "{dev}:\n{doc}");
        for (i, c) in r.iter().enumerate() {
            assert_eq!(
                c.line,
                format!("ok {} {}", i + 1, c.name),
                "{dev}: {} passes without a directive\n{doc}",
                c.name
            );
        }
    }
    assert_eq!(o.status.code(), Some(0), "{doc}");
    println!(
        "kernel {}: raw.* on {rxe} and {siw}: {} cases each pass in {:.2} s",
        common::kernel(),
        CASES.len(),
        took.as_secs_f64()
    );
}
