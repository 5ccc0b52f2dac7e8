// Package doctor runs a host's RoCE preflight checklist (RDMA devices, RoCE
// v2 GIDs, MTU, pause, NUMA/PCIe, modules, tools) and reports each result
// with a plain-language message and the fix.
package doctor
