package daemon

import (
	"context"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/agent/daemon/intentsrc"
	"github.com/rocefab/rocefab/agent/daemon/internal/gittest"
	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/agent/engine/enginetest"
	driversall "github.com/rocefab/rocefab/drivers/all"
	"github.com/rocefab/rocefab/renderers/all"
)

// TestCounterNamesPerPlatform: the agent, on one simulated switch per
// platform and transport, collects per RoCE port the counters listed
// here (the no-drop priority 3 shown) and no others, as docs/telemetry.md
// tabulates them with their sources.
func TestCounterNamesPerPlatform(t *testing.T) {
	// Per platform, the counter names one RoCE port gives (priority 3,
	// the no-drop one, and 6, the CNP one) from the simulator of its
	// transport; docs/telemetry.md lists where each comes from.
	want := map[enginetest.Kind]string{
		enginetest.SONiC: "pfc3/rx-pause pfc3/rx-pause-us pfc3/tx-pause pfc3/tx-pause-us pfc3/watchdog-storms " +
			"pfc6/rx-pause pfc6/rx-pause-us pfc6/tx-pause pfc6/tx-pause-us queue3/drops queue3/ecn-marked queue3/tx-packets " +
			"queue6/drops queue6/ecn-marked queue6/tx-packets",
		enginetest.OpenConfig: "mac/rx-pause mac/tx-pause queue3/drops queue3/ecn-marked queue3/tx-packets",
		enginetest.NXOS: "pfc3/rx-pause pfc3/tx-pause pfc3/watchdog-storms pfc6/rx-pause pfc6/tx-pause " +
			"queue3/drops queue3/ecn-marked queue3/tx-packets queue6/drops queue6/ecn-marked queue6/tx-packets",
		enginetest.EOS: "pfc3/rx-pause pfc3/tx-pause pfc3/watchdog-storms pfc6/rx-pause pfc6/tx-pause pfc6/watchdog-storms " +
			"queue3/drops queue3/ecn-marked queue6/drops",
		enginetest.Junos: "mac/rx-pause mac/tx-pause pfc3/rx-pause pfc3/tx-pause pfc6/rx-pause pfc6/tx-pause " +
			"queue3/drops queue3/tx-packets queue6/drops queue6/tx-packets",
		enginetest.Cumulus: "pfc3/rx-pause pfc3/tx-pause pfc6/rx-pause pfc6/tx-pause queue3/drops queue3/ecn-marked queue3/tx-packets " +
			"queue6/drops queue6/ecn-marked queue6/tx-packets",
		enginetest.SONiCSSH: "", // no JSON counter commands over SSH
	}
	var specs []enginetest.Spec
	for _, k := range enginetest.AllKinds {
		if _, ok := want[k]; !ok {
			t.Fatalf("no counter names listed for %s", k)
		}
		specs = append(specs, enginetest.Spec{Name: "sw-" + k.Platform + "-" + k.Transport, Kind: k})
	}
	fl := enginetest.Start(t, specs)
	repo := gittest.New(t)
	repo.Commit("first", map[string]string{"fabric/fabric.yaml": string(fl.Intent(enginetest.Params{}))})
	stateDir := filepath.Join(t.TempDir(), "state")
	src, err := intentsrc.NewGit(intentsrc.GitOptions{URL: repo.Dir, Dir: filepath.Join(stateDir, "git"), Paths: []string{"fabric"}})
	if err != nil {
		t.Fatal(err)
	}
	eng := engine.New(all.Renderers(), driversall.Drivers(), nil, engine.Options{Timeout: 5 * time.Second, Parallelism: 4, Secrets: engine.ResolveSecret})
	a, err := New(Config{StateDir: stateDir, Source: src, Refresh: 50 * time.Millisecond, Drift: Schedule{Interval: time.Hour},
		HTTP: HTTPConfig{Listen: "127.0.0.1:0"}, ShutdownTimeout: 5 * time.Second, CountersInterval: 20 * time.Millisecond},
		Deps{Engine: eng, Renderers: all.Renderers(), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("agent Run: %v", err)
		}
	})
	names := func(dev string) map[string][]string { // port -> counters
		a.hub.mu.Lock()
		defer a.hub.mu.Unlock()
		out := map[string][]string{}
		if d := a.hub.devs[dev]; d != nil {
			for k := range d.vals {
				out[k.Port] = append(out[k.Port], k.Counter)
			}
		}
		return out
	}
	joined := func(dev string) map[string]string {
		out := map[string]string{}
		for p, cs := range names(dev) {
			sort.Strings(cs)
			out[p] = strings.Join(cs, " ")
		}
		return out
	}
	complete := func() bool {
		for _, sp := range specs {
			got := joined(sp.Name)
			if want[sp.Kind] != "" && len(got) == 0 {
				return false
			}
			for _, cs := range got {
				if cs != want[sp.Kind] {
					return false
				}
			}
		}
		return true
	}
	deadline := time.Now().Add(10 * time.Second)
	for !complete() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	for _, sp := range specs {
		got := joined(sp.Name)
		if want[sp.Kind] == "" {
			if len(got) != 0 {
				t.Errorf("%s: counters %v, want none", sp.Kind, got)
			}
			continue
		}
		if len(got) == 0 {
			t.Errorf("%s: no counters", sp.Kind)
		}
		for p, cs := range got {
			if cs != want[sp.Kind] {
				t.Errorf("%s %s:\n got %s\nwant %s", sp.Kind, p, cs, want[sp.Kind])
			}
		}
	}
}
