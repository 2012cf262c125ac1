//! The coverage-guided targets (`checks::TARGETS`, built by `tests/fuzz/coverage` with
//! libFuzzer and run by its `run.sh`, the `fuzz` phase of scripts/test-all.sh) on their
//! seeds and on the inputs kept from their findings, under plain `cargo test`.
//!
//! - The seeds are this harness's corpora (tests/fixtures, and the hand-written shapes
//!   of `corpus`); with `UVERBS_FUZZ_SEED_DIR` set, they are also written there, one
//!   folder per target, for run.sh to start libFuzzer from.
//! - The kept inputs are the files under `tests/fuzz/crashes/TARGET/`: an input
//!   libFuzzer saved on a crash, copied there once the bug it showed is fixed, so that
//!   the fix stays (the finding gets its test in tests/regressions.rs too).

use std::path::{Path, PathBuf};

use crate::checks::TARGETS;
use crate::corpus::*;
use crate::harness::*;

/// The inputs libFuzzer starts from, per target.
pub(crate) fn seeds(target: &str) -> Vec<Vec<u8>> {
    match target {
        "http" => http_corpus(),
        "netlink" => {
            let mut v = netlink_corpus();
            v.extend(netlink_synthetic());
            v
        }
        "uevent" => uevent_corpus(),
        "sysfs" => {
            let mut v = text_corpus();
            v.extend(IPOIB_TEXT.iter().map(|s| s.as_bytes().to_vec()));
            // IPoIB text, a NUL, then a port answer: the MTU checks' input.
            for p in kernel_corpus("query_port") {
                v.push([&b"connected\n\0"[..], &p].concat());
            }
            v
        }
        _ => panic!("no seeds for target {target}"),
    }
}

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz")
}

/// The names of the entries of `dir` (files or folders, as `want_dir` says), sorted.
fn names(dir: &Path, want_dir: bool) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir() == want_dir))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Every target passes on its seeds and on its kept inputs; the libFuzzer binaries and
/// the folders of kept inputs are the targets `checks::TARGETS` names (a misplaced
/// input would never be replayed).
#[test]
#[cfg_attr(
    miri,
    ignore = "reads the source tree (Miri's isolation forbids it); the same checks run \
              under Miri in the bounded targets, on the same corpora"
)]
fn coverage_targets_pass_on_seeds_and_kept_inputs() {
    let targets: Vec<&str> = TARGETS.iter().map(|(n, _)| *n).collect();
    let crashes = fuzz_dir().join("crashes");
    let bins: Vec<String> = names(&fuzz_dir().join("coverage/targets"), false);
    let mut want: Vec<String> = targets.iter().map(|t| format!("{t}.rs")).collect();
    want.sort();
    assert_eq!(
        bins, want,
        "tests/fuzz/coverage/targets/ against checks::TARGETS"
    );
    for d in names(&crashes, true) {
        assert!(
            targets.contains(&d.as_str()),
            "tests/fuzz/crashes/{d}: no such target"
        );
    }
    let seed_dir = std::env::var_os("UVERBS_FUZZ_SEED_DIR").map(PathBuf::from);
    for (target, check) in TARGETS {
        let mut inputs: Vec<(String, Vec<u8>)> = seeds(target)
            .into_iter()
            .enumerate()
            .map(|(i, b)| (format!("seed {i}"), b))
            .collect();
        let n_seeds = inputs.len();
        let kept = crashes.join(target);
        if kept.is_dir() {
            for f in names(&kept, false) {
                let b = std::fs::read(kept.join(&f)).unwrap();
                inputs.push((format!("tests/fuzz/crashes/{target}/{f}"), b));
            }
        }
        let outcomes = replay(target, &inputs, check);
        let kinds: Vec<String> = outcomes.iter().map(|(k, v)| format!("{k}={v}")).collect();
        println!(
            "coverage target {target}: {n_seeds} seeds, {} kept inputs: {}",
            inputs.len() - n_seeds,
            kinds.join(" ")
        );
        if let Some(dir) = &seed_dir {
            let dir = dir.join(target);
            std::fs::create_dir_all(&dir).unwrap();
            for (_, b) in &inputs[..n_seeds] {
                std::fs::write(dir.join(format!("{:016x}", fnv(b))), b).unwrap();
            }
        }
    }
}
