package all

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/devcfg"
)

// TestPlanShowsHeadroom: what the registry renders carries each switch's
// headroom as plan notes, grouped, and the plan prints them in text,
// Markdown and JSON for a device with changes.
func TestPlanShowsHeadroom(t *testing.T) {
	reg := Renderers()
	res := loadScenario(t, "basic")
	sw := res.Switch("leaf-nxos")
	e, err := reg.Lookup(sw.Platform)
	if err != nil {
		t.Fatal(err)
	}
	cfg := mustRender(t, reg, sw)
	// examples/basic: 100G ports, Ethernet1/1 on 3 m to a 9000-byte host,
	// Ethernet1/32 on 300 m to the spine, the others uncabled (NX-OS's
	// 100 m); generic ASIC facts (intent/headroom).
	want := []string{
		"headroom: Ethernet1/1 need xoff 45056 B, size 45056 B (100G, 3 m, ASIC unknown)",
		"headroom: Ethernet1/2-31 need xoff 57344 B, size 57344 B (100G, 100 m, ASIC unknown; assumed 100 m (no length, the nxos default))",
		"headroom: Ethernet1/32 need xoff 82944 B, size 82944 B (100G, 300 m, ASIC unknown)",
		"headroom: 32 lossless ports × 1 priority reserve 1848320 B",
	}
	var got []string
	for _, n := range cfg.Notes {
		if strings.HasPrefix(n, "headroom: ") {
			got = append(got, n)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("headroom notes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	empty := &devcfg.Config{Shape: cfg.Shape, Tree: &devcfg.Tree{}}
	p := &compliance.Plan{SchemaVersion: compliance.PlanSchema, Kind: "plan", Devices: []compliance.DevicePlan{{
		Device: sw.Name, Kind: "switch", Platform: e.Name, Status: compliance.StatusChanges,
		Changes: devcfg.Diff(cfg, empty, e.Attrs.Platform.Syntax, e.Attrs.Classify), Notes: cfg.Notes,
	}}}
	p.Summarise()
	var text, md, js bytes.Buffer
	if err := compliance.WriteText(&text, p); err != nil {
		t.Fatal(err)
	}
	if err := compliance.WriteMarkdown(&md, p); err != nil {
		t.Fatal(err)
	}
	if err := compliance.WriteJSON(&js, p); err != nil {
		t.Fatal(err)
	}
	var decoded compliance.Plan
	if err := json.Unmarshal(js.Bytes(), &decoded); err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		if !strings.Contains(text.String(), "  note: "+w+"\n") {
			t.Errorf("text plan lacks %q", w)
		}
		if !strings.Contains(md.String(), "_note: "+w+"_") {
			t.Errorf("Markdown plan lacks %q", w)
		}
		if !strings.Contains(strings.Join(decoded.Devices[0].Notes, "\n"), w) {
			t.Errorf("JSON plan lacks %q", w)
		}
	}
}
