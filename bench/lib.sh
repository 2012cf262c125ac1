# bench/lib.sh - what the benchmark scripts share: sourced, not run.
#
#   median            the median of the numbers on stdin, one a line ("-" if none)
#   quart Q           the Q quantile (0.25, 0.75) of the numbers on stdin, interpolated
#   fmt X             X with three decimals, "-" left as it is
#   now_us            the wall clock in microseconds
#   secs_since T      the time since now_us said T, as "12.3s"
#   put_section FILE SECTION BEGIN END
#                     puts the lines of file SECTION (which starts with the line BEGIN
#                     and ends with the line END) in place of FILE's lines from BEGIN to
#                     END, or appends them after an empty line if FILE has no BEGIN line
#   install_missing PKG...
#                     installs the Debian packages named (none: nothing), updating the
#                     package lists once when the install fails without; uses the
#                     script's `say`
#   musl_target       the musl C compiler and the Rust target $TARGET, installed if missing
#   num N             N with thousands separators (1234567: 1,234,567; "-" stays "-")
#   counts FILE LABEL BUILD
#                     the instruction counts a guest script reported ("N LABEL BUILD
#                     COUNT" lines), one a line
#   fns CALLGRIND-FILE
#                     "COUNT<TAB>FUNCTION" a line, each function's own instructions
#                     (callgrind_annotate), the largest first; code without a symbol (the
#                     stripped copies have no DWARF, so no file names) as one line
#   guest_boot KERNEL RXE SIW DIR OUT
#                     one boot of the rig ($RIG) with $STAGE at /DIR, running
#                     DIR/$GUEST (default instructions-guest.sh) on DIR/spec, $RUNS
#                     runs; its output in OUT, its log in OUT with .err for .out; fails
#                     when the boot did or the guest reported an error (an "E " line)
#   bench_opts NAME ARGS...
#                     the options of the instruction benchmarks' scripts: --kernel
#                     SERIES (repeatable, into the array KERNELS), --runs N (RUNS, a
#                     number from 1), --out FILE (OUT), --into FILE (INTO),
#                     --report-only (REPORT_ONLY=1), -h/--help (the script's header
#                     comment); a script with options of its own defines script_opt,
#                     given the arguments left and answering (its exit status) how many
#                     of them it took, 0 for none; anything else: a usage error naming
#                     NAME (exit 2)
#   commit_desc       the crate's short commit, " (with uncommitted changes)" added
#                     when its work tree has any
#   guard_verdict OLD NOW
#                     a guard's judgement of a count against its baseline, as the words
#                     "CHANGE VERDICT": the change in per cent, then ok, "ok (improved:
#                     ...)" past 2% below, or REGRESSED past 2% above (status 1 then)
#   iqr               "MEDIAN Q1 Q3" of the numbers on stdin ("- - -" if none)
#   aa_cell MED Q1 Q3 an A/A column's cell: "1.002 (0.991-1.013)", "-" without one
#   aa_verdict RATIO TARGET AA_MED AA_Q1 AA_Q3 [le|ge]
#                     the one judgement of a wall-time row (issue 28): the rig's A/A (the
#                     peer against itself, or the floor against a second copy of itself:
#                     the median and quartiles of its ratios) decides whether the row can
#                     be judged at all: only where its median is within 2% of 1.0. Then
#                     the row is **met** when RATIO is at or better than TARGET widened by
#                     the A/A's interquartile range (le, lower is better: RATIO <= TARGET
#                     x Q3; ge, higher is better: RATIO >= TARGET x Q1), else **missed**;
#                     otherwise "not judged: the rig's A/A is X" (or "not judged: no A/A"
#                     when a number is missing)
#   guard_rustc FILE SCRIPT
#                     exits 1, saying why, when the guard's table FILE was recorded with
#                     another rustc than this one (`rustc -V`; SCRIPT --rebaseline FILE
#                     makes it anew); nothing when it was not
#   build_cli LABEL [VAR=VALUE...]
#                     builds the CLI (release, $TARGET) in $CRATE with that environment,
#                     cargo's output in $RES/build-LABEL.{json,log}; prints the executable
#   stage_valgrind DIR
#                     the host's valgrind launcher and callgrind tool into DIR (the
#                     guest's VALGRIND_LIB; bench/instructions-guest.sh runs DIR/valgrind);
#                     installs Debian's valgrind when missing; the version to
#                     $RES/valgrind.version
#   cg_files OUT DIR PREFIX
#                     the callgrind files bench/instructions-guest.sh sent back in its
#                     output OUT ("CG begin LABEL BUILD" ... "CG end"), decoded to
#                     DIR/PREFIX-LABEL-BUILD.out

