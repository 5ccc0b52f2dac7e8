package engine_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/agent/engine/enginetest"
	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	driversall "github.com/rocefab/rocefab/drivers/all"
	"github.com/rocefab/rocefab/intent"
)

// TestSimSavedPlanRefusesChangedDevice: a plan saved with --out is applied
// exactly, except on a device whose owned configuration changed since; that
// device is refused and left as it is. A change outside rocefab's scope
// does not make a plan stale.
func TestSimSavedPlanRefusesChangedDevice(t *testing.T) {
	h := newSimHarness(t, []enginetest.Spec{
		{Name: "eos", Kind: enginetest.EOS},
		{Name: "sonic", Kind: enginetest.SONiC},
		{Name: "nxos", Kind: enginetest.NXOS},
		{Name: "oc", Kind: enginetest.OpenConfig},
	})
	res := h.intent("fabric.yaml", enginetest.Params{})
	path := filepath.Join(t.TempDir(), "plan.json")
	if err := h.plan(res).Save(path); err != nil {
		t.Fatal(err)
	}
	// Between plan and apply: owned edits on eos and sonic, a foreign one on oc.
	if err := h.fleet.Switch("eos").SSH.HandChange("interface Ethernet1", "mtu 9000"); err != nil {
		t.Fatal(err)
	}
	if err := h.fleet.Switch("sonic").GNMI.HandChange("sonic-db:/PORT/Ethernet0/mtu", devcfg.String("9000")); err != nil {
		t.Fatal(err)
	}
	if err := h.fleet.Switch("oc").GNMI.HandChange("/interfaces/interface[name=Ethernet1]/config/description", devcfg.String("gpu07")); err != nil {
		t.Fatal(err)
	}
	before := h.fleet.Configs()
	sonicSets := h.fleet.Switch("sonic").Activity()

	saved, err := compliance.LoadPlan(path)
	if err != nil {
		t.Fatal(err)
	}
	rep := h.apply(saved, engine.ApplyOptions{AllowDisruptive: true})
	got := outcomes(rep)
	for _, name := range []string{"eos", "sonic"} {
		d := got[name]
		if d.Outcome != engine.OutcomeRefused || !strings.Contains(d.Reason, engine.ErrStalePlan.Error()) || !strings.Contains(d.Reason, "run plan again") {
			t.Errorf("%s: %s %q; want refused as stale", name, d.Outcome, d.Reason)
		}
		if h.fleet.Switch(name).Config() != before[name] {
			t.Errorf("%s: a refused device changed", name)
		}
	}
	if h.fleet.Switch("sonic").Activity() != sonicSets {
		t.Error("sonic: a refused device received a Set")
	}
	for _, name := range []string{"nxos", "oc"} {
		if d := got[name]; d.Outcome != engine.OutcomeApplied {
			t.Errorf("%s: %s %q; want applied", name, d.Outcome, d.Reason)
		}
	}
	if rep.Result != "failure" {
		t.Errorf("result %s with refused devices", rep.Result)
	}
}

