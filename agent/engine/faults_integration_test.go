package engine_test

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/agent/engine/enginetest"
	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
	"github.com/rocefab/rocefab/drivers/sim/sshsim"
)

// faultStep is one step of a clean apply's sequence to break: the line
// (SSH) or RPC (gNMI) and which occurrence of it.
type faultStep struct {
	what string
	nth  int
	// prefix: what is the part of a line before a run or change ID, which
	// differs from one apply to the next; lines containing it are counted.
	prefix bool
}

// changeID finds the run and change IDs rocefab writes into lines
// (checkpoint descriptions, session, file and commit names).
var changeID = regexp.MustCompile(`rocefab-\d{8}[T-]?\d{6}|run \d{8}T\d{6}|\d{8}T\d{6}\.\d+Z`)

// matrixTimeout bounds each device call in the matrix: a hung step costs
// this much. It is short for speed; a call that runs long on a loaded
// machine only adds a fault, and the invariant must hold for any number.
const matrixTimeout = 700 * time.Millisecond

// TestFaultMatrix breaks, on every platform and transport, every step of
// an apply's push sequence in turn, once with the change committed at
// once and once under a confirm window: the connection drops before the
// step reaches the device, drops after it took effect, hangs until the
// client times out, or answers slowly. Steps are each protocol command
// (lock, checks, checkpoint, session, commit, confirm, cleanup, the reads
// before and after) and the first, middle and last configuration line.
// After each case the device is entirely old or entirely new, byte for
// byte, nothing of the push is left on it (checkpoints, sessions, files,
// locks, pending commits), and the run record, in memory and on disk,
// says which: applied with the new configuration, not applied with the
// old one.
func TestFaultMatrix(t *testing.T) {
	enginetest.SetPasswordEnv(t)
	// The cases wait on timeouts and the network far more than on the CPU:
	// the platforms run side by side whatever go test's -parallel says.
	var wg sync.WaitGroup
	slots := make(chan struct{}, 8)
	for _, kind := range enginetest.AllKinds {
		for _, window := range []time.Duration{0, 10 * time.Minute} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				slots <- struct{}{}
				defer func() { <-slots }()
				t.Run(fmt.Sprintf("%s/window=%s", kind, window), func(t *testing.T) {
					faultMatrix(t, kind, window)
				})
			}()
		}
	}
	wg.Wait()
}

