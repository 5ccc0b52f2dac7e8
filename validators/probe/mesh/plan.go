package mesh

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"math"
	"net/netip"
	"slices"
	"time"

	"github.com/rocefab/rocefab/validators/probe/path"
)

// PlanConfig shapes a mesh plan. The zero value of a field means its
// default.
type PlanConfig struct {
	// FlowsPerLink is k: every fabric link carries at least k probe flows
	// in each direction (default 3).
	FlowsPerLink int `json:"flowsPerLink"`
	// Interval is the time the schedule spreads the flows over (default
	// 10 s).
	Interval time.Duration `json:"interval"`
	// HostPPS caps the probe packets a host sends and receives per second,
	// over all its flows at any moment (default 2000).
	HostPPS int `json:"hostPps"`
	// FlowPackets and FlowPPS are each flow's data phase (defaults 200 and
	// 1000); FlowPPS is lowered to fit HostPPS.
	FlowPackets int `json:"flowPackets"`
	FlowPPS     int `json:"flowPps"`
	// AckEvery: the responder acknowledges every AckEvery-th data packet
	// (default 4).
	AckEvery int `json:"ackEvery"`
	// MaxHops is the longest path expected, for the trace's share of the
	// load (default 4: host, leaf, spine, leaf, host).
	MaxHops int `json:"maxHops"`
	// HopLoss is how many TTL-limited probes a lossy flow sends to each of
	// its hops after the interval (default 100; negative: none), one flow
	// at a time per host at half the cap (each probe draws a reply).
	HopLoss int `json:"hopLoss"`
	// Candidates bounds the source ports tried per leaf pair (default 16
	// per spine): an ECMP hash that never picks a link is reported, not
	// searched forever.
	Candidates int `json:"candidates"`
	// Untraced is how many flows per leaf pair to probe even though their
	// paths are unknown (when path discovery fails): the fabric is still
	// probed end to end, if not localized.
	Untraced int `json:"untraced,omitempty"`
}

// Defaults.
const (
	DefaultFlowsPerLink = 3
	DefaultInterval     = 10 * time.Second
	DefaultHostPPS      = 2000
	defaultFlowPackets  = 200
	defaultFlowPPS      = 1000
	defaultAckEvery     = 4
	defaultMaxHops      = 4
	defaultHopLoss      = 100
	// overheadPackets: two stats exchanges before the data, one after it
	// and one after the MTU check, with a retry each, and the MTU check.
	overheadPackets = 8 + 3
	// slots is the schedule's time grid.
	maxSlots = 2000
)

func (c PlanConfig) withDefaults(spines int) PlanConfig {
	if c.FlowsPerLink <= 0 {
		c.FlowsPerLink = DefaultFlowsPerLink
	}
	if c.Interval <= 0 {
		c.Interval = DefaultInterval
	}
	if c.HostPPS <= 0 {
		c.HostPPS = DefaultHostPPS
	}
	if c.FlowPackets <= 0 {
		c.FlowPackets = defaultFlowPackets
	}
	if c.FlowPPS <= 0 {
		c.FlowPPS = defaultFlowPPS
	}
	if c.AckEvery <= 0 {
		c.AckEvery = defaultAckEvery
	}
	if c.MaxHops <= 0 {
		c.MaxHops = defaultMaxHops
	}
	if c.HopLoss == 0 {
		c.HopLoss = defaultHopLoss
	}
	if c.Candidates <= 0 {
		c.Candidates = 16 * max(1, spines)
	}
	// One flow sends FlowPPS and draws FlowPPS/AckEvery replies: at both
	// of its hosts that is its load, which alone must fit the cap.
	if fit := c.HostPPS * c.AckEvery / (c.AckEvery + 1); c.FlowPPS > fit {
		c.FlowPPS = max(1, fit)
	}
	return c
}

// loadPPS is what one flow adds to each of its two hosts' packet rate.
func (c PlanConfig) loadPPS() float64 {
	return float64(c.FlowPPS) * (1 + 1/float64(c.AckEvery))
}

