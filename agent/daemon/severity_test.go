package daemon

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/rocefab/rocefab/agent/daemon/history"
	"github.com/rocefab/rocefab/devcfg"
)

// TestBreakingDriftIsCritical: a drift that only degrades the lossless
// class (the ECN threshold moved) is announced as a warning; when the same
// device then drifts in a way that breaks it (an MTU lowered by hand), the
// webhook fires again although the device stays "drifted", as critical,
// naming the breaking difference.
func TestBreakingDriftIsCritical(t *testing.T) {
	f := newFixture(t, 2)
	c1 := f.commit("first", f.intent("150KB", "9216"))
	f.converge("150KB", "9216")
	a := f.start(f.config(), f.deps())
	a.waitRun(history.KindPlan, history.TriggerCommit, c1)
	ctx := context.Background()
	if _, err := a.RunNow(ctx, history.KindDrift); err != nil {
		t.Fatal(err)
	}

	if err := f.sims["leaf1"].HandChange(ecnPath, devcfg.Uint64(300000)); err != nil {
		t.Fatal(err)
	}
	if _, err := a.RunNow(ctx, history.KindDrift); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the first webhook", func() bool { return f.hooks.calls.Load() >= 1 })
	var ev struct {
		Severity string
		Changes  []struct{ Device, To, Severity, Worst string }
	}
	if err := json.Unmarshal([]byte(f.hooks.body(0)), &ev); err != nil {
		t.Fatal(err)
	}
	if ev.Severity != "warning" || len(ev.Changes) != 1 || ev.Changes[0].To != "drifted" || ev.Changes[0].Severity != "warning" {
		t.Fatalf("a degrading drift: %+v", ev)
	}

	if err := f.sims["leaf1"].HandChange(mtuPath("Ethernet2"), devcfg.Int(1500)); err != nil {
		t.Fatal(err)
	}
	if _, err := a.RunNow(ctx, history.KindDrift); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the second webhook", func() bool { return f.hooks.calls.Load() >= 2 })
	if err := json.Unmarshal([]byte(f.hooks.body(1)), &ev); err != nil {
		t.Fatal(err)
	}
	if ev.Severity != "critical" || len(ev.Changes) != 1 || ev.Changes[0].Device != "leaf1" || ev.Changes[0].Severity != "critical" ||
		ev.Changes[0].Worst != mtuPath("Ethernet2")+": 1500 -> 9216" {
		t.Fatalf("a breaking drift: %+v", ev)
	}
	// Nothing new: no third webhook.
	if _, err := a.RunNow(ctx, history.KindDrift); err != nil {
		t.Fatal(err)
	}
	a.stop()
	if n := f.hooks.calls.Load(); n != 2 {
		t.Fatalf("%d webhooks, want 2", n)
	}
}
