package engine_test

import (
	"strings"
	"testing"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/agent/engine/enginetest"
)

// TestSimSONiCMissingPortRefused: a SONiC leaf whose PORT table lacks a
// port the intent lists is refused at plan time (the platform's Fit): the
// plan names the port and says why, apply sends nothing to that device and
// applies the others, and the plan of a good SONiC leaf shows its buffer
// model.
func TestSimSONiCMissingPortRefused(t *testing.T) {
	h := newSimHarness(t, []enginetest.Spec{{Name: "leaf1", Kind: enginetest.SONiC}, {Name: "leaf2", Kind: enginetest.SONiC}})
	res := h.intent("fabric.yaml", enginetest.Params{})
	bad := h.fleet.Switch("leaf1")
	if err := bad.GNMI.HandChange("sonic-db:/PORT/Ethernet4", ""); err != nil {
		t.Fatal(err)
	}
	before, sets := bad.Config(), bad.GNMI.SetCount()

	p := h.plan(res)
	dp := devicePlan(t, p, "leaf1")
	if dp.Status != compliance.StatusError || !strings.Contains(dp.Error, "not in the device's PORT table: Ethernet4") {
		t.Fatalf("leaf1: %s %q", dp.Status, dp.Error)
	}
	good := devicePlan(t, p, "leaf2")
	if good.Status != compliance.StatusChanges || !strings.Contains(strings.Join(good.Notes, "\n"), "buffer model dynamic") {
		t.Fatalf("leaf2: %s %q, notes %q", good.Status, good.Error, good.Notes)
	}
	rep := h.apply(p, engine.ApplyOptions{AllowDisruptive: true})
	got := outcomes(rep)
	if got["leaf1"].Outcome != engine.OutcomeFailed || got["leaf2"].Outcome != engine.OutcomeApplied {
		t.Fatalf("outcomes: leaf1 %s %q, leaf2 %s %q", got["leaf1"].Outcome, got["leaf1"].Reason, got["leaf2"].Outcome, got["leaf2"].Reason)
	}
	if bad.Config() != before || bad.GNMI.SetCount() != sets {
		t.Error("the refused device was written to")
	}
}
