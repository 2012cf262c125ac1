#!/usr/bin/env bash
# miri.sh - run the tests that make no system call under Miri (undefined behaviour,
# out-of-bounds and uninitialised reads, alignment, provenance): the crate's unit tests
# (attribute builder, method builders, decoders, netlink and sysfs text parsers, events,
# IPoIB text), the captured-answer decoding tests and the fuzz/property harness with a
# small iteration count, the regression tests, and the command's own unit tests (its
# pure parsers and printers: getopt, JSON, text, HTTP requests, Prometheus text,
# ibstat/ibstatus; not the printer's differential test, which compiles C).
#
# Usage: tests/miri.sh [EXTRA CARGO TEST ARGS...]
#
# Needs the nightly toolchain with the miri and rust-src components:
#   rustup toolchain install nightly --component miri,rust-src
#   (or: rustup component add --toolchain nightly miri rust-src)
# The first run builds Miri's sysroot (about a minute).
#
# Environment:
#   UVERBS_FUZZ_ITERS   executions per fuzz target under Miri (default 30; Miri runs
#                       ~1000 times slower than a native debug build)
#   UVERBS_FUZZ_SEED    the fuzz seed (forwarded)
#   UVERBS_FUZZ_KNOWN   findings not to assert in the fuzz targets (forwarded; see
#                       tests/fuzz/main.rs)
#   MIRIFLAGS           extra Miri flags (appended)
#
# Tests that need a system call Miri cannot make (opening device nodes, writing
# files, spawning processes) carry #[cfg_attr(miri, ignore)]. tests/decode.rs reads
# its fixtures from the source tree, so it runs with isolation disabled (file reads
# only; nothing here touches a device).
# Exit status: cargo's (0 when every run passed); 2 when Miri is not installed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if ! cargo +nightly miri --version >/dev/null 2>&1; then
  echo "miri.sh: cargo-miri is not installed for the nightly toolchain" >&2
  echo "  rustup component add --toolchain nightly miri rust-src" >&2
  exit 2
fi

export UVERBS_FUZZ_ITERS=${UVERBS_FUZZ_ITERS:-30}
base="-Zmiri-strict-provenance -Zmiri-env-forward=UVERBS_FUZZ_ITERS"
[ -n "${UVERBS_FUZZ_SEED:-}" ] && base+=" -Zmiri-env-forward=UVERBS_FUZZ_SEED"
[ -n "${UVERBS_FUZZ_KNOWN:-}" ] && base+=" -Zmiri-env-forward=UVERBS_FUZZ_KNOWN"
extra=${MIRIFLAGS:-}
rc=0

run() { # LABEL MIRIFLAGS CARGO-ARGS...
  local label=$1 flags=$2; shift 2
  echo "=== miri: $label" >&2
  local t=$SECONDS
  if MIRIFLAGS="$flags $extra" cargo +nightly miri test --no-fail-fast "$@"; then
    echo "=== miri: $label passed in $((SECONDS - t))s" >&2
  else
    echo "=== miri: $label FAILED" >&2
    rc=1
  fi
}

run "unit tests (--lib)" "$base" --lib "$@"
run "fuzz + regressions" "$base" --test fuzz --test regressions "$@"
run "decode (fixtures read from disk)" "$base -Zmiri-disable-isolation" --test decode "$@"
# The command keeps some values to the exit on purpose (io::keep: mem::forget, so that
# musl's allocator keeps its groups mapped), which Miri reports as leaks: not checked
# here. Isolation off: the golden test reads its file from the source tree.
run "the command's unit tests (--bin uverbs)" "$base -Zmiri-disable-isolation -Zmiri-ignore-leaks" --bin uverbs "$@"
exit $rc
