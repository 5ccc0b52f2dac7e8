package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/drivers/hostcontract"
	"github.com/rocefab/rocefab/validators/doctor"
	"github.com/rocefab/rocefab/validators/doctor/sysfstest"
)

func runDoctor(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"doctor"}, args...), strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// On this machine (and any CI runner) there is no RDMA device: doctor must
// fail with exit 1 and say so, in JSON, without crashing.
func TestDoctorThisMachineNoRDMA(t *testing.T) {
	if _, err := os.Stat("/sys/class/infiniband"); err == nil {
		t.Skip("this machine has RDMA devices")
	}
	code, out, stderr := runDoctor(t, "", "--output", "json")
	if code != ExitFailure {
		t.Fatalf("exit %d, want 1; stderr: %s", code, stderr)
	}
	var rep doctor.Report
	if err := hostcontract.Decode([]byte(out), hostcontract.KindDoctor, &rep); err != nil {
		t.Fatalf("output is not a doctor answer: %v\n%s", err, out)
	}
	if rep.Verdict != doctor.Fail {
		t.Errorf("verdict %s", rep.Verdict)
	}
	found := false
	for _, c := range rep.Checks {
		found = found || (c.Check == doctor.CheckDevices && c.Message == "no RDMA devices found" && c.Status == doctor.Fail)
	}
	if !found {
		t.Errorf("no failed %q result saying no RDMA devices found:\n%s", doctor.CheckDevices, out)
	}
}

func TestDoctorFakeTree(t *testing.T) {
	t.Run("no devices", func(t *testing.T) {
		tr := sysfstest.New(t)
		code, out, _ := runDoctor(t, "", "--sysfs-root", tr.Root, "--host", "bare")
		if code != ExitFailure || !strings.Contains(out, "FAIL  rdma.devices     no RDMA devices found") {
			t.Fatalf("exit %d:\n%s", code, out)
		}
	})
	t.Run("healthy host", func(t *testing.T) {
		tr := sysfstest.New(t)
		tr.AddNIC(sysfstest.ConnectX("mlx5_0", "ens1f0np0", "10.0.1.11"))
		tr.AddModules(sysfstest.Modules...)
		code, out, stderr := runDoctor(t, "", "--sysfs-root", tr.Root, "--host", "host1", "-o", "json")
		// Tools and pause depend on this machine (no perftest, no such
		// netdev): warnings at most, never a failure.
		if code != ExitOK {
			t.Fatalf("exit %d; stderr %s\n%s", code, stderr, out)
		}
		var rep doctor.Report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		if rep.Host != "host1" || rep.Kind != hostcontract.KindDoctor || rep.Summary.Fail != 0 {
			t.Errorf("report %+v", rep)
		}
	})
	t.Run("port down with intent from stdin", func(t *testing.T) {
		tr := sysfstest.New(t)
		nic := sysfstest.ConnectX("mlx5_0", "ens1f0np0", "10.0.1.11")
		nic.State = "1: DOWN"
		tr.AddNIC(nic)
		tr.AddModules(sysfstest.Modules...)
		code, out, stderr := runDoctor(t, doctorFabric, "--sysfs-root", tr.Root, "--intent", "-", "--host", "gpu01")
		if code != ExitFailure {
			t.Fatalf("exit %d; stderr %s\n%s", code, stderr, out)
		}
		if !strings.Contains(out, "port is DOWN") {
			t.Errorf("output:\n%s", out)
		}
	})
}

func TestDoctorUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--output", "yaml"},
		{"--all"},
		{"--all", "--host", "h", "--intent", "x"},
		{"extra-arg"},
	} {
		if code, _, stderr := runDoctor(t, "", args...); code != ExitUsage {
			t.Errorf("doctor %q: exit %d, want 64 (%s)", args, code, stderr)
		}
	}
	code, _, stderr := runDoctor(t, doctorFabric, "--intent", "-", "--host", "no-such-host")
	if code != ExitUsage || !strings.Contains(stderr, `--host "no-such-host": no such host in the intent`) {
		t.Errorf("unknown host: exit %d: %s", code, stderr)
	}
}

