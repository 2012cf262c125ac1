#!/usr/bin/env bash
# bench/perfloops.sh - user-space instructions per message (issue 28): the loop of each
# perftest test `uverbs perf` has, against Debian's perftest, in the VM rig, in the same
# boot, with the iterations that only wait (empty polls, checks of memory) counted apart.
#
# Usage: bench/perfloops.sh [--kernel SERIES]... [--runs N] [--out FILE] [--into FILE]
#                           [--report-only]
#
#   --kernel SERIES  a kernel series of tests/vm/versions (6.1, 6.12); repeatable
#                    (default: 6.1)
#   --runs N         runs of each client under callgrind (default 2: the table says
#                    which rows counted the same in every run)
#   --out FILE       the report section (default target/bench/perfloops/perfloops.md)
#   --into FILE      also put the section into FILE (BENCHMARKS.md), between the lines
#                    "<!-- perfloops:begin -->" and "<!-- perfloops:end -->" when FILE
#                    has them, else at the end
#   --report-only    write the section again from the raw outputs of the last run
#                    (target/bench/perfloops/), without building or booting anything
#
# How: in one boot per kernel (1 rxe + 1 siw), for each test (write_lat, send_lat,
# write_bw, send_bw; `uverbs perf` has no read tests) and device (rxe0 through
# 127.0.0.1 with -x 1; siw0 with -R, the RDMA CM connecting), the server runs plain and
# the client under callgrind (bench/perfloops-guest.sh), both sides the same program:
# `uverbs perf TEST` or perftest's ib_TEST, with -F -I 0 -s 2 (bandwidth: -t 128
# -Q 100), at N1 and N2 iterations, RUNS times, taking turns. What is counted is the
# test's loop: the inclusive instructions of the function that runs it (uverbs:
# uverbs::perf::run_write_lat, run_send_lat, run_bw_client; perftest: the function of
# ib_TEST that calls the provider's poll, on rxe0), less its one-off calls into its own
# program (perftest's clock calibration at the start of a latency loop), so that
# set-up, the exchange and the report stay out. Per iteration: (I(N2) - I(N1)) /
# (N2 - N1), the medians of the runs of each length.
# A loop waits by spinning, and how often is timing, so the spins are counted apart:
#   - checks of memory (write_lat waits for the other side's write in its buffer): the
#     instructions of the loop function that ran more than 3 N times (the loop that
#     waits; not those run once a poll or once an empty poll, a loop of polls), each
#     once per empty check: the least of their counts times how many they are, taken
#     out of the count;
#   - empty polls: at each call site of the poll function in the loop (uverbs'
#     Cq::poll, in the loop and in send_done; perftest's: the function of the provider's
#     library that `objects_loops count DEV poll_empty N` calls N times, in the same
#     boot), its calls less the completions it reaps (latency: N a site; bandwidth: the
#     site that polls most reaps them all, one per 100 and the last); each costs the
#     caller's instructions that ran once a poll or once an empty poll at that site
#     (counted), and the poll's own cost of an empty poll, fitted over the runs (the
#     polls' inclusive instructions = ce E + cf C; the hot calls section's empty poll
#     when the runs cannot tell ce). The figure without the spins is exact when every
#     run of a length comes to the same count (the table says so, and judges only then).
# Where the instructions go (the misses on the first kernel): the same count, spins
# taken out, of each call the loop function makes (its inclusive instructions) and of
# its own.
# The uverbs side is the CLI built as it ships but with its symbols
# (CARGO_PROFILE_RELEASE_STRIP=false, its DWARF dropped), so that the loop, Cq::poll
# and the attribution have names; the server is the shipped build.
# Raw outputs: target/bench/perfloops/. Exit status: 0 when every boot ran (targets
# missed are reported, not fatal).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CRATE=$(cd "$HERE/.." && pwd)
TARGET=x86_64-unknown-linux-musl
RIG=${UVERBS_BENCH_RIG:-$CRATE/tests/vm/rig.sh}
TDIR=${CARGO_TARGET_DIR:-$CRATE/target}
RES=$TDIR/bench/perfloops
OUT='' INTO='' RUNS=2 REPORT_ONLY=0 KERNELS=()
say() { echo "bench/perfloops: $*" >&2; }
. "$HERE/lib.sh"
bench_opts perfloops.sh "$@"
# iterations: latency (one message a round trip), bandwidth (above the tx depth of 128,
# so that the queue's set-up does not depend on N)
LN1=20 LN2=120 BN1=200 BN2=1200
TESTS=(write_lat send_lat write_bw send_bw)
DEVS=(rxe0 siw0)
T_ALL=$(now_us)
FAILED=0
n1of() { case $1 in *_lat) echo $LN1 ;; *) echo $BN1 ;; esac; }
n2of() { case $1 in *_lat) echo $LN2 ;; *) echo $BN2 ;; esac; }

