package eos

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers"
)

// EOS takes Port-Channel 1..999999: 0 and beyond are refused at render,
// naming the switch, the port and its lag field.
func TestLAGNumbers(t *testing.T) {
	for _, tc := range []struct {
		lag     string
		channel string // the rendered port-channel; "" when refused
		err     string
	}{
		{lag: "Port-Channel1", channel: "Port-Channel1"},
		{lag: "po10", channel: "Port-Channel10"},
		{lag: "Port-Channel010", channel: "Port-Channel10"},
		{lag: "999999", channel: "Port-Channel999999"},
		{lag: "Port-Channel0", err: `LAG "Port-Channel0": EOS port-channel numbers are 1..999999`},
		{lag: "Port-Channel1000000", err: "EOS port-channel numbers are 1..999999"},
		{lag: "Port-Channel99999999999999999999", err: "EOS port-channel numbers are 1..999999"},
		{lag: "uplink", err: `LAG "uplink" has no port-channel number (write e.g. Port-Channel10)`},
	} {
		t.Run(tc.lag, func(t *testing.T) {
			sw := basicSwitch(t)
			sw.Ports = []intent.Port{{Name: "Ethernet1", Mode: "trunk", LAG: tc.lag}}
			cfg, err := New().Render(sw)
			if tc.err != "" {
				var pe *renderers.PortError
				if err == nil || !errors.As(err, &pe) || pe.Port != "Ethernet1" || pe.Field != "lag" ||
					!strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), sw.Name) {
					t.Fatalf("err = %v, want a lag PortError of Ethernet1 on %s with %q", err, sw.Name, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			id := strings.TrimPrefix(tc.channel, "Port-Channel")
			if got := children(cfg, "interface Ethernet1"); !slices.Contains(got, "channel-group "+id+" mode active") {
				t.Errorf("Ethernet1 = %q, want channel-group %s", got, id)
			}
			if got := children(cfg, "interface "+tc.channel); !slices.Contains(got, "switchport mode trunk") {
				t.Errorf("%s = %q, want the trunk on the port-channel", tc.channel, got)
			}
		})
	}
}
