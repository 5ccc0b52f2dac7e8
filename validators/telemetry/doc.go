// Package telemetry turns streams of switch and NIC counters into lossless
// findings (PFC storms, pause spreading upstream, drops on the no-drop
// priority, ECN without CNPs, ignored CNPs, RoCE on a lossy queue,
// retransmissions), tied to the intent's policy and cabling. It is pure:
// time comes only from the samples, so the same stream always gives the
// same findings.
package telemetry
