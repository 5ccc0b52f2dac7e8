package openconfig

import (
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/eos"
	"github.com/rocefab/rocefab/renderers/nxos"
	"github.com/rocefab/rocefab/renderers/sonic"
)

// testRegistry holds the platforms whose PFC fallbacks the tests render,
// registered as renderers/all registers them.
var testRegistry = func() *renderers.Registry {
	r := renderers.NewRegistry()
	for _, register := range []func(*renderers.Registry) error{eos.Register, nxos.Register, sonic.Register, Register} {
		if err := register(r); err != nil {
			panic(err)
		}
	}
	return r
}()

func testRenderer() Renderer { return Renderer{Fallbacks: testRegistry} }

var testFit = fitWith(testRegistry)
