package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rocefab/rocefab/drivers/hostcontract"
	"github.com/rocefab/rocefab/internal/netnstest"
)

// labIntent writes an intent whose host lab-h1 lives in namespace ns. No
// host carries an address, so none can match the machine running the test
// (which would make `host apply` without --host change the machine itself).
func labIntent(t *testing.T, ns string) string {
	t.Helper()
	y := `apiVersion: rocefab.io/v1alpha1
kind: Fabric
metadata:
  name: lab
spec:
  lossless:
    mtu: {switch: 9000, host: 9000}
  switches:
    - name: leaf1
      platform: linux
      transport: netlink
      netns: leaf1
      ports:
        - {names: swp1, mode: routed}
  hosts:
    - name: lab-h1
      netns: ` + ns + `
      nics:
        - {netdev: eth0, rdmaDevice: mlx5_0}
    - name: lab-h2
      netns: rocefab-test-no-such-ns
      nics:
        - {netdev: eth0, rdmaDevice: mlx5_0}
  links:
    - {a: lab-h1:eth0, b: leaf1:swp1}
    - {a: lab-h2:eth0, b: leaf1:swp2}
`
	y = strings.Replace(y, "{names: swp1, mode: routed}", "{names: swp1-2, mode: routed}", 1)
	p := filepath.Join(t.TempDir(), "lab.yaml")
	if err := os.WriteFile(p, []byte(y), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func labHost(t *testing.T) *netnstest.NS {
	t.Helper()
	h := netnstest.New(t, "h")
	netnstest.Veth(t, h, "eth0", netnstest.New(t, "p"), "eth0", 1500)
	return h
}

func mtu(t *testing.T, ns *netnstest.NS) string {
	t.Helper()
	// ip, not cat: the test command needs only Go, git and iproute2.
	f := strings.Fields(ns.Run("ip", "-o", "link", "show", "eth0"))
	for i := 0; i+1 < len(f); i++ {
		if f[i] == "mtu" {
			return f[i+1]
		}
	}
	t.Fatalf("no mtu in ip link show eth0: %q", f)
	return ""
}

func TestHostPlanApply(t *testing.T) {
	ns := labHost(t)
	file := labIntent(t, ns.Name)
	cfgRoot := t.TempDir()
	common := []string{"--intent", file, "--host", "lab-h1", "--configfs-root", cfgRoot}

	code, out, errOut := runCLI(t, "", append([]string{"host", "plan", "--detailed-exitcode", "-o", "json"}, common...)...)
	if code != ExitChanges {
		t.Fatalf("plan exit %d, want 2 (changes pending)\n%s\n%s", code, out, errOut)
	}
	rep, err := hostcontract.DecodeHostReport([]byte(out), hostcontract.KindHostPlan)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.Host != "lab-h1" || rep.Summary.Pending != 1 || rep.Summary.Unsupported == 0 {
		t.Errorf("plan summary %+v", rep.Summary)
	}
	if mtu(t, ns) != "1500" {
		t.Fatal("plan changed the MTU")
	}

	code, out, errOut = runCLI(t, "", append([]string{"host", "apply"}, common...)...)
	if code != ExitOK {
		t.Fatalf("apply exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"host lab-h1: apply", "changed", "MTU", "1500 -> 9000", "unsupported on this device",
		"PFC enable", "NCCL_IB_TC=106", "UCX_IB_TRAFFIC_CLASS=106", "1 changed"} {
		if !strings.Contains(out, want) {
			t.Errorf("apply output lacks %q:\n%s", want, out)
		}
	}
	if mtu(t, ns) != "9000" {
		t.Error("apply did not set the MTU in the host's namespace")
	}

	code, out, _ = runCLI(t, "", append([]string{"host", "plan", "--detailed-exitcode"}, common...)...)
	if code != ExitOK || !strings.Contains(out, "0 pending") {
		t.Errorf("plan after apply: exit %d\n%s", code, out)
	}
	code, _, _ = runCLI(t, "", append([]string{"host", "plan", "--strict"}, common...)...)
	if code != ExitFailure {
		t.Errorf("--strict with unsupported settings: exit %d, want 1", code)
	}

	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCLI(t, string(data), "host", "apply", "--intent", "-", "--host", "lab-h1", "--configfs-root", cfgRoot, "-o", "json")
	if code != ExitOK {
		t.Fatalf("apply from stdin: exit %d\n%s", code, out)
	}
	if rep, err := hostcontract.DecodeHostReport([]byte(out), hostcontract.KindHostApply); err != nil || rep.Summary.Changed != 0 {
		t.Errorf("second apply: %+v, %v", rep, err)
	}
}

func TestHostUsageAndFailures(t *testing.T) {
	netnstest.Require(t)
	file := labIntent(t, "rocefab-missing-ns")
	tests := []struct {
		name  string
		stdin string
		args  []string
		code  int
		text  string
	}{
		{"no intent", "", []string{"host", "plan"}, ExitUsage, "missing intent"},
		{"unknown host", "", []string{"host", "plan", file, "--host", "gpu99"}, ExitUsage, `--host "gpu99": no such host in the intent (known: lab-h1, lab-h2)`},
		{"no matching host", "", []string{"host", "apply", file}, ExitUsage, "matches no host in the intent by name or address; pass --host NAME (hosts: lab-h1, lab-h2)"},
		{"bad watch", "", []string{"host", "apply", file, "--host", "lab-h1", "--watch", "10ms"}, ExitUsage, "--watch 10ms"},
		{"bad output", "", []string{"host", "plan", file, "--host", "lab-h1", "-o", "yaml"}, ExitUsage, "--output"},
		{"missing namespace", "", []string{"host", "plan", file, "--host", "lab-h1"}, ExitFailure, "network namespace rocefab-missing-ns"},
		{"invalid intent", "kind: Fabric\n", []string{"host", "plan", "--intent", "-", "--host", "lab-h1", "-o", "json"}, ExitFailure, "the intent is invalid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, tt.stdin, tt.args...)
			if code != tt.code || !strings.Contains(errOut+out, tt.text) {
				t.Errorf("exit %d, want %d; want %q in\n%s%s", code, tt.code, tt.text, out, errOut)
			}
		})
	}
	// A JSON caller still gets an answer it can decode.
	_, out, _ := runCLI(t, "kind: Fabric\n", "host", "plan", "--intent", "-", "--host", "lab-h1", "-o", "json")
	rep, err := hostcontract.DecodeHostReport([]byte(out), hostcontract.KindHostPlan)
	if err != nil || !strings.Contains(rep.Error, "the intent is invalid") || !rep.Failed() {
		t.Errorf("json failure answer: %+v, %v\n%s", rep, err, out)
	}
}

// syncBuffer is a bytes.Buffer safe for the watch goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestHostApplyWatchReasserts(t *testing.T) {
	ns := labHost(t)
	file := labIntent(t, ns.Name)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut syncBuffer
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"host", "apply", file, "--host", "lab-h1", "--configfs-root", t.TempDir(), "--watch", "1s"},
			strings.NewReader(""), &out, &errOut)
	}()
	waitFor := func(want string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for mtu(t, ns) != want {
			if time.Now().After(deadline) {
				t.Fatalf("MTU never became %s\n%s\n%s", want, out.String(), errOut.String())
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	waitFor("9000")
	// A driver reload resets the NIC; watch must put the setting back.
	ns.Run("ip", "link", "set", "eth0", "mtu", "1500")
	waitFor("9000")
	cancel()
	select {
	case code := <-done:
		if code != ExitOK {
			t.Errorf("watch exit %d on cancel, want 0\n%s", code, errOut.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("watch did not stop on cancel")
	}
	if n := strings.Count(out.String(), "host lab-h1: apply"); n < 2 {
		t.Errorf("want the first report and the re-assert report, got %d:\n%s", n, out.String())
	}
}
