#!/usr/bin/env bash
# bench/startup.sh - what the static PIE costs at start (issue 31): user-space
# instructions of the CLI under valgrind's callgrind in the VM rig, the shipped static
# PIE against the same source linked at a fixed address, and what musl's
# self-relocation at start is made of.
#
# Usage: bench/startup.sh [--kernel SERIES]... [--runs N] [--rxe N] [--siw N]
#                         [--out FILE] [--into FILE] [--report-only]
#
#   --kernel SERIES  a kernel series of tests/vm/versions (6.1, 6.12); repeatable
#                    (default: 6.1)
#   --runs N         runs of each command and build under callgrind (default 3)
#   --rxe N, --siw N the devices of the boot (default 2 and 2)
#   --out FILE       the report section (default target/bench/startup/startup.md)
#   --into FILE      also put the section into FILE (BENCHMARKS.md): between the lines
#                    "<!-- startup:begin -->" and "<!-- startup:end -->" when FILE has
#                    them (replacing the previous section), else at the end
#   --report-only    write the section again from the raw outputs of the last run
#                    (target/bench/startup/), without building or booting anything
#
# What it does:
#  1. builds the CLI four times (release, musl): the shipped static PIE (the default
#     build, as bench/run.sh builds it), the same linked at a fixed address
#     (RUSTFLAGS="-C relocation-model=static", CARGO_TARGET_DIR=target/fixed: the
#     shipped file before issue 31), and both again unstripped
#     (CARGO_PROFILE_RELEASE_STRIP=false, target/unstripped and target/fixed-unstripped)
#     for the symbol names; the unstripped copies that go into the VM lose their DWARF
#     (objcopy --strip-debug) but keep their symbol table;
#  2. boots the rig once per kernel with the host's valgrind launcher and callgrind tool
#     (Debian's valgrind package, installed when missing; VALGRIND_LIB in the guest);
#     bench/instructions-guest.sh (the guest part of bench/instructions.sh too) counts the instructions ("I refs") of `uverbs devices`,
#     `devinfo -v`, `devices --json` and `devinfo --json`, PIE and fixed address taking
#     turns, RUNS times, then runs the unstripped builds once with per-instruction output
#     and sends the callgrind files back;
#  3. reads the relocations of the unstripped PIE on the host (readelf -rW, -SW, nm -S,
#     objdump -d; bench/relocs.awk): for each R_X86_64_RELATIVE relocation, the object
#     holding the pointer (its symbol, else the functions whose code takes its address)
#     and what it points at (a &str, a panic Location, a function...);
#  4. writes the section: the counts side by side, callgrind_annotate's per-function
#     difference, the relocation loop of musl's start code, and the relocations by kind
#     and by table.
#
# bench/run.sh runs this script with its kernels and puts the section into BENCHMARKS.md.
# Raw outputs: target/bench/startup/. Exit status: 0 when every kernel ran, else 1.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CRATE=$(cd "$HERE/.." && pwd)
TARGET=x86_64-unknown-linux-musl
RIG=${UVERBS_BENCH_RIG:-$CRATE/tests/vm/rig.sh}
RES=$CRATE/target/bench/startup
OUT=$RES/startup.md
INTO='' RUNS=3 RXE=2 SIW=2 REPORT_ONLY=0 KERNELS=()
# this script's own options (the others are every benchmark's: lib.sh's bench_opts)
script_opt() {
  case $1 in
    --rxe) RXE=${2:?}; return 2 ;;
    --siw) SIW=${2:?}; return 2 ;;
    *) return 0 ;;
  esac
}
say() { echo "bench/startup: $*" >&2; }
. "$HERE/lib.sh"
bench_opts startup.sh "$@"
[ ${#KERNELS[@]} -gt 0 ] || KERNELS=(6.1)
T_ALL=$(now_us)
FAILED=0
STAGE=$RES/stage

if [ "$REPORT_ONLY" = 1 ]; then
  [ -e "$RES/run.conf" ] || { echo "startup.sh: no previous run in $RES" >&2; exit 2; }
  . "$RES/run.conf"
else
rm -rf "$RES"; mkdir -p "$STAGE"/{pie,fix,pie-u,fix-u,vg}
echo "KERNELS=(${KERNELS[*]}) RUNS=$RUNS RXE=$RXE SIW=$SIW" > "$RES/run.conf"

# ------------------------------------------------------------ host setup
command -v objdump >/dev/null || install_missing binutils
musl_target

# ------------------------------------------------------------ builds
FIXED=(RUSTFLAGS="-C relocation-model=static")
UNSTRIPPED=(CARGO_PROFILE_RELEASE_STRIP=false)
p=$(build_cli pie) || exit 1; cp "$p" "$STAGE/pie/uverbs"
p=$(build_cli fix "${FIXED[@]}" CARGO_TARGET_DIR="$CRATE/target/fixed") || exit 1; cp "$p" "$STAGE/fix/uverbs"
p=$(build_cli pie-u "${UNSTRIPPED[@]}" CARGO_TARGET_DIR="$CRATE/target/unstripped") || exit 1
cp "$p" "$RES/uverbs-pie-unstripped"
p=$(build_cli fix-u "${FIXED[@]}" "${UNSTRIPPED[@]}" CARGO_TARGET_DIR="$CRATE/target/fixed-unstripped") || exit 1
cp "$p" "$RES/uverbs-fix-unstripped"
objcopy --strip-debug "$RES/uverbs-pie-unstripped" "$STAGE/pie-u/uverbs"
objcopy --strip-debug "$RES/uverbs-fix-unstripped" "$STAGE/fix-u/uverbs"
cp "$STAGE/pie/uverbs" "$RES/uverbs-pie"; cp "$STAGE/fix/uverbs" "$RES/uverbs-fix"
stage_valgrind "$STAGE/vg"
cp "$HERE/instructions-guest.sh" "$STAGE/"
# the guest's work (bench/instructions-guest.sh): each command of both builds RUNS times,
# taking turns (the paths have the same length), then the unstripped builds once each
# with per-instruction output
{ for c in "devices:devices" "devinfo_v:devinfo -v" "devices_json:devices --json" "devinfo_json:devinfo --json"; do
    for b in pie fix; do echo "${c%%:*} $b n uverbs ${c#*:}"; done
  done
  for c in "devices:devices" "devinfo_v:devinfo -v" "devices_json:devices --json" "devinfo_json:devinfo --json"; do
    for b in pie-u fix-u; do echo "${c%%:*} $b d uverbs ${c#*:}"; done
  done; } > "$STAGE/spec"

# ------------------------------------------------------------ the VMs
for k in "${KERNELS[@]}"; do
  guest_boot "$k" "$RXE" "$SIW" startup "$RES/$k.out" || FAILED=1
  # the callgrind files of the unstripped builds
  cg_files "$RES/$k.out" "$RES" "cg-$k"
done
echo "WALL=$(secs_since "$T_ALL")" >> "$RES/run.conf"
fi

# ------------------------------------------------------------ the report
. "$RES/run.conf"
export LC_ALL=C
signed() { case $1 in -|'') echo -;; -*) num "$1";; *) echo "+$(num "$1")";; esac; }
# the median of the counts, and their range when the runs differ
cell() { # FILE LABEL BUILD
  local m lo hi
  m=$(counts "$@" | median); lo=$(counts "$@" | sort -n | awk 'NR == 1'); hi=$(counts "$@" | sort -n | awk 'END { print }')
  if [ "$m" = - ]; then echo -; elif [ "$lo" = "$hi" ]; then num "$m"; else echo "$(num "$m") ($(num "$lo")-$(num "$hi"))"; fi
}
GIT=$(cd "$CRATE" && git rev-parse --short HEAD 2>/dev/null || echo unknown)
DIRTY=$(cd "$CRATE" && [ -n "$(git status --porcelain 2>/dev/null | head -n1)" ] && echo " (with uncommitted changes)" || true)
REPRO="bench/startup.sh"
for k in "${KERNELS[@]}"; do REPRO+=" --kernel $k"; done
[ "$RUNS" != 3 ] && REPRO+=" --runs $RUNS"
PIE=$RES/uverbs-pie FIX=$RES/uverbs-fix U=$RES/uverbs-pie-unstripped
k0=${KERNELS[0]}

