package telemetry

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"
)

func roundTrip(t *testing.T, st *State) *State {
	t.Helper()
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var out State
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return &out
}

// TestRestartWithState: an agent restart in the middle of a storm (state
// saved and restored) neither loses the sustain count nor raises twice,
// and the first round after the restart gives rates.
func TestRestartWithState(t *testing.T) {
	topo := unitTopology(t)
	s := newSim(t, topo)
	s.reports(allPrio, allPort, append(slices.Clone(sws), hosts...)...)
	s.dev("spine1").narrow = Widths{Prio: PrioSetOf(PauseRx)}
	det, _ := New(topo, DefaultConfig())
	det.Observe(s.round(0))
	var raised []int
	stormRound := func(r int) Report {
		healthy(s)
		s.pause("leaf1", "Ethernet1", 3, 0.95, el)
		rep := det.Observe(s.round(el))
		for range rep.Raised {
			raised = append(raised, r)
		}
		return rep
	}
	stormRound(1)
	stormRound(2)
	// Restart: the new detector gets the saved state.
	st := roundTrip(t, det.State())
	det, _ = New(topo, DefaultConfig())
	if err := det.Restore(st); err != nil {
		t.Fatal(err)
	}
	rep := stormRound(3)
	if rep.Readings[0].State != ReadingRated {
		t.Errorf("first reading after a restart with state: %s", rep.Readings[0].State)
	}
	for r := 4; r <= 5; r++ {
		stormRound(r)
	}
	st = roundTrip(t, det.State())
	det, _ = New(topo, DefaultConfig())
	if err := det.Restore(st); err != nil {
		t.Fatal(err)
	}
	rep = stormRound(6)
	if !slices.Equal(raised, []int{3}) {
		t.Fatalf("raised in rounds %v, want [3] only", raised)
	}
	if len(rep.Active) != 1 || rep.Active[0].Rounds != 6 || !rep.Active[0].FirstSeen.Equal(t0) {
		t.Fatalf("active %+v", rep.Active)
	}
}

// TestRestartWithoutState: a fresh detector's first round is a baseline,
// whatever the counters say.
func TestRestartWithoutState(t *testing.T) {
	topo := unitTopology(t)
	s := newSim(t, topo)
	s.reports(allPrio, allPort, append(slices.Clone(sws), hosts...)...)
	s.port("leaf1", "Ethernet2").Prio[3].V[Drops] = 1_000 // drops from before the agent started
	det, _ := New(topo, DefaultConfig())
	rep := det.Observe(s.round(el))
	for _, rs := range rep.Readings {
		if rs.State != ReadingBaseline {
			t.Errorf("%s: %s", rs.Device, rs.State)
		}
	}
	if len(rep.Raised) != 0 {
		t.Fatalf("raised %v on a baseline", rep.Raised)
	}
	healthy(s)
	if rep := det.Observe(s.round(el)); len(rep.Raised) != 0 {
		t.Fatalf("raised %v", rep.Raised)
	}
}

func TestRestoreRefuses(t *testing.T) {
	topo := unitTopology(t)
	det, _ := New(topo, DefaultConfig())
	if err := det.Restore(&State{Version: 99}); !errors.Is(err, ErrState) {
		t.Errorf("version: %v", err)
	}
	bad := &State{Version: StateVersion, Devices: []DeviceState{{Device: "leaf1",
		Ports: []PortState{{Port: "Ethernet1", Prio: [8]PrioSet{PrioSetOf(PauseRx, PauseTx)}, Values: []uint64{1}}}}}}
	if err := det.Restore(bad); !errors.Is(err, ErrState) {
		t.Errorf("short values: %v", err)
	}
	det.Observe(nil)
	if err := det.Restore(&State{Version: StateVersion}); !errors.Is(err, ErrState) {
		t.Errorf("after a round: %v", err)
	}
	// Devices, ports and findings the topology lost are dropped.
	det, _ = New(topo, DefaultConfig())
	gone := &State{Version: StateVersion,
		Devices:  []DeviceState{{Device: "leaf9", Ports: []PortState{{Port: "x"}}}, {Device: "leaf1", Ports: []PortState{{Port: "Ethernet77"}}}},
		Findings: []FindingState{{Finding: Finding{Code: CodePFCStorm, Subject: Subject{Device: "leaf9", Priority: 3}}}}}
	if err := det.Restore(gone); err != nil || len(det.findings) != 0 {
		t.Errorf("err %v, findings %d", err, len(det.findings))
	}
}

func TestSubjectJSON(t *testing.T) {
	for _, s := range []Subject{{Device: "leaf1", Port: "Ethernet1", Priority: 3}, {Device: "gpu1", Port: "ens1f0np0", Priority: NoPriority},
		{Device: "leaf2", Priority: 0}} {
		b, _ := json.Marshal(s)
		var back Subject
		if err := json.Unmarshal(b, &back); err != nil || back != s {
			t.Errorf("%s → %s → %+v (%v)", s, b, back, err)
		}
	}
	if b, _ := json.Marshal(Subject{Device: "gpu1", Port: "eth0", Priority: NoPriority}); string(b) != `{"device":"gpu1","port":"eth0"}` {
		t.Errorf("json %s", b)
	}
}
