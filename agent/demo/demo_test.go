package demo

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/internal/netnstest"
	"github.com/rocefab/rocefab/validators/probe"
)

func runDemo(t *testing.T, opt Options) (*Result, string, error) {
	t.Helper()
	var out bytes.Buffer
	opt.Out = &out
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := Run(ctx, opt)
	if res == nil {
		t.Fatalf("Run returned no result (err %v)", err)
	}
	if testing.Verbose() {
		t.Logf("demo output:\n%s", out.String())
	}
	return res, out.String(), err
}

// assertCleanedUp checks that nothing the demo made outlives it: its
// simulators listen no more, its namespaces are gone (as `ip netns list`
// sees them) and its temporary directory is removed.
func assertCleanedUp(t *testing.T, res *Result, keptDir string) {
	t.Helper()
	if len(res.Listeners) == 0 {
		t.Error("the result names no simulator addresses; the check below would prove nothing")
	}
	for _, addr := range res.Listeners {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			t.Errorf("simulator %s still accepts connections", addr)
		}
	}
	if len(res.Namespaces) > 0 {
		out, err := exec.Command("ip", "netns", "list").CombinedOutput()
		if err != nil {
			t.Fatalf("ip netns list: %v: %s", err, out)
		}
		for _, ns := range res.Namespaces {
			if strings.Contains(string(out), ns) {
				t.Errorf("namespace %s left behind", ns)
			}
		}
		if _, err := os.Stat(filepath.Join(nsDir, res.Namespaces[0])); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still exists: %v", filepath.Join(nsDir, res.Namespaces[0]), err)
		}
	}
	if res.Intent != "" && keptDir == "" {
		if _, err := os.Stat(filepath.Dir(res.Intent)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the demo's temporary directory %s was not removed (%v)", filepath.Dir(res.Intent), err)
		}
	}
}

// assertStory checks the steps both modes share.
func assertStory(t *testing.T, res *Result, out string) {
	t.Helper()
	if len(res.Diagnostics) != 0 {
		t.Errorf("step 1: the embedded intent is not clean: %v", res.Diagnostics)
	}
	p := res.FirstPlan
	if p == nil || !p.HasChanges() || p.HasFailures() {
		t.Fatalf("step 2: the first plan should have changes and no failures: %+v", p)
	}
	for _, d := range p.Devices {
		if d.Status != compliance.StatusChanges || len(d.Changes) == 0 {
			t.Errorf("step 2: %s starts as %s with %d change(s), want changes", d.Device, d.Status, len(d.Changes))
		}
	}
	if res.Apply == nil || res.Apply.Result != "success" {
		t.Fatalf("step 3: apply %+v", res.Apply)
	}
	for _, d := range res.Apply.Devices {
		if d.Outcome != engine.OutcomeApplied {
			t.Errorf("step 3: %s %s %s", d.Device, d.Outcome, d.Reason)
		}
	}
	if p := res.SecondPlan; p == nil || p.HasChanges() || p.HasFailures() || p.Summary.ByStatus[compliance.StatusNoChanges] != len(p.Devices) {
		t.Errorf("step 4: the plan after apply should change nothing: %+v", p.Summary)
	}
	if res.Probe == nil || !res.Probe.Pass() || len(res.Probe.Pairs) == 0 {
		t.Errorf("step 5: the probe should pass: %+v", res.Probe)
	}
	d := res.Drift
	if d == nil || d.Summary.ByStatus[compliance.StatusDrifted] != 1 || d.Summary.ByStatus[compliance.StatusCompliant] != len(d.Devices)-1 {
		t.Fatalf("step 7: drift should show one drifted device: %+v", d)
	}
	if rep := res.Remediation; rep == nil || rep.Result != "success" {
		t.Fatalf("step 8: remediation %+v", rep)
	}
	var applied []string
	for _, dr := range res.Remediation.Devices {
		if dr.Outcome == engine.OutcomeApplied {
			applied = append(applied, dr.Device)
			if dr.Changes != 1 {
				t.Errorf("step 8: %s got %d change(s), want only the drifted one", dr.Device, dr.Changes)
			}
		}
	}
	if len(applied) != 1 || applied[0] != res.Injected.Device {
		t.Errorf("step 8: remediation applied to %v, want only %s", applied, res.Injected.Device)
	}
	if fd := res.FinalDrift; fd == nil || fd.Summary.ByStatus[compliance.StatusCompliant] != len(fd.Devices) {
		t.Errorf("step 8: drift after remediation should be compliant: %+v", fd)
	}
	if res.FinalProbe == nil || !res.FinalProbe.Pass() {
		t.Errorf("step 8: the probe should pass again: %+v", res.FinalProbe)
	}
	if res.Failed != 0 {
		t.Errorf("failed step %d", res.Failed)
	}
	for n, title := range stepTitles {
		if !strings.Contains(out, title) {
			t.Errorf("the output lacks step %d's heading %q", n, title)
		}
	}
	for _, s := range []string{"What just happened", "rocefab validate examples/basic", "examples/lab/up.sh"} {
		if !strings.Contains(out, s) {
			t.Errorf("the output lacks %q", s)
		}
	}
}

