package lint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/validators/consistency"
)

// LinkFinding is one disagreement between the two ends of a cable.
type LinkFinding struct {
	Severity intent.Severity
	// Field is the lossless field the ends disagree on (switch links).
	Field string
	// At is where to fix it: the override that made the ends differ, else
	// the cable.
	At      intent.Loc
	Message string
}

// linkEnds checks both ends of every cable (CheckLink) and reports what
// they disagree on: RF135 for two switches, RF136 for a host and its port.
func (c *checker) linkEnds() {
	for _, l := range c.r.Links {
		var settings *devcfg.HostSettings
		if l.HostEnd != nil {
			var ok bool
			if settings, ok = c.hostSettings[l.HostEnd.Device]; !ok {
				continue // the host did not render: RF134
			}
		}
		code := CodeLinkEnds
		if l.HostEnd != nil {
			code = CodeHostLink
		}
		for _, f := range CheckLink(c.r, c.reg, l, settings) {
			key := fmt.Sprintf("le|%s|%s", f.At, f.Message)
			if c.seen[key] {
				continue
			}
			c.seen[key] = true
			if f.Severity == intent.SeverityError {
				c.errorf(f.At, code, "%s", f.Message)
			} else {
				c.warnf(f.At, code, "%s", f.Message)
			}
		}
	}
}

// CheckLink compares the two ends of one cable. The lossless class must be
// the same hop by hop: a switch that pauses priority 4 while its neighbour
// sends RoCE on 3, or that classifies another DSCP, makes the path lossy
// there whatever each switch's own configuration says. A host NIC and its
// switch port are compared as the consistency check compares them on live
// hosts, with the host's settings given (rendered or read back; nil
// renders them).
func CheckLink(r *intent.Resolved, reg *renderers.Registry, l intent.Link, settings *devcfg.HostSettings) []LinkFinding {
	if l.HostEnd != nil {
		h := r.Host(l.HostEnd.Device)
		if h == nil {
			return nil
		}
		findings, err := consistency.CheckHost(r, reg, h, settings)
		if err != nil {
			return []LinkFinding{{Severity: intent.SeverityError, At: l.At, Message: err.Error()}}
		}
		var out []LinkFinding
		for _, f := range findings {
			if f.NIC != l.HostEnd.Port {
				continue
			}
			sev := intent.SeverityError
			if f.Severity != consistency.Error {
				sev = intent.SeverityWarning
			}
			out = append(out, LinkFinding{Severity: sev, Field: f.Code, At: l.At, Message: f.Message})
		}
		return out
	}
	a, b := r.Switch(l.A.Device), r.Switch(l.B.Device)
	if a == nil || b == nil {
		return nil
	}
	return switchLink(reg, l, a, b)
}

