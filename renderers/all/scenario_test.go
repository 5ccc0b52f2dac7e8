package all

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers"
)

// scenarios are the example intents every platform is rendered from.
var scenarios = []string{"basic", "ai-cluster"}

// loadScenario resolves examples/<name>; a missing example fails the test
// (every scenario is part of the checkout).
func loadScenario(tb testing.TB, name string) *intent.Resolved {
	tb.Helper()
	dir := filepath.Join("..", "..", "examples", name)
	if _, err := os.Stat(dir); err != nil {
		tb.Fatalf("scenario %s: %v", name, err)
	}
	fab, diags := intent.Load(dir)
	if fab == nil || diags.HasErrors() {
		tb.Fatalf("scenario %s does not load:\n%v", name, diags)
	}
	res, rdiags := intent.Resolve(fab)
	if rdiags.HasErrors() {
		tb.Fatalf("scenario %s does not resolve:\n%v", name, rdiags)
	}
	return res
}

// renderCase is one switch of one scenario on a registered platform.
type renderCase struct {
	scenario string
	sw       *intent.Switch
	entry    *renderers.Entry
}

func (c renderCase) name() string { return c.scenario + "/" + c.sw.Name }

// goldenPath is renderers/<platform>/testdata/<scenario>/<device><ext>.
func (c renderCase) goldenPath() string {
	return filepath.Join("..", c.entry.Name, "testdata", c.scenario, c.sw.Name+c.entry.Attrs.FileExt)
}

// forEachSwitch runs fn for every switch of every scenario in a subtest; a
// switch whose platform is not registered fails its subtest.
func forEachSwitch(t *testing.T, reg *renderers.Registry, fn func(t *testing.T, c renderCase)) {
	for _, scenario := range scenarios {
		t.Run(scenario, func(t *testing.T) {
			res := loadScenario(t, scenario)
			for _, sw := range res.Switches {
				t.Run(sw.Name, func(t *testing.T) {
					entry, err := reg.Lookup(sw.Platform)
					if err != nil {
						t.Fatalf("platform %s is not registered in renderers/all: %v", sw.Platform, err)
					}
					fn(t, renderCase{scenario: scenario, sw: sw, entry: entry})
				})
			}
		})
	}
}

func mustRender(t testing.TB, reg *renderers.Registry, sw *intent.Switch) *devcfg.Config {
	t.Helper()
	cfg, err := reg.Render(sw)
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	return cfg
}
