//! Strict runs: whether a check that cannot run here is a failure or a printed skip.
//! `scripts/test-all.sh` exports `CI=true` (strict) unless `UVERBS_LENIENT=1`. Shared by
//! tests/common, the ABI checker and the printer's differential test (each includes this
//! file with `#[path]`), so that all of them read `CI` the same way.
#![allow(dead_code)]

/// Whether this run is strict: `CI` is set and is not empty, `0` or `false`.
pub fn strict() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// A check that cannot run here: panics (fails the test) when the run is strict, else
/// prints `SKIPPED: why` on stderr, past the test harness's capture.
pub fn skip_or_fail(check: &str, why: &str) {
    if strict() {
        panic!(
            "{check} cannot run in a strict run (CI={:?}): {why}",
            std::env::var("CI").unwrap_or_default()
        );
    }
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr().lock(),
        "{check} SKIPPED: {why} (this fails when CI=true, as scripts/test-all.sh sets it)"
    );
}
