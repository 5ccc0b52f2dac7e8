package intent

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// policyField is one lossless field with a value per layer, written as YAML,
// and how to read it back from a resolved Policy.
type policyField struct {
	path             string // the Policy.Origin key, also the YAML path under lossless
	fabric, grp, dev string // YAML values at each layer
	get              func(Policy) any
	wantF, wantG     any // resolved values for fabric and group layers
	wantD            any
}

var policyFields = []policyField{
	{"profile", "dcqcn", "pfc-only", "ecn-only", func(p Policy) any { return p.Profile }, "dcqcn", "pfc-only", "ecn-only"},
	{"vlan", "100", "200", "300", func(p Policy) any { return p.VLAN }, 100, 200, 300},
	{"noDropPriority", "3", "4", "5", func(p Policy) any { return p.NoDropPriority }, 3, 4, 5},
	{"roceDscp", "[26]", "[24]", "[24, 25]", func(p Policy) any { return p.RoCEDSCP }, []int{26}, []int{24}, []int{24, 25}},
	{"trust", "dscp", "pcp", "dscp", func(p Policy) any { return p.Trust }, "dscp", "pcp", "dscp"},
	{"cnp.dscp", "48", "46", "40", func(p Policy) any { return p.CNPDSCP }, 48, 46, 40},
	{"cnp.priority", "6", "7", "1", func(p Policy) any { return p.CNPPriority }, 6, 7, 1},
	{"ecn.minThreshold", "150KB", "200KB", "1KiB", func(p Policy) any { return p.ECNMin }, uint64(150000), uint64(200000), uint64(1024)},
	{"ecn.maxThreshold", "1500KB", "2MB", "1MiB", func(p Policy) any { return p.ECNMax }, uint64(1500000), uint64(2000000), uint64(1 << 20)},
	{"ecn.markProbability", "100", "50", "20", func(p Policy) any { return p.MarkProbability }, 100, 50, 20},
	{"pfc.enabled", "true", "false", "true", func(p Policy) any { return p.PFCEnabled }, true, false, true},
	{"pfc.priorities", "[3]", "[4]", "[5]", func(p Policy) any { return p.PFCPriorities }, []int{3}, []int{4}, []int{5}},
	{"pfc.headroom", "100KB", "200KB", "300KB", func(p Policy) any { return p.Headroom }, uint64(100000), uint64(200000), uint64(300000)},
	{"pfc.xoff", "50KB", "60KB", "70KB", func(p Policy) any { return p.Xoff }, uint64(50000), uint64(60000), uint64(70000)},
	{"pfc.xon", "40KB", "45KB", "46KB", func(p Policy) any { return p.Xon }, uint64(40000), uint64(45000), uint64(46000)},
	{"pfc.cableLength", "5m", "100m", "1km", func(p Policy) any { return p.CableLength }, 5, 100, 1000},
	{"pfc.watchdog.enabled", "true", "false", "true", func(p Policy) any { return p.Watchdog.Enabled }, true, false, true},
	{"pfc.watchdog.detectionTime", "100ms", "200ms", "300ms", func(p Policy) any { return p.Watchdog.Detection }, 100 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond},
	{"pfc.watchdog.restorationTime", "1s", "2s", "3s", func(p Policy) any { return p.Watchdog.Restoration }, time.Second, 2 * time.Second, 3 * time.Second},
	{"pfc.watchdog.action", "drop", "forward", "drop", func(p Policy) any { return p.Watchdog.Action }, "drop", "forward", "drop"},
	{"mtu.switch", "max", "9216", "9000", func(p Policy) any { return p.SwitchMTU }, SwitchMTU{Max: true}, SwitchMTU{Value: 9216}, SwitchMTU{Value: 9000}},
	{"mtu.host", "9000", "4200", "1500", func(p Policy) any { return p.HostMTU }, 9000, 4200, 1500},
	{"roceMode", "v2", "v1", "v2", func(p Policy) any { return p.RoCEMode }, "v2", "v1", "v2"},
}

