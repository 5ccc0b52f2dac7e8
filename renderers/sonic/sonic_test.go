package sonic

import (
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/internal/examplestest"
	"github.com/rocefab/rocefab/internal/golden"
	"github.com/rocefab/rocefab/renderers"
)

// exampleSwitches are the switches of examples/<scenario>.
func exampleSwitches(t testing.TB, scenario string) []*intent.Switch {
	t.Helper()
	return examplestest.Resolved(t, scenario).Switches
}

// basicSwitch is leaf-sonic of examples/basic, a copy a test may edit.
func basicSwitch(t testing.TB) *intent.Switch { return examplestest.Switch(t, "basic", "leaf-sonic") }

func mustRender(t testing.TB, sw *intent.Switch) *devcfg.Config {
	t.Helper()
	cfg, err := Renderer{}.Render(sw)
	if err != nil {
		t.Fatalf("render: %v", err)
	}
	return cfg
}

// variants are the renderer's model and policy variations, each a change to
// leaf-sonic of examples/basic.
var variants = []struct {
	name string
	edit func(sw *intent.Switch)
}{
	{"basic", func(sw *intent.Switch) {}},
	{"broadcom", func(sw *intent.Switch) { sw.ASIC = "broadcom" }},
	{"barefoot", func(sw *intent.Switch) { sw.ASIC = "Barefoot" }},
	{"pfc-only", func(sw *intent.Switch) { sw.Policy.Profile = intent.ProfilePFCOnly }},
	{"ecn-only", func(sw *intent.Switch) { sw.Policy.Profile = intent.ProfileECNOnly }},
	{"static-buffers", func(sw *intent.Switch) {
		sw.Policy.Headroom, sw.Policy.Xoff, sw.Policy.Xon = 98304, 66560, 18432
		sw.Policy.CableLength = 5
	}},
	{"watchdog-times", func(sw *intent.Switch) {
		sw.Policy.Watchdog = intent.Watchdog{Enabled: true, Detection: 400 * time.Millisecond, Restoration: 2 * time.Second, Action: "forward"}
	}},
	{"trust-pcp", func(sw *intent.Switch) { sw.Policy.Trust = "pcp" }},
	{"routed-mtu", func(sw *intent.Switch) {
		sw.Policy.VLAN = 0
		sw.Policy.SwitchMTU = intent.SwitchMTU{Value: 4200}
		for i := range sw.Ports {
			sw.Ports[i].Mode = "routed"
		}
	}},
	{"access-lag", func(sw *intent.Switch) {
		sw.Ports = []intent.Port{
			{Name: "Ethernet0", Mode: "access"},
			{Name: "Ethernet8", Mode: "trunk", LAG: "PortChannel10"},
			{Name: "Ethernet12", Mode: "trunk", LAG: "PortChannel10"},
			{Name: "Eth1/1", Mode: "trunk"},
		}
	}},
	{"two-ports", func(sw *intent.Switch) {
		sw.Ports = []intent.Port{{Name: "Ethernet0", Mode: "trunk"}, {Name: "Ethernet4", Mode: "routed"}}
		sw.Policy.Trust = "pcp"
		sw.Policy.Headroom, sw.Policy.Xoff, sw.Policy.Xon = 98304, 66560, 18432
	}},
	{"two-lossless", func(sw *intent.Switch) {
		sw.Policy.PFCPriorities = []int{3, 4}
		sw.Policy.RoCEDSCP = []int{24, 26}
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

// TestGoldenVariants pins every model and policy variant.
func TestGoldenVariants(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			cfg := mustRender(t, variantSwitch(t, v.name))
			data, err := Encode(cfg)
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

// TestRenderFacts asserts the required content directly, independent of
// golden files.
func TestRenderFacts(t *testing.T) {
	get := func(cfg *devcfg.Config, table, key, field string) string {
		v, ok := cfg.Paths[Key(table, key, field)]
		if !ok {
			return "<absent>"
		}
		return v.Text()
	}
	cases := []struct {
		variant           string
		table, key, field string
		want              string
	}{
		{"basic", "DSCP_TO_TC_MAP", MapName, "26", "3"},
		{"basic", "DSCP_TO_TC_MAP", MapName, "48", "6"},
		{"basic", "DSCP_TO_TC_MAP", MapName, "0", "0"},
		{"basic", "DSCP_TO_TC_MAP", MapName, "63", "0"},
		{"basic", "DSCP_TO_TC_MAP", MapName, "24", "0"},
		{"basic", "PORT_QOS_MAP", "global", "dscp_to_tc_map", MapName},
		{"basic", "PORT_QOS_MAP", "Ethernet0", "pfc_enable", "3"},
		{"basic", "PORT_QOS_MAP", "Ethernet0", "pfcwd_sw_enable", "3"},
		{"basic", "PORT_QOS_MAP", "Ethernet124", "pfc_to_pg_map", MapName},
		{"basic", "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", MapName, "3", "3"},
		{"broadcom", "PORT_QOS_MAP", "Ethernet0", "pfc_to_pg_map", "<absent>"},
		{"barefoot", "PORT_QOS_MAP", "Ethernet0", "pfc_to_pg_map", MapName},
		{"broadcom", "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", MapName, "3", "<absent>"},
		{"basic", "WRED_PROFILE", WREDProfile, "green_min_threshold", "150000"},
		{"basic", "WRED_PROFILE", WREDProfile, "green_max_threshold", "1500000"},
		{"basic", "WRED_PROFILE", WREDProfile, "green_drop_probability", "100"},
		{"basic", "WRED_PROFILE", WREDProfile, "ecn", "ecn_all"},
		{"basic", "SCHEDULER", SchedulerCNP, "type", "STRICT"},
		{"basic", "SCHEDULER", SchedulerLossless, "type", "DWRR"},
		{"basic", "QUEUE", "Ethernet0|3", "wred_profile", WREDProfile},
		{"basic", "QUEUE", "Ethernet0|6", "scheduler", SchedulerCNP},
		{"basic", "QUEUE", "Ethernet0|6", "wred_profile", "<absent>"},
		{"basic", "QUEUE", "Ethernet0|0", "scheduler", SchedulerDefault},
		{"basic", "BUFFER_PG", "Ethernet0|3", "profile", "NULL"},
		{"basic", "BUFFER_PG", "Ethernet0|6", "profile", "<absent>"},
		// The links' lengths (examples/basic): 3 m to the host, 30 m to
		// the spine; an uncabled port keeps the device's own.
		{"basic", "CABLE_LENGTH", CableLengthKey, "Ethernet0", "3m"},
		{"basic", "CABLE_LENGTH", CableLengthKey, "Ethernet124", "30m"},
		{"basic", "CABLE_LENGTH", CableLengthKey, "Ethernet4", "<absent>"},
		{"basic", "PFC_WD", "Ethernet0", "detection_time", "200"},
		{"basic", "PFC_WD", "Ethernet0", "action", "drop"},
		{"basic", "PORT", "Ethernet0", "mtu", "9216"},
		{"basic", "VLAN", "Vlan100", "vlanid", "100"},
		{"basic", "VLAN_MEMBER", "Vlan100|Ethernet0", "tagging_mode", "tagged"},
		{"pfc-only", "WRED_PROFILE", WREDProfile, "ecn", "<absent>"},
		{"pfc-only", "QUEUE", "Ethernet0|3", "wred_profile", "<absent>"},
		{"pfc-only", "PORT_QOS_MAP", "Ethernet0", "pfc_enable", "3"},
		{"ecn-only", "PORT_QOS_MAP", "Ethernet0", "pfc_enable", "<absent>"},
		{"ecn-only", "BUFFER_PG", "Ethernet0|3", "profile", "<absent>"},
		{"ecn-only", "PFC_WD", "Ethernet0", "action", "<absent>"},
		{"ecn-only", "QUEUE", "Ethernet0|3", "wred_profile", WREDProfile},
		{"static-buffers", "BUFFER_PG", "Ethernet0|3", "profile", BufferProfile},
		{"static-buffers", "BUFFER_PROFILE", BufferProfile, "xoff", "66560"},
		{"static-buffers", "BUFFER_PROFILE", BufferProfile, "size", "98304"},
		{"static-buffers", "CABLE_LENGTH", CableLengthKey, "Ethernet0", "3m"}, // the link's length wins
		{"static-buffers", "CABLE_LENGTH", CableLengthKey, "Ethernet4", "5m"}, // pfc.cableLength
		{"watchdog-times", "PFC_WD", "Ethernet0", "detection_time", "400"},
		{"watchdog-times", "PFC_WD", "Ethernet0", "restoration_time", "2000"},
		{"watchdog-times", "PFC_WD", "Ethernet0", "action", "forward"},
		{"trust-pcp", "DOT1P_TO_TC_MAP", MapName, "3", "3"},
		{"trust-pcp", "DOT1P_TO_TC_MAP", MapName, "5", "0"},
		{"trust-pcp", "PORT_QOS_MAP", "Ethernet0", "dot1p_to_tc_map", MapName},
		{"trust-pcp", "PORT_QOS_MAP", "global", "dscp_to_tc_map", "<absent>"},
		{"routed-mtu", "PORT", "Ethernet0", "mtu", "4200"},
		{"routed-mtu", "VLAN", "Vlan100", "vlanid", "<absent>"},
		{"access-lag", "VLAN_MEMBER", "Vlan100|Ethernet0", "tagging_mode", "untagged"},
		{"access-lag", "VLAN_MEMBER", "Vlan100|PortChannel10", "tagging_mode", "tagged"},
		{"access-lag", "VLAN_MEMBER", "Vlan100|Ethernet8", "tagging_mode", "<absent>"},
		{"access-lag", "PORTCHANNEL", "PortChannel10", "mtu", "9216"},
		{"access-lag", "VLAN_MEMBER", "Vlan100|Eth1/1", "tagging_mode", "tagged"},
		{"two-lossless", "PORT_QOS_MAP", "Ethernet0", "pfc_enable", "3,4"},
		{"two-lossless", "TC_TO_PRIORITY_GROUP_MAP", MapName, "4", "4"},
		{"two-lossless", "DSCP_TO_TC_MAP", MapName, "24", "3"},
		{"two-lossless", "QUEUE", "Ethernet0|4", "wred_profile", "<absent>"},
		{"two-lossless", "QUEUE", "Ethernet0|4", "scheduler", SchedulerLossless},
	}
	for _, tc := range cases {
		t.Run(tc.variant+"/"+tc.table+"|"+tc.key+"|"+tc.field, func(t *testing.T) {
			cfg := mustRender(t, variantSwitch(t, tc.variant))
			if got := get(cfg, tc.table, tc.key, tc.field); got != tc.want {
				t.Errorf("%s|%s %s = %q, want %q", tc.table, tc.key, tc.field, got, tc.want)
			}
		})
	}
	t.Run("all 64 DSCPs", func(t *testing.T) {
		cfg := mustRender(t, basicSwitch(t))
		n := 0
		for p := range cfg.Paths {
			if strings.HasPrefix(p, "sonic-db:/DSCP_TO_TC_MAP/ROCEFAB/") {
				n++
			}
		}
		if n != 64 {
			t.Fatalf("DSCP_TO_TC_MAP ROCEFAB has %d entries, want 64", n)
		}
	})
	t.Run("escaped key", func(t *testing.T) {
		cfg := mustRender(t, variantSwitch(t, "access-lag"))
		if _, ok := cfg.Paths[`sonic-db:/VLAN_MEMBER/Vlan100|Eth1\/1/tagging_mode`]; !ok {
			t.Fatalf("Eth1/1 is not escaped as Eth1\\/1:\n%s", cfg.Paths.Text())
		}
	})
}

func TestRenderErrors(t *testing.T) {
	cases := []struct {
		name string
		edit func(sw *intent.Switch)
		want string
	}{
		{"cnp equals no-drop", func(sw *intent.Switch) { sw.Policy.CNPPriority = 3 }, "CNP priority 3 equals the no-drop priority"},
		{"cnp pfc-enabled", func(sw *intent.Switch) { sw.Policy.PFCPriorities = []int{3, 6} }, "CNP must not be PFC-enabled"},
		{"dscp clash", func(sw *intent.Switch) { sw.Policy.RoCEDSCP = []int{48} }, "both a RoCE and the CNP"},
		{"partial buffers", func(sw *intent.Switch) { sw.Policy.Xoff = 1000 }, "pfc.headroom, pfc.xon missing"},
		{"watchdog sub-ms", func(sw *intent.Switch) { sw.Policy.Watchdog.Detection = 1500 * time.Microsecond }, "not a whole number of milliseconds"},
		{"watchdog range", func(sw *intent.Switch) { sw.Policy.Watchdog.Detection = 10 * time.Second }, "outside SONiC's 100..5000 ms"},
		{"mtu too large", func(sw *intent.Switch) { sw.Policy.SwitchMTU = intent.SwitchMTU{Value: 9300} }, "MTU 9300 is outside"},
		{"bad port", func(sw *intent.Switch) { sw.Ports[0].Name = "swp1" }, `port "swp1" is not a SONiC port name`},
		{"bad lag", func(sw *intent.Switch) { sw.Ports[0].LAG = "Po1" }, `LAG "Po1" is not a SONiC port-channel name`},
		{"ecn inverted", func(sw *intent.Switch) { sw.Policy.ECNMax = 1000 }, "below the min threshold"},
		{"trunk without vlan", func(sw *intent.Switch) { sw.Policy.VLAN = 0 }, "has no lossless VLAN"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sw := basicSwitch(t)
			tc.edit(sw)
			_, err := Renderer{}.Render(sw)
			if err == nil {
				t.Fatal("render succeeded")
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "leaf-sonic") {
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
	if e.DefaultTransport() != "gnmi" || !e.SupportsTransport("ssh") {
		t.Errorf("transports = %v, want gnmi first and ssh", e.Attrs.Transports)
	}
	if e.Attrs.Platform.Commit != devcfg.CommitDialect || e.Attrs.Platform.Dialect != Dialect || e.Attrs.Platform.Parse == nil || e.Attrs.Platform.Normalise == nil {
		t.Error("platform misses commit style, dialect, Parse or Normalise")
	}
	cfg, err := r.Render(basicSwitch(t))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Device != "leaf-sonic" || cfg.Platform != Name {
		t.Errorf("registry render names %s/%s", cfg.Device, cfg.Platform)
	}
	for _, c := range []struct {
		path, old, new string
		affecting      bool
	}{
		{Key("PORT", "Ethernet0", "mtu"), `"9100"`, `"9216"`, true},
		{Key("PORT_QOS_MAP", "Ethernet0", "pfc_enable"), `"3,4"`, `"3"`, true},
		{Key("BUFFER_PG", "Ethernet0|3", "profile"), "", `"NULL"`, true},
		{Key("SCHEDULER", SchedulerCNP, "type"), `"DWRR"`, `"STRICT"`, false},
		{Key("WRED_PROFILE", WREDProfile, "green_min_threshold"), `"100000"`, `"150000"`, false},
	} {
		d, reason := e.Attrs.Classify(devcfg.Change{Action: devcfg.Modify, Path: c.path, Old: c.old, New: c.new})
		if (d == devcfg.TrafficAffecting) != c.affecting || (c.affecting && reason == "") {
			t.Errorf("classify %s = %v %q, want traffic-affecting=%v with a reason", c.path, d, reason, c.affecting)
		}
	}
}

func TestKeyEscaping(t *testing.T) {
	for _, tc := range []struct{ table, key, field, want string }{
		{"QUEUE", "Ethernet0|3", "scheduler", "sonic-db:/QUEUE/Ethernet0|3/scheduler"},
		{"VLAN_MEMBER", "Vlan100|Eth1/1", "tagging_mode", `sonic-db:/VLAN_MEMBER/Vlan100|Eth1\/1/tagging_mode`},
		{"T", `a\b[c]`, "f/g", `sonic-db:/T/a\\b\[c\]/f\/g`},
	} {
		got := Key(tc.table, tc.key, tc.field)
		if got != tc.want {
			t.Errorf("Key(%q,%q,%q) = %q, want %q", tc.table, tc.key, tc.field, got, tc.want)
		}
		table, key, field, ok := SplitKey(got)
		if !ok || table != tc.table || key != tc.key || field != tc.field {
			t.Errorf("SplitKey(%q) = %q %q %q %v", got, table, key, field, ok)
		}
	}
	for _, bad := range []string{"", "QUEUE", "/QUEUE/a/b", "sonic-db:/QUEUE", "sonic-db:/a/b/c/d", "sonic-db://b/c", "sonic-db:/a//c", `sonic-db:/a/b\`, "sonic-db:/a/b[x=1]/c", "cli:/a/b/c"} {
		if _, _, _, ok := SplitKey(bad); ok {
			t.Errorf("SplitKey(%q) accepted", bad)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, raw := range []string{``, `[]`, `{"PORT": []}`, `{"PORT": {"Ethernet0": "x"}}`, `{"PORT": {}} {}`, `null`} {
		if _, err := Parse([]byte(raw)); !errors.Is(err, ErrNotConfigDB) {
			t.Errorf("Parse(%q) = %v, want ErrNotConfigDB", raw, err)
		}
	}
}

var numberedKey = regexp.MustCompile(`^[0-9]+$`)

func TestMapsCoverEveryCodePoint(t *testing.T) {
	cfg := mustRender(t, basicSwitch(t))
	for _, table := range []string{"TC_TO_QUEUE_MAP", "TC_TO_PRIORITY_GROUP_MAP", "MAP_PFC_PRIORITY_TO_QUEUE"} {
		n := 0
		for p := range cfg.Paths {
			tb, key, field, _ := SplitKey(p)
			if tb == table && key == MapName && numberedKey.MatchString(field) {
				n++
			}
		}
		if n != 8 {
			t.Errorf("%s has %d entries, want 8", table, n)
		}
	}
}

func BenchmarkRender(b *testing.B) {
	sw := basicSwitch(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (Renderer{}).Render(sw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRenderEncode(b *testing.B) {
	sw := basicSwitch(b)
	b.ReportAllocs()
	for b.Loop() {
		cfg, err := Renderer{}.Render(sw)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Encode(cfg); err != nil {
			b.Fatal(err)
		}
	}
}

// TestASICChip: asic may name a chip; its family decides what SONiC's
// templates of that asic_type render (PFC_PRIORITY_TO_PRIORITY_GROUP_MAP
// on mellanox and barefoot only).
func TestASICChip(t *testing.T) {
	for asic, want := range map[string]bool{"spectrum-3": true, "Spectrum-4": true, "tofino-2": true, "tomahawk-4": false, "broadcom": false} {
		sw := basicSwitch(t)
		sw.ASIC = asic
		cfg := mustRender(t, sw)
		if _, got := cfg.Paths[Key("PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", MapName, "3")]; got != want {
			t.Errorf("asic %s: PFC_PRIORITY_TO_PRIORITY_GROUP_MAP rendered %v, want %v", asic, got, want)
		}
	}
}
