package renderers

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
)

// What several platforms render alike lives here, so a fix reaches them all.

// SwitchMTU is the L3 MTU to render: the platform's ceiling for "max",
// else the intent's value.
func SwitchMTU(p intent.Policy, ceiling int) int {
	if p.SwitchMTU.Max {
		return ceiling
	}
	return p.SwitchMTU.Value
}

// HasSwitchedPort reports whether any port is an access or trunk port, the
// ones that need the lossless VLAN.
func HasSwitchedPort(ports []intent.Port) bool {
	for _, p := range ports {
		if p.Mode != "routed" {
			return true
		}
	}
	return false
}

// DSCPClasses is the class of every DSCP in an explicit, complete map: the
// RoCE and CNP DSCPs to their priorities, every other DSCP to the usual
// default (dscp>>3) unless that is the no-drop or CNP class, in which case
// class 0, so nothing else shares the lossless or the CNP queue.
func DSCPClasses(p intent.Policy) [64]int {
	var tc [64]int
	for d := range tc {
		tc[d] = d >> 3
		if tc[d] == p.NoDropPriority || tc[d] == p.CNPPriority {
			tc[d] = 0
		}
	}
	for _, d := range p.RoCEDSCP {
		if d >= 0 && d < 64 {
			tc[d] = p.NoDropPriority
		}
	}
	if p.CNPDSCP >= 0 && p.CNPDSCP < 64 {
		tc[p.CNPDSCP] = p.CNPPriority
	}
	return tc
}

// CheckDSCPs refuses code points outside 0..63 and a RoCE DSCP that is
// also the CNP one.
func CheckDSCPs(p intent.Policy) error {
	if p.CNPDSCP < 0 || p.CNPDSCP > 63 {
		return fmt.Errorf("CNP DSCP %d is outside 0..63", p.CNPDSCP)
	}
	for _, d := range p.RoCEDSCP {
		if d < 0 || d > 63 {
			return fmt.Errorf("RoCE DSCP %d is outside 0..63", d)
		}
		if d == p.CNPDSCP {
			return fmt.Errorf("DSCP %d is both a RoCE and the CNP code point", d)
		}
	}
	return nil
}

// TrafficClasses is the class plan of platforms that map every code point
// to one of eight traffic classes explicitly (OpenConfig, SONiC).
type TrafficClasses struct {
	RoCE     int   // the RoCE (no-drop) class
	CNP      int   // the strict-priority CNP class
	Lossless []int // PFC-enabled classes, sorted (empty when PFC is off)
	Other    int   // where every other DSCP or PCP goes
}

// PlanClasses checks the priorities and picks the class for other
// traffic: the lowest one that is neither RoCE, CNP nor lossless.
func PlanClasses(p intent.Policy) (TrafficClasses, error) {
	c := TrafficClasses{RoCE: p.NoDropPriority, CNP: p.CNPPriority, Other: -1}
	for _, prio := range []int{c.RoCE, c.CNP} {
		if prio < 0 || prio > 7 {
			return c, fmt.Errorf("priority %d is outside 0..7", prio)
		}
	}
	if c.RoCE == c.CNP {
		return c, fmt.Errorf("CNP priority %d equals the no-drop priority: CNP must be strict priority and not PFC-enabled", c.CNP)
	}
	if p.PFCOn() {
		for _, prio := range p.PFCPriorities {
			if prio < 0 || prio > 7 {
				return c, fmt.Errorf("PFC priority %d is outside 0..7", prio)
			}
			if prio == c.CNP {
				return c, fmt.Errorf("PFC priority %d is the CNP priority: CNP must not be PFC-enabled", prio)
			}
			if !slices.Contains(c.Lossless, prio) {
				c.Lossless = append(c.Lossless, prio)
			}
		}
		slices.Sort(c.Lossless)
	}
	for tc := 0; tc < 8; tc++ {
		if tc != c.RoCE && tc != c.CNP && !slices.Contains(c.Lossless, tc) {
			c.Other = tc
			break
		}
	}
	if c.Other < 0 {
		return c, fmt.Errorf("no traffic class is left for other traffic")
	}
	return c, nil
}