// losslessYAML writes one value per field as block YAML at the indent.
func losslessYAML(indent int, value func(policyField) string) string {
	var b strings.Builder
	var open []string // the sections currently open, e.g. [pfc watchdog]
	for _, f := range policyFields {
		parts := strings.Split(f.path, ".")
		sections, key := parts[:len(parts)-1], parts[len(parts)-1]
		common := 0
		for common < len(open) && common < len(sections) && open[common] == sections[common] {
			common++
		}
		open = open[:common]
		for _, s := range sections[common:] {
			fmt.Fprintf(&b, "%s%s:\n", strings.Repeat(" ", indent+2*len(open)), s)
			open = append(open, s)
		}
		fmt.Fprintf(&b, "%s%s: %s\n", strings.Repeat(" ", indent+2*len(open)), key, value(f))
	}
	return b.String()
}

func precedenceFabric() []byte {
	return []byte(docHead + "spec:\n" +
		"  lossless:\n" + losslessYAML(4, func(f policyField) string { return f.fabric }) +
		"  groups:\n" +
		"    - name: g\n" +
		"      overrides:\n" + losslessYAML(8, func(f policyField) string { return f.grp }) +
		"  switches:\n" +
		"    - {name: s-group, group: g}\n" +
		"    - name: s-own\n" +
		"      group: g\n" +
		"      overrides:\n" + losslessYAML(8, func(f policyField) string { return f.dev }) +
		"    - {name: s-plain}\n" +
		"  hosts:\n" +
		"    - {name: h-group, group: g}\n" +
		"    - name: h-own\n" +
		"      group: g\n" +
		"      overrides:\n" + losslessYAML(8, func(f policyField) string { return f.dev }) +
		"    - {name: h-plain}\n")
}

func mustResolve(t *testing.T, data []byte) *Resolved {
	t.Helper()
	fab, diags := LoadBytes("f.yaml", data)
	if len(diags) > 0 {
		t.Fatalf("load: %v", diagStrings(diags))
	}
	r, diags := Resolve(fab)
	if len(diags) > 0 {
		t.Fatalf("resolve: %v", diagStrings(diags))
	}
	return r
}

// TestPrecedence checks device > group > fabric for every lossless field,
// and that each value reports where it was written.
func TestPrecedence(t *testing.T) {
	r := mustResolve(t, precedenceFabric())
	devices := []struct {
		name   string
		policy Policy
		layer  string // which layer wins: fabric, group or device
		prefix string // field path of the winning lossless section
	}{
		{"fabric", r.Policy, "fabric", "spec.lossless"},
		{"s-group", r.Switch("s-group").Policy, "group", "spec.groups[0].overrides"},
		{"s-own", r.Switch("s-own").Policy, "device", "spec.switches[1].overrides"},
		{"s-plain", r.Switch("s-plain").Policy, "fabric", "spec.lossless"},
		{"h-group", r.Host("h-group").Policy, "group", "spec.groups[0].overrides"},
		{"h-own", r.Host("h-own").Policy, "device", "spec.hosts[1].overrides"},
		{"h-plain", r.Host("h-plain").Policy, "fabric", "spec.lossless"},
	}
	for _, d := range devices {
		for _, f := range policyFields {
			t.Run(d.name+"/"+f.path, func(t *testing.T) {
				want := map[string]any{"fabric": f.wantF, "group": f.wantG, "device": f.wantD}[d.layer]
				if diff := cmp.Diff(want, f.get(d.policy)); diff != "" {
					t.Errorf("value (-want +got):\n%s", diff)
				}
				at, written := d.policy.Written(f.path)
				wantField := d.prefix + "." + f.path
				if !written || at.Field != wantField || at.File != "f.yaml" || at.Line == 0 {
					t.Errorf("Written(%s) = %v, %v; want %s", f.path, at, written, wantField)
				}
				if o := d.policy.Origin(f.path); o != at {
					t.Errorf("Origin(%s) = %v, Written = %v", f.path, o, at)
				}
			})
		}
	}
	// Overrides must not leak back into the fabric policy or other devices.
	if !slices.Equal(r.Policy.RoCEDSCP, []int{26}) || !slices.Equal(r.Switch("s-group").Policy.RoCEDSCP, []int{24}) {
		t.Errorf("RoCE DSCP leaked between layers: fabric %v, group %v", r.Policy.RoCEDSCP, r.Switch("s-group").Policy.RoCEDSCP)
	}
}