median() {
  sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print "-"; exit }
    if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

quart() {
  sort -g | awk -v q="$1" '{ v[NR] = $1 } END { if (NR == 0) { print "-"; exit }
    i = q * (NR - 1) + 1; lo = int(i); f = i - lo
    print (lo < NR) ? v[lo] + f * (v[lo + 1] - v[lo]) : v[lo] }'
}

iqr() { local f; f=$(mktemp); cat > "$f"
  echo "$(median < "$f") $(quart 0.25 < "$f") $(quart 0.75 < "$f")"; rm -f "$f"; }

aa_cell() { if [ "${1:--}" = - ]; then echo -; else echo "$(fmt "$1") ($(fmt "$2")-$(fmt "$3"))"; fi; }

aa_verdict() {
  awk -v r="$1" -v t="$2" -v m="$3" -v a="$4" -v b="$5" -v dir="${6:-le}" 'BEGIN {
    if (r == "-" || r == "" || t == "-" || m == "-" || m == "" || a == "-" || b == "-") { print "not judged: no A/A"; exit }
    if (m < 0.98 || m > 1.02) { printf "not judged: the rig'"'"'s A/A is %.3f\n", m; exit }
    if (dir == "ge") print (r + 0 >= t * a ? "**met**" : "**missed**")
    else print (r + 0 <= t * b ? "**met**" : "**missed**") }'
}

fmt() { awk -v x="$1" 'BEGIN { printf (x == "-" ? "-" : "%.3f"), x }'; }

now_us() { echo "${EPOCHREALTIME/./}"; }

secs_since() { local d=$((($(now_us) - $1) / 100000)); echo "$((d / 10)).$((d % 10))s"; }

put_section() {
  local file=$1 section=$2 begin=$3 end=$4
  if grep -qxF -- "$begin" "$file" 2>/dev/null; then
    awk -v f="$section" -v b="$begin" -v e="$end" '
      $0 == b { while ((getline l < f) > 0) print l; skip = 1; next }
      $0 == e { skip = 0; next }
      !skip { print }' "$file" > "$file.tmp" && mv "$file.tmp" "$file"
  else
    { echo; cat "$section"; } >> "$file"
  fi
}

install_missing() {
  [ $# -gt 0 ] || return 0
  say "apt-get install $*"
  { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" ||
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        --no-install-recommends "$@"; }; } >/dev/null
}

musl_target() {
  command -v musl-gcc >/dev/null || install_missing musl-tools
  rustup target list --installed | grep -qx "$TARGET" || rustup target add "$TARGET" >&2
}

build_cli() {
  local label=$1 t; shift
  t=$(now_us)
  if (cd "$CRATE" && env "$@" cargo build --release --target "$TARGET" --bin uverbs \
        --message-format=json-render-diagnostics > "$RES/build-$label.json" 2> "$RES/build-$label.log"); then
    say "built $label ($(secs_since "$t"))"
    grep '"reason":"compiler-artifact"' "$RES/build-$label.json" | grep '"name":"uverbs"' |
      grep -o '"executable":"[^"]*"' | sed 's/"executable":"\(.*\)"/\1/' | tail -n1
  else
    say "FAILED to build $label (log: $RES/build-$label.log)"; tail -n 15 "$RES/build-$label.log" >&2
    return 1
  fi
}

stage_valgrind() {
  local vglib=/usr/libexec/valgrind f
  [ -x $vglib/callgrind-amd64-linux ] || install_missing valgrind
  mkdir -p "$1"
  # Debian's /usr/bin/valgrind is a shell wrapper around valgrind.bin, the launcher
  if [ -x /usr/bin/valgrind.bin ]; then cp /usr/bin/valgrind.bin "$1/valgrind"; else cp "$(command -v valgrind)" "$1/valgrind"; fi
  cp "$vglib/callgrind-amd64-linux" "$1/"
  # the preload every dynamically linked program gets (the peers), and the suppressions
  for f in vgpreload_core-amd64-linux.so default.supp; do [ -e "$vglib/$f" ] && cp "$vglib/$f" "$1/"; done
  valgrind --version > "$RES/valgrind.version" 2>&1 || true
}

