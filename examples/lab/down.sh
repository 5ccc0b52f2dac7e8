#!/usr/bin/env bash
# Tear the rocefab lab down: kill what runs inside and delete the namespaces
# that ./topology names.
set -uo pipefail
cd "$(dirname "$0")"
[ "$(id -u)" = 0 ] || { echo "down.sh: run as root" >&2; exit 1; }
for n in $(awk '$1 == "node" { $1 = ""; print }' topology); do
  name="rflab-$n"
  ip netns list | grep -qw "$name" || continue
  for pid in $(ip netns pids "$name" 2>/dev/null); do kill "$pid" 2>/dev/null; done
  ip netns del "$name"
done
echo "lab down"
