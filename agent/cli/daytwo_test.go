package cli

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/agent/engine/enginetest"
	"github.com/rocefab/rocefab/drivers/sim/sshsim"
	"github.com/rocefab/rocefab/internal/junit"
	"github.com/rocefab/rocefab/validators/probe"
)

// TestEveryCommandHasExamples walks the whole command tree, cobra's own
// completion and help commands included, and wants Examples in each help.
func TestEveryCommandHasExamples(t *testing.T) {
	root := (&app{stdout: os.Stdout, stderr: os.Stderr}).rootCommand()
	var walk func(c *cobra.Command)
	n := 0
	walk = func(c *cobra.Command) {
		if c.Hidden {
			return
		}
		n++
		if strings.TrimSpace(c.Example) == "" {
			t.Errorf("%q has no Examples in its help", c.CommandPath())
		} else if !strings.Contains(c.Example, "rocefab") {
			t.Errorf("%q: its examples do not show rocefab being run:\n%s", c.CommandPath(), c.Example)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	if n < 20 {
		t.Fatalf("walked only %d commands", n)
	}
	// And they print: "Examples:" is in the help output.
	code, out, _ := runCLI(t, "", "plan", "--help")
	if code != 0 || !strings.Contains(out, "Examples:\n  rocefab plan fabric/") {
		t.Fatalf("plan --help:\n%s", out)
	}
}

func complete(t *testing.T, args ...string) []string {
	t.Helper()
	code, out, errOut := runCLI(t, "", append([]string{"__complete"}, args...)...)
	if code != 0 {
		t.Fatalf("__complete %v: exit %d\n%s", args, code, errOut)
	}
	var words []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(l, ":") {
			break // the directive
		}
		words = append(words, l)
	}
	return words
}

// TestShellCompletion: cobra's completion scripts, with device names from
// the intent and run IDs from the state directory.
func TestShellCompletion(t *testing.T) {
	basic := filepath.Join(examplesDir, "basic")
	for _, shell := range []string{"bash", "zsh", "fish", "powershell"} {
		code, out, _ := runCLI(t, "", "completion", shell)
		if code != 0 || !strings.Contains(out, "rocefab") {
			t.Errorf("completion %s: exit %d", shell, code)
		}
	}
	got := complete(t, "plan", basic, "--device", "leaf-e")
	if strings.Join(got, " ") != "leaf-eos" {
		t.Errorf("plan --device leaf-e completes %v", got)
	}
	got = complete(t, "drift", basic, "--device", "leaf-eos,gpu")
	if strings.Join(got, " ") != "leaf-eos,gpu01 leaf-eos,gpu02 leaf-eos,gpu03 leaf-eos,gpu04" {
		t.Errorf("drift --device leaf-eos,gpu completes %v", got)
	}
	got = complete(t, "show", "--intent", basic, "spine")
	if strings.Join(got, " ") != "spine-oc" {
		t.Errorf("show spine completes %v", got)
	}
	got = complete(t, "show", "--intent", basic, "--link", "gpu01:")
	if strings.Join(got, " ") != "gpu01:ens1f0np0" {
		t.Errorf("show --link gpu01: completes %v", got)
	}
	got = complete(t, "host", "plan", "--intent", basic, "--host", "gpu0")
	if len(got) != 4 {
		t.Errorf("host plan --host gpu0 completes %v", got)
	}
	// Run IDs from the run store, newest first, with what each was.
	state := t.TempDir()
	store := engine.RunStore{Dir: state}
	for _, id := range []string{"20261101T100000.000000Z-aaaaaa", "20261102T100000.000000Z-bbbbbb"} {
		if _, err := store.SaveReport(&engine.RunReport{SchemaVersion: engine.RunSchema, ID: id, Kind: "apply", Result: "success", User: "netops"}); err != nil {
			t.Fatal(err)
		}
	}
	got = complete(t, "rollback", "--state-dir", state, "2026110")
	if len(got) != 2 || !strings.HasPrefix(got[0], "20261102T100000.000000Z-bbbbbb\tapply success") || !strings.Contains(got[0], "by netops") {
		t.Errorf("rollback completes %q", got)
	}
	t.Setenv("ROCEFAB_STATE_DIR", state)
	if got = complete(t, "rollback", "20261101"); len(got) != 1 {
		t.Errorf("rollback with ROCEFAB_STATE_DIR completes %q", got)
	}
}

// parseJUnit reads JUnit XML strictly and checks that the totals add up.
func parseJUnit(t *testing.T, data string) junit.Suites {
	t.Helper()
	var doc junit.Suites
	dec := xml.NewDecoder(strings.NewReader(data))
	dec.Strict = true
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("not JUnit XML: %v\n%s", err, data)
	}
	if !strings.HasPrefix(data, xml.Header) {
		t.Errorf("no XML header")
	}
	tests, failures, errors := 0, 0, 0
	for _, s := range doc.Suites {
		if s.Name == "" || s.Tests != len(s.Cases) {
			t.Errorf("suite %q: tests=%d, %d cases", s.Name, s.Tests, len(s.Cases))
		}
		f, e := 0, 0
		for _, c := range s.Cases {
			if c.Name == "" || c.Classname == "" {
				t.Errorf("a case without name or classname: %+v", c)
			}
			if c.Failure != nil {
				f++
				if c.Failure.Message == "" {
					t.Errorf("%s: a failure without a message", c.Name)
				}
			}
			if c.Error != nil {
				e++
			}
		}
		if f != s.Failures || e != s.Errors {
			t.Errorf("suite %q counts %d failures, %d errors; cases hold %d, %d", s.Name, s.Failures, s.Errors, f, e)
		}
		tests, failures, errors = tests+s.Tests, failures+s.Failures, errors+s.Errors
	}
	if doc.Tests != tests || doc.Failures != failures || doc.Errors != errors {
		t.Errorf("document totals %d/%d/%d, suites %d/%d/%d", doc.Tests, doc.Failures, doc.Errors, tests, failures, errors)
	}
	return doc
}

