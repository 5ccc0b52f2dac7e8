package eos

import (
	"regexp"
	"strconv"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/iosstyle"
)

// lineKeys are the single-valued EOS lines; each global map entry is keyed
// by its code point, so remapping DSCP 26 is one modification.
func lineKeys() []string {
	keys := []string{
		"mtu ",
		"qos trust ",
		"priority-flow-control pause watchdog port timer ",
		"priority-flow-control pause watchdog port action ",
		"random-detect ecn ",
		"priority ",
		"service-profile ",
		"switchport mode ",
		"switchport access vlan ",
		"channel-group ",
	}
	for d := 0; d < 64; d++ {
		keys = append(keys, "qos map dscp "+strconv.Itoa(d)+" to traffic-class ")
	}
	for c := 0; c < 8; c++ {
		keys = append(keys, "qos map cos "+strconv.Itoa(c)+" to traffic-class ")
	}
	return keys
}

// platformSyntax is the EOS patch grammar. A trunk's allowed-VLAN member
// line is its own key, and is removed with "switchport trunk allowed vlan
// remove N": "no switchport trunk allowed vlan" would reset the whole list
// to every VLAN. `no switchport` is removed with `switchport`.
func platformSyntax() devcfg.Syntax {
	return devcfg.Syntax{
		Style:         devcfg.StyleCLITree,
		Negate:        "no ",
		Exit:          "exit",
		LineKeys:      lineKeys(),
		NegateRewrite: map[string]string{iosstyle.TrunkVLANs.Member: iosstyle.TrunkRemove, routedPort: "switchport"},
	}
}

// Register adds the eos platform.
func Register(r *renderers.Registry) error {
	return r.Register(renderers.Entry{
		Name: "eos",
		New:  New,
		Attrs: renderers.Attributes{
			Platform: devcfg.Platform{
				Shape:       devcfg.ShapeTree,
				Scrapli:     "arista_eos",
				Commit:      devcfg.CommitDialect,
				Dialect:     Dialect,
				ShowRunning: "show running-config",
				CLIErrors:   []string{"% Invalid input", "% Incomplete command", "% Ambiguous command"},
				Syntax:      platformSyntax(),
				Parse:       Parse,
				Normalise:   Normalise,
			},
			Transports:          []string{"ssh"},
			MTUCeiling:          MTUCeiling,
			PortPattern:         regexp.MustCompile(`^(Ethernet\d+(/\d+){0,2}|Port-Channel\d+)$`),
			PortExample:         "Ethernet1",
			MaxNoDropPriorities: 2,
			Singletons:          []string{"global qos map"},
			Classify: renderers.ClassifyByKeywords(map[string]string{
				"mtu ":                  "an MTU change reprograms the port and drops frames in flight",
				"priority-flow-control": "a PFC change re-carves the port buffers and drops traffic while it applies",
				"service-profile":       "attaching or removing the qos profile switches PFC on the port",
			}),
			Encode:     Encode,
			Sources:    Sources,
			FileExt:    ".cfg",
			Watchdog:   &WatchdogTimes,
			LAGNumbers: &LAGs,
		},
	})
}

// Encode is the EOS CLI text, three spaces per level.
func Encode(cfg *devcfg.Config) ([]byte, error) {
	return []byte(cfg.Tree.Text(3)), nil
}