// flowPackets is what one flow sends: trace (a small probe and two of
// the host MTU per hop), data and overhead.
func (c PlanConfig) flowPackets() int {
	return 3*c.MaxHops + c.FlowPackets + overheadPackets
}

// Flow is one planned flow.
type Flow struct {
	ID      string     `json:"id"`
	From    string     `json:"from"`
	To      string     `json:"to"`
	Src     netip.Addr `json:"src"`
	Dst     netip.Addr `json:"dst"`
	SrcPort uint16     `json:"srcPort"`
	// Leaf is the switch both hosts hang off, or "" for a cross-leaf flow.
	Leaf string `json:"leaf,omitempty"`
	// Start and Duration place it in the interval.
	Start    time.Duration `json:"start"`
	Duration time.Duration `json:"duration"`
	// Links are the fabric links (switch to switch) its path crosses, as
	// the plan knew it.
	Links []path.DirLink `json:"links,omitempty"`
}

// Coverage is how many flows cross one fabric link in one direction.
type Coverage struct {
	Link  path.DirLink `json:"link"`
	Flows int          `json:"flows"`
}

// Plan is the mesh: which flows, when.
type Plan struct {
	Config PlanConfig `json:"config"`
	Flows  []Flow     `json:"flows"`
	// Coverage lists every fabric link direction; Short those with fewer
	// than FlowsPerLink flows after every candidate was tried.
	Coverage []Coverage `json:"coverage"`
	Short    []Coverage `json:"short,omitempty"`
	// PeakHostPPS is the highest packet rate the schedule gives a host.
	PeakHostPPS float64 `json:"peakHostPps"`
}

// Candidate is a flow the planner wants the path of.
type Candidate struct {
	From, To string
	Src, Dst netip.Addr
	SrcPort  uint16
}

// Key is the candidate's 5-tuple for the path cache.
func (c Candidate) Key(dstPort uint16) path.Key {
	return path.Key{Src: c.Src, Dst: c.Dst, SrcPort: c.SrcPort, DstPort: dstPort}
}

// PathLookup returns a candidate's known path.
type PathLookup func(Candidate) (path.Path, bool)

// entropy ports, as RoCE NICs use for flow entropy (roce-wire.md §1).
const (
	portMin = 49152
	portMax = 65535
)

// ports hands out source ports: deterministic per (from, to, n), so a
// flow keeps its port (and path) from run to run, and unique per sending
// host, so its flows can run at once.
type ports struct{ used map[string]map[uint16]bool }

func (p *ports) pick(from, to string, n int) uint16 {
	h := fnv.New32a()
	fmt.Fprintf(h, "%s>%s#%d", from, to, n)
	port := uint16(portMin + h.Sum32()%(portMax-portMin+1))
	if p.used[from] == nil {
		p.used[from] = map[uint16]bool{}
	}
	for p.used[from][port] {
		port++
		if port < portMin {
			port = portMin
		}
	}
	p.used[from][port] = true
	return port
}

