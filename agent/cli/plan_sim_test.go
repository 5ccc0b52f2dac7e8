package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/agent/engine/enginetest"
)

// simCLI is rocefab run in-process against simulated switches, with the
// intent committed to a git repository and its own state directory.
type simCLI struct {
	t      *testing.T
	fleet  *enginetest.Fleet
	intent string
	state  string
	commit string
}

func newSimCLI(t *testing.T, specs []enginetest.Spec) *simCLI {
	t.Helper()
	f := enginetest.Start(t, specs)
	dir := t.TempDir()
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	c := &simCLI{t: t, fleet: f, intent: filepath.Join(dir, "fabric.yaml"), state: filepath.Join(t.TempDir(), "state")}
	if err := os.WriteFile(c.intent, f.Intent(enginetest.Params{}), 0o600); err != nil {
		t.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Add("fabric.yaml"); err != nil {
		t.Fatal(err)
	}
	h, err := wt.Commit("fabric: lossless RoCE", &git.CommitOptions{Author: &object.Signature{Name: "netops", Email: "netops@example.com", When: time.Now()}})
	if err != nil {
		t.Fatal(err)
	}
	c.commit = h.String()
	return c
}

// run runs rocefab with the state directory and checks that the password
// never appears in what it prints.
func (c *simCLI) run(stdin string, args ...string) (int, string, string) {
	c.t.Helper()
	// Defaults first, so a test's own flags win.
	args = append([]string{args[0], "--state-dir", c.state, "--timeout", "10s"}, args[1:]...)
	code, out, errOut := runCLI(c.t, stdin, args...)
	if strings.Contains(out+errOut, enginetest.Password()) {
		c.t.Fatalf("rocefab %s printed the switch password", strings.Join(args, " "))
	}
	return code, out, errOut
}

func (c *simCLI) want(code int, stdin string, args ...string) string {
	c.t.Helper()
	got, out, errOut := c.run(stdin, args...)
	if got != code {
		c.t.Fatalf("rocefab %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), got, code, out, errOut)
	}
	return out
}

// TestSimCLIPlanApplyDriftRollback is the operator's loop end to end:
// plan shows changes (exit 2), apply --auto-approve, plan is clean (exit 0),
// a hand change is drift (exit 2) with the exact line, rollback undoes the
// run, and drift shows what is missing again.
func TestSimCLIPlanApplyDriftRollback(t *testing.T) {
	c := newSimCLI(t, []enginetest.Spec{
		{Name: "leaf-eos", Kind: enginetest.EOS},
		{Name: "leaf-sonic", Kind: enginetest.SONiC},
		{Name: "spine-oc", Kind: enginetest.OpenConfig},
	})
	fresh := c.fleet.Configs()

	out := c.want(ExitChanges, "", "plan", c.intent, "--detailed-exitcode")
	for _, want := range []string{"Plan for fabric simfab (commit " + c.commit[:12] + ")", "leaf-eos (eos via ssh", "leaf-sonic (sonic via gnmi", "spine-oc (openconfig via gnmi",
		"+ interface Ethernet[1,2] > mtu 9214   ×2   [breaks lossless", "~ sonic-db:/PORT/Ethernet[0,4]/mtu: 9100 -> 9216   ×2   [breaks lossless", "apply needs --allow-disruptive"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan text lacks %q:\n%s", want, out)
		}
	}
	for name, cfg := range c.fleet.Configs() {
		if cfg != fresh[name] {
			t.Fatalf("plan changed %s", name)
		}
	}

	// Without approval nothing happens.
	code, _, errOut := c.run("no\n", "apply", c.intent, "--allow-disruptive")
	if code != ExitFailure || !strings.Contains(errOut, "Apply cancelled.") ||
		!strings.Contains(errOut, "Apply these changes to 3 device(s)? Only 'yes' will be accepted: ") {
		t.Fatalf("apply answered 'no': exit %d\n%s", code, errOut)
	}
	// Without --allow-disruptive every device is refused, untouched.
	out = c.want(ExitFailure, "", "apply", c.intent, "--auto-approve")
	if strings.Count(out, "refused") != 3 || !strings.Contains(out, "--allow-disruptive") {
		t.Fatalf("apply without --allow-disruptive:\n%s", out)
	}
	for name, cfg := range c.fleet.Configs() {
		if cfg != fresh[name] {
			t.Fatalf("a refused apply changed %s", name)
		}
	}

	out = c.want(ExitOK, "", "apply", c.intent, "--auto-approve", "--allow-disruptive", "-o", "json")
	var rep engine.RunReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("apply -o json: %v\n%s", err, out)
	}
	user, host := engine.Actor()
	if rep.Kind != "apply" || rep.Result != "success" || rep.Intent.Commit != c.commit || rep.Intent.Dirty || rep.User != user || rep.Hostname != host || len(rep.Devices) != 3 {
		t.Fatalf("run report: %+v", rep)
	}
	for _, d := range rep.Devices {
		if d.Outcome != engine.OutcomeApplied || d.StartedAt.IsZero() || d.Changes == 0 {
			t.Errorf("%s: %+v", d.Device, d)
		}
	}
	saved, err := os.ReadFile(filepath.Join(c.state, "runs", rep.ID, "report.json"))
	if err != nil || !json.Valid(saved) || !strings.Contains(string(saved), `"commit": "`+c.commit+`"`) {
		t.Fatalf("saved report (%v):\n%s", err, saved)
	}

	c.want(ExitOK, "", "plan", c.intent, "--detailed-exitcode")
	c.want(ExitOK, "", "drift", c.intent, "--detailed-exitcode")

	if err := c.fleet.Switch("leaf-eos").SSH.HandChange("interface Ethernet2", "mtu 1500"); err != nil {
		t.Fatal(err)
	}
	out = c.want(ExitChanges, "", "drift", c.intent, "--detailed-exitcode")
	for _, want := range []string{"leaf-eos (eos via ssh", "DRIFTED: 0 missing, 1 changed, 0 unexpected (1 break lossless", "~ interface Ethernet2 > mtu 1500 -> mtu 9214   [breaks lossless", "compliant (2): leaf-sonic, spine-oc"} {
		if !strings.Contains(out, want) {
			t.Errorf("drift text lacks %q:\n%s", want, out)
		}
	}
	out = c.want(ExitChanges, "", "drift", c.intent, "--detailed-exitcode", "-o", "json")
	var drift compliance.Plan
	if err := json.Unmarshal([]byte(out), &drift); err != nil {
		t.Fatal(err)
	}
	if eos, _ := drift.Device("leaf-eos"); eos == nil || eos.Status != compliance.StatusDrifted || len(eos.Changes) != 1 || eos.Changes[0].Old != "mtu 1500" {
		t.Fatalf("drift json: %+v", eos)
	}

	before := c.fleet.Configs()
	code, _, errOut = c.run("no\n", "rollback", rep.ID, "--allow-disruptive")
	if code != ExitFailure || !strings.Contains(errOut, "Rollback cancelled.") ||
		!strings.Contains(errOut, "Roll back the devices of run "+rep.ID+" (") || !strings.Contains(errOut, "? Only 'yes' will be accepted: ") {
		t.Fatalf("rollback answered 'no': exit %d\n%s", code, errOut)
	}
	for name, cfg := range c.fleet.Configs() {
		if cfg != before[name] {
			t.Fatalf("a cancelled rollback changed %s", name)
		}
	}
	// Restoring MTU and PFC settings flaps links, as changing them does:
	// refused before the question, which is never asked.
	code, out, errOut = c.run("yes\n", "rollback", rep.ID)
	if code != ExitFailure || !strings.Contains(out, "refused without --allow-disruptive") ||
		!strings.Contains(errOut, "Nothing can be rolled back without --allow-disruptive.") || strings.Contains(errOut, "Only 'yes'") {
		t.Fatalf("rollback without --allow-disruptive: exit %d\n%s%s", code, out, errOut)
	}
	out = c.want(ExitFailure, "", "rollback", rep.ID, "--auto-approve")
	if !strings.Contains(out, "refused") || !strings.Contains(out, "--allow-disruptive") {
		t.Fatalf("rollback without --allow-disruptive:\n%s", out)
	}
	for name, cfg := range c.fleet.Configs() {
		if cfg != before[name] {
			t.Fatalf("a refused rollback changed %s", name)
		}
	}
	out = c.want(ExitOK, "", "rollback", rep.ID, "--auto-approve", "--allow-disruptive")
	if !strings.Contains(out, "Rollback run ") || strings.Count(out, "applied") != 3 {
		t.Fatalf("rollback:\n%s", out)
	}
	// Back to the state before the run: what rocefab owns is gone again.
	out = c.want(ExitChanges, "", "drift", c.intent, "--detailed-exitcode")
	if strings.Count(out, "DRIFTED") != 3 {
		t.Fatalf("drift after rollback:\n%s", out)
	}
	if got := c.fleet.Switch("spine-oc").Config(); got != fresh["spine-oc"] {
		t.Fatalf("spine-oc is not back to its configuration before the run:\n%s\nwant:\n%s", got, fresh["spine-oc"])
	}
}

