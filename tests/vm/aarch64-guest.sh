#!/bin/sh
# aarch64-guest.sh - the arm64 smoke set (issue 26), run in one boot of Debian's arm64
# kernel (tests/vm/rig.sh --kernel 6.1-arm64, from scripts/test-all.sh's aarch64-vm
# phase) with rxe0 and siw0: the aarch64 static binary (/uverbs/uverbs) against
# rdma-core 44's arm64 build.
#
#   1. `uverbs devinfo -v` equals `ibv_devinfo -v` byte for byte (any difference is
#      printed, and fails);
#   2. `uverbs probe` (objects, the data path and the error paths on every device) passes;
#   3. the rc_pingpong example (/uverbs/rc_pingpong) against `ibv_rc_pingpong` on rxe0,
#      each the server in turn, with -c (the server checks the pages the client marked);
#   4. with /bundle present: the arm64 image under crun (tests/vm/image-guest.sh).
set -eu
test "$(uname -m)" = aarch64
echo "aarch64: $(uname -r) on $(uname -m), devices $UVERBS_VM_DEVICES"

/uverbs/uverbs devinfo -v > /tmp/devinfo.uverbs
ibv_devinfo -v > /tmp/devinfo.rdma-core
diff /tmp/devinfo.rdma-core /tmp/devinfo.uverbs
echo "aarch64: uverbs devinfo -v equals ibv_devinfo -v byte for byte ($(wc -l < /tmp/devinfo.uverbs) lines, $(grep -c hca_id /tmp/devinfo.uverbs) devices)"

/uverbs/uverbs probe > /tmp/probe
echo "aarch64: uverbs probe passes: $(grep -E '^[a-z]+[0-9]+: [0-9]+ calls' /tmp/probe | tr '\n' ' ')"

# listening PORT: a TCP socket listens on PORT (state 0A in /proc/net/tcp or tcp6)
listening() {
  awk -v p="$(printf ':%04X' "$1")" '$4 == "0A" && substr($2, length($2) - 4) == p { f = 1 }
    END { exit !f }' /proc/net/tcp /proc/net/tcp6
}
# pingpong SERVER CLIENT PORT: one run on rxe0, 8 KiB messages, 50 iterations, -c
pingpong() {
  server=$1 client=$2 port=$3
  set -- -d rxe0 -g 1 -c -n 50 -s 8192 -p "$port"
  "$server" "$@" > /tmp/server.out 2>&1 &
  spid=$!
  i=0
  until listening "$port"; do
    i=$((i + 1))
    [ $i -lt 300 ] || { echo "aarch64: $server never listened:" >&2; cat /tmp/server.out >&2; exit 1; }
    sleep 0.1
  done
  "$client" "$@" 127.0.0.1 > /tmp/client.out 2>&1 || { echo "aarch64: $client failed:" >&2; cat /tmp/client.out /tmp/server.out >&2; exit 1; }
  wait $spid || { echo "aarch64: $server failed:" >&2; cat /tmp/server.out >&2; exit 1; }
  if grep -q "invalid data" /tmp/server.out; then
    echo "aarch64: $server found the client's marks wrong:" >&2; cat /tmp/server.out >&2; exit 1
  fi
  # 8 KiB each way, 50 times: both ends moved every byte
  grep -q "^819200 bytes in " /tmp/server.out
  grep -q "^819200 bytes in " /tmp/client.out
  echo "aarch64: $server (server) and $client (client) on rxe0: $(tail -n 2 /tmp/client.out | tr -s ' \n' ' ')"
}
pingpong /uverbs/rc_pingpong ibv_rc_pingpong 18601
pingpong ibv_rc_pingpong /uverbs/rc_pingpong 18602

if [ -d /bundle ]; then
  sh /uverbs/image-guest.sh
fi
