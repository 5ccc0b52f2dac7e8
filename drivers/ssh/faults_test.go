package ssh_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/sim/sshsim"
)

// faultCase is one platform with lines of its examples/basic push to break.
type faultCase struct {
	switchName  string
	personality sshsim.Personality
	reject      string // a line of the push the device refuses
	wantLine    string // what the error names as the rejected line
	wantMsg     string // the device's own message, as the error carries it
	drop        string // the connection drops after this line took effect
}

var faultCases = []faultCase{
	{"leaf-nxos", sshsim.NXOS, "pause pfc-cos 3", "pause pfc-cos 3", "% Invalid command at '^' marker.", "interface Ethernet1/20"},
	{"leaf-eos", sshsim.EOS, "service-profile ROCEFAB", "service-profile ROCEFAB", "% Invalid input", "interface Ethernet20"},
	{"leaf-junos", sshsim.Junos, "et-0/0/5 scheduler-map", "set class-of-service interfaces et-0/0/5 scheduler-map", "syntax error.", "set interfaces et-0/0/20 mtu"},
	{"leaf-cumulus", sshsim.Cumulus, "swp5 link mtu", "nv set interface swp5 link mtu 9216", "Error: Invalid command", "nv set interface swp20 link mtu"},
	{"leaf-sonic", sshsim.SONiC, "/PORT/Ethernet8/mtu", "replace /PORT/Ethernet8/mtu", "Data Loading Failed", "base64 -d"},
}

// basicPush connects to a fresh simulator and plans the examples/basic
// change for it.
func basicPush(t *testing.T, fc faultCase) (*sshsim.Sim, drivers.Driver, devcfg.Patch) {
	t.Helper()
	desired, e := basic(t, fc.switchName)
	sim, kh := startReal(t, fc.personality, fc.switchName)
	d := openReal(t, sim, kh, e, desired.Owned)
	run, err := d.Fetch(testContext(t))
	if err != nil {
		t.Fatal(err)
	}
	syn := e.Attrs.Platform.Syntax
	return sim, d, devcfg.BuildPatch(devcfg.Diff(desired, run.Owned, syn, nil), syn)
}

func testContext(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestRejectedLineLeavesDeviceUntouched: the device refuses one line in the
// middle of the push; the push fails naming the device, the line and the
// device's message, and the running configuration is byte-identical to
// before.
func TestRejectedLineLeavesDeviceUntouched(t *testing.T) {
	for _, fc := range faultCases {
		t.Run(fc.switchName, func(t *testing.T) {
			sim, d, patch := basicPush(t, fc)
			before := sim.Config()
			sim.SetFaults(sshsim.Faults{RejectLine: fc.reject})
			_, err := d.Push(testContext(t), patch, drivers.PushOptions{})
			if err == nil {
				t.Fatal("push succeeded although the device rejected a line")
			}
			if !errors.Is(err, drivers.ErrRejected) {
				t.Fatalf("error is not ErrRejected: %v", err)
			}
			var de *drivers.DeviceError
			if !errors.As(err, &de) {
				t.Fatalf("error is not a DeviceError: %v", err)
			}
			if de.Device != "dut" || !strings.Contains(de.Line, fc.wantLine) || !strings.Contains(de.Msg, fc.wantMsg) {
				t.Fatalf("error does not name device, line and message: device=%q line=%q msg=%q", de.Device, de.Line, de.Msg)
			}
			for _, want := range []string{"dut", fc.wantLine, fc.wantMsg} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error text lacks %q: %v", want, err)
				}
			}
			if after := sim.Config(); after != before {
				t.Fatalf("running config changed by a rejected push:\n%s", lineDiff(before, after))
			}
			if cps := sim.Checkpoints(); len(cps) != 0 {
				t.Errorf("checkpoints left behind: %v", cps)
			}
		})
	}
}

