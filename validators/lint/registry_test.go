package lint_test

import (
	"errors"
	"regexp"
	"sort"
	"testing"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/all"
)

// standIns carry the lint-relevant facts of platforms whose renderers are
// not registered yet (from shared/reference/vendor-configs.md). The real
// entry always wins once it is registered.
var standIns = map[string]renderers.Attributes{
	"nxos":       {Transports: []string{"ssh"}, MTUCeiling: 9216, PortPattern: regexp.MustCompile(`^(Ethernet\d+/\d+(/\d+)?|port-channel\d+)$`), PortExample: "Ethernet1/1", MaxNoDropPriorities: 3},
	"eos":        {Transports: []string{"ssh"}, MTUCeiling: 9214, PortPattern: regexp.MustCompile(`^(Ethernet\d+(/\d+){0,2}|Port-Channel\d+)$`), PortExample: "Ethernet1", MaxNoDropPriorities: 2},
	"sonic":      {Transports: []string{"gnmi", "ssh"}, MTUCeiling: 9216, PortPattern: regexp.MustCompile(`^(Ethernet\d+|PortChannel\d+)$`), PortExample: "Ethernet0", MaxNoDropPriorities: 2},
	"cumulus":    {Transports: []string{"ssh"}, MTUCeiling: 9216, PortPattern: regexp.MustCompile(`^(swp\d+(s\d+)?|bond[A-Za-z0-9_-]*)$`), PortExample: "swp1", MaxNoDropPriorities: 2},
	"junos":      {Transports: []string{"ssh"}, MTUCeiling: 9202, PortPattern: regexp.MustCompile(`^((et|xe|ge|mge)-\d+/\d+/\d+(:\d+)?|ae\d+)$`), PortExample: "et-0/0/0", MaxNoDropPriorities: 6},
	"openconfig": {Transports: []string{"gnmi"}, MTUCeiling: 9216, NeedsPFCFallback: true, MaxNoDropPriorities: 8},
	"linux":      {Transports: []string{"netlink"}, MTUCeiling: 9216, MaxNoDropPriorities: 8},
}

type unrendered struct{}

func (unrendered) Render(sw *intent.Switch) (*devcfg.Config, error) {
	return nil, errors.New("stand-in platform: no renderer")
}

// registry is the real registry, completed with stand-ins for the platforms
// not registered yet, so lint rules are tested on every platform today.
func registry(tb testing.TB) *renderers.Registry {
	tb.Helper()
	reg := all.Renderers()
	var added []string
	for name, attrs := range standIns {
		if _, err := reg.Lookup(name); err == nil {
			continue
		}
		if err := reg.Register(renderers.Entry{Name: name, New: func() renderers.Renderer { return unrendered{} }, Attrs: attrs}); err != nil {
			tb.Fatal(err)
		}
		added = append(added, name)
	}
	if len(added) > 0 {
		sort.Strings(added)
		tb.Logf("stand-in attributes for platforms not registered yet: %v", added)
	}
	return reg
}
