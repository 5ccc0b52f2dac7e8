package daemon

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/agent/daemon/history"
	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
)

// TestAutoApplyGuardrails: with auto-apply on, a new commit is applied
// only when it is hitless and touches at most max-devices devices; a
// failed push is counted.
func TestAutoApplyGuardrails(t *testing.T) {
	f := newFixture(t, 2)
	c1 := f.commit("first", f.intent("150KB", "9216"))
	f.converge("150KB", "9216")
	cfg := f.config()
	cfg.Apply = ApplyPolicy{Auto: true, MaxDevices: 1}
	a := f.start(cfg, f.deps())
	if r := a.waitRun(history.KindApply, history.TriggerCommit, c1); r.Result != history.ResultSuccess || r.Summary.ByStatus["no-changes"] != 2 {
		t.Fatalf("apply of a converged fabric: %s %+v %s", r.Result, r.Summary, r.Error)
	}
	sets := func() int { return f.sims["leaf1"].SetCount() + f.sims["leaf2"].SetCount() }
	leaf := func(name, path string) string { return string(f.sims[name].Leaves()[path]) }

	t.Run("hitless change on one device is applied", func(t *testing.T) {
		c := f.commit("leaf1 ECN", f.intentWith("150KB", "9216", map[string]string{"leaf1": "{ecn: {minThreshold: 250KB}}"}))
		r := a.waitRun(history.KindApply, history.TriggerCommit, c)
		if r.Result != history.ResultSuccess || device(r, "leaf1").Status != string(engine.OutcomeApplied) || device(r, "leaf2").Status != string(engine.OutcomeNoChanges) {
			t.Fatalf("apply: %s %q %+v", r.Result, r.Error, r.Devices)
		}
		if got := leaf("leaf1", ecnPath); got != `"250000"` {
			t.Fatalf("leaf1 ECN %s", got)
		}
		if _, err := os.Stat(filepath.Join(f.stateDir, "runs", r.ID, "report.json")); err != nil {
			t.Fatalf("no engine report for rocefab rollback: %v", err)
		}
		d := a.waitRun(history.KindDrift, history.TriggerCommit, c)
		if device(d, "leaf1").Status != "compliant" {
			t.Fatalf("drift after the apply: %+v", d.Devices)
		}
	})
	t.Run("more devices than the limit", func(t *testing.T) {
		before := sets()
		c := f.commit("fabric ECN", f.intent("200KB", "9216"))
		r := a.waitRun(history.KindApply, history.TriggerCommit, c)
		if r.Result != history.ResultFailure || !strings.Contains(r.Error, "guardrail: 2 devices have changes, more than the 1") {
			t.Fatalf("apply over the limit: %s %q", r.Result, r.Error)
		}
		if len(device(r, "leaf2").Changes) != 1 {
			t.Fatalf("the refused run does not show the planned diff: %+v", r.Devices)
		}
		if sets() != before || leaf("leaf2", ecnPath) != `"150000"` {
			t.Fatal("a device was changed beyond the limit")
		}
	})
	t.Run("disruptive change is never applied", func(t *testing.T) {
		before := sets()
		c := f.commit("leaf1 MTU", f.intentWith("150KB", "9216", map[string]string{"leaf1": "{ecn: {minThreshold: 250KB}, mtu: {switch: 9000}}"}))
		r := a.waitRun(history.KindApply, history.TriggerCommit, c)
		d := device(r, "leaf1")
		if r.Result != history.ResultFailure || d.Status != string(engine.OutcomeRefused) || !strings.Contains(d.Error, "traffic-affecting") {
			t.Fatalf("disruptive apply: %s %+v", r.Result, d)
		}
		if sets() != before || leaf("leaf1", mtuPath("Ethernet1")) != "9216" {
			t.Fatal("a disruptive change was pushed")
		}
	})
	t.Run("failed push is counted", func(t *testing.T) {
		f.sims["leaf2"].SetFaults(gnmisim.Faults{RejectPath: ecnPath, RejectMessage: "rejected by the test"})
		c := f.commit("leaf2 ECN", f.intentWith("150KB", "9216", map[string]string{"leaf1": "{ecn: {minThreshold: 250KB}}", "leaf2": "{ecn: {minThreshold: 300KB}}"}))
		r := a.waitRun(history.KindApply, history.TriggerCommit, c)
		d := device(r, "leaf2")
		if r.Result != history.ResultFailure || d.Status != string(engine.OutcomeFailed) || !strings.Contains(d.Error, "rejected by the test") {
			t.Fatalf("failed push: %s %+v", r.Result, d)
		}
		if v, ok := metricValue(t, a, "rocefab_push_failures_total", map[string]string{"device": "leaf2", "outcome": "failed"}); !ok || v != 1 {
			t.Fatalf("push failures %v %v", v, ok)
		}
		if v, _ := metricValue(t, a, "rocefab_last_run_success", map[string]string{"kind": "apply"}); v != 0 {
			t.Fatalf("last apply success %v", v)
		}
	})
}
