package sshsim

import (
	"fmt"
	"strings"
)

// iosContext is where one configuration session stands: the context lines
// it entered and the mode of each.
type iosContext struct {
	path  []string
	modes []string
}

func (c *iosContext) mode() string {
	if len(c.modes) == 0 {
		return "config"
	}
	return c.modes[len(c.modes)-1]
}

func (c *iosContext) truncate(depth int) {
	c.path = c.path[:depth]
	c.modes = c.modes[:depth]
}

// applyResult is what one configuration line did.
type applyResult int

const (
	applied applyResult = iota
	invalid
	leftConfig // "end", or "exit" at the top: back to privileged exec
)

// applyConfigLine runs one configuration-mode line against root, moving ctx
// through sub-modes the way IOS-style CLIs do: a line that opens a context
// enters it, "exit" leaves one level, "end" leaves configuration, and a
// command valid only at an outer level returns there first.
func applyConfigLine(g grammar, root *node, ctx *iosContext, raw string, sameLine func(a, b string) bool, rank func(string) int) applyResult {
	line := normaliseLine(raw)
	switch line {
	case "":
		return applied
	case "end":
		ctx.truncate(0)
		return leftConfig
	case "exit":
		if len(ctx.path) == 0 {
			return leftConfig
		}
		ctx.truncate(len(ctx.path) - 1)
		return applied
	}
	body, negate := strings.CutPrefix(line, "no ")
	for depth := len(ctx.path); depth >= 0; depth-- {
		mode := "config"
		if depth > 0 {
			mode = ctx.modes[depth-1]
		}
		spec, ok := g.match(mode, line)
		isNeg := false
		if !ok && negate {
			spec, ok = matchNegated(g, mode, body)
			isNeg = ok
		}
		if !ok {
			continue
		}
		parent := root.walk(ctx.path[:depth])
		if parent == nil {
			// The context vanished (removed by another session): start over.
			ctx.truncate(0)
			parent = root
			depth = 0
		}
		ctx.truncate(depth)
		if spec.valid != nil && !isNeg && !spec.valid(strings.TrimSpace(strings.TrimPrefix(line, spec.prefix))) {
			return invalid
		}
		switch {
		case spec.defaultOn && isNeg:
			if parent.find(line) == nil {
				appendLeaf(root, parent, line, rank)
			}
		case spec.defaultOn:
			parent.remove(func(l string) bool { return l == "no "+line })
		case spec.vlanList:
			if !editAllowedVLANs(parent, line, isNeg) {
				return invalid
			}
		case isNeg && spec.enter != "":
			parent.remove(func(l string) bool { return l == body })
		case isNeg && spec.single:
			parent.remove(func(l string) bool { return strings.HasPrefix(l+" ", spec.prefix) })
		case isNeg:
			parent.remove(func(l string) bool { return sameLine(l, body) })
		case spec.enter != "":
			if parent.find(line) == nil {
				if parent == root {
					root.insertTop(line, rank)
				} else {
					parent.kids = append(parent.kids, &node{line: line})
				}
			}
			ctx.path = append(ctx.path, line)
			ctx.modes = append(ctx.modes, spec.enter)
		case spec.single:
			replaced := false
			for _, k := range parent.kids {
				if strings.HasPrefix(k.line, spec.prefix) {
					k.line, replaced = line, true
					break
				}
			}
			if !replaced {
				appendLeaf(root, parent, line, rank)
			}
		default:
			exists := false
			for _, k := range parent.kids {
				if sameLine(k.line, line) {
					exists = true
				}
			}
			if !exists {
				appendLeaf(root, parent, line, rank)
			}
		}
		return applied
	}
	return invalid
}

func appendLeaf(root, parent *node, line string, rank func(string) int) {
	if parent == root {
		root.insertTop(line, rank)
		return
	}
	parent.kids = append(parent.kids, &node{line: line})
}

