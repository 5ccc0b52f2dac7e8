// Package host renders a host's part of the intent into the NIC settings
// rocefab manages on Linux (NVIDIA ConnectX first, generic DCB otherwise),
// plus the NCCL/UCX settings applications should use.
package host