func switchLink(reg *renderers.Registry, l intent.Link, a, b *intent.Switch) []LinkFinding {
	var out []LinkFinding
	pa, pb := a.Policy, b.Policy
	ends := fmt.Sprintf("link %s – %s", l.A, l.B)
	// where points at the override that made the ends differ: the end
	// whose value was written closer to the device.
	where := func(field string) intent.Loc {
		la, wa := pa.Written(field)
		lb, wb := pb.Written(field)
		switch {
		case wa && !wb:
			return la
		case wb && !wa:
			return lb
		}
		return l.At
	}
	report := func(field, format string, args ...any) {
		out = append(out, LinkFinding{Severity: intent.SeverityError, Field: field, At: where(field),
			Message: fmt.Sprintf("%s: "+format, append([]any{ends}, args...)...)})
	}
	if pa.NoDropPriority != pb.NoDropPriority {
		report("noDropPriority", "%s carries RoCE on no-drop priority %d but %s on %d: the class is lossy across this hop",
			a.Name, pa.NoDropPriority, b.Name, pb.NoDropPriority)
	}
	followsNoDrop := func(p intent.Policy) bool { return slices.Equal(p.PFCPriorities, []int{p.NoDropPriority}) }
	if pa.PFCBitmap() != pb.PFCBitmap() && !(pa.NoDropPriority != pb.NoDropPriority && followsNoDrop(pa) && followsNoDrop(pb) && pa.PFCOn() == pb.PFCOn()) {
		report("pfc.priorities", "%s pauses priorities %s but %s pauses %s: a pause one end sends the other ignores, and the lossless class drops",
			a.Name, prioList(pa), b.Name, prioList(pb))
	}
	if !sameSet(pa.RoCEDSCP, pb.RoCEDSCP) {
		report("roceDscp", "%s classifies DSCP %s as RoCE but %s classifies %s: RoCE marked with the others lands in a lossy queue on one end",
			a.Name, joinInts(pa.RoCEDSCP), b.Name, joinInts(pb.RoCEDSCP))
	}
	if pa.Trust != pb.Trust {
		report("trust", "%s trusts %s but %s trusts %s: the two ends classify RoCE differently", a.Name, pa.Trust, b.Name, pb.Trust)
	}
	if pa.Trust == "pcp" && pb.Trust == "pcp" && pa.VLAN != pb.VLAN {
		report("vlan", "%s carries the lossless class in VLAN %d but %s in VLAN %d: PCP is lost between them", a.Name, pa.VLAN, b.Name, pb.VLAN)
	}
	if pa.ECNOn() && pb.ECNOn() && (pa.CNPDSCP != pb.CNPDSCP || pa.CNPPriority != pb.CNPPriority) {
		field := "cnp.dscp"
		if pa.CNPDSCP == pb.CNPDSCP {
			field = "cnp.priority"
		}
		report(field, "%s puts CNPs (DSCP %d) on priority %d but %s puts DSCP %d on %d: CNPs miss the strict-priority queue on one end, and DCQCN reacts late",
			a.Name, pa.CNPDSCP, pa.CNPPriority, b.Name, pb.CNPDSCP, pb.CNPPriority)
	}
	if pa.ECNOn() != pb.ECNOn() || pa.PFCOn() != pb.PFCOn() {
		report("profile", "%s runs profile %s but %s runs %s: congestion is handled differently on each end", a.Name, pa.Profile, b.Name, pb.Profile)
	}
	if f, ok := linkMTU(reg, l, a, b, ends); ok {
		out = append(out, f)
	}
	return out
}

// linkMTU warns when the two ends of a switch link have different L3 MTUs
// and at least one was written: routers drop or refuse the packets between
// the two sizes. Two ends at their platform's "max" differ by design (EOS
// 9214, NX-OS 9216) and are not reported; RF106 guards RoCE's own packets.
func linkMTU(reg *renderers.Registry, l intent.Link, a, b *intent.Switch, ends string) (LinkFinding, bool) {
	ea, err1 := reg.Lookup(a.Platform)
	eb, err2 := reg.Lookup(b.Platform)
	if err1 != nil || err2 != nil {
		return LinkFinding{}, false
	}
	ma, mb := ea.SwitchMTU(a.Policy), eb.SwitchMTU(b.Policy)
	if ma == mb || (a.Policy.SwitchMTU.Max && b.Policy.SwitchMTU.Max) {
		return LinkFinding{}, false
	}
	at := l.At
	if loc, ok := a.Policy.Written("mtu.switch"); ok && !a.Policy.SwitchMTU.Max {
		at = loc
	} else if loc, ok := b.Policy.Written("mtu.switch"); ok {
		at = loc
	}
	return LinkFinding{Severity: intent.SeverityWarning, Field: "mtu.switch", At: at,
		Message: fmt.Sprintf("%s: %s has MTU %d but %s has %d: packets between the two sizes are dropped on one end (make both ends the same)", ends, a.Name, ma, b.Name, mb)}, true
}

func prioList(p intent.Policy) string {
	if !p.PFCOn() {
		return "none (PFC off)"
	}
	prios := slices.Clone(p.PFCPriorities)
	slices.Sort(prios)
	return joinInts(prios)
}

func sameSet(a, b []int) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(slices.Compact(x), slices.Compact(y))
}

func joinInts(s []int) string {
	parts := make([]string, len(s))
	for i, v := range s {
		parts[i] = fmt.Sprint(v)
	}
	return strings.Join(parts, ", ")
}
