package devcfg

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/internal/corpus"
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
	// Real device output from the shared corpus, read at fuzz time.
	corpus.SeedWith(f, func(b []byte) { f.Add(string(b)) }, "nxos", "eos")
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

func TestNegationRewritesListMembers(t *testing.T) {
	syn := Syntax{Style: StyleCLITree, Negate: "no ", Exit: "exit", NegateRewrite: map[string]string{
		"switchport trunk allowed vlan add ": "switchport trunk allowed vlan remove ",
		"switchport ":                        "no switchport ", // shorter key: the longest one wins
	}}
	for line, want := range map[string]string{
		"switchport trunk allowed vlan add 100": "switchport trunk allowed vlan remove 100",
		"switchport mode trunk":                 "no switchport mode trunk",
		"mtu 9216":                              "no mtu 9216",
	} {
		if got := syn.Negation(line); got != want {
			t.Errorf("Negation(%q) = %q, want %q", line, got, want)
		}
	}
	p := BuildPatch([]Change{
		{Action: Add, Parents: []string{"interface Ethernet1/1"}, Path: "switchport trunk allowed vlan add 101", New: "switchport trunk allowed vlan add 101"},
		{Action: Remove, Parents: []string{"interface Ethernet1/1"}, Path: "switchport trunk allowed vlan add 100", Old: "switchport trunk allowed vlan add 100"},
		{Action: Remove, Parents: []string{"interface Ethernet1/1"}, Path: "mtu 9216", Old: "mtu 9216"},
	}, syn)
	want := "interface Ethernet1/1\nswitchport trunk allowed vlan add 101\nswitchport trunk allowed vlan remove 100\nno mtu 9216\nexit"
	if got := strings.Join(p.Lines, "\n"); got != want {
		t.Fatalf("patch:\n%s\nwant:\n%s", got, want)
	}
}

func TestImpliedMembers(t *testing.T) {
	tr, _ := ParseIndented("interface Ethernet1/1\n  switchport mode trunk\n  switchport trunk allowed vlan all\n"+
		"interface Ethernet1/2\n  switchport trunk allowed vlan add 10\n  switchport trunk allowed vlan add 100\n"+
		"interface Ethernet1/3\n  switchport trunk allowed vlan all\n", "!")
	member := func(port string) LineOwner {
		return LineOwner{Parents: []string{port}, Prefix: "switchport trunk allowed vlan add 100", Exact: true,
			ImpliedBy: []string{"switchport trunk allowed vlan all"}}
	}
	scope := Scope{Lines: []LineOwner{member("interface Ethernet1/1"), member("interface Ethernet1/2")}}
	filtered := (&Config{Shape: ShapeTree, Tree: tr}).Filter(scope.Clone())
	// Ethernet1/1 shows the member its list of every VLAN implies, marked
	// Implied; Ethernet1/3 is not in scope.
	want := "interface Ethernet1/1\n  switchport trunk allowed vlan add 100\ninterface Ethernet1/2\n  switchport trunk allowed vlan add 100\n"
	if got := filtered.Text(); got != want {
		t.Fatalf("filtered:\n%s\nwant:\n%s", got, want)
	}
	for port, implied := range map[string]bool{"interface Ethernet1/1": true, "interface Ethernet1/2": false} {
		n := filtered.Tree.Find([]string{port, "switchport trunk allowed vlan add 100"})
		if n == nil || n.Implied != implied || n.Clone().Implied != implied {
			t.Errorf("%s: member %+v, want Implied %v", port, n, implied)
		}
	}
	if scope.OwnsLine([]string{"interface Ethernet1/1"}, "switchport trunk allowed vlan all") {
		t.Error("the implying line itself is not owned: it must never be removed")
	}

	paths := Paths{
		"interface swp1 bridge domain br_default vlan all": Empty,
		"interface swp2 bridge domain br_default vlan 10":  Empty,
		"interface swp3 bridge domain br_default vlan 100": Empty,
		"interface swp9 bridge domain br_default vlan all": Empty,
	}
	ps := Scope{}
	for _, port := range []string{"swp1", "swp2", "swp3"} {
		owned := "interface " + port + " bridge domain br_default vlan 100"
		ps.Paths = append(ps.Paths, owned)
		ps.Implied = append(ps.Implied, ImpliedPath{Path: owned, By: "interface " + port + " bridge domain br_default vlan all"})
	}
	fp := (&Config{Shape: ShapePaths, Paths: paths}).Filter(ps.Clone()).Paths
	wantPaths := "interface swp1 bridge domain br_default vlan 100 = {}\ninterface swp1 bridge domain br_default vlan all = {}\n" +
		"interface swp3 bridge domain br_default vlan 100 = {}\n"
	if got := fp.Text(); got != wantPaths {
		t.Fatalf("filtered paths:\n%s\nwant:\n%s", got, wantPaths)
	}
	if !ps.PathImplied("interface swp1 bridge domain br_default vlan 100", fp) || ps.PathImplied("interface swp2 bridge domain br_default vlan 100", fp) {
		t.Error("PathImplied: swp1 inherits every VLAN, swp2 has its own set")
	}
	if !ps.Implies("interface swp1 bridge domain br_default vlan all") || ps.Implies("interface swp3 bridge domain br_default vlan 100") {
		t.Error("Implies names the implying paths only")
	}
}