func TestDemoLoopback(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	res, out, err := runDemo(t, Options{Mode: ModeLoopback, StateDir: state})
	if err != nil {
		t.Fatalf("demo: %v", err)
	}
	if res.Mode != ModeLoopback || !strings.Contains(out, "NOTE: no network namespaces: --no-netns was given.") {
		t.Errorf("mode %s; the loopback mode must say so", res.Mode)
	}
	assertStory(t, res, out)
	want := Injection{Device: "leaf-nxos", Where: "interface Ethernet1/1 > mtu ", Old: "mtu 1500", New: "mtu 9216"}
	if res.Injected != want {
		t.Errorf("drift %+v, want exactly the hand change %+v", res.Injected, want)
	}
	if res.FaultProbe != nil {
		t.Error("over loopback the probe cannot see the switch: it must not run after the drift")
	}
	if !strings.Contains(out, "gpu02 -> gpu01  PASS") && !strings.Contains(out, "gpu01 -> gpu02  PASS") {
		t.Error("the probe report is not in the output")
	}
	assertCleanedUp(t, res, state)

	// --state-dir keeps the intent and both run reports; the password is
	// only in its 0600 file, never in the story.
	if _, err := os.Stat(res.Intent); err != nil {
		t.Errorf("kept intent: %v", err)
	}
	ids, err := engine.RunStore{Dir: state}.List()
	if err != nil || len(ids) != 2 {
		t.Errorf("run reports %v (%v), want the apply and the remediation", ids, err)
	}
	pw, err := os.ReadFile(filepath.Join(state, "switch.password"))
	if err != nil || len(strings.TrimSpace(string(pw))) < 16 {
		t.Fatalf("password file: %v %q", err, pw)
	}
	if strings.Contains(out, strings.TrimSpace(string(pw))) {
		t.Error("the switch password appears in the output")
	}
	if st, err := os.Stat(filepath.Join(state, "switch.password")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("password file mode %v (%v), want 0600", st.Mode(), err)
	}
}

// The loopback probe moves to a free port when UDP 4791 is taken (a
// `rocefab probe serve` on this machine, another demo) and says so.
func TestDemoLoopbackPortBusy(t *testing.T) {
	squat := holdPort(t, "127.0.0.2:4791")
	defer squat.Close()
	res, out, err := runDemo(t, Options{Mode: ModeLoopback})
	if err != nil {
		t.Fatalf("demo with UDP 4791 busy: %v", err)
	}
	if !strings.Contains(out, "UDP 4791 is busy on this machine") {
		t.Error("the demo does not say that it moved off UDP 4791")
	}
	if res.FinalProbe == nil || !res.FinalProbe.Pass() {
		t.Error("the probe on the fallback port did not pass")
	}
	assertCleanedUp(t, res, "")
}

