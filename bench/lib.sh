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

median() {
  sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) { print "-"; exit }
    if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

quart() {
  sort -g | awk -v q="$1" '{ v[NR] = $1 } END { if (NR == 0) { print "-"; exit }
    i = q * (NR - 1) + 1; lo = int(i); f = i - lo
    print (lo < NR) ? v[lo] + f * (v[lo + 1] - v[lo]) : v[lo] }'
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
