package doctor_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/drivers/hostcontract"
	"github.com/rocefab/rocefab/internal/golden"
	"github.com/rocefab/rocefab/validators/doctor"
	"github.com/rocefab/rocefab/validators/doctor/counters"
	"github.com/rocefab/rocefab/validators/doctor/rdmasys"
	"github.com/rocefab/rocefab/validators/doctor/sysfstest"
)

type fakePause struct {
	p   counters.Pause
	err error
}

func (f fakePause) Pause(string) (counters.Pause, error) { return f.p, f.err }

func allTools(string) (string, error) { return "/usr/bin/x", nil }

// host is a healthy ConnectX host with one intent NIC.
type host struct {
	tree   *sysfstest.Tree
	nic    sysfstest.NIC
	target doctor.Target
	pause  doctor.PauseReader
	look   func(string) (string, error)
	mods   []string
}

func healthy(t *testing.T) *host {
	return &host{
		tree: sysfstest.New(t),
		nic:  sysfstest.ConnectX("mlx5_0", "ens1f0np0", "10.0.1.11"),
		target: doctor.Target{Host: "host1",
			NICs:   []doctor.NIC{{Netdev: "ens1f0np0", Address: "10.0.1.11"}},
			Expect: doctor.Expect{FromIntent: true, HostMTU: 9000, PFC: true, PFCPrios: []int{3}, RoCEMode: "v2", RoCEToS: 106}},
		pause: fakePause{},
		look:  allTools,
		mods:  sysfstest.Modules,
	}
}

func (h *host) run(t *testing.T) *doctor.Report {
	t.Helper()
	h.tree.AddNIC(h.nic)
	h.tree.AddModules(h.mods...)
	d := &doctor.Doctor{Sys: rdmasys.New(h.tree.Root), Pause: h.pause, LookPath: h.look}
	return d.Run(context.Background(), h.target)
}

func TestHealthyConnectXPassesEveryCheck(t *testing.T) {
	r := healthy(t).run(t)
	if r.Verdict != doctor.Pass || r.Summary.Warn != 0 || r.Summary.Fail != 0 {
		var buf bytes.Buffer
		_ = r.WriteText(&buf)
		t.Fatalf("verdict %s:\n%s", r.Verdict, buf.String())
	}
	for _, check := range []string{doctor.CheckDevices, doctor.CheckPortState, doctor.CheckGID, doctor.CheckMTU,
		doctor.CheckRoCEMTU, doctor.CheckPause, doctor.CheckNUMA, doctor.CheckPCIe, doctor.CheckModules, doctor.CheckTools} {
		if len(r.Find(check)) == 0 {
			t.Errorf("check %s did not run", check)
		}
	}
	if got := r.Find(doctor.CheckGID)[0].Message; got != "RoCE v2 GID index 3 carries 10.0.1.11 on ens1f0np0" {
		t.Errorf("GID message = %q", got)
	}
}

