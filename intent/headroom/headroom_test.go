package headroom

import (
	"math"
	"strings"
	"testing"
)

func mustASIC(t *testing.T, key string) ASIC {
	t.Helper()
	a, ok := Lookup(key)
	if !ok {
		t.Fatalf("no ASIC %q", key)
	}
	return a
}

// sonicDefaults are the inputs SONiC's dynamic buffer model uses on an
// NVIDIA switch out of the box: PORT mtu 9100 and LOSSLESS_TRAFFIC_PATTERN
// mtu 1024, small_packet_percentage 50 (sonic-buildimage
// files/build_templates/buffers_config.j2), no shared headroom pool, no
// gearbox, 4-lane ports.
func sonicDefaults(asic ASIC, speedMbps, meters int) Inputs {
	return Inputs{SpeedMbps: speedMbps, CableMeters: meters, PortFrame: 9100, PeerFrame: 1024, SmallPacketPercent: 50, ASIC: asic}
}

// TestWorkedExamples reproduces SONiC's own headroom calculation,
// sonic-net/sonic-swss cfgmgr/buffer_headroom_mellanox.lua (commit
// e6b0c5b), with the ASIC facts of sonic-buildimage
// platform/mellanox/asic_table.j2 (commit 086b03b) and SONiC's defaults
// above. Each expected figure is that script's arithmetic, step by step:
//
//	cable       = 2 × m × Mb/s × 1e9 / 198e6 / 8000
//	response    = quanta × 512 / 8  (394 quanta at 100G, 905 at 400G)
//	propagation = 9100 + cable + 819.2 (0.8 KB) + response (+ Gb/s × 15 on Spectrum-4)
//	occupancy   = (100 − p + p × ceil(worst)) / 100, p = 6400 / ((50×64 + 50×1024)/100) = 11.76 %
//	xoff        = ceil1K(1024 + propagation × occupancy), + 2048 when still 2 KiB below the all-small case
//	xon         = ceil1K(19 KB) = 19456; size = xoff + xon
func TestWorkedExamples(t *testing.T) {
	for _, c := range []struct {
		name          string
		asic          string
		speed, meters int
		// expected, from the arithmetic in the comment
		cable, propagation float64
		xoff, xon, size    uint64
	}{
		// Spectrum-2 (cell 144: worst factor ceil(2.25) = 3, occupancy 1.2353):
		// 35513.99 × 1.2353 + 1024 = 44894 → 45056; all-small 107566 → 108544, so +2048.
		{"Spectrum-2 100G over 3 m", "spectrum-2", 100000, 3, 378.79, 35513.99, 47104, 19456, 66560},
		// 73013.99 × 1.2353 + 1024 = 91217 → 92160, +2048.
		{"Spectrum-2 100G over 300 m", "spectrum-2", 100000, 300, 37878.79, 73013.99, 94208, 19456, 113664},
		// 5 m, the SONiC default cable: 35766.51 × 1.2353 + 1024 = 45206 → 46080, +2048.
		{"Spectrum-2 100G over 5 m", "spectrum-2", 100000, 5, 631.31, 35766.51, 48128, 19456, 67584},
		// Spectrum-3, 400G (905 quanta = 57920 B): 82990.72 × 1.2353 + 1024 = 103542 → 104448, +2048.
		{"Spectrum-3 400G over 30 m", "spectrum-3", 400000, 30, 15151.52, 82990.72, 106496, 19456, 125952},
		// Spectrum-4 (cell 192: factor 3) adds 400 × 15 = 6000 B on tile:
		// 88990.72 × 1.2353 + 1024 = 110954 → 111616, +2048.
		{"Spectrum-4 400G over 30 m", "spectrum-4", 400000, 30, 15151.52, 88990.72, 113664, 19456, 133120},
		// Spectrum (cell 96: 2·96/97 = 1.98 → 2, occupancy 1.1176):
		// 35766.51 × 1.1176 + 1024 = 40997 → 41984, +2048.
		{"Spectrum 100G over 5 m", "spectrum", 100000, 5, 631.31, 35766.51, 44032, 19456, 63488},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := Compute(sonicDefaults(mustASIC(t, c.asic), c.speed, c.meters))
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(r.Cable-c.cable) > 0.01 || math.Abs(r.Propagation-c.propagation) > 0.01 {
				t.Errorf("cable %.2f propagation %.2f, want %.2f and %.2f", r.Cable, r.Propagation, c.cable, c.propagation)
			}
			if r.Xoff != c.xoff || r.Xon != c.xon || r.Size != c.size {
				t.Errorf("xoff %d xon %d size %d, want %d %d %d", r.Xoff, r.Xon, r.Size, c.xoff, c.xon, c.size)
			}
		})
	}
}

