#!/usr/bin/env bash
# run-tests.sh - run the crate's integration tests against real kernels.
#
# Usage: tests/vm/run-tests.sh [-- TEST-ARGS...]
#
# Each test binary runs as  BINARY --test-threads=1 TEST-ARGS...; without
# TEST-ARGS they are "--ignored": the crate marks every device test
# #[ignore] (they need real devices) and the VM is where they run; the host
# tests run on the host (cargo test), not here.  A filter works too:
# run-tests.sh -- --ignored every_attribute.  The abi_* binaries are not
# run in the guest (their one ignored test regenerates a checked-in file).
#
# 1. ensures the Rust target x86_64-unknown-linux-musl (rustup) and the host
#    packages it needs (musl-tools, gcc, libibverbs-dev, librdmacm-dev);
# 2. builds every integration test (tests/*.rs) for musl with
#    'cargo test --features fault-injection,tokio --no-run' (debug profile; the
#    feature lets tests/disassociate.rs inject a driver's disassociation,
#    which rxe and siw cannot do), and the crate's binaries
#    ('cargo build --bins'); test binaries are copied into the guest with
#    their debug info stripped (smaller initramfs, faster boot);
# 3. builds tests/vm/oracle.c and qp_oracle.c against the host's libibverbs
#    (rdma-core 44), and oracle.c again against rdma-core 64.0
#    (tests/vm/rdma-core.sh) as oracle-64;
# 4. for each kernel in $UVERBS_VM_KERNELS boots ONE VM (rig.sh) with
#    $UVERBS_VM_RXE rxe + $UVERBS_VM_SIW siw devices and runs, one after the
#    other, a rig self-check (the oracle answers for every device) and every
#    integration-test binary with --test-threads=1 [TEST-ARGS...];
# 5. the scale pass: one VM (first kernel of the list) with 16 rxe + 16 siw
#    running the test binaries whose name contains "scale", with all 32
#    devices in UVERBS_TEST_DEVICES, after the same self-check on all 32.
#    (Only those: every other test would run 16 times longer for little
#    gain.)
# Inside the guest each test binary gets:
#   UVERBS_TEST_DEVICES  device names, e.g. rxe0,siw0
#   UVERBS_ORACLE        /uverbs/oracle     (the libibverbs oracle)
#   UVERBS_QP_ORACLE     /uverbs/qp_oracle  (libibverbs' ibv_query_qp through a state walk)
#   UVERBS_DP_ORACLE     /uverbs/dp_oracle  (libibverbs' answers to the data-path cases)
#   UVERBS_ORACLE_64     /uverbs/oracle-64  (the same against rdma-core 64.0)
#   UVERBS_BIN           /uverbs/uverbs     (if the crate has that binary)
#   UVERBS_EXAMPLES      /uverbs/examples   (the user examples, e.g. rc_pingpong)
#   UVERBS_VM_KERNEL     6.1 | 6.12
#   RUST_BACKTRACE=1
# The binaries live in /uverbs/tests/<target name>; the cwd is /uverbs.
# All integration-test binaries run in the guest, also host-only ones; the
# tests themselves decide what to skip from UVERBS_TEST_DEVICES.
#
# Environment:
#   UVERBS_VM_KERNELS   kernels to test (default "6.1 6.12")
#   UVERBS_VM_RXE / UVERBS_VM_SIW   devices per normal VM (default 1 / 1)
#   UVERBS_VM_SCALE     0 skips the scale pass (default 1)
#   UVERBS_VM_TIMEOUT   seconds per VM (default 900)
#   UVERBS_VM_REPEAT    runs of each test binary in the same boot (default 1): to
#                       look for a flaky test, e.g. UVERBS_VM_REPEAT=30 with
#                       TEST-ARGS "faults_siw --include-ignored"; a binary fails if
#                       any run failed
#   UVERBS_VM_CRATE_FILES  crate paths (e.g. "abi tests/fixtures") to copy
#                       into the guest at their host absolute path, for tests
#                       that read files under CARGO_MANIFEST_DIR (default none)
#   UVERBS_VM_CACHE     the rig's cache (default /var/cache/uverbs-vm)
#   CARGO_TARGET_DIR etc. are honoured by cargo as usual.
# Exit status: 0 if every test binary (and self-check) passed in every VM,
# 1 if some failed, 2 on a build error, else the rig's failure code.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CRATE=$(cd "$HERE/../.." && pwd)
TARGET=x86_64-unknown-linux-musl
KERNELS=${UVERBS_VM_KERNELS:-6.1 6.12}
NRXE=${UVERBS_VM_RXE:-1}
NSIW=${UVERBS_VM_SIW:-1}
SCALE=${UVERBS_VM_SCALE:-1}
VM_TIMEOUT=${UVERBS_VM_TIMEOUT:-900}
REPEAT=${UVERBS_VM_REPEAT:-1}
CRATE_FILES=${UVERBS_VM_CRATE_FILES:-}
[ "${1:-}" = -- ] && shift
TEST_ARGS=("$@")
[ $# -gt 0 ] || TEST_ARGS=(--ignored)

say() { echo "run-tests: $*" >&2; }
now_us() { echo "${EPOCHREALTIME/./}"; }
secs_since() { local d=$((($(now_us) - $1) / 100000)); echo "$((d / 10)).$((d % 10))s"; }
SUMMARY=()
phase_done() { # START TEXT
  local t
  t=$(secs_since "$1")
  say "$2: $t"
  SUMMARY+=("$(printf '%-44s %8s' "$2" "$t")")
}
T_ALL=$(now_us)

# ------------------------------------------------------------ 1. host setup
T=$(now_us)
need=()
command -v musl-gcc >/dev/null || need+=(musl-tools)
command -v gcc >/dev/null || need+=(gcc)
[ -e /usr/include/infiniband/verbs.h ] || need+=(libibverbs-dev)
[ -e /usr/include/rdma/rdma_cma.h ] || need+=(librdmacm-dev)   # issue 17: dp_oracle connects siw by librdmacm
if [ ${#need[@]} -gt 0 ]; then
  say "apt-get install ${need[*]}"
  { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" ||
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        --no-install-recommends "${need[@]}"; }; } >/dev/null
fi
if ! rustup target list --installed | grep -qx "$TARGET"; then
  say "rustup target add $TARGET"
  rustup target add "$TARGET" >&2
fi
phase_done "$T" "host setup"

# ------------------------------------------------------------ 2. build
STAGE=$(mktemp -d "${TMPDIR:-/tmp}/uverbs-tests.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$STAGE/tests"

# executables of the given cargo JSON messages whose target kind is KIND,
# as "NAME EXECUTABLE" lines (cargo's JSON is one object per line; the
# fields used here never contain quotes). Fails when there is none.
artifacts() { # KIND < json
  grep '"reason":"compiler-artifact"' | grep "\"kind\":\[\"$1\"\]" | grep '"executable":"' |
    sed 's/.*"target":{[^}]*"name":"\([^"]*\)".*"executable":"\([^"]*\)".*/\1 \2/'
}

T=$(now_us)
say "cargo test --target $TARGET --no-run"
if ! (cd "$CRATE" && cargo test --target "$TARGET" --features fault-injection,tokio --tests --no-run --message-format=json-render-diagnostics \
      > "$STAGE/test-build.json"); then
  say "FAILED: building the test binaries"; exit 2
fi
artifacts test < "$STAGE/test-build.json" > "$STAGE/tests.list" || { say "FAILED: cargo built no test binary"; exit 2; }
mapfile -t TESTS < <(grep -v '^abi_' "$STAGE/tests.list" | sort)
[ ${#TESTS[@]} -gt 0 ] || { say "FAILED: no integration-test binary to run"; exit 2; }
# The examples a user would copy (examples/), each run against its rdma-core peer by
# tests/examples.rs; the measurement tools among the examples are built by bench/.
EXAMPLES="rc_pingpong ud_pingpong rping watch_ports select_gid"
example_args=()
for e in $EXAMPLES; do example_args+=(--example "$e"); done
say "cargo build --target $TARGET --bins ${example_args[*]}"
if ! (cd "$CRATE" && cargo build --target "$TARGET" --bins "${example_args[@]}" --message-format=json-render-diagnostics \
      > "$STAGE/bin-build.json"); then
  say "FAILED: building the binaries"; exit 2
fi
UVERBS_EXE=$(artifacts bin < "$STAGE/bin-build.json" | awk '$1 == "uverbs" { print $2 }') || true
[ -n "$UVERBS_EXE" ] || { say "FAILED: cargo built no 'uverbs' binary"; exit 2; }
phase_done "$T" "cargo build (musl, debug)"

T=$(now_us)
for line in "${TESTS[@]}"; do
  name=${line%% *} exe=${line#* }
  objcopy --strip-debug "$exe" "$STAGE/tests/$name"
done
names=$(for line in "${TESTS[@]}"; do printf "%s " "${line%% *}"; done)
say "integration tests: $names"
objcopy --strip-debug "$UVERBS_EXE" "$STAGE/uverbs"
mkdir -p "$STAGE/examples"
for e in $EXAMPLES; do
  exe=$(artifacts example < "$STAGE/bin-build.json" | awk -v e="$e" '$1 == e { print $2 }') || true
  [ -n "$exe" ] || { say "FAILED: cargo built no example $e"; exit 2; }
  objcopy --strip-debug "$exe" "$STAGE/examples/$e"
done
gcc -O2 -Wall -o "$STAGE/oracle" "$HERE/oracle.c" -libverbs
gcc -O2 -Wall -o "$STAGE/qp_oracle" "$HERE/qp_oracle.c" -libverbs
gcc -O2 -Wall -o "$STAGE/dp_oracle" "$HERE/dp_oracle.c" -libverbs -lrdmacm   # issue 17
# the same oracle against rdma-core 64.0 (the peer the rig builds; issue 16)
PEER64=$(bash "$HERE/rdma-core.sh" 64.0) || { say "FAILED: no rdma-core 64.0 build (tests/vm/rdma-core.sh)"; exit 2; }
gcc -O2 -Wall -DORACLE_RDMA_CORE=64 -I"$PEER64/include" -o "$STAGE/oracle-64" "$HERE/oracle.c" \
  -L"$PEER64/opt/rdma-core-64.0/lib" -Wl,-rpath,/opt/rdma-core-64.0/lib -libverbs
phase_done "$T" "oracle + staging"

# ------------------------------------------------------------ 3. guest script
# Runs in the guest (dash): self-check, then each binary named in its
# arguments; one result line per binary, parsed below.
cat > "$STAGE/run-in-vm.sh" <<'EOF'
#!/bin/sh
# run-in-vm.sh TEST-ARGS-FILE BINARY...
argsfile=$1; shift
failed=0 total=0
up() { cut -d' ' -f1 /proc/uptime; }
result() { # NAME STATUS START [PASSED]
  echo "=== uverbs-vm-test-result: $1 status=$2 time=$(awk -v a="$3" -v b="$(up)" 'BEGIN { printf "%.1f", b - a }')s passed=${4:--}"
  [ "$2" = 0 ] || failed=$((failed + 1))
}
echo "=== uverbs-vm-test: rig-selfcheck (oracle on $UVERBS_TEST_DEVICES)"
t=$(up); rc=0
for d in $(echo "$UVERBS_TEST_DEVICES" | tr ',' ' '); do
  out=$(./oracle "$d") || { echo "oracle $d failed"; rc=1; continue; }
  case $out in *"port.1.state=4"*) ;; *) echo "$d: port 1 not ACTIVE"; rc=1 ;; esac
done
result rig-selfcheck $rc "$t"
for b in "$@"; do
  echo "=== uverbs-vm-test: $b (kernel $UVERBS_VM_KERNEL, devices $UVERBS_TEST_DEVICES)"
  t=$(up)
  # the extra test arguments, one per line in argsfile
  set --
  while IFS= read -r a; do set -- "$@" "$a"; done < "$argsfile"
  rc=0 i=0 passed=0
  while [ $i -lt "$UVERBS_VM_REPEAT" ]; do
    i=$((i + 1))
    # the libtest summary line counts what ran: "test result: ok. N passed; ..."
    # (streamed as it runs; dash has no PIPESTATUS, so the status goes through a file)
    { ./tests/"$b" --test-threads=1 "$@"; echo $? > /tmp/test.rc; } 2>&1 | tee /tmp/test.out
    r=$(cat /tmp/test.rc)
    [ "$r" = 0 ] || { rc=$r; echo "=== $b: run $i of $UVERBS_VM_REPEAT failed"; }
    n=$(sed -n 's/^test result: .* \([0-9]*\) passed;.*/\1/p' /tmp/test.out | tail -n 1)
    [ -n "$n" ] || { [ $rc != 0 ] || rc=1; echo "=== $b: run $i printed no libtest summary"; n=0; }
    passed=$((passed + n))
  done
  result "$b" $rc "$t" $passed
  total=$((total + passed))
done
# a VM whose binaries ran no test at all proves nothing (a filter that matches nothing)
if [ $# -gt 0 ] && [ $total = 0 ]; then
  echo "=== no test ran in this VM: the binaries' filters matched nothing"
  failed=$((failed + 1))
fi
[ $failed = 0 ]
EOF
: > "$STAGE/test-args"
for a in "${TEST_ARGS[@]}"; do printf '%s\n' "$a" >> "$STAGE/test-args"; done

# ------------------------------------------------------------ 4. VMs
OVERALL=0
RESULTS=()
run_vm() { # LABEL KERNEL RXE SIW BINARY...
  local label=$1 kernel=$2 rxe=$3 siw=$4; shift 4
  local devs='' i T rc adds=() log
  for ((i = 0; i < rxe; i++)); do devs+="${devs:+,}rxe$i"; done
  for ((i = 0; i < siw; i++)); do devs+="${devs:+,}siw$i"; done
  adds=(--add "$STAGE/oracle" --add "$STAGE/qp_oracle" --add "$STAGE/run-in-vm.sh" --add "$STAGE/test-args" --add "$STAGE/tests")
  adds+=(--add "$STAGE/dp_oracle")   # issue 17: libibverbs' answers to the data-path cases
  adds+=(--add "$STAGE/examples")    # issue 27: the examples (tests/examples.rs)
  local envs=(--env "UVERBS_TEST_DEVICES=$devs" --env UVERBS_ORACLE=/uverbs/oracle
    --env UVERBS_QP_ORACLE=/uverbs/qp_oracle --env RUST_BACKTRACE=1 --env "UVERBS_VM_REPEAT=$REPEAT")
  envs+=(--env UVERBS_DP_ORACLE=/uverbs/dp_oracle)   # issue 17
  # faults' concurrency test: 8 x 20,000 QUERY_PORTs, each of which logs a line on the
  # rig's dummy netdevs (ib_get_eth_speed: "speed is unknown"); 8 x 100,000 wrapped even
  # a 64 MiB kernel log, whose every record the rig checks for warnings (guest-init.sh)
  envs+=(--env UVERBS_CONCURRENCY_ITERS=20000)
  envs+=(--env UVERBS_EXAMPLES=/uverbs/examples)     # issue 27
  if [ -e "$STAGE/uverbs" ]; then adds+=(--add "$STAGE/uverbs"); envs+=(--env UVERBS_BIN=/uverbs/uverbs); fi
  # issue 25: drivers with a planted regression (tests/vm/planted/*.sed), built for this
  # kernel by the rig (cached): selftest must catch each
  local p ko
  for p in "$HERE"/planted/*.sed; do
    ko=$("$HERE/rig.sh" --kernel "$kernel" --planted "$p")
    adds+=(--add "$ko:/uverbs/planted/$(basename "$p" .sed).ko")
  done
  envs+=(--env UVERBS_PLANTED=/uverbs/planted)
  if [ -e "$STAGE/oracle-64" ]; then adds+=(--add "$STAGE/oracle-64"); envs+=(--env UVERBS_ORACLE_64=/uverbs/oracle-64); fi
  local f
  for f in $CRATE_FILES; do adds+=(--add "$CRATE/$f:$CRATE/$f"); done
  log=$STAGE/$label.out
  say "=== $label: kernel $kernel, $rxe rxe + $siw siw, binaries: ${*:-none}"
  T=$(now_us)
  set +e
  "$HERE/rig.sh" --kernel "$kernel" --rxe "$rxe" --siw "$siw" --timeout "$VM_TIMEOUT" \
    "${adds[@]}" "${envs[@]}" -- sh ./run-in-vm.sh test-args "$@" | tee "$log"
  rc=${PIPESTATUS[0]}
  set -e
  phase_done "$T" "VM $label (boot+tests)"
  # per-binary results (the lines are ours, inside the rig's output markers)
  local r
  while read -r _ _ r; do RESULTS+=("$label: $r"); done < <(grep '^=== uverbs-vm-test-result: ' "$log" || true)
  case $rc in
    0) ;;
    1) OVERALL=1 ;;
    *) RESULTS+=("$label: VM FAILED (rig exit $rc)"); [ "$OVERALL" != 0 ] || OVERALL=$rc ;;
  esac
}

for k in $KERNELS; do
  # prepare (cold cache: downloads + siw build) as its own timed phase
  T=$(now_us)
  if ! "$HERE/rig.sh" --prepare --kernel "$k"; then
    RESULTS+=("linux-$k: PREPARATION FAILED (see above)"); OVERALL=125
    continue
  fi
  phase_done "$T" "prepare kernel $k (cache)"
  bins=()
  for line in "${TESTS[@]}"; do bins+=("${line%% *}"); done
  run_vm "linux-$k" "$k" "$NRXE" "$NSIW" "${bins[@]}"
done
if [ "$SCALE" = 1 ]; then
  k=${KERNELS%% *}
  bins=()
  for line in "${TESTS[@]}"; do
    case ${line%% *} in *scale*) bins+=("${line%% *}") ;; esac
  done
  run_vm "scale-$k-16+16" "$k" 16 16 "${bins[@]}"
fi

# ------------------------------------------------------------ summary
{
  echo
  echo "run-tests: ===== summary ====="
  for r in "${RESULTS[@]}"; do echo "  $r"; done
  echo "run-tests: ----- times -----"
  for s in "${SUMMARY[@]}"; do echo "  $s"; done
  echo "  $(printf '%-44s %8s' total "$(secs_since "$T_ALL")")"
  if [ "$OVERALL" = 0 ]; then echo "run-tests: ALL PASSED"; else echo "run-tests: FAILED (exit $OVERALL)"; fi
} >&2
exit "$OVERALL"
