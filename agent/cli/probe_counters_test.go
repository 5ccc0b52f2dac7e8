package cli

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/spf13/viper"
	"go.uber.org/zap"

	"github.com/rocefab/rocefab/agent/engine/enginetest"
	driversall "github.com/rocefab/rocefab/drivers/all"
	"github.com/rocefab/rocefab/drivers/sim/sshsim"
	"github.com/rocefab/rocefab/internal/secret"
	"github.com/rocefab/rocefab/renderers/all"
	"github.com/rocefab/rocefab/validators/doctor/counters"
)

// testApp is the app a command runs with, with the flags' defaults.
func testApp(t *testing.T) *app {
	t.Helper()
	a := &app{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, v: viper.New(), log: zap.NewNop(),
		renderers: all.Renderers(), drivers: driversall.Drivers(), secrets: &secret.Redactor{}}
	for k, v := range map[string]any{"intent-max-file-size": "8MiB", "intent-max-size": "64MiB", "intent-max-devices": 1000,
		"intent-max-ports": 100000, "timeout": 10 * time.Second, "retries": 0, "parallelism": 4, "state-dir": t.TempDir()} {
		a.v.Set(k, v)
	}
	return a
}

// TestProbeReadsSSHSwitchCounters: on switches driven over SSH the probe
// reads the lossless priority's PFC, watchdog, drop and ECN counters with
// the platform's JSON show commands, and says what moved during the run.
func TestProbeReadsSSHSwitchCounters(t *testing.T) {
	c := newSimCLI(t, []enginetest.Spec{{Name: "leaf-nxos", Kind: enginetest.NXOS}, {Name: "leaf-eos", Kind: enginetest.EOS},
		{Name: "leaf-junos", Kind: enginetest.Junos}, {Name: "leaf-cumulus", Kind: enginetest.Cumulus}, {Name: "leaf-sonic", Kind: enginetest.SONiCSSH}})
	a := testApp(t)
	res, err := a.loadIntent([]string{c.intent})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	sampler, closeAll, notes := a.switchCounters(ctx, res, &deviceFlags{})
	defer closeAll()
	if sampler == nil || len(sampler.Sources) != 4 {
		t.Fatalf("sources %v, notes %v", sampler, notes)
	}
	// SONiC over SSH has no JSON counter commands here: the report says so.
	if len(notes) != 1 || notes[0] != "counters of leaf-sonic not read: rocefab reads sonic switches' counters over gNMI only" {
		t.Errorf("notes %q", notes)
	}
	before, err := sampler.Snapshot(ctx)
	if err != nil || len(before.Errors) > 0 {
		t.Fatalf("snapshot: %v %v", err, before.Errors)
	}
	jumps := map[string]uint64{"leaf-nxos": 1204, "leaf-eos": 77, "leaf-junos": 3000, "leaf-cumulus": 15}
	for name, n := range jumps {
		sw := c.fleet.Switch(name)
		port := enginetest.Ports(sw.Platform, 2)[1]
		sw.SSH.Jump(port, 3, sshsim.PFCRxFrames, n)
		sw.SSH.Jump(port, 3, sshsim.PFCTxFrames, 5)
		sw.SSH.Jump(port, 3, sshsim.QueueDrops, 2)
		// Priority 4 is not lossless in the intent: not read.
		sw.SSH.Jump(port, 4, sshsim.PFCRxFrames, 999)
	}
	c.fleet.Switch("leaf-eos").SSH.Jump("Ethernet2", 3, sshsim.WatchdogStorms, 1)
	c.fleet.Switch("leaf-nxos").SSH.Jump("Ethernet1/2", 3, sshsim.WatchdogStorms, 2)
	c.fleet.Switch("leaf-cumulus").SSH.Jump("swp2", 3, sshsim.ECNMarked, 35000)
	after, err := sampler.Snapshot(ctx)
	if err != nil || len(after.Errors) > 0 {
		t.Fatalf("snapshot: %v %v", err, after.Errors)
	}
	msgs := counters.Diff(before, after).Messages("during the probe")
	text := strings.Join(msgs, "\n")
	for _, want := range []string{
		"priority 3 pause frames received rose by 1,204 on leaf-nxos Ethernet1/2 during the probe",
		"priority 3 pause frames received rose by 77 on leaf-eos Ethernet2 during the probe",
		"priority 3 pause frames received rose by 3,000 on leaf-junos et-0/0/1 during the probe",
		"priority 3 pause frames received rose by 15 on leaf-cumulus swp2 during the probe",
		"priority 3 pause frames sent rose by 5 on leaf-junos et-0/0/1 during the probe",
		"queue 3 dropped packets rose by 2 on leaf-eos Ethernet2 during the probe",
		"queue 3 dropped packets rose by 2 on leaf-junos et-0/0/1 during the probe",
		"priority 3 PFC watchdog storms rose by 1 on leaf-eos Ethernet2 during the probe",
		"priority 3 PFC watchdog storms rose by 2 on leaf-nxos Ethernet1/2 during the probe",
		"queue 3 ECN-marked packets rose by 35,000 on leaf-cumulus swp2 during the probe",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in:\n%s", want, text)
		}
	}
	if strings.Contains(text, "priority 4") || strings.Contains(text, "Ethernet1/1 ") {
		t.Errorf("a counter outside the lossless priorities or an unmoved port is reported:\n%s", text)
	}
	if len(msgs) != 4*3+2+1 {
		t.Errorf("%d messages, want 15:\n%s", len(msgs), text)
	}
}
