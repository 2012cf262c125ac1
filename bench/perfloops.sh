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
# A loop waits by spinning, and how often is timing, so the spins are counted apart, by
# instruction (callgrind --dump-instr=yes --collect-jumps=yes):
#   - spin loops: the loops of the loop function (uverbs: and of send_done) whose back
#     edge was taken more than 3 N times in some run of the same program on the same
#     device (any test, either length): the waits. A wait's loop goes round again only
#     when it found nothing, so its back edge is taken once a spin: an empty poll (a
#     loop around a call of the provider's poll; uverbs' Cq::poll is inline, its loops
#     hold the poll itself), an empty check of memory (write_lat waits for the other
#     side's write in its buffer); a loop of polls is one only when its back edge was
#     taken as often as its polls found nothing (the calls at the sites within it less
#     their completions; an inline poll: an instruction of the function runs as often as
#     the back edge was taken plus the polls that found something), not an outer loop
#     that real passes take too. Each instruction within a spin loop (from the back
#     edge's target to its source; outside every one, of its function's) runs M times a
#     spin: M the most, over the runs that spun more than 3 N times, of its count over
#     the back edge's taken count, rounded down (a real pass runs it fewer times). A run's spin instructions, M
#     times the taken count, are taken out: each instruction of an empty spin's path
#     exactly E times, E the spins of that run;
#   - few spins (a loop that never spun more than 3 N times: a bandwidth loop's empty
#     polls, between posts): a back edge of the loop function taken a varying number of
#     times in the runs of a length, and once an empty poll (perftest: as many times as
#     the poll's empty calls, below; uverbs: an instruction of the function runs as many
#     times as the back edge was taken plus the polls that found something); each
#     instruction of the function runs, a spin, its change between the two runs of a
#     length whose back edge counts differ most, over that difference (a whole number,
#     else the row is "spins miscounted"); a run's: that times the taken count. Counted
#     from the runs' own differences, these rows check less: marked d;
#   - empty calls of the poll function (perftest's: the function of the provider's
#     library that `objects_loops count DEV poll_empty N` calls N times, in the same
#     boot): at each call site of the loop, its calls less the completions it reaps
#     (latency: N a site; bandwidth: the site that polls most reaps them all, one per
#     100 and the last); each costs the poll's own instructions for an empty CQ, fitted
#     over the runs (the polls' inclusive instructions = ce E + cf C; the hot calls
#     section's empty poll when the runs cannot tell ce); the caller's are its loop's.
#   The figure without the spins is exact when every run of a length comes to the same
#   count (the table says so, and judges only then).
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
# spinrow FILE TOOL TEST DEV LOOPFN: the spins of one row, counted by instruction, into
# $RES/spin.tmp. A spin loop is a loop of the loop function (uverbs: or of send_done)
# whose back edge (a B line; not a repeated string instruction's, to itself) was taken
# more than 3 N times in some run of the same program on the same device (any test and
# length of the kernel's file: the code is the same, and a device has its own paths
# through the poll): a wait, whose back edge is taken once a spin and only then (it
# goes round again only when it found nothing). Each instruction within the loop (from
# the back edge's target to its source; the innermost spin loop holding it) runs M
# times a spin: M the most, over those runs that spun more than 3 N times, of its count
# over the taken count, rounded down (a real pass runs it fewer times than the spins
# then); a run's spin instructions: M times the taken count, summed. Lines: "N R SPIN_L
# SPIN_D INLINE CHECKS BAD" a run (SPIN_L, SPIN_D: the loop function's, send_done's;
# INLINE: the spins of the loops of an inline poll (uverbs: of a function calling
# *Cq::take, the out-of-line copy of a non-empty poll); CHECKS: of the loops without a
# poll (memory); BAD: 1 when an instruction ran fewer times than its spins), then "W
# WIDTHS RANGES": the instructions a spin of the loops that spun in the row, "p" a loop
# around a poll call site, "i" an inline poll, "c" a memory check ("i21,c5"; "-" none),
# and the spin loops of the loop function ("LO-HI,...", decimal).
spinrow() {
  local f=$1 x=$2 t=$3 d=$4 lf=$5 pf sd=''
  if [ "$x" = u ]; then pf=$'/pl/pie-u/uverbs\tuverbs::verbs::objects::cq::Cq::poll' sd=uverbs::perf::send_done
  else pf=$(pollfn "$f" "$d"); fi
  awk -v x="$x" -v t="$t" -v d="$d" -v lf="$lf" -v sd="$sd" -v pf="$pf" -v n1="$(n1of "$t")" -v n2="$(n2of "$t")" '
    function hex(s,    i, v) { v = 0; s = tolower(s); sub(/^0x/, "", s)
      for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
      return v }
    # the runs of the same program: uverbs every key u.*; perftest the keys of ib_TEST
    function ours(key,    k) { split(key, k, "."); if (k[1] != x || k[2] != d) return 0; return x == "u" || k[3] == t }
    function nof(key,    k) { sub(/ .*/, "", key); split(key, k, "."); return k[4] + 0 }
    function fnok(fn) { return fn == lf || (sd != "" && fn == sd) }
    # 1 when back edge e (of function fn, from lo to hi) was taken, in every run of the
    # row, as often as the poll call sites within it were called less the completions
    # they reaped (N a site, bandwidth 1 per 100); -1 when it holds no call site
    function sitespure(e, fn, lo, hi,    s, z, k, v, n, ok, j, st) { n = 0
      for (s in site) { split(s, z, SUBSEP); if (z[1] == fn && z[2] >= lo && z[2] <= hi) st[++n] = z[2] }
      if (n == 0) return -1
      ok = 1
      for (k in rr) { v = 0; for (j = 1; j <= n; j++) v += SCS[k, fn, st[j]]
        v -= (t ~ /_lat$/ ? nc[k] * n : nc[k]); if (v < 0) v = 0; if (T[k, e] + 0 != v) ok = 0 }
      return ok }
    { split($0, h, " ") }
    h[1] == "B" && ours(h[2]) { fn = $0; sub(/^B [^ ]+ [^ ]+ [^ ]+ [^ ]+ [^ ]+ [^ ]+ /, "", fn)
      if (!fnok(fn)) next
      e = fn SUBSEP h[6] SUBSEP h[7]; T[h[2] " " h[3], e] = h[4]; run[h[2] " " h[3]] = 1; edge[e] = 1
      if (h[4] > 3 * nof(h[2]) && hex(h[7]) < hex(h[6])) spin[e] = 1; next }
    h[1] == "J" && ours(h[2]) { fn = $0; sub(/^J [^ ]+ [^ ]+ [^ ]+ [^ ]+ /, "", fn)
      if (!fnok(fn)) next
      C[h[2] " " h[3], fn, h[5]] = h[4]; ins[fn, h[5]] = 1; run[h[2] " " h[3]] = 1; next }
    h[1] == "S" && ours(h[2]) { split($0, q, "\t"); sub(/^S [^ ]+ [^ ]+ [^ ]+ [^ ]+ [^ ]+ /, "", q[1])
      if (fnok(q[2]) && (q[3] "\t" q[4]) == pf) { site[q[2], hex(h[6])] = 1; SCS[h[2] " " h[3], q[2], hex(h[6])] += h[4] }
      next }
    h[1] == "K" && x == "u" && ours(h[2]) { split($0, q, "\t")
      if (fnok(q[2]) && q[4] ~ /Cq::take$/) { taker[q[2]] = 1; TK[h[2] " " h[3], q[2]] += h[4] } }
    END {
      pre = x "." d "." t "."
      for (k in run) if (index(k, pre) == 1) { rr[k] = 1; nc[k] = (t ~ /_lat$/ ? nof(k) : int((nof(k) + 99) / 100)) }
      # the spin loops, their ranges; a loop of polls whose back edge is taken more often
      # than its polls found nothing (an outer loop, taken by real passes too) is none:
      # around a call site, as many times as the calls there less the completions; around
      # an inline poll, an instruction of the function runs as many times as the back edge
      # was taken and the polls found something
      for (e in spin) { split(e, p, SUBSEP); lo[e] = hex(p[3]); hi[e] = hex(p[2]); efn[e] = p[1]
        kind[e] = (p[1] in taker) ? "i" : "c"
        pure = sitespure(e, p[1], lo[e], hi[e]); if (pure >= 0) kind[e] = "p"; else pure = 1
        if (kind[e] == "i") { pure = 0
          for (i in ins) { split(i, q, SUBSEP); if (q[1] != p[1]) continue; ok = 1
            for (k in rr) if (C[k, q[1], q[2]] + 0 != T[k, e] + ((k SUBSEP q[1]) in TK ? TK[k, q[1]] : nc[k])) ok = 0
            if (ok) { pure = 1; break } } }
        if (!pure) { delete spin[e]; impure[e] = 1 } }
      # an instruction to the innermost spin loop holding it, else (the path of a spin may
      # leave the range of its loop) to the spin loop of its function that spun most
      for (i in ins) { split(i, p, SUBSEP); a = hex(p[2]); best = ""
        for (e in spin) if (efn[e] == p[1] && a >= lo[e] && a <= hi[e] && (best == "" || hi[e] - lo[e] < hi[best] - lo[best])) best = e
        if (best == "") { top = 0
          for (e in spin) if (efn[e] == p[1]) for (k in run) if (T[k, e] > 3 * nof(k) && T[k, e] > top && C[k, p[1], p[2]] >= T[k, e]) { top = T[k, e]; best = e } }
        if (best != "") { of[i] = best; m = 0
          for (k in run) if (T[k, best] > 3 * nof(k)) {
            v = int(C[k, p[1], p[2]] / T[k, best]); if (v > m) m = v }
          M[i] = m; W[best] += m } }
      # few spins (a loop that never spun more than 3 N times, a bandwidth loop s few empty
      # polls): a back edge of the row taken a varying number of times in the runs of a
      # length, once an empty poll (perftest: as many times as the empty calls of the poll
      # sites within it;
      # uverbs: as many as the polls that found nothing, an instruction of the function
      # running once a poll, as many times as the back edge was taken and *Cq::take called,
      # or, without a K line of those calls, as the completions: N, bandwidth 1 per 100);
      # an instruction runs its change between the two runs of a length whose back edge
      # counts differ most, over that difference, times a spin (a whole number, or BAD)
      for (e in edge) { if ((e in spin) || (e in impure)) continue; split(e, p, SUBSEP); if (hex(p[3]) >= hex(p[2])) continue
        big = 0; pure = 1
        if (x == "p") pure = (sitespure(e, p[1], hex(p[3]), hex(p[2])) == 1)
        for (k in rr) for (k2 in rr) if (nof(k) == nof(k2) && T[k, e] - T[k2, e] > big) { big = T[k, e] - T[k2, e]; ka = k; kb = k2 }
        if (!pure || big == 0) continue
        if (x == "u") { pure = 0
          for (i in ins) { split(i, q, SUBSEP); if (q[1] != p[1]) continue; ok = 1
            for (k in rr) if (C[k, q[1], q[2]] + 0 != T[k, e] + ((k SUBSEP q[1]) in TK ? TK[k, q[1]] : nc[k])) ok = 0
            if (ok) { pure = 1; break } }
          if (!pure) continue }
        kind[e] = "d"; dused[e] = 1
        for (i in ins) { split(i, q, SUBSEP); if (q[1] != p[1] || (i in of)) continue
          dc = C[ka, q[1], q[2]] - C[kb, q[1], q[2]]; if (dc == 0) continue
          if (dc < 0 || dc % big != 0) { dbad = 1; continue }
          if (i in od) { dbad = 1; continue }
          od[i] = e; M[i] = dc / big; W[e] += M[i] } }
      for (k in rr) { split(k, kr, " ")
        n = nof(kr[1]); sl = 0; sdd = 0; em = 0; ch = 0; bad = dbad
        for (i in ins) { split(i, p, SUBSEP); c = C[k, p[1], p[2]] + 0
          b = (i in of) ? of[i] : (i in od) ? od[i] : ""
          if (b != "") { s = M[i] * T[k, b]; if (c < s) bad = 1; if (p[1] == lf) sl += s; else sdd += s } }
        for (e in spin) { if (kind[e] == "i") em += T[k, e]; else if (kind[e] == "c") ch += T[k, e]; if (T[k, e] > 0) used[e] = 1 }
        for (e in dused) { if (x == "u") em += T[k, e]; if (T[k, e] > 0) used[e] = 1 }
        printf "%d %d %d %d %d %d %d\n", n, kr[2], sl, sdd, em, ch, bad }
      ws = ""; rs = ""
      for (kk = 1; kk <= 4; kk++) for (e in used) if (kind[e] == substr("picd", kk, 1)) ws = ws (ws == "" ? "" : ",") kind[e] W[e]
      for (e in spin) if (efn[e] == lf) rs = rs (rs == "" ? "" : ",") lo[e] "-" hi[e]
      print "W", (ws == "" ? "-" : ws), (rs == "" ? "-" : rs) }' "$f" > "$RES/spin.tmp"
}
# measure FILE KEY R TOOL TEST DEV N LOOPFN: one run (spinrow's lines in $RES/spin.tmp),
# "LOOP ONCE POLLS ECALLS SPIN_L SPIN_D PINCL COMP EMPTY CHECKS BAD": the loop
# function's inclusive instructions; those of its one-off calls into its own program
# (set-up within the loop function); the calls of the poll function in the loop (and in
# send_done) and the empty ones; the spin instructions of the loop function and of
# send_done (spinrow); the polls' inclusive instructions; the completions they reaped;
# the empty polls (calls, and spins of inline polls); the empty memory checks; 1 when
# spinrow found a count wrong; all "-" when the run has no count
measure() {
  local f=$1 key=$2 r=$3 x=$4 t=$5 d=$6 n=$7 lf=$8 main pf loop once sp
  if [ -z "$(rl "$f" N "$key" "$r")" ] || [ -z "$lf" ]; then echo "- - - - - - - - - - -"; return; fi
  sp=$(awk -v n="$n" -v r="$r" '$1 == n && $2 == r' "$RES/spin.tmp")
  if [ "$x" = u ]; then main=/pl/pie-u/uverbs pf=$'/pl/pie-u/uverbs\tuverbs::verbs::objects::cq::Cq::poll'
  else main=/usr/bin/ib_$t pf=$(pollfn "$f" "$d"); fi
  loop=$(rl "$f" K "$key" "$r" | awk -F'\t' -v m="$main" -v l="$lf" '$3 == m && $4 == l { split($1, h, " "); s += h[5] } END { print s + 0 }')
  # the loop function's one-off calls into its own program (perftest's clock calibration,
  # get_cpu_mhz, at the start of a latency loop: it spins for a time)
  once=$(rl "$f" K "$key" "$r" | awk -F'\t' -v m="$main" -v l="$lf" '{ split($1, h, " ") }
      h[6] == m && $2 == l && $3 == m && h[4] == 1 { s += h[5] } END { print s + 0 }')
  # the call sites of the poll in the loop (and in send_done): each reaps N completions
  # (latency; bandwidth: the site that polls most reaps them all), the rest are empty
  { echo "${sp:-$n $r 0 0 0 0 0}"; rl "$f" S "$key" "$r"; } |
  awk -F'\t' -v m="$main" -v l="$lf" -v pf="$pf" -v t="$t" -v n="$n" '
    { split($1, h, " ") }
    NR == 1 { sp = $0; next }
    h[1] == "S" && h[7] == m && ($2 == l || $2 == "uverbs::perf::send_done") && ($3 "\t" $4) == pf {
      ns++; sc[ns] = h[4]; si[ns] = h[5] }
    END {
      split(sp, s, " ")
      tot = (t ~ /_lat$/) ? 0 : int(n / 100) + (n % 100 > 0)
      for (i = 1; i <= ns; i++) { if (t ~ /_lat$/) cp[i] = n; else if (big == "" || sc[i] > sc[big]) big = i }
      if (big != "") cp[big] = tot
      for (i = 1; i <= ns; i++) { e = sc[i] - cp[i]; if (e < 0) e = 0; E += e; P += sc[i]; PI += si[i]; C += cp[i] }
      printf "%d %d %d %d %d %d %d %d %d\n", P, E, s[3], s[4], PI, C, E + s[5], s[6], s[7] }' > "$RES/m.tmp"
  echo "$loop $once $(cat "$RES/m.tmp")"
}
# The cost of an empty poll to the poll itself, in awk (figures, attr): cfit(J, E, C, PI)
# fits the polls' inclusive instructions of the runs 1..J, PI = ce E + cf C (E the empty
# polls, C the completions), and returns ce; the hot calls section's empty poll when the
# runs cannot tell it (CEH set then). The callers' instructions for the empty polls are
# counted, not fitted (spinrow, measure).
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
# $RES/fig.tmp (spinrow's lines first into $RES/spin.tmp)
runs() {
  local f=$1 x=$2 t=$3 d=$4 lf=$5 r n
  spinrow "$f" "$x" "$t" "$d" "$lf"
  : > "$RES/fig.tmp"
  for r in $(seq 1 "$KR"); do
    for n in $(n1of "$t") $(n2of "$t"); do
      echo "$n $r $(measure "$f" "$x.$d.$t.$n" "$r" "$x" "$t" "$d" "$n" "$lf")" >> "$RES/fig.tmp"
    done
  done
}
# figures FILE TOOL TEST DEV: "WITH WITHOUT SAME_WITH SAME_WITHOUT SPIN_COST EMPTIES
# CHECKS" per iteration (the medians of the runs of each length, differenced). WITH:
# the loop less its one-off calls; WITHOUT: less the spins' instructions (spinrow) and
# the fitted cost of each empty call of the poll to the poll; SAME_*: yes when every run of a length counted the same
# ("no (spins miscounted)" when spinrow found a count wrong). SPIN_COST: the poll's
# instructions for an empty call (h: the hot calls section's) + the instructions a spin
# of the spin loops (spinrow's widths); EMPTIES and
# CHECKS per run "N1/N2", runs ","-separated.
figures() {
  local f=$1 x=$2 t=$3 d=$4
  runs "$f" "$x" "$t" "$d" "$(loopfn "$f" "$x" "$t")"
  awk -v na="$(n1of "$t")" -v nb="$(n2of "$t")" -v hc="$(empty_cost "$K" "$d" "$([ "$x" = u ] && echo 4 || echo 5)")" \
      -v ws="$(awk '$1 == "W" { print $2 }' "$RES/spin.tmp")" "$CFIT_AWK"'
    $3 == "-" { bad = 1; next }
    { j++; N[j] = $1; W[j] = $3 - $4; E[j] = $6; C[j] = $10; PI[j] = $9; Y[j] = W[j] - $7 - $8; if ($13) miss = 1
      el[$2] = el[$2] (el[$2] == "" ? "" : "/") $11; cl[$2] = cl[$2] (cl[$2] == "" ? "" : "/") $12 }
    END { if (bad || j < 2) { print "- - - - - - -"; exit }
      with = diff(j, N, W, na, nb); sw = DSAME
      ce = cfit(j, E, C, PI, hc)
      for (i = 1; i <= j; i++) Y[i] -= ce * E[i]
      without = diff(j, N, Y, na, nb)
      cs = ""; ec = 0; for (i = 1; i <= j; i++) if (E[i] > 0) ec = 1
      if (ec) cs = sprintf("%.1f%s", ce, (CEH ? "h" : ""))
      if (ws != "-") cs = cs (cs == "" ? "" : "+") ws
      if (cs == "") cs = "-"
      for (r = 1; r in el; r++) { els = els (r > 1 ? "," : "") el[r]; cls = cls (r > 1 ? "," : "") cl[r] }
      printf "%.1f %.1f %s %s %s %s %s\n", with, without, (sw ? "yes" : "no"), (miss ? "miscounted" : DSAME ? "yes" : "no"), cs, els, cls }' "$RES/fig.tmp"
}
rounds() { grep -c '^I round [0-9]* done$' "$1" || true; }
n1() { awk -v x="$1" 'BEGIN { if (x == "-") print "-"; else { s = sprintf("%.1f", x); sub(/\.0$/, "", s); print s } }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b <= 0) print "-"; else printf "%.3f×", a / b }'; }
# attr FILE TOOL TEST DEV: where a loop's instructions go, per iteration, the spins taken
# out as in figures: the inclusive instructions of each call the loop function makes (→,
# not the one-off ones; uverbs: and of those send_done makes, which only the loops call),
# the polls' less their empty ones, and the loop function's own (less its spin
# instructions and its instructions for empty polls; uverbs: send_done's too); the
# largest 8: "`name` 12.3, ..."
attr() {
  local f=$1 x=$2 t=$3 d=$4 lf main pf
  lf=$(loopfn "$f" "$x" "$t")
  if [ "$x" = u ]; then main=/pl/pie-u/uverbs pf=uverbs::verbs::objects::cq::Cq::poll
  else main=/usr/bin/ib_$t pf=$(pollfn "$f" "$d" | cut -f2); fi
  runs "$f" "$x" "$t" "$d" "$lf"
  awk -v na="$(n1of "$t")" -v nb="$(n2of "$t")" -v l="$lf" -v m="$main" -v pre="$x.$d.$t." -v pf="$pf" \
      -v hc="$(empty_cost "$K" "$d" "$([ "$x" = u ] && echo 4 || echo 5)")" "$CFIT_AWK"'
    BEGIN { sd = "uverbs::perf::send_done" }
    FILENAME ~ /fig/ { if ($3 == "-") next; j++; N[j] = $1; E[j] = $6; C[j] = $10; PI[j] = $9
      run[j] = pre $1 " " $2; L[run[j]] = $3; SL[j] = $7; SD[j] = $8; next }
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
echo "timing, so they are counted apart, by instruction (callgrind \`--dump-instr=yes"
echo "--collect-jumps=yes\`). *Spin loops*: the loops of the loop function (uverbs: and of"
echo "\`send_done\`) whose back edge was taken more than 3 N times in some run of the same program"
echo "on the same device (any test, either length). A wait goes round again only when it found"
echo "nothing, so its back edge is taken once a spin: an empty poll (a loop around a call of the"
echo "provider's poll; uverbs' \`Cq::poll\` is inline, its loops hold the poll itself) or an empty"
echo "memory check (write_lat waits for the other side's write in its buffer); a loop of polls"
echo "is one only when its back edge was taken as often as its polls found nothing (the calls at"
echo "the sites within it less their completions; an inline poll: an instruction of the function"
echo "runs as often as the back edge was taken plus the polls that found something), not an outer"
echo "loop that real passes take too. Each instruction within a spin loop (or, outside every one,"
echo "of its function's) runs M times a spin, M the most, over the runs that spun more than 3 N"
echo "times, of its count over the back edge's, rounded down (a real pass runs it fewer times);"
echo "a run's spin instructions, M times its taken count, are taken out, so each instruction of"
echo "an empty spin's path exactly E times, E that run's spins. *Empty calls of a poll function*"
echo "(perftest's: the provider's function that \`objects_loops count DEV poll_empty N\` calls N"
echo "times in the same boot): at each call site, its calls less the completions it reaps"
echo "(latency: N a site; bandwidth: the site that polls most reaps them all, 1 per 100 and the"
echo "last); each costs the poll's own instructions for an empty CQ, fitted over the runs (the"
echo "polls' inclusive instructions = ce E + cf C; the hot calls section's empty poll, marked h,"
echo "when the runs cannot tell ce), the caller's being its loop's. *Few spins* (a loop that never"
echo "spun more than 3 N times: a bandwidth loop's empty polls, between posts): a back edge taken"
echo "a varying number of times in the runs of a length, and once an empty poll (perftest: as"
echo "often as the poll's empty calls; uverbs: an instruction of the function runs as often as"
echo "the back edge was taken plus the polls that found something); each instruction of the"
echo "function runs, a spin, its change between the two runs of a length whose back edge counts"
echo "differ most, over that difference (a whole number, else \"spins miscounted\"): counted from"
echo "the runs' own differences, these (marked d) check less than the others. The figure"
echo "without the spins is exact when every run of a length comes to the same count (the last"
echo "column); only then is a row judged. uverbs runs"
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
  echo "| test | device | uverbs instr/message | perftest instr/message | uverbs / perftest | ≤ 1.0× | with the spins: uverbs, perftest | instructions a spin (the poll's empty call + p: a loop around it, i: an inline poll's, c: a memory check's, d: few spins, from the runs' differences): uverbs, perftest | empty polls per run (N1/N2): uverbs; perftest | empty memory checks per run: uverbs; perftest | same in every run: with spins; without |"
  echo "|---|---|---:|---:|---:|---|---|---|---|---|---|"
  for t in "${TESTS[@]}"; do
    for d in "${DEVS[@]}"; do
      read -r uw us uws uss ucost ue uc < <(figures "$f" u "$t" "$d")
      read -r pw ps pws pss pcost pe pc < <(figures "$f" p "$t" "$d")
      rt=$(ratio "$us" "$ps")
      if [ "$rt" = - ]; then v=-
      elif [ "$uss" = miscounted ] || [ "$pss" = miscounted ]; then v="not judged (spins miscounted)"; UNJ=$((UNJ + 1))
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
echo "to different counts without the spins, or its spins were miscounted: see below); $SAME rows"
echo "counted the same in every run without the spins (both sides, both lengths), $DIFF did not."
echo
k=${KERNELS[0]} K=${KERNELS[0]}
KR=$(rounds "$RES/$k.out")
if [ ${#MISSES[@]} -gt 0 ]; then
  echo "### Where the uverbs instructions go (Linux $k, the misses)"
  echo
  echo "Per iteration, the spins taken out as in the table: the inclusive instructions of each"
  echo "call the loop function makes (→, not the one-off ones; uverbs: and of those \`send_done\`"
  echo "makes, which only the loops call), the poll's less its empty polls, and the loop"
  echo "function's own (less its spin instructions and its instructions for empty polls; uverbs:"
  echo "\`send_done\`'s too); the 8 largest, \`uverbs::\` left out of the names. perftest's"
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
