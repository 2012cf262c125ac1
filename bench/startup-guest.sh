#!/bin/sh
# startup-guest.sh - the part of bench/startup.sh that runs inside the VM (dash, as root).
#
# Usage: sh /startup/startup-guest.sh RUNS
#
# Counts the user-space instructions (callgrind's "I refs") of each command, for the
# static PIE (the shipped build, /startup/pie/uverbs) and the same source linked at a
# fixed address (/startup/fix/uverbs), RUNS times each, the two builds taking turns.
# The paths have the same length and every run gets the same environment, so that the
# start-up's walk over argv and envp costs the same in both. Then the unstripped builds
# (pie-u, fix-u) once each for every command, with callgrind's per-function and
# per-instruction output sent back gzipped and base64-encoded.
# Output: "I key value..." (information), "N LABEL BUILD IREFS" (one count),
# "E ..." (a failure), and "CG begin LABEL BUILD" ... "CG end LABEL BUILD" around an
# encoded callgrind file.
set -u
S=/startup
RUNS=$1
VG=$S/vg
echo "I kernel $(uname -r)"
echo "I devices ${UVERBS_VM_DEVICES:-}"
echo "I ndevices $(ls /sys/class/infiniband | wc -l)"
echo "I valgrind $(VALGRIND_LIB=$VG $VG/valgrind --tool=callgrind --version 2>&1)"

# cg LABEL BUILD OUT EXTRA-CALLGRIND-OPTIONS -- ARGS...: one run under callgrind, its I refs
cg() {
  label=$1 build=$2 out=$3; shift 3
  opts=''
  while [ "$1" != -- ]; do opts="$opts $1"; shift; done
  shift
  # shellcheck disable=SC2086 # opts are words
  if env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin VALGRIND_LIB=$VG \
      $VG/valgrind --tool=callgrind --log-file=/tmp/vg.log --callgrind-out-file="$out" $opts \
      $S/$build/uverbs "$@" > /tmp/cg.stdout 2> /tmp/cg.stderr; then
    n=$(sed -n 's/.*I *refs: *\([0-9,]*\).*/\1/p' /tmp/vg.log | tr -d ,)
    if [ -n "$n" ]; then echo "N $label $build $n"; else echo "E $label $build: no I refs in valgrind's log"; sed 's/^/E   /' /tmp/vg.log | tail -n 5; fi
  else
    echo "E $label $build: exit status $? ($(head -c 200 /tmp/cg.stderr | tr '\n' ' '))"
    sed 's/^/E   /' /tmp/vg.log | tail -n 5
  fi
}

# LABEL:ARGS (ARGS split on spaces)
CMDS="devices:devices devinfo_v:devinfo_-v devices_json:devices_--json devinfo_json:devinfo_--json"
r=1
while [ $r -le "$RUNS" ]; do
  for c in $CMDS; do
    label=${c%%:*} args=$(echo "${c#*:}" | tr _ ' ')
    # shellcheck disable=SC2086 # args are words
    if [ $((r % 2)) = 1 ]; then
      cg "$label" pie /dev/null -- $args; cg "$label" fix /dev/null -- $args
    else
      cg "$label" fix /dev/null -- $args; cg "$label" pie /dev/null -- $args
    fi
  done
  r=$((r + 1))
done

# the unstripped builds: where the instructions go, per function and per instruction
for c in $CMDS; do
  label=${c%%:*} args=$(echo "${c#*:}" | tr _ ' ')
  for b in pie-u fix-u; do
    # shellcheck disable=SC2086 # args are words
    cg "$label" "$b" /tmp/cg.out --dump-instr=yes --compress-pos=no --compress-strings=no -- $args
    if [ -s /tmp/cg.out ]; then
      echo "CG begin $label $b"
      gzip -9 -c /tmp/cg.out | base64
      echo "CG end $label $b"
    fi
    rm -f /tmp/cg.out
  done
done
echo "I done"