func faultMatrix(t *testing.T, kind enginetest.Kind, window time.Duration) {
	h := newSimHarness(t, []enginetest.Spec{{Name: "dut", Kind: kind, Ports: 1}})
	h.opt.Retries = 1
	h.ctx = enginetest.Ctx(t, 10*time.Minute)
	sw := h.fleet.Switch("dut")
	// The device runs rocefab's configuration already; the change under
	// test is a day-two one (a new ECN threshold), so each case pushes a
	// few lines through the whole protocol.
	h.opt.Timeout = 30 * time.Second // the first push is long; a loaded machine must not fail it
	h.converge(h.intent("base.yaml", enginetest.Params{}))
	restore := sw.Save()
	res := h.intent("fabric.yaml", enginetest.Params{ECNMin: "300KB"})
	plan := h.plan(res)
	if plan.Devices[0].Status != compliance.StatusChanges {
		t.Fatalf("the plan has no changes: %s %s", plan.Devices[0].Status, plan.Devices[0].Error)
	}
	oldCfg := sw.Config()
	opt := engine.ApplyOptions{AllowDisruptive: true, ConfirmWindow: window, LockWait: 2 * time.Second}
	if err := restore(); err != nil {
		t.Fatal(err)
	}

	// A clean apply gives the new configuration and the steps to break,
	// with time enough that a loaded machine does not add a reconnection
	// to the sequence.
	if s, ok := sw.SSH, sw.SSH != nil; ok {
		s.ResetReceived()
	}
	rep := h.apply(plan, opt)
	if d := rep.Devices[0]; d.Outcome != engine.OutcomeApplied {
		t.Fatalf("clean apply: %s %s", d.Outcome, d.Reason)
	}
	h.opt.Timeout = matrixTimeout
	newCfg := sw.Config()
	steps := matrixSteps(sw, plan)
	if len(steps) < 4 {
		t.Fatalf("only %d steps recorded: %v", len(steps), steps)
	}
	waitNoLeftovers(t, sw, "after the clean apply")

	actions := []string{"drop-before", "drop-after", "hang", "slow"}
	cases := 0
	for _, st := range steps {
		for _, action := range actions {
			name := fmt.Sprintf("%s %q#%d", action, st.what, st.nth)
			if err := restore(); err != nil {
				t.Fatal(err)
			}
			if sw.Config() != oldCfg {
				t.Fatalf("%s: reset did not restore the device", name)
			}
			breakStep(sw, st, action)
			rep := h.apply(plan, opt)
			if sw.SSH != nil && sw.SSH.StepsFired() == 0 {
				t.Errorf("%s: the fault never fired: the step is not where the clean apply had it", name)
			}
			sw.ClearFaults()
			cases++
			d := rep.Devices[0]
			got := sw.Config()
			switch {
			case got == newCfg:
				if d.Outcome != engine.OutcomeApplied {
					t.Errorf("%s: the device holds the new configuration, the report says %s: %s", name, d.Outcome, d.Reason)
				}
			case got == oldCfg:
				if !slices.Contains([]engine.Outcome{engine.OutcomeFailed, engine.OutcomeRolledBack, engine.OutcomeRefused}, d.Outcome) {
					t.Errorf("%s: the device holds the old configuration, the report says %s: %s", name, d.Outcome, d.Reason)
				}
			default:
				t.Errorf("%s: the device holds neither the old nor the new configuration (report: %s %s):\n%s", name, d.Outcome, d.Reason, lineDiff(oldCfg, got))
			}
			disk, err := h.store.LoadReport(rep.ID)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if dd := disk.Devices[0]; dd.Outcome != d.Outcome || disk.Status != engine.StatusDone {
				t.Errorf("%s: the report on disk says %s (%s), the run returned %s", name, dd.Outcome, disk.Status, d.Outcome)
			}
			if rec, _ := h.store.DeviceRecord("dut"); rec != nil && (rec.Active != nil || rec.Unknown != nil) {
				t.Errorf("%s: the device record still marks the run: %+v", name, rec)
			}
			waitNoLeftovers(t, sw, name)
		}
	}
	t.Logf("%d cases over %d steps", cases, len(steps))
}

// matrixSteps reads the sequence of the apply that just ran. Every SSH
// line counts but the configuration lines, and every gNMI RPC but the Gets
// of one read: lines and Gets of one kind play the same part, so the
// first, middle and last configuration line, and the first and last Get
// of each read, stand for them.
func matrixSteps(sw *enginetest.Switch, plan *compliance.Plan) []faultStep {
	var seq []string
	config := map[string]bool{}
	if sw.GNMI != nil {
		seq = sw.GNMI.Calls()
	} else {
		seq = sw.SSH.Received()
		for _, l := range plan.Devices[0].Patch.Lines {
			config[l] = true
		}
	}
	isConfig := func(l string) bool {
		return config[l] || (strings.HasPrefix(l, "echo ") && strings.Contains(l, ".b64"))
	}
	// A session's logout at Close (an "exit" that ends the sequence or
	// comes before the next session's first empty line; EOS and NX-OS
	// patches have "exit" lines too) may never be delivered by a session
	// that ends: it is no step of the push.
	logout := func(i int) bool {
		return sw.SSH != nil && seq[i] == "exit" && (i == len(seq)-1 || seq[i+1] == "")
	}
	pick := map[int]bool{}
	var cfgIdx []int
	for i, l := range seq {
		if isConfig(l) && !logout(i) {
			cfgIdx = append(cfgIdx, i)
		}
		isGet := strings.HasSuffix(l, "/Get")
		if !isGet {
			continue
		}
		first := i == 0 || !strings.HasSuffix(seq[i-1], "/Get")
		last := i == len(seq)-1 || !strings.HasSuffix(seq[i+1], "/Get")
		if first || last {
			pick[i] = true
		}
	}
	if len(cfgIdx) > 0 {
		pick[cfgIdx[0]], pick[cfgIdx[len(cfgIdx)/2]], pick[cfgIdx[len(cfgIdx)-1]] = true, true, true
	}
	seen := map[string]int{}
	var steps []faultStep
	for i, l := range seq {
		seen[l]++
		if l == "" || logout(i) || ((isConfig(l) || strings.HasSuffix(l, "/Get")) && !pick[i]) {
			continue
		}
		if loc := changeID.FindStringIndex(l); sw.SSH != nil && loc != nil && loc[0] > 0 {
			// Named after this apply's IDs: select it by what comes before.
			key, nth := l[:loc[0]], 0
			for _, m := range seq[:i+1] {
				if strings.Contains(m, key) {
					nth++
				}
			}
			steps = append(steps, faultStep{what: key, nth: nth, prefix: true})
			continue
		}
		steps = append(steps, faultStep{what: l, nth: seen[l]})
	}
	return steps
}

