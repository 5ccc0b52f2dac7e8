package netlink

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/hostcontract"
	"github.com/rocefab/rocefab/internal/netnstest"
)

// vethHost is a lab host: its eth0 is one end of a veth pair.
func vethHost(t *testing.T) *netnstest.NS {
	t.Helper()
	h := netnstest.New(t, "h")
	peer := netnstest.New(t, "p")
	netnstest.Veth(t, h, "eth0", peer, "eth0", 1500)
	return h
}

// fullNIC is what renderers/host produces for examples/basic, on eth0.
func fullNIC() devcfg.NICSettings {
	return devcfg.NICSettings{
		Netdev: "eth0", RDMADevice: "mlx5_0", RDMAPort: 1, VLANNetdev: "eth0.100", VLAN: 100, MTU: 9000,
		PFCEnable: ptr(uint8(0x08)), Trust: "dscp",
		App:                  []devcfg.AppEntry{{Selector: 5, Priority: 3, Protocol: 26}, {Selector: 5, Priority: 6, Protocol: 48}},
		ECNNotificationPoint: []int{3}, ECNReactionPoint: []int{3}, CNPDSCP: ptr(48), CNPPriority: ptr(6),
		RoCEMode: "RoCE v2", RoCEToS: ptr(106), LinkPause: ptr(false), DCBXMode: "host-ieee",
	}
}

func linkMTU(t *testing.T, ns *netnstest.NS, dev string) string {
	t.Helper()
	out := ns.Run("cat", "/sys/class/net/"+dev+"/mtu")
	return strings.TrimSpace(out)
}

// vlanSupported probes whether this kernel can create 802.1Q devices.
func vlanSupported(t *testing.T, ns *netnstest.NS) bool {
	t.Helper()
	_, err := ns.Try("ip", "link", "add", "link", "eth0", "name", "probe.9", "type", "vlan", "id", "9")
	if err != nil {
		return false
	}
	ns.Run("ip", "link", "del", "probe.9")
	return true
}

