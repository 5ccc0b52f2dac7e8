package mesh

import (
	"fmt"
	"net/netip"
	"slices"

	"github.com/rocefab/rocefab/validators/localize"
	"github.com/rocefab/rocefab/validators/probe"
	"github.com/rocefab/rocefab/validators/probe/path"
)

// TraceOf turns a flow's trace into the path package's terms.
func TraceOf(r probe.FlowResult) path.Trace {
	tr := path.Trace{SrcHost: r.From, DstHost: r.To, Src: r.Src, Dst: r.Dst}
	if r.Trace == nil {
		return tr
	}
	for _, h := range r.Trace.Hops {
		tr.Hops = append(tr.Hops, path.Hop{TTL: h.TTL, From: h.From})
	}
	tr.Reached = r.Trace.Reached
	return tr
}

func elem(d path.DirLink) localize.Element {
	return localize.Link(d.From.Device, d.From.Port, d.To.Device, d.To.Port)
}

func linkSeg(ds []path.DirLink) localize.Segment {
	seg := make(localize.Segment, 0, len(ds))
	for _, d := range ds {
		seg = append(seg, elem(d))
	}
	return seg
}

// deviceSeg is the step's device, or the devices its candidate links lead
// to.
func deviceSeg(s path.Step) localize.Segment {
	if s.Device != "" {
		return localize.Segment{localize.Device(s.Device)}
	}
	var seg localize.Segment
	for _, d := range s.In {
		e := localize.Device(d.To.Device)
		if !slices.Contains(seg, e) {
			seg = append(seg, e)
		}
	}
	return seg
}

// segments is the whole path as segments, and where each step's link
// ends in it: the path up to the link into step i is segs[:ends[i]]. The
// prefixes share the segments, which keeps a fabric's observations small.
func segments(p path.Path) (segs []localize.Segment, ends []int) {
	segs = make([]localize.Segment, 0, 1+3*len(p.Steps))
	segs = append(segs, localize.Segment{localize.Device(p.SrcHost)})
	for _, s := range p.Steps {
		if s.Gap {
			segs = append(segs, nil) // some hops were never traced
		}
		segs = append(segs, linkSeg(s.In))
		ends = append(ends, len(segs))
		segs = append(segs, deviceSeg(s))
	}
	return segs, ends
}

// returnSegs is how a reply from step n's device travels back to the
// source, per the cabling.
func returnSegs(topo *path.Topology, p path.Path, n int) []localize.Segment {
	s := p.Steps[n]
	if s.Device == "" {
		return []localize.Segment{nil}
	}
	var segs []localize.Segment
	for _, step := range topo.ReturnPath(s.Device, p.SrcHost) {
		segs = append(segs, linkSeg(step))
		var devs localize.Segment
		for _, d := range step {
			if e := localize.Device(d.To.Device); !slices.Contains(devs, e) && d.To.Device != p.SrcHost {
				devs = append(devs, e)
			}
		}
		if len(devs) > 0 {
			segs = append(segs, devs)
		}
	}
	return segs
}

