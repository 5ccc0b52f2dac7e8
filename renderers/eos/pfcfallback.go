package eos

import (
	_ "embed"
	"strconv"
	"strings"
	"text/template"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers"
)

//go:embed pfcfallback.tmpl
var fallbackTemplate string

// PFCFallback carries EOS's PFC on an OpenConfig switch running EOS: CLI
// under origin cli, per interface.
var PFCFallback = renderers.PFCFallback{
	Origin: renderers.OriginCLI,
	Indent: 3,
	LineKeys: []string{
		"priority-flow-control pause watchdog port timer ",
		"priority-flow-control pause watchdog port action ",
	},
	Template: template.Must(template.New("eos").Parse(fallbackTemplate)),
	Prepare:  fallbackWatchdog,
	Scope: func(s *devcfg.Scope, ports []string, _ string) {
		for _, port := range ports {
			s.PathPrefixes = append(s.PathPrefixes, renderers.OriginPath(renderers.OriginCLI, "interface "+port+" > priority-flow-control "))
		}
	},
	Target: func(models []string) (string, string) {
		for _, m := range models {
			if strings.HasPrefix(m, "arista-") {
				return m, ""
			}
		}
		return "", "its Capabilities advertise no Arista model (" + renderers.ModelSummary(models) + "), so it is not EOS's own gNMI server, the one that takes origin cli beside OpenConfig"
	},
	Sources: renderers.Sourced(
		`cli:/interface \S+ > priority-flow-control (on|priority \d no-drop|pause watchdog|pause watchdog port action|pause watchdog port timer)`,
		"eos fallback, "+renderers.SourceCLIOrigin+"; AVD templates qos-profiles.j2 and ethernet-interfaces.j2 (priority-flow-control on, priority-flow-control priority N no-drop, priority-flow-control pause watchdog, ... port action drop, ... port timer timeout T polling-interval auto recovery-time R); AVD schema qos_profiles.schema.yml (timers with at most two decimals; per-port action drop overrides the default error-disable)"),
}

// fallbackWatchdog sets the watchdog in EOS's units: seconds.
func fallbackWatchdog(sw *intent.Switch, d *renderers.FallbackData, cfg *devcfg.Config) error {
	w := sw.Policy.Watchdog
	if !w.Enabled {
		return nil
	}
	d.WatchdogAction = w.Action
	if w.Detection > 0 && w.Restoration > 0 {
		d.WatchdogTimer = true
		d.DetectionSeconds = strconv.FormatFloat(w.Detection.Seconds(), 'f', -1, 64)
		d.RestorationSeconds = strconv.FormatFloat(w.Restoration.Seconds(), 'f', -1, 64)
	} else if w.Detection > 0 || w.Restoration > 0 {
		cfg.Notes = append(cfg.Notes, "eos fallback: the PFC watchdog timer needs both detectionTime and restorationTime; EOS defaults are used")
	}
	if w.Action == "" {
		// EOS's own default error-disables the whole port; rocefab's
		// default is drop (see doc.go).
		d.WatchdogAction = "drop"
	}
	if w.Action == "forward" {
		cfg.Notes = append(cfg.Notes, "eos fallback: PFC watchdog action forward has no EOS equivalent; the EOS default action (errdisable the port) is used")
	}
	return nil
}