// TestJUnitOutput: validate, plan and drift write JUnit XML a CI system
// reads: a failing diagnostic, a drifted device are failures naming what
// is wrong.
func TestJUnitOutput(t *testing.T) {
	code, out, _ := runCLI(t, "", "validate", "--output", "junit", filepath.Join(examplesDir, "broken", "RF138.yaml"), filepath.Join(examplesDir, "basic"))
	if code != ExitFailure {
		t.Fatalf("validate: exit %d", code)
	}
	doc := parseJUnit(t, out)
	if doc.Failures != 1 || doc.Tests != 2 || !strings.Contains(doc.Suites[0].Cases[0].Failure.Message, "no-drop priority 4 but spine1 on 3") ||
		doc.Suites[0].Cases[0].Line != 18 {
		t.Fatalf("validate junit: %+v", doc)
	}

	c := newSimCLI(t, []enginetest.Spec{{Name: "leaf-eos", Kind: enginetest.EOS}, {Name: "leaf-sonic", Kind: enginetest.SONiC}})
	doc = parseJUnit(t, c.want(ExitOK, "", "plan", c.intent, "--output", "junit"))
	if doc.Tests != 2 || doc.Failures != 0 || !strings.Contains(doc.Suites[0].Cases[0].SystemOut, "to add") {
		t.Fatalf("plan junit: %+v", doc)
	}
	c.want(ExitOK, "", "apply", c.intent, "--auto-approve", "--allow-disruptive")
	if err := c.fleet.Switch("leaf-eos").SSH.HandChange("interface Ethernet2", "mtu 1500"); err != nil {
		t.Fatal(err)
	}
	doc = parseJUnit(t, c.want(ExitChanges, "", "drift", c.intent, "--output", "junit", "--detailed-exitcode"))
	if doc.Failures != 1 {
		t.Fatalf("drift junit: %d failures", doc.Failures)
	}
	for _, cs := range doc.Suites[0].Cases {
		if cs.Name == "leaf-eos" && (cs.Failure == nil || !strings.Contains(cs.Failure.Text, "~ interface Ethernet2 > mtu 1500 -> mtu 9214   [breaks lossless")) {
			t.Fatalf("leaf-eos: %+v", cs)
		}
	}
}

// TestShowDeviceAndLink: show reads what rocefab owns on a switch, in its
// own form and as the model, and says whether it matches; show --link puts
// both ends side by side with the verdict validate would give.
func TestShowDeviceAndLink(t *testing.T) {
	c := newSimCLI(t, []enginetest.Spec{{Name: "leaf-eos", Kind: enginetest.EOS}})
	c.want(ExitOK, "", "apply", c.intent, "--auto-approve", "--allow-disruptive")
	out := c.want(ExitOK, "", "show", "leaf-eos", "--intent", c.intent)
	for _, want := range []string{"leaf-eos (eos via ssh", "What rocefab owns on it now, as the device has it:", "  interface Ethernet1\n", "mtu 9214",
		"The same in rocefab's model:", "It matches the intent."} {
		if !strings.Contains(out, want) {
			t.Errorf("show lacks %q:\n%s", want, out)
		}
	}
	if err := c.fleet.Switch("leaf-eos").SSH.HandChange("interface Ethernet2", "mtu 1500"); err != nil {
		t.Fatal(err)
	}
	out = c.want(ExitOK, "", "show", "leaf-eos", "--intent", c.intent, "-o", "json")
	var rep showReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Compliant || len(rep.Changes) != 1 || !strings.Contains(rep.Native, "mtu 1500") {
		t.Fatalf("show -o json after a hand change (%v): %+v", err, rep)
	}

	lab := filepath.Join(examplesDir, "lab")
	code, out, _ := runCLI(t, "", "show", "--link", "leaf1:swp3", "--intent", lab)
	if code != 0 || !strings.Contains(out, "Link leaf1:swp3 – spine1:swp1") || !strings.Contains(out, "Verdict: consistent") {
		t.Fatalf("show --link: exit %d\n%s", code, out)
	}
	broken := filepath.Join(examplesDir, "broken", "RF138.yaml")
	code, out, _ = runCLI(t, "", "show", "--link", "spine1:Ethernet2", "--intent", broken)
	if code != ExitFailure || !regexp.MustCompile(`no-drop priority +4 +3   <- differs`).MatchString(out) || !strings.Contains(out, "Verdict: INCONSISTENT") {
		t.Fatalf("show --link on a broken link: exit %d\n%s", code, out)
	}
}