func TestFaults(t *testing.T) {
	two := 1
	for _, tc := range []struct {
		name   string
		setup  func(h *host)
		check  string
		status doctor.Status
		msg    string // substring of the message
		fix    string // substring of the fix
	}{
		{
			name: "RoCE v1 only",
			setup: func(h *host) {
				var v1 []sysfstest.GID
				for _, g := range h.nic.GIDs {
					if g.Type == rdmasys.TypeRoCEv1 {
						v1 = append(v1, g)
					}
				}
				h.nic.GIDs = v1
			},
			check: doctor.CheckGID, status: doctor.Fail,
			msg: "offers only RoCE v1", fix: "cma_roce_mode -d mlx5_0 -p 1 -m 2",
		},
		{
			name:  "no RoCE v2 GID for the IP",
			setup: func(h *host) { h.target.NICs[0].Address = "10.0.1.99" },
			check: doctor.CheckGID, status: doctor.Fail,
			msg: "no RoCE v2 GID for 10.0.1.99", fix: "ip addr add 10.0.1.99/<len> dev ens1f0np0",
		},
		{
			name: "IP only as a v1 GID",
			setup: func(h *host) {
				h.nic.GIDs = append(h.nic.GIDs, sysfstest.GID{Index: 4, GID: sysfstest.SysfsGID("10.0.1.50"), Type: rdmasys.TypeRoCEv1, Netdev: "ens1f0np0"})
				h.target.NICs[0].Address = "10.0.1.50"
			},
			check: doctor.CheckGID, status: doctor.Fail, msg: "only a IB/RoCE v1 GID (index 4)", fix: "ip addr add",
		},
		{
			name:  "port DOWN",
			setup: func(h *host) { h.nic.State, h.nic.PhysState = "1: DOWN", "3: Disabled" },
			check: doctor.CheckPortState, status: doctor.Fail,
			msg: "port is DOWN (physical state Disabled)", fix: "ip link set dev ens1f0np0 up",
		},
		{
			name:  "downgraded PCIe link",
			setup: func(h *host) { h.nic.CurSpeed, h.nic.CurWidth = "8.0 GT/s PCIe", 8 },
			check: doctor.CheckPCIe, status: doctor.Warn,
			msg: "PCIe link runs x8 at 8.0 GT/s, the NIC supports x16 at 16.0 GT/s", fix: "full-width slot",
		},
		{
			name:  "wrong NUMA node",
			setup: func(h *host) { h.nic.NUMANode = 0; h.target.Expect.NUMANode = &two },
			check: doctor.CheckNUMA, status: doctor.Warn,
			msg: "NIC is on NUMA node 0, the workload is expected on node 1", fix: "numactl --cpunodebind=0 --membind=0",
		},
		{
			name:  "MTU below intent",
			setup: func(h *host) { h.nic.MTU = 1500 },
			check: doctor.CheckMTU, status: doctor.Fail,
			msg: "MTU 1500 on ens1f0np0 is below 9000, which the intent asks for", fix: "ip link set dev ens1f0np0 mtu 9000",
		},
		{
			name:  "MTU below 4200",
			setup: func(h *host) { h.nic.MTU = 4000; h.target.Expect.HostMTU = 4000 },
			check: doctor.CheckRoCEMTU, status: doctor.Warn,
			msg: "IP MTU 4000 gives RoCE only a 2048-byte MTU; 4096 needs an IP MTU of at least 4192 (about 4200)", fix: "mtu 9000",
		},
		{
			name:  "MTU above intent",
			setup: func(h *host) { h.nic.MTU = 9216 },
			check: doctor.CheckMTU, status: doctor.Warn, msg: "MTU 9216 on ens1f0np0 is above 9000", fix: "mtu 9000",
		},
		{
			name:  "active MTU lags",
			setup: func(h *host) { h.nic.ActiveMTU = 1024 },
			check: doctor.CheckRoCEMTU, status: doctor.Warn, msg: "RoCE active MTU is 1024 though IP MTU 9000 allows 4096", fix: "reload",
		},
		{
			name:  "pause on with PFC",
			setup: func(h *host) { h.pause = fakePause{p: counters.Pause{RX: true, TX: true}} },
			check: doctor.CheckPause, status: doctor.Fail,
			msg: "802.3x link pause is on (rx on, tx on) while PFC is on", fix: "ethtool -A ens1f0np0 autoneg off rx off tx off",
		},
		{
			name:  "pause unsupported (veth)",
			setup: func(h *host) { h.pause = fakePause{err: counters.ErrUnsupported} },
			check: doctor.CheckPause, status: doctor.Warn, msg: "unsupported on this device",
		},
		{
			name:  "missing modules",
			setup: func(h *host) { h.mods = []string{"ib_core", "mlx5_core"} },
			check: doctor.CheckModules, status: doctor.Warn,
			msg: "kernel modules not loaded: ib_uverbs, mlx5_ib, rdma_cm, rdma_ucm", fix: "modprobe ib_uverbs mlx5_ib rdma_cm rdma_ucm",
		},
		{
			name: "missing tools",
			setup: func(h *host) {
				h.look = func(name string) (string, error) {
					if name == "rdma" {
						return "/usr/sbin/rdma", nil
					}
					return "", exec.ErrNotFound
				}
			},
			check: doctor.CheckTools, status: doctor.Warn,
			msg: "not in PATH: ibv_devinfo, ib_write_bw, ib_send_lat", fix: "install ibverbs-utils (Debian/Ubuntu) or libibverbs-utils (RHEL), perftest",
		},
		{
			name:  "intent NIC not present",
			setup: func(h *host) { h.target.NICs[0].Netdev = "ens9f0np0" },
			check: doctor.CheckNIC, status: doctor.Fail, msg: "no RDMA port found for ens9f0np0", fix: "rdma link show",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := healthy(t)
			tc.setup(h)
			r := h.run(t)
			res := r.Find(tc.check)
			var hit *doctor.Result
			for i := range res {
				if res[i].Status == tc.status {
					hit = &res[i]
				}
			}
			if hit == nil {
				t.Fatalf("no %s result for %s; got %+v", tc.status, tc.check, res)
			}
			if !strings.Contains(hit.Message, tc.msg) {
				t.Errorf("message %q does not contain %q", hit.Message, tc.msg)
			}
			if !strings.Contains(hit.Fix, tc.fix) {
				t.Errorf("fix %q does not contain %q", hit.Fix, tc.fix)
			}
			if r.Verdict != tc.status {
				t.Errorf("verdict %s, want %s (one fault at a time)", r.Verdict, tc.status)
			}
			if got := r.Failed(); got != (tc.status == doctor.Fail) {
				t.Errorf("Failed() = %v", got)
			}
		})
	}
}

