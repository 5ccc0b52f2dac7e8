package all

import (
	"reflect"

	"github.com/rocefab/rocefab/renderers"
)

// Check lists what a registered platform lacks of what the driver, lint
// and render rely on (docs/platforms.md, "The entry"); nil when nothing.
// Every platform here is held to it, and so is a test's own.
func Check(e *renderers.Entry) []string {
	a := e.Attrs
	p := a.Platform
	var missing []string
	for _, c := range []struct {
		ok   bool
		what string
	}{
		{p.Name == e.Name, "Platform.Name is the registered name"},
		{p.Shape != "", "Platform.Shape"},
		{p.Commit != "", "Platform.Commit"},
		{p.Syntax.Style != "", "Platform.Syntax.Style"},
		{len(a.Transports) > 0, "Transports"},
		{a.MTUCeiling >= 1500, "MTUCeiling"},
		{a.PortPattern != nil && a.PortExample != "" && a.PortPattern.MatchString(a.PortExample), "PortPattern matches PortExample"},
		{a.Classify != nil, "Classify"},
		{a.Encode != nil, "Encode"},
		{a.FileExt != "", "FileExt"},
		{e.New != nil && e.New() != nil, "New returns a renderer"},
		// Text platforms are read by parsing what the device prints.
		{!e.SupportsTransport("ssh") || p.Parse != nil, "Platform.Parse"},
		{!e.SupportsTransport("ssh") || p.ShowRunning != "", "Platform.ShowRunning"},
		// The SSH driver pushes only what a dialect tells it.
		{!e.SupportsTransport("ssh") || p.Dialect != nil, "Platform.Dialect"},
		// A declared limit is cited and not empty.
		// What a platform reads back, or carries for OpenConfig, is whole.
		{a.LLDP == nil || a.LLDP.Parse != nil && a.LLDP.Cite != "" && (a.LLDP.Show != "" || len(a.LLDP.GNMIPath) > 0), "LLDP (a parser, how to read it, a citation)"},
		{a.ShowCounters == nil || len(a.ShowCounterSources) > 0, "ShowCounterSources (for ShowCounters)"},
		{a.PFCFallback == nil || a.PFCFallback.Origin != "" && a.PFCFallback.Template != nil && a.PFCFallback.Scope != nil && a.PFCFallback.Target != nil && len(a.PFCFallback.Sources) > 0,
			"PFCFallback (an origin, a template, its scope, the target check, sources)"},
		// A section decodes into a schema struct; lint's queue buffer
		// finding says what to write.
		{a.Settings == nil || a.Settings.New != nil && isStructPointer(a.Settings.New()), "Settings.New returns a pointer to a struct"},
		{a.NeedsQueueBuffer == nil || a.QueueBufferHint != "", "QueueBufferHint (for NeedsQueueBuffer)"},
		{a.LAGNumbers == nil || (a.LAGNumbers.Source != "" && a.LAGNumbers.Example != "" && 1 <= a.LAGNumbers.Min && a.LAGNumbers.Min <= a.LAGNumbers.Max), "LAGNumbers (a cited, non-empty range)"},
	} {
		if !c.ok {
			missing = append(missing, c.what)
		}
	}
	return missing
}

func isStructPointer(v any) bool {
	t := reflect.TypeOf(v)
	return t != nil && t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct
}
