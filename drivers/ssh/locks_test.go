package ssh_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/sim/sshsim"
	"github.com/rocefab/rocefab/drivers/ssh"
)

// secondDriver opens another runner's driver to the same simulator.
func secondDriver(t *testing.T, sim *sshsim.Sim, pc pendingCase) drivers.Driver {
	t.Helper()
	_, d := pendingDriverTo(t, sim, pc)
	return d
}

// TestDeviceSideLockKeepsRunnersApart: a runner holding a device (its
// change waiting for confirmation) makes another runner's push, from
// another state directory, fail with ErrLocked naming the first run,
// leaving the device as the first runner left it; once the first
// confirms, the second gets through.
func TestDeviceSideLockKeepsRunnersApart(t *testing.T) {
	for _, pc := range pendingCases {
		t.Run(pc.switchName, func(t *testing.T) {
			sim, a := pendingDriver(t, pc, 0, nil)
			b := secondDriver(t, sim, pc)
			p, err := a.Push(testContext(t), pc.patch, drivers.PushOptions{ConfirmWindow: 10 * time.Minute, RunID: "20260102T030405.000000Z-aaaaaa"})
			if err != nil {
				t.Fatal(err)
			}
			held := sim.Config()
			_, err = b.Push(testContext(t), otherPatch(pc), drivers.PushOptions{RunID: "20260102T030406.000000Z-bbbbbb"})
			if !errors.Is(err, drivers.ErrLocked) || !strings.Contains(err.Error(), "aaaaaa") {
				t.Fatalf("the second runner: want ErrLocked naming the first run, got %v", err)
			}
			if sim.Config() != held {
				t.Fatalf("the refused runner changed the device:\n%s", lineDiff(held, sim.Config()))
			}
			if err := p.Confirm(testContext(t)); err != nil {
				t.Fatal(err)
			}
			q, err := b.Push(testContext(t), otherPatch(pc), drivers.PushOptions{RunID: "20260102T030407.000000Z-cccccc"})
			if err != nil {
				t.Fatalf("after the first confirmed: %v", err)
			}
			if err := q.Confirm(testContext(t)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestStalePlanRefusedUnderTheLock: a change slipped in between the plan
// and the push is caught once the push holds the device: ErrStale, and
// nothing of the push reaches the device.
func TestStalePlanRefusedUnderTheLock(t *testing.T) {
	for _, fc := range faultCases {
		t.Run(fc.switchName, func(t *testing.T) {
			sim, d, patch := basicPush(t, fc)
			run, err := d.Fetch(testContext(t))
			if err != nil {
				t.Fatal(err)
			}
			if err := sim.HandChange(handEdit(fc.personality)...); err != nil {
				t.Fatal(err)
			}
			edited := sim.Config()
			_, err = d.Push(testContext(t), patch, drivers.PushOptions{Expect: run.Fingerprint, RunID: "20260102T030405.000000Z-dddddd"})
			if !errors.Is(err, drivers.ErrStale) {
				t.Fatalf("want ErrStale, got %v", err)
			}
			if sim.Config() != edited {
				t.Fatalf("a stale push changed the device:\n%s", lineDiff(edited, sim.Config()))
			}
			if left := sim.Leftovers(); len(left) > 0 {
				t.Fatalf("left on the device: %v", left)
			}
		})
	}
}

// TestCleanupAfterADeadRunner: a runner dies (its sessions drop, nothing
// confirms) while its change waits for confirmation; the next runner's
// Cleanup of that run rolls the change back at once and removes
// everything it left: checkpoints, files, sessions, locks.
func TestCleanupAfterADeadRunner(t *testing.T) {
	for _, pc := range pendingCases {
		t.Run(pc.switchName, func(t *testing.T) {
			sim, a := pendingDriver(t, pc, 0, nil)
			before := sim.Config()
			const run = "20260102T030405.000000Z-eeeeee"
			if _, err := a.Push(testContext(t), pc.patch, drivers.PushOptions{ConfirmWindow: 10 * time.Minute, RunID: run}); err != nil {
				t.Fatal(err)
			}
			sim.DropConnections() // the runner is gone
			b := secondDriver(t, sim, pc)
			if err := b.(drivers.Cleaner).Cleanup(testContext(t), run, true); err != nil {
				t.Fatal(err)
			}
			if after := sim.Config(); after != before {
				t.Fatalf("not rolled back:\n%s", lineDiff(before, after))
			}
			if !waitFor(t, 5*time.Second, func() bool { return len(sim.Leftovers()) == 0 }) {
				t.Fatalf("left on the device: %v", sim.Leftovers())
			}
		})
	}
}

// TestRunningConfigAnsweredWithAnError: a running-config command answered
// with an error (a refused command, a permission error, nothing at all) is
// an error: read as an empty configuration it would show every owned line
// as missing.
func TestRunningConfigAnsweredWithAnError(t *testing.T) {
	for _, fc := range faultCases {
		for _, msg := range []string{"", "% Permission denied for the role", "error: permission denied", "Error: nvued is not running", "\n"} {
			t.Run(fc.switchName+"/"+strings.TrimSpace(msg), func(t *testing.T) {
				desired, e := basic(t, fc.switchName)
				sim, kh := startReal(t, fc.personality, fc.switchName)
				d := openReal(t, sim, kh, e, desired.Owned)
				show := e.Attrs.Platform.ShowRunning
				if show == "" {
					show = map[sshsim.Personality]string{sshsim.Junos: "show configuration", sshsim.Cumulus: "nv config show", sshsim.SONiC: "show runningconfiguration"}[fc.personality]
				}
				sim.SetFaults(sshsim.Faults{Answers: map[string]string{show: msg}})
				run, err := d.Fetch(testContext(t))
				if err == nil {
					t.Fatalf("fetch succeeded on an error answer (%d owned lines read)", len(strings.Split(run.Owned.Text(), "\n")))
				}
				if !errors.Is(err, drivers.ErrRejected) && !strings.Contains(err.Error(), "parsing the running configuration") {
					t.Fatalf("want a rejection, got %v", err)
				}
			})
		}
	}
}

// otherPatch is a second runner's change: another port's MTU.
func otherPatch(pc pendingCase) devcfg.Patch {
	switch pc.personality {
	case sshsim.NXOS:
		return devcfg.Patch{Lines: []string{"interface Ethernet1/3", "mtu 9216", "exit"}}
	case sshsim.EOS:
		return devcfg.Patch{Lines: []string{"interface Ethernet3", "mtu 9214", "exit"}}
	case sshsim.Junos:
		return devcfg.Patch{Lines: []string{"set interfaces et-0/0/3 mtu 9216"}}
	case sshsim.Cumulus:
		return devcfg.Patch{Lines: []string{"nv set interface swp3 link mtu 9216"}}
	}
	return devcfg.Patch{Updates: []devcfg.PathUpdate{{Path: "sonic-db:/PORT/Ethernet12/mtu", Value: devcfg.String("9216")}}}
}

// handEdit is an operator's change to an owned setting.
func handEdit(p sshsim.Personality) []string {
	switch p {
	case sshsim.NXOS:
		return []string{"interface Ethernet1/1", "mtu 9000"}
	case sshsim.EOS:
		return []string{"interface Ethernet1", "mtu 9000"}
	case sshsim.Junos:
		return []string{"set interfaces et-0/0/1 mtu 9000"}
	case sshsim.Cumulus:
		return []string{"nv set interface swp1 link mtu 9000"}
	}
	return []string{"SET /PORT/Ethernet0/mtu 9000"}
}

var _ = ssh.Transport

// TestNXOSFetchAtFullWidth: the driver reads NX-OS's running
// configuration with the terminal at its widest (`terminal width 511`, as
// scrapligo's cisco_nxos platform sends on open) and paging off, so a
// long line arrives whole rather than wrapped into a line and a stray
// remainder.
func TestNXOSFetchAtFullWidth(t *testing.T) {
	desired, e := basic(t, "leaf-nxos")
	sim, kh := startReal(t, sshsim.NXOS, "leaf-nxos")
	long := "description " + strings.Repeat("gpu-rack-07-", 8) + "end"
	if err := sim.HandChange("interface Ethernet1/1", long); err != nil {
		t.Fatal(err)
	}
	d := openReal(t, sim, kh, e, desired.Owned)
	run, err := d.Fetch(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(run.Config.Text(), long) {
		t.Fatalf("the long line was wrapped:\n%s", run.Config.Text())
	}
	var width, length, show int
	for i, l := range sim.Received() {
		switch l {
		case "terminal width 511":
			width = i + 1
		case "terminal length 0":
			length = i + 1
		case "show running-config":
			show = i + 1
		}
	}
	if width == 0 || length == 0 || show == 0 || width > show || length > show {
		t.Fatalf("terminal width 511 and length 0 must come before show running-config: %q", sim.Received())
	}
}
