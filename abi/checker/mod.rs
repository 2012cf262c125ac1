//! The uverbs ABI checker, shared by `tests/abi_check.rs` and `tests/abi_manifest.rs`
//! (each includes it with `#[path = "../abi/checker/mod.rs"] mod checker;`).
//!
//! * [`manifest`] parses `abi/manifest.txt`, the single list of what the crate mirrors.
//! * [`generate`] turns it into the Rust table (`abi/generated/rust_table.rs`, checked in)
//!   and into the C probes (written to a scratch directory at test time).
//! * [`probe`] compiles and runs a probe with the system C compiler.
//! * [`compare`] compares what the probe printed with the Rust table.
//! * [`scan`] lists the public structs and constants of `src/raw/abi` and `src/raw/driver`, so that
//!   anything added there and missing from the manifest is found.
//! * [`table`] holds the types the generated Rust table fills in.
//! * [`kernel`] reads the kernel's internal `include/rdma` headers as text, for the
//!   values no installed header has (the manifest's `doc=` values).
//!
//! See `abi/README.md` for how to run the check and how to add entries.
#![allow(dead_code)]

pub mod compare;
pub mod generate;
pub mod kernel;
pub mod manifest;
pub mod probe;
pub mod scan;
pub mod table;

use std::path::PathBuf;

/// A path inside the repository.
pub fn repo_path(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel)
}

#[path = "../../tests/common/strict.rs"]
mod strict;

/// A check could not run: fail in a strict run, print the reason and skip elsewhere.
pub fn skip_or_fail(check: &str, why: &str) {
    strict::skip_or_fail(&format!("ABI check ({check})"), why);
}

/// Prints a line that `cargo test` shows even for a passing test: written to the stderr
/// file descriptor directly, past the test harness's capture of `print!`.
pub fn say(line: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}