// NewPlan plans the mesh: every ordered pair of hosts under each leaf,
// then cross-leaf flows chosen by their paths until every fabric link
// carries FlowsPerLink flows each way, trying candidates up to limit per
// leaf pair (0: cfg.Candidates). It returns the candidates whose paths it
// needed but lookup did not know: trace them and plan again. The result
// depends only on its inputs.
func NewPlan(topo *path.Topology, cfg PlanConfig, lookup PathLookup, limit int) (*Plan, []Candidate, error) {
	spines := map[string]bool{}
	for _, l := range topo.FabricLinks() {
		for _, d := range []string{l.A.Device, l.B.Device} {
			if len(topo.HostsUnder(d)) == 0 {
				spines[d] = true
			}
		}
	}
	cfg = cfg.withDefaults(len(spines))
	if limit <= 0 || limit > cfg.Candidates {
		limit = cfg.Candidates
	}
	pl := &Plan{Config: cfg}
	addr := func(host string) (netip.Addr, bool) {
		nic, ok := topo.NIC(host, netip.Addr{})
		if !ok {
			return netip.Addr{}, false
		}
		return topo.NICAddr(nic)
	}
	pp := &ports{used: map[string]map[uint16]bool{}}
	leaves := topo.Leaves()
	for _, leaf := range leaves {
		hosts := topo.HostsUnder(leaf)
		for _, a := range hosts {
			for _, b := range hosts {
				if a == b {
					continue
				}
				sa, ok1 := addr(a)
				da, ok2 := addr(b)
				if !ok1 || !ok2 {
					continue
				}
				pl.Flows = append(pl.Flows, Flow{From: a, To: b, Src: sa, Dst: da, SrcPort: pp.pick(a, b, 0), Leaf: leaf})
			}
		}
	}

	cov := map[path.DirLink]int{}
	for _, l := range topo.FabricLinks() {
		cov[path.DirLink{From: l.A, To: l.B}] = 0
		cov[path.DirLink{From: l.B, To: l.A}] = 0
	}
	// The links a leaf pair can serve: out of A, into B.
	out := map[string][]path.DirLink{}
	in := map[string][]path.DirLink{}
	for d := range cov {
		out[d.From.Device] = append(out[d.From.Device], d)
		in[d.To.Device] = append(in[d.To.Device], d)
	}
	short := func(ds []path.DirLink) bool {
		for _, d := range ds {
			if cov[d] < cfg.FlowsPerLink {
				return true
			}
		}
		return false
	}
	type pair struct{ a, b string }
	var pairs []pair
	for _, a := range leaves {
		for _, b := range leaves {
			if a != b && len(topo.HostsUnder(a)) > 0 && len(topo.HostsUnder(b)) > 0 {
				pairs = append(pairs, pair{a, b})
			}
		}
	}
	var needs []Candidate
	tried := map[Candidate]bool{}
	untraced := map[pair]int{}
	for n := 0; n < limit; n++ {
		for pi, p := range pairs {
			if !short(out[p.a]) && !short(in[p.b]) {
				continue
			}
			ha, hb := topo.HostsUnder(p.a), topo.HostsUnder(p.b)
			from, to := ha[(n+pi)%len(ha)], hb[(n+pi/len(leaves)+n/len(ha))%len(hb)]
			sa, ok1 := addr(from)
			da, ok2 := addr(to)
			if !ok1 || !ok2 {
				continue
			}
			c := Candidate{From: from, To: to, Src: sa, Dst: da, SrcPort: candidatePort(from, to, n)}
			if tried[c] {
				continue
			}
			tried[c] = true
			pa, ok := lookup(c)
			var links []path.DirLink
			switch {
			case ok:
				if links = fabricLinks(pa, cov); !short(links) {
					continue
				}
			case untraced[p] < cfg.Untraced:
				untraced[p]++ // probed blind: it covers no link we can name
			default:
				needs = append(needs, c)
				continue
			}
			if pp.used[from][c.SrcPort] {
				continue // taken by another of this host's flows
			}
			if pp.used[from] == nil {
				pp.used[from] = map[uint16]bool{}
			}
			pp.used[from][c.SrcPort] = true
			for _, d := range links {
				cov[d]++
			}
			pl.Flows = append(pl.Flows, Flow{From: from, To: to, Src: sa, Dst: da, SrcPort: c.SrcPort, Links: links})
		}
	}
	for d, n := range cov {
		pl.Coverage = append(pl.Coverage, Coverage{Link: d, Flows: n})
	}
	slices.SortFunc(pl.Coverage, func(a, b Coverage) int { return cmp.Compare(a.Link.String(), b.Link.String()) })
	for _, c := range pl.Coverage {
		if c.Flows < cfg.FlowsPerLink {
			pl.Short = append(pl.Short, c)
		}
	}
	for i := range pl.Flows {
		f := &pl.Flows[i]
		f.ID = fmt.Sprintf("%s:%d>%s", f.From, f.SrcPort, f.To)
	}
	if err := pl.schedule(); err != nil {
		return pl, needs, err
	}
	return pl, needs, nil
}

