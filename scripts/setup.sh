#!/usr/bin/env bash
# setup.sh - install what building and testing uverbs needs on a Debian (bookworm)
# machine: C compiler and headers for the ABI check, a C++ compiler for libFuzzer (the
# fuzz phase), rdma-core's libibverbs-dev for the verbs.h check and the VM oracle, QEMU
# for the VM rig, the musl Rust target for the static binary, and the Rust toolchain of
# the declared rust-version (the package phase builds the crate with it). Idempotent;
# needs root for apt (skipped when everything is present).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)

need=()
command -v cc >/dev/null || need+=(gcc)
command -v make >/dev/null || need+=(make)
command -v c++ >/dev/null || need+=(g++)   # libFuzzer, built by libfuzzer-sys (the fuzz phase)
command -v readelf >/dev/null || need+=(binutils)
command -v xz >/dev/null || need+=(xz-utils)
command -v zstd >/dev/null || need+=(zstd)
command -v qemu-system-x86_64 >/dev/null || need+=(qemu-system-x86)
command -v musl-gcc >/dev/null || need+=(musl-tools)
command -v qemu-aarch64 >/dev/null || need+=(qemu-user)   # the aarch64 binary's smoke run
[ -e /usr/include/infiniband/verbs.h ] || need+=(libibverbs-dev)
[ -e /usr/include/rdma/ib_user_verbs.h ] || need+=(linux-libc-dev)
# OpenSM's <iba/ib_types.h>: the two port capability bits only the IBTA names
# (tests/abi_check.rs ibta_only_capability_bits_match_opensm).
[ -e /usr/include/infiniband/iba/ib_types.h ] || need+=(libopensm-dev)
command -v pkg-config >/dev/null || need+=(pkg-config)
# issue 43: the rig's archive test makes its apt repositories with dpkg-scanpackages
command -v dpkg-scanpackages >/dev/null || need+=(dpkg-dev)
# issue 28: valgrind's callgrind, run in the VM for bench/instructions.sh (the CI guard)
[ -x /usr/libexec/valgrind/callgrind-amd64-linux ] || need+=(valgrind)
# issue 26: the image is checked with what reads OCI layouts (scripts/image.sh)
command -v skopeo >/dev/null || need+=(skopeo)
command -v umoci >/dev/null || need+=(umoci)
command -v jq >/dev/null || need+=(jq)
command -v podman >/dev/null || need+=(podman)   # deploy/Containerfile, built without a daemon
command -v crun >/dev/null || need+=(crun)       # the image run in the VM
# issue 26 on arm64: the ABI check for aarch64 (a cross gcc-12 with the arm64 libc and
# uapi headers) and the arm64 VM (tests/vm/rig.sh installs qemu-system-arm and the cross
# gcc itself too when it prepares an arm64 kernel, and adds the arm64 architecture to apt)
command -v qemu-system-aarch64 >/dev/null || need+=(qemu-system-arm)
command -v aarch64-linux-gnu-gcc-12 >/dev/null || need+=(gcc-12-aarch64-linux-gnu)
[ -e /usr/aarch64-linux-gnu/include/stdio.h ] || need+=(libc6-dev-arm64-cross)
[ -e /usr/aarch64-linux-gnu/include/asm/types.h ] || need+=(linux-libc-dev-arm64-cross)
command -v systemd-analyze >/dev/null || need+=(systemd)   # deploy/systemd checked offline
command -v kubectl >/dev/null || need+=(kubernetes-client)  # deploy/kubernetes rendered
command -v node >/dev/null || need+=(nodejs npm)     # ... its ServiceMonitor validated
python3 -c 'import venv, ensurepip' 2>/dev/null || need+=(python3-venv)   # ... its objects validated
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: apt-get install ${need[*]}" >&2
  if [ "$(id -u)" != 0 ]; then
    echo "setup: these packages are missing and installing them needs root: ${need[*]}" >&2
    exit 1
  fi
  apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null
fi
for t in x86_64-unknown-linux-musl aarch64-unknown-linux-musl; do
  if ! rustup target list --installed 2>/dev/null | grep -qx "$t"; then
    echo "setup: rustup target add $t" >&2
    rustup target add "$t" >/dev/null
  fi
done
for c in rustfmt clippy; do
  rustup component list --installed 2>/dev/null | grep -q "^$c" || rustup component add "$c" >/dev/null
done
# The oldest Rust the crate declares (Cargo.toml's rust-version): test-all.sh builds
# the library and the binary with it.
msrv=$(sed -n 's/^rust-version *= *"\(.*\)"/\1/p' "$top/Cargo.toml")
if [ -n "$msrv" ] && ! rustup run "$msrv" rustc --version >/dev/null 2>&1; then
  echo "setup: rustup toolchain install $msrv --profile minimal" >&2
  rustup toolchain install "$msrv" --profile minimal >/dev/null
fi
# A Debian package unpacked into the peers' cache (apt-get download), not installed:
# unpack PACKAGE FILE, FILE being what must be there afterwards.
unpack() {
  local dir=${UVERBS_PEERS_CACHE:-/var/cache/uverbs-peers}/$1 tmp
  [ -x "$dir/$2" ] && return 0
  echo "setup: apt-get download $1 (unpacked in $dir)" >&2
  tmp=$(mktemp -d)
  chmod 755 "$tmp"
  (cd "$tmp" && { apt-get download -q "$1" >/dev/null 2>&1 ||
    { apt-get update -q >/dev/null && apt-get download -q "$1" >/dev/null; }; })
  mkdir -p "$dir"
  dpkg-deb -x "$tmp/$1"_*.deb "$dir"
  rm -rf "$tmp"
}
# issue 15: Debian's node_exporter (prometheus-node-exporter 1.5), the peer of `uverbs
# exporter` in the host test on node_exporter's own test data (tests/operators.rs) and in
# bench/exporter.sh; installed, the package would start a service on port 9100.
unpack prometheus-node-exporter usr/bin/prometheus-node-exporter
# issue 26: Prometheus 2.42's promtool checks deploy/prometheus (the alerting rules and
# their unit tests); installed, the package would start a server.
unpack prometheus usr/bin/promtool
