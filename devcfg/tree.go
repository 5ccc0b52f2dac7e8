package devcfg

import (
	"bufio"
	"fmt"
	"strings"
)

// Tree is a CLI configuration: lines with ordered children.
type Tree struct {
	Nodes []*Node
	index *lineIndex // of Nodes, kept by Add once there are many
}

// Node is one configuration line and its sub-mode lines.
type Node struct {
	Line     string
	Children []*Node
	// Implied marks a line Filter shows because a running line implies it
	// (LineOwner.ImpliedBy): it holds, but is a device default that rocefab
	// did not set, so the diff never removes it.
	Implied bool       `json:",omitempty"`
	index   *lineIndex // of Children, kept by Add once there are many
}

// Clone returns a deep copy.
func (n *Node) Clone() *Node {
	out := &Node{Line: n.Line, Implied: n.Implied}
	for _, c := range n.Children {
		out.Children = append(out.Children, c.Clone())
	}
	return out
}

// Clone returns a deep copy.
func (t *Tree) Clone() *Tree {
	if t == nil {
		return nil
	}
	out := &Tree{}
	for _, n := range t.Nodes {
		out.Nodes = append(out.Nodes, n.Clone())
	}
	return out
}

// Add appends a line under parents, creating missing parents, and returns the
// node. Adding an existing line returns the existing node, so renderers can
// build sections in any order.
func (t *Tree) Add(parents []string, line string) *Node {
	nodes, idx := &t.Nodes, &t.index
	for _, p := range parents {
		n := child(nodes, idx, p)
		nodes, idx = &n.Children, &n.index
	}
	return child(nodes, idx, line)
}

// Add appends a line under n once and returns it; renderers use it for a
// port's few lines, where it is cheaper than Tree.Add's walk from the top.
func (n *Node) Add(line string) *Node { return child(&n.Children, &n.index, line) }

// indexAfter is how many siblings are scanned before Add indexes them: a
// switch with 100,000 ports has as many interface lines at the top level,
// and scanning them for every new one made rendering quadratic.
const indexAfter = 32

// child returns the node with that line among nodes, appending it if it is
// missing. Past indexAfter siblings it looks lines up in idx.
func child(nodes *[]*Node, idx **lineIndex, line string) *Node {
	if len(*nodes) < indexAfter {
		for _, n := range *nodes {
			if n.Line == line {
				return n
			}
		}
	} else {
		x := (*idx).sync(*nodes)
		*idx = x
		if n, ok := x.byLine[line]; ok && n.Line == line {
			return n
		} else if ok {
			// A line was edited in place: index afresh.
			x = (*lineIndex)(nil).sync(*nodes)
			*idx = x
			if n, ok := x.byLine[line]; ok {
				return n
			}
		}
	}
	n := &Node{Line: line}
	*nodes = append(*nodes, n)
	if x := *idx; x != nil {
		x.add(*nodes)
	}
	return n
}

// lineIndex maps the lines of a sibling list to their first node. It
// follows appends to the list; a list rewritten otherwise (filtered,
// replaced) is noticed by its first and last nodes and length, and indexed
// again.
type lineIndex struct {
	byLine      map[string]*Node
	n           int // siblings indexed
	first, last *Node
}

// sync returns an index valid for nodes: x itself, x extended by the
// siblings appended since, or a new one.
func (x *lineIndex) sync(nodes []*Node) *lineIndex {
	if x != nil && x.n > 0 && x.n <= len(nodes) && nodes[0] == x.first && nodes[x.n-1] == x.last {
		x.add(nodes)
		return x
	}
	x = &lineIndex{byLine: make(map[string]*Node, 2*len(nodes))}
	x.add(nodes)
	return x
}

// add indexes the siblings after the first x.n.
func (x *lineIndex) add(nodes []*Node) {
	for _, n := range nodes[x.n:] {
		if _, dup := x.byLine[n.Line]; !dup {
			x.byLine[n.Line] = n
		}
	}
	x.n = len(nodes)
	if x.n > 0 {
		x.first, x.last = nodes[0], nodes[x.n-1]
	}
}

// Find returns the node at the exact line path, or nil.
func (t *Tree) Find(path []string) *Node {
	if t == nil || len(path) == 0 {
		return nil
	}
	nodes := t.Nodes
	var found *Node
	for _, p := range path {
		found = nil
		for _, n := range nodes {
			if n.Line == p {
				found = n
				break
			}
		}
		if found == nil {
			return nil
		}
		nodes = found.Children
	}
	return found
}

// Children returns the lines under parents (top level for none).
func (t *Tree) Children(parents []string) []*Node {
	if t == nil {
		return nil
	}
	if len(parents) == 0 {
		return t.Nodes
	}
	if n := t.Find(parents); n != nil {
		return n.Children
	}
	return nil
}

// Text renders the tree with indent spaces per level.
func (t *Tree) Text(indent int) string {
	var b strings.Builder
	if t == nil {
		return ""
	}
	var walk func(depth int, nodes []*Node)
	walk = func(depth int, nodes []*Node) {
		for _, n := range nodes {
			b.WriteString(strings.Repeat(" ", depth*indent))
			b.WriteString(n.Line)
			b.WriteByte('\n')
			walk(depth+1, n.Children)
		}
	}
	walk(0, t.Nodes)
	return b.String()
}

// Len counts every line in the tree.
func (t *Tree) Len() int {
	if t == nil {
		return 0
	}
	var count func([]*Node) int
	count = func(ns []*Node) int {
		c := 0
		for _, n := range ns {
			c += 1 + count(n.Children)
		}
		return c
	}
	return count(t.Nodes)
}

// ParseIndented builds a tree from running-config text where children are
// indented deeper than their parent. Lines starting with one of the comment
// prefixes, and blank lines, are skipped. Tabs count as one space.
func ParseIndented(text string, commentPrefixes ...string) (*Tree, error) {
	t := &Tree{}
	type frame struct {
		indent int
		node   *Node
	}
	var stack []frame
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		raw := strings.TrimRight(strings.ReplaceAll(sc.Text(), "\t", " "), " \r")
		trimmed := strings.TrimLeft(raw, " ")
		if trimmed == "" || hasAnyPrefix(trimmed, commentPrefixes) {
			continue
		}
		indent := len(raw) - len(trimmed)
		for len(stack) > 0 && stack[len(stack)-1].indent >= indent {
			stack = stack[:len(stack)-1]
		}
		n := &Node{Line: trimmed}
		if len(stack) == 0 {
			if indent > 0 && len(t.Nodes) == 0 {
				return nil, fmt.Errorf("line %d: indented line %q has no parent", lineNo, trimmed)
			}
			t.Nodes = append(t.Nodes, n)
		} else {
			p := stack[len(stack)-1].node
			p.Children = append(p.Children, n)
		}
		stack = append(stack, frame{indent: indent, node: n})
	}
	return t, sc.Err()
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if p != "" && strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
