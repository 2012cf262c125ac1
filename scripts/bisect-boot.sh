#!/usr/bin/env bash
# bisect-boot.sh - boot a kernel with the static uverbs as its initramfs' only program,
# run `uverbs selftest` there and exit with its verdict, for `git bisect run`:
# 0 good, 1 bad, 125 could not test (git bisect's skip), 128 selftest's usage error
# (which aborts the bisect).
#
# Usage: scripts/bisect-boot.sh --kernel BZIMAGE --modules DIR [--uverbs BIN]
#                               [--timeout S] [--mem MB] [--kvm] [-- SELFTEST ARGS...]
#
#   --kernel BZIMAGE  the kernel image (arch/x86/boot/bzImage, Debian's vmlinuz, or an
#                     ELF vmlinux with a PVH note, as the rig boots)
#   --modules DIR     its modules tree, /lib/modules/RELEASE as `make modules_install
#                     INSTALL_MOD_PATH=...` and depmod leave it: the initramfs gets
#                     ib_uverbs, rdma_rxe, siw, rdma_ucm (siw's data cases connect
#                     through the RDMA CM), dummy, the CRC modules rxe and siw ask
#                     for (crc32_generic, crc32c_generic) and what they need (modules.dep),
#                     which `selftest --modules` loads (there is no modprobe in it)
#   --uverbs BIN      the static binary (default: target/x86_64-unknown-linux-musl/
#                     release/uverbs)
#   --timeout S       the whole boot's limit (default 300): past it, or if the kernel
#                     dies once the run began, the verdict is bad; if init never started,
#                     could not test
#   --kvm             use KVM (default: TCG, software emulation, which works anywhere)
#   SELFTEST ARGS     default --create rxe,siw; --modules and --bisect are added
#
# The console goes to standard output (the KTAP document among the kernel's lines). In a
# kernel tree:
#   git bisect start BAD GOOD
#   git bisect run sh -c 'make -j"$(nproc)" bzImage modules &&
#     make modules_install INSTALL_MOD_PATH=/tmp/m >/dev/null &&
#     scripts/bisect-boot.sh --kernel arch/x86/boot/bzImage \
#       --modules /tmp/m/lib/modules/"$(make -s kernelrelease)"'
# (return 125 from the build step too when a commit does not build). The host needs
# qemu-system-x86_64 (Debian: qemu-system-x86).
set -euo pipefail

die() { echo "bisect-boot: $*" >&2; exit 125; }