func TestOriginLines(t *testing.T) {
	r := mustResolve(t, withHeader(
		"  lossless:",   //                    line 4
		"    vlan: 100", //                  line 5
		"    ecn:",
		"      minThreshold: 150KB", //      line 7
		"  groups:",
		"    - name: g",
		"      overrides:",
		"        ecn: {minThreshold: 100KB}", // line 11
		"  switches:",
		"    - {name: s1, group: g}",
		"    - {name: s2}",
	))
	s1, s2 := r.Switch("s1").Policy, r.Switch("s2").Policy
	tests := []struct {
		name    string
		got     Loc
		written bool
		want    Loc
	}{
		{"group override", s1.Origin("ecn.minThreshold"), true, Loc{"f.yaml", 11, 15, "spec.groups[0].overrides.ecn.minThreshold"}},
		{"fabric value", s2.Origin("ecn.minThreshold"), true, Loc{"f.yaml", 7, 7, "spec.lossless.ecn.minThreshold"}},
		{"fabric value through a group", s1.Origin("vlan"), true, Loc{"f.yaml", 5, 5, "spec.lossless.vlan"}},
		// A default points at the fabric's lossless section.
		{"default", s1.Origin("cnp.dscp"), false, Loc{"f.yaml", 5, 5, "spec.lossless.cnp.dscp"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("Origin = %+v, want %+v", tt.got, tt.want)
			}
		})
	}
	if _, ok := s1.Written("cnp.dscp"); ok {
		t.Error("Written(cnp.dscp) is true for a default")
	}
	// Without a lossless section, defaults point at the first file.
	r = mustResolve(t, withHeader("  hosts: [{name: h1}]"))
	if got, want := r.Host("h1").Policy.Origin("mtu.host"), (Loc{"f.yaml", 1, 1, "spec.lossless.mtu.host"}); got != want {
		t.Errorf("Origin without lossless = %+v, want %+v", got, want)
	}
}

func TestDefaults(t *testing.T) {
	r := mustResolve(t, withHeader("  switches: [{name: s1}]", "  hosts: [{name: h1, nics: [{netdev: eth0}]}]"))
	want := Policy{
		Profile: "dcqcn", NoDropPriority: 3, RoCEDSCP: []int{26}, Trust: "dscp", CNPDSCP: 48, CNPPriority: 6,
		ECNMin: 150000, ECNMax: 1500000, MarkProbability: 100, PFCEnabled: true, PFCPriorities: []int{3},
		Watchdog: Watchdog{Enabled: true, Action: "drop"}, SwitchMTU: SwitchMTU{Max: true}, HostMTU: 9000, RoCEMode: "v2",
	}
	for name, p := range map[string]Policy{"fabric": r.Policy, "switch": r.Switch("s1").Policy, "host": r.Host("h1").Policy} {
		if diff := cmp.Diff(want, p, cmp.AllowUnexported(Policy{}), cmp.FilterPath(func(p cmp.Path) bool {
			return p.Last().String() == ".origin"
		}, cmp.Ignore())); diff != "" {
			t.Errorf("%s policy defaults (-want +got):\n%s", name, diff)
		}
		if p.RoCEToS() != 106 || p.PFCBitmap() != 0b1000 || !p.ECNOn() || !p.PFCOn() {
			t.Errorf("%s: ToS %d, PFC bitmap %08b, ECN %v, PFC %v", name, p.RoCEToS(), p.PFCBitmap(), p.ECNOn(), p.PFCOn())
		}
	}
	wantProbe := Probe{Pairs: "cabling", CrossLeafSample: 2, Sizes: []int{64, 1024, 4096}, Count: 200, Duration: 5 * time.Second,
		RatePPS: 2000, PKey: 0x8F00, QPMin: 0xF00000, QPMax: 0xF0FFFF}
	if diff := cmp.Diff(wantProbe, r.Probe); diff != "" {
		t.Errorf("probe defaults (-want +got):\n%s", diff)
	}
	sw := r.Switch("s1")
	if sw.Transport != "" || len(sw.Ports) != 0 || sw.OCFallback != "" {
		t.Errorf("switch defaults: %+v", sw)
	}
	if nic := r.Host("h1").NICs[0]; nic.RDMAPort != 1 {
		t.Errorf("NIC rdmaPort default = %d, want 1", nic.RDMAPort)
	}
}

