#!/usr/bin/env bash
# size.sh - what the static files weigh (issue 28): the uverbs command for x86_64 and
# aarch64, and what embedding the library costs a static program, beside a hello world
# built the same way (musl, LTO, one codegen unit, panic = "abort", stripped: the
# crate's own release profile).
#
# Usage: bench/size.sh [--into BENCHMARKS.md]
#
# The programs are written to a scratch package that depends on this crate by path:
#   hello     prints a line (the baseline: std, its allocator, musl)
#   port      discovers the devices, opens the first and queries port 1
#   objects   the same, then a PD, a CQ, an RC QP and an MR, dropped in order
#   datapath  the same, then posts a receive and polls the CQ once
# Nothing here runs them: they are measured, not executed (the VM tests run the same
# calls). The table goes to stdout, and with --into between the "## Size" heading and
# the next "## " heading of that file.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
. "$HERE/lib.sh"
say() { echo "size: $*" >&2; }

INTO=''
while [ $# -gt 0 ]; do
  case $1 in
    --into) INTO=$2; shift 2 ;;
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
} > "$work/table"
cat "$work/table"
if [ -n "$INTO" ]; then
  next=$(awk '/^## Size$/ {f = 1; next} f && /^## / {print; exit}' "$INTO")
  [ -n "$next" ] || { echo "size: $INTO has no '## Size' section followed by another" >&2; exit 1; }
  echo "$next" >> "$work/table"   # put_section replaces through that heading
  put_section "$INTO" "$work/table" "## Size" "$next"
  say "wrote the table into $INTO"
fi
