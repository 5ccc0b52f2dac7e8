package daemon

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/rocefab/rocefab/agent/daemon/intentsrc"
	"github.com/rocefab/rocefab/agent/daemon/internal/gittest"
	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/agent/engine/enginetest"
	driversall "github.com/rocefab/rocefab/drivers/all"
	"github.com/rocefab/rocefab/drivers/sim/sshsim"
	"github.com/rocefab/rocefab/renderers/all"
	"github.com/rocefab/rocefab/validators/doctor/counters"
)

// TestSSHSwitchCountersPolled: the agent reads switches driven over SSH,
// which cannot stream, with their JSON show commands at the counters
// interval, so their counters reach the hub (and /metrics, the detectors)
// like a gNMI switch's.
func TestSSHSwitchCountersPolled(t *testing.T) {
	fl := enginetest.Start(t, []enginetest.Spec{{Name: "leaf-eos", Kind: enginetest.EOS}, {Name: "leaf-nxos", Kind: enginetest.NXOS}})
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
	key := func(dev, port, c string) counters.Key { return counters.Key{Device: dev, Port: port, Counter: c} }
	// Read before anything moved: zeros, not absent.
	waitFor(t, "the first reads", func() bool {
		_, eos := a.hub.value(key("leaf-eos", "Ethernet2", counters.SwitchPFCRx(3)))
		_, nxos := a.hub.value(key("leaf-nxos", "Ethernet1/2", counters.SwitchPFCWatchdog(3)))
		return eos && nxos
	})
	fl.Switch("leaf-eos").SSH.Jump("Ethernet2", 3, sshsim.PFCRxFrames, 1204)
	fl.Switch("leaf-nxos").SSH.Jump("Ethernet1/2", 3, sshsim.WatchdogStorms, 2)
	waitFor(t, "the moved counters", func() bool {
		eos, _ := a.hub.value(key("leaf-eos", "Ethernet2", counters.SwitchPFCRx(3)))
		nxos, _ := a.hub.value(key("leaf-nxos", "Ethernet1/2", counters.SwitchPFCWatchdog(3)))
		return eos == 1204 && nxos == 2
	})
	if _, ok := a.hub.value(key("leaf-eos", "Ethernet2", counters.SwitchPFCRx(4))); ok {
		t.Error("a lossy priority's counter is collected")
	}
}
