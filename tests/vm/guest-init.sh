#!/bin/sh
# /init of the uverbs test VM (runs as PID 1 under dash; see rig.sh).
#
# Channels:  the console (ttyS0; arm64: ttyAMA0) = kernel console + this script's
#            setup log (the host keeps it in a log file, shows it with --verbose
#            or on failure);
#            the output port RIG_OUT (ttyS1; arm64: the virtio console hvc0, there
#            once the setup loaded its modules) = the command's stdout+stderr
#            between marker lines that carry a per-run nonce, then the exit
#            status.  Nothing else ever writes to it, so console noise cannot mix
#            with test output.
#
# /rig/config (written by rig.sh for each run) sets:
#   RIG_NONCE RIG_RXE RIG_SIW RIG_KERNEL RIG_OUT RIG_MODULES RIG_WAIT RIG_VERBOSE
# /rig/env holds the --env exports, /rig/cmd the command (a shell script).

export PATH=/uverbs:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs tmpfs /run
. /rig/config

OUT=${RIG_OUT:-/dev/ttyS1}
mark() { echo "@@uverbs-vm $RIG_NONCE $*" > "$OUT"; }
now() { cut -d' ' -f1 /proc/uptime; }
say() { echo "rig-guest: [$(now)] $*"; }

# Everything between here and the command goes to the console only.
setup() {
  ip link set lo up || return 1

  # ib_core ib_uverbs rdma_rxe siw dummy + crc modules (+ their
  # dependencies; arm64: the virtio console's too), in one modprobe;
  # /etc/modprobe.d gives dummy numdummies=0 (no stray dummy0).
  modprobe -a $RIG_MODULES || return 1

  # One 'ip -batch' and one 'rdma -b' for all links: starting a process
  # costs milliseconds under TCG, and the scale test has 32 links.
  # rxe<i> sits on dummy rxenet<i> with 169.254.<1+i>.1/24 (IPv4 GID at
  # index 1); siw<i> on its own dummy siwnet<i> with 169.254.<129+i>.1/24.
  : > /run/ip.batch
  : > /run/rdma.batch
  for kind in rxe siw; do
    if [ $kind = rxe ]; then n=$RIG_RXE base=1; else n=$RIG_SIW base=129; fi
    i=0
    while [ $i -lt "$n" ]; do
      nd=${kind}net$i
      printf 'link add %s type dummy\nlink set %s up\naddr add 169.254.%d.1/24 dev %s\n' \
        "$nd" "$nd" $((base + i)) "$nd" >> /run/ip.batch
      echo "link add $kind$i type $kind netdev $nd" >> /run/rdma.batch
      i=$((i + 1))
    done
  done
  if [ -s /run/ip.batch ]; then
    ip -batch /run/ip.batch || return 1
    # The crate's own 'uverbs link add' (RDMA netlink NEWLINK) when the run brought
    # the uverbs binary, else iproute2's rdma tool.
    if [ -x /uverbs/uverbs ]; then
      echo "links created by /uverbs/uverbs link add"
      while read -r _ _ name _ kind _ nd; do
        /uverbs/uverbs link add "$name" type "$kind" netdev "$nd" || return 1
      done < /run/rdma.batch
    else
      echo "links created by rdma -b"
      rdma -b /run/rdma.batch || return 1
    fi
  fi

  # Wait until all devices, their /dev/infiniband/uverbs* nodes, ACTIVE
  # ports, the rxe IPv4 GIDs (index 1) and the output port are there.
  want=$((RIG_RXE + RIG_SIW))
  tries=$((RIG_WAIT * 10))
  while :; do
    missing=''
    [ -e "$OUT" ] || missing="output-port:$OUT"
    cnt=0
    for f in /dev/infiniband/uverbs*; do [ -e "$f" ] && cnt=$((cnt + 1)); done
    [ $cnt = "$want" ] || missing="$missing uverbs-nodes:$cnt/$want"
    for kind in rxe siw; do
      if [ $kind = rxe ]; then n=$RIG_RXE; else n=$RIG_SIW; fi
      i=0
      while [ $i -lt "$n" ]; do
        p=/sys/class/infiniband/$kind$i/ports/1
        st=''
        read -r st 2>/dev/null < "$p/state"
        case $st in *ACTIVE*) ;; *) missing="$missing $kind$i:state=${st:-none}" ;; esac
        if [ $kind = rxe ]; then
          g=''
          read -r g 2>/dev/null < "$p/gids/1"
          case $g in ''|0000:0000:0000:0000:0000:0000:0000:0000) missing="$missing $kind$i:gid1" ;; esac
        fi
        i=$((i + 1))
      done
    done
    [ -z "$missing" ] && return 0
    tries=$((tries - 1))
    if [ $tries -le 0 ]; then
      echo "not ready after ${RIG_WAIT}s:$missing"
      return 1
    fi
    sleep 0.1
  done
}

