// Package fabriclab builds a fabric described as topology steps (the
// format of examples/lab/topology) in throwaway network namespaces, and
// injects faults into its routers with nftables and iproute2.
//
// Node names in the steps (h1, leaf1) stay the names tests use; the
// namespaces get unique names from internal/netnstest and are always
// removed.
package fabriclab
