package mesh

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/validators/localize"
	"github.com/rocefab/rocefab/validators/probe"
	"github.com/rocefab/rocefab/validators/probe/path"
)

// FlowRunner runs one host's flows where that host is: in its network
// namespace on this machine, or over SSH.
type FlowRunner interface {
	RunFlows(ctx context.Context, r *intent.Resolved, from *intent.Host, run probe.FlowRun) ([]probe.FlowResult, error)
}

// Options configure a mesh run.
type Options struct {
	Plan PlanConfig
	// Cache keeps paths between runs (nil: this run only).
	Cache *path.Cache
	// TraceRounds bounds plan-trace-plan rounds (default 5).
	TraceRounds int
	// HopTimeout is how long a hop may take to answer (default 300 ms).
	HopTimeout time.Duration
	// Localize tunes the analysis.
	Localize localize.Options
}

// RunMesh plans the mesh over the intent's cabling (learning the paths it
// needs), runs every flow on schedule, measures per-hop loss where flows
// lost packets, and localizes what the flows saw.
func RunMesh(ctx context.Context, r *intent.Resolved, runner FlowRunner, opt Options) (*Report, error) {
	topo := path.New(r)
	if len(r.Hosts) == 0 {
		return nil, fmt.Errorf("the intent has no hosts to probe")
	}
	pol := PolicyFor(r, r.Hosts[0])
	cfg := opt.Plan
	if cfg.FlowPackets == 0 {
		cfg.FlowPackets = r.Probe.Count
	}
	if cfg.FlowPPS == 0 {
		cfg.FlowPPS = r.Probe.RatePPS
	}
	cache := opt.Cache
	if cache == nil {
		cache = path.NewCache(0)
	}
	rounds := opt.TraceRounds
	if rounds <= 0 {
		rounds = 5
	}
	rep := &Report{SchemaVersion: SchemaVersion, Fabric: r.Name, Flows: []FlowReport{}, Notes: []string{}}
	lookup := func(c Candidate) (path.Path, bool) {
		e, ok := cache.Get(c.Key(probe.DefaultPort))
		return e.Path, ok
	}
	spines := 0
	for _, s := range r.Switches {
		if len(topo.HostsUnder(s.Name)) == 0 {
			spines++
		}
	}
	k := max(cfg.FlowsPerLink, DefaultFlowsPerLink)
	limit := max(8, 2*k*max(1, spines))
	var pl *Plan
	for round := 0; ; round++ {
		var needs []Candidate
		var err error
		pl, needs, err = NewPlan(topo, cfg, lookup, limit)
		if err != nil {
			return nil, err
		}
		if len(needs) == 0 && (len(pl.Short) == 0 || limit >= pl.Config.Candidates) {
			break
		}
		if round >= rounds {
			rep.Notes = append(rep.Notes, fmt.Sprintf("gave up learning paths after %d rounds; %d candidate flows untraced", rounds, len(needs)))
			if len(pl.Short) > 0 {
				// Probe the fabric end to end anyway, if blind.
				cfg.Untraced = 2 * k * max(1, spines)
				if pl, _, err = NewPlan(topo, cfg, lookup, limit); err != nil {
					return nil, err
				}
			}
			break
		}
		if len(needs) == 0 {
			limit *= 2
			continue
		}
		rep.Plan.Traced += len(needs)
		rep.Plan.TraceRounds++
		traced := traceCandidates(ctx, r, runner, pl.Config, pol, needs, opt.HopTimeout)
		for _, tr := range traced {
			if tr.Trace != nil {
				c := Candidate{From: tr.From, To: tr.To, Src: tr.Src, Dst: tr.Dst, SrcPort: tr.SrcPort}
				cache.Learn(c.Key(probe.DefaultPort), topo.Resolve(TraceOf(tr)))
			}
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	rep.Plan.fill(pl)

	// Measure.
	planned := map[string]path.Path{}
	for _, f := range pl.Flows {
		if e, ok := cache.Get(path.Key{Src: f.Src, Dst: f.Dst, SrcPort: f.SrcPort, DstPort: probe.DefaultPort}); ok {
			planned[f.ID] = e.Path
		}
	}
	results := runPlanned(ctx, r, runner, pl, opt.HopTimeout)
	drill(ctx, r, runner, pl.Config, results, opt.HopTimeout)

	obs := make([]localize.Observation, 0, 16*len(pl.Flows))
	for _, f := range pl.Flows {
		res, ok := results[f.ID]
		if !ok {
			continue
		}
		key := path.Key{Src: f.Src, Dst: f.Dst, SrcPort: f.SrcPort, DstPort: probe.DefaultPort}
		p := topo.Resolve(TraceOf(res))
		if res.Trace != nil {
			if prev, changed := cache.Learn(key, p); changed {
				rep.PathChanges = append(rep.PathChanges, fmt.Sprintf("%s: %s, was %s", f.ID, p, prev))
			}
		}
		used := p
		fromCache := false
		if !p.Complete() {
			// A silent hop this run: a complete path learned before, for
			// the same flow, says more than the gap.
			if e, ok := cache.Get(key); ok && e.Path.Complete() && res.Trace == nil {
				used, fromCache = e.Path, true
			}
		}
		fr := newFlowReport(f, res, used, fromCache)
		if h := pathGaps(used); h != "" {
			rep.PartlyUnknown = append(rep.PartlyUnknown, fmt.Sprintf("%s: %s (%s)", f.ID, h, used))
		}
		hostPol := pol
		if h := r.Host(f.From); h != nil {
			hostPol = PolicyFor(r, h)
		}
		n := len(obs)
		obs = AppendObservations(obs, topo, res, used, hostPol)
		for _, x := range obs[n:] {
			if x.Bad && x.Hop == 0 && !slices.Contains(fr.Symptoms, string(x.Class)) {
				fr.Symptoms = append(fr.Symptoms, string(x.Class))
			}
		}
		if _, had := planned[f.ID]; !had && res.Trace != nil {
			fr.NewPath = true
		}
		rep.Flows = append(rep.Flows, fr)
	}
	rep.Localization = localize.Localize(obs, opt.Localize)
	// Say once per host why paths could not be learned there.
	seen := map[string]bool{}
	for _, f := range rep.Flows {
		if e := f.Result.TraceError; e != "" && !seen[f.From+e] {
			seen[f.From+e] = true
			rep.Notes = append(rep.Notes, fmt.Sprintf("no path discovery from %s: %s", f.From, e))
		}
	}
	rep.finish()
	return rep, ctx.Err()
}

// pathGaps says which hops of a path are not known, or "".
func pathGaps(p path.Path) string {
	var parts []string
	for _, s := range p.Steps {
		switch {
		case s.Gap:
			parts = append(parts, "the trace did not reach "+p.DstHost)
		case s.Inferred && s.Unmapped:
			parts = append(parts, fmt.Sprintf("hop %d answered from %s, which the intent does not list (%s by cabling)", s.TTL, s.Addr, s.Device))
		case s.Inferred:
			parts = append(parts, fmt.Sprintf("hop %d did not answer (%s by cabling)", s.TTL, s.Device))
		case s.Unmapped:
			parts = append(parts, fmt.Sprintf("hop %d answered from %s, which the intent does not list", s.TTL, s.Addr))
		case s.Device == "":
			parts = append(parts, fmt.Sprintf("hop %d did not answer", s.TTL))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	out := parts[0]
	for _, p := range parts[1:] {
		out += "; " + p
	}
	return out
}

// byHost groups specs per sending host, in order.
func byHost(specs []probe.FlowSpec, from []string) (map[string][]probe.FlowSpec, []string) {
	m := map[string][]probe.FlowSpec{}
	var order []string
	for i, s := range specs {
		if _, ok := m[from[i]]; !ok {
			order = append(order, from[i])
		}
		m[from[i]] = append(m[from[i]], s)
	}
	return m, order
}

// runHosts runs each host's flows at once and collects the results by ID.
func runHosts(ctx context.Context, r *intent.Resolved, runner FlowRunner, specs map[string][]probe.FlowSpec, order []string,
	run func(host string) probe.FlowRun) map[string]probe.FlowResult {
	out := map[string]probe.FlowResult{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, host := range order {
		h := r.Host(host)
		if h == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			fr := run(host)
			fr.Flows = specs[host]
			res, err := runner.RunFlows(ctx, r, h, fr)
			mu.Lock()
			defer mu.Unlock()
			if err != nil && len(res) == 0 {
				for _, s := range specs[host] {
					out[s.ID] = probe.FlowResult{ID: s.ID, From: host, To: s.Target.Name, Dst: s.Target.Addr, SrcPort: s.SrcPort,
						Error: fmt.Sprintf("running flows on %s: %v", host, err)}
				}
				return
			}
			for i, x := range res {
				if x.ID == "" && i < len(specs[host]) {
					x.ID = specs[host][i].ID
				}
				out[x.ID] = x
			}
		}()
	}
	wg.Wait()
	return out
}

func flowRun(r *intent.Resolved, host string, pol probe.Policy, hopTimeout time.Duration) probe.FlowRun {
	if h := r.Host(host); h != nil {
		pol = PolicyFor(r, h)
	}
	return probe.FlowRun{Policy: pol, From: host, HopTimeout: hopTimeout}
}

// traceCandidates learns the paths of candidate flows: traces only, each
// host's spaced so its ICMP replies stay within the cap.
func traceCandidates(ctx context.Context, r *intent.Resolved, runner FlowRunner, cfg PlanConfig, pol probe.Policy, cands []Candidate, hopTimeout time.Duration) map[string]probe.FlowResult {
	var specs []probe.FlowSpec
	var from []string
	n := map[string]int{}
	// A trace sends three packets per hop and draws as many replies.
	gap := time.Duration(float64(time.Second) * float64(6*cfg.MaxHops) / float64(cfg.HostPPS))
	for _, c := range cands {
		id := fmt.Sprintf("trace %s:%d>%s", c.From, c.SrcPort, c.To)
		specs = append(specs, probe.FlowSpec{ID: id, Target: probe.Target{Name: c.To, Addr: c.Dst}, Src: c.Src, SrcPort: c.SrcPort,
			Start: time.Duration(n[c.From]) * gap, Trace: true})
		from = append(from, c.From)
		n[c.From]++
	}
	m, order := byHost(specs, from)
	return runHosts(ctx, r, runner, m, order, func(h string) probe.FlowRun {
		fr := flowRun(r, h, pol, hopTimeout)
		fr.MaxHops = cfg.MaxHops + 4
		return fr
	})
}

// runPlanned runs the plan's flows on schedule.
func runPlanned(ctx context.Context, r *intent.Resolved, runner FlowRunner, pl *Plan, hopTimeout time.Duration) map[string]probe.FlowResult {
	var specs []probe.FlowSpec
	var from []string
	for _, f := range pl.Flows {
		specs = append(specs, probe.FlowSpec{ID: f.ID, Target: probe.Target{Name: f.To, Addr: f.Dst}, Src: f.Src, SrcPort: f.SrcPort,
			Start: f.Start, Trace: true, Measure: true})
		from = append(from, f.From)
	}
	m, order := byHost(specs, from)
	return runHosts(ctx, r, runner, m, order, func(h string) probe.FlowRun {
		fr := flowRun(r, h, probe.DefaultPolicy(), hopTimeout)
		fr.Policy.Count, fr.Policy.RatePPS, fr.Policy.AckEvery = pl.Config.FlowPackets, pl.Config.FlowPPS, pl.Config.AckEvery
		fr.MaxHops = pl.Config.MaxHops + 4
		return fr
	})
}

// drill sends per-hop loss probes for the flows that lost packets, one
// flow at a time per host at half the cap, and adds them to the results.
func drill(ctx context.Context, r *intent.Resolved, runner FlowRunner, cfg PlanConfig, results map[string]probe.FlowResult, hopTimeout time.Duration) {
	if cfg.HopLoss <= 0 {
		return
	}
	rate := max(1, cfg.HostPPS/2)
	var specs []probe.FlowSpec
	var from []string
	next := map[string]time.Duration{}
	ids := slices.Sorted(func(yield func(string) bool) {
		for id := range results {
			if !yield(id) {
				return
			}
		}
	})
	for _, id := range ids {
		res := results[id]
		m := res.Measured
		if m == nil || !m.StatsExchanged || m.Received >= m.Sent || res.Trace == nil || len(res.Trace.Hops) == 0 {
			continue
		}
		hops := len(res.Trace.Hops)
		specs = append(specs, probe.FlowSpec{ID: id, Target: probe.Target{Name: res.To, Addr: res.Dst}, Src: res.Src, SrcPort: res.SrcPort,
			Start: next[res.From], HopLoss: cfg.HopLoss, Hops: hops})
		from = append(from, res.From)
		next[res.From] += time.Duration(float64(time.Second)*float64(hops*cfg.HopLoss)/float64(rate)) + time.Duration(hops)*max(hopTimeout, 300*time.Millisecond)
	}
	if len(specs) == 0 {
		return
	}
	m, order := byHost(specs, from)
	got := runHosts(ctx, r, runner, m, order, func(h string) probe.FlowRun {
		fr := flowRun(r, h, probe.DefaultPolicy(), hopTimeout)
		fr.Policy.RatePPS = rate
		return fr
	})
	for id, d := range got {
		if res, ok := results[id]; ok && len(d.HopLoss) > 0 {
			res.HopLoss = d.HopLoss
			res.Packets += d.Packets
			results[id] = res
		}
	}
}
