package engine_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/agent/engine/enginetest"
	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
	"github.com/rocefab/rocefab/drivers/sim/sshsim"
)

// commitStep is, per platform, the line (SSH) or RPC (gNMI) that commits
// a change, and the one that reads the running configuration back.
var commitStep = map[enginetest.Kind]struct{ commit, read string }{
	enginetest.EOS:        {"commit", "show running-config"},                       // configure session ... commit
	enginetest.Junos:      {"commit comment", "show configuration | display set"},  // commit comment "run"
	enginetest.Cumulus:    {"nv config apply", "nv config show -o json"},           // nv config apply -y
	enginetest.SONiCSSH:   {"config apply-patch", "show runningconfiguration all"}, // sudo nohup ... config apply-patch
	enginetest.NXOS:       {"configure replace bootflash:", "show running-config"}, // configure replace ... commit-timeout
	enginetest.SONiC:      {"/gnmi.gNMI/Set", "/gnmi.gNMI/Get"},
	enginetest.OpenConfig: {"/gnmi.gNMI/Set", "/gnmi.gNMI/Get"},
}

// unknownCases says, per platform and fault on the commit, what the
// device holds right after the run (every read-back failing) and what the
// run can honestly say about it. Where the driver undoes a broken push
// without reading the device (SONiC's patch runs under nohup and its log
// tells that it never started), the run is settled; everywhere else it
// is unknown.
var unknownCases = []struct {
	kind    enginetest.Kind
	action  string
	after   string // old or new
	outcome engine.Outcome
}{
	{enginetest.EOS, "drop-before", "old", engine.OutcomeUnknown},
	{enginetest.EOS, "drop-after", "new", engine.OutcomeUnknown},
	{enginetest.EOS, "hang", "new", engine.OutcomeUnknown},
	{enginetest.Junos, "drop-before", "old", engine.OutcomeUnknown},
	{enginetest.Junos, "drop-after", "new", engine.OutcomeUnknown},
	{enginetest.Junos, "hang", "new", engine.OutcomeUnknown},
	{enginetest.Cumulus, "drop-before", "old", engine.OutcomeUnknown},
	{enginetest.Cumulus, "drop-after", "new", engine.OutcomeUnknown},
	{enginetest.Cumulus, "hang", "new", engine.OutcomeUnknown},
	{enginetest.SONiCSSH, "drop-before", "old", engine.OutcomeFailed},
	// The patch ran; the read-back failed, and the checkpoint rollback
	// worked but could not be read back either.
	{enginetest.SONiCSSH, "drop-after", "old", engine.OutcomeUnknown},
	{enginetest.SONiCSSH, "hang", "old", engine.OutcomeUnknown},
	// The whole configuration is replaced in one step, under the commit
	// timer until the read-back confirms it.
	{enginetest.NXOS, "drop-before", "old", engine.OutcomeUnknown},
	{enginetest.NXOS, "drop-after", "new", engine.OutcomeUnknown},
	{enginetest.NXOS, "hang", "new", engine.OutcomeUnknown},
	// One SetRequest is one transaction, a confirmed commit held until the
	// read-back. It is sent once (sent again, a commit that took effect
	// unseen would refuse it), and the read-back that fails leaves it
	// unknown; once it answers, the device is found old or new.
	{enginetest.SONiC, "drop-before", "old", engine.OutcomeUnknown},
	{enginetest.SONiC, "drop-after", "new", engine.OutcomeUnknown},
	{enginetest.SONiC, "hang", "new", engine.OutcomeUnknown},
	{enginetest.OpenConfig, "drop-before", "old", engine.OutcomeUnknown},
	{enginetest.OpenConfig, "drop-after", "new", engine.OutcomeUnknown},
	{enginetest.OpenConfig, "hang", "new", engine.OutcomeUnknown},
}

// TestUnknownAfterCommit: the connection drops as the commit is sent
// (the device never ran it), drops after it ran, or hangs after it ran,
// and every read-back fails too. The run records the device as unknown,
// in its report and in the device's record (or, where the driver undid
// the push without a read, as failed with the device unchanged); drift
// and plan, while the device still cannot be read, call it neither
// compliant nor planned and keep the mark; once the device answers again,
// the next apply reads it back first and settles the earlier run as
// committed or not. The device is entirely old or entirely new
// throughout, then converged.
func TestUnknownAfterCommit(t *testing.T) {
	enginetest.SetPasswordEnv(t)
	covered := map[enginetest.Kind]bool{}
	for _, c := range unknownCases {
		covered[c.kind] = true
		step, ok := commitStep[c.kind]
		if !ok {
			t.Fatalf("no commit step for %s", c.kind)
		}
		t.Run(fmt.Sprintf("%s/%s", c.kind, c.action), func(t *testing.T) {
			t.Parallel()
			unknownAfterCommit(t, c.kind, step.commit, step.read, c.action, c.after, c.outcome)
		})
	}
	for _, k := range enginetest.AllKinds {
		if !covered[k] {
			t.Errorf("no case for %s", k)
		}
	}
}

