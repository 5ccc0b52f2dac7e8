package cumulus

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/internal/corpus"
)

// deviceJSON is the rendered config as `nv config show -o json` shows it,
// with the defaults NVUE adds under touched objects, interface types, and
// foreign configuration.
func deviceJSON(t *testing.T, cfg *devcfg.Config, extra devcfg.Paths) []byte {
	t.Helper()
	shown := cfg.Paths.Clone()
	shownDefaults := devcfg.Paths{
		"qos pfc default-global cable-length":                       devcfg.Int(100),
		"qos pfc default-global port-buffer":                        devcfg.Int(25000),
		"qos pfc default-global xoff-threshold":                     devcfg.Int(10000),
		"qos pfc default-global xon-threshold":                      devcfg.Int(2000),
		"qos congestion-control default-global traffic-class 3 red": devcfg.String("disable"),
		"interface swp1 type":                                       devcfg.String("swp"),
		"interface swp33 type":                                      devcfg.String("swp"),
		"interface swp33 link mtu":                                  devcfg.Int(1500),
		"interface swp33 qos pfc-watchdog state":                    devcfg.String("disable"),
		"system hostname":                                           devcfg.String("leaf-cumulus"),
		"bridge domain br_default vlan 1000":                        devcfg.Empty,
	}
	for k, v := range shownDefaults {
		shown[k] = v
	}
	for k, v := range extra {
		if v == "" {
			delete(shown, k)
			continue
		}
		shown[k] = v
	}
	raw, err := EncodeJSON(&devcfg.Config{Shape: devcfg.ShapePaths, Paths: shown})
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func running(t *testing.T, desired *devcfg.Config, raw []byte) *drivers.Running {
	t.Helper()
	parsed, err := Parse(raw)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return drivers.NewRunning(parsed, devcfg.Platform{Normalise: Normalise}, desired.Owned)
}

func TestDeviceJSONShape(t *testing.T) {
	raw := deviceJSON(t, render(t, basicSwitch(t)), nil)
	var doc []map[string]map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil || len(doc) != 2 || doc[0]["header"] == nil || doc[1]["set"] == nil {
		t.Fatalf("want [header, set], got %s", raw[:min(200, len(raw))])
	}
	mtu := doc[1]["set"]["interface"].(map[string]any)["swp1"].(map[string]any)["link"].(map[string]any)["mtu"]
	if mtu != float64(9216) {
		t.Fatalf("interface swp1 link mtu = %#v, want the number 9216", mtu)
	}
}

func TestCompliantDeviceShowsNoDiff(t *testing.T) {
	desired := render(t, basicSwitch(t))
	run := running(t, desired, deviceJSON(t, desired, nil))
	if changes := devcfg.Diff(desired, run.Owned, devcfg.Syntax{}, nil); len(changes) != 0 {
		t.Fatalf("a compliant device shows %d changes, first %+v", len(changes), changes[0])
	}
	if c := devcfg.Conflicts(run.Config, desired.Singletons); len(c) != 0 {
		t.Fatalf("conflicts on a compliant device: %v", c)
	}
}

func TestRealChangesShow(t *testing.T) {
	for _, tc := range []struct {
		name   string
		extra  devcfg.Paths
		action devcfg.Action
		path   string
	}{
		{"cable length differs from the default", devcfg.Paths{"qos pfc default-global cable-length": devcfg.Int(300)}, devcfg.Remove, `^qos pfc default-global cable-length$`},
		{"ECN threshold", devcfg.Paths{"qos congestion-control default-global traffic-class 3 min-threshold": devcfg.Int(200000)}, devcfg.Modify, `min-threshold$`},
		{"RED on the lossless class", devcfg.Paths{"qos congestion-control default-global traffic-class 3 red": devcfg.String("enable")}, devcfg.Remove, ` red$`},
		// "disable" is the NVUE default the normaliser drops: the diff adds "enable".
		{"watchdog off on a port", devcfg.Paths{"interface swp4 qos pfc-watchdog state": devcfg.String("disable")}, devcfg.Add, `^interface swp4 qos pfc-watchdog state$`},
		{"link pause on a RoCE port", devcfg.Paths{"interface swp2 qos link-pause profile": devcfg.String("default-global")}, devcfg.Remove, `^interface swp2 qos link-pause profile$`},
		{"lossless VLAN missing", devcfg.Paths{"bridge domain br_default vlan 100": ""}, devcfg.Add, `^bridge domain br_default vlan 100$`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			desired := render(t, basicSwitch(t))
			changes := devcfg.Diff(desired, running(t, desired, deviceJSON(t, desired, tc.extra)).Owned, devcfg.Syntax{}, nil)
			if len(changes) != 1 {
				t.Fatalf("want exactly one change, got %d: %+v", len(changes), changes)
			}
			if c := changes[0]; c.Action != tc.action || !regexp.MustCompile(tc.path).MatchString(c.Path) {
				t.Fatalf("change = %s %q, want %s matching %q", c.Action, c.Path, tc.action, tc.path)
			}
		})
	}
}

