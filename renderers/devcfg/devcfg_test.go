package devcfg

import (
	"encoding/json"
	"strings"
	"testing"
)

const nxosRunning = `!Command: show running-config
version 10.3(4a)
class-map type qos match-any ROCEFAB_ROCE
  match dscp 26
system qos
  service-policy type network-qos OTHER_NQ
interface Ethernet1/1
  description to gpu01
  mtu 9216
`

func TestParseIndented(t *testing.T) {
	tr, err := ParseIndented(nxosRunning, "!")
	if err != nil {
		t.Fatal(err)
	}
	if got := tr.Len(); got != 8 {
		t.Fatalf("Len = %d, want 8 lines", got)
	}
	if n := tr.Find([]string{"interface Ethernet1/1", "mtu 9216"}); n == nil {
		t.Fatal("mtu line not found under its interface")
	}
	if got := tr.Text(2); got != strings.SplitN(nxosRunning, "\n", 2)[1] {
		t.Fatalf("round trip text differs:\n%s", got)
	}
	if _, err := ParseIndented("  orphan\n"); err == nil {
		t.Fatal("an indented first line should fail")
	}
}

func TestFilterAndConflicts(t *testing.T) {
	tr, _ := ParseIndented(nxosRunning, "!")
	cfg := &Config{Shape: ShapeTree, Tree: tr}
	scope := Scope{Lines: []LineOwner{
		{Prefix: "class-map type qos match-any ROCEFAB_", Subtree: true},
		{Parents: []string{"interface Ethernet1/1"}, Prefix: "mtu "},
	}}
	got := cfg.Filter(scope).Text()
	want := "class-map type qos match-any ROCEFAB_ROCE\n  match dscp 26\ninterface Ethernet1/1\n  mtu 9216\n"
	if got != want {
		t.Fatalf("filtered:\n%s\nwant:\n%s", got, want)
	}
	if !scope.OwnsLine([]string{"class-map type qos match-any ROCEFAB_ROCE"}, "match dscp 26") {
		t.Error("a line inside an owned subtree should be owned")
	}
	if scope.OwnsLine([]string{"interface Ethernet1/1"}, "description to gpu01") {
		t.Error("description is not rocefab's")
	}
	singletons := []Singleton{{
		Name: "system qos network-qos policy", Parents: []string{"system qos"},
		Prefix: "service-policy type network-qos ", Want: "service-policy type network-qos ROCEFAB_NQ", Marker: "ROCEFAB",
	}}
	conflicts := Conflicts(cfg, singletons)
	if len(conflicts) != 1 || conflicts[0].Held != "service-policy type network-qos OTHER_NQ" {
		t.Fatalf("conflicts = %+v", conflicts)
	}
	if !strings.Contains(conflicts[0].String(), "owned by other config") {
		t.Errorf("message %q", conflicts[0].String())
	}
	ours, _ := ParseIndented("system qos\n  service-policy type network-qos ROCEFAB_OLD\n")
	if c := Conflicts(&Config{Shape: ShapeTree, Tree: ours}, singletons); len(c) != 0 {
		t.Fatalf("rocefab's own older policy is not a conflict: %+v", c)
	}
}

func TestPathsOwnership(t *testing.T) {
	s := Scope{Paths: []string{"/PORT/Ethernet0/mtu"}, PathPrefixes: []string{"/WRED_PROFILE/ROCEFAB_"}}
	for path, want := range map[string]bool{
		"/PORT/Ethernet0/mtu":                true,
		"/PORT/Ethernet0/mtux":               false,
		"/PORT/Ethernet0/speed":              false,
		"/WRED_PROFILE/ROCEFAB_LOSSLESS/ecn": true,
		"/WRED_PROFILE/AZURE_LOSSLESS/ecn":   false,
		"/PORT/Ethernet0/mtu[x=1]":           true,
	} {
		if got := s.OwnsPath(path); got != want {
			t.Errorf("OwnsPath(%q) = %v, want %v", path, got, want)
		}
	}
}

func TestBuildPatchStatements(t *testing.T) {
	changes := []Change{
		{Action: Add, Path: "interfaces et-0/0/0 mtu", New: string(String("9230"))},
		{Action: Add, Path: "class-of-service schedulers s1 explicit-congestion-notification", New: string(Empty)},
		{Action: Modify, Path: "qos pfc default-global cable-length", Old: "100", New: "10"},
		{Action: Remove, Path: "vlans OLD"},
	}
	p := BuildPatch(changes, Syntax{Style: StyleStatements, Set: "set ", Delete: "delete "})
	want := []string{
		"set interfaces et-0/0/0 mtu 9230",
		"set class-of-service schedulers s1 explicit-congestion-notification",
		"set qos pfc default-global cable-length 10",
		"delete vlans OLD",
	}
	if strings.Join(p.Lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("lines:\n%s", strings.Join(p.Lines, "\n"))
	}
}

func TestFingerprintIsStable(t *testing.T) {
	a := &Config{Shape: ShapePaths, Paths: Paths{"/a": Int(1), "/b": String("x")}}
	b := &Config{Shape: ShapePaths, Paths: Paths{"/b": String("x"), "/a": Int(1)}}
	if a.Fingerprint() != b.Fingerprint() {
		t.Fatal("fingerprint depends on map order")
	}
	b.Paths["/a"] = Int(2)
	if a.Fingerprint() == b.Fingerprint() {
		t.Fatal("fingerprint ignores a value change")
	}
}

