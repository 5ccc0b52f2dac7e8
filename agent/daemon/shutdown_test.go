package daemon

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/agent/daemon/history"
	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
	"github.com/rocefab/rocefab/validators/doctor/counters"
)

// TestShutdownCancelsRunsCleanly: stopping during a slow drift check
// records the check as cancelled, closes the history (it opens again at
// once) and releases the lock.
func TestShutdownCancelsRunsCleanly(t *testing.T) {
	f := newFixture(t, 1)
	c1 := f.commit("first", f.intent("150KB", "9216"))
	f.converge("150KB", "9216")
	a := f.start(f.config(), f.deps())
	a.waitRun(history.KindPlan, history.TriggerCommit, c1)
	// The device would answer after a minute; stopping sooner shows the
	// check was cancelled, with no tighter bound for a loaded machine.
	const answerAfter = time.Minute
	f.sims["leaf1"].SetFaults(gnmisim.Faults{Delay: answerAfter})
	resp, err := http.Post(a.base+"/api/v1/runs?kind=drift", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	waitFor(t, "the manual check to start", func() bool {
		for _, r := range a.CurrentStatus().Running {
			if r.Trigger == history.TriggerManual {
				return true
			}
		}
		return false
	})
	start := time.Now()
	a.stop()
	if d := time.Since(start); d >= answerAfter {
		t.Fatalf("stopping took %s: it waited for the device instead of cancelling the check", d)
	}
	db, err := history.Open(filepath.Join(f.stateDir, HistoryFile), nil)
	if err != nil {
		t.Fatalf("history not closed: %v", err)
	}
	defer db.Close()
	page, err := db.List(history.Query{Kind: history.KindDrift})
	if err != nil {
		t.Fatal(err)
	}
	var r *history.Run
	for i := range page.Runs {
		if page.Runs[i].Trigger == history.TriggerManual {
			r = &page.Runs[i]
		}
	}
	if r == nil {
		t.Fatalf("no manual drift run recorded: %+v", page.Runs)
	}
	if r.Result != history.ResultCancelled || !strings.Contains(r.Error, "stopped") {
		t.Fatalf("the interrupted check: %s %q", r.Result, r.Error)
	}
	lk, err := lockStateDir(f.stateDir)
	if err != nil {
		t.Fatalf("lock not released: %v", err)
	}
	_ = lk.Unlock()
}

// TestCountersFollowTheIntent: a switch that leaves the intent stops being
// collected and its series disappear.
func TestCountersFollowTheIntent(t *testing.T) {
	f := newFixture(t, 2)
	c1 := f.commit("first", f.intent("150KB", "9216"))
	f.converge("150KB", "9216")
	f.sims["leaf2"].Jump("Ethernet1", 3, gnmisim.PFCTx, 77)
	cfg := f.config()
	cfg.CountersInterval = 20 * time.Millisecond
	a := f.start(cfg, f.deps())
	a.waitRun(history.KindPlan, history.TriggerCommit, c1)
	k := counters.Key{Device: "leaf2", Port: "Ethernet1", Counter: "pfc3/tx-pause"}
	waitFor(t, "leaf2's counters", func() bool { v, _ := a.hub.value(k); return v == 77 })

	// leaf2 leaves the intent: drop its entry from the rendered file.
	only1 := f.intent("150KB", "9216")
	i := strings.Index(only1, "    - name: leaf2")
	c2 := f.commit("retire leaf2", only1[:i])
	a.waitRun(history.KindPlan, history.TriggerCommit, c2)
	waitFor(t, "leaf2's series to go", func() bool { _, ok := a.hub.value(k); return !ok })
	if _, ok := metricValue(t, a, "rocefab_counter_source_up", map[string]string{"device": "leaf2"}); ok {
		t.Fatal("leaf2 still has a counter source")
	}
	if v, ok := metricValue(t, a, "rocefab_counter_source_up", map[string]string{"device": "leaf1"}); !ok || v != 1 {
		t.Fatalf("leaf1's counters stopped: %v %v", v, ok)
	}
}
