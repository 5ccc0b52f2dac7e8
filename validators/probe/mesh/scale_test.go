package mesh

import (
	"syscall"
	"testing"
	"time"

	"github.com/rocefab/rocefab/validators/localize"
	"github.com/rocefab/rocefab/validators/probe"
)

// The scale the mesh is built for: 1,024 hosts under 32 leaves, 8 spines.
const scaleLeaves, scaleSpines, scaleHosts = 32, 8, 32

var scaleConfig = PlanConfig{Interval: 60 * time.Second}

// TestScalePlan: at 1,024 hosts every fabric link carries k flows each
// way, no host goes over the cap at any moment, and two injected faults
// are named from the simulated results.
func TestScalePlan(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 1,024-host intent")
	}
	s := newSimFabric(t, scaleLeaves, scaleSpines, scaleHosts)
	pl, needs, err := NewPlan(s.topo, scaleConfig, s.lookup, 0)
	if err != nil || len(needs) != 0 || len(pl.Short) != 0 {
		t.Fatalf("plan: %v, needs %d, short %v", err, len(needs), pl.Short)
	}
	if want := scaleLeaves * scaleHosts * (scaleHosts - 1); len(pl.Flows) < want+3*scaleLeaves*scaleSpines {
		t.Fatalf("%d flows", len(pl.Flows))
	}
	assertCap(t, pl)
	faults := []simFault{{s.upLink(7, 3), "dscp"}, {s.upLink(20, 8).Reverse(), "loss"}}
	obs := scaleObservations(s, pl, faults)
	r := localize.Localize(obs, localize.Options{})
	got := map[string]bool{}
	for _, f := range r.Findings {
		if f.Status == localize.Localized {
			got[string(f.Class)+" "+f.Element.String()] = true
		}
	}
	for _, want := range []string{"dscp_remarked leaf7 up3 → spine3 down7", "loss spine8 down20 → leaf20 up8"} {
		if !got[want] || len(r.Findings) != 2 {
			t.Fatalf("want %s among %d findings: %v", want, len(r.Findings), got)
		}
	}
	t.Logf("%d flows (%d cross-leaf), %d observations, peak %.0f pps per host", len(pl.Flows), len(pl.Flows)-scaleLeaves*scaleHosts*(scaleHosts-1), len(obs), pl.PeakHostPPS)
}

func scalePolicy() probe.Policy {
	p := probe.DefaultPolicy()
	p.Count = 200
	return p
}

// scaleObservations simulates the plan's results (lossy flows drilled
// into) and turns them into observations, as RunMesh does.
func scaleObservations(s *simFabric, pl *Plan, faults []simFault) []localize.Observation {
	pol := scalePolicy()
	var obs []localize.Observation
	for _, r := range s.results(pl, faults, pol) {
		if m := r.Measured; m.Received < m.Sent {
			d := s.flowResult(r.From, probe.FlowSpec{Target: probe.Target{Name: r.To, Addr: r.Dst}, Src: r.Src, SrcPort: r.SrcPort,
				HopLoss: 100, Hops: len(r.Trace.Hops)}, faults, pol)
			r.HopLoss = d.HopLoss
		}
		obs = AppendObservations(obs, s.topo, r, s.topo.Resolve(TraceOf(r)), pol)
	}
	return obs
}

// BenchmarkPlan1024 plans the mesh of 1,024 hosts, paths simulated.
func BenchmarkPlan1024(b *testing.B) {
	s := newSimFabric(b, scaleLeaves, scaleSpines, scaleHosts)
	b.ResetTimer()
	cpu := cpuTime(b)
	for b.Loop() {
		if _, _, err := NewPlan(s.topo, scaleConfig, s.lookup, 0); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime(b)-cpu)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the user and system CPU time this process has used (GC and
// every thread included): on a shared machine it varies less than wall
// time.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkLocalize1024 localizes two faults from the simulated results
// of that plan: paths resolved from the traces, observations, analysis.
func BenchmarkLocalize1024(b *testing.B) {
	s := newSimFabric(b, scaleLeaves, scaleSpines, scaleHosts)
	pl, _, err := NewPlan(s.topo, scaleConfig, s.lookup, 0)
	if err != nil {
		b.Fatal(err)
	}
	faults := []simFault{{s.upLink(7, 3), "dscp"}, {s.upLink(20, 8).Reverse(), "loss"}}
	pol := scalePolicy()
	results := s.results(pl, faults, pol)
	for i, r := range results {
		if m := r.Measured; m.Received < m.Sent {
			d := s.flowResult(r.From, probe.FlowSpec{Target: probe.Target{Name: r.To, Addr: r.Dst}, Src: r.Src, SrcPort: r.SrcPort,
				HopLoss: 100, Hops: len(r.Trace.Hops)}, faults, pol)
			results[i].HopLoss = d.HopLoss
		}
	}
	b.ResetTimer()
	cpu := cpuTime(b)
	for b.Loop() {
		obs := make([]localize.Observation, 0, 16*len(results))
		for _, r := range results {
			obs = AppendObservations(obs, s.topo, r, s.topo.Resolve(TraceOf(r)), pol)
		}
		if res := localize.Localize(obs, localize.Options{}); len(res.Findings) != 2 {
			b.Fatalf("%d findings", len(res.Findings))
		}
	}
	b.ReportMetric(float64(cpuTime(b)-cpu)/float64(b.N), "cpu-ns/op")
}