// doctorFabric is a small intent with two hosts.
const doctorFabric = `apiVersion: rocefab.io/v1alpha1
kind: Fabric
metadata: {name: lab}
spec:
  switches:
    - name: leaf1
      platform: nxos
      transport: ssh
      address: 192.0.2.11
      credentials: {username: rocefab, passwordEnv: ROCEFAB_SWITCH_PASSWORD}
      ports:
        - names: Ethernet1/1-2
  hosts:
    - name: gpu01
      address: 192.0.2.101
      nics:
        - {netdev: ens1f0np0, rdmaDevice: mlx5_0, address: 10.0.1.11}
    - name: gpu02
      address: 192.0.2.102
      nics:
        - {netdev: ens1f0np0, rdmaDevice: mlx5_0, address: 10.0.1.12}
  links:
    - {a: gpu01:ens1f0np0, b: leaf1:Ethernet1/1}
    - {a: gpu02:ens1f0np0, b: leaf1:Ethernet1/2}
`

func TestDoctorIntentHostGPU01(t *testing.T) {
	tr := sysfstest.New(t)
	tr.AddNIC(sysfstest.ConnectX("mlx5_0", "ens1f0np0", "10.0.1.11"))
	tr.AddModules(sysfstest.Modules...)
	code, out, stderr := runDoctor(t, doctorFabric, "--sysfs-root", tr.Root, "--intent", "-", "--host", "gpu01")
	if code != ExitOK || !strings.Contains(out, "RoCE v2 GID index 3 carries 10.0.1.11") {
		t.Fatalf("exit %d; stderr %s\n%s", code, stderr, out)
	}
	// gpu02's address is not on this port: a failed GID check.
	code, out, _ = runDoctor(t, doctorFabric, "--sysfs-root", tr.Root, "--intent", "-", "--host", "gpu02")
	if code != ExitFailure || !strings.Contains(out, "no RoCE v2 GID for 10.0.1.12") {
		t.Fatalf("exit %d\n%s", code, out)
	}
}

// TestDoctorCabling: --cabling reads the host's LLDP neighbours with
// lldpcli (here a stand-in on PATH printing lldpd's JSON) and passes a NIC
// cabled as the intent says, fails one cabled elsewhere naming both ends,
// and warns, with the fix, where lldpcli cannot run.
func TestDoctorCabling(t *testing.T) {
	tr := sysfstest.New(t)
	tr.AddNIC(sysfstest.ConnectX("mlx5_0", "ens1f0np0", "10.0.1.11"))
	tr.AddModules(sysfstest.Modules...)
	bin := t.TempDir()
	fake := func(leafPort string) {
		t.Helper()
		js := `{"lldp":{"interface":{"ens1f0np0":{"via":"LLDP","chassis":{"leaf1":{"id":{"type":"mac","value":"02:00:00:00:00:01"}}},` +
			`"port":{"id":{"type":"ifname","value":"` + leafPort + `"},"ttl":"120"}}}}}`
		script := "#!/bin/sh\ncat <<'EOF'\n" + js + "\nEOF\n"
		if err := os.WriteFile(filepath.Join(bin, "lldpcli"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+":/usr/bin:/bin")
	cases := []struct {
		name, leafPort string
		code           int
		status         doctor.Status
		msg            string
	}{
		{"cabled as written", "Ethernet1/1", ExitOK, doctor.Pass, "cabled to leaf1 Ethernet1/1, as the intent says"},
		{"cabled to gpu02's port", "Ethernet1/2", ExitFailure, doctor.Fail, "gpu01 ens1f0np0 reaches leaf1 Ethernet1/2; the intent says leaf1 Ethernet1/1"},
		{"no lldpcli", "", ExitOK, doctor.Warn, "cabling not checked: lldpcli -f json show neighbors: "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.leafPort == "" {
				_ = os.Remove(filepath.Join(bin, "lldpcli"))
			} else {
				fake(tc.leafPort)
			}
			code, out, stderr := runDoctor(t, doctorFabric, "--sysfs-root", tr.Root, "--intent", "-", "--host", "gpu01", "--cabling", "-o", "json")
			var rep doctor.Report
			if err := hostcontract.Decode([]byte(out), hostcontract.KindDoctor, &rep); err != nil {
				t.Fatalf("exit %d: %v\n%s\n%s", code, err, out, stderr)
			}
			got := rep.Find(doctor.CheckCabling)
			if code != tc.code || len(got) != 1 || got[0].Status != tc.status || !strings.HasPrefix(got[0].Message, tc.msg) {
				t.Errorf("exit %d, %s results %+v; want exit %d, one %s saying %q", code, doctor.CheckCabling, got, tc.code, tc.status, tc.msg)
			}
		})
	}
	code, _, stderr := runDoctor(t, "", "--cabling")
	if code != ExitUsage || !strings.Contains(stderr, "--cabling needs --intent") {
		t.Errorf("--cabling without --intent: exit %d\n%s", code, stderr)
	}
}
