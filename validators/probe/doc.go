// Package probe proves a RoCEv2 fabric with real RoCEv2 traffic: one endpoint
// per host answers and sends probes, and a pure verdict turns measurements into findings.
package probe
