#!/usr/bin/env bash
# size.sh - what the static files weigh (issue 28): the uverbs command for x86_64 and
# aarch64, and what embedding the library costs a static program, beside a hello world
# built the same way (musl, LTO, one codegen unit, panic = "abort", stripped: the
# crate's own release profile).
#
# Usage: bench/size.sh [--into BENCHMARKS.md] [--opt-levels]
#
#   --opt-levels  also build the command at opt-level "s" and "z" (each in a target
#                 directory of its own, about 3 minutes each here) and give their sizes:
#                 what a build for size alone would reach
#
# The programs are written to a scratch package that depends on this crate by path:
#   hello     prints a line (the baseline: std, its allocator, musl)
#   port      discovers the devices, opens the first and queries port 1
#   objects   the same, then a PD, a CQ, an RC QP and an MR, dropped in order
#   datapath  the same, then posts a receive and polls the CQ once
# Nothing here runs them: they are measured, not executed (the VM tests run the same
# calls). Then where the command's bytes go: the same command built with its symbols
# (CARGO_PROFILE_RELEASE_STRIP=false; the code is the same, only the symbol table is
# kept), its sections (size -A) and its code by owner (nm -S -C: every function's size,
# grouped by the module that owns it; a generic function of core, alloc or std made for
# a uverbs type goes to that type's module). The tables go to stdout, and with --into
# between the "## Size" heading and the next "## " heading of that file.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
. "$HERE/lib.sh"
say() { echo "size: $*" >&2; }

INTO='' OPT_LEVELS=0
while [ $# -gt 0 ]; do
  case $1 in
    --into) INTO=$2; shift 2 ;;
    --opt-levels) OPT_LEVELS=1; shift ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "size: unknown argument '$1'" >&2; exit 2 ;;
  esac
done

TARGET=x86_64-unknown-linux-musl
musl_target
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The command, for both architectures (the aarch64 one as the aarch64 phase builds it).
cargo build --quiet --release --target $TARGET --bin uverbs --manifest-path "$ROOT/Cargo.toml"
cli=$(stat -c %s "$CARGO_TARGET_DIR/$TARGET/release/uverbs")
arm=-
if rustup target list --installed 2>/dev/null | grep -qx aarch64-unknown-linux-musl; then
  (cd "$ROOT" && cargo build --quiet --release --target aarch64-unknown-linux-musl --bin uverbs) \
    && arm=$(stat -c %s "$CARGO_TARGET_DIR/aarch64-unknown-linux-musl/release/uverbs")
fi

# The command with its symbols, for the attribution below (its own target directory:
# the stripped build above stays as it is).
say "building the command with its symbols"
CARGO_TARGET_DIR=$CARGO_TARGET_DIR/size-symbols CARGO_PROFILE_RELEASE_STRIP=false \
  cargo build --quiet --release --target $TARGET --bin uverbs --manifest-path "$ROOT/Cargo.toml"