// TestSimRollbackRestoresTheRun: rollback RUN_ID puts every device the run
// applied back to its owned configuration from before that run, byte for
// byte, so a plan against the old intent is empty. A rollback can itself be
// rolled back, and rolling back the first apply returns rocefab's part of
// each device to its factory state.
func TestSimRollbackRestoresTheRun(t *testing.T) {
	h := newSimHarness(t, oneOfEach())
	old := h.intent("old.yaml", enginetest.Params{})
	ownedNow := func(res *intent.Resolved) map[string]string {
		out := map[string]string{}
		for _, sw := range h.fleet.Switches {
			running, _, _ := h.owned(res, sw.Name)
			out[sw.Name] = running.Owned.Text()
		}
		return out
	}
	rollback := func(id string) *engine.RunReport {
		t.Helper()
		rb, err := h.engine().Rollback(h.ctx, h.store, id, engine.RollbackOptions{AllowDisruptive: true})
		if err != nil {
			t.Fatal(err)
		}
		if rb.Kind != "rollback" || rb.RollbackOf != id || rb.Result != "success" || len(rb.Devices) != len(h.fleet.Switches) {
			for _, d := range rb.Devices {
				t.Logf("%s: %s %s", d.Device, d.Outcome, d.Reason)
			}
			t.Fatalf("rollback of %s: kind %s of %s, %s, %d devices", id, rb.Kind, rb.RollbackOf, rb.Result, len(rb.Devices))
		}
		for _, d := range rb.Devices {
			if d.Outcome != engine.OutcomeApplied || d.Snapshot == "" {
				t.Errorf("%s: %s %s (snapshot %q)", d.Device, d.Outcome, d.Reason, d.Snapshot)
			}
		}
		return rb
	}
	sameOwned := func(when string, want, got map[string]string) {
		t.Helper()
		for name := range want {
			if got[name] != want[name] {
				t.Errorf("%s: owned config %s:\n%s", name, when, lineDiff(want[name], got[name]))
			}
		}
	}

	factory := ownedNow(old)
	first := h.converge(old)
	oldOwned, oldConfigs := ownedNow(old), h.fleet.Configs()

	newer := h.intent("new.yaml", enginetest.Params{ECNMin: "300KB", MTU: "9000"})
	second := h.converge(newer)
	newOwned := ownedNow(newer)
	if p := h.plan(old); p.Summary.ByStatus[compliance.StatusChanges] != len(h.fleet.Switches) {
		t.Fatalf("after the second apply every device should differ from the old intent: %+v", p.Summary.ByStatus)
	}

	rb := rollback(second.ID)
	sameOwned("after rolling back the second apply", oldOwned, ownedNow(old))
	for _, sw := range h.fleet.Switches {
		// Devices may list restored lines in another order; the lines are the same.
		if !sameLines(oldConfigs[sw.Name], sw.Config()) {
			t.Errorf("%s: configuration after rollback differs from before the run:\n%s", sw.Name, lineDiff(oldConfigs[sw.Name], sw.Config()))
		}
	}
	if p := h.plan(old); p.HasChanges() || p.HasFailures() {
		for _, d := range p.Devices {
			t.Logf("%s: %s%s", d.Device, d.Status, changeList(d.Changes))
		}
		t.Fatal("a plan against the old intent after rollback should be empty")
	}

	rollback(rb.ID)
	sameOwned("after rolling back the rollback", newOwned, ownedNow(newer))
	if p := h.plan(newer); p.HasChanges() || p.HasFailures() {
		t.Fatalf("rolling back the rollback should restore the second apply: %+v", p.Summary.ByStatus)
	}

	rollback(first.ID)
	sameOwned("after rolling back the first apply", factory, ownedNow(old))
	if p := h.plan(old); p.Summary.ByStatus[compliance.StatusChanges] != len(h.fleet.Switches) {
		t.Fatalf("after rolling back the first apply every device needs the intent again: %+v", p.Summary.ByStatus)
	}
}

