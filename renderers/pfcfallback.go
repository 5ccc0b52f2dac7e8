package renderers

import (
	"fmt"
	"slices"
	"strings"
	"text/template"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
)

// OriginCLI is the gNMI origin that carries CLI text.
const OriginCLI = "cli"

// PFCFallback is how an OpenConfig switch running the platform's OS
// carries the platform's native PFC, which OpenConfig does not model: the
// native statements under a gNMI origin beside the OpenConfig paths
// (openconfig.pfcFallback.platform names the platform). The OpenConfig
// renderer runs it.
type PFCFallback struct {
	// Origin is the gNMI origin of the native part.
	Origin string
	// Indent is the CLI indentation per level when the template writes
	// indented CLI; 0: it writes "TABLE\tkey\tfield\tvalue" lines.
	Indent int
	// LineKeys are single-valued CLI lines: the key stops before the value.
	LineKeys []string
	// Template renders the native part from a FallbackData.
	Template *template.Template
	// Prepare sets the platform's part of d (the watchdog in its units,
	// its own classes), and may add notes and singletons to cfg; an error
	// refuses the switch.
	Prepare func(sw *intent.Switch, d *FallbackData, cfg *devcfg.Config) error
	// Scope claims the native settings the fallback renders on ports;
	// marker prefixes rocefab's own objects.
	Scope func(s *devcfg.Scope, ports []string, marker string)
	// RendersCableLength: the template writes the cable length.
	RendersCableLength bool
	// Target reads the models a gNMI target advertises: by names the one
	// showing it takes the origin beside OpenConfig in one SetRequest, else
	// why says why it does not.
	Target func(models []string) (by, why string)
	// Sources cite every path form the fallback writes.
	Sources []Source
}

// FallbackData is what a fallback's template sees.
type FallbackData struct {
	Marker       string
	Ports        []string
	Priorities   []int
	PriorityList string
	TCs          []int
	PGOf         map[int]int
	PGMap        bool
	MTU          int
	CableLength  int

	Watchdog                             bool
	WatchdogTimer                        bool
	WatchdogAction                       string
	DetectionSeconds, RestorationSeconds string
	DetectionMillis, RestorationMillis   string
	NetworkQoSClasses                    []FallbackClass
}

// FallbackClass is one class of a platform's own QoS policy.
type FallbackClass struct {
	Name  string
	Pause bool
	CoS   int
}

// OriginPath is the key "origin:/e1/e2" of a path under a gNMI origin,
// each element backslash-escaped.
func OriginPath(origin string, elems ...string) string {
	esc := make([]string, len(elems))
	for i, e := range elems {
		esc[i] = escapePathElem(e)
	}
	return origin + ":/" + strings.Join(esc, "/")
}

func escapePathElem(s string) string {
	if !strings.ContainsAny(s, `\/[]`) {
		return s
	}
	return strings.NewReplacer(`\`, `\\`, `/`, `\/`, `[`, `\[`, `]`, `\]`).Replace(s)
}

// CLIKey is the key of a CLI line under origin cli: its context and key
// joined by " > ".
func CLIKey(context []string, key string) string {
	return OriginPath(OriginCLI, strings.Join(append(append([]string(nil), context...), key), " > "))
}

// CLIText is the CLI that sets a line: context lines, then the line,
// indented as the device prints them.
func CLIText(indent int, context []string, line string) string {
	var b strings.Builder
	for depth, c := range append(append([]string(nil), context...), line) {
		if depth > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strings.Repeat(" ", depth*indent))
		b.WriteString(c)
	}
	return b.String()
}

// SourceCLIOrigin cites origin cli beside OpenConfig.
const SourceCLIOrigin = "openconfig/reference rpc/gnmi/gnmi-union_replace.md (origin cli carries CLI text) and mixed-schema.md (cli beside openconfig in one SetRequest)"

// ModelSummary names a target's advertised models, the first few.
func ModelSummary(models []string) string {
	models = slices.DeleteFunc(slices.Clone(models), func(s string) bool { return s == "" })
	switch {
	case len(models) == 0:
		return "no models"
	case len(models) <= 3:
		return strings.Join(models, ", ")
	}
	return fmt.Sprintf("%s, %s and %d more", models[0], models[1], len(models)-2)
}
