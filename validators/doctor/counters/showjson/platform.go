package showjson

import (
	"github.com/rocefab/rocefab/devcfg/observe"
	"github.com/rocefab/rocefab/renderers"
)

// Command is one show command and the parser of its output; each platform
// registers its own (renderers.Attributes.ShowCounters).
type Command = observe.CounterCommand

// Platform is how one OS serves its counters over the CLI.
type Platform struct {
	Name     string
	commands observe.CounterCommands
}

// Commands are the commands that read ports.
func (p *Platform) Commands(ports []string) []Command { return p.commands(ports) }

// For is the registered platform whose counters are read with show
// commands; false when it registers none.
func For(reg *renderers.Registry, platform string) (*Platform, bool) {
	e, err := reg.Lookup(platform)
	if err != nil || e.Attrs.ShowCounters == nil {
		return nil, false
	}
	return &Platform{Name: e.Name, commands: e.Attrs.ShowCounters}, true
}

// Platforms lists the registered platforms read this way, sorted.
func Platforms(reg *renderers.Registry) []string {
	var out []string
	for _, n := range reg.Names() {
		if _, ok := For(reg, n); ok {
			out = append(out, n)
		}
	}
	return out
}
