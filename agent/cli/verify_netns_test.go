package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/agent/fleet"
	"github.com/rocefab/rocefab/drivers/netlink"
	"github.com/rocefab/rocefab/internal/netnstest"
	"github.com/rocefab/rocefab/validators/probe"
)

// verifyFabric is host A — a Linux router rocefab manages — host B, with a
// probe responder serving in each host namespace, as `probe serve` would.
func verifyFabric(t *testing.T) (*netnstest.Line, string) {
	t.Helper()
	l := netnstest.NewLine(t, netnstest.LineOptions{})
	intentYAML := fmt.Sprintf(`apiVersion: rocefab.io/v1alpha1
kind: Fabric
metadata: {name: verify}
spec:
  lossless:
    mtu: {switch: max, host: 9000}
  switches:
    - {name: router, platform: linux, transport: netlink, netns: %s, ports: [{names: swp1-2, mode: routed}]}
  hosts:
    - {name: a, netns: %s, nics: [{netdev: eth0, address: 192.0.2.1}]}
    - {name: b, netns: %s, nics: [{netdev: eth0, address: 198.51.100.1}]}
  links:
    - {a: a:eth0, b: router:swp1}
    - {a: b:eth0, b: router:swp2}
  probe: {count: 100, ratePps: 2000}
`, l.Router.Name, l.A.Name, l.B.Name)
	path := filepath.Join(t.TempDir(), "fabric.yaml")
	if err := os.WriteFile(path, []byte(intentYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{}, 2)
	for _, ns := range []*netnstest.NS{l.A, l.B} {
		cfg := probe.DefaultEndpointConfig()
		cfg.RunDir, cfg.Name = fleet.ProbeRunDir(ns.Name), ns.Name
		var ep *probe.Endpoint
		if err := netlink.InNamespace(ns.Name, func() (err error) { ep, err = probe.NewEndpoint(cfg); return err }); err != nil {
			t.Fatal(err)
		}
		go func() { _ = ep.Serve(ctx); _ = ep.Close(); done <- struct{}{} }()
	}
	t.Cleanup(func() {
		cancel()
		<-done
		<-done
		for _, ns := range []*netnstest.NS{l.A, l.B} {
			_ = os.Remove(fleet.ProbeRunDir(ns.Name)) // the control socket's folder, empty by now
		}
	})
	time.Sleep(100 * time.Millisecond) // the control sockets come up
	return l, path
}

func routerMTU(t *testing.T, l *netnstest.Line, port string) string {
	t.Helper()
	out := l.Router.Run("cat", "/sys/class/net/"+port+"/mtu")
	return strings.TrimSpace(out)
}

// TestApplyVerifyConfirmsOnlyWhenTheProbePasses runs apply --verify
// --confirm-timeout against a real router namespace: the change is kept
// when the probe passes, and rolled back when the fabric remarks DSCP.
func TestApplyVerifyConfirmsOnlyWhenTheProbePasses(t *testing.T) {
	netnstest.Require(t)
	for _, tc := range []struct {
		name    string
		fault   string
		code    int
		mtu     string
		outcome engine.Outcome
		reason  string
	}{
		{name: "probe passes: confirmed", code: ExitOK, mtu: "9216", outcome: engine.OutcomeApplied},
		{name: "DSCP remarked: rolled back", fault: "udp dport 4791 ip dscp set cs1", code: ExitFailure, mtu: "9000",
			outcome: engine.OutcomeRolledBack, reason: "dscp_remarked"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, intentPath := verifyFabric(t)
			if tc.fault != "" {
				l.Nft(t, tc.fault)
			}
			state := t.TempDir()
			code, stdout, stderr := runCLI(t, "", "apply", "--auto-approve", "--allow-disruptive", "--verify",
				"--confirm-timeout", "30s", "--state-dir", state, "--output", "json", intentPath)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tc.code, stdout, stderr)
			}
			var rep engine.RunReport
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
				t.Fatalf("run report: %v\n%s", err, stdout)
			}
			var router engine.DeviceRun
			for _, d := range rep.Devices {
				if d.Device == "router" {
					router = d
				}
			}
			if router.Outcome != tc.outcome || !strings.Contains(router.Reason, tc.reason) {
				t.Fatalf("router: %s %q, want %s containing %q", router.Outcome, router.Reason, tc.outcome, tc.reason)
			}
			if rep.Verify == nil || rep.Verify.Passed != (tc.fault == "") {
				t.Fatalf("verify result %+v", rep.Verify)
			}
			for _, port := range []string{"swp1", "swp2"} {
				if got := routerMTU(t, l, port); got != tc.mtu {
					t.Errorf("router %s MTU %s, want %s", port, got, tc.mtu)
				}
			}
		})
	}
}

// TestPlanNamesHostSwitchMismatch: plan reads what each host NIC runs and
// names a NIC that disagrees with the switch port it is cabled to.
func TestPlanNamesHostSwitchMismatch(t *testing.T) {
	netnstest.Require(t)
	l := netnstest.NewLine(t, netnstest.LineOptions{})
	path := filepath.Join(t.TempDir(), "fabric.yaml")
	intentYAML := fmt.Sprintf(`apiVersion: rocefab.io/v1alpha1
kind: Fabric
metadata: {name: mismatch}
spec:
  lossless:
    mtu: {switch: 9000, host: 9000}
  switches:
    - {name: router, platform: linux, transport: netlink, netns: %s, ports: [{names: swp1-2, mode: routed}]}
  hosts:
    - {name: a, netns: %s, nics: [{netdev: eth0, address: 192.0.2.1}]}
    - {name: b, netns: %s, nics: [{netdev: eth0, address: 198.51.100.1}]}
  links:
    - {a: a:eth0, b: router:swp1}
    - {a: b:eth0, b: router:swp2}
`, l.Router.Name, l.A.Name, l.B.Name)
	if err := os.WriteFile(path, []byte(intentYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	l.A.Run("ip", "link", "set", "eth0", "mtu", "9100")
	code, out, stderr := runCLI(t, "", "plan", "--state-dir", t.TempDir(), path)
	if code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	want := "host/switch mismatch: a eth0 MTU 9100 (eth0) exceeds router swp1 MTU 9000"
	if !strings.Contains(out, want) {
		t.Fatalf("plan does not name the mismatch %q:\n%s", want, out)
	}
	if strings.Contains(out, "host/switch mismatch: b ") {
		t.Fatalf("host b agrees with its port:\n%s", out)
	}
}
