package sshsim

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// allowedLines returns the allowed-VLAN lines a device prints for port.
func allowedLines(t *testing.T, config, port string) []string {
	t.Helper()
	var out []string
	in := false
	for _, l := range strings.Split(config, "\n") {
		switch {
		case strings.HasPrefix(l, "interface "):
			in = l == "interface "+port
		case in && strings.HasPrefix(strings.TrimSpace(l), allowedVLANPrefix):
			out = append(out, strings.TrimPrefix(strings.TrimSpace(l), allowedVLANPrefix))
		}
	}
	return out
}

// TestAllowedVLANs: NX-OS and EOS edit a trunk's allowed list as the
// devices do (add and remove one VLAN, all by default) and print the
// resulting list, never the commands.
func TestAllowedVLANs(t *testing.T) {
	steps := []struct {
		cmd  string
		want string // the printed list, "" for no line (every VLAN)
	}{
		{"switchport mode trunk", ""},
		{"switchport trunk allowed vlan add 100", ""}, // every VLAN already
		{"switchport trunk allowed vlan 200,10", "10,200"},
		{"switchport trunk allowed vlan add 100", "10,100,200"},
		{"switchport trunk allowed vlan add 101-102", "10,100-102,200"},
		{"switchport trunk allowed vlan remove 100-102", "10,200"},
		{"switchport trunk allowed vlan remove 10,200", "none"},
		{"switchport trunk allowed vlan add 100", "100"},
		{"switchport trunk allowed vlan all", ""},
		{"switchport trunk allowed vlan remove 100", "1-99,101-4094"},
		{"no switchport trunk allowed vlan", ""},
		{"switchport trunk allowed vlan except 1-5", "6-4094"},
		{"switchport trunk allowed vlan none", "none"},
	}
	for _, p := range []struct {
		personality Personality
		port        string
	}{{NXOS, "Ethernet1/1"}, {EOS, "Ethernet1"}} {
		t.Run(string(p.personality), func(t *testing.T) {
			sim := startSim(t, Options{Personality: p.personality, Ports: 2, Blank: true})
			for _, s := range steps {
				if err := sim.HandChange("interface "+p.port, s.cmd); err != nil {
					t.Fatalf("%s: %v", s.cmd, err)
				}
				got := strings.Join(allowedLines(t, sim.Config(), p.port), "|")
				if got != s.want {
					t.Fatalf("after %q the device prints %q, want %q", s.cmd, got, s.want)
				}
			}
			for _, bad := range []string{"switchport trunk allowed vlan add", "switchport trunk allowed vlan add 4095",
				"switchport trunk allowed vlan remove x", "switchport trunk allowed vlan 10 20", "switchport trunk allowed vlan none 5"} {
				if err := sim.HandChange("interface "+p.port, bad); err == nil {
					t.Errorf("%q accepted", bad)
				}
			}
		})
	}
}

// TestNXOSContinuesLongLists: NX-OS prints a long list as a first line and
// "add" continuation lines; together they hold the list.
func TestNXOSContinuesLongLists(t *testing.T) {
	sim := startSim(t, Options{Personality: NXOS, Ports: 2, Blank: true})
	var odd []int
	var items []string
	for v := 1; v < 200; v += 2 {
		odd = append(odd, v)
		items = append(items, strconv.Itoa(v))
	}
	if err := sim.HandChange("interface Ethernet1/1", "switchport mode trunk", "switchport trunk allowed vlan "+strings.Join(items, ",")); err != nil {
		t.Fatal(err)
	}
	lines := allowedLines(t, sim.Config(), "Ethernet1/1")
	if len(lines) < 2 || strings.HasPrefix(lines[0], "add ") {
		t.Fatalf("not a first line and continuation lines: %q", lines)
	}
	var got []int
	for i, l := range lines {
		if i > 0 {
			var ok bool
			if l, ok = strings.CutPrefix(l, "add "); !ok {
				t.Fatalf("continuation line %q is not an add line", l)
			}
		}
		if len(l) > nxosListWidth {
			t.Errorf("line longer than %d: %q", nxosListWidth, l)
		}
		ids, ok := vlanIDs(l)
		if !ok {
			t.Fatalf("line %q is not a VLAN list", l)
		}
		got = append(got, ids...)
	}
	if !slices.Equal(got, odd) {
		t.Fatalf("the printed lines hold %v, want %v", got, odd)
	}
}

// TestNVUEPortVLANs: `nv set ... vlan` adds VLANs to a port's set (one key
// each, lists and ranges expanded), `nv unset ... vlan N` removes one.
func TestNVUEPortVLANs(t *testing.T) {
	sim := startSim(t, Options{Personality: Cumulus, Ports: 2, Blank: true})
	// at returns the applied object at the keys, nil if there is none.
	at := func(keys ...string) map[string]any {
		t.Helper()
		var doc []map[string]any
		if err := json.Unmarshal([]byte(sim.Config()), &doc); err != nil {
			t.Fatalf("config is not JSON: %v", err)
		}
		for _, item := range doc {
			m, _ := item["set"].(map[string]any)
			for _, k := range keys {
				m, _ = m[k].(map[string]any)
			}
			if m != nil {
				return m
			}
		}
		return nil
	}
	vlans := func() []string {
		t.Helper()
		var keys []string
		for k := range at("interface", "swp1", "bridge", "domain", "br_default", "vlan") {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		return keys
	}
	// A port joins the bridge without VLANs of its own: NVUE keeps it as
	// an empty bridge domain object.
	if err := sim.HandChange("nv set interface swp2 bridge domain br_default"); err != nil {
		t.Fatal(err)
	}
	if m := at("interface", "swp2", "bridge", "domain", "br_default"); m == nil || len(m) != 0 {
		t.Fatalf("swp2 is not an empty br_default member:\n%s", sim.Config())
	}
	for _, s := range []struct {
		cmd  string
		want []string
	}{
		{"nv set interface swp1 bridge domain br_default vlan 10,200-201", []string{"10", "200", "201"}},
		{"nv set interface swp1 bridge domain br_default vlan 100", []string{"10", "100", "200", "201"}},
		{"nv unset interface swp1 bridge domain br_default vlan 100", []string{"10", "200", "201"}},
	} {
		if err := sim.HandChange(s.cmd); err != nil {
			t.Fatal(err)
		}
		if got := vlans(); !slices.Equal(got, s.want) {
			t.Fatalf("after %q: VLANs %v, want %v", s.cmd, got, s.want)
		}
	}
}
