#!/usr/bin/env bash
# devinfo.sh [ARGS...] - the main job: `uverbs devinfo ARGS` (default `-v`) with the
# static binary. On a host with RDMA devices it runs here; on one without (no
# /sys/class/infiniband entries) it runs inside the VM rig (tests/vm/rig.sh: Debian's
# kernel with one Soft-RoCE and one Soft-iWARP device), so it works on any Debian machine.
# Env: UVERBS_VM_KERNEL=6.1|6.12 (default 6.1), UVERBS_VM_RXE / UVERBS_VM_SIW (default 1).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
[ $# -gt 0 ] || set -- -v
bash scripts/setup.sh
echo "devinfo: building the static binary" >&2
cargo build -q --release --target x86_64-unknown-linux-musl --bin uverbs
bin=$top/target/x86_64-unknown-linux-musl/release/uverbs
if [ -n "$(ls -A /sys/class/infiniband 2>/dev/null)" ]; then
  exec "$bin" devinfo "$@"
fi
echo "devinfo: no RDMA device on this host: running in the VM rig" >&2
q=''
for a in "$@"; do q+=" '${a//\'/\'\\\'\'}'"; done
exec bash tests/vm/rig.sh --kernel "${UVERBS_VM_KERNEL:-6.1}" \
  --rxe "${UVERBS_VM_RXE:-1}" --siw "${UVERBS_VM_SIW:-1}" \
  --add "$bin" -- "uverbs devinfo$q"
