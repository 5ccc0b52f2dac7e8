// Package linux renders the `linux` switch platform (a Linux router or
// white-box switch, managed through netlink) as paths, and parses what the
// device prints back.
//
// Path forms (the netlink driver's Fetch produces the same):
//
//	/interfaces/<ifname>/mtu = 9216          L3 MTU, a JSON number
//	/sysctl/<key> = "1"                      sysctl(8) key, a JSON string
//
// Keys use dots (net.ipv4.ip_forward); a key with a dotted part (eth0.100)
// is written with slashes (net/ipv4/conf/eth0.100/forwarding).
//
// The MTU ceiling is 9216, the jumbo maximum of switch ASICs; veth accepts
// up to 65535, but rocefab keeps lab routers at what real switches take.
// sources.go (Sources) cites the kernel documentation of each path form;
// renderers/all fails on a rendered path no form cites.
// PFC, ECN marking and DSCP classification are not rendered: the kernel
// forwards in software and has no lossless queues.
package linux
