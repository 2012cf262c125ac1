#!/usr/bin/env bash
# scripts/pyverbs-compare.sh - `uverbs selftest` beside rdma-core's pyverbs suite, in the
# same VM boot (issue 25, "Against pyverbs").  Not part of scripts/test-all.sh: its result
# is committed (the summary section of docs/selftest-coverage.md, and
# docs/pyverbs-outcomes.tsv), its raw output kept in target/pyverbs-compare/.
#
# Usage: scripts/pyverbs-compare.sh [--kernel SERIES]... [--report-only]
#
#   --kernel SERIES  a kernel series of tests/vm/versions; repeatable (default: 6.1 6.12)
#   --report-only    no build, no VM: the summary again from the raw outputs already there
#
# What it does:
#   1. On the host (Debian bookworm, root): installs what the build needs when missing
#      (cmake ninja-build gcc pkg-config libnl-3-dev libnl-route-3-dev python3-dev
#      cython3), and builds pyverbs of rdma-core 64.0 ($UVERBS_PEERS_DIR, default
#      ../shared/peers: rdma-core-64.0.tar.xz, the hash tests/vm/peers pins) with
#      Debian's python3.11 (/usr/bin/python3.11, never a pyenv one: the guest runs
#      Debian's) and Debian's Cython 0.29; if that build fails, again with Cython 3 from
#      PyPI (pip install --target, into the build directory).  Built for the prefix
#      /opt/pyverbs-64.0 (RUNPATH there): its libibverbs, librdmacm, the libmlx5 and libefa
#      the provider modules link to, the rxe and siw providers, python/pyverbs and the
#      suite's tests/.  Cached in target/pyverbs-compare/build, keyed by the archive's
#      hash and the Cython version.  UVERBS_PYVERBS_CYTHON=pypi takes Cython 3 from PyPI
#      at once.
#   2. Builds the static uverbs (cargo build --release --target x86_64-unknown-linux-musl).
#   3. Boots the rig once per kernel with rxe0 and siw0, Debian's python3.11 unpacked into
#      that boot only (rig.sh --packages: PY_PKGS below, not the default guest), and runs
#      in it, one device at a time: pyverbs' run_tests.py -v --dev DEV, then
#      `uverbs selftest -d DEV`, each timed by the guest's clock (/proc/uptime).
#   4. Prints and commits the summary: per kernel and device each suite's wall time and
#      counts (pyverbs: unittest's own totals, and its per-test lines; selftest: the KTAP
#      totals line), and what each needs installed (sizes).
#
# Raw output (target/pyverbs-compare/, not committed): KERNEL/guest.out (the boot's whole
# output), KERNEL/pyverbs-DEV.log, KERNEL/selftest-DEV.ktap, KERNEL/rig.err, sizes.txt.
# UVERBS_PYVERBS_TIMEOUT: the rig's --timeout per boot (default 5400 s).
# Exit status: 0 when every boot ran both suites to their end (failing tests do not make
# it fail: they are the result), 1 when a boot did not, 125 a host-side error.
set -euo pipefail

CRATE=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=../bench/lib.sh
. "$CRATE/bench/lib.sh"
RIG=$CRATE/tests/vm/rig.sh
RES=$CRATE/target/pyverbs-compare
DOC=$CRATE/docs/selftest-coverage.md
TSV=$CRATE/docs/pyverbs-outcomes.tsv
TARGET=x86_64-unknown-linux-musl
VERSION=64.0
PREFIX=/opt/pyverbs-$VERSION
PEERS_DIR=${UVERBS_PEERS_DIR:-$CRATE/../shared/peers}
ARCHIVE=$PEERS_DIR/rdma-core-$VERSION.tar.xz
# Debian's python3.11 for the guest: the interpreter, its standard library and the
# libraries of the standard library's extension modules that the base image lacks
PY_PKGS="python3.11-minimal libpython3.11-minimal libpython3.11-stdlib libpython3.11
  libexpat1 libffi8 libssl3 libbz2-1.0 liblzma5 libsqlite3-0 libncursesw6 libtinfo6
  libreadline8 libuuid1 libdb5.3 libnsl2 libtirpc3 libgssapi-krb5-2 libkrb5-3
  libk5crypto3 libcom-err2 libkrb5support0 libkeyutils1 libcrypt1"
