package openconfig

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/internal/examplestest"
	"github.com/rocefab/rocefab/internal/golden"
	"github.com/rocefab/rocefab/renderers"
)

// basicSwitch is spine-oc of examples/basic, a copy a test may edit.
func basicSwitch(t testing.TB) *intent.Switch { return examplestest.Switch(t, "basic", "spine-oc") }

func mustRender(t testing.TB, sw *intent.Switch) *devcfg.Config {
	t.Helper()
	cfg, err := testRenderer().Render(sw)
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	return cfg
}

// variants are model and policy variations of spine-oc.
var variants = []struct {
	name string
	edit func(sw *intent.Switch)
}{
	{"eos-fallback", func(sw *intent.Switch) {}},
	{"nxos-fallback", func(sw *intent.Switch) {
		sw.OCFallback = "nxos"
		sw.Ports = []intent.Port{{Name: "Ethernet1/1", Mode: "trunk"}, {Name: "Ethernet1/2", Mode: "trunk"}}
	}},
	{"sonic-fallback", func(sw *intent.Switch) {
		sw.OCFallback, sw.ASIC = "sonic", "mellanox"
		sw.Policy.CableLength = 5
		sw.Policy.Watchdog.Detection = 400 * time.Millisecond
		sw.Ports = []intent.Port{{Name: "Ethernet0", Mode: "trunk"}, {Name: "Ethernet4", Mode: "trunk"}}
	}},
	{"ecn-only-no-fallback", func(sw *intent.Switch) {
		sw.OCFallback = ""
		sw.Policy.Profile = intent.ProfileECNOnly
	}},
	{"pfc-only", func(sw *intent.Switch) { sw.Policy.Profile = intent.ProfilePFCOnly }},
	{"fallback-none", func(sw *intent.Switch) { sw.OCFallback = intent.PFCFallbackNone }},
	{"watchdog-times", func(sw *intent.Switch) {
		sw.Policy.Watchdog = intent.Watchdog{Enabled: true, Detection: 200 * time.Millisecond, Restoration: 2 * time.Second, Action: "drop"}
	}},
	{"routed-mtu", func(sw *intent.Switch) {
		sw.Policy.VLAN = 0
		sw.Policy.SwitchMTU = intent.SwitchMTU{Value: 4200}
		for i := range sw.Ports {
			sw.Ports[i].Mode = "routed"
		}
	}},
	{"access-lag", func(sw *intent.Switch) {
		sw.Ports = []intent.Port{
			{Name: "Ethernet1", Mode: "access"},
			{Name: "Ethernet2", Mode: "trunk", LAG: "Port-Channel10"},
			{Name: "Ethernet3", Mode: "trunk", LAG: "Port-Channel10"},
			{Name: "Ethernet4/1", Mode: "trunk"},
		}
	}},
	{"two-lossless", func(sw *intent.Switch) {
		sw.Policy.PFCPriorities = []int{3, 4}
		sw.Policy.RoCEDSCP = []int{24, 26}
		sw.Ports = sw.Ports[:2]
	}},
}

func variantSwitch(t testing.TB, name string) *intent.Switch {
	t.Helper()
	for _, v := range variants {
		if v.name == name {
			sw := basicSwitch(t)
			v.edit(sw)
			return sw
		}
	}
	t.Fatalf("no variant %s", name)
	return nil
}

// TestGoldenVariants pins every variant; examples/ goldens live in the
// renderers/all harness.
func TestGoldenVariants(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			data, err := Encode(mustRender(t, variantSwitch(t, v.name)))
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "variants", v.name+".json"), data)
			again, _ := Encode(mustRender(t, variantSwitch(t, v.name)))
			if string(again) != string(data) {
				t.Fatal("two renders of the same intent differ")
			}
		})
	}
}

