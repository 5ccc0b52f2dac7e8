package all

import "github.com/rocefab/rocefab/renderers"

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
		{a.LAGNumbers == nil || (a.LAGNumbers.Source != "" && a.LAGNumbers.Example != "" && 1 <= a.LAGNumbers.Min && a.LAGNumbers.Min <= a.LAGNumbers.Max), "LAGNumbers (a cited, non-empty range)"},
	} {
		if !c.ok {
			missing = append(missing, c.what)
		}
	}
	return missing
}
