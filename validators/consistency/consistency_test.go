package consistency

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers/all"
	"github.com/rocefab/rocefab/validators/cabling"
)

func ptr[T any](v T) *T { return &v }

// basePolicy is the examples/basic policy: VLAN 100, DSCP 26 → 3, CNP 48 → 6.
func basePolicy() intent.Policy {
	return intent.Policy{
		Profile: intent.ProfileDCQCN, VLAN: 100, NoDropPriority: 3, RoCEDSCP: []int{26}, Trust: "dscp",
		CNPDSCP: 48, CNPPriority: 6, PFCEnabled: true, PFCPriorities: []int{3}, HostMTU: 9000,
	}
}

// baseNIC is what renderers/host renders for that policy.
func baseNIC() devcfg.NICSettings {
	return devcfg.NICSettings{
		Netdev: "ens1f0", RDMADevice: "mlx5_0", RDMAPort: 1, VLANNetdev: "ens1f0.100", VLAN: 100, MTU: 9000,
		PFCEnable: ptr(uint8(0x08)), Trust: "dscp",
		App:                  []devcfg.AppEntry{{Selector: 5, Priority: 3, Protocol: 26}, {Selector: 5, Priority: 6, Protocol: 48}},
		ECNNotificationPoint: []int{3}, ECNReactionPoint: []int{3}, CNPDSCP: ptr(48), CNPPriority: ptr(6),
		RoCEMode: "RoCE v2", RoCEToS: ptr(106), LinkPause: ptr(false), DCBXMode: "host-ieee",
	}
}

func basePort() SwitchPort {
	return SwitchPort{Switch: "leaf3", Port: "Ethernet1/7", Mode: "trunk", Policy: basePolicy(), MTU: 9216}
}

func TestMatchedPairHasNoFindings(t *testing.T) {
	if got := Check(HostNIC{Host: "gpu07", NIC: baseNIC()}, basePort()); len(got) != 0 {
		t.Errorf("findings on a consistent pair: %v", got)
	}
}

