#!/bin/sh
# guest.sh - the part of bench/run.sh that runs inside the VM (dash, as root).
#
# Usage: sh /bench/guest.sh MODE ROUNDS BATCHES SCALE RUNS
#   MODE small: every loop on every device, cold starts, the allocation test, the
#               whole-process timings and the criterion device bench;
#   MODE scale: (many devices) discovery + open + first query, warm and cold, the
#               whole-process timings, and system-call counts (strace -c) when
#               /bench/strace is there.
#   ROUNDS x BATCHES batches per loop: each round runs both programs, alternating
#   which goes first, so that a slow spell of the shared host hits both alike.
#   SCALE multiplies the loops' iteration counts; RUNS is the number of runs of each
#   whole-process command and of each cold start.
# Output: the programs' result lines (R, C, P, M, F, E; see bench/run.sh) and I lines
# (information), A lines (allocation test), crit: lines (criterion), S lines (strace -c:
# "S LABEL CALLS SYSCALL ERRORS", the last one "S LABEL CALLS total ERRORS").
set -u
B=/bench
MODE=$1 ROUNDS=$2 BATCHES=$3 SCALE=$4 RUNS=$5
# (the rig exports UVERBS_VM_DEVICES; other rigs: every device there is)
: "${UVERBS_VM_DEVICES:=$(ls /sys/class/infiniband | tr '\n' ',' | sed 's/,$//')}"
DEVS=$(echo "$UVERBS_VM_DEVICES" | tr ',' ' ')
FIRST=${DEVS%% *}
up() { cut -d' ' -f1 /proc/uptime; }
phase() { echo "I phase $1 at $(up)s"; }

echo "I kernel $(uname -r)"
echo "I cpu $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
echo "I cpus $(grep -c '^processor' /proc/cpuinfo)"
echo "I mem_kb $(awk '/MemTotal/ { print $2 }' /proc/meminfo)"
echo "I devices $UVERBS_VM_DEVICES"
echo "I ndevices $(ls /sys/class/infiniband | wc -l)"
echo "I uverbs_bin $([ -x $B/uverbs ] && echo yes || echo no)"
# how the rig created the links (its guest-init: 'uverbs link add' when /uverbs/uverbs
# is there, else iproute2's rdma)
echo "I links $(grep -m1 '^links created by' /run/setup.log 2>/dev/null | sed 's/^links created by //')"

if [ "$MODE" = small ]; then
  phase alloc
  if [ -x $B/alloc ]; then
    UVERBS_TEST_DEVICES=$UVERBS_VM_DEVICES $B/alloc --include-ignored --test-threads=1 2>&1 |
      sed 's/^/A /'
  else
    echo "A pending (test binary not built)"
  fi

  phase loops
  r=1
  while [ $r -le "$ROUNDS" ]; do
    for d in $DEVS; do
      if [ $((r % 2)) = 1 ]; then
        $B/bench_loops loops "$d" "$BATCHES" "$SCALE" || echo "E loops-uverbs $d failed"
        $B/ibv_loops loops "$d" "$BATCHES" "$SCALE" || echo "E loops-libibverbs $d failed"
      else
        $B/ibv_loops loops "$d" "$BATCHES" "$SCALE" || echo "E loops-libibverbs $d failed"
        $B/bench_loops loops "$d" "$BATCHES" "$SCALE" || echo "E loops-uverbs $d failed"
      fi
    done
    r=$((r + 1))
  done
else
  SCALE_OPS=disc,disc_one,disc_details,disc_open_query,disc_all_open_query,lean_open_query,open_close,gid_scan
  phase loops
  r=1
  while [ $r -le "$ROUNDS" ]; do
    if [ $((r % 2)) = 1 ]; then
      $B/bench_loops loops "$FIRST" "$BATCHES" "$SCALE" $SCALE_OPS || echo "E loops-uverbs failed"
      $B/ibv_loops loops "$FIRST" "$BATCHES" "$SCALE" $SCALE_OPS || echo "E loops-libibverbs failed"
    else
      $B/ibv_loops loops "$FIRST" "$BATCHES" "$SCALE" $SCALE_OPS || echo "E loops-libibverbs failed"
      $B/bench_loops loops "$FIRST" "$BATCHES" "$SCALE" $SCALE_OPS || echo "E loops-uverbs failed"
    fi
    r=$((r + 1))
  done
fi

