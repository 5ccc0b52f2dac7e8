package telemetry

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/intent"
)

func aiCluster(tb testing.TB) (*intent.Resolved, *Topology) {
	tb.Helper()
	fab, diags := intent.Load(filepath.Join("..", "..", "examples", "ai-cluster"))
	if diags.HasErrors() {
		tb.Fatal(diags.Err())
	}
	r, diags := intent.Resolve(fab)
	if diags.HasErrors() {
		tb.Fatal(diags.Err())
	}
	topo, err := FromIntent(r)
	if err != nil {
		tb.Fatal(err)
	}
	return r, topo
}

func TestFromIntent(t *testing.T) {
	_, topo := aiCluster(t)
	if topo.Devices() != 2+8+64 || topo.Ports() != 16+8*10+64 {
		t.Fatalf("%d devices, %d ports", topo.Devices(), topo.Ports())
	}
	for _, c := range []struct{ a, ap, b, bp string }{
		{"leaf1", "Ethernet31", "spine1", "Ethernet1/1"},
		{"spine2", "Ethernet1/8", "leaf8", "Ethernet252"},
		{"gpu001", "ens1f0np0", "leaf1", "Ethernet1"},
		{"leaf7", "Ethernet24", "gpu052", "ens1f0np0"},
	} {
		if got, ok := topo.Peer(c.a, c.ap); !ok || got != (Endpoint{c.b, c.bp}) {
			t.Errorf("peer of %s %s = %v, %v; want %s %s", c.a, c.ap, got, ok, c.b, c.bp)
		}
	}
	leaf5 := &topo.devs[topo.byName["leaf5"]]
	if leaf5.speed != 400e9 || leaf5.policy != (Policy{Lossless: 1 << 3, RoCE: 3, CNP: 6, ECN: true}) {
		t.Errorf("leaf5 speed %g policy %+v", leaf5.speed, leaf5.policy)
	}
	gpu := &topo.devs[topo.byName["gpu001"]]
	if gpu.ports[0].rdma != "mlx5_0/1" || !gpu.host {
		t.Errorf("gpu001 port %+v", gpu.ports[0])
	}
	if w := topo.where(ref{topo.byName["leaf1"], 0}); !strings.HasSuffix(w.File, "leaves.yaml") || w.Line == 0 {
		t.Errorf("leaf1 Ethernet1 is declared at %v", w)
	}
}

func TestPolicyOf(t *testing.T) {
	pfcOnly := intent.Policy{Profile: intent.ProfilePFCOnly, NoDropPriority: 4, PFCEnabled: true, PFCPriorities: []int{3, 4}, CNPPriority: 6}
	if got := PolicyOf(pfcOnly); got != (Policy{Lossless: 0x18, RoCE: 4, CNP: -1}) {
		t.Errorf("pfc-only: %+v", got)
	}
	ecnOnly := intent.Policy{Profile: intent.ProfileECNOnly, NoDropPriority: 3, PFCEnabled: true, PFCPriorities: []int{3}, CNPPriority: 6}
	if got := PolicyOf(ecnOnly); got != (Policy{RoCE: 3, CNP: 6, ECN: true}) {
		t.Errorf("ecn-only: %+v", got)
	}
}

func TestNewTopologyErrors(t *testing.T) {
	sw := func(name string, ports ...string) DeviceSpec {
		d := DeviceSpec{Name: name}
		for _, p := range ports {
			d.Ports = append(d.Ports, PortSpec{Name: p})
		}
		return d
	}
	host := DeviceSpec{Name: "h1", Host: true, Ports: []PortSpec{{Name: "eth0"}}}
	c := func(a, ap, b, bp string) Cable { return Cable{A: Endpoint{a, ap}, B: Endpoint{b, bp}} }
	tests := []struct {
		name   string
		devs   []DeviceSpec
		cables []Cable
		want   string
	}{
		{"duplicate device", []DeviceSpec{sw("s1"), sw("s1")}, nil, `device "s1" twice`},
		{"duplicate port", []DeviceSpec{sw("s1", "e1", "e1")}, nil, `port "e1" empty or listed twice`},
		{"unknown device", []DeviceSpec{sw("s1", "e1")}, []Cable{c("s1", "e1", "s9", "e1")}, `no device "s9"`},
		{"unknown NIC", []DeviceSpec{sw("s1", "e1"), host}, []Cable{c("s1", "e1", "h1", "eth9")}, `host "h1" has no NIC "eth9"`},
		{"cabled twice", []DeviceSpec{sw("s1", "e1"), sw("s2", "e1", "e2")},
			[]Cable{c("s1", "e1", "s2", "e1"), c("s1", "e1", "s2", "e2")}, "s1 e1 is cabled twice (to s2 e1 and s2 e2)"},
		{"loop", []DeviceSpec{sw("s1", "e1")}, []Cable{c("s1", "e1", "s1", "e1")}, "loops to itself"},
		{"priority out of range", []DeviceSpec{{Name: "s1", Policy: Policy{RoCE: 9}}}, nil, "priority out of range"},
	}
	for _, tc := range tests {
		_, err := NewTopology(tc.devs, tc.cables)
		if !errors.Is(err, ErrTopology) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
	// A cable may name a switch port outside the RoCE ports: it is added.
	topo, err := NewTopology([]DeviceSpec{sw("s1", "e1"), sw("s2")}, []Cable{c("s1", "e1", "s2", "uplink")})
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := topo.Peer("s2", "uplink"); !ok || p != (Endpoint{"s1", "e1"}) {
		t.Errorf("peer %v %v", p, ok)
	}
}

func TestConfigValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		mod  func(c *Config)
		want string
	}{
		{"zero interval", func(c *Config) { c.Interval = 0 }, "interval"},
		{"gap under interval", func(c *Config) { c.MaxGap = time.Second }, "maxGap"},
		{"storm fraction over 1", func(c *Config) { c.Storm.PausedFraction = 1.5 }, "storm.pausedFraction"},
		{"clear above raise", func(c *Config) { c.Propagation.ClearFraction = 0.5 }, "propagation.clearFraction"},
		{"no hops", func(c *Config) { c.Propagation.MinHops = 0 }, "propagation.minHops"},
		{"share zero", func(c *Config) { c.WrongQueue.Share = 0 }, "wrongQueue.share"},
		{"min drops zero", func(c *Config) { c.Drops.MinDrops = 0 }, "drops.minDrops"},
		{"no clear time", func(c *Config) { c.Retransmits.Clear = 0 }, "retransmits"},
	}
	for _, tc := range tests {
		c := DefaultConfig()
		tc.mod(&c)
		err := c.Validate()
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
		if _, err := New(unitTopology(t), c); err == nil {
			t.Errorf("%s: New accepted it", tc.name)
		}
	}
}
