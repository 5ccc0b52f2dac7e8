package openconfig

import (
	"fmt"
	"strings"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers"
)

// Fit checks, before a push, that the target takes the PFC fallback's
// origin in the same SetRequest as the OpenConfig paths
// (renderers.Attributes.Fit). A target that does not rejects the whole
// request (a strict OpenConfig server answers "no match found in *oc.Root,
// for path origin:cli"), so the plan refuses the device and says PFC is not
// expressible there instead of the push failing. What the target takes is
// read from its Capabilities (the gNMI driver's Facts):
//
//   - cli (eos, nxos fallbacks): the gNMI mixed-schema specification has a
//     target take origin cli as CLI input beside OpenConfig in one
//     transactional SetRequest (openconfig/reference rpc/gnmi/mixed-schema.md;
//     featureprofiles gNMI-1.12 tests vendors for it), but a target says so
//     only by being the vendor's own server: rocefab requires the vendor's
//     models in Capabilities (EOS advertises its arista-* augment models,
//     NX-OS its Cisco-NX-OS-device model). A target advertising only
//     OpenConfig models, such as the lemming reference server, is strict.
//   - sonic-db (sonic fallback): only sonic-gnmi advertises the sonic-db
//     model, and it takes one origin per SetRequest (gnmi_server/server.go
//     ParseOrigin, "Origin conflict in path"), so the sonic fallback never
//     rides with OpenConfig paths there: manage SONiC with platform sonic.
//
// A target that would not even answer a Get under the origin (Facts
// gnmi.origin.<origin>) does not take it either. A running config without
// Capabilities facts (not read over gNMI) is not checked.
func Fit(sw *intent.Switch, desired, running *devcfg.Config) error {
	return fitWith(nil)(sw, desired, running)
}

// fitWith is Fit with the fallbacks reg registers.
func fitWith(reg *renderers.Registry) func(sw *intent.Switch, desired, running *devcfg.Config) error {
	return func(sw *intent.Switch, desired, running *devcfg.Config) error {
		name := sw.OCFallback
		fb := fallbackOf(reg, name)
		if running == nil || fb == nil || !sw.Policy.PFCOn() {
			return nil
		}
		advertised, read := running.Facts[devcfg.FactGNMIModels]
		if !read {
			return nil
		}
		by, why := fb.Target(strings.Split(advertised, ","))
		if msg := running.Facts[devcfg.FactGNMIOriginPrefix+fb.Origin]; why == "" && msg != "" {
			why = "the target would not answer a Get under origin " + fb.Origin + ": " + msg
		}
		if why != "" {
			return fmt.Errorf("PFC is not expressible on %s: the %s fallback sends PFC under origin %s in the same SetRequest as the OpenConfig paths, and %s; nothing is pushed. Manage the switch with platform %s, or declare openconfig.pfcFallback.platform: none to push the OpenConfig part without PFC",
				sw.Name, name, fb.Origin, why, name)
		}
		desired.Notes = append(desired.Notes, fmt.Sprintf("the target takes origin %s beside OpenConfig in one SetRequest (its Capabilities advertise %s)", fb.Origin, by))
		return nil
	}
}
