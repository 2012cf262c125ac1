#!/usr/bin/env bash
# rdma-core.sh - upstream rdma-core releases as peers of uverbs: built once, on the host,
# with the host's compiler against Debian bookworm's libraries (so that the result runs in
# the VM guest, whose user space is bookworm's), and cached like the rig's kernels.
#
# Usage: tests/vm/rdma-core.sh [--cached] [VERSION...]
#
#   Prints, one line per VERSION (default: every release in tests/vm/peers), the cache
#   directory of its build, building it first if needed.  --cached never builds: a
#   release that is not built yet is an error (exit 3).
#
# Source: $UVERBS_PEERS_DIR/rdma-core-VERSION.tar.xz (default: ../shared/peers next to
# the crate), a `git archive` of the upstream tag; tests/vm/peers pins its sha256, and
# the cache directory is keyed by it:
#
#   $UVERBS_VM_CACHE/rdma-core-VERSION-<sha256[0:12]>/     (default cache /var/cache/uverbs-vm)
#     opt/rdma-core-VERSION/  what the guest gets at /opt/rdma-core-VERSION (rig.sh puts it
#                             in every base image): bin/ibv_devinfo, bin/ibv_devices,
#                             lib/libibverbs.so.1 (+ the libibverbs.so link for linking),
#                             lib/libibverbs/lib{rxe,siw}-rdmavN.so.  Built for that
#                             prefix: binaries find the library by their RUNPATH, the
#                             library its providers in lib/libibverbs, and the .driver
#                             files in /etc/libibverbs.d (Debian's, which name rxe and siw).
#     include/                the build's public headers and config.h, symlinks resolved:
#                             for compiling against this release on the host (the
#                             oracle, the printer's differential test, the ABI check)
#     kernel-headers/         the kernel uapi headers this release was synced with
#     build.log
#
# The build: cmake + ninja of the targets the tests need (libibverbs, the rxe and siw
# providers, ibv_devinfo, ibv_devices), about 10 s on 2 cores.  Host packages, installed
# when missing (as root): cmake ninja-build gcc pkg-config libnl-3-dev libnl-route-3-dev
# python3.  Exit status: 0; 3 --cached and not built; 4 the archive is missing or its
# hash differs from tests/vm/peers; 125 other host-side errors (as rig.sh).
# Nothing built here, and no file of rdma-core, enters the repository.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CRATE=$(cd "$HERE/../.." && pwd)
PEERS=$HERE/peers
CACHE=${UVERBS_VM_CACHE:-/var/cache/uverbs-vm}
SRC_DIR=${UVERBS_PEERS_DIR:-$CRATE/../shared/peers}

msg() { echo "rdma-core: $*" >&2; }
die() { echo "rdma-core: error: $*" >&2; exit "${2:-125}"; }
have() { command -v "$1" >/dev/null 2>&1; }

CACHED=0
VERSIONS=()
for a in "$@"; do
  case $a in
    --cached) CACHED=1 ;;
    -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    -*) die "unknown option $a" ;;
    *) VERSIONS+=("$a") ;;
  esac
