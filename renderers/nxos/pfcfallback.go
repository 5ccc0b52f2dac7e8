package nxos

import (
	_ "embed"
	"slices"
	"strconv"
	"text/template"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers"
)

//go:embed pfcfallback.tmpl
var fallbackTemplate string

// fallbackNQPolicy is the network-qos policy of the fallback.
const fallbackNQPolicy = "ROCEFAB_NQ"

// FallbackSingleton names the device-wide setting the fallback claims.
const FallbackSingleton = "system qos network-qos policy (nxos fallback)"

// PFCFallback carries NX-OS's PFC on an OpenConfig switch running NX-OS:
// CLI under origin cli, pause in a network-qos policy.
var PFCFallback = renderers.PFCFallback{
	Origin: renderers.OriginCLI,
	Indent: 2,
	LineKeys: []string{
		"service-policy type network-qos ",
		"mtu ",
	},
	Template: template.Must(template.New("nxos").Parse(fallbackTemplate)),
	Prepare:  fallbackPrepare,
	Scope: func(s *devcfg.Scope, ports []string, marker string) {
		for _, port := range ports {
			s.PathPrefixes = append(s.PathPrefixes, renderers.OriginPath(renderers.OriginCLI, "interface "+port+" > priority-flow-control "))
		}
		s.PathPrefixes = append(s.PathPrefixes,
			renderers.OriginPath(renderers.OriginCLI, "policy-map type network-qos "+marker+"_"),
			renderers.OriginPath(renderers.OriginCLI, "priority-flow-control watch-dog-interval"))
		s.Paths = append(s.Paths, renderers.CLIKey([]string{"system qos"}, "service-policy type network-qos"))
	},
	Target: func(models []string) (string, string) {
		if slices.Contains(models, "Cisco-NX-OS-device") {
			return "Cisco-NX-OS-device", ""
		}
		return "", "its Capabilities do not advertise Cisco-NX-OS-device (" + renderers.ModelSummary(models) + "), so it is not NX-OS's own gNMI server, the one that takes origin cli beside OpenConfig"
	},
	Sources: renderers.Sourced(
		`cli:/interface \S+ > priority-flow-control (mode on|watch-dog-interval on)|cli:/priority-flow-control watch-dog-interval on|cli:/system qos > service-policy type network-qos`, fallbackSource,
		`cli:/policy-map type network-qos ROCEFAB_NQ > class type network-qos c-8q-nq(\d|-default) > (mtu|pause pfc-cos \d)`, fallbackSource),
}

const fallbackSource = "nxos fallback, " + renderers.SourceCLIOrigin + "; Cisco Nexus 9000 NX-OS QoS Configuration Guide, Configuring Priority Flow Control (policy-map type network-qos with c-8q-nqN classes: mtu, pause pfc-cos N; system qos service-policy type network-qos; interface priority-flow-control mode on; priority-flow-control watch-dog-interval on, global and per interface)"

// fallbackPrepare keeps the watchdog's NX-OS defaults and builds the
// 8-queue network-qos classes and the system qos policy they hang on.
func fallbackPrepare(sw *intent.Switch, d *renderers.FallbackData, cfg *devcfg.Config) error {
	if w := sw.Policy.Watchdog; w.Enabled {
		d.WatchdogAction = w.Action
		if w.Detection != 0 || w.Restoration != 0 || w.Action == "forward" {
			cfg.Notes = append(cfg.Notes, "nxos fallback: PFC watchdog times and action keep the NX-OS defaults")
		}
	}
	for q := 0; q < 8; q++ {
		c := renderers.FallbackClass{Name: "c-8q-nq" + strconv.Itoa(q), CoS: q}
		if q == 0 {
			c.Name = "c-8q-nq-default"
		}
		c.Pause = slices.Contains(d.Priorities, q)
		d.NetworkQoSClasses = append(d.NetworkQoSClasses, c)
	}
	cfg.Notes = append(cfg.Notes, "nxos fallback: network-qos uses the 8-queue classes (c-8q-nq*) of Nexus 9000")
	cfg.Singletons = append(cfg.Singletons, devcfg.Singleton{
		Name:   FallbackSingleton,
		Path:   renderers.CLIKey([]string{"system qos"}, "service-policy type network-qos"),
		Want:   renderers.CLIText(2, []string{"system qos"}, "service-policy type network-qos "+fallbackNQPolicy),
		Marker: d.Marker,
	})
	return nil
}
