package mesh

import (
	"context"
	"fmt"
	"hash/fnv"
	"net/netip"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/validators/probe"
	"github.com/rocefab/rocefab/validators/probe/path"
)

// simFabric is a leaf-spine fabric on paper: leaf<i> port up<j> to spine<j>
// port down<i>, host l<i>h<k> eth0 to leaf<i> port h<k>, every switch end
// addressed (IPv6, documentation prefix), ECMP simulated by a hash of the
// 5-tuple.
type simFabric struct {
	leaves, spines, hosts int
	res                   *intent.Resolved
	topo                  *path.Topology
}

func (s *simFabric) hostName(l, k int) string { return fmt.Sprintf("l%dh%d", l, k) }
func hostAddr(l, k int) string                { return fmt.Sprintf("2001:db8:1:%x::%x", l, k) }
func leafHostPort(l, k int) string            { return fmt.Sprintf("2001:db8:2:%x::%x", l, k) }
func leafUp(l, s int) string                  { return fmt.Sprintf("2001:db8:3:%x::%x", l, s) }
func spineDown(s, l int) string               { return fmt.Sprintf("2001:db8:4:%x::%x", s, l) }

func newSimFabric(t testing.TB, leaves, spines, hosts int) *simFabric {
	t.Helper()
	var b strings.Builder
	b.WriteString("apiVersion: rocefab.io/v1alpha1\nkind: Fabric\nmetadata: {name: sim}\nspec:\n  groups: [{name: r, platform: linux, transport: netlink}]\n  switches:\n")
	for l := 1; l <= leaves; l++ {
		fmt.Fprintf(&b, "    - {name: leaf%d, group: r, netns: x, ports: [{names: [h1-%d, up1-%d], mode: routed}]}\n", l, hosts, spines)
	}
	for s := 1; s <= spines; s++ {
		fmt.Fprintf(&b, "    - {name: spine%d, group: r, netns: x, ports: [{names: down1-%d, mode: routed}]}\n", s, leaves)
	}
	b.WriteString("  hosts:\n")
	for l := 1; l <= leaves; l++ {
		for k := 1; k <= hosts; k++ {
			fmt.Fprintf(&b, "    - {name: l%dh%d, netns: x, nics: [{netdev: eth0, address: \"%s\"}]}\n", l, k, hostAddr(l, k))
		}
	}
	b.WriteString("  links:\n")
	for l := 1; l <= leaves; l++ {
		for k := 1; k <= hosts; k++ {
			fmt.Fprintf(&b, "    - {a: l%dh%d:eth0, b: leaf%d:h%d, bAddress: \"%s\"}\n", l, k, l, k, leafHostPort(l, k))
		}
		for s := 1; s <= spines; s++ {
			fmt.Fprintf(&b, "    - {a: leaf%d:up%d, b: spine%d:down%d, aAddress: \"%s\", bAddress: \"%s\"}\n", l, s, s, l, leafUp(l, s), spineDown(s, l))
		}
	}
	fab, diags := intent.LoadBytes("sim.yaml", []byte(b.String()))
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	res, diags := intent.Resolve(fab)
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	return &simFabric{leaves: leaves, spines: spines, hosts: hosts, res: res, topo: path.New(res)}
}

// where is host name's leaf and index.
func (s *simFabric) where(name string) (leaf, k int) {
	fmt.Sscanf(name, "l%dh%d", &leaf, &k)
	return leaf, k
}

// spineFor is the simulated ECMP choice of a flow: a hash of its 5-tuple.
func (s *simFabric) spineFor(src, dst netip.Addr, port uint16) int {
	h := fnv.New32a()
	fmt.Fprintf(h, "%s %s %d 4791", src, dst, port)
	return 1 + int(h.Sum32()%uint32(s.spines))
}

// hops are the router addresses a flow's trace meets, TTL 1 first.
func (s *simFabric) hops(from, to string, src, dst netip.Addr, port uint16) []netip.Addr {
	sl, sk := s.where(from)
	dl, _ := s.where(to)
	out := []netip.Addr{netip.MustParseAddr(leafHostPort(sl, sk))}
	if sl != dl {
		sp := s.spineFor(src, dst, port)
		out = append(out, netip.MustParseAddr(spineDown(sp, sl)), netip.MustParseAddr(leafUp(dl, sp)))
	}
	return out
}

// lookup knows every path: what a trace would learn.
func (s *simFabric) lookup(c Candidate) (path.Path, bool) {
	var hops []path.Hop
	for i, a := range s.hops(c.From, c.To, c.Src, c.Dst, c.SrcPort) {
		hops = append(hops, path.Hop{TTL: i + 1, From: a})
	}
	return s.topo.Resolve(path.Trace{SrcHost: c.From, DstHost: c.To, Src: c.Src, Dst: c.Dst, Hops: hops, Reached: true}), true
}