done
[ ${#VERSIONS[@]} -gt 0 ] || mapfile -t VERSIONS < <(awk '!/^#/ && NF >= 2 { print $1 }' "$PEERS")

pinned_sha() { awk -v v="$1" '!/^#/ && $1 == v { print $2; found = 1 } END { exit !found }' "$PEERS"; }

host_packages() {
  local need=()
  have cmake || need+=(cmake)
  have ninja || need+=(ninja-build)
  have gcc || need+=(gcc)
  have pkg-config || need+=(pkg-config)
  have python3 || need+=(python3)
  [ -e /usr/include/libnl3/netlink/netlink.h ] || need+=(libnl-3-dev)
  [ -e /usr/include/libnl3/netlink/route/link.h ] || need+=(libnl-route-3-dev)
  [ ${#need[@]} = 0 ] && return 0
  [ "$(id -u)" = 0 ] || die "missing host packages: ${need[*]} (install them, or run as root)"
  msg "apt-get install ${need[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" \
    >/dev/null 2>&1 \
    || { apt-get update -qq >/dev/null 2>&1 || true
         DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
           "${need[@]}" >/dev/null; } \
    || die "apt-get install ${need[*]} failed"
}

build() { # VERSION ARCHIVE OUT
  local v=$1 archive=$2 out=$3 t0 tmp prefix=/opt/rdma-core-$1 b pabi f
  t0=$SECONDS
  host_packages
  rm -rf "$out"
  tmp=$out.tmp
  rm -rf "$tmp"; mkdir -p "$tmp/b"
  msg "building rdma-core $v from $archive"
  tar -xJf "$archive" -C "$tmp"
  local src
  src=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d -name 'rdma-core-*' | head -n1)
  [ -n "$src" ] && [ -f "$src/CMakeLists.txt" ] || die "$archive holds no rdma-core source tree"
  b=$tmp/b
  # The prefix is where the guest has it; RUNPATH points there (no LD_LIBRARY_PATH
  # needed), the providers are looked up in $prefix/lib/libibverbs, the .driver
  # files in /etc/libibverbs.d.
  if ! (cd "$b" && cmake -GNinja -DNO_MAN_PAGES=1 -DNO_PYVERBS=1 \
          -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_SYSCONFDIR=/etc \
          -DCMAKE_BUILD_WITH_INSTALL_RPATH=ON -DCMAKE_INSTALL_RPATH="$prefix/lib" \
          "$src" && ninja -t targets all > targets.txt) > "$tmp/build.log" 2>&1; then
    tail -n 30 "$tmp/build.log" >&2; die "cmake of rdma-core $v failed"
  fi
  # the providers' file suffix is the provider ABI (rdmav34 in 50.0, rdmav64 in 64.0)
  pabi=$(grep -oE '^lib/librxe-rdmav[0-9]+\.so' "$b/targets.txt" | head -n1 | sed 's/.*-\(rdmav[0-9]*\)\.so/\1/')
  [ -n "$pabi" ] || die "rdma-core $v: no lib/librxe-rdmavN.so target"
  if ! (cd "$b" && ninja bin/ibv_devinfo bin/ibv_devices "lib/librxe-$pabi.so" "lib/libsiw-$pabi.so") \
       >> "$tmp/build.log" 2>&1; then
    tail -n 30 "$tmp/build.log" >&2; die "building rdma-core $v failed (log: $tmp/build.log)"
  fi
  local o=$tmp/out/opt/rdma-core-$v
  mkdir -p "$o/bin" "$o/lib/libibverbs"
  for f in ibv_devinfo ibv_devices; do cp "$b/bin/$f" "$o/bin/"; done
  cp -L "$b/lib/libibverbs.so.1" "$o/lib/libibverbs.so.1"
  ln -s libibverbs.so.1 "$o/lib/libibverbs.so"
  for f in rxe siw; do cp -L "$b/lib/lib$f-$pabi.so" "$o/lib/libibverbs/"; done
  strip --strip-debug "$o"/bin/* "$o/lib/libibverbs.so.1" "$o"/lib/libibverbs/*.so
  # headers with their symlinks (into the source tree) resolved
  cp -rL "$b/include" "$tmp/out/include"
  cp -r "$src/kernel-headers" "$tmp/out/kernel-headers"
  echo "rdma-core $v $(sha256sum "$archive" | cut -d' ' -f1) provider-abi $pabi" > "$tmp/out/package"
  mv "$tmp/build.log" "$tmp/out/build.log"
  mv "$tmp/out" "$out"
  rm -rf "$tmp"
  touch "$out/.ok"
  msg "rdma-core $v built in $((SECONDS - t0)) s ($out)"
}

rc=0
for v in "${VERSIONS[@]}"; do
  want=$(pinned_sha "$v") || die "rdma-core $v is not in $PEERS"
  archive=$SRC_DIR/rdma-core-$v.tar.xz
  out=$CACHE/rdma-core-$v-${want:0:12}
  if [ -e "$out/.ok" ]; then echo "$out"; continue; fi
  if [ "$CACHED" = 1 ]; then
    msg "rdma-core $v is not built yet (run tests/vm/rdma-core.sh $v)"; rc=3; continue
  fi
  [ -f "$archive" ] || die "no $archive (set UVERBS_PEERS_DIR to the directory of the rdma-core archives)" 4
  got=$(sha256sum "$archive" | cut -d' ' -f1)
  [ "$got" = "$want" ] || die "$archive has sha256 $got, tests/vm/peers pins $want" 4
  mkdir -p "$CACHE" 2>/dev/null || die "cannot create the cache $CACHE (set UVERBS_VM_CACHE)"
  exec 8>"$CACHE/.rdma-core.lock"
  flock 8
  [ -e "$out/.ok" ] || build "$v" "$archive" "$out"
  flock -u 8
  echo "$out"
done
exit $rc
