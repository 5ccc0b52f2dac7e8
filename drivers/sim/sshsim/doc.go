// Package sshsim is an in-process SSH CLI switch for tests and `rocefab demo`:
// NX-OS, EOS, Junos, SONiC and Cumulus NVUE personalities with faults.
package sshsim
