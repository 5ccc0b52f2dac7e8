package devcfg

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// rocefab owns membership of one item in a list-valued setting (the
// lossless VLAN on a trunk's allowed list), never the list. Parsers model
// such a list as one member line or path per item, so only the owned item
// is in scope; a running value that holds every item (a trunk that allows
// all VLANs) implies the owned member (LineOwner.ImpliedBy,
// Scope.Implied); and a removed member is negated with the platform's
// removal command (Syntax.NegateRewrite).

// ParseIDList reads an ID list such as "10,100-102" into sorted, unique
// IDs within lo..hi.
func ParseIDList(s string, lo, hi int) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("empty ID list")
	}
	set, n, err := parseIDSet(s, lo, hi)
	if err != nil {
		return nil, err
	}
	ids := make([]int, 0, n)
	for v := lo; v <= hi; v++ {
		if set[v-lo] {
			ids = append(ids, v)
		}
	}
	return ids, nil
}

// parseIDSet is ParseIDList as a set: set[id-lo], and how many IDs it holds.
func parseIDSet(s string, lo, hi int) ([]bool, int, error) {
	if hi < lo {
		return nil, 0, fmt.Errorf("empty ID range %d..%d", lo, hi)
	}
	set := make([]bool, hi-lo+1)
	n := 0
	for _, part := range strings.Split(s, ",") {
		first, last, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.Atoi(first)
		if err != nil || a < lo || a > hi {
			return nil, 0, fmt.Errorf("%q is not an ID in %d..%d", part, lo, hi)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(last); err != nil || b < a || b > hi {
				return nil, 0, fmt.Errorf("%q is not a range in %d..%d", part, lo, hi)
			}
		}
		for v := a; v <= b; v++ {
			if !set[v-lo] {
				set[v-lo] = true
				n++
			}
		}
	}
	return set, n, nil
}

// FormatIDList writes IDs as the shortest list of single IDs and ranges:
// 10 100 101 102 is "10,100-102". The IDs are sorted and made unique first.
func FormatIDList(ids []int) string {
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	var b strings.Builder
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(ids[i]))
		if j > i {
			b.WriteString("-" + strconv.Itoa(ids[j]))
		}
		i = j + 1
	}
	return b.String()
}

// MemberList describes a CLI list setting that a device prints as list
// lines ("switchport trunk allowed vlan 10,100-102", NX-OS continuing a
// long list on "switchport trunk allowed vlan add ..." lines), and how the
// model holds it: one Member line per ID, the All line for a list of every
// ID, the None line for an empty one.
type MemberList struct {
	// Prefix starts every list line: "switchport trunk allowed vlan ".
	Prefix string
	// Member starts each member line: "switchport trunk allowed vlan add ".
	Member string
	// All and None are the lines for every ID and for no ID.
	All  string
	None string
	// Lo and Hi bound the IDs (VLANs: 1 and 4094).
	Lo, Hi int
}

// Expand rewrites the list lines among lines (the children of one context)
// into the model: one Member line per ID in ID order, the All line, or the
// None line, where the first list line stood. The list lines are read in
// order: "<ids>" sets the list, "add <ids>" and "remove <ids>" change it,
// "except <ids>" is every ID but those, "all" and "none" are what they say;
// a list that starts with "add" starts empty, since a running config only
// prints "add" to continue a list. Without list lines the context holds
// every ID when implicitAll (the device default, e.g. an Ethernet port's
// allowed VLANs), else nothing is added. Lines whose list does not parse
// are left as they are, with the other lines.
func (m MemberList) Expand(lines []*Node, implicitAll bool) []*Node {
	first := -1
	var set idSet
	for i, n := range lines {
		rest, ok := strings.CutPrefix(n.Line, m.Prefix)
		if !ok {
			continue
		}
		if set.ids == nil {
			set.ids = make([]bool, m.Hi-m.Lo+1)
		}
		if !m.apply(&set, rest) {
			return lines
		}
		if first < 0 {
			first = i
		}
	}
	if first < 0 {
		if !implicitAll {
			return lines
		}
		// The All line goes after the line that made the port a trunk.
		out := make([]*Node, 0, len(lines)+1)
		placed := false
		for _, n := range lines {
			out = append(out, n)
			if !placed && strings.HasPrefix(n.Line, "switchport mode ") {
				out = append(out, &Node{Line: m.All})
				placed = true
			}
		}
		if !placed {
			out = append(out, &Node{Line: m.All})
		}
		return out
	}
	out := make([]*Node, 0, len(lines)+set.n)
	for i, n := range lines {
		if strings.HasPrefix(n.Line, m.Prefix) {
			if i == first {
				out = append(out, m.lines(set)...)
			}
			continue
		}
		out = append(out, n)
	}
	return out
}

// idSet is a set of IDs lo..hi: ids[id-lo], and n of them.
type idSet struct {
	ids []bool
	n   int
}

func (s *idSet) put(i int, v bool) {
	if s.ids[i] != v {
		s.ids[i] = v
		if v {
			s.n++
		} else {
			s.n--
		}
	}
}

// apply changes set by one list line's argument; false if it does not parse.
func (m MemberList) apply(set *idSet, arg string) bool {
	word, ids, _ := strings.Cut(arg, " ")
	all := func(v bool) {
		for i := range set.ids {
			set.put(i, v)
		}
	}
	switch word {
	case "all":
		all(true)
		return ids == ""
	case "none":
		all(false)
		return ids == ""
	case "add", "remove", "except":
		list, _, err := parseIDSet(ids, m.Lo, m.Hi)
		if err != nil {
			return false
		}
		if word == "except" {
			all(true)
		}
		for i, in := range list {
			if in {
				set.put(i, word == "add")
			}
		}
		return true
	}
	list, _, err := parseIDSet(arg, m.Lo, m.Hi)
	if err != nil {
		return false
	}
	for i, in := range list {
		set.put(i, in)
	}
	return true
}

func (m MemberList) lines(set idSet) []*Node {
	switch set.n {
	case 0:
		return []*Node{{Line: m.None}}
	case len(set.ids):
		return []*Node{{Line: m.All}}
	}
	nodes := make([]Node, 0, set.n) // one allocation for every member
	out := make([]*Node, 0, set.n)
	for i, in := range set.ids {
		if in {
			nodes = append(nodes, Node{Line: m.Member + strconv.Itoa(m.Lo+i)})
			out = append(out, &nodes[len(nodes)-1])
		}
	}
	return out
}