sym=$CARGO_TARGET_DIR/size-symbols/$TARGET/release/uverbs
# owner NAME...: the owner of each demangled function name on stdin, "owner size" lines
# from nm -S -C lines: a layer of the crate (its first one or two path segments), a
# dependency crate, std's backtrace printer, or the C library.
owners() {
  nm -S -C "$sym" | awk 'function hex(h,  i, v) { v = 0; h = tolower(h)
      for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
      return v }
    $3 ~ /^[tTwW]$/ {
    size = hex($2); name = $0; sub(/^[^ ]+ [^ ]+ [^ ]+ /, "", name)
    if (match(name, /uverbs::[a-z_0-9]+(::[a-z_0-9]+)?/)) {
      own = substr(name, RSTART, RLENGTH)
      n = split(own, p, "::")
      if (n == 3 && p[2] !~ /^(verbs|raw|netlink|sysfs|ops|dropin|perf|plumbing|conformance)$/) own = p[1] "::" p[2]
    } else if (name ~ /^(bool )?(libunwind|gimli|addr2line|rustc_demangle|miniz_oxide)::/ || name ~ /^<(gimli|addr2line|rustc_demangle|miniz_oxide)::/) {
      own = "std: backtrace"
    } else if (name !~ /::/) {
      own = "C"
    } else {
      c = name; sub(/^<+/, "", c); sub(/^(&|\*const |\*mut |mut |dyn )+/, "", c); sub(/::.*/, "", c)
      own = (c ~ /^(rustix|zerocopy|bitflags|thiserror|spin|hashbrown|memchr)$/) ? c : "std"
    }
    print own "\t" size
  }'
}
# layer OWNER: the part of the product an owner belongs to
layer() {
  awk -F'\t' '{ o = $1; s = $2
    if (o ~ /^uverbs::(selftest|conformance)/) l = "selftest (src/selftest, the CLI'"'"'s conformance commands)"
    else if (o ~ /^uverbs::dropin/) l = "rdma-core'"'"'s tools, byte for byte (devinfo, devices, ibstat, ibstatus)"
    else if (o ~ /^uverbs::ops/) l = "operators'"'"' commands (exporter, check, counters, gids, labels, watch, link)"
    else if (o ~ /^uverbs::perf/) l = "perf (perftest'"'"'s tests)"
    else if (o ~ /^uverbs::plumbing/ || o == "uverbs::main") l = "the CLI'"'"'s plumbing (options, output, HTTP, JSON, init)"
    else if (o ~ /^uverbs::verbs::probe/) l = "selftest (src/selftest, the CLI'"'"'s conformance commands)"
    else if (o ~ /^uverbs::(verbs|raw|netlink|sysfs|cm|types|error|aio)/) l = "the library (raw, verbs, cm, netlink, sysfs, types)"
    else if (o ~ /^uverbs::/) l = "the library (raw, verbs, cm, netlink, sysfs, types)"
    else if (o == "std: backtrace") l = "std'"'"'s backtrace printer (gimli, addr2line, rustc_demangle, miniz_oxide, libunwind)"
    else if (o == "std") l = "std, core, alloc (their own code, and generic code whose symbol does not name the type)"
    else if (o == "C") l = "musl and compiler builtins (C)"
    else l = "other crates (" o ")"
    t[l] += s } END { for (l in t) print t[l] "\t" l }' | sort -t"$(printf '\t')" -k1,1nr
}

declare -A OPT=()
if [ "$OPT_LEVELS" = 1 ]; then
  for o in s z; do
    say "building the command at opt-level $o"
    CARGO_TARGET_DIR=$CARGO_TARGET_DIR/size-opt-$o CARGO_PROFILE_RELEASE_OPT_LEVEL=$o \
      cargo build --quiet --release --target $TARGET --bin uverbs --manifest-path "$ROOT/Cargo.toml"
    OPT[$o]=$(stat -c %s "$CARGO_TARGET_DIR/size-opt-$o/$TARGET/release/uverbs")
  done
fi

mkdir -p "$work/embed/src/bin"
cat > "$work/embed/Cargo.toml" <<EOF
[package]
name = "embed"
version = "0.0.0"
edition = "2021"
publish = false

[dependencies]
uverbs = { path = "$ROOT" }

[profile.release]
lto = true
codegen-units = 1
panic = "abort"
strip = true
EOF
cat > "$work/embed/src/bin/hello.rs" <<'EOF'
fn main() {
    println!("hello");
}
EOF
# One body for the three that use the library: how far it goes is the program's name.
cat > "$work/embed/src/lib.rs" <<'EOF'
use std::sync::Arc;
use uverbs::verbs::datapath::{RecvWr, Sge, Wc};
use uverbs::verbs::objects::{MrBuf, QpCap, QpInit};
use uverbs::{AccessFlags, Context, Discovery, QpType};

