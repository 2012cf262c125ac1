#!/usr/bin/env bash
# bench/datapath.sh - the data path against perftest and libibverbs, side by side in
# the VM rig, and its section of BENCHMARKS.md (issue 17).
#
# Usage: bench/datapath.sh [--kernel SERIES]... [--rounds N] [--boots B] [--quick]
#                          [--aa] [--report-only]
#
#   --kernel SERIES  a kernel series of tests/vm/versions; repeatable (default: 6.1 6.12)
#   --rounds N       interleaved rounds (default 5)
#   --boots B        spread the rounds over B boots per kernel (default 1). Under TCG a
#                    run's time moves with where its code, rings and buffers land, and a
#                    boot places them anew; rounds over several boots average that out
#   --quick          --rounds 2 and fewer iterations (a smoke test)
#   --aa             the rig's own spread (A/A): the peers against themselves, perftest
#                    in uverbs' place and datapath_loops in bench_datapath's, the same
#                    rounds and ratios; its own raw outputs (datapath-aa-KERNEL.out) and
#                    section of BENCHMARKS.md. A target that the peer misses against
#                    itself is one the rig cannot judge
#   --report-only    no VM: the section again from the raw outputs already there
#
# In one boot per kernel (or B; 1 rxe + 1 siw, guest --smp 2), on rxe0's internal loopback
# (client to 127.0.0.1, -x 1 -F -I 0 on both sides), ROUNDS rounds, the order of the
# two programs alternating from round to round:
#   - latency: 'uverbs perf write_lat|send_lat -C' (server and client) against
#     perftest's ib_write_lat|ib_send_lat -C, sizes 2, 4096 and 65536 bytes; the
#     client's typical (median) half round trip in TSC cycles;
#   - bandwidth: 'uverbs perf write_bw|send_bw' against ib_write_bw|ib_send_bw,
#     the same sizes, tx depth 128, a completion every 100; rxe0's
#     hw_counters/sent_pkts read every millisecond by 'datapath_loops watch' (one
#     wall-clock window: from the counter's first movement to its last, so process
#     start and connection setup stay out, for both programs alike);
#   - siw: the same latency and bandwidth pairs on siw0 through its own address, both
#     programs with -R (the RDMA CM connects; siw needs it), fewer latency iterations
#     (a half round trip on siw is milliseconds here); siw has no packet counter, so
#     the message rate is what each client reports itself (iterations over its own
#     clock: perftest's cycles, uverbs' wall clock; lo's counters would mix in the
#     RDMA CM exchange, which runs over siw too);
#   - user-space cost: bench/bench_datapath.rs against bench/datapath_loops.c
#     (libibverbs with its rxe and siw providers): post_recv of one receive, and a
#     poll of an empty CQ, on rxe0 and siw0 (no system call in either).
# Then writes the section between the datapath markers of BENCHMARKS.md (bench/run.sh
# keeps it) from the medians: per pair of runs the ratio uverbs / peer, its median and
# interquartile range; each row's A/A is the same row of the --aa run's raw output
# when there is one, and the verdict lib.sh's aa_verdict (not judged without an A/A). Raw outputs: target/bench/datapath-KERNEL.out.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CRATE=$(cd "$HERE/.." && pwd)
TARGET=x86_64-unknown-linux-musl
KERNELS=() ROUNDS=5 BOOTS=1 QUICK=0 REPORT_ONLY=0 AA=0
while [ $# -gt 0 ]; do
  case $1 in
    --kernel) KERNELS+=("${2:?}"); shift 2 ;;
    --rounds) ROUNDS=${2:?}; shift 2 ;;
    --boots) BOOTS=${2:?}; shift 2 ;;
    --quick) ROUNDS=2 QUICK=1; shift ;;
    --aa) AA=1; shift ;;
    --report-only) REPORT_ONLY=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    *) echo "datapath.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ ${#KERNELS[@]} -gt 0 ] || KERNELS=(6.1 6.12)
