package eos

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/iosstyle"
)

// Parse reads `show running-config`. "!" separators and comments and the
// final `end` are dropped; grouped map lines ("qos map dscp 24 25 to
// traffic-class 0") and VLAN lists ("vlan 10,100-102") become one line per
// code point or VLAN, the form rocefab renders and owns. An interface's
// allowed-VLAN list becomes one "switchport trunk allowed vlan add N" line
// per VLAN; an Ethernet port or port-channel without a list allows every
// VLAN: "switchport trunk allowed vlan all".
func Parse(raw []byte) (*devcfg.Config, error) {
	t, err := devcfg.ParseIndented(string(raw), "!")
	if err != nil {
		return nil, fmt.Errorf("eos: running-config: %w", err)
	}
	out := make([]*devcfg.Node, 0, len(t.Nodes))
	for _, n := range t.Nodes {
		switch {
		case n.Line == "end":
		case strings.HasPrefix(n.Line, "qos map dscp "), strings.HasPrefix(n.Line, "qos map cos "):
			for _, line := range splitMapLine(n.Line) {
				out = append(out, &devcfg.Node{Line: line})
			}
		default:
			out = append(out, n)
		}
	}
	t.Nodes = renderers.ExpandVLANs(out)
	for _, n := range t.Nodes {
		if strings.HasPrefix(n.Line, "interface ") {
			n.Children = iosstyle.TrunkVLANs.Expand(n.Children, switchable(n.Line))
		}
	}
	return &devcfg.Config{Platform: "eos", Shape: devcfg.ShapeTree, Tree: t}, nil
}

// switchable: Ethernet ports and port-channels have an allowed-VLAN list,
// every VLAN until configured, whatever their mode.
func switchable(iface string) bool {
	name := strings.ToLower(strings.TrimPrefix(iface, "interface "))
	return strings.HasPrefix(name, "ethernet") || strings.HasPrefix(name, "port-channel")
}

// splitMapLine turns "qos map dscp 24 25 to traffic-class 0" into one
// line per code point, keeping what follows the class ("qos map dscp 18 26
// to traffic-class 4 drop-precedence 2" is two lines, each with its drop
// precedence); anything it does not recognise is kept as is.
func splitMapLine(line string) []string {
	f := strings.Fields(line)
	// qos map <field> <v>... to traffic-class <tc> [drop-precedence <dp>]
	to := slices.Index(f, "to")
	if len(f) < 7 || to < 4 || to+2 >= len(f) || f[to+1] != "traffic-class" {
		return []string{line}
	}
	target := strings.Join(f[to:], " ")
	out := make([]string, 0, to-3)
	for _, v := range f[3:to] {
		if _, err := strconv.Atoi(v); err != nil {
			return []string{line}
		}
		out = append(out, "qos map "+f[2]+" "+v+" "+target)
	}
	return out
}

// Normalise restores what EOS hides: the default ` weight 0` at the end of
// `random-detect ecn` lines. It drops the interface defaults that `show
// running-config all` prints and rocefab never renders (a bare
// `switchport`, `switchport mode access`, `switchport access vlan 1`), so
// a device read with `all` shows no change rocefab would remove every
// time. Headers (`! Command: ...`), separators and `end` never reach the
// model.
func Normalise(cfg *devcfg.Config) *devcfg.Config {
	out := cfg.Clone()
	if out.Tree == nil {
		return out
	}
	var walk func(iface bool, ns []*devcfg.Node) []*devcfg.Node
	walk = func(iface bool, ns []*devcfg.Node) []*devcfg.Node {
		kept := ns[:0]
		for _, n := range ns {
			if iface && interfaceDefaults[n.Line] {
				continue
			}
			if strings.HasPrefix(n.Line, "random-detect ecn minimum-threshold ") && !strings.Contains(n.Line, " weight ") {
				n.Line += " weight 0"
			}
			n.Children = walk(!iface && strings.HasPrefix(n.Line, "interface "), n.Children)
			kept = append(kept, n)
		}
		return kept
	}
	out.Tree.Nodes = walk(false, out.Tree.Nodes)
	return out
}

// interfaceDefaults are what an EOS switchport holds until configured;
// `show running-config all` prints them.
var interfaceDefaults = map[string]bool{
	"switchport":               true,
	"switchport mode access":   true,
	"switchport access vlan 1": true,
}