// TestSimSingletonOwnedByOtherConfig: a device-wide setting held by other
// configuration is a conflict the plan names, and apply refuses that device
// without touching it. Once rocefab applied its own value, changing it in
// the intent is a change, not a conflict with itself.
func TestSimSingletonOwnedByOtherConfig(t *testing.T) {
	h := newSimHarness(t, []enginetest.Spec{
		{Name: "nxos", Kind: enginetest.NXOS},
		{Name: "sonic", Kind: enginetest.SONiC},
		{Name: "eos-foreign", Kind: enginetest.EOS},
		{Name: "eos", Kind: enginetest.EOS},
	})
	nx := h.fleet.Switch("nxos")
	if err := nx.SSH.HandChange("policy-map type network-qos FOREIGN-NQ", "class type network-qos c-8q-nq-default", "mtu 1500", "exit", "exit", "system qos", "service-policy type network-qos FOREIGN-NQ"); err != nil {
		t.Fatal(err)
	}
	if err := h.fleet.Switch("sonic").GNMI.HandChange("sonic-db:/PORT_QOS_MAP/global/dscp_to_tc_map", devcfg.String("AZURE")); err != nil {
		t.Fatal(err)
	}
	if err := h.fleet.Switch("eos-foreign").SSH.HandChange("qos map dscp 26 to traffic-class 1"); err != nil {
		t.Fatal(err)
	}
	res := h.intent("fabric.yaml", enginetest.Params{})
	p := h.plan(res)
	want := map[string]devcfg.Conflict{
		"nxos":        {Singleton: "system qos network-qos policy", Held: "service-policy type network-qos FOREIGN-NQ", Want: "service-policy type network-qos ROCEFAB_NQ"},
		"sonic":       {Singleton: "PORT_QOS_MAP|global dscp_to_tc_map", Held: "AZURE", Want: "ROCEFAB"},
		"eos-foreign": {Singleton: "global qos map dscp 26", Held: "qos map dscp 26 to traffic-class 1", Want: "qos map dscp 26 to traffic-class 3"},
	}
	for name, c := range want {
		dp := devicePlan(t, p, name)
		if dp.Status != compliance.StatusConflict || len(dp.Conflicts) != 1 || dp.Conflicts[0] != c {
			t.Errorf("%s: %s %+v; want conflict %+v", name, dp.Status, dp.Conflicts, c)
		}
	}
	var text strings.Builder
	if err := compliance.WriteText(&text, p); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(text.String(), "owned by other config"); n < 2*len(want) {
		t.Errorf("the text plan names the conflict %d times, want a headline and a line per device:\n%s", n, text.String())
	}

	before := h.fleet.Configs()
	activity := map[string]int{}
	for name := range want {
		activity[name] = h.fleet.Switch(name).Activity()
	}
	rep := h.apply(p, engine.ApplyOptions{AllowDisruptive: true})
	got := outcomes(rep)
	for name, c := range want {
		d := got[name]
		if d.Outcome != engine.OutcomeRefused || !strings.Contains(d.Reason, "owned by other config") || !strings.Contains(d.Reason, c.Held) {
			t.Errorf("%s: %s %q; want refused naming %q", name, d.Outcome, d.Reason, c.Held)
		}
		if sw := h.fleet.Switch(name); sw.Config() != before[name] || sw.Activity() != activity[name] {
			t.Errorf("%s: a refused device was touched", name)
		}
	}
	if d := got["eos"]; d.Outcome != engine.OutcomeApplied {
		t.Fatalf("eos: %s %s", d.Outcome, d.Reason)
	}

	// The intent moves RoCE to priority 4: rocefab's own earlier map entry
	// is now different from the intent, and is a change.
	moved := h.intent("moved.yaml", enginetest.Params{NoDrop: 4, Only: []string{"eos"}})
	dp := devicePlan(t, h.plan(moved), "eos")
	if dp.Status != compliance.StatusChanges || len(dp.Conflicts) != 0 {
		t.Fatalf("eos after an intent change: %s %+v", dp.Status, dp.Conflicts)
	}
	if !slices.ContainsFunc(dp.Changes, func(c devcfg.Change) bool {
		return c.Action == devcfg.Modify && c.Old == "qos map dscp 26 to traffic-class 3" && c.New == "qos map dscp 26 to traffic-class 4"
	}) {
		t.Fatalf("eos: the map entry is not shown as modified:%s", changeList(dp.Changes))
	}
	// Without the run history the same value would look foreign: the
	// last-applied record is what tells them apart.
	blind, err := engine.New(h.reg, driversall.Drivers(), nil, h.opt).Plan(h.ctx, moved, compliance.IntentRef{}, engine.Selection{})
	if err != nil {
		t.Fatal(err)
	}
	if bd := devicePlan(t, blind, "eos"); bd.Status != compliance.StatusConflict {
		t.Fatalf("without run history: %s; the test does not show what LastApplied does", bd.Status)
	}
	rep = h.apply(h.plan(moved), engine.ApplyOptions{AllowDisruptive: true})
	if d := rep.Devices[0]; d.Outcome != engine.OutcomeApplied {
		t.Fatalf("eos: %s %s", d.Outcome, d.Reason)
	}
	if p := h.plan(moved); p.HasChanges() || p.HasFailures() {
		t.Fatalf("after applying the moved intent: %+v", p.Summary.ByStatus)
	}
}