// TestDroppedConnectionLeavesDeviceUntouched: the connection dies right
// after a line took effect; the driver reconnects and undoes what the device
// had applied (NX-OS, SONiC) or discards what it had staged (EOS, Junos,
// NVUE), so the configuration is byte-identical to before.
func TestDroppedConnectionLeavesDeviceUntouched(t *testing.T) {
	for _, fc := range faultCases {
		t.Run(fc.switchName, func(t *testing.T) {
			sim, d, patch := basicPush(t, fc)
			before := sim.Config()
			sessions := sim.Sessions()
			sim.SetFaults(sshsim.Faults{DropOnLine: fc.drop})
			_, err := d.Push(testContext(t), patch, drivers.PushOptions{})
			if err == nil {
				t.Fatal("push succeeded although the connection dropped")
			}
			if !errors.Is(err, drivers.ErrUnreachable) {
				t.Fatalf("error is not ErrUnreachable: %v", err)
			}
			if !strings.Contains(err.Error(), "dut") || !strings.Contains(err.Error(), fc.drop) {
				t.Errorf("error does not name the device and the line: %v", err)
			}
			if after := sim.Config(); after != before {
				t.Fatalf("running config differs after a dropped push:\n%s", lineDiff(before, after))
			}
			if cps := sim.Checkpoints(); len(cps) != 0 {
				t.Errorf("checkpoints left behind: %v", cps)
			}
			if fc.personality == sshsim.NXOS || fc.personality == sshsim.SONiC {
				if sim.Sessions() <= sessions {
					t.Error("the driver did not reconnect to restore the checkpoint")
				}
			}
			// The driver is usable again.
			if _, err := d.Fetch(testContext(t)); err != nil {
				t.Fatalf("fetch after the drop: %v", err)
			}
		})
	}
}

// TestCommitFailureLeavesDeviceUntouched: the device accepts every line but
// refuses the commit.
func TestCommitFailureLeavesDeviceUntouched(t *testing.T) {
	for _, fc := range faultCases {
		if fc.personality == sshsim.NXOS {
			continue // NX-OS has no commit step
		}
		t.Run(fc.switchName, func(t *testing.T) {
			sim, d, patch := basicPush(t, fc)
			before := sim.Config()
			sim.SetFaults(sshsim.Faults{CommitError: "hardware programming failed for queue 3"})
			_, err := d.Push(testContext(t), patch, drivers.PushOptions{})
			if !errors.Is(err, drivers.ErrRejected) || !strings.Contains(err.Error(), "hardware programming failed") {
				t.Fatalf("want a rejection carrying the device's message, got %v", err)
			}
			if after := sim.Config(); after != before {
				t.Fatalf("running config changed by a failed commit:\n%s", lineDiff(before, after))
			}
		})
	}
}

// TestUnlistedPercentMessageIsRejection: in configuration mode NX-OS and
// EOS mark every refusal with "% "; a message outside the platform's error
// list still fails the push, naming the device, the line and the message,
// and the device keeps its configuration.
func TestUnlistedPercentMessageIsRejection(t *testing.T) {
	const msg = "% PFC priority 3 is reserved for lossless traffic on this module"
	for _, fc := range faultCases {
		if fc.personality != sshsim.NXOS && fc.personality != sshsim.EOS {
			continue
		}
		t.Run(fc.switchName, func(t *testing.T) {
			sim, d, patch := basicPush(t, fc)
			before := sim.Config()
			sim.SetFaults(sshsim.Faults{RejectLine: fc.reject, RejectMessage: msg})
			_, err := d.Push(testContext(t), patch, drivers.PushOptions{})
			if !errors.Is(err, drivers.ErrRejected) {
				t.Fatalf("want ErrRejected for an unlisted %% message, got %v", err)
			}
			var de *drivers.DeviceError
			if !errors.As(err, &de) {
				t.Fatalf("error is not a DeviceError: %v", err)
			}
			if de.Device != "dut" || !strings.Contains(de.Line, fc.wantLine) || de.Msg != msg {
				t.Fatalf("error does not name device, line and message: device=%q line=%q msg=%q", de.Device, de.Line, de.Msg)
			}
			if after := sim.Config(); after != before {
				t.Fatalf("running config changed by a rejected push:\n%s", lineDiff(before, after))
			}
			if cps := sim.Checkpoints(); len(cps) != 0 {
				t.Errorf("checkpoints left behind: %v", cps)
			}
		})
	}
}
