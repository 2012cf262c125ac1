//! A bounded fuzz and property harness over every parser of outside data: the kernel's
//! ioctl/write() responses, RDMA netlink datagrams, kernel uevents, sysfs text and sysfs
//! trees, the exporter's HTTP request heads, and the command line. It runs in plain
//! `cargo test` (no nightly, no libFuzzer) and under Miri (with a small iteration count,
//! see tests/miri.sh).
//!
//! Beside it, the parsers of what the long-running commands read (HTTP heads, netlink,
//! uevents, sysfs text) also run under libFuzzer, coverage-guided, with the same checks
//! (`checks`): `tests/fuzz/coverage` (its `run.sh` is the `fuzz` phase of
//! scripts/test-all.sh). The inputs it saved on a crash are kept under
//! `tests/fuzz/crashes/` and replayed here (`coverage`).
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
//! | `harness` | the PRNG, the run loop (`fuzz`), the replay of given inputs, the environment, the byte and text mutators |
//! | `checks` | the properties shared with the coverage-guided targets: HTTP heads, netlink datagrams, uevents, sysfs and IPoIB text |
//! | `corpus` | the captured inputs: kernel answers, netlink datagrams, sysfs text; the synthetic and hand-written ones (netlink notifications, counters, resources and ports; uevents; HTTP heads) |
//! | `kernel` | kernel answers: QUERY_PORT, QUERY_DEVICE, GID table entries, async event descriptors |
//! | `netlink` | RDMA netlink datagrams (structured mutations, differential models), dev_t, requests; uevents |
//! | `sysfs` | sysfs text, generated and fixture sysfs trees, IPoIB text |
//! | `values` | the crate's own tables and formats: enum and flag round trips, names, text round trips, errors |
//! | `requests` | the ioctl attribute builder |
//! | `cli` | the command line: `getopt`, and the `uverbs` binary on random arguments |
//! | `exporter` | the exporter's HTTP request heads |
//! | `coverage` | the coverage-guided targets on their seeds and kept crash inputs; the seeds written for libFuzzer |
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

// The exporter's HTTP server (its request parser), compiled in the same way.
#[allow(dead_code)]
#[path = "../../src/bin/uverbs/plumbing/http.rs"]
mod http;

mod checks;
mod cli;
mod corpus;
mod coverage;
mod exporter;
mod harness;
mod kernel;
mod netlink;
mod requests;
mod sysfs;
mod values;
