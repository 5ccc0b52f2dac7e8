#!/usr/bin/env bash
# Tear the rocefab lab down: kill what runs inside and delete the namespaces
# that ./topology names (with up.sh's RFLAB_PREFIX, default "rflab-").
set -uo pipefail
cd "$(dirname "$0")"
[ "$(id -u)" = 0 ] || { echo "down.sh: run as root" >&2; exit 1; }
prefix=${RFLAB_PREFIX:-rflab-}
for n in $(awk '$1 == "node" { $1 = ""; print }' topology); do
  name="$prefix$n"
  ip netns list | grep -qw "$name" || continue
  for pid in $(ip netns pids "$name" 2>/dev/null); do kill "$pid" 2>/dev/null; done
  ip netns del "$name"
done
echo "lab down"
