package compliance

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/devcfg"
)

// A path whose value is a CLI block (OpenConfig's vendor fallback) prints
// on one line per change in text and Markdown.
func TestMultiLineValueStaysOnItsLine(t *testing.T) {
	p := &Plan{Kind: "plan", Devices: []DevicePlan{{
		Device: "spine-oc", Platform: "openconfig", Status: StatusChanges,
		Changes: []devcfg.Change{{Action: devcfg.Add, Path: "cli:/interface Ethernet1 > priority-flow-control on",
			New: string(devcfg.String("interface Ethernet1\n   priority-flow-control on")), Disruption: devcfg.TrafficAffecting, Reason: "PFC"}},
	}}}
	p.Summarise()
	for name, write := range map[string]func(*bytes.Buffer, *Plan) error{
		"text":     func(b *bytes.Buffer, p *Plan) error { return WriteText(b, p) },
		"markdown": func(b *bytes.Buffer, p *Plan) error { return WriteMarkdown(b, p) },
	} {
		var b bytes.Buffer
		if err := write(&b, p); err != nil {
			t.Fatal(err)
		}
		want := `cli:/interface Ethernet1 > priority-flow-control on = "interface Ethernet1\n   priority-flow-control on"`
		if !strings.Contains(b.String(), want) {
			t.Errorf("%s: the value does not stay on its change's line:\n%s", name, b.String())
		}
		for _, l := range strings.Split(b.String(), "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "priority-flow-control on") {
				t.Errorf("%s: a value line escaped its change: %q", name, l)
			}
		}
	}
}
