#!/bin/sh
# image-guest.sh - runs in the VM (tests/vm/rig.sh): the image of the guest's
# architecture, unpacked by umoci into /bundle, under a real OCI runtime (crun) with
# /dev/infiniband and /sys of the guest, as the image's own user (65534, no
# capabilities). Its answers must equal the binary's outside (/uverbs/uverbs) and
# rdma-core's. scripts/test-all.sh runs it for amd64 in the image phase (6.1 and 6.12;
# crun and jq added from the host) and for arm64 in the aarch64-vm phase (from
# tests/vm/aarch64-guest.sh; crun and jq are in the arm64 guest). The exporter is
# scraped with busybox's wget.
#
# /bundle holds the image's rootfs and the runtime configurations the host made from
# umoci's (scripts/test-all.sh, image()): config.json has no network namespace (the
# exporter is scraped from the guest) and allows the uverbs character devices
# (major 231) in the device cgroup; config-nodev.json is the same without that rule;
# config-memlock.json adds RLIMIT_MEMLOCK for the objects `probe` creates.
set -eu
mount -t cgroup2 cgroup2 /sys/fs/cgroup
n=0
# run NAME CONFIG ARGS...: the image with ARGS as its command; stdout to /tmp/NAME
run() {
  name=$1 cfg=$2
  shift 2
  # the arguments here are plain words: quoted as they are
  a=$(printf '"%s",' /uverbs "$@")
  jq --argjson a "[${a%,}]" '.process.args = $a' "/bundle/$cfg" > "/bundle/run-$name.json"
  n=$((n + 1))
  crun run --no-pivot -b /bundle -f "/bundle/run-$name.json" "uverbs-$n" > "/tmp/$name"
}

# the queries: ibv_devinfo's bytes, ibstat's, the health check and the GID selection
run devinfo config.json devinfo -v
ibv_devinfo -v > /tmp/devinfo.rdma-core
cmp /tmp/devinfo.rdma-core /tmp/devinfo
run ibstat config.json ibstat
ibstat > /tmp/ibstat.diags
cmp /tmp/ibstat.diags /tmp/ibstat
run check config.json check
/uverbs/uverbs check > /tmp/check.outside
cmp /tmp/check.outside /tmp/check
run gid config.json gids --select roce-v2 -d rxe0
/uverbs/uverbs gids --select roce-v2 -d rxe0 > /tmp/gid.outside
cmp /tmp/gid.outside /tmp/gid
echo "crun ($(uname -m)): devinfo -v equals ibv_devinfo -v, ibstat equals infiniband-diags, check and gids --select roce-v2 ($(cat /tmp/gid)) equal the binary outside; as user 65534 with no capabilities"

# the least privilege: without the device rule the uverbs node cannot be opened
if run nodev config-nodev.json devinfo 2> /tmp/nodev.err; then
  echo "crun: devinfo ran without the uverbs devices allowed" >&2; exit 1
fi
grep -q "permission denied opening /dev/infiniband/uverbs" /tmp/nodev.err
echo "crun: without the device cgroup rule for major 231: $(head -n 1 /tmp/nodev.err)"

# objects need locked memory: probe creates PD, MR, CQ, QP... on every device
run probe config-memlock.json probe
grep -q . /tmp/probe
echo "crun: probe (objects, with RLIMIT_MEMLOCK) passes: $(tail -n 1 /tmp/probe)"

# the exporter, served from the container and scraped from the guest
jq '.process.args = ["/uverbs", "exporter", "--listen", "127.0.0.1:9550"]' /bundle/config.json > /bundle/run-exporter.json
crun run --no-pivot -d -b /bundle -f /bundle/run-exporter.json uverbs-exporter
i=0
until wget -q -O /tmp/metrics http://127.0.0.1:9550/metrics; do
  i=$((i + 1)); [ $i -lt 100 ] || { echo "crun: the exporter never answered" >&2; exit 1; }
  sleep 0.1
done
crun kill uverbs-exporter TERM
grep -q '^uverbs_port_state{device="rxe0",port="1"} 4$' /tmp/metrics
grep -q '^uverbs_port_state{device="siw0",port="1"} 4$' /tmp/metrics
echo "crun: the exporter in the container answered a scrape: $(grep -c '^uverbs_' /tmp/metrics) samples, both ports ACTIVE"
