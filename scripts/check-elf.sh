#!/usr/bin/env bash
# check-elf.sh - the shipped binary is a hardened static PIE.
#
# Usage: scripts/check-elf.sh BINARY
#
# Reads the ELF headers with readelf (binutils) and fails, naming what is wrong, unless
# the file is:
#   - a position-independent executable (ELF type DYN), so the kernel loads it at a
#     random address;
#   - static: no INTERP program header (no dynamic loader) and no NEEDED library;
#   - full RELRO: a GNU_RELRO segment, and BIND_NOW (every relocation is done at start,
#     then the segment is made read-only);
#   - W^X: no segment both writable and executable, and a non-executable stack.
# Exit status 0 when every check holds, 1 otherwise, 2 on a usage error.
set -euo pipefail
bin=${1:?usage: check-elf.sh BINARY}
[ -f "$bin" ] || { echo "check-elf: $bin: no such file" >&2; exit 2; }
command -v readelf >/dev/null || { echo "check-elf: readelf (binutils) is missing" >&2; exit 1; }

header=$(readelf -hW "$bin")
segments=$(readelf -lW "$bin")
dynamic=$(readelf -dW "$bin")
bad=()
grep -qE '^ *Type: +DYN ' <<<"$header" || bad+=("not a PIE: $(grep -E '^ *Type:' <<<"$header" | sed 's/^ *//')")
! grep -qE '^ *INTERP ' <<<"$segments" || bad+=("has an INTERP segment (a dynamic loader)")
! grep -q '(NEEDED)' <<<"$dynamic" || bad+=("needs shared libraries: $(grep '(NEEDED)' <<<"$dynamic" | sed 's/.*\[\(.*\)\]/\1/' | tr '\n' ' ')")
grep -qE '^ *GNU_RELRO ' <<<"$segments" || bad+=("no GNU_RELRO segment")
grep -qE '\(FLAGS\) +.*BIND_NOW|\(FLAGS_1\) +.*NOW' <<<"$dynamic" || bad+=("no BIND_NOW: RELRO is partial")
# Program headers: Type Offset VirtAddr PhysAddr FileSiz MemSiz Flg Align; the flags
# are the characters R, W, E between MemSiz and Align.
while read -r type flags; do
  case $flags in *W*E*) bad+=("$type segment is writable and executable") ;; esac
  if [ "$type" = GNU_STACK ]; then
    case $flags in *E*) bad+=("the stack is executable") ;; esac
  fi
done < <(awk '/^ +[A-Z_]+ +0x/ { f = ""; for (i = 7; i < NF; i++) f = f $i; print $1, f }' <<<"$segments")
grep -qE '^ *GNU_STACK ' <<<"$segments" || bad+=("no GNU_STACK segment (the stack may be executable)")

if [ ${#bad[@]} -gt 0 ]; then
  for b in "${bad[@]}"; do echo "check-elf: $bin: $b" >&2; done
  exit 1
fi
echo "check-elf: $bin: static PIE (ET_DYN, no INTERP, no NEEDED), full RELRO (GNU_RELRO, BIND_NOW), W^X"
