package netlink

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/hostcontract"
)

const nic = "ens1f0np0"

func ptr[T any](v T) *T { return &v }

// sysfsOnly is a NIC whose settings all live in sysfs and configfs, so the
// fake trees carry the whole test.
func sysfsOnly() *devcfg.HostSettings {
	return &devcfg.HostSettings{Host: "gpu07", NICs: []devcfg.NICSettings{{
		Netdev: nic, RDMADevice: "mlx5_0", RDMAPort: 1,
		ECNNotificationPoint: []int{3}, ECNReactionPoint: []int{3},
		CNPDSCP: ptr(48), CNPPriority: ptr(6),
		RoCEMode: "RoCE v2", RoCEToS: ptr(106),
	}}}
}

// mlnxSysfs is MLNX_OFED's ECN tree for the NIC, at the driver defaults.
func mlnxSysfs() map[string]string {
	base := "class/net/" + nic + "/"
	return map[string]string{
		base + "ecn/roce_np/enable/3":      "0\n",
		base + "ecn/roce_rp/enable/3":      "0\n",
		base + "ecn/roce_np/cnp_dscp":      "0\n",
		base + "ecn/roce_np/cnp_802p_prio": "0\n",
	}
}

type fixture struct {
	sysRoot, cfgRoot string
	sys              *faultFS
	cfg              *configfsFake
	host             *Host
}