// ClassOf is the class a priority value (PCP) lands in.
func (c TrafficClasses) ClassOf(prio int) int {
	if prio == c.RoCE || prio == c.CNP || slices.Contains(c.Lossless, prio) {
		return prio
	}
	return c.Other
}

// CLIBytesPair writes a minimum and maximum threshold with one unit
// keyword, the largest that divides both exactly: every vendor example
// writes both thresholds in the same unit (150000 and 1500000 are "150
// kbytes" and "1500 kbytes"; 153600 and 3000000 are both in bytes, never
// "153600 bytes" and "3 mbytes").
func CLIBytesPair(lo, hi uint64) (string, string) {
	unit, div := "bytes", uint64(1)
	switch {
	case lo != 0 && hi != 0 && lo%1_000_000 == 0 && hi%1_000_000 == 0:
		unit, div = "mbytes", 1_000_000
	case lo != 0 && hi != 0 && lo%1000 == 0 && hi%1000 == 0:
		unit, div = "kbytes", 1000
	}
	return strconv.FormatUint(lo/div, 10) + " " + unit, strconv.FormatUint(hi/div, 10) + " " + unit
}

// DecimalSeconds writes d in seconds with as few decimals as it needs
// (200ms is "0.2", 2s is "2"), exactly: d must be a whole number of
// milliseconds.
func DecimalSeconds(d time.Duration) string {
	ms := d.Milliseconds()
	s := strconv.FormatInt(ms/1000, 10)
	if frac := ms % 1000; frac != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%03d", frac), "0")
	}
	return s
}

// WatchdogMillis writes a PFC watchdog time in whole milliseconds, for
// platforms that count it so (SONiC pfcwd): def when the intent leaves it
// unset, an error for a time the platform cannot hold exactly or outside
// its lo..hi.
func WatchdogMillis(platform, what string, d time.Duration, def, lo, hi int) (string, error) {
	if d == 0 {
		return strconv.Itoa(def), nil
	}
	if d%time.Millisecond != 0 {
		return "", fmt.Errorf("PFC watchdog %s time %s is not a whole number of milliseconds", what, d)
	}
	ms := d.Milliseconds()
	if ms < int64(lo) || ms > int64(hi) {
		return "", fmt.Errorf("PFC watchdog %s time %s is outside %s's %d..%d ms", what, d, platform, lo, hi)
	}
	return strconv.FormatInt(ms, 10), nil
}

// ExpandVLANs replaces each top-level VLAN list line of a running config
// ("vlan 1,100-102") by one "vlan N" line per VLAN, each with a copy of the
// list's sub-mode lines, so each VLAN can be owned on its own. A VLAN that
// appears again is merged into its first line; a list that is not one
// (out of range, too long) is kept as printed.
func ExpandVLANs(nodes []*devcfg.Node) []*devcfg.Node {
	out := make([]*devcfg.Node, 0, len(nodes))
	byLine := map[string]*devcfg.Node{}
	add := func(n *devcfg.Node) {
		if prev, ok := byLine[n.Line]; ok && strings.HasPrefix(n.Line, "vlan ") {
			prev.Children = append(prev.Children, n.Children...)
			return
		}
		byLine[n.Line] = n
		out = append(out, n)
	}
	for _, n := range nodes {
		list, ok := strings.CutPrefix(n.Line, "vlan ")
		if !ok || !strings.ContainsAny(list, ",-") {
			add(n)
			continue
		}
		ids, err := devcfg.ParseIDList(list, 1, 4094)
		if err != nil {
			add(n)
			continue
		}
		for _, id := range ids {
			add(&devcfg.Node{Line: "vlan " + strconv.Itoa(id), Children: cloneNodes(n.Children)})
		}
	}
	return out
}

func cloneNodes(ns []*devcfg.Node) []*devcfg.Node {
	out := make([]*devcfg.Node, 0, len(ns))
	for _, n := range ns {
		out = append(out, n.Clone())
	}
	return out
}
