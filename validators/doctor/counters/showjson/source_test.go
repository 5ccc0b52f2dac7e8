package showjson

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/renderers/all"
	"github.com/rocefab/rocefab/validators/doctor/counters"
)

// shell answers commands from a table; a missing one is refused.
type shell map[string]string

func (s shell) Show(_ context.Context, cmd string) (string, error) {
	out, ok := s[cmd]
	if !ok {
		return "", errors.New("% Invalid command")
	}
	return out, nil
}

func TestSourceKeepsTheLosslessPriorities(t *testing.T) {
	p, _ := For(all.Renderers(), "eos")
	sh := shell{
		"show interfaces Ethernet5 priority-flow-control counters detail | json": string(fixture(t, "eos", "pfc_detail.json")),
		"show priority-flow-control counters watchdog | json":                    `{"interfaces": {}}`,
		"show qos interfaces ecn counters queue | json":                          string(fixture(t, "eos", "ecn.json")),
		"show interfaces counters queue detail | json":                           string(fixture(t, "eos", "queue_detail.json")),
	}
	src := Source{Device: "leaf1", Shell: sh, Platform: p, Ports: []string{"Ethernet5"}, Prios: []int{3}}
	samples, err := src.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	g := map[string]uint64{}
	for _, s := range samples {
		if s.Device != "leaf1" {
			t.Fatalf("sample of device %q", s.Device)
		}
		g[s.Port+" "+s.Counter] = s.Value
	}
	want := map[string]uint64{"Ethernet5 pfc3/rx-pause": 1204, "Ethernet5 pfc3/tx-pause": 77, "Ethernet5 queue3/ecn-marked": 35012,
		"Ethernet5 queue3/drops": 6, "Ethernet5 pfc3/watchdog-storms": 0}
	if len(g) != len(want) {
		t.Errorf("read %v, want %v", g, want)
	}
	for k, v := range want {
		if gv, ok := g[k]; !ok || gv != v {
			t.Errorf("%s = %d (present %v), want %d", k, gv, ok, v)
		}
	}
}

func TestSourceReportsFailedCommands(t *testing.T) {
	p, _ := For(all.Renderers(), "eos")
	sh := shell{"show qos interfaces ecn counters queue | json": string(fixture(t, "eos", "ecn.json"))}
	src := Source{Device: "leaf1", Shell: sh, Platform: p, Ports: []string{"Ethernet5"}, Prios: []int{3}}
	samples, err := src.Read(context.Background())
	if err == nil || !strings.Contains(err.Error(), "watchdog") {
		t.Fatalf("error %v", err)
	}
	// The watchdog command failed: its counter is unknown, not zero.
	if len(samples) != 1 || samples[0].Counter != counters.SwitchECNMarked(3) {
		t.Fatalf("samples %v", samples)
	}
	src.Shell = shell{}
	if samples, err := src.Read(context.Background()); err == nil || len(samples) != 0 {
		t.Fatalf("nothing answered: %v %v", samples, err)
	}
}
