#!/bin/sh
# The ABI check on both kernels, for CI (.ci/run calls this after `cargo test`, which has
# already checked the system headers, Linux 6.1 from linux-libc-dev):
#   1. the system headers again (cheap; makes this script complete on its own),
#   2. the Linux 6.12 uapi headers from Debian's linux-headers-6.12.*-common, and the
#      values no installed header has against that package's include/rdma (the
#      ignored test kernel_headers_match_the_documented_values),
#   3. rdma-core 64.0's kernel-headers/ (Linux 7.2) and verbs.h, from the peer build of
#      tests/vm/rdma-core.sh (built here if needed: cmake, ninja, libnl-3-dev, ...).
# Needs gcc, linux-libc-dev and libibverbs-dev (apt-get install gcc linux-libc-dev
# libibverbs-dev); with CI=true a missing one is a failure, not a skip.
set -eu
cd "$(dirname "$0")/.."

echo "== ABI check: system headers"
cargo test --test abi_check --test abi_manifest

echo "== ABI check: Linux 6.12 uapi headers, and the kernel's include/rdma beside them"
headers="$(abi/headers-6.12.sh)"
UVERBS_ABI_HEADERS="$headers" cargo test --test abi_check -- --include-ignored

echo "== ABI check: rdma-core 64.0's kernel-headers (Linux 7.2) and verbs.h"
peer="$(bash tests/vm/rdma-core.sh 64.0)"
kernel="$(awk '!/^#/ && $1 == "64.0" { print $3 }' tests/vm/peers)"
UVERBS_ABI_HEADERS="$peer/kernel-headers" UVERBS_ABI_KERNEL="$kernel" \
  UVERBS_ABI_VERBS_INCLUDE="$peer/include" UVERBS_ABI_RDMA_CORE=64 cargo test --test abi_check
