package renderers

import (
	"strings"
	"testing"

	"github.com/rocefab/rocefab/intent"
)

func TestCompactPortNames(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{[]string{"swp1", "swp2", "swp3", "swp4"}, "swp1-4"},
		{[]string{"swp1", "swp2", "swp7"}, "swp1-2, swp7"},
		{[]string{"swp1", "swp3"}, "swp1, swp3"},
		{[]string{"Ethernet0", "Ethernet4", "Ethernet8", "Ethernet12"}, "Ethernet0-12 step 4"},
		{[]string{"Ethernet1/2", "Ethernet1/1", "Ethernet1/3"}, "Ethernet1/1-3"},
		{[]string{"et-0/0/0", "et-0/0/1", "et-0/1/0"}, "et-0/0/0-1, et-0/1/0"},
		{[]string{"swp1s0", "swp1s1", "swp1s2"}, "swp1s0-2"},
		{[]string{"bond", "swp1"}, "bond, swp1"},
		{nil, ""},
	} {
		if got := CompactPortNames(tc.in); got != tc.want {
			t.Errorf("CompactPortNames(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func headroomSwitch() *intent.Switch {
	p := intent.Policy{Profile: intent.ProfileDCQCN, PFCEnabled: true, PFCPriorities: []int{3}, NoDropPriority: 3,
		SwitchMTU: intent.SwitchMTU{Max: true}, HostMTU: 9000}
	return &intent.Switch{Name: "leaf1", Platform: "cumulus", Model: "SN3700", Policy: p, Ports: []intent.Port{
		{Name: "swp1", Speed: intent.Speed{Mbps: 100000}, Cable: &intent.Cable{Length: 3, PeerIsHost: true, PeerMTU: intent.SwitchMTU{Value: 9000}}},
		{Name: "swp2", Speed: intent.Speed{Mbps: 100000}, Cable: &intent.Cable{Length: 3, PeerIsHost: true, PeerMTU: intent.SwitchMTU{Value: 9000}}},
		{Name: "swp3", Cable: &intent.Cable{PeerMTU: intent.SwitchMTU{Max: true}}},
		{Name: "swp4", Speed: intent.Speed{Unknown: true}},
	}}
}

// TestHeadroomInputs: speed from the port, else the ASIC's fastest port;
// length from the link, else pfc.cableLength, else the platform default;
// the peer's frame from its MTU, this port's from the switch MTU.
func TestHeadroomInputs(t *testing.T) {
	sw := headroomSwitch()
	h := Headroom(sw, &HeadroomFacts{DefaultCableLength: 100}, 9216)
	if h.ASIC.Name != "Spectrum-2" || h.ASICFrom != "model" || len(h.Ports) != 4 {
		t.Fatalf("ASIC %s from %q, %d ports", h.ASIC.Name, h.ASICFrom, len(h.Ports))
	}
	for i, want := range []struct {
		speed, length, port, peer   int
		speedAssumed, lengthAssumed bool
	}{
		{100000, 3, 9238, 9022, false, false},
		{100000, 3, 9238, 9022, false, false},
		{200000, 100, 9238, 9238, true, true}, // Spectrum-2's fastest port, the cumulus default
		{200000, 100, 9238, 9238, true, true},
	} {
		ph := h.Ports[i]
		if ph.SpeedMbps != want.speed || ph.Length != want.length || ph.PortFrame != want.port || ph.PeerFrame != want.peer ||
			(ph.SpeedAssumed != "") != want.speedAssumed || (ph.LengthAssumed != "") != want.lengthAssumed || ph.Err != nil {
			t.Errorf("%s: %+v", ph.Port, ph)
		}
	}
	if !strings.Contains(h.Ports[3].SpeedAssumed, "speed unknown, the fastest Spectrum-2 port") {
		t.Errorf("unknown speed: %q", h.Ports[3].SpeedAssumed)
	}
	sw.Policy.CableLength = 40
	h = Headroom(sw, nil, 9216)
	if ph := h.Ports[2]; ph.Length != 40 || ph.LengthAssumed != "" || ph.LengthFrom != "pfc.cableLength" {
		t.Errorf("pfc.cableLength: %+v", ph)
	}
	if ph := h.Ports[0]; ph.Length != 3 || ph.LengthFrom != "the link" {
		t.Errorf("the link's length wins: %+v", ph)
	}
	sw.Policy.Profile = intent.ProfileECNOnly
	if h := Headroom(sw, nil, 9216); len(h.Ports) != 0 {
		t.Error("headroom computed without PFC")
	}
}

// TestHeadroomNotes: one line per group of ports that need the same, the
// assumptions named, and the total against the ASIC's buffer.
func TestHeadroomNotes(t *testing.T) {
	sw := headroomSwitch()
	sw.Policy.PFCPriorities = []int{3, 4}
	h := Headroom(sw, &HeadroomFacts{DefaultCableLength: 100}, 9216)
	notes := h.Notes(sw.Policy)
	// Spectrum-2 (SN3700), SONiC's formula: 100G over 3 m to a 9000-byte
	// host needs 48128 B (+ 19456 B xon); 200G over 100 m, 77824 B. swp3
	// and swp4 differ in why their speed is assumed: two lines.
	want := []string{
		"headroom: swp1-2 need xoff 48128 B, size 67584 B (100G, 3 m, Spectrum-2)",
		"headroom: swp3 need xoff 77824 B, size 97280 B (200G, 100 m, Spectrum-2; assumed 200G (speed not written, the fastest Spectrum-2 port), 100 m (no length, the cumulus default))",
		"headroom: swp4 need xoff 77824 B, size 97280 B (200G, 100 m, Spectrum-2; assumed 200G (speed unknown, the fastest Spectrum-2 port), 100 m (no length, the cumulus default))",
		"headroom: 4 lossless ports × 2 priorities reserve 659456 B of Spectrum-2's 34287552 B buffer",
	}
	if got := strings.Join(notes, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("notes:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	if total := h.Total(sw.Policy); total != 2*(67584*2+97280*2) {
		t.Errorf("total %d", total)
	}
	// An explicit xoff replaces the computed one: (19456 + 100000) per
	// port and priority.
	sw.Policy.Xoff = 100000
	if total := Headroom(sw, nil, 9216).Total(sw.Policy); total != 4*2*(19456+100000) {
		t.Errorf("total with an explicit xoff %d", total)
	}
}
