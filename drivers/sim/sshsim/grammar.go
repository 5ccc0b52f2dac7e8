package sshsim

import (
	"fmt"
	"strconv"
	"strings"
)

// cmdSpec is one accepted configuration command of a CLI mode.
type cmdSpec struct {
	// prefix ending in a blank takes arguments ("mtu "); otherwise the
	// whole line must equal it ("shutdown").
	prefix string
	// enter is the sub-mode the line opens; empty for a plain line.
	enter string
	// single marks a single-valued line: a new value replaces the old one.
	single bool
	// vlanList marks "switchport trunk allowed vlan": the line edits the
	// stored allowed list (add, remove, except, all, none, or a new list),
	// see editAllowedVLANs.
	vlanList bool
	// defaultOn marks a setting that is on until negated (EOS
	// `switchport`): `no X` is stored and printed, `X` removes that line.
	defaultOn bool
	// valid checks a single-valued line's argument; nil accepts any.
	valid func(arg string) bool
}

// grammar is a CLI's configuration language as data: accepted command
// prefixes per mode, so unknown commands are rejected as a device would.
type grammar map[string][]cmdSpec

// match returns the longest command spec of mode that accepts line.
func (g grammar) match(mode, line string) (cmdSpec, bool) {
	var best cmdSpec
	found := false
	for _, c := range g[mode] {
		ok := false
		if strings.HasSuffix(c.prefix, " ") {
			ok = len(line) > len(c.prefix) && strings.HasPrefix(line, c.prefix)
		} else {
			ok = line == c.prefix
		}
		if ok && (!found || len(c.prefix) > len(best.prefix)) {
			best, found = c, true
		}
	}
	return best, found
}

func leaf(prefixes ...string) []cmdSpec {
	out := make([]cmdSpec, 0, len(prefixes))
	for _, p := range prefixes {
		out = append(out, cmdSpec{prefix: p})
	}
	return out
}

func single(prefixes ...string) []cmdSpec {
	out := make([]cmdSpec, 0, len(prefixes))
	for _, p := range prefixes {
		out = append(out, cmdSpec{prefix: p, single: true})
	}
	return out
}

// numberedSingle is single for prefix formatted with each of 0..n-1.
func numberedSingle(format string, n int) []cmdSpec {
	out := make([]cmdSpec, 0, n)
	for i := 0; i < n; i++ {
		out = append(out, cmdSpec{prefix: fmt.Sprintf(format, i), single: true})
	}
	return out
}

// intRange accepts a decimal integer lo..hi.
func intRange(lo, hi int) func(string) bool {
	return func(arg string) bool {
		n, err := strconv.Atoi(arg)
		return err == nil && n >= lo && n <= hi
	}
}

func enter(prefix, mode string) cmdSpec { return cmdSpec{prefix: prefix, enter: mode} }

// allowedVLANs is the trunk allowed-VLAN command of NX-OS and EOS.
var allowedVLANs = cmdSpec{prefix: allowedVLANPrefix, vlanList: true}

func concat(parts ...[]cmdSpec) []cmdSpec {
	var out []cmdSpec
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

var txqCmds = concat(
	single("random-detect ecn minimum-threshold ", "priority ", "bandwidth percent ",
		"bandwidth guaranteed ", "shape rate ", "random-detect drop minimum-threshold "),
	leaf("random-detect ecn count", "no priority"),
)
