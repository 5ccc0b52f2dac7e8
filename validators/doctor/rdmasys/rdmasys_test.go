package rdmasys_test

import (
	"math"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rocefab/rocefab/internal/corpus"
	"github.com/rocefab/rocefab/validators/doctor/rdmasys"
	"github.com/rocefab/rocefab/validators/doctor/sysfstest"
)

func TestDevicesConnectX(t *testing.T) {
	tr := sysfstest.New(t)
	tr.AddNIC(sysfstest.ConnectX("mlx5_0", "ens1f0np0", "10.0.1.11"))
	devs, err := rdmasys.New(tr.Root).Devices()
	if err != nil {
		t.Fatal(err)
	}
	if len(devs) != 1 {
		t.Fatalf("got %d devices, want 1", len(devs))
	}
	d := devs[0]
	if d.Driver != "mlx5_core" || d.NUMANode != 0 || d.PCI.Address != "0000:3b:00.0" {
		t.Errorf("device = %+v", d)
	}
	if !d.PCI.Reported || d.PCI.CurWidth != 16 || d.PCI.CurGTs != 16 || d.PCI.MaxSpeed != "16.0 GT/s" {
		t.Errorf("PCI = %+v", d.PCI)
	}
	if len(d.Ports) != 1 {
		t.Fatalf("ports = %+v", d.Ports)
	}
	p := d.Ports[0]
	if !p.Active() || p.PhysState != "LinkUp" || p.Netdev != "ens1f0np0" || p.LinkLayer != "Ethernet" {
		t.Errorf("port = %+v", p)
	}
	// The two unused entries are dropped.
	if len(p.GIDs) != 4 {
		t.Fatalf("GIDs = %+v", p.GIDs)
	}
	g, ok := rdmasys.FindGID(p.GIDs, netip.MustParseAddr("10.0.1.11"), rdmasys.TypeRoCEv2)
	if !ok || g.Index != 3 || !g.Routable() {
		t.Errorf("FindGID v2 = %+v, %v", g, ok)
	}
	if g, ok := rdmasys.FindGID(p.GIDs, netip.MustParseAddr("10.0.1.11"), rdmasys.TypeRoCEv1); !ok || g.Index != 2 {
		t.Errorf("FindGID v1 = %+v, %v", g, ok)
	}
	if _, ok := rdmasys.FindGID(p.GIDs, netip.MustParseAddr("10.0.1.12"), rdmasys.TypeRoCEv2); ok {
		t.Error("FindGID found an address the port does not have")
	}
	if p.GIDs[1].Routable() {
		t.Error("link-local GID reported routable")
	}
}

func TestDevicesNone(t *testing.T) {
	devs, err := rdmasys.New(t.TempDir()).Devices()
	if err != nil || devs != nil {
		t.Fatalf("Devices() = %v, %v; want nil, nil", devs, err)
	}
}

func TestPortCounters(t *testing.T) {
	tr := sysfstest.New(t)
	tr.AddNIC(sysfstest.ConnectX("mlx5_0", "ens1f0np0", "10.0.1.11"))
	tr.SetCounter("mlx5_0", 1, "hw_counters/np_cnp_sent", 1204)
	tr.SetCounter("mlx5_0", 1, "hw_counters/garbage", 0)
	tr.Write("class/infiniband/mlx5_0/ports/1/hw_counters/garbage", "n/a\n")
	c, err := rdmasys.New(tr.Root).PortCounters("mlx5_0", 1)
	if err != nil {
		t.Fatal(err)
	}
	if c["hw_counters/np_cnp_sent"] != 1204 {
		t.Errorf("np_cnp_sent = %d", c["hw_counters/np_cnp_sent"])
	}
	if _, ok := c["hw_counters/garbage"]; ok {
		t.Error("non-numeric counter was read")
	}
	if _, ok := c["hw_counters/lifespan"]; ok {
		t.Error("lifespan is a setting, not a counter")
	}
	if _, ok := c["counters/port_xmit_data"]; !ok {
		t.Error("counters/ directory not read")
	}
	if _, err := rdmasys.New(tr.Root).PortCounters("mlx5_9", 1); err == nil {
		t.Error("missing device gave no error")
	}
}

