package telemetry

import (
	"reflect"
	"testing"
	"time"
)

func TestCablePath(t *testing.T) {
	topo := unitTopology(t)
	for _, c := range []struct {
		pair ProbePair
		want []string
	}{
		{ProbePair{"gpu1", "gpu2"}, []string{"gpu1", "gpu2", "leaf1"}},
		{ProbePair{"gpu1", "gpu3"}, []string{"gpu1", "gpu3", "leaf1", "leaf2", "spine1"}},
		{ProbePair{"gpu1", "nobody"}, []string{"gpu1", "nobody", "leaf1"}},
	} {
		if got := topo.CablePath(c.pair); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v: %v, want %v", c.pair, got, c.want)
		}
	}
}

func TestCorrelate(t *testing.T) {
	topo := unitTopology(t)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	f := func(code Code, dev, port string, from, to int, related ...Subject) Finding {
		return Finding{Code: code, Subject: Subject{Device: dev, Port: port, Priority: 3}, FirstSeen: at(from), LastSeen: at(to), Related: related}
	}
	findings := []Finding{
		0: f(CodePFCStorm, "leaf2", "Ethernet1", 100, 200),   // during run A, on the cross-leaf path
		1: f(CodeLosslessDrop, "leaf1", "Ethernet2", 50, 60), // before run A
		2: f(CodeRetransmits, "gpu2", "ens1f0np0", 290, 310), // ends in run A, starts before run B ends
		3: f(CodePausePropagation, "gpu9", "", 150, 160, Subject{Device: "spine1", Port: "Ethernet2", Priority: 3}),
		4: f(CodeCNPDrop, "spine9", "Ethernet1", 120, 130), // on no pair's path
	}
	runs := []ProbeRun{
		{ID: "A", Start: at(90), End: at(300), Pairs: []ProbePair{{"gpu1", "gpu2"}, {"gpu1", "gpu3"}}},
		{ID: "B", Start: at(305), End: at(400), Pairs: []ProbePair{{"gpu2", "gpu1"}}},
		{ID: "C", Start: at(1000), End: at(1100), Pairs: []ProbePair{{"gpu1", "gpu2"}}},
	}
	got := Correlate(runs, findings, topo.CablePath)
	want := []Overlap{
		{Run: "A", Finding: 0, Pairs: []ProbePair{{"gpu1", "gpu3"}}},
		{Run: "A", Finding: 2, Pairs: []ProbePair{{"gpu1", "gpu2"}}},
		{Run: "A", Finding: 3, Pairs: []ProbePair{{"gpu1", "gpu3"}}}, // through its related spine port
		{Run: "A", Finding: 4}, // at the same time only
		{Run: "B", Finding: 2, Pairs: []ProbePair{{"gpu2", "gpu1"}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("overlaps\n got %+v\nwant %+v", got, want)
	}
	if got := Correlate(runs[:1], findings[:1], nil); len(got) != 1 || got[0].Pairs != nil {
		t.Errorf("time only: %+v", got)
	}
}
