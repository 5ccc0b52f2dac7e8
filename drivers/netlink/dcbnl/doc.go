// Package dcbnl encodes and decodes the kernel's DCB netlink messages
// (RTM_GETDCB/RTM_SETDCB, include/uapi/linux/dcbnl.h) as pure functions over
// bytes; the socket code lives in drivers/netlink.
package dcbnl