func TestIDLists(t *testing.T) {
	ids, err := ParseIDList("200, 10,100-102,101", 1, 4094)
	if err != nil || FormatIDList(ids) != "10,100-102,200" {
		t.Fatalf("ParseIDList = %v, %v", ids, err)
	}
	for _, bad := range []string{"", "0", "4095", "10-5", "a", "1,,2", "1-"} {
		if _, err := ParseIDList(bad, 1, 4094); err == nil {
			t.Errorf("ParseIDList(%q) accepted", bad)
		}
	}
	if got := FormatIDList([]int{3, 1, 2, 2, 7}); got != "1-3,7" {
		t.Errorf("FormatIDList = %q", got)
	}
}

var trunkList = MemberList{
	Prefix: "switchport trunk allowed vlan ", Member: "switchport trunk allowed vlan add ",
	All: "switchport trunk allowed vlan all", None: "switchport trunk allowed vlan none", Lo: 1, Hi: 4094,
}

func TestMemberListExpand(t *testing.T) {
	for _, tc := range []struct {
		name     string
		in       string
		trunk    bool
		wantList string // the member lines, joined by "|"
	}{
		{"one line", "switchport trunk allowed vlan 10,100,200-201", true, "add 10|add 100|add 200|add 201"},
		{"NX-OS continuation lines", "switchport trunk allowed vlan 10\nswitchport trunk allowed vlan add 300-301,100", true, "add 10|add 100|add 300|add 301"},
		{"no list on a trunk: every VLAN", "switchport mode trunk", true, "all"},
		{"no list on an access port", "switchport mode access", false, ""},
		{"explicit full range", "switchport trunk allowed vlan 1-4094", true, "all"},
		{"none", "switchport trunk allowed vlan none", true, "none"},
		{"except", "switchport trunk allowed vlan except 2-4094", true, "add 1"},
		{"remove empties", "switchport trunk allowed vlan 5\nswitchport trunk allowed vlan remove 5", true, "none"},
		{"members re-read", "switchport trunk allowed vlan add 100\nswitchport trunk allowed vlan add 10", true, "add 10|add 100"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var nodes []*Node
			for _, l := range strings.Split(tc.in, "\n") {
				nodes = append(nodes, &Node{Line: l})
			}
			var got []string
			for _, n := range trunkList.Expand(nodes, tc.trunk) {
				if rest, ok := strings.CutPrefix(n.Line, "switchport trunk allowed vlan "); ok {
					got = append(got, rest)
				}
			}
			if strings.Join(got, "|") != tc.wantList {
				t.Fatalf("members = %q, want %q", strings.Join(got, "|"), tc.wantList)
			}
		})
	}
	// A list that does not parse is left alone.
	bad := []*Node{{Line: "switchport trunk allowed vlan 10,zz"}}
	if got := trunkList.Expand(bad, true); len(got) != 1 || got[0].Line != bad[0].Line {
		t.Fatalf("unparsable list rewritten: %v", got)
	}
	// Other lines keep their place; the members stand where the list stood.
	nodes := []*Node{{Line: "description x"}, {Line: "switchport trunk allowed vlan 20,10"}, {Line: "mtu 9216"}}
	var lines []string
	for _, n := range trunkList.Expand(nodes, true) {
		lines = append(lines, n.Line)
	}
	if want := "description x|switchport trunk allowed vlan add 10|switchport trunk allowed vlan add 20|mtu 9216"; strings.Join(lines, "|") != want {
		t.Fatalf("order = %q", strings.Join(lines, "|"))
	}
}