pub fn run(depth: u32) -> Result<(), uverbs::Error> {
    let devs = Discovery::new().devices()?;
    let Some(d) = devs.first() else { return Ok(()) };
    let ctx = Arc::new(Context::open(d)?);
    let port = ctx.query_port(1)?;
    println!("{} port 1: {:?}", d.name, port.state);
    if depth == 0 {
        return Ok(());
    }
    let pd = ctx.alloc_pd()?;
    let cq = ctx.create_cq(16, None, 0)?;
    let cap = QpCap { max_send_wr: 4, max_recv_wr: 4, max_send_sge: 1, max_recv_sge: 1, max_inline_data: 0 };
    let qp = pd.create_qp(&QpInit::new(QpType::Rc, &cq, &cq).cap(cap))?;
    let mr = pd.reg_mr(MrBuf::new(4096).map_err(|e| uverbs::Error::Os { op: uverbs::Op::new("mmap", ""), errno: e })?, AccessFlags::LOCAL_WRITE)?;
    if depth == 2 {
        if let Some(s) = Sge::new(&mr, 0, 4096) {
            let sges = [s];
            qp.post_recv(&[RecvWr::new(1, &sges)])?;
        }
        let mut wc = [Wc::default(); 1];
        println!("{} completions", cq.poll(&mut wc)?);
    }
    Ok(())
}
EOF
for p in port:0 objects:1 datapath:2; do
  printf 'fn main() {\n    if let Err(e) = embed::run(%s) {\n        eprintln!("{e}");\n    }\n}\n' "${p#*:}" \
    > "$work/embed/src/bin/${p%%:*}.rs"
done
say "building the embedding programs ($TARGET)"
CARGO_TARGET_DIR=$work/target cargo build --quiet --release --target $TARGET \
  --manifest-path "$work/embed/Cargo.toml"
sz() { stat -c %s "$work/target/$TARGET/release/$1"; }
hello=$(sz hello)

