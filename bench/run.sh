#!/usr/bin/env bash
# bench/run.sh - uverbs against libibverbs, side by side in the VM rig, and
# BENCHMARKS.md from the results.
#
# Usage: bench/run.sh [--kernel SERIES]... [--quick] [--no-scale] [--out FILE]
#
#   --kernel SERIES  a kernel series of tests/vm/versions (6.1, 6.12); repeatable
#                    (default: 6.1)
#   --quick          fewer rounds and runs (a smoke test; numbers are noisier)
#   --no-scale       skip the 16 rxe + 16 siw boot
#   --out FILE       where to write the report (default: BENCHMARKS.md at the
#                    crate root)
#   --report-only    write the report again from the raw outputs of the last run
#                    (target/bench/), without building or booting anything
#
# What it does:
#  1. host setup: gcc, libibverbs-dev (rdma-core's headers and libibverbs to
#     build bench/ibv_loops.c against), the musl target;
#  2. builds, for x86_64-unknown-linux-musl (static, runs in the guest as is):
#     the CLI (cargo build --release --bin uverbs), examples/bench_loops.rs and
#     examples/bench_proc.rs (release), the criterion device bench (cargo bench
#     --no-run, if Cargo.toml declares it), tests/alloc.rs (cargo test --no-run);
#     and bench/ibv_loops.c with gcc against libibverbs. A part that does not
#     build is reported as pending; the rest still runs;
#  3. runs benches/decode.rs on the host (criterion, no device);
#  4. per kernel, boots the VM rig (tests/vm/rig.sh) twice:
#       1 rxe + 1 siw: every loop on both devices (bench/guest.sh small), the
#         allocation test, cold starts, whole-process timings, criterion device
#         bench;
#       16 rxe + 16 siw: discovery + open + first query, whole-process timings
#         (bench/guest.sh scale);
#  5. measures sizes: the stripped static CLI against rdma-core's stack as
#     Debian ships it (the same packages the guest runs);
#  6. writes the report: medians, ratios, targets met or missed, the machine,
#     the kernel, and the command to reproduce.
#
# Raw outputs are kept in target/bench/ (the rig's output per boot, build logs).
# Environment: UVERBS_BENCH_RIG (default tests/vm/rig.sh; must take the rig's
# --kernel/--rxe/--siw/--add/--timeout options), UVERBS_VM_CACHE (the rig's),
# UVERBS_BENCH_DEVICE_EXE (a prebuilt musl benches/device.rs executable to use
# instead of building it).
# Exit status: 0 when every part ran (targets missed are reported, not fatal),
# 1 when a VM run failed or a required build failed.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CRATE=$(cd "$HERE/.." && pwd)
TARGET=x86_64-unknown-linux-musl
RIG=${UVERBS_BENCH_RIG:-$CRATE/tests/vm/rig.sh}
KERNELS=()
OUT=$CRATE/BENCHMARKS.md
QUICK=0 SCALE_PASS=1 REPORT_ONLY=0
while [ $# -gt 0 ]; do
  case $1 in
    --kernel) KERNELS+=("${2:?}"); shift 2 ;;
    --quick) QUICK=1; shift ;;
    --no-scale) SCALE_PASS=0; shift ;;
    --out) OUT=${2:?}; shift 2 ;;
    --report-only) REPORT_ONLY=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    *) echo "run.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ ${#KERNELS[@]} -gt 0 ] || KERNELS=(6.1)
# loops: ROUNDS x BATCHES batches per op; RUNS runs per process / cold start
if [ "$QUICK" = 1 ]; then ROUNDS=1 BATCHES=5 LSCALE=0.4 RUNS=7; else ROUNDS=3 BATCHES=7 LSCALE=1 RUNS=21; fi
SCALE_RXE=16 SCALE_SIW=16

say() { echo "bench: $*" >&2; }
now_us() { echo "${EPOCHREALTIME/./}"; }
secs_since() { local d=$((($(now_us) - $1) / 100000)); echo "$((d / 10)).$((d % 10))s"; }
T_ALL=$(now_us)
RES=$CRATE/target/bench
STAGE=$RES/stage/bench
FAILED=0
pending() { echo "$*" >> "$RES/pending.txt"; }   # parts that did not run, for the report
if [ "$REPORT_ONLY" = 1 ]; then
  [ -e "$RES/run.conf" ] || { echo "run.sh: no previous run in $RES" >&2; exit 2; }
  . "$RES/run.conf"
else
rm -rf "$RES"; mkdir -p "$RES" "$STAGE"
: > "$RES/pending.txt"
{ echo "KERNELS=(${KERNELS[*]})"; echo "QUICK=$QUICK SCALE_PASS=$SCALE_PASS ROUNDS=$ROUNDS BATCHES=$BATCHES LSCALE=$LSCALE RUNS=$RUNS"; } > "$RES/run.conf"

