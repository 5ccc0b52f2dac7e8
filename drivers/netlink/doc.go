// Package netlink manages Linux network settings through the kernel's own
// interfaces: host NIC settings (rtnetlink, DCB netlink, sysfs, configfs,
// ethtool) applied all-or-nothing, and the `linux` switch platform driver
// (transport "netlink") for routers and white-box switches in a namespace.
package netlink
