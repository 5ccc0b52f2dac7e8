#!/usr/bin/env bash
# Tear the rocefab lab down: kill what runs inside and delete the namespaces.
set -uo pipefail
[ "$(id -u)" = 0 ] || { echo "down.sh: run as root" >&2; exit 1; }
for n in h1 h2 h3 h4 leaf1 leaf2 spine1; do
  name="rflab-$n"
  ip netns list | grep -qw "$name" || continue
  for pid in $(ip netns pids "$name" 2>/dev/null); do kill "$pid" 2>/dev/null; done
  ip netns del "$name"
done
echo "lab down"
