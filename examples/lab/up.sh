#!/usr/bin/env bash
# Bring up the rocefab lab: a two-tier netns fabric on one machine.
#
#   rflab-h1  rflab-h2        rflab-h3  rflab-h4      hosts (MTU 9000)
#        \      /                  \      /
#      rflab-leaf1              rflab-leaf2           Linux routers (swp1..3)
#               \                /
#                 rflab-spine1                        Linux router (swp1..2)
#
# Every link is a routed /30 from the documentation ranges; routes are
# static. Run as root. Safe to re-run: it tears the old lab down first.
set -euo pipefail
cd "$(dirname "$0")"
[ "$(id -u)" = 0 ] || { echo "up.sh: run as root (network namespaces need it)" >&2; exit 1; }
./down.sh >/dev/null 2>&1 || true

ns() { ip netns exec "rflab-$1" "${@:2}"; }
mk() { ip netns add "rflab-$1"; ns "$1" ip link set lo up; }
# link A IFA B IFB MTU: a veth pair between two namespaces.
link() {
  ip link add rflabtmpa type veth peer name rflabtmpb
  ip link set rflabtmpa netns "rflab-$1"; ip link set rflabtmpb netns "rflab-$3"
  ns "$1" ip link set rflabtmpa name "$2"; ns "$3" ip link set rflabtmpb name "$4"
  ns "$1" ip link set "$2" mtu "$5" up; ns "$3" ip link set "$4" mtu "$5" up
}
addr() { ns "$1" ip addr add "$3" dev "$2"; }

for n in h1 h2 h3 h4 leaf1 leaf2 spine1; do mk "$n"; done
for r in leaf1 leaf2 spine1; do
  ns "$r" sysctl -qw net.ipv4.ip_forward=1
done

# Host links: hosts run MTU 9000, switch ports 9216 once rocefab applies
# the intent (they start at 9000 so the first plan has work to do).
link h1 eth0 leaf1 swp1 9000; addr h1 eth0 192.0.2.2/30;    addr leaf1 swp1 192.0.2.1/30
link h2 eth0 leaf1 swp2 9000; addr h2 eth0 192.0.2.6/30;    addr leaf1 swp2 192.0.2.5/30
link h3 eth0 leaf2 swp1 9000; addr h3 eth0 198.51.100.2/30; addr leaf2 swp1 198.51.100.1/30
link h4 eth0 leaf2 swp2 9000; addr h4 eth0 198.51.100.6/30; addr leaf2 swp2 198.51.100.5/30
# Fabric links.
link leaf1 swp3 spine1 swp1 9000; addr leaf1 swp3 192.0.2.129/30;   addr spine1 swp1 192.0.2.130/30
link leaf2 swp3 spine1 swp2 9000; addr leaf2 swp3 198.51.100.129/30; addr spine1 swp2 198.51.100.130/30

ns h1 ip route add default via 192.0.2.1
ns h2 ip route add default via 192.0.2.5
ns h3 ip route add default via 198.51.100.1
ns h4 ip route add default via 198.51.100.5
ns leaf1 ip route add default via 192.0.2.130
ns leaf2 ip route add default via 198.51.100.130
ns spine1 ip route add 192.0.2.0/25 via 192.0.2.129
ns spine1 ip route add 198.51.100.0/25 via 198.51.100.129

ns h1 ping -c1 -W2 198.51.100.6 >/dev/null
echo "lab up: rflab-{h1,h2,h3,h4,leaf1,leaf2,spine1}; try:"
echo "  rocefab plan examples/lab   # switches via netlink in their namespaces"
