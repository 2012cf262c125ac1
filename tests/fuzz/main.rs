//! A bounded fuzz and property harness over every parser of outside data: the kernel's
//! ioctl/write() responses, RDMA netlink datagrams, sysfs text and sysfs trees, and the
//! command line. It runs in plain `cargo test` (no nightly, no libFuzzer) and under Miri
//! (with a small iteration count, see tests/miri.sh).
//!
//! Each target starts from real captured inputs (tests/fixtures: kernel answers, netlink
//! datagrams, sysfs text; compiled in, so the binary also runs in the VM rig where the
//! source tree is absent), mutates them (truncation, extension, bit flips, splices,
//! interesting integers, structured netlink edits: huge, zero and off-by-one lengths,
//! nested garbage, wrong-size attributes, foreign types and sequence numbers) and also
//! feeds pure random input. Every input runs under `catch_unwind`: a panic fails the
//! test with the target, seed, iteration and the input in hex. Beyond "no panic" each
//! target checks invariants: decoders never read past their input (a short buffer
//! decodes exactly as its zero-padded copy; borrowed slices lie inside the input),
//! enum and text round trips, and differential models of the netlink parsers.
//!
//! Environment:
//! - `UVERBS_FUZZ_ITERS`: executions per target (default 20000; 2000 in the VM rig,
//!   30 under Miri). File-system and process targets run a fraction of it.
//! - `UVERBS_FUZZ_SECS`: optional wall-clock bound per target (seconds, fractional).
//! - `UVERBS_FUZZ_SEED`: the PRNG seed (default fixed, so runs are reproducible; each
//!   target prints the seed it used).
//! - `UVERBS_FUZZ_KNOWN`: ids of findings (tests/regressions.rs) whose invariant is not
//!   asserted, to look past a finding whose fix has not landed yet (e.g. `F2,F3`).
//!
//! Every finding becomes a test in tests/regressions.rs.
//!
//! ## Layout
//!
//! This file is the test binary `fuzz`; the harness and the targets, one module per kind
//! of input:
//!
//! | module | what |
//! |---|---|
//! | `harness` | the PRNG, the run loop (`fuzz`), the environment, the byte and text mutators |
//! | `corpus` | the captured inputs: kernel answers, netlink datagrams, sysfs text |
//! | `kernel` | kernel answers: QUERY_PORT, QUERY_DEVICE, GID table entries, async event descriptors |
//! | `netlink` | RDMA netlink datagrams (structured mutations, differential models), dev_t, requests |
//! | `sysfs` | sysfs text, generated and fixture sysfs trees, IPoIB text |
//! | `values` | the crate's own tables and formats: enum and flag round trips, names, text round trips, errors |
//! | `requests` | the ioctl attribute builder |
//! | `cli` | the command line: `getopt`, and the `uverbs` binary on random arguments |
//!
//! Helpers shared with other test binaries (`unhex`, `hex`, `panic_text`, the oracle's
//! key contract) are in tests/common. What checks each named value of the crate's
//! tables against a source other than the crate itself is listed in tests/README.md.

#[path = "../common/mod.rs"]
mod common;

// The command-line parser of the `uverbs` binary: a self-contained module, compiled in
// here so that it can be fuzzed without spawning processes.
#[allow(dead_code)]
#[path = "../../src/bin/uverbs/plumbing/getopt.rs"]
mod getopt;

// The command's JSON escaper and event line (`uverbs watch --json`), compiled in the same
// way.
#[allow(dead_code)]
#[path = "../../src/bin/uverbs/plumbing/json_line.rs"]
mod json_line;

mod cli;
mod corpus;
mod harness;
mod kernel;
mod netlink;
mod requests;
mod sysfs;
mod values;
