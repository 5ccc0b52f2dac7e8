package daemon

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/rocefab/rocefab/agent/daemon/history"
	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
	"github.com/rocefab/rocefab/validators/doctor/counters"
	"github.com/rocefab/rocefab/validators/telemetry"
)

// TestLosslessStateAcrossRestart: the detectors' counters survive an
// agent restart, so watchdog storms that happened while the agent was
// down are seen in its first round; a fresh detector would take the new
// values as its baseline and never see them.
func TestLosslessStateAcrossRestart(t *testing.T) {
	f := newFixture(t, 1)
	c1 := f.commit("first", f.intent("150KB", "9216"))
	f.converge("150KB", "9216")
	cfg := f.config()
	cfg.CountersInterval = 20 * time.Millisecond
	a := f.start(cfg, f.deps())
	a.waitRun(history.KindPlan, history.TriggerCommit, c1)
	key := counters.Key{Device: "leaf1", Port: "Ethernet2", Counter: "pfc3/watchdog-storms"}
	waitFor(t, "leaf1's counters", func() bool { _, ok := a.hub.value(key); return ok })
	waitFor(t, "a detector round with leaf1", func() bool {
		a.watch.mu.Lock()
		defer a.watch.mu.Unlock()
		if a.watch.det == nil {
			return false
		}
		for _, d := range a.watch.det.State().Devices {
			if d.Device == "leaf1" {
				return true
			}
		}
		return false
	})
	a.stop()

	db, err := history.Open(filepath.Join(f.stateDir, HistoryFile), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := db.Meta(losslessStateKey)
	db.Close()
	if err != nil || raw == "" {
		t.Fatalf("no detector state saved: %v", err)
	}
	var st telemetry.State
	if err := json.Unmarshal([]byte(raw), &st); err != nil || len(st.Devices) != 1 || st.Devices[0].Device != "leaf1" {
		t.Fatalf("saved state %v %s", err, raw)
	}

	f.sims["leaf1"].Jump("Ethernet2", 3, gnmisim.WatchdogStorms, 3) // while no agent runs
	b := f.start(f.config2(cfg), f.deps())
	waitFor(t, "the storm seen after the restart", func() bool {
		for _, x := range b.activeLossless() {
			if x.Code == telemetry.CodePFCStorm && x.Subject == (telemetry.Subject{Device: "leaf1", Port: "Ethernet2", Priority: 3}) {
				return true
			}
		}
		return false
	})
}

// config2 is cfg with a fresh intent source on the same state directory,
// as a restarted agent builds it.
func (f *fixture) config2(cfg Config) Config {
	cfg.Source = gitSource(f.t, f, f.stateDir)
	return cfg
}

// TestLosslessStateAcrossIntentChange: a new intent rebuilds the
// detectors without forgetting an active finding of a device still in it.
func TestLosslessStateAcrossIntentChange(t *testing.T) {
	f := newFixture(t, 1)
	c1 := f.commit("first", f.intent("150KB", "9216"))
	f.converge("150KB", "9216")
	cfg := f.config()
	cfg.CountersInterval = 20 * time.Millisecond
	a := f.start(cfg, f.deps())
	a.waitRun(history.KindPlan, history.TriggerCommit, c1)
	storm := func() bool {
		for _, x := range a.activeLossless() {
			if x.Code == telemetry.CodePFCStorm && x.Subject.Device == "leaf1" {
				return true
			}
		}
		return false
	}
	waitFor(t, "leaf1's counters", func() bool {
		_, ok := a.hub.value(counters.Key{Device: "leaf1", Port: "Ethernet2", Counter: "pfc3/watchdog-storms"})
		return ok
	})
	time.Sleep(5 * cfg.CountersInterval)
	f.sims["leaf1"].Jump("Ethernet2", 3, gnmisim.WatchdogStorms, 1)
	waitFor(t, "a pfc_storm finding", storm)
	a.watch.mu.Lock()
	before := a.watch.revision
	a.watch.mu.Unlock()

	c2 := f.commit("second", f.intent("200KB", "9216"))
	a.waitRun(history.KindPlan, history.TriggerCommit, c2)
	waitFor(t, "the detectors on the new intent", func() bool {
		a.watch.mu.Lock()
		defer a.watch.mu.Unlock()
		return a.watch.revision != before && a.watch.det != nil
	})
	time.Sleep(3 * cfg.CountersInterval)
	if !storm() {
		t.Fatalf("the active finding was forgotten with the new intent: %v", a.activeLossless())
	}
}
