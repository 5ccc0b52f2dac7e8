package cli

import (
	"fmt"
	"strings"

	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/validators/lint"
)

// Names given on the command line must be in the intent: a typo in
// --device must never read as "nothing to change". An unknown name is a
// usage error (exit 64) that suggests the nearest known one.

// nameKind is which of the intent's names a flag takes.
type nameKind int

const (
	kindDevice nameKind = iota
	kindSwitch
	kindHost
)

func (k nameKind) String() string {
	switch k {
	case kindSwitch:
		return "switch"
	case kindHost:
		return "host"
	}
	return "device"
}

// intentNames lists the switches, hosts or both.
func intentNames(res *intent.Resolved, kind nameKind) []string {
	var out []string
	if kind != kindHost {
		for _, sw := range res.Switches {
			out = append(out, sw.Name)
		}
	}
	if kind != kindSwitch {
		for _, h := range res.Hosts {
			out = append(out, h.Name)
		}
	}
	return out
}

// checkNames refuses any name not among known, naming the flag.
func checkNames(flag string, kind nameKind, names, known []string) error {
	set := make(map[string]bool, len(known))
	for _, k := range known {
		set[k] = true
	}
	var bad []string
	for _, n := range names {
		if set[n] {
			continue
		}
		msg := fmt.Sprintf("%q", n)
		if best := lint.Closest(n, known); best != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", best)
		}
		bad = append(bad, msg)
	}
	if len(bad) == 0 {
		return nil
	}
	what := kind.String()
	if len(bad) > 1 {
		what += "s"
	}
	return usageErr("%s %s: no such %s in the intent%s", flag, strings.Join(bad, ", "), what, knownList(known))
}

// knownList names up to ten known names.
func knownList(known []string) string {
	switch {
	case len(known) == 0:
		return " (it has none)"
	case len(known) <= 10:
		return " (known: " + strings.Join(known, ", ") + ")"
	}
	return fmt.Sprintf(" (%d known, e.g. %s)", len(known), strings.Join(known[:5], ", "))
}