say "kernel $(uname -r), setting up $RIG_RXE rxe + $RIG_SIW siw"
setup > /run/setup.log 2>&1
ok=$?
stty -F "$OUT" raw -echo 2>/dev/null   # no \n -> \r\n, no echo
if [ $ok = 0 ]; then
  [ "$RIG_VERBOSE" = 1 ] && cat /run/setup.log
  say "ready: $(ls /sys/class/infiniband | tr '\n' ' ')"

  # the command: cwd /uverbs (the added files), env from --env, stdin empty
  mark BEGIN
  (
    cd /uverbs || exit 1
    . /rig/env
    exec /bin/sh /rig/cmd
  ) < /dev/null > "$OUT" 2>&1
  rc=$?
  # (if the output did not end with a newline, the host finds the END
  # marker in the middle of the last line)
  mark "END status=$rc"
  say "command exited with status $rc"

  # kernel warnings/oopses in this boot: tell the host (it fails the run). A test that
  # causes one on purpose brackets it with the lines "uverbs-vm: expected splat begin"
  # and "uverbs-vm: expected splat end" written to /dev/kmsg; what lies between is not
  # counted. (x86 writes "Call Trace:", arm64 "Call trace:".) The check needs the whole
  # boot's log: a ring that wrapped has dropped the oldest records, maybe a warning or
  # the begin line of an expected one (which turns the expected warning into a failure:
  # seen once, with Debian's 128 KiB ring). The rig boots with log_buf_len=64M; should
  # that not be enough, the first record's sequence number is not 0 and that fails too.
  # (rxe's QUERY_PORT logs a line per call on a dummy netdev: a test that loops on it
  # floods the log.) A user process's crash is not the kernel's: x86 reports the SIGSEGV
  # it sends for a general protection fault in user mode on one line, "traps:
  # COMM[PID] general protection fault ip:... in LIB" (arch/x86/kernel/traps.c,
  # show_signal), which is not counted (perftest's client crashes so in librdmacm when
  # siw refuses its connection); the kernel's own ("general protection fault, probably
  # for non-canonical address ...", then its call trace) still is.
  first=$(awk 'NR == 1 { print; exit }' /dev/kmsg)   # "prio,seq,usec,flags;text"
  seq=${first#*,}; seq=${seq%%,*}
  dmesg | awk '/uverbs-vm: expected splat begin/ { skip = 1 }
               / traps: [^ ]+\[[0-9]+\] general protection fault ip:/ { next }
               !skip { print }
               /uverbs-vm: expected splat end/ { skip = 0 }' > /run/dmesg.checked
  say "kernel log: $(wc -l < /run/dmesg.checked) lines checked for warnings"
  if [ "$seq" != 0 ]; then
    echo "@@uverbs-vm $RIG_NONCE KERNEL-SPLAT"
    echo "the kernel log wrapped: its oldest record is number ${seq:-(unreadable)}, the" \
      "ones before it are lost, so this boot's warnings cannot all be checked; the" \
      "lines it holds most often:"
    sed 's/^\[[^]]*\] //' /run/dmesg.checked | sort | uniq -c | sort -rn | head -n 5
  elif grep -qE 'WARNING:|BUG:|Oops|Call [Tt]race|general protection' /run/dmesg.checked; then
    echo "@@uverbs-vm $RIG_NONCE KERNEL-SPLAT"
    grep -E -A 20 'WARNING:|BUG:|Oops|Call [Tt]race|general protection' /run/dmesg.checked | head -n 80
  fi
else
  echo "rig-guest: RDMA setup FAILED; setup log:"
  cat /run/setup.log
  echo "rig-guest: dmesg tail:"
  dmesg | tail -n 40
  mark SETUP-FAILED
fi
sync
poweroff -f
