package junos

import (
	"regexp"
	"strings"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/renderers"
)

// Register adds the junos platform.
func Register(r *renderers.Registry) error {
	return r.Register(renderers.Entry{
		Name: "junos",
		New:  New,
		Attrs: renderers.Attributes{
			Platform: devcfg.Platform{
				Shape:       devcfg.ShapePaths,
				Scrapli:     "juniper_junos",
				Commit:      devcfg.CommitDialect,
				Dialect:     Dialect,
				ShowRunning: "show configuration | display set",
				CLIErrors:   []string{"error:", "syntax error", "unknown command"},
				Syntax:      devcfg.Syntax{Style: devcfg.StyleStatements, Set: "set ", Delete: "delete "},
				Parse:       Parse,
				Normalise:   Normalise,
			},
			Transports:          []string{"ssh"},
			MTUCeiling:          MTUCeiling,
			PortPattern:         regexp.MustCompile(`^((et|xe|ge|mge)-\d+/\d+/\d+(:\d+)?|ae\d+)$`),
			PortExample:         "et-0/0/0",
			MaxNoDropPriorities: 6,
			Settings:            &SettingsType,
			NeedsQueueBuffer:    needsQueueBuffer,
			QueueBufferHint:     "Junos takes ECN thresholds only as a percentage of the queue buffer; set junos.queueBufferSize (e.g. 10MB) or junos.fillLevelMin/fillLevelMax",
			Classify: renderers.ClassifyByKeywords(map[string]string{
				" mtu":                            "an MTU change reprograms the port and drops frames in flight",
				"no-loss":                         "a lossless class change re-carves the buffers; Junos blocks the port until it applies",
				"pfc-priority":                    "a PFC change re-carves the buffers; Junos blocks the port until it applies",
				"congestion-notification-profile": "a PFC change re-carves the buffers; Junos blocks the port until it applies",
			}),
			Encode:             Encode,
			Sources:            Sources,
			Watchdog:           &renderers.WatchdogTimes{}, // times keep the platform defaults; see doc.go
			Headroom:           &HeadroomFacts,
			FileExt:            ".set",
			LLDP:               &LLDP,
			ShowCounters:       ShowCounters,
			ShowCounterSources: ShowCounterSources,
		},
	})
}

// Encode prints one `set` statement per entry in natural order (so
// "fill-level 5" comes before "fill-level 20": the nth fill level pairs
// with the nth drop probability), then the `deactivate` lines.
func Encode(cfg *devcfg.Config) ([]byte, error) {
	var b, inactive strings.Builder
	for _, k := range cfg.Paths.NaturalKeys() {
		if strings.HasPrefix(k, Inactive) {
			inactive.WriteString(k)
			inactive.WriteByte('\n')
			continue
		}
		b.WriteString("set ")
		b.WriteString(statement(k, cfg.Paths[k]))
		b.WriteByte('\n')
	}
	b.WriteString(inactive.String())
	return []byte(b.String()), nil
}
