#!/usr/bin/env bash
# bench/instructions.sh - user-space instructions of whole commands (issue 28): each
# `uverbs` command under valgrind's callgrind in the VM rig, beside its peer from
# rdma-core, infiniband-diags and iproute2 in the same boot, with system calls, peak RSS
# and page faults; and the CI guard that fails when a command's count grows.
#
# Usage: bench/instructions.sh [--kernel SERIES]... [--runs N] [--scale] [--out FILE]
#                              [--into FILE] [--report-only]
#        bench/instructions.sh --guard FILE | --rebaseline FILE
#
#   --kernel SERIES  a kernel series of tests/vm/versions (6.1, 6.12); repeatable
#                    (default: 6.1)
#   --runs N         runs of each command under callgrind (default 3)
#   --scale          also boot each kernel with 16 rxe + 16 siw (the default boot has
#                    2 + 2)
#   --out FILE       the report section (default target/bench/instructions/instructions.md)
#   --into FILE      also put the section into FILE (BENCHMARKS.md), between the lines
#                    "<!-- instructions:begin -->" and "<!-- instructions:end -->" when
#                    FILE has them, else at the end
#   --report-only    write the section again from the raw outputs of the last run
#                    (target/bench/instructions/), without building or booting anything
#   --guard FILE     the CI guard (scripts/test-all.sh): one boot of the kernel FILE
#                    names (2 rxe + 2 siw), the uverbs commands only, 3 runs each; fails
#                    (exit 1) when the least count of a command is more than 2% above
#                    the greatest FILE recorded for it (the same count when its runs
#                    agree: a command without threads), when a command gave no count, or
#                    when FILE was recorded with another rustc (rebaseline then, and say
#                    why in the commit)
#   --rebaseline FILE  the same run, written to FILE (bench/instructions.tsv): each
#                    command's least and greatest count, with `rustc -V` and the kernel
#
# What it does:
#  1. builds the shipped CLI (release, musl: the static PIE, stripped) and, for the
#     attribution, the same unstripped (CARGO_PROFILE_RELEASE_STRIP=false,
#     target/unstripped; its DWARF dropped, its symbols kept), bench/rusage.c
#     (peak RSS and page faults through wait4), and takes the host's strace and valgrind
#     (Debian's, installed when missing);
#  2. boots the rig per kernel (and device count); bench/instructions-guest.sh counts
#     each command's "I refs" RUNS times, the commands and their peers taking turns:
#       devinfo -v, devinfo --json   against ibv_devinfo -v (rdma-core 44)
#       devices, devices --json      against ibv_devices
#       ibstat                       against infiniband-diags 44's ibstat
#       ibstatus                     against its ibstatus, a dash script, with every
#                                    process it starts (--trace-children=yes)
#       counters -d rxe0 -i 1        against iproute2's `rdma statistic show link rxe0/1`
#                                    (`rdma statistic` of every device fails on siw)
#       counters, gids, check, probe, exporter --once (one collection, as a scrape makes it):
#                                    absolute (node_exporter, the exporter's peer, is Go
#                                    and does not run reliably under valgrind)
#     then once each: strace -f -c (system calls), rusage (peak RSS, minor faults), and,
#     in the first kernel's boots, the unstripped build with per-instruction output;
#  3. writes the section: the counts, the ratios against the ≤ 0.25× target, the
#     functions where each uverbs command spends its instructions, and (with --scale)
#     what each added device costs in the rows that miss, function by function.
# Raw outputs: target/bench/instructions/. Exit status: 0 when every boot ran (targets
# missed are reported, not fatal); 1 when a boot failed or, with --guard, a row regressed.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CRATE=$(cd "$HERE/.." && pwd)
TARGET=x86_64-unknown-linux-musl
RIG=${UVERBS_BENCH_RIG:-$CRATE/tests/vm/rig.sh}
TDIR=${CARGO_TARGET_DIR:-$CRATE/target}
RES=$TDIR/bench/instructions
OUT=''
INTO='' RUNS=3 SCALE=0 REPORT_ONLY=0 GUARD='' REBASE='' KERNELS=()
# --scale and the guard's options; the others are every instruction benchmark's
# (bench_opts)
script_opt() {
  case $1 in
    --scale) SCALE=1; return 1 ;;
    --guard) GUARD=${2:?}; return 2 ;;
    --rebaseline) REBASE=${2:?}; return 2 ;;
    *) return 0 ;;
  esac
}
say() { echo "bench/instructions: $*" >&2; }
. "$HERE/lib.sh"
bench_opts instructions.sh "$@"
T_ALL=$(now_us)
FAILED=0
RUSTC=$(rustc -V)

