#!/usr/bin/env bash
# run.sh - the coverage-guided fuzz targets (issue 29), the `fuzz` phase of
# scripts/test-all.sh: the parsers of what the long-running commands read (the
# exporter's HTTP request heads, RDMA netlink datagrams, kernel uevents, sysfs text),
# each under libFuzzer for a bounded time, checked by tests/fuzz/checks.rs.
#
#   1. the seeds: `cargo test --test fuzz` runs every target's checks on its seeds (the
#      fixtures of tests/fixtures and the hand-written shapes of tests/fuzz/corpus.rs)
#      and on the inputs kept under tests/fuzz/crashes/, and writes the seeds out;
#   2. the targets: tests/fuzz/coverage built on the stable toolchain with LLVM's
#      SanitizerCoverage (inline 8-bit edge counters, the PC table, compare tracing:
#      what libFuzzer's feedback needs), debug assertions and overflow checks on;
#      no AddressSanitizer (nightly only): these parsers are safe Rust, bounds-checked,
#      and Miri runs the same checks (tests/miri.sh);
#   3. each target for UVERBS_FUZZ_COVERAGE_SECS seconds from its seeds (a fresh
#      corpus each run, so runs compare), one per CPU at once, an input taking over
#      10 s a failure (a hang).
#
# Prints per target: run time, executions, and libFuzzer's `cov:` (edges of the
# instrumented code reached) and `ft:` (features: edges with hit counts, compared
# values) on the seeds alone and at the end. Fails on any crash, hang or run that did
# not end normally, after running the other targets; the input libFuzzer saved is
# named. Fix the bug, then keep the input: copy it to tests/fuzz/crashes/TARGET/ (the
# ordinary `cargo test --test fuzz` replays it) and give the finding its test in
# tests/regressions.rs.
#
# Usage: tests/fuzz/coverage/run.sh [TARGET...]   (default: all; names in checks::TARGETS)
# Env:
#   UVERBS_FUZZ_COVERAGE_SECS  seconds per target (default 10)
#   UVERBS_FUZZ_COVERAGE_JOBS  targets run at once (default: the CPUs, nproc)
#   CARGO_TARGET_DIR           the build and the run's files go to its fuzz-coverage/
#                              (default target/)
# Needs a C++ compiler (libfuzzer-sys builds libFuzzer; scripts/setup.sh installs g++)
# and crates.io for libfuzzer-sys (the versions of tests/fuzz/coverage/Cargo.lock).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
secs=${UVERBS_FUZZ_COVERAGE_SECS:-10}
out=$(realpath -m "${CARGO_TARGET_DIR:-target}")/fuzz-coverage
host=$(rustc -vV | sed -n 's/^host: //p')
mapfile -t all < <(cd tests/fuzz/coverage/targets && ls -- *.rs | sed 's/\.rs$//')
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
rm -rf "$out/seeds" "$out/corpus" "$out/crashes" "$out/logs"
mkdir -p "$out/logs"

t0=$SECONDS
# 1. The seeds, and the checks on them and on the kept inputs. The test is named
# exactly; that it ran is checked by the seeds it wrote.
rc=0
UVERBS_FUZZ_SEED_DIR=$out/seeds cargo test --test fuzz -- --exact \
  coverage::coverage_targets_pass_on_seeds_and_kept_inputs --nocapture \
  > "$out/logs/seeds.log" 2>&1 || rc=$?
grep -E '^coverage target|^test result' "$out/logs/seeds.log" || true
if [ $rc != 0 ]; then
  echo "---- fuzz: the checks failed on a seed or a kept input ($rc):" >&2
  tail -n 60 "$out/logs/seeds.log" >&2
  exit $rc
fi
for t in "${targets[@]}"; do
  [ -n "$(ls -A "$out/seeds/$t" 2>/dev/null)" ] || { echo "fuzz: no seeds were written for '$t'" >&2; exit 1; }
done
t_seeds=$((SECONDS - t0))

# 2. The targets. RUSTFLAGS reach only the target's crates (--target given): build
# scripts and proc macros stay uninstrumented. -Dwarnings holds the crates of this
# repository (dependencies' lints are capped by cargo).
t0=$SECONDS
flags=(-Cpasses=sancov-module
  -Cllvm-args=-sanitizer-coverage-level=4
  -Cllvm-args=-sanitizer-coverage-inline-8bit-counters
  -Cllvm-args=-sanitizer-coverage-pc-table
  -Cllvm-args=-sanitizer-coverage-trace-compares
  --cfg fuzzing -Cdebug-assertions -Coverflow-checks -Dwarnings)
