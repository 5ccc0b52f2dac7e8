package ssh_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/sim/sshsim"
	"github.com/rocefab/rocefab/drivers/ssh"
	"github.com/rocefab/rocefab/internal/golden"
)

// pendingCase is a small change per platform and the confirm window that
// makes its device (or rocefab) roll it back quickly in a test. Windows are
// about a second of real time, so a loaded machine still sees the change in
// effect before it rolls back.
type pendingCase struct {
	switchName  string
	personality sshsim.Personality
	patch       devcfg.Patch
	shows       string // the change as it shows in the simulator's config
	shortWindow time.Duration
	// second makes device timers fast: a device second lasts this long.
	second time.Duration
	// confirmSecond is a slower device clock, leaving time to confirm; the
	// window then ends in real time after windowEnds.
	confirmSecond, windowEnds time.Duration
}

var pendingCases = []pendingCase{
	{"leaf-nxos", sshsim.NXOS, devcfg.Patch{Lines: []string{"interface Ethernet1/2", "mtu 9216", "exit"}}, "interface Ethernet1/2\n  mtu 9216", time.Second, 20 * time.Millisecond, 70 * time.Millisecond, 2100 * time.Millisecond},
	{"leaf-eos", sshsim.EOS, devcfg.Patch{Lines: []string{"interface Ethernet2", "mtu 9214", "exit"}}, "interface Ethernet2\n   mtu 9214", time.Second, time.Second, 2 * time.Second, 2 * time.Second},
	{"leaf-junos", sshsim.Junos, devcfg.Patch{Lines: []string{"set interfaces et-0/0/2 mtu 9216"}}, "set interfaces et-0/0/2 mtu 9216", time.Minute, 15 * time.Millisecond, 35 * time.Millisecond, 2100 * time.Millisecond},
	{"leaf-cumulus", sshsim.Cumulus, devcfg.Patch{Lines: []string{"nv set interface swp2 link mtu 9216"}}, `"mtu": 9216`, time.Minute, 15 * time.Millisecond, 35 * time.Millisecond, 2100 * time.Millisecond},
	{"leaf-sonic", sshsim.SONiC, devcfg.Patch{Updates: []devcfg.PathUpdate{{Path: "sonic-db:/PORT/Ethernet8/mtu", Value: devcfg.String("9216")}}}, `"mtu": "9216"`, time.Second, 0, 0, time.Second},
}

func pendingDriver(t *testing.T, pc pendingCase, second time.Duration, log *zap.Logger) (*sshsim.Sim, drivers.Driver) {
	t.Helper()
	sim, kh := startRealWith(t, sshsim.Options{Personality: pc.personality, Hostname: pc.switchName, Second: second})
	pendingKH[sim] = kh
	return sim, pendingOpen(t, sim, kh, pc, log)
}

// pendingKH remembers each simulator's known_hosts file, for a second
// runner's driver to the same device.
var pendingKH = map[*sshsim.Sim]string{}

func pendingDriverTo(t *testing.T, sim *sshsim.Sim, pc pendingCase) (*sshsim.Sim, drivers.Driver) {
	t.Helper()
	return sim, pendingOpen(t, sim, pendingKH[sim], pc, nil)
}

