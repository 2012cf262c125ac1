#!/usr/bin/env bash
# rig.sh - run a command inside a throw-away QEMU (TCG) VM that has a real
# Linux RDMA stack: a Debian kernel with ib_core, ib_uverbs, Soft-RoCE (rxe)
# and Soft-iWARP (siw) devices, plus rdma-core's user space.  The uverbs
# device tests run there (see run-tests.sh); the host needs no RDMA at all.
#
# Usage: tests/vm/rig.sh [OPTIONS] [-- COMMAND...]
#
#   One COMMAND argument is a shell command line (run by sh -c); several
#   arguments are run as they are (argv).  Without a command: a short device
#   report.  The command runs as root under /bin/sh (dash) in /uverbs, where
#   the --add files are, with /uverbs first on PATH, stdin empty.  Its
#   stdout+stderr are streamed to stdout between two marker lines
#       ----- uverbs-vm: begin output (...) -----
#       ----- uverbs-vm: end output (exit status N) -----
#   and rig.sh exits with the command's exit status.  Progress and timings go
#   to stderr.
#
# Options:
#   --kernel SERIES    kernel series from tests/vm/versions: 6.1, 6.12 or
#                      6.1-arm64 (default: the first line of that file, 6.1).
#                      With --prepare, "all" prepares every series.  An arm64
#                      kernel boots under qemu-system-aarch64 (see below).
#   --rxe N            rxe links rxe0..rxe<N-1>, each on its own dummy netdev
#                      rxenet<i> with 169.254.<1+i>.1/24 (default 1, max 100)
#   --siw N            siw links siw0..siw<N-1> on dummy siwnet<i> with
#                      169.254.<129+i>.1/24 (default 1, max 100)
#   --add FILE[:DEST]  copy FILE (or a directory) into the guest; DEST
#                      defaults to /uverbs/<name>; a relative DEST is under
#                      /uverbs.  Shared libraries of dynamic ELF files are
#                      added too.  Repeatable.
#   --packages "PKG..." unpack these Debian packages (candidate versions, their
#                      .debs cached beside the user space's) into this run's
#                      overlay only, not the base image (issue 25: python3.11
#                      for pyverbs, scripts/pyverbs-compare.sh).  Their
#                      dependencies are not resolved: a shared library their
#                      ELF files need must be in the base image, among them or
#                      in the user space packages (then it is added), else the
#                      run stops naming it.  Repeatable.
#   --env K=V          export K=V to the command.  Repeatable.  The guest
#                      always exports UVERBS_VM_KERNEL (series, e.g. 6.12) and
#                      UVERBS_VM_DEVICES (e.g. rxe0,siw0).
#   --timeout S        kill the VM after S seconds (default 600)
#   --mem MB           guest memory (default 2048; only touched pages cost)
#   --smp N            guest CPUs (default 1)
#   --log FILE         also save the guest console log to FILE
#   --verbose          stream the guest console (kernel + setup) to stderr
#   --prepare          only fill the cache (downloads, siw build, initramfs)
#   --planted SED      build a driver for --kernel's series with the sed script SED
#                      applied to its .c sources (a planted bug): siw.ko for siw-*.sed,
#                      rdma_rxe.ko for rxe-*.sed; cache it, print its path, and exit
#                      (tests/vm/planted/ holds the scripts).  Built in the kernel's one
#                      tree of that driver: only the objects of changed files recompile
#   --kernel-paths     print --kernel's image and its modules tree (two lines: the
#                      cache's, with the rig's siw.ko), and exit (scripts/bisect-boot.sh)
#   --bump             rewrite tests/vm/versions to the newest kernels the archive
#                      serves now, then exit
#   --resolve          resolve the packages --kernel's series is prepared from (see
#                      Kernels below), download them into the cache, print them
#                      (PACKAGE[:ARCH]=VERSION, a line each), and exit
#   -h, --help
#
# Exit status: the command's own, or
#   121  the command passed but the guest kernel logged a WARNING, BUG, oops or
#        call trace (one a test brackets as expected is not counted: guest-init.sh),
#        or its log lost records before they were checked (it holds 64 MiB:
#        log_buf_len, about a million records; Debian's default of 128 KiB wrapped;
#        every QUERY_PORT on the rig's dummy netdevs logs a line)
#   122  the RDMA setup in the guest failed (modules, links, ports not ACTIVE)
#   123  the VM ended without reporting a status (crash, panic, oops)
#   124  the VM timed out (--timeout)
#   125  a host-side error (usage, download, build)
# On 122-124 the tail of the guest console goes to stderr.
#
# Kernels: tests/vm/versions pins one Debian kernel package and version per
# series (UVERBS_VM_VERSIONS: another file).  A kernel is prepared from five packages:
# the image, its headers, the headers' -common and kbuild, and linux-source-X.Y.  The
# pinned version of each is the preference; when the archive no longer serves it (the
# security archive drops old revisions every week), the nearest version of the same
# package that it serves is taken (the oldest newer one that meets the headers'
# Depends, else the nearest at all), and for the image the nearest image of the
# series.  Each substitution is said as "WARNING: ARCHIVE DRIFT: ..." when found and
# on every later run that boots that kernel (the prepared kernel keeps the list), and
# appended to UVERBS_VM_DRIFT_LOG when set (scripts/test-all.sh shows them with its
# phase table).  UVERBS_VM_EXACT=1 makes a substitution an error.  When nothing of a
# package or series is left, preparing stops (125) naming what is missing and what
# the archive has.  "tests/vm/rig.sh --bump" pins the newest kernels (commit the file).
# A warm cache never talks to apt.
#
# Packages come through the rig's own apt configuration, $CACHE/apt (its sources
# list, package lists and state; the host's sources and dpkg are never used or
# changed): Debian bookworm, bookworm-updates and bookworm-security at
# UVERBS_VM_MIRROR and UVERBS_VM_SECURITY_MIRROR (default deb.debian.org), or the
# sources list in the file UVERBS_VM_APT_SOURCES (tests/vm/archive-test.sh: local
# file: repositories).
#
# Cache: ${UVERBS_VM_CACHE:-/var/cache/uverbs-vm}: downloaded .debs, the
# extracted user space, per kernel the vmlinux, the module tree with the
# out-of-tree siw.ko (Debian ships no siw), the drivers' sources and build trees
# (src-DRIVER, build-DRIVER) and the planted builds (planted-DRIVER-HASH), and the
# base initramfs.  Deleting any part of it is safe: it is rebuilt on the next run.
#
# Host: Debian bookworm (amd64), root for the first preparation (apt-get
# installs qemu-system-x86, gcc-12, make, binutils, xz-utils, zstd, libelf1
# when missing).  No KVM needed; no network in the guest (no NIC at all).
#
# arm64 (issue 26): a series whose package ends in -arm64 (6.1-arm64) is Debian's
# arm64 kernel under qemu-system-aarch64 (-M virt, TCG), with arm64 user space
# (USER_PKGS_ARM64: the same tools as :arm64 packages, less the x86-only peers,
# plus crun and jq for the image); siw.ko is cross-built with the amd64
# linux-kbuild of the same version and gcc-12-aarch64-linux-gnu.  The first
# preparation installs qemu-system-arm and gcc-12-aarch64-linux-gnu on the host; the
# rig's apt configuration lists arm64 packages itself (no dpkg --add-architecture).
# Console on the PL011 (ttyAMA0), the command's output on a virtio console (hvc0).
set -eEuo pipefail
# a command failing unexpectedly (set -e) is a host-side error too
trap 'rc=$?; [ $rc = 125 ] || echo "rig: error: unexpected failure (status $rc) at line $LINENO" >&2; exit 125' ERR

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SELF=$HERE/rig.sh
VERSIONS=${UVERBS_VM_VERSIONS:-$HERE/versions}   # (the archive test gives its own)
KSPECS=()
GUEST_INIT=$HERE/guest-init.sh
CACHE=${UVERBS_VM_CACHE:-/var/cache/uverbs-vm}
HOST_DEB_ARCH=amd64   # the host (x86_64): kbuild's tools, busybox's depmod and cpio
# the host's Debian release: its kernels' drivers are built on the host; another
# release's, in a build root of that release (issue 43)
HOST_CODENAME=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
HOST_CODENAME=${HOST_CODENAME:-bookworm}

# user space taken from Debian's packages (never installed on the host): USER_PKGS
# for the amd64 guest, USER_PKGS_ARM64 (as :arm64 packages) for the arm64 one
USER_PKGS="busybox-static dash libc6 libgcc-s1 iproute2 libbpf1 libelf1 zlib1g libmnl0
  libbsd0 libmd0 libcap2 libibverbs1 ibverbs-providers ibverbs-utils libnl-3-200
  libnl-route-3-200 util-linux libcap-ng0"
# issue 18: infiniband-diags 44's ibstat (C, over libibumad) and ibstatus (a
# sh script: dash plus busybox's basename, sed and cat), the compat peers
USER_PKGS+=" infiniband-diags libibumad3 libibmad5 libibnetdisc5"
# issue 26: the arm64 guest runs a smoke set (tests/vm/aarch64-guest.sh) and the image
# under crun (jq writes the runtime's configurations), not the data path's or the
# exporter's peers
USER_PKGS_ARM64="$USER_PKGS crun libseccomp2 libsystemd0 libyajl2 libgcrypt20 libgpg-error0
  liblz4-1 liblzma5 libzstd1 jq libjq1 libonig5"
# issue 17: the data path's peers: perftest (ib_*_lat/bw, which need librdmacm, libpci,
# libudev and libibumad, listed above for issue 18), rdmacm-utils' rping, and librdmacm itself
USER_PKGS+=" perftest librdmacm1 rdmacm-utils libpci3 libudev1"
# issue 15: the exporter's peers: Prometheus (with promtool) scrapes uverbs exporter
# and checks its text; Debian's node_exporter 1.5 is compared with it (Go binaries)
USER_PKGS+=" prometheus prometheus-node-exporter"
# modules loaded in the guest (their dependencies come along); the crc
# modules are only loaded where they are modules (not built in), and only where the
# kernel has them (OPTIONAL_MODULES: Linux 6.15 made the CRC32 helpers a library)
WANT_MODULES="crc32_generic crc32c_generic ib_core ib_uverbs rdma_rxe siw dummy"
OPTIONAL_MODULES="crc32_generic crc32c_generic"
# issue 17: the RDMA CM's user interface (/dev/infiniband/rdma_cm: rping, and siw's
# connections), and veth pairs (two rxe devices that can reach each other)
WANT_MODULES+=" rdma_ucm veth"
# issue 15: VLAN devices (a RoCE v2 GID on a VLAN, for uverbs gids --select)
WANT_MODULES+=" 8021q"