phase cold
# bench_loops_fixed: bench_loops linked at a fixed address (the build before issue 31),
# its keys renamed uverbs -> uverbs-fixed
cold_fixed() {
  if [ -x $B/bench_loops_fixed ]; then
    $B/bench_loops_fixed cold "$FIRST" | sed 's/^C uverbs /C uverbs-fixed /' || echo "E cold-uverbs-fixed failed"
  fi
}
# cold_aa: the rig's own spread (A/A), libibverbs' cold start again as a second peer,
# its keys renamed libibverbs -> libibverbs-aa (taking turns with the first)
cold_aa() { $B/ibv_loops cold "$FIRST" | sed 's/^C libibverbs /C libibverbs-aa /' || echo "E cold-libibverbs-aa failed"; }
i=1
while [ $i -le "$RUNS" ]; do
  if [ $((i % 2)) = 1 ]; then
    $B/bench_loops cold "$FIRST" || echo "E cold-uverbs failed"
    $B/ibv_loops cold "$FIRST" || echo "E cold-libibverbs failed"
    cold_aa
    cold_fixed
  else
    cold_fixed
    cold_aa
    $B/ibv_loops cold "$FIRST" || echo "E cold-libibverbs failed"
    $B/bench_loops cold "$FIRST" || echo "E cold-uverbs failed"
  fi
  $B/bench_loops cold-all "$FIRST" || echo "E cold-all-uverbs failed"
  $B/bench_loops cold-lean "$FIRST" || echo "E cold-lean-uverbs failed"
  i=$((i + 1))
done

# The same first answers with address-space randomisation off: QEMU's TCG (7.2) keys its
# translated code by virtual address, so with ASLR every process translates its code
# anew; with the addresses fixed, translations made by earlier processes are reused,
# which leaves roughly what real hardware pays. Keys renamed *_cold -> *_noaslr.
if [ -w /proc/sys/kernel/randomize_va_space ]; then
  phase cold-noaslr
  aslr=$(cat /proc/sys/kernel/randomize_va_space)
  echo 0 > /proc/sys/kernel/randomize_va_space
  i=1
  while [ $i -le "$RUNS" ]; do
    {
      if [ $((i % 2)) = 1 ]; then
        $B/bench_loops cold "$FIRST" once || echo "E cold-noaslr-uverbs failed"
        $B/ibv_loops cold "$FIRST" once || echo "E cold-noaslr-libibverbs failed"
      else
        $B/ibv_loops cold "$FIRST" once || echo "E cold-noaslr-libibverbs failed"
        $B/bench_loops cold "$FIRST" once || echo "E cold-noaslr-uverbs failed"
      fi
      $B/bench_loops cold-all "$FIRST" once || echo "E cold-noaslr-all-uverbs failed"
      $B/bench_loops cold-lean "$FIRST" once || echo "E cold-noaslr-lean-uverbs failed"
    } | sed 's/_cold /_noaslr /'
    i=$((i + 1))
  done
  echo "$aslr" > /proc/sys/kernel/randomize_va_space
fi

phase process
# spawn_floor: a static Rust program that exits at once; true_floor: a static C `true`
# (musl), the least a process costs
# first_answer: a whole process that discovers, opens and queries one port (the cold
# programs above, timed from spawn to exit: libibverbs' dynamic loading included)
# fixed_*: the CLI linked at a fixed address (-C relocation-model=static, ET_EXEC: the
# shipped file before issue 31), for reference; the shipped uverbs is a static PIE
set -- "ibv_devinfo_v=/usr/bin/ibv_devinfo -v" "ibv_devinfo=/usr/bin/ibv_devinfo" "ibv_devices=/usr/bin/ibv_devices" \
  "spawn_floor=$B/bench_proc --noop" \
  "uverbs_first_answer=$B/bench_loops cold $FIRST once" "ibv_first_answer=$B/ibv_loops cold $FIRST once"
