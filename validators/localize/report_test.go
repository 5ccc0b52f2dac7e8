package localize

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/rocefab/rocefab/internal/golden"
)

// TestReports: one localized fault, one inconclusive pair and a fault on
// both directions of a cable, in every format.
func TestReports(t *testing.T) {
	all := observe(lab, meshFlows(lab, 3), []fault{
		{lab.down(2, 1), DSCP, 1},
		{lab.up(2, 1), MTU, 1}, {lab.down(1, 2), MTU, 1},
		{lab.up(1, 1), CE, 1},
	}, simOptions{})
	// Without hop replies for CE, leaf1's uplink and spine1's downlink
	// cannot be told apart.
	var ce []Observation
	for _, o := range all {
		if o.Class != CE || o.Hop == 0 {
			ce = append(ce, o)
		}
	}
	r := Localize(ce, Options{})
	for _, f := range []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"report.txt", func(b *bytes.Buffer) error { return r.WriteText(b) }},
		{"report.md", func(b *bytes.Buffer) error { return r.WriteMarkdown(b) }},
		{"report.json", func(b *bytes.Buffer) error { return r.WriteJSON(b) }},
	} {
		var b bytes.Buffer
		if err := f.write(&b); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("testdata", f.name), b.Bytes())
	}
	var back Result
	var b bytes.Buffer
	_ = r.WriteJSON(&b)
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || back.Verdict != r.Verdict || len(back.Findings) != len(r.Findings) {
		t.Fatalf("JSON does not read back: %v", err)
	}
}
