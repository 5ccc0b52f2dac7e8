package sshsim

import (
	"fmt"
	"strconv"
	"strings"
)

// cmdSpec is one accepted configuration command of a CLI mode.
type cmdSpec struct {
	// prefix ending in a blank takes arguments ("mtu "); otherwise the
	// whole line must equal it ("shutdown").
	prefix string
	// enter is the sub-mode the line opens; empty for a plain line.
	enter string
	// single marks a single-valued line: a new value replaces the old one.
	single bool
	// vlanList marks "switchport trunk allowed vlan": the line edits the
	// stored allowed list (add, remove, except, all, none, or a new list),
	// see editAllowedVLANs.
	vlanList bool
	// defaultOn marks a setting that is on until negated (EOS
	// `switchport`): `no X` is stored and printed, `X` removes that line.
	defaultOn bool
	// valid checks a single-valued line's argument; nil accepts any.
	valid func(arg string) bool
}

// grammar is a CLI's configuration language as data: accepted command
// prefixes per mode, so unknown commands are rejected as a device would.
type grammar map[string][]cmdSpec

// match returns the longest command spec of mode that accepts line.
func (g grammar) match(mode, line string) (cmdSpec, bool) {
	var best cmdSpec
	found := false
	for _, c := range g[mode] {
		ok := false
		if strings.HasSuffix(c.prefix, " ") {
			ok = len(line) > len(c.prefix) && strings.HasPrefix(line, c.prefix)
		} else {
			ok = line == c.prefix
		}
		if ok && (!found || len(c.prefix) > len(best.prefix)) {
			best, found = c, true
		}
	}
	return best, found
}

func leaf(prefixes ...string) []cmdSpec {
	out := make([]cmdSpec, 0, len(prefixes))
	for _, p := range prefixes {
		out = append(out, cmdSpec{prefix: p})
	}
	return out
}

func single(prefixes ...string) []cmdSpec {
	out := make([]cmdSpec, 0, len(prefixes))
	for _, p := range prefixes {
		out = append(out, cmdSpec{prefix: p, single: true})
	}
	return out
}

// numberedSingle is single for prefix formatted with each of 0..n-1.
func numberedSingle(format string, n int) []cmdSpec {
	out := make([]cmdSpec, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, cmdSpec{prefix: fmt.Sprintf(format, i), single: true})
	}
	return out
}

// intRange accepts a decimal integer lo..hi.
func intRange(lo, hi int) func(string) bool {
	return func(arg string) bool {
		n, err := strconv.Atoi(arg)
		return err == nil && n >= lo && n <= hi
	}
}

func enter(prefix, mode string) cmdSpec { return cmdSpec{prefix: prefix, enter: mode} }

// allowedVLANs is the trunk allowed-VLAN command of NX-OS and EOS.
var allowedVLANs = cmdSpec{prefix: allowedVLANPrefix, vlanList: true}

