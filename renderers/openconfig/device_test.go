package openconfig

import (
	"strings"
	"testing"

	"github.com/rocefab/rocefab/devcfg"
)

// running is what the gNMI driver reads from a target with these models.
func running(models string, facts ...string) *devcfg.Config {
	f := map[string]string{devcfg.FactGNMIModels: models}
	for i := 0; i+1 < len(facts); i += 2 {
		f[facts[i]] = facts[i+1]
	}
	return &devcfg.Config{Shape: devcfg.ShapePaths, Paths: devcfg.Paths{}, Facts: f}
}

const ocModels = "openconfig-if-ethernet,openconfig-interfaces,openconfig-qos,openconfig-vlan"

// TestFitOrigins: the PFC fallback rides in the SetRequest only where the
// target takes its origin beside OpenConfig; elsewhere the plan says PFC is
// not expressible and nothing is pushed (a strict server rejects the whole
// request: "no match found in *oc.Root, for path origin:cli"). Sources:
// openconfig/reference rpc/gnmi/mixed-schema.md (origin cli beside
// openconfig, one transaction), sonic-gnmi gnmi_server/server.go
// ParseOrigin (one origin per SetRequest).
func TestFitOrigins(t *testing.T) {
	cases := []struct {
		variant string
		running *devcfg.Config
		want    string // error text, or "" for a fit
		note    string
	}{
		{"eos-fallback", running(ocModels), "PFC is not expressible on spine-oc: the eos fallback sends PFC under origin cli", ""},
		{"eos-fallback", running(ocModels + ",arista-intf-augments"), "", "takes origin cli beside OpenConfig in one SetRequest (its Capabilities advertise arista-intf-augments)"},
		{"eos-fallback", running(ocModels+",arista-intf-augments", devcfg.FactGNMIOriginPrefix+"cli", "Get cli: InvalidArgument: unknown origin"), "would not answer a Get under origin cli: Get cli: InvalidArgument: unknown origin", ""},
		{"nxos-fallback", running(ocModels + ",arista-intf-augments"), "do not advertise Cisco-NX-OS-device", ""},
		{"nxos-fallback", running(ocModels + ",Cisco-NX-OS-device"), "", "Cisco-NX-OS-device"},
		{"sonic-fallback", running(ocModels + ",sonic-db"), "the target is sonic-gnmi (it advertises the sonic-db model), which takes one origin per SetRequest", ""},
		{"sonic-fallback", running(ocModels), "does not advertise the sonic-db model", ""},
		{"fallback-none", running(ocModels), "", "PFC is not expressible on this device over OpenConfig"},
		{"ecn-only-no-fallback", running(ocModels), "", ""},
		{"eos-fallback", &devcfg.Config{Shape: devcfg.ShapePaths}, "", ""}, // not read over gNMI: nothing to check
	}
	for _, tc := range cases {
		t.Run(tc.variant, func(t *testing.T) {
			sw := variantSwitch(t, tc.variant)
			desired := mustRender(t, sw)
			err := testFit(sw, desired, tc.running)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("err = %v, want %q", err, tc.want)
			case tc.want != "" && !strings.Contains(err.Error(), "openconfig.pfcFallback.platform: none"):
				t.Errorf("the refusal does not say how to push without PFC: %v", err)
			}
			if tc.note != "" && !strings.Contains(strings.Join(desired.Notes, "\n"), tc.note) {
				t.Errorf("no note says %q: %q", tc.note, desired.Notes)
			}
		})
	}
}

// TestFallbackNone: an explicit "none" renders no native paths and claims
// no native scope, with PFC on.
func TestFallbackNone(t *testing.T) {
	cfg := mustRender(t, variantSwitch(t, "fallback-none"))
	for p := range cfg.Paths {
		if strings.HasPrefix(p, "cli:") || strings.HasPrefix(p, "sonic-db:") {
			t.Errorf("fallback none rendered %s", p)
		}
	}
	for _, p := range append(cfg.Owned.Paths, cfg.Owned.PathPrefixes...) {
		if strings.HasPrefix(p, "cli:") || strings.HasPrefix(p, "sonic-db:") {
			t.Errorf("fallback none owns %s", p)
		}
	}
}

// TestNormaliseYANGDefaults: a target that reports YANG defaults (lemming
// does) shows red/uniform enable-ecn and drop at false in rocefab's ECN
// profile; that is no drift, a true there is.
func TestNormaliseYANGDefaults(t *testing.T) {
	const qmp = "/qos/queue-management-profiles/queue-management-profile[name=ROCEFAB_ECN]"
	in := &devcfg.Config{Shape: devcfg.ShapePaths, Paths: devcfg.Paths{
		qmp + "/red/uniform/config/enable-ecn": devcfg.Bool(false),
		qmp + "/red/uniform/config/drop":       devcfg.Bool(true),
	}}
	out := Normalise(in).Paths
	if _, ok := out[qmp+"/red/uniform/config/enable-ecn"]; ok {
		t.Error("the default enable-ecn false was kept")
	}
	if _, ok := out[qmp+"/red/uniform/config/drop"]; !ok {
		t.Error("drop true is not a default and must stay visible")
	}
}