[ -x $B/true ] && set -- "$@" "true_floor=$B/true"
# the rig's own spread (A/A): the peers of the targets again, under a second label
set -- "$@" "ibv_devices_aa=/usr/bin/ibv_devices" "ibv_devinfo_v_aa=/usr/bin/ibv_devinfo -v"
if [ -x $B/uverbs ]; then
  set -- "uverbs_devinfo_v=$B/uverbs devinfo -v" "uverbs_devinfo=$B/uverbs devinfo" \
    "uverbs_devinfo_json=$B/uverbs devinfo --json" "$@" \
    "uverbs_devices=$B/uverbs devices" "uverbs_devices_json=$B/uverbs devices --json"
  # the outputs, for the record: same devices, same lines?
  echo "I lines ibv_devinfo_v $(/usr/bin/ibv_devinfo -v 2>&1 | wc -l) uverbs_devinfo_v $($B/uverbs devinfo -v 2>&1 | wc -l)"
  echo "I lines ibv_devices $(/usr/bin/ibv_devices 2>&1 | wc -l) uverbs_devices $($B/uverbs devices 2>&1 | wc -l)"
fi
[ -x $B/bench_loops_fixed ] && set -- "$@" "fixed_first_answer=$B/bench_loops_fixed cold $FIRST once"
if [ -x $B/uverbs_fixed ]; then
  set -- "$@" "fixed_devinfo_v=$B/uverbs_fixed devinfo -v" "fixed_devinfo=$B/uverbs_fixed devinfo" \
    "fixed_devinfo_json=$B/uverbs_fixed devinfo --json" \
    "fixed_devices=$B/uverbs_fixed devices" "fixed_devices_json=$B/uverbs_fixed devices --json"
fi
if [ -x $B/rusage ]; then RSS="--rss-helper $B/rusage"; else RSS="--busybox /bin/busybox"; fi
$B/bench_proc --runs "$RUNS" --rss-runs 3 $RSS "$@"
# the commands again with ASLR off (see cold-noaslr above): labels *_noaslr
if [ "$MODE" = scale ] && [ -w /proc/sys/kernel/randomize_va_space ]; then
  aslr=$(cat /proc/sys/kernel/randomize_va_space)
  echo 0 > /proc/sys/kernel/randomize_va_space
  set -- "ibv_devinfo_v=/usr/bin/ibv_devinfo -v" "ibv_devinfo=/usr/bin/ibv_devinfo" "ibv_devices=/usr/bin/ibv_devices" \
    "spawn_floor=$B/bench_proc --noop"
  [ -x $B/true ] && set -- "$@" "true_floor=$B/true"
  [ -x $B/uverbs ] && set -- "uverbs_devinfo_v=$B/uverbs devinfo -v" "uverbs_devinfo=$B/uverbs devinfo" \
    "uverbs_devinfo_json=$B/uverbs devinfo --json" "uverbs_devices=$B/uverbs devices" \
    "uverbs_devices_json=$B/uverbs devices --json" "$@"
  $B/bench_proc --runs "$RUNS" --rss-runs 0 "$@" | sed 's/^\([PE]\) \([^ ]*\)/\1 \2_noaslr/'
  echo "$aslr" > /proc/sys/kernel/randomize_va_space
fi

# System calls per command (strace -c; counts are exact, strace's times are not used).
if [ -x $B/strace ]; then
  phase strace
  sc() { # LABEL COMMAND...
    l=$1; shift
    if $B/strace -f -c -o /tmp/strace.$l "$@" > /dev/null 2>&1; then
      # "% time seconds usecs/call calls [errors] syscall"; the total line last
      awk -v l="$l" '$1 ~ /^[0-9.]+$/ && NF >= 5 { print "S", l, $4, $NF, (NF == 6 ? $5 : 0) }' /tmp/strace.$l
    else
      echo "E strace-$l failed"
    fi
  }
  if [ -x $B/uverbs ]; then
    sc uverbs_devinfo_v $B/uverbs devinfo -v
    sc uverbs_devinfo_json $B/uverbs devinfo --json
    sc uverbs_devices $B/uverbs devices
    sc uverbs_devices_json $B/uverbs devices --json
  fi
  sc ibv_devinfo_v /usr/bin/ibv_devinfo -v
  sc ibv_devices /usr/bin/ibv_devices
  sc uverbs_first_answer $B/bench_loops cold "$FIRST" once
  sc uverbs_first_answer_all $B/bench_loops cold-all "$FIRST" once
  sc ibv_first_answer $B/ibv_loops cold "$FIRST" once
fi

if [ "$MODE" = small ]; then
  phase criterion
  if [ -x $B/device ]; then
    UVERBS_TEST_DEVICES=$UVERBS_VM_DEVICES CRITERION_HOME=/tmp/criterion \
      $B/device --bench --noplot --color never 2>&1 | sed 's/^/crit: /'
  else
    echo "crit: pending (the device bench is not built)"
  fi
fi
phase end
