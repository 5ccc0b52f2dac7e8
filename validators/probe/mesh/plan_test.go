package mesh

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/validators/probe/path"
)

func TestPlanCoversEveryFabricLink(t *testing.T) {
	for _, tc := range []struct {
		leaves, spines, hosts, k int
	}{
		{2, 2, 2, 3},  // the lab's shape
		{4, 4, 4, 3},  // more leaves than spines
		{8, 2, 3, 5},  // k = 5
		{3, 8, 2, 1},  // wide spines, k = 1
		{32, 8, 4, 3}, // the scale benchmark's leaves and spines
	} {
		s := newSimFabric(t, tc.leaves, tc.spines, tc.hosts)
		cfg := PlanConfig{FlowsPerLink: tc.k, Interval: 60 * time.Second}
		pl, needs, err := NewPlan(s.topo, cfg, s.lookup, 0)
		if err != nil || len(needs) != 0 {
			t.Fatalf("%+v: %v, needs %d", tc, err, len(needs))
		}
		if len(pl.Short) != 0 {
			t.Fatalf("%+v: links short of %d flows: %+v", tc, tc.k, pl.Short)
		}
		if want := 2 * tc.leaves * tc.spines; len(pl.Coverage) != want {
			t.Fatalf("%+v: %d link directions, want %d", tc, len(pl.Coverage), want)
		}
		// Count again from the flows' own paths, not from the plan's books.
		got := map[path.DirLink]int{}
		fabric := map[path.DirLink]int{}
		for _, c := range pl.Coverage {
			fabric[c.Link] = 0
		}
		same, cross := 0, 0
		ports := map[string]bool{}
		for _, f := range pl.Flows {
			key := fmt.Sprintf("%s:%d", f.From, f.SrcPort)
			if ports[key] {
				t.Fatalf("%+v: %s uses port %d twice", tc, f.From, f.SrcPort)
			}
			ports[key] = true
			if f.Leaf != "" {
				same++
				continue
			}
			cross++
			p, _ := s.lookup(Candidate{From: f.From, To: f.To, Src: f.Src, Dst: f.Dst, SrcPort: f.SrcPort})
			for _, d := range fabricLinks(p, fabric) {
				got[d]++
			}
		}
		for _, c := range pl.Coverage {
			if got[c.Link] < tc.k || got[c.Link] != c.Flows {
				t.Errorf("%+v: %s carries %d flows (plan says %d), want ≥ %d", tc, c.Link, got[c.Link], c.Flows, tc.k)
			}
		}
		if want := tc.leaves * tc.hosts * (tc.hosts - 1); same != want {
			t.Errorf("%+v: %d same-leaf flows, want every ordered pair: %d", tc, same, want)
		}
		// Not wildly more cross-leaf flows than the coverage needs: each
		// covers one link up and one down.
		if minimum := tc.k * tc.leaves * tc.spines; cross > 3*minimum {
			t.Errorf("%+v: %d cross-leaf flows for a minimum of %d", tc, cross, minimum)
		}
	}
}

// TestPlanIsDeterministic: the same inputs give the same plan, so a flow
// keeps its source port (and path) from run to run.
func TestPlanIsDeterministic(t *testing.T) {
	s := newSimFabric(t, 6, 3, 3)
	a, _, errA := NewPlan(s.topo, PlanConfig{}, s.lookup, 0)
	b, _, errB := NewPlan(newSimFabric(t, 6, 3, 3).topo, PlanConfig{}, s.lookup, 0)
	if errA != nil || errB != nil || !reflect.DeepEqual(a, b) {
		t.Fatalf("two plans of one fabric differ (%v %v)", errA, errB)
	}
}

