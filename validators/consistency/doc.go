// Package consistency checks that each host NIC and the switch port it is
// cabled to agree on the lossless settings (trust, DSCP map, PFC, CNP, ECN,
// VLAN, MTU), from desired or read-back host settings. Pure functions.
package consistency