// FuzzMemberListExpand: Expand never panics, its member lines read back
// to the same model (printing the model and parsing it again is stable),
// and any ID list it accepts prints and parses back to the same IDs.
func FuzzMemberListExpand(f *testing.F) {
	f.Add("switchport mode trunk\nswitchport trunk allowed vlan 10,100-102\nswitchport trunk allowed vlan add 4000-4094", true)
	f.Add("switchport trunk allowed vlan except 1-10\nswitchport trunk allowed vlan remove 20", false)
	f.Add("switchport trunk allowed vlan none", true)
	f.Add("switchport mode trunk", true)
	f.Fuzz(func(t *testing.T, text string, trunk bool) {
		var nodes []*Node
		for _, l := range strings.Split(text, "\n") {
			nodes = append(nodes, &Node{Line: l})
			if rest, ok := strings.CutPrefix(l, trunkList.Prefix); ok {
				if ids, err := ParseIDList(rest, 1, 4094); err == nil {
					again, err := ParseIDList(FormatIDList(ids), 1, 4094)
					if err != nil || FormatIDList(again) != FormatIDList(ids) {
						t.Fatalf("ID list %q does not print and read back: %v", rest, err)
					}
				}
			}
		}
		once := trunkList.Expand(nodes, trunk)
		twice := trunkList.Expand(once, trunk)
		join := func(ns []*Node) string {
			var b strings.Builder
			for _, n := range ns {
				b.WriteString(n.Line + "\n")
			}
			return b.String()
		}
		if join(once) != join(twice) {
			t.Fatalf("expanding the model again changes it:\n%s---\n%s", join(once), join(twice))
		}
	})
}

func TestScopeMergeAddsOnlyNewOwners(t *testing.T) {
	a := Scope{Lines: []LineOwner{{Parents: []string{"interface Ethernet1/1"}, Prefix: "mtu "}}, Paths: []string{"/a"}}
	b := a.Clone()
	b.Paths = append(b.Paths, "/b")
	b.Lines = append(b.Lines, LineOwner{Prefix: "vlan 100", Exact: true})
	a.Merge(a.Clone())
	if len(a.Lines) != 1 || len(a.Paths) != 1 {
		t.Fatalf("merging a scope with itself grew it: %+v", a)
	}
	a.Merge(b)
	if len(a.Lines) != 2 || len(a.Paths) != 2 {
		t.Fatalf("merge lost or repeated owners: %+v", a)
	}
}

func TestNaturalLess(t *testing.T) {
	sorted := []string{"a fill-level 1", "a fill-level 5", "a fill-level 20", "a fill-level 100", "dscp 9 x", "dscp 10 x", "swp2", "swp10", "swp10s1", "x7", "x007", "x8"}
	for i := range sorted {
		for j := range sorted {
			if got := NaturalLess(sorted[i], sorted[j]); got != (i < j) {
				t.Errorf("NaturalLess(%q, %q) = %v", sorted[i], sorted[j], got)
			}
		}
	}
}

// TestSingletonNodes: a singleton over statement nodes is held by the
// running value at Path+node for the statement and every node above it,
// never for a sibling.
func TestSingletonNodes(t *testing.T) {
	s := Singleton{Name: "active", Path: "deactivate ", Nodes: []string{"a b c 1", "a x"}, Want: "active"}
	running := &Config{Shape: ShapePaths, Paths: Paths{"deactivate a b": String("deactivate a b"), "deactivate a bc": String("no"), "deactivate a b c 1": String("deactivate a b c 1")}}
	c := Conflicts(running, []Singleton{s})
	if len(c) != 2 || c[0].Held != "deactivate a b" || c[1].Held != "deactivate a b c 1" {
		t.Fatalf("conflicts = %v", c)
	}
	if c := Conflicts(&Config{Shape: ShapePaths, Paths: Paths{"deactivate a y": Empty}}, []Singleton{s}); len(c) != 0 {
		t.Fatalf("a sibling's deactivation conflicts: %v", c)
	}
}