func TestRoCEActiveMTU(t *testing.T) {
	for _, tc := range []struct{ mtu, want int }{
		{9000, 4096}, {4200, 4096}, {4192, 4096}, {4191, 2048}, {4000, 2048},
		{2200, 2048}, {2143, 1024}, {1500, 1024}, {600, 256}, {300, 0},
	} {
		if got := rdmasys.RoCEActiveMTU(tc.mtu); got != tc.want {
			t.Errorf("RoCEActiveMTU(%d) = %d, want %d", tc.mtu, got, tc.want)
		}
	}
}

func TestParseGTs(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"8.0 GT/s", 8, true}, {"16.0 GT/s PCIe", 16, true}, {"2.5 GT/s", 2.5, true},
		{"Unknown", 0, false}, {"Unknown speed", 0, false}, {"", 0, false}, {"x GT/s", 0, false},
		{"NaN GT/s", 0, false}, {"+Inf GT/s", 0, false}, {"-8.0 GT/s", 0, false},
	} {
		got, ok := rdmasys.ParseGTs(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseGTs(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestGIDListing(t *testing.T) {
	out := "device:mlx5_1\n" +
		"gids/0:fe80:0000:0000:0000:0a1b:2cff:fe3d:4e5f\n" +
		"gids/1:fe80:0000:0000:0000:0a1b:2cff:fe3d:4e5f\n" +
		"gids/2:0000:0000:0000:0000:0000:ffff:0a00:010c\n" +
		"gids/3:0000:0000:0000:0000:0000:ffff:0a00:010c\n" +
		"gids/4:0000:0000:0000:0000:0000:0000:0000:0000\n" +
		"gid_attrs/types/0:IB/RoCE v1\n" +
		"gid_attrs/types/1:RoCE v2\n" +
		"gid_attrs/types/2:IB/RoCE v1\n" +
		"gid_attrs/types/3:RoCE v2\n" +
		"gid_attrs/ndevs/3:ens1f1np1\n"
	dev, gids, err := rdmasys.ParseGIDListing(out)
	if err != nil {
		t.Fatal(err)
	}
	if dev != "mlx5_1" {
		t.Errorf("device = %q", dev)
	}
	want := []int{0, 1, 2, 3}
	var got []int
	for _, g := range gids {
		got = append(got, g.Index)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("indexes (-want +got):\n%s", diff)
	}
	g, ok := rdmasys.FindGID(gids, netip.MustParseAddr("10.0.1.12"), rdmasys.TypeRoCEv2)
	if !ok || g.Index != 3 || g.Netdev != "ens1f1np1" {
		t.Errorf("FindGID = %+v, %v", g, ok)
	}
	if _, _, err := rdmasys.ParseGIDListing("device:\n"); err == nil {
		t.Error("empty device gave no error")
	}
	if _, _, err := rdmasys.ParseGIDListing("gids/0:fe80::1\n"); err == nil {
		t.Error("missing device line gave no error")
	}
}

func TestGIDListingCommandRejectsShellCharacters(t *testing.T) {
	if _, err := rdmasys.GIDListingCommand("mlx5_0;reboot", "", 1); err == nil {
		t.Error("device name with ; accepted")
	}
	if _, err := rdmasys.GIDListingCommand("", "eth0$(id)", 1); err == nil {
		t.Error("netdev name with $( accepted")
	}
	if _, err := rdmasys.GIDListingCommand("", "", 1); err == nil {
		t.Error("neither device nor netdev accepted")
	}
	argv, err := rdmasys.GIDListingCommand("", "ens1f0np0", 1)
	if err != nil || len(argv) != 3 || argv[0] != "sh" {
		t.Errorf("argv = %q, %v", argv, err)
	}
}

func FuzzParseGIDListing(f *testing.F) {
	// Real device output from the shared corpus, read at fuzz time.
	corpus.SeedWith(f, func(b []byte) { f.Add(string(b)) }, "rdmasys")
	f.Add("device:mlx5_0\ngids/3:0000:0000:0000:0000:0000:ffff:0a00:010b\ngid_attrs/types/3:RoCE v2\n")
	f.Add("device:\n")
	f.Add("gids/x:::\n")
	f.Fuzz(func(t *testing.T, s string) {
		dev, gids, err := rdmasys.ParseGIDListing(s)
		if err != nil {
			return
		}
		if dev == "" {
			t.Fatal("no error but empty device")
		}
		for _, g := range gids {
			if !g.GID.Is6() || g.GID.IsUnspecified() {
				t.Fatalf("bad GID kept: %+v", g)
			}
		}
	})
}

// sysfsGID is the form the kernel writes to ports/<n>/gids/<i>.
var sysfsGID = regexp.MustCompile(`^[0-9a-f]{4}(:[0-9a-f]{4}){7}$`)

// FuzzParseGID: an accepted GID is 128 bits without a zone, a GID in the
// kernel's form re-formats to the same text, and any accepted text form
// parses back to the same GID from its printed forms.
func FuzzParseGID(f *testing.F) {
	// Real device output from the shared corpus, read at fuzz time.
	corpus.SeedWith(f, func(b []byte) { f.Add(string(b)) }, "rdmasys")
	// Seeds in testdata/fuzz/FuzzParseGID: sysfs GIDs (RoCE v2 IPv4-mapped,
	// link-local, global IPv6, unused zero entry) and other text forms.
	f.Fuzz(func(t *testing.T, s string) {
		a, err := rdmasys.ParseGID(s)
		if err != nil {
			if a.IsValid() {
				t.Fatalf("ParseGID(%q) = %s with error %v", s, a, err)
			}
			return
		}
		if !a.Is6() || a.Zone() != "" {
			t.Fatalf("ParseGID(%q) = %s: not a 128-bit GID", s, a)
		}
		if text := strings.TrimSpace(s); sysfsGID.MatchString(text) && a.StringExpanded() != text {
			t.Fatalf("ParseGID(%q) re-formats as %q", s, a.StringExpanded())
		}
		for _, text := range []string{a.StringExpanded(), a.String()} {
			if back, err := rdmasys.ParseGID(text); err != nil || back != a {
				t.Fatalf("ParseGID(%q) = %s prints as %q, which parses to %s, %v", s, a, text, back, err)
			}
		}
	})
}

// FuzzParseGTs: an accepted link speed is a positive, finite number that
// reads back the same from its shortest text; anything else is (0, false).
func FuzzParseGTs(f *testing.F) {
	// Real device output from the shared corpus, read at fuzz time.
	corpus.SeedWith(f, func(b []byte) { f.Add(string(b)) }, "rdmasys")
	// Seeds in testdata/fuzz/FuzzParseGTs: current_link_speed as PCIe Gen1
	// to Gen6 kernels write it, "Unknown", and malformed speeds.
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := rdmasys.ParseGTs(s)
		if !ok {
			if v != 0 {
				t.Fatalf("ParseGTs(%q) = %v, false", s, v)
			}
			return
		}
		if !(v > 0) || math.IsInf(v, 0) {
			t.Fatalf("ParseGTs(%q) = %v", s, v)
		}
		text := strconv.FormatFloat(v, 'f', -1, 64) + " GT/s PCIe"
		if back, ok := rdmasys.ParseGTs(text); !ok || back != v {
			t.Fatalf("ParseGTs(%q) = %v; %q reads back as %v, %v", s, v, text, back, ok)
		}
	})
}