# --- the relocations of the unstripped PIE, by bench/relocs.awk
W=$RES/relocs; rm -rf "$W"; mkdir -p "$W"
if [ -e "$U" ]; then
  readelf -SW "$U" | awk '/^ *\[ *[0-9]+\]/ { sub(/^ *\[ *[0-9]+\] */, "")
    if ($2 != "NULL" && $1 != ".tbss" && $3 !~ /^0+$/) print $1, $3, $4, $5 }' > "$W/secs"
  objcopy -O binary --only-section=.data.rel.ro "$U" "$W/drr.bin"; od -An -v -tu8 -w8 "$W/drr.bin" > "$W/words"
  objcopy -O binary --only-section=.rodata "$U" "$W/ro.bin"; od -An -v -tx1 "$W/ro.bin" > "$W/rodata"
  nm -C -S --defined-only "$U" > "$W/syms"
  readelf -rW "$U" | awk '$3 == "R_X86_64_RELATIVE" { print $1, $4 }' > "$W/rels"
  # every address in the writable sections (.tdata to the end of .data) that code takes
  lo=$((16#$(awk '$1 == ".tdata" || $1 == ".init_array" { print $2; exit }' "$W/secs")))
  hi=$(awk '$1 == ".data" { print $2, $4 }' "$W/secs" | { read -r a s; echo $((16#$a + 16#$s)); })
  # (and how many calls go through the GOT, to $W/gotcalls)
  got=$(awk '$1 == ".got" { print $2, $4 }' "$W/secs" | { read -r a s; echo "$((16#${a:-0})) $((16#${a:-0} + 16#${s:-0}))"; })
  objdump -d -C --no-show-raw-insn "$U" | awk -v lo="$lo" -v hi="$hi" -v glo="${got% *}" -v ghi="${got#* }" -v gc="$W/gotcalls" '
    function hex(s,    i, v) { s = tolower(s); v = 0; for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }
    /^[0-9a-f]+ <.*>:$/ { f = $0; sub(/^[0-9a-f]+ </, "", f); sub(/>:$/, "", f); next }
    / # [0-9a-f]+ </ { a = $0; sub(/.* # /, "", a); sub(/ <.*/, "", a); a = hex(a); if (a >= lo && a < hi) print a "\t" f
      if (a >= glo && a < ghi && $0 ~ /\tcall +\*/) n++ }
    END { print n + 0 > gc }' |
    sort -n -k1,1 > "$W/refs"
  awk -f "$HERE/relocs.awk" "$W/secs" "$W/words" "$W/rodata" "$W/syms" "$W/refs" "$W/rels" > "$W/result"
fi
NREL=$(readelf -rW "$PIE" 2>/dev/null | grep -c R_X86_64_RELATIVE || true)
NRELA=$(readelf -rW "$PIE" 2>/dev/null | grep -c '^[0-9a-f]\{16\} ' || true)
RELA_BYTES=$(readelf -SW "$PIE" 2>/dev/null | sed 's/^ *\[ *[0-9]*\] *//' | awk '$1 == ".rela.dyn" { print $5 }')
RELA_BYTES=$((16#${RELA_BYTES:-0}))
SZP=$(stat -c %s "$PIE" 2>/dev/null || echo 0) SZF=$(stat -c %s "$FIX" 2>/dev/null || echo 0)

# gotcalls BINARY: the calls through the GOT in its code (call *ADDR(%rip), ADDR in .got)
gotcalls() {
  local g
  g=$(readelf -SW "$1" 2>/dev/null | sed 's/^ *\[ *[0-9]*\] *//' | awk '$1 == ".got" { print $3, $5 }')
  [ -n "$g" ] || { echo 0; return; }
  objdump -d --no-show-raw-insn "$1" | awk -v lo="$((16#${g% *}))" -v hi="$((16#${g% *} + 16#${g#* }))" '
    function hex(s,    i, v) { s = tolower(s); v = 0; for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return v }
    /\tcall +\*0x[0-9a-f]+\(%rip\) +# [0-9a-f]+ </ { a = $0; sub(/.* # /, "", a); sub(/ <.*/, "", a); a = hex(a); if (a >= lo && a < hi) n++ }
    END { print n + 0 }'
}

# the instructions of FUNCTION executed at least N times, from a --dump-instr=yes file
# (--compress-pos=no, --compress-strings=no): "instructions total"
# (cost lines: "ADDRESS [LINE] COUNT"; an address may have several; the line after a
# "calls=" line is the call's inclusive cost, not counted)
hot_instrs() { # FILE FUNCTION N
  awk -v fn="fn=$2" -v min="$3" '/^fn=/ { f = ($0 == fn) } /^calls=/ { skip = 1; next }
    f && /^0x/ && !skip { c[$1] += $NF } { skip = 0 }
    END { for (a in c) if (c[a] >= min) { n++; s += c[a] } print n + 0, s + 0 }' "$1"
}
fn_total() { # FILE FUNCTION
  awk -v fn="fn=$2" '/^fn=/ { f = ($0 == fn) } /^calls=/ { skip = 1; next }
    f && /^0x/ && !skip { s += $NF } { skip = 0 } END { print s + 0 }' "$1"
}

{
echo "<!-- startup:begin -->"
echo "## Static PIE: start-up instructions (issue 31)"
echo
echo "Generated by \`bench/startup.sh\` (which \`bench/run.sh\` runs) on $(date -u +%Y-%m-%d) from commit $GIT$DIRTY."
echo "Reproduce: \`$REPRO --into BENCHMARKS.md\` (${WALL:-?} here, builds included; \`--report-only\`"
echo "rewrites this section from \`target/bench/startup/\`)."
echo
echo "The shipped \`uverbs\` is a static PIE with full RELRO (\`.cargo/config.toml\`): before \`main\`,"
echo "musl's start code for a static PIE (\`_start_c\` in rcrt1.o: ldso/dlstart.c's \`_dlstart_c\`"
echo "under another name) walks the file's own \`.rela.dyn\` and adds the load address to every"
echo "pointer stored in its data (each R_X86_64_RELATIVE relocation); the RELRO pages are made"
echo "read-only after that. The same source linked at a fixed address (\`-C relocation-model=static\`,"
echo "ET_EXEC: the shipped file before issue 31) has no such pass. Under TCG the wall time of a short"
echo "command moves by far more than this pass costs (the emulator reuses the code it translated"
echo "for a fixed-address program, and translates a PIE's code anew at each new address), so"
echo "the start-up is counted here in instructions instead: callgrind's \`I refs\`"
echo "($(sed -n 1p "$RES/valgrind.version" 2>/dev/null || echo valgrind), in the guest, \`VALGRIND_LIB\` pointing at"
echo "the host's tools), every user-space instruction from the program's first to its exit; the"
echo "kernel's work is not in it. The shipped (stripped) files, $RUNS runs of each, the two builds"
echo "taking turns in one boot per kernel ($RXE rxe + $SIW siw), both run with the same environment"
echo "from paths of the same length. Median of the runs, with the range when they differ."
echo
echo "| kernel | command | fixed address (before issue 31) | static PIE (shipped) | PIE − fixed | PIE / fixed |"
echo "|---|---|---:|---:|---:|---:|"
SAME=1
for k in "${KERNELS[@]}"; do
  f=$RES/$k.out
  [ -s "$f" ] || { echo "| $k | (no results: the VM run failed, target/bench/startup/$k.err) | | | | |"; continue; }
  # did every command count the same in every run?
  awk '$1 == "N" && ($3 == "pie" || $3 == "fix") { k = $2 " " $3; if (k in v && v[k] != $4) d = 1; v[k] = $4 } END { exit d }' "$f" || SAME=0
  for l in "devices|\`uverbs devices\`" "devinfo_v|\`uverbs devinfo -v\`" "devices_json|\`uverbs devices --json\`" "devinfo_json|\`uverbs devinfo --json\`"; do
    lab=${l#*|}; l=${l%%|*}
    mf=$(counts "$f" "$l" fix | median); mp=$(counts "$f" "$l" pie | median)
    d=$(awk -v a="$mp" -v b="$mf" 'BEGIN { if (a == "-" || b == "-") print "-"; else print a - b }')
    r=$(awk -v a="$mp" -v b="$mf" 'BEGIN { if (a == "-" || b == "-" || b == 0) print "-"; else printf "%.3f", a / b }')
    echo "| $k | $lab | $(cell "$f" "$l" fix) | $(cell "$f" "$l" pie) | $(signed "$d") | $r |"
  done
done
echo
if [ "$SAME" = 1 ] && [ "$RUNS" -gt 1 ]; then
  echo "Every command counted exactly the same in each of its $RUNS runs, in both builds."
  echo
fi
NDEV=$(awk '$1 == "I" && $2 == "ndevices" { print $3; exit }' "$RES/$k0.out" 2>/dev/null)
CGP=$RES/cg-$k0-devinfo_v-pie-u.out
if [ -s "$CGP" ]; then
  echo "### Where the difference goes"
  echo
  echo "The unstripped builds (the same source with \`CARGO_PROFILE_RELEASE_STRIP=false\`, for the"
  echo "symbol names; stripping changes the crate's metadata hash and so the code's layout a"
  echo "little), once each under callgrind on Linux $k0 ($NDEV devices), \`callgrind_annotate\` per"
  echo "function. \`_start_c\` is crt1.o's in the fixed-address build (a jump to \`__libc_start_main\`)"
  echo "and rcrt1.o's in the PIE (the self-relocation); \`__dls2\` and \`__init_tls\` (the TLS image's"
  echo "address taken from the program headers at the load address) are the rest of the static-PIE"
  echo "start."
  echo
  echo "| command | fixed address | static PIE | PIE − fixed | \`_start_c\` | \`__dls2\`, \`__init_tls\` | every other function | of which the largest |"
  echo "|---|---:|---:|---:|---:|---:|---:|---|"
  big='' bigrest=-1
  for l in "devices|\`uverbs devices\`" "devinfo_v|\`uverbs devinfo -v\`" "devices_json|\`uverbs devices --json\`" "devinfo_json|\`uverbs devinfo --json\`"; do
    lab=${l#*|}; l=${l%%|*}
    p=$RES/cg-$k0-$l-pie-u.out f=$RES/cg-$k0-$l-fix-u.out
    [ -s "$p" ] && [ -s "$f" ] || continue
    fns "$p" | sort -t$'\t' -k2 > "$RES/fn-$l-pie"; fns "$f" | sort -t$'\t' -k2 > "$RES/fn-$l-fix"
    join -t$'\t' -1 2 -2 2 -a1 -a2 -e0 -o 0,1.1,2.1 "$RES/fn-$l-fix" "$RES/fn-$l-pie" > "$RES/fn-$l"
    read -r tf tp ds dt rest top < <(awk -F'\t' '{ tf += $2; tp += $3; d = $3 - $2
        if ($1 == "_start_c") ds = d; else if ($1 == "__dls2" || $1 == "__init_tls") dt += d
        else { rest += d; if (d > bd) { bd = d; bn = $1 } } }
      END { printf "%d %d %d %d %d %s (%+d)\n", tf, tp, ds, dt, rest, bn, bd }' "$RES/fn-$l")
    tn=${top##* (}; tn=${tn%)}
    echo "| $lab | $(num "$tf") | $(num "$tp") | $(signed $((tp - tf))) | $(signed "$ds") | $(signed "$dt") | $(signed "$rest") | \`${top% (*}\` ($(signed "$tn")) |"
    if [ "$rest" -gt "$bigrest" ]; then bigrest=$rest big=$l biglab=$lab; fi
  done
  echo
  sc=$(fn_total "$CGP" _start_c)
  read -r hn hs < <(hot_instrs "$CGP" _start_c "$NREL")
  if [ "${hn:-0}" -gt 0 ] && [ "$NREL" -gt 0 ]; then
    echo "**What dominates the self-relocation**: of \`_start_c\`'s $(num "$sc") instructions (\`devinfo -v\`), $(num "$hs")"
    echo "($(awk -v a="$hs" -v b="$sc" 'BEGIN { printf "%.0f%%", a / b * 100 }')) are its loop over \`.rela.dyn\`: $hn instructions executed once per relocation"
    echo "($(num "$NREL") relocations: load the entry's type, mask it, compare it with R_X86_64_RELATIVE,"
    echo "load the offset and the addend, add the load address, store, step to the next entry; found as"
    echo "the instructions of \`_start_c\` that ran at least $(num "$NREL") times, from callgrind's per-instruction"
    echo "counts). The other $(num $((sc - hs))) walk argv, envp, the auxiliary vector and the dynamic section."
    echo "So the self-relocation is a fixed cost of about $hn instructions per relocation, whatever the"
    echo "command does; the way to make it cheaper is fewer relocations (each pointer stored in the"
    echo "binary's data is one; below)."
    echo
  fi
  if [ -n "$big" ] && [ "$bigrest" -gt 0 ]; then
    echo "**The rest is position-independent code**, and grows with the work (most in \`${biglab//\`/}\`). x86-64"
    echo "has no RIP-relative addressing with an index register: where the fixed-address build reads"
    echo "a static table in one instruction (\`movzwl TABLE(%rdx,%rdx,1)\`, for example the two-digit table"
    echo "of integer formatting), the PIE first loads the table's address (\`lea TABLE(%rip)\`); and a"
    echo "\`match\` compiled to a jump table dispatches with one \`jmp *TABLE(,%rax,8)\` there, but with a"
    echo "load of a 32-bit offset, an add and a \`jmp\` in the PIE (\`json_line::push_str\`'s match runs"
    echo "once per character of every JSON string). The functions of $biglab whose count"
    echo "moved by 5 or more, the start code aside (20 largest):"
    echo
    echo "| function | fixed address | static PIE | PIE − fixed |"
    echo "|---|---:|---:|---:|"
    awk -F'\t' '$1 != "_start_c" && $1 != "__dls2" && $1 != "__init_tls" { d = $3 - $2; if (d >= 5 || d <= -5) print d "\t" $0 }' "$RES/fn-$big" |
      sort -t$'\t' -k1,1nr | awk 'NR <= 20' |
      while IFS=$'\t' read -r d name a b; do echo "| \`$name\` | $(num "$a") | $(num "$b") | $(signed "$d") |"; done
    echo
  fi
fi

if [ -s "$W/result" ]; then
  echo "### The relocations"
  echo
  echo "\`readelf -rW\` of the shipped PIE: $(num "$NRELA") relocations, $(num "$NREL") of them R_X86_64_RELATIVE;"
  echo "\`.rela.dyn\` holds them in $(num "$RELA_BYTES") bytes (24 per entry). The file is $(num "$SZP") bytes against the fixed-address"
  echo "build's $(num "$SZF") ($(signed $((SZP - SZF)))). Each relocation is a pointer stored in the file's data whose value"
  echo "depends on where the file is loaded. Below, each one of the unstripped PIE is attributed to the"
  echo "object holding it: the symbol containing its offset (\`nm -S\`), or, for Rust's anonymous"
  echo "constants (tables, vtables, panic locations have no symbol), the functions whose code takes"
  echo "the object's address (\`objdump -d\`); and to what it points at (\`bench/relocs.awk\`)."
  echo
  R=$W/result
  kc() { awk -F'\t' -v k="$1" -v o="$2" '$1 == "K" && ($2 == k || k == "*") && ($3 == o || o == "*") { s += $4 } END { print s + 0 }' "$R"; }
  echo "| the pointer | relocations | uverbs | Rust's std, core, alloc | crates std links (backtrace symbolizer) | other crates | C (musl, libunwind) | unknown |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|"
  for l in "str|a \`&str\` in a table (pointer into .rodata, then its length)" \
           "loc|a panic \`Location\`'s file name (one per call site that can panic)" \
           "fn|a function pointer (vtables of trait objects, tables of functions)" \
           "rodata|another pointer into .rodata (no length after it)" \
           "got|a GOT entry (the address of a C function the code calls through the GOT)" \
           "data|a pointer from .data.rel.ro to writable data" \
           "other|in .init_array, .fini_array, .data"; do
    k=${l%%|*}; lab=${l#*|}
    [ "$(kc "$k" '*')" = 0 ] && continue
    echo "| $lab | $(kc "$k" '*') | $(kc "$k" uverbs) | $(kc "$k" std) | $(kc "$k" std-deps) | $(kc "$k" crates) | $(kc "$k" c) | $(kc "$k" unknown) |"
  done
  echo "| **all** | **$(kc '*' '*')** | **$(kc '*' uverbs)** | **$(kc '*' std)** | **$(kc '*' std-deps)** | **$(kc '*' crates)** | **$(kc '*' c)** | **$(kc '*' unknown)** |"
  echo
  if [ "$(kc got '*')" -gt 0 ]; then
    echo "The GOT entries hold the addresses of musl's functions (\`free\`, \`memcpy\`, \`malloc\`, \`memset\`, ...): the Rust"
    echo "code calls them through the GOT (\`call *f@GOTPCREL(%rip)\`, $(num "$(cat "$W/gotcalls" 2>/dev/null || echo 0)") call sites), and rustc emits these as the"
    echo "non-relaxable R_X86_64_GOTPCREL for this target, so the linker cannot make them direct calls."
    echo "The fixed-address build calls through its GOT as well ($(num "$(gotcalls "$RES/uverbs-fix-unstripped")") call sites); there the linker"
    echo "writes the entries and no relocation is left."
    echo
  fi
  if [ "${hn:-0}" -gt 0 ]; then
    echo "At $hn instructions each, the crate's own $(kc '*' uverbs) cost about $(num $(($(kc '*' uverbs) * hn))) instructions of every start; the standard"
    echo "library's and the crates it links, $(num $(($(kc '*' std) + $(kc '*' std-deps)))), about $(num $((($(kc '*' std) + $(kc '*' std-deps)) * hn)))."
    echo
  fi
  echo "The objects holding the most (15 largest):"
  echo
  echo "| relocations | pointers | object: its symbol, or the functions that take its address | first pointers |"
  echo "|---:|---|---|---|"
  awk -F'\t' '$1 == "B"' "$R" | sort -t$'\t' -k2,2nr -k4,4 | awk 'NR <= 15' |
    while IFS=$'\t' read -r _ n kind obj sample; do
      echo "| $n | $kind | \`$obj\` | $sample |"
    done
  echo
  nb=$(awk -F'\t' '$1 == "B"' "$R" | wc -l)
  echo "The rest are spread over $(num $((nb - 15))) smaller objects ($(num "$(awk -F'\t' '$1 == "B" && $2 == 1' "$R" | wc -l)") with a single relocation: mostly panic"
  echo "locations). *pointers*: str = \`&str\`, loc = panic location, fn = function pointer, rodata ="
  echo "another pointer into .rodata, got = GOT entry."
  echo
fi
echo "<!-- startup:end -->"
} > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
if [ -n "$INTO" ]; then
  put_section "$INTO" "$OUT" "<!-- startup:begin -->" "<!-- startup:end -->"
  say "section put into $INTO"
fi
say "wrote $OUT in $(secs_since "$T_ALL")"
exit "$FAILED"
