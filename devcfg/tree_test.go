package devcfg

import (
	"fmt"
	"testing"
)

// TestAddFindsLinesPastTheIndex: once a level has more lines than Add
// scans, it looks them up in an index; the index must follow every way a
// sibling list changes (Add, appends by hand, a filtered or replaced list,
// a line edited in place), or Add would make a second node for a line.
func TestAddFindsLinesPastTheIndex(t *testing.T) {
	const n = 3 * indexAfter
	name := func(i int) string { return fmt.Sprintf("interface Ethernet%d", i) }
	tree := &Tree{}
	nodes := make([]*Node, n)
	for i := range nodes {
		nodes[i] = tree.Add(nil, name(i))
		nodes[i].Add("mtu 9216")
	}
	for i := range nodes {
		if got := tree.Add(nil, name(i)); got != nodes[i] {
			t.Fatalf("%s: a second node", name(i))
		}
	}
	if len(tree.Nodes) != n {
		t.Fatalf("%d top-level lines, want %d", len(tree.Nodes), n)
	}

	// Appended by hand, as parsers do.
	extra := &Node{Line: "interface Ethernet-extra"}
	tree.Nodes = append(tree.Nodes, extra)
	if tree.Add(nil, extra.Line) != extra {
		t.Fatal("a line appended by hand was added again")
	}

	// Filtered to every other line, in place (the backing array is reused).
	kept := tree.Nodes[:0]
	for i, nd := range tree.Nodes {
		if i%2 == 1 {
			kept = append(kept, nd)
		}
	}
	tree.Nodes = kept
	if got := tree.Add(nil, name(1)); got != nodes[1] {
		t.Fatal("a kept line was added again after filtering")
	}
	before := len(tree.Nodes)
	if got := tree.Add(nil, name(0)); got == nodes[0] || len(tree.Nodes) != before+1 {
		t.Fatal("a filtered-out line was found in a stale index")
	}

	// Replaced by another list of the same length.
	other := make([]*Node, len(tree.Nodes))
	for i := range other {
		other[i] = &Node{Line: fmt.Sprintf("vlan %d", i)}
	}
	tree.Nodes = other
	if tree.Add(nil, "vlan 3") != other[3] {
		t.Fatal("a line of the replacing list was added again")
	}

	// Edited in place, then asked for under its old line.
	old := other[5].Line
	other[5].Line = "vlan 5000"
	if got := tree.Add(nil, old); got == other[5] {
		t.Fatal("Add returned a node whose line is no longer the one asked for")
	}

	// Children of one node are indexed the same way (Junos: every port
	// under interfaces).
	ifaces := tree.Add(nil, "interfaces")
	for i := 0; i < n; i++ {
		tree.Add([]string{"interfaces"}, name(i))
	}
	for i := 0; i < n; i++ {
		ifaces.Add(name(i))
	}
	if len(ifaces.Children) != n {
		t.Fatalf("%d lines under interfaces, want %d", len(ifaces.Children), n)
	}
}