func TestNoRDMADevices(t *testing.T) {
	tr := sysfstest.New(t)
	d := &doctor.Doctor{Sys: rdmasys.New(tr.Root), LookPath: allTools}
	r := d.Run(context.Background(), doctor.DefaultTarget("bare"))
	if !r.Failed() {
		t.Fatal("a host without RDMA devices passed")
	}
	res := r.Find(doctor.CheckDevices)
	if len(res) != 1 || res[0].Message != "no RDMA devices found" || res[0].Fix == "" {
		t.Errorf("devices result = %+v", res)
	}
}

func TestDiscoveryWithoutIntent(t *testing.T) {
	h := healthy(t)
	h.target = doctor.DefaultTarget("host1")
	r := h.run(t)
	if r.Verdict != doctor.Pass {
		var buf bytes.Buffer
		_ = r.WriteText(&buf)
		t.Fatalf("verdict %s:\n%s", r.Verdict, buf.String())
	}
	if got := r.Find(doctor.CheckGID)[0].Message; got != "RoCE v2 GID index 3 (10.0.1.11)" {
		t.Errorf("GID message = %q", got)
	}
	if got := r.Find(doctor.CheckMTU)[0].Message; got != "MTU 9000 on ens1f0np0" {
		t.Errorf("MTU message = %q", got)
	}
}

func TestDiscoveryWithoutIPFails(t *testing.T) {
	h := healthy(t)
	h.nic = sysfstest.ConnectX("mlx5_0", "ens1f0np0", "")
	h.target = doctor.DefaultTarget("host1")
	r := h.run(t)
	res := r.Find(doctor.CheckGID)
	if len(res) != 1 || res[0].Status != doctor.Fail || !strings.Contains(res[0].Message, "no RoCE v2 GID with an IP address") {
		t.Errorf("GID result = %+v", res)
	}
}

func TestReportJSONIsAHostContractAnswer(t *testing.T) {
	h := healthy(t)
	h.nic.State = "1: DOWN"
	r := h.run(t)
	data, err := hostcontract.Encode(r)
	if err != nil {
		t.Fatal(err)
	}
	var back doctor.Report
	if err := hostcontract.Decode(data, hostcontract.KindDoctor, &back); err != nil {
		t.Fatalf("decode: %v\n%s", err, data)
	}
	if back.SchemaVersion != hostcontract.SchemaVersion || back.Host != "host1" || back.Verdict != doctor.Fail {
		t.Errorf("decoded %+v", back.Envelope)
	}
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"schemaVersion", "kind", "host", "verdict", "summary", "checks", "devices"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
}

func TestTextReportGolden(t *testing.T) {
	h := healthy(t)
	h.nic.State, h.nic.PhysState = "1: DOWN", "3: Disabled"
	h.nic.CurSpeed, h.nic.CurWidth = "8.0 GT/s PCIe", 8
	r := h.run(t)
	var buf bytes.Buffer
	if err := r.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "testdata/report-down-pcie.txt", buf.Bytes())
}
