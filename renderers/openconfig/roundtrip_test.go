package openconfig

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers/gnmi/gnmipath"
	"github.com/rocefab/rocefab/renderers/sonic"
)

// owned is what a driver compares: parse, filter to scope, normalise.
func owned(t *testing.T, raw []byte, scope devcfg.Scope) devcfg.Paths {
	t.Helper()
	cfg, err := Parse(raw)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return Normalise(cfg.Filter(scope)).Paths
}

func TestRoundTrip(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			want := mustRender(t, variantSwitch(t, v.name))
			raw, err := Encode(want)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want.Filter(want.Owned).Paths, owned(t, raw, want.Owned)); diff != "" {
				t.Fatalf("round trip differs (-want +got):\n%s", diff)
			}
			if n := len(want.Filter(want.Owned).Paths); n != len(want.Paths) {
				t.Fatalf("scope owns %d of %d rendered paths", n, len(want.Paths))
			}
		})
	}
}

// runningLeaves is what a target answers: rocefab's leaves, other config,
// and the variations Normalise absorbs.
func runningLeaves(t *testing.T, want devcfg.Paths, edit func(m map[string]json.RawMessage)) []byte {
	t.Helper()
	m := map[string]json.RawMessage{}
	for k, v := range want {
		m[k] = json.RawMessage(v)
	}
	// Other owners' configuration, outside rocefab's scope.
	m["/interfaces/interface[name=Ethernet1]/config/description"] = json.RawMessage(`"to gpu01"`)
	m["/interfaces/interface[name=Ethernet1]/config/enabled"] = json.RawMessage(`true`)
	m["/interfaces/interface[name=Management1]/config/mtu"] = json.RawMessage(`1514`)
	m["/qos/classifiers/classifier[name=CUSTOMER]/config/name"] = json.RawMessage(`"CUSTOMER"`)
	m["/qos/interfaces/interface[interface-id=Ethernet1]/output/queues/queue[name=BE]/config/name"] = json.RawMessage(`"BE"`)
	m["cli:/interface Ethernet1 > description to gpu01"] = json.RawMessage(`"interface Ethernet1\n   description to gpu01"`)
	edit(m)
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestNormaliseAbsorbsTargetVariation: a compliant target that answers in
// plain JSON (uint64 as numbers) and with short identity prefixes shows no
// diff.
func TestNormaliseAbsorbsTargetVariation(t *testing.T) {
	const qmp = "/qos/queue-management-profiles/queue-management-profile[name=ROCEFAB_ECN]/wred/uniform/config/"
	const sched = "/qos/scheduler-policies/scheduler-policy[name=ROCEFAB_SCHED]/schedulers/scheduler[sequence=1]"
	for _, name := range []string{"eos-fallback", "nxos-fallback", "sonic-fallback", "access-lag"} {
		t.Run(name, func(t *testing.T) {
			want := mustRender(t, variantSwitch(t, name))
			raw := runningLeaves(t, want.Paths, func(m map[string]json.RawMessage) {
				m[qmp+"min-threshold"] = json.RawMessage(`150000`)
				m[qmp+"max-threshold"] = json.RawMessage(`1500000`)
				m[sched+"/inputs/input[id=ROCEFAB_ROCE]/config/weight"] = json.RawMessage(`50`)
				m[sched+"/config/type"] = json.RawMessage(`"oc-qos-types:ONE_RATE_TWO_COLOR"`)
				m["/interfaces/interface[name=Ethernet2]/config/type"] = json.RawMessage(`"ethernetCsmacd"`)
			})
			if diff := cmp.Diff(want.Filter(want.Owned).Paths, owned(t, raw, want.Owned)); diff != "" {
				t.Fatalf("normalised running differs (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNormaliseKeepsDrift: real differences stay visible.
func TestNormaliseKeepsDrift(t *testing.T) {
	cases := []struct {
		name, path, value string
	}{
		{"threshold changed", "/qos/queue-management-profiles/queue-management-profile[name=ROCEFAB_ECN]/wred/uniform/config/min-threshold", `"100000"`},
		{"ecn off", "/qos/queue-management-profiles/queue-management-profile[name=ROCEFAB_ECN]/wred/uniform/config/enable-ecn", `false`},
		{"mtu", "/interfaces/interface[name=Ethernet1]/config/mtu", `1514`},
		{"pause on", "/interfaces/interface[name=Ethernet1]/ethernet/config/enable-flow-control", `true`},
		{"wrong identity", "/interfaces/interface[name=Ethernet1]/config/type", `"iana-if-type:ieee8023adLag"`},
		{"foreign pfc line", "cli:/interface Ethernet1 > priority-flow-control priority 4 no-drop", `"interface Ethernet1\n   priority-flow-control priority 4 no-drop"`},
		{"stale rocefab queue binding", "/qos/interfaces/interface[interface-id=Ethernet1]/output/queues/queue[name=ROCEFAB_Q4]/config/name", `"ROCEFAB_Q4"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := mustRender(t, basicSwitch(t))
			got := owned(t, runningLeaves(t, want.Paths, func(m map[string]json.RawMessage) {
				m[tc.path] = json.RawMessage(tc.value)
			}), want.Owned)
			if string(got[tc.path]) != tc.value {
				t.Fatalf("%s = %s after normalise, want %s (drift must stay visible)", tc.path, got[tc.path], tc.value)
			}
		})
	}
}

// TestKeysAreGNMIPaths: every key parses as the gNMI driver reads it, with
// the origin and list keys rocefab meant.
func TestKeysAreGNMIPaths(t *testing.T) {
	for _, name := range []string{"nxos-fallback", "sonic-fallback", "access-lag"} {
		cfg := mustRender(t, variantSwitch(t, name))
		for _, k := range cfg.Paths.Keys() {
			p, err := gnmipath.Parse(k)
			if err != nil {
				t.Fatalf("gnmipath.Parse(%q): %v", k, err)
			}
			if got := gnmipath.Format(p); got != k {
				t.Errorf("%q formats back as %q: not canonical", k, got)
			}
			switch o := p.GetOrigin(); {
			case o == OriginCLI:
				if len(p.GetElem()) != 1 {
					t.Errorf("cli key %q has %d elements, want 1", k, len(p.GetElem()))
				}
			case o == sonic.Origin:
				if n := len(p.GetElem()); n != 3 && n != 2 {
					t.Errorf("sonic-db key %q has %d elements", k, n)
				}
			case o != "":
				t.Errorf("%q has origin %q", k, o)
			}
		}
	}
}

// TestNXOSNetworkQoSSingleton: another network-qos policy under system qos
// is a conflict for the nxos fallback.
func TestNXOSNetworkQoSSingleton(t *testing.T) {
	want := mustRender(t, variantSwitch(t, "nxos-fallback"))
	key := "cli:/system qos > service-policy type network-qos"
	for _, tc := range []struct {
		held      string
		conflicts int
	}{{"OTHER_NQ", 1}, {"ROCEFAB_NQ", 0}} {
		running := &devcfg.Config{Shape: devcfg.ShapePaths, Paths: devcfg.Paths{
			key: devcfg.String("system qos\n  service-policy type network-qos " + tc.held),
		}}
		if got := devcfg.Conflicts(running, want.Singletons); len(got) != tc.conflicts {
			t.Errorf("network-qos %s: %d conflicts %v, want %d", tc.held, len(got), got, tc.conflicts)
		}
	}
	if len(mustRender(t, basicSwitch(t)).Singletons) != 0 {
		t.Error("the eos fallback claims a singleton")
	}
}

func TestNormaliseUnit(t *testing.T) {
	const (
		qmp = "/qos/queue-management-profiles/queue-management-profile[name=ROCEFAB_ECN]/wred/uniform/config/"
		in  = "/qos/scheduler-policies/scheduler-policy[name=ROCEFAB_SCHED]/schedulers/scheduler[sequence=1]/inputs/input[id=ROCEFAB_ROCE]/config/weight"
		sv  = "/interfaces/interface[name=Ethernet1]/ethernet/switched-vlan/config/trunk-vlans"
	)
	src := &devcfg.Config{Shape: devcfg.ShapePaths, Paths: devcfg.Paths{
		qmp + "min-threshold": `150000`,
		qmp + "weight":        `0`,
		in:                    `50`,
		sv:                    `["100","0200","100..200"]`,
		"/interfaces/interface[name=E1]/config/type":   `"ethernetCsmacd"`,
		"/interfaces/interface[name=E2]/config/type":   `"ianaift:ieee8023adLag"`,
		"/interfaces/interface[name=E3]/config/type":   `"iana-if-type:softwareLoopback"`,
		"cli:/interface E1 > description /config/type": `"x"`,
	}}
	orig := src.Paths.Text()
	want := devcfg.Paths{
		qmp + "min-threshold": `"150000"`,
		qmp + "weight":        `0`,
		in:                    `"50"`,
		sv:                    `[100,200,"100..200"]`,
		"/interfaces/interface[name=E1]/config/type":   `"iana-if-type:ethernetCsmacd"`,
		"/interfaces/interface[name=E2]/config/type":   `"iana-if-type:ieee8023adLag"`,
		"/interfaces/interface[name=E3]/config/type":   `"iana-if-type:softwareLoopback"`,
		"cli:/interface E1 > description /config/type": `"x"`,
	}
	if diff := cmp.Diff(want, Normalise(src).Paths); diff != "" {
		t.Fatalf("Normalise (-want +got):\n%s", diff)
	}
	if src.Paths.Text() != orig {
		t.Fatal("Normalise changed its input")
	}
}
