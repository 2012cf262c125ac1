#!/usr/bin/env bash
# image.sh - the uverbs container image (issue 26) as an OCI image layout, written
# without a container daemon: one multi-arch image index for linux/amd64 and
# linux/arm64, each image one layer holding only the static binary (/uverbs).
#
# Usage: scripts/image.sh [--tag TAG] [--epoch SECONDS] OUT AMD64_BINARY ARM64_BINARY
#
#   OUT          the OCI layout directory, made anew (oci-layout, index.json, blobs/)
#   --tag TAG    the reference name of the index (default: the crate's version)
#   --epoch S    the time stamped on the files and in the configs (default:
#                SOURCE_DATE_EPOCH, else the commit time of HEAD)
#
# The layout's index.json names three things: TAG (the image index, the one a user
# pushes: `skopeo copy --all oci:OUT:TAG docker://REGISTRY/uverbs:TAG`), and TAG-amd64
# and TAG-arm64 (each architecture's image, for tools that take one image:
# `umoci unpack --image OUT:TAG-amd64 BUNDLE`).
#
# Reproducible: the same binaries and epoch give the same bytes, so the same commit and
# toolchain give the same digests. What makes it so: the tar has one member with fixed
# owner (0:0, no names), mode and mtime (GNU tar, ustar format); `gzip -n` stores no
# name or time; the JSON documents are written here with a fixed key order and no
# whitespace. Debian 12's umoci (0.4.7) and skopeo (1.9.3) read such a layout but cannot
# make a multi-platform index, hence this script. `deploy/Containerfile` builds the same image
# with docker or podman (its digests differ: their tar and JSON are their own).
#
# Prints the digest of the index and each image's size (compressed layer) on stderr,
# and the index digest alone on stdout.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
TAG='' EPOCH=${SOURCE_DATE_EPOCH:-}
while [ $# -gt 0 ]; do
  case $1 in
    --tag) TAG=${2:?}; shift 2 ;;
    --epoch) EPOCH=${2:?}; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    -*) echo "image.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# = 3 ] || { echo "usage: scripts/image.sh [--tag TAG] [--epoch S] OUT AMD64_BINARY ARM64_BINARY" >&2; exit 2; }
OUT=$1 BIN_AMD64=$2 BIN_ARM64=$3
[ -n "$TAG" ] || TAG=$(sed -n 's/^version *= *"\(.*\)"/\1/p' "$top/Cargo.toml")
[ -n "$EPOCH" ] || EPOCH=$(git -C "$top" log -1 --format=%ct)
[[ $EPOCH =~ ^[0-9]+$ ]] || { echo "image.sh: the epoch must be seconds since 1970: $EPOCH" >&2; exit 2; }
[[ $TAG =~ ^[A-Za-z0-9_][A-Za-z0-9._-]*$ ]] || { echo "image.sh: not a tag: $TAG" >&2; exit 2; }
CREATED=$(date -u -d "@$EPOCH" +%Y-%m-%dT%H:%M:%SZ)
VERSION=$(sed -n 's/^version *= *"\(.*\)"/\1/p' "$top/Cargo.toml")
REVISION=$(git -C "$top" rev-parse HEAD 2>/dev/null || echo unknown)

rm -rf "$OUT"
mkdir -p "$OUT/blobs/sha256"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# blob FILE MEDIATYPE: moves FILE into the blobs, prints its descriptor (compact JSON)
blob() {
  local d s
  d=$(sha256sum "$1" | cut -d' ' -f1)
  s=$(stat -c %s "$1")
  mv "$1" "$OUT/blobs/sha256/$d"
  printf '{"mediaType":"%s","digest":"sha256:%s","size":%s' "$2" "$d" "$s"
}

