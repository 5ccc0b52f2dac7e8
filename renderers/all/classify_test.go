package all

import (
	"testing"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
)

// TestClassify: on every platform an MTU change and switching PFC off are
// traffic-affecting (with a reason), and retuning the ECN mark
// probability is hitless.
func TestClassify(t *testing.T) {
	reg := Renderers()
	res := loadScenario(t, "basic")
	// The linux platform renders no QoS (the kernel forwards without
	// lossless queues), so only its MTU can change.
	noQoS := map[string]bool{"linux": true}
	cases := []struct {
		field    string
		mutate   func(p *intent.Policy)
		affected bool
		except   map[string]bool
	}{
		{"mtu.switch", func(p *intent.Policy) { p.SwitchMTU = intent.SwitchMTU{Value: 9000} }, true, nil},
		{"profile=ecn-only", func(p *intent.Policy) { p.Profile = intent.ProfileECNOnly }, true, noQoS},
		{"ecn.markProbability", func(p *intent.Policy) { p.MarkProbability = 50 }, false, noQoS},
	}
	for _, name := range reg.Names() {
		e, _ := reg.Lookup(name)
		var base *intent.Switch
		for _, sw := range res.Switches {
			if sw.Platform == name {
				base = sw
				break
			}
		}
		if base == nil {
			continue
		}
		for _, tc := range cases {
			if tc.except[name] {
				continue
			}
			t.Run(name+"/"+tc.field, func(t *testing.T) {
				before := mustRender(t, reg, base)
				sw := *base
				tc.mutate(&sw.Policy)
				after := mustRender(t, reg, &sw)
				changes := devcfg.Diff(after, before.Filter(after.Owned), e.Attrs.Platform.Syntax, e.Attrs.Classify)
				if len(changes) == 0 {
					t.Fatal("no change")
				}
				affected := 0
				for _, c := range changes {
					if c.Disruption == devcfg.TrafficAffecting {
						affected++
						if c.Reason == "" {
							t.Errorf("traffic-affecting change without a reason: %s", c.Where())
						}
					}
				}
				if tc.affected && affected == 0 {
					t.Errorf("no change classed traffic-affecting: %+v", changes)
				}
				if !tc.affected && affected > 0 {
					t.Errorf("%d changes classed traffic-affecting, want all hitless: %+v", affected, changes)
				}
			})
		}
	}
}
