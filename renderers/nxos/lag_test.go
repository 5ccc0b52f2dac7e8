package nxos

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers"
)

// NX-OS takes port-channel 1..4096: 0 and beyond are refused at render,
// naming the switch, the port and its lag field.
func TestLAGNumbers(t *testing.T) {
	for _, tc := range []struct {
		lag     string
		channel string // the rendered port-channel; "" when refused
		err     string
	}{
		{lag: "port-channel1", channel: "port-channel1"},
		{lag: "Po10", channel: "port-channel10"},
		{lag: "port-channel0010", channel: "port-channel10"},
		{lag: "4096", channel: "port-channel4096"},
		{lag: "port-channel0", err: `LAG "port-channel0": NX-OS port-channel numbers are 1..4096`},
		{lag: "port-channel4097", err: "NX-OS port-channel numbers are 1..4096"},
		{lag: "port-channel99999999999999999999", err: "NX-OS port-channel numbers are 1..4096"},
		{lag: "uplink", err: `LAG "uplink" has no port-channel number (write e.g. port-channel10)`},
	} {
		t.Run(tc.lag, func(t *testing.T) {
			sw := basicSwitch(t)
			sw.Ports = []intent.Port{{Name: "Ethernet1/1", Mode: "trunk", LAG: tc.lag}}
			cfg, err := New().Render(sw)
			if tc.err != "" {
				var pe *renderers.PortError
				if err == nil || !errors.As(err, &pe) || pe.Port != "Ethernet1/1" || pe.Field != "lag" ||
					!strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), sw.Name) {
					t.Fatalf("err = %v, want a lag PortError of Ethernet1/1 on %s with %q", err, sw.Name, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			id := strings.TrimPrefix(tc.channel, "port-channel")
			var member, channel []string
			for _, n := range cfg.Tree.Children([]string{"interface Ethernet1/1"}) {
				member = append(member, n.Line)
			}
			for _, n := range cfg.Tree.Children([]string{"interface " + tc.channel}) {
				channel = append(channel, n.Line)
			}
			if !slices.Contains(member, "channel-group "+id+" mode active") {
				t.Errorf("Ethernet1/1 = %q, want channel-group %s", member, id)
			}
			if !slices.Contains(channel, "switchport mode trunk") {
				t.Errorf("%s = %q, want the trunk on the port-channel", tc.channel, channel)
			}
		})
	}
}