func TestRenderFacts(t *testing.T) {
	const (
		cls = "/qos/classifiers/classifier[name=ROCEFAB_ROCE]"
		qmp = "/qos/queue-management-profiles/queue-management-profile[name=ROCEFAB_ECN]/wred/uniform/config/"
		sp  = "/qos/scheduler-policies/scheduler-policy[name=ROCEFAB_SCHED]/schedulers/"
		eth = "/interfaces/interface[name=Ethernet1]"
		qif = "/qos/interfaces/interface[interface-id=Ethernet1]"
	)
	cases := []struct {
		variant, path, want string
	}{
		{"eos-fallback", cls + "/config/type", `"IPV4"`},
		{"eos-fallback", cls + "/terms/term[id=ROCE_26]/conditions/ipv4/config/dscp", `26`},
		{"eos-fallback", cls + "/terms/term[id=ROCE_26]/actions/config/target-group", `"ROCEFAB_ROCE"`},
		{"eos-fallback", cls + "/terms/term[id=CNP_48]/actions/config/target-group", `"ROCEFAB_CNP"`},
		{"eos-fallback", "/qos/forwarding-groups/forwarding-group[name=ROCEFAB_ROCE]/config/output-queue", `"ROCEFAB_Q3"`},
		{"eos-fallback", "/qos/forwarding-groups/forwarding-group[name=ROCEFAB_CNP]/config/output-queue", `"ROCEFAB_Q6"`},
		{"eos-fallback", "/qos/queues/queue[name=ROCEFAB_Q3]/config/queue-id", `3`},
		{"eos-fallback", qmp + "min-threshold", `"150000"`},
		{"eos-fallback", qmp + "max-threshold", `"1500000"`},
		{"eos-fallback", qmp + "enable-ecn", `true`},
		{"eos-fallback", qmp + "drop", `false`},
		{"eos-fallback", qmp + "max-drop-probability-percent", `100`},
		{"eos-fallback", qmp + "weight", `0`},
		{"eos-fallback", sp + "scheduler[sequence=0]/config/priority", `"STRICT"`},
		{"eos-fallback", sp + "scheduler[sequence=0]/config/type", `"openconfig-qos-types:ONE_RATE_TWO_COLOR"`},
		{"eos-fallback", sp + "scheduler[sequence=0]/inputs/input[id=ROCEFAB_CNP]/config/queue", `"ROCEFAB_Q6"`},
		{"eos-fallback", sp + "scheduler[sequence=1]/inputs/input[id=ROCEFAB_ROCE]/config/weight", `"50"`},
		{"eos-fallback", sp + "scheduler[sequence=1]/config/priority", `<absent>`},
		{"eos-fallback", eth + "/config/mtu", `9216`},
		{"eos-fallback", eth + "/config/type", `"iana-if-type:ethernetCsmacd"`},
		{"eos-fallback", eth + "/ethernet/config/enable-flow-control", `false`},
		{"eos-fallback", eth + "/ethernet/switched-vlan/config/interface-mode", `"TRUNK"`},
		{"eos-fallback", eth + "/ethernet/switched-vlan/config/trunk-vlans", `[100]`},
		{"eos-fallback", qif + "/input/classifiers/classifier[type=IPV4]/config/name", `"ROCEFAB_ROCE"`},
		{"eos-fallback", qif + "/output/scheduler-policy/config/name", `"ROCEFAB_SCHED"`},
		{"eos-fallback", qif + "/output/queues/queue[name=ROCEFAB_Q3]/config/queue-management-profile", `"ROCEFAB_ECN"`},
		{"eos-fallback", "cli:/interface Ethernet1 > priority-flow-control priority 3 no-drop", `"interface Ethernet1\n   priority-flow-control priority 3 no-drop"`},
		{"eos-fallback", "cli:/interface Ethernet1 > priority-flow-control on", `"interface Ethernet1\n   priority-flow-control on"`},
		{"eos-fallback", "cli:/interface Ethernet1 > priority-flow-control pause watchdog", `"interface Ethernet1\n   priority-flow-control pause watchdog"`},
		{"watchdog-times", "cli:/interface Ethernet2 > priority-flow-control pause watchdog port timer", `"interface Ethernet2\n   priority-flow-control pause watchdog port timer timeout 0.2 polling-interval auto recovery-time 2"`},
		{"watchdog-times", "cli:/interface Ethernet2 > priority-flow-control pause watchdog port action", `"interface Ethernet2\n   priority-flow-control pause watchdog port action drop"`},
		{"nxos-fallback", `cli:/interface Ethernet1\/1 > priority-flow-control mode on`, `"interface Ethernet1/1\n  priority-flow-control mode on"`},
		{"nxos-fallback", "cli:/system qos > service-policy type network-qos", `"system qos\n  service-policy type network-qos ROCEFAB_NQ"`},
		{"nxos-fallback", "cli:/policy-map type network-qos ROCEFAB_NQ > class type network-qos c-8q-nq3 > pause pfc-cos 3", `"policy-map type network-qos ROCEFAB_NQ\n  class type network-qos c-8q-nq3\n    pause pfc-cos 3"`},
		{"nxos-fallback", "cli:/policy-map type network-qos ROCEFAB_NQ > class type network-qos c-8q-nq4 > pause pfc-cos 4", `<absent>`},
		{"nxos-fallback", "cli:/policy-map type network-qos ROCEFAB_NQ > class type network-qos c-8q-nq-default > mtu", `"policy-map type network-qos ROCEFAB_NQ\n  class type network-qos c-8q-nq-default\n    mtu 9216"`},
		{"nxos-fallback", "cli:/priority-flow-control watch-dog-interval on", `"priority-flow-control watch-dog-interval on"`},
		{"sonic-fallback", "sonic-db:/PORT_QOS_MAP/Ethernet0/pfc_enable", `"3"`},
		{"sonic-fallback", "sonic-db:/PORT_QOS_MAP/Ethernet0/pfc_to_pg_map", `"ROCEFAB"`},
		{"sonic-fallback", "sonic-db:/PFC_PRIORITY_TO_PRIORITY_GROUP_MAP/ROCEFAB/3", `"3"`},
		{"sonic-fallback", "sonic-db:/BUFFER_PG/Ethernet4|3/profile", `"NULL"`},
		{"sonic-fallback", "sonic-db:/PFC_WD/Ethernet4/detection_time", `"400"`},
		{"sonic-fallback", "sonic-db:/CABLE_LENGTH/AZURE/Ethernet4", `"5m"`},
		{"sonic-fallback", "sonic-db:/TC_TO_PRIORITY_GROUP_MAP/ROCEFAB/3", `"3"`},
		{"ecn-only-no-fallback", qmp + "enable-ecn", `true`},
		{"ecn-only-no-fallback", "cli:/interface Ethernet1 > priority-flow-control on", `<absent>`},
		{"pfc-only", qmp + "enable-ecn", `<absent>`},
		{"pfc-only", qif + "/output/queues/queue[name=ROCEFAB_Q3]/config/queue-management-profile", `<absent>`},
		{"pfc-only", "cli:/interface Ethernet1 > priority-flow-control on", `"interface Ethernet1\n   priority-flow-control on"`},
		{"routed-mtu", eth + "/config/mtu", `4214`},
		{"routed-mtu", eth + "/ethernet/switched-vlan/config/interface-mode", `<absent>`},
		{"access-lag", eth + "/ethernet/switched-vlan/config/interface-mode", `"ACCESS"`},
		{"access-lag", eth + "/ethernet/switched-vlan/config/access-vlan", `100`},
		{"access-lag", "/interfaces/interface[name=Ethernet2]/ethernet/config/aggregate-id", `"Port-Channel10"`},
		{"access-lag", "/interfaces/interface[name=Ethernet2]/ethernet/switched-vlan/config/interface-mode", `<absent>`},
		{"access-lag", "/interfaces/interface[name=Port-Channel10]/aggregation/switched-vlan/config/trunk-vlans", `[100]`},
		{"access-lag", "/interfaces/interface[name=Port-Channel10]/config/type", `"iana-if-type:ieee8023adLag"`},
		{"access-lag", "/interfaces/interface[name=Ethernet4/1]/config/mtu", `9216`},
		{"two-lossless", cls + "/terms/term[id=ROCE_24]/conditions/ipv4/config/dscp", `24`},
		{"two-lossless", "cli:/interface Ethernet2 > priority-flow-control priority 4 no-drop", `"interface Ethernet2\n   priority-flow-control priority 4 no-drop"`},
	}
	for _, tc := range cases {
		t.Run(tc.variant+"/"+tc.path, func(t *testing.T) {
			cfg := mustRender(t, variantSwitch(t, tc.variant))
			got, ok := cfg.Paths[tc.path]
			if !ok {
				got = "<absent>"
			}
			if string(got) != tc.want {
				t.Errorf("%s = %s, want %s", tc.path, got, tc.want)
			}
		})
	}
	t.Run("every DSCP classified once", func(t *testing.T) {
		cfg := mustRender(t, basicSwitch(t))
		seen := map[int]int{}
		for p, v := range cfg.Paths {
			if !strings.HasPrefix(p, "/qos/classifiers/") {
				continue
			}
			var dscps []any
			switch {
			case strings.HasSuffix(p, "/config/dscp"):
				dscps = []any{v.Any()}
			case strings.HasSuffix(p, "/config/dscp-set"):
				dscps = v.Any().([]any)
			}
			for _, d := range dscps {
				n, err := d.(json.Number).Int64()
				if err != nil {
					t.Fatalf("%s: %v", p, err)
				}
				seen[int(n)]++
			}
		}
		if len(seen) != 64 {
			t.Fatalf("%d DSCPs classified, want 64", len(seen))
		}
		for d, n := range seen {
			if n != 1 {
				t.Errorf("DSCP %d is classified %d times", d, n)
			}
		}
	})
	t.Run("notes say PFC has no model", func(t *testing.T) {
		cfg := mustRender(t, basicSwitch(t))
		if !strings.Contains(strings.Join(cfg.Notes, "\n"), "OpenConfig has no PFC model: PFC rendered through the eos fallback") {
			t.Fatalf("notes %q do not explain the PFC fallback", cfg.Notes)
		}
	})
}

