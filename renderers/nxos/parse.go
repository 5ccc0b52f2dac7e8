package nxos

import (
	"fmt"
	"strings"

	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/devcfg"
)

// Parse reads `show running-config`. Comment and header lines starting
// with "!" are skipped; a VLAN list line ("vlan 1,100-102") is expanded to
// one "vlan N" line per VLAN so each can be owned on its own. An
// interface's allowed-VLAN list (one line, or a first line and "switchport
// trunk allowed vlan add ..." continuation lines for a long list) becomes
// one "switchport trunk allowed vlan add N" line per VLAN; an Ethernet port
// or port-channel without a list allows every VLAN: "switchport trunk
// allowed vlan all".
func Parse(raw []byte) (*devcfg.Config, error) {
	t, err := devcfg.ParseIndented(string(raw), "!")
	if err != nil {
		return nil, fmt.Errorf("nxos: running-config: %w", err)
	}
	t.Nodes = renderers.ExpandVLANs(t.Nodes)
	for _, n := range t.Nodes {
		if strings.HasPrefix(n.Line, "interface ") {
			n.Children = trunkVLANs.Expand(n.Children, switchable(n.Line))
		}
	}
	return &devcfg.Config{Platform: "nxos", Shape: devcfg.ShapeTree, Tree: t}, nil
}

// switchable: Ethernet ports and port-channels have an allowed-VLAN list,
// every VLAN until configured, whatever their mode.
func switchable(iface string) bool {
	name := strings.ToLower(strings.TrimPrefix(iface, "interface "))
	return strings.HasPrefix(name, "ethernet") || strings.HasPrefix(name, "port-channel")
}

// Normalise drops the headers NX-OS prints (`version`, `hostname`, `!`
// comments are already gone) and `no shutdown` under interfaces, and makes
// the implied `switchport` explicit: on switches whose ports default to
// layer 2 NX-OS does not print it, although `switchport mode` proves it.
func Normalise(cfg *devcfg.Config) *devcfg.Config {
	out := cfg.Clone()
	if out.Tree == nil {
		return out
	}
	kept := out.Tree.Nodes[:0]
	for _, n := range out.Tree.Nodes {
		if strings.HasPrefix(n.Line, "version ") || strings.HasPrefix(n.Line, "hostname ") || n.Line == "end" {
			continue
		}
		if strings.HasPrefix(n.Line, "interface ") {
			normaliseInterface(n)
		}
		kept = append(kept, n)
	}
	out.Tree.Nodes = kept
	return out
}

func normaliseInterface(n *devcfg.Node) {
	hasSwitchport, switched := false, false
	kids := n.Children[:0]
	for _, c := range n.Children {
		switch {
		case c.Line == "no shutdown":
			continue
		case c.Line == "switchport":
			hasSwitchport = true
		case strings.HasPrefix(c.Line, "switchport mode "):
			switched = true
		}
		kids = append(kids, c)
	}
	n.Children = kids
	if switched && !hasSwitchport {
		n.Children = append([]*devcfg.Node{{Line: "switchport"}}, n.Children...)
	}
}