func breakStep(sw *enginetest.Switch, st faultStep, action string) {
	if sw.GNMI != nil {
		a := map[string]gnmisim.StepAction{"drop-before": gnmisim.DropBefore, "drop-after": gnmisim.DropAfter, "hang": gnmisim.Hang, "slow": gnmisim.Slow}[action]
		sw.GNMI.SetFaults(gnmisim.Faults{Steps: []gnmisim.StepFault{{Method: st.what, Nth: st.nth, Action: a, Delay: 20 * time.Millisecond}}})
		return
	}
	a := map[string]sshsim.StepAction{"drop-before": sshsim.DropBefore, "drop-after": sshsim.DropAfter, "hang": sshsim.Hang, "slow": sshsim.Slow}[action]
	// Match the whole line: a prefix of it would select other lines too.
	sw.SSH.SetFaults(sshsim.Faults{Steps: []sshsim.StepFault{{Match: st.what, Nth: st.nth, Action: a, Delay: 20 * time.Millisecond, Exact: !st.prefix}}})
}

// waitNoLeftovers waits for the device to drop what the closed sessions
// held (the simulator ends a session a moment after its client left), and
// fails on anything else left behind.
func waitNoLeftovers(t *testing.T, sw *enginetest.Switch, when string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := sw.Leftovers()
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%s: left on the device: %v", when, left)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// readErrors is, per SSH platform, the command that reads the running
// configuration and an error the platform answers it with.
var readErrors = []struct {
	kind      enginetest.Kind
	read, msg string
}{
	{enginetest.EOS, "show running-config", "% Permission denied for the role"},
	{enginetest.NXOS, "show running-config", "% Permission denied for the role"},
	{enginetest.Junos, "show configuration | display set", "error: permission denied for the role"},
	{enginetest.Cumulus, "nv config show", "Error: Permission denied for the role"},
	{enginetest.SONiCSSH, "show runningconfiguration all", "Error: Permission denied for the role"},
}

// TestDriftOnAnErrorAnswer: a running-config command answered with an
// error is a device error in drift and plan, on every SSH platform, never
// a device whose every owned line is missing (an empty configuration).
func TestDriftOnAnErrorAnswer(t *testing.T) {
	var specs []enginetest.Spec
	for _, c := range readErrors {
		specs = append(specs, enginetest.Spec{Name: "leaf-" + c.kind.Platform + "-" + c.kind.Transport, Kind: c.kind, Ports: 1})
	}
	covered := map[enginetest.Kind]bool{}
	for _, c := range readErrors {
		covered[c.kind] = true
	}
	for _, k := range enginetest.AllKinds {
		if k.Transport == "ssh" && !covered[k] {
			t.Errorf("no read error for %s", k)
		}
	}
	h := newSimHarness(t, specs)
	res := h.intent("fabric.yaml", enginetest.Params{})
	h.converge(res)
	for i, c := range readErrors {
		h.fleet.Switch(specs[i].Name).SSH.SetFaults(sshsim.Faults{Answers: map[string]string{c.read: c.msg}})
	}
	for what, p := range map[string]*compliance.Plan{"drift": h.drift(res), "plan": h.plan(res)} {
		for _, d := range p.Devices {
			if d.Status != compliance.StatusError || len(d.Changes) != 0 || !strings.Contains(strings.ToLower(d.Error), "permission denied") {
				t.Errorf("%s %s: %s with %d changes (%s); want an error naming the device's answer", what, d.Device, d.Status, len(d.Changes), d.Error)
			}
		}
	}
}