func pendingOpen(t *testing.T, sim *sshsim.Sim, kh string, pc pendingCase, log *zap.Logger) drivers.Driver {
	t.Helper()
	_, e := basic(t, pc.switchName)
	opt := drivers.Options{
		Device: "dut", Address: sim.Addr(), Platform: e.Attrs.Platform,
		Creds:   drivers.Credentials{Username: "rocefab", Password: "s3cret-pw"},
		SSH:     drivers.SSHOptions{KnownHostsFile: kh},
		Timeout: 5 * time.Second, Retries: 2, Backoff: 20 * time.Millisecond, Logger: log,
	}.WithDefaults()
	d, err := ssh.New(testContext(t), opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	return d
}

// waitFor polls the simulator until cond holds or the deadline passes.
func waitFor(t *testing.T, within time.Duration, cond func() bool) bool {
	t.Helper()
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return cond()
}

// TestUnconfirmedChangeRollsBack: a change pushed with a confirm window and
// never confirmed is undone when the window ends, by the device (EOS commit
// timer, Junos commit confirmed, NVUE apply --confirm, NX-OS configure
// replace commit-timeout) or by rocefab's timer (SONiC); the device ends
// byte-identical to its earlier state, a late confirmation fails and
// removes what the device kept.
func TestUnconfirmedChangeRollsBack(t *testing.T) {
	for _, pc := range pendingCases {
		t.Run(pc.switchName, func(t *testing.T) {
			t.Parallel() // each case has its own simulator; the waits overlap
			sim, d := pendingDriver(t, pc, pc.second, nil)
			before := sim.Config()
			p, err := d.Push(testContext(t), pc.patch, drivers.PushOptions{ConfirmWindow: pc.shortWindow})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(sim.Config(), pc.shows) {
				t.Fatalf("the change is not in effect while pending:\n%s", sim.Config())
			}
			if !waitFor(t, 30*time.Second, func() bool { return sim.Config() == before }) {
				t.Fatalf("the change was not rolled back:\n%s", lineDiff(before, sim.Config()))
			}
			if sim.PendingCommit() {
				t.Error("the device still waits for a confirmation")
			}
			if err := p.Confirm(testContext(t)); !errors.Is(err, drivers.ErrRejected) {
				t.Fatalf("confirming a rolled-back change: want ErrRejected, got %v", err)
			}
			if sim.Config() != before {
				t.Fatal("a late confirmation changed the device")
			}
			if cps := sim.Checkpoints(); len(cps) != 0 {
				t.Errorf("checkpoints left behind: %v", cps)
			}
		})
	}
}

// TestConfirmedChangeStays: confirmed in time, the change outlives its
// window, nothing stays pending, and the driver's confirm flow is
// golden-checked per platform.
func TestConfirmedChangeStays(t *testing.T) {
	for _, pc := range pendingCases {
		t.Run(pc.switchName, func(t *testing.T) {
			t.Parallel() // each case has its own simulator; the waits overlap
			sim, d := pendingDriver(t, pc, pc.confirmSecond, nil)
			window := pc.shortWindow
			sim.ResetReceived()
			p, err := d.Push(testContext(t), pc.patch, drivers.PushOptions{ConfirmWindow: window})
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Confirm(testContext(t)); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "confirm", pc.switchName+".golden"), sent(sim))
			time.Sleep(pc.windowEnds + 300*time.Millisecond)
			if !strings.Contains(sim.Config(), pc.shows) {
				t.Fatalf("the confirmed change is gone:\n%s", sim.Config())
			}
			if sim.PendingCommit() {
				t.Error("the device still waits for a confirmation")
			}
			if cps := sim.Checkpoints(); len(cps) != 0 {
				t.Errorf("checkpoints left behind: %v", cps)
			}
			if err := p.Rollback(testContext(t)); !errors.Is(err, drivers.ErrUnsupported) {
				t.Fatalf("rolling back a confirmed change: want ErrUnsupported, got %v", err)
			}
		})
	}
}

// TestExplicitRollback: Rollback during the window restores the device.
func TestExplicitRollback(t *testing.T) {
	for _, pc := range pendingCases {
		t.Run(pc.switchName, func(t *testing.T) {
			sim, d := pendingDriver(t, pc, 0, nil)
			before := sim.Config()
			p, err := d.Push(testContext(t), pc.patch, drivers.PushOptions{ConfirmWindow: 5 * time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			if sim.Config() == before {
				t.Fatal("the change is not in effect while pending")
			}
			if err := p.Rollback(testContext(t)); err != nil {
				t.Fatal(err)
			}
			if after := sim.Config(); after != before {
				t.Fatalf("not restored:\n%s", lineDiff(before, after))
			}
			if sim.PendingCommit() {
				t.Error("the device still waits for a confirmation")
			}
			if err := p.Rollback(testContext(t)); err != nil {
				t.Fatalf("a second rollback must be a no-op: %v", err)
			}
		})
	}
}

// TestJunosWindowRoundedUp: Junos counts whole minutes; 90 s becomes
// `commit confirmed 2`, and the driver says so.
func TestJunosWindowRoundedUp(t *testing.T) {
	core, logs := observer.New(zap.InfoLevel)
	pc := pendingCases[2]
	sim, d := pendingDriver(t, pc, 0, zap.New(core))
	p, err := d.Push(testContext(t), pc.patch, drivers.PushOptions{ConfirmWindow: 90 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = p.Confirm(testContext(t)) }()
	found := false
	for _, l := range sim.Received() {
		found = found || strings.HasPrefix(l, "commit confirmed 2 comment ")
	}
	if !found {
		t.Fatalf("no `commit confirmed 2` sent: %q", sim.Received())
	}
	if logs.FilterMessageSnippet("rounded up").Len() != 1 {
		t.Fatal("the rounding was not reported")
	}
}
