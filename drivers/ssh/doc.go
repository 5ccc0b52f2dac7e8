// Package ssh drives CLI switches over SSH with scrapligo. It knows no
// vendor: each platform's devcfg.Dialect (in renderers/<platform>) holds
// its push, commit, rollback and cleanup sequence, error strings and
// scrapligo definition, and runs on this driver's session (transport, host
// keys, redaction, pending/confirm/rollback bookkeeping, the shell lock).
package ssh