func TestRenderErrors(t *testing.T) {
	cases := []struct {
		name string
		edit func(sw *intent.Switch)
		want string
	}{
		{"pfc without fallback", func(sw *intent.Switch) { sw.OCFallback = "" }, "OpenConfig has no PFC model: declare openconfig.pfcFallback.platform"},
		{"unknown fallback", func(sw *intent.Switch) { sw.OCFallback = "junos" }, `PFC fallback platform "junos" is not one of eos, nxos, sonic`},
		{"trust pcp", func(sw *intent.Switch) { sw.Policy.Trust = "pcp" }, "not 802.1p (PCP)"},
		{"cnp equals no-drop", func(sw *intent.Switch) { sw.Policy.CNPPriority = 3 }, "CNP priority 3 equals the no-drop priority"},
		{"dscp clash", func(sw *intent.Switch) { sw.Policy.RoCEDSCP = []int{48} }, "both a RoCE and the CNP"},
		{"ecn inverted", func(sw *intent.Switch) { sw.Policy.ECNMax = 10 }, "below the min threshold"},
		{"trunk without vlan", func(sw *intent.Switch) { sw.Policy.VLAN = 0 }, "has no lossless VLAN"},
		{"sonic watchdog sub-ms", func(sw *intent.Switch) {
			sw.OCFallback = "sonic"
			sw.Policy.Watchdog.Detection = 1500 * time.Microsecond
		}, "not a whole number of milliseconds"},
		{"bad port", func(sw *intent.Switch) { sw.Ports[0].Name = "Ethernet 1" }, `port "Ethernet 1" is not an interface name`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sw := basicSwitch(t)
			tc.edit(sw)
			_, err := testRenderer().Render(sw)
			if err == nil {
				t.Fatal("render succeeded")
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "spine-oc") {
				t.Fatalf("error %q does not name the device and %q", err, tc.want)
			}
		})
	}
}