OUTDIR=$CRATE/target/bench
# the raw outputs' name, and the two sides' names in the report
if [ "$AA" = 1 ]; then RAW=datapath-aa ME="perftest A" PEER="perftest B" LIB_A="libibverbs A" LIB_B="libibverbs B"
else RAW=datapath ME=uverbs PEER=perftest LIB_A=uverbs LIB_B=libibverbs; fi
mkdir -p "$OUTDIR"
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
# iterations: latency (small, 64 KiB), bandwidth (2 B, 4 KiB, 64 KiB), cost loop
# siw latency iterations (every size)
if [ "$QUICK" = 1 ]; then LN=300 LNB=100 B2=5000 B4=2000 B64=300 CN=1024 CB=3 LNS=50
else LN=1000 LNB=200 B2=10000 B4=4000 B64=600 CN=2048 CB=5 LNS=200; fi

if [ "$REPORT_ONLY" = 0 ]; then
# The commit measured, for the report (--report-only writes it later).
git -C "$CRATE" rev-parse --short HEAD > "$OUTDIR/$RAW.commit" 2>/dev/null || true
echo "$ROUNDS $BOOTS" > "$OUTDIR/$RAW.rounds"
echo "datapath.sh: building" >&2
(cd "$CRATE" && cargo build -q --release --target $TARGET --bin uverbs --example bench_datapath)
cp "$CRATE/target/$TARGET/release/uverbs" "$CRATE/target/$TARGET/release/examples/bench_datapath" "$STAGE/"
gcc -O2 -Wall -o "$STAGE/datapath_loops" "$HERE/datapath_loops.c" -libverbs
cat > "$STAGE/guest.sh" <<EOF
#!/bin/sh
# one line per run: L TEST SIZE TOOL ROUND TYPICAL_CYCLES | B TEST SIZE TOOL ROUND SECS PKTS
# | X (a failed run, its output follows; a run over 120 s is killed: status 124);
# B: the watcher's window and packets
# siw (S after L or B): LS ... TYPICAL_CYCLES | BS ... CLIENT_MPPS
port=19000
on() { # DEVICE: its connection arguments, server address, counter, line suffix
  d=\$1
  case \$d in
    siw*) how="-R" srv=169.254.129.1 k=S ;;
    *) how="-x 1" srv=127.0.0.1 cnt=/sys/class/infiniband/\$d/ports/1/hw_counters/sent_pkts k= ;;
  esac
}
on rxe0
# listening PORT: whether a TCP socket listens on PORT (/proc/net/tcp: local address
# ending in :PORT in hex, state 0A). Both servers listen on it before a client may
# connect: perftest's and uverbs' exchange over TCP on rxe, and with -R the RDMA CM's
# listen, which on siw is a kernel TCP socket on the same port
listening() {
  h=\$(printf '%04X' "\$1")
  cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
    awk -v h=":\$h" '\$2 ~ (h "\$") && \$4 == "0A" { f = 1 } END { exit !f }'
}
one() { # TOOL TEST SIZE ITERS ROUND EXTRA...
  tool=\$1 test=\$2 size=\$3 iters=\$4 round=\$5; shift 5
  port=\$((port + 1))
  if [ \$tool = uverbs ] && [ $AA = 0 ]; then prog="./uverbs perf \$test"; else prog="ib_\$test"; fi
  args="-d \$d \$how -F -I 0 -s \$size -n \$iters -p \$port \$*"
  case \$k\$test in S*) ;; *_bw) ./datapath_loops watch \$cnt > w.out & wpid=\$! ;; esac
  timeout 120 \$prog \$args > srv.out 2>&1 &
  spid=\$!
  # until the server listens (at most 10 s): a client that comes first is refused, and
  # perftest's then crashes in librdmacm, its server waiting out the 120 s
  w=0
  while [ \$w -lt 100 ] && ! listening \$port; do sleep 0.1; w=\$((w + 1)); done
  timeout 120 \$prog \$args \$srv > cli.out 2>&1; crc=\$?
  wait \$spid; src=\$?
  case \$k\$test in S*) ;; *_bw) kill \$wpid; wait \$wpid ;; esac
  line=\$(awk -v s=\$size -v n=\$iters '\$1 == s && \$2 == n { print; exit }' cli.out)
  if [ \$crc != 0 ] || [ \$src != 0 ] || [ -z "\$line" ]; then
    echo "X \$d \$test \$size \$tool \$round client=\$crc server=\$src"; cat cli.out srv.out; return
  fi
  case \$k\$test in
    *_lat) echo "L\$k \$test \$size \$tool \$round \$(echo "\$line" | awk '{ print \$5 }')" ;;
    S*) echo "BS \$test \$size \$tool \$round \$(echo "\$line" | awk '{ print \$5 }')" ;;
    *) echo "B \$test \$size \$tool \$round \$(awk '{ print \$2, \$3 }' w.out)" ;;
  esac
}
pair() { # ROUND TEST SIZE ITERS EXTRA...
  pr=\$1 pt=\$2 ps=\$3 pn=\$4; shift 4
  if [ \$((pr % 2)) = 0 ]; then one uverbs \$pt \$ps \$pn \$pr "\$@"; one perftest \$pt \$ps \$pn \$pr "\$@"
  else one perftest \$pt \$ps \$pn \$pr "\$@"; one uverbs \$pt \$ps \$pn \$pr "\$@"; fi
}
tests() { # ROUND LAT_ITERS LAT_ITERS_64K: every pair on the device of 'on'
  for t in write_lat send_lat; do
    pair \$1 \$t 2 \$2 -C; pair \$1 \$t 4096 \$2 -C; pair \$1 \$t 65536 \$3 -C
  done
  for t in write_bw send_bw; do
    pair \$1 \$t 2 $B2 -t 128 -Q 100; pair \$1 \$t 4096 $B4 -t 128 -Q 100; pair \$1 \$t 65536 $B64 -t 128 -Q 100
  done
}
mine() { # DEVICE: the cost loops of the side measured (A/A: libibverbs' again, as uverbs)
  if [ $AA = 0 ]; then ./bench_datapath cost \$1 $CN $CB
  else ./datapath_loops cost \$1 $CN $CB | sed 's/^C ibv /C uverbs /'; fi
}
# this boot's rounds: R0 up to R1 (set by the host)
r=\$R0
while [ \$r -lt \$R1 ]; do
  tests \$r $LN $LNB
  on siw0
  tests \$r $LNS $LNS
  on rxe0
  for dev in rxe0 siw0; do
    if [ \$((r % 2)) = 0 ]; then mine \$dev; ./datapath_loops cost \$dev $CN $CB
    else ./datapath_loops cost \$dev $CN $CB; mine \$dev; fi
  done
  r=\$((r + 1))