// TestSimCLIOutputs: --output json and markdown carry every device, a
// saved plan applies exactly and is refused for a device changed since,
// --canary and --on-failure continue go through, and --detailed-exitcode
// gives 1 when a device cannot be reached.
func TestSimCLIOutputs(t *testing.T) {
	c := newSimCLI(t, enginetest.Mixed(4, enginetest.OpenConfig, enginetest.NXOS))

	out := c.want(ExitOK, "", "plan", c.intent, "-o", "json")
	var p compliance.Plan
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("plan -o json: %v", err)
	}
	if p.SchemaVersion != compliance.PlanSchema || len(p.Devices) != 4 || p.Intent.Commit != c.commit || p.Summary.ByStatus[compliance.StatusChanges] != 4 {
		t.Fatalf("plan json: %+v", p.Summary)
	}
	for _, d := range p.Devices {
		if d.Status != compliance.StatusChanges || len(d.Changes) == 0 || d.Fingerprint == "" || d.Desired == nil {
			t.Errorf("%s: %s, %d changes", d.Device, d.Status, len(d.Changes))
		}
	}

	out = c.want(ExitOK, "", "plan", c.intent, "-o", "markdown")
	if !strings.HasPrefix(out, "### rocefab plan: `simfab` (commit "+c.commit[:12]+")") || !strings.Contains(out, "| device | platform | status |") {
		t.Fatalf("markdown header:\n%s", out)
	}
	// Devices of one platform have the same changes: one section each.
	for _, want := range []string{"<details><summary><b>sw000</b>, <b>sw002</b> (2 devices, openconfig via gnmi)", "<details><summary><b>sw001</b>, <b>sw003</b> (2 devices, nxos via ssh)"} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	for _, name := range c.fleet.Names() {
		if !strings.Contains(out, "| "+name+" | ") {
			t.Errorf("markdown lacks %s's row", name)
		}
	}
	if strings.Count(out, "```diff") != 2 {
		t.Errorf("markdown has %d diff blocks, want 2", strings.Count(out, "```diff"))
	}

	planFile := filepath.Join(t.TempDir(), "plan.json")
	_, _, errOut := c.run("", "plan", c.intent, "--out", planFile)
	if !strings.Contains(errOut, "plan saved to "+planFile) {
		t.Fatalf("plan --out: %s", errOut)
	}
	// sw001 (NX-OS) changes between plan and apply.
	if err := c.fleet.Switch("sw001").SSH.HandChange("interface Ethernet1/1", "mtu 9000"); err != nil {
		t.Fatal(err)
	}
	changed := c.fleet.Switch("sw001").Config()
	out = c.want(ExitFailure, "", "apply", planFile, "--auto-approve", "--allow-disruptive", "--on-failure", "continue")
	if !strings.Contains(out, "sw001") || !strings.Contains(out, "device changed since the plan was made") {
		t.Fatalf("stale saved plan:\n%s", out)
	}
	if c.fleet.Switch("sw001").Config() != changed {
		t.Fatal("sw001 was changed by a stale plan")
	}
	if strings.Count(out, " applied ") != 3 {
		t.Fatalf("the other devices should be applied:\n%s", out)
	}

	// --canary 1 on what is left (sw001), then a clean plan.
	c.want(ExitOK, "", "apply", c.intent, "--auto-approve", "--allow-disruptive", "--canary", "1")
	c.want(ExitOK, "", "plan", c.intent, "--detailed-exitcode")

	// An unreachable device makes plan and drift exit 1, never 0.
	c.fleet.Switch("sw002").GNMI.Stop()
	out = c.want(ExitFailure, "", "drift", c.intent, "--detailed-exitcode", "--retries", "0", "--timeout", "2s")
	if !strings.Contains(out, "sw002") || !strings.Contains(out, "UNREACHABLE") {
		t.Fatalf("drift with a stopped device:\n%s", out)
	}
}