func TestNetnsVethApply(t *testing.T) {
	ns := vethHost(t)
	vlanOK := vlanSupported(t, ns)
	// The default /sys does not show the namespace's netdevs: sysfs
	// settings are unsupported there, as on a real lab host.
	h, err := OpenHost(HostOptions{Netns: ns.Name, ConfigfsRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	desired := &devcfg.HostSettings{Host: "lab-h1", NICs: []devcfg.NICSettings{fullNIC()}}
	ctx := context.Background()

	res, err := h.Apply(ctx, desired)
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	st := statuses(res.Settings)
	if st["nic/eth0/mtu"] != hostcontract.StatusChanged {
		t.Errorf("MTU: %s", st["nic/eth0/mtu"])
	}
	if got := linkMTU(t, ns, "eth0"); got != "9000" {
		t.Errorf("eth0 MTU in the namespace is %s, want 9000", got)
	}
	// veth has no dcbnl_ops and no pause ops; this kernel may lack 802.1Q.
	for _, p := range []string{"nic/eth0/dcbx", "nic/eth0/app/sel5/26", "nic/eth0/app/sel5/48", "nic/eth0/trust",
		"nic/eth0/pfc/enable", "nic/eth0/pause", "nic/eth0/ecn/roce_np/enable/3", "rdma/mlx5_0/1/default_roce_tos"} {
		if st[p] != hostcontract.StatusUnsupported {
			t.Errorf("%s: %s, want %q (never silently ok)", p, st[p], hostcontract.StatusUnsupported)
		}
	}
	for _, s := range res.Settings {
		if s.Path == "nic/eth0/pfc/enable" && !strings.Contains(s.Message, "not supported") {
			t.Errorf("PFC message should carry the kernel's words: %q", s.Message)
		}
	}
	if vlanOK {
		if st["nic/eth0.100/mtu"] != hostcontract.StatusChanged || linkMTU(t, ns, "eth0.100") != "9000" {
			t.Errorf("VLAN netdev: %s", st["nic/eth0.100/mtu"])
		}
	} else if st["nic/eth0.100/mtu"] != hostcontract.StatusUnsupported {
		t.Errorf("VLAN netdev on a kernel without 802.1Q: %s, want unsupported", st["nic/eth0.100/mtu"])
	}
	if res.Observed.NICs[0].MTU != 9000 || res.Observed.NICs[0].PFCEnable != nil {
		t.Errorf("observed = %+v (unsupported settings must be left out)", res.Observed.NICs[0])
	}

	again, err := h.Apply(ctx, desired)
	if err != nil {
		t.Fatal(err)
	}
	if s := hostcontract.Summarise(again.Settings); s.Changed != 0 || s.Pending != 0 || s.Failed != 0 {
		t.Errorf("second apply is not idempotent: %+v", s)
	}
	plan, err := h.Plan(ctx, desired)
	if err != nil {
		t.Fatal(err)
	}
	if s := hostcontract.Summarise(plan.Settings); s.Pending != 0 || s.OK == 0 {
		t.Errorf("plan after apply: %+v", s)
	}
}

func TestNetnsDCBUnsupportedOnVeth(t *testing.T) {
	ns := vethHost(t)
	h, err := OpenHost(HostOptions{Netns: ns.Name})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	_, err = h.dcb.getIEEE("eth0")
	if !errors.Is(err, drivers.ErrUnsupported) {
		t.Errorf("IEEE GET on veth: %v, want ErrUnsupported", err)
	}
	if err := h.dcb.setIEEE("eth0", dcbnlPFC(0x08)); !errors.Is(err, drivers.ErrUnsupported) {
		t.Errorf("IEEE SET on veth: %v, want ErrUnsupported", err)
	}
	if _, err := h.dcb.getDCBX("eth0"); !errors.Is(err, drivers.ErrUnsupported) {
		t.Errorf("GDCBX on veth: %v", err)
	}
	// A netdev that does not exist is a failure, not "unsupported".
	if _, err := h.dcb.getIEEE("nosuch0"); err == nil || errors.Is(err, drivers.ErrUnsupported) {
		t.Errorf("IEEE GET on a missing netdev: %v", err)
	}
	if _, err := h.pause("eth0"); !errors.Is(err, drivers.ErrUnsupported) {
		t.Errorf("pause on veth: %v", err)
	}
}

func TestNetnsRollbackRestoresMTU(t *testing.T) {
	ns := vethHost(t)
	sysRoot := tree(t, map[string]string{
		"class/net/eth0/ecn/roce_np/enable/3": "0\n",
		"class/net/eth0/ecn/roce_np/cnp_dscp": "0\n",
	})
	sys := &faultFS{FS: DirFS(sysRoot), faults: map[string]error{"write:class/net/eth0/ecn/roce_np/cnp_dscp": syscall.EACCES}}
	h, err := OpenHost(HostOptions{Netns: ns.Name, Sysfs: sys, ConfigfsRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	desired := &devcfg.HostSettings{Host: "lab-h1", NICs: []devcfg.NICSettings{{
		Netdev: "eth0", MTU: 9000, ECNNotificationPoint: []int{3}, CNPDSCP: ptr(48),
	}}}
	res, err := h.Apply(context.Background(), desired)
	if err == nil {
		t.Fatal("apply succeeded although the CNP DSCP write was refused")
	}
	if got := linkMTU(t, ns, "eth0"); got != "1500" {
		t.Errorf("eth0 MTU is %s after rollback, want the earlier 1500", got)
	}
	if got := readTree(t, sysRoot, "class/net/eth0/ecn/roce_np/enable/3"); got != "0" {
		t.Errorf("ECN enable is %s after rollback, want 0", got)
	}
	st := statuses(res.Settings)
	if st["nic/eth0/mtu"] != hostcontract.StatusRolledBack || st["nic/eth0/ecn/roce_np/cnp_dscp"] != hostcontract.StatusFailed {
		t.Errorf("statuses = %v", st)
	}
}

func TestNetnsMTUTooLargeFails(t *testing.T) {
	ns := vethHost(t)
	h, err := OpenHost(HostOptions{Netns: ns.Name})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	res, err := h.Apply(context.Background(), &devcfg.HostSettings{Host: "h", NICs: []devcfg.NICSettings{{Netdev: "eth0", MTU: 70000}}})
	if err == nil || !strings.Contains(err.Error(), "set MTU 70000 on eth0") {
		t.Fatalf("err = %v", err)
	}
	if res.Settings[0].Status != hostcontract.StatusFailed {
		t.Errorf("status = %s", res.Settings[0].Status)
	}
	if got := linkMTU(t, ns, "eth0"); got != "1500" {
		t.Errorf("MTU = %s", got)
	}
}
