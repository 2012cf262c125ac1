#!/usr/bin/env bash
# bisect-history.sh BIN SERIES... - `git bisect run` with scripts/bisect-boot.sh names the
# first bad commit of a synthetic kernel history (issue 25), booting the rig's Debian
# kernel of each SERIES (6.1, 6.12) with BIN, the static uverbs, as the initramfs' program.
#
# There is no kernel tree here, so the history is a small repository whose "build" step
# picks a module tree: commits 1-7 the stock siw.ko, commits 8-12 siw.ko built with
# tests/vm/planted/siw-sys-image-guid-0.sed (QUERY_DEVICE answers sys_image_guid 0), and
# commit 6, the first that bisect tries, one that "does not build" (125, git bisect's
# skip). The bisect must end on commit 8, through a `not ok` of device.query; each
# boot's verdict is printed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=$(realpath "${1:?usage: bisect-history.sh BIN SERIES...}")
shift
[ $# -gt 0 ] || set -- 6.1 6.12
git() { command git -c user.name=bisect -c user.email=bisect@localhost -c init.defaultBranch=main "$@"; }

for series in "$@"; do
  paths=$("$here/rig.sh" --kernel "$series" --kernel-paths)
  img=$(sed -n 1p <<< "$paths") mods=$(sed -n 2p <<< "$paths")
  planted=$("$here/rig.sh" --kernel "$series" --planted "$here/planted/siw-sys-image-guid-0.sed")
  work=$(mktemp -d)
  release=${mods##*/}
  # The two module trees a "build" can give: the stock one and a copy with the planted siw.
  mkdir -p "$work/planted/lib/modules"
  cp -a "$mods" "$work/planted/lib/modules/"
  cp "$planted" "$work/planted/lib/modules/$release/extra/siw.ko"

  repo=$work/history
  git init -q "$repo"
  for i in $(seq 1 12); do
    if [ "$i" = 6 ]; then s=broken; elif [ "$i" -ge 8 ]; then s=planted; else s=stock; fi
    echo "$s" > "$repo/driver"
    echo "$i" > "$repo/version"
    git -C "$repo" add driver version
    git -C "$repo" commit -qm "commit $i: $s"
  done
  first_bad=$(git -C "$repo" rev-parse HEAD~4)

  cat > "$work/build-and-test" <<EOF
#!/usr/bin/env bash
# The "build": the module tree this commit's driver file names; then the verdict.
case \$(cat "$repo/driver") in
  stock) tree=$mods ;;
  planted) tree=$work/planted/lib/modules/$release ;;
  *) echo "build-and-test: does not build"; exit 125 ;;
esac
bash "$root/scripts/bisect-boot.sh" --kernel "$img" --modules "\$tree" --uverbs "$bin" \\
  --timeout 240 -- --create siw > "$work/boot.log" 2>&1
st=\$?
echo "build-and-test: \$(git -C "$repo" log -1 --format=%s): exit \$st, \$(grep -E '^  (not )?ok [0-9]+ device.query' "$work/boot.log" | sed 's/^ *//')"
[ \$st != 1 ] || grep -q '^  not ok [0-9]* device.query' "$work/boot.log" || { cat "$work/boot.log"; exit 128; }
exit \$st
EOF
  chmod +x "$work/build-and-test"
  t0=$(date +%s)
  git -C "$repo" bisect start HEAD HEAD~11 >/dev/null
  git -C "$repo" bisect run "$work/build-and-test" > "$work/bisect.log" 2>&1 || true
  grep '^build-and-test:' "$work/bisect.log"
  found=$(sed -n 's/^\([0-9a-f]\{40\}\) is the first bad commit$/\1/p' "$work/bisect.log")
  if [ "$found" != "$first_bad" ]; then
    cat "$work/bisect.log" >&2
    echo "bisect-history: $series: git bisect run named '${found:-nothing}', not commit 8 ($first_bad)" >&2
    exit 1
  fi
  echo "bisect-history: kernel $series: git bisect run named commit 8, the first with the planted siw, in $(( $(date +%s) - t0 )) s"
  rm -rf "$work"
done