# image ARCH BINARY: one architecture's layer, config and manifest; prints the
# manifest's descriptor without its closing brace (the caller adds platform, annotations)
image() {
  local arch=$1 bin=$2 root=$work/root-$1 diff layer config
  [ -f "$bin" ] || { echo "image.sh: no binary $bin" >&2; return 1; }
  mkdir -p "$root"
  cp "$bin" "$root/uverbs"
  tar --create --format=ustar --numeric-owner --owner=0 --group=0 --mode=0755 \
      --mtime="@$EPOCH" -C "$root" -f "$work/layer-$arch.tar" uverbs
  diff=$(sha256sum "$work/layer-$arch.tar" | cut -d' ' -f1)
  gzip -n -9 -c "$work/layer-$arch.tar" > "$work/layer-$arch.tar.gz"
  layer=$(blob "$work/layer-$arch.tar.gz" application/vnd.oci.image.layer.v1.tar+gzip)
  # The image's configuration: the binary is the entrypoint, the exporter the default
  # command; the user is nobody (65534): the queries need only the uverbs nodes, which
  # the kernel makes 0666, and /sys (see README, "Deploy").
  printf '%s' "{\"created\":\"$CREATED\",\"architecture\":\"$arch\",\"os\":\"linux\",\"config\":{\"User\":\"65534:65534\",\"ExposedPorts\":{\"9550/tcp\":{}},\"Entrypoint\":[\"/uverbs\"],\"Cmd\":[\"exporter\",\"--listen\",\"0.0.0.0:9550\"],\"Labels\":{\"org.opencontainers.image.source\":\"uverbs\",\"org.opencontainers.image.version\":\"$VERSION\"}},\"rootfs\":{\"type\":\"layers\",\"diff_ids\":[\"sha256:$diff\"]},\"history\":[{\"created\":\"$CREATED\",\"created_by\":\"scripts/image.sh: COPY uverbs /uverbs\"}]}" > "$work/config-$arch.json"
  config=$(blob "$work/config-$arch.json" application/vnd.oci.image.config.v1+json)
  printf '%s' "{\"schemaVersion\":2,\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\",\"config\":$config},\"layers\":[$layer}],\"annotations\":{\"org.opencontainers.image.created\":\"$CREATED\",\"org.opencontainers.image.revision\":\"$REVISION\",\"org.opencontainers.image.version\":\"$VERSION\"}}" > "$work/manifest-$arch.json"
  echo "image.sh: linux/$arch: layer $(stat -c %s "$OUT/blobs/sha256/$(echo "$layer" | sed 's/.*sha256:\([0-9a-f]*\).*/\1/')") bytes compressed, binary $(stat -c %s "$bin") bytes" >&2
  blob "$work/manifest-$arch.json" application/vnd.oci.image.manifest.v1+json
}

m_amd64=$(image amd64 "$BIN_AMD64")
m_arm64=$(image arm64 "$BIN_ARM64")
p_amd64=',"platform":{"architecture":"amd64","os":"linux"}'
p_arm64=',"platform":{"architecture":"arm64","os":"linux","variant":"v8"}'
printf '%s' "{\"schemaVersion\":2,\"mediaType\":\"application/vnd.oci.image.index.v1+json\",\"manifests\":[$m_amd64$p_amd64},$m_arm64$p_arm64}]}" > "$work/index.json"
idx=$(blob "$work/index.json" application/vnd.oci.image.index.v1+json)
ref() { printf ',"annotations":{"org.opencontainers.image.ref.name":"%s"}}' "$1"; }
printf '%s' "{\"schemaVersion\":2,\"mediaType\":\"application/vnd.oci.image.index.v1+json\",\"manifests\":[$idx$(ref "$TAG"),$m_amd64$p_amd64$(ref "$TAG-amd64"),$m_arm64$p_arm64$(ref "$TAG-arm64")]}" > "$OUT/index.json"
printf '{"imageLayoutVersion":"1.0.0"}' > "$OUT/oci-layout"
d=$(echo "$idx" | sed 's/.*"digest":"\([^"]*\)".*/\1/')
echo "image.sh: $OUT: $TAG = $d (linux/amd64, linux/arm64)" >&2
echo "$d"
