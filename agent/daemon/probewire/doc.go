// Package probewire wires the RoCEv2 probe library (validators/probe) into
// the agent: it probes from this host to the hosts the agent owns.
package probewire
