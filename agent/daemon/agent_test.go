package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/agent/daemon/history"
	"github.com/rocefab/rocefab/devcfg"
)

// TestNewCommitTriggersPlan: the agent fetches each new commit from the
// repository and plans it; the run records the commit SHA and the diffs.
func TestNewCommitTriggersPlan(t *testing.T) {
	f := newFixture(t, 2)
	c1 := f.commit("first", f.intent("150KB", "9216"))
	f.converge("150KB", "9216")
	a := f.start(f.config(), f.deps())

	reload := a.waitRun(history.KindReload, history.TriggerCommit, c1)
	if reload.Result != history.ResultSuccess {
		t.Fatalf("reload of a valid commit: %s %s", reload.Result, reload.Error)
	}
	p1 := a.waitRun(history.KindPlan, history.TriggerCommit, c1)
	if p1.Result != history.ResultSuccess || p1.Summary.ByStatus[string(compliance.StatusNoChanges)] != 2 {
		t.Fatalf("plan of a converged fabric: %s %+v %s", p1.Result, p1.Summary, p1.Error)
	}

	c2 := f.commit("raise the ECN minimum", f.intent("200KB", "9216"))
	p2 := a.waitRun(history.KindPlan, history.TriggerCommit, c2)
	if p2.Result != history.ResultChanges || p2.Summary.ByStatus[string(compliance.StatusChanges)] != 2 {
		t.Fatalf("plan of the new commit: %s %+v", p2.Result, p2.Summary)
	}
	ch := device(p2, "leaf1").Changes
	if len(ch) != 1 || ch[0].Action != devcfg.Modify || ch[0].Path != ecnPath || ch[0].Old != `"150000"` || ch[0].New != `"200000"` {
		t.Fatalf("leaf1 changes %+v", ch)
	}
	// The API serves the run with its diff and the commit.
	code, body := a.get("/api/v1/runs/"+p2.ID, "")
	var got history.Run
	if err := json.Unmarshal([]byte(body), &got); code != 200 || err != nil {
		t.Fatalf("GET run: %d %v %s", code, err, body)
	}
	if got.Commit != c2 || got.Kind != history.KindPlan || got.Trigger != history.TriggerCommit || len(device(&got, "leaf2").Changes) != 1 {
		t.Fatalf("run from the API: %+v", got)
	}
	// A plan never changes a device.
	if v := f.sims["leaf1"].Leaves()[ecnPath]; v != `"150000"` {
		t.Fatalf("the plan changed leaf1: %s", v)
	}
	// No run for a commit twice: the fetch loop keeps fetching.
	n := 0
	for _, r := range mustList(t, a, history.KindPlan) {
		if r.Commit == c2 {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("%d plan runs for commit %s", n, c2)
	}
}

func mustList(t *testing.T, a *running, kind history.Kind) []history.Run {
	t.Helper()
	p, err := a.db.List(history.Query{Kind: kind, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	return p.Runs
}

func metricValue(t *testing.T, a *running, family string, labels map[string]string) (float64, bool) {
	t.Helper()
	return valueIn(scrape(t, a.base, ""), family, labels)
}

// TestHandChangeNotifiesOnce: a hand change on a switch flips its metric
// to drifted and fires exactly one webhook; the next check, with nothing
// new, fires none.
func TestHandChangeNotifiesOnce(t *testing.T) {
	f := newFixture(t, 2)
	c1 := f.commit("first", f.intent("150KB", "9216"))
	f.converge("150KB", "9216")
	a := f.start(f.config(), f.deps())
	a.waitRun(history.KindPlan, history.TriggerCommit, c1)
	ctx := context.Background()

	first, err := a.RunNow(ctx, history.KindDrift)
	if err != nil {
		t.Fatal(err)
	}
	if first.Result != history.ResultSuccess || first.Summary.ByStatus["compliant"] != 2 {
		t.Fatalf("first drift check: %s %+v", first.Result, first.Summary)
	}
	if v, _ := metricValue(t, a, "rocefab_device_compliant", map[string]string{"device": "leaf1", "platform": "simoc"}); v != 1 {
		t.Fatalf("leaf1 compliant metric %v", v)
	}

	if err := f.sims["leaf1"].HandChange(mtuPath("Ethernet2"), devcfg.Int(1500)); err != nil {
		t.Fatal(err)
	}
	second, err := a.RunNow(ctx, history.KindDrift)
	if err != nil {
		t.Fatal(err)
	}
	d := device(second, "leaf1")
	if second.Result != history.ResultChanges || d.Status != string(compliance.StatusDrifted) || len(d.Changes) != 1 || d.Changes[0].Old != "1500" {
		t.Fatalf("drift after the hand change: %s leaf1 %+v", second.Result, d)
	}
	for _, tc := range []struct {
		family string
		labels map[string]string
		want   float64
	}{
		{"rocefab_device_compliant", map[string]string{"device": "leaf1"}, 0},
		{"rocefab_device_state", map[string]string{"device": "leaf1", "state": "drifted"}, 1},
		{"rocefab_device_state", map[string]string{"device": "leaf1", "state": "compliant"}, 0},
		{"rocefab_device_compliant", map[string]string{"device": "leaf2"}, 1},
		{"rocefab_drift_devices", nil, 1},
	} {
		if v, ok := metricValue(t, a, tc.family, tc.labels); !ok || v != tc.want {
			t.Errorf("%s%v = %v (present %v), want %v", tc.family, tc.labels, v, ok, tc.want)
		}
	}
	waitFor(t, "the webhook", func() bool { return f.hooks.calls.Load() >= 1 })
	var ev map[string]any
	if err := json.Unmarshal([]byte(f.hooks.body(0)), &ev); err != nil {
		t.Fatal(err)
	}
	changes := ev["changes"].([]any)
	if len(changes) != 1 || changes[0].(map[string]any)["device"] != "leaf1" || changes[0].(map[string]any)["to"] != "drifted" ||
		changes[0].(map[string]any)["from"] != "compliant" || ev["commit"] != c1 {
		t.Fatalf("webhook body %v", ev)
	}

	waitFor(t, "the delivery to be counted", func() bool {
		v, _ := metricValue(t, a, "rocefab_webhook_notifications_total", map[string]string{"result": "delivered"})
		return v == 1
	})
	third, err := a.RunNow(ctx, history.KindDrift)
	if err != nil {
		t.Fatal(err)
	}
	if device(third, "leaf1").Status != string(compliance.StatusDrifted) {
		t.Fatalf("third check: %+v", device(third, "leaf1"))
	}
	a.stop() // closes the notifier after draining its queue
	if n := f.hooks.calls.Load(); n != 1 {
		t.Fatalf("%d webhooks, want exactly 1", n)
	}
}

// TestRestartKeepsHistory: a new agent on the same state directory has
// the runs and device states of the old one, and does not plan the same
// commit again.
func TestRestartKeepsHistory(t *testing.T) {
	f := newFixture(t, 1)
	c1 := f.commit("first", f.intent("150KB", "9216"))
	f.converge("150KB", "9216")
	a := f.start(f.config(), f.deps())
	plan := a.waitRun(history.KindPlan, history.TriggerCommit, c1)
	if err := f.sims["leaf1"].HandChange(mtuPath("Ethernet1"), devcfg.Int(1500)); err != nil {
		t.Fatal(err)
	}
	drift, err := a.RunNow(context.Background(), history.KindDrift)
	if err != nil {
		t.Fatal(err)
	}
	before := mustList(t, a, "")
	a.stop()

	b := f.start(f.config(), f.deps())
	waitFor(t, "the intent", func() bool { return b.intent() != nil })
	code, body := b.get("/api/v1/runs?limit=1000", "")
	var page history.Page
	if err := json.Unmarshal([]byte(body), &page); code != 200 || err != nil {
		t.Fatalf("runs: %d %v", code, err)
	}
	ids := map[string]bool{}
	for _, r := range page.Runs {
		ids[r.ID] = true
	}
	for _, r := range before {
		if !ids[r.ID] {
			t.Errorf("run %s (%s) lost across the restart", r.ID, r.Kind)
		}
	}
	if got, err := b.db.Get(drift.ID); err != nil || device(got, "leaf1").Status != "drifted" || len(device(got, "leaf1").Changes) != 1 {
		t.Fatalf("drift run after restart: %v %+v", err, got)
	}
	if _, err := b.db.Get(plan.ID); err != nil {
		t.Fatal(err)
	}
	st := b.CurrentStatus()
	if len(st.Devices) != 1 || st.Devices[0].State != "drifted" {
		t.Fatalf("device states after restart: %+v", st.Devices)
	}
	// The first agent planned c1; the second does not plan it again.
	b.waitRun(history.KindDrift, history.TriggerSchedule, c1) // the schedule's first check
	n := 0
	for _, r := range mustList(t, b, history.KindPlan) {
		if r.Commit == c1 {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("commit %s planned %d times across a restart", c1, n)
	}
}

// TestSecondAgentRefuses: one agent per state directory.
func TestSecondAgentRefuses(t *testing.T) {
	f := newFixture(t, 1)
	f.commit("first", f.intent("150KB", "9216"))
	a := f.start(f.config(), f.deps())
	_, err := New(f.config(), f.deps())
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("second agent: %v", err)
	}
	for _, want := range []string{f.stateDir + "/agent.lock", fmt.Sprintf("PID %d", os.Getpid()), "one agent per state directory"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q does not say %q", err, want)
		}
	}
	// The first agent is unaffected and, once stopped, frees the directory.
	if code, _ := a.get("/healthz", ""); code != 200 {
		t.Fatalf("first agent healthz %d", code)
	}
	a.stop()
	b, err := New(f.config(), f.deps())
	if err != nil {
		t.Fatalf("after the first agent stopped: %v", err)
	}
	_ = b.Close()
}