func TestProfiles(t *testing.T) {
	tests := []struct {
		profile  string
		ecn, pfc bool
		bitmap   uint8
		lossPct  float64
	}{
		{"dcqcn", true, true, 0b1000, 0},
		{"pfc-only", false, true, 0b1000, 0},
		{"ecn-only", true, false, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.profile, func(t *testing.T) {
			r := mustResolve(t, withHeader("  lossless: {profile: "+tt.profile+"}"))
			p := r.Policy
			if p.ECNOn() != tt.ecn || p.PFCOn() != tt.pfc || p.PFCBitmap() != tt.bitmap || r.Probe.MaxLossPercent != tt.lossPct {
				t.Errorf("ECN %v PFC %v bitmap %08b loss %v", p.ECNOn(), p.PFCOn(), p.PFCBitmap(), r.Probe.MaxLossPercent)
			}
		})
	}
	r := mustResolve(t, withHeader("  lossless: {pfc: {enabled: false}}"))
	if r.Policy.PFCOn() || r.Policy.PFCBitmap() != 0 {
		t.Error("pfc.enabled false still renders PFC")
	}
}

// TestNoDropPriorityMovesPFC: PFC follows the no-drop priority unless its
// priorities are written.
func TestNoDropPriorityMovesPFC(t *testing.T) {
	r := mustResolve(t, withHeader(
		"  lossless: {noDropPriority: 4}", // line 4
		"  groups:",
		"    - {name: g5, overrides: {noDropPriority: 5}}",
		"    - {name: g2, overrides: {noDropPriority: 2, pfc: {priorities: [2, 3]}}}",
		"  switches:",
		"    - {name: s4}",
		"    - {name: s5, group: g5}",
		"    - {name: s2, group: g2}",
	))
	tests := []struct {
		sw    string
		prios []int
		field string
	}{
		{"s4", []int{4}, "spec.lossless.noDropPriority"},
		{"s5", []int{5}, "spec.groups[0].overrides.noDropPriority"},
		{"s2", []int{2, 3}, "spec.groups[1].overrides.pfc.priorities"},
	}
	for _, tt := range tests {
		p := r.Switch(tt.sw).Policy
		at, _ := p.Written("pfc.priorities")
		if !slices.Equal(p.PFCPriorities, tt.prios) || at.Field != tt.field {
			t.Errorf("%s: PFC priorities %v from %s, want %v from %s", tt.sw, p.PFCPriorities, at.Field, tt.prios, tt.field)
		}
	}
}

