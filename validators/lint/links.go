package lint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/validators/consistency"
)

// linkEnds checks both ends of every cable. The lossless class must be the
// same hop by hop: a switch that pauses priority 4 while its neighbour
// sends RoCE on 3, or that classifies another DSCP, makes the path lossy
// there whatever each switch's own configuration says (RF141). A host NIC
// and its switch port are compared as the consistency check compares them
// on live hosts, with the settings rocefab renders for the host (RF142).
func (c *checker) linkEnds() {
	for _, l := range c.r.Links {
		if l.HostEnd != nil {
			continue
		}
		a, b := c.r.Switch(l.A.Device), c.r.Switch(l.B.Device)
		if a == nil || b == nil {
			continue
		}
		c.switchLink(l, a, b)
	}
	for _, h := range c.r.Hosts {
		settings, ok := c.hostSettings[h.Name]
		if !ok {
			continue // it did not render: RF137
		}
		findings, err := consistency.CheckHost(c.r, c.reg, h, settings)
		if err != nil {
			continue // a render or platform problem, reported elsewhere
		}
		for _, f := range findings {
			at := c.hostLinkAt(h, f.NIC)
			key := fmt.Sprintf("hl|%s|%s", at, f.Message)
			if c.seen[key] {
				continue
			}
			c.seen[key] = true
			if f.Severity == consistency.Error {
				c.errorf(at, CodeHostLink, "%s", f.Message)
			} else {
				c.warnf(at, CodeHostLink, "%s", f.Message)
			}
		}
	}
}

// hostLinkAt is the cable of a host NIC, where a disagreement is reported.
func (c *checker) hostLinkAt(h *intent.Host, nic string) intent.Loc {
	for _, l := range c.r.Links {
		if l.HostEnd != nil && l.HostEnd.Device == h.Name && l.HostEnd.Port == nic {
			return l.At
		}
	}
	return h.Spec.At("nics")
}

func (c *checker) switchLink(l intent.Link, a, b *intent.Switch) {
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
		at := where(field)
		key := fmt.Sprintf("le|%s|%s|%s|%s", at, field, a.Name, b.Name)
		if c.seen[key] {
			return
		}
		c.seen[key] = true
		c.errorf(at, CodeLinkEnds, "%s: "+format, append([]any{ends}, args...)...)
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
	c.linkMTU(l, a, b, ends)
}

// linkMTU warns when the two ends of a switch link have different L3 MTUs
// and at least one was written: routers drop or refuse the packets between
// the two sizes. Two ends at their platform's "max" differ by design (EOS
// 9214, NX-OS 9216) and are not reported; RF106 guards RoCE's own packets.
func (c *checker) linkMTU(l intent.Link, a, b *intent.Switch, ends string) {
	ea, err1 := c.reg.Lookup(a.Platform)
	eb, err2 := c.reg.Lookup(b.Platform)
	if err1 != nil || err2 != nil {
		return
	}
	ma, mb := ea.SwitchMTU(a.Policy), eb.SwitchMTU(b.Policy)
	if ma == mb || (a.Policy.SwitchMTU.Max && b.Policy.SwitchMTU.Max) {
		return
	}
	at := l.At
	if loc, ok := a.Policy.Written("mtu.switch"); ok && !a.Policy.SwitchMTU.Max {
		at = loc
	} else if loc, ok := b.Policy.Written("mtu.switch"); ok {
		at = loc
	}
	key := fmt.Sprintf("lm|%s|%s|%s", at, a.Name, b.Name)
	if c.seen[key] {
		return
	}
	c.seen[key] = true
	c.warnf(at, CodeLinkEnds, "%s: %s has MTU %d but %s has %d: packets between the two sizes are dropped on one end (make both ends the same)", ends, a.Name, ma, b.Name, mb)
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