func unknownAfterCommit(t *testing.T, kind enginetest.Kind, commit, read, action, after string, outcome engine.Outcome) {
	h := newSimHarness(t, []enginetest.Spec{{Name: "dut", Kind: kind, Ports: 1}})
	h.opt.Store = h.store
	h.opt.Retries = 1
	h.ctx = enginetest.Ctx(t, 5*time.Minute)
	h.opt.Timeout = 30 * time.Second
	h.converge(h.intent("base.yaml", enginetest.Params{}))
	sw := h.fleet.Switch("dut")
	restore := sw.Save()
	oldCfg := sw.Config()
	res := h.intent("fabric.yaml", enginetest.Params{ECNMin: "300KB"})
	plan := h.plan(res)
	if plan.Devices[0].Status != compliance.StatusChanges {
		t.Fatalf("the plan has no changes: %s %s", plan.Devices[0].Status, plan.Devices[0].Error)
	}
	opt := engine.ApplyOptions{AllowDisruptive: true, LockWait: 2 * time.Second}

	// A clean apply: the new configuration, and how many reads come
	// before the commit (those must not fail).
	calls := func() []string {
		if sw.GNMI != nil {
			return sw.GNMI.Calls()
		}
		return sw.SSH.Received()
	}
	if sw.SSH != nil {
		sw.SSH.ResetReceived()
	}
	skip := len(calls())
	if d := h.apply(plan, opt).Devices[0]; d.Outcome != engine.OutcomeApplied {
		t.Fatalf("clean apply: %s %s", d.Outcome, d.Reason)
	}
	newCfg := sw.Config()
	if newCfg == oldCfg {
		t.Fatal("the change changes nothing on the device")
	}
	readsBefore, commits := 0, 0
	for _, l := range calls()[skip:] {
		switch {
		case commits == 0 && l == read:
			readsBefore++
		case strings.Contains(l, commit):
			commits++
		}
	}
	if readsBefore == 0 || commits == 0 {
		t.Fatalf("the clean apply shows %d reads before %d commits (%q, %q): %q", readsBefore, commits, commit, read, calls()[skip:])
	}
	if err := restore(); err != nil {
		t.Fatal(err)
	}
	waitNoLeftovers(t, sw, "after the clean apply")

	// The commit's answer is lost, and every read after it fails: the
	// fault for the Nth read fires on the Nth, the next on the one after.
	h.opt.Timeout = 2 * time.Second
	const failedReads = 40
	if sw.GNMI != nil {
		a := map[string]gnmisim.StepAction{"drop-before": gnmisim.DropBefore, "drop-after": gnmisim.DropAfter, "hang": gnmisim.Hang}[action]
		steps := []gnmisim.StepFault{{Method: commit, Nth: 1, Action: a}}
		for range failedReads {
			steps = append(steps, gnmisim.StepFault{Method: read, Nth: readsBefore + 1, Action: gnmisim.DropBefore})
		}
		sw.GNMI.SetFaults(gnmisim.Faults{Steps: steps})
	} else {
		a := map[string]sshsim.StepAction{"drop-before": sshsim.DropBefore, "drop-after": sshsim.DropAfter, "hang": sshsim.Hang}[action]
		steps := []sshsim.StepFault{{Match: commit, Nth: 1, Action: a}}
		for range failedReads {
			steps = append(steps, sshsim.StepFault{Match: read, Nth: readsBefore + 1, Action: sshsim.DropBefore, Exact: true})
		}
		sw.SSH.SetFaults(sshsim.Faults{Steps: steps})
	}
	rep := h.apply(plan, opt)
	d := rep.Devices[0]
	want := map[string]string{"old": oldCfg, "new": newCfg}[after]
	if got := sw.Config(); got != want {
		t.Fatalf("the device does not hold the %s configuration whole:\n%s", after, lineDiff(want, got))
	}
	if d.Outcome != outcome {
		t.Fatalf("ambiguous commit with a failed read-back: %s (%s), want %s", d.Outcome, d.Reason, outcome)
	}
	disk, err := h.store.LoadReport(rep.ID)
	if err != nil {
		t.Fatal(err)
	}
	if dd := disk.Device("dut"); dd == nil || dd.Outcome != outcome {
		t.Fatalf("the report on disk says %+v, want %s", dd, outcome)
	}
	rec, err := h.store.DeviceRecord("dut")
	if err != nil {
		t.Fatal(err)
	}
	unknown := outcome == engine.OutcomeUnknown
	if !unknown {
		if !strings.Contains(d.Reason, "device left unchanged") {
			t.Errorf("a settled failure does not say the device is unchanged: %s", d.Reason)
		}
		if rec != nil && (rec.Unknown != nil || rec.Active != nil) {
			t.Errorf("a settled run left marks on the device record: %+v", rec)
		}
	} else {
		if !strings.Contains(d.Reason, "could not be read back") && !strings.Contains(d.Reason, "read-back failed") {
			t.Errorf("the reason does not say the read-back failed: %s", d.Reason)
		}
		if rec == nil || rec.Unknown == nil || rec.Unknown.Run != rep.ID || rec.Active == nil || rec.Active.Run != rep.ID {
			t.Fatalf("the device record does not mark run %s unknown and unsettled: %+v", rep.ID, rec)
		}
	}

	// Still unreadable: neither drift nor plan calls it compliant or
	// plans on it, and the mark stays.
	for _, what := range []string{"drift", "plan"} {
		var p *compliance.Plan
		if what == "drift" {
			p = h.drift(res)
		} else {
			p = h.plan(res)
		}
		dp := p.Devices[0]
		if dp.Status != compliance.StatusUnreachable && dp.Status != compliance.StatusError {
			t.Errorf("%s on the unreadable unknown device: %s, want unreachable or error", what, dp.Status)
		}
		if p.Summary.ByStatus[compliance.StatusCompliant]+p.Summary.ByStatus[compliance.StatusNoChanges] != 0 {
			t.Errorf("%s summary counts the device as fine: %+v", what, p.Summary)
		}
		if unknown && !strings.Contains(strings.Join(dp.Warnings, "\n"), "was unknown") {
			t.Errorf("%s does not warn that the outcome was unknown: %q", what, dp.Warnings)
		}
		if rec, _ := h.store.DeviceRecord("dut"); unknown && (rec == nil || rec.Unknown == nil) {
			t.Errorf("%s on an unreadable device cleared the unknown mark", what)
		}
	}

	// The device answers again: the next apply (as the CLI runs it)
	// recovers it first and settles the earlier run.
	sw.ClearFaults()
	h.opt.Timeout = 30 * time.Second
	notes := h.engine().Recover(h.ctx, res, engine.Selection{}, "settling")
	if unknown {
		if !strings.Contains(notes["dut"], "read back: "+after) {
			t.Errorf("recovery note %q, want read back: %s", notes["dut"], after)
		}
		disk, err = h.store.LoadReport(rep.ID)
		if err != nil {
			t.Fatal(err)
		}
		wantOutcome := map[string]engine.Outcome{"old": engine.OutcomeFailed, "new": engine.OutcomeApplied}[after]
		if dd := disk.Device("dut"); dd == nil || dd.Outcome != wantOutcome || dd.Found != after {
			t.Errorf("after recovery the earlier run says %+v, want %s (found %s)", dd, wantOutcome, after)
		}
	} else if len(notes) > 0 {
		t.Errorf("recovery found something to settle after a settled run: %v", notes)
	}
	if rec, _ := h.store.DeviceRecord("dut"); rec != nil && (rec.Unknown != nil || rec.Active != nil) {
		t.Errorf("after recovery the device record still marks the run: %+v", rec)
	}
	if got := sw.Config(); got != want {
		t.Errorf("recovery changed the device:\n%s", lineDiff(want, got))
	}
	waitNoLeftovers(t, sw, "after recovery")
	rep2 := h.apply(h.plan(res), opt)
	if d := rep2.Devices[0]; d.Outcome != engine.OutcomeApplied && d.Outcome != engine.OutcomeNoChanges {
		t.Fatalf("the apply after recovery: %s %s", d.Outcome, d.Reason)
	}
	if got := sw.Config(); got != newCfg {
		t.Errorf("after the settling apply the device is not entirely new:\n%s", lineDiff(newCfg, got))
	}
	if p := h.drift(res); p.Devices[0].Status != compliance.StatusCompliant {
		t.Errorf("drift after settling: %s %s", p.Devices[0].Status, p.Devices[0].Error)
	}
	waitNoLeftovers(t, sw, "after the settling apply")
}
