#!/bin/sh
# Fetches the Linux 6.12 uapi headers from Debian's linux-headers-6.12.*-common package
# and prints the path of their include/uapi tree, for the ABI check:
#
#   UVERBS_ABI_HEADERS="$(abi/headers-6.12.sh)" cargo test --test abi_check
#
# The .deb is fetched with `apt-get download` (running `apt-get update` first when apt
# knows no such package) and unpacked under a cache directory, by default
# /var/cache/uverbs-abi (override: UVERBS_ABI_CACHE=DIR). A second run reuses it.
# Nothing is copied into the repository.
#
# The tree printed is the kernel's raw include/uapi (the package has no
# `make headers_install` output). It has rdma/, linux/ and asm-generic/ but no asm/
# (that is per architecture) and no linux/version.h (generated at build time). The check
# copes with that:
#   * <asm/...> comes from the system's linux-libc-dev (/usr/include/<triplet>/asm), which
#     only supplies the basic integer types and ioctl macros the rdma headers use;
#   * the include/uapi headers are compiled with -D__EXPORTED_HEADERS__ and a stand-in
#     <linux/compiler_types.h> and <linux/compiler.h> (what headers_install would
#     strip), placed after this tree;
#   * the kernel version (for the manifest's `since=` annotations) is read from the
#     package's top-level Makefile, two directories up (VERSION/PATCHLEVEL); set
#     UVERBS_ABI_KERNEL=6.12 to override.
# Progress goes to stderr; stdout is only the path.
set -eu

cache="${UVERBS_ABI_CACHE:-/var/cache/uverbs-abi}"
series="${UVERBS_ABI_SERIES:-6.12}"

log() { echo "headers-$series.sh: $*" >&2; }

# Newest linux-headers-<series>.*-common that apt knows (not the -rt variant).
candidates() {
    apt-cache pkgnames "linux-headers-$series." 2>/dev/null \
        | grep -E "^linux-headers-$series\.[0-9]+[^ ]*-common\$" \
        | sort -V
}

pkg="$(candidates | tail -n 1 || true)"
if [ -z "$pkg" ]; then
    log "apt knows no linux-headers-$series.*-common package: running apt-get update"
    apt-get update -qq >&2
    pkg="$(candidates | tail -n 1 || true)"
fi
if [ -z "$pkg" ]; then
    log "no linux-headers-$series.*-common package in the apt sources (needs Debian bookworm-backports/security or trixie)"
    exit 1
fi

dest="$cache/$pkg"
uapi="$dest/usr/src/$pkg/include/uapi"
if [ ! -f "$uapi/rdma/ib_user_verbs.h" ]; then
    mkdir -p "$cache"
    tmp="$(mktemp -d "$cache/.download.XXXXXX")"
    trap 'rm -rf "$tmp"' EXIT
    log "downloading $pkg into $cache"
    # apt's sandbox user may not write to $tmp: it then downloads as root, with a warning.
    # Stale package lists name a version the mirror no longer has: update and retry once.
    if ! (cd "$tmp" && apt-get download "$pkg" >&2); then
        log "download failed: running apt-get update and retrying"
        apt-get update -qq >&2
        pkg="$(candidates | tail -n 1)"
        dest="$cache/$pkg"
        uapi="$dest/usr/src/$pkg/include/uapi"
        (cd "$tmp" && apt-get download "$pkg" >&2)
    fi
    deb="$(ls "$tmp"/*.deb)"
    mkdir -p "$tmp/x"
    dpkg-deb -x "$deb" "$tmp/x"
    rm -rf "$dest"
    mv "$tmp/x" "$dest"
fi
if [ ! -f "$uapi/rdma/ib_user_verbs.h" ]; then
    log "$pkg has no include/uapi/rdma/ib_user_verbs.h under $dest"
    exit 1
fi
echo "$uapi"