DEVICES="rxe0 siw0"
# pyverbs' runs: DEV, or DEV-gid0 for DEV with --gid 0.  pyverbs skips every traffic test on
# siw0 by default: siw's only GID is the netdev's MAC address and 10 zero bytes, and
# tests/base.py takes a GID whose last 8 bytes are zero for an empty one; --gid 0 names it
PY_RUNS="rxe0 siw0 siw0-gid0"
# the host's Debian python: pyenv's shims must not be the one cmake finds
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:$HOME/.cargo/bin
PY=/usr/bin/python3.11

say() { echo "pyverbs-compare: $*" >&2; }
die() { echo "pyverbs-compare: error: $*" >&2; exit 125; }

KERNELS=() REPORT_ONLY=0
while [ $# -gt 0 ]; do
  case $1 in
    --kernel) KERNELS+=("${2:?}"); shift 2 ;;
    --report-only) REPORT_ONLY=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    *) die "unknown argument $1 (see --help)" ;;
  esac
done
[ ${#KERNELS[@]} -gt 0 ] || KERNELS=(6.1 6.12)
mkdir -p "$RES"

# ---------------------------------------------------------------- host build
host_packages() {
  local need=() p
  command -v cmake >/dev/null || need+=(cmake)
  command -v ninja >/dev/null || need+=(ninja-build)
  command -v gcc >/dev/null || need+=(gcc)
  command -v pkg-config >/dev/null || need+=(pkg-config)
  [ -x "$PY" ] || need+=(python3.11)
  [ -e /usr/include/python3.11/Python.h ] || need+=(python3-dev)
  [ -e /usr/include/libnl3/netlink/netlink.h ] || need+=(libnl-3-dev)
  [ -e /usr/include/libnl3/netlink/route/link.h ] || need+=(libnl-route-3-dev)
  "$PY" -c 'import Cython' 2>/dev/null || need+=(cython3)
  [ ${#need[@]} = 0 ] && return 0
  [ "$(id -u)" = 0 ] || die "missing host packages: ${need[*]} (install them, or run as root)"
  install_missing "${need[@]}" || die "apt-get install ${need[*]} failed"
  for p in cmake ninja; do command -v $p >/dev/null || die "$p still missing"; done
}

# cython_pip DIR: Cython 3 from PyPI for $PY, into DIR (the build's; not the host's python)
cython_pip() {
  "$PY" -m pip --version >/dev/null 2>&1 || install_missing python3-pip || die "apt-get install python3-pip failed"
  say "Cython 3 from PyPI (pip install --target $1)"
  "$PY" -m pip install -q --disable-pip-version-check --target "$1" 'Cython>=3,<4' >&2 \
    || die "pip install Cython>=3 failed"
}

# build_pyverbs OUT CYTHONPATH: cmake + ninja of pyverbs, the rxe and siw providers; the
# guest's tree in OUT/stage/$PREFIX
build_pyverbs() {
  local out=$1 cpath=$2 src b o f t0
  t0=$(now_us)
  rm -rf "$out"; mkdir -p "$out/b"
  tar -xJf "$ARCHIVE" -C "$out"
  src=$out/rdma-core-$VERSION
  [ -f "$src/CMakeLists.txt" ] || die "$ARCHIVE holds no rdma-core-$VERSION/"
  b=$out/b
  if ! (cd "$b" && PYTHONPATH=$cpath cmake -GNinja -DNO_MAN_PAGES=1 -DCMAKE_BUILD_TYPE=Release \
          -DPYTHON_EXECUTABLE="$PY" -DCMAKE_INSTALL_PREFIX="$PREFIX" \
          -DCMAKE_INSTALL_SYSCONFDIR=/etc -DCMAKE_BUILD_WITH_INSTALL_RPATH=ON \
          -DCMAKE_INSTALL_RPATH="$PREFIX/lib" "$src") > "$out/build.log" 2>&1; then
    tail -n 20 "$out/build.log" >&2; say "cmake failed (log: $out/build.log)"; return 1
  fi
  grep -q 'Found cython' "$out/build.log" || { say "cmake found no usable Cython: pyverbs disabled"; return 1; }
  if ! (cd "$b" && PYTHONPATH=$cpath ninja -j"$(nproc)" pyverbs/all lib/librxe-rdmav64.so \
          lib/libsiw-rdmav64.so) >> "$out/build.log" 2>&1; then
    grep -m 5 -B 2 -A 8 -E 'Error|error:' "$out/build.log" >&2 || tail -n 30 "$out/build.log" >&2
    say "ninja failed (log: $out/build.log)"; return 1
  fi
  o=$out/stage$PREFIX
  mkdir -p "$o/lib/libibverbs"
  for f in libibverbs.so.1 librdmacm.so.1 libmlx5.so.1 libefa.so.1; do cp -L "$b/lib/$f" "$o/lib/"; done
  for f in rxe siw; do cp -L "$b/lib/lib$f-rdmav64.so" "$o/lib/libibverbs/"; done
  cp -rL "$b/python" "$o/python"
  rm -f "$o/python/cython"          # the build's Cython wrapper
  mkdir -p "$o/tests"; cp "$src"/tests/*.py "$o/tests/"
  find "$o" -name '*.so*' -type f -exec strip --strip-debug {} +
  rm -rf "$b" "$src"
  say "pyverbs built in $(secs_since "$t0")"
}

# try_build OUT CYTHONPATH WHAT: build_pyverbs, and the build's description in OUT/what
try_build() {
  say "building pyverbs $VERSION with $PY and $3"
  build_pyverbs "$1" "$2" || return 1
  echo "rdma-core $VERSION ($SHA), python $("$PY" -V 2>&1 | cut -d' ' -f2), Cython $3" > "$1/what"
  touch "$1/.ok"
}

# prepare_pyverbs: the build to use in BUILD (and its path in $RES/build.current, for
# --report-only).  UVERBS_PYVERBS_CYTHON=pypi skips Debian's Cython.
prepare_pyverbs() {
  local out cpath=$RES/cython3 ver how=${UVERBS_PYVERBS_CYTHON:-debian}
  [ -f "$ARCHIVE" ] || die "no $ARCHIVE (set UVERBS_PEERS_DIR)"
  SHA=$(sha256sum "$ARCHIVE" | cut -d' ' -f1)
  grep -q "$SHA" "$CRATE/tests/vm/peers" || die "$ARCHIVE's sha256 $SHA is not the one tests/vm/peers pins"
  case $how in debian|pypi) ;; *) die "UVERBS_PYVERBS_CYTHON is debian or pypi, not '$how'" ;; esac
  host_packages
  ver=$("$PY" -c 'import Cython; print(Cython.__version__)')
  out=$RES/build-debian-cython-$ver-${SHA:0:12}
  if [ "$how" = debian ] && { [ -e "$out/.ok" ] || try_build "$out" '' "$ver (Debian's cython3)"; }; then
    :
  else
    [ "$how" = pypi ] || say "the build with Debian's Cython $ver failed: Cython 3 from PyPI"
    [ -d "$cpath/Cython" ] || cython_pip "$cpath"
    ver=$(PYTHONPATH=$cpath "$PY" -c 'import Cython; print(Cython.__version__)')
    out=$RES/build-pypi-cython-$ver-${SHA:0:12}
    [ -e "$out/.ok" ] || try_build "$out" "$cpath" "$ver (PyPI)" || die "pyverbs did not build with Cython $ver either"
  fi
  echo "$out" > "$RES/build.current"
  BUILD=$out
  say "pyverbs: $(cat "$BUILD/what")"
}

# ---------------------------------------------------------------- the guest's part
write_guest() { # FILE
  cat > "$1" <<'EOF'
#!/bin/sh
# pyverbs' suite for each of $PY_RUNS, then uverbs selftest on each of $DEVICES and on
# devices of its own (--create); times from /proc/uptime
P=/opt/pyverbs-64.0
up() { cut -d' ' -f1 /proc/uptime; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
echo "=== python $(python3.11 -V 2>&1)"
for run in $PY_RUNS; do
  dev=${run%%-*} extra=''
  case $run in *-gid0) extra='--gid 0' ;; esac
  echo "=== pyverbs $run begin"
  t0=$(up)
  (cd $P/tests && PYTHONPATH=$P/python exec python3.11 run_tests.py -v --dev "$dev" $extra) 2>&1
  rc=$?
  echo "=== pyverbs $run end status=$rc secs=$(secs "$t0" "$(up)")"
done
for dev in $DEVICES create; do
  echo "=== selftest $dev begin"
  t0=$(up)
  if [ $dev = create ]; then /uverbs/uverbs selftest --create rxe,siw 2>&1; else /uverbs/uverbs selftest -d "$dev" 2>&1; fi
  rc=$?
  echo "=== selftest $dev end status=$rc secs=$(secs "$t0" "$(up)")"
done
EOF
  chmod 755 "$1"
}

# section OUT SUITE DEV: the lines of one suite's run on DEV from a boot's output
section() {
  awk -v b="=== $2 $3 begin" -v e="=== $2 $3 end " '
    index($0, b) == 1 { on = 1; next } index($0, e) == 1 { on = 0; next } on' "$1"
}
end_field() { # OUT SUITE DEV FIELD -> the value of FIELD= on the suite's end line
  { grep "^=== $2 $3 end " "$1" || true; } | head -n1 | { grep -o "$4=[^ ]*" || true; } | cut -d= -f2
}

boot() { # KERNEL
  local k=$1 d=$RES/$1 rc=0 T dev
  mkdir -p "$d"
  T=$(now_us)
  say "kernel $k: one boot, rxe0 + siw0, pyverbs then selftest on each"
  bash "$RIG" --kernel "$k" --rxe 1 --siw 1 --timeout "${UVERBS_PYVERBS_TIMEOUT:-5400}" \
    --packages "$PY_PKGS" --add "$BUILD/stage$PREFIX:$PREFIX" --add "$UVERBS:/uverbs/uverbs" \
    --add "$RES/guest.sh:/uverbs/guest.sh" --env "DEVICES=$DEVICES" --env "PY_RUNS=$PY_RUNS" --log "$d/console.log" \
    -- /uverbs/guest.sh > "$d/guest.out" 2> "$d/rig.err" || rc=$?
  say "kernel $k: rig exit $rc after $(secs_since "$T")"
  for run in $PY_RUNS; do
    section "$d/guest.out" pyverbs "$run" > "$d/pyverbs-$run.log"
  done
  for dev in $DEVICES create; do
    section "$d/guest.out" selftest "$dev" > "$d/selftest-$dev.ktap"
    [ -n "$(end_field "$d/guest.out" selftest "$dev" secs)" ] || { say "kernel $k: the run did not reach selftest on $dev"; rc=1; }
  done
  [ "$rc" = 0 ] || { tail -n 20 "$d/rig.err" >&2; return 1; }
}

# ---------------------------------------------------------------- the summary
# pyverbs' per-test lines: "NAME OUTCOME" (ok, FAIL, ERROR, skipped, expected failure,
# unexpected success), NAME as tests.module.Class.test; unittest -v writes
# "test (tests.module.Class.test) ... OUTCOME", the outcome on a later line when the
# test printed something in between
py_outcomes() { # LOG
  awk '
    match($0, /^[A-Za-z0-9_]+ \(tests\.[A-Za-z0-9_.]+\)/) {
      n = substr($0, RSTART, RLENGTH); sub(/^[^(]*\(/, "", n); sub(/\)$/, "", n); cur = n
    }
    cur != "" && match($0, / \.\.\. (ok|FAIL|ERROR|skipped|expected failure|unexpected success)/) {
      o = substr($0, RSTART + 5, RLENGTH - 5); print cur "\t" o; cur = ""; next
    }
    cur != "" && /^(ok|FAIL|ERROR|skipped|expected failure|unexpected success)/ {
      o = $0; sub(/ .*/, "", o); if (o == "expected" || o == "unexpected") o = $1 " " $2
      print cur "\t" o; cur = ""
    }' "$1"
}
py_totals() { # LOG -> "ran pass fail error skip xfail"
  awk '
    /^Ran [0-9]+ tests? in/ { ran = $2 }
    /^(OK|FAILED)/ {
      s = $0; f = e = k = x = u = 0
      if (match(s, /failures=[0-9]+/)) f = substr(s, RSTART + 9, RLENGTH - 9)
      if (match(s, /errors=[0-9]+/)) e = substr(s, RSTART + 7, RLENGTH - 7)
      if (match(s, /skipped=[0-9]+/)) k = substr(s, RSTART + 8, RLENGTH - 8)
      if (match(s, /expected failures=[0-9]+/)) x = substr(s, RSTART + 18, RLENGTH - 18)
      if (match(s, /unexpected successes=[0-9]+/)) u = substr(s, RSTART + 21, RLENGTH - 21)
      done = 1
    }
    END { if (!done) { print "-"; exit }
          print ran, ran - f - e - k - x - u, f, e, k, x }' "$1"
}
st_totals() { # KTAP -> "pass fail xfail skip error" from the totals line (nothing: none)
  [ -s "$1" ] || return 0
  sed -n 's/^# Totals: pass:\([0-9]*\) fail:\([0-9]*\) xfail:\([0-9]*\) xpass:[0-9]* skip:\([0-9]*\) error:\([0-9]*\)$/\1 \2 \3 \4 \5/p' "$1" | tail -n1
}

sizes() { # -> lines of the size table, saved to $RES/sizes.txt
  local deb p total=0 inst n=0 t
  for p in $PY_PKGS; do
    deb=$(ls "${UVERBS_VM_CACHE:-/var/cache/uverbs-vm}"/debs/"${p}"_*_{amd64,all}.deb 2>/dev/null | sort -V | tail -n1 || true)
    [ -n "$deb" ] || continue
    inst=$(dpkg-deb -f "$deb" Installed-Size); total=$((total + inst)); n=$((n + 1))
  done
  t=$(du -sk --apparent-size "$BUILD/stage$PREFIX" | cut -f1)
  {
    echo "| python3.11 (Debian bookworm; $n packages: the interpreter, its standard library, the libraries its extension modules need) | $(num $((total / 1024))) MB installed (the packages' Installed-Size) | $(echo $PY_PKGS) |"
    echo "| pyverbs $VERSION at $PREFIX (its libibverbs, librdmacm, libmlx5, libefa, the rxe and siw providers, the Cython modules, tests/) | $(num $((t / 1024))) MB ($(num "$t") KiB) | python3.11 above; iproute2's \`rdma\` and \`ip\` (its tests read the netdev and address with them; in the rig's base image); built on the host with cmake, ninja-build, gcc, pkg-config, python3-dev, libnl-3-dev, libnl-route-3-dev and Cython $(sed 's/.*Cython //' "$BUILD/what") |"
    echo "| uverbs (static musl binary) | $(num "$(stat -c %s "$UVERBS")") bytes | nothing else: no libc, no python, no rdma-core; \`--create\` makes its own links over rtnetlink and RDMA netlink |"
  } > "$RES/sizes.txt"
  cat "$RES/sizes.txt"
}

report() {
  local k dev log ktap py st pyt stt tmp
  tmp=$RES/section.md
  {
    echo '<!-- pyverbs-compare: begin (written by scripts/pyverbs-compare.sh; do not edit) -->'
    echo "## The two suites on the same boot"
    echo
    echo "Written by \`scripts/pyverbs-compare.sh\` on $(date -u +%Y-%m-%d): one boot of the rig per"
    echo "kernel (QEMU TCG, 1 CPU, rxe0 and siw0); in it pyverbs' \`run_tests.py -v --dev DEV\` on"
    echo "rxe0, on siw0, and on siw0 with \`--gid 0\` (by default pyverbs takes siw's only GID, the"
    echo "netdev's MAC address and 10 zero bytes, for an empty one and skips every traffic test),"
    echo "then \`uverbs selftest -d DEV\` on each, and \`uverbs selftest --create rxe,siw\` on"
    echo "devices of its own (uvst_rxe and uvst_siw on a dummy uvst0, which its port events"
    echo "case sets down and up); each run timed by the guest's clock. pyverbs:"
    echo "$(cat "$BUILD/what"). Counts are each suite's own: unittest's"
    echo "totals (pass = ran - failures - errors - skipped - expected failures), and selftest's"
    echo "KTAP totals line. Per-test outcomes: \`docs/pyverbs-outcomes.tsv\`."
    echo
    echo "| kernel | device | suite | wall time | tests | pass | fail | error | skip | xfail | exit |"
    echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    for k in "${KERNELS[@]}"; do
      out=$RES/$k/guest.out
      [ -s "$out" ] || continue
      for dev in $DEVICES create; do
        for run in $PY_RUNS; do
          [ "${run%%-*}" = "$dev" ] || continue
          log=$RES/$k/pyverbs-$run.log
          [ -s "$log" ] || { echo "| $k | $dev | pyverbs ($run) | - | (did not run) | | | | | | |"; continue; }
          what=pyverbs; [ "$run" = "$dev" ] || what='pyverbs --gid 0'
          py=$(py_totals "$log")
          pyt=$(end_field "$out" pyverbs "$run" secs)
          if [ "$py" = - ]; then
            echo "| $k | $dev | $what | ${pyt:--} s | (no totals: cut off) | | | | | | $(end_field "$out" pyverbs "$run" status) |"
          else
            read -r ran pass fail err skip xf <<<"$py"
            echo "| $k | $dev | $what | $pyt s | $ran | $pass | $fail | $err | $skip | $xf | $(end_field "$out" pyverbs "$run" status) |"
          fi
        done
        ktap=$RES/$k/selftest-$dev.ktap
        st=$(st_totals "$ktap")
        stt=$(end_field "$out" selftest "$dev" secs)
        label=$dev what="uverbs selftest -d $dev"
        [ "$dev" != create ] || { label='uvst_rxe, uvst_siw'; what='uverbs selftest --create rxe,siw'; }
        if [ -z "$st" ]; then
          echo "| $k | $label | $what | ${stt:--} s | (no totals line) | | | | | | $(end_field "$out" selftest "$dev" status) |"
        else
          read -r pass fail xf skip err <<<"$st"
          echo "| $k | $label | $what | $stt s | $((pass + fail + xf + skip + err)) | $pass | $fail | $err | $skip | $xf | $(end_field "$out" selftest "$dev" status) |"
        fi
      done
    done
    echo
    echo "What each needs in the guest:"
    echo
    echo "| what | size | needs |"
    echo "|---|---:|---|"
    sizes
    echo
    echo '<!-- pyverbs-compare: end -->'
  } > "$tmp"
  [ -e "$DOC" ] || printf '# uverbs selftest against pyverbs\n' > "$DOC"
  put_section "$DOC" "$tmp" '<!-- pyverbs-compare: begin (written by scripts/pyverbs-compare.sh; do not edit) -->' '<!-- pyverbs-compare: end -->'
  # per-test outcomes: one column per kernel and pyverbs run
  local cols=() c
  for k in "${KERNELS[@]}"; do for run in $PY_RUNS; do
    [ -s "$RES/$k/pyverbs-$run.log" ] || continue
    py_outcomes "$RES/$k/pyverbs-$run.log" > "$RES/$k/outcomes-$run.tsv"
    cols+=("$k/$run")
  done; done
  {
    printf 'test'; printf '\t%s' "${cols[@]}"; echo
    for c in "${cols[@]}"; do cut -f1 "$RES/${c%%/*}/outcomes-${c#*/}.tsv"; done | LC_ALL=C sort -u |
      while IFS= read -r t; do
        printf '%s' "$t"
        for c in "${cols[@]}"; do
          printf '\t%s' "$(awk -F'\t' -v t="$t" '$1 == t { print $2; exit }' "$RES/${c%%/*}/outcomes-${c#*/}.tsv")"
        done
        echo
      done
  } > "$TSV"
  sed -n '/pyverbs-compare: begin/,/pyverbs-compare: end/p' "$DOC"
}

# ---------------------------------------------------------------- main
prepare_or_find() {
  BUILD=$(cat "$RES/build.current" 2>/dev/null || true)
  [ -n "$BUILD" ] && [ -e "$BUILD/.ok" ] || die "no pyverbs build in $RES (run without --report-only)"
  UVERBS=$RES/uverbs
}
if [ "$REPORT_ONLY" = 1 ]; then
  prepare_or_find
  report
  exit 0
fi
prepare_pyverbs
musl_target
UVERBS=$(build_cli selftest) || die "cargo build of uverbs failed"
cp "$UVERBS" "$RES/uverbs"; UVERBS=$RES/uverbs
write_guest "$RES/guest.sh"
status=0
for k in "${KERNELS[@]}"; do boot "$k" || status=1; done
report
exit $status
