#!/usr/bin/env bash
# Bring up the rocefab lab: the two-tier netns fabric that ./topology
# describes (two leaves, two spines with ECMP, four hosts), as namespaces
# rflab-NAME (RFLAB_PREFIX overrides "rflab-"; fabric.yaml names the
# default ones), then starts `rocefab probe serve` in each host namespace
# and says so. With lldpd installed, real LLDP runs in every namespace.
# RFLAB_VARIANT=swapped-cables builds it with h1's and h2's cables swapped
# on leaf1 (h1 on swp2, h2 on swp1), a cabling fault for the LLDP check.
# Run as root. Safe to re-run: it tears the old lab down first.
set -euo pipefail
cd "$(dirname "$0")"
[ "$(id -u)" = 0 ] || { echo "up.sh: run as root (network namespaces need it)" >&2; exit 1; }
./down.sh >/dev/null 2>&1 || true

prefix=${RFLAB_PREFIX:-rflab-}
ns() { ip netns exec "$prefix$1" "${@:2}"; }
case "${RFLAB_VARIANT:-}" in
'' | swapped-cables) ;;
*) echo "up.sh: unknown RFLAB_VARIANT '$RFLAB_VARIANT' (swapped-cables, or unset)" >&2; exit 1 ;;
esac
steps() {
  if [ "${RFLAB_VARIANT:-}" = swapped-cables ]; then
    sed -e 's|^link h1:eth0 leaf1:swp1 |link h1:eth0 leaf1:swp2 |; t' -e 's|^link h2:eth0 leaf1:swp2 |link h2:eth0 leaf1:swp1 |' topology
  else
    cat topology
  fi
}
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
done < <(steps)

# Real LLDP (Debian package lldpd) in every namespace, so each one's
# `lldpcli show neighbors` shows its cabling: each lldpd has its own
# control socket, and sends its node's name (the namespaces share the
# machine's hostname). lldpd reads its configuration before it resumes;
# the name is set after that, then sent at once.
lldp=${RFLAB_LLDP_DIR:-/run/${prefix}lldpd}
nodes=$(awk '$1 == "node" { for (i = 2; i <= NF; i++) print $i }' topology)
if command -v lldpd >/dev/null && command -v lldpcli >/dev/null; then
  mkdir -p "$lldp" && chmod 755 "$lldp" # lldpd's unprivileged half opens the socket too
  for name in $nodes; do
    ns "$name" setsid lldpd -d -u "$lldp/$name.sock" -p "$lldp/$name.pid" >"$lldp/$name.log" 2>&1 </dev/null &
  done
  for name in $nodes; do
    for _ in $(seq 100); do
      grep -q "resume operations" "$lldp/$name.log" 2>/dev/null && break
      sleep 0.1
    done
    grep -q "resume operations" "$lldp/$name.log" || { echo "up.sh: lldpd in $prefix$name did not start:" >&2; cat "$lldp/$name.log" >&2; exit 1; }
    for cmd in "configure system hostname $name" "configure lldp tx-interval 5" "update"; do
      # shellcheck disable=SC2086 # the command's words split on purpose
      ns "$name" lldpcli -u "$lldp/$name.sock" $cmd >/dev/null
    done
  done
  echo "lldpd: runs in every namespace (sockets in $lldp/, e.g. ip netns exec ${prefix}h1 lldpcli -u $lldp/h1.sock show neighbors)"
else
  echo "up.sh: lldpd is not installed (apt-get install lldpd): the lab runs without LLDP" >&2
fi
[ "${RFLAB_VARIANT:-}" = swapped-cables ] && echo "variant swapped-cables: h1 is cabled to leaf1 swp2 and h2 to leaf1 swp1; the intent says swp1 and swp2"

# A probe responder in every host namespace, as every host of a real
# fabric runs one (the DaemonSet or the systemd unit): `rocefab probe`
# needs them. The hosts are fabric.yaml's; each serves with the intent's
# probe settings. ROCEFAB_BIN names the binary (default: rocefab on PATH).
bin=${ROCEFAB_BIN:-$(command -v rocefab || true)}
hosts=$(awk '/^  hosts:/ { h = 1; next } /^  [a-z]+:/ { h = 0 } h && /name:/ { sub(/.*name: */, ""); sub(/[,}].*/, ""); print }' fabric.yaml)
logs=${RFLAB_LOG_DIR:-/tmp/${prefix}lab}
if [ -n "$bin" ]; then
  mkdir -p "$logs"
  for h in $hosts; do
    # setsid: the responder outlives this script; down.sh stops it.
    ns "$h" setsid "$bin" probe serve --intent "$PWD/fabric.yaml" --from "$h" >"$logs/$h.log" 2>&1 </dev/null &
  done
  for h in $hosts; do
    for _ in $(seq 50); do
      grep -q "listening on UDP" "$logs/$h.log" 2>/dev/null && break
      sleep 0.1
    done
    grep -q "listening on UDP" "$logs/$h.log" || { echo "up.sh: the probe responder in $prefix$h did not start:" >&2; cat "$logs/$h.log" >&2; exit 1; }
  done
  echo "probe responders: 'rocefab probe serve' runs in $(for h in $hosts; do printf '%s%s ' "$prefix" "$h"; done)(logs in $logs/)"
else
  echo "up.sh: no rocefab binary (build it: go build -o /usr/local/bin/rocefab ./cmd/rocefab, or set ROCEFAB_BIN);" >&2
  echo "       without it no probe responder runs, and 'rocefab probe' reports no_responder. Start them with:" >&2
  echo "       for n in $hosts; do ip netns exec $prefix\$n rocefab probe serve --intent $PWD/fabric.yaml --from \$n & done" >&2
fi

echo "lab up: $(awk -v p="$prefix" '$1 == "node" { for (i = 2; i <= NF; i++) printf "%s%s ", p, $i }' topology)"
echo "try:"
echo "  rocefab probe examples/lab                  # every host pair, real RoCEv2 through the responders above"
echo "  rocefab plan examples/lab                   # switches via netlink in their namespaces"
echo "  rocefab probe --mesh examples/lab           # probe every fabric link, localize faults"
echo "  sudo examples/lab/down.sh                   # stop the responders, remove the namespaces"
