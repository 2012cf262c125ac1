#!/bin/sh
# instructions-guest.sh - the part of the instruction benchmarks that runs inside the VM
# (dash, as root): bench/instructions.sh (whole commands against their peers, and the CI
# guard) and bench/startup.sh (static PIE against fixed address) both run it.
#
# Usage: sh DIR/instructions-guest.sh SPEC RUNS
#
# DIR is where the host put this script, the builds (DIR/BUILD/...) and valgrind
# (DIR/vg: the launcher, the callgrind tool; VALGRIND_LIB points there). SPEC is a file
# of lines "LABEL BUILD FLAGS PROGRAM ARGS..." ('#' lines are comments); PROGRAM is a
# path of the guest when it starts with '/' (a peer such as /usr/bin/ibv_devinfo), else
# DIR/BUILD/PROGRAM. FLAGS, a word of letters ('-' for none):
#   n  counted under callgrind RUNS times: the lines take turns, round after round, in
#      the SPEC's order in odd rounds and in reverse in even ones
#   c  with --trace-children=yes: the instructions of every process it starts are
#      added up (a script and the programs it runs)
#   d  run once more under callgrind with per-instruction output, and the callgrind
#      file sent back (gzipped, base64): for the unstripped builds' attribution
#   s  its system calls once under strace -f -c (when DIR/strace is there)
#   r  its peak RSS and page faults once, without valgrind (when DIR/rusage is there)
# Every run gets the same environment (env -i, PATH, LC_ALL=C) and the same working
# directory, so that the start-up's walk over argv and envp costs the same in each.
# Output, one line each:
#   I KEY VALUE...                  information (kernel, devices, valgrind)
#   N LABEL BUILD IREFS             one count ("I refs", all processes with 'c')
#   P LABEL BUILD PROCESSES         with 'c': the processes counted
#   S LABEL BUILD CALLS             system calls (strace -f -c's total)
#   M LABEL BUILD MAXRSS_KB MINFLT  peak RSS and minor page faults (wait4's rusage)
#   E ...                           a failure
#   CG begin LABEL BUILD ... CG end LABEL BUILD   around an encoded callgrind file
set -u
S=$(cd "$(dirname "$0")" && pwd)
SPEC=$1 RUNS=$2
VG=$S/vg
cd /tmp || exit 1
echo "I kernel $(uname -r)"
echo "I devices ${UVERBS_VM_DEVICES:-}"
echo "I ndevices $(ls /sys/class/infiniband | wc -l)"
echo "I valgrind $(VALGRIND_LIB=$VG $VG/valgrind --tool=callgrind --version 2>&1)"
ENV="env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C"

# prog BUILD PROGRAM: the path to run
prog() { case $2 in /*) echo "$2" ;; *) echo "$S/$1/$2" ;; esac; }

# cg LABEL BUILD FLAGS OUT EXTRA-CALLGRIND-OPTIONS -- PROGRAM ARGS...: one run under
# callgrind, its I refs (summed over the processes with flag c)
cg() {
  label=$1 build=$2 flags=$3 out=$4; shift 4
  opts=''
  while [ "$1" != -- ]; do opts="$opts $1"; shift; done
  shift
  p=$(prog "$build" "$1"); shift
  case $flags in *c*) opts="$opts --trace-children=yes" ;; esac
  rm -f /tmp/vg.*.log
  # shellcheck disable=SC2086 # opts are words
  if $ENV VALGRIND_LIB=$VG $VG/valgrind --tool=callgrind --log-file=/tmp/vg.%p.log \
      --callgrind-out-file="$out" $opts "$p" "$@" > /tmp/cg.stdout 2> /tmp/cg.stderr; then
    n=$(cat /tmp/vg.*.log | sed -n 's/.*I *refs: *\([0-9,]*\).*/\1/p' | tr -d , |
      awk '{ s += $1; k++ } END { if (k) print s, k }')
    if [ -n "$n" ]; then
      echo "N $label $build ${n% *}"
      case $flags in *c*) echo "P $label $build ${n#* }" ;; esac
    else
      echo "E $label $build: no I refs in valgrind's log"; cat /tmp/vg.*.log | sed 's/^/E   /' | tail -n 5
    fi
  else
    echo "E $label $build: exit status $? ($(head -c 200 /tmp/cg.stderr | tr '\n' ' '))"
    cat /tmp/vg.*.log | sed 's/^/E   /' | tail -n 5
  fi
}

# each LINE of the spec with its flags matching PATTERN, forward or (rev) in reverse
lines() { # PATTERN [rev]
  grep -v '^ *#' "$SPEC" | grep -v '^ *$' | awk -v p="$1" '$3 ~ p' |
    if [ "${2:-}" = rev ]; then awk '{ l[NR] = $0 } END { for (i = NR; i > 0; i--) print l[i] }'; else cat; fi
}

r=1
while [ "$r" -le "$RUNS" ]; do
  order=''; [ $((r % 2)) = 0 ] && order=rev
  lines n $order > /tmp/round
  while read -r label build flags args; do
    # shellcheck disable=SC2086 # args are words
    cg "$label" "$build" "$flags" /dev/null -- $args < /dev/null
  done < /tmp/round
  r=$((r + 1))
done

# per-instruction output of the lines marked d
lines d > /tmp/round
while read -r label build flags args; do
  # shellcheck disable=SC2086 # args are words
  cg "$label" "$build" "$flags" /tmp/cg.out --dump-instr=yes --compress-pos=no --compress-strings=no -- $args < /dev/null
  if [ -s /tmp/cg.out ]; then
    echo "CG begin $label $build"
    gzip -9 -c /tmp/cg.out | base64
    echo "CG end $label $build"
  fi
  rm -f /tmp/cg.out
done < /tmp/round

# system calls of the lines marked s: strace -f -c's total ("calls" column of "total")
if [ -x "$S/strace" ]; then
  lines s > /tmp/round
  while read -r label build flags args; do
    set -- $args
    p=$(prog "$build" "$1"); shift
    if $ENV "$S/strace" -f -c -o /tmp/strace.out "$p" "$@" > /dev/null 2>&1 < /dev/null; then
      echo "S $label $build $(awk '$NF == "total" { print $4 }' /tmp/strace.out)"
    else
      echo "E strace $label $build failed"
    fi
  done < /tmp/round
fi

# peak RSS and page faults of the lines marked r
if [ -x "$S/rusage" ]; then
  lines r > /tmp/round
  while read -r label build flags args; do
    set -- $args
    p=$(prog "$build" "$1"); shift
    # rusage prints "MAXRSS_KB EXIT_STATUS MINFLT"
    out=$($ENV "$S/rusage" "$p" "$@" < /dev/null)
    set -- $out
    if [ "${2:-}" = 0 ]; then echo "M $label $build $1 $3"; else echo "E rusage $label $build: $out"; fi
  done < /tmp/round
fi
echo "I done"
