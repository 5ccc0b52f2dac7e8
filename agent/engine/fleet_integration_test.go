package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/agent/engine/enginetest"
)

// fleet50 is the cheapest 50-switch mix with both transports: gNMI
// OpenConfig and SONiC, and EOS over SSH, one RoCE port each.
func fleet50() []enginetest.Spec {
	specs := enginetest.Mixed(50, enginetest.OpenConfig, enginetest.SONiC, enginetest.OpenConfig, enginetest.SONiC, enginetest.EOS)
	for i := range specs {
		specs[i].Ports = 1
	}
	return specs
}

// fault is one injected failure and what the run report must say about it.
type fault struct {
	device string
	inject func(*enginetest.Switch)
	// reason must contain each of these.
	reason []string
}

// TestSimFleetFailureContinue: in a 50-switch apply, devices that reject a
// line or path, or lose the connection mid-push, are left byte-identical
// and the report says why (the line, the device's own message); every
// other device is applied.
func TestSimFleetFailureContinue(t *testing.T) {
	h := newSimHarness(t, fleet50())
	faults := []fault{
		{"sw003", func(sw *enginetest.Switch) { sw.Reject("sonic-db:/PORT_QOS_MAP", "PORT_QOS_MAP is locked by qosmgrd") },
			[]string{"push", `line "sonic-db:/PORT_QOS_MAP/`, "PORT_QOS_MAP is locked by qosmgrd", "rejected", "device left unchanged"}},
		{"sw004", func(sw *enginetest.Switch) { sw.Reject("service-profile ROCEFAB", "") },
			[]string{"push", `line "service-profile ROCEFAB_LOSSLESS"`, `device said "% Invalid input`, "rejected", "device left unchanged"}},
		{"sw010", func(sw *enginetest.Switch) { sw.DropDuringPush("") },
			[]string{"push", "unreachable", "device left unchanged"}},
		{"sw014", func(sw *enginetest.Switch) { sw.DropDuringPush("switchport mode trunk") },
			[]string{"push", `line "switchport mode trunk"`, "unreachable", "device left unchanged"}},
	}
	res := h.intent("fabric.yaml", enginetest.Params{})
	p := h.plan(res)
	if p.Summary.ByStatus[compliance.StatusChanges] != 50 {
		t.Fatalf("plan: %+v", p.Summary.ByStatus)
	}
	for _, f := range faults {
		f.inject(h.fleet.Switch(f.device))
	}
	before := h.fleet.Configs()

	rep := h.apply(p, engine.ApplyOptions{AllowDisruptive: true})
	got := outcomes(rep)
	failed := map[string]bool{}
	for _, f := range faults {
		failed[f.device] = true
		d := got[f.device]
		if d.Outcome != engine.OutcomeFailed {
			t.Errorf("%s: %s %q; want failed", f.device, d.Outcome, d.Reason)
		}
		for _, want := range f.reason {
			if !strings.Contains(d.Reason, want) {
				t.Errorf("%s: reason %q does not say %q", f.device, d.Reason, want)
			}
		}
		if sw := h.fleet.Switch(f.device); sw.Config() != before[f.device] {
			t.Errorf("%s: a failed device changed:\n%s", f.device, lineDiff(before[f.device], sw.Config()))
		}
	}
	for _, sw := range h.fleet.Switches {
		if !failed[sw.Name] && got[sw.Name].Outcome != engine.OutcomeApplied {
			t.Errorf("%s: %s %s; the others should be applied", sw.Name, got[sw.Name].Outcome, got[sw.Name].Reason)
		}
	}
	if rep.Result != "failure" || !rep.Failed() {
		t.Errorf("result %s", rep.Result)
	}

	// Once the faults are gone, the next plan holds exactly the failed devices.
	for _, f := range faults {
		h.fleet.Switch(f.device).ClearFaults()
	}
	again := h.plan(res)
	for _, d := range again.Devices {
		if (d.Status == compliance.StatusChanges) != failed[d.Device] {
			t.Errorf("%s: %s after the run", d.Device, d.Status)
		}
	}
}

// TestSimFleetFailureStop: with --on-failure stop (and one device at a
// time, so "after" is well defined), the devices after the failed one are
// never contacted: zero pushes, byte-identical configurations.
func TestSimFleetFailureStop(t *testing.T) {
	h := newSimHarness(t, fleet50())
	h.opt.Parallelism = 1
	res := h.intent("fabric.yaml", enginetest.Params{})
	p := h.plan(res)
	const bad = "sw004" // EOS, over SSH
	h.fleet.Switch(bad).Reject("priority-flow-control priority 3 no-drop", "% Error: PFC priority 3 is reserved by the platform")
	before := h.fleet.Configs()
	activity := map[string]int{}
	for _, sw := range h.fleet.Switches {
		activity[sw.Name] = sw.Activity()
	}

	rep := h.apply(p, engine.ApplyOptions{AllowDisruptive: true, StopOnFailure: true})
	for i, d := range rep.Devices {
		sw := h.fleet.Switch(d.Device)
		switch {
		case i < 4:
			if d.Outcome != engine.OutcomeApplied {
				t.Errorf("%s: %s %s; want applied", d.Device, d.Outcome, d.Reason)
			}
		case d.Device == bad:
			if d.Outcome != engine.OutcomeFailed || !strings.Contains(d.Reason, `line "priority-flow-control priority 3 no-drop"`) || !strings.Contains(d.Reason, "PFC priority 3 is reserved by the platform") {
				t.Errorf("%s: %s %q", d.Device, d.Outcome, d.Reason)
			}
			if sw.Config() != before[d.Device] {
				t.Errorf("%s: the failed device changed", d.Device)
			}
		default:
			if d.Outcome != engine.OutcomeSkipped || !strings.Contains(d.Reason, "not attempted") {
				t.Errorf("%s: %s %q; want skipped", d.Device, d.Outcome, d.Reason)
			}
			if sw.Config() != before[d.Device] || sw.Activity() != activity[d.Device] {
				t.Errorf("%s: untouched device was contacted (activity %d -> %d) or changed", d.Device, activity[d.Device], sw.Activity())
			}
		}
	}
	skipped := 0
	for _, d := range rep.Devices {
		if d.Outcome == engine.OutcomeSkipped {
			skipped++
		}
	}
	if want := 45; skipped != want {
		t.Fatalf("%d skipped, want %d", skipped, want)
	}
	if rep.Result != "failure" {
		t.Fatal(fmt.Sprint("result ", rep.Result))
	}
}

