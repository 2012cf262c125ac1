#!/usr/bin/env bash
# bench/exporter.sh - `uverbs exporter` against node_exporter's infiniband collector,
# side by side (issue 15): on node_exporter's own test data on the host, and in the VM
# rig with 2 and 32 devices.
#
# Usage: bench/exporter.sh [--kernel SERIES]... [--runs N] [--no-scale] [--out FILE]
#                          [--into FILE] [--report-only]
#
#   --kernel SERIES  a kernel series of tests/vm/versions (6.1, 6.12); repeatable
#                    (default: 6.1)
#   --runs N         scrapes of each exporter per boot (default 50; 6x that on the host)
#   --no-scale       skip the 16 rxe + 16 siw boot
#   --no-vm          the host part only
#   --out FILE       the report section (default target/bench/exporter/exporter.md)
#   --into FILE      also put the section into FILE (BENCHMARKS.md): between the lines
#                    "<!-- bench/exporter.sh -->" and "<!-- end bench/exporter.sh -->"
#                    when FILE has them (replacing the previous section), else at the end
#   --report-only    write the section again from the raw outputs of the last run
#
# What it does:
#  1. builds the CLI and bench/bench_scrape.rs for the host (release), and, for the VM,
#     the static CLI, bench_scrape and bench_proc (release, musl) with bench/rusage.c
#     and a static `true` (musl-gcc);
#  2. host: node_exporter's test data (tests/fixtures/node_exporter-infiniband/sys, an
#     mlx4 with two IB ports and an i40iw), where both export the same facts:
#     `uverbs exporter --sysfs TREE` and Debian's node_exporter 1.5 (unpacked by
#     scripts/setup.sh) with `--path.sysfs=TREE --collector.disable-defaults
#     --collector.infiniband --web.disable-exporter-metrics` (its infiniband collector
#     alone, without its own go_/process_ metrics) run at once, with each one's floor
#     beside them (the same server with nothing to export); bench_scrape scrapes them in
#     turns (a new connection per scrape, as Prometheus does), then reads the two
#     exporters' VmRSS and VmHWM;
#  3. per kernel, boots the rig with 1 rxe + 1 siw, then 16 rxe + 16 siw: the same two
#     exporters on the guest's /sys and /dev/infiniband (node_exporter finds no
#     infiniband statistics there: rxe and siw have no counters/ directory), scraped in
#     turns; then whole processes (bench/bench_proc.rs, peak RSS through
#     bench/rusage.c): one `uverbs exporter --textfile`, `uverbs check -d rxe0` against
#     `uverbs devinfo -d rxe0` (issue 15: a check costs no more than a devinfo of the
#     devices it names), and a static `true` (the floor).
#
# bench/run.sh keeps this script's section in BENCHMARKS.md (it writes nothing else).
# Raw outputs: target/bench/exporter/. Exit status: 0 when every part ran, else 1.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CRATE=$(cd "$HERE/.." && pwd)
TARGET=x86_64-unknown-linux-musl
RIG=${UVERBS_BENCH_RIG:-$CRATE/tests/vm/rig.sh}
RES=$CRATE/target/bench/exporter
OUT=$RES/exporter.md
INTO='' RUNS=50 SCALE=1 VM=1 REPORT_ONLY=0 KERNELS=()
# this script's own options (the others are every benchmark's: lib.sh's bench_opts)
script_opt() {
  case $1 in
    --no-scale) SCALE=0; return 1 ;;
    --no-vm) VM=0; return 1 ;;
    *) return 0 ;;
  esac
}
say() { echo "bench/exporter: $*" >&2; }
. "$HERE/lib.sh"
bench_opts exporter.sh "$@"
[ ${#KERNELS[@]} -gt 0 ] || KERNELS=(6.1)
T_ALL=$(now_us)
FAILED=0
FIX=$CRATE/tests/fixtures/node_exporter-infiniband/sys
NE=${UVERBS_NODE_EXPORTER:-${UVERBS_PEERS_CACHE:-/var/cache/uverbs-peers}/prometheus-node-exporter/usr/bin/prometheus-node-exporter}

if [ "$REPORT_ONLY" = 1 ]; then
  [ -e "$RES/run.conf" ] || { echo "exporter.sh: no previous run in $RES" >&2; exit 2; }
  . "$RES/run.conf"
else
rm -rf "$RES"; mkdir -p "$RES/stage"
{ echo "KERNELS=(${KERNELS[*]}) RUNS=$RUNS SCALE=$SCALE VM=$VM"
  echo "COMMIT='$(git -C "$CRATE" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$CRATE" diff --quiet 2>/dev/null || echo ' (with uncommitted changes)')'"
} > "$RES/run.conf"
STAGE=$RES/stage

# ------------------------------------------------------------ builds
[ -x "$NE" ] || bash "$CRATE/scripts/setup.sh" >&2
[ -x "$NE" ] || { say "no node_exporter at $NE (scripts/setup.sh unpacks it)"; exit 1; }
T=$(now_us)
(cd "$CRATE" && cargo build -q --release --bin uverbs --example bench_scrape) \
  > "$RES/build-host.log" 2>&1 || { tail -n 20 "$RES/build-host.log" >&2; say "host build failed"; exit 1; }
if [ "$VM" = 1 ]; then
  musl_target
  (cd "$CRATE" && cargo build -q --release --target "$TARGET" --bin uverbs \
      --example bench_scrape --example bench_proc) > "$RES/build-vm.log" 2>&1 ||
    { tail -n 20 "$RES/build-vm.log" >&2; say "VM build failed"; exit 1; }
  for f in bin:uverbs examples/bench_scrape examples/bench_proc; do
    cp "$CRATE/target/$TARGET/release/${f#bin:}" "$STAGE/${f##*/}"
  done
  cp "$CRATE/target/$TARGET/release/uverbs" "$STAGE/uverbs"
  musl-gcc -static -O2 -o "$STAGE/rusage" "$HERE/rusage.c"
  printf 'int main(void) { return 0; }\n' > "$RES/true.c"
  musl-gcc -static -O2 -o "$STAGE/true" "$RES/true.c"
fi
say "built in $(secs_since "$T")"

# ------------------------------------------------------------ host: the test data
UV=$CRATE/target/release/uverbs SCRAPE=$CRATE/target/release/examples/bench_scrape
# The floor of each: the same server with nothing to export (uverbs with a -d that
# names no device: it lists the devices and reads none; node_exporter on a sysfs tree
# without class/infiniband).
EMPTY=$RES/empty-sys; mkdir -p "$EMPTY/class"
base=$((20000 + $$ % 20000))
"$UV" exporter --sysfs "$FIX" --listen "127.0.0.1:$base" 2> "$RES/host-uverbs.err" & upid=$!
"$NE" --path.sysfs="$FIX" --collector.disable-defaults --collector.infiniband \
  --web.disable-exporter-metrics --web.listen-address="127.0.0.1:$((base + 1))" 2> "$RES/host-ne.err" & npid=$!
"$UV" exporter --sysfs "$FIX" -d none --listen "127.0.0.1:$((base + 2))" 2>/dev/null & uepid=$!
"$NE" --path.sysfs="$EMPTY" --collector.disable-defaults --collector.infiniband \
  --web.disable-exporter-metrics --web.listen-address="127.0.0.1:$((base + 3))" 2>/dev/null & nepid=$!
for _ in $(seq 100); do
  "$SCRAPE" --runs 0 a="127.0.0.1:$base" b="127.0.0.1:$((base + 1))" c="127.0.0.1:$((base + 2))" \
    d="127.0.0.1:$((base + 3))" 2>/dev/null | grep -c '^B' | grep -qx 4 && break
  sleep 0.1
done
"$SCRAPE" --runs $((RUNS * 6)) "uverbs=127.0.0.1:$base@$upid" "node_exporter=127.0.0.1:$((base + 1))@$npid" \
  "uverbs_empty=127.0.0.1:$((base + 2))" "node_exporter_empty=127.0.0.1:$((base + 3))" \
  > "$RES/host.txt" || FAILED=1
# System calls per scrape: each exporter traced (strace -c -f) over 20 scrapes of its
# own, after the timed rounds (tracing slows it: no time is taken from these).
if command -v strace >/dev/null; then
  for x in "uverbs $upid $base" "node_exporter $npid $((base + 1))"; do
    set -- $x
    strace -c -f -p "$2" -o "$RES/strace-$1.txt" 2>/dev/null & spid=$!
    sleep 1
    "$SCRAPE" --runs 20 "$1=127.0.0.1:$3" > /dev/null || true
    sleep 0.3; kill -INT "$spid" 2>/dev/null || true; wait "$spid" 2>/dev/null || true
    # strace -c: the calls are column 4; the total, and the file calls (openat, read,
    # pread64, close, getdents64, fstat); 21 scrapes (bench_scrape's untimed first one, then 20)
    tot=$(awk '$NF == "total" { print $4 }' "$RES/strace-$1.txt")
    files=$(awk '$NF ~ /^(openat|read|pread64|close|getdents64|fstat|newfstatat)$/ { n += $4 } END { print n + 0 }' "$RES/strace-$1.txt")
    echo "S $1 ${tot:-0} $files 21" >> "$RES/host.txt"
  done
fi
kill "$upid" "$npid" "$uepid" "$nepid" 2>/dev/null || true
wait "$upid" "$npid" "$uepid" "$nepid" 2>/dev/null || true
{ echo "I host $(uname -r) $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "I ne_version $("$NE" --version 2>&1 | head -n1)"; } >> "$RES/host.txt"
grep -q '^E ' "$RES/host.txt" && { say "host: $(grep '^E ' "$RES/host.txt" | head -n 3)"; FAILED=1; }
say "host done"

# ------------------------------------------------------------ the VMs
if [ "$VM" = 1 ]; then
cat > "$STAGE/guest.sh" <<'EOF'
#!/bin/sh
# In the guest (dash, root): the two exporters side by side, then whole processes.
RUNS=$1 B=/bench
echo "I kernel $(uname -r)"
echo "I devices $(ls /sys/class/infiniband | wc -l)"
$B/uverbs exporter --listen 127.0.0.1:9550 2> /tmp/uv.err & UP=$!
/usr/bin/prometheus-node-exporter --collector.disable-defaults --collector.infiniband \
  --web.disable-exporter-metrics --web.listen-address=127.0.0.1:9551 2> /tmp/ne.err & NP=$!
i=0
while [ $i -lt 300 ]; do
  [ "$($B/bench_scrape --runs 0 a=127.0.0.1:9550 b=127.0.0.1:9551 2>/dev/null | grep -c '^B')" = 2 ] && break
  sleep 0.2; i=$((i + 1))
done
$B/bench_scrape --runs "$RUNS" "uverbs=127.0.0.1:9550@$UP" "node_exporter=127.0.0.1:9551@$NP"
busybox wget -q -O /tmp/ne.prom http://127.0.0.1:9551/metrics
echo "I ne_infiniband_samples $(grep -c '^node_infiniband_' /tmp/ne.prom)"
echo "I ne_success $(grep '^node_scrape_collector_success{collector="infiniband"}' /tmp/ne.prom | cut -d' ' -f2)"
kill $UP $NP; wait $UP $NP 2>/dev/null
$B/bench_proc --runs 11 --rss-runs 3 --rss-helper $B/rusage \
  "textfile=$B/uverbs exporter --textfile /tmp/uv.prom" \
  "check=$B/uverbs check -d rxe0" "devinfo=$B/uverbs devinfo -d rxe0" "true=$B/true"
echo "I textfile_samples $(grep -vc '^#' /tmp/uv.prom)"
EOF
boots=("1 1"); [ "$SCALE" = 1 ] && boots+=("16 16")
for k in "${KERNELS[@]}"; do
  for b in "${boots[@]}"; do
    set -- $b
    n=$(($1 + $2)) T=$(now_us)
    say "kernel $k: $1 rxe + $2 siw, $RUNS scrapes"
    if bash "$RIG" --kernel "$k" --rxe "$1" --siw "$2" --timeout 1800 --add "$STAGE:/bench" \
        -- "sh /bench/guest.sh $RUNS" > "$RES/$k-$n.txt" 2> "$RES/$k-$n.log"; then
      say "kernel $k, $n devices: done in $(secs_since "$T")"
    else
      say "kernel $k, $n devices: FAILED (log: $RES/$k-$n.log)"; tail -n 20 "$RES/$k-$n.log" >&2; FAILED=1
    fi
  done
done
fi
echo "WALL=$(secs_since "$T_ALL")" >> "$RES/run.conf"
fi

# ------------------------------------------------------------ the report
. "$RES/run.conf"
ms() { awk -v n="$1" 'BEGIN { if (n == "-" || n == "") print "-"; else printf "%.2f", n / 1e6 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "-" && b != "-" && b > 0) printf "%.3f", a / b; else printf "-" }'; }
p() { grep "^P $2 " "$1" | awk '{ print $3 }' | median; }           # FILE LABEL -> ns
m() { grep "^M $2 " "$1" | awk -v c="$3" '{ print $c }' | median; }  # FILE LABEL COLUMN -> KiB
bsz() { grep "^B $2 " "$1" | awk -v c="$3" '{ print $c }' | head -n1; }
round_ratio() { # FILE A B: the median over rounds of A's time over B's in the same round
  paste <(grep "^P $2 " "$1" | awk '{ print $3 }') <(grep "^P $3 " "$1" | awk '{ print $3 }') |
    awk '$2 > 0 { printf "%.4f\n", $1 / $2 }' | median
}
{
  echo "<!-- bench/exporter.sh -->"
  echo "## uverbs exporter against node_exporter's infiniband collector"
  echo
  echo "Generated by \`bench/exporter.sh\` on $(date -u +%Y-%m-%d) from a run at commit ${COMMIT:-unknown}."
  echo "Reproduce: \`bench/exporter.sh$(for k in "${KERNELS[@]}"; do printf ' --kernel %s' "$k"; done) --runs $RUNS$([ "$SCALE" = 1 ] || echo ' --no-scale')$([ "$VM" = 1 ] || echo ' --no-vm')\` (${WALL:-?}, builds included)."
  echo
  echo "A scrape is what Prometheus does: a new TCP connection, \`GET /metrics\`, the whole"
  echo "answer read (bench/bench_scrape.rs, timed from the connect to the last byte). The two"
  echo "exporters run at once and are scraped in turns, so that a slow period of the shared host"
  echo "hits both; *round ratio* is the median over rounds of uverbs' time over node_exporter's"
  echo "in the same round. node_exporter 1.5 (Debian's) runs its infiniband collector alone"
  echo "(\`--collector.disable-defaults --collector.infiniband --web.disable-exporter-metrics\`)."
  echo "RSS: the server's VmRSS and VmHWM after the scrapes, KiB."
  echo
  f=$RES/host.txt
  if [ -s "$f" ]; then
    u=$(p "$f" uverbs) n=$(p "$f" node_exporter) rr=$(round_ratio "$f" uverbs node_exporter)
    met=$(awk -v r="$rr" 'BEGIN { print (r != "-" && r <= 0.5) ? "met" : "missed" }')
    echo "**Host, node_exporter's test data** (tests/fixtures/node_exporter-infiniband: an mlx4"
    echo "with two IB ports and an i40iw; both export the same facts, checked by"
    echo "\`tests/operators.rs\`), $((RUNS * 6)) scrapes each; $(sed -n 's/^I host //p' "$f"):"
    echo
    echo "| exporter | scrape ms (median) | samples | body bytes | VmRSS KiB | VmHWM KiB |"
    echo "|---|---:|---:|---:|---:|---:|"
    for l in uverbs node_exporter; do
      echo "| $l | $(ms "$(p "$f" $l)") | $(bsz "$f" $l 4) | $(bsz "$f" $l 3) | $(m "$f" $l 3) | $(m "$f" $l 4) |"
    done
    echo
    echo "uverbs / node_exporter: $(ratio "$u" "$n") (medians), round ratio $rr; target ≤ 0.5: **$met**."
    echo "RSS: $(ratio "$(m "$f" uverbs 3)" "$(m "$f" node_exporter 3)")× node_exporter's."
    ue=$(p "$f" uverbs_empty) ne=$(p "$f" node_exporter_empty)
    cu=$(awk -v a="$u" -v b="$ue" 'BEGIN { print a - b }') cn=$(awk -v a="$n" -v b="$ne" 'BEGIN { print a - b }')
    echo "The floor, in the same rounds (each server with nothing to export: a connection, a"
    echo "request and a near-empty answer): uverbs $(ms "$ue") ms, node_exporter $(ms "$ne") ms. Less"
    echo "that floor, the collection itself: uverbs $(ms "$cu") ms, node_exporter $(ms "$cn") ms ($(ratio "$cu" "$cn")×)."
    echo "What the floor is: the TCP handshake on the loopback, the request, the answer and the"
    echo "close, on a host whose two CPUs other builds share (uverbs' empty server lists the"
    echo "devices and reads none)."
    if grep -q '^S ' "$f"; then
      spc() { grep "^S $1 " "$f" | awk -v c="$2" '{ printf "%.0f", $c / $5 }'; }
      echo "System calls per scrape (\`strace -c -f\` on each exporter over 21 more scrapes):"
      echo "uverbs $(spc uverbs 3), of which $(spc uverbs 4) on files (openat, read, pread64, close, getdents64, fstat);"
      echo "node_exporter $(spc node_exporter 3), of which $(spc node_exporter 4) on files."
    fi
    echo "Where uverbs' time goes: its collection is system calls (\`perf record -g\` on the"
    echo "host, once, not by this script: ~80% of the exporter's CPU time is in the kernel). A"
    echo "serving exporter keeps the attribute files open from one scrape to the next and reads"
    echo "each again with one \`pread\` at offset 0 (sysfs shows an attribute afresh at offset"
    echo "0; src/sysfs/dir.rs, \`KeptFiles\`); the directories are opened, and \`fstat\`ed for"
    echo "their identity, once per scrape. The test data is a plain file tree, where an open is"
    echo "cheaper than on sysfs (kernfs allocates an open file and a \`seq_file\` per open):"
    echo "what keeping saves on a real sysfs is not measured here (the VM rows below are the"
    echo "uverbs mode, whose ports come from the event cache, not from sysfs). The"
    echo "answer is one \`send\`, whose last segment carries the FIN when the connection closes"
    echo "(\`MSG_MORE\`). On the same tree uverbs also reads what node_exporter does not export"
    echo "(link layer, LID, P_Keys, GIDs, hw_counters, node GUID: a failed open each where the"
    echo "test data lacks them): more files than node_exporter opens, at fewer system calls"
    echo "each (node_exporter: \`openat\`, \`epoll_ctl\`, \`read\`, \`close\` per file, by its"
    echo "whole path)."
    echo
  fi
  if [ "$VM" = 1 ]; then
    echo "**VM rig** (QEMU TCG, one vCPU, on a shared host: absolute figures are those of an"
    echo "emulator; node_exporter finds no infiniband statistics on rxe and siw, which have no"
    echo "\`counters/\`, so it exports nothing there and its time is that of an empty scrape)."
    echo "Whole processes (spawn to exit, 11 runs, median; peak RSS from \`wait4\`): one"
    echo "\`uverbs exporter --textfile\` of every device; \`uverbs check -d rxe0\` against"
    echo "\`uverbs devinfo -d rxe0\` (the issue's bound: a check costs no more than a devinfo);"
    echo "a static \`true\`, the floor."
    echo
    echo "| kernel | devices | uverbs scrape ms | samples | VmRSS / VmHWM KiB | node_exporter scrape ms | its infiniband samples (collector success) | its VmRSS KiB | \`--textfile\` ms | its peak RSS KiB | check ms | devinfo ms | check / devinfo | \`true\` ms |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    for k in "${KERNELS[@]}"; do
      for n in 2 32; do
        f=$RES/$k-$n.txt
        [ "$n" = 2 ] || [ "$SCALE" = 1 ] || continue
        [ -s "$f" ] || { echo "| $k | $n | (did not run: see $RES/$k-$n.log) |||||||||||||"; continue; }
        kr=$(sed -n 's/^I kernel //p' "$f" | head -n1)
        c=$(p "$f" check) d=$(p "$f" devinfo)
        echo "| ${kr:-$k} | $(sed -n 's/^I devices //p' "$f") | $(ms "$(p "$f" uverbs)") | $(bsz "$f" uverbs 4) | $(m "$f" uverbs 3) / $(m "$f" uverbs 4) | $(ms "$(p "$f" node_exporter)") | $(sed -n 's/^I ne_infiniband_samples //p' "$f") (success $(sed -n 's/^I ne_success //p' "$f")) | $(m "$f" node_exporter 3) | $(ms "$(p "$f" textfile)") | $(grep '^M textfile ' "$f" | awk '{ print $3 }' | median) | $(ms "$c") | $(ms "$d") | $(ratio "$c" "$d") | $(ms "$(p "$f" true)") |"
      done
    done
    echo
  fi
  echo "<!-- end bench/exporter.sh -->"
} > "$OUT"
say "report: $OUT"
if [ -n "$INTO" ]; then
  put_section "$INTO" "$OUT" "<!-- bench/exporter.sh -->" "<!-- end bench/exporter.sh -->"
  say "section put into $INTO"
fi
cat "$OUT"
exit "$FAILED"
