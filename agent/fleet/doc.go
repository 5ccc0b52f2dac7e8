// Package fleet reaches the fabric's switches and hosts for the CLI and
// the agent alike: the host runner behind plan and apply (in-process for
// this machine and lab namespaces, the host JSON contract over SSH
// otherwise), the probers behind probe and the mesh, switch and host
// counter sources, and reading a planned device. It holds no flags and no
// output: agent/cli parses flags and writes reports, agent/daemon
// schedules; both call this package, so neither keeps a copy of the other.
package fleet
