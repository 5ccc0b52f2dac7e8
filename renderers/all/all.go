package all

import (
	"slices"

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
	r, err := Registry()
	if err != nil {
		panic(err) // a programming error: duplicate platform name
	}
	return r
}

// Registry returns a registry with every platform and the extra ones, each
// registered as the real ones are: by its package's Register. Tests use it
// for a platform of their own (docs/platforms.md).
func Registry(extra ...func(*renderers.Registry) error) (*renderers.Registry, error) {
	r := renderers.NewRegistry()
	for _, register := range append(slices.Clone(registrations), extra...) {
		if err := register(r); err != nil {
			return nil, err
		}
	}
	return r, nil
}
