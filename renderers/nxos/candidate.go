package nxos

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/renderers/iosstyle"
)

// ErrNoCandidate: the whole configuration a `configure replace` needs
// cannot be built faithfully from this running configuration (a form the
// model does not write back exactly, a change that does not fit it). The
// push then types its lines instead.
var ErrNoCandidate = errors.New("no replace candidate")

// Candidate is the file `configure replace` takes: the running
// configuration raw (`show running-config`) with changes applied, written
// as NX-OS prints it. Everything rocefab does not own stays as the device
// printed it. Two guards keep it honest: the model written back unchanged
// must reproduce raw line for line (so nothing rocefab cannot express is
// lost or altered), and the candidate read back must hold exactly the
// changed model.
func Candidate(raw string, changes []devcfg.Change) (string, error) {
	if len(changes) == 0 {
		return "", fmt.Errorf("%w: the push names no changes", ErrNoCandidate)
	}
	printed, err := devcfg.ParseIndented(raw, "!")
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNoCandidate, err)
	}
	cfg, err := Parse([]byte(raw))
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNoCandidate, err)
	}
	if got, want := writeModel(cfg.Tree), printed.Text(2); got != want {
		return "", fmt.Errorf("%w: the running configuration holds a form rocefab does not write back exactly (%s)", ErrNoCandidate, firstDifference(got, want))
	}
	tree := cfg.Tree.Clone()
	for _, c := range changes {
		if err := applyChange(tree, c); err != nil {
			return "", fmt.Errorf("%w: %s %s: %v", ErrNoCandidate, c.Action.Symbol(), c.Where(), err)
		}
	}
	text := writeModel(tree)
	back, err := Parse([]byte(text))
	if err != nil {
		return "", fmt.Errorf("%w: the candidate does not read back: %v", ErrNoCandidate, err)
	}
	if !slices.Equal(flatLines(back.Tree), flatLines(tree)) {
		return "", fmt.Errorf("%w: the candidate reads back as another configuration", ErrNoCandidate)
	}
	return text, nil
}

// applyChange applies one change to the model as typing its lines would.
func applyChange(t *devcfg.Tree, c devcfg.Change) error {
	siblings := &t.Nodes
	for _, p := range c.Parents {
		i := slices.IndexFunc(*siblings, func(n *devcfg.Node) bool { return n.Line == p })
		if i < 0 {
			if c.Action == devcfg.Remove {
				return fmt.Errorf("no %q on the device", p)
			}
			*siblings = append(*siblings, &devcfg.Node{Line: p})
			i = len(*siblings) - 1
		}
		siblings = &(*siblings)[i].Children
	}
	switch c.Action {
	case devcfg.Add:
		n := &devcfg.Node{Line: c.New}
		if i := slices.IndexFunc(*siblings, func(s *devcfg.Node) bool { return s.Line == c.New }); i >= 0 {
			n = (*siblings)[i]
		} else if i := noneLine(*siblings, c.New); i >= 0 {
			(*siblings)[i] = n // a VLAN added to an empty list
		} else {
			*siblings = append(*siblings, n)
		}
		for _, b := range c.Block {
			merge(n, b)
		}
	case devcfg.Modify:
		i := slices.IndexFunc(*siblings, func(s *devcfg.Node) bool { return s.Line == c.Old })
		if i < 0 {
			return fmt.Errorf("no %q on the device", c.Old)
		}
		(*siblings)[i].Line = c.New
	case devcfg.Remove:
		i := slices.IndexFunc(*siblings, func(s *devcfg.Node) bool { return s.Line == c.Old })
		if i < 0 {
			return fmt.Errorf("no %q on the device", c.Old)
		}
		if isMember(c.Old) && countMembers(*siblings) == 1 {
			// Removing the last VLAN leaves an empty list, as `switchport
			// trunk allowed vlan remove N` does; no list at all would
			// allow every VLAN.
			(*siblings)[i] = &devcfg.Node{Line: iosstyle.TrunkVLANs.None}
			return nil
		}
		*siblings = slices.Delete(*siblings, i, i+1)
	default:
		return fmt.Errorf("unknown action %v", c.Action)
	}
	return nil
}

