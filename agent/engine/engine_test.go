package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/validators/lint"
)

type harness struct {
	t     *testing.T
	fleet *fakeFleet
	eng   *Engine
	store RunStore
}

func newHarness(t *testing.T, parallelism int) *harness {
	fleet := newFleet()
	reg := fakeRegistry()
	return &harness{t: t, fleet: fleet, store: RunStore{Dir: t.TempDir()},
		eng: New(reg, fleet.registry(), nil, Options{Parallelism: parallelism})}
}

func (h *harness) resolve(data []byte) *intent.Resolved {
	h.t.Helper()
	res, diags := lint.ValidateBytes(fakeRegistry(), "fake.yaml", data)
	if diags.HasErrors() {
		h.t.Fatalf("intent: %v", diags.Err())
	}
	return res
}

func (h *harness) plan(res *intent.Resolved) *compliance.Plan {
	h.t.Helper()
	p, err := h.eng.Plan(context.Background(), res, compliance.IntentRef{Fabric: res.Name}, Selection{SkipHosts: true})
	if err != nil {
		h.t.Fatal(err)
	}
	return p
}

func (h *harness) apply(p *compliance.Plan, opt ApplyOptions) *RunReport {
	h.t.Helper()
	opt.Store = h.store
	rep, err := h.eng.Apply(context.Background(), p, opt)
	if err != nil {
		h.t.Fatal(err)
	}
	return rep
}

func TestPlanApplyIdempotent(t *testing.T) {
	h := newHarness(t, 4)
	res := h.resolve(fakeIntent(3, "9000"))
	p := h.plan(res)
	if p.Summary.ByStatus[compliance.StatusChanges] != 3 || p.Summary.Add != 3*3 {
		t.Fatalf("fresh fleet: %+v", p.Summary)
	}
	rep := h.apply(p, ApplyOptions{AllowDisruptive: true})
	for _, d := range rep.Devices {
		if d.Outcome != OutcomeApplied {
			t.Fatalf("%s: %s %s", d.Device, d.Outcome, d.Reason)
		}
	}
	again := h.plan(res)
	if again.HasChanges() || again.Summary.ByStatus[compliance.StatusNoChanges] != 3 {
		t.Fatalf("second plan should be empty: %+v", again.Summary)
	}
	if got := h.fleet.device("192.0.2.1").paths["/port/p1/mtu"]; got != "9000" {
		t.Fatalf("device sw00 holds mtu %s", got)
	}
}

func TestDisruptiveNeedsFlag(t *testing.T) {
	h := newHarness(t, 1)
	p := h.plan(h.resolve(fakeIntent(1, "9000")))
	rep := h.apply(p, ApplyOptions{})
	d := rep.Devices[0]
	if d.Outcome != OutcomeRefused || !strings.Contains(d.Reason, "--allow-disruptive") || !strings.Contains(d.Reason, "MTU changes flap the link") {
		t.Fatalf("got %s: %s", d.Outcome, d.Reason)
	}
	if h.fleet.device(p.Devices[0].Address).pushes != 0 {
		t.Fatal("a refused device must not be pushed")
	}
}

func TestDriftShowsExactlyTheHandChange(t *testing.T) {
	h := newHarness(t, 2)
	res := h.resolve(fakeIntent(2, "9000"))
	h.apply(h.plan(res), ApplyOptions{AllowDisruptive: true})
	// A hand change on sw01, plus a change to configuration rocefab does not own.
	dev := h.fleet.device(res.Switch("sw01").Address.String())
	dev.paths["/port/p1/mtu"] = devcfg.Int(1500)
	dev.paths["/port/x/description"] = devcfg.String("edited by hand, not ours")
	d, err := h.eng.Drift(context.Background(), res, compliance.IntentRef{}, Selection{SkipHosts: true})
	if err != nil {
		t.Fatal(err)
	}
	if d.Summary.ByStatus[compliance.StatusDrifted] != 1 || d.Summary.ByStatus[compliance.StatusCompliant] != 1 {
		t.Fatalf("drift summary %+v", d.Summary.ByStatus)
	}
	sw01, _ := d.Device("sw01")
	if len(sw01.Changes) != 1 {
		t.Fatalf("want exactly one change, got %+v", sw01.Changes)
	}
	c := sw01.Changes[0]
	if c.Action != devcfg.Modify || c.Path != "/port/p1/mtu" || c.Old != "1500" || c.New != "9000" {
		t.Fatalf("change %+v", c)
	}
}

