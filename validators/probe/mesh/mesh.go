package mesh

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"sort"
	"sync"

	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/validators/doctor/counters"
	"github.com/rocefab/rocefab/validators/probe"
)

// Pair is one probe pair: From sends to To's NIC address.
type Pair struct {
	From, To *intent.Host
	// Leaf is the switch both hosts hang off, or "" for a cross-leaf pair.
	Leaf string
}

// Owned keeps the pairs whose sender owns reports true for (a shard).
func Owned(pairs []Pair, owns func(host string) bool) []Pair {
	if owns == nil {
		return pairs
	}
	var out []Pair
	for _, p := range pairs {
		if owns(p.From.Name) {
			out = append(out, p)
		}
	}
	return out
}

// Pairs returns the pairs to probe. With pairs: cabling, every pair of
// hosts under one leaf, plus CrossLeafSample pairs between every two leaves
// (chosen round-robin, so repeated runs cover different hosts); with
// listed, the intent's list. Order is deterministic.
func Pairs(r *intent.Resolved) []Pair {
	if r.Probe.Pairs == "listed" {
		var out []Pair
		for _, p := range r.Probe.List {
			if from, to := r.Host(p.From), r.Host(p.To); from != nil && to != nil {
				out = append(out, Pair{From: from, To: to})
			}
		}
		return out
	}
	byLeaf := map[string][]*intent.Host{}
	for _, l := range r.HostLinks() {
		h := r.Host(l.HostEnd.Device)
		if h == nil {
			continue
		}
		hosts := byLeaf[l.SwitchEnd.Device]
		if !slices.Contains(hosts, h) {
			byLeaf[l.SwitchEnd.Device] = append(hosts, h)
		}
	}
	leaves := make([]string, 0, len(byLeaf))
	for leaf := range byLeaf {
		leaves = append(leaves, leaf)
	}
	sort.Strings(leaves)
	var out []Pair
	for _, leaf := range leaves {
		hosts := byLeaf[leaf]
		for i := range hosts {
			for j := i + 1; j < len(hosts); j++ {
				out = append(out, Pair{From: hosts[i], To: hosts[j], Leaf: leaf})
			}
		}
	}
	seen := map[[2]string]bool{}
	for _, p := range out {
		seen[[2]string{p.From.Name, p.To.Name}] = true
	}
	for i := range leaves {
		for j := i + 1; j < len(leaves); j++ {
			a, b := byLeaf[leaves[i]], byLeaf[leaves[j]]
			for k := 0; k < r.Probe.CrossLeafSample; k++ {
				from, to := a[k%len(a)], b[(k+j)%len(b)]
				key := [2]string{from.Name, to.Name}
				if from == to || seen[key] {
					continue
				}
				seen[key] = true
				out = append(out, Pair{From: from, To: to})
			}
		}
	}
	return out
}

// Overhead of RoCEv2 over IPv4 on a SEND: IP 20, UDP 8, BTH 12, ICRC 4.
const ipv4Overhead = 20 + 8 + 12 + 4

// minSweepSize is the smallest packet the probe's sweep takes: it needs
// room for its own headers.
const minSweepSize = 128

// PolicyFor is the probe policy a host's traffic is judged by: the host's
// effective lossless policy plus the intent's probe settings.
func PolicyFor(r *intent.Resolved, h *intent.Host) probe.Policy {
	p := probe.DefaultPolicy()
	pol := h.Policy
	if len(pol.RoCEDSCP) > 0 {
		p.RoCEDSCP = uint8(pol.RoCEDSCP[0])
	}
	p.CNPDSCP = uint8(pol.CNPDSCP)
	p.HostMTU = pol.HostMTU
	p.Profile = probe.Profile(pol.Profile)
	ps := r.Probe
	p.PKey = uint16(ps.PKey)
	p.QPMin, p.QPMax = uint32(ps.QPMin), uint32(ps.QPMax)
	p.Count = ps.Count
	p.RatePPS = ps.RatePPS
	p.MaxLossPercent = ps.MaxLossPercent
	if ps.Spec != nil && ps.Spec.Duration != nil {
		p.Duration = ps.Duration
	}
	// The intent's sizes are payloads: the smallest drives the data phase,
	// and each is also swept as a packet, besides the MTU ladder.
	if len(ps.Sizes) > 0 {
		p.PayloadSize = slices.Min(ps.Sizes)
		sizes := probe.SweepLadder(pol.HostMTU)
		for _, s := range ps.Sizes {
			if n := s + ipv4Overhead; n >= minSweepSize && n <= pol.HostMTU {
				sizes = append(sizes, n)
			}
		}
		slices.Sort(sizes)
		p.Sizes = slices.Compact(sizes)
	}
	return p
}