// simFault changes what crosses one directed link.
type simFault struct {
	link  path.DirLink
	class string // dscp, ecn, ce, loss, mtu
}

func (s *simFabric) upLink(l, sp int) path.DirLink {
	return path.DirLink{From: path.PortRef{Device: fmt.Sprintf("leaf%d", l), Port: fmt.Sprintf("up%d", sp)},
		To: path.PortRef{Device: fmt.Sprintf("spine%d", sp), Port: fmt.Sprintf("down%d", l)}}
}

// flowResult simulates what one flow would return, with the faults
// applied on the links it crosses (forward; a lossy link loses 5 of the
// data packets and 5% of the replies from beyond it).
func (s *simFabric) flowResult(from string, spec probe.FlowSpec, faults []simFault, pol probe.Policy) probe.FlowResult {
	to := spec.Target.Name
	c := Candidate{From: from, To: to, Src: spec.Src, Dst: spec.Target.Addr, SrcPort: spec.SrcPort}
	p, _ := s.lookup(c)
	addrs := s.hops(from, to, c.Src, c.Dst, c.SrcPort)
	r := probe.FlowResult{ID: spec.ID, From: from, To: to, Src: c.Src, SrcPort: c.SrcPort, Dst: c.Dst, DstPort: 4791}
	dscp, ecn := pol.RoCEDSCP, pol.ECN
	bigOK, lost, lossAt := true, 0, -1
	apply := func(i int, link path.DirLink) {
		for _, ft := range faults {
			if ft.link != link {
				continue
			}
			switch ft.class {
			case "dscp":
				dscp = 8
			case "ecn":
				ecn = probe.NotECT
			case "ce":
				ecn = probe.CE
			case "mtu":
				bigOK = false
			case "loss":
				lost = 5
				if lossAt < 0 {
					lossAt = i
				}
			}
		}
	}
	tr := &probe.FlowTrace{Reached: true, BigSent: 2}
	for i, a := range addrs {
		apply(i, p.Steps[i].In[0])
		h := probe.TraceHop{TTL: i + 1, From: a, DSCP: dscp, ECN: ecn, BigSent: 2}
		if bigOK {
			h.BigReached = 2
		}
		tr.Hops = append(tr.Hops, h)
	}
	apply(len(addrs), p.Steps[len(p.Steps)-1].In[0])
	if bigOK {
		tr.BigReached = 2
	}
	if spec.Trace {
		r.Trace = tr
	}
	if spec.Measure {
		m := &probe.Measurements{Reachable: true, StatsExchanged: true, Flows: 1, IntentMTU: pol.HostMTU}
		m.Sent, m.Received = pol.Count, pol.Count-lost
		m.DSCPSent, m.ECNSent = pol.RoCEDSCP, pol.ECN
		m.DSCPReceived = map[uint8]int{dscp: m.Received}
		m.ECNReceived = map[probe.ECN]int{ecn: m.Received}
		if ecn == probe.CE {
			m.CEMarked = m.Received
		}
		r.Measured = m
		r.MTU = &probe.FlowMTU{Size: pol.HostMTU, Sent: 3}
		if bigOK {
			r.MTU.Received = 3
		}
	}
	if !spec.Trace && !spec.Measure && spec.HopLoss > 0 {
		for ttl := 1; ttl <= spec.Hops; ttl++ {
			hl := probe.HopLoss{TTL: ttl, Sent: spec.HopLoss, Answered: spec.HopLoss}
			if lossAt >= 0 && ttl-1 >= lossAt {
				hl.Answered = spec.HopLoss * 95 / 100
			}
			r.HopLoss = append(r.HopLoss, hl)
		}
	}
	return r
}

// simRunner runs flows on the paper fabric.
type simRunner struct {
	s      *simFabric
	faults []simFault
	runs   int
	// noICMP: path discovery fails, as without a raw ICMP socket.
	noICMP bool
}

func (sr *simRunner) RunFlows(_ context.Context, _ *intent.Resolved, from *intent.Host, run probe.FlowRun) ([]probe.FlowResult, error) {
	sr.runs++
	var out []probe.FlowResult
	for _, spec := range run.Flows {
		r := sr.s.flowResult(from.Name, spec, sr.faults, run.Policy)
		if sr.noICMP && spec.Trace {
			r.Trace, r.TraceError = nil, "path discovery needs a raw ICMP socket (CAP_NET_RAW; run as root)"
		}
		out = append(out, r)
	}
	return out, nil
}

// results simulates every planned flow, by sending host.
func (s *simFabric) results(pl *Plan, faults []simFault, pol probe.Policy) []probe.FlowResult {
	var out []probe.FlowResult
	for _, f := range pl.Flows {
		out = append(out, s.flowResult(f.From, probe.FlowSpec{ID: f.ID, Target: probe.Target{Name: f.To, Addr: f.Dst}, Src: f.Src,
			SrcPort: f.SrcPort, Trace: true, Measure: true}, faults, pol))
	}
	return out
}
