#!/bin/sh
# hotcalls-guest.sh - the part of bench/hotcalls.sh that runs inside the VM (dash, as
# root): each line of a spec is one program run under valgrind's callgrind, its
# user-space instruction count ("I refs") reported.
#
# Usage: sh DIR/hotcalls-guest.sh SPEC RUNS [JOBS]
#
# JOBS (default 1): programs of a round run this many at a time (a guest of as many
# CPUs; the CI guard's boot has 2): each count is its own process's, whatever runs
# beside it.
#
# DIR holds this script, the builds (DIR/BUILD/PROGRAM) and valgrind (DIR/vg: the
# launcher and the callgrind tool; VALGRIND_LIB points there). SPEC: lines
# "KEY FLAGS BUILD PROGRAM ARGS..." ('#' lines are comments); FLAGS, letters:
#   n  counted RUNS times: the lines take turns, round after round, in the SPEC's order
#      in odd rounds and in reverse in even ones
#   d  run once more with per-instruction output, the callgrind file sent back
#      (gzipped, base64) between "CG begin KEY BUILD" and "CG end KEY BUILD"
# Every run gets the same environment (env -i, PATH, LC_ALL=C) and working directory.
# Output, one line each:
#   I WHAT VALUE...      information (kernel, devices, valgrind)
#   N KEY IREFS          one count (D KEY IREFS: a run of a line marked d)
#   X KEY WORD VALUE     a program's own "X WORD VALUE" line (bench_objects.rs and
#                        objects_loops.c print "X short_polls K")
#   E ...                a failure
set -u
S=$(cd "$(dirname "$0")" && pwd)
SPEC=$1 RUNS=$2 JOBS=${3:-1}
VG=$S/vg
cd /tmp || exit 1
echo "I kernel $(uname -r)"
echo "I devices ${UVERBS_VM_DEVICES:-}"
echo "I valgrind $(VALGRIND_LIB=$VG $VG/valgrind --tool=callgrind --version 2>&1)"
ENV="env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C"

# run TAG KEY BUILD OUT EXTRA-OPTIONS... -- PROGRAM ARGS...: one run under callgrind,
# its count as "TAG KEY IREFS" (its scratch files named by $J, the job's number)
J=0
run() {
  tag=$1 key=$2 build=$3 out=$4; shift 4
  opts=''
  while [ "$1" != -- ]; do opts="$opts $1"; shift; done
  shift
  p=$S/$build/$1; shift
  rm -f /tmp/vg$J.log
  # shellcheck disable=SC2086 # opts are words
  if $ENV VALGRIND_LIB=$VG $VG/valgrind --tool=callgrind --log-file=/tmp/vg$J.log \
      --callgrind-out-file="$out" $opts "$p" "$@" > /tmp/hc$J.stdout 2> /tmp/hc$J.stderr < /dev/null; then
    n=$(sed -n 's/.*I *refs: *\([0-9,]*\).*/\1/p' /tmp/vg$J.log | tr -d ,)
    if [ -n "$n" ]; then echo "$tag $key $n"; else echo "E $key: no I refs in valgrind's log"; fi
    sed -n "s/^X /X $key /p" /tmp/hc$J.stdout
  else
    echo "E $key $build: exit status $? ($(head -c 300 /tmp/hc$J.stderr | tr '\n' ' '))"
    tail -n 3 /tmp/vg$J.log | sed 's/^/E   /'
  fi
}

lines() { # PATTERN [rev]
  grep -v '^ *#' "$SPEC" | grep -v '^ *$' | awk -v p="$1" '$2 ~ p' |
    if [ "${2:-}" = rev ]; then awk '{ l[NR] = $0 } END { for (i = NR; i > 0; i--) print l[i] }'; else cat; fi
}

r=1
while [ "$r" -le "$RUNS" ]; do
  order=''; [ $((r % 2)) = 0 ] && order=rev
  lines n $order > /tmp/round
  i=0
  while read -r key flags build args; do
    J=$((i % JOBS))
    # shellcheck disable=SC2086 # args are words
    if [ "$JOBS" = 1 ]; then run N "$key" "$build" /dev/null -- $args
    else run N "$key" "$build" /dev/null -- $args < /dev/null > /tmp/job$J.out & fi
    i=$((i + 1))
    if [ "$JOBS" != 1 ] && { [ $((i % JOBS)) = 0 ] || [ "$i" = "$(wc -l < /tmp/round)" ]; }; then
      wait
      j=0; while [ "$j" -lt "$JOBS" ]; do [ -e /tmp/job$j.out ] && cat /tmp/job$j.out; rm -f /tmp/job$j.out; j=$((j + 1)); done
    fi
  done < /tmp/round
  J=0
  echo "I round $r done"
  r=$((r + 1))
done

lines d > /tmp/round
while read -r key flags build args; do
  # shellcheck disable=SC2086 # args are words
  run D "$key" "$build" /tmp/cg.out --dump-instr=yes --compress-pos=no --compress-strings=no -- $args
  if [ -s /tmp/cg.out ]; then
    echo "CG begin $key $build"
    gzip -9 -c /tmp/cg.out | base64
    echo "CG end $key $build"
  fi
  rm -f /tmp/cg.out
done < /tmp/round
echo "I done"