spec() {
  local d t x n
  for d in "${DEVS[@]}"; do echo "probe.$d.$LN2 probe - $d $LN2"; done
  for t in "${TESTS[@]}"; do
    for d in "${DEVS[@]}"; do
      for x in u p; do
        for n in $(n1of "$t") $(n2of "$t"); do
          echo "$x.$d.$t.$n $([ $x = u ] && echo pie-u || echo pt) $t $d $n"
        done
      done
    done
  done
}

build_stage() {
  local e
  rm -rf "$STAGE"; mkdir -p "$STAGE"/{pie,pie-u,c,vg}
  musl_target
  command -v gcc >/dev/null || install_missing gcc
  [ -e /usr/include/infiniband/verbs.h ] || install_missing libibverbs-dev
  e=$(build_cli shipped) || exit 1
  cp "$e" "$STAGE/pie/uverbs"
  e=$(build_cli unstripped CARGO_PROFILE_RELEASE_STRIP=false CARGO_TARGET_DIR="$TDIR/unstripped") || exit 1
  cp "$e" "$RES/uverbs-unstripped"
  objcopy --strip-debug "$e" "$STAGE/pie-u/uverbs"
  gcc -O2 -Wall -o "$STAGE/c/objects_loops" "$HERE/objects_loops.c" -libverbs
  stage_valgrind "$STAGE/vg"
  cp "$HERE/perfloops-guest.sh" "$STAGE/"
}