// TestSONiCVariants covers the script's other branches with the same
// defaults: 8-lane ports double the pipeline latency and add a port MTU to
// size; a shared headroom pool leaves xon alone in size; Spectrum-6 adds
// 18 KiB to xoff; an all-small pattern needs no compensation.
func TestSONiCVariants(t *testing.T) {
	in := sonicDefaults(mustASIC(t, "spectrum-3"), 400000, 30)
	in.Lanes = 8
	r, _ := Compute(in)
	// xon = 2 × 19456 = 38912; size = 106496 + 38912 + 9100 = 154508 → 154624.
	if r.Xoff != 106496 || r.Xon != 38912 || r.Size != 154624 {
		t.Errorf("8-lane: %d %d %d", r.Xoff, r.Xon, r.Size)
	}
	in = sonicDefaults(mustASIC(t, "spectrum-2"), 100000, 300)
	in.SharedHeadroomPool = true
	r, _ = Compute(in)
	// No compensation with a shared pool: 92160; size = xon.
	if r.Xoff != 92160 || r.Size != 19456 {
		t.Errorf("shared headroom pool: xoff %d size %d", r.Xoff, r.Size)
	}
	r, _ = Compute(sonicDefaults(mustASIC(t, "spectrum-6"), 400000, 30))
	// cell 256: factor 4, p = 11.76 %: occupancy 1.3529; 82990.72 × 1.3529
	// + 1024 = 113305 → 113664, + 18432 = 132096; all-small 333824, so
	// +2048. xon = 42 KB.
	if r.Xoff != 134144 || r.Xon != 43008 {
		t.Errorf("Spectrum-6: xoff %d xon %d", r.Xoff, r.Xon)
	}
	in = sonicDefaults(mustASIC(t, "spectrum-2"), 100000, 3)
	in.SmallPacketPercent = 100
	r, _ = Compute(in)
	// Every packet small: occupancy 3; 35513.99 × 3 + 1024 = 107566 → 108544.
	if r.Occupancy != 3 || r.Xoff != 108544 {
		t.Errorf("all small: occupancy %v xoff %d", r.Occupancy, r.Xoff)
	}
}

// TestVendorProfilesPassTheMinimum: the lossless profiles Broadcom-based
// platforms ship in SONiC (sonic-buildimage device/common/profiles/*/gen/
// BALANCED/pg_profile_lookup.ini, commit 086b03b, "speed cable size xon
// xoff") must not fall below rocefab's minimum for the same port, or lint
// would refuse a vendor's own configuration. rocefab's inputs: a 9216-byte
// IP MTU on both ends (9238-byte frames), SONiC's 50 % small packets.
func TestVendorProfilesPassTheMinimum(t *testing.T) {
	for _, c := range []struct {
		profile       string
		asic          string
		speed, meters int
		vendorXoff    uint64
	}{
		{"th/gen 100000 5m", "tomahawk", 100000, 5, 165568},
		{"th/gen 100000 40m", "tomahawk", 100000, 40, 177632},
		{"th/gen 100000 300m", "tomahawk", 100000, 300, 268736},
		{"th/gen 40000 300m", "tomahawk", 40000, 300, 108160},
		{"th/gen 25000 5m", "tomahawk", 25000, 5, 53248},
		{"td2/gen 40000 5m", "trident-2", 40000, 5, 45136},
		{"td2/gen 40000 300m", "trident-2", 40000, 300, 62816},
		{"td2/gen 10000 300m", "trident-2", 10000, 300, 40560},
	} {
		in := Inputs{SpeedMbps: c.speed, CableMeters: c.meters, PortFrame: 9238, PeerFrame: 9238, ASIC: mustASIC(t, c.asic)}
		r, err := Compute(in)
		if err != nil {
			t.Fatal(err)
		}
		if r.Xoff > c.vendorXoff {
			t.Errorf("%s: rocefab's minimum xoff %d exceeds the vendor's %d", c.profile, r.Xoff, c.vendorXoff)
		}
		if r.Xoff < c.vendorXoff/8 {
			t.Errorf("%s: minimum %d is implausibly far below the vendor's %d", c.profile, r.Xoff, c.vendorXoff)
		}
	}
}