# The files of the guest image (besides busybox and the libraries they need), from
# the user space packages: GUEST_FILES in the amd64 guest, GUEST_FILES_ARM64 in the
# arm64 one.  dash is /bin/sh: Debian's busybox ash prefers its own applets to PATH, so
# 'ip' would be busybox's instead of iproute2's.
GUEST_FILES="bin/dash bin/ip usr/bin/rdma usr/bin/setpriv usr/bin/ibv_devinfo usr/bin/ibv_devices
  usr/bin/ibv_asyncwatch usr/bin/ibv_rc_pingpong usr/bin/ibv_ud_pingpong"
# issue 18: ibstat, ibstatus (a script) and the config file ibstat reads
GUEST_FILES+=" usr/sbin/ibstat usr/sbin/ibstatus etc/infiniband-diags/ibdiag.conf"
GUEST_FILES_ARM64="$GUEST_FILES usr/bin/crun usr/bin/jq"   # issue 26: the image under crun
# issue 17: the data path's peers (perftest, rping, the pingpong programs the list
# above lacks)
GUEST_FILES+=" usr/bin/ib_write_lat usr/bin/ib_write_bw usr/bin/ib_send_lat usr/bin/ib_send_bw
  usr/bin/ib_read_lat usr/bin/ib_read_bw usr/bin/ib_atomic_lat usr/bin/ib_atomic_bw
  usr/bin/rping usr/bin/ibv_uc_pingpong usr/bin/ibv_srq_pingpong"
# issue 15: Prometheus, promtool and node_exporter (the exporter's peers)
GUEST_FILES+=" usr/bin/prometheus usr/bin/promtool usr/bin/prometheus-node-exporter"

# set_arch DEBARCH (amd64, arm64): the guest's architecture, from its kernel package
set_arch() {
  KARCH=$1
  case $1 in
    amd64)
      ARCH=x86_64-linux-gnu QEMU=qemu-system-x86_64:qemu-system-x86 CROSS='' MAKE_ARCH=''
      LD_SO=lib64/ld-linux-x86-64.so.2 UDIR=$CACHE/userland ;;
    arm64)
      ARCH=aarch64-linux-gnu QEMU=qemu-system-aarch64:qemu-system-arm
      CROSS=aarch64-linux-gnu- MAKE_ARCH=arm64
      LD_SO=lib/ld-linux-aarch64.so.1 UDIR=$CACHE/userland-arm64
      ;;
    *) die "no support for $1 kernels (amd64, arm64)" ;;
  esac
  KMODULES=$WANT_MODULES
  # the command's output goes to a virtio console, a module in Debian's arm64 kernel
  [ "$1" = amd64 ] || KMODULES+=" virtio_mmio virtio_console"
}

# ---------------------------------------------------------------- helpers
msg() { echo "rig: $*" >&2; }
die() { echo "rig: error: $*" >&2; exit 125; }
usage() { sed -n '2,/^set -eEuo/{/^set -eEuo/d;s/^# \{0,1\}//;p}' "$SELF"; }
now_us() { echo "${EPOCHREALTIME/./}"; }
secs_since() { # start_us -> "12.3s"
  local d=$((($(now_us) - $1) / 100000))
  echo "$((d / 10)).$((d % 10))s"
}
have() { command -v "$1" >/dev/null 2>&1; }
pkgname() { local n=${1%%=*}; echo "${n%%:*}"; }   # PKG[:ARCH][=VER] -> PKG

RESOLVE=0 PLANTED='' SERIES='' NRXE=1 NSIW=1 TIMEOUT=600 MEM=2048 SMP=1 VERBOSE=0 PREPARE=0 BUMP=0 LOGCOPY=''
ADDS=() ENVS=() XPKGS=()
while [ $# -gt 0 ]; do
  case $1 in
    --kernel) SERIES=${2:?}; shift 2 ;;
    --rxe) NRXE=${2:?}; shift 2 ;;
    --siw) NSIW=${2:?}; shift 2 ;;
    --add) ADDS+=("${2:?}"); shift 2 ;;
    --packages) read -r -d '' -a _p <<<"${2:?}" || true; XPKGS+=(${_p[@]+"${_p[@]}"}); shift 2 ;;
    --env) ENVS+=("${2:?}"); shift 2 ;;
    --timeout) TIMEOUT=${2:?}; shift 2 ;;
    --mem) MEM=${2:?}; shift 2 ;;
    --smp) SMP=${2:?}; shift 2 ;;
    --log) LOGCOPY=${2:?}; shift 2 ;;
    --verbose) VERBOSE=1; shift ;;
    --prepare) PREPARE=1; shift ;;
    --bump) BUMP=1; shift ;;
    --resolve) RESOLVE=1; shift ;;
    --planted) PLANTED=${2:?}; shift 2 ;;
    --kernel-paths) PATHS=1; shift ;;
    -h|--help) usage; exit 0 ;;
    --) shift; break ;;
    *) echo "rig: unknown argument '$1' (commands go after --; see --help)" >&2; exit 125 ;;
  esac
done
for n in "$NRXE" "$NSIW" "$TIMEOUT" "$MEM" "$SMP"; do
  [[ $n =~ ^[0-9]+$ ]] || die "not a number: $n"