// TestSimDisruptiveNeedsFlag: traffic-affecting changes are refused
// without AllowDisruptive, naming the change and the flag, and the device
// is not touched; hitless changes go through without it.
func TestSimDisruptiveNeedsFlag(t *testing.T) {
	h := newSimHarness(t, []enginetest.Spec{
		{Name: "nxos", Kind: enginetest.NXOS},
		{Name: "oc", Kind: enginetest.OpenConfig},
		{Name: "cumulus", Kind: enginetest.Cumulus},
	})
	res := h.intent("fabric.yaml", enginetest.Params{})
	p := h.plan(res)
	before := h.fleet.Configs()
	activity := map[string]int{}
	for _, sw := range h.fleet.Switches {
		activity[sw.Name] = sw.Activity()
	}
	rep := h.apply(p, engine.ApplyOptions{})
	for _, d := range rep.Devices {
		if d.Outcome != engine.OutcomeRefused || !strings.Contains(d.Reason, "--allow-disruptive") || !strings.Contains(d.Reason, "traffic") {
			t.Errorf("%s: %s %q; want refused for --allow-disruptive", d.Device, d.Outcome, d.Reason)
		}
		if sw := h.fleet.Switch(d.Device); sw.Config() != before[d.Device] || sw.Activity() != activity[d.Device] {
			t.Errorf("%s: a refused device was touched", d.Device)
		}
	}
	h.converge(res)

	hitless := h.intent("ecn.yaml", enginetest.Params{ECNMin: "300KB"})
	p = h.plan(hitless)
	if p.Summary.TrafficAffecting != 0 || !p.HasChanges() {
		t.Fatalf("an ECN threshold change should be hitless and pending: %+v", p.Summary)
	}
	rep = h.apply(p, engine.ApplyOptions{})
	for _, d := range rep.Devices {
		if d.Outcome != engine.OutcomeApplied {
			t.Errorf("%s: hitless change without the flag: %s %s", d.Device, d.Outcome, d.Reason)
		}
	}
}

// TestSimCanary: --canary N pushes N devices, verifies them, then the rest;
// a failed verification rolls the canaries back (their commits were still
// pending) and leaves the rest untouched.
func TestSimCanary(t *testing.T) {
	specs := enginetest.Mixed(5, enginetest.OpenConfig, enginetest.EOS, enginetest.SONiC)
	for _, passed := range []bool{true, false} {
		name := map[bool]string{true: "verified", false: "verification fails"}[passed]
		t.Run(name, func(t *testing.T) {
			h := newSimHarness(t, specs)
			res := h.intent("fabric.yaml", enginetest.Params{})
			p := h.plan(res)
			before := h.fleet.Configs()
			var mu sync.Mutex
			var waves [][]string
			verify := func(_ context.Context, devices []string) (engine.VerifyResult, error) {
				mu.Lock()
				defer mu.Unlock()
				waves = append(waves, slices.Sorted(slices.Values(devices)))
				// The canaries' changes are on the devices while the probe runs.
				for _, d := range devices {
					if h.fleet.Switch(d).Config() == before[d] {
						t.Errorf("%s is verified before its change is on the device", d)
					}
				}
				if !passed {
					return engine.VerifyResult{Passed: false, Summary: "pfc_not_honoured leaf sw000 priority 3"}, nil
				}
				return engine.VerifyResult{Passed: true, Summary: "all pairs lossless"}, nil
			}
			rep := h.apply(p, engine.ApplyOptions{AllowDisruptive: true, Canary: 2, ConfirmWindow: time.Minute, Verify: verify})
			got := outcomes(rep)
			if len(waves) == 0 || !slices.Equal(waves[0], []string{"sw000", "sw001"}) {
				t.Fatalf("verified waves %v; want the first two devices first", waves)
			}
			if passed {
				if len(waves) != 2 || !slices.Equal(waves[1], []string{"sw002", "sw003", "sw004"}) {
					t.Fatalf("verified waves %v", waves)
				}
				for _, sw := range h.fleet.Switches {
					if got[sw.Name].Outcome != engine.OutcomeApplied {
						t.Errorf("%s: %s %s", sw.Name, got[sw.Name].Outcome, got[sw.Name].Reason)
					}
				}
				if again := h.plan(res); again.HasChanges() {
					t.Fatal("confirmed canary apply left changes")
				}
				return
			}
			if len(waves) != 1 {
				t.Fatalf("the rest was verified after the canary failed: %v", waves)
			}
			for _, sw := range h.fleet.Switches {
				d := got[sw.Name]
				want := engine.OutcomeSkipped
				if sw.Name == "sw000" || sw.Name == "sw001" {
					want = engine.OutcomeRolledBack
					if !strings.Contains(d.Reason, "pfc_not_honoured") {
						t.Errorf("%s: reason %q does not carry the verdict", sw.Name, d.Reason)
					}
				}
				if d.Outcome != want {
					t.Errorf("%s: %s %s; want %s", sw.Name, d.Outcome, d.Reason, want)
				}
				if sw.Config() != before[sw.Name] {
					t.Errorf("%s: not back to its configuration before the apply:\n%s", sw.Name, lineDiff(before[sw.Name], sw.Config()))
				}
			}
		})
	}
}