// TestPlanShowsASavedPlan: plan PLANFILE prints a saved plan again in any
// format, without the devices.
func TestPlanShowsASavedPlan(t *testing.T) {
	c := newSimCLI(t, []enginetest.Spec{{Name: "leaf-eos", Kind: enginetest.EOS}})
	file := filepath.Join(t.TempDir(), "plan.json")
	first := c.want(ExitOK, "", "plan", c.intent, "--out", file)
	// The device cannot even be logged into now: nothing contacts it.
	c.fleet.Switches[0].SSH.SetFaults(sshsim.Faults{RefuseAuth: true})
	again := c.want(ExitOK, "", "plan", file)
	if again != first {
		t.Fatalf("the saved plan reads differently:\n%s\nfirst:\n%s", again, first)
	}
	md := c.want(ExitOK, "", "plan", file, "-o", "markdown")
	if !strings.HasPrefix(md, "### rocefab plan: `simfab`") {
		t.Fatalf("markdown of a saved plan:\n%s", md)
	}
}

// TestVersion: rocefab version names the build, the Go toolchain and the
// platform, in the words the help uses.
func TestVersion(t *testing.T) {
	code, out, _ := runCLI(t, "", "version")
	if code != 0 || !regexp.MustCompile(`^rocefab (v\S+|dev|dev-[0-9a-f]{12}) \(go\S+, \w+/\w+\)\n$`).MatchString(out) {
		t.Fatalf("version: exit %d %q", code, out)
	}
	if code, _, _ := runCLI(t, "", "version", "extra"); code != ExitUsage {
		t.Fatalf("version with an argument: exit %d", code)
	}
}

// TestProbeJUnit: a pair with an error finding is a failure naming it,
// warnings are output, and the XML parses.
func TestProbeJUnit(t *testing.T) {
	rep := &probe.Report{SchemaVersion: probe.SchemaVersion, Verdict: probe.VerdictFail,
		Pairs: []probe.PairResult{{From: "h1", To: "h2", Verdict: probe.VerdictPass}, {From: "h1", To: "h4", Verdict: probe.VerdictFail}},
		Findings: []probe.Finding{
			{Code: probe.CodeReordering, Severity: probe.SeverityWarning, Pair: "h1 -> h2", Message: "3 packets arrived out of order"},
			{Code: probe.CodeNoPath, Severity: probe.SeverityError, Pair: "h1 -> h4", Message: "packets do not get to h4: the path stops after hop 2"},
		}}
	var b strings.Builder
	if err := writeProbeJUnit(&b, &probeOutput{Report: rep}); err != nil {
		t.Fatal(err)
	}
	doc := parseJUnit(t, b.String())
	cs := doc.Suites[0].Cases
	if doc.Tests != 2 || doc.Failures != 1 || cs[0].Failure != nil || !strings.Contains(cs[0].SystemOut, "reordering") ||
		cs[1].Failure == nil || cs[1].Failure.Type != "no_path" || !strings.Contains(cs[1].Failure.Message, "the path stops after hop 2") {
		t.Fatalf("probe junit: %+v", doc)
	}
}

// TestColourOnATerminalOnly: never into a pipe or a file, never with
// NO_COLOR.
func TestColourOnATerminalOnly(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if (&app{stdout: w}).colorOut() {
		t.Error("colour into a pipe")
	}
	if (&app{stdout: &strings.Builder{}}).colorOut() {
		t.Error("colour into a buffer")
	}
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		defer tty.Close()
		t.Setenv("NO_COLOR", "1")
		if (&app{stdout: tty}).colorOut() {
			t.Error("colour with NO_COLOR set")
		}
	}
}
