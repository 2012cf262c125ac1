#!/usr/bin/env bash
# archive-test.sh - the rig against an archive that moved on (issue 43, step 1).
#
# tests/vm/rig.sh prefers the exact kernel packages tests/vm/versions pins; when the
# archive no longer serves one, it takes the nearest version of the same series and
# says so (ARCHIVE DRIFT), and when nothing of the series is left it stops with an
# error naming what is missing and what the archive has.  This test makes local apt
# repositories (file: URIs, packages built here with dpkg-deb: control data only) in
# each of those states and runs `rig.sh --resolve` against them through the rig's own
# apt configuration (UVERBS_VM_APT_SOURCES), with a versions file and a cache of its
# own.  --resolve resolves the five packages a kernel is prepared from and downloads
# them into the cache, as preparing does.  No network, no VM; a few seconds.
#
# Usage: tests/vm/archive-test.sh   (exit 0: every case as expected)
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RIG=$HERE/rig.sh
for t in dpkg-deb dpkg-scanpackages apt-get; do
  command -v "$t" >/dev/null || { echo "archive-test: $t is missing (dpkg-dev, apt)" >&2; exit 1; }
done
W=$(mktemp -d "${TMPDIR:-/tmp}/uverbs-archive-test.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$W"' EXIT   # KEEP=1 keeps the repositories and caches
chmod 755 "$W"   # apt's download sandbox user reads the repositories
FAILS=0
fail() { echo "archive-test: FAIL: $*" >&2; FAILS=$((FAILS + 1)); }

# deb REPO PACKAGE VERSION ARCH [DEPENDS]: a package with nothing in it but its control data
deb() {
  local repo=$1 p=$2 v=$3 a=$4 dep=${5:-} d
  d=$W/build/$p-$v-$a
  mkdir -p "$d/DEBIAN" "$W/$repo"
  {
    echo "Package: $p"; echo "Version: $v"; echo "Architecture: $a"
    echo "Maintainer: uverbs archive test <test@invalid>"
    [ -z "$dep" ] || echo "Depends: $dep"
    echo "Description: stand-in for $p (tests/vm/archive-test.sh)"
  } > "$d/DEBIAN/control"
  dpkg-deb --root-owner-group -Zxz --build "$d" "$W/$repo/${p}_${v}_$a.deb" >/dev/null
}
# a kernel of series 6.1 in REPO: image, headers, -common, kbuild, source, as Debian
# names them (ABI 6.1.0-N); KBUILD and SOURCE: their versions ('' leaves one out)
kernel61() { # REPO ABI VERSION KBUILD SOURCE
  local repo=$1 abi=$2 v=$3 kb=$4 src=$5
  deb "$repo" "linux-image-6.1.0-$abi-amd64" "$v" amd64
  deb "$repo" "linux-headers-6.1.0-$abi-amd64" "$v" amd64 \
    "linux-headers-6.1.0-$abi-common (= $v), linux-kbuild-6.1 (>= $v), linux-compiler-gcc-12-x86"
  deb "$repo" "linux-headers-6.1.0-$abi-common" "$v" all
  [ -z "$kb" ] || deb "$repo" linux-kbuild-6.1 "$kb" amd64
  [ -z "$src" ] || deb "$repo" linux-source-6.1 "$src" all
}
index() { # REPO: its Packages file, and a sources list naming it
  (cd "$W/$1" && dpkg-scanpackages -m . /dev/null 2>/dev/null > Packages)
  chmod -R a+rX "$W/$1"
  echo "deb [trusted=yes] file:$W/$1 ./" > "$W/$1.list"
}
cat > "$W/versions" <<'EOF'
6.1 linux-image-6.1.0-56-amd64 6.1.192-2
EOF
# resolve REPO [ENV...]: rig.sh --resolve --kernel 6.1 against REPO with a cache of its
# own; OUT, ERR and RC its stdout, stderr and status; DRIFT_LOG what it logged as drift
resolve() {
  local repo=$1
  shift
  rm -f "$W/drift.log"
  RC=0
  env UVERBS_VM_CACHE="$W/cache-$repo" UVERBS_VM_APT_SOURCES="$W/$repo.list" \
    UVERBS_VM_VERSIONS="$W/versions" UVERBS_VM_DRIFT_LOG="$W/drift.log" "$@" \
    bash "$RIG" --kernel 6.1 --resolve > "$W/out" 2> "$W/err" || RC=$?
  OUT=$(cat "$W/out") ERR=$(cat "$W/err")
  DRIFT_LOG=$(cat "$W/drift.log" 2>/dev/null || true)
}
expect_out() { # CASE WANT
  [ "$OUT" = "$2" ] || fail "$1: resolved
$OUT
    wanted
$2
    stderr: $ERR"
}
expect_err() { # CASE TEXT: stderr says TEXT
  grep -qF -- "$2" <<<"$ERR" || fail "$1: stderr lacks '$2'; it was: $ERR"
}
# specs ABI VERSION KBUILD SOURCE: what --resolve prints for a 6.1 kernel of ABI 6.1.0-N
specs() {
  printf '%s\n' "linux-image-6.1.0-$1-amd64:amd64=$2" "linux-headers-6.1.0-$1-amd64:amd64=$2" \
    "linux-headers-6.1.0-$1-common=$2" "linux-kbuild-6.1:amd64=$3" "linux-source-6.1=$4"
}
# resolved CASE WANT: the case (its repository and cache of that name) exited 0,
# resolved to WANT, and downloaded each package into its cache's debs/
resolved() {
  local c=$1 s n
  [ "$RC" = 0 ] || fail "$c: rig.sh --resolve exited $RC: $ERR"
  expect_out "$c" "$2"
  while IFS= read -r s; do
    n=${s%%=*}; n=${n%%:*}
    ls "$W/cache-$c/debs/${n}_${s#*=}_"*.deb >/dev/null 2>&1 || fail "$c: $s not downloaded into the cache"
  done <<<"$2"
}

# 1. the archive serves every pinned package: exactly those, and no drift
kernel61 exact 56 6.1.192-2 6.1.192-2 6.1.192-2
kernel61 exact 55 6.1.190-1 6.1.190-1 6.1.190-1   # an older kernel beside it
index exact
resolve exact
resolved exact "$(specs 56 6.1.192-2 6.1.192-2 6.1.192-2)"
! grep -q DRIFT <<<"$ERR" || fail "exact: drift reported where the archive has every pin: $ERR"
[ -z "$DRIFT_LOG" ] || fail "exact: drift logged: $DRIFT_LOG"

# 2. the pinned revision of kbuild and source is gone (the case of 2026-11: the
# security archive serves linux-kbuild-6.1 6.1.192-3 only): the nearest revision that
# satisfies the headers' Depends, never the older point release that does not; drift
# said on stderr and logged; with UVERBS_VM_EXACT=1 an error
kernel61 moved 56 6.1.192-2 '' ''
deb moved linux-kbuild-6.1 6.1.192-3 amd64
deb moved linux-kbuild-6.1 6.1.176-1 amd64    # older than the headers allow
deb moved linux-source-6.1 6.1.192-3 all
deb moved linux-source-6.1 6.1.190-1 all
deb moved linux-source-6.1 6.1.194-1 all
index moved
resolve moved
resolved moved "$(specs 56 6.1.192-2 6.1.192-3 6.1.192-3)"
expect_err moved "WARNING: ARCHIVE DRIFT: linux-kbuild-6.1 6.1.192-2 is gone from the archive; using 6.1.192-3"
expect_err moved ">= 6.1.192-2 (the Depends of linux-headers-6.1.0-56-amd64 6.1.192-2)"
expect_err moved "WARNING: ARCHIVE DRIFT: linux-source-6.1 6.1.192-2 is gone from the archive; using 6.1.192-3"
[ "$(wc -l <<<"$DRIFT_LOG")" = 2 ] && grep -q '^6.1: linux-kbuild-6.1 6.1.192-2 is gone' <<<"$DRIFT_LOG" \
  || fail "moved: the drift log holds '$DRIFT_LOG'"
resolve moved UVERBS_VM_EXACT=1
[ "$RC" = 125 ] || fail "moved, UVERBS_VM_EXACT=1: exit $RC, wanted 125"
expect_err "moved, UVERBS_VM_EXACT=1" "linux-kbuild-6.1 6.1.192-2 is gone from the archive"
expect_err "moved, UVERBS_VM_EXACT=1" "UVERBS_VM_EXACT=1: no substitute is taken"

# 3. the pinned kernel itself is gone (a new ABI, 6.1.0-57, replaced it): the nearest
# image of the series, with its own headers, -common and kbuild
kernel61 image 57 6.1.194-1 6.1.194-1 6.1.194-1
kernel61 image 54 6.1.188-1 6.1.188-1 6.1.188-1
deb image linux-image-6.12.1+deb12-amd64 6.12.1-1~deb12u1 amd64   # another series
index image
resolve image
resolved image "$(specs 57 6.1.194-1 6.1.194-1 6.1.194-1)"
expect_err image "WARNING: ARCHIVE DRIFT: the pinned kernel linux-image-6.1.0-56-amd64 6.1.192-2 is gone from the archive; using linux-image-6.1.0-57-amd64 6.1.194-1, the nearest of series 6.1"
[ "$(cat "$W/cache-image/subst-6.1" 2>/dev/null)" = "linux-image-6.1.0-56-amd64 6.1.192-2
linux-image-6.1.0-57-amd64 6.1.194-1" ] || fail "image: the substitution was not kept in the cache's subst-6.1"

# 4. nothing of the series is left: an error naming the pin and what the archive has
deb gone linux-image-6.12.1+deb12-amd64 6.12.1-1~deb12u1 amd64
deb gone linux-kbuild-6.1 6.1.192-3 amd64
index gone
resolve gone
[ "$RC" = 125 ] || fail "gone: exit $RC, wanted 125 (stdout: $OUT)"
expect_err gone "the pinned kernel linux-image-6.1.0-56-amd64 6.1.192-2"
expect_err gone "is gone from the archive, and it serves no other linux-image-6.1*-amd64 either"
expect_err gone "The archive has these linux-image-*-amd64 packages: linux-image-6.12.1+deb12-amd64"
[ -z "$OUT" ] || fail "gone: printed packages: $OUT"

# 5. the kernel is there but kbuild is not at all: an error naming the package and
# the relation it had to meet
kernel61 nokb 56 6.1.192-2 '' 6.1.192-2
index nokb
resolve nokb
[ "$RC" = 125 ] || fail "nokb: exit $RC, wanted 125"
expect_err nokb "the archive serves no linux-kbuild-6.1 at all (wanted: 6.1.192-2, linux-headers-6.1.0-56-amd64 6.1.192-2 needs >= 6.1.192-2)"

# 6. no revision satisfies the headers' Depends (-common's pinned revision gone, only an
# older kbuild): the nearest all the same, said as not satisfying
kernel61 unmet 56 6.1.192-2 6.1.192-1 6.1.192-2
rm "$W/unmet/linux-headers-6.1.0-56-common_6.1.192-2_all.deb"
deb unmet linux-headers-6.1.0-56-common 6.1.192-3 all
index unmet
resolve unmet
[ "$RC" = 0 ] || fail "unmet: rig.sh --resolve exited $RC: $ERR"
grep -qx 'linux-headers-6.1.0-56-common=6.1.192-3' <<<"$OUT" && grep -qx 'linux-kbuild-6.1:amd64=6.1.192-1' <<<"$OUT" \
  || fail "unmet: resolved $OUT"
expect_err unmet "linux-headers-6.1.0-56-common 6.1.192-2 is gone from the archive and no version it serves satisfies = 6.1.192-2"
expect_err unmet "linux-kbuild-6.1 6.1.192-2 is gone from the archive and no version it serves satisfies >= 6.1.192-2"

if [ "$FAILS" = 0 ]; then
  echo "archive-test: the rig takes the pins, the nearest revision or image of the series when one is gone (said and logged), and stops naming what is missing when none is left (6 cases)"
else
  echo "archive-test: $FAILS failure(s)" >&2
  exit 1
fi