unset CARGO_ENCODED_RUSTFLAGS
RUSTFLAGS="${flags[*]}" cargo build -q --release --locked \
  --manifest-path tests/fuzz/coverage/Cargo.toml --target "$host" --target-dir "$out/build"
t_build=$((SECONDS - t0))
echo "fuzz: seeds and their checks ${t_seeds}s, the targets built in ${t_build}s"

# 3. The targets, as many at once as there are CPUs (UVERBS_FUZZ_COVERAGE_JOBS), each
# alone on one. -max_len: past what the parser is ever handed (the 8 KiB head limit of
# the HTTP server, the 8 KiB netlink and uevent receive buffers, a sysfs page).
fuzz_one() { # TARGET: runs it; its log, exit status and wall time go to $out/logs
  local t=$1 max_len start rc=0
  case $t in
    http) max_len=9000 ;;
    netlink | uevent) max_len=8192 ;;
    *) max_len=4096 ;;
  esac
  mkdir -p "$out/corpus/$t" "$out/crashes/$t"
  start=$(date +%s.%N)
  "$out/build/$host/release/$t" -max_total_time="$secs" -timeout=10 -max_len=$max_len \
    -print_final_stats=1 -artifact_prefix="$out/crashes/$t/" \
    "$out/corpus/$t" "$out/seeds/$t" > "$out/logs/$t.log" 2>&1 || rc=$?
  echo $rc > "$out/logs/$t.rc"
  awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f\n", b - a }' > "$out/logs/$t.secs"
}
# FIELD of libFuzzer's last status line of KIND (INITED: the seeds read; DONE: the end)
figure() { # LOG KIND FIELD
  { grep -E "^#[0-9]+[[:space:]]+$2 " "$1" || true; } | tail -n 1 | sed -n "s/.* $3: \([0-9]*\).*/\1/p"
}
report() { # TARGET: its line; on a failure, the end of its log and the saved input
  local t=$1 log=$out/logs/$1.log rc execs rate corpus
  rc=$(cat "$out/logs/$t.rc")
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  corpus=$({ grep -E '^#[0-9]+[[:space:]]+DONE ' "$log" || true; } | sed -n 's/.* corp: \([^ ]*\).*/\1/p')
  printf 'fuzz: %-8s %5s %10s %9s %15s %15s %s\n' "$t" "$(cat "$out/logs/$t.secs")" \
    "${execs:-?}" "${rate:-?}" \
    "$(figure "$log" INITED cov)->$(figure "$log" DONE cov)" \
    "$(figure "$log" INITED ft)->$(figure "$log" DONE ft)" \
    "${corpus:--} ($({ grep -o 'Seed: [0-9]*' "$log" || true; } | head -n 1))"
  if [ "$rc" != 0 ] || ! grep -qE '^#[0-9]+[[:space:]]+DONE ' "$log"; then
    echo "---- fuzz: target $t failed (libFuzzer's status $rc); the end of its log ($log):" >&2
    grep -v '^#[0-9]' "$log" | tail -n 40 >&2
    for f in "$out/crashes/$t"/*; do
      [ -e "$f" ] || continue
      echo "fuzz: the input: $f ($(stat -c %s "$f") bytes); once fixed, keep it:" \
        "cp '$f' tests/fuzz/crashes/$t/ (cargo test --test fuzz replays it)" >&2
    done
    return 1
  fi
}
jobs=${UVERBS_FUZZ_COVERAGE_JOBS:-$(nproc)}
failed=()
t0=$SECONDS
printf 'fuzz: %-8s %5s %10s %9s %15s %15s %s\n' target secs executions exec/s \
  'cov seeds->end' 'ft seeds->end' corpus
for ((i = 0; i < ${#targets[@]}; i += jobs)); do
  batch=("${targets[@]:i:jobs}")
  for t in "${batch[@]}"; do fuzz_one "$t" & done
  wait
  for t in "${batch[@]}"; do
    report "$t" || failed+=("$t")
  done
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz: ${#targets[@]} targets, ${secs}s each, $jobs at once: $((SECONDS - t0))s; no crash"
