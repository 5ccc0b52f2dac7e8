package all

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/internal/golden"
)

// TestPatchGolden records the commands each platform's Syntax produces for
// one intent change on its examples/basic switch (lossless VLAN 200, ECN
// minimum 300KB, MTU 9000, PFC watchdog off), from a device that holds
// the basic rendering: renderers/<platform>/testdata/patch/<device>.txt.
func TestPatchGolden(t *testing.T) {
	reg := Renderers()
	res := loadScenario(t, "basic")
	for _, sw := range res.Switches {
		e, err := reg.Lookup(sw.Platform)
		if err != nil {
			continue
		}
		t.Run(sw.Name, func(t *testing.T) {
			before := mustRender(t, reg, sw)
			changed := *sw
			changed.Policy.VLAN, changed.Policy.ECNMin = 200, 300_000
			changed.Policy.SwitchMTU = intent.SwitchMTU{Value: 9000}
			changed.Policy.Watchdog.Enabled = false
			after := mustRender(t, reg, &changed)
			pf := e.Attrs.Platform
			changes := devcfg.Diff(after, before.Filter(after.Owned), pf.Syntax, e.Attrs.Classify)
			patch := devcfg.BuildPatch(changes, pf.Syntax)
			if patch.Empty() {
				t.Fatal("the change produced an empty patch")
			}
			var b strings.Builder
			for _, c := range changes {
				b.WriteString("# " + c.Action.Symbol() + " " + c.Where() + " (" + c.Disruption.String() + ")\n")
			}
			for _, l := range patch.Lines {
				b.WriteString(l + "\n")
			}
			for _, u := range patch.Updates {
				b.WriteString("update " + u.Path + " = " + string(u.Value) + "\n")
			}
			for _, d := range patch.Deletes {
				b.WriteString("delete " + d + "\n")
			}
			golden.Check(t, filepath.Join("..", e.Name, "testdata", "patch", sw.Name+".txt"), []byte(b.String()))
		})
	}
}
