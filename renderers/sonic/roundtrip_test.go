package sonic

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers/gnmi/gnmipath"
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

// TestRoundTrip: the rendered config's own config_db JSON parses back to the
// desired config, for every variant.
func TestRoundTrip(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			want := mustRender(t, variantSwitch(t, v.name))
			raw, err := Encode(want)
			if err != nil {
				t.Fatal(err)
			}
			got := owned(t, raw, want.Owned)
			if diff := cmp.Diff(want.Filter(want.Owned).Paths, got); diff != "" {
				t.Fatalf("round trip differs (-want +got):\n%s", diff)
			}
			if len(want.Filter(want.Owned).Paths) != len(want.Paths) {
				t.Fatalf("scope owns %d of %d rendered paths", len(want.Filter(want.Owned).Paths), len(want.Paths))
			}
		})
	}
}

// deviceView edits config_db JSON the way a running SONiC shows it.
func deviceView(t *testing.T, raw []byte, edit func(db map[string]map[string]map[string]any)) []byte {
	t.Helper()
	var db map[string]map[string]map[string]any
	if err := json.Unmarshal(raw, &db); err != nil {
		t.Fatal(err)
	}
	edit(db)
	out, err := json.MarshalIndent(db, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func entry(db map[string]map[string]map[string]any, table, key string) map[string]any {
	if db[table] == nil {
		db[table] = map[string]map[string]any{}
	}
	if db[table][key] == nil {
		db[table][key] = map[string]any{}
	}
	return db[table][key]
}

// runningDevice is what SONiC prints after rocefab's config is applied: its
// own tables, generated buffer profiles, WRED defaults, a reordered list.
func runningDevice(db map[string]map[string]map[string]any) {
	entry(db, "DEVICE_METADATA", "localhost")["hwsku"] = "Mellanox-SN4700-O8C48"
	for key := range db["PORT"] {
		p := entry(db, "PORT", key)
		p["admin_status"], p["speed"], p["lanes"] = "up", "100000", "0,1,2,3"
	}
	entry(db, "PORT", "Ethernet200")["mtu"] = "9100" // not a RoCE port
	entry(db, "BUFFER_PROFILE", "pg_lossless_100000_5m_profile")["xoff"] = "66560"
	entry(db, "BUFFER_PROFILE", "ingress_lossy_profile")["pool"] = "ingress_lossy_pool"
	for key := range db["BUFFER_PG"] {
		entry(db, "BUFFER_PG", key)["profile"] = "pg_lossless_100000_5m_profile"
	}
	entry(db, "BUFFER_PG", "Ethernet0|0")["profile"] = "ingress_lossy_profile"
	w := entry(db, "WRED_PROFILE", WREDProfile)
	w["wred_yellow_enable"], w["wred_red_enable"] = "false", "false"
	entry(db, "WRED_PROFILE", "AZURE_LOSSLESS")["green_min_threshold"] = "1048576"
	entry(db, "DSCP_TO_TC_MAP", "AZURE")["26"] = "1"
	entry(db, "SCHEDULER", "scheduler.0")["type"] = "DWRR"
	entry(db, "QUEUE", "Ethernet0|3-4")["scheduler"] = "scheduler.0"
	entry(db, "VLAN", "Vlan100")["dhcp_servers"] = []string{"192.0.2.1"}
	entry(db, "VLAN_MEMBER", "Vlan200|Ethernet0")["tagging_mode"] = "tagged"
}

// TestNormaliseAbsorbsDeviceOutput: a compliant device shows no diff.
func TestNormaliseAbsorbsDeviceOutput(t *testing.T) {
	for _, name := range []string{"basic", "two-lossless", "access-lag", "broadcom"} {
		t.Run(name, func(t *testing.T) {
			want := mustRender(t, variantSwitch(t, name))
			raw, _ := Encode(want)
			dev := deviceView(t, raw, func(db map[string]map[string]map[string]any) {
				runningDevice(db)
				if q := db["PORT_QOS_MAP"]["Ethernet0"]; q["pfc_enable"] == "3,4" {
					q["pfc_enable"] = "4,3"
				}
			})
			got := owned(t, dev, want.Owned)
			if diff := cmp.Diff(want.Filter(want.Owned).Paths, got); diff != "" {
				t.Fatalf("normalised running differs from desired (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNormaliseKeepsDrift: what the device did not generate stays visible.
func TestNormaliseKeepsDrift(t *testing.T) {
	cases := []struct {
		name string
		edit func(db map[string]map[string]map[string]any)
		path string
		want string
	}{
		{"yellow enabled", func(db map[string]map[string]map[string]any) {
			entry(db, "WRED_PROFILE", WREDProfile)["wred_yellow_enable"] = "true"
		}, Key("WRED_PROFILE", WREDProfile, "wred_yellow_enable"), `"true"`},
		{"lossy profile on lossless pg", func(db map[string]map[string]map[string]any) {
			entry(db, "BUFFER_PG", "Ethernet0|3")["profile"] = "ingress_lossy_profile"
		}, Key("BUFFER_PG", "Ethernet0|3", "profile"), `"ingress_lossy_profile"`},
		{"stale lossless pg", func(db map[string]map[string]map[string]any) {
			entry(db, "BUFFER_PG", "Ethernet0|4")["profile"] = "pg_lossless_100000_5m_profile"
		}, Key("BUFFER_PG", "Ethernet0|4", "profile"), `"NULL"`},
		{"foreign rocefab-named profile", func(db map[string]map[string]map[string]any) {
			entry(db, "BUFFER_PROFILE", "ROCEFAB_OLD")["pool"] = "ingress_lossless_pool"
		}, Key("BUFFER_PROFILE", "ROCEFAB_OLD", "pool"), `"ingress_lossless_pool"`},
		{"dscp remapped", func(db map[string]map[string]map[string]any) {
			entry(db, "DSCP_TO_TC_MAP", MapName)["26"] = "1"
		}, Key("DSCP_TO_TC_MAP", MapName, "26"), `"1"`},
		{"extra queue binding", func(db map[string]map[string]map[string]any) {
			entry(db, "QUEUE", "Ethernet0|5")["wred_profile"] = "AZURE_LOSSLESS"
		}, Key("QUEUE", "Ethernet0|5", "wred_profile"), `"AZURE_LOSSLESS"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := mustRender(t, basicSwitch(t))
			raw, _ := Encode(want)
			got := owned(t, deviceView(t, raw, func(db map[string]map[string]map[string]any) {
				runningDevice(db)
				tc.edit(db)
			}), want.Owned)
			if v := got[tc.path]; string(v) != tc.want {
				t.Fatalf("%s = %s after normalise, want %s (drift must stay visible)", tc.path, v, tc.want)
			}
		})
	}
}

func TestNormaliseUnit(t *testing.T) {
	in := &devcfg.Config{Shape: devcfg.ShapePaths, Paths: devcfg.Paths{
		Key("BUFFER_PG", "Ethernet0|3", "profile"):                     devcfg.String("[BUFFER_PROFILE|pg_lossless_400000_300m_profile]"),
		Key("BUFFER_PG", "Ethernet4|3", "profile"):                     devcfg.String("pg_lossless_100000_40m_mtu9216_profile"),
		Key("BUFFER_PROFILE", "pg_lossless_100000_5m_profile", "xoff"): devcfg.String("1"),
		Key("WRED_PROFILE", WREDProfile, "wred_red_enable"):            devcfg.String("false"),
		Key("PORT_QOS_MAP", "Ethernet0", "pfc_enable"):                 devcfg.String("4,3"),
		Key("PORT_QOS_MAP", "Ethernet0", "pfcwd_sw_enable"):            devcfg.String("3, 4"),
		Key("PORT_QOS_MAP", "Ethernet4", "pfc_enable"):                 devcfg.String("x"),
		Key("SCHEDULER", SchedulerCNP, "type"):                         devcfg.String("STRICT"),
	}}
	orig := in.Paths.Text()
	got := Normalise(in).Paths
	want := devcfg.Paths{
		Key("BUFFER_PG", "Ethernet0|3", "profile"):          devcfg.String("NULL"),
		Key("BUFFER_PG", "Ethernet4|3", "profile"):          devcfg.String("NULL"),
		Key("PORT_QOS_MAP", "Ethernet0", "pfc_enable"):      devcfg.String("3,4"),
		Key("PORT_QOS_MAP", "Ethernet0", "pfcwd_sw_enable"): devcfg.String("3,4"),
		Key("PORT_QOS_MAP", "Ethernet4", "pfc_enable"):      devcfg.String("x"),
		Key("SCHEDULER", SchedulerCNP, "type"):              devcfg.String("STRICT"),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Normalise (-want +got):\n%s", diff)
	}
	if in.Paths.Text() != orig {
		t.Fatal("Normalise changed its input")
	}
	if Normalise(nil) != nil {
		t.Fatal("Normalise(nil) is not nil")
	}
}

// TestParseRealShape parses a config_db excerpt with non-string values.
func TestParseRealShape(t *testing.T) {
	raw := []byte(`{
  "VLAN": {"Vlan100": {"vlanid": "100", "members": ["Ethernet0", "Ethernet4"]}},
  "PORTCHANNEL_MEMBER": {"PortChannel1|Ethernet8": {}},
  "PORT": {"Eth1/1": {"mtu": "9216"}},
  "DEVICE_METADATA": {"localhost": {"buffer_model": "dynamic", "x": 1.50}}
}`)
	cfg, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	want := devcfg.Paths{
		"sonic-db:/VLAN/Vlan100/vlanid":                       `"100"`,
		"sonic-db:/VLAN/Vlan100/members":                      `["Ethernet0","Ethernet4"]`,
		"sonic-db:/PORTCHANNEL_MEMBER/PortChannel1|Ethernet8": devcfg.Empty,
		`sonic-db:/PORT/Eth1\/1/mtu`:                          `"9216"`,
		"sonic-db:/DEVICE_METADATA/localhost/buffer_model":    `"dynamic"`,
		"sonic-db:/DEVICE_METADATA/localhost/x":               `1.50`,
	}
	if diff := cmp.Diff(want, cfg.Paths); diff != "" {
		t.Fatalf("Parse (-want +got):\n%s", diff)
	}
	if cfg.Shape != devcfg.ShapePaths || cfg.Platform != Name {
		t.Fatalf("shape %s platform %s", cfg.Shape, cfg.Platform)
	}
}

// TestFuzzSeedsFromGoldens keeps the committed fuzz corpus in step with the
// golden files.
func TestFuzzSeedsFromGoldens(t *testing.T) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzParse", "*"))
	if len(seeds) < len(seedVariants) {
		t.Fatalf("testdata/fuzz/FuzzParse has %d seeds, want the goldens as seeds", len(seeds))
	}
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil || !strings.HasPrefix(string(data), "go test fuzz v1") {
			t.Fatalf("%s is not a go fuzz corpus file", s)
		}
	}
}

// flatLeaves is what the gNMI driver hands Parse: a JSON object of leaf
// path → value.
func flatLeaves(t testing.TB, p devcfg.Paths) []byte {
	t.Helper()
	m := make(map[string]json.RawMessage, len(p))
	for k, v := range p {
		m[k] = json.RawMessage(v)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestParseGNMILeaves: the gnmi transport's flat form parses to the same
// paths as config_db JSON.
func TestParseGNMILeaves(t *testing.T) {
	for _, name := range []string{"basic", "access-lag"} {
		t.Run(name, func(t *testing.T) {
			want := mustRender(t, variantSwitch(t, name))
			got := owned(t, flatLeaves(t, want.Paths), want.Owned)
			if diff := cmp.Diff(want.Paths, got); diff != "" {
				t.Fatalf("flat leaves parse differently (-want +got):\n%s", diff)
			}
		})
	}
	for _, bad := range []string{
		`{"sonic-db:/PORT/Ethernet0/mtu": "9216", "/PORT/Ethernet4/mtu": "9216"}`,
		`{"sonic-db:/PORT/Ethernet0": "x"}`,
		`{"sonic-db:/PORT/Ethernet0/mtu/extra": "9216"}`,
	} {
		if _, err := Parse([]byte(bad)); !errors.Is(err, ErrNotConfigDB) {
			t.Errorf("Parse(%s) = %v, want ErrNotConfigDB", bad, err)
		}
	}
}

// TestKeysAreGNMIPaths: every rendered key is a gNMI path string the gnmi
// driver parses into origin sonic-db and the table, key and field elements.
func TestKeysAreGNMIPaths(t *testing.T) {
	cfg := mustRender(t, variantSwitch(t, "access-lag"))
	for _, k := range cfg.Paths.Keys() {
		p, err := gnmipath.Parse(k)
		if err != nil {
			t.Fatalf("gnmipath.Parse(%q): %v", k, err)
		}
		table, key, field, _ := SplitKey(k)
		want := []string{table, key}
		if field != "" {
			want = append(want, field)
		}
		var got []string
		for _, e := range p.GetElem() {
			if len(e.GetKey()) != 0 {
				t.Fatalf("%q parsed with list keys %v", k, e.GetKey())
			}
			got = append(got, e.GetName())
		}
		if p.GetOrigin() != Origin || !slices.Equal(got, want) {
			t.Fatalf("%q parsed as origin %q elems %q, want %q %q", k, p.GetOrigin(), got, Origin, want)
		}
	}
}

// TestGlobalBindingSingleton: a global DSCP map of another owner is a
// conflict; rocefab's own is not.
func TestGlobalBindingSingleton(t *testing.T) {
	want := mustRender(t, basicSwitch(t))
	for _, tc := range []struct {
		held      string
		conflicts int
	}{{"AZURE", 1}, {MapName, 0}, {"ROCEFAB_OLD", 0}} {
		running, err := Parse([]byte(`{"PORT_QOS_MAP": {"global": {"dscp_to_tc_map": "` + tc.held + `"}}}`))
		if err != nil {
			t.Fatal(err)
		}
		if got := devcfg.Conflicts(running, want.Singletons); len(got) != tc.conflicts {
			t.Errorf("global map %s: %d conflicts %v, want %d", tc.held, len(got), got, tc.conflicts)
		}
	}
}
