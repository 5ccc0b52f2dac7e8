package path

import (
	"net/netip"
	"strings"
)

// Hop is what one TTL of a trace drew: the address that answered "time
// exceeded", or nothing.
type Hop struct {
	TTL  int
	From netip.Addr // invalid: no answer
}

// Trace is one flow's discovery: the router hops in TTL order, and whether
// the destination itself answered at the TTL after the last of them.
type Trace struct {
	SrcHost, DstHost string
	Src, Dst         netip.Addr
	Hops             []Hop
	Reached          bool
}

// Step is one device on a path: a router hop, or the destination host last.
type Step struct {
	TTL    int    `json:"ttl"`
	Device string `json:"device,omitempty"` // "" while unknown
	// Addr is the address that answered; Port is the port it maps to.
	Addr netip.Addr `json:"addr,omitzero"`
	Port string     `json:"port,omitempty"`
	// Answered: a reply came from this hop. Unmapped: from an address the
	// intent does not list. Inferred: silent, but the cabling around it
	// leaves only Device.
	Answered bool `json:"answered"`
	Unmapped bool `json:"unmapped,omitempty"`
	Inferred bool `json:"inferred,omitempty"`
	// Gap: hops before this one were not traced (the trace gave up); In
	// is then only the destination's own cable.
	Gap bool `json:"gap,omitempty"`
	// In is the link the flow entered this step by: one when known,
	// several when the evidence leaves a choice, none when unknown.
	In []DirLink `json:"in"`
}

// Known is a step whose device is certain: it answered from a mapped
// address, or it is the flow's destination.
func (s Step) Known() bool { return s.Device != "" && !s.Inferred }

// Path is a flow's resolved path.
type Path struct {
	SrcHost string `json:"src"`
	DstHost string `json:"dst"`
	// Steps are the router hops in TTL order, then the destination host.
	Steps   []Step `json:"steps"`
	Reached bool   `json:"reached"`
}

// Complete is a path whose every hop answered from an address in the
// intent and that reached its destination.
func (p Path) Complete() bool {
	if !p.Reached {
		return false
	}
	for _, s := range p.Steps {
		if !s.Known() || len(s.In) != 1 || s.Gap {
			return false
		}
	}
	return true
}

// Unknown lists the router hops that did not answer or answered from an
// address the intent does not list.
func (p Path) Unknown() []Step {
	var out []Step
	for _, s := range p.Steps {
		if !s.Known() || s.Gap {
			out = append(out, s)
		}
	}
	return out
}

// String shows the devices in order; an unknown hop is "?", an inferred
// one "(spine1?)".
func (p Path) String() string {
	parts := []string{p.SrcHost}
	for _, s := range p.Steps {
		if s.Gap {
			parts = append(parts, "…")
		}
		switch {
		case s.Inferred && s.Unmapped:
			parts = append(parts, s.Addr.String()+" ("+s.Device+"?)")
		case s.Inferred:
			parts = append(parts, "("+s.Device+"?)") // by cabling
		case s.Device == "" && s.Unmapped:
			parts = append(parts, "?"+s.Addr.String())
		case s.Device == "":
			parts = append(parts, "?")
		default:
			parts = append(parts, s.Device)
		}
	}
	return strings.Join(parts, " → ")
}

// Signature identifies the path by its links, for noticing a change.
func (p Path) Signature() string {
	var b strings.Builder
	b.WriteString(p.SrcHost)
	for _, s := range p.Steps {
		b.WriteString(" > ")
		if len(s.In) == 1 {
			b.WriteString(s.In[0].String())
		} else {
			b.WriteString("?" + s.Device)
		}
	}
	if !p.Reached {
		b.WriteString(" (not reached)")
	}
	return b.String()
}