done
EOF

for k in "${KERNELS[@]}"; do
  : > "$OUTDIR/$RAW-$k.out"
  for b in $(seq 0 $((BOOTS - 1))); do
    r0=$((b * ROUNDS / BOOTS)) r1=$(((b + 1) * ROUNDS / BOOTS))
    [ "$r1" -gt "$r0" ] || continue
    echo "datapath.sh: kernel $k, rounds $r0-$((r1 - 1))" >&2
    "$CRATE/tests/vm/rig.sh" --kernel "$k" --smp 2 --add "$STAGE/uverbs" --add "$STAGE/bench_datapath" \
      --add "$STAGE/datapath_loops" --add "$STAGE/guest.sh" --timeout 3600 \
      --env R0=$r0 --env R1=$r1 -- sh ./guest.sh >> "$OUTDIR/$RAW-$k.out"
  done
done
fi

# ---------------------------------------------------------------- the report
. "$HERE/lib.sh"
# ratios RATIO_OF_PAIR_AWK < lines "ROUND UVERBS PEER": one ratio per round with both
ratios() { awk '{ u[$1] = $2; p[$1] = $3 } END { for (r in u) if (u[r] != "" && p[r] > 0) print u[r] / p[r] }'; }
# verdict RATIO DIR AA-TRIPLE: the normal run's row judged by lib.sh's aa_verdict against
# its A/A (target 1.0); in the --aa run, whether the rig can judge the row at all
verdict() {
  local m q1 q3; read -r m q1 q3 <<<"$3"
  if [ "$1" = - ]; then echo "no data"; return; fi
  if [ "$AA" = 1 ]; then
    case $(aa_verdict 1 1 "$m" "$q1" "$q3") in "not judged"*) echo "cannot judge it" ;; *) echo "can judge it" ;; esac
  else aa_verdict "$1" 1.0 "$m" "$q1" "$q3" "$2"; fi
}
# AAF: the --aa run's raw output of kernel K (the normal run's rows take their A/A there)
aaf() { echo "$OUTDIR/datapath-aa-$1.out"; }
section() {
  # the rounds and boots measured (--report-only reads them back)
  [ -f "$OUTDIR/$RAW.rounds" ] && read -r ROUNDS BOOTS < "$OUTDIR/$RAW.rounds"
  local boots="one VM boot per kernel"
  [ "$BOOTS" -gt 1 ] && boots="$BOOTS VM boots per kernel (the rounds spread over them)"
  echo "<!-- $RAW:begin -->"
  if [ "$AA" = 1 ]; then
    echo "## The rig's own spread: perftest and libibverbs against themselves (issue 17)"
    echo
    echo "The same runs as the next section's, with the peer in uverbs' place (\`bench/datapath.sh --aa\`):"
    echo "*perftest A* and *libibverbs A* are the very programs of *perftest B* and *libibverbs B*."
    echo "Every ratio would be 1.0 on a rig that measured without noise; a row the peer misses"
    echo "against itself is one whose target this rig cannot judge."
  else
    echo "## The data path against perftest and libibverbs (issue 17)"
  fi
  echo
  echo "Measured by \`bench/datapath.sh\` ($(date -u +%Y-%m-%d), commit $(cat "$OUTDIR/$RAW.commit" 2>/dev/null || echo "unknown: before $(git -C "$CRATE" rev-parse --short HEAD)")), $boots (TCG, \`--smp 2\`,"
  echo "1 rxe + 1 siw), $ROUNDS interleaved rounds (the order of the two programs alternating)."
  echo "uverbs: \`uverbs perf\` (release, static musl); perftest: Debian's 4.5 (\`ib_write_lat\` ...),"
  echo "libibverbs 44 with its rxe provider; both on rxe0's internal loopback, client to 127.0.0.1,"
  echo "\`-x 1 -F -I 0\` (no inline on either side, as Debian's perftest posts on rxe), bandwidth"
  echo "with \`-t 128 -Q 100\`. Each ratio is the median of the per-round ratios uverbs / peer,"
  echo "with their interquartile range."
  if [ "$AA" = 1 ]; then
    echo "*target*: whether this rig can judge the row (issue 28): only where the A/A's median is"
    echo "within 2% of 1.0 (\`aa_verdict\` in bench/lib.sh)."
  else
    echo "*A/A*: the same row of the next run of \`bench/datapath.sh --aa\` (the peer against itself,"
    echo "*The rig's own spread* below: $(for k in "${KERNELS[@]}"; do [ -s "$(aaf "$k")" ] && echo "$k"; done | tr '\n' ' ' | sed 's/ $//;s/^$/no such run here/')). *target*: judged by the rule of issue 28"
    echo "(\`aa_verdict\` in bench/lib.sh): only where the A/A's median is within 2% of 1.0, then met"
    echo "when the ratio is at or under 1.0 times the A/A's third quartile (latency, cost) or at or"
    echo "over 1.0 times its first (rates); *not judged* otherwise."
  fi
  echo
  echo "Latency: the client's typical (median) half round trip in TSC cycles (\`-C\`), uverbs"
  echo "computing it as perftest does. Target ≤ 1.0×."
  echo
  echo "| kernel | test | bytes | $ME cycles | $PEER cycles | $ME / $PEER (median, IQR) | A/A (median, IQR) | target |"
  echo "|---|---|---:|---:|---:|---|---|---|"
  local k f t s pf r q1 q3 u p aa
  pf=$STAGE/p.$$
  # pair_stats TAG VALUE FMT: of the lines "TAG $t $s TOOL ROUND ..." of $f, each round's
  # value (the awk expression VALUE; an empty value leaves the line out), paired by round
  # into $pf; sets u and p (each program's median, printed with FMT) and r, q1, q3 (the
  # median and quartiles of the per-round ratios uverbs / perftest).
  pair_stats() {
    awk -v tag="$1" -v t="$t" -v s="$s" '$1 == tag && $2 == t && $3 == s { v = '"$2"'; if (v != "") print $5, $4, v }' "$f" |
      awk '{ if ($2 == "uverbs") u[$1] = $3; else p[$1] = $3 } END { for (r in u) print r, u[r], p[r] }' > "$pf"
    u=$(awk -v fm="$3" '{ printf fm "\n", $2 }' "$pf" | median)
    p=$(awk -v fm="$3" '$3 != "" { printf fm "\n", $3 }' "$pf" | median)
    r=$(ratios < "$pf" | median); q1=$(ratios < "$pf" | quart 0.25); q3=$(ratios < "$pf" | quart 0.75)
  }
  # rows TAG VALUE FMT DIR TEST...: a table's rows, one per kernel, test and size, from
  # pair_stats; the rate tables (DIR ge: met at or over 1.0) also give the messages.
  rows() {
    local tag=$1 val=$2 fm=$3 dir=$4 n
    shift 4
    for k in "${KERNELS[@]}"; do
      f=$OUTDIR/$RAW-$k.out
      for t in "$@"; do
        for s in 2 4096 65536; do
          # the A/A: the same row of the --aa run (in the --aa run, the row itself)
          aa=$(f=$(aaf "$k"); [ -s "$f" ] && { pair_stats "$tag" "$val" "$fm"; echo "$r $q1 $q3"; })
          pair_stats "$tag" "$val" "$fm"
          n=''
          [ "$dir" = ge ] && case $s in 2) n="$B2 | " ;; 4096) n="$B4 | " ;; *) n="$B64 | " ;; esac
          # shellcheck disable=SC2086 # (the A/A's three numbers, or -)
          echo "| $k | $t | $s | $n$u | $p | $(fmt "$r") ($(fmt "$q1")-$(fmt "$q3")) | $(aa_cell ${aa:--}) | $(verdict "$r" "$dir" "$aa") |"
        done
      done
    done
  }
  rows L '$6' %s le write_lat send_lat
  echo
  echo "Bandwidth and message rate: packets rxe0 sent (\`hw_counters/sent_pkts\`, data and"
  echo "acknowledgements of both ends) per second of one wall-clock window: the counter read"
  echo "every millisecond (\`datapath_loops watch\`), from its first movement to its last"
  echo "(process start and connection setup left out, for both programs alike). Target ≥ 1.0×."
  echo
  echo "| kernel | test | bytes | messages | $ME pkts/s | $PEER pkts/s | $ME / $PEER (median, IQR) | A/A (median, IQR) | target |"
  echo "|---|---|---:|---:|---:|---:|---|---|---|"
  rows B '$6 > 0 ? $7 / $6 : ""' %.0f ge write_bw send_bw
  echo
  echo "siw (siw0 through its own address, both programs with \`-R\`: the RDMA CM connects"
  echo "the exchange and the test's QP; send_bw with perftest's receive credits, iWARP having"
  echo "no RNR retry). Latency as above ($LNS iterations: a half round trip on siw is"
  echo "milliseconds here). Target ≤ 1.0×."
  echo
  echo "| kernel | test | bytes | $ME cycles | $PEER cycles | $ME / $PEER (median, IQR) | A/A (median, IQR) | target |"
  echo "|---|---|---:|---:|---:|---|---|---|"
  rows LS '$6' %.0f le write_lat send_lat
  echo
  echo "siw message rate: siw has no packet counter, so it is each client's own report"
  echo "(iterations over its own clock, the MsgRate column: perftest by TSC cycles and the"
  echo "CPU MHz, uverbs by the wall clock), in million messages per second; not a shared"
  echo "counter (lo's would mix in the RDMA CM exchange, which runs over siw too). A report"
  echo "of 0 (perftest's clock estimate failing under TCG) leaves its round out: $(cat "$OUTDIR/$RAW"-[0-9]*.out | awk '$1 == "BS" && $6 + 0 == 0' | wc -l) such."
  echo "Target ≥ 1.0×."
  echo
  echo "| kernel | test | bytes | messages | $ME Mmsg/s | $PEER Mmsg/s | $ME / $PEER (median, IQR) | A/A (median, IQR) | target |"
  echo "|---|---|---:|---:|---:|---:|---|---|---|"
  rows BS '$6 > 0 ? $6 : ""' %s ge write_bw send_bw
  echo
  echo "User-space cost (no system call on either side): ns per call, median of the batches"
  echo "($CB batches of $CN calls per process per round); post_recv of one receive with one"
  echo "SGE into a fresh RC QP in INIT, and a poll of an empty CQ asking one entry. Target ≤ 1.0×."
  echo
  echo "| kernel | device | operation | $LIB_A ns | $LIB_B ns | $LIB_A / $LIB_B (median, IQR) | A/A (median, IQR) | target |"
  echo "|---|---|---|---:|---:|---|---|---|"
  # cost_stats: as pair_stats, for the cost loops of $d and $op in $f
  cost_stats() {
    # the rounds: the n-th group of CB lines of each tool is round n
    awk -v d=$d -v op=$op -v cb=$CB '$1 == "C" && $3 == d && $4 == op { i[$2]++; print int((i[$2] - 1) / cb), $2, $5 }' "$f" > "$pf.raw"
    for r in $(awk '{ print $1 }' "$pf.raw" | sort -u); do
      echo "$r $(awk -v r=$r '$1 == r && $2 == "uverbs" { print $3 }' "$pf.raw" | median) $(awk -v r=$r '$1 == r && $2 == "ibv" { print $3 }' "$pf.raw" | median)"
    done > "$pf"
    u=$(awk '$2 == "uverbs" { print $3 }' "$pf.raw" | median); p=$(awk '$2 == "ibv" { print $3 }' "$pf.raw" | median)
    r=$(ratios < "$pf" | median); q1=$(ratios < "$pf" | quart 0.25); q3=$(ratios < "$pf" | quart 0.75)
  }
  for k in "${KERNELS[@]}"; do
    f=$OUTDIR/$RAW-$k.out
    for d in rxe0 siw0; do
      for op in post_recv poll_empty; do
        aa=$(f=$(aaf "$k"); [ -s "$f" ] && { cost_stats; echo "$r $q1 $q3"; })
        cost_stats
        # shellcheck disable=SC2086 # (the A/A's three numbers, or -)
        echo "| $k | $d | $op | $u | $p | $(fmt "$r") ($(fmt "$q1")-$(fmt "$q3")) | $(aa_cell ${aa:--}) | $(verdict "$r" le "$aa") |"
      done
    done
  done
  echo
  local x
  x=$(cat "$OUTDIR/$RAW"-[0-9]*.out | grep -c '^X ' || true)
  echo "Failed runs (left out): $x."
  echo
  local aa=''
  [ "$AA" = 1 ] && aa=' --aa'
  echo "Reproduce: \`bench/datapath.sh$aa\` (raw outputs in target/bench/$RAW-KERNEL.out)."
  echo "<!-- $RAW:end -->"
}
REPORT=$CRATE/BENCHMARKS.md
section > "$STAGE/section.md"
put_section "$REPORT" "$STAGE/section.md" "<!-- $RAW:begin -->" "<!-- $RAW:end -->"
cat "$STAGE/section.md"