[ ${#KERNELS[@]} -gt 0 ] || KERNELS=(6.1)
[ -n "$OUT" ] || OUT=$RES/perfloops.md
STAGE=$RES/stage
if [ "$REPORT_ONLY" = 1 ]; then
  [ -e "$RES/run.conf" ] || { echo "perfloops.sh: no previous run in $RES" >&2; exit 2; }
else
  rm -rf "$RES"; mkdir -p "$RES"
  { echo "KERNELS=(${KERNELS[*]}) RUNS=$RUNS"
    echo "COMMIT='$(commit_desc)'"; echo "RUSTC='$(rustc -V)'"; } > "$RES/run.conf"
  build_stage
  spec > "$STAGE/spec"
  for k in "${KERNELS[@]}"; do
    GUEST=perfloops-guest.sh guest_boot "$k" 1 1 pl "$RES/$k.out" || FAILED=1
  done
  echo "WALL=$(secs_since "$T_ALL")" >> "$RES/run.conf"
fi

# ------------------------------------------------------------ the report
. "$RES/run.conf"
export LC_ALL=C
HOT=$CRATE/BENCHMARKS.md
# empty_cost K DEV COLUMN: the instructions of an empty poll (the hot calls section's
# poll_empty row of kernel K, else of its first kernel; COLUMN 4 uverbs, 5 libibverbs)
empty_cost() {
  awk -v k="$1" -v d="$2" -v c="$3" '
    /^<!-- hotcalls:begin -->/ { on = 1 } /^<!-- hotcalls:end -->/ { on = 0 }
    on && /^### Linux / { cur = $3 }
    on && /^\| poll_empty:/ { split($0, f, "|"); gsub(/ /, "", f[3]); gsub(/ /, "", f[c])
      if (f[3] == d) { if (cur == k) v = f[c]; if (first == "") first = f[c] } }
    END { print (v != "" ? v : (first != "" ? first : "-")) }' "$HOT"
}
# the lines of one run: rl FILE TAG KEY R
rl() { awk -v t="$2" -v k="$3" -v r="$4" '$1 == t && $2 == k && $3 == r' "$1"; }
# pollfn FILE DEV: the provider's poll function ("OBJ<TAB>FN"), from the probe
pollfn() {
  awk -F'\t' -v k="probe.$2.$LN2" '{ split($1, h, " ") }
    h[1] == "K" && h[2] == k && $3 ~ /rdmav[0-9]+\.so$/ { c[$3 "\t" $4] += h[4] }
    END { for (x in c) if (c[x] > m) { m = c[x]; b = x } print b }' "$1"
}
# loopfn FILE TOOL TEST: the function that runs TEST's loop (uverbs: by name; perftest:
# the function of ib_TEST that calls rxe0's provider poll most, in the first run of N1
# on rxe0; the same function runs the loop on siw, where with -R the exchange polls too)
loopfn() {
  local f=$1 x=$2 t=$3
  if [ "$x" = u ]; then
    case $t in write_lat) echo uverbs::perf::run_write_lat ;; send_lat) echo uverbs::perf::run_send_lat ;;
      *) echo uverbs::perf::run_bw_client ;; esac
    return
  fi
  rl "$f" K "p.rxe0.$t.$(n1of "$t")" 1 | awk -F'\t' -v m="/usr/bin/ib_$t" -v p="$(pollfn "$f" rxe0)" '
    { split($1, h, " ") } h[6] == m && ($3 "\t" $4) == p && h[4] > c { c = h[4]; b = $2 } END { print b }'
}
# measure FILE KEY R TOOL TEST DEV N LOOPFN: one run, "LOOP ONCE POLLS EMPTY CHECKS WIDTH
# SPIN_L SPIN_D PINCL COMP LOOPS": the loop function's inclusive instructions; those of
# its one-off calls into its own program (set-up within the loop function); the polls
# in the loop and the empty ones; the empty checks of memory and the instructions of
# one; the instructions the empty polls' callers ran for them (in the loop function, in
# send_done); the polls' inclusive instructions; the completions they reaped; the
# callers' instructions per empty poll, a call site's after another ("13/8"; "-" for a
# site without empty polls); "-" when the run has no count
measure() {
  local f=$1 key=$2 r=$3 x=$4 t=$5 d=$6 n=$7 lf=$8 main pf loop once chk wid
  if [ -z "$(rl "$f" N "$key" "$r")" ] || [ -z "$lf" ]; then echo "- - - - - - - - - - -"; return; fi
  if [ "$x" = u ]; then main=/pl/pie-u/uverbs pf=$'/pl/pie-u/uverbs\tuverbs::verbs::objects::cq::Cq::poll'
  else main=/usr/bin/ib_$t pf=$(pollfn "$f" "$d"); fi
  loop=$(rl "$f" K "$key" "$r" | awk -F'\t' -v m="$main" -v l="$lf" '$3 == m && $4 == l { split($1, h, " "); s += h[5] } END { print s + 0 }')
  # the loop function's one-off calls into its own program (perftest's clock calibration,
  # get_cpu_mhz, at the start of a latency loop: it spins for a time)
  once=$(rl "$f" K "$key" "$r" | awk -F'\t' -v m="$main" -v l="$lf" '{ split($1, h, " ") }
      h[6] == m && $2 == l && $3 == m && h[4] == 1 { s += h[5] } END { print s + 0 }')
  # the call sites of the poll in the loop (and in send_done): each reaps N completions
  # (latency; bandwidth: the site that polls most reaps them all), the rest are empty;
  # an empty poll runs the caller's instructions run once a poll or once an empty poll
  { rl "$f" S "$key" "$r"; rl "$f" J "$key" "$r"; } | awk -F'\t' -v m="$main" -v l="$lf" -v pf="$pf" -v t="$t" -v n="$n" '
    { split($1, h, " ") }
    h[1] == "S" && h[7] == m && ($2 == l || $2 == "uverbs::perf::send_done") && ($3 "\t" $4) == pf {
      ns++; sc[ns] = h[4]; si[ns] = h[5]; sf[ns] = $2; next }
    h[1] == "J" { fn = $0; sub(/^J [^ ]+ [^ ]+ [^ ]+ [^ ]+ /, "", fn); jn++; jc[jn] = h[4]; jf[jn] = fn }
    END {
      tot = (t ~ /_lat$/) ? 0 : int(n / 100) + (n % 100 > 0)
      for (i = 1; i <= ns; i++) { if (t ~ /_lat$/) cp[i] = n; else if (big == "" || sc[i] > sc[big]) big = i }
      if (big != "") cp[big] = tot
      for (i = 1; i <= ns; i++) { e = sc[i] - cp[i]; if (e < 0) e = 0; E += e; P += sc[i]; PI += si[i]; C += cp[i]
        w = 0; for (k = 1; k <= jn; k++) if (jf[k] == sf[i] && (jc[k] == sc[i] || (e > 0 && jc[k] == e))) w++
        if (e > 0) { if (sf[i] == l) SL += e * w; else SD += e * w }
        lens = lens (i > 1 ? "/" : "") (e > 0 ? w : "-")
        excl[sc[i]] = 1; if (e > 0) excl[e] = 1 }
      # the checks of memory (write_lat): the loop function s instructions run more than 3 N
      # times, but for those of its loops of polls
      if (t == "write_lat") for (k = 1; k <= jn; k++) if (jf[k] == l && jc[k] > 3 * n && !(jc[k] in excl)) {
        cw++; if (ck == "" || jc[k] < ck) ck = jc[k] }
      printf "%d %d %d %d %d %d %d\n", P, E, ck + 0, cw + 0, SL, SD, PI
      printf "%d %s\n", C, (lens == "" ? "-" : lens) }' > "$RES/m.tmp"
  echo "$loop $once $(paste -sd' ' "$RES/m.tmp")"
}
# runs FILE TOOL TEST DEV LOOPFN: "N R LOOP ONCE POLLS EMPTY CHECKS WIDTH" a run, into
# $RES/fig.tmp
runs() {
  local f=$1 x=$2 t=$3 d=$4 lf=$5 r n
  : > "$RES/fig.tmp"
  for r in $(seq 1 "$KR"); do
    for n in $(n1of "$t") $(n2of "$t"); do
      echo "$n $r $(measure "$f" "$x.$d.$t.$n" "$r" "$x" "$t" "$d" "$n" "$lf")" >> "$RES/fig.tmp"
    done
  done
}
# The cost of an empty poll to the poll itself, in awk (figures, attr): cfit(J, E, C, PI)
# fits the polls' inclusive instructions of the runs 1..J, PI = ce E + cf C (E the empty
# polls, C the completions), and returns ce; the hot calls section's empty poll when the
# runs cannot tell it (CEH set then). The callers' instructions for the empty polls are
# counted, not fitted (measure).
CFIT_AWK='
  function cfit(J, E, C, PI, hc,    i, see, scc, sec, sep, scp, det) { CEH = 0
    for (i = 1; i <= J; i++) { see += E[i] * E[i]; scc += C[i] * C[i]; sec += E[i] * C[i]; sep += E[i] * PI[i]; scp += C[i] * PI[i] }
    if (see == 0) return 0
    det = see * scc - sec * sec
    if (det > 1e-9 * see * scc) return (scc * sep - sec * scp) / det
    CEH = 1; return hc }
  function med(arr, k,    i, j, t, v) { for (i = 1; i <= k; i++) v[i] = arr[i]
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
    return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2 }
  function diff(J, N, Y, na, nb,    i, A, B, ka, kb, z1) { DSAME = 1
    for (i = 1; i <= J; i++) { if (N[i] == na) A[++ka] = Y[i]; else B[++kb] = Y[i]
      if (!(N[i] in z1)) z1[N[i]] = Y[i]; if (Y[i] - z1[N[i]] >= 0.5 || z1[N[i]] - Y[i] >= 0.5) DSAME = 0 }
    return (ka && kb) ? (med(B, kb) - med(A, ka)) / (nb - na) : "-" }'
# runs FILE TOOL TEST DEV LOOPFN: "N R" and measure's fields, a run a line, into
# $RES/fig.tmp
runs() {
  local f=$1 x=$2 t=$3 d=$4 lf=$5 r n
  : > "$RES/fig.tmp"
  for r in $(seq 1 "$KR"); do
    for n in $(n1of "$t") $(n2of "$t"); do
      echo "$n $r $(measure "$f" "$x.$d.$t.$n" "$r" "$x" "$t" "$d" "$n" "$lf")" >> "$RES/fig.tmp"
    done
  done
}
# figures FILE TOOL TEST DEV: "WITH WITHOUT SAME_WITH SAME_WITHOUT EMPTY_COST EMPTIES
# CHECKS" per iteration (the medians of the runs of each length, differenced). WITH:
# the loop less its one-off calls; WITHOUT: less the empty checks of memory (their
# instructions) and the empty polls (the callers' instructions for them, and the fitted
# cost of each to the poll); SAME_*: yes when every run of a length counted the same.
# EMPTY_COST: "POLL+CALLERS" (h: the hot calls section's); EMPTIES and CHECKS per run
# "N1/N2", runs ","-separated.
figures() {
  local f=$1 x=$2 t=$3 d=$4
  runs "$f" "$x" "$t" "$d" "$(loopfn "$f" "$x" "$t")"
  awk -v na="$(n1of "$t")" -v nb="$(n2of "$t")" -v hc="$(empty_cost "$K" "$d" "$([ "$x" = u ] && echo 4 || echo 5)")" "$CFIT_AWK"'
    $3 == "-" { bad = 1; next }
    { j++; N[j] = $1; W[j] = $3 - $4; E[j] = $6; C[j] = $12; PI[j] = $11; Y[j] = W[j] - $7 * $8 - $9 - $10
      nl = split($13, lp, "/"); for (i = 1; i <= nl; i++) if (lp[i] != "-") ln[i] = lp[i]; if (nl > nls) nls = nl
      el[$2] = el[$2] (el[$2] == "" ? "" : "/") $6; cl[$2] = cl[$2] (cl[$2] == "" ? "" : "/") $7 }
    END { if (bad || j < 2) { print "- - - - - - -"; exit }
      with = diff(j, N, W, na, nb); sw = DSAME
      ce = cfit(j, E, C, PI, hc)
      for (i = 1; i <= j; i++) Y[i] -= ce * E[i]
      without = diff(j, N, Y, na, nb)
      for (i = 1; i <= nls; i++) lens = lens (i > 1 ? "/" : "") (i in ln ? ln[i] : "-")
      cs = "-"; for (i = 1; i <= j; i++) if (E[i] > 0) cs = sprintf("%.1f%s+%s", ce, (CEH ? "h" : ""), lens)
      for (r = 1; r in el; r++) { els = els (r > 1 ? "," : "") el[r]; cls = cls (r > 1 ? "," : "") cl[r] }
      printf "%.1f %.1f %s %s %s %s %s\n", with, without, (sw ? "yes" : "no"), (DSAME ? "yes" : "no"), cs, els, cls }' "$RES/fig.tmp"
}
rounds() { grep -c '^I round [0-9]* done$' "$1" || true; }
n1() { awk -v x="$1" 'BEGIN { if (x == "-") print "-"; else { s = sprintf("%.1f", x); sub(/\.0$/, "", s); print s } }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b <= 0) print "-"; else printf "%.3f×", a / b }'; }
# attr FILE TOOL TEST DEV: where a loop's instructions go, per iteration, the spins taken
# out as in figures: the inclusive instructions of each call the loop function makes (→,
# not the one-off ones; uverbs: and of those send_done makes, which only the loops call),
# the polls' less their empty ones, and the loop function's own (less its empty checks of
# memory and its instructions for empty polls; uverbs: send_done's too); the largest 8:
# "`name` 12.3, ..."
attr() {
  local f=$1 x=$2 t=$3 d=$4 lf main pf
  lf=$(loopfn "$f" "$x" "$t")
  if [ "$x" = u ]; then main=/pl/pie-u/uverbs pf=uverbs::verbs::objects::cq::Cq::poll
  else main=/usr/bin/ib_$t pf=$(pollfn "$f" "$d" | cut -f2); fi
  runs "$f" "$x" "$t" "$d" "$lf"
  awk -v na="$(n1of "$t")" -v nb="$(n2of "$t")" -v l="$lf" -v m="$main" -v pre="$x.$d.$t." -v pf="$pf" \
      -v hc="$(empty_cost "$K" "$d" "$([ "$x" = u ] && echo 4 || echo 5)")" "$CFIT_AWK"'
    BEGIN { sd = "uverbs::perf::send_done" }
    FILENAME ~ /fig/ { if ($3 == "-") next; j++; N[j] = $1; E[j] = $6; C[j] = $12; PI[j] = $11
      run[j] = pre $1 " " $2; L[run[j]] = $3; SL[j] = $7 * $8 + $9; SD[j] = $10; next }
    { k = $2 " " $3 }
    $1 == "K" { split($0, q, "\t"); split(q[1], h, " ")
      if (h[6] == m && (q[2] == l || q[2] == sd) && q[4] != sd && !(q[3] == m && h[4] == 1)) {
        it = "→ " q[4]; if (q[3] != m) { o = q[3]; sub(/.*\//, "", o); it = it " (" o ")" }
        if (q[4] == pf) pit = it
        V[k, it] += h[5]; I[it] = 1 }
      if (h[6] == m && q[2] == l) out[k] += h[5]
      if (h[6] == m && q[2] == sd) V[k, sd " (own)"] -= h[5]
      if (q[3] == m && q[4] == sd) { V[k, sd " (own)"] += h[5]; I[sd " (own)"] = 1 } }
    END { ce = cfit(j, E, C, PI, hc)
      for (i = 1; i <= j; i++) { V[run[i], l " (own)"] = L[run[i]] - out[run[i]] - SL[i]; V[run[i], sd " (own)"] -= SD[i]
        if (pit != "") V[run[i], pit] -= ce * E[i] }
      I[l " (own)"] = 1
      for (it in I) { for (i = 1; i <= j; i++) Y[i] = V[run[i], it]
        v = diff(j, N, Y, na, nb); if (v >= 0.5 || v <= -0.5) printf "%.1f\t%s\n", v, it } }' \
    "$RES/fig.tmp" "$f" |
    sort -t$'\t' -k1,1gr | head -n 8 |
    awk -F'\t' '{ gsub(/\|/, "\\|", $2); sub(/^uverbs::/, "", $2); sub(/^→ uverbs::/, "→ ", $2)
      printf "%s`%s` %s", (NR > 1 ? ", " : ""), $2, $1 } END { print "" }'
}
REPRO="bench/perfloops.sh"
for k in "${KERNELS[@]}"; do REPRO+=" --kernel $k"; done
[ "$RUNS" != 2 ] && REPRO+=" --runs $RUNS"
MET=0 MISSED=0 UNJ=0 SAME=0 DIFF=0 MISSES=()
{
echo "<!-- perfloops:begin -->"
echo "## Per message in instructions (issue 28)"
echo
echo "Generated by \`bench/perfloops.sh\` on $(date -u +%Y-%m-%d) from commit $COMMIT, $RUSTC."
echo "Reproduce: \`$REPRO --into BENCHMARKS.md\` (${WALL:-?} here, builds included; \`--report-only\`"
echo "rewrites this section from \`target/bench/perfloops/\`)."
echo
echo "User-space instructions per iteration of each test's loop, \`uverbs perf TEST\` against"
echo "Debian's perftest 4.5 (\`ib_TEST\`, libibverbs 44 with its rxe and siw providers), both"
echo "sides of a test the same program, in one boot per kernel (1 rxe + 1 siw): the server"
echo "plain, the client under callgrind ($(sed -n 1p "$RES/valgrind.version" 2>/dev/null || echo valgrind)) at N = $LN1 and N = $LN2 iterations"
echo "(bandwidth: $BN1 and $BN2, above its tx depth), \`-F -I 0 -s 2\` (bandwidth \`-t 128 -Q 100\`);"
echo "rxe0 through 127.0.0.1 with \`-x 1\`, siw0 with \`-R\` (the RDMA CM connects). \`uverbs perf\`"
echo "has no read tests. Counted: the inclusive instructions of the function that runs the loop"
echo "(uverbs: \`run_write_lat\`, \`run_send_lat\`, \`run_bw_client\`; perftest, stripped: the function"
echo "of ib_TEST that calls the provider's poll) less its one-off calls into its own program"
echo "(perftest's clock calibration at the start of a latency loop, which spins for a time),"
echo "so set-up, the exchange and the report stay out; per iteration (I(N2) − I(N1)) / (N2 − N1),"
echo "the medians of the runs of each length. The client's waits spin, and how often is"
echo "timing, so they are counted apart. *Memory checks* (write_lat waits for the other side's"
echo "write in its buffer): the loop function's instructions that ran more than 3 N times (not"
echo "those of a loop of polls, run once a poll or once an empty one), each once per empty"
echo "check, taken out. *Empty polls*: at each call site of the poll function in the loop"
echo "(uverbs' \`Cq::poll\`, in the loop and in \`send_done\`; perftest's: the provider's function that"
echo "\`objects_loops count DEV poll_empty N\` calls N times in the same boot), its calls less the"
echo "completions it reaps (latency: N a site; bandwidth: the site that polls most reaps them"
echo "all, 1 per 100 and the last); each costs its caller's instructions that ran once a poll or"
echo "once an empty poll there (counted), and the poll's own for an empty CQ, fitted over the"
echo "runs (the polls' inclusive instructions = ce E + cf C; the hot calls section's empty poll,"
echo "marked h, when the runs cannot tell ce). The figure without the spins is exact when every"
echo "run of a length comes to the same count (the last column); only then is a row judged. uverbs runs"
echo "the CLI built as it ships with its symbols kept (\`CARGO_PROFILE_RELEASE_STRIP=false\`, DWARF"
echo "dropped), for the names; its server, the shipped build. Target (issue 28): every"
echo "per-message loop ≤ 1.0× perftest's."
echo
for k in "${KERNELS[@]}"; do
  K=$k f=$RES/$k.out
  [ -s "$f" ] || continue
  KR=$(rounds "$f")
  echo "### Linux $k ($(awk '$1 == "I" && $2 == "kernel" { print $3; exit }' "$f"), $KR run$([ "$KR" = 1 ] || echo s) of each client)"
  echo
  echo "| test | device | uverbs instr/message | perftest instr/message | uverbs / perftest | ≤ 1.0× | with the spins: uverbs, perftest | an empty poll: the poll's + the caller's (by call site): uverbs, perftest | empty polls per run (N1/N2): uverbs; perftest | empty memory checks per run: uverbs; perftest | same in every run: with spins; without |"
  echo "|---|---|---:|---:|---:|---|---|---|---|---|---|"
  for t in "${TESTS[@]}"; do
    for d in "${DEVS[@]}"; do
      read -r uw us uws uss ucost ue uc < <(figures "$f" u "$t" "$d")
      read -r pw ps pws pss pcost pe pc < <(figures "$f" p "$t" "$d")
      rt=$(ratio "$us" "$ps")
      if [ "$rt" = - ]; then v=-
      elif [ "$uss" != yes ] || [ "$pss" != yes ]; then v="not judged (runs differ)"; UNJ=$((UNJ + 1))
      elif awk -v a="$us" -v b="$ps" 'BEGIN { exit !(a <= b) }'; then v="**met**"; MET=$((MET + 1))
      else v="**missed**"; MISSED=$((MISSED + 1)); [ "$k" = "${KERNELS[0]}" ] && MISSES+=("$t $d $rt"); fi
      sw=no; [ "$uws" = yes ] && [ "$pws" = yes ] && sw=yes
      so=no; [ "$uss" = yes ] && [ "$pss" = yes ] && so=yes
      if [ "$KR" -lt 2 ]; then sw="(one run)" so="(one run)"
      elif [ "$so" = yes ]; then SAME=$((SAME + 1)); else DIFF=$((DIFF + 1)); fi
      [ "$t" = write_lat ] || { uc=-; pc=-; }
      echo "| $t | $d | $(n1 "$us") | $(n1 "$ps") | $rt | $v | $(n1 "$uw"), $(n1 "$pw") ($(ratio "$uw" "$pw")) | $ucost, $pcost | $ue; $pe | $uc; $pc | $sw; $so |"
    done
  done
  echo
  echo -n "perftest's loop functions (callgrind's names for code without a symbol: the address in ib_TEST): "
  sep=''
  for t in "${TESTS[@]}"; do echo -n "$sep$t \`$(loopfn "$f" p "$t")\`"; sep=', '; done
  echo "; the providers' poll: $(for d in "${DEVS[@]}"; do pollfn "$f" "$d" | awk -F'\t' '{ n = $1; sub(/.*\//, "", n); printf "`%s` in %s, ", $2, n }'; done | sed 's/, $//')."
  echo "The hot calls section's empty poll (the fallback, marked h): uverbs $(empty_cost "$k" rxe0 4) (rxe0), $(empty_cost "$k" siw0 4) (siw0);"
  echo "libibverbs $(empty_cost "$k" rxe0 5), $(empty_cost "$k" siw0 5)."
  echo
done
echo "$MET rows met the target, $MISSED missed it, $UNJ not judged (a side's runs of a length came"
echo "to different counts without the spins: its empty polls not all accounted for; in a"
echo "bandwidth loop they are few and come between posts, and the caller's instructions for one"
echo "are not told apart by their counts); $SAME rows counted the same in every run without the"
echo "spins (both sides, both lengths), $DIFF did not."
echo
k=${KERNELS[0]} K=${KERNELS[0]}
KR=$(rounds "$RES/$k.out")
if [ ${#MISSES[@]} -gt 0 ]; then
  echo "### Where the uverbs instructions go (Linux $k, the misses)"
  echo
  echo "Per iteration, the spins taken out as in the table: the inclusive instructions of each"
  echo "call the loop function makes (→, not the one-off ones; uverbs: and of those \`send_done\`"
  echo "makes, which only the loops call), the poll's less its empty polls, and the loop"
  echo "function's own (less its empty checks of memory and its instructions for empty polls;"
  echo "uverbs: \`send_done\`'s too); the 8 largest, \`uverbs::\` left out of the names. perftest's"
  echo "functions and its provider's have no symbols (callgrind names them by their address in"
  echo "their object)."
  echo
  echo "| test | device | uverbs / perftest | uverbs (unstripped): largest per iteration | perftest: largest per iteration |"
  echo "|---|---|---|---|---|"
  for m in "${MISSES[@]}"; do
    read -r t d rt <<< "$m"
    echo "| $t | $d | $rt | $(attr "$RES/$k.out" u "$t" "$d") | $(attr "$RES/$k.out" p "$t" "$d") |"
  done
  echo
fi
echo "<!-- perfloops:end -->"
} > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
rm -f "$RES/fig.tmp" "$RES/m.tmp"
if [ -n "$INTO" ]; then
  put_section "$INTO" "$OUT" "<!-- perfloops:begin -->" "<!-- perfloops:end -->"
  say "section put into $INTO"
fi
say "wrote $OUT in $(secs_since "$T_ALL")"
exit "$FAILED"