{
  echo "## Size"
  echo
  echo "Measured by \`bench/size.sh\` ($(rustc -V | cut -d' ' -f1-2), $(date -u +%Y-%m-%d)): stripped"
  echo "static files, musl, LTO, one codegen unit, \`panic = \"abort\"\`."
  echo
  echo "| what | bytes | KiB |"
  echo "|---|---:|---:|"
  echo "| **uverbs**, the command (x86_64, static PIE) | $(num "$cli") | $((cli / 1024)) |"
  for o in s z; do
    [ -n "${OPT[$o]:-}" ] && echo "| the same at \`opt-level = \"$o\"\` (not shipped: a build for size alone) | $(num "${OPT[$o]}") | $((OPT[$o] / 1024)) |"
  done
  [ "$arm" = - ] || echo "| **uverbs**, the command (aarch64, static PIE) | $(num "$arm") | $((arm / 1024)) |"
  echo "| hello world (the baseline of the rows below) | $(num "$hello") | $((hello / 1024)) |"
  for p in port objects datapath; do
    s=$(sz $p)
    case $p in
      port) what='discover, open, QUERY_PORT' ;;
      objects) what='... + PD, CQ, RC QP, MR' ;;
      datapath) what='... + post_recv, poll' ;;
    esac
    echo "| a program that embeds uverbs: $what | $(num "$s") | +$(( (s - hello) / 1024 )) over hello |"
  done
  echo
  echo "The goals (issue 28): the command at most 1 MiB on both architectures, and"
  echo "embedding for a port query at most 128 KiB over hello world. Debian's rdma-core 44"
  echo "beside it (stripped, as shipped): libibverbs.so.1 131 KiB, libnl-3 + libnl-route-3"
  echo "704 KiB, the rxe and siw providers 60 KiB (all 17: 1,098 KiB), ibv_devinfo 26 KiB;"
  echo "the stack with only rxe and siw 921 KiB, with glibc 4,050 KiB."
  echo
  echo "### Where the command's bytes go (x86_64)"
  echo
  echo "The same command built with its symbols (the code is the same; \`size -A\`, \`nm -S -C\`)."
  echo "Its sections, the loaded ones:"
  echo
  echo "| section | bytes | share of the file |"
  echo "|---|---:|---:|"
  size -A "$sym" | awk -v f="$cli" '$1 ~ /^\./ && $3 > 0 && $2 >= 4096 { printf "| `%s` | %s | %.1f%% |\n", $1, $2, $2 * 100 / f }' |
    while IFS= read -r l; do b=$(echo "$l" | cut -d'|' -f3 | tr -d ' '); echo "${l/| $b |/| $(num "$b") |}"; done
  echo
  echo "Its code (\`.text\`) by the part of the product that owns each function; a generic"
  echo "function of core, alloc or std made for a uverbs type counts for that type's module where its"
  echo "symbol names the type (legacy symbol names often do not: those count for std):"
  echo
  echo "| owner | bytes of code | share of \`.text\` |"
  echo "|---|---:|---:|"
  owners > "$work/owners"
  text=$(awk -F'\t' '{ s += $2 } END { print s }' "$work/owners")
  layer < "$work/owners" | while IFS=$'\t' read -r b l; do
    echo "| $l | $(num "$b") | $(awk -v b="$b" -v t="$text" 'BEGIN { printf "%.1f%%", b * 100 / t }') |"
  done
  echo "| **all functions** | **$(num "$text")** | |"
  echo
  echo "The 12 largest owners:"
  echo
  echo "| owner | bytes of code |"
  echo "|---|---:|"
  awk -F'\t' '{ t[$1] += $2 } END { for (o in t) print t[o], o }' "$work/owners" | sort -k1,1nr | head -n 12 |
    while read -r b o; do echo "| \`$o\` | $(num "$b") |"; done
  echo
  goal=$((1024 * 1024))
  feat=$(awk -F'\t' '$1 ~ /^uverbs::(selftest|conformance|dropin|ops|perf|plumbing|verbs::probe)/ || $1 == "uverbs::main" { s += $2 } END { print s + 0 }' "$work/owners")
  bt=$(awk -F'\t' '$1 == "std: backtrace" { s += $2 } END { print s + 0 }' "$work/owners")
  if [ "$cli" -le "$goal" ]; then
    echo "The command meets the 1 MiB goal ($(num "$cli") bytes)."
  else
    echo "The command misses the 1 MiB goal by $(num $((cli - goal))) bytes. Its commands (selftest,"
    echo "rdma-core's tools, the operators' commands, perf, the CLI's plumbing) are $(num "$feat") bytes"
    echo "of code by themselves; the library under them, std and the C library come on top."
    [ -n "${OPT[z]:-}" ] && echo "A build for size alone (\`opt-level = \"z\"\`: $(num "${OPT[z]}") bytes) stays over the goal too; it is not taken (a build for size would first have to pass the instruction tables)."
    echo "std's backtrace printer ($(num "$bt") bytes) comes with the standard library's default panic"
    echo "hook even with \`panic = \"abort\"\`; on stable Rust only a rebuilt std (build-std with"
    echo "\`panic_immediate_abort\`, nightly) leaves it out. So on stable Rust the goal for the full"
    echo "command means leaving commands out of it."
  fi
  emb=$(( $(sz port) - hello ))
  if [ "$emb" -le $((128 * 1024)) ]; then
    echo "The embedding goal, what a program that uses the library pays, is met: +$(num "$emb") bytes for a port query."
  else
    echo "The embedding goal is missed: +$(num "$emb") bytes for a port query, over 128 KiB."
  fi
  echo
  echo "Reproduce: \`bench/size.sh --opt-levels --into BENCHMARKS.md\` (without \`--opt-levels\`, no \`opt-level\` rows)."
  echo
} > "$work/table"
cat "$work/table"
if [ -n "$INTO" ]; then
  next=$(awk '/^## Size$/ {f = 1; next} f && /^## / {print; exit}' "$INTO")
  [ -n "$next" ] || { echo "size: $INTO has no '## Size' section followed by another" >&2; exit 1; }
  echo "$next" >> "$work/table"   # put_section replaces through that heading
  put_section "$INTO" "$work/table" "## Size" "$next"
  say "wrote the table into $INTO"
fi
