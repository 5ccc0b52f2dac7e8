package compliance

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/devcfg"
)

// A plan is read by people in a pull request. These functions turn a
// device's changes into what they read: one line per change in the
// platform's own form (a CLI line under its parents, a Junos or NVUE
// set/unset statement, a gNMI or config_db path), in natural order, with
// identical changes across ports shown once with the port range. They are
// pure: plan data and the platform's syntax in, lines out.

// PlatformView is what the report needs to know about a platform: its
// command syntax (native statements) and its port names (which numbers
// in a line are ports). The CLI takes both from the renderer registry.
type PlatformView struct {
	Syntax devcfg.Syntax
	// Port matches one whole port name (e.g. ^Ethernet\d+(/\d+)*$); nil
	// when the platform declares none.
	Port *regexp.Regexp
}

// Line is one change as a reviewer reads it.
type Line struct {
	// Sign is "+" (add), "-" (remove) or "~" (change).
	Sign string
	// Text is the native form: "interface Ethernet1/1 > mtu 1500 -> mtu
	// 9216", "set interfaces et-0/0/0 mtu 9216",
	// "sonic-db:/PORT/Ethernet0/mtu: 9100 -> 9216".
	Text string
	// Block holds the indented lines of an added or removed block.
	Block      []string
	Effect     devcfg.Effect
	Disruption devcfg.Disruption
	Reason     string
	// Change is the index of the change in the device's list.
	Change int
}

// ReviewLines turns a device's changes into lines. Paths and statements
// are put in natural order (Ethernet4 before Ethernet12), additions and
// changes first, then removals; CLI trees keep the diff's order, which
// puts objects before their users.
func ReviewLines(d DevicePlan, pv PlatformView) []Line {
	lines := make([]Line, len(d.Changes))
	for i, c := range d.Changes {
		lines[i] = reviewLine(c, pv.Syntax)
		lines[i].Change = i
	}
	tree := (d.Desired != nil && d.Desired.Shape == devcfg.ShapeTree) || pv.Syntax.Style == devcfg.StyleCLITree
	for _, c := range d.Changes {
		tree = tree || len(c.Parents) > 0 || len(c.Block) > 0
	}
	if !tree {
		sort.SliceStable(lines, func(i, j int) bool {
			ri, rj := lines[i].Sign == "-", lines[j].Sign == "-"
			if ri != rj {
				return rj
			}
			return devcfg.NaturalLess(d.Changes[lines[i].Change].Path, d.Changes[lines[j].Change].Path)
		})
	}
	return lines
}

func reviewLine(c devcfg.Change, syn devcfg.Syntax) Line {
	l := Line{Sign: c.Action.Symbol(), Effect: c.Effect, Disruption: c.Disruption, Reason: c.Reason}
	switch {
	case len(c.Parents) > 0 || len(c.Block) > 0 || (syn.Style == devcfg.StyleCLITree && c.Action != devcfg.Modify):
		// A CLI line under its parents; a modification carries its key.
		prefix := ""
		if len(c.Parents) > 0 {
			prefix = strings.Join(c.Parents, " > ") + " > "
		}
		switch c.Action {
		case devcfg.Modify:
			l.Text = prefix + c.Old + " -> " + c.New
		case devcfg.Add:
			l.Text = prefix + c.New
		default:
			l.Text = prefix + c.Old
		}
		if l.Text == prefix {
			l.Text = prefix + c.Path
		}
		l.Block = blockLines(c.Block, "")
	case syn.Style == devcfg.StyleCLITree:
		l.Text = c.Old + " -> " + c.New
	case syn.Style == devcfg.StyleStatements:
		// The statement the device is given: "set PATH VALUE" or
		// "delete PATH" (Junos), "nv set" / "nv unset" (NVUE).
		st := devcfg.BuildPatch([]devcfg.Change{c}, syn).Lines
		if len(st) == 1 {
			l.Text = st[0]
		}
		if c.Action == devcfg.Modify && c.Old != "" && devcfg.Value(c.Old) != devcfg.Empty {
			l.Text += " (was " + valueText(c.Old) + ")"
		}
	default:
		switch c.Action {
		case devcfg.Modify:
			l.Text = c.Path + ": " + valueText(c.Old) + " -> " + valueText(c.New)
		case devcfg.Add:
			l.Text = c.Path + pathValue(c, c.New)
		default:
			l.Text = c.Path + pathValue(c, c.Old)
		}
	}
	return l
}

func blockLines(nodes []*devcfg.Node, indent string) []string {
	var out []string
	for _, n := range nodes {
		out = append(out, indent+n.Line)
		out = append(out, blockLines(n.Children, indent+"  ")...)
	}
	return out
}

// Group is identical changes shown once: the lines differ only in one
// number (a port, a DSCP, a queue), whose values the text holds as a
// range in brackets: "interface Ethernet1/[1-32] > mtu 9216".
type Group struct {
	Line
	// Members are the grouped lines, in natural order of the value.
	Members []Line
}

