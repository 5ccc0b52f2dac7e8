package devcfg

import (
	"sort"
)

// Classifier says whether a change is traffic-affecting, and why.
type Classifier func(Change) (Disruption, string)

// Diff returns the changes that turn running into desired, in push order:
// additions and modifications in desired order (objects before references
// to them), then removals in reverse running order (references before the
// objects they point at). running must already be filtered to the owned
// scope and normalised (drivers.Running.Owned); desired.Owned decides which
// unmatched running lines may be removed. What a running line or path
// implies (LineOwner.ImpliedBy, Scope.Implied: a trunk that
// allows every VLAN holds the lossless one) is present, and never removed:
// it is a device default, not rocefab's.
func Diff(desired, running *Config, syn Syntax, classify Classifier) []Change {
	var changes []Change
	switch desired.Shape {
	case ShapeTree:
		d := treeDiff{syn: syn, scope: desired.Owned}
		d.walk(nil, desired.Tree.Children(nil), running.Tree.Children(nil))
		changes = append(d.adds, reversed(d.removes)...)
	case ShapePaths:
		changes = pathsDiff(desired.Paths, running.Paths, desired.Owned, syn.Style == StyleStatements)
	case ShapeHost:
		var want, have Paths
		if desired.Host != nil {
			want = desired.Host.Paths()
		}
		if running.Host != nil {
			have = running.Host.Paths()
		}
		changes = pathsDiff(want, have, Scope{}, false)
	}
	if classify != nil {
		for i := range changes {
			changes[i].Disruption, changes[i].Reason = classify(changes[i])
		}
	}
	return changes
}

type treeDiff struct {
	syn     Syntax
	scope   Scope
	adds    []Change
	removes []Change
}

// walk matches children by line key, so sibling order never shows as a
// difference: CLI running configs are order-insensitive within a mode.
func (d *treeDiff) walk(parents []string, want, have []*Node) {
	haveByKey := make(map[string]*Node, len(have))
	for _, n := range have {
		haveByKey[d.syn.LineKey(n.Line)] = n
	}
	matched := make(map[*Node]bool, len(have))
	for _, w := range want {
		h, ok := haveByKey[d.syn.LineKey(w.Line)]
		if !ok && len(w.Children) > 0 && !d.scope.OwnsLine(parents, w.Line) {
			// A context the device may already have (an interface): list the
			// owned lines under it rather than the context as a new block.
			d.walk(append(clone(parents), w.Line), w.Children, nil)
			continue
		}
		if !ok {
			d.adds = append(d.adds, Change{Action: Add, Parents: clone(parents), Path: w.Line, New: w.Line, Block: w.Children})
			continue
		}
		matched[h] = true
		if h.Line != w.Line && len(w.Children) == 0 && len(h.Children) == 0 {
			d.adds = append(d.adds, Change{Action: Modify, Parents: clone(parents), Path: d.syn.LineKey(w.Line), Old: h.Line, New: w.Line})
			continue
		}
		d.walk(append(clone(parents), w.Line), w.Children, h.Children)
	}
	for _, h := range have {
		if matched[h] {
			continue
		}
		if h.Implied {
			continue // a device default, not rocefab's to remove
		}
		if d.scope.OwnsLine(parents, h.Line) {
			d.removes = append(d.removes, Change{Action: Remove, Parents: clone(parents), Path: h.Line, Old: h.Line, Block: h.Children})
			continue
		}
		// A context line kept only for its owned children: remove those,
		// never the context itself (e.g. never `no interface Ethernet1/5`).
		d.walk(append(clone(parents), h.Line), nil, h.Children)
	}
}

// pathsDiff lists additions in path order, removals in reverse. Statement
// platforms (natural true) push in natural order, so a list's entries
// that pair up by position (Junos fill-level with drop-probability) go out
// low before high: "fill-level 5" before "fill-level 20".
func pathsDiff(want, have Paths, scope Scope, natural bool) []Change {
	var adds, removes []Change
	keys := want.Keys
	if natural {
		keys = want.NaturalKeys
	}
	for _, p := range keys() {
		w := want[p]
		h, ok := have[p]
		switch {
		case !ok && scope.PathImplied(p, have):
		case !ok:
			adds = append(adds, Change{Action: Add, Path: p, New: string(w)})
		case h != w:
			adds = append(adds, Change{Action: Modify, Path: p, Old: string(h), New: string(w)})
		}
	}
	for _, p := range have.Keys() {
		if _, ok := want[p]; !ok && !scope.Implies(p) && !scope.PathImplied(p, have) {
			removes = append(removes, Change{Action: Remove, Path: p, Old: string(have[p])})
		}
	}
	sort.SliceStable(removes, func(i, j int) bool {
		if natural {
			return NaturalLess(removes[j].Path, removes[i].Path)
		}
		return removes[i].Path > removes[j].Path
	})
	return append(adds, removes...)
}

func reversed(cs []Change) []Change {
	out := make([]Change, len(cs))
	for i, c := range cs {
		out[len(cs)-1-i] = c
	}
	return out
}

func clone(s []string) []string { return append([]string(nil), s...) }
