package openconfig

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
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
	fb := sw.OCFallback
	f, ok := fallbacks[fb]
	if running == nil || !ok || !sw.Policy.PFCOn() {
		return nil
	}
	advertised, read := running.Facts[devcfg.FactGNMIModels]
	if !read {
		return nil
	}
	models := strings.Split(advertised, ",")
	var why, by string
	switch fb {
	case "sonic":
		if slices.Contains(models, "sonic-db") {
			why = "the target is sonic-gnmi (it advertises the sonic-db model), which takes one origin per SetRequest"
		} else {
			why = "the target does not advertise the sonic-db model"
		}
	case "eos":
		if m := firstWithPrefix(models, "arista-"); m != "" {
			by = m
		} else {
			why = "its Capabilities advertise no Arista model (" + modelSummary(models) + "), so it is not EOS's own gNMI server, the one that takes origin cli beside OpenConfig"
		}
	case "nxos":
		if slices.Contains(models, "Cisco-NX-OS-device") {
			by = "Cisco-NX-OS-device"
		} else {
			why = "its Capabilities do not advertise Cisco-NX-OS-device (" + modelSummary(models) + "), so it is not NX-OS's own gNMI server, the one that takes origin cli beside OpenConfig"
		}
	}
	if msg := running.Facts[devcfg.FactGNMIOriginPrefix+f.origin]; why == "" && msg != "" {
		why = "the target would not answer a Get under origin " + f.origin + ": " + msg
	}
	if why != "" {
		return fmt.Errorf("PFC is not expressible on %s: the %s fallback sends PFC under origin %s in the same SetRequest as the OpenConfig paths, and %s; nothing is pushed. Manage the switch with platform %s, or declare openconfig.pfcFallback.platform: none to push the OpenConfig part without PFC",
			sw.Name, fb, f.origin, why, fb)
	}
	desired.Notes = append(desired.Notes, fmt.Sprintf("the target takes origin %s beside OpenConfig in one SetRequest (its Capabilities advertise %s)", f.origin, by))
	return nil
}

func firstWithPrefix(models []string, prefix string) string {
	for _, m := range models {
		if strings.HasPrefix(m, prefix) {
			return m
		}
	}
	return ""
}

func modelSummary(models []string) string {
	models = slices.DeleteFunc(slices.Clone(models), func(s string) bool { return s == "" })
	switch {
	case len(models) == 0:
		return "no models"
	case len(models) <= 3:
		return strings.Join(models, ", ")
	}
	return fmt.Sprintf("%s, %s and %d more", models[0], models[1], len(models)-2)
}