func newFixture(t *testing.T, sysFiles, cfgFiles map[string]string) *fixture {
	t.Helper()
	f := &fixture{sysRoot: tree(t, sysFiles), cfgRoot: tree(t, cfgFiles)}
	f.sys = &faultFS{FS: DirFS(f.sysRoot), faults: map[string]error{}, ignoreWrites: map[string]bool{}}
	f.cfg = &configfsFake{FS: &faultFS{FS: DirFS(f.cfgRoot), faults: map[string]error{}}, root: f.cfgRoot, ports: 2}
	h, err := OpenHost(HostOptions{Sysfs: f.sys, Configfs: f.cfg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	f.host = h
	return f
}

func (f *fixture) cfgFaults() *faultFS { return f.cfg.FS.(*faultFS) }

func statuses(settings []hostcontract.Setting) map[string]hostcontract.Status {
	out := map[string]hostcontract.Status{}
	for _, s := range settings {
		out[s.Path] = s.Status
	}
	return out
}

func TestFakeTreeApplyAndIdempotence(t *testing.T) {
	f := newFixture(t, mlnxSysfs(), map[string]string{"rdma_cm/": ""})
	ctx := context.Background()
	desired := sysfsOnly()

	plan, err := f.host.Plan(ctx, desired)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range plan.Settings {
		if s.Status != hostcontract.StatusPending {
			t.Errorf("plan %s: %s (%s), want pending", s.Path, s.Status, s.Message)
		}
	}
	if _, err := os.Stat(filepath.Join(f.cfgRoot, "rdma_cm", "mlx5_0")); !os.IsNotExist(err) {
		t.Fatal("plan created the rdma_cm group: plan must not change the host")
	}
	if len(f.sys.writes) != 0 {
		t.Fatalf("plan wrote %v", f.sys.writes)
	}

	res, err := f.host.Apply(ctx, desired)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range res.Settings {
		if s.Status != hostcontract.StatusChanged {
			t.Errorf("apply %s: %s (%s), want changed", s.Path, s.Status, s.Message)
		}
	}
	base := "class/net/" + nic + "/ecn/"
	for name, want := range map[string]string{
		base + "roce_np/enable/3": "1", base + "roce_rp/enable/3": "1",
		base + "roce_np/cnp_dscp": "48", base + "roce_np/cnp_802p_prio": "6",
	} {
		if got := readTree(t, f.sysRoot, name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	for name, want := range map[string]string{
		"rdma_cm/mlx5_0/ports/1/default_roce_mode": "RoCE v2",
		"rdma_cm/mlx5_0/ports/1/default_roce_tos":  "106",
		"rdma_cm/mlx5_0/ports/2/default_roce_tos":  "0",
	} {
		if got := readTree(t, f.cfgRoot, name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	got := res.Observed.NICs[0]
	want := desired.NICs[0]
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("observed after apply (-desired +observed):\n%s", diff)
	}

	writes := len(f.sys.writes)
	again, err := f.host.Apply(ctx, desired)
	if err != nil {
		t.Fatal(err)
	}
	if s := hostcontract.Summarise(again.Settings); s.Changed != 0 || s.OK != len(again.Settings) {
		t.Errorf("second apply: %+v, want everything ok", s)
	}
	if len(f.sys.writes) != writes {
		t.Errorf("second apply wrote %v", f.sys.writes[writes:])
	}
}

func TestFakeTreeMissingNodes(t *testing.T) {
	ctx := context.Background()
	t.Run("inbox driver without ecn sysfs and no configfs", func(t *testing.T) {
		f := newFixture(t, map[string]string{"class/net/" + nic + "/": ""}, map[string]string{})
		res, err := f.host.Apply(ctx, sysfsOnly())
		if err != nil {
			t.Fatalf("unsupported settings must not fail the apply: %v", err)
		}
		for _, s := range res.Settings {
			if s.Status != hostcontract.StatusUnsupported {
				t.Errorf("%s: %s, want unsupported", s.Path, s.Status)
			}
		}
		st := statuses(res.Settings)
		_ = st
		msgs := ""
		for _, s := range res.Settings {
			msgs += s.Message + "\n"
		}
		for _, want := range []string{"ens1f0np0 has no ecn/roce_np/enable/3 (MLNX_OFED ECN sysfs)", "configfs rdma_cm is not available"} {
			if !strings.Contains(msgs, want) {
				t.Errorf("messages lack %q:\n%s", want, msgs)
			}
		}
		if len(f.sys.writes) != 0 {
			t.Errorf("wrote %v", f.sys.writes)
		}
	})
	t.Run("netdev missing from sysfs", func(t *testing.T) {
		f := newFixture(t, map[string]string{"class/net/": ""}, map[string]string{"rdma_cm/": ""})
		res, err := f.host.Apply(ctx, sysfsOnly())
		if err == nil || !strings.Contains(err.Error(), "no netdev ens1f0np0 in sysfs") || !strings.Contains(err.Error(), "nothing was changed") {
			t.Fatalf("err = %v", err)
		}
		if st := statuses(res.Settings)["rdma/mlx5_0/1/default_roce_tos"]; st != hostcontract.StatusSkipped {
			t.Errorf("rdma tos = %s, want skipped", st)
		}
		if _, err := os.Stat(filepath.Join(f.cfgRoot, "rdma_cm/mlx5_0")); err == nil {
			// The read phase may create the group; that changes no value.
			t.Log("rdma_cm group created during the read phase")
		}
	})
	t.Run("unknown RDMA device", func(t *testing.T) {
		f := newFixture(t, mlnxSysfs(), map[string]string{"rdma_cm/": ""})
		f.cfg.noDevice = true
		_, err := f.host.Apply(ctx, sysfsOnly())
		if err == nil || !strings.Contains(err.Error(), "create configfs rdma_cm/mlx5_0 (is mlx5_0 an RDMA device?)") {
			t.Fatalf("err = %v", err)
		}
		if got := readTree(t, f.sysRoot, "class/net/"+nic+"/ecn/roce_np/cnp_dscp"); got != "0" {
			t.Errorf("cnp_dscp changed to %s although the read phase failed", got)
		}
	})
	t.Run("rdma port missing", func(t *testing.T) {
		f := newFixture(t, mlnxSysfs(), map[string]string{"rdma_cm/": ""})
		d := sysfsOnly()
		d.NICs[0].RDMAPort = 3
		_, err := f.host.Apply(ctx, d)
		if err == nil || !strings.Contains(err.Error(), "configfs rdma_cm/mlx5_0 has no port 3") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestFakeTreePermissionDenied(t *testing.T) {
	ctx := context.Background()
	cnp := "class/net/" + nic + "/ecn/roce_np/cnp_dscp"
	t.Run("write EACCES rolls back earlier writes", func(t *testing.T) {
		f := newFixture(t, mlnxSysfs(), map[string]string{"rdma_cm/": ""})
		f.sys.faults["write:"+cnp] = syscall.EACCES
		res, err := f.host.Apply(ctx, sysfsOnly())
		if err == nil || !errors.Is(err, syscall.EACCES) {
			t.Fatalf("err = %v, want EACCES", err)
		}
		var de *drivers.DeviceError
		if !errors.As(err, &de) || de.Device != "gpu07" || de.Step != "apply" {
			t.Errorf("err is not a DeviceError naming the host and step: %#v", err)
		}
		if !res.RolledBack {
			t.Error("RolledBack not set")
		}
		st := statuses(res.Settings)
		want := map[string]hostcontract.Status{
			"nic/" + nic + "/ecn/roce_np/enable/3":      hostcontract.StatusRolledBack,
			"nic/" + nic + "/ecn/roce_rp/enable/3":      hostcontract.StatusRolledBack,
			"nic/" + nic + "/ecn/roce_np/cnp_dscp":      hostcontract.StatusFailed,
			"nic/" + nic + "/ecn/roce_np/cnp_802p_prio": hostcontract.StatusSkipped,
			"rdma/mlx5_0/1/default_roce_mode":           hostcontract.StatusSkipped,
			"rdma/mlx5_0/1/default_roce_tos":            hostcontract.StatusSkipped,
		}
		if diff := cmp.Diff(want, st); diff != "" {
			t.Errorf("statuses (-want +got):\n%s", diff)
		}
		for name := range mlnxSysfs() {
			if got := readTree(t, f.sysRoot, name); got != "0" {
				t.Errorf("%s = %s after rollback, want the earlier 0", name, got)
			}
		}
	})
	t.Run("read EACCES changes nothing", func(t *testing.T) {
		f := newFixture(t, mlnxSysfs(), map[string]string{"rdma_cm/": ""})
		f.sys.faults["read:"+cnp] = syscall.EACCES
		res, err := f.host.Apply(ctx, sysfsOnly())
		if err == nil || !strings.Contains(err.Error(), "permission denied") {
			t.Fatalf("err = %v", err)
		}
		if len(f.sys.writes) != 0 {
			t.Errorf("wrote %v after a failed read", f.sys.writes)
		}
		if s := hostcontract.Summarise(res.Settings); s.Failed != 1 || s.Changed != 0 {
			t.Errorf("summary %+v", s)
		}
	})
	t.Run("node that is a directory", func(t *testing.T) {
		files := mlnxSysfs()
		delete(files, cnp)
		files[cnp+"/"] = ""
		f := newFixture(t, files, map[string]string{"rdma_cm/": ""})
		_, err := f.host.Apply(ctx, sysfsOnly())
		if err == nil || !errors.Is(err, syscall.EISDIR) {
			t.Fatalf("err = %v, want EISDIR", err)
		}
		if len(f.sys.writes) != 0 {
			t.Errorf("wrote %v", f.sys.writes)
		}
	})
	t.Run("late configfs write fails", func(t *testing.T) {
		f := newFixture(t, mlnxSysfs(), map[string]string{"rdma_cm/": ""})
		f.cfgFaults().faults["write:rdma_cm/mlx5_0/ports/1/default_roce_tos"] = syscall.EINVAL
		res, err := f.host.Apply(ctx, sysfsOnly())
		if err == nil || !strings.Contains(err.Error(), "rdma_cm default ToS") {
			t.Fatalf("err = %v", err)
		}
		for name := range mlnxSysfs() {
			if got := readTree(t, f.sysRoot, name); got != "0" {
				t.Errorf("%s = %s after rollback, want 0", name, got)
			}
		}
		if got := readTree(t, f.cfgRoot, "rdma_cm/mlx5_0/ports/1/default_roce_mode"); got != "IB/RoCE v1" {
			t.Errorf("roce mode = %q after rollback, want the earlier IB/RoCE v1", got)
		}
		if s := hostcontract.Summarise(res.Settings); s.RolledBack != 5 || s.Failed != 1 {
			t.Errorf("summary %+v, want 5 rolled back and 1 failed", s)
		}
	})
	t.Run("write accepted but not taken", func(t *testing.T) {
		f := newFixture(t, mlnxSysfs(), map[string]string{"rdma_cm/": ""})
		f.sys.ignoreWrites["class/net/"+nic+"/ecn/roce_np/cnp_802p_prio"] = true
		_, err := f.host.Apply(ctx, sysfsOnly())
		if err == nil || !strings.Contains(err.Error(), `wrote "6" but it reads back "0"`) {
			t.Fatalf("err = %v", err)
		}
		if got := readTree(t, f.sysRoot, cnp); got != "0" {
			t.Errorf("cnp_dscp = %s after rollback", got)
		}
	})
}

func TestFakeTreeTrustSysfs(t *testing.T) {
	files := map[string]string{"class/net/" + nic + "/qos/trust": "Priority trust state: pcp\n"}
	f := newFixture(t, files, nil)
	desired := &devcfg.HostSettings{Host: "h", NICs: []devcfg.NICSettings{{Netdev: nic, Trust: "dscp"}}}
	res, err := f.host.Apply(context.Background(), desired)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Settings[0]
	if s.Status != hostcontract.StatusChanged || s.Mechanism != "sysfs" || s.Current != "pcp" {
		t.Errorf("trust = %+v", s)
	}
	if got := readTree(t, f.sysRoot, "class/net/"+nic+"/qos/trust"); got != "dscp" {
		t.Errorf("qos/trust = %q", got)
	}
	if res.Observed.NICs[0].Trust != "dscp" {
		t.Errorf("observed trust = %q", res.Observed.NICs[0].Trust)
	}
}

func TestFakeTreeNetnsSysfsNotVisible(t *testing.T) {
	h := &Host{sysfs: DirFS(t.TempDir()), netClassVisible: false, ns: &namespace{name: "lab-h1"}}
	_, err := h.sysfsStep(nic, "ecn/roce_np/cnp_dscp", nil).read(context.Background())
	if !errors.Is(err, drivers.ErrUnsupported) || !strings.Contains(err.Error(), "network namespace lab-h1 is not visible") {
		t.Errorf("err = %v", err)
	}
}

func TestGIDIndex(t *testing.T) {
	base := "class/infiniband/mlx5_0/ports/1/"
	files := map[string]string{
		base + "gids/0": "fe80:0000:0000:0000:0000:0000:0000:0001\n", base + "gid_attrs/types/0": "IB/RoCE v1\n", base + "gid_attrs/ndevs/0": nic + "\n",
		base + "gids/1": "fe80:0000:0000:0000:0000:0000:0000:0001\n", base + "gid_attrs/types/1": "RoCE v2\n", base + "gid_attrs/ndevs/1": nic + "\n",
		base + "gids/2": "0000:0000:0000:0000:0000:ffff:c000:0265\n", base + "gid_attrs/types/2": "IB/RoCE v1\n", base + "gid_attrs/ndevs/2": nic + ".100\n",
		base + "gids/3": "0000:0000:0000:0000:0000:ffff:c000:0265\n", base + "gid_attrs/types/3": "RoCE v2\n", base + "gid_attrs/ndevs/3": nic + ".100\n",
		base + "gids/10": "0000:0000:0000:0000:0000:ffff:c000:0266\n", base + "gid_attrs/types/10": "RoCE v2\n", base + "gid_attrs/ndevs/10": nic + ".100\n",
	}
	f := newFixture(t, files, nil)
	tests := []struct {
		ndev, addr string
		want       int
		err        string
	}{
		{nic + ".100", "", 3, ""},
		{nic + ".100", "192.0.2.102", 10, ""},
		{nic, "", 0, "no RoCE v2 IPv4 GID for ens1f0np0"},
	}
	for _, tt := range tests {
		got, err := f.host.RoCEGIDIndex("mlx5_0", 1, tt.ndev, tt.addr)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err = %v", tt.ndev, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s %s: index %d, %v; want %d", tt.ndev, tt.addr, got, err, tt.want)
		}
	}
	if _, err := f.host.RoCEGIDIndex("mlx5_9", 1, nic, ""); !errors.Is(err, drivers.ErrUnsupported) {
		t.Errorf("missing device: %v", err)
	}
}

func TestPauseValues(t *testing.T) {
	s := (&Host{}).pauseStep(nic)
	tests := []struct {
		cur, want string
		ok        bool
	}{
		{"autoneg=off rx=off tx=off", "off", true},
		{"autoneg=on rx=on tx=off", "off", false},
		{"autoneg=on rx=on tx=on", "on", true},
		{"garbage", "off", false},
	}
	for _, tt := range tests {
		if got := s.matches(tt.cur, tt.want); got != tt.ok {
			t.Errorf("matches(%q, %q) = %v", tt.cur, tt.want, got)
		}
	}
	p, err := parsePause("autoneg=on rx=off tx=on")
	if err != nil || p.Autoneg != 1 || p.RxPause != 0 || p.TxPause != 1 {
		t.Errorf("parse = %+v, %v", p, err)
	}
	for _, bad := range []string{"rx=maybe", "speed=on", "rx", "", " \n"} {
		if _, err := parsePause(bad); err == nil {
			t.Errorf("parsePause(%q) accepted", bad)
		}
	}
}

func TestDCBXMatches(t *testing.T) {
	s := (&Host{}).dcbxStep(nic)
	for cur, ok := range map[string]bool{"host-ieee": true, "host-ieee-static": true, "lld-managed-ieee": false, "host-cee": false, "0x09": true} {
		if got := s.matches(cur, "host-ieee"); got != ok {
			t.Errorf("matches(%q) = %v, want %v", cur, got, ok)
		}
	}
}

func TestMappedGID(t *testing.T) {
	if got := mappedGID("192.0.2.101"); got != "0000:0000:0000:0000:0000:ffff:c000:0265" {
		t.Errorf("got %s", got)
	}
	if mappedGID("2001:db8::1") != "" || mappedGID("1.2.3.400") != "" {
		t.Error("non-IPv4 mapped")
	}
}
