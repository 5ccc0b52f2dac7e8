package all

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers"
)

// sourceVariants change a switch so every statement form a renderer has
// gets rendered somewhere.
var sourceVariants = map[string]func(sw *intent.Switch){
	"as is":        func(*intent.Switch) {},
	"pfc-only":     func(sw *intent.Switch) { sw.Policy.Profile = intent.ProfilePFCOnly },
	"ecn-only":     func(sw *intent.Switch) { sw.Policy.Profile = intent.ProfileECNOnly },
	"trust pcp":    func(sw *intent.Switch) { sw.Policy.Trust = "pcp" },
	"two lossless": func(sw *intent.Switch) { sw.Policy.PFCPriorities = []int{3, 4} },
	"watchdog timers": func(sw *intent.Switch) {
		sw.Policy.Watchdog = intent.Watchdog{Enabled: true, Detection: 200 * time.Millisecond, Restoration: 2 * time.Second, Action: "drop"}
	},
	"buffer knobs": func(sw *intent.Switch) {
		sw.Policy.CableLength, sw.Policy.Headroom, sw.Policy.Xoff, sw.Policy.Xon = 10, 40000, 20000, 3000
	},
	// The OpenConfig renderer's native PFC fallbacks.
	"nxos fallback":  func(sw *intent.Switch) { sw.OCFallback = "nxos" },
	"sonic fallback": func(sw *intent.Switch) { sw.OCFallback = "sonic" },
	"port modes": func(sw *intent.Switch) {
		sw.Ports = slices.Clone(sw.Ports)
		if sw.Policy.VLAN == 0 {
			sw.Policy.VLAN = 100 // switched ports need the lossless VLAN
		}
		modes := []string{"trunk", "access", "routed"}
		for i := range sw.Ports {
			sw.Ports[i].Mode = modes[i%3]
		}
		if len(sw.Ports) > 4 {
			lag := map[string]string{"eos": "Port-Channel7", "nxos": "port-channel7", "junos": "ae7", "cumulus": "bond7", "sonic": "PortChannel7"}[sw.Platform]
			sw.Ports[3].LAG, sw.Ports[4].LAG = lag, lag
			sw.Ports[4].Mode = sw.Ports[3].Mode
		}
	},
}

// refusedVariants are variants a platform refuses by design: OpenConfig
// classifiers match DSCP, not 802.1p.
var refusedVariants = map[string]map[string]bool{"openconfig": {"trust pcp": true}}

// TestEveryStatementCitesItsSource renders every scenario switch of a
// platform with a source table (Attributes.Sources) in every variant, and
// fails on a statement no form of the table cites: each statement a
// renderer emits names its vendor source beside the renderer.
func TestEveryStatementCitesItsSource(t *testing.T) {
	reg := Renderers()
	cited := 0
	forEachSwitch(t, reg, func(t *testing.T, c renderCase) {
		sources := c.entry.Attrs.Sources
		if sources == nil {
			t.Fatalf("platform %s has no source table (renderers/%s/sources.go)", c.entry.Name, c.entry.Name)
		}
		if c.entry.Attrs.NeedsPFCFallback {
			// The PFC fallbacks it renders are cited by their platforms.
			for _, n := range reg.Names() {
				if e, _ := reg.Lookup(n); e.Attrs.PFCFallback != nil {
					sources = append(slices.Clone(sources), e.Attrs.PFCFallback.Sources...)
				}
			}
		}
		for name, variant := range sourceVariants {
			sw := *c.sw
			sw.Policy.RoCEDSCP = slices.Clone(sw.Policy.RoCEDSCP)
			sw.Policy.PFCPriorities = slices.Clone(sw.Policy.PFCPriorities)
			variant(&sw)
			cfg, err := reg.Render(&sw)
			if err != nil {
				if !refusedVariants[c.entry.Name][name] {
					t.Errorf("%s: render: %v", name, err)
				}
				continue
			}
			for _, stmt := range statements(c.entry, cfg) {
				if renderers.Cite(sources, stmt) == "" {
					t.Errorf("%s: %q cites no vendor source (add it to renderers/%s/sources.go)", name, stmt, c.entry.Name)
				}
				cited++
			}
		}
	})
	if cited == 0 {
		t.Fatal("no statement was checked")
	}
}

// statements lists what a config sends to a device from scratch: each CLI
// line (without its parents), each statement without its verb, or for a
// paths platform (gNMI, config_db, the host's kernel settings) each path.
func statements(e *renderers.Entry, cfg *devcfg.Config) []string {
	var out []string
	syn := e.Attrs.Platform.Syntax
	switch {
	case syn.Style == devcfg.StylePaths:
		out = cfg.Paths.Keys()
	case cfg.Shape == devcfg.ShapeTree:
		var walk func([]*devcfg.Node)
		walk = func(ns []*devcfg.Node) {
			for _, n := range ns {
				out = append(out, n.Line)
				walk(n.Children)
			}
		}
		walk(cfg.Tree.Nodes)
	default:
		empty := &devcfg.Config{Shape: cfg.Shape, Paths: devcfg.Paths{}}
		for _, l := range devcfg.BuildPatch(devcfg.Diff(cfg, empty, syn, nil), syn).Lines {
			out = append(out, strings.TrimPrefix(l, syn.Set))
		}
	}
	return out
}
