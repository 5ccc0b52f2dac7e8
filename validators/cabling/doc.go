// Package cabling checks the cables against the intent from LLDP: every
// intent link is verified, miscabled ("gpu03 ens1f0 reaches leaf2
// Ethernet7; the intent says leaf1 Ethernet7"), missing or unexpected.
// Parsers turn the LLDP neighbour output no one vendor owns (lldpd's
// lldpcli, OpenConfig lldp) into Neighbors; each switch platform registers
// its own parser (renderers.Attributes.LLDP). Classify is a pure function
// of the intent and those neighbours.
// CheckDCBX compares what a port's DCBX neighbour advertises (PFC
// priorities, the APP table's DSCP entries) with the intent of the port.
package cabling