// TestSimRunReportRecordsWhoWhatWhen: the apply report names the intent's
// git commit, the user and host, and each device's start and duration.
func TestSimRunReportRecordsWhoWhatWhen(t *testing.T) {
	h := newSimHarness(t, []enginetest.Spec{{Name: "eos", Kind: enginetest.EOS}, {Name: "oc", Kind: enginetest.OpenConfig}})
	repoDir := t.TempDir()
	repo, err := git.PlainInit(repoDir, false)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(repoDir, "fabric.yaml")
	if err := os.WriteFile(file, h.fleet.Intent(enginetest.Params{}), 0o600); err != nil {
		t.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Add("fabric.yaml"); err != nil {
		t.Fatal(err)
	}
	commit, err := wt.Commit("fabric: first intent", &git.CommitOptions{Author: &object.Signature{Name: "netops", Email: "netops@example.com", When: time.Now()}})
	if err != nil {
		t.Fatal(err)
	}
	res := enginetest.Resolve(t, file)
	ref := engine.IntentRefFor(res.Name, []string{file})
	if ref.Commit != commit.String() || ref.Dirty {
		t.Fatalf("intent ref %+v; want commit %s, clean", ref, commit)
	}
	p, err := h.engine().Plan(h.ctx, res, ref, engine.Selection{})
	if err != nil {
		t.Fatal(err)
	}
	rep := h.apply(p, engine.ApplyOptions{AllowDisruptive: true, Options: map[string]string{"onFailure": "stop"}})

	data, err := os.ReadFile(filepath.Join(h.store.Dir, "runs", rep.ID, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var saved struct {
		Kind    string `json:"kind"`
		Intent  struct{ Commit, Fabric string }
		User    string            `json:"user"`
		Host    string            `json:"hostname"`
		Options map[string]string `json:"options"`
		Result  string            `json:"result"`
		Devices []struct {
			Device     string    `json:"device"`
			Outcome    string    `json:"outcome"`
			StartedAt  time.Time `json:"startedAt"`
			DurationMS int64     `json:"durationMs"`
			Snapshot   string    `json:"snapshot"`
			Applied    string    `json:"applied"`
		} `json:"devices"`
	}
	if err := json.Unmarshal(data, &saved); err != nil {
		t.Fatal(err)
	}
	user, host := engine.Actor()
	if saved.Kind != "apply" || saved.Intent.Commit != commit.String() || saved.Intent.Fabric != "simfab" ||
		saved.User != user || saved.User == "" || saved.Host != host || saved.Host == "" || saved.Result != "success" || saved.Options["onFailure"] != "stop" {
		t.Fatalf("report header: %s", data)
	}
	for _, d := range saved.Devices {
		if d.Outcome != "applied" || d.StartedAt.IsZero() || d.Snapshot == "" || d.Applied == "" {
			t.Errorf("%s: %+v", d.Device, d)
		}
		if d.Device == "eos" && d.DurationMS <= 0 {
			t.Errorf("eos: a push over SSH took %d ms", d.DurationMS)
		}
	}

	// An uncommitted edit marks the reference dirty.
	if err := os.WriteFile(file, h.fleet.Intent(enginetest.Params{ECNMin: "300KB"}), 0o600); err != nil {
		t.Fatal(err)
	}
	if ref := engine.IntentRefFor(res.Name, []string{file}); ref.Commit != commit.String() || !ref.Dirty {
		t.Fatalf("edited intent: %+v", ref)
	}
}

// rewritingRegistry wraps the real drivers: right after each successful
// push to a device in rewrite, that device's own agent rewrites part of the
// change (as a racing controller would), so the read-back differs.
func rewritingRegistry(rewrite map[string]func() error) *drivers.Registry {
	real := driversall.Drivers()
	r := drivers.NewRegistry()
	for _, transport := range []string{"gnmi", "ssh"} {
		_ = r.Register(transport, func(ctx context.Context, opt drivers.Options) (drivers.Driver, error) {
			d, err := real.Open(ctx, transport, opt)
			if err != nil {
				return nil, err
			}
			return &rewritingDriver{Driver: d, rewrite: rewrite[opt.Device]}, nil
		})
	}
	return r
}

type rewritingDriver struct {
	drivers.Driver
	rewrite func() error
	done    bool
}

func (d *rewritingDriver) Push(ctx context.Context, p devcfg.Patch, opt drivers.PushOptions) (drivers.Pending, error) {
	pending, err := d.Driver.Push(ctx, p, opt)
	if err == nil && d.rewrite != nil && !d.done {
		d.done = true
		if rerr := d.rewrite(); rerr != nil {
			return nil, rerr
		}
	}
	return pending, err
}

// TestSimReadBackMismatchRestoresDevice: when the read-back after a push
// differs from the intent, apply takes the change back — also when it was
// committed at once and the device has no pending commit to cancel — and
// the device ends byte-identical to before the apply.
func TestSimReadBackMismatchRestoresDevice(t *testing.T) {
	h := newSimHarness(t, []enginetest.Spec{
		{Name: "eos", Kind: enginetest.EOS},
		{Name: "oc", Kind: enginetest.OpenConfig},
		{Name: "junos", Kind: enginetest.Junos},
		{Name: "nxos", Kind: enginetest.NXOS},
	})
	eos, oc, junos := h.fleet.Switch("eos"), h.fleet.Switch("oc"), h.fleet.Switch("junos")
	reg := rewritingRegistry(map[string]func() error{
		"eos": func() error { return eos.SSH.HandChange("interface Ethernet2", "mtu 9000") },
		"oc": func() error {
			return oc.GNMI.HandChange("/interfaces/interface[name=Ethernet2]/config/mtu", devcfg.Int(9000))
		},
		"junos": func() error { return junos.SSH.HandChange("set interfaces et-0/0/1 mtu 9000") },
	})
	res := h.intent("fabric.yaml", enginetest.Params{})
	p := h.plan(res)
	before := h.fleet.Configs()
	for _, window := range []time.Duration{0, time.Minute} {
		opt := h.opt
		eng := engine.New(h.reg, reg, nil, opt)
		rep, err := eng.Apply(h.ctx, p, engine.ApplyOptions{AllowDisruptive: true, ConfirmWindow: window, Store: h.store})
		if err != nil {
			t.Fatal(err)
		}
		got := outcomes(rep)
		for _, name := range []string{"eos", "oc", "junos"} {
			d := got[name]
			if d.Outcome != engine.OutcomeRolledBack || !strings.Contains(d.Reason, "read-back still differs") || !strings.Contains(d.Reason, "mtu") {
				t.Errorf("window %s: %s: %s %q; want rolled back for the read-back", window, name, d.Outcome, d.Reason)
			}
			if after := h.fleet.Switch(name).Config(); after != before[name] {
				t.Errorf("window %s: %s: not restored:\n%s", window, name, lineDiff(before[name], after))
			}
		}
		// A device the rewrite does not touch is applied (then stays so).
		wantNX := engine.OutcomeApplied
		if window > 0 {
			wantNX = engine.OutcomeNoChanges
		}
		if d := got["nxos"]; d.Outcome != wantNX {
			t.Errorf("window %s: nxos: %s %s; want %s", window, d.Outcome, d.Reason, wantNX)
		}
		p = h.plan(res)
	}
}