// Count is how many changes the group stands for.
func (g Group) Count() int { return len(g.Members) }

// GroupLines groups lines that differ only in one number, which may
// appear in several places of a line (OpenConfig's
// "interface[interface-id=Ethernet1]/config/interface-id = Ethernet1").
// Where a line could group on several numbers it takes the one with the
// most members, a port before anything else; no line is ever dropped or
// merged with a line that differs in anything but that number (Expand
// gives every member's text back).
func GroupLines(lines []Line, port *regexp.Regexp) []Group {
	type cand struct {
		port  bool
		last  int   // the last position, to prefer later numbers
		pos   []int // the digit runs that vary together
		lines []int
	}
	byKey := map[string]*cand{}
	var order []*cand
	type lineRuns struct {
		spans [][2]int
		pos   map[*cand][]int
	}
	info := make([]lineRuns, len(lines))
	for i, l := range lines {
		spans := digitRuns(l.Text)
		info[i] = lineRuns{spans: spans, pos: map[*cand][]int{}}
		tail := "\x00" + l.Sign + "\x00" + strings.Join(l.Block, "\n") + "\x00" + string(l.Effect) + "\x00" + l.Disruption.String() + "\x00" + l.Reason
		isPort := make([]bool, len(spans))
		for r, span := range spans {
			isPort[r] = inPort(l.Text, span, port)
		}
		val := func(r int) string { return l.Text[spans[r][0]:spans[r][1]] }
		// Candidate position sets: each number alone, every place its
		// value appears, and every port that carries it.
		var sets [][]int
		for r := range spans {
			sets = append(sets, []int{r})
			var same, samePort []int
			for q := range spans {
				if val(q) == val(r) {
					same = append(same, q)
					if isPort[q] {
						samePort = append(samePort, q)
					}
				}
			}
			if len(same) > 1 && same[0] == r {
				sets = append(sets, same)
			}
			if len(samePort) > 1 && samePort[0] == r && len(samePort) < len(same) {
				sets = append(sets, samePort)
			}
		}
		for _, set := range sets {
			var k strings.Builder
			prev := 0
			for _, r := range set {
				k.WriteString(l.Text[prev:spans[r][0]])
				k.WriteString("\x01")
				prev = spans[r][1]
			}
			k.WriteString(l.Text[prev:])
			k.WriteString(fmt.Sprint(set, len(spans)))
			k.WriteString(tail)
			key := k.String()
			c := byKey[key]
			if c == nil {
				c = &cand{port: isPort[set[0]], last: set[len(set)-1], pos: set}
				byKey[key] = c
				order = append(order, c)
			}
			c.lines = append(c.lines, i)
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if len(a.lines) != len(b.lines) {
			return len(a.lines) > len(b.lines)
		}
		if a.port != b.port {
			return a.port
		}
		if len(a.pos) != len(b.pos) {
			return len(a.pos) > len(b.pos)
		}
		return a.last > b.last
	})
	groupOf := make([]int, len(lines))
	for i := range groupOf {
		groupOf[i] = -1
	}
	type built struct {
		c       *cand
		members []int
	}
	var groups []built
	for _, c := range order {
		var free []int
		for _, i := range c.lines {
			if groupOf[i] < 0 {
				free = append(free, i)
			}
		}
		if len(free) < 2 {
			continue
		}
		for _, i := range free {
			groupOf[i] = len(groups)
		}
		groups = append(groups, built{c, free})
	}
	var out []Group
	emitted := map[int]bool{}
	for i, l := range lines {
		g := groupOf[i]
		if g < 0 {
			out = append(out, Group{Line: l, Members: []Line{l}})
			continue
		}
		if emitted[g] {
			continue
		}
		emitted[g] = true
		b := groups[g]
		members := append([]int(nil), b.members...)
		value := func(i int) string {
			span := info[i].spans[b.c.pos[0]]
			return lines[i].Text[span[0]:span[1]]
		}
		sort.SliceStable(members, func(x, y int) bool { return numLess(value(members[x]), value(members[y])) })
		values := make([]string, len(members))
		group := Group{Line: lines[members[0]]}
		for k, i := range members {
			values[k] = value(i)
			group.Members = append(group.Members, lines[i])
		}
		first, spans := lines[members[0]].Text, info[members[0]].spans
		rng := "[" + compactValues(values) + "]"
		var t strings.Builder
		prev := 0
		for _, r := range b.c.pos {
			t.WriteString(first[prev:spans[r][0]])
			t.WriteString(rng)
			prev = spans[r][1]
		}
		t.WriteString(first[prev:])
		group.Text = t.String()
		out = append(out, group)
	}
	return out
}

// digitRuns lists the [start, end) of every run of digits in s.
func digitRuns(s string) [][2]int {
	var out [][2]int
	for i := 0; i < len(s); {
		if s[i] < '0' || s[i] > '9' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		out = append(out, [2]int{i, j})
		i = j
	}
	return out
}