// Target is where To answers: its first NIC address with an IP, else its
// management address.
func Target(h *intent.Host) (probe.Target, error) {
	for _, n := range h.NICs {
		if a, err := netip.ParseAddr(n.Address); err == nil {
			return probe.Target{Name: h.Name, Addr: a.Unmap()}, nil
		}
	}
	if a, err := netip.ParseAddr(h.Address.Host); err == nil {
		return probe.Target{Name: h.Name, Addr: a.Unmap()}, nil
	}
	return probe.Target{}, fmt.Errorf("host %s has no NIC address to probe (set nics[].address)", h.Name)
}

// Prober runs one host's probes: from that host to the targets. The CLI
// provides in-process (this machine, lab namespaces) and SSH probers.
type Prober interface {
	Probe(ctx context.Context, r *intent.Resolved, from *intent.Host, targets []probe.Target, pol probe.Policy) (*probe.Report, error)
}

// Run probes every pair, one run per sending host (up to parallel hosts at
// once), and assembles one report judged against the intent. A host whose
// run fails yields failed pairs naming it, never a crash.
func Run(ctx context.Context, r *intent.Resolved, pairs []Pair, prober Prober, parallel int) *probe.Report {
	type job struct {
		from    *intent.Host
		targets []probe.Target
		bad     []probe.PairResult
	}
	var order []string
	jobs := map[string]*job{}
	for _, p := range pairs {
		j := jobs[p.From.Name]
		if j == nil {
			j = &job{from: p.From}
			jobs[p.From.Name] = j
			order = append(order, p.From.Name)
		}
		t, err := Target(p.To)
		if err != nil {
			j.bad = append(j.bad, unreachable(p.From.Name, p.To.Name, err))
			continue
		}
		j.targets = append(j.targets, t)
	}
	if parallel <= 0 {
		parallel = 4
	}
	results := make([][]probe.PairResult, len(order))
	hostCounters := make([][]counters.HostReport, len(order))
	var wg sync.WaitGroup
	sem := make(chan struct{}, parallel)
	for i, name := range order {
		j := jobs[name]
		results[i] = j.bad
		if len(j.targets) == 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			rep, err := prober.Probe(ctx, r, j.from, j.targets, PolicyFor(r, j.from))
			if err != nil {
				for _, t := range j.targets {
					results[i] = append(results[i], unreachable(j.from.Name, t.Name, fmt.Errorf("probing from %s: %w", j.from.Name, err)))
				}
				return
			}
			results[i] = append(results[i], rep.Pairs...)
			hostCounters[i] = rep.HostCounters
		}()
	}
	wg.Wait()
	var all []probe.PairResult
	for _, rs := range results {
		all = append(all, rs...)
	}
	pol := probe.DefaultPolicy()
	if len(r.Hosts) > 0 {
		pol = PolicyFor(r, r.Hosts[0])
	} else {
		pol.Profile = probe.Profile(r.Policy.Profile)
	}
	out := probe.NewReport(all, pol)
	for _, hc := range hostCounters {
		out.HostCounters = append(out.HostCounters, hc...)
	}
	return out
}

func unreachable(from, to string, err error) probe.PairResult {
	return probe.PairResult{From: from, To: to, Measurements: probe.Measurements{Reachable: false, Error: err.Error()}}
}
