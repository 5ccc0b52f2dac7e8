// Package rdmasys reads RDMA devices, ports, GID tables, PCIe links and
// counters from sysfs under a configurable root, so tests use a fake tree.
package rdmasys