// inPort reports whether the digit run at span is part of a port name:
// some stretch of the word around it, cut at '/' boundaries (SONiC and
// gNMI paths use '/' between elements, NX-OS inside port names), is one
// whole port name.
func inPort(s string, span [2]int, port *regexp.Regexp) bool {
	if port == nil {
		return false
	}
	isWord := func(b byte) bool {
		return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || strings.IndexByte("/:._-", b) >= 0
	}
	lo, hi := span[0], span[1]
	for lo > 0 && isWord(s[lo-1]) {
		lo--
	}
	for hi < len(s) && isWord(s[hi]) {
		hi++
	}
	var starts, ends []int
	for i := lo; i <= span[0]; i++ {
		if i == lo || s[i-1] == '/' {
			starts = append(starts, i)
		}
	}
	for j := span[1]; j <= hi; j++ {
		if j == hi || s[j] == '/' {
			ends = append(ends, j)
		}
	}
	for _, i := range starts {
		for _, j := range ends {
			if port.MatchString(s[i:j]) {
				return true
			}
		}
	}
	return false
}

// numLess orders digit strings by value, then by text ("03" after "3").
func numLess(a, b string) bool {
	ta, tb := strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
	if len(ta) != len(tb) {
		return len(ta) < len(tb)
	}
	if ta != tb {
		return ta < tb
	}
	return a < b
}

// compactValues writes sorted digit strings as ranges: "1-32",
// "0-124 step 4" (the intent's own port-range words), "1-4,7,9". Values
// written with leading zeros (Junos code points) are listed as they are.
func compactValues(vals []string) string {
	for _, v := range vals {
		if len(v) > 1 && v[0] == '0' || len(v) > 9 {
			return strings.Join(vals, ",")
		}
	}
	nums := make([]int, len(vals))
	for i, v := range vals {
		nums[i], _ = strconv.Atoi(v)
	}
	// One arithmetic progression of four or more: "0-124 step 4".
	if len(nums) >= 4 {
		step := nums[1] - nums[0]
		ok := step > 1
		for i := 2; ok && i < len(nums); i++ {
			ok = nums[i]-nums[i-1] == step
		}
		if ok {
			return fmt.Sprintf("%d-%d step %d", nums[0], nums[len(nums)-1], step)
		}
	}
	var parts []string
	for i := 0; i < len(nums); {
		j := i
		for j+1 < len(nums) && nums[j+1] == nums[j]+1 {
			j++
		}
		switch {
		case j == i:
			parts = append(parts, strconv.Itoa(nums[i]))
		case j == i+1:
			parts = append(parts, strconv.Itoa(nums[i]), strconv.Itoa(nums[j]))
		default:
			parts = append(parts, fmt.Sprintf("%d-%d", nums[i], nums[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// Expand gives back the text of every member of a group from its
// bracketed text, as a reader would: the inverse of the range notation.
// Tests use it to prove that grouping shows every change.
func Expand(text string) []string {
	open := strings.IndexByte(text, '[')
	for open >= 0 {
		end := strings.IndexByte(text[open:], ']')
		if end < 0 {
			break
		}
		inner := text[open+1 : open+end]
		if vals, ok := expandValues(inner); ok {
			// Every place that carries the same range varies together.
			out := make([]string, len(vals))
			for i, v := range vals {
				out[i] = text[:open] + strings.ReplaceAll(text[open:], "["+inner+"]", v)
			}
			return out
		}
		next := strings.IndexByte(text[open+1:], '[')
		if next < 0 {
			break
		}
		open += 1 + next
	}
	return []string{text}
}

func expandValues(s string) ([]string, bool) {
	if s == "" {
		return nil, false
	}
	if a, b, ok := strings.Cut(s, " step "); ok {
		lo, hi, ok1 := rangeBounds(a)
		step, err := strconv.Atoi(b)
		if !ok1 || err != nil || step <= 0 {
			return nil, false
		}
		var out []string
		for v := lo; v <= hi; v += step {
			out = append(out, strconv.Itoa(v))
		}
		return out, true
	}
	var out []string
	for _, part := range strings.Split(s, ",") {
		if lo, hi, ok := rangeBounds(part); ok && strings.Contains(part, "-") {
			for v := lo; v <= hi; v++ {
				out = append(out, strconv.Itoa(v))
			}
			continue
		}
		if part == "" || strings.Trim(part, "0123456789") != "" {
			return nil, false
		}
		out = append(out, part)
	}
	return out, true
}

func rangeBounds(s string) (int, int, bool) {
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		v, err := strconv.Atoi(s)
		return v, v, err == nil
	}
	lo, err1 := strconv.Atoi(a)
	hi, err2 := strconv.Atoi(b)
	return lo, hi, err1 == nil && err2 == nil && lo <= hi
}
