package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/agent/engine/enginetest"
	"github.com/rocefab/rocefab/drivers/sim/sshsim"
)

// These tests run the rocefab binary users run, built from cmd/rocefab,
// in processes of its own against simulated switches in the test
// process: killed with SIGKILL at random points, and twice at once.

// rocefabBinary builds cmd/rocefab into a temporary folder.
func rocefabBinary(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("ROCEFAB_REQUIRE_NETNS") == "1" {
			t.Fatal("go is not on PATH: cannot build the rocefab binary these tests run")
		}
		t.Skip("go is not on PATH: cannot build the rocefab binary these tests run")
	}
	bin := filepath.Join(t.TempDir(), "rocefab")
	cmd := exec.Command(goTool, "build", "-o", bin, "github.com/rocefab/rocefab/cmd/rocefab")
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/rocefab: %v\n%s", err, out)
	}
	return bin
}

// binRun runs the binary to completion.
func binRun(t *testing.T, bin string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("rocefab %s: %v", strings.Join(args, " "), err)
	}
	if strings.Contains(out.String()+errOut.String(), enginetest.Password()) {
		t.Fatalf("rocefab %s printed the switch password", strings.Join(args, " "))
	}
	return code, out.String(), errOut.String()
}

// driftChanges is what drift finds per device, as a sorted list of
// changes: two equal results mean the same owned configuration.
func driftChanges(t *testing.T, bin, intent, state string) map[string][]string {
	t.Helper()
	_, out, errOut := binRun(t, bin, "drift", intent, "-o", "json", "--state-dir", state, "--timeout", "10s")
	var p compliance.Plan
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatalf("drift -o json: %v\n%s\n%s", err, out, errOut)
	}
	res := map[string][]string{}
	for _, d := range p.Devices {
		var cs []string
		for _, c := range d.Changes {
			cs = append(cs, c.Action.Symbol()+" "+c.Where()+" "+c.Old+" -> "+c.New)
		}
		sort.Strings(cs)
		res[d.Device] = cs
		if d.Status == compliance.StatusUnreachable || d.Status == compliance.StatusError {
			t.Fatalf("drift: %s %s: %s", d.Device, d.Status, d.Error)
		}
	}
	return res
}

func oneOfEachKind() []enginetest.Spec {
	var specs []enginetest.Spec
	for _, k := range enginetest.AllKinds {
		specs = append(specs, enginetest.Spec{Name: strings.ReplaceAll(k.String(), "/", "-"), Kind: k, Ports: 1})
	}
	return specs
}

func sshLines(f *enginetest.Fleet) int {
	n := 0
	for _, sw := range f.Switches {
		if sw.SSH != nil {
			n += len(sw.SSH.Received())
		}
	}
	return n
}

func resetReceived(f *enginetest.Fleet) {
	for _, sw := range f.Switches {
		if sw.SSH != nil {
			sw.SSH.ResetReceived()
		}
	}
}