// TestSimUnrecognisedDeviceErrorCaughtByReadBack: a device message the
// driver cannot tell from success (no error string, no "% " marker) lets
// the push "succeed" without the line; the read-back notices, and the
// device is restored.
func TestSimUnrecognisedDeviceErrorCaughtByReadBack(t *testing.T) {
	h := newSimHarness(t, []enginetest.Spec{{Name: "eos", Kind: enginetest.EOS}})
	res := h.intent("fabric.yaml", enginetest.Params{})
	p := h.plan(res)
	sw := h.fleet.Switch("eos")
	sw.Reject("priority-flow-control priority 3 no-drop", "PFC priority 3 is reserved by the platform")
	before := sw.Config()
	rep := h.apply(p, engine.ApplyOptions{AllowDisruptive: true})
	d := rep.Devices[0]
	if d.Outcome != engine.OutcomeRolledBack || !strings.Contains(d.Reason, "read-back still differs") || !strings.Contains(d.Reason, "priority-flow-control priority 3 no-drop") {
		t.Fatalf("%s %q", d.Outcome, d.Reason)
	}
	if sw.Config() != before {
		t.Fatalf("not restored:\n%s", lineDiff(before, sw.Config()))
	}
}

// TestSimPercentMessageFailsThePush: an EOS message outside the driver's
// error list but marked "% " fails the push itself, naming the line and
// the device's message, and the device keeps its configuration.
func TestSimPercentMessageFailsThePush(t *testing.T) {
	h := newSimHarness(t, []enginetest.Spec{{Name: "eos", Kind: enginetest.EOS}})
	res := h.intent("fabric.yaml", enginetest.Params{})
	p := h.plan(res)
	sw := h.fleet.Switch("eos")
	sw.Reject("priority-flow-control priority 3 no-drop", "% PFC priority 3 is reserved by the platform")
	before := sw.Config()
	rep := h.apply(p, engine.ApplyOptions{AllowDisruptive: true})
	d := rep.Devices[0]
	if d.Outcome != engine.OutcomeFailed || !strings.Contains(d.Reason, `line "priority-flow-control priority 3 no-drop"`) ||
		!strings.Contains(d.Reason, "% PFC priority 3 is reserved by the platform") {
		t.Fatalf("%s %q", d.Outcome, d.Reason)
	}
	if sw.Config() != before {
		t.Fatalf("device changed:\n%s", lineDiff(before, sw.Config()))
	}
}

// TestSimFleetFailureStopParallel: with devices in flight together, those
// already started finish, and every device reported skipped was never
// contacted.
func TestSimFleetFailureStopParallel(t *testing.T) {
	h := newSimHarness(t, fleet50())
	h.opt.Parallelism = 8
	res := h.intent("fabric.yaml", enginetest.Params{})
	p := h.plan(res)
	h.fleet.Switch("sw009").DropDuringPush("switchport mode trunk") // EOS
	before := h.fleet.Configs()
	activity := map[string]int{}
	for _, sw := range h.fleet.Switches {
		activity[sw.Name] = sw.Activity()
	}
	rep := h.apply(p, engine.ApplyOptions{AllowDisruptive: true, StopOnFailure: true})
	count := map[engine.Outcome]int{}
	for _, d := range rep.Devices {
		count[d.Outcome]++
		sw := h.fleet.Switch(d.Device)
		switch d.Outcome {
		case engine.OutcomeSkipped:
			if sw.Config() != before[d.Device] || sw.Activity() != activity[d.Device] {
				t.Errorf("%s: skipped but contacted or changed", d.Device)
			}
		case engine.OutcomeFailed:
			if d.Device != "sw009" || sw.Config() != before[d.Device] {
				t.Errorf("%s: failed (%s) or changed", d.Device, d.Reason)
			}
		case engine.OutcomeApplied:
		default:
			t.Errorf("%s: %s %s", d.Device, d.Outcome, d.Reason)
		}
	}
	if count[engine.OutcomeFailed] != 1 || count[engine.OutcomeSkipped] == 0 || count[engine.OutcomeApplied] < 9 {
		t.Fatalf("outcomes %v", count)
	}
}