done
[ "$NRXE" -le 100 ] && [ "$NSIW" -le 100 ] || die "at most 100 rxe and 100 siw links"
for e in "${ENVS[@]}"; do [[ $e =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || die "--env wants K=V, got '$e'"; done

# ---------------------------------------------------------------- the archive
# The rig's own apt configuration, $CACHE/apt (issue 43): its sources list, package
# lists and state; the host's apt sources, lists and dpkg are never read or changed
# (the host's apt.conf.d still applies: a proxy set there is used).  Its sources:
# UVERBS_VM_APT_SOURCES (a one-line-style sources.list file, e.g. a file: repository),
# else Debian's bookworm, bookworm-updates and bookworm-security at
# UVERBS_VM_MIRROR (default http://deb.debian.org/debian) and
# UVERBS_VM_SECURITY_MIRROR (default http://deb.debian.org/debian-security).  Both the
# amd64 and the arm64 packages are listed (APT::Architectures): no dpkg
# --add-architecture on the host.
# (Every apt-cache run parses all package lists, about 1 s: queries are batched.)
# At most one 'apt-get update' per run, also from within $(...) subshells.
APT_DIR=$CACHE/apt
APT_STAMP=${TMPDIR:-/tmp}/uverbs-rig-apt.$$
RUN=''
trap 'rm -rf "$APT_STAMP" ${RUN:+"$RUN"}' EXIT
apt_config() {
  local sources key=/usr/share/keyrings/debian-archive-keyring.gpg
  local m=${UVERBS_VM_MIRROR:-http://deb.debian.org/debian}
  local sm=${UVERBS_VM_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
  mkdir -p "$APT_DIR"/{etc/sources.list.d,etc/preferences.d,state/lists/partial,cache/archives/partial}
  local c prefs=''
  if [ -n "${UVERBS_VM_APT_SOURCES:-}" ]; then
    [ -f "$UVERBS_VM_APT_SOURCES" ] || die "UVERBS_VM_APT_SOURCES: no file $UVERBS_VM_APT_SOURCES"
    sources=$(cat "$UVERBS_VM_APT_SOURCES")
  else
    [ -f "$key" ] || host_tools "$key:debian-archive-keyring"
    # the host's release (the user space comes from it), then every other release a
    # kernel of the versions file comes from (issue 43: bullseye's 5.10, trixie's
    # backports); those at priority 100, so that a package both have is taken from the
    # host's release unless a version is asked for
    sources=''
    for c in $HOST_CODENAME $(all_codenames | grep -vx "$HOST_CODENAME" || true); do
      sources+="deb [signed-by=$key] $m $c main
deb [signed-by=$key] $m $c-updates main
deb [signed-by=$key] $sm $c-security main
"
      if [ "$c" != "$HOST_CODENAME" ]; then
        prefs+="Package: *
Pin: release n=$c
Pin-Priority: 100

Package: *
Pin: release n=$c-updates
Pin-Priority: 100

Package: *
Pin: release n=$c-security
Pin-Priority: 100

"
      fi
    done
    for c in $(all_suites | grep -- '-backports$' || true); do
      sources+="deb [signed-by=$key] $m $c main
"
    done
    sources=${sources%$'\n'}
  fi
  printf '%s' "$prefs" > "$APT_DIR/etc/preferences"
  # a change of sources drops the lists made from the old ones
  if [ "$sources" != "$(cat "$APT_DIR/etc/sources.list" 2>/dev/null)" ]; then
    printf '%s\n' "$sources" > "$APT_DIR/etc/sources.list"
    rm -rf "$APT_DIR/state/lists"; mkdir -p "$APT_DIR/state/lists/partial"
    rm -f "$APT_DIR"/cache/*.bin
  fi
  : >> "$APT_DIR/state/status"
  cat > "$APT_DIR/apt.conf" <<CONF
Dir::Etc::sourcelist "$APT_DIR/etc/sources.list";
Dir::Etc::sourceparts "$APT_DIR/etc/sources.list.d";
Dir::Etc::preferences "$APT_DIR/etc/preferences";
Dir::Etc::preferencesparts "$APT_DIR/etc/preferences.d";
Dir::State "$APT_DIR/state";
Dir::State::status "$APT_DIR/state/status";
Dir::Cache "$APT_DIR/cache";
APT::Architectures { "$HOST_DEB_ARCH"; "arm64"; };
Acquire::Languages "none";
Acquire::IndexTargets::deb::DEP-11::DefaultEnabled "false";
Acquire::IndexTargets::deb::DEP-11-icons::DefaultEnabled "false";
Acquire::IndexTargets::deb::DEP-11-icons-small::DefaultEnabled "false";
Acquire::IndexTargets::deb::DEP-11-icons-hidpi::DefaultEnabled "false";
Acquire::IndexTargets::deb::CNF::DefaultEnabled "false";
CONF
}
xapt() { APT_CONFIG=$APT_DIR/apt.conf "$@"; }   # apt-get/apt-cache with the rig's configuration
apt_update() {
  [ -e "$APT_STAMP" ] && return 0
  msg "apt-get update (the rig's own sources: $APT_DIR/etc/sources.list)"
  xapt apt-get update -qq >/dev/null 2>&1 || msg "warning: apt-get update reported errors"
  : > "$APT_STAMP"
}
apt_show() { # PKG[:ARCH][=VER]... -> "PACKAGE VERSION SIZE" for each one apt knows
  xapt apt-cache show --no-all-versions "$@" 2>/dev/null | awk '
    /^Package: / { p = $2 } /^Version: / { v = $2 } /^Size: / { s = $2 }
    /^$/ { if (p != "") print p, v, s; p = "" }
    END { if (p != "") print p, v, s }' || true
}
apt_resolve() { # PKG[:ARCH][=VER]... -> like apt_show; one 'apt-get update' if some are unknown
  local out spec
  out=$(apt_show "$@")
  for spec in "$@"; do
    if ! grep -q "^$(pkgname "$spec") " <<<"$out"; then apt_update; out=$(apt_show "$@"); break; fi
  done
  echo "$out"
}
apt_field() { # PKG[:ARCH][=VER] FIELD
  xapt apt-cache show --no-all-versions "$1" 2>/dev/null | sed -n "s/^$2: //p" | head -n1 || true
}
apt_versions() { # PKG[:ARCH] -> every version of PKG the archive serves, one a line
  xapt apt-cache madison "$1" 2>/dev/null | awk -F'|' '{ gsub(/ /, "", $2); print $2 }' | sort -u || true
}
# satisfies VERSION "OP VER" (a Depends relation, e.g. ">= 6.1.192-2"; empty: any)
satisfies() {
  [ -n "$2" ] || return 0
  local op=${2%% *} v=${2#* }
  case $op in
    '>=') op=ge ;; '<=') op=le ;; '=') op=eq ;; '>>') op=gt ;; '<<') op=lt ;;
    *) return 1 ;;
  esac
  dpkg --compare-versions "$1" "$op" "$v"
}
# nearest WANT VERSION... -> the version nearest to WANT: the oldest one newer than
# WANT, else the newest one older (the archive drops old revisions, so newer ones are
# what replaced it); fails when none is given
nearest() {
  local want=$1 v up='' down=''
  shift
  for v in "$@"; do
    if dpkg --compare-versions "$v" gt "$want"; then
      [ -n "$up" ] && dpkg --compare-versions "$v" ge "$up" || up=$v
    else
      [ -n "$down" ] && dpkg --compare-versions "$v" le "$down" || down=$v
    fi
  done
  [ -n "$up$down" ] && echo "${up:-$down}"
}
# Drift: a package the rig uses in another version than the one pinned or asked for.
# Each is said loudly when found and on every run that uses it (the kernel's cache
# directory keeps the list: $KDIR/drift), and appended to UVERBS_VM_DRIFT_LOG when set
# (scripts/test-all.sh prints them beside the phase table).  UVERBS_VM_EXACT=1 makes
# drift an error.
DRIFT=()
drift() { # TEXT: one substitution found now (said by select_kernel)
  [ "${UVERBS_VM_EXACT:-0}" != 1 ] || die "$1 (UVERBS_VM_EXACT=1: no substitute is taken)"
  DRIFT+=("$1")
}
say_drift() { # TEXT
  msg "WARNING: ARCHIVE DRIFT: $1"
  [ -z "${UVERBS_VM_DRIFT_LOG:-}" ] || echo "$KSERIES: $1" >> "$UVERBS_VM_DRIFT_LOG"
}
# install missing host tools: each argument is COMMAND:PACKAGE or /FILE:PACKAGE
host_tools() {
  local need=() t
  for t in "$@"; do
    case $t in
      /*) [ -e "${t%%:*}" ] || need+=("${t#*:}") ;;
      *) have "${t%%:*}" || need+=("${t#*:}") ;;
    esac
  done
  [ ${#need[@]} = 0 ] && return 0
  [ "$(id -u)" = 0 ] || die "missing host packages: ${need[*]} (install them, or run as root)"
  msg "apt-get install ${need[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" \
    >/dev/null 2>&1 \
    || { apt-get update -qq >/dev/null 2>&1; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
           --no-install-recommends "${need[@]}" >/dev/null; } \
    || die "apt-get install ${need[*]} failed"
}
# Download PKG[:ARCH]=VER... (ARCH: the host's when not given) into $CACHE/debs (once
# each); print the .deb paths in order.
deb_of() {
  local n=${1%%=*} a=$HOST_DEB_ARCH
  case $n in *:*) a=${n#*:} ;; esac
  ls "$CACHE/debs/$(pkgname "$1")_$(sed 's/:/%3a/' <<<"${1#*=}")_"{"$a",all}.deb 2>/dev/null | head -n1 || true
}
fetch_debs() {
  local spec missing=() info p v s total=0 names=''
  mkdir -p "$CACHE/debs"
  for spec in "$@"; do [ -n "$(deb_of "$spec")" ] || missing+=("$spec"); done
  if [ ${#missing[@]} -gt 0 ]; then
    info=$(apt_resolve "${missing[@]}")
    for spec in "${missing[@]}"; do
      grep -q "^$(pkgname "$spec") ${spec#*=} " <<<"$info" || die "apt cannot download $spec"
    done
    while read -r p v s; do
      total=$((total + s)); names+=" $p ($(((s + 524288) / 1048576)) MB)"
    done <<<"$info"
    local t0 tmp
    t0=$(now_us)
    tmp=$(mktemp -d "$CACHE/debs/.dl.XXXXXX")
    chmod 755 "$tmp"
    msg "downloading$names"
    if ! (cd "$tmp" && xapt apt-get download -qq "${missing[@]}" >"$tmp/.log" 2>&1); then
      cat "$tmp/.log" >&2; rm -rf "$tmp"; die "apt-get download failed"
    fi
    mv "$tmp"/*.deb "$CACHE/debs/"
    rm -rf "$tmp"
    msg "downloaded $(((total + 524288) / 1048576)) MB in $(secs_since "$t0")"
  fi
  for spec in "$@"; do
    p=$(deb_of "$spec")
    [ -n "$p" ] || die "download of $spec produced no .deb"
    echo "$p"
  done
}

# ---------------------------------------------------------------- kernel pins
# versions: "SERIES PACKAGE VERSION" lines, e.g.
#   6.1 linux-image-6.1.0-56-amd64 6.1.192-2
#   6.1-arm64 linux-image-6.1.0-56-arm64 6.1.192-2
# The package's last word is the architecture; SERIES up to its first '-' the
# kernel series (that of linux-source-X.Y).
pinned() { # SERIES -> "PACKAGE VERSION"
  awk -v s="$1" '$1 == s && !/^#/ { print $2, $3; found = 1; exit } END { exit !found }' "$VERSIONS"
}
all_series() { awk '!/^#/ && NF >= 3 { print $1 }' "$VERSIONS"; }
# series_suite SERIES -> the Debian suite that serves it (the fourth word; the host's
# release when there is none), and its release's codename (bullseye-security -> bullseye)
series_suite() {
  awk -v s="$1" -v h="$HOST_CODENAME" '$1 == s && !/^#/ { print (NF >= 4 ? $4 : h); exit }' "$VERSIONS"
}
series_codename() { local x; x=$(series_suite "$1"); echo "${x%%-*}"; }
all_suites() { awk -v h="$HOST_CODENAME" '!/^#/ && NF >= 3 { print (NF >= 4 ? $4 : h) }' "$VERSIONS" | sort -u; }
all_codenames() { all_suites | sed 's/-.*//' | sort -u; }
series_arch() { # SERIES -> the architecture of its pinned package (amd64, arm64)
  local line
  line=$(pinned "$1") || die "kernel series '$1' is not in $VERSIONS (have: $(echo $(all_series)))"
  line=${line%% *}
  echo "${line##*-}"
}
# series_images SERIES -> "PACKAGE VERSION" for every linux-image-X.Y...-ARCH of SERIES
# (no -cloud/-rt/-dbg/-unsigned, not the meta package) and every version of it that the
# archive serves
series_images() {
  local re src=${1%%-*} arch names
  arch=$(series_arch "$1")
  re="^linux-image-${src//./\\.}(\\.[0-9]+)*(-[0-9]+)?(\\+deb[0-9]+)?-$arch\$"
  names=$(xapt apt-cache pkgnames linux-image- | grep -E "$re" | grep -vx "linux-image-$src-$arch" || true)
  [ -z "$names" ] || xapt apt-cache madison $(sed "s/\$/:$arch/" <<<"$names") 2>/dev/null \
    | awk -F'|' '{ gsub(/ /, ""); sub(/:.*/, "", $1); print $1, $2 }' | sort -u || true
}
# newest_in_series SERIES -> "PACKAGE VERSION", the newest image of the series
newest_in_series() {
  local p v best='' bestv=''
  set_arch "$(series_arch "$1")"
  apt_update
  while read -r p v; do
    if [ -z "$bestv" ] || dpkg --compare-versions "$v" gt "$bestv"; then best=$p bestv=$v; fi
  done < <(series_images "$1")
  [ -n "$best" ] && echo "$best $bestv"
}
bump_versions() {
  local s old new tmp
  tmp=$(mktemp)
  cp "$VERSIONS" "$tmp"
  for s in $(all_series); do
    old=$(pinned "$s")
    new=$(newest_in_series "$s") || die "the archive serves no linux-image-${s%%-*}*-$(series_arch "$s")"
    if [ "$old" = "$new" ]; then
      msg "$s: $old (already the newest)"
    else
      msg "$s: $old -> $new"
      awk -v s="$s" -v n="$new" '$1 == s && !/^#/ { print s, n (NF >= 4 ? " " $4 : ""); next } { print }' "$tmp" > "$tmp.new"
      mv "$tmp.new" "$tmp"
    fi
  done
  cat "$tmp" > "$VERSIONS"; rm -f "$tmp"
}

# True when $KDIR is prepared and its module tree has every module of
# KMODULES (loaded, or built into the kernel): a module added to WANT_MODULES
# prepares the kernel again (issue 17 added rdma_ucm and veth).
kernel_ready() {
  # (specs: the packages it was made from; a cache from before issue 43 has none)
  [ -e "$KDIR/.ok" ] && [ -s "$KDIR/specs" ] || return 1
  local m n p builtin=$KDIR/modules/lib/modules/$KREL/modules.builtin
  for m in $KMODULES; do
    grep -qw -- "$m" "$KDIR/modules.load" && continue
    grep -qx -- "$m" "$KDIR/modules.absent" 2>/dev/null && continue
    while IFS= read -r p; do
      n=${p##*/}; n=${n%%.ko*}; [ "${n//-/_}" = "$m" ] && continue 2
    done < "$builtin"
    msg "the cached kernel's module tree lacks $m: preparing the kernel again"
    return 1
  done
}

# use_image PACKAGE VERSION: the kernel image the run boots (KPKG KDEBVER KREL KDIR)
use_image() {
  KPKG=$1 KDEBVER=$2
  KREL=${KPKG#linux-image-}                 # 6.1.0-56-amd64, 6.12.117+deb12-amd64, 6.1.0-56-arm64
  KDIR=$CACHE/kernel-${KREL}_$KDEBVER
}

# Resolve SERIES -> KPKG KDEBVER KREL KDIR KSERIES KSRC, and set_arch; prepare the kernel
# unless the cache has it (no apt access then).  The pinned image is the preference;
# when the archive no longer serves it, the nearest image of the series is taken
# (drift); a substitution made once is kept in $CACHE/subst-SERIES, so a warm cache
# keeps booting it without apt (and says so on every run).
select_kernel() {
  local line sub
  line=$(pinned "$1") || die "kernel series '$1' is not in $VERSIONS (have: $(echo $(all_series)))"
  read -r KPKG KDEBVER <<<"$line"
  set_arch "${KPKG##*-}"
  KSERIES=$1 KSRC=${1%%-*}                  # 6.1-arm64 -> linux-source-6.1
  BROOT=''
  [ "$(series_codename "$1")" = "$HOST_CODENAME" ] || BROOT=$CACHE/buildroot-$(series_codename "$1")
  use_image "$KPKG" "$KDEBVER"
  sub=$CACHE/subst-$KSERIES
  if ! kernel_ready && [ -f "$sub" ] && [ "$(head -n1 "$sub")" = "$KPKG $KDEBVER" ]; then
    use_image $(sed -n 2p "$sub")
  fi
  local d
  if ! kernel_ready; then
    use_image "$KPKG" "$KDEBVER"   # (resolved afresh from the pin)
    resolve_kernel
    for d in ${DRIFT[@]+"${DRIFT[@]}"}; do say_drift "$d"; done
    prepare_kernel
  elif [ -s "$KDIR/drift" ]; then
    while IFS= read -r d; do [ -z "$d" ] || say_drift "$d"; done < "$KDIR/drift"
  fi
}

# pick PKG[:ARCH] WANT RELATION WHO: PICKED, the version of PKG to use: WANT when the
# archive serves it (and it satisfies RELATION, a Depends relation such as ">= 6.1.192-2",
# or ''), else the nearest version it serves that satisfies RELATION, else the nearest
# one at all (drift, said); none at all is an error naming what is missing.  WHO: what
# needs PKG, for the messages.
pick() {
  local pkg=$1 want=$2 rel=$3 who=$4 all ok=() v
  mapfile -t all < <(apt_versions "$pkg")
  [ -n "${all[0]:-}" ] || die "the archive serves no $(pkgname "$pkg") at all (wanted: $want${rel:+, $who needs $rel}); sources: $APT_DIR/etc/sources.list"
  for v in "${all[@]}"; do
    if [ "$v" = "$want" ] && satisfies "$v" "$rel"; then PICKED=$v; return 0; fi
    satisfies "$v" "$rel" && ok+=("$v")
  done
  if [ ${#ok[@]} -gt 0 ]; then
    PICKED=$(nearest "$want" "${ok[@]}")
    drift "$(pkgname "$pkg") $want is gone from the archive; using $PICKED, the nearest it serves${rel:+ that satisfies $rel (the Depends of $who)} (it has: $(echo "${all[@]}"))"
  else
    PICKED=$(nearest "$want" "${all[@]}")
    drift "$(pkgname "$pkg") $want is gone from the archive and no version it serves satisfies $rel (the Depends of $who); using $PICKED, the nearest (it has: $(echo "${all[@]}"))"
  fi
}

# resolve_kernel: KSPECS, the packages preparing the kernel takes, PKG[:ARCH]=VERSION:
# the image, its headers, the headers' -common (arch all), kbuild (the host's: its
# programs run here) and linux-source-X.Y, then the parts of the image where Debian
# splits it (7.x: linux-base-REL, linux-binary-REL, linux-modules-REL, which the image
# package only depends on); DRIFT, the substitutions made.
resolve_kernel() {
  local images hdep idep common kbuild crel krel hv p v best=''
  DRIFT=()
  [ -n "$(apt_resolve "$KPKG:$KARCH=$KDEBVER")" ] || {
    images=$(series_images "$KSERIES")
    if [ -z "$images" ]; then
      p=$(xapt apt-cache pkgnames linux-image- | grep -E -- "-$KARCH\$" | sort -V | tr '\n' ' ' | cut -c1-600 || true)
      die "the pinned kernel $KPKG $KDEBVER ($VERSIONS) is gone from the archive, and it serves no other linux-image-$KSRC*-$KARCH either.
  The archive has these linux-image-*-$KARCH packages: ${p:-none}
  Sources: $APT_DIR/etc/sources.list"
    fi
    best=$(nearest "$KDEBVER" $(awk '{ print $2 }' <<<"$images"))
    p=$(awk -v v="$best" '$2 == v { print $1; exit }' <<<"$images")
    drift "the pinned kernel $KPKG $KDEBVER is gone from the archive; using $p $best, the nearest of series $KSERIES (tests/vm/rig.sh --bump pins the newest)"
    printf '%s %s\n%s %s\n' "$KPKG" "$KDEBVER" "$p" "$best" > "$CACHE/subst-$KSERIES"
    use_image "$p" "$best"
  }
  pick "linux-headers-$KREL:$KARCH" "$KDEBVER" '' ''
  hv=$PICKED
  # the headers' dependencies name the -common and kbuild packages (6.1:
  # linux-kbuild-6.1 (>= VERSION); 6.12: linux-kbuild-6.12.117+deb12), from the same
  # source package: the kernel's version is the one wanted
  hdep=$(apt_field "linux-headers-$KREL:$KARCH=$hv" Depends)
  common=$(grep -o 'linux-headers-[^ ,]*-common' <<<"$hdep" | head -n1 || true)
  kbuild=$(grep -o 'linux-kbuild-[^ ,]*' <<<"$hdep" | head -n1 || true)
  [ -n "$common" ] && [ -n "$kbuild" ] || die "cannot find the -common/kbuild packages of linux-headers-$KREL $hv (Depends: $hdep)"
  crel=$(grep -o "$common ([^)]*)" <<<"$hdep" | sed 's/.*(\(.*\))/\1/' | head -n1 || true)
  krel=$(grep -o "$kbuild ([^)]*)" <<<"$hdep" | sed 's/.*(\(.*\))/\1/' | head -n1 || true)
  KSPECS=("$KPKG:$KARCH=$KDEBVER" "linux-headers-$KREL:$KARCH=$hv")
  pick "$common" "$KDEBVER" "$crel" "linux-headers-$KREL $hv"
  KSPECS+=("$common=$PICKED")
  pick "$kbuild:$HOST_DEB_ARCH" "$KDEBVER" "$krel" "linux-headers-$KREL $hv"
  KSPECS+=("$kbuild:$HOST_DEB_ARCH=$PICKED")
  pick "linux-source-$KSRC" "$KDEBVER" '' ''
  KSPECS+=("linux-source-$KSRC=$PICKED")
  idep=$(apt_field "$KPKG:$KARCH=$KDEBVER" Depends)
  for p in $(grep -oE "linux-(base|binary|modules)-$(sed 's/[.+]/\\&/g' <<<"$KREL")( |,|\$)" <<<"$idep" | tr -d ', ' || true); do
    pick "$p:$KARCH" "$KDEBVER" "= $KDEBVER" "$KPKG $KDEBVER"
    KSPECS+=("$p:$KARCH=$PICKED")
  done
}

# ---------------------------------------------------------------- user space
# $CACHE/userland/root: the packages in USER_PKGS, unpacked (candidate
# versions when first prepared; delete the directory to refresh it);
# $CACHE/userland-arm64/root: USER_PKGS_ARM64's arm64 packages.  The host runs
# the amd64 user space's busybox (depmod, cpio) for every guest.
HOST_BUSYBOX=$CACHE/userland/root/bin/busybox
prepare_userland() { # DEBARCH
  local dir=$CACHE/userland pkgs=$USER_PKGS list=USER_PKGS suf=''
  if [ "$1" != "$HOST_DEB_ARCH" ]; then
    dir=$CACHE/userland-$1 pkgs=$USER_PKGS_ARM64 list=USER_PKGS_ARM64 suf=:$1
  fi
  # ready when every package of the list is in it (a package added to the
  # list re-prepares it; the versions are re-resolved then)
  if [ -e "$dir/.ok" ]; then
    local have=1 q
    for q in $pkgs; do grep -q "^$q$suf=" "$dir/packages" || { have=0; break; }; done
    [ "$have" = 0 ] || return 0
    msg "user space lacks some of $list: preparing it again"
  fi
  local t0 specs=() names=() p v info debs f
  t0=$(now_us)
  for p in $pkgs; do names+=("$p$suf"); done
  info=$(apt_resolve "${names[@]}")
  for p in $pkgs; do
    v=$(awk -v p="$p" '$1 == p { print $2 }' <<<"$info")
    [ -n "$v" ] || die "apt does not know package $p$suf"
    specs+=("$p$suf=$v")
  done
  debs=$(fetch_debs "${specs[@]}")
  rm -rf "$dir"; mkdir -p "$dir/root"
  while IFS= read -r f; do dpkg-deb -x "$f" "$dir/root"; done <<<"$debs"
  rm -rf "$dir/root/usr/share"
  printf '%s\n' "${specs[@]}" > "$dir/packages"
  [ -x "$dir/root/bin/busybox" ] || die "busybox-static has no bin/busybox"
  touch "$dir/.ok"
  msg "$1 user space ready in $(secs_since "$t0")"
}

# ---------------------------------------------------------------- kernel
# The uncompressed vmlinux boots through PVH straight into 64-bit code
# (no real-mode setup, no in-guest decompression): about half the TCG boot
# time of the bzImage.  The bzImage header says where the compressed
# payload is: setup_sects (0x1f1), payload_offset (0x248), payload_length
# (0x24c), relative to the protected-mode code at (setup_sects+1)*512.
extract_vmlinux() { # bzImage vmlinux  (fails if no PVH entry)
  local sects off len magic
  sects=$(od -An -tu1 -j $((0x1f1)) -N1 "$1" | tr -d ' ')
  [ "$sects" = 0 ] && sects=4
  off=$(od -An -tu4 -j $((0x248)) -N4 "$1" | tr -d ' ')
  len=$(od -An -tu4 -j $((0x24c)) -N4 "$1" | tr -d ' ')
  off=$(((sects + 1) * 512 + off))
  magic=$(od -An -tx1 -j "$off" -N4 "$1" | tr -d ' ')
  local dec
  case $magic in
    fd377a58) dec='xz -dc --single-stream' ;;
    28b52ffd) dec='zstd -dcq' ;;
    1f8b08*) dec='gzip -dc' ;;
    *) return 1 ;;
  esac
  tail -c +$((off + 1)) "$1" | head -c "$len" | $dec > "$2.tmp" 2>/dev/null || true
  # XEN_ELFNOTE_PHYS32_ENTRY (type 18) marks the PVH entry point
  if readelf -n "$2.tmp" 2>/dev/null | grep -q '0x00000012'; then mv "$2.tmp" "$2"; return 0; fi
  rm -f "$2.tmp"; return 1
}

# The software RDMA drivers (siw: siw.ko; rxe: rdma_rxe.ko) are built out of tree
# (kbuild M=) from drivers/infiniband/sw/DRIVER/ of linux-source-SERIES, against the
# matching headers, with the compiler the kernel was built with (gcc-12 for both series).
# They are not signed: the kernel loads them (tainted), as Debian does not enforce
# signatures.  For an arm64 kernel the same compiler's cross build
# (aarch64-linux-gnu-gcc-12, ARCH=arm64), with the host's (amd64) kbuild tools, which the
# headers' scripts/ and tools/ link to.
#
# Issue 25 (planted regressions kept cheaply): each kernel has ONE build tree per driver,
# $KDIR/build-DRIVER, whose objects are kept: kb/ holds the headers, DRIVER/ the sources
# and what kbuild made of them.  A build first brings every source file to the content
# it needs (pristine, or with a plant's sed script applied), writing only the files
# whose content differs (so the others keep their mtimes), then runs make there: only
# the objects of the files the plant (or the previous plant) changed are recompiled,
# and the .ko relinked.  kbuild's .cmd files name the tree by its absolute path, so it
# never moves; $KDIR/build-DRIVER.lock serialises the builds in it.

# Issue 43: a kernel of another Debian release than the host's (bullseye's 5.10, trixie's
# backports of 7.x) is built with its release's compiler and kbuild, which need its C
# library: in a build root of that release, $CACHE/buildroot-CODENAME (debootstrap
# --variant=minbase with the compiler, make and libelf; about a minute the first time,
# then cached), into which the kernel's cache directory is bind-mounted at /k for the
# build, with /proc (objtool reads a limit there), in a private mount namespace:
# nothing stays mounted.  BROOT is set by
# select_kernel: '' on the host's release.
BROOT=''
# in_build PATH -> PATH as make sees it (under /k in a build root)
in_build() { if [ -n "$BROOT" ]; then echo "/k${1#"$KDIR"}"; else echo "$1"; fi; }
# in_root COMMAND...: COMMAND on the host, or in the build root with $KDIR at /k
in_root() {
  if [ -z "$BROOT" ]; then "$@"; return; fi
  unshare --mount --propagation private -- /bin/sh -c \
    'mount --bind "$1" "$2/k" && mount -t proc proc "$2/proc" || exit 125; r=$2; shift 2; exec chroot "$r" "$@"' \
    sh "$KDIR" "$BROOT" "$@"
}
# build_root CC: $BROOT made (once) with the compiler CC (gcc-10, x86_64-linux-gnu-gcc-14)
build_root() {
  local cc=$1 c pkgs log t0 m=${UVERBS_VM_MIRROR:-http://deb.debian.org/debian}
  c=${BROOT##*/buildroot-}
  pkgs="${cc#"${CROSS:-x86_64-linux-gnu-}"},make"
  case $c in buster | bullseye | bookworm) pkgs+=,libelf1 ;; *) pkgs+=,libelf1t64 ;; esac
  [ -e "$BROOT/.ok" ] && [ "$(cat "$BROOT/.packages")" = "$pkgs" ] && return 0
  [ "$(id -u)" = 0 ] || die "building for a $c kernel needs a $c build root (debootstrap, chroot: root)"
  host_tools debootstrap:debootstrap unshare:util-linux
  t0=$(now_us)
  msg "making a $c build root ($pkgs) in $BROOT"
  rm -rf "$BROOT" "$BROOT.tmp"
  log=$CACHE/buildroot-$c.log
  debootstrap --variant=minbase --include="$pkgs" "$c" "$BROOT.tmp" "$m" > "$log" 2>&1 \
    || { tail -n 20 "$log" >&2; die "debootstrap of $c failed (log: $log)"; }
  rm -rf "$BROOT.tmp/var/cache/apt/archives"/*.deb
  mkdir -p "$BROOT.tmp/k"
  echo "$pkgs" > "$BROOT.tmp/.packages"
  mv "$BROOT.tmp" "$BROOT"
  touch "$BROOT/.ok"
  msg "$c build root ready in $(secs_since "$t0")"
}

# sw_driver DRIVER: SW_KO (the module), SW_CFGVAR (its config option), SW_FIRST (a source
# file every version has)
sw_driver() {
  case $1 in
    siw) SW_KO=siw.ko SW_CFGVAR=CONFIG_RDMA_SIW SW_FIRST=siw_main.c ;;
    rxe) SW_KO=rdma_rxe.ko SW_CFGVAR=CONFIG_RDMA_RXE SW_FIRST=rxe.c ;;
    *) die "no software RDMA driver '$1'" ;;
  esac
}

# sw_tree DRIVER: $KDIR/src-DRIVER (the pristine sources) and $KDIR/build-DRIVER (the build
# tree: the headers, the sources) made once.  Only the driver's directory of the source
# tarball is needed, but tar has to read through the whole xz stream (the slow part).
sw_tree() {
  local drv=$1 src=$KDIR/src-$1 tree=$KDIR/build-$1 debs f
  [ -f "$src/$SW_FIRST" ] && [ -e "$tree/.ready" ] && return 0
  debs=$(kernel_debs)
  mapfile -t debs <<<"$debs"
  if [ ! -f "$src/$SW_FIRST" ]; then
    rm -rf "$src.tmp"; mkdir -p "$src.tmp"
    dpkg-deb --fsys-tarfile "${debs[4]}" \
      | tar -xO "./usr/src/linux-source-$KSRC.tar.xz" \
      | xz -dc -T0 \
      | tar -x -C "$src.tmp" --strip-components=5 --wildcards "linux-source-$KSRC/drivers/infiniband/sw/$drv/*"
    [ -f "$src.tmp/$SW_FIRST" ] || die "no $drv sources in linux-source-$KSRC"
    rm -rf "$src"; mv "$src.tmp" "$src"
    rm -rf "$tree"   # built from other sources
  fi
  if [ ! -e "$tree/.ready" ]; then
    rm -rf "$tree"; mkdir -p "$tree/kb" "$tree/$drv"
    for f in "${debs[@]:1:3}"; do dpkg-deb -x "$f" "$tree/kb"; done
    # the arch Makefile includes the -common tree by absolute path (as make sees it: in
    # a build root, the kernel's cache directory is at /k)
    sed -i "s|/usr/src/|$(in_build "$tree")/kb/usr/src/|g" "$tree/kb/usr/src/linux-headers-$KREL/Makefile"
    cp -r "$src/." "$tree/$drv/"
    touch "$tree/.ready"
  fi
}

# build_sw DRIVER SEDFILE OUT: DRIVER's module built in its tree with SEDFILE (a sed
# script: a planted bug; '' for none) applied to its .c sources, stripped, at OUT; make's
# output at OUT.log
build_sw() {
  local drv=$1 sedf=$2 out=$3 tree=$KDIR/build-$1 src=$KDIR/src-$1 p f new changed=0 cc kcc
  sw_driver "$drv"
  exec 8>"$tree.lock"
  flock 8
  sw_tree "$drv"
  kcc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(.*\)"$/\1/p' "$KDIR/config")
  cc=$CROSS${kcc%% *}
  if [ -n "$BROOT" ]; then
    build_root "$cc"
  else
    have "$cc" || die "the kernel's compiler $cc is not installed (kernel: $kcc)"
  fi
  [ "$(in_root "$cc" --version | head -n1)" = "$CROSS$kcc" ] \
    || msg "warning: kernel built with '$kcc', building $drv with '$(in_root "$cc" --version | head -n1)'"
  # each source file to this build's content: the plant's where its script changes the
  # file, else the pristine one (undoing the previous plant); rewritten only if different
  new=$tree/.new
  for p in "$src"/*; do
    f=$tree/$drv/${p##*/}
    if [ -n "$sedf" ] && [[ $p = *.c ]]; then
      sed -f "$sedf" "$p" > "$new"
      if ! cmp -s "$p" "$new"; then
        changed=1
        diff -u --label "a/${p##*/}" --label "b/${p##*/}" "$p" "$new" >&2 || true
      fi
    else
      cp "$p" "$new"
    fi
    if cmp -s "$new" "$f"; then rm -f "$new"; else mv "$new" "$f"; fi
  done
  [ -z "$sedf" ] || [ "$changed" = 1 ] || die "$sedf changed nothing in $drv's sources"
  # CONFIG_DEBUG_INFO_BTF_MODULES= : no pahole run for module BTF
  local t
  t=$(in_build "$tree")
  in_root make -C "$t/kb/usr/src/linux-headers-$KREL" M="$t/$drv" CC="$cc" \
    ${MAKE_ARCH:+ARCH=$MAKE_ARCH CROSS_COMPILE=$CROSS} "$SW_CFGVAR=m" CONFIG_DEBUG_INFO_BTF_MODULES= \
    -j"$(nproc)" modules > "$out.log" 2>&1 \
    || { tail -n 30 "$out.log" >&2; die "$drv build failed (log: $out.log)"; }
  cp "$tree/$drv/$SW_KO" "$out.tmp"
  "${CROSS}strip" --strip-debug "$out.tmp"
  mv "$out.tmp" "$out"
  flock -u 8
}

# kernel_debs: the .debs of the kernel, its headers, -common, kbuild and source (KSPECS,
# or the list the prepared kernel was made from), downloaded once into the cache
kernel_debs() {
  [ ! -s "$KDIR/specs" ] || mapfile -t KSPECS < "$KDIR/specs"
  [ "${#KSPECS[@]}" -ge 5 ] || die "internal: kernel_debs before resolve_kernel"
  fetch_debs "${KSPECS[@]}"
}

# planted_module SEDFILE: prints the path of a driver built with SEDFILE applied (issue
# 25: a regression planted in a real driver): siw.ko for siw-*.sed, rdma_rxe.ko for
# rxe-*.sed; cached by the script's contents, with make's output (build.log)
planted_module() {
  local sedf=$1 key dir drv t0
  [ -f "$sedf" ] || die "no sed script $sedf"
  drv=${sedf##*/}; drv=${drv%%-*}
  case $drv in siw | rxe) sw_driver "$drv" ;; *) die "$sedf: name it siw-*.sed or rxe-*.sed" ;; esac
  key=$(sha256sum "$sedf" | cut -c1-12)
  dir=$KDIR/planted-$drv-$key
  if [ ! -f "$dir/$SW_KO" ]; then
    t0=$(now_us)
    msg "building $SW_KO with $sedf applied"
    rm -rf "$dir.tmp"; mkdir -p "$dir.tmp"
    build_sw "$drv" "$sedf" "$dir.tmp/$SW_KO"
    mv "$dir.tmp/$SW_KO.log" "$dir.tmp/build.log"
    rm -rf "$dir"; mv "$dir.tmp" "$dir"
    msg "built $SW_KO in $(secs_since "$t0"), compiled:$(sed -n 's|^ *CC \[M\] *.*/| |p' "$dir/build.log" | tr -d '\n')"
  fi
  echo "$dir/$SW_KO"
}

prepare_kernel() {
  local t0 t1 tmp debs cfg mods
  t0=$(now_us)
  msg "preparing $KPKG $KDEBVER (series $KSERIES)"
  # (libelf1, libssl3: kbuild's objtool, sign-file)
  host_tools make:make readelf:binutils xz:xz-utils zstd:zstd gcc-12:gcc-12 \
    "/usr/lib/x86_64-linux-gnu/libelf.so.1:libelf1" "/usr/lib/x86_64-linux-gnu/libssl.so.3:libssl3"
  [ -z "$CROSS" ] || host_tools "${CROSS}gcc-12:gcc-12-$ARCH"
  rm -rf "$KDIR"; mkdir -p "$KDIR"
  tmp=$KDIR/.tmp; mkdir -p "$tmp/img"
  debs=$(kernel_debs)
  mapfile -t debs <<<"$debs"

  t1=$(now_us)
  # the image, and its parts where Debian splits it (7.x keeps the config and vmlinuz
  # in /usr/lib/modules/REL, not /boot)
  local part vmlinuz
  for part in "${debs[0]}" "${debs[@]:5}"; do dpkg-deb -x "$part" "$tmp/img"; done
  mods=$(ls -d "$tmp"/img/lib/modules/"$KREL" "$tmp"/img/usr/lib/modules/"$KREL" 2>/dev/null | head -n1 || true)
  cfg=$tmp/img/boot/config-$KREL
  [ -f "$cfg" ] || cfg=$mods/config
  vmlinuz=$tmp/img/boot/vmlinuz-$KREL
  [ -f "$vmlinuz" ] || vmlinuz=$mods/vmlinuz
  [ -f "$cfg" ] && [ -d "$mods/kernel" ] && [ -f "$vmlinuz" ] \
    || die "$KPKG: no config, vmlinuz or modules where expected"
  local o
  for o in CONFIG_INFINIBAND=m CONFIG_INFINIBAND_USER_ACCESS=m CONFIG_RDMA_RXE=m CONFIG_DUMMY=m; do
    grep -qx "$o" "$cfg" || die "$KPKG lacks $o"
  done
  cp "$cfg" "$KDIR/config"
  if [ "$KARCH" = arm64 ]; then
    # arm64's vmlinuz is the Image QEMU loads (gzip-compressed in some releases)
    if [ "$(od -An -tx1 -N2 "$vmlinuz" | tr -d ' ')" = 1f8b ]; then
      gzip -dc "$vmlinuz" > "$KDIR/Image"
    else
      cp "$vmlinuz" "$KDIR/Image"
    fi
  elif extract_vmlinux "$vmlinuz" "$KDIR/vmlinux"; then
    :
  else
    msg "note: no PVH entry in $KPKG's vmlinux, booting the bzImage (slower)"
    cp "$vmlinuz" "$KDIR/vmlinuz"
  fi
  msg "unpacked the kernel and its vmlinux in $(secs_since "$t1")"

  # siw: Debian does not enable CONFIG_RDMA_SIW, so build it out of tree (build_sw)
  local siw=''
  if grep -qx 'CONFIG_RDMA_SIW=m' "$cfg"; then
    siw=$(find "$mods" -name 'siw.ko*' | head -n1)
  else
    t1=$(now_us)
    msg "building siw.ko"
    build_sw siw '' "$tmp/siw.ko"
    mv "$tmp/siw.ko.log" "$KDIR/siw-build.log"
    siw=$tmp/siw.ko
    msg "built siw.ko in $(secs_since "$t1")"
  fi

  # module tree for the guest: KMODULES and their dependencies (read
  # from each module's modinfo "depends=", as depmod would), uncompressed
  # (6.12 ships .ko.xz: busybox modprobe then needs no xz, and TCG spends no
  # time on it), plus the kernel's modules.builtin for the built-in ones.
  local root=$KDIR/modules out load='' m p n deps queue
  declare -A path=() builtin=() seen=()
  t1=$(now_us)
  out=$root/lib/modules/$KREL
  mkdir -p "$out/extra"
  cp "$siw" "$out/extra/siw.ko"
  while IFS= read -r p; do
    n=${p##*/}; n=${n%%.ko*}; path[${n//-/_}]=$p
  done < <(cd "$mods" && find kernel -name '*.ko*')
  path[siw]=extra/siw.ko
  while IFS= read -r p; do n=${p##*/}; n=${n%%.ko*}; builtin[${n//-/_}]=1; done < "$mods/modules.builtin"
  read -r -a queue <<<"$KMODULES"
  while [ ${#queue[@]} -gt 0 ]; do
    m=${queue[0]}; queue=("${queue[@]:1}")
    [ -z "${seen[$m]:-}" ] || continue
    seen[$m]=1
    p=${path[$m]:-}
    if [ -z "$p" ]; then
      [ -n "${builtin[$m]:-}" ] || case " $OPTIONAL_MODULES " in
        *" $m "*) echo "$m" >> "$KDIR/modules.absent" ;;
        *) die "module $m is neither shipped with nor built into $KPKG" ;;
      esac
      continue
    fi
    case " $KMODULES " in *" $m "*) load+="$m " ;; esac   # to modprobe
    if [ "$m" != siw ]; then
      mkdir -p "$out/$(dirname "$p")"
      case $p in
        *.ko.xz) p=${p%.xz}; xz -dc "$mods/$p.xz" > "$out/$p" ;;
        *.ko.zst) p=${p%.zst}; zstd -dcq "$mods/$p.zst" > "$out/$p" ;;
        *) cp "$mods/$p" "$out/$p" ;;
      esac
    fi
    deps=$(strings -a "$out/$p" | sed -n 's/^depends=//p' | head -n1)
    [ -z "$deps" ] || queue+=(${deps//,/ })
  done
  cp "$mods/modules.builtin" "$out/"
  prepare_userland "$HOST_DEB_ARCH"   # (its busybox has depmod)
  "$HOST_BUSYBOX" depmod -b "$root" "$KREL"
  echo "$load" > "$KDIR/modules.load"
  msg "module tree ($load) in $(secs_since "$t1")"
  echo "$KPKG $KDEBVER $KSERIES" > "$KDIR/package"
  printf '%s\n' "${KSPECS[@]}" > "$KDIR/specs"
  : > "$KDIR/drift"
  [ ${#DRIFT[@]} = 0 ] || printf '%s\n' "${DRIFT[@]}" > "$KDIR/drift"
  rm -rf "$tmp"
  touch "$KDIR/.ok"
  # a kernel of the same series prepared earlier (before a bump) is stale:
  # drop it and its kernel .debs (the base images go in build_base)
  local d op ov os
  for d in "$CACHE"/kernel-*; do
    [ "$d" != "$KDIR" ] && [ -f "$d/package" ] || continue
    read -r op ov os < "$d/package"
    [ "$os" = "$KSERIES" ] || continue
    msg "removing the superseded $op $ov from the cache"
    rm -rf "$d" "$CACHE/base-${op#linux-image-}-"*
    rm -f "$CACHE/debs/linux-"*"_$(sed 's/:/%3a/' <<<"$ov")_"*.deb
  done
  msg "kernel $KREL ready in $(secs_since "$t0")"
}

# ---------------------------------------------------------------- rdma-core peers
# Upstream rdma-core releases (tests/vm/peers), built on the host by rdma-core.sh and
# put at /opt/rdma-core-VERSION in every base image, beside Debian's rdma-core 44.
# A release whose archive is missing is left out with a warning (its tests then fail
# in the guest, saying so).  Sets PEER_DIRS (cache dirs) and PEER_PATHS (guest paths).
PEER_DIRS=() PEER_PATHS=()
prepare_peers() {
  local out rc=0 d
  out=$(bash "$HERE/rdma-core.sh") || rc=$?
  case $rc in
    0) ;;
    4) msg "WARNING: an rdma-core peer archive is missing; the guest has only the peers that are built" ;;
    *) die "building the rdma-core peers failed (tests/vm/rdma-core.sh, status $rc)" ;;
  esac
  PEER_DIRS=() PEER_PATHS=()
  while IFS= read -r d; do
    [ -n "$d" ] && [ -d "$d/opt" ] || continue
    PEER_DIRS+=("$d")
    PEER_PATHS+=("/opt/$(ls "$d/opt" | head -n1)")
  done <<<"$out"
}

# ---------------------------------------------------------------- initramfs
# Copy the shared-library closure of ELF files into ROOT/lib/$ARCH, taking
# libraries from the user space packages first.  SKIP_LIBS: sonames already
# in the base image.  FROM_HOST=1 allows the host's /lib as the last resort.
SKIP_LIBS=' '
copy_libs() { # ROOT FROM_HOST FILE...
  local root=$1 from_host=$2; shift 2
  local queue=("$@") f so d src
  while [ ${#queue[@]} -gt 0 ]; do
    f=${queue[0]}; queue=("${queue[@]:1}")
    [ "$(head -c4 "$f" 2>/dev/null | od -An -tx1 | tr -d ' ')" = 7f454c46 ] || continue
    for so in $(readelf -d "$f" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
      [ -e "$root/lib/$ARCH/$so" ] && continue
      case $SKIP_LIBS in *" $so "*) continue ;; esac
      src=''
      for d in "$UDIR/root/lib/$ARCH" "$UDIR/root/usr/lib/$ARCH"; do
        [ -e "$d/$so" ] && { src=$d/$so; break; }
      done
      if [ -z "$src" ] && [ "$from_host" = 1 ]; then
        for d in "/lib/$ARCH" "/usr/lib/$ARCH"; do [ -e "$d/$so" ] && { src=$d/$so; break; }; done
        [ -n "$src" ] && msg "note: $so (needed by ${f##*/}) taken from the host"
      fi
      [ -n "$src" ] || die "$so (needed by ${f##*/}) is in none of the user-space packages (USER_PKGS in rig.sh)"
      mkdir -p "$root/lib/$ARCH"
      cp -L "$src" "$root/lib/$ARCH/$so"
      queue+=("$root/lib/$ARCH/$so")
    done
  done
}

# add_packages ROOT PKG...: --packages.  Unpacks the candidate versions of the Debian
# packages PKG into ROOT (documentation and locales left out).  A shared library their
# ELF files need that is neither in the base image nor among them comes from the user
# space packages (copy_libs), else the run stops.  Their libraries join SKIP_LIBS, so
# that copy_libs takes them for the --add files too.
add_packages() {
  local root=$1 info p v specs=() debs f elfs=()
  shift
  info=$(apt_resolve "$@")
  for p in "$@"; do
    v=$(awk -v p="$p" '$1 == p { print $2 }' <<<"$info")
    [ -n "$v" ] || die "--packages: apt does not know package $p"
    specs+=("$p=$v")
  done
  debs=$(fetch_debs "${specs[@]}")
  while IFS= read -r f; do dpkg-deb -x "$f" "$root"; done <<<"$debs"
  rm -rf "$root"/usr/share/{doc,man,info,locale,lintian}
  [ ! -d "$root/usr/lib/$ARCH" ] || SKIP_LIBS+="$(find "$root/usr/lib/$ARCH" -maxdepth 1 -name '*.so*' -printf '%f ') "
  while IFS= read -r -d '' f; do elfs+=("$f"); done < <(find "$root" -type f -print0)
  copy_libs "$root" 0 "${elfs[@]}"
  msg "--packages: ${specs[*]}"
}

make_cpio() { # DIR OUT  (newc, root-owned, sorted for reproducibility)
  (cd "$1" && find . | LC_ALL=C sort | "$HOST_BUSYBOX" cpio -o -H newc -R 0:0 2>/dev/null) > "$2"
}

# The base image is keyed by this script, the guest init, the user space
# and the kernel, so editing any of them rebuilds it.
base_path() {
  local key
  key=$(cat "$SELF" "$GUEST_INIT" "$UDIR/packages" "$KDIR/package" \
    ${PEER_DIRS[@]+"${PEER_DIRS[@]/%//package}"} | sha256sum | cut -c1-12)
  echo "$CACHE/base-${KREL}-$key.cpio"
}
build_base() {
  BASE=$(base_path)
  [ -e "$BASE" ] && return 0
  local t0 r U=$UDIR/root a f bins=()
  t0=$(now_us)
  r=$CACHE/.base-tmp; rm -rf "$r"
  mkdir -p "$r"/{bin,sbin,usr/bin,usr/sbin,lib/$ARCH,lib64,usr/lib/$ARCH/libibverbs,etc/libibverbs.d}
  mkdir -p "$r"/{etc/modprobe.d,proc,sys,dev,tmp,run,root,uverbs,rig,lib/modules}
  # busybox applets first (the guest's busybox; the host's lists the same applets);
  # the real tools below replace their links
  cp "$U/bin/busybox" "$r/bin/busybox"
  for a in $("$HOST_BUSYBOX" --list-full); do [ -e "$r/$a" ] || ln -s /bin/busybox "$r/$a"; done
  local files=$GUEST_FILES
  [ "$KARCH" = "$HOST_DEB_ARCH" ] || files=$GUEST_FILES_ARM64
  for f in $files; do
    [ -e "$U/$f" ] || die "$f is missing from the user-space packages"
    for a in bin sbin usr/bin usr/sbin; do rm -f "$r/$a/${f##*/}"; done
    mkdir -p "$r/$(dirname "$f")"; cp "$U/$f" "$r/$f"; bins+=("$r/$f")
  done
  ln -sf dash "$r/bin/sh"
  # the rxe and siw providers of libibverbs
  for a in rxe siw; do
    cp "$U/etc/libibverbs.d/$a.driver" "$r/etc/libibverbs.d/"
    f=$(ls "$U/usr/lib/$ARCH/libibverbs/lib$a-rdmav"*.so | head -n1)
    cp -L "$f" "$r/usr/lib/$ARCH/libibverbs/"; bins+=("$r/usr/lib/$ARCH/libibverbs/${f##*/}")
  done
  cp -L "$U/$LD_SO" "$r/$LD_SO"
  cp -L "$U/lib/$ARCH/libgcc_s.so.1" "$r/lib/$ARCH/"   # glibc dlopen()s it (pthread_cancel, unwinding)
  local p  # the rdma-core peers at /opt/rdma-core-VERSION (their libraries: from the user space)
  for p in ${PEER_DIRS[@]+"${PEER_DIRS[@]}"}; do
    cp -a "$p/opt" "$r/"
    while IFS= read -r f; do bins+=("$f"); done < <(find "$r/opt" -type f)
  done
  SKIP_LIBS=' '
  copy_libs "$r" 0 "${bins[@]}"
  cp -a "$KDIR/modules/lib/modules/$KREL" "$r/lib/modules/"
  echo 'options dummy numdummies=0' > "$r/etc/modprobe.d/dummy.conf"
  # root, and an unprivileged user for permission tests (su nobody -c ...,
  # setpriv --reuid=65534 --regid=65534 --clear-groups CMD)
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n' > "$r/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' > "$r/etc/group"
  printf 'passwd: files\ngroup: files\nhosts: files\n' > "$r/etc/nsswitch.conf"
  printf '127.0.0.1 localhost\n' > "$r/etc/hosts"
  cp "$GUEST_INIT" "$r/init"; chmod 755 "$r/init"
  make_cpio "$r" "$BASE.tmp"
  ls "$r/lib/$ARCH" > "$BASE.libs"
  mv "$BASE.tmp" "$BASE"
  rm -rf "$r"
  # older base images of this kernel are stale now
  for f in "$CACHE/base-${KREL}-"*.cpio; do
    [ "$f" = "$BASE" ] || rm -f "$f" "$f.libs"
  done
  msg "base initramfs $(($(stat -c %s "$BASE") / 1048576)) MB built in $(secs_since "$t0")"
}

# ---------------------------------------------------------------- main
[ -n "$SERIES" ] || SERIES=$(all_series | head -n1)

mkdir -p "$CACHE" 2>/dev/null || die "cannot create the cache $CACHE (set UVERBS_VM_CACHE)"
CACHE=$(cd "$CACHE" && pwd)
APT_DIR=$CACHE/apt
HOST_BUSYBOX=$CACHE/userland/root/bin/busybox
host_tools flock:util-linux
# one preparer at a time (the lock is released before the VM boots); a
# warm cache that is not writable (non-root user) is used as it is
LOCKED=0
if [ -w "$CACHE" ]; then exec 9>"$CACHE/.lock"; flock 9; LOCKED=1; apt_config; fi
if [ "$BUMP" = 1 ]; then bump_versions; exit 0; fi

# --resolve: the packages a kernel of SERIES is prepared from, downloaded into the cache
# (the archive test, tests/vm/archive-test.sh, runs this against its own repositories)
if [ "$RESOLVE" = 1 ]; then
  line=$(pinned "$SERIES") || die "kernel series '$SERIES' is not in $VERSIONS (have: $(echo $(all_series)))"
  read -r KPKG KDEBVER <<<"$line"
  set_arch "${KPKG##*-}"
  KSERIES=$SERIES KSRC=${SERIES%%-*}
  use_image "$KPKG" "$KDEBVER"
  resolve_kernel
  for d in ${DRIFT[@]+"${DRIFT[@]}"}; do say_drift "$d"; done
  fetch_debs "${KSPECS[@]}" > /dev/null
  printf '%s\n' "${KSPECS[@]}"
  exit 0
fi

if [ -n "$PLANTED" ]; then
  PLANTED=$(realpath "$PLANTED")
  prepare_userland "$HOST_DEB_ARCH"; select_kernel "$SERIES"
  planted_module "$PLANTED"
  exit 0
fi

# everything a boot of SERIES needs: the host's user space (busybox), the kernel, the
# guest's user space, the peers (built for the host: amd64 guests only), the base image
prepare_series() {
  prepare_userland "$HOST_DEB_ARCH"
  select_kernel "$1"
  host_tools "$QEMU"
  [ "$KARCH" = "$HOST_DEB_ARCH" ] || prepare_userland "$KARCH"
  if [ "$KARCH" = "$HOST_DEB_ARCH" ]; then prepare_peers; else PEER_DIRS=() PEER_PATHS=(); fi
  build_base
}

if [ "${PATHS:-0}" = 1 ]; then
  prepare_userland "$HOST_DEB_ARCH"; select_kernel "$SERIES"
  img=$KDIR/vmlinux; [ -e "$img" ] || img=$KDIR/vmlinuz
  printf '%s\n%s\n' "$img" "$KDIR/modules/lib/modules/$KREL"
  exit 0
fi

if [ "$PREPARE" = 1 ]; then
  [ "$SERIES" = all ] && SERIES=$(all_series | tr '\n' ' ')
  for s in $SERIES; do
    T=$(now_us)
    prepare_series "$s"
    msg "series $s prepared in $(secs_since "$T") (cache $CACHE)"
  done
  exit 0
fi

T_PREP=$(now_us)
prepare_series "$SERIES"
SKIP_LIBS=" $(tr '\n' ' ' < "$BASE.libs")"

# per-run overlay: /rig/{config,env,cmd} and the added files
RUN=$(mktemp -d "${TMPDIR:-/tmp}/uverbs-vm.XXXXXX")   # removed by the EXIT trap
trap 'exit 130' INT TERM
O=$RUN/overlay
mkdir -p "$O/rig" "$O/uverbs"
NONCE=$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
DEVICES=''
for ((i = 0; i < NRXE; i++)); do DEVICES+="${DEVICES:+,}rxe$i"; done
for ((i = 0; i < NSIW; i++)); do DEVICES+="${DEVICES:+,}siw$i"; done
cat > "$O/rig/config" <<EOF
RIG_NONCE=$NONCE
RIG_RXE=$NRXE
RIG_SIW=$NSIW
RIG_KERNEL=$KSERIES
RIG_OUT=$([ "$KARCH" = arm64 ] && echo /dev/hvc0 || echo /dev/ttyS1)
RIG_MODULES='$(cat "$KDIR/modules.load")'
RIG_WAIT=$((30 + (NRXE + NSIW) * 2))
RIG_VERBOSE=$VERBOSE
EOF
shq() { printf "'%s'" "${1//\'/\'\\\'\'}"; }   # quote for sh
{
  echo "export UVERBS_VM_KERNEL=$KSERIES UVERBS_VM_DEVICES=$DEVICES"
  echo "export UVERBS_VM_PEERS='${PEER_PATHS[*]:-}'"   # the rdma-core peers in /opt
  for e in "${ENVS[@]}"; do echo "export ${e%%=*}=$(shq "${e#*=}")"; done
} > "$O/rig/env"
if [ $# = 0 ]; then
  printf '%s\n' 'uname -r; rdma link show; ibv_devices; ls -l /dev/infiniband' > "$O/rig/cmd"
elif [ $# = 1 ]; then
  printf '%s\n' "$1" > "$O/rig/cmd"
else
  { for a in "$@"; do printf '%s ' "$(shq "$a")"; done; echo; } > "$O/rig/cmd"
fi
[ ${#XPKGS[@]} = 0 ] || add_packages "$O" "${XPKGS[@]}"
added=()
for spec in "${ADDS[@]}"; do
  src=${spec%%:*}
  if [ "$src" = "$spec" ]; then dst=${src%/}; dst=${dst##*/}; else dst=${spec#*:}; fi
  case $dst in /*) ;; *) dst=/uverbs/$dst ;; esac
  [ -e "$src" ] || die "--add: $src does not exist"
  mkdir -p "$O$(dirname "$dst")"
  # -H: follow FILE if it is a symlink, keep the symlinks inside a directory
  cp -RH "$src" "$O$dst" || die "--add: cannot copy $src"
  while IFS= read -r -d '' f; do added+=("$f"); done < <(find "$O$dst" -type f -print0)
done
[ ${#added[@]} -gt 0 ] && copy_libs "$O" 1 "${added[@]}"
make_cpio "$O" "$RUN/overlay.cpio"
cat "$BASE" "$RUN/overlay.cpio" > "$RUN/initrd"
[ "$LOCKED" = 0 ] || flock -u 9
PREP_TIME=$(secs_since "$T_PREP")

# ---------------------------------------------------------------- boot
# the machine: x86_64's console on ttyS0 and the command's output on ttyS1; arm64's
# virt board has one UART (ttyAMA0, the console) and the output goes to a virtio console
# (hvc0, on virtio-mmio), whose modules guest-init.sh loads before it writes there.
# (pauth-impdef: QEMU's own pointer-authentication algorithm, far cheaper under TCG
# than the architected QARMA; the guest sees the same feature.)
if [ "$KARCH" = arm64 ]; then
  KIMG=$KDIR/Image
  MACHINE=(qemu-system-aarch64 -machine virt -accel tcg -cpu max,pauth-impdef=on)
  CONSOLE=ttyAMA0
  OUTPORT=(-device virtio-serial-device -chardev stdio,id=out,signal=off -device virtconsole,chardev=out)
else
  KIMG=$KDIR/vmlinux; [ -e "$KIMG" ] || KIMG=$KDIR/vmlinuz
  MACHINE=(qemu-system-x86_64 -machine pc -accel tcg -cpu max)
  CONSOLE=ttyS0
  OUTPORT=(-chardev stdio,id=out,signal=off -serial chardev:out)
fi
LOG=$RUN/console.log
: > "$LOG"
msg "booting $KREL (TCG, $NRXE rxe + $NSIW siw; prepared in $PREP_TIME)"
TAILPID=''
if [ "$VERBOSE" = 1 ]; then tail -n +1 -f "$LOG" >&2 & TAILPID=$!; fi
T_BOOT=$(now_us)
# the console -> log file; the output port (command output + markers) -> stdout,
# filtered by awk: only what lies between BEGIN and END reaches our stdout
trap - ERR; set +e
timeout -k 5 "$TIMEOUT" "${MACHINE[@]}" -nodefaults -no-user-config \
  -m "$MEM" -smp "$SMP" -display none -monitor none -nic none -no-reboot \
  -kernel "$KIMG" -initrd "$RUN/initrd" \
  -append "console=$CONSOLE quiet panic=-1 oops=panic log_buf_len=64M rdinit=/init" \
  -chardev file,id=con,path="$LOG" -serial chardev:con \
  "${OUTPORT[@]}" \
  < /dev/null 2> "$RUN/qemu.err" \
  | awk -v m="@@uverbs-vm $NONCE " -v st="$RUN/status" -v k="$KREL" '
      { sub(/\r$/, "") }
      !on && index($0, m "BEGIN") { on = 1; print "begun" > st ".begun"
        print "----- uverbs-vm: begin output (linux " k ") -----"; fflush(); next }
      on && (i = index($0, m "END status=")) {
        if (i > 1) print substr($0, 1, i - 1)
        s = substr($0, i + length(m "END status=")); print s > st
        print "----- uverbs-vm: end output (exit status " s ") -----"; fflush(); on = 0; next }
      index($0, m "SETUP-FAILED") { print "setup-failed" > st; next }
      on { print; fflush() }'
QRC=${PIPESTATUS[0]}
set -e; trap 'exit 125' ERR
[ -n "$TAILPID" ] && { sleep 0.2; kill "$TAILPID" 2>/dev/null || true; }
[ -n "$LOGCOPY" ] && cp "$LOG" "$LOGCOPY"
STATUS=$(cat "$RUN/status" 2>/dev/null || true)
ELAPSED=$(secs_since "$T_BOOT")

# a kernel WARN/BUG/oops in this boot: show it; it fails a command that passed (121)
SPLAT=0
if grep -q "@@uverbs-vm $NONCE KERNEL-SPLAT" "$LOG"; then
  SPLAT=1
  msg "FAILED: the guest kernel logged a warning/oops, or lost log records:"
  sed -n "/@@uverbs-vm $NONCE KERNEL-SPLAT/,\$p" "$LOG" | sed '1d' | head -n 80 >&2
fi
fail() { # CODE TEXT
  # close the output section on stdout too, if it was opened
  [ -e "$RUN/status.begun" ] && echo "----- uverbs-vm: output cut off ($2) -----"
  msg "$2; guest console tail:"
  tail -n 50 "$LOG" | sed 's/\r$//' >&2
  [ -s "$RUN/qemu.err" ] && sed 's/^/qemu: /' "$RUN/qemu.err" >&2
  msg "exit $1 after $ELAPSED"
  exit "$1"
}
case $STATUS in
  setup-failed) fail 122 "RDMA setup in the guest failed" ;;
  '')
    if [ "$QRC" = 124 ] || [ "$QRC" = 137 ]; then fail 124 "VM timed out after ${TIMEOUT}s"; fi
    fail 123 "VM ended (qemu status $QRC) without reporting the command's status" ;;
esac
msg "boot-run-poweroff $ELAPSED (linux $KREL, exit status $STATUS)"
if [ "$STATUS" = 0 ] && [ "$SPLAT" = 1 ]; then
  msg "exit 121: the command passed, the kernel did not"
  exit 121
fi
exit "$STATUS"