// merge adds b's lines under n, as typing the block would.
func merge(n, b *devcfg.Node) {
	var into *devcfg.Node
	for _, k := range n.Children {
		if k.Line == b.Line {
			into = k
			break
		}
	}
	if into == nil {
		into = &devcfg.Node{Line: b.Line}
		n.Children = append(n.Children, into)
	}
	for _, c := range b.Children {
		merge(into, c)
	}
}

func isMember(line string) bool { return strings.HasPrefix(line, iosstyle.TrunkVLANs.Member) }

func countMembers(nodes []*devcfg.Node) int {
	n := 0
	for _, s := range nodes {
		if isMember(s.Line) {
			n++
		}
	}
	return n
}

// noneLine is where the empty list stands that an added VLAN replaces,
// or -1.
func noneLine(siblings []*devcfg.Node, added string) int {
	if !isMember(added) {
		return -1
	}
	return slices.IndexFunc(siblings, func(n *devcfg.Node) bool { return n.Line == iosstyle.TrunkVLANs.None })
}

// writeModel writes the model as NX-OS prints it: the VLANs as one list
// line followed by the blocks of VLANs with configuration, an allowed-VLAN
// list as one line (none for every VLAN, the default), two spaces per
// level.
func writeModel(t *devcfg.Tree) string {
	out := &devcfg.Tree{Nodes: slices.Clone(foldVLANs(t.Nodes))}
	for i, n := range out.Nodes {
		if strings.HasPrefix(n.Line, "interface ") {
			c := n.Clone()
			c.Children = foldTrunk(c.Children)
			out.Nodes[i] = c
		}
	}
	return out.Text(2)
}

// foldVLANs undoes renderers.ExpandVLANs: "vlan N" lines become one
// "vlan 1,10,100-102" line where the first stood, and VLANs with
// configuration keep a block after it.
func foldVLANs(nodes []*devcfg.Node) []*devcfg.Node {
	var ids []int
	var blocks []*devcfg.Node
	first := -1
	out := make([]*devcfg.Node, 0, len(nodes))
	for _, n := range nodes {
		id, ok := vlanID(n.Line)
		if !ok {
			out = append(out, n)
			continue
		}
		if first < 0 {
			first = len(out)
			out = append(out, nil)
		}
		ids = append(ids, id)
		if len(n.Children) > 0 {
			blocks = append(blocks, n)
		}
	}
	if first < 0 {
		return nodes
	}
	list := []*devcfg.Node{{Line: "vlan " + devcfg.FormatIDList(ids)}}
	return slices.Concat(out[:first], list, blocks, out[first+1:])
}

func vlanID(line string) (int, bool) {
	s, ok := strings.CutPrefix(line, "vlan ")
	if !ok {
		return 0, false
	}
	id, err := strconv.Atoi(s)
	return id, err == nil && id >= 1 && id <= 4094
}

// foldTrunk undoes iosstyle.TrunkVLANs.Expand: the member lines become
// one list line where the first stood; every VLAN, the default, is not
// printed.
func foldTrunk(kids []*devcfg.Node) []*devcfg.Node {
	m := iosstyle.TrunkVLANs
	var ids []int
	first := -1
	out := make([]*devcfg.Node, 0, len(kids))
	for _, k := range kids {
		switch {
		case k.Line == m.All:
			continue
		case isMember(k.Line):
			id, err := strconv.Atoi(strings.TrimPrefix(k.Line, m.Member))
			if err != nil {
				out = append(out, k)
				continue
			}
			ids = append(ids, id)
			if first < 0 {
				first = len(out)
				out = append(out, nil)
			}
			continue
		}
		out = append(out, k)
	}
	if first < 0 {
		return out
	}
	out[first] = &devcfg.Node{Line: m.Prefix + devcfg.FormatIDList(ids)}
	return out
}

// flatLines lists every line with its parents, sorted: two trees with the
// same lines under the same parents compare equal.
func flatLines(t *devcfg.Tree) []string {
	var out []string
	var walk func(prefix string, nodes []*devcfg.Node)
	walk = func(prefix string, nodes []*devcfg.Node) {
		for _, n := range nodes {
			p := prefix + n.Line
			out = append(out, p)
			walk(p+" > ", n.Children)
		}
	}
	walk("", t.Nodes)
	slices.Sort(out)
	return out
}

// firstDifference names the first line two texts differ on.
func firstDifference(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < max(len(al), len(bl)); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("printed %q, written back %q", strings.TrimSpace(y), strings.TrimSpace(x))
		}
	}
	return "same text"
}