// holdPort binds addr for the test. Another test binary may hold it for a
// moment, so a busy port is retried; only one held for good by something
// else on this machine (a probe server) skips the test.
func holdPort(t *testing.T, addr string) net.PacketConn {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		pc, err := net.ListenPacket("udp", addr)
		switch {
		case err == nil:
			return pc
		case !errors.Is(err, syscall.EADDRINUSE):
			if os.Getenv("ROCEFAB_REQUIRE_NETNS") == "1" {
				t.Fatalf("cannot hold %s for the test: %v", addr, err)
			}
			t.Skipf("cannot hold %s for the test: %v", addr, err)
		case time.Now().After(deadline):
			t.Skipf("%s stays in use by another program on this machine: %v", addr, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestDemoNetns(t *testing.T) {
	netnstest.Require(t)
	res, out, err := runDemo(t, Options{Mode: ModeNetns})
	if err != nil {
		t.Fatalf("demo: %v", err)
	}
	if res.Mode != ModeNetns || len(res.Namespaces) != 3 {
		t.Fatalf("mode %s, namespaces %v", res.Mode, res.Namespaces)
	}
	assertStory(t, res, out)

	// The router is managed for real: its first plan raises both ports'
	// MTU and turns forwarding on.
	lp, ok := res.FirstPlan.Device("leaf-linux")
	if !ok {
		t.Fatal("step 2: no leaf-linux in the plan")
	}
	got := map[string]string{}
	for _, c := range lp.Changes {
		got[c.Where()] = c.Old + " -> " + c.New
	}
	wantFirst := map[string]string{
		"/interfaces/swp1/mtu": "9000 -> 9216", "/interfaces/swp2/mtu": "9000 -> 9216",
		"/sysctl/net.ipv4.ip_forward": `"0" -> "1"`, "/sysctl/net.ipv6.conf.all.forwarding": `"0" -> "1"`,
	}
	if len(got) != len(wantFirst) {
		t.Errorf("step 2: leaf-linux changes %v, want %v", got, wantFirst)
	}
	for where, change := range wantFirst {
		if got[where] != change {
			t.Errorf("step 2: leaf-linux %s: %q, want %q", where, got[where], change)
		}
	}

	want := Injection{Device: "leaf-linux", Where: "/interfaces/swp2/mtu", Old: "1500", New: "9216"}
	if res.Injected != want {
		t.Errorf("step 7: drift %+v, want exactly the hand change %+v", res.Injected, want)
	}
	fp := res.FaultProbe
	if fp == nil || fp.Pass() {
		t.Fatalf("step 7: the probe should fail across the 1500 port: %+v", fp)
	}
	// Each direction is its own finding. Forward, swp2 sends at most 1500
	// bytes. Reverse, swp2 receives: a veth accepts up to MTU + 18 bytes of
	// frame (room for a VLAN tag), so 1504-byte IP packets get in.
	const blackhole = "forward gpu01 → gpu02: packets above 1500 bytes lost on all 8 flows: path MTU 1500 is below intent 9000"
	const reverse = "reverse gpu02 → gpu01: packets above 1504 bytes lost on all 8 flows: path MTU 1504 is below intent 9000"
	var holes []string
	for _, f := range fp.Findings {
		if f.Severity == probe.SeverityError && f.Code != probe.CodeMTUBlackhole {
			t.Errorf("step 7: unexpected fault %s: %s", f.Code, f.Message)
		}
		if f.Code == probe.CodeMTUBlackhole && f.Pair == "gpu01 -> gpu02" {
			holes = append(holes, f.Message)
		}
	}
	if !slices.Equal(holes, []string{blackhole, reverse}) {
		t.Errorf("step 7: %s findings %q, want %q and %q", probe.CodeMTUBlackhole, holes, blackhole, reverse)
	}
	if m := res.FinalProbe.Pairs[0].Measurements; m.PathMTU != 9000 || m.PathMTUReverse != 9000 {
		t.Errorf("step 8: path MTU %d/%d after remediation, want 9000 both ways", m.PathMTU, m.PathMTUReverse)
	}
	if !strings.Contains(out, "The probe names the fault: mtu_blackhole, "+blackhole) {
		t.Error("the output does not name the fault")
	}
	assertCleanedUp(t, res, "")
}

// Cancelling the context (Ctrl-C) at any step stops the demo with the
// context's error and still removes everything it created.
func TestDemoCancelledMidwayCleansUp(t *testing.T) {
	for _, tc := range []struct {
		name string
		mode Mode
		at   int
	}{
		{"loopback at plan", ModeLoopback, StepPlan},
		{"loopback at probe", ModeLoopback, StepProbe},
		{"netns at apply", ModeNetns, StepApply},
		{"netns at drift", ModeNetns, StepDetectDrift},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.mode == ModeNetns {
				netnstest.Require(t)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var out bytes.Buffer
			res, err := Run(ctx, Options{Out: &out, Mode: tc.mode, OnStep: func(step int) {
				if step == tc.at {
					cancel()
				}
			}})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err %v, want context.Canceled", err)
			}
			if !strings.Contains(err.Error(), stepTitles[tc.at]) {
				t.Errorf("the error %q does not name the step", err)
			}
			if !strings.Contains(out.String(), "Demo interrupted; everything it started has been stopped and removed.") {
				t.Error("the output does not say the demo was interrupted")
			}
			if tc.mode == ModeNetns && len(res.Namespaces) != 3 {
				t.Fatalf("namespaces %v: the netns fabric was not built, the test proves nothing", res.Namespaces)
			}
			assertCleanedUp(t, res, "")
		})
	}
}
