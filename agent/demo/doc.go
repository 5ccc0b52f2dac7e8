// Package demo plays rocefab's whole story on an embedded fabric: simulated
// switches on loopback (and, as root, a Linux router and two hosts in
// network namespaces), validate, plan, apply, probe, drift and remediation.
package demo
