package cumulus

import (
	"strings"
	"testing"

	"github.com/rocefab/rocefab/intent"
)

func withCables(sw *intent.Switch, meters ...int) {
	for i := range sw.Ports {
		sw.Ports[i].Cable = nil
		if i < len(meters) && meters[i] > 0 {
			sw.Ports[i].Cable = &intent.Cable{Length: meters[i]}
		}
	}
}

// TestCableLengthPerPort: NVUE sizes a port's headroom from the cable
// length of its PFC profile (NVIDIA: a wrong length wastes buffer or drops
// packets). default-global carries the device's length; ports cabled
// otherwise get a profile of their own, the same but for the length.
func TestCableLengthPerPort(t *testing.T) {
	for _, tc := range []struct {
		name        string
		edit        func(sw *intent.Switch)
		want, avoid []string
	}{
		{"ports on other lengths share a profile per length", func(sw *intent.Switch) { withCables(sw, 300, 300, 100, 3) }, []string{
			"qos pfc rocefab-300m switch-priority 3",
			"qos pfc rocefab-300m tx enable",
			"qos pfc rocefab-300m rx enable",
			"qos pfc rocefab-300m cable-length 300",
			"qos pfc rocefab-3m cable-length 3",
			"interface swp1 qos pfc profile rocefab-300m",
			"interface swp2 qos pfc profile rocefab-300m",
			"interface swp4 qos pfc profile rocefab-3m",
		}, []string{
			// swp3 is on the default 100 m: default-global serves it.
			"interface swp3 qos pfc profile rocefab-100m", "qos pfc rocefab-100m tx enable", "qos pfc default-global cable-length 100",
		}},
		{"the device's length from pfc.cableLength", func(sw *intent.Switch) {
			sw.Policy.CableLength = 5
			withCables(sw, 5, 30)
		}, []string{"qos pfc default-global cable-length 5", "interface swp2 qos pfc profile rocefab-30m", "qos pfc rocefab-30m cable-length 30"},
			[]string{"interface swp1 qos pfc profile rocefab-5m"}},
		{"written buffer values: port-buffer is the headroom, xoff-threshold the pause point", func(sw *intent.Switch) {
			withCables(sw, 300)
			sw.Policy.Headroom, sw.Policy.Xon, sw.Policy.Xoff = 120000, 20000, 100000
		}, []string{
			"qos pfc default-global port-buffer 120000", "qos pfc default-global xoff-threshold 20000",
			"qos pfc rocefab-300m port-buffer 120000", "qos pfc rocefab-300m xoff-threshold 20000",
		}, []string{"qos pfc default-global xon-threshold 20000", "qos pfc default-global xoff-threshold 100000"}},
		// SN4700 is Spectrum-3: a 19 KB pipeline latency (SONiC's
		// asic_table.j2) is the pause point; port-buffer holds it and xoff.
		{"xoff alone takes the ASIC's pause point", func(sw *intent.Switch) { sw.Policy.Xoff = 100000 }, []string{
			"qos pfc default-global port-buffer 119456", "qos pfc default-global xoff-threshold 19456",
		}, nil},
		{"no PFC, no profiles", func(sw *intent.Switch) {
			withCables(sw, 300)
			sw.Policy.Profile = intent.ProfileECNOnly
		}, nil, []string{"qos pfc rocefab-300m tx enable", "interface swp1 qos pfc profile rocefab-300m"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sw := basicSwitch(t)
			tc.edit(sw)
			cfg := render(t, sw)
			for _, s := range tc.want {
				if !has(cfg, s) {
					t.Errorf("missing: nv set %s", s)
				}
			}
			for _, s := range tc.avoid {
				if has(cfg, s) {
					t.Errorf("unexpected: nv set %s", s)
				}
			}
		})
	}
	sw := basicSwitch(t)
	sw.Policy.Headroom, sw.Policy.Xon, sw.Policy.Xoff = 50000, 20000, 100000
	if _, err := New().Render(sw); err == nil || !strings.Contains(err.Error(), "pfc.headroom 50000 B is below") {
		t.Errorf("a headroom below xon + xoff: err = %v", err)
	}
	// rocefab owns its per-length profiles, also ones it no longer renders,
	// and the PFC profile of its ports.
	cfg := render(t, basicSwitch(t))
	for _, p := range []string{"qos pfc rocefab-1000m cable-length", "interface swp7 qos pfc profile"} {
		if !cfg.Owned.OwnsPath(p) {
			t.Errorf("%s is not owned", p)
		}
	}
	if cfg.Owned.OwnsPath("qos pfc my_pfc_ports cable-length") {
		t.Error("another profile is owned")
	}
}