// TestTrunkMembership: rocefab owns the lossless VLAN's membership of a
// RoCE port's VLAN set, never the set: other VLANs are never drift and
// never unset; a missing lossless VLAN is one `nv set ... vlan 100`; a port
// that inherits the bridge's VLANs is never given VLANs of its own (that
// would prune it to those); a dropped membership is one `nv unset ... vlan
// 100`, never an unset of the whole set.
func TestTrunkMembership(t *testing.T) {
	const port = "interface swp7 bridge domain br_default"
	asAccess := func(sw *intent.Switch) {
		sw.Ports = slices.Clone(sw.Ports)
		for i := range sw.Ports {
			if sw.Ports[i].Name == "swp7" {
				sw.Ports[i].Mode = "access"
			}
		}
	}
	for _, tc := range []struct {
		name   string
		intent func(*intent.Switch) // nil: examples/basic
		device devcfg.Paths         // "" deletes a rendered path
		patch  []string             // the VLAN commands for swp7 and the bridge
	}{
		{"VLANs 10 and 200 besides the lossless one", nil,
			devcfg.Paths{port + " vlan 10": devcfg.Empty, port + " vlan 200": devcfg.Empty}, nil},
		{"VLANs 10 and 200, lossless missing", nil,
			devcfg.Paths{port + " vlan 10": devcfg.Empty, port + " vlan 200": devcfg.Empty, port + " vlan 100": ""},
			[]string{"nv set " + port + " vlan 100"}},
		{"VLANs shown as a list key", nil,
			devcfg.Paths{port + " vlan 10,100,200-201": devcfg.Empty, port + " vlan 100": ""}, nil},
		{"port inherits every VLAN of the bridge", nil,
			devcfg.Paths{port: devcfg.Empty, port + " vlan 100": ""}, nil},
		{"inheriting port, bridge without the lossless VLAN", nil,
			devcfg.Paths{port: devcfg.Empty, port + " vlan 100": "", "bridge domain br_default vlan 100": ""},
			[]string{"nv set bridge domain br_default vlan 100"}},
		{"port stops being a trunk: its membership goes, VLANs 10 and 200 stay", asAccess,
			devcfg.Paths{port + " vlan 10": devcfg.Empty, port + " vlan 200": devcfg.Empty},
			[]string{"nv set " + port + " access 100", "nv unset " + port + " vlan 100"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sw := basicSwitch(t)
			if tc.intent != nil {
				tc.intent(sw)
			}
			desired := render(t, sw)
			raw := deviceJSON(t, render(t, basicSwitch(t)), tc.device)
			changes := devcfg.Diff(desired, running(t, desired, raw).Owned, syntax, nil)
			var got []string
			for _, l := range devcfg.BuildPatch(changes, syntax).Lines {
				if strings.Contains(l, " vlan ") || strings.HasSuffix(l, " vlan") || strings.Contains(l, " access") {
					got = append(got, l)
				} else if tc.intent == nil {
					t.Errorf("unrelated command: %s", l)
				}
				if strings.HasSuffix(l, " vlan") {
					t.Errorf("the patch unsets a whole VLAN set: %q", l)
				}
			}
			if !slices.Equal(got, tc.patch) {
				t.Fatalf("VLAN commands = %q, want %q", got, tc.patch)
			}
		})
	}
}

func TestQoSRoCEIsAConflict(t *testing.T) {
	desired := render(t, basicSwitch(t))
	for _, extra := range []devcfg.Paths{
		{"qos roce state": devcfg.String("enabled"), "qos roce mode": devcfg.String("lossless")},
		{"qos roce": devcfg.Empty},
	} {
		run := running(t, desired, deviceJSON(t, desired, extra))
		if c := devcfg.Conflicts(run.Config, desired.Singletons); len(c) == 0 {
			t.Errorf("qos roce %v raised no conflict", extra)
		}
	}
}