# ------------------------------------------------------------ 1. host setup
need=()
command -v gcc >/dev/null || need+=(gcc)
command -v musl-gcc >/dev/null || need+=(musl-tools)
[ -e /usr/include/infiniband/verbs.h ] || need+=(libibverbs-dev)
if [ ${#need[@]} -gt 0 ]; then
  say "apt-get install ${need[*]}"
  { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" ||
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        --no-install-recommends "${need[@]}"; }; } >/dev/null
fi
rustup target list --installed | grep -qx "$TARGET" || rustup target add "$TARGET" >&2

# ------------------------------------------------------------ 2. builds
# executable of cargo's JSON messages: target name NAME, kind KIND
artifact() { # NAME KIND < json
  grep '"reason":"compiler-artifact"' | grep "\"kind\":\[\"$2\"\]" | grep "\"name\":\"$1\"" |
    grep -o '"executable":"[^"]*"' | sed 's/"executable":"\(.*\)"/\1/' | tail -n1 || true
}
build() { # LABEL CARGO-ARGS... ; prints the JSON to $RES/build-LABEL.json
  local label=$1; shift
  local t; t=$(now_us)
  if (cd "$CRATE" && cargo "$@" --message-format=json-render-diagnostics \
        > "$RES/build-$label.json" 2> "$RES/build-$label.log"); then
    say "built $label ($(secs_since "$t"))"; return 0
  fi
  say "FAILED to build $label (log: $RES/build-$label.log)"; tail -n 15 "$RES/build-$label.log" >&2
  return 1
}
T=$(now_us)
if build examples build --release --target "$TARGET" --example bench_loops --example bench_proc; then
  cp "$(artifact bench_loops example < "$RES/build-examples.json")" "$STAGE/bench_loops"
  cp "$(artifact bench_proc example < "$RES/build-examples.json")" "$STAGE/bench_proc"
else
  say "the loop programs are required"; exit 1
fi
CLI=''
if build cli build --release --target "$TARGET" --bin uverbs; then
  CLI=$(artifact uverbs bin < "$RES/build-cli.json")
  cp "$CLI" "$STAGE/uverbs"
else
  pending "uverbs CLI: does not build yet (whole-process rows and binary size pending; $RES/build-cli.log)"
fi
if [ -n "${UVERBS_BENCH_DEVICE_EXE:-}" ]; then
  cp "$UVERBS_BENCH_DEVICE_EXE" "$STAGE/device"   # prebuilt elsewhere
  pending "criterion device bench: a prebuilt executable was used (UVERBS_BENCH_DEVICE_EXE), not built by this run"
elif grep -q '^name = "device"' "$CRATE/Cargo.toml"; then
  if build device-bench bench --target "$TARGET" --bench device --no-run; then
    cp "$(artifact device bench < "$RES/build-device-bench.json")" "$STAGE/device"
  else
    pending "criterion device bench: does not build ($RES/build-device-bench.log)"
  fi
else
  pending "criterion device bench: Cargo.toml has no [[bench]] name = \"device\" entry yet"
fi
if build alloc-test test --target "$TARGET" --test alloc --no-run; then
  cp "$(artifact alloc test < "$RES/build-alloc-test.json")" "$STAGE/alloc"
  objcopy --strip-debug "$STAGE/alloc" 2>/dev/null || true
else
  pending "allocation test: does not build ($RES/build-alloc-test.log)"
fi
gcc -O2 -Wall -o "$STAGE/ibv_loops" "$HERE/ibv_loops.c" -libverbs
# the peak-RSS helper: static and small (its pre-exec image counts in ru_maxrss)
musl-gcc -static -O2 -Wall -o "$STAGE/rusage" "$HERE/rusage.c" || pending "rusage helper: musl-gcc failed (RSS through busybox time)"
cp "$HERE/guest.sh" "$STAGE/guest.sh"
say "builds done in $(secs_since "$T")"

# ------------------------------------------------------------ 3. decode bench (host)
T=$(now_us)
DECODE=$RES/decode.txt
if (cd "$CRATE" && cargo bench --bench decode -- --noplot > "$DECODE.raw" 2> "$RES/decode.log"); then
  # "group/name" line, then "time: [lo mid hi]"
  awk '/^[a-z]+\// { name = $0 } /time:/ { sub(/.*\[/, ""); sub(/\].*/, "");
        print name "\t" $3 " " $4 }' "$DECODE.raw" > "$DECODE"
  say "decode bench done in $(secs_since "$T")"
else
  : > "$DECODE"; pending "decode bench: failed ($RES/decode.log)"
fi

# ------------------------------------------------------------ 4. the VM runs
run_vm() { # NAME KERNEL RXE SIW MODE
  local name=$1 k=$2 rxe=$3 siw=$4 mode=$5 t rc
  t=$(now_us)
  say "VM $name: kernel $k, $rxe rxe + $siw siw, $mode pass"
  set +e
  "$RIG" --kernel "$k" --rxe "$rxe" --siw "$siw" --timeout 1200 --add "$STAGE:/bench" \
    -- sh /bench/guest.sh "$mode" "$ROUNDS" "$BATCHES" "$LSCALE" "$RUNS" \
    > "$RES/$name.out" 2> "$RES/$name.err"
  rc=$?
  set -e
  say "VM $name: exit $rc in $(secs_since "$t")"
  if [ $rc != 0 ]; then
    FAILED=1; tail -n 20 "$RES/$name.err" >&2
    pending "VM run $name failed (rig exit $rc; $RES/$name.err)"
  fi
}
for k in "${KERNELS[@]}"; do
  "$RIG" --prepare --kernel "$k" >&2
  run_vm "$k-small" "$k" 1 1 small
  if [ "$SCALE_PASS" = 1 ]; then run_vm "$k-scale" "$k" "$SCALE_RXE" "$SCALE_SIW" scale; fi
done

echo "$(secs_since "$T_ALL")" > "$RES/elapsed"
fi # not --report-only
DECODE=$RES/decode.txt
CLI=''; [ -x "$STAGE/uverbs" ] && CLI=$STAGE/uverbs

# ------------------------------------------------------------ 5. sizes
# rdma-core as Debian ships it: the rig's unpacked user space (the packages the
# guest runs), else the host's.
UROOT=''
for d in "${UVERBS_VM_CACHE:-/var/cache/uverbs-vm}/userland/root" /; do
  if ls "$d"/usr/lib/x86_64-linux-gnu/libibverbs.so.1.* >/dev/null 2>&1; then UROOT=$d; break; fi
done
fsize() { stat -L -c %s "$1" 2>/dev/null || echo 0; }
SIZES=$RES/sizes.txt
: > "$SIZES"
if [ -n "$CLI" ]; then
  echo "uverbs $(fsize "$STAGE/uverbs")" >> "$SIZES"
  file -b "$STAGE/uverbs" > "$RES/uverbs.file" 2>/dev/null || true
