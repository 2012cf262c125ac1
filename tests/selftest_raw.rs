//! `uverbs selftest`'s raw ABI cases (`raw.*`, issue 25 item 2) in the VM: on rxe and on
//! siw each case passes, with the errno the kernel's source gives for the malformed
//! request (cited in src/selftest/raw.rs), on Debian's 6.1 and 6.12 alike.

mod common;

use common::selftest::group_passes;

const CASES: [&str; 11] = [
    "raw.ioctl.reserved",
    "raw.ioctl.unknown_attr.mandatory",
    "raw.ioctl.unknown_attr.optional",
    "raw.ioctl.unknown_method",
    "raw.ioctl.driver_id",
    "raw.ex.comp_mask",
    "raw.ex.trailing",
    "raw.write.short_response",
    "raw.ex.short_response",
    "raw.write.long_response",
    "raw.handles",
];

/// Issue 25, item 2: every `raw.*` case passes on rxe and on siw, no skip, no
/// directive; the KTAP is strict and the exit status kselftest's 0.
#[test]
#[ignore = "needs real RDMA devices: tests/vm/run-tests.sh runs it in the VM rig"]
fn raw_abi_cases_pass_on_rxe_and_siw() {
    let (_, took) = group_passes("raw.*", &CASES);
    println!(
        "kernel {}: raw.* on {} and {}: {} cases each pass in {:.2} s",
        common::kernel(),
        common::device("rxe"),
        common::device("siw"),
        CASES.len(),
        took.as_secs_f64()
    );
}
