package host

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/internal/golden"
)

func load(t *testing.T, path string) *intent.Resolved {
	t.Helper()
	fab, diags := intent.Load(path)
	if fab == nil || diags.HasErrors() {
		t.Fatalf("load %s: %v", path, diags)
	}
	r, rdiags := intent.Resolve(fab)
	if rdiags.HasErrors() {
		t.Fatalf("resolve %s: %v", path, rdiags)
	}
	return r
}

func render(t *testing.T, r *intent.Resolved, host string) *Rendered {
	t.Helper()
	h := r.Host(host)
	if h == nil {
		t.Fatalf("no host %s", host)
	}
	out, err := Render(h, r)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestGolden(t *testing.T) {
	for _, sc := range []struct{ name, path string }{
		{"basic", filepath.Join("..", "..", "examples", "basic", "fabric.yaml")},
		{"variants", filepath.Join("testdata", "scenarios", "variants.yaml")},
	} {
		r := load(t, sc.path)
		for _, h := range r.Hosts {
			t.Run(sc.name+"/"+h.Name, func(t *testing.T) {
				out := render(t, r, h.Name)
				first := out.Text()
				if again := render(t, r, h.Name).Text(); again != first {
					t.Fatal("rendering is not deterministic")
				}
				golden.Check(t, filepath.Join("testdata", sc.name, h.Name+".txt"), []byte(first))
			})
		}
	}
}

func ptr[T any](v T) *T { return &v }

func TestBasicNIC(t *testing.T) {
	r := load(t, filepath.Join("..", "..", "examples", "basic", "fabric.yaml"))
	out := render(t, r, "gpu01")
	want := devcfg.NICSettings{
		Netdev: "ens1f0np0", RDMADevice: "mlx5_0", RDMAPort: 1,
		VLANNetdev: "ens1f0np0.100", VLAN: 100, MTU: 9000,
		PFCEnable: ptr(uint8(0x08)), Trust: "dscp",
		App:                  []devcfg.AppEntry{{Selector: 5, Priority: 3, Protocol: 26}, {Selector: 5, Priority: 6, Protocol: 48}},
		ECNNotificationPoint: []int{3}, ECNReactionPoint: []int{3},
		CNPDSCP: ptr(48), CNPPriority: ptr(6),
		RoCEMode: "RoCE v2", RoCEToS: ptr(106),
		LinkPause: ptr(false), DCBXMode: "host-ieee",
	}
	if diff := cmp.Diff(want, out.Settings.NICs[0]); diff != "" {
		t.Errorf("NIC (-want +got):\n%s", diff)
	}
	if out.Config.Shape != devcfg.ShapeHost || out.Config.Host != out.Settings || out.Config.Device != "gpu01" {
		t.Errorf("config = %+v", out.Config)
	}
	paths := out.Config.Text()
	for _, line := range []string{
		"nic/ens1f0np0/pfc/enable = \"0x08\"",
		"nic/ens1f0np0/app/sel5/26 = 3",
		"nic/ens1f0np0/app/sel5/48 = 6",
		"nic/ens1f0np0.100/mtu = 9000",
		"rdma/mlx5_0/1/default_roce_tos = 106",
		"rdma/mlx5_0/1/default_roce_mode = \"RoCE v2\"",
	} {
		if !strings.Contains(paths, line+"\n") {
			t.Errorf("paths lack %q:\n%s", line, paths)
		}
	}
	hints := map[string]string{}
	for _, a := range out.Applications {
		hints[a.Name] = a.Value
	}
	if hints["NCCL_IB_TC"] != "106" || hints["UCX_IB_TRAFFIC_CLASS"] != "106" || hints["NCCL_IB_HCA"] != "mlx5_0:1" {
		t.Errorf("hints = %v", hints)
	}
	if _, ok := hints["NCCL_IB_GID_INDEX"]; !ok {
		t.Error("no GID index hint")
	}
}

func TestVariants(t *testing.T) {
	r := load(t, filepath.Join("testdata", "scenarios", "variants.yaml"))
	t.Run("routed pfc-only", func(t *testing.T) {
		n := render(t, r, "routed-pfconly").Settings.NICs[0]
		if n.VLANNetdev != "" || n.VLAN != 0 {
			t.Errorf("routed port must not use a VLAN netdev: %q", n.VLANNetdev)
		}
		if n.ECNNotificationPoint != nil || n.ECNReactionPoint != nil || n.CNPDSCP != nil || n.CNPPriority != nil {
			t.Error("pfc-only must not render ECN")
		}
		if *n.PFCEnable != 0x10 || n.LinkPause == nil || *n.LinkPause {
			t.Errorf("pfc = %#x pause = %v", *n.PFCEnable, n.LinkPause)
		}
		want := []devcfg.AppEntry{{Selector: 5, Priority: 4, Protocol: 24}, {Selector: 5, Priority: 4, Protocol: 26}}
		if diff := cmp.Diff(want, n.App); diff != "" {
			t.Errorf("pfc-only maps no CNP DSCP (-want +got):\n%s", diff)
		}
		if n.MTU != 4200 || n.RDMAPort != 1 {
			t.Errorf("mtu %d port %d", n.MTU, n.RDMAPort)
		}
	})
	t.Run("trunk pcp", func(t *testing.T) {
		out := render(t, r, "trunk-pcp")
		n := out.Settings.NICs[0]
		if n.VLANNetdev != "eth0.200" || n.Trust != "pcp" || n.App != nil {
			t.Errorf("vlan %q trust %q app %v", n.VLANNetdev, n.Trust, n.App)
		}
		if !strings.Contains(out.Config.Text(), "rdma/mlx5_1/2/default_roce_tos = 98\n") {
			t.Errorf("ToS for DSCP 24 should be 98:\n%s", out.Config.Text())
		}
		var sl string
		for _, a := range out.Applications {
			if a.Name == "NCCL_IB_SL" {
				sl = a.Value
			}
		}
		if sl != "4" {
			t.Errorf("NCCL_IB_SL = %q, want 4", sl)
		}
	})
	t.Run("access ecn-only", func(t *testing.T) {
		out := render(t, r, "access-ecnonly")
		n := out.Settings.NICs[0]
		if n.VLANNetdev != "" {
			t.Errorf("access port sends untagged: %q", n.VLANNetdev)
		}
		if *n.PFCEnable != 0 || n.LinkPause != nil {
			t.Errorf("ecn-only: pfc %#x, pause %v", *n.PFCEnable, n.LinkPause)
		}
		if n.RoCEMode != "" || n.RoCEToS != nil {
			t.Error("no rdmaDevice: RoCE mode and ToS must not be rendered")
		}
		if !strings.Contains(strings.Join(out.Config.Notes, "\n"), "eth0 has no rdmaDevice") {
			t.Errorf("notes = %v", out.Config.Notes)
		}
	})
}

func TestLongVLANNetdevName(t *testing.T) {
	r := load(t, filepath.Join("..", "..", "examples", "basic", "fabric.yaml"))
	h := *r.Host("gpu01")
	h.NICs = []intent.NIC{{Netdev: "enp129s0f0np0", RDMADevice: "mlx5_0", RDMAPort: 1}}
	_, err := Render(&h, r)
	if err == nil || !strings.Contains(err.Error(), "host gpu01 NIC enp129s0f0np0: VLAN netdev name enp129s0f0np0.100 is longer than 15") {
		t.Errorf("err = %v", err)
	}
}

func BenchmarkRender(b *testing.B) {
	fab, diags := intent.Load(filepath.Join("..", "..", "examples", "basic", "fabric.yaml"))
	if fab == nil || diags.HasErrors() {
		b.Fatal(diags)
	}
	r, _ := intent.Resolve(fab)
	for b.Loop() {
		for _, h := range r.Hosts {
			if _, err := Render(h, r); err != nil {
				b.Fatal(err)
			}
		}
	}
}
