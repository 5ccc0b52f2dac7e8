package all

import (
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
)

// traceField is one intent field the trace test changes, with a value that
// every platform can render (Junos: whole fill levels of a 15MB buffer).
type traceField struct {
	name   string
	mutate func(p *intent.Policy)
}

var traceFields = []traceField{
	{"noDropPriority", func(p *intent.Policy) { p.NoDropPriority, p.PFCPriorities = 4, []int{4} }},
	{"roceDscp", func(p *intent.Policy) { p.RoCEDSCP = []int{24} }},
	{"cnp.dscp", func(p *intent.Policy) { p.CNPDSCP = 46 }},
	{"cnp.priority", func(p *intent.Policy) { p.CNPPriority = 5 }},
	{"ecn.minThreshold", func(p *intent.Policy) { p.ECNMin = 300_000 }},
	{"ecn.maxThreshold", func(p *intent.Policy) { p.ECNMax = 3_000_000 }},
	{"ecn.markProbability", func(p *intent.Policy) { p.MarkProbability = 50 }},
	{"mtu.switch", func(p *intent.Policy) { p.SwitchMTU = intent.SwitchMTU{Value: 9000} }},
	{"vlan", func(p *intent.Policy) { p.VLAN = 200 }},
	{"profile=pfc-only", func(p *intent.Policy) { p.Profile = intent.ProfilePFCOnly }},
	{"profile=ecn-only", func(p *intent.Policy) { p.Profile = intent.ProfileECNOnly }},
}

// traceExpect maps a trace field to the patterns its changed entries must
// match. An entry is a tree line with its parents ("parent > line") or a
// path with its value ("path = value"). Each platform contributes one
// table in trace_<platform>_test.go and one line in traceExpectations.
type traceExpect map[string][]string

// traceExpectations is keyed by registered platform name. A platform
// registered without a table fails the trace test.
var traceExpectations = map[string]traceExpect{
	"cumulus":    traceCumulus,
	"eos":        traceEOS,
	"junos":      traceJunos,
	"nxos":       traceNXOS,
	"openconfig": traceOpenConfig,
	"sonic":      traceSONiC,
	"linux":      traceLinux,
}

// TestTrace changes one intent field at a time on each platform's switch
// of examples/basic and asserts that at least one entry changes, that
// every changed entry is one the field explains, and that nothing else
// changes: a field never leaks into unrelated configuration.
func TestTrace(t *testing.T) {
	reg := Renderers()
	res := loadScenario(t, "basic")
	for _, name := range reg.Names() {
		t.Run(name, func(t *testing.T) {
			var base *intent.Switch
			for _, sw := range res.Switches {
				if sw.Platform == name {
					base = sw
					break
				}
			}
			if base == nil {
				base = platformScenarioSwitch(t, name)
			}
			if base == nil {
				t.Fatalf("examples/basic has no %s switch to trace", name)
			}
			table, ok := traceExpectations[name]
			if !ok {
				t.Fatalf("no trace expectations for platform %s: add trace_%s_test.go and a line in traceExpectations", name, name)
			}
			before := flatten(mustRender(t, reg, base))
			for _, f := range traceFields {
				t.Run(f.name, func(t *testing.T) {
					// An empty, non-nil list says the platform renders
					// nothing for the field: then nothing may change.
					patterns := table[f.name]
					if patterns == nil {
						t.Fatalf("%s has no expectation for field %s", name, f.name)
					}
					sw := *base
					f.mutate(&sw.Policy)
					after := flatten(mustRender(t, reg, &sw))
					changed := symmetricDiff(before, after)
					if len(changed) == 0 && len(patterns) > 0 {
						t.Fatalf("changing %s changed nothing", f.name)
					}
					res := compile(t, patterns)
					for _, c := range changed {
						if !matchesAny(res, c) {
							t.Errorf("changing %s changed an unrelated entry: %s", f.name, c)
						}
					}
				})
			}
		})
	}
}

// flatten lists every entry of a config as one string.
func flatten(cfg *devcfg.Config) map[string]bool {
	out := map[string]bool{}
	switch cfg.Shape {
	case devcfg.ShapeTree:
		var walk func(parents []string, nodes []*devcfg.Node)
		walk = func(parents []string, nodes []*devcfg.Node) {
			for _, n := range nodes {
				out[strings.Join(append(append([]string(nil), parents...), n.Line), " > ")] = true
				walk(append(parents, n.Line), n.Children)
			}
		}
		walk(nil, cfg.Tree.Nodes)
	default:
		for p, v := range cfg.Paths {
			out[p+" = "+v.Text()] = true
		}
	}
	return out
}

// symmetricDiff lists the entries only one side has, "-" before and "+" after.
func symmetricDiff(before, after map[string]bool) []string {
	var out []string
	for e := range before {
		if !after[e] {
			out = append(out, "- "+e)
		}
	}
	for e := range after {
		if !before[e] {
			out = append(out, "+ "+e)
		}
	}
	sort.Strings(out)
	return out
}

func compile(t *testing.T, patterns []string) []*regexp.Regexp {
	t.Helper()
	var out []*regexp.Regexp
	for _, p := range patterns {
		re, err := regexp.Compile(p)
		if err != nil {
			t.Fatalf("bad pattern %q: %v", p, err)
		}
		out = append(out, re)
	}
	return out
}

// matchesAny matches a changed entry without its "+ " or "- " mark.
func matchesAny(res []*regexp.Regexp, entry string) bool {
	e := entry[2:]
	for _, re := range res {
		if re.MatchString(e) {
			return true
		}
	}
	return false
}