func TestUnreachableIsNeverCompliant(t *testing.T) {
	h := newHarness(t, 2)
	res := h.resolve(fakeIntent(2, "9000"))
	h.fleet.device(res.Switch("sw00").Address.String()).unreachable = true
	d, err := h.eng.Drift(context.Background(), res, compliance.IntentRef{}, Selection{SkipHosts: true})
	if err != nil {
		t.Fatal(err)
	}
	sw00, _ := d.Device("sw00")
	if sw00.Status != compliance.StatusUnreachable {
		t.Fatalf("status %s", sw00.Status)
	}
}

func TestFailedDeviceInFleet(t *testing.T) {
	for _, tc := range []struct {
		name          string
		stop          bool
		wantApplied   int
		wantUntouched int
	}{
		{"continue on failure", false, 49, 0},
		{"stop on failure", true, 17, 32},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, 1)
			res := h.resolve(fakeIntent(50, "9000"))
			bad := h.fleet.device(res.Switch("sw17").Address.String())
			bad.failPush = true
			before := bad.paths.Clone()
			rep := h.apply(h.plan(res), ApplyOptions{AllowDisruptive: true, StopOnFailure: tc.stop})
			applied, skipped := 0, 0
			for _, d := range rep.Devices {
				switch d.Outcome {
				case OutcomeApplied:
					applied++
				case OutcomeSkipped:
					skipped++
					if h.fleet.device(d.Address).pushes != 0 {
						t.Errorf("%s was skipped but pushed", d.Device)
					}
				}
			}
			var failed DeviceRun
			for _, d := range rep.Devices {
				if d.Device == "sw17" {
					failed = d
				}
			}
			if failed.Outcome != OutcomeFailed || !strings.Contains(failed.Reason, "rejected by test") {
				t.Fatalf("sw17: %s %q", failed.Outcome, failed.Reason)
			}
			if bad.paths.Text() != before.Text() {
				t.Fatal("the failed device changed")
			}
			if applied != tc.wantApplied || skipped != tc.wantUntouched {
				t.Fatalf("applied %d, skipped %d", applied, skipped)
			}
			if rep.Result != "failure" {
				t.Fatal("the run should fail")
			}
		})
	}
}

func TestSavedPlanRefusesAfterDeviceChanged(t *testing.T) {
	h := newHarness(t, 1)
	res := h.resolve(fakeIntent(1, "9000"))
	p := h.plan(res)
	path := t.TempDir() + "/plan.json"
	if err := p.Save(path); err != nil {
		t.Fatal(err)
	}
	h.fleet.device(p.Devices[0].Address).paths["/qos/dscp/26"] = devcfg.Int(5)
	saved, err := compliance.LoadPlan(path)
	if err != nil {
		t.Fatal(err)
	}
	rep := h.apply(saved, ApplyOptions{AllowDisruptive: true})
	if d := rep.Devices[0]; d.Outcome != OutcomeRefused || !strings.Contains(d.Reason, ErrStalePlan.Error()) {
		t.Fatalf("got %s %q", d.Outcome, d.Reason)
	}
}

