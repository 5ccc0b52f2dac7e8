#!/usr/bin/env bash
# Tear the rocefab lab down: stop what runs inside (the probe responders
# and lldpd up.sh started) and delete the namespaces that ./topology names (with
# up.sh's RFLAB_PREFIX, default "rflab-").
set -uo pipefail
cd "$(dirname "$0")"
[ "$(id -u)" = 0 ] || { echo "down.sh: run as root" >&2; exit 1; }
prefix=${RFLAB_PREFIX:-rflab-}
for n in $(awk '$1 == "node" { $1 = ""; print }' topology); do
  name="$prefix$n"
  ip netns list | grep -qw "$name" || continue
  pids=$(ip netns pids "$name" 2>/dev/null)
  for pid in $pids; do kill "$pid" 2>/dev/null; done
  for pid in $pids; do
    for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null
  done
  ip netns del "$name"
done
rm -rf "${RFLAB_LOG_DIR:-/tmp/${prefix}lab}" "${RFLAB_LLDP_DIR:-/run/${prefix}lldpd}"
echo "lab down"
