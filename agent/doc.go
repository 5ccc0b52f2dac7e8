// Package agent holds rocefab's commands and daemon: the CLI in agent/cli,
// the engines behind each verb, agent/fleet (how both reach devices and
// hosts), and the long-running agent.
package agent