// TestHeadroomGrows: more cable, more speed and bigger frames never need
// less headroom.
func TestHeadroomGrows(t *testing.T) {
	for _, a := range append([]ASIC{Generic}, ASICs...) {
		prev := uint64(0)
		for _, m := range []int{1, 3, 30, 100, 300, 1000, 10000} {
			r, err := Compute(Inputs{SpeedMbps: 100000, CableMeters: m, PortFrame: 9238, PeerFrame: 9238, ASIC: a})
			if err != nil {
				t.Fatal(err)
			}
			if r.Xoff < prev {
				t.Errorf("%s: %d m needs %d, less than the shorter cable's %d", a.Name, m, r.Xoff, prev)
			}
			prev = r.Xoff
		}
		prev = 0
		for _, s := range Speeds() {
			r, _ := Compute(Inputs{SpeedMbps: s, CableMeters: 100, PortFrame: 9238, PeerFrame: 9238, ASIC: a})
			if r.Xoff < prev {
				t.Errorf("%s: %s needs %d, less than a slower port's %d", a.Name, SpeedText(s), r.Xoff, prev)
			}
			prev = r.Xoff
		}
	}
}

func TestComputeRefuses(t *testing.T) {
	for _, in := range []Inputs{
		{SpeedMbps: 2500, CableMeters: 3, PortFrame: 9238, PeerFrame: 9238},
		{SpeedMbps: 100000, CableMeters: -1, PortFrame: 9238, PeerFrame: 9238},
		{SpeedMbps: 100000, CableMeters: 3, PortFrame: 0, PeerFrame: 9238},
		{SpeedMbps: 100000, CableMeters: 3, PortFrame: 9238, PeerFrame: 9238, SmallPacketPercent: 101},
	} {
		if _, err := Compute(in); err == nil {
			t.Errorf("%+v: no error", in)
		}
	}
	_, err := Compute(Inputs{SpeedMbps: 2500, CableMeters: 3, PortFrame: 9238, PeerFrame: 9238})
	if err == nil || !strings.Contains(err.Error(), "2.5G") || !strings.Contains(err.Error(), "400G") {
		t.Errorf("error does not name the speed and the known ones: %v", err)
	}
}

func TestLookup(t *testing.T) {
	for name, want := range map[string]string{
		"Spectrum-3": "Spectrum-3", "spectrum3": "Spectrum-3", "SPECTRUM_4": "Spectrum-4", "spectrum-1": "Spectrum",
		"tomahawk 4": "Tomahawk4", "Tomahawk5": "Tomahawk5", "trident2": "Trident2", "jericho-2": "Jericho2",
	} {
		a, ok := Lookup(name)
		if !ok || a.Name != want {
			t.Errorf("Lookup(%q) = %q, %v; want %q", name, a.Name, ok, want)
		}
	}
	for _, name := range []string{"", "mellanox", "broadcom", "spectrum-9"} {
		if a, ok := Lookup(name); ok {
			t.Errorf("Lookup(%q) found %s", name, a.Name)
		}
	}
	for model, want := range map[string]string{
		"SN2700": "Spectrum", "MSN2100": "Spectrum", "SN3700": "Spectrum-2", "SN4700": "Spectrum-3", "sn4600c": "Spectrum-3",
		"SN5600": "Spectrum-4", "SN5610N": "Spectrum-4", "SN5640": "Spectrum-5", "SN6600": "Spectrum-6",
	} {
		a, ok := ForModel(model)
		if !ok || a.Name != want {
			t.Errorf("ForModel(%q) = %q, %v; want %q", model, a.Name, ok, want)
		}
	}
	for _, model := range []string{"", "N9K-C9364C", "DCS-7060X5-64S", "QFX5220-32CD"} {
		if a, ok := ForModel(model); ok {
			t.Errorf("ForModel(%q) found %s", model, a.Name)
		}
	}
	if Family("spectrum-3") != "mellanox" || Family("Broadcom") != "broadcom" || Family("tomahawk-4") != "broadcom" {
		t.Error("Family")
	}
}

// TestEveryASICCitesItsFacts: a chip without a source, or with facts that
// make no sense, is refused.
func TestEveryASICCitesItsFacts(t *testing.T) {
	seen := map[string]bool{}
	for _, a := range ASICs {
		if a.Key == "" || a.Name == "" || a.Family == "" || a.Source == "" || a.CellSize <= 0 {
			t.Errorf("%+v: key, name, family, source and cell size are required", a)
		}
		if seen[a.Key] {
			t.Errorf("%s listed twice", a.Key)
		}
		seen[a.Key] = true
		if a.MaxSpeedMbps != 0 {
			if _, ok := pauseQuanta[a.MaxSpeedMbps]; !ok {
				t.Errorf("%s: fastest port %d has no response time", a.Key, a.MaxSpeedMbps)
			}
		}
	}
}

func TestSpeedText(t *testing.T) {
	for mbps, want := range map[int]string{100000: "100G", 400000: "400G", 2500: "2.5G", 100: "100M", 1600000: "1.6T", 25000: "25G"} {
		if got := SpeedText(mbps); got != want {
			t.Errorf("SpeedText(%d) = %q, want %q", mbps, got, want)
		}
	}
}