func TestDeviceAttributePrecedence(t *testing.T) {
	r := mustResolve(t, withHeader(
		"  groups:",
		"    - name: leaves", // line 5
		"      platform: sonic",
		"      transport: gnmi",
		"      credentials: {username: group-user, passwordEnv: GROUP_PASS}",
		"      tls: {serverName: group.example.net}",
		"      model: group-model",
		"      osVersion: group-os",
		"      portSpeed: 100G",
		"      asic: mellanox",
		"      junos: {queueBufferSize: 10MB}",
		"      openconfig: {pfcFallback: {platform: eos}}",
		"      netns: group-ns",
		"  switches:",
		"    - name: member",
		"      group: leaves",
		"      address: 192.0.2.1",
		"    - name: own", // line 21
		"      group: leaves",
		"      platform: eos",
		"      transport: ssh",
		"      credentials: {username: own-user, passwordFile: /run/own}",
		"      tls: {serverName: own.example.net}",
		"      model: own-model",
		"      osVersion: own-os",
		"      portSpeed: 400G",
		"      asic: broadcom",
		"      junos: {fillLevelMin: 1, fillLevelMax: 10}",
		"      openconfig: {pfcFallback: {platform: nxos}}",
		"      netns: own-ns",
		"  hosts:",
		"    - {name: h-group, group: leaves}",
		"    - {name: h-own, group: leaves, credentials: {username: root, passwordEnv: HOST_PASS}}",
	))
	type attrs struct {
		Platform, Transport, User, Pass, ServerName, Model, OS, Speed, ASIC, Fallback, Netns string
		QueueBuffer                                                                          bool
	}
	get := func(s *Switch) attrs {
		return attrs{s.Platform, s.Transport, s.Creds.Username, s.Creds.PasswordEnv + s.Creds.PasswordFile, s.TLS.ServerName,
			s.Model, s.OSVersion, s.PortSpeed.String(), s.ASIC, s.OCFallback, s.Netns, decodeSection(t, s.Sections, "junos").QueueBufferSize != nil}
	}
	if diff := cmp.Diff(attrs{"sonic", "gnmi", "group-user", "GROUP_PASS", "group.example.net", "group-model", "group-os", "100G", "mellanox", "eos", "group-ns", true},
		get(r.Switch("member"))); diff != "" {
		t.Errorf("member takes the group's attributes (-want +got):\n%s", diff)
	}
	// The device's junos block replaces the group's as a whole.
	if diff := cmp.Diff(attrs{"eos", "ssh", "own-user", "/run/own", "own.example.net", "own-model", "own-os", "400G", "broadcom", "nxos", "own-ns", false},
		get(r.Switch("own"))); diff != "" {
		t.Errorf("own attributes win (-want +got):\n%s", diff)
	}
	member, own := r.Switch("member"), r.Switch("own")
	for _, field := range []string{"platform", "transport", "credentials", "tls", "model", "osVersion", "portSpeed", "asic", "junos", "openconfig", "netns"} {
		if at := member.AttrAt(r, field); at.Line < 6 || at.Line > 16 || at.Field != "spec.groups[0]."+field {
			t.Errorf("member.AttrAt(%s) = %v, want the group's line", field, at)
		}
		if at := own.AttrAt(r, field); at.Line < 23 || at.Field != "spec.switches[1]."+field {
			t.Errorf("own.AttrAt(%s) = %v, want the device's line", field, at)
		}
	}
	if at := member.AttrAt(r, "platform"); at != (Loc{"f.yaml", 6, 7, "spec.groups[0].platform"}) {
		t.Errorf("AttrAt(platform) = %+v", at)
	}
	// Not written anywhere: the device itself.
	r2 := mustResolve(t, withHeader("  switches: [{name: s1}]"))
	if at := r2.Switch("s1").AttrAt(r2, "platform"); at != (Loc{"f.yaml", 4, 14, "spec.switches[0].platform"}) {
		t.Errorf("AttrAt unwritten = %+v", at)
	}
	if got := r.Host("h-group").Creds.PasswordEnv; got != "GROUP_PASS" {
		t.Errorf("host takes the group's credentials: %q", got)
	}
	if got := r.Host("h-own").Creds.PasswordEnv; got != "HOST_PASS" {
		t.Errorf("host's own credentials win: %q", got)
	}
}

