package sshsim

import (
	"strconv"
	"strings"
	"unicode"
)

// node is one configuration line of a CLI device and its sub-mode lines.
type node struct {
	line string
	kids []*node
}

func (n *node) clone() *node {
	out := &node{line: n.line, kids: make([]*node, 0, len(n.kids))}
	for _, k := range n.kids {
		out.kids = append(out.kids, k.clone())
	}
	return out
}

// find returns the child with exactly that line.
func (n *node) find(line string) *node {
	for _, k := range n.kids {
		if k.line == line {
			return k
		}
	}
	return nil
}

// walk returns the node at the context path, or nil.
func (n *node) walk(path []string) *node {
	cur := n
	for _, p := range path {
		if cur = cur.find(p); cur == nil {
			return nil
		}
	}
	return cur
}

func (n *node) remove(match func(string) bool) bool {
	kept := n.kids[:0]
	removed := false
	for _, k := range n.kids {
		if match(k.line) {
			removed = true
			continue
		}
		kept = append(kept, k)
	}
	for i := len(kept); i < len(n.kids); i++ {
		n.kids[i] = nil
	}
	n.kids = kept
	return removed
}

// insertTop adds a top-level line where the device shows it: devices print
// their configuration in a fixed section order (rank), interfaces in port
// order, and lines of one section in the order they were configured.
func (n *node) insertTop(line string, rank func(string) int) *node {
	k := &node{line: line}
	r := rank(line)
	for i, c := range n.kids {
		rc := rank(c.line)
		if rc > r || (rc == r && isInterfaceLine(line) && isInterfaceLine(c.line) && naturalLess(line, c.line)) {
			n.kids = append(n.kids[:i], append([]*node{k}, n.kids[i:]...)...)
			return k
		}
	}
	n.kids = append(n.kids, k)
	return k
}

func isInterfaceLine(line string) bool { return strings.HasPrefix(line, "interface ") }

// naturalLess orders "Ethernet1/2" before "Ethernet1/10".
func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		ad, bd := leadingDigits(a), leadingDigits(b)
		if ad != "" && bd != "" {
			an, _ := strconv.Atoi(ad)
			bn, _ := strconv.Atoi(bd)
			if an != bn {
				return an < bn
			}
			a, b = a[len(ad):], b[len(bd):]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func leadingDigits(s string) string {
	i := 0
	for i < len(s) && i < 9 && unicode.IsDigit(rune(s[i])) {
		i++
	}
	return s[:i]
}

// normaliseLine collapses runs of blanks, as CLIs do before parsing.
func normaliseLine(s string) string { return strings.Join(strings.Fields(s), " ") }
