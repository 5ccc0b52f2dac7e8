package nxos

import (
	"errors"
	"fmt"
	"strings"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/iosstyle"
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
	if err := checkWrapped(string(raw)); err != nil {
		return nil, err
	}
	t, err := devcfg.ParseIndented(string(raw), "!")
	if err != nil {
		return nil, fmt.Errorf("nxos: running-config: %w", err)
	}
	t.Nodes = renderers.ExpandVLANs(t.Nodes)
	for _, n := range t.Nodes {
		if strings.HasPrefix(n.Line, "interface ") {
			n.Children = iosstyle.TrunkVLANs.Expand(n.Children, switchable(n.Line))
		}
	}
	return &devcfg.Config{Platform: "nxos", Shape: devcfg.ShapeTree, Tree: t}, nil
}

// ErrWrapped marks a running config that a narrow terminal wrapped: a
// continuation would otherwise read as a stray top-level line and the
// line it belongs to as a shorter, wrong one (an allowed list "...,18" and
// a line "12,1882,..." instead of VLAN 1812).
var ErrWrapped = errors.New("running config wrapped by a narrow terminal")

// checkWrapped finds a line that continues the line above it: at column 0
// and starting with a digit, a comma or a hyphen, which no NX-OS command
// does. The driver reads the configuration with a wide terminal; this
// catches the case where that did not hold.
func checkWrapped(text string) error {
	prev, prevNo := "", 0
	banner := "" // the delimiter of a banner being read
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		if banner != "" {
			// Banner text is free text: it may start with anything.
			if strings.Contains(line, banner) {
				banner = ""
			}
			continue
		}
		if rest, ok := strings.CutPrefix(line, "banner "); ok {
			// banner motd #text...# : the delimiter opens and closes it.
			if _, arg, ok := strings.Cut(rest, " "); ok && arg != "" {
				if d := arg[:1]; !strings.Contains(arg[1:], d) {
					banner = d
				}
			}
			continue
		}
		if line != "" && strings.ContainsRune("0123456789,-", rune(line[0])) && prev != "" {
			show := line
			if len(show) > 40 {
				show = show[:40] + "..."
			}
			return fmt.Errorf("nxos: running-config line %d (%q) continues line %d, which a %d-column terminal wrapped: read the configuration with a wider terminal (terminal width 511): %w",
				i+1, show, prevNo, len(prev), ErrWrapped)
		}
		if strings.TrimSpace(line) != "" {
			prev, prevNo = line, i+1
		}
	}
	return nil
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
