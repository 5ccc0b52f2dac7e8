package devcfg

import (
	"strings"
)

// Patch is what a driver pushes: CLI lines for CLI platforms, path updates
// and deletes for the others. It is built from changes in their order.
type Patch struct {
	Lines   []string     `json:"lines,omitempty"`
	Updates []PathUpdate `json:"updates,omitempty"`
	Deletes []string     `json:"deletes,omitempty"`
}

// PathUpdate sets one path.
type PathUpdate struct {
	Path  string `json:"path"`
	Value Value  `json:"value"`
}

// Empty reports whether the patch changes nothing.
func (p Patch) Empty() bool { return len(p.Lines) == 0 && len(p.Updates) == 0 && len(p.Deletes) == 0 }

// BuildPatch turns changes into the platform's commands, keeping their order
// (the diff emits additions in desired order, then removals in reverse, so
// objects exist before references to them and outlive them).
func BuildPatch(changes []Change, syn Syntax) Patch {
	var p Patch
	switch syn.Style {
	case StyleCLITree:
		p.Lines = cliTreeLines(changes, syn)
	case StyleStatements:
		for _, c := range changes {
			switch c.Action {
			case Add, Modify:
				p.Lines = append(p.Lines, statement(syn.Set, c.Path, c.New))
			case Remove:
				p.Lines = append(p.Lines, strings.TrimSpace(syn.Delete+c.Path))
			}
		}
	case StylePaths:
		for _, c := range changes {
			switch c.Action {
			case Add, Modify:
				p.Updates = append(p.Updates, PathUpdate{Path: c.Path, Value: Value(c.New)})
			case Remove:
				p.Deletes = append(p.Deletes, c.Path)
			}
		}
	}
	return p
}

func statement(prefix, path, value string) string {
	s := prefix + path
	if value != "" && Value(value) != Empty {
		s += " " + Value(value).Text()
	}
	return s
}

// cliTreeLines enters each change's context, applies it and leaves again,
// sharing context between consecutive changes under the same parents. A
// removed line is negated with Syntax.Negation.
func cliTreeLines(changes []Change, syn Syntax) []string {
	var out []string
	var ctx []string
	leave := func(depth int) {
		for len(ctx) > depth {
			out = append(out, syn.Exit)
			ctx = ctx[:len(ctx)-1]
		}
	}
	for _, c := range changes {
		common := 0
		for common < len(ctx) && common < len(c.Parents) && ctx[common] == c.Parents[common] {
			common++
		}
		leave(common)
		for _, p := range c.Parents[common:] {
			out = append(out, p)
			ctx = append(ctx, p)
		}
		switch c.Action {
		case Add:
			out = append(out, c.New)
			if len(c.Block) > 0 {
				out = append(out, blockLines(c.Block, syn)...)
				out = append(out, syn.Exit)
			}
		case Modify:
			out = append(out, c.New)
		case Remove:
			out = append(out, syn.Negation(c.Old))
		}
	}
	leave(0)
	return out
}

func blockLines(nodes []*Node, syn Syntax) []string {
	var out []string
	for _, n := range nodes {
		out = append(out, n.Line)
		if len(n.Children) > 0 {
			out = append(out, blockLines(n.Children, syn)...)
			out = append(out, syn.Exit)
		}
	}
	return out
}