cg_files() {
  local b
  awk -v dir="$2" -v p="$3" '/^CG begin / { f = dir "/" p "-" $3 "-" $4 ".b64"; printf "" > f; next }
       /^CG end / { close(f); f = ""; next }
       f != "" { sub(/\r$/, ""); print > f }' "$1"
  for b in "$2/$3"-*.b64; do
    [ -e "$b" ] || continue
    base64 -d "$b" | gunzip > "${b%.b64}.out" && rm -f "$b"
  done
}

num() { awk -v n="$1" 'BEGIN { if (n == "" || n == "-") { print "-"; exit } s = sprintf("%d", n < 0 ? -n : n); o = ""
  while (length(s) > 3) { o = "," substr(s, length(s) - 2) o; s = substr(s, 1, length(s) - 3) }
  print (n < 0 ? "-" : "") s o }'; }

counts() { awk -v l="$2" -v b="$3" '$1 == "N" && $2 == l && $3 == b { print $4 }' "$1"; }

guest_boot() {
  local k=$1 rxe=$2 siw=$3 dir=$4 out=$5 T rc=0
  T=$(now_us)
  say "kernel $k: $rxe rxe + $siw siw, $RUNS runs of each command under callgrind"
  "$RIG" --prepare --kernel "$k" >&2
  if "$RIG" --kernel "$k" --rxe "$rxe" --siw "$siw" --timeout 1800 --add "$STAGE:/$dir" \
      -- sh "/$dir/${GUEST:-instructions-guest.sh}" "/$dir/spec" "$RUNS" > "$out" 2> "${out%.out}.err"; then
    say "kernel $k ($((rxe + siw)) devices) done in $(secs_since "$T")"
  else
    say "kernel $k FAILED (log: ${out%.out}.err)"; tail -n 20 "${out%.out}.err" >&2; rc=1
  fi
  if grep '^E ' "$out" >&2; then rc=1; fi
  return $rc
}

fns() {
  callgrind_annotate --threshold=100 "$1" 2>/dev/null |
    awk '/^ *[0-9,]+ +\([ 0-9.]+%\) +[^ ]/ && !/PROGRAM TOTALS/ {
      n = $1; gsub(/,/, "", n); sub(/^ *[0-9,]+ +\([ 0-9.]+%\) +/, ""); sub(/ \[[^]]*\]$/, "")
      f = $0; sub(/^[^:]*:/, "", f)
      if (f ~ /^0x[0-9a-f]+$/) f = "(code without a symbol)"
      c[f] += n }
      END { for (k in c) print c[k] "\t" k }' | sort -t$'\t' -k1,1nr
}

bench_opts() {
  local name=$1; shift
  while [ $# -gt 0 ]; do
    case $1 in
      --kernel) KERNELS+=("${2:?}"); shift 2 ;;
      --runs) RUNS=${2:?}; shift 2 ;;
      --out) OUT=${2:?}; shift 2 ;;
      --into) INTO=${2:?}; shift 2 ;;
      --report-only) REPORT_ONLY=1; shift ;;
      -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
      *)
        local took=0
        if declare -F script_opt >/dev/null; then script_opt "$@" || took=$?; fi
        [ "$took" -gt 0 ] || { echo "$name: unknown argument $1 (see --help)" >&2; exit 2; }
        shift "$took" ;;
    esac
  done
  [[ $RUNS =~ ^[0-9]+$ ]] && [ "$RUNS" -ge 1 ] || { echo "$name: --runs wants a number" >&2; exit 2; }
}

commit_desc() {
  echo "$(git -C "$CRATE" rev-parse --short HEAD 2>/dev/null || echo unknown)$([ -n "$(git -C "$CRATE" status --porcelain 2>/dev/null | head -n1)" ] && echo ' (with uncommitted changes)')"
}

guard_rustc() {
  local was
  was=$(sed -n 's/^# rustc: //p' "$1")
  [ "$was" = "$(rustc -V)" ] && return 0
  say "$1 was recorded with '$was', this is '$(rustc -V)': instruction counts move with"
  say "the compiler. Rebaseline ($2 --rebaseline $1) and say so in the commit."
  exit 1
}

guard_verdict() {
  local ch
  ch=$(awk -v a="$2" -v b="$1" 'BEGIN { printf "%+.2f%%", (a - b) / b * 100 }')
  if awk -v a="$2" -v b="$1" 'BEGIN { exit !(a > b * 1.02) }'; then
    echo "$ch REGRESSED (more than 2%)"; return 1
  elif awk -v a="$2" -v b="$1" 'BEGIN { exit !(a < b * 0.98) }'; then
    echo "$ch ok (improved: rebaseline to keep the gain)"
  else echo "$ch ok"; fi
}