// Resolve maps a trace onto the topology.
func (t *Topology) Resolve(tr Trace) Path {
	p := Path{SrcHost: tr.SrcHost, DstHost: tr.DstHost, Reached: tr.Reached}
	hops := tr.Hops
	gap := false
	if !tr.Reached {
		// Trailing silence says nothing about how many routers are left.
		for len(hops) > 0 && !hops[len(hops)-1].From.IsValid() {
			hops = hops[:len(hops)-1]
		}
		gap = true
	}
	for _, h := range hops {
		s := Step{TTL: h.TTL, Addr: h.From, Answered: h.From.IsValid()}
		if s.Answered {
			if port, ok := t.Lookup(h.From); ok {
				s.Device, s.Port = port.Device, port.Port
			} else {
				s.Unmapped = true
			}
		}
		p.Steps = append(p.Steps, s)
	}
	src := PortRef{Device: tr.SrcHost}
	if nic, ok := t.NIC(tr.SrcHost, tr.Src); ok {
		src = nic
	}
	if len(p.Steps) == 0 && gap {
		// Nothing answered, not even the first hop: still, the switch the
		// source NIC is cabled to is the first.
		if peer, ok := t.cable[src]; ok && t.switches[peer.Device] {
			p.Steps = append(p.Steps, Step{TTL: 1, Device: peer.Device, Inferred: true})
		}
	}
	dst := Step{TTL: len(p.Steps) + 1, Device: tr.DstHost, Answered: tr.Reached, Gap: gap}
	if nic, ok := t.NIC(tr.DstHost, tr.Dst); ok {
		dst.Port = nic.Port
	}
	if tr.Reached {
		dst.Addr = tr.Dst
	}
	p.Steps = append(p.Steps, dst)

	// A silent hop (or one answering from an address the intent does not
	// list) may have only one device the cabling allows: the switch a host
	// NIC is cabled to, or the one device joining its known neighbours.
	for i := range p.Steps {
		s := &p.Steps[i]
		if s.Device != "" || s.Gap || i+1 >= len(p.Steps) {
			continue
		}
		prev, prevPort := src.Device, src
		if i > 0 {
			prev, prevPort = p.Steps[i-1].Device, PortRef{}
		}
		if d := t.between(prev, prevPort, p.Steps[i+1]); d != "" {
			s.Device, s.Inferred = d, true
		}
	}
	// The link into each step.
	for i := range p.Steps {
		s := &p.Steps[i]
		if s.Gap {
			// Hops are missing before it; its own cable is still known.
			if peer, ok := t.cable[PortRef{s.Device, s.Port}]; ok && s.Port != "" {
				s.In = []DirLink{{From: peer, To: PortRef{s.Device, s.Port}}}
			}
			continue
		}
		prev, prevPort := src.Device, src
		if i > 0 {
			prev, prevPort = p.Steps[i-1].Device, PortRef{}
		}
		s.In = t.linksInto(prev, prevPort, *s, tr.DstHost)
	}
	return p
}

// between is the one switch the cabling allows after prev (left by
// prevPort, when known) and before next, or "".
func (t *Topology) between(prev string, prevPort PortRef, next Step) string {
	var from []string
	switch {
	case prevPort.Port != "":
		if peer, ok := t.cable[prevPort]; ok {
			from = []string{peer.Device}
		}
	case prev != "":
		for _, l := range t.adj[prev] {
			from = append(from, l.To.Device)
		}
	}
	fits := func(x string) bool {
		switch {
		case t.hosts[x]:
			return false
		case next.Gap || next.Device == "":
			return true
		case next.Port != "" && !next.Inferred:
			peer, ok := t.cable[PortRef{next.Device, next.Port}]
			return ok && peer.Device == x
		default:
			return len(t.Between(x, next.Device)) > 0
		}
	}
	found := ""
	for _, x := range from {
		if x == found || !fits(x) {
			continue
		}
		if found != "" {
			return ""
		}
		found = x
	}
	if found == "" || (len(from) > 1 && (next.Gap || next.Device == "")) {
		return "" // only the previous hop constrains it, and not to one device
	}
	return found
}

// linksInto is the candidate links from prev into step s. prevPort is
// the port the flow left prev by, when that is known (the source NIC).
func (t *Topology) linksInto(prev string, prevPort PortRef, s Step, dst string) []DirLink {
	var cands []DirLink
	switch {
	case prev != "" && s.Device != "":
		cands = t.Between(prev, s.Device)
	case s.Device != "" && s.Port != "":
		if peer, ok := t.cable[PortRef{s.Device, s.Port}]; ok {
			cands = []DirLink{{peer, PortRef{s.Device, s.Port}}}
		}
	case s.Device != "":
		for _, l := range t.adj[s.Device] {
			cands = append(cands, l.Reverse())
		}
	case prev != "":
		// Onwards to any switch, or to the destination host.
		for _, l := range t.Out(prev) {
			if !t.hosts[l.To.Device] || l.To.Device == dst {
				cands = append(cands, l)
			}
		}
	}
	narrow := func(keep func(DirLink) bool) {
		var out []DirLink
		for _, c := range cands {
			if keep(c) {
				out = append(out, c)
			}
		}
		if len(out) > 0 {
			cands = out
		}
	}
	if prevPort.Port != "" {
		narrow(func(d DirLink) bool { return d.From == prevPort })
	}
	// A router answers from the port the packet came in on (where it
	// answers from its egress port, one link between two devices still
	// maps it).
	if s.Port != "" && len(cands) > 1 {
		narrow(func(d DirLink) bool { return d.To.Port == s.Port })
	}
	return cands
}