fi
if [ -n "$UROOT" ]; then
  L=$UROOT/usr/lib/x86_64-linux-gnu
  pick() { ls "$@" 2>/dev/null | head -n1; }
  echo "libibverbs $(fsize "$(pick "$L"/libibverbs.so.1.*)")" >> "$SIZES"
  echo "libnl-3 $(fsize "$(pick "$UROOT"/lib/x86_64-linux-gnu/libnl-3.so.200.* "$L"/libnl-3.so.200.*)")" >> "$SIZES"
  echo "libnl-route-3 $(fsize "$(pick "$L"/libnl-route-3.so.200.*)")" >> "$SIZES"
  tot=0 n=0
  for f in "$L"/libibverbs/*-rdmav*.so; do tot=$((tot + $(fsize "$f"))); n=$((n + 1)); done
  echo "providers_all $tot $n" >> "$SIZES"
  echo "providers_rxe_siw $(($(fsize "$(pick "$L"/libibverbs/librxe-*.so)") + $(fsize "$(pick "$L"/libibverbs/libsiw-*.so)")))" >> "$SIZES"
  echo "ibv_devinfo $(fsize "$UROOT/usr/bin/ibv_devinfo")" >> "$SIZES"
  echo "ibv_devices $(fsize "$UROOT/usr/bin/ibv_devices")" >> "$SIZES"
  echo "libc $(fsize "$(pick "$UROOT"/lib/x86_64-linux-gnu/libc.so.6 "$L"/libc.so.6)")" >> "$SIZES"
  echo "ld_so $(fsize "$(pick "$UROOT"/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 "$L"/ld-linux-x86-64.so.2)")" >> "$SIZES"
  echo "root $UROOT" >> "$SIZES"
fi

# ------------------------------------------------------------ 6. the report
export LC_ALL=C
# stats FILE KEY -> "median n p25 p75" of the values of KEY (lines "KEY VALUE"
stats() {
  awk -v k="$2" '$1 == k { print $2 }' "$1" | sort -g |
    awk '{ v[NR] = $1 } END {
      if (NR == 0) { print "- 0 - -"; exit }
      m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
      q1 = v[int((NR - 1) * 0.25) + 1]; q3 = v[int((NR - 1) * 0.75) + 1]
      print m, NR, q1, q3 }'
}
med() { stats "$1" "$2" | cut -d' ' -f1; }
# normalise a VM output: "R impl dev op v" -> "R:impl:dev:op v", etc.
normalise() { # OUT -> KEYS
  awk '$1 == "R" && NF == 5 { print "R:" $2 ":" $3 ":" $4, $5 }
       $1 == "C" && NF == 5 { print "C:" $2 ":" $3 ":" $4, $5 }
       $1 == "Q" && NF == 5 { print "Q:" $2 ":" $3 ":" $4, $5 }
       $1 == "P" && NF == 3 { print "P:" $2, $3 }
       $1 == "M" && NF == 3 { print "M:" $2, $3 }
       $1 == "F" && NF == 2 { print "F", $2 }' "$1"
}
fmt_us() { awk -v v="$1" 'BEGIN { if (v == "-") print "-"; else if (v >= 100000) printf "%.0f", v / 1000; else if (v >= 10000) printf "%.1f", v / 1000; else printf "%.2f", v / 1000 }'; }
fmt_ms() { awk -v v="$1" 'BEGIN { if (v == "-") print "-"; else if (v >= 100000000) printf "%.0f", v / 1e6; else printf "%.1f", v / 1e6 }'; }
fmt_ns() { awk -v v="$1" 'BEGIN { if (v == "-") print "-"; else if (v >= 100) printf "%.0f", v; else printf "%.1f", v }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.3f", a / b }'; }
ratio1() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.1f", a / b }'; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "-" && a <= b) }'; }
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "-" && a >= b) }'; }
verdict() { if "$@"; then echo "**met**"; else echo "**missed**"; fi; }
spread() { # KEYS KEY -> "±x%" half the interquartile range over the median
  stats "$1" "$2" | awk '$1 == "-" || $1 == 0 { print ""; next } { printf "±%.0f%%", ($4 - $3) / 2 / $1 * 100 }'
}

GIT=$(cd "$CRATE" && git rev-parse --short HEAD 2>/dev/null || echo unknown)
DIRTY=$(cd "$CRATE" && [ -n "$(git status --porcelain 2>/dev/null | head -n1)" ] && echo " (with uncommitted changes)" || true)
HOST_CPU=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
QEMU=$(qemu-system-x86_64 --version | head -n1)
RUSTC=$(rustc --version)
RDMA_CORE=$(sed -n 's/^libibverbs1=//p' "${UVERBS_VM_CACHE:-/var/cache/uverbs-vm}/userland/packages" 2>/dev/null || true)
[ -n "$RDMA_CORE" ] || RDMA_CORE=$(dpkg-query -W -f '${Version}' libibverbs1 2>/dev/null || echo unknown)
REPRO="bench/run.sh"
for k in "${KERNELS[@]}"; do REPRO+=" --kernel $k"; done
[ "$QUICK" = 1 ] && REPRO+=" --quick"
[ "$SCALE_PASS" = 0 ] && REPRO+=" --no-scale"

TARGETS=()   # "| target | measured | verdict |" rows
{
echo "# Benchmarks: uverbs against libibverbs"
echo
echo "Generated by \`bench/run.sh\` on $(date -u +%Y-%m-%d) from commit $GIT$DIRTY. Do not edit by hand:"
echo "rerun the script."
echo
echo "**All absolute times are under emulation**: the guest runs under QEMU with TCG (no KVM),"
echo "single vCPU, on a shared 2-core host where other builds run at the same time; every"
echo "system call costs microseconds there. Compare the ratios, which"
echo "are measured side by side in one VM boot: both programs take turns, round after round"
echo "(alternating which goes first), and each number is the median of all batches."
echo
echo "Reproduce: \`$REPRO\` ($(cat "$RES/elapsed" 2>/dev/null || echo "?") here, builds included, with cargo's cache warm; about"
echo "1.5 minutes per kernel plus the builds; \`--quick\` for a smoke run, \`--report-only\` to"
echo "rewrite this file from the raw outputs in \`target/bench/\`)."
echo
echo "## Machine"
echo
echo "| | |"
echo "|---|---|"
echo "| host CPU | $HOST_CPU, $(nproc) cores (shared) |"
echo "| host kernel | $(uname -r) |"
echo "| emulator | $QEMU, TCG, \`-cpu max\`, 1 vCPU |"
for k in "${KERNELS[@]}"; do
  f=$RES/$k-small.out
  [ -e "$f" ] && echo "| guest kernel ($k) | $(awk '$1 == "I" && $2 == "kernel" { print $3; exit }' "$f"), $(awk '$1 == "I" && $2 == "mem_kb" { printf "%d MiB", $3 / 1024; exit }' "$f") RAM |"
done
echo "| devices | rxe (Soft-RoCE) and siw (Soft-iWARP) on dummy netdevs: 1 + 1, and 16 + 16 |"
echo "| libibverbs | rdma-core $RDMA_CORE (Debian bookworm), providers rxe and siw |"
echo "| uverbs | $RUSTC, static musl, release profile (LTO, codegen-units 1, panic abort, stripped) |"
echo

for k in "${KERNELS[@]}"; do
  S=$RES/$k-small.keys; X=$RES/$k-scale.keys
  if [ -e "$RES/$k-small.out" ]; then normalise "$RES/$k-small.out" > "$S"; else : > "$S"; fi
  if [ -e "$RES/$k-scale.out" ]; then normalise "$RES/$k-scale.out" > "$X"; else : > "$X"; fi
  [ -s "$S" ] || { echo "## Linux $k"; echo; echo "No results (the VM run failed: target/bench/$k-small.err)."; echo; continue; }
  DEVS=$(awk '$1 == "I" && $2 == "devices" { print $3; exit }' "$RES/$k-small.out" | tr ',' ' ')
  first=${DEVS%% *}
  NB=$(stats "$S" "R:uverbs:$first:gid_entry" | cut -d' ' -f2)
  NQ=$(stats "$S" "Q:uverbs:$first:query_port" | cut -d' ' -f2)

  echo "## Linux $k: hot queries (1 rxe + 1 siw)"
  echo
  echo "µs per call: median of $NB batches (± half the interquartile range, relative). A query"
  echo "and its floor run as $NQ back-to-back pairs of short batches (order alternating);"
  echo "*/ floor* is the median of the pairs' ratios. The **floor** is the bare ioctl, built"
  echo "once by hand and issued again and again on the same fd with nothing decoded: through"
  echo "\`Context::ioctl\` on uverbs' fd, and \`ioctl(2)\` on libibverbs' \`cmd_fd\`."
  echo
  echo "| operation | device | uverbs µs | libibverbs µs | uverbs / libibverbs | uverbs / floor | libibverbs / floor |"
  echo "|---|---|---:|---:|---:|---:|---:|"
  for d in $DEVS; do
    row() { # LABEL OURS-OP THEIRS-OP [FLOOR-OP]
      local o t ro rt
      o=$(med "$S" "R:uverbs:$d:$2"); t=$(med "$S" "R:libibverbs:$d:$3")
      ro=$(med "$S" "Q:uverbs:$d:$2"); rt=$(med "$S" "Q:libibverbs:$d:$3")
      if [ "$ro" = - ] && [ -n "${4:-}" ]; then ro=$(ratio "$o" "$(med "$S" "R:uverbs:$d:$4")"); fi
      [ "$ro" = - ] || ro=$(awk -v v="$ro" 'BEGIN { printf "%.3f", v }')
      [ "$rt" = - ] || rt=$(awk -v v="$rt" 'BEGIN { printf "%.3f", v }')
      echo "| $1 | $d | $(fmt_us "$o") $(spread "$S" "R:uverbs:$d:$2") | $(fmt_us "$t") $(spread "$S" "R:libibverbs:$d:$3") | $(ratio "$o" "$t") | $ro | $rt |"
    }
    row "floor: bare QUERY_PORT ioctl" floor_qp floor_qp
    row "query_port / ibv_query_port" query_port query_port
    row "floor: bare INVOKE_WRITE (extended QUERY_DEVICE)" floor_qd floor_qd
    row "query_device / ibv_query_device_ex" query_device query_device
    row "query_gid_table / ibv_query_gid_table (floor: QUERY_GID_TABLE into a buffer allocated once)" gid_table gid_table floor_gid_table
    row "query_gid (one entry) / ibv_query_gid_ex" gid_entry gid_entry
    row "query_gid of every index of port 1 (\`ibv_devinfo -v\`'s GID loop)" gid_scan gid_scan
    row "PortCache::query_port / ibv_query_port (fresh)" cached_qp query_port
    row "PortCache::peek / ibv_query_port (fresh)" cache_peek query_port
    row "open + GET_CONTEXT + close / ibv_open_device + ibv_close_device" open_close open_close
    row "Discovery::devices / ibv_get_device_list + free (warm)" disc disc
    row "Discovery + open + query_port / list + open + query + close + free (warm)" disc_open_query disc_open_query
    row "netlink-only discovery + open + query_port (uverbs' lean path) / the same libibverbs row" lean_open_query disc_open_query
  done
  echo
  echo "Where uverbs' time goes, user space only (under the same emulation; ns per call):"
  echo
  echo "| part | device | ns |"
  echo "|---|---|---:|"
  for d in $DEVS; do
    echo "| building the QUERY_PORT request (\`method::query_port\`) | $d | $(fmt_ns "$(med "$S" "R:uverbs:$d:build_qp")") |"
    echo "| decoding a QUERY_PORT answer (\`PortAttr::from_resp\`) | $d | $(fmt_ns "$(med "$S" "R:uverbs:$d:decode_port")") |"
    echo "| decoding a QUERY_DEVICE answer (\`DeviceAttr::from_ex_bytes\`) | $d | $(fmt_ns "$(med "$S" "R:uverbs:$d:decode_device")") |"
    echo "| formatting the firmware version (\`driver::format_fw_ver\`, per \`query_device\`) | $d | $(fmt_ns "$(med "$S" "R:uverbs:$d:fw_format")") |"
    echo "| allocating + zeroing \`query_gid_table\`'s raw buffer (gid_tbl_len entries) | $d | $(fmt_ns "$(med "$S" "R:uverbs:$d:gid_buf_alloc")") |"
  done
  echo

  cold_table() { # KEYS DEV
    local K=$1 d=$2 o t n
    n=$(stats "$K" "C:uverbs:$d:disc_open_query_cold" | cut -d' ' -f2)
    echo "The first discovery + open + answer of a process, from \`main\` ($d; median of $n processes;"
    echo "libibverbs loads its providers in \`ibv_get_device_list\`; the dynamic loading of"
    echo "libibverbs and libnl before \`main\` is not counted here, see the whole-process table):"
    echo
    echo "| first of a process | uverbs ms | libibverbs ms | uverbs / libibverbs |"
    echo "|---|---:|---:|---:|"
    o=$(med "$K" "C:uverbs:$d:disc_cold"); t=$(med "$K" "C:libibverbs:$d:disc_cold")
    echo "| discovery (\`Discovery::devices\` / \`ibv_get_device_list\`) | $(fmt_ms "$o") | $(fmt_ms "$t") | $(ratio "$o" "$t") |"
    o=$(med "$K" "C:uverbs:$d:disc_open_query_cold"); t=$(med "$K" "C:libibverbs:$d:disc_open_query_cold")
    echo "| discovery + open + query_port | $(fmt_ms "$o") | $(fmt_ms "$t") | **$(ratio "$o" "$t")** |"
    COLD_RATIO=$(ratio "$o" "$t")
    o=$(med "$K" "C:uverbs:$d:lean_open_query_cold")
    echo "| netlink-only discovery + open + query_port (lean path) / libibverbs' full | $(fmt_ms "$o") | $(fmt_ms "$t") | $(ratio "$o" "$t") |"
    LEAN_RATIO=$(ratio "$o" "$t")
    echo
  }
  cold_table "$S" "$first"

  # targets from the small pass
  for d in $DEVS; do
    r=$(med "$S" "Q:uverbs:$d:query_port"); r=$(awk -v v="$r" 'BEGIN { if (v == "-") print "-"; else printf "%.3f", v }')
    TARGETS+=("| $k | fresh query_port ≤ 1.03× the bare QUERY_PORT ioctl ($d) | $r× | $(verdict le "$r" 1.03) |")
    r=$(med "$S" "Q:uverbs:$d:query_device"); r=$(awk -v v="$r" 'BEGIN { if (v == "-") print "-"; else printf "%.3f", v }')
    TARGETS+=("| $k | query_device ≤ 1.03× the bare INVOKE_WRITE ($d) | $r× | $(verdict le "$r" 1.03) |")
    cq=$(med "$S" "R:uverbs:$d:cached_qp"); lq=$(med "$S" "R:libibverbs:$d:query_port")
    r=$(ratio1 "$lq" "$cq")
    TARGETS+=("| $k | cached query_port ≥ 100× faster than ibv_query_port ($d) | $r× faster | $(verdict ge "$r" 100) |")
    r=$(med "$S" "Q:libibverbs:$d:query_port"); r=$(awk -v v="$r" 'BEGIN { if (v == "-") print "-"; else printf "%.3f", v }')
    TARGETS+=("| $k | (reference, not a target) ibv_query_port / bare ioctl on its fd; 1.07-1.10× expected ($d) | $r× | - |")
  done
  TARGETS+=("| $k | discovery + open + first answer ≤ 0.2× libibverbs' (first of a process, 2 devices) | $COLD_RATIO× (lean path: $LEAN_RATIO×) | $(verdict le "$COLD_RATIO" 0.2) |")

  if [ -s "$X" ]; then
    xf=$(awk '$1 == "I" && $2 == "devices" { print $3; exit }' "$RES/$k-scale.out" | cut -d, -f1)
    nd=$(awk '$1 == "I" && $2 == "ndevices" { print $3; exit }' "$RES/$k-scale.out")
    echo "## Linux $k: discovery with $nd devices ($SCALE_RXE rxe + $SCALE_SIW siw)"
    echo
    echo "| operation ($xf; in-process, warm) | uverbs ms | libibverbs ms | uverbs / libibverbs |"
    echo "|---|---:|---:|---:|"
    for op in disc disc_open_query lean_open_query open_close gid_scan; do
      o=$(med "$X" "R:uverbs:$xf:$op")
      case $op in
        disc) l="Discovery::devices / ibv_get_device_list + free"; t=$(med "$X" "R:libibverbs:$xf:disc") ;;
        disc_open_query) l="Discovery + open + query_port / list + open + query"; t=$(med "$X" "R:libibverbs:$xf:disc_open_query") ;;
        lean_open_query) l="lean path (netlink only) + open + query_port / libibverbs' list + open + query"; t=$(med "$X" "R:libibverbs:$xf:disc_open_query") ;;
        open_close) l="open + GET_CONTEXT + close"; t=$(med "$X" "R:libibverbs:$xf:open_close") ;;
        gid_scan) l="query_gid of every index of port 1 / ibv_query_gid_ex loop (1 device)"; t=$(med "$X" "R:libibverbs:$xf:gid_scan") ;;
      esac
      echo "| $l | $(fmt_ms "$o") | $(fmt_ms "$t") | $(ratio "$o" "$t") |"
    done
    echo
    cold_table "$X" "$xf"
    TARGETS+=("| $k | discovery + open + first answer ≤ 0.2× libibverbs' (first of a process, $nd devices) | $COLD_RATIO× (lean path: $LEAN_RATIO×) | $(verdict le "$COLD_RATIO" 0.2) |")
  fi

  echo "## Linux $k: whole process"
  echo
  echo "Wall time from spawn to exit (median of $RUNS runs, the commands taking turns; output to"
  echo "/dev/null), and peak RSS: \`ru_maxrss\` of \`wait4\` through bench/rusage.c (static musl, so"
  echo "the pre-exec image the kernel also counts is small), checked against a child's own VmHWM"
  echo "(factor $(awk '$1 == "F" { print $2; exit }' "$S"), 1 = exact); median of 3 runs. examples/bench_proc.rs."
  echo
  echo "| command | devices | uverbs ms | libibverbs ms | uverbs / libibverbs | uverbs peak RSS KiB | libibverbs peak RSS KiB |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  for pass in small scale; do
    K=$RES/$k-$pass.keys
    [ -s "$K" ] || continue
    nd=$(awk '$1 == "I" && $2 == "ndevices" { print $3; exit }' "$RES/$k-$pass.out")
    for pair in "devinfo -v:uverbs_devinfo_v:ibv_devinfo_v" "devinfo:uverbs_devinfo:ibv_devinfo" "devices:uverbs_devices:ibv_devices"; do
      IFS=: read -r cmd ol tl <<<"$pair"
      o=$(med "$K" "P:$ol"); t=$(med "$K" "P:$tl")
      mo=$(med "$K" "M:$ol"); mt=$(med "$K" "M:$tl")
      if [ "$o" = - ]; then o_s=pending; else o_s=$(fmt_ms "$o"); fi
      echo "| \`uverbs $cmd\` / \`ibv_$cmd\` | $nd | $o_s | $(fmt_ms "$t") | $(ratio "$o" "$t") | $mo | $mt |"
      if [ "$pass" = scale ] && [ "$cmd" = "devinfo -v" ]; then
        r=$(ratio "$o" "$t")
        if [ "$o" = - ]; then v=pending; else v=$(verdict le "$r" 0.25); fi
        TARGETS+=("| $k | \`uverbs devinfo -v\` ≤ 0.25× \`ibv_devinfo -v\` ($nd devices) | $r× | $v |")
      fi
    done
    o=$(med "$K" "P:spawn_floor"); mo=$(med "$K" "M:spawn_floor")
    echo "| spawn floor: a static Rust program that exits at once | $nd | $(fmt_ms "$o") | | | $mo | |"
  done
  lines=$(awk '$1 == "I" && $2 == "lines" { print "`ibv_devinfo -v` prints " $4 " lines, `uverbs devinfo -v` " $6; exit }' "$RES/$k-small.out")
  [ -n "$lines" ] && { echo; echo "Same work (2 devices): $lines."; }
  echo

  echo "## Linux $k: allocations on the hot paths"
  echo
  if grep -q '^A ' "$RES/$k-small.out"; then
    echo "tests/alloc.rs (a counting global allocator; 1000 calls each after warm-up, on every device):"
    echo
    echo '```'
    grep '^A ' "$RES/$k-small.out" | sed 's/^A //' | grep -E 'allocations|test result|panicked|FAILED|pending' || true
    echo '```'
    if grep -q '^A test result: ok. [1-9]' "$RES/$k-small.out" && grep -q '^A test hot_queries_do_not_allocate ... ok' "$RES/$k-small.out"; then
      TARGETS+=("| $k | zero heap allocations per query_port, query_device, GID entry after warm-up | 0 | **met** |")
    else
      TARGETS+=("| $k | zero heap allocations per query_port, query_device, GID entry after warm-up | see above | **missed** |")
    fi
  else
    echo "Not run."
  fi
  echo

  if grep -q '^crit: .*time:' "$RES/$k-small.out"; then
    echo "## Linux $k: criterion device bench (benches/device.rs)"
    echo
    echo "| bench | time [low estimate high] |"
    echo "|---|---|"
    sed 's/\x1b\[[0-9;]*[A-Za-z]//g' "$RES/$k-small.out" |
      awk '/^crit: [a-z0-9]+\/[^ ]/ { n = $0; sub(/^crit: /, "", n); sub(/ +time:.*/, "", n) }
           /^crit: .*time:/ { t = $0; sub(/.*time: +/, "", t); print "| " n " | " t " |" }'
    echo
  fi
