package nxos

import (
	"regexp"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/iosstyle"
)

// Syntax is the NX-OS patch grammar. LineKeys are the single-valued lines,
// so a changed value diffs as a modification of the same line. A trunk's
// allowed-VLAN member line is its own key, and is removed with
// "switchport trunk allowed vlan remove N": "no switchport trunk allowed
// vlan" would reset the whole list.
var syntax = devcfg.Syntax{
	Style:  devcfg.StyleCLITree,
	Negate: "no ",
	Exit:   "exit",
	LineKeys: []string{
		"mtu ",
		"set qos-group ",
		"pause pfc-cos ",
		"priority level ",
		"bandwidth remaining percent ",
		"random-detect ",
		"service-policy type network-qos ",
		"service-policy type queuing output ",
		"service-policy type queuing input ",
		"pause buffer-size ",
		"service-policy type qos input ",
		"priority-flow-control watch-dog-interval ",
		"priority-flow-control mode ",
		"switchport mode ",
		"switchport access vlan ",
		"channel-group ",
	},
	NegateRewrite: map[string]string{iosstyle.TrunkVLANs.Member: iosstyle.TrunkRemove},
}

// Register adds the nxos platform.
func Register(r *renderers.Registry) error {
	return r.Register(renderers.Entry{
		Name: "nxos",
		New:  New,
		Attrs: renderers.Attributes{
			Platform: devcfg.Platform{
				Shape:       devcfg.ShapeTree,
				Scrapli:     "cisco_nxos",
				Commit:      devcfg.CommitDialect,
				Dialect:     Dialect,
				ShowRunning: "show running-config",
				CLIErrors:   []string{"% Invalid command", "% Incomplete command", "% Invalid parameter", "ERROR:"},
				Syntax:      syntax,
				Parse:       Parse,
				Normalise:   Normalise,
			},
			Transports:          []string{"ssh"},
			MTUCeiling:          MTUCeiling,
			PortPattern:         regexp.MustCompile(`^(Ethernet\d+/\d+(/\d+)?|port-channel\d+)$`),
			PortExample:         "Ethernet1/1",
			MaxNoDropPriorities: 3,
			Singletons:          []string{"system qos network-qos policy", "system qos queuing output policy", "system qos queuing input policy"},
			Classify: renderers.ClassifyByKeywords(map[string]string{
				"mtu ":                  "an MTU change reprograms the port and drops frames in flight",
				"network-qos":           "a network-qos change re-carves the system buffers and briefly pauses traffic",
				"priority-flow-control": "a PFC change re-carves the port buffers and drops traffic while it applies",
				"pause pfc-cos":         "a PFC change re-carves the port buffers and drops traffic while it applies",
				"pause buffer-size":     "a pause buffer change re-carves the no-drop buffers of every port",
				"queuing input":         "an input queuing change re-carves the no-drop buffers of every port",
			}),
			Encode:     Encode,
			Sources:    Sources,
			Watchdog:   &renderers.WatchdogTimes{}, // times keep the platform defaults; see doc.go
			LAGNumbers: &LAGs,
			Headroom:   &HeadroomFacts,
			FileExt:    ".cfg",
		},
	})
}

// Encode is the NX-OS CLI text, two spaces per level.
func Encode(cfg *devcfg.Config) ([]byte, error) {
	return []byte(cfg.Tree.Text(2)), nil
}