// matchNegated finds the spec a "no" line removes: "no mtu" and
// "no mtu 9216" both remove the single-valued "mtu " line.
func matchNegated(g grammar, mode, body string) (cmdSpec, bool) {
	if spec, ok := g.match(mode, body); ok {
		return spec, true
	}
	for _, c := range g[mode] {
		if (c.single || c.vlanList) && body == strings.TrimSpace(c.prefix) {
			return c, true
		}
	}
	return cmdSpec{}, false
}

// renderTree prints a configuration tree with indent spaces per level.
// Hooks let a personality hide defaults and add generated lines.
type treeStyle struct {
	indent int
	// display rewrites a stored line for display (EOS hides " weight 0").
	display func(line string) string
	// generated returns lines the device adds under a context line.
	generated func(parents []string, n *node) []string
	// separators prints EOS "!" lines around blocks.
	separators bool
	// isBlock says whether a top-level line opens a context (it then
	// stands in its own "!"-separated stanza, even when empty).
	isBlock func(line string) bool
	// top rewrites the top-level nodes before printing (NX-OS folds its
	// VLANs into one list line).
	top func(nodes []*node) []*node
	// split prints one stored line as several (NX-OS continues a long
	// allowed-VLAN list on "add" lines); nil prints it as one.
	split func(line string) []string
}

func renderTree(b *strings.Builder, root *node, st treeStyle) {
	var walk func(depth int, parents []string, nodes []*node)
	walk = func(depth int, parents []string, nodes []*node) {
		pad := strings.Repeat(" ", depth*st.indent)
		for i, n := range nodes {
			if st.separators && depth > 0 && len(n.kids) > 0 {
				b.WriteString(pad + "!\n")
			}
			line := n.line
			if st.display != nil {
				line = st.display(line)
			}
			printed := []string{line}
			if st.split != nil {
				printed = st.split(line)
			}
			for _, l := range printed {
				b.WriteString(pad + l + "\n")
			}
			walk(depth+1, append(parents, n.line), n.kids)
			if st.generated != nil {
				for _, g := range st.generated(parents, n) {
					b.WriteString(strings.Repeat(" ", (depth+1)*st.indent) + g + "\n")
				}
			}
			if st.separators && depth == 0 {
				next := i + 1
				block := func(m *node) bool { return len(m.kids) > 0 || (st.isBlock != nil && st.isBlock(m.line)) }
				if block(n) || next == len(nodes) || block(nodes[next]) || firstWord(nodes[next].line) != firstWord(n.line) {
					b.WriteString("!\n")
				}
			}
		}
	}
	nodes := root.kids
	if st.top != nil {
		nodes = st.top(nodes)
	}
	walk(0, nil, nodes)
}

func firstWord(s string) string {
	w, _, _ := strings.Cut(s, " ")
	return w
}

// parseTreeText loads device-native indented text into a tree (for initial
// configuration and hand edits), skipping "!" comments.
func parseTreeText(text string) (*node, error) {
	root := &node{}
	type frame struct {
		indent int
		n      *node
	}
	var stack []frame
	for i, raw := range strings.Split(text, "\n") {
		raw = strings.TrimRight(raw, " \r")
		trimmed := strings.TrimLeft(raw, " ")
		if trimmed == "" || strings.HasPrefix(trimmed, "!") || trimmed == "end" {
			continue
		}
		indent := len(raw) - len(trimmed)
		for len(stack) > 0 && stack[len(stack)-1].indent >= indent {
			stack = stack[:len(stack)-1]
		}
		n := &node{line: normaliseLine(trimmed)}
		if len(stack) == 0 {
			if indent > 0 {
				return nil, fmt.Errorf("line %d: indented line %q has no parent", i+1, trimmed)
			}
			root.kids = append(root.kids, n)
		} else {
			p := stack[len(stack)-1].n
			p.kids = append(p.kids, n)
		}
		stack = append(stack, frame{indent: indent, n: n})
	}
	return root, nil
}