func TestRegister(t *testing.T) {
	r := renderers.NewRegistry()
	if err := Register(r); err != nil {
		t.Fatal(err)
	}
	e, err := r.Lookup(Name)
	if err != nil {
		t.Fatal(err)
	}
	if e.DefaultTransport() != "gnmi" || len(e.Attrs.Transports) != 1 || !e.Attrs.NeedsPFCFallback {
		t.Errorf("transports %v / NeedsPFCFallback %v, want gnmi only and true", e.Attrs.Transports, e.Attrs.NeedsPFCFallback)
	}
	if e.Attrs.Platform.Commit != devcfg.CommitGNMI {
		t.Errorf("commit %s, want gnmi-set", e.Attrs.Platform.Commit)
	}
	if got := e.SwitchMTU(intent.Policy{SwitchMTU: intent.SwitchMTU{Max: true}}) + L2Header; got != 9216 {
		t.Errorf("max MTU renders L2 %d, want 9216", got)
	}
	for _, c := range []struct {
		path, old, new string
		affecting      bool
	}{
		{"/interfaces/interface[name=Ethernet1]/config/mtu", "1514", "9216", true},
		{"cli:/interface Ethernet1 > priority-flow-control on", "", `"interface Ethernet1\n   priority-flow-control on"`, true},
		{"sonic-db:/PORT_QOS_MAP/Ethernet0/pfc_enable", `"4"`, `"3"`, true},
		{"/qos/queue-management-profiles/queue-management-profile[name=ROCEFAB_ECN]/wred/uniform/config/min-threshold", `"100"`, `"150000"`, false},
	} {
		d, reason := e.Attrs.Classify(devcfg.Change{Action: devcfg.Modify, Path: c.path, Old: c.old, New: c.new})
		if (d == devcfg.TrafficAffecting) != c.affecting || (c.affecting && reason == "") {
			t.Errorf("classify %s = %v %q, want traffic-affecting=%v", c.path, d, reason, c.affecting)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, raw := range []string{``, `[]`, `null`, `{"a": 1}`, `{"/a//b": 1}`, `{"/a[k=v": 1}`, `{"/a]": 1}`, `{"/a\\": 1}`, `{"/a": 1} 2`, `{"cli:": 1}`} {
		if _, err := Parse([]byte(raw)); !errors.Is(err, ErrNotLeaves) {
			t.Errorf("Parse(%q) = %v, want ErrNotLeaves", raw, err)
		}
	}
	cfg, err := Parse([]byte(`{"/a/b[k=x\\]y]/c": 1.0, "cli:/x > y": "z", "sonic-db:/T/k/f": "v"}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Paths) != 3 || cfg.Paths["/a/b[k=x\\]y]/c"] != "1.0" {
		t.Fatalf("parsed %v", cfg.Paths)
	}
}

func BenchmarkRender(b *testing.B) {
	sw := basicSwitch(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := testRenderer().Render(sw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRenderEncode(b *testing.B) {
	sw := basicSwitch(b)
	b.ReportAllocs()
	for b.Loop() {
		cfg, err := testRenderer().Render(sw)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Encode(cfg); err != nil {
			b.Fatal(err)
		}
	}
}

func TestMarshalNoEscape(t *testing.T) {
	for _, s := range []string{"/a/b[k=v]/c", "cli:/x > y", `a"b`, `a\b`, "ünï", "\t"} {
		got, err := marshalNoEscape(s)
		if err != nil {
			t.Fatal(err)
		}
		var back string
		if err := json.Unmarshal(got, &back); err != nil || back != s {
			t.Errorf("marshalNoEscape(%q) = %s, decodes to %q (%v)", s, got, back, err)
		}
	}
}

// TestTrunkVLANsNote: trunk-vlans is a leaf-list a gNMI set replaces, so
// every OpenConfig switch with trunk ports says in its plan notes that the
// list becomes exactly the lossless VLAN; a switch without trunks does not.
func TestTrunkVLANsNote(t *testing.T) {
	const marker = "are set to exactly VLAN"
	for _, tc := range []struct {
		name  string
		ports []intent.Port
		want  string // "" for no note
	}{
		{"trunks", nil, "trunk VLANs of Ethernet1, Ethernet2, Ethernet3, Ethernet4 and 28 more are set to exactly VLAN 100"},
		{"a trunk LAG and a trunk port", []intent.Port{
			{Name: "Ethernet1", Mode: "access"},
			{Name: "Ethernet2", Mode: "trunk", LAG: "Port-Channel10"},
			{Name: "Ethernet3", Mode: "trunk", LAG: "Port-Channel10"},
			{Name: "Ethernet4/1", Mode: "trunk"},
		}, "trunk VLANs of Port-Channel10, Ethernet4/1 are set to exactly VLAN 100"},
		{"access and routed only", []intent.Port{{Name: "Ethernet1", Mode: "access"}, {Name: "Ethernet2", Mode: "routed"}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sw := basicSwitch(t)
			if tc.ports != nil {
				sw.Ports = tc.ports
			}
			notes := strings.Join(mustRender(t, sw).Notes, "\n")
			switch {
			case tc.want == "" && strings.Contains(notes, marker):
				t.Fatalf("a switch without trunks has the trunk note:\n%s", notes)
			case tc.want != "" && !strings.Contains(notes, tc.want):
				t.Fatalf("notes lack %q:\n%s", tc.want, notes)
			case tc.want != "" && !strings.Contains(notes, "gNMI set replaces"):
				t.Fatalf("the note does not say why:\n%s", notes)
			}
		})
	}
}