func TestResolvePortsAndLinks(t *testing.T) {
	r := mustResolve(t, withHeader(
		"  lossless: {vlan: 100}",
		"  switches:",
		"    - name: leaf1",
		"      ports:",
		"        - names: swp1-2", // line 8
		"        - {names: swp3, mode: routed, lag: bond1}",
		"    - name: spine1",
		"      ports: [{names: swp1}]",
		"  hosts:",
		"    - name: h1",
		"      nics: [{netdev: eth0, rdmaDevice: mlx5_0, rdmaPort: 2, address: 198.51.100.1}, {netdev: eth1}]",
		"  links:",
		"    - {a: h1:eth0, b: leaf1:swp1}",
		"    - {a: leaf1:swp2, b: h1:eth1}",
		"    - {a: leaf1:swp3, b: spine1:swp1}",
	))
	leaf := r.Switch("leaf1")
	entry0, entry1 := Loc{"f.yaml", 8, 11, "spec.switches[0].ports[0].speed"}, Loc{"f.yaml", 9, 11, "spec.switches[0].ports[1].speed"}
	want := []Port{
		{Name: "swp1", Mode: "trunk", At: Loc{"f.yaml", 8, 11, "spec.switches[0].ports[0].names"}, SpeedAt: entry0,
			Cable: &Cable{At: Loc{"f.yaml", 16, 7, "spec.links[0].length"}, Peer: Endpoint{"h1", "eth0"}, PeerIsHost: true, PeerMTU: SwitchMTU{Value: 9000}}},
		{Name: "swp2", Mode: "trunk", At: Loc{"f.yaml", 8, 11, "spec.switches[0].ports[0].names"}, SpeedAt: entry0,
			Cable: &Cable{At: Loc{"f.yaml", 17, 7, "spec.links[1].length"}, Peer: Endpoint{"h1", "eth1"}, PeerIsHost: true, PeerMTU: SwitchMTU{Value: 9000}}},
		{Name: "swp3", Mode: "routed", LAG: "bond1", At: Loc{"f.yaml", 9, 12, "spec.switches[0].ports[1].names"}, LAGAt: Loc{"f.yaml", 9, 39, "spec.switches[0].ports[1].lag"}, SpeedAt: entry1,
			Cable: &Cable{At: Loc{"f.yaml", 18, 7, "spec.links[2].length"}, Peer: Endpoint{"spine1", "swp1"}, PeerMTU: SwitchMTU{Max: true}}},
	}
	if diff := cmp.Diff(want, leaf.Ports); diff != "" {
		t.Errorf("ports (-want +got):\n%s", diff)
	}
	if p, ok := leaf.Port("swp3"); !ok || p.LAG != "bond1" {
		t.Errorf("Port(swp3) = %+v, %v", p, ok)
	}
	if _, ok := leaf.Port("swp9"); ok {
		t.Error("Port(swp9) found")
	}
	nics := r.Host("h1").NICs
	if nics[0].RDMADevice != "mlx5_0" || nics[0].RDMAPort != 2 || nics[0].Address != "198.51.100.1" || nics[1].RDMAPort != 1 {
		t.Errorf("NICs = %+v", nics)
	}
	if len(r.Links) != 3 {
		t.Fatalf("links = %+v", r.Links)
	}
	hl := r.HostLinks()
	if len(hl) != 2 || hl[0].HostEnd.Port != "eth0" || hl[1].HostEnd.Port != "eth1" || hl[1].SwitchEnd.Port != "swp2" {
		t.Errorf("HostLinks = %+v", hl)
	}
	if l := r.Links[2]; l.HostEnd != nil || l.SwitchEnd != (Endpoint{"leaf1", "swp3"}) {
		t.Errorf("switch-to-switch link = %+v", l)
	}
	if p := r.Switch("spine1").Ports[0]; p.Cable == nil || p.Cable.Peer != (Endpoint{"leaf1", "swp3"}) || p.Cable.PeerIsHost {
		t.Errorf("spine1 swp1 cable = %+v", p.Cable)
	}
	// Routed fabrics (no VLAN) default ports to routed.
	r = mustResolve(t, withHeader("  switches: [{name: s, ports: [{names: swp1}]}]"))
	if m := r.Switch("s").Ports[0].Mode; m != "routed" {
		t.Errorf("port mode without VLAN = %s", m)
	}
}

func TestResolveUnknownReferences(t *testing.T) {
	fab, diags := LoadBytes("f.yaml", withHeader(
		"  groups: [{name: leaves}]",
		"  switches:",
		"    - {name: leaf1, group: leafs}", // line 6
		"    - {name: leaf2, ports: [{names: swp1}]}",
		"  hosts:",
		"    - {name: h1, group: gpus, nics: [{netdev: eth0}]}", // line 9
		"    - {name: h2, nics: [{netdev: eth0}]}",
		"  links:",
		"    - {a: h1:eth1, b: leaf2:swp1}", //  line 12
		"    - {a: h9:eth0, b: leaf2:swp1}", //  line 13
		"    - {a: h1:eth0, b: h2:eth0}",    //     line 14
	))
	if len(diags) > 0 {
		t.Fatal(diagStrings(diags))
	}
	r, diags := Resolve(fab)
	want := []string{
		`f.yaml:6:21: RF013 error spec.switches[0].group: group "leafs" is not defined (did you mean "leaves"?)`,
		`f.yaml:9:18: RF013 error spec.hosts[0].group: group "gpus" is not defined`,
		`f.yaml:12:8: RF013 error spec.links[0].a: host "h1" has no NIC "eth1"`,
		`f.yaml:13:8: RF013 error spec.links[1].a: device "h9" is not defined`,
		`f.yaml:14:7: RF013 error spec.links[2]: link h1:eth0 – h2:eth0 joins two hosts; cable each host to a switch port`,
	}
	if diff := cmp.Diff(want, diagStrings(diags)); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
	if len(r.Links) != 0 || len(r.Switches) != 2 || r.Switch("leaf1").Platform != "" {
		t.Errorf("resolved despite bad references: %d links, %d switches", len(r.Links), len(r.Switches))
	}
}