func TestRollbackRestoresSnapshots(t *testing.T) {
	h := newHarness(t, 2)
	old := h.resolve(fakeIntent(3, "9000"))
	h.apply(h.plan(old), ApplyOptions{AllowDisruptive: true})
	newer := h.resolve(fakeIntent(3, "4200"))
	rep := h.apply(h.plan(newer), ApplyOptions{AllowDisruptive: true})
	if rep.Failed() {
		t.Fatalf("apply failed: %+v", rep.Devices)
	}
	if h.plan(old).HasChanges() == false {
		t.Fatal("after the new apply, the old intent should differ")
	}
	rb, err := h.eng.Rollback(context.Background(), h.store, rep.ID, RollbackOptions{AllowDisruptive: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range rb.Devices {
		if d.Outcome != OutcomeApplied {
			t.Fatalf("%s: %s %s", d.Device, d.Outcome, d.Reason)
		}
	}
	if p := h.plan(old); p.HasChanges() {
		t.Fatalf("plan against the old intent after rollback: %+v", p.Summary)
	}
}

func TestVerifyFailureRollsBack(t *testing.T) {
	h := newHarness(t, 2)
	res := h.resolve(fakeIntent(2, "9000"))
	p := h.plan(res)
	rep := h.apply(p, ApplyOptions{AllowDisruptive: true, Verify: func(context.Context, []string) (VerifyResult, error) {
		return VerifyResult{Passed: false, Summary: "mtu_blackhole gpu01 -> gpu02"}, nil
	}})
	for _, d := range rep.Devices {
		if d.Outcome != OutcomeRolledBack || !strings.Contains(d.Reason, "mtu_blackhole") {
			t.Fatalf("%s: %s %s", d.Device, d.Outcome, d.Reason)
		}
	}
	if again := h.plan(res); again.Summary.Add != p.Summary.Add {
		t.Fatalf("devices should be back where they were: %+v", again.Summary)
	}
}

func TestCanaryFailureStopsTheRest(t *testing.T) {
	h := newHarness(t, 1)
	res := h.resolve(fakeIntent(5, "9000"))
	h.fleet.device(res.Switch("sw00").Address.String()).failPush = true
	rep := h.apply(h.plan(res), ApplyOptions{AllowDisruptive: true, Canary: 2})
	var outcomes []string
	for _, d := range rep.Devices {
		outcomes = append(outcomes, string(d.Outcome))
	}
	if got := strings.Join(outcomes, ","); got != "failed,applied,skipped,skipped,skipped" {
		t.Fatalf("outcomes %s", got)
	}
}

// TestWhatLeftTheIntentIsRemoved: what rocefab applied last time stays its
// own, so a port that leaves the intent is cleaned up rather than orphaned;
// once removed it is no longer rocefab's.
func TestWhatLeftTheIntentIsRemoved(t *testing.T) {
	h := newHarness(t, 1)
	withHistory := func() *Engine {
		return New(fakeRegistry(), h.fleet.registry(), nil, Options{Parallelism: 1, LastApplied: h.store.LastApplied()})
	}
	plan := func(data []byte) *compliance.Plan {
		p, err := withHistory().Plan(context.Background(), h.resolve(data), compliance.IntentRef{}, Selection{SkipHosts: true})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	apply := func(p *compliance.Plan) {
		rep, err := withHistory().Apply(context.Background(), p, ApplyOptions{AllowDisruptive: true, Store: h.store})
		if err != nil || rep.Failed() {
			t.Fatalf("apply: %v %+v", err, rep)
		}
	}
	twoPorts := fakeIntent(1, "9000")
	onePort := []byte(strings.Replace(string(twoPorts), "names: p1-2", "names: p1", 1))
	apply(plan(twoPorts))
	p := plan(onePort)
	sw, _ := p.Device("sw00")
	if len(sw.Changes) != 1 || sw.Changes[0].Action != devcfg.Remove || sw.Changes[0].Path != "/port/p2/mtu" {
		t.Fatalf("the port that left the intent should be cleaned up: %+v", sw.Changes)
	}
	apply(p)
	dev := h.fleet.device("192.0.2.1")
	if _, ok := dev.paths["/port/p2/mtu"]; ok {
		t.Fatal("the removed port's setting is still on the device")
	}
	if again := plan(onePort); again.HasChanges() {
		t.Fatalf("converged: %+v", again.Summary)
	}
	// Someone else now configures p2: it is not rocefab's any more.
	dev.paths["/port/p2/mtu"] = devcfg.Int(1500)
	if again := plan(onePort); again.HasChanges() {
		t.Fatalf("configuration rocefab gave up is not drift: %+v", again.Devices[0].Changes)
	}
}