func TestValueEncoding(t *testing.T) {
	for _, tc := range []struct {
		v          Value
		json, text string
	}{
		{Uint64(153600), `"153600"`, "153600"},
		{Int(9216), `9216`, "9216"},
		{Bool(true), `true`, "true"},
		{String(`a"b`), `"a\"b"`, `a"b`},
	} {
		if string(tc.v) != tc.json || tc.v.Text() != tc.text {
			t.Errorf("value %s: text %q", tc.v, tc.v.Text())
		}
	}
}

func TestHostPaths(t *testing.T) {
	pfc := uint8(0x08)
	tos := 106
	h := HostSettings{Host: "gpu01", NICs: []NICSettings{{
		Netdev: "ens1f0", RDMADevice: "mlx5_0", MTU: 9000, PFCEnable: &pfc, Trust: "dscp",
		App:      []AppEntry{{Selector: 5, Priority: 6, Protocol: 48}, {Selector: 5, Priority: 3, Protocol: 26}},
		RoCEMode: "RoCE v2", RoCEToS: &tos,
	}}}
	got := h.Paths().Text()
	for _, want := range []string{
		"nic/ens1f0/app/sel5/26 = 3\n", "nic/ens1f0/app/sel5/48 = 6\n", `nic/ens1f0/pfc/enable = "0x08"`,
		`rdma/mlx5_0/1/default_roce_mode = "RoCE v2"`, "rdma/mlx5_0/1/default_roce_tos = 106",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("host paths miss %q:\n%s", want, got)
		}
	}
}

func FuzzParseIndented(f *testing.F) {
	f.Add(nxosRunning)
	f.Add("a\n b\n  c\n d\ne\n")
	f.Add("\t\tx\n")
	f.Fuzz(func(t *testing.T, text string) {
		tr, err := ParseIndented(text, "!")
		if err != nil {
			return
		}
		// Re-parsing the canonical text must give the same tree.
		again, err := ParseIndented(tr.Text(2))
		if err != nil {
			t.Fatalf("canonical text does not parse: %v", err)
		}
		if again.Text(2) != tr.Text(2) {
			t.Fatalf("canonical text is not stable")
		}
	})
}

func TestConflictsExceptOwnLastValue(t *testing.T) {
	running, _ := ParseIndented("qos map dscp 26 to traffic-class 3\n")
	singletons := []Singleton{{Name: "EOS global qos map for DSCP 26", Prefix: "qos map dscp 26 to traffic-class ", Want: "qos map dscp 26 to traffic-class 4"}}
	cfg := &Config{Shape: ShapeTree, Tree: running}
	if got := Conflicts(cfg, singletons); len(got) != 1 {
		t.Fatalf("without history the held value is foreign: %+v", got)
	}
	ours := &Config{Shape: ShapeTree, Tree: running.Clone()}
	if got := ConflictsExcept(cfg, singletons, ours); len(got) != 0 {
		t.Fatalf("rocefab's own previous value is not a conflict: %+v", got)
	}
	other, _ := ParseIndented("qos map dscp 26 to traffic-class 1\n")
	if got := ConflictsExcept(cfg, singletons, &Config{Shape: ShapeTree, Tree: other}); len(got) != 1 {
		t.Fatalf("a value rocefab never set stays foreign: %+v", got)
	}
}

// TestNodeAdd: a line is added under a node once; adding it again returns
// the existing child.
func TestNodeAdd(t *testing.T) {
	n := &Node{Line: "interface Ethernet1"}
	mtu := n.Add("mtu 9216")
	n.Add("switchport")
	if again := n.Add("mtu 9216"); again != mtu {
		t.Error("adding an existing line made a second node")
	}
	tree := &Tree{Nodes: []*Node{n}}
	if got, want := tree.Text(2), "interface Ethernet1\n  mtu 9216\n  switchport\n"; got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// TestStringMatchesEncoder: String's fast path for plain text writes what
// encoding/json writes, for every kind of text the renderers produce.
func TestStringMatchesEncoder(t *testing.T) {
	for _, s := range []string{"", "ROCEFAB", "3,4", "a\nb\n", "interface Ethernet1\n   priority-flow-control on", `a"b`, `back\slash`,
		"x > y", "<tag>", "a&b", "tab\t", "ünï", "\x7f", "\r\n", "\xff"} {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := String(s); string(got) != string(want) {
			t.Errorf("String(%q) = %s, want %s", s, got, want)
		}
	}
}

func TestDecodeObjectAndParseValue(t *testing.T) {
	for _, raw := range []string{`[1]`, `null`, `{"a":1} {}`, `{"a":`, ``} {
		if _, err := DecodeObject([]byte(raw)); err == nil {
			t.Errorf("DecodeObject(%q) accepted", raw)
		}
	}
	top, err := DecodeObject([]byte(`{"s": "a\u0026b", "n": 1.50, "o": { "k" : [1, "x"] }, "e": {}}`))
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]Value{"s": String("a&b"), "n": "1.50", "o": `{"k":[1,"x"]}`, "e": Empty} {
		got, err := ParseValue(top[k])
		if err != nil || got != want {
			t.Errorf("ParseValue(%s) = %s, %v; want %s", top[k], got, err, want)
		}
	}
}