KERNEL='' MODS='' BIN='' TIMEOUT=300 MEM=768 accel=tcg
while [ $# -gt 0 ]; do
  case $1 in
    --kernel) KERNEL=$2; shift 2 ;;
    --modules) MODS=${2%/}; shift 2 ;;
    --uverbs) BIN=$2; shift 2 ;;
    --timeout) TIMEOUT=$2; shift 2 ;;
    --mem) MEM=$2; shift 2 ;;
    --kvm) accel=kvm; shift ;;
    --) shift; break ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[ $# -gt 0 ] || set -- --create rxe,siw
root=$(cd "$(dirname "$0")/.." && pwd)
: "${BIN:=$root/target/x86_64-unknown-linux-musl/release/uverbs}"
[ -f "$KERNEL" ] || die "no kernel image: --kernel '$KERNEL'"
[ -f "$MODS/modules.dep" ] || die "no modules.dep in --modules '$MODS' (run depmod)"
[ -x "$BIN" ] || die "no uverbs binary at $BIN (cargo build --release --target x86_64-unknown-linux-musl)"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 is missing (Debian: qemu-system-x86)"
release=${MODS##*/}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The modules the run may load and, transitively, what modules.dep says they need.
want='ib_uverbs rdma_rxe siw rdma_ucm dummy crc32_generic crc32c_generic'
files=$(awk -v want="$want" '
  function name(p,  n) { n = p; sub(/.*\//, "", n); sub(/\.ko.*/, "", n); gsub(/-/, "_", n); return n }
  { sub(/:$/, "", $1); path[name($1)] = $1; deps[name($1)] = ""
    for (i = 2; i <= NF; i++) deps[name($1)] = deps[name($1)] " " name($i) }
  END {
    n = split(want, q, " ")
    while (n > 0) {
      m = q[n--]
      if (!(m in path) || (m in seen)) continue
      seen[m] = 1; print path[m]
      k = split(deps[m], d, " "); for (i = 1; i <= k; i++) q[++n] = d[i]
    }
  }' "$MODS/modules.dep")
[ -n "$files" ] || die "$MODS/modules.dep has none of: $want"

# A newc archive written here (no cpio tool, no root: /dev/console is an entry, not a
# node of the host): /init, /dev/console, the modules and a modules.dep of them alone.
ino=1
entry() { # NAME MODE SIZE [RDEVMAJOR RDEVMINOR]
  local n=$(( ${#1} + 1 ))
  printf '070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%s\0' \
    $ino "$2" 0 0 1 0 "$3" 0 0 "${4:-0}" "${5:-0}" $n 0 "$1"
  head -c $(( (4 - (110 + n) % 4) % 4 )) /dev/zero
  ino=$((ino + 1))
}
file() { # NAME PATH MODE
  local size
  size=$(stat -c %s "$2")
  entry "$1" "$3" "$size"
  cat "$2"
  head -c $(( (4 - size % 4) % 4 )) /dev/zero
}
dir() { entry "$1" $((0040755)) 0; }
{
  dir dev; entry dev/console $((0020600)) 0 5 1
  file init "$BIN" $((0100755))
  made=' '
  dir lib; dir lib/modules; dir "lib/modules/$release"
  for f in $files; do
    p=lib/modules/$release d=${f%/*}
    [ "$d" = "$f" ] && d=''
    for part in ${d//\// }; do
      p=$p/$part
      case $made in *" $p "*) ;; *) dir "$p"; made="$made$p " ;; esac
    done
    file "lib/modules/$release/$f" "$MODS/$f" $((0100644))
    awk -v f="$f:" '$1 == f' "$MODS/modules.dep" >> "$work/modules.dep"
  done
  file "lib/modules/$release/modules.dep" "$work/modules.dep" $((0100644))
  [ ! -f "$MODS/modules.builtin" ] || file "lib/modules/$release/modules.builtin" "$MODS/modules.builtin" $((0100644))
  entry TRAILER!!! 0 0
} > "$work/initrd"

args="selftest $* --modules /lib/modules/$release --bisect"
echo "bisect-boot: $(basename "$KERNEL") ($release), $(echo "$files" | wc -l) modules, uverbs $args" >&2
set +e
timeout -k 5 "$TIMEOUT" qemu-system-x86_64 -nodefaults -no-user-config -machine pc \
  -accel $accel -cpu max -m "$MEM" -smp 2 -display none -monitor none -nic none \
  -no-reboot -serial stdio \
  -kernel "$KERNEL" -initrd "$work/initrd" \
  -append "console=ttyS0 quiet panic=-1 oops=panic rdinit=/init -- $args" \
  < /dev/null | tr -d '\r' | tee "$work/console"
set -e
verdict=$(sed -n 's/^uverbs-init: exit \([0-9]*\)$/\1/p' "$work/console" | tail -n1)
if [ -z "$verdict" ]; then
  if grep -qx 'uverbs-init: start' "$work/console"; then
    echo "bisect-boot: the kernel died or hung under the test: bad" >&2
    exit 1
  fi
  echo "bisect-boot: init never ran: could not test" >&2
  exit 125
fi
case $verdict in
  0) echo "bisect-boot: good" >&2; exit 0 ;;
  125|4) echo "bisect-boot: nothing could be tested: skip" >&2; exit 125 ;;
  2) echo "bisect-boot: selftest refused its arguments: bisect aborted" >&2; exit 128 ;;
  *) echo "bisect-boot: selftest exit $verdict: bad" >&2; exit 1 ;;
esac
