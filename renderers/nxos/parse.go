package nxos

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/renderers/devcfg"
)

// Parse reads `show running-config`. Comment and header lines starting
// with "!" are skipped; a VLAN list line ("vlan 1,100-102") is expanded to
// one "vlan N" line per VLAN so each can be owned on its own.
func Parse(raw []byte) (*devcfg.Config, error) {
	t, err := devcfg.ParseIndented(string(raw), "!")
	if err != nil {
		return nil, fmt.Errorf("nxos: running-config: %w", err)
	}
	t.Nodes = expandVLANs(t.Nodes)
	return &devcfg.Config{Platform: "nxos", Shape: devcfg.ShapeTree, Tree: t}, nil
}

// maxVLANExpansion bounds the expansion of one VLAN list line.
const maxVLANExpansion = 4094

func expandVLANs(nodes []*devcfg.Node) []*devcfg.Node {
	out := make([]*devcfg.Node, 0, len(nodes))
	byLine := map[string]*devcfg.Node{}
	add := func(n *devcfg.Node) {
		if prev, ok := byLine[n.Line]; ok && strings.HasPrefix(n.Line, "vlan ") {
			prev.Children = append(prev.Children, n.Children...)
			return
		}
		byLine[n.Line] = n
		out = append(out, n)
	}
	for _, n := range nodes {
		list, ok := strings.CutPrefix(n.Line, "vlan ")
		if !ok || !strings.ContainsAny(list, ",-") {
			add(n)
			continue
		}
		ids, ok := vlanList(list)
		if !ok {
			add(n)
			continue
		}
		for _, id := range ids {
			add(&devcfg.Node{Line: "vlan " + strconv.Itoa(id), Children: cloneNodes(n.Children)})
		}
	}
	return out
}

// vlanList expands "1,100-102" to 1 100 101 102.
func vlanList(s string) ([]int, bool) {
	var ids []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 1 || a > 4094 {
			return nil, false
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a || b > 4094 {
				return nil, false
			}
		}
		if len(ids)+(b-a+1) > maxVLANExpansion {
			return nil, false
		}
		for v := a; v <= b; v++ {
			ids = append(ids, v)
		}
	}
	return ids, true
}

func cloneNodes(ns []*devcfg.Node) []*devcfg.Node {
	out := make([]*devcfg.Node, 0, len(ns))
	for _, n := range ns {
		out = append(out, n.Clone())
	}
	return out
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