func TestParseForms(t *testing.T) {
	for name, raw := range map[string]string{
		"list":     `[{"header": {"rev-id": "1.0"}}, {"set": {"interface": {"swp1": {"link": {"mtu": 9216}}}}}]`,
		"object":   `{"header": {"rev-id": "1.0"}, "set": {"interface": {"swp1": {"link": {"mtu": 9216}}}}}`,
		"bare":     `{"interface": {"swp1": {"link": {"mtu": 9216}}}}`,
		"commands": "nv set interface swp1 link mtu 9216\nnv config apply\n",
	} {
		cfg, err := Parse([]byte(raw))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got := cfg.Paths.Text(); got != "interface swp1 link mtu = 9216\n" {
			t.Errorf("%s: got %q", name, got)
		}
	}
	if _, err := Parse([]byte("rm -rf /\n")); err == nil {
		t.Error("a line that is not `nv set` was accepted")
	}
}

// TestParseCommandKeys: what an NVUE command listing holds, one path per
// member: an interface range (NVIDIA: "swp1-4,6,10-12", the prefix applies
// to every part, "swp1s1-4" for breakouts), ID lists of switch priorities
// and traffic classes, and set members named by the last word (the
// What Just Happened triggers of the EVPN leaf in the shared corpus:
// `... trigger l2` and `... trigger l3` are two entries).
func TestParseCommandKeys(t *testing.T) {
	cfg, err := Parse([]byte(`nv set interface swp1-2,32 type swp
nv set interface swp5s1-2 link mtu 9000
nv set qos traffic-pool default-lossy switch-priority 0-2,4
nv set qos egress-scheduler default-global traffic-class 0,3 mode dwrr
nv set system wjh channel forwarding trigger l2
nv set system wjh channel forwarding trigger l3
nv set system control-plane acl acl-default-dos inbound
nv set system control-plane acl acl-default-dos outbound
nv set system aaa user cumulus full-name cumulus,,,
`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"interface swp1 type = \"swp\"", "interface swp2 type = \"swp\"", "interface swp32 type = \"swp\"",
		"interface swp5s1 link mtu = 9000", "interface swp5s2 link mtu = 9000",
		"qos egress-scheduler default-global traffic-class 0 mode = \"dwrr\"", "qos egress-scheduler default-global traffic-class 3 mode = \"dwrr\"",
		"qos traffic-pool default-lossy switch-priority 0 = {}", "qos traffic-pool default-lossy switch-priority 1 = {}",
		"qos traffic-pool default-lossy switch-priority 2 = {}", "qos traffic-pool default-lossy switch-priority 4 = {}",
		"system aaa user cumulus full-name = \"cumulus,,,\"",
		"system control-plane acl acl-default-dos inbound = {}", "system control-plane acl acl-default-dos outbound = {}",
		"system wjh channel forwarding trigger l2 = {}", "system wjh channel forwarding trigger l3 = {}",
	}
	if got := strings.Split(strings.TrimSpace(cfg.Paths.Text()), "\n"); !slices.Equal(got, want) {
		t.Fatalf("paths:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// FuzzParse: Parse never panics; what it parses encodes to NVUE JSON that
// parses back to the same model (when the paths form a tree).
func FuzzParse(f *testing.F) {
	// Real device output from the shared corpus, read at fuzz time.
	corpus.Seed(f, "cumulus")
	goldens, _ := filepath.Glob("testdata/*/*.nvue")
	for _, g := range goldens {
		if b, err := os.ReadFile(g); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`[{"header": {"rev-id": "1.0"}}, {"set": {"qos": {"roce": {}}, "interface": {"swp1": {"link": {"mtu": 9216, "state": {"up": {}}}}}}}]`))
	f.Add([]byte(`{"a": [1, 2], "b": null, "c": true, "d": 1.5}`))
	f.Add([]byte(`{"bridge": {"domain": {"br_default": {"vlan": {"10,100-102": {}}}}}, "interface": {"swp1": {"bridge": {"domain": {"br_default": {}}}}, "swp2": {"bridge": {"domain": {"br_default": {"vlan": {"10-11": {}}}}}}}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		cfg, err := Parse(raw)
		if err != nil {
			return
		}
		_ = Normalise(cfg)
		js, err := EncodeJSON(cfg)
		if err != nil {
			return // a leaf and a container on one path: not a tree
		}
		again, err := Parse(js)
		if err != nil {
			t.Fatalf("re-parse of encoded JSON: %v\n%s", err, js)
		}
		if got, want := again.Paths.Text(), cfg.Paths.Text(); got != want {
			t.Fatalf("encode → parse is not stable:\n%s\n%s", want, got)
		}
	})
}
