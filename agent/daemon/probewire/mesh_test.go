package probewire

import (
	"context"
	"errors"
	"testing"

	"github.com/rocefab/rocefab/agent/daemon"
	"github.com/rocefab/rocefab/agent/daemon/history"
	"github.com/rocefab/rocefab/examples/lab"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/validators/localize"
	"github.com/rocefab/rocefab/validators/probe"
	"github.com/rocefab/rocefab/validators/probe/mesh"
	"github.com/rocefab/rocefab/validators/probe/path"
)

func labIntent(t *testing.T) *intent.Resolved {
	t.Helper()
	fab, diags := intent.LoadBytes("fabric.yaml", lab.Intent)
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	res, diags := intent.Resolve(fab)
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	return res
}

func findLink(s daemon.MeshSummary, from, to string) (daemon.MeshLink, bool) {
	for _, l := range s.Links {
		if l.From.Device+" "+l.From.Port == from && l.To.Device+" "+l.To.Port == to {
			return l, true
		}
	}
	return daemon.MeshLink{}, false
}

// TestSummariseMesh: every fabric link of the lab in both directions
// (host links left out), the plan's flows on each, a link fault on both
// directions, a device fault and an inconclusive one's link candidates.
func TestSummariseMesh(t *testing.T) {
	topo := path.New(labIntent(t))
	down := path.DirLink{From: path.PortRef{Device: "spine2", Port: "swp1"}, To: path.PortRef{Device: "leaf1", Port: "swp4"}}
	remark := localize.Link("spine2", "swp1", "leaf1", "swp4")
	rep := &mesh.Report{Verdict: probe.VerdictFail, Flows: make([]mesh.FlowReport, 12), PartlyUnknown: []string{"f1: hop 2"},
		Plan: mesh.PlanSummary{Coverage: []mesh.Coverage{{Link: down, Flows: 4}, {Link: down.Reverse(), Flows: 5}}},
		Localization: localize.Result{Verdict: localize.VerdictLocalized, Findings: []localize.Finding{
			{Class: localize.DSCP, Status: localize.Localized, Element: &remark, Both: true, Summary: "spine2 swp1 → leaf1 swp4: DSCP 26 arrived as 8"},
			{Class: localize.ECN, Status: localize.Localized, Element: &localize.Element{Kind: localize.KindDevice, Device: "spine1"}, Summary: "spine1 bleaches ECN"},
			{Class: localize.Loss, Status: localize.Inconclusive, Candidates: []localize.Element{localize.Link("leaf2", "swp3", "spine1", "swp2"), localize.Device("spine1")}, Summary: "loss, inconclusive"},
		}}}
	s := SummariseMesh(topo, rep)
	if s.Verdict != daemon.VerdictFail || s.Localization != "localized" || s.Flows != 12 || s.PartlyUnknown != 1 {
		t.Fatalf("summary %+v", s)
	}
	if len(s.Links) != 8 {
		t.Fatalf("%d link directions, want 8 (4 fabric links, no host links)", len(s.Links))
	}
	if l, ok := findLink(s, "spine2 swp1", "leaf1 swp4"); !ok || l.Flows != 4 || l.A != (history.Port{Device: "leaf1", Port: "swp4"}) {
		t.Fatalf("spine2 -> leaf1: %+v %v", l, ok)
	}
	if l, _ := findLink(s, "leaf1 swp4", "spine2 swp1"); l.Flows != 5 {
		t.Fatalf("leaf1 -> spine2 flows %d", l.Flows)
	}
	if l, ok := findLink(s, "leaf2 swp3", "spine1 swp2"); !ok || l.Flows != 0 {
		t.Fatalf("an uncovered direction: %+v %v", l, ok)
	}
	f := s.Findings
	if len(f) != 3 || len(f[0].Links) != 2 || f[0].Links[0].From.Device != "spine2" || f[0].Links[1].From.Device != "leaf1" {
		t.Fatalf("findings %+v", f)
	}
	if f[1].Device != "spine1" || len(f[1].Links) != 0 || len(f[2].Candidates) != 1 || f[2].Candidates[0].To.Port != "swp2" {
		t.Fatalf("device and inconclusive findings %+v", f[1:])
	}
}

type deadRunner struct{}

func (deadRunner) RunFlows(context.Context, *intent.Resolved, *intent.Host, probe.FlowRun) ([]probe.FlowResult, error) {
	return nil, errors.New("no probe server answers")
}

// TestMeshRunnerWithNoAnswers: when no host can run flows, no link is
// proven: the run fails and every direction carries no flow (the agent
// calls them unknown, never good).
func TestMeshRunnerWithNoAnswers(t *testing.T) {
	run := MeshRunner(deadRunner{}, mesh.Options{TraceRounds: 1})
	s, err := run(context.Background(), labIntent(t))
	if err != nil {
		t.Fatal(err)
	}
	if s.Verdict != daemon.VerdictFail || len(s.Links) != 8 {
		t.Fatalf("summary %+v", s)
	}
	for _, l := range s.Links {
		if l.Flows != 0 {
			t.Errorf("%+v carries flows", l)
		}
	}
}