done

echo "## Without a device: building requests and decoding answers (host, native)"
echo
if [ -s "$DECODE" ]; then
  echo "benches/decode.rs (criterion, median estimate): what the crate adds around each system call."
  echo
  echo "| bench | time |"
  echo "|---|---:|"
  while IFS=$'\t' read -r n t; do echo "| $n | $t |"; done < "$DECODE"
else
  echo "Not run."
fi
echo

echo "## Size"
echo
if [ -s "$SIZES" ]; then
  sz() { awk -v k="$1" '$1 == k { print $2; exit }' "$SIZES"; }
  kib() { awk -v v="$1" 'BEGIN { if (v == "") print "-"; else printf "%.0f", v / 1024 }'; }
  u=$(sz uverbs); ib=$(sz libibverbs); n3=$(sz libnl-3); nr=$(sz libnl-route-3)
  pa=$(sz providers_all); pn=$(awk '$1 == "providers_all" { print $3 }' "$SIZES"); prs=$(sz providers_rxe_siw)
  dv=$(sz ibv_devinfo); lc=$(sz libc); ld=$(sz ld_so)
  stack=$((ib + n3 + nr + pa + dv)); stack_small=$((ib + n3 + nr + prs + dv)); withc=$((stack + lc + ld))
  echo "Files as Debian ships them (stripped), rdma-core $RDMA_CORE."
  echo
  echo "| what | KiB |"
  echo "|---|---:|"
  if [ -n "$u" ]; then
    echo "| **uverbs** (static musl, stripped; CLI with devinfo and devices) | **$(kib "$u")** |"
  else
    echo "| **uverbs** | pending (does not build yet) |"
  fi
  echo "| libibverbs.so.1 | $(kib "$ib") |"
  echo "| libnl-3.so.200 + libnl-route-3.so.200 | $(kib $((n3 + nr))) |"
  echo "| providers: all $pn of ibverbs-providers / rxe + siw only | $(kib "$pa") / $(kib "$prs") |"
  echo "| ibv_devinfo | $(kib "$dv") |"
  echo "| rdma-core stack (libibverbs + libnl + all providers + ibv_devinfo) | $(kib "$stack") |"
  echo "| the same with only the rxe and siw providers | $(kib "$stack_small") |"
  echo "| the stack + glibc (libc.so.6 + ld-linux), which uverbs' static file includes the musl equivalent of | $(kib "$withc") |"
  echo
  if [ -n "$u" ]; then
    echo "uverbs / rdma-core stack: $(ratio "$u" "$stack") (with glibc: $(ratio "$u" "$withc"))."
    r=$(awk -v v="$u" 'BEGIN { printf "%.2f MiB", v / 1048576 }')
    TARGETS+=("| - | stripped static binary ≤ 1 MiB | $r | $(verdict le "$u" 1048576) |")
  fi
