package all

import (
	"github.com/rocefab/rocefab/devcfg"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rocefab/rocefab/drivers"
)

// TestRoundTrip checks the read-back contract on every scenario switch:
// the rendered device text, parsed, filtered to the owned scope and
// normalised exactly as a driver does it, equals the desired config
// filtered to the same scope, and the compliance diff is empty.
func TestRoundTrip(t *testing.T) {
	reg := Renderers()
	forEachSwitch(t, reg, func(t *testing.T, c renderCase) {
		desired := mustRender(t, reg, c.sw)
		raw, err := c.entry.Attrs.Encode(desired)
		if err != nil {
			t.Fatalf("encode: %v", err)
		}
		pf := c.entry.Attrs.Platform
		parsed, err := pf.Parse(raw)
		if err != nil {
			t.Fatalf("parse of the rendered text: %v", err)
		}
		running := drivers.NewRunning(parsed, pf, desired.Owned)
		want := desired.Filter(desired.Owned)
		if d := cmp.Diff(want.Text(), running.Owned.Text()); d != "" {
			t.Errorf("parse → filter → normalise differs from desired (-want +got):\n%s", d)
		}
		if changes := devcfg.Diff(desired, running.Owned, pf.Syntax, nil); len(changes) != 0 {
			t.Errorf("compliance diff of a round trip is not empty: %+v", changes)
		}
	})
}

// TestOwnsWhatItRenders: every rendered line or path is inside the scope
// the renderer declares, so nothing rendered escapes the diff and push.
func TestOwnsWhatItRenders(t *testing.T) {
	reg := Renderers()
	forEachSwitch(t, reg, func(t *testing.T, c renderCase) {
		desired := mustRender(t, reg, c.sw)
		if d := cmp.Diff(desired.Text(), desired.Filter(desired.Owned).Text()); d != "" {
			t.Errorf("rendered config has lines outside its owned scope (-rendered +owned):\n%s", d)
		}
	})
}
