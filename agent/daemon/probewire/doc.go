// Package probewire wires the probe mesh (validators/probe/mesh) into the
// agent and keeps what the agent records of a report.
package probewire