# The rows: LABEL|uverbs ARGS|PEER (a key of PEERS, or - for none)
ROWS=(
  "devinfo_v|devinfo -v|ibv_devinfo_v"
  "devinfo_json|devinfo --json|ibv_devinfo_v"
  "devices|devices|ibv_devices"
  "devices_json|devices --json|ibv_devices"
  "ibstat|ibstat|ibstat"
  "ibstatus|ibstatus|ibstatus"
  "counters|counters|-"
  "counters_port|counters -d rxe0 -i 1|rdma_statistic"
  "gids|gids|-"
  "check|check|-"
  "probe|probe|-"
  "exporter|exporter --once|-"
)
# PEER|FLAGS|the guest's command line
PEERS=(
  "ibv_devinfo_v|nsr|/usr/bin/ibv_devinfo -v"
  "ibv_devices|nsr|/usr/bin/ibv_devices"
  "ibstat|nsr|/usr/sbin/ibstat"
  "ibstatus|nsrc|/usr/sbin/ibstatus"
  "rdma_statistic|nsr|/usr/bin/rdma statistic show link rxe0/1"
)
row_label() { echo "${1%%|*}"; }
row_args() { local r=${1#*|}; echo "${r%|*}"; }
row_peer() { echo "${1##*|}"; }
peer_cmd() { local p; for p in "${PEERS[@]}"; do [ "${p%%|*}" = "$1" ] && { echo "${p##*|}"; return; }; done; }

# spec MODE: the guest's work (bench/instructions-guest.sh); MODE full or guard
spec() {
  local r p f
  if [ "$1" = guard ]; then
    for r in "${ROWS[@]}"; do echo "$(row_label "$r") pie n uverbs $(row_args "$r")"; done
    return
  fi
  for r in "${ROWS[@]}"; do echo "$(row_label "$r") pie nsr uverbs $(row_args "$r")"; done
  for p in "${PEERS[@]}"; do f=${p#*|}; echo "${p%%|*} peer ${f%%|*} ${p##*|}"; done
  if [ "$2" = attribution ]; then
    for r in "${ROWS[@]}"; do echo "$(row_label "$r") pie-u d uverbs $(row_args "$r")"; done
  fi
}

# counts FILE LABEL BUILD: the counts of one row, one a line
# stable FILE LABEL BUILD: the count when every run counted the same, else nothing
stable() { counts "$@" | sort -u | awk '{ v = $1; n++ } END { if (n == 1) print v }'; }
# lowest / highest FILE LABEL BUILD: the least and the greatest count of the runs
lowest() { counts "$@" | sort -g | head -n 1; }
highest() { counts "$@" | sort -g | tail -n 1; }

# boot KERNEL RXE SIW SPEC OUT: one boot running the spec; 0 when it ran cleanly
boot() {
  cp "$4" "$STAGE/spec"
  guest_boot "$1" "$2" "$3" instr "$5"
}

build_stage() { # MODE
  rm -rf "$STAGE"; mkdir -p "$STAGE"/{pie,pie-u,vg}
  musl_target
  local p
  p=$(build_cli pie) || exit 1
  cp "$p" "$STAGE/pie/uverbs"; cp "$p" "$RES/uverbs"
  if [ "$1" = full ]; then
    p=$(build_cli pie-u CARGO_PROFILE_RELEASE_STRIP=false CARGO_TARGET_DIR="$TDIR/unstripped") || exit 1
    cp "$p" "$RES/uverbs-unstripped"
    objcopy --strip-debug "$p" "$STAGE/pie-u/uverbs"
    musl-gcc -static -O2 -Wall -o "$STAGE/rusage" "$HERE/rusage.c"
    if command -v strace >/dev/null; then cp "$(command -v strace)" "$STAGE/strace"; else say "no strace on the host: no system-call counts"; fi
  fi
  stage_valgrind "$STAGE/vg"
  cp "$HERE/instructions-guest.sh" "$STAGE/"
}

# ------------------------------------------------------------ the CI guard
if [ -n "$GUARD$REBASE" ]; then
  RES=$RES/guard; STAGE=$RES/stage RUNS=3
  rm -rf "$RES"; mkdir -p "$RES"
  FILE=${GUARD:-$REBASE}
  k=${KERNELS[0]:-}
  if [ -z "$k" ] && [ -e "$FILE" ]; then k=$(sed -n 's/^# kernel: \([^ ]*\).*/\1/p' "$FILE"); fi
  [ -n "$k" ] || k=6.1
  if [ -n "$GUARD" ]; then
    [ -e "$GUARD" ] || { say "no baseline $GUARD (make one with --rebaseline)"; exit 1; }
    guard_rustc "$GUARD" bench/instructions.sh
  fi
  build_stage guard
  spec guard > "$RES/spec"
  boot "$k" 2 2 "$RES/spec" "$RES/guard.out" || FAILED=1
  [ "$FAILED" = 0 ] || { say "the guard's boot failed"; exit 1; }
  if [ -n "$REBASE" ]; then
    { echo "# bench/instructions.sh --rebaseline: user-space instructions (callgrind's I refs) of"
      echo "# whole commands of the shipped static PIE, in the VM rig; the CI guard"
      echo "# (bench/instructions.sh --guard, scripts/test-all.sh) fails when one grows by more"
      echo "# than 2%. A command that starts threads (the per-device deadlines of counters,"
      echo "# check and the exporter) does not count the same from run to run: its row keeps the"
      echo "# greatest of its 3 runs too, and the guard judges the least of the new runs"
      echo "# against it (the spread is the threads' scheduling: futex waits and wakes)."
      echo "# rustc: $RUSTC"
      echo "# kernel: $k ($(awk '$1 == "I" && $2 == "kernel" { print $3; exit }' "$RES/guard.out"))"
      echo "# devices: 2 rxe + 2 siw"
      printf 'command\tinstructions\tgreatest\n'
      for r in "${ROWS[@]}"; do
        l=$(row_label "$r") lo=$(lowest "$RES/guard.out" "$l" pie) hi=$(highest "$RES/guard.out" "$l" pie)
        [ -n "$lo" ] || { say "no count for uverbs $(row_args "$r")"; exit 1; }
        printf 'uverbs %s\t%s\t%s\n' "$(row_args "$r")" "$lo" "$hi"
      done; } > "$REBASE"
    say "wrote $REBASE in $(secs_since "$T_ALL")"
    exit 0
  fi
  bad=0 n=0
  printf '%-32s %12s %12s %8s  %s\n' command baseline now change verdict
  for r in "${ROWS[@]}"; do
    l=$(row_label "$r") cmd="uverbs $(row_args "$r")"
    # the baseline's greatest count (the third column; a two-column row is exact)
    old=$(awk -F'\t' -v c="$cmd" '$1 == c { print ($3 != "" ? $3 : $2) }' "$GUARD")
    now=$(lowest "$RES/guard.out" "$l" pie)
    if [ -z "$now" ]; then
      printf '%-32s %12s %12s %8s  %s\n' "$cmd" "${old:--}" - - "NO COUNT"; bad=$((bad + 1)); continue
    fi
    if [ -z "$old" ]; then
      printf '%-32s %12s %12s %8s  %s\n' "$cmd" - "$now" - "not in the baseline"; continue
    fi
    n=$((n + 1))
    v=$(guard_verdict "$old" "$now") || bad=$((bad + 1))
    ch=${v%% *} v=${v#* }
    printf '%-32s %12s %12s %8s  %s\n' "$cmd" "$old" "$now" "$ch" "$v"
  done
  say "$n rows judged against $GUARD ($(secs_since "$T_ALL"))"
  [ "$n" -gt 0 ] || { say "no row could be judged"; exit 1; }
  [ "$bad" = 0 ] || { say "$bad row(s) regressed by more than 2%"; exit 1; }
  exit 0
fi

# ------------------------------------------------------------ the benchmark
[ ${#KERNELS[@]} -gt 0 ] || KERNELS=(6.1)
[ -n "$OUT" ] || OUT=$RES/instructions.md
STAGE=$RES/stage
if [ "$REPORT_ONLY" = 1 ]; then
  [ -e "$RES/run.conf" ] || { echo "instructions.sh: no previous run in $RES" >&2; exit 2; }
  . "$RES/run.conf"
else
  rm -rf "$RES"; mkdir -p "$RES"
  COMMIT=$(commit_desc)
  { echo "KERNELS=(${KERNELS[*]}) RUNS=$RUNS SCALE=$SCALE"
    echo "COMMIT='$COMMIT'"; echo "RUSTC='$RUSTC'"; } > "$RES/run.conf"
  build_stage full
  BOOTS=("2 2"); [ "$SCALE" = 1 ] && BOOTS+=("16 16")
  # The attribution: every boot of the first kernel (with --scale, what each added
  # device costs is the difference of the two boots' function counts).
  first=attribution
  for k in "${KERNELS[@]}"; do
    for b in "${BOOTS[@]}"; do
      set -- $b
      n=$(($1 + $2))
      spec full "$first" > "$RES/spec-$k-$n"
      boot "$k" "$1" "$2" "$RES/spec-$k-$n" "$RES/$k-$n.out" || FAILED=1
      cg_files "$RES/$k-$n.out" "$RES" "cg-$k-$n"
    done
    first=none
  done
  echo "WALL=$(secs_since "$T_ALL")" >> "$RES/run.conf"
fi

# ------------------------------------------------------------ the report
. "$RES/run.conf"
export LC_ALL=C
# cell FILE LABEL BUILD: the median, with the range when the runs differ
cell() {
  local m lo hi
  m=$(counts "$@" | median); lo=$(counts "$@" | sort -n | awk 'NR == 1'); hi=$(counts "$@" | sort -n | awk 'END { print }')
  if [ "$m" = - ]; then echo -; elif [ "$lo" = "$hi" ]; then num "$m"; else echo "$(num "$m") ($(num "$lo")–$(num "$hi"))"; fi
}
one() { awk -v t="$2" -v l="$3" -v b="$4" -v c="$5" '$1 == t && $2 == l && $3 == b { print $c; exit }' "$1"; }
pair() { # FILE TYPE LABEL PEER COLUMN: "uverbs / peer"
  local a p
  a=$(one "$1" "$2" "$3" pie "$5"); a=$(num "${a:--}")
  if [ "$4" = - ]; then echo "$a"; else p=$(one "$1" "$2" "$4" peer "$5"); echo "$a / $(num "${p:--}")"; fi
}
REPRO="bench/instructions.sh"
for k in "${KERNELS[@]}"; do REPRO+=" --kernel $k"; done
[ "$SCALE" = 1 ] && REPRO+=" --scale"
[ "$RUNS" != 3 ] && REPRO+=" --runs $RUNS"
MET=0 MISSED=0
{
echo "<!-- instructions:begin -->"
echo "## Whole commands in instructions (issue 28)"
echo
echo "Generated by \`bench/instructions.sh\` on $(date -u +%Y-%m-%d) from commit $COMMIT, $RUSTC."
echo "Reproduce: \`$REPRO --into BENCHMARKS.md\` (${WALL:-?} here, builds included; \`--report-only\`"
echo "rewrites this section from \`target/bench/instructions/\`)."
echo
echo "Every user-space instruction of a whole process, from its first to its exit: callgrind's"
echo "\`I refs\` ($(sed -n 1p "$RES/valgrind.version" 2>/dev/null || echo valgrind), run in the guest with \`VALGRIND_LIB\` pointing at"
echo "the host's tools). Under TCG the rig cannot time a short command reliably, but the"
echo "instructions a program executes do not depend on the emulator: a command whose answers"
echo "do not change counts the same every run. The kernel's work is not in the count; the"
echo "system calls that ask for it are counted beside (\`strace -f -c\`, one run), with the peak"
echo "RSS and the minor page faults of one run without valgrind (\`wait4\`'s rusage through"
echo "bench/rusage.c). uverbs is the shipped file (static PIE, musl, stripped); the peers are"
echo "Debian bookworm's: rdma-core 44 (\`ibv_devinfo\`, \`ibv_devices\` with libibverbs and its rxe"
echo "and siw providers), infiniband-diags 44 (\`ibstat\` over libibumad; \`ibstatus\`, a dash"
echo "script, counted with every process it starts: \`--trace-children=yes\`) and iproute2 6.1's"
echo "\`rdma statistic show link rxe0/1\` (its \`rdma statistic\` of every device fails on siw:"
echo "\"Invalid argument\"; so the peer row is one rxe port's counters). Both sides run with the same environment (\`env -i\`, \`PATH\`, \`LC_ALL=C\`),"
echo "output to a file, taking turns, $RUNS runs each: the median, with the range when the runs differ."
echo "Target: every whole command ≤ 0.25× its peer's instructions, the JSON paths included."
echo
for k in "${KERNELS[@]}"; do
  for f in "$RES/$k"-*.out; do
    [ -s "$f" ] || continue
    n=${f##*/$k-}; n=${n%.out}
    echo "### Linux $k, $n devices ($(awk '$1 == "I" && $2 == "kernel" { print $3; exit }' "$f"): $(awk '$1 == "I" && $2 == "devices" { print $3; exit }' "$f" | sed 's/,/, /g'))"
    echo
    echo "| command | instructions | peer | peer's instructions | uverbs / peer | ≤ 0.25× | system calls (uverbs / peer) | peak RSS KiB | minor faults |"
    echo "|---|---:|---|---:|---:|---|---:|---:|---:|"
    for r in "${ROWS[@]}"; do
      l=$(row_label "$r") a=$(row_args "$r") p=$(row_peer "$r")
      mu=$(counts "$f" "$l" pie | median)
      if [ "$p" = - ]; then pc=- pn="(none)" ratio=- v=-
      else
        pc=$(cell "$f" "$p" peer) pn="\`$(peer_cmd "$p" | sed 's,^/usr/s*bin/,,')\`"
        mp=$(counts "$f" "$p" peer | median)
        ratio=$(awk -v a="$mu" -v b="$mp" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.3f×", a / b }')
        if [ "$ratio" = - ]; then v=-
        elif awk -v a="$mu" -v b="$mp" 'BEGIN { exit !(a <= 0.25 * b) }'; then v="**met**"; MET=$((MET + 1))
        else v="**missed**"; MISSED=$((MISSED + 1)); fi
      fi
      echo "| \`uverbs $a\` | $(cell "$f" "$l" pie) | $pn | $pc | $ratio | $v | $(pair "$f" S "$l" "$p" 4) | $(pair "$f" M "$l" "$p" 4) | $(pair "$f" M "$l" "$p" 5) |"
    done
    echo
    if [ "$(awk '$1 == "N" { k = $2 " " $3; if (k in v && v[k] != $4) d[k] = 1; v[k] = $4 } END { for (x in d) n++; print n + 0 }' "$f")" = 0 ]; then
      echo "Every command counted exactly the same in each of its $RUNS runs."
    else
      echo "Rows with a range counted differently from run to run: $(awk '$1 == "N" { k = $2 "/" $3; if (k in v && v[k] != $4) d[k] = 1; v[k] = $4 } END { for (x in d) printf "%s ", x }' "$f")(what they print changes: counter values, timings)."
    fi
    jt() { awk -v a="$(counts "$f" "$1" pie | median)" -v b="$(counts "$f" "$2" pie | median)" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.2f×", a / b }'; }
    echo "JSON against text: \`devinfo --json\` / \`devinfo -v\` $(jt devinfo_json devinfo_v), \`devices --json\` / \`devices\` $(jt devices_json devices)."
    pp=$(one "$f" P ibstatus peer 4)
    [ -n "$pp" ] && echo "\`ibstatus\` ran $pp processes (the script and the programs it starts), all counted."
    echo
  done
done
echo "$MET rows met the target, $MISSED missed it."
echo
# the attributed kernel and its device counts, fewest first
ak=${KERNELS[0]}
ANS=$(ls "$RES"/cg-"$ak"-*-pie-u.out 2>/dev/null | sed "s,.*/cg-$ak-,,; s,-.*,," | sort -un | tr '\n' ' ' || true)
if [ -n "$ANS" ]; then
  an=${ANS%% *}
  echo "### Where the instructions go"
  echo
  echo "The unstripped build (the same source with \`CARGO_PROFILE_RELEASE_STRIP=false\`, for the symbol"
  echo "names; stripping changes the crate's metadata hash and so the code's layout a little),"
  echo "once under callgrind on Linux $ak ($an devices); each function's own instructions"
  echo "(\`callgrind_annotate\`), the 6 largest per command, with their share of the command."
  echo
  echo "| command | instructions | largest functions (own instructions) |"
  echo "|---|---:|---|"
  for r in "${ROWS[@]}"; do
    l=$(row_label "$r") a=$(row_args "$r")
    g=$RES/cg-$ak-$an-$l-pie-u.out
    [ -s "$g" ] || continue
    fns "$g" > "$RES/fn-$l"
    tot=$(awk -F'\t' '{ s += $1 } END { print s + 0 }' "$RES/fn-$l")
    top=$(awk -F'\t' -v t="$tot" 'function c(n,    s, o) { s = sprintf("%d", n); o = ""
        while (length(s) > 3) { o = "," substr(s, length(s) - 2) o; s = substr(s, 1, length(s) - 3) } return s o }
      NR <= 6 { gsub(/\|/, "\\|", $2); printf "%s`%s` %s (%.0f%%)", (NR > 1 ? ", " : ""), $2, c($1), $1 / t * 100 }' "$RES/fn-$l")
    echo "| \`uverbs $a\` | $(num "$tot") | $top |"
  done
  echo
  # What each added device costs, for the rows that miss at the most devices.
  bn=${ANS% }; bn=${bn##* }
  fb=$RES/$ak-$bn.out fa=$RES/$ak-$an.out
  if [ "$bn" != "$an" ] && [ -s "$fb" ] && [ -s "$fa" ]; then
    echo "### What each added device costs, in the rows that miss"
    echo
    echo "The same unstripped build under callgrind in the $bn-device boot of Linux $ak: for each"
    echo "row that misses its target there, each function's own instructions at $bn devices less"
    echo "at $an, the 8 largest differences, divided by the $((bn - an)) added devices (a command"
    echo "that lists only some devices, as \`ibstat\` lists only the InfiniBand-managed rxe, spends"
    echo "them on fewer). *Target* is what the added devices may cost for the row to meet"
    echo "≤ 0.25× at $bn devices: a quarter of the peer's count there, less what uverbs spends at $an."
    echo
    echo "| command | per added device: uverbs | the peer's | target | largest functions per added device |"
    echo "|---|---:|---:|---:|---|"
    for r in "${ROWS[@]}"; do
      l=$(row_label "$r") a=$(row_args "$r") p=$(row_peer "$r")
      [ "$p" != - ] || continue
      gb=$RES/cg-$ak-$bn-$l-pie-u.out ga=$RES/cg-$ak-$an-$l-pie-u.out
      [ -s "$gb" ] && [ -s "$ga" ] || continue
      ub=$(counts "$fb" "$l" pie | median) ua=$(counts "$fa" "$l" pie | median)
      pb=$(counts "$fb" "$p" peer | median) pa=$(counts "$fa" "$p" peer | median)
      awk -v a="$ub" -v b="$pb" 'BEGIN { exit !(a != "-" && b != "-" && a > 0.25 * b) }' || continue
      [ -s "$RES/fn-$l" ] || fns "$ga" > "$RES/fn-$l"
      fns "$gb" > "$RES/fnb-$l"
      # per added device: uverbs, the peer, what the target leaves
      read -r per pper tgt < <(awk -v ub="$ub" -v ua="$ua" -v pb="$pb" -v pa="$pa" -v d=$((bn - an)) \
        'BEGIN { printf "%d %d %d\n", (ub - ua) / d, (pb - pa) / d, (0.25 * pb - ua) / d }')
      top=$(awk -F'\t' 'NR == FNR { a[$2] = $1; next } { c[$2] = $1 - a[$2] }
        END { for (k in c) if (c[k] > 0) print c[k] "\t" k }' "$RES/fn-$l" "$RES/fnb-$l" | sort -t$'\t' -k1,1nr |
        awk -F'\t' -v d=$((bn - an)) 'NR <= 8 { gsub(/\|/, "\\|", $2); printf "%s`%s` %d", (NR > 1 ? ", " : ""), $2, $1 / d }')
      echo "| \`uverbs $a\` | $(num "$per") | $(num "$pper") | $(num "$tgt") | $top |"
    done
    echo
  fi
fi
echo "<!-- instructions:end -->"
} > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
if [ -n "$INTO" ]; then
  put_section "$INTO" "$OUT" "<!-- instructions:begin -->" "<!-- instructions:end -->"
  say "section put into $INTO"
fi
say "wrote $OUT in $(secs_since "$T_ALL")"
exit "$FAILED"
