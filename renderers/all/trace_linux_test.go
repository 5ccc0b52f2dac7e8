package all

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rocefab/rocefab/intent"
)

// traceLinux: the linux platform renders only MTU and forwarding, so every
// QoS field must change nothing (an empty list), and the MTU only the
// port MTU paths.
var traceLinux = traceExpect{
	"noDropPriority":      {},
	"roceDscp":            {},
	"cnp.dscp":            {},
	"cnp.priority":        {},
	"ecn.minThreshold":    {},
	"ecn.maxThreshold":    {},
	"ecn.markProbability": {},
	"mtu.switch":          {`^/interfaces/[A-Za-z0-9_.-]+/mtu = (9000|9216)$`},
	"vlan":                {},
	"profile=pfc-only":    {},
	"profile=ecn-only":    {},
}

// platformScenarioSwitch finds a switch of the platform in the platform's
// own scenarios (renderers/<platform>/testdata/scenarios/*.yaml), for
// platforms examples/basic does not include (linux).
func platformScenarioSwitch(t *testing.T, platform string) *intent.Switch {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("..", platform, "testdata", "scenarios", "*.yaml"))
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			continue
		}
		fab, diags := intent.Load(f)
		if fab == nil || diags.HasErrors() {
			t.Fatalf("%s does not load:\n%v", f, diags)
		}
		res, rdiags := intent.Resolve(fab)
		if rdiags.HasErrors() {
			t.Fatalf("%s does not resolve:\n%v", f, rdiags)
		}
		for _, sw := range res.Switches {
			if sw.Platform == platform {
				return sw
			}
		}
	}
	return nil
}