func concat(parts ...[]cmdSpec) []cmdSpec {
	var out []cmdSpec
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// nxosGrammar is the subset of NX-OS configuration the simulator accepts:
// QoS, PFC, VLANs, interfaces and common foreign configuration.
var nxosGrammar = grammar{
	"config": concat(
		[]cmdSpec{
			enter("interface ", "if"),
			enter("class-map type qos match-any ", "cmap-qos"),
			enter("class-map type qos match-all ", "cmap-qos"),
			enter("class-map type qos ", "cmap-qos"),
			enter("class-map match-any ", "cmap-qos"),
			enter("class-map ", "cmap-qos"),
			enter("class-map type queuing ", "cmap-que"),
			enter("class-map type network-qos ", "cmap-nqos"),
			enter("policy-map type qos ", "pmap-qos"),
			enter("policy-map ", "pmap-qos"),
			enter("policy-map type queuing ", "pmap-que"),
			enter("policy-map type network-qos ", "pmap-nqos"),
			enter("system qos", "sys-qos"),
			enter("vlan ", "vlan"),
			enter("line console", "line"),
			enter("line vty", "line"),
			enter("router bgp ", "router"),
			enter("router ospf ", "router"),
			enter("vrf context ", "vrf"),
		},
		single("hostname ", "priority-flow-control watch-dog-interval ", "hardware qos "),
		leaf("feature ", "username ", "ip ", "ipv6 ", "spanning-tree ", "snmp-server ", "ntp ",
			"logging ", "boot ", "copp ", "rmon ", "cdp ", "lldp ", "banner ", "clock ",
			"priority-flow-control ", "qos ", "system ", "vdc ", "ssh ", "callhome", "hardware "),
	),
	"if": concat(
		[]cmdSpec{allowedVLANs},
		single("description ", "mtu ", "switchport mode ",
			"switchport trunk native vlan ", "switchport access vlan ", "priority-flow-control mode ",
			"priority-flow-control watch-dog-interval ", "service-policy type qos input ",
			"service-policy type queuing output ", "service-policy type queuing input ",
			"service-policy input ", "speed ", "duplex ", "channel-group ", "vrf member ",
			"ip address ", "ipv6 address ", "load-interval ", "flowcontrol receive ", "flowcontrol send "),
		leaf("switchport", "shutdown", "lldp ", "cdp ", "ip ", "ipv6 ", "spanning-tree ",
			"priority-flow-control ", "fec ", "negotiate auto", "link debounce ", "storm-control "),
	),
	"cmap-qos":  leaf("match dscp ", "match cos ", "match precedence ", "match protocol ", "match access-group ", "description "),
	"cmap-que":  leaf("match qos-group ", "description "),
	"cmap-nqos": leaf("match qos-group ", "match cos ", "description "),
	"pmap-qos": {
		enter("class ", "pmap-c-qos"),
		{prefix: "description ", single: true},
	},
	"pmap-c-qos": single("set qos-group ", "set cos ", "set dscp ", "set precedence ", "police "),
	"pmap-que": {
		enter("class type queuing ", "pmap-c-que"),
		{prefix: "description ", single: true},
	},
	"pmap-c-que": concat(
		// An input queuing class carries the no-drop pause buffer (Cisco
		// N9K QoS guide, Configuring Priority Flow Control).
		single("priority level ", "bandwidth remaining percent ", "bandwidth percent ", "random-detect ",
			"shape ", "queue-limit ", "afd queue-desired ", "pause buffer-size "),
		leaf("priority"),
	),
	"pmap-nqos": {
		enter("class type network-qos ", "pmap-nqos-c"),
		{prefix: "description ", single: true},
	},
	"pmap-nqos-c": concat(
		single("mtu ", "pause pfc-cos ", "pause buffer-size ", "congestion-control "),
		leaf("pause no-drop", "pause ", "multicast-optimize"),
	),
	"sys-qos": single("service-policy type network-qos ", "service-policy type queuing output ",
		"service-policy type queuing input ", "service-policy type qos input "),
	"vlan":   concat(single("name ", "state "), leaf("shutdown", "vn-segment ")),
	"line":   leaf("exec-timeout ", "session-limit ", "access-class "),
	"router": leaf("router-id ", "neighbor ", "address-family ", "log-neighbor-changes", "bestpath ", "timers "),
	"vrf":    leaf("ip ", "address-family ", "description "),
}

// eosGrammar is the subset of EOS configuration the simulator accepts.
var eosGrammar = grammar{
	"config": concat(
		[]cmdSpec{
			enter("interface ", "if"),
			enter("qos profile ", "qos-profile"),
			enter("vlan ", "vlan"),
			enter("management api http-commands", "mgmt"),
			enter("management ssh", "mgmt"),
			enter("management api gnmi", "mgmt"),
			enter("router bgp ", "router"),
			enter("policy-map type quality-of-service ", "pmap"),
			enter("class-map type qos match-any ", "cmap"),
		},
		single("hostname ", "spanning-tree mode ", "service routing protocols model "),
		// Each code point maps to one traffic class: a new mapping replaces it.
		numberedSingle("qos map dscp %d to traffic-class ", 64),
		numberedSingle("qos map cos %d to traffic-class ", 8),
		leaf("qos map dscp ", "qos map traffic-class ", "qos map cos ", "qos map exp ", "qos rewrite ",
			"username ", "ip ", "ipv6 ", "spanning-tree ", "transceiver ", "service ", "platform ",
			"priority-flow-control ", "dcbx ", "lldp ", "aaa ", "logging ", "ntp ", "snmp-server ",
			"clock ", "banner ", "boot ", "enable ", "daemon ", "queue-monitor ", "hardware ",
			"load-interval ", "errdisable "),
	),
	"if": concat(
		[]cmdSpec{
			enter("uc-tx-queue ", "txq"),
			enter("tx-queue ", "txq"),
			enter("mc-tx-queue ", "txq"),
			allowedVLANs,
		},
		// EOS takes an IP MTU of 68..9214 (9216 is refused; Arista EOS
		// manual, and AVD issue #3619 confirming 9214 as the maximum).
		[]cmdSpec{{prefix: "mtu ", single: true, valid: intRange(68, 9214)}},
		// Ports are switched until `no switchport` (EOS manual; AVD's
		// ethernet-interfaces template renders `no switchport` for routed
		// ports), which the running config then prints.
		[]cmdSpec{{prefix: "switchport", defaultOn: true}},
		single("description ", "switchport mode ",
			"switchport trunk native vlan ", "switchport access vlan ", "service-profile ",
			"qos trust ", "speed ", "channel-group ", "ip address ", "ipv6 address ", "load-interval ",
			"flowcontrol receive ", "flowcontrol send ", "dcbx mode ", "service-policy type qos input ",
			"priority-flow-control mode "),
		leaf("shutdown", "priority-flow-control on", "priority-flow-control priority ",
			"priority-flow-control pause watchdog", "priority-flow-control ", "lldp ", "ip ", "ipv6 ",
			"spanning-tree ", "storm-control ", "error-correction ", "qos "),
	),
	"qos-profile": concat(
		[]cmdSpec{
			enter("uc-tx-queue ", "qos-profile-txq"),
			enter("tx-queue ", "qos-profile-txq"),
			enter("mc-tx-queue ", "qos-profile-txq"),
		},
		single("qos trust ", "qos cos ", "qos dscp ", "shape rate ", "service-policy type qos input "),
		leaf("priority-flow-control on", "priority-flow-control priority ",
			"priority-flow-control pause watchdog", "priority-flow-control "),
	),
	"qos-profile-txq": txqCmds,
	"txq":             txqCmds,
	"vlan":            concat(single("name ", "state "), leaf("trunk group ")),
	"mgmt":            leaf("protocol ", "no shutdown", "shutdown", "transport ", "vrf ", "idle-timeout ", "authentication "),
	"router":          leaf("router-id ", "neighbor ", "network ", "redistribute ", "maximum-paths ", "address-family "),
	"pmap":            {enter("class ", "pmap-c")},
	"pmap-c":          single("set traffic-class ", "set dscp ", "set cos "),
	"cmap":            leaf("match "),
}

var txqCmds = concat(
	single("random-detect ecn minimum-threshold ", "priority ", "bandwidth percent ",
		"bandwidth guaranteed ", "shape rate ", "random-detect drop minimum-threshold "),
	leaf("random-detect ecn count", "no priority"),
)
