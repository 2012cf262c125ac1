#!/bin/sh
# perfloops-guest.sh - the part of bench/perfloops.sh that runs inside the VM (dash, as
# root): each line of a spec is one perftest-style test, its server run plain and its
# client under valgrind's callgrind; what the host needs of the callgrind file is
# summarised here (awk), so that no large file crosses the serial console.
#
# Usage: sh DIR/perfloops-guest.sh SPEC RUNS
#
# DIR holds this script, the builds (DIR/BUILD/uverbs; DIR/c/objects_loops) and valgrind
# (DIR/vg: the launcher and the callgrind tool; VALGRIND_LIB points there). SPEC: lines
# "KEY BUILD TEST DEV N" ('#' lines are comments), run RUNS times: the lines take turns,
# round after round, in the SPEC's order in odd rounds and in reverse in even ones.
#   BUILD pie, pie-u: `DIR/BUILD/uverbs perf TEST` (the server: DIR/pie/uverbs);
#         pt: Debian's perftest, /usr/bin/ib_TEST (both sides);
#         probe: DIR/c/objects_loops count DEV poll_empty N alone (which function of
#         the provider libibverbs' poll of DEV runs: the one called N times)
#   TEST  write_lat, write_bw, send_lat, send_bw
#   DEV   rxe*: -x 1 to 127.0.0.1; siw*: -R to 169.254.129.1 (the RDMA CM connects)
# Both sides: -d DEV -F -I 0 -s 2 -n N -p PORT (bandwidth: -t 128 -Q 100). Every client
# gets the same environment (env -i, PATH, LC_ALL=C) and working directory.
# Output, one line each (R the round):
#   I WHAT VALUE...           information (kernel, devices, valgrind)
#   N KEY R IREFS             the client's user-space instructions ("I refs")
#   K KEY R CALLS INCL OB<TAB>FN<TAB>COB<TAB>CFN
#                             the calls from one function to another (callgrind's
#                             names: a function without a symbol is its address in its
#                             object) and their inclusive instructions: every pair of 10
#                             calls or more, every pair into a provider
#                             (lib*-rdmav*.so) or into uverbs' *Cq::take, and those
#                             into the program's own object of 10,000 instructions or
#                             more (the test's loop)
#   S KEY R CALLS INCL SITE OB<TAB>FN<TAB>COB<TAB>CFN
#                             the same for one call site (SITE: the call instruction) of
#                             a poll (a function of a provider, or uverbs' Cq::poll)
#   F KEY R SELF FN           a function's own instructions, 100 or more (pie-u only)
#   J KEY R COUNT ADDR FN     executions of an instruction of the program's own object:
#                             every one of a function that polls (calls a provider's
#                             poll, uverbs' Cq::poll, or the out-of-line copy of a
#                             non-empty poll, uverbs' *Cq::take) or of uverbs'
#                             perf::*, and (write_lat) those run more than 3 N times
#   B KEY R TAKEN EXE SRC TGT FN
#                             a backward jump (TGT at or before SRC: a loop's) of one
#                             of the functions of the J lines: how often it ran and
#                             was taken (callgrind --collect-jumps)
#   E ...                     a failure (the outputs of both sides follow, "E   " lines)
set -u
S=$(cd "$(dirname "$0")" && pwd)
SPEC=$1 RUNS=$2
VG=$S/vg
cd /tmp || exit 1
echo "I kernel $(uname -r)"
echo "I devices ${UVERBS_VM_DEVICES:-}"
echo "I valgrind $(VALGRIND_LIB=$VG $VG/valgrind --tool=callgrind --version 2>&1)"
ENV="env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C"
port=19500

# summary KEY R BUILD N MAIN: the lines K, S, F, J of /tmp/cg.out (MAIN: the client's path)
summary() {
  awk -v key="$1" -v r="$2" -v build="$3" -v n="$4" -v main="$5" '
    /^ob=/ { ob = substr($0, 4); next }
    /^fn=/ { fn = substr($0, 4); cob = ""; next }
    /^cob=/ { cob = substr($0, 5); next }
    /^cfn=/ { cfn = substr($0, 5); next }
    /^calls=/ { split(substr($0, 7), a, " "); co = (cob == "" ? ob : cob); cc = a[1]
      p = ob "\t" fn "\t" co "\t" cfn; c[p] += cc; tomain[p] = (co == main)
      poll = (co ~ /rdmav[0-9]+\.so$/ || cfn ~ /::Cq::poll$/); prov[p] = (poll || cfn ~ /Cq::take$/)
      if ((poll || cfn ~ /Cq::take$/) && ob == main) poller[fn] = 1
      incl = 1; cob = ""; next }
    # a jump (the next line is its source): "jump=COUNT TGT", "jcnd=TAKEN/EXE TGT"
    /^jump=|^jcnd=/ { split($1, a, "="); split(a[2], t, "/"); jt = t[1]; je = (2 in t) ? t[2] : t[1]
      jtg = $2; jmp = 1; next }
    /^0x/ && jmp { jmp = 0
      if (ob == main && (length(jtg) < length($1) || (length(jtg) == length($1) && jtg <= $1))) { q = $1 " " jtg; bt[q] += jt; be[q] += je; bf[q] = fn }
      next }
    /^0x/ { if (incl) { ic[p] += $3; incl = 0   # a call: its inclusive cost
        if (poll) { q = p "\t" $1; sc[q] += cc; si[q] += $3; sp[q] = p; ss[q] = $1 }
        next }
      s[fn] += $3
      if (ob == main) { x[$1] += $3; xf[$1] = fn }
      next }
    END {
      for (k in c) if (c[k] >= 10 || (tomain[k] && ic[k] >= 10000) || prov[k]) print "K", key, r, c[k], ic[k], k
      for (k in sc) print "S", key, r, sc[k], si[k], ss[k], sp[k]
      if (build == "pie-u") for (k in s) if (s[k] >= 100) print "F", key, r, s[k], k
      for (k in x) if ((xf[k] in poller) || xf[k] ~ /^uverbs::perf::/ || (key ~ /write_lat/ && x[k] > 3 * n))
        print "J", key, r, x[k], k, xf[k]
      for (q in bt) if ((bf[q] in poller) || bf[q] ~ /^uverbs::perf::/) print "B", key, r, bt[q], be[q], q, bf[q]
    }' /tmp/cg.out
}

