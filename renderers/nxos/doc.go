// Package nxos renders the lossless RoCE configuration of Cisco Nexus 9000
// switches as an NX-OS CLI tree, and parses `show running-config` back.
package nxos
