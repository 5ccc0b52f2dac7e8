package all

import (
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/cumulus"
	"github.com/rocefab/rocefab/renderers/eos"
	"github.com/rocefab/rocefab/renderers/junos"
	"github.com/rocefab/rocefab/renderers/linux"
	"github.com/rocefab/rocefab/renderers/nxos"
	"github.com/rocefab/rocefab/renderers/openconfig"
	"github.com/rocefab/rocefab/renderers/sonic"
)

// registrations is the one list of platforms.
var registrations = []func(*renderers.Registry) error{
	cumulus.Register,
	eos.Register,
	junos.Register,
	linux.Register,
	nxos.Register,
	openconfig.Register,
	sonic.Register,
}

// Renderers returns a registry with every platform.
func Renderers() *renderers.Registry {
	r := renderers.NewRegistry()
	for _, register := range registrations {
		if err := register(r); err != nil {
			panic(err) // a programming error: duplicate platform name
		}
	}
	return r
}