# callgrind R KEY BUILD N PROGRAM ARGS...: the client under callgrind, its lines
callgrind() {
  cr=$1 ckey=$2 cbuild=$3 cn=$4; shift 4
  rm -f /tmp/vg.log /tmp/cg.out
  # shellcheck disable=SC2086 # ENV is words
  $ENV VALGRIND_LIB=$VG timeout 900 $VG/valgrind --tool=callgrind --log-file=/tmp/vg.log \
    --callgrind-out-file=/tmp/cg.out --dump-instr=yes --collect-jumps=yes --compress-strings=no --compress-pos=no \
    "$@" > /tmp/cli.out 2>&1 < /dev/null
  crc=$?
  irefs=$(sed -n 's/.*I *refs: *\([0-9,]*\).*/\1/p' /tmp/vg.log | tr -d ,)
  if [ "$crc" = 0 ] && [ -n "$irefs" ] && [ -s /tmp/cg.out ]; then
    echo "N $ckey $cr $irefs"
    summary "$ckey" "$cr" "$cbuild" "$cn" "$1"
    return 0
  fi
  echo "E $ckey round $cr: client exit status $crc, I refs '${irefs}'"
  sed 's/^/E   client: /' /tmp/cli.out | tail -n 15
  tail -n 5 /tmp/vg.log | sed 's/^/E   valgrind: /'
  return 1
}

# one R KEY BUILD TEST DEV N: one test, the server plain, the client counted
one() {
  r=$1 key=$2 build=$3 test=$4 dev=$5 n=$6
  if [ "$build" = probe ]; then
    callgrind "$r" "$key" "$build" "$n" "$S/c/objects_loops" count "$dev" poll_empty "$n"
    return
  fi
  port=$((port + 1))
  case $dev in
    siw*) how="-R" addr=169.254.129.1 ;;
    *) how="-x 1" addr=127.0.0.1 ;;
  esac
  args="-d $dev $how -F -I 0 -s 2 -n $n -p $port"
  case $test in *_bw) args="$args -t 128 -Q 100" ;; esac
  if [ "$build" = pt ]; then srv=/usr/bin/ib_$test cli=/usr/bin/ib_$test sub=''
  else srv=$S/pie/uverbs cli=$S/$build/uverbs sub="perf $test"; fi
  # shellcheck disable=SC2086 # sub and args are words
  timeout 900 $srv $sub $args > /tmp/srv.out 2>&1 < /dev/null &
  spid=$!
  sleep 1
  # shellcheck disable=SC2086 # sub and args are words
  callgrind "$r" "$key" "$build" "$n" "$cli" $sub $args "$addr"
  ok=$?
  wait "$spid"
  src=$?
  if [ "$src" != 0 ]; then
    echo "E $key round $r: server exit status $src"
    sed 's/^/E   server: /' /tmp/srv.out | tail -n 15
  elif [ "$ok" != 0 ]; then
    sed 's/^/E   server: /' /tmp/srv.out | tail -n 5
  fi
}

lines() { # [rev]
  grep -v '^ *#' "$SPEC" | grep -v '^ *$' |
    if [ "${1:-}" = rev ]; then awk '{ l[NR] = $0 } END { for (i = NR; i > 0; i--) print l[i] }'; else cat; fi
}

r=1
while [ "$r" -le "$RUNS" ]; do
  order=''; [ $((r % 2)) = 0 ] && order=rev
  lines $order > /tmp/round
  while read -r key build test dev n; do
    one "$r" "$key" "$build" "$test" "$dev" "$n"
  done < /tmp/round
  echo "I round $r done"
  r=$((r + 1))
done
echo "I done"
