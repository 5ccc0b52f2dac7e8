package effect

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers/all"
	"github.com/rocefab/rocefab/validators/lint"
)

func basic(t *testing.T) *intent.Resolved {
	t.Helper()
	res, diags := lint.Validate(all.Renderers(), "../../examples/basic")
	if diags.HasErrors() {
		t.Fatalf("examples/basic: %v", diags.Err())
	}
	return res
}

// drift renders the switch as it should be and as a hand change left it,
// and returns the drift report the engine would make, classed.
func drift(t *testing.T, res *intent.Resolved, sw *intent.Switch, hand func(p *intent.Policy)) *compliance.Plan {
	t.Helper()
	reg := all.Renderers()
	e, err := reg.Lookup(sw.Platform)
	if err != nil {
		t.Fatal(err)
	}
	want, err := reg.Render(sw)
	if err != nil {
		t.Fatal(err)
	}
	changed := *sw
	changed.Policy = clonePolicy(sw.Policy)
	hand(&changed.Policy)
	running, err := reg.Render(&changed)
	if err != nil {
		t.Fatal(err)
	}
	cs := devcfg.Diff(want, running, e.Attrs.Platform.Syntax, e.Attrs.Classify)
	p := &compliance.Plan{Kind: "drift", Devices: []compliance.DevicePlan{{Device: sw.Name, Kind: "switch", Platform: sw.Platform,
		Status: compliance.StatusDrifted, Changes: cs}}}
	p.Summarise()
	Annotate(p, res, reg)
	return p
}

func worst(cs []devcfg.Change) devcfg.Effect {
	var w devcfg.Effect = devcfg.EffectNeutral
	for _, c := range cs {
		if c.Effect == "" {
			return ""
		}
		if c.Effect.Rank() > w.Rank() {
			w = c.Effect
		}
	}
	return w
}

// TestDriftClassedByEffect: on every platform of examples/basic, a hand
// change that moves the RoCE DSCP to a lossy queue, turns PFC off or
// lowers the MTU breaks the lossless class; one that only moves the ECN
// thresholds or the CNP's DSCP degrades it and breaks nothing.
func TestDriftClassedByEffect(t *testing.T) {
	res := basic(t)
	cases := []struct {
		name string
		hand func(p *intent.Policy)
		want devcfg.Effect
	}{
		{"RoCE DSCP remapped to a lossy queue", func(p *intent.Policy) { p.RoCEDSCP = []int{30} }, devcfg.EffectBreaks},
		{"PFC off", func(p *intent.Policy) { p.PFCEnabled = false }, devcfg.EffectBreaks},
		{"no-drop priority moved", func(p *intent.Policy) { p.NoDropPriority, p.PFCPriorities = 5, []int{5} }, devcfg.EffectBreaks},
		{"MTU lowered", func(p *intent.Policy) { p.SwitchMTU = intent.SwitchMTU{Value: 1500} }, devcfg.EffectBreaks},
		{"ECN thresholds moved", func(p *intent.Policy) { p.ECNMin, p.ECNMax = 300_000, 3_000_000 }, devcfg.EffectDegrades},
		{"CNP DSCP moved", func(p *intent.Policy) { p.CNPDSCP = 40 }, devcfg.EffectDegrades},
	}
	for _, sw := range res.Switches {
		if sw.Platform == "linux" {
			continue // no lossless class: only the MTU is rendered
		}
		for _, tc := range cases {
			t.Run(sw.Platform+"/"+tc.name, func(t *testing.T) {
				p := drift(t, res, sw, tc.hand)
				cs := p.Devices[0].Changes
				if len(cs) == 0 {
					t.Skipf("%s renders nothing for this change", sw.Platform)
				}
				if got := worst(cs); got != tc.want {
					var b strings.Builder
					for _, c := range cs {
						b.WriteString(string(c.Effect) + " " + c.Where() + " " + c.Old + " -> " + c.New + "\n")
					}
					t.Fatalf("worst effect %q, want %q:\n%s", got, tc.want, b.String())
				}
			})
		}
	}
}

// TestBreakingDriftShownFirst: in a drift report the breaking changes
// lead, whatever the device order or the diff's order.
func TestBreakingDriftShownFirst(t *testing.T) {
	res := basic(t)
	sw := res.Switch("leaf-eos")
	if sw == nil {
		t.Fatal("examples/basic has no leaf-eos")
	}
	p := drift(t, res, sw, func(p *intent.Policy) { p.ECNMin = 300_000; p.RoCEDSCP = []int{30} })
	var b bytes.Buffer
	if err := compliance.WriteText(&b, p); err != nil {
		t.Fatal(err)
	}
	var tags []string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(l, "  ~ ") || strings.HasPrefix(l, "  + ") || strings.HasPrefix(l, "  - ") {
			switch {
			case strings.Contains(l, "breaks lossless"):
				tags = append(tags, "breaks")
			case strings.Contains(l, "degrades lossless"):
				tags = append(tags, "degrades")
			default:
				tags = append(tags, "neutral")
			}
		}
	}
	seen := map[string]bool{}
	for _, tag := range tags {
		if tag == "breaks" && (seen["degrades"] || seen["neutral"]) {
			t.Fatalf("a breaking change follows a lesser one: %v\n%s", tags, b.String())
		}
		seen[tag] = true
	}
	if !seen["breaks"] || !seen["degrades"] {
		t.Fatalf("want breaking and degrading changes: %v\n%s", tags, b.String())
	}
}

// TestHostChangesClassed: a host's NIC settings are classed the same way.
func TestHostChangesClassed(t *testing.T) {
	res := basic(t)
	h := res.Hosts[0]
	p := &compliance.Plan{Kind: "drift", Devices: []compliance.DevicePlan{{Device: h.Name, Kind: "host", Platform: "host", Status: compliance.StatusDrifted,
		Changes: []devcfg.Change{
			{Action: devcfg.Modify, Path: "nic/" + h.NICs[0].Netdev + "/pfc/enable", Old: `"0x00"`, New: `"0x08"`},
			{Action: devcfg.Modify, Path: "nic/" + h.NICs[0].Netdev + "/ecn/roce_np/cnp_dscp", Old: "46", New: "48"},
		}}}}
	Annotate(p, res, all.Renderers())
	cs := p.Devices[0].Changes
	if cs[0].Effect != devcfg.EffectBreaks || cs[1].Effect != devcfg.EffectDegrades {
		t.Fatalf("host PFC %q (want breaks), CNP DSCP %q (want degrades)", cs[0].Effect, cs[1].Effect)
	}
}
