#!/usr/bin/env bash
# Bring up the rocefab lab: the two-tier netns fabric that ./topology
# describes (two leaves, two spines with ECMP, four hosts), as namespaces
# rflab-NAME (RFLAB_PREFIX overrides "rflab-"; fabric.yaml names the
# default ones). Run as root. Safe to re-run: it tears the old lab down
# first.
set -euo pipefail
cd "$(dirname "$0")"
[ "$(id -u)" = 0 ] || { echo "up.sh: run as root (network namespaces need it)" >&2; exit 1; }
./down.sh >/dev/null 2>&1 || true

prefix=${RFLAB_PREFIX:-rflab-}
ns() { ip netns exec "$prefix$1" "${@:2}"; }
n=0
while read -r verb rest; do
  n=$((n + 1))
  case "$verb" in
  '' | '#'*) ;;
  node)
    for name in $rest; do
      ip netns add "$prefix$name"
      ns "$name" ip link set lo up
    done ;;
  link)
    # A:IFACE B:IFACE MTU: the pair is made in A with its peer placed
    # straight into B, so no name ever exists in the root namespace.
    read -r a b mtu <<<"$rest"
    ip -n "$prefix${a%%:*}" link add "${a#*:}" type veth peer name "${b#*:}" netns "$prefix${b%%:*}"
    for end in "$a" "$b"; do
      ns "${end%%:*}" ip link set "${end#*:}" mtu "$mtu" up
    done ;;
  *)
    IFS=, read -ra nodes <<<"$verb"
    for name in "${nodes[@]}"; do
      # shellcheck disable=SC2086 # the command's words split on purpose
      ns "$name" $rest || { echo "up.sh: topology line $n failed: $verb $rest" >&2; exit 1; }
    done ;;
  esac
done <topology

if command -v ping >/dev/null; then
  ns h1 ping -c1 -W2 198.51.100.6 >/dev/null
fi
echo "lab up: $(awk -v p="$prefix" '$1 == "node" { for (i = 2; i <= NF; i++) printf "%s%s ", p, $i }' topology)"
echo "try:"
echo "  rocefab plan examples/lab                   # switches via netlink in their namespaces"
echo "  for n in h1 h2 h3 h4; do ip netns exec $prefix\$n rocefab probe serve & done"
echo "  rocefab probe --mesh examples/lab           # probe every fabric link, localize faults"