// TestSimCLIStateDirFromEnvironment: runs go where ROCEFAB_STATE_DIR says
// (as the agent reads it), so rollback finds an apply's run without
// --state-dir; a plan with only a conflict is not "no changes".
func TestSimCLIStateDirFromEnvironment(t *testing.T) {
	f := enginetest.Start(t, []enginetest.Spec{{Name: "leaf-sonic", Kind: enginetest.SONiC}})
	intentFile := f.WriteIntent(t, "fabric.yaml", enginetest.Params{})
	state := filepath.Join(t.TempDir(), "from-env")
	t.Setenv("ROCEFAB_STATE_DIR", state)

	code, out, errOut := runCLI(t, "", "apply", intentFile, "--auto-approve", "--allow-disruptive", "-o", "json")
	if code != ExitOK {
		t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
	}
	var rep engine.RunReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(state, "runs", rep.ID, "report.json")); err != nil {
		t.Fatalf("the run is not under ROCEFAB_STATE_DIR: %v", err)
	}
	if code, out, errOut := runCLI(t, "", "rollback", rep.ID, "--auto-approve", "--allow-disruptive"); code != ExitOK {
		t.Fatalf("rollback without --state-dir: exit %d\n%s\n%s", code, out, errOut)
	}

	// Another owner takes the global DSCP map: the only device is in conflict.
	if err := f.Switch("leaf-sonic").GNMI.HandChange("sonic-db:/PORT_QOS_MAP/global/dscp_to_tc_map", `"AZURE"`); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCLI(t, "", "apply", intentFile, "--auto-approve", "--allow-disruptive")
	if code != ExitFailure || strings.Contains(errOut, "matches the intent") || !strings.Contains(errOut, "Nothing to apply") || !strings.Contains(out, "CONFLICT") {
		t.Fatalf("apply with a conflict: exit %d\n%s\n%s", code, out, errOut)
	}
}