// TestPortSpeedAndCableLength: a ports entry's speed wins over the
// switch's portSpeed, which wins over its group's; each port knows where
// its speed was written and the length of its cable.
func TestPortSpeedAndCableLength(t *testing.T) {
	r := mustResolve(t, withHeader(
		"  groups:",
		"    - {name: leaves, portSpeed: 100G}", // line 5
		"  switches:",
		"    - name: leaf1",
		"      group: leaves",
		"      ports:",
		"        - names: swp1-2", // line 10
		"        - {names: swp3, speed: 400G}",
		"        - {names: swp4, speed: unknown}",
		"    - name: leaf2",
		"      portSpeed: 25G", // line 14
		"      ports: [{names: swp1}]",
		"    - name: leaf3",
		"      ports: [{names: swp1}]",
		"  hosts:",
		"    - {name: h1, nics: [{netdev: eth0}]}",
		"  links:",
		"    - {a: h1:eth0, b: leaf1:swp1, length: 3m}", // line 21
		"    - {a: leaf1:swp3, b: leaf2:swp1, length: 1km}",
	))
	leaf1, leaf2, leaf3 := r.Switch("leaf1"), r.Switch("leaf2"), r.Switch("leaf3")
	for _, c := range []struct {
		p            Port
		speed        string
		line, length int
		cabled       bool
	}{
		{leaf1.Ports[0], "100G", 5, 3, true},
		{leaf1.Ports[1], "100G", 5, 0, false},
		{leaf1.Ports[2], "400G", 11, 1000, true},
		{leaf1.Ports[3], "unknown", 12, 0, false},
		{leaf2.Ports[0], "25G", 14, 1000, true},
		{leaf3.Ports[0], "", 17, 0, false},
	} {
		if c.p.Speed.String() != c.speed || c.p.SpeedAt.Line != c.line {
			t.Errorf("%s: speed %q at line %d, want %q at %d", c.p.Name, c.p.Speed, c.p.SpeedAt.Line, c.speed, c.line)
		}
		if (c.p.Cable != nil) != c.cabled || (c.p.Cable != nil && c.p.Cable.Length != c.length) {
			t.Errorf("%s: cable %+v, want length %d", c.p.Name, c.p.Cable, c.length)
		}
	}
	if at := leaf1.Ports[0].Cable.At; at.Line != 21 || at.Field != "spec.links[0].length" {
		t.Errorf("length written at %+v", at)
	}
	if l := r.Links[1]; l.Length != 1000 || l.LengthAt.Field != "spec.links[1].length" {
		t.Errorf("link = %+v", l)
	}
	if leaf1.PortSpeed.Mbps != 100000 || leaf3.PortSpeed.Written() {
		t.Errorf("portSpeed: %v %v", leaf1.PortSpeed, leaf3.PortSpeed)
	}
}

func TestZeroCableLength(t *testing.T) {
	f, diags := LoadBytes("f.yaml", withHeader(
		"  switches: [{name: s1, ports: [{names: swp1}]}]",
		"  hosts: [{name: h1, nics: [{netdev: eth0}]}]",
		"  links:",
		"    - {a: h1:eth0, b: s1:swp1, length: 0m}",
	))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	_, rd := Resolve(f)
	if len(rd) != 1 || rd[0].Code != CodeBadUnit || rd[0].Field != "spec.links[0].length" || !strings.Contains(rd[0].Message, "at least 1 m") {
		t.Errorf("diagnostics = %v", rd)
	}
}