else
  echo "Not measured (no rdma-core user space found)."
fi
echo

echo "## Targets"
echo
echo "| kernel | target | measured | |"
echo "|---|---|---:|---|"
for t in "${TARGETS[@]}"; do echo "$t"; done
echo
if [ -s "$RES/pending.txt" ]; then
  echo "Pending or failed parts of this run:"
  echo
  sed 's/^/- /' "$RES/pending.txt"
  echo
fi
# ------------------------------------------------------------ analysis
# Where the time goes, with this run's numbers (first kernel; rxe0 is the device
# with the large GID table, so the numbers are taken from it).
k0=${KERNELS[0]}
S=$RES/$k0-small.keys; X=$RES/$k0-scale.keys
if [ -s "$S" ]; then
  d=rxe0
  v() { med "$1" "$2"; }
  q3() { awk -v v="$1" 'BEGIN { if (v == "-") print "-"; else printf "%.3f", v }'; }
  pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.0f%%", a / b * 100 }'; }
  nat() { awk -F'\t' -v n="$1" '$1 == n { print $2; exit }' "$DECODE" 2>/dev/null; }
  fq=$(v "$S" "R:uverbs:$d:floor_qp"); qp=$(v "$S" "R:uverbs:$d:query_port")
  bq=$(v "$S" "R:uverbs:$d:build_qp"); dp=$(v "$S" "R:uverbs:$d:decode_port")
  rq=$(q3 "$(v "$S" "Q:uverbs:$d:query_port")"); rlq=$(q3 "$(v "$S" "Q:libibverbs:$d:query_port")")
  iq=$(stats "$S" "Q:uverbs:$d:query_port" | awk '{ printf "%.2f-%.2f", $3, $4 }')
  fd=$(v "$S" "R:uverbs:$d:floor_qd"); qd=$(v "$S" "R:uverbs:$d:query_device")
  dd=$(v "$S" "R:uverbs:$d:decode_device"); ff=$(v "$S" "R:uverbs:$d:fw_format")
  rd=$(q3 "$(v "$S" "Q:uverbs:$d:query_device")"); rld=$(q3 "$(v "$S" "Q:libibverbs:$d:query_device")")
  cq=$(v "$S" "R:uverbs:$d:cached_qp"); pk=$(v "$S" "R:uverbs:$d:cache_peek"); lq=$(v "$S" "R:libibverbs:$d:query_port")
  gt=$(v "$S" "R:uverbs:$d:gid_table"); fg=$(v "$S" "R:uverbs:$d:floor_gid_table"); lg=$(v "$S" "R:libibverbs:$d:gid_table")
  echo "## Where the time goes, and what would close the gaps"
  echo
  echo "Numbers from this run (Linux $k0, $d unless said otherwise; all under TCG)."
  echo
  echo "**Fresh query_port** ($rq× the floor; libibverbs $rlq× on its own fd). uverbs adds, in user"
  echo "space, building the request ($(fmt_ns "$bq") ns) and decoding the answer ($(fmt_ns "$dp") ns): $(pct "$(awk -v a="$bq" -v b="$dp" 'BEGIN { print a + b }')" "$fq") of"
  echo "the $(fmt_us "$fq") µs ioctl (natively, benches/decode.rs: $(nat 'build/query_port IoctlBuf') + $(nat 'decode/PortAttr::from_resp'))."
  echo "Everything else is the kernel's QUERY_PORT, identical for both. Single pairs spread over"
  echo "$iq (interquartile; the host is shared); the verdict uses the median of all"
  echo "$(stats "$S" "Q:uverbs:$d:query_port" | cut -d' ' -f2) pairs. Nothing to close in the crate."
  echo
  echo "**query_device** ($rd× the floor; libibverbs' ibv_query_device_ex is further from its own, $rld×)."
  echo "Over the bare INVOKE_WRITE ($(fmt_us "$fd") µs), \`Context::query_device\` spends, per call: the"
  echo "decode of the 304-byte answer into \`DeviceAttr\` ($(fmt_ns "$dd") ns here), the firmware version"
  echo "formatted again through \`core::fmt\` (\`driver::format_fw_ver\`, $(fmt_ns "$ff") ns for rxe and siw), and"
  echo "copies (\`device_attr_ex\` copies the response to zero its tail; the ~0.5 KiB result is"
  echo "returned by value): $(fmt_ns "$dd") + $(fmt_ns "$ff") ns of the $(fmt_ns "$(awk -v a="$qd" -v b="$fd" 'BEGIN { print a - b }')") ns gap, the copies the rest. Natively the decode is"
  echo "$(nat 'decode/DeviceAttr::from_ex_bytes') (benches/decode.rs), so on hardware the ratio is much closer to 1, but how close"
  echo "only a real machine can say. To close: format the firmware version once at open (it"
  echo "cannot change under an open context), decode straight from the response without the"
  echo "copy, and offer a \`query_device_into(&mut DeviceAttr)\`."
  echo
  echo "**Cached query_port**: \`PortCache::query_port\` costs $(fmt_us "$cq") µs, $(ratio1 "$lq" "$cq")× less than"
  echo "ibv_query_port ($(fmt_us "$lq") µs), not 100×: every call first drains the event file with a"
  echo "non-blocking \`read(2)\` (EAGAIN when nothing is queued), and a system call is a"
  echo "microsecond here. The memory lookup alone, \`PortCache::peek\`, is $(fmt_ns "$pk") ns: $(ratio1 "$lq" "$pk")× less."
  echo "To close while keeping the staleness guarantee: skip the read when the event fd is"
  echo "known idle, e.g. an event thread that blocks in \`read\` and bumps an atomic generation"
  echo "(the query becomes a load and a copy), or let callers poll the fd in their own loop"
  echo "and call \`process_events\` + \`peek\` (documented pattern)."
  echo
  echo "**query_gid_table** on rxe (gid_tbl_len 1024): $(fmt_us "$gt") µs against libibverbs' $(fmt_us "$lg") µs;"
  ga=$(v "$S" "R:uverbs:$d:gid_buf_alloc")
  echo "the same ioctl into a buffer allocated once takes $(fmt_us "$fg") µs. The difference is"
  echo "\`Context::query_gid_table\` allocating and zeroing a \`max_entries\` buffer (32 KiB for"
  echo "rxe) per call, $(fmt_us "$ga") µs by itself here: musl's allocator maps a fresh 36 KiB region"
  echo "for it and unmaps it on free (seen with strace), so every call pays mmap, munmap and"
  echo "nine page faults; then it collects a second \`Vec\`. To close: a variant"
  echo "that fills a caller's buffer (\`query_gid_table_into\`), or a buffer kept in the"
  echo "\`Context\`. Not a zero-allocation path by design, but the cost is the allocator's."
  echo
  do_=$(v "$S" "R:uverbs:$d:disc"); dl=$(v "$S" "R:libibverbs:$d:disc")
  lo=$(v "$S" "R:uverbs:$d:lean_open_query"); ld=$(v "$S" "R:libibverbs:$d:disc_open_query")
  co=$(v "$S" "C:uverbs:$d:disc_open_query_cold"); ct=$(v "$S" "C:libibverbs:$d:disc_open_query_cold")
  cl=$(v "$S" "C:uverbs:$d:lean_open_query_cold")
  echo "**Discovery + open + first answer** (first of a process: $(fmt_ms "$co") ms against $(fmt_ms "$ct") ms, $(ratio "$co" "$ct")×)."
  echo "\`Discovery::devices\` gets everything needed to open a device from netlink (the nldev"
  echo "dump and GET_CHARDEV: name, index, node type, GUIDs, firmware, ports, the uverbs node"
  echo "and the driver id), then reads ~11 sysfs files per device for attributes only sysfs"
  echo "has (\`node_desc\`, \`hca_type\`, \`hw_rev\`, \`board_id\`, \`parent\`, the driver link, the"
  echo "ports directory), each an open/read/close of kernfs: warm, $(fmt_us "$do_") µs for 2 devices"
  echo "against libibverbs' $(fmt_us "$dl") µs (it rescans on every call too, but keeps the devices it"
  echo "already matched to a provider and loads providers once)."
  echo "\`Context::open\` itself is faster than \`ibv_open_device\` (see the table), and the"
  echo "netlink-only path (examples/bench_loops.rs \`lean_open\`: the dump, one GET_CHARDEV, open,"
  echo "query) costs $(fmt_us "$lo") µs warm and $(fmt_ms "$cl") ms as the first of a process, $(ratio "$cl" "$ct")× libibverbs."
  if [ -s "$X" ]; then
    xo=$(v "$X" "C:uverbs:$d:disc_open_query_cold"); xt=$(v "$X" "C:libibverbs:$d:disc_open_query_cold")
    xl=$(v "$X" "C:uverbs:$d:lean_open_query_cold"); xd=$(v "$X" "R:uverbs:$d:disc"); xld=$(v "$X" "R:libibverbs:$d:disc")
    echo "With 32 devices the sysfs reads grow to $(fmt_ms "$xd") ms per \`Discovery::devices\` (libibverbs"
    echo "$(fmt_ms "$xld") ms), and the first open of a process takes $(fmt_ms "$xo") ms against $(fmt_ms "$xt") ms; the lean path"
    echo "stays at $(fmt_ms "$xl") ms ($(ratio "$xl" "$xt")×)."
  fi
  echo "To close: read the sysfs-only attributes lazily (on first access, or only when asked,"
  echo "e.g. a \`Discovery\` option), and let \`Discovery::device(name)\` / \`Context::open_by_name\`"
  echo "ask GET_CHARDEV for that one device only. That brings the first answer to the lean"
  echo "path's figure; the rest of its first-call cost is the emulator translating code the"
  echo "first time it runs (its cold/warm gap), which libibverbs pays too, plus its \`dlopen\`"
  echo "of the providers (2 here; a stock install has 17). Whether 0.2× holds on real hardware"
  echo "is not measurable here; under TCG the lean path reaches $(ratio "$cl" "$ct")× (2 devices)."
  echo
  if [ -s "$X" ]; then
    po=$(v "$X" "P:uverbs_devinfo_v"); pt=$(v "$X" "P:ibv_devinfo_v"); sf=$(v "$X" "P:spawn_floor")
    pn=$(v "$X" "P:uverbs_devinfo"); pnt=$(v "$X" "P:ibv_devinfo")
    gs=$(v "$X" "R:uverbs:$d:gid_scan"); gsl=$(v "$X" "R:libibverbs:$d:gid_scan")
    nrxe=$SCALE_RXE
    echo "**Whole process, \`devinfo -v\` with 32 devices** ($(fmt_ms "$po") ms against $(fmt_ms "$pt") ms, $(ratio "$po" "$pt")×)."
    echo "\`ibv_devinfo -v\` and \`uverbs devinfo -v\` both print every GID by querying each index of"
    echo "the table (\`ibv_query_gid_ex\` / \`query_gid\`, one ioctl each): rxe has 1024 per port, so"
    echo "$nrxe rxe devices cost $nrxe × $(fmt_ms "$gs") ms (uverbs) / $(fmt_ms "$gsl") ms (libibverbs) of identical kernel work,"
    echo "~$(fmt_ms "$(awk -v a="$gs" -v n="$nrxe" 'BEGIN { print a * n }')") ms of each run. Add the spawn of a static Rust program ($(fmt_ms "$sf") ms"
    echo "here) and uverbs' slow discovery (above): 0.25× of libibverbs' $(fmt_ms "$pt") ms is $(fmt_ms "$(awk -v a="$pt" 'BEGIN { print a / 4 }')") ms,"
    echo "less than the shared GID work plus one spawn, so the target cannot be met while both"
    echo "print GIDs this way. Without"
    echo "\`-v\` (no GID loop) it is $(ratio "$pn" "$pnt")× ($(fmt_ms "$pn") against $(fmt_ms "$pnt") ms). To close: in \`-v\` text mode, fetch"
    echo "the GIDs with one QUERY_GID_TABLE per device (as \`--json\` does already; same entries,"
    echo "same order) instead of 1024 QUERY_GID_ENTRY calls, and use the lean discovery."
    mo=$(v "$X" "M:uverbs_devinfo_v"); mt=$(v "$X" "M:ibv_devinfo_v")
    echo "Peak RSS: $mo KiB against $mt KiB ($(ratio "$mo" "$mt")×): no ld.so, libibverbs, libnl or providers mapped."
    echo
  fi
fi
} > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
say "wrote $OUT in $(secs_since "$T_ALL") total"
exit "$FAILED"
