package junos

import (
	"strings"
	"testing"

	"github.com/rocefab/rocefab/intent"
)

// TestCableLength: Junos sizes PFC headroom from the cable-length of the
// input congestion notification profile (default 100 m). The device's
// length goes on the base profiles; ports cabled otherwise get a copy per
// length, attached on the interface.
func TestCableLength(t *testing.T) {
	cabled := func(sw *intent.Switch, meters ...int) {
		for i := range sw.Ports {
			sw.Ports[i].Cable = nil
			if i < len(meters) && meters[i] > 0 {
				sw.Ports[i].Cable = &intent.Cable{Length: meters[i]}
			}
		}
	}
	const cnp = "class-of-service congestion-notification-profile "
	for _, tc := range []struct {
		name        string
		edit        func(sw *intent.Switch)
		want, avoid []string
	}{
		// examples/basic's Junos ports are trunks: PFC by IEEE 802.1p.
		{"a 300 m port gets its own profile", func(sw *intent.Switch) { cabled(sw, 300, 100) }, []string{
			cnp + "ROCEFAB_PFC_PCP_300M input cable-length 300",
			cnp + "ROCEFAB_PFC_PCP_300M input ieee-802.1 code-point 011 pfc",
			cnp + "ROCEFAB_PFC_PCP_300M output ieee-802.1 code-point 011 flow-control-queue 3",
			cnp + "ROCEFAB_PFC_PCP_300M pfc-watchdog",
			"class-of-service interfaces et-0/0/0 congestion-notification-profile ROCEFAB_PFC_PCP_300M",
			"class-of-service interfaces et-0/0/1 congestion-notification-profile ROCEFAB_PFC_PCP",
		}, []string{cnp + "ROCEFAB_PFC_PCP input cable-length 100", cnp + "ROCEFAB_PFC_PCP_100M input cable-length 100"}},
		{"the device's length on the base profile", func(sw *intent.Switch) {
			sw.Policy.CableLength = 30
			cabled(sw, 30, 3)
		}, []string{
			cnp + "ROCEFAB_PFC_PCP input cable-length 30",
			"class-of-service interfaces et-0/0/0 congestion-notification-profile ROCEFAB_PFC_PCP",
			"class-of-service interfaces et-0/0/1 congestion-notification-profile ROCEFAB_PFC_PCP_3M",
		}, nil},
		{"untagged ports pause by DSCP", func(sw *intent.Switch) {
			for i := range sw.Ports {
				sw.Ports[i].Mode = "routed"
			}
			cabled(sw, 300)
		}, []string{
			cnp + "ROCEFAB_PFC_DSCP_300M input cable-length 300",
			cnp + "ROCEFAB_PFC_DSCP_300M input dscp code-point 011010 pfc",
			"class-of-service interfaces et-0/0/0 congestion-notification-profile ROCEFAB_PFC_DSCP_300M",
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sw := basicSwitch(t)
			tc.edit(sw)
			cfg := render(t, sw)
			for _, s := range tc.want {
				if !has(cfg, s) {
					t.Errorf("missing: set %s", s)
				}
			}
			for _, s := range tc.avoid {
				if has(cfg, s) {
					t.Errorf("unexpected: set %s", s)
				}
			}
		})
	}
	sw := basicSwitch(t)
	sw.Policy.Xoff = 100000
	if notes := strings.Join(render(t, sw).Notes, "\n"); !strings.Contains(notes, "junos: PFC headroom, xoff and xon are not rendered") {
		t.Errorf("notes = %s", notes)
	}
	// A changed length is one modification, not an add and a delete.
	if path, v := splitStatement(strings.Fields(cnp + "P input cable-length 300")); path != cnp+"P input cable-length" || v.Text() != "300" {
		t.Errorf("cable-length splits as %q = %s", path, v)
	}
}