func TestMismatchedPairs(t *testing.T) {
	tests := []struct {
		name   string
		host   func(n *devcfg.NICSettings)
		sw     func(s *SwitchPort)
		code   string
		sev    Severity
		substr string
	}{
		{"DSCP mapped to the wrong priority", func(n *devcfg.NICSettings) { n.App[0].Priority = 4 }, nil,
			CodeDSCPMap, Error, "gpu07 ens1f0 maps DSCP 26 to priority 4 but leaf3 Ethernet1/7 expects 3 (RoCE)"},
		{"switch moved the no-drop priority", nil, func(s *SwitchPort) { s.Policy.NoDropPriority, s.Policy.PFCPriorities = 4, []int{4} },
			CodeDSCPMap, Error, "gpu07 ens1f0 maps DSCP 26 to priority 3 but leaf3 Ethernet1/7 expects 4"},
		{"missing DSCP entry, default differs", func(n *devcfg.NICSettings) { n.App = n.App[1:] }, func(s *SwitchPort) { s.Policy.RoCEDSCP = []int{34} },
			CodeDSCPMap, Error, "has no APP entry for DSCP 34, so the NIC default (DSCP>>3) gives priority 4, but leaf3 Ethernet1/7 expects 3"},
		{"missing DSCP entry, default matches", func(n *devcfg.NICSettings) { n.App = n.App[1:] }, nil,
			CodeDSCPMap, Warning, "relies on the NIC default (DSCP>>3 = 3)"},
		{"wrong PFC bit", func(n *devcfg.NICSettings) { n.PFCEnable = ptr(uint8(0x10)) }, nil,
			CodePFC, Error, "leaf3 Ethernet1/7 pauses priority 3 (PFC) but gpu07 ens1f0 does not enable PFC on it"},
		{"extra PFC bit on the host", func(n *devcfg.NICSettings) { n.PFCEnable = ptr(uint8(0x18)) }, nil,
			CodePFC, Error, "gpu07 ens1f0 enables PFC on priority 4 but leaf3 Ethernet1/7 does not"},
		{"PFC on host, switch ecn-only", nil, func(s *SwitchPort) { s.Policy.Profile = intent.ProfileECNOnly },
			CodePFC, Error, "enables PFC on priority 3 but leaf3 Ethernet1/7 does not"},
		{"CNP DSCP mismatch", func(n *devcfg.NICSettings) { n.CNPDSCP = ptr(46) }, nil,
			CodeCNPDSCP, Error, "gpu07 ens1f0 sends CNPs with DSCP 46 but leaf3 Ethernet1/7 expects CNP DSCP 48"},
		{"CNP priority mismatch (NVIDIA 6 vs Broadcom 7)", nil, func(s *SwitchPort) { s.Policy.CNPPriority = 7 },
			CodeCNPPriority, Error, "sends CNPs on priority 6 but leaf3 Ethernet1/7 expects CNP priority 7"},
		{"CNP DSCP mapped to the wrong priority", func(n *devcfg.NICSettings) { n.App[1].Priority = 7 }, nil,
			CodeCNPMap, Error, "maps DSCP 48 to priority 7 but leaf3 Ethernet1/7 expects 6 (CNP)"},
		{"trust mismatch", func(n *devcfg.NICSettings) { n.Trust = "pcp" }, nil,
			CodeTrust, Error, "gpu07 ens1f0 trusts pcp but leaf3 Ethernet1/7 trusts dscp"},
		{"MTU too big for the switch", func(n *devcfg.NICSettings) { n.MTU = 9216 }, func(s *SwitchPort) { s.MTU = 9000 },
			CodeMTU, Error, "gpu07 ens1f0 MTU 9216 (ens1f0 and ens1f0.100) exceeds leaf3 Ethernet1/7 MTU 9000: RoCE never fragments"},
		{"untagged host on a trunk", func(n *devcfg.NICSettings) { n.VLAN, n.VLANNetdev = 0, "" }, nil,
			CodeVLAN, Error, "gpu07 ens1f0 sends RoCE untagged but leaf3 Ethernet1/7 is a trunk for lossless VLAN 100"},
		{"wrong VLAN", func(n *devcfg.NICSettings) { n.VLAN = 200 }, nil,
			CodeVLAN, Error, "tags RoCE with VLAN 200 but leaf3 Ethernet1/7 carries the lossless class in VLAN 100"},
		{"tagged host on a routed port", nil, func(s *SwitchPort) { s.Mode = "routed" },
			CodeVLAN, Error, "leaf3 Ethernet1/7 is a routed port that takes untagged frames"},
		{"pcp trust on an access port", func(n *devcfg.NICSettings) { n.Trust, n.App, n.VLAN, n.VLANNetdev = "pcp", nil, 0, "" },
			func(s *SwitchPort) { s.Policy.Trust, s.Mode = "pcp", "access" },
			CodeTrust, Error, "leaf3 Ethernet1/7 trusts PCP but is an access port, so frames from gpu07 ens1f0 arrive untagged"},
		{"reaction point off", func(n *devcfg.NICSettings) { n.ECNReactionPoint = []int{} }, nil,
			CodeECN, Warning, "does not enable the DCQCN reaction point on it"},
		{"notification point on another priority", func(n *devcfg.NICSettings) { n.ECNNotificationPoint = []int{4} }, nil,
			CodeECN, Warning, "does not enable the DCQCN notification point on it"},
		{"link pause on with PFC", func(n *devcfg.NICSettings) { n.LinkPause = ptr(true) }, nil,
			CodePause, Error, "has 802.3x link pause on while leaf3 Ethernet1/7 runs PFC"},
		{"ToS with another DSCP", func(n *devcfg.NICSettings) { n.RoCEToS = ptr(98) }, nil,
			CodeRoCEToS, Error, "gpu07 mlx5_0 marks RoCE with DSCP 24 (ToS 98) but leaf3 Ethernet1/7 classifies DSCP 26 as RoCE"},
		{"ToS Not-ECT", func(n *devcfg.NICSettings) { n.RoCEToS = ptr(104) }, nil,
			CodeRoCEToS, Warning, "sends RoCE as Not-ECT (ToS 104)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := baseNIC()
			n.App = append([]devcfg.AppEntry(nil), n.App...)
			if tt.host != nil {
				tt.host(&n)
			}
			s := basePort()
			if tt.sw != nil {
				tt.sw(&s)
			}
			got := Check(HostNIC{Host: "gpu07", NIC: n}, s)
			found := false
			for _, f := range got {
				if f.Code == tt.code && f.Severity == tt.sev && strings.Contains(f.Message, tt.substr) {
					found = true
				}
				if f.Host != "gpu07" || f.NIC != "ens1f0" || f.Switch != "leaf3" || f.Port != "Ethernet1/7" {
					t.Errorf("finding does not name both ends: %+v", f)
				}
			}
			if !found {
				t.Errorf("no %s %s finding containing %q; got:\n%s", tt.sev, tt.code, tt.substr, list(got))
			}
		})
	}
}

func TestUnknownHostFieldsAreNotChecked(t *testing.T) {
	// A read-back where DCB, sysfs and configfs were unsupported (veth).
	n := devcfg.NICSettings{Netdev: "eth0", MTU: 9000}
	s := basePort()
	s.Mode = "routed"
	if got := Check(HostNIC{Host: "lab-h1", NIC: n}, s); len(got) != 0 {
		t.Errorf("unknown settings produced findings: %v", got)
	}
}

func TestPFCOnlyAndECNOnly(t *testing.T) {
	t.Run("pfc-only switch ignores host CNP and ECN", func(t *testing.T) {
		n := baseNIC()
		n.CNPDSCP, n.ECNReactionPoint = ptr(46), []int{}
		s := basePort()
		s.Policy.Profile = intent.ProfilePFCOnly
		if got := Check(HostNIC{Host: "h", NIC: n}, s); len(got) != 0 {
			t.Errorf("findings: %v", got)
		}
	})
	t.Run("ecn-only pair with PFC off on both", func(t *testing.T) {
		n := baseNIC()
		n.PFCEnable, n.LinkPause = ptr(uint8(0)), nil
		s := basePort()
		s.Policy.Profile = intent.ProfileECNOnly
		if got := Check(HostNIC{Host: "h", NIC: n}, s); len(got) != 0 {
			t.Errorf("findings: %v", got)
		}
	})
}