// AppendObservations appends what the localizer weighs from a flow's
// result and its path: one end-to-end observation per symptom class, and
// one per hop that answered.
func AppendObservations(out []localize.Observation, topo *path.Topology, r probe.FlowResult, p path.Path, pol probe.Policy) []localize.Observation {
	name := fmt.Sprintf("%s:%d → %s", r.From, r.SrcPort, r.To)
	at := func(s path.Step) string {
		if s.Device != "" {
			return s.Device
		}
		return s.Addr.String()
	}
	if len(p.Steps) == 0 {
		return out
	}
	e2e, ends := segments(p)
	dst := p.Steps[len(p.Steps)-1]
	add := func(o localize.Observation) {
		o.Flow = name
		out = append(out, o)
	}
	if m := r.Measured; m != nil {
		switch {
		case !m.Reachable:
			add(localize.Observation{Class: localize.Loss, At: at(dst), Bad: true, Affected: pol.Count, Total: pol.Count,
				Note: "no probe responder answered " + r.To, Path: e2e})
		case m.StatsExchanged:
			sent := int(m.DSCPSent)
			got, n := mostCommonOther(m.DSCPReceived, m.DSCPSent)
			add(localize.Observation{Class: localize.DSCP, At: at(dst), Bad: n > 0, Affected: n, Total: m.Received,
				Expected: sent, Value: int(got), Path: e2e})
			ecn, ne := mostCommonOther(m.ECNReceived, m.ECNSent, probe.CE)
			add(localize.Observation{Class: localize.ECN, At: at(dst), Bad: ne > 0, Affected: ne, Total: m.Received,
				Expected: int(m.ECNSent), Value: int(ecn), Path: e2e})
			add(localize.Observation{Class: localize.CE, At: at(dst), Bad: m.CEMarked > 0, Affected: m.CEMarked, Total: m.Received,
				Value: int(probe.CE), Path: e2e})
			lost := max(0, m.Sent-m.Received)
			add(localize.Observation{Class: localize.Loss, At: at(dst), Bad: lost > 0, Affected: lost, Total: m.Sent, Path: e2e})
		}
	}
	if r.MTU != nil && r.MTU.Sent > 0 {
		// All of them lost: a black hole; one lost of three is loss.
		add(localize.Observation{Class: localize.MTU, At: at(dst), Bad: r.MTU.Received == 0, Affected: r.MTU.Sent - r.MTU.Received,
			Total: r.MTU.Sent, Value: r.MTU.Size, Path: e2e})
	}
	if r.Trace == nil {
		return out
	}
	for i, h := range r.Trace.Hops {
		if i >= len(p.Steps)-1 || !h.Answered() {
			continue
		}
		s := p.Steps[i]
		pre := e2e[:ends[i]:ends[i]]
		where := at(s)
		d := int(h.DSCP)
		add(localize.Observation{Class: localize.DSCP, Hop: h.TTL, At: where, Bad: h.DSCP != pol.RoCEDSCP, Affected: b2i(h.DSCP != pol.RoCEDSCP),
			Total: 1, Expected: int(pol.RoCEDSCP), Value: d, Path: pre})
		ecnChanged := h.ECN != pol.ECN && h.ECN != probe.CE
		add(localize.Observation{Class: localize.ECN, Hop: h.TTL, At: where, Bad: ecnChanged, Affected: b2i(ecnChanged), Total: 1,
			Expected: int(pol.ECN), Value: int(h.ECN), Path: pre})
		add(localize.Observation{Class: localize.CE, Hop: h.TTL, At: where, Bad: h.ECN == probe.CE, Affected: b2i(h.ECN == probe.CE), Total: 1,
			Value: int(h.ECN), Path: pre})
		if h.BigSent > 0 {
			o := localize.Observation{Class: localize.MTU, Hop: h.TTL, At: where, Bad: h.BigReached == 0, Affected: h.BigSent - h.BigReached,
				Total: h.BigSent, Value: pol.HostMTU, Path: pre}
			if h.TooBigFrom.IsValid() {
				o.Note = fmt.Sprintf("%s answered fragmentation needed, next-hop MTU %d", describe(topo, h.TooBigFrom), h.TooBigMTU)
			}
			add(o)
		}
	}
	for _, hl := range r.HopLoss {
		i := hl.TTL - 1
		if i < 0 || i >= len(p.Steps)-1 || hl.Sent == 0 {
			continue
		}
		s := p.Steps[i]
		if s.Device == "" {
			continue
		}
		segs := slices.Concat(e2e[:ends[i]], returnSegs(topo, p, i))
		lost := hl.Sent - hl.Answered
		add(localize.Observation{Class: localize.Loss, Hop: hl.TTL, At: at(s), Bad: lost > 0, Affected: lost, Total: hl.Sent, Path: segs})
	}
	return out
}

// describe names an address by its device, if the intent knows it (not
// by its port: a router answers from the port the packet came in by, not
// the one it could not leave by).
func describe(topo *path.Topology, a netip.Addr) string {
	if p, ok := topo.Lookup(a); ok {
		return p.Device
	}
	return a.String()
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// mostCommonOther is the most frequent value other than want (and skip),
// with its count; ties go to the lower value.
func mostCommonOther[K ~uint8](hist map[K]int, want K, skip ...K) (K, int) {
	var best K
	n := 0
	keys := make([]K, 0, len(hist))
	for k := range hist {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if k == want || slices.Contains(skip, k) {
			continue
		}
		if hist[k] > n {
			best, n = k, hist[k]
		}
	}
	total := 0
	for _, k := range keys {
		if k != want && !slices.Contains(skip, k) {
			total += hist[k]
		}
	}
	return best, total
}
