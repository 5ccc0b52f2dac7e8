package compliance

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/internal/golden"
)

func samplePlan(kind string) *Plan {
	p := &Plan{
		SchemaVersion: PlanSchema, Kind: kind, CreatedAt: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC),
		Intent: IntentRef{Fabric: "basic", Paths: []string{"examples/basic"}, Commit: "0123456789abcdef0123"},
		Devices: []DevicePlan{
			{
				Device: "leaf-nxos", Kind: "switch", Platform: "nxos", Transport: "ssh", Address: "192.0.2.11:22",
				Status: StatusChanges,
				Changes: []devcfg.Change{
					{Action: devcfg.Add, Path: "class-map type qos match-any ROCEFAB_ROCE", New: "class-map type qos match-any ROCEFAB_ROCE",
						Block: []*devcfg.Node{{Line: "match dscp 26"}}},
					{Action: devcfg.Modify, Parents: []string{"interface Ethernet1/1"}, Path: "mtu ", Old: "mtu 1500", New: "mtu 9216",
						Disruption: devcfg.TrafficAffecting, Reason: "an MTU change flaps the link", Effect: devcfg.EffectBreaks},
					{Action: devcfg.Modify, Parents: []string{"interface Ethernet1/2"}, Path: "mtu ", Old: "mtu 1500", New: "mtu 9216",
						Disruption: devcfg.TrafficAffecting, Reason: "an MTU change flaps the link", Effect: devcfg.EffectBreaks},
					{Action: devcfg.Modify, Parents: []string{"interface Ethernet1/10"}, Path: "mtu ", Old: "mtu 1500", New: "mtu 9216",
						Disruption: devcfg.TrafficAffecting, Reason: "an MTU change flaps the link", Effect: devcfg.EffectBreaks},
					{Action: devcfg.Remove, Parents: []string{"class-map type qos match-any ROCEFAB_CNP"}, Path: "match dscp 46", Old: "match dscp 46"},
				},
				Notes: []string{"4q class names chosen for this model"},
			},
			{
				Device: "leaf-sonic", Kind: "switch", Platform: "sonic", Transport: "gnmi", Address: "192.0.2.13:8080",
				Status: StatusChanges,
				Changes: []devcfg.Change{
					{Action: devcfg.Modify, Path: "/PORT_QOS_MAP/Ethernet0/pfc_enable", Old: `"3,4"`, New: `"3"`, Disruption: devcfg.TrafficAffecting, Reason: "PFC changes re-carve buffers"},
					{Action: devcfg.Add, Path: "/WRED_PROFILE/ROCEFAB_LOSSLESS/ecn", New: `"ecn_all"`, Effect: devcfg.EffectDegrades},
					{Action: devcfg.Add, Path: "/BUFFER_PG/Ethernet12|3/profile", New: `"NULL"`, Effect: devcfg.EffectBreaks},
					{Action: devcfg.Add, Path: "/BUFFER_PG/Ethernet4|3/profile", New: `"NULL"`, Effect: devcfg.EffectBreaks},
					{Action: devcfg.Add, Path: "/BUFFER_PG/Ethernet0|3/profile", New: `"NULL"`, Effect: devcfg.EffectBreaks},
				},
			},
			{Device: "leaf-eos", Kind: "switch", Platform: "eos", Transport: "ssh", Status: StatusNoChanges},
			{Device: "spine-oc", Kind: "switch", Platform: "openconfig", Transport: "gnmi", Status: StatusConflict,
				Conflicts: []devcfg.Conflict{{Singleton: "qos global classifier", Held: "AZURE", Want: "ROCEFAB_DSCP"}}},
			{Device: "gpu01", Kind: "host", Platform: "host", Status: StatusUnreachable, Error: "ssh: dial tcp 192.0.2.101:22: connection refused"},
		},
	}
	if kind == "drift" {
		p.Devices[0].Status, p.Devices[1].Status, p.Devices[2].Status = StatusDrifted, StatusDrifted, StatusCompliant
	}
	p.Summarise()
	return p
}

func TestReportGolden(t *testing.T) {
	for _, kind := range []string{"plan", "drift"} {
		for _, enc := range []struct {
			ext   string
			write func(*bytes.Buffer, *Plan) error
		}{
			{".txt", func(b *bytes.Buffer, p *Plan) error { return WriteText(b, p) }},
			{".md", func(b *bytes.Buffer, p *Plan) error { return WriteMarkdown(b, p) }},
			{".json", func(b *bytes.Buffer, p *Plan) error { return WriteJSON(b, p) }},
		} {
			t.Run(kind+enc.ext, func(t *testing.T) {
				var b bytes.Buffer
				if err := enc.write(&b, samplePlan(kind)); err != nil {
					t.Fatal(err)
				}
				golden.Check(t, filepath.Join("testdata", kind+enc.ext), b.Bytes())
			})
		}
	}
}

func TestSavedPlanRoundTrip(t *testing.T) {
	p := samplePlan("plan")
	path := filepath.Join(t.TempDir(), "plan.json")
	if err := p.Save(path); err != nil {
		t.Fatal(err)
	}
	if !IsPlanFile(path) {
		t.Fatal("a saved plan is not recognised")
	}
	back, err := LoadPlan(path)
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	_ = WriteJSON(&a, p)
	_ = WriteJSON(&b, back)
	if a.String() != b.String() {
		t.Fatal("a saved plan does not load back identically")
	}
	if back.Devices[0].Changes[1].Disruption != devcfg.TrafficAffecting || back.Devices[0].Changes[1].Action != devcfg.Modify {
		t.Fatal("enums did not survive the round trip")
	}
	if !p.HasChanges() || !p.HasFailures() {
		t.Fatal("summary flags wrong")
	}
}

// TestTextOneBlankLineBeforeSummary: the summary follows exactly one blank
// line, whether the last device printed changes (and its own blank line),
// printed only a headline, or there are no devices.
func TestTextOneBlankLineBeforeSummary(t *testing.T) {
	withChanges := samplePlan("plan")
	withChanges.Devices = withChanges.Devices[:2] // leaf-sonic, with changes, is last
	headlineOnly := samplePlan("plan")
	empty := samplePlan("plan")
	empty.Devices = nil
	for name, p := range map[string]*Plan{"last device with changes": withChanges, "last device headline only": headlineOnly, "no devices": empty} {
		t.Run(name, func(t *testing.T) {
			p.Summarise()
			var b bytes.Buffer
			if err := WriteText(&b, p); err != nil {
				t.Fatal(err)
			}
			text := b.String()
			if strings.Contains(text, "\n\n\n") {
				t.Errorf("two blank lines in a row:\n%s", text)
			}
			if !strings.Contains(text, "\n\nSummary: ") {
				t.Errorf("no blank line before the summary:\n%s", text)
			}
		})
	}
}
