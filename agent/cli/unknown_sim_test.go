package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/agent/engine/enginetest"
	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
	"github.com/rocefab/rocefab/drivers/sim/sshsim"
)

// TestSimCLIUnknownAfterCommit: the answer to the commit is lost (EOS
// session commit, gNMI Set) and every read after it fails. apply exits 1
// with the device unknown in its report and in `runs RUN_ID`; drift and
// plan, the device still unreadable, exit 1 (never 0 or 2) and warn that
// its outcome was unknown. Once it answers, apply reads it back first,
// settles the earlier run as committed, and drift calls it compliant.
func TestSimCLIUnknownAfterCommit(t *testing.T) {
	c := newSimCLI(t, []enginetest.Spec{
		{Name: "leaf-eos", Kind: enginetest.EOS, Ports: 1},
		{Name: "spine-oc", Kind: enginetest.OpenConfig, Ports: 1},
	})
	c.want(ExitOK, "", "apply", c.intent, "--auto-approve", "--allow-disruptive")
	c.commitIntent(enginetest.Params{ECNMin: "300KB"}, "fabric: ECN from 300KB")
	old := c.fleet.Configs()
	restore := map[string]func() error{}
	for _, sw := range c.fleet.Switches {
		restore[sw.Name] = sw.Save()
		if sw.SSH != nil {
			sw.SSH.ResetReceived()
		}
	}
	gnmiBefore := len(c.fleet.Switch("spine-oc").GNMI.Calls())

	// A clean apply in a scratch state directory: the new configuration,
	// and how many reads come before the commit.
	state := c.state
	c.state = t.TempDir()
	c.want(ExitOK, "", "apply", c.intent, "--auto-approve")
	c.state = state
	newCfg := c.fleet.Configs()
	reads := func(seq []string, read, commit string) int {
		n := 0
		for _, l := range seq {
			if l == commit {
				return n
			}
			if l == read {
				n++
			}
		}
		t.Fatalf("no %q in %q", commit, seq)
		return 0
	}
	eos, oc := c.fleet.Switch("leaf-eos"), c.fleet.Switch("spine-oc")
	eosReads := reads(eos.SSH.Received(), "show running-config", "commit")
	ocReads := reads(oc.GNMI.Calls()[gnmiBefore:], "/gnmi.gNMI/Get", "/gnmi.gNMI/Set")
	for _, sw := range c.fleet.Switches {
		if err := restore[sw.Name](); err != nil {
			t.Fatal(err)
		}
	}
	// The CLI reads each device once more than the engine does (the plan).
	sshSteps := []sshsim.StepFault{{Match: "commit", Exact: true, Nth: 1, Action: sshsim.DropAfter}}
	gnmiSteps := []gnmisim.StepFault{{Method: "/gnmi.gNMI/Set", Nth: 1, Action: gnmisim.DropAfter}}
	for range 40 {
		sshSteps = append(sshSteps, sshsim.StepFault{Match: "show running-config", Exact: true, Nth: eosReads + 1, Action: sshsim.DropBefore})
		gnmiSteps = append(gnmiSteps, gnmisim.StepFault{Method: "/gnmi.gNMI/Get", Nth: ocReads + 1, Action: gnmisim.DropBefore})
	}
	eos.SSH.SetFaults(sshsim.Faults{Steps: sshSteps})
	oc.GNMI.SetFaults(gnmisim.Faults{Steps: gnmiSteps})

	code, out, errOut := c.run("", "apply", c.intent, "--auto-approve", "-o", "json", "--retries", "1")
	if code != ExitFailure {
		t.Fatalf("apply with lost commits: exit %d, want %d\n%s\n%s", code, ExitFailure, out, errOut)
	}
	var rep engine.RunReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("apply -o json: %v\n%s", err, out)
	}
	for _, d := range rep.Devices {
		if d.Outcome != engine.OutcomeUnknown {
			t.Errorf("%s: %s (%s), want unknown", d.Device, d.Outcome, d.Reason)
		}
	}
	for name, cfg := range c.fleet.Configs() {
		if cfg != newCfg[name] && cfg != old[name] {
			t.Errorf("%s holds neither its old nor its new configuration", name)
		}
	}
	runs := func(args ...string) string {
		t.Helper()
		code, out, errOut := runCLI(t, "", append([]string{"runs", "--state-dir", c.state}, args...)...)
		if code != ExitOK || strings.Contains(out+errOut, enginetest.Password()) {
			t.Fatalf("runs %v: exit %d\n%s%s", args, code, out, errOut)
		}
		return out
	}
	listing := runs(rep.ID)
	if strings.Count(listing, "unknown") < 2 {
		t.Errorf("runs %s does not show both devices unknown:\n%s", rep.ID, listing)
	}

	for _, cmd := range []string{"drift", "plan"} {
		code, out, _ := c.run("", cmd, c.intent, "--detailed-exitcode", "-o", "json", "--retries", "0")
		if code != ExitFailure {
			t.Errorf("%s on unreadable unknown devices: exit %d, want %d", cmd, code, ExitFailure)
		}
		var p compliance.Plan
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatalf("%s -o json: %v\n%s", cmd, err, out)
		}
		for _, d := range p.Devices {
			if d.Status == compliance.StatusCompliant || d.Status == compliance.StatusNoChanges || d.Status == compliance.StatusChanges || d.Status == compliance.StatusDrifted {
				t.Errorf("%s: %s on an unreadable device whose outcome is unknown", cmd, d.Status)
			}
			if !strings.Contains(strings.Join(d.Warnings, " "), "was unknown") {
				t.Errorf("%s: %s carries no unknown warning: %q", cmd, d.Device, d.Warnings)
			}
		}
	}

	// Readable again: apply settles the earlier run first.
	for _, sw := range c.fleet.Switches {
		sw.ClearFaults()
	}
	code, out, errOut = c.run("", "apply", c.intent, "--auto-approve", "-o", "json")
	if code != ExitOK {
		t.Fatalf("settling apply: exit %d\n%s\n%s", code, out, errOut)
	}
	// Settled before planning: nothing is left to change.
	for _, name := range []string{"leaf-eos", "spine-oc"} {
		if !strings.Contains(errOut, name+": what the device ran after apply run "+rep.ID+" was unknown") || strings.Count(errOut, "read back: new") != 2 {
			t.Errorf("the settling apply does not say what it read back on %s:\n%s", name, errOut)
		}
	}
	out = runs(rep.ID, "-o", "json")
	var settled engine.RunReport
	if err := json.Unmarshal([]byte(out), &settled); err != nil {
		t.Fatal(err)
	}
	for _, d := range settled.Devices {
		if d.Outcome != engine.OutcomeApplied || d.Found != "new" {
			t.Errorf("%s: the earlier run now says %s (found %q), want applied (new)", d.Device, d.Outcome, d.Found)
		}
	}
	if got := c.fleet.Configs(); got["leaf-eos"] != newCfg["leaf-eos"] || got["spine-oc"] != newCfg["spine-oc"] {
		t.Error("after settling, the devices are not entirely new")
	}
	c.want(ExitOK, "", "drift", c.intent, "--detailed-exitcode")
}