// TestPlanAsksForUnknownPaths: without paths the plan lists the candidates
// to trace; with them traced it needs nothing more.
func TestPlanAsksForUnknownPaths(t *testing.T) {
	s := newSimFabric(t, 2, 2, 2)
	known := map[Candidate]path.Path{}
	lookup := func(c Candidate) (path.Path, bool) { p, ok := known[c]; return p, ok }
	limit := 6
	for round := 0; ; round++ {
		pl, needs, err := NewPlan(s.topo, PlanConfig{}, lookup, limit)
		if err != nil {
			t.Fatal(err)
		}
		if len(needs) == 0 && len(pl.Short) == 0 {
			if round == 0 {
				t.Fatal("covered without a single path known")
			}
			break
		}
		if round > 8 {
			t.Fatalf("still short after %d rounds: %+v", round, pl.Short)
		}
		if len(needs) == 0 {
			limit *= 2
		}
		for _, c := range needs {
			known[c], _ = s.lookup(c)
		}
	}
}

// TestScheduleRespectsTheHostCap replays the schedule at 1 ms resolution
// and sums, per host, the packet rate of every flow it sends or receives.
func TestScheduleRespectsTheHostCap(t *testing.T) {
	for _, tc := range []struct {
		leaves, spines, hosts int
		cfg                   PlanConfig
	}{
		{2, 2, 2, PlanConfig{Interval: 2 * time.Second, HostPPS: 5000, FlowPPS: 4000}},
		{8, 4, 8, PlanConfig{Interval: 20 * time.Second, HostPPS: 3000}},
		{16, 8, 16, PlanConfig{Interval: 40 * time.Second, HostPPS: 1000}},
	} {
		s := newSimFabric(t, tc.leaves, tc.spines, tc.hosts)
		pl, _, err := NewPlan(s.topo, tc.cfg, s.lookup, 0)
		if err != nil {
			t.Fatalf("%d×%d×%d: %v", tc.leaves, tc.spines, tc.hosts, err)
		}
		assertCap(t, pl)
		if pl.PeakHostPPS > float64(pl.Config.HostPPS) || pl.PeakHostPPS == 0 {
			t.Errorf("peak %.0f pps for a cap of %d", pl.PeakHostPPS, pl.Config.HostPPS)
		}
	}
}

func assertCap(t *testing.T, pl *Plan) {
	t.Helper()
	cfg := pl.Config
	load := float64(cfg.FlowPPS) * (1 + 1/float64(cfg.AckEvery))
	const step = time.Millisecond
	n := int(cfg.Interval / step)
	rate := map[string][]float64{}
	starts := map[string][]time.Duration{}
	for _, f := range pl.Flows {
		if f.Start < 0 || f.Start+f.Duration > cfg.Interval {
			t.Fatalf("flow %s runs %s+%s, outside the %s interval", f.ID, f.Start, f.Duration, cfg.Interval)
		}
		for _, h := range []string{f.From, f.To} {
			if rate[h] == nil {
				rate[h] = make([]float64, n)
			}
			for i := int(f.Start / step); i < int((f.Start+f.Duration)/step) && i < n; i++ {
				rate[h][i] += load
			}
		}
		starts[f.From] = append(starts[f.From], f.Start)
	}
	for h, r := range rate {
		if peak := slices.Max(r); peak > float64(cfg.HostPPS)+1e-6 {
			t.Fatalf("host %s peaks at %.0f pps, over the %d cap", h, peak, cfg.HostPPS)
		}
	}
	// Spread: a sender's flows do not all start in the first tenth.
	for h, ss := range starts {
		if len(ss) < 4 {
			continue
		}
		early := 0
		for _, s := range ss {
			if s < cfg.Interval/10 {
				early++
			}
		}
		if early == len(ss) {
			t.Errorf("host %s starts all %d flows in the first tenth of the interval", h, len(ss))
		}
	}
}

func TestPlanThatCannotFitSaysWhy(t *testing.T) {
	s := newSimFabric(t, 2, 2, 8)
	_, _, err := NewPlan(s.topo, PlanConfig{Interval: 3 * time.Second, HostPPS: 500}, s.lookup, 0)
	if err == nil {
		t.Fatal("over 14 flows of 0.56 s per host fit a 3 s interval?")
	}
	want := "do not fit the 3s interval at 500 packets per second per host"
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q, want %q", err, want)
	}
	_, _, err = NewPlan(s.topo, PlanConfig{Interval: 100 * time.Millisecond}, s.lookup, 0)
	if err == nil || !strings.Contains(err.Error(), "longer than the 100ms interval") {
		t.Fatalf("error %v", err)
	}
}
