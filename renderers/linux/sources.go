package linux

import "github.com/rocefab/rocefab/renderers"

// Sources of the settings this renderer writes (Attributes.Sources;
// renderers/all tests that every rendered path matches one form): the
// kernel's own documentation of what the netlink driver sets.
const (
	srcMTU        = "Linux rtnetlink(7) RTM_NEWLINK IFLA_MTU (what ip-link(8) `ip link set dev IF mtu N` sends); Documentation/networking/netdevices.rst (MTU: the L3 payload, without the Ethernet header)"
	srcForwarding = "Linux Documentation/networking/ip-sysctl.rst (net.ipv4.ip_forward: forward packets between interfaces; net.ipv6.conf.all.forwarding: IPv6 forwarding on all interfaces); sysctl(8)"
)

// Sources are the sources of every path form.
var Sources = renderers.Sourced(
	`/interfaces/[A-Za-z0-9][A-Za-z0-9_.-]{0,14}/mtu`, srcMTU,
	`/sysctl/(net\.ipv4\.ip_forward|net\.ipv6\.conf\.all\.forwarding)`, srcForwarding,
)
