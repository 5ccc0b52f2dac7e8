// Package ssh drives CLI switches over SSH with scrapligo: NX-OS checkpoints,
// EOS sessions, Junos commit confirmed, NVUE apply --confirm, SONiC patches.
package ssh
