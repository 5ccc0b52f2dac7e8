// Package enginetest starts fleets of in-process simulated switches (gnmisim,
// sshsim) with verification on, and writes intents that point at them.
package enginetest