// waitLeftovers waits for closed sessions to let go and reports what is
// left on each device.
func waitLeftovers(f *enginetest.Fleet) map[string][]string {
	deadline := time.Now().Add(10 * time.Second)
	for {
		left := map[string][]string{}
		for _, sw := range f.Switches {
			if l := sw.Leftovers(); len(l) > 0 {
				left[sw.Name] = l
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestCrashKilledApply: the rocefab binary is killed with SIGKILL at a
// random point of an apply to one switch of every platform, again and
// again. Right after each kill every device holds its old or its new
// configuration whole (NX-OS too: its configuration is replaced in one
// step); `rocefab runs` lists the run as
// interrupted; drift says so on the devices it was pushing. Then, in turn,
// rollback RUN_ID brings every device back to rocefab's old configuration,
// or a second apply says the run was interrupted and finishes the job;
// either settles what the run left (its record then says what each device
// held), and nothing is left on any device.
func TestCrashKilledApply(t *testing.T) {
	bin := rocefabBinary(t)
	f := enginetest.Start(t, oneOfEachKind())
	intent := f.WriteIntent(t, "fabric.yaml", enginetest.Params{})
	restore := map[string]func() error{}
	for _, sw := range f.Switches {
		restore[sw.Name] = sw.Save()
	}
	reset := func() {
		for _, sw := range f.Switches {
			if err := restore[sw.Name](); err != nil {
				t.Fatal(err)
			}
		}
	}
	old := f.Configs()
	oldDrift := driftChanges(t, bin, intent, t.TempDir())

	resetReceived(f)
	if code, out, errOut := binRun(t, bin, "apply", intent, "--auto-approve", "--allow-disruptive", "--state-dir", t.TempDir(), "--timeout", "10s"); code != ExitOK {
		t.Fatalf("clean apply: exit %d\n%s\n%s", code, out, errOut)
	}
	total := sshLines(f)
	newCfg := f.Configs()

	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("ROCEFAB_CRASH_SEED"); v != "" {
		// Replays a failure's kill points: the seed is in its log.
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("ROCEFAB_CRASH_SEED: %v", err)
		}
		seed = n
	}
	t.Logf("kill points drawn with seed %d (replay with ROCEFAB_CRASH_SEED=%d)", seed, seed)
	rnd := rand.New(rand.NewPCG(seed, 0))
	const rounds = 4
	for round := 0; round < rounds; round++ {
		reset()
		state := t.TempDir()
		kill := 5 + rnd.IntN(total-10)
		cmd := exec.Command(bin, "apply", intent, "--auto-approve", "--allow-disruptive", "--state-dir", state, "--timeout", "10s", "-o", "json")
		var out bytes.Buffer
		cmd.Stdout = &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		killed := false
	watch:
		for {
			select {
			case <-done:
				break watch
			case <-time.After(time.Millisecond):
				if sshLines(f) >= kill {
					_ = cmd.Process.Kill() // SIGKILL: no deferred function, no cleanup runs
					killed = true
					<-done
					break watch
				}
			}
		}
		name := fmt.Sprintf("round %d (kill at line %d of %d)", round, kill, total)
		for _, sw := range f.Switches {
			if cfg := sw.Config(); cfg != old[sw.Name] && cfg != newCfg[sw.Name] {
				t.Errorf("%s: %s holds neither its old nor its new configuration right after the kill", name, sw.Name)
			}
		}
		var runs []engine.RunSummary
		_, listing, _ := binRun(t, bin, "runs", "-o", "json", "--state-dir", state)
		if err := json.Unmarshal([]byte(listing), &runs); err != nil || len(runs) > 1 {
			t.Fatalf("%s: rocefab runs: %v\n%s", name, err, listing)
		}
		if len(runs) == 0 {
			// Killed while planning: the run had not begun, nothing was pushed.
			for _, sw := range f.Switches {
				if sw.Config() != old[sw.Name] {
					t.Errorf("%s: killed before the run began, yet %s changed", name, sw.Name)
				}
			}
			continue
		}
		run := runs[0]
		if !killed || run.Status == engine.StatusDone {
			// The run ended before the kill point: every device is new.
			for _, sw := range f.Switches {
				if sw.Config() != newCfg[sw.Name] {
					t.Errorf("%s: the run finished, %s is not new", name, sw.Name)
				}
			}
			continue
		}
		if run.Status != engine.StatusInterrupted || run.Kind != engine.KindApply {
			t.Fatalf("%s: the killed run is listed as %s %s", name, run.Kind, run.Status)
		}
		_, text, _ := binRun(t, bin, "runs", "--state-dir", state)
		if !strings.Contains(text, "interrupted") || !strings.Contains(text, run.ID) {
			t.Errorf("%s: rocefab runs does not show the interrupted run:\n%s", name, text)
		}
		t.Logf("%s: run %s interrupted, devices %v", name, run.ID, run.Outcomes)
		inProgress := 0
		if o := run.Outcomes[string(engine.OutcomeInProgress)]; o > 0 {
			inProgress = o
			_, drift, _ := binRun(t, bin, "drift", intent, "--state-dir", state, "--timeout", "10s")
			if strings.Count(drift, "was interrupted on this device") < o {
				t.Errorf("%s: drift does not say the run was interrupted on the %d device(s) it was pushing:\n%s", name, o, drift)
			}
		}
		if round%2 == 1 {
			// Resumed: apply again settles what the run left, then finishes.
			code, apOut, apErr := binRun(t, bin, "apply", intent, "--auto-approve", "--allow-disruptive", "--state-dir", state, "--timeout", "10s")
			if code != ExitOK {
				t.Errorf("%s: apply after the kill: exit %d\n%s\n%s", name, code, apOut, apErr)
			}
			if inProgress > 0 && !strings.Contains(apErr, "was interrupted on this device") {
				t.Errorf("%s: apply did not say the run was interrupted:\n%s", name, apErr)
			}
			if got := driftChanges(t, bin, intent, t.TempDir()); len(fmt.Sprint(got)) == 0 || strings.Contains(fmt.Sprint(got), "->") {
				t.Errorf("%s: after the second apply the fabric does not match the intent: %v", name, got)
			}
		} else {
			code, rbOut, rbErr := binRun(t, bin, "rollback", run.ID, "--auto-approve", "--allow-disruptive", "--state-dir", state, "--timeout", "10s")
			if code != ExitOK && !strings.Contains(rbErr, "nothing to roll back") {
				t.Errorf("%s: rollback: exit %d\n%s\n%s", name, code, rbOut, rbErr)
			}
			if got := driftChanges(t, bin, intent, t.TempDir()); fmt.Sprint(got) != fmt.Sprint(oldDrift) {
				t.Errorf("%s: after rollback the devices are not back to rocefab's old configuration:\nwant %v\ngot  %v", name, oldDrift, got)
			}
		}
		if left := waitLeftovers(f); len(left) > 0 {
			t.Errorf("%s: left on the devices: %v", name, left)
		}
		_, shown, _ := binRun(t, bin, "runs", run.ID, "-o", "json", "--state-dir", state)
		var rep engine.RunReport
		if err := json.Unmarshal([]byte(shown), &rep); err != nil {
			t.Fatal(err)
		}
		settled := 0
		for _, d := range rep.Devices {
			if d.Found != "" {
				settled++
				if d.Outcome == engine.OutcomeInProgress || d.Outcome == engine.OutcomeUnknown {
					t.Errorf("%s: %s found %q but not settled: %s", name, d.Device, d.Found, d.Outcome)
				}
			}
		}
		if settled < inProgress {
			t.Errorf("%s: %d device(s) were in progress, the record settled %d: %+v", name, inProgress, settled, rep.Devices)
		}
	}
}

// TestCrashKilledNXOSReplace: the rocefab binary is killed at each step
// of an NX-OS push: while the new configuration is copied (slowly, so the
// kill lands before the copy ends), while `configure replace` runs (the
// device answers late, so the kill lands after it took effect and before
// any confirmation) and as the
// confirmation is sent. Right after each kill the switch holds its old or
// its new configuration whole. Killed before confirming, the switch rolls
// the change back by itself when its commit timer ends, with nobody left
// to ask it; the next apply then finishes the job and leaves nothing
// behind. Each point is tried twice.
func TestCrashKilledNXOSReplace(t *testing.T) {
	bin := rocefabBinary(t)
	// A device second of 10 ms: the 120 s commit timer ends in 1.2 s.
	f := enginetest.Start(t, []enginetest.Spec{{Name: "leaf-nxos", Kind: enginetest.NXOS, Ports: 2, DeviceSecond: 10 * time.Millisecond}})
	intent := f.WriteIntent(t, "fabric.yaml", enginetest.Params{})
	sw := f.Switch("leaf-nxos")
	reset := sw.Save()
	old := sw.Config()
	points := []struct {
		match string
		slow  bool
		want  string // right after the kill: old, new, or either
		timer bool   // the commit timer still runs and rolls back
	}{
		{"scp -t bootflash:", true, "old", false},
		{"configure replace bootflash:", true, "new", true},
		{"configure replace commit", false, "either", false},
	}
	var newCfg string
	for _, p := range points {
		for round := range 2 {
			if err := reset(); err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("killed at %q, round %d", p.match, round)
			if p.slow {
				sw.SSH.SetFaults(sshsim.Faults{Steps: []sshsim.StepFault{{Match: p.match, Action: sshsim.Slow, Delay: 2 * time.Second}}})
			}
			sw.SSH.ResetReceived()
			state := t.TempDir()
			killed := killWhen(t, func() bool {
				return slices.ContainsFunc(sw.SSH.Received(), func(l string) bool { return strings.Contains(l, p.match) })
			}, bin, "apply", intent, "--auto-approve", "--allow-disruptive", "--state-dir", state, "--timeout", "10s")
			sw.ClearFaults()
			if !killed {
				t.Fatalf("%s: the apply finished before the kill point", name)
			}
			cfg := sw.Config()
			switch {
			case p.want == "old" && cfg != old:
				t.Errorf("%s: the switch changed although the replace never ran", name)
			case p.want == "new" && cfg == old:
				t.Errorf("%s: the replace took no effect before the kill", name)
			}
			if p.want == "new" {
				newCfg = cfg
			}
			if newCfg != "" && cfg != old && cfg != newCfg {
				t.Errorf("%s: the switch holds neither its old nor its new configuration", name)
			}
			if p.timer {
				// Nobody confirms: the switch goes back by itself.
				deadline := time.Now().Add(10 * time.Second)
				for sw.Config() != old && time.Now().Before(deadline) {
					time.Sleep(20 * time.Millisecond)
				}
				if sw.Config() != old {
					t.Errorf("%s: the commit timer did not roll the unconfirmed change back", name)
				}
			}
			var runs []engine.RunSummary
			_, listing, _ := binRun(t, bin, "runs", "-o", "json", "--state-dir", state)
			if err := json.Unmarshal([]byte(listing), &runs); err != nil || len(runs) != 1 || runs[0].Status != engine.StatusInterrupted {
				t.Fatalf("%s: rocefab runs does not list one interrupted run: %v\n%s", name, err, listing)
			}
			code, apOut, apErr := binRun(t, bin, "apply", intent, "--auto-approve", "--allow-disruptive", "--state-dir", state, "--timeout", "10s")
			if code != ExitOK {
				t.Errorf("%s: apply after the kill: exit %d\n%s\n%s", name, code, apOut, apErr)
			}
			if got := driftChanges(t, bin, intent, t.TempDir()); strings.Contains(fmt.Sprint(got), "->") {
				t.Errorf("%s: after the second apply the switch does not match the intent: %v", name, got)
			}
			if left := waitLeftovers(f); len(left) > 0 {
				t.Errorf("%s: left on the switch: %v", name, left)
			}
		}
	}
}

// TestCrashTwoAppliesAtOnce: two rocefab binaries apply two intents to the
// same devices at the same moment, sharing a state directory or each with
// its own, where only the lock on the device keeps them apart (on gNMI the
// target's confirmed commit, which the test fleet's targets offer).
// Every device ends with one intent's configuration whole, and the run
// records agree: the device runs what the last run that applied it
// applied, or its old configuration if none did.
func TestCrashTwoAppliesAtOnce(t *testing.T) {
	bin := rocefabBinary(t)
	f := enginetest.Start(t, oneOfEachKind())
	intents := []string{
		f.WriteIntent(t, "a.yaml", enginetest.Params{}),
		f.WriteIntent(t, "b.yaml", enginetest.Params{ECNMin: "300KB"}),
	}
	restore := map[string]func() error{}
	for _, sw := range f.Switches {
		restore[sw.Name] = sw.Save()
	}
	reset := func() {
		for _, sw := range f.Switches {
			if err := restore[sw.Name](); err != nil {
				t.Fatal(err)
			}
		}
	}
	old := f.Configs()
	var applied []map[string]string
	for _, in := range intents {
		reset()
		if code, out, errOut := binRun(t, bin, "apply", in, "--auto-approve", "--allow-disruptive", "--state-dir", t.TempDir(), "--timeout", "10s"); code != ExitOK {
			t.Fatalf("clean apply of %s: exit %d\n%s\n%s", in, code, out, errOut)
		}
		applied = append(applied, f.Configs())
	}
	for _, mode := range []string{"one state directory", "two state directories"} {
		for round := 0; round < 2; round++ {
			reset()
			shared := t.TempDir()
			reps := make([]engine.RunReport, 2)
			var wg sync.WaitGroup
			for i, in := range intents {
				state := shared
				if mode == "two state directories" {
					state = t.TempDir()
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, out, errOut := binRun(t, bin, "apply", in, "--auto-approve", "--allow-disruptive", "--state-dir", state,
						"--timeout", "10s", "--lock-wait", "1m", "-o", "json")
					if err := json.Unmarshal([]byte(out), &reps[i]); err != nil {
						t.Errorf("apply %s: %v\n%s\n%s", in, err, out, errOut)
					}
				}()
			}
			wg.Wait()
			name := fmt.Sprintf("%s, round %d", mode, round)
			for i := range reps {
				var o []string
				for _, d := range reps[i].Devices {
					o = append(o, d.Device+"="+string(d.Outcome))
				}
				t.Logf("%s: %s: %s", name, filepath.Base(intents[i]), strings.Join(o, " "))
			}
			for _, sw := range f.Switches {
				cfg := sw.Config()
				var last *engine.DeviceRun
				lastRun := -1
				for i := range reps {
					d := reps[i].Device(sw.Name)
					if d == nil || d.Outcome != engine.OutcomeApplied {
						continue
					}
					if last == nil || d.StartedAt.After(last.StartedAt) {
						last, lastRun = d, i
					}
				}
				want := old[sw.Name]
				if lastRun >= 0 {
					want = applied[lastRun][sw.Name]
				}
				// One intent applied over the other may list the same lines in
				// another order (Junos appends changed statements).
				if sortedLines(cfg) != sortedLines(want) {
					outcomes := []string{}
					for i := range reps {
						if d := reps[i].Device(sw.Name); d != nil {
							outcomes = append(outcomes, fmt.Sprintf("%s: %s %s", filepath.Base(intents[i]), d.Outcome, d.Reason))
						}
					}
					which := "neither intent"
					if i := slices.Index([]string{sortedLines(old[sw.Name]), sortedLines(applied[0][sw.Name]), sortedLines(applied[1][sw.Name])}, sortedLines(cfg)); i >= 0 {
						which = []string{"the old configuration", "a.yaml", "b.yaml"}[i]
					}
					t.Errorf("%s: %s holds %s; the records say %v", name, sw.Name, which, outcomes)
				}
			}
			if left := waitLeftovers(f); len(left) > 0 {
				t.Errorf("%s: left on the devices: %v", name, left)
			}
		}
	}
}

func sortedLines(s string) string {
	lines := strings.Split(s, "\n")
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// killWhen runs the binary until cond holds, then kills it with SIGKILL.
// It reports whether it killed.
func killWhen(t *testing.T, cond func() bool, bin string, args ...string) bool {
	t.Helper()
	cmd := exec.Command(bin, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.After(2 * time.Minute)
	for {
		select {
		case <-done:
			return false
		case <-deadline:
			_ = cmd.Process.Kill()
			<-done
			t.Fatalf("rocefab %s neither finished nor reached the kill point", strings.Join(args, " "))
		case <-time.After(2 * time.Millisecond):
			if cond() {
				_ = cmd.Process.Kill()
				<-done
				return true
			}
		}
	}
}

// driftUnderWay: the state directory holds a drift run that has begun and
// the switches have answered lines since.
func driftUnderWay(f *enginetest.Fleet, state string, after *int) func() bool {
	return func() bool {
		runs, _ := engine.RunStore{Dir: state}.Runs(engine.KindDrift)
		if len(runs) == 0 {
			return false
		}
		if *after < 0 {
			*after = sshLines(f)
		}
		return sshLines(f)-*after >= 3
	}
}

// TestCrashKilledDrift: a drift killed with SIGKILL in flight, by the CLI
// or by the agent, is listed by `rocefab runs` as interrupted, never lost.
func TestCrashKilledDrift(t *testing.T) {
	bin := rocefabBinary(t)
	f := enginetest.Start(t, []enginetest.Spec{
		{Name: "leaf-eos", Kind: enginetest.EOS, Ports: 1},
		{Name: "leaf-junos", Kind: enginetest.Junos, Ports: 1},
	})
	intent := f.WriteIntent(t, "fabric.yaml", enginetest.Params{})
	// A slow control plane keeps the drift in flight long enough.
	for _, sw := range f.Switches {
		sw.Slow(30 * time.Millisecond)
	}
	for _, tc := range []struct {
		name string
		args func(state string) []string
	}{
		{"cli", func(state string) []string {
			return []string{"drift", intent, "--state-dir", state, "--timeout", "10s"}
		}},
		{"agent", func(state string) []string {
			return []string{"agent", intent, "--state-dir", state, "--timeout", "10s", "--listen", "127.0.0.1:0", "--drift-jitter", "0", "--drift-interval", "1h"}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			state := t.TempDir()
			after := -1
			if !killWhen(t, driftUnderWay(f, state, &after), bin, tc.args(state)...) {
				t.Fatal("the drift finished before the kill point")
			}
			_, out, errOut := binRun(t, bin, "runs", "-o", "json", "--kind", "drift", "--state-dir", state)
			var runs []engine.RunSummary
			if err := json.Unmarshal([]byte(out), &runs); err != nil {
				t.Fatalf("runs: %v\n%s\n%s", err, out, errOut)
			}
			if len(runs) != 1 || runs[0].Status != engine.StatusInterrupted || runs[0].Kind != engine.KindDrift {
				t.Fatalf("the killed drift is not listed as interrupted: %+v", runs)
			}
		})
	}
}

// TestRollbackSettlesAnInterruptedRunThatChangedNothing: a run killed
// before its push changed anything leaves devices at their snapshots and a
// record saying it was pushing them. rollback RUN_ID has nothing to
// restore, yet it reads the devices back and settles that record, so drift
// stops reporting the interrupted run and the record says what the
// device held.
func TestRollbackSettlesAnInterruptedRunThatChangedNothing(t *testing.T) {
	bin := rocefabBinary(t)
	for _, kind := range []enginetest.Kind{enginetest.SONiCSSH, enginetest.EOS, enginetest.SONiC} {
		name := strings.ReplaceAll(kind.String(), "/", "-")
		t.Run(name, func(t *testing.T) {
			f := enginetest.Start(t, []enginetest.Spec{{Name: name, Kind: kind, Ports: 1}})
			intent := f.WriteIntent(t, "fabric.yaml", enginetest.Params{})
			restore := f.Switches[0].Save()
			state := t.TempDir()
			if code, out, errOut := binRun(t, bin, "apply", intent, "--auto-approve", "--allow-disruptive", "--state-dir", state, "--timeout", "10s"); code != ExitOK {
				t.Fatalf("apply: exit %d\n%s\n%s", code, out, errOut)
			}
			if err := restore(); err != nil {
				t.Fatal(err)
			}
			// The record a run killed right after marking the device leaves.
			store := engine.RunStore{Dir: state}
			ids, err := store.List()
			if err != nil || len(ids) != 1 {
				t.Fatalf("runs: %v %v", ids, err)
			}
			id := ids[0]
			rep, err := store.LoadReport(id)
			if err != nil {
				t.Fatal(err)
			}
			rep.Status, rep.Result = engine.StatusRunning, ""
			d := &rep.Devices[0]
			d.Outcome, d.Phase, d.Applied, d.Reason = engine.OutcomeInProgress, engine.PhasePushing, "", ""
			if _, err := store.SaveReport(rep); err != nil {
				t.Fatal(err)
			}
			if err := store.UpdateDevice(name, func(r *engine.DeviceRecord) {
				r.Active = &engine.ActiveRef{Run: id, Kind: engine.KindApply, Phase: engine.PhasePushing, At: time.Now().UTC()}
				r.LastApplied = nil
			}); err != nil {
				t.Fatal(err)
			}
			if _, drift, _ := binRun(t, bin, "drift", intent, "--state-dir", state, "--timeout", "10s"); !strings.Contains(drift, "was interrupted on this device") {
				t.Fatalf("drift does not report the interrupted run:\n%s", drift)
			}

			code, out, errOut := binRun(t, bin, "rollback", id, "--auto-approve", "--allow-disruptive", "--state-dir", state, "--timeout", "10s")
			if code != ExitOK || !strings.Contains(errOut, "settling what run "+id+" was pushing") {
				t.Fatalf("rollback: exit %d\n%s\n%s", code, out, errOut)
			}
			got, err := store.LoadReport(id)
			if err != nil {
				t.Fatal(err)
			}
			if dev := got.Devices[0]; dev.Found != "old" || dev.Outcome == engine.OutcomeInProgress || dev.Phase != engine.PhaseDone {
				t.Errorf("the interrupted run's record is not settled: found %q outcome %s phase %s", dev.Found, dev.Outcome, dev.Phase)
			}
			if a := store.Interrupted(name); a != nil {
				t.Errorf("the device record still carries the interrupted run: %+v", a)
			}
			if _, drift, _ := binRun(t, bin, "drift", intent, "--state-dir", state, "--timeout", "10s"); strings.Contains(drift, "was interrupted on this device") {
				t.Errorf("drift still reports the interrupted run after rollback settled it:\n%s", drift)
			}
			if left := waitLeftovers(f); len(left) > 0 {
				t.Errorf("left on the device: %v", left)
			}
		})
	}
}