func TestCheckFabricBasic(t *testing.T) {
	fab, diags := intent.Load(filepath.Join("..", "..", "examples", "basic", "fabric.yaml"))
	if fab == nil || diags.HasErrors() {
		t.Fatal(diags)
	}
	r, _ := intent.Resolve(fab)
	reg := all.Renderers()
	got, err := CheckFabric(r, reg, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Errorf("examples/basic desired state is inconsistent:\n%s", list(got))
	}
	// A read-back of gpu02 whose NIC came up at MTU 9500 with DSCP 26 on 4.
	gpu02 := &devcfg.HostSettings{Host: "gpu02", NICs: []devcfg.NICSettings{{
		Netdev: "ens1f0np0", VLAN: 100, VLANNetdev: "ens1f0np0.100", MTU: 9500,
		App: []devcfg.AppEntry{{Selector: 5, Priority: 4, Protocol: 26}, {Selector: 5, Priority: 6, Protocol: 48}},
	}}}
	got, err = CheckFabric(r, reg, map[string]*devcfg.HostSettings{"gpu02": gpu02})
	if err != nil {
		t.Fatal(err)
	}
	text := list(got)
	for _, want := range []string{
		"gpu02 ens1f0np0 maps DSCP 26 to priority 4 but leaf-eos Ethernet1 expects 3 (RoCE)",
		"gpu02 ens1f0np0 MTU 9500 (ens1f0np0 and ens1f0np0.100) exceeds leaf-eos Ethernet1 MTU 9214",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in:\n%s", want, text)
		}
	}
	if len(got) != 2 {
		t.Errorf("want exactly 2 findings, got:\n%s", text)
	}
}

func list(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// TestCheckHostCabledSkipsUnverifiedLinks: a read-back that disagrees with
// its switch port is a finding on a verified link; on a link LLDP found
// miscabled the check compares nothing and says it skipped the link.
func TestCheckHostCabledSkipsUnverifiedLinks(t *testing.T) {
	fab, diags := intent.Load(filepath.Join("..", "..", "examples", "basic", "fabric.yaml"))
	if fab == nil || diags.HasErrors() {
		t.Fatal(diags)
	}
	r, _ := intent.Resolve(fab)
	reg := all.Renderers()
	h := r.Host("gpu02")
	links := r.HostLinksOf("gpu02")
	if h == nil || len(links) == 0 {
		t.Fatal("examples/basic has no gpu02 or it has no links")
	}
	bad := &devcfg.HostSettings{Host: "gpu02", NICs: []devcfg.NICSettings{{
		Netdev: "ens1f0np0", VLAN: 100, VLANNetdev: "ens1f0np0.100", MTU: 9500,
	}}}
	sw := links[0].SwitchEnd
	// LLDP: the switch port hears gpu02 (verified), or another host.
	verified := cabling.Classify(r.Links, cabling.Known(r), cabling.Observed{Read: []string{sw.Device},
		Neighbors: []cabling.Neighbor{{Device: sw.Device, Port: sw.Port, SysName: "gpu02", PortDescr: links[0].HostEnd.Port}}})
	miscabled := cabling.Classify(r.Links, cabling.Known(r), cabling.Observed{Read: []string{sw.Device},
		Neighbors: []cabling.Neighbor{{Device: sw.Device, Port: sw.Port, SysName: "gpu01", PortDescr: "ens1f0np0"}}})
	cases := []struct {
		name      string
		cab       *cabling.Report
		findings  bool
		skipped   cabling.Status
		reasonHas string
	}{
		{"no cabling report trusts the intent", nil, true, "", ""},
		{"verified link is checked", verified, true, "", ""},
		{"miscabled link is skipped", miscabled, false, cabling.Miscabled, sw.Device + " " + sw.Port + " reaches gpu01 ens1f0np0"},
		{"unread link is skipped", cabling.Classify(r.Links, cabling.Known(r), cabling.Observed{}), false, cabling.Unread, "neither gpu02 nor " + sw.Device + " was read"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fs, skipped, err := CheckHostCabled(r, reg, h, bad, tc.cab)
			if err != nil {
				t.Fatal(err)
			}
			if (len(fs) > 0) != tc.findings {
				t.Errorf("findings %v, want some: %v", list(fs), tc.findings)
			}
			if tc.skipped == "" {
				if len(skipped) != 0 {
					t.Errorf("skipped %v, want none", skipped)
				}
				return
			}
			if len(skipped) != len(links) || skipped[0].Status != tc.skipped || !strings.Contains(skipped[0].Reason, tc.reasonHas) ||
				skipped[0].Link != cabling.LinkName(links[0]) {
				t.Errorf("skipped %+v, want %s of %s saying %q", skipped, tc.skipped, cabling.LinkName(links[0]), tc.reasonHas)
			}
		})
	}
}