// candidatePort is candidate n's source port for a host pair.
func candidatePort(from, to string, n int) uint16 {
	h := fnv.New32a()
	fmt.Fprintf(h, "%s>%s#%d", from, to, n)
	return uint16(portMin + h.Sum32()%(portMax-portMin+1))
}

// fabricLinks are the switch-to-switch links the path certainly crosses.
func fabricLinks(p path.Path, cov map[path.DirLink]int) []path.DirLink {
	var out []path.DirLink
	for _, s := range p.Steps {
		if len(s.In) == 1 {
			if _, fabric := cov[s.In[0]]; fabric {
				out = append(out, s.In[0])
			}
		}
	}
	return out
}

// schedule places every flow in the interval so that no host's probe
// rate exceeds HostPPS at any moment, spreading each host's flows evenly.
func (pl *Plan) schedule() error {
	cfg := pl.Config
	per := time.Duration(math.Ceil(float64(cfg.flowPackets()) / float64(cfg.FlowPPS) * float64(time.Second)))
	slots := min(maxSlots, max(1, int(cfg.Interval/max(per/4, time.Millisecond))))
	slot := cfg.Interval / time.Duration(slots)
	span := int((per + slot - 1) / slot)
	if span > slots {
		return fmt.Errorf("one flow takes %s (%d packets at %d pps), longer than the %s interval", per, cfg.flowPackets(), cfg.FlowPPS, cfg.Interval)
	}
	load := cfg.loadPPS()
	// Flows per host, to spread each host's flows over the interval.
	count := map[string]int{}
	for _, f := range pl.Flows {
		count[f.From]++
		count[f.To]++
	}
	usage := map[string][]float64{}
	seen := map[string]int{}
	fits := func(h string, at int) bool {
		u := usage[h]
		if u == nil {
			return true
		}
		for s := at; s < at+span; s++ {
			if u[s]+load > float64(cfg.HostPPS)+1e-9 {
				return false
			}
		}
		return true
	}
	book := func(h string, at int) {
		u := usage[h]
		if u == nil {
			u = make([]float64, slots)
			usage[h] = u
		}
		for s := at; s < at+span; s++ {
			u[s] += load
			pl.PeakHostPPS = max(pl.PeakHostPPS, u[s])
		}
	}
	last := slots - span // the latest start that still ends in the interval
	// Cross-leaf flows first: they are the ones coverage depends on.
	order := make([]int, len(pl.Flows))
	for i := range order {
		order[i] = i
	}
	sameLeaf := func(i int) int {
		if pl.Flows[i].Leaf != "" {
			return 1
		}
		return 0
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(sameLeaf(a), sameLeaf(b)) })
	for _, i := range order {
		f := &pl.Flows[i]
		h := fnv.New32a()
		h.Write([]byte(f.From))
		// The j-th of the sender's n flows prefers j/n of the interval.
		j := seen[f.From]
		seen[f.From]++
		want := (int(h.Sum32()%uint32(last+1)) + j*(last+1)/max(1, count[f.From])) % (last + 1)
		placed := false
		for k := 0; k <= last; k++ {
			at := (want + k) % (last + 1)
			if fits(f.From, at) && fits(f.To, at) {
				book(f.From, at)
				book(f.To, at)
				f.Start, f.Duration = time.Duration(at)*slot, per
				placed = true
				break
			}
		}
		if !placed {
			return fmt.Errorf("the flows do not fit the %s interval at %d packets per second per host: host %s has %d flows of %s each; lengthen the interval, raise the cap or lower the packets per flow",
				cfg.Interval, cfg.HostPPS, busiest(count), count[busiest(count)], per)
		}
	}
	return nil
}

func busiest(count map[string]int) string {
	best := ""
	for h, n := range count {
		if best == "" || n > count[best] || n == count[best] && h < best {
			best = h
		}
	}
	return best
}
