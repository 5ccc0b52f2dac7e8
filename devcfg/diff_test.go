package devcfg_test

import (
	"strings"
	"testing"

	"github.com/rocefab/rocefab/devcfg"
)

var cliSyntax = devcfg.Syntax{
	Style: devcfg.StyleCLITree, Negate: "no ", Exit: "exit",
	LineKeys: []string{"mtu ", "switchport trunk allowed vlan ", "random-detect "},
}

func tree(t *testing.T, text string) *devcfg.Tree {
	t.Helper()
	tr, err := devcfg.ParseIndented(text, "!")
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// scope owns ROCEFAB_ class-maps whole and mtu/service-policy on Ethernet1/1.
var scope = devcfg.Scope{Lines: []devcfg.LineOwner{
	{Prefix: "class-map type qos match-any ROCEFAB_", Subtree: true},
	{Parents: []string{"interface Ethernet1/1"}, Prefix: "mtu "},
	{Parents: []string{"interface Ethernet1/1"}, Prefix: "service-policy type qos input "},
}}

func TestTreeDiff(t *testing.T) {
	desiredText := `class-map type qos match-any ROCEFAB_ROCE
  match dscp 26
interface Ethernet1/1
  mtu 9216
  service-policy type qos input ROCEFAB_QOS
`
	cases := []struct {
		name    string
		running string
		want    []string // "symbol where -> new"
		patch   []string
	}{
		{
			name:    "fresh device gets everything",
			running: "interface Ethernet1/1\n  description uplink\n",
			want: []string{
				"+ class-map type qos match-any ROCEFAB_ROCE",
				"+ interface Ethernet1/1 > mtu 9216",
				"+ interface Ethernet1/1 > service-policy type qos input ROCEFAB_QOS",
			},
			patch: []string{
				"class-map type qos match-any ROCEFAB_ROCE", "match dscp 26", "exit",
				"interface Ethernet1/1", "mtu 9216", "service-policy type qos input ROCEFAB_QOS", "exit",
			},
		},
		{
			name: "compliant device in another order shows nothing",
			running: `interface Ethernet1/1
  service-policy type qos input ROCEFAB_QOS
  description uplink
  mtu 9216
class-map type qos match-any ROCEFAB_ROCE
  match dscp 26
`,
		},
		{
			name: "changed MTU is a modification, extra DSCP a removal, foreign lines untouched",
			running: `class-map type qos match-any ROCEFAB_ROCE
  match dscp 26
  match dscp 24
class-map type qos match-any OTHER
  match dscp 10
interface Ethernet1/1
  mtu 1500
  service-policy type qos input ROCEFAB_QOS
interface Ethernet1/2
  mtu 1500
`,
			want: []string{
				"~ interface Ethernet1/1 > mtu  (mtu 1500 -> mtu 9216)",
				"- class-map type qos match-any ROCEFAB_ROCE > match dscp 24",
			},
			patch: []string{"interface Ethernet1/1", "mtu 9216", "exit", "class-map type qos match-any ROCEFAB_ROCE", "no match dscp 24", "exit"},
		},
		{
			name: "a stale rocefab object is removed whole, after the additions",
			running: `class-map type qos match-any ROCEFAB_OLD
  match dscp 10
interface Ethernet1/1
  mtu 9216
  service-policy type qos input ROCEFAB_QOS
`,
			want: []string{
				"+ class-map type qos match-any ROCEFAB_ROCE",
				"- class-map type qos match-any ROCEFAB_OLD",
			},
			patch: []string{"class-map type qos match-any ROCEFAB_ROCE", "match dscp 26", "exit", "no class-map type qos match-any ROCEFAB_OLD"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			desired := &devcfg.Config{Shape: devcfg.ShapeTree, Tree: tree(t, desiredText), Owned: scope}
			full := &devcfg.Config{Shape: devcfg.ShapeTree, Tree: tree(t, tc.running)}
			running := full.Filter(scope)
			changes := devcfg.Diff(desired, running, cliSyntax, nil)
			var got []string
			for _, c := range changes {
				s := c.Action.Symbol() + " " + c.Where()
				if c.Action == devcfg.Modify {
					s = c.Action.Symbol() + " " + c.Where() + " (" + c.Old + " -> " + c.New + ")"
				}
				got = append(got, s)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			patch := devcfg.BuildPatch(changes, cliSyntax)
			if strings.Join(patch.Lines, "\n") != strings.Join(tc.patch, "\n") {
				t.Errorf("patch:\n%s\nwant:\n%s", strings.Join(patch.Lines, "\n"), strings.Join(tc.patch, "\n"))
			}
		})
	}
}

func TestTreeDiffNeverRemovesContext(t *testing.T) {
	desired := &devcfg.Config{Shape: devcfg.ShapeTree, Tree: &devcfg.Tree{}, Owned: scope}
	full := &devcfg.Config{Shape: devcfg.ShapeTree, Tree: tree(t, "interface Ethernet1/1\n  mtu 9216\n  description keep\n")}
	changes := devcfg.Diff(desired, full.Filter(scope), cliSyntax, nil)
	if len(changes) != 1 || changes[0].Path != "mtu 9216" || changes[0].Action != devcfg.Remove {
		t.Fatalf("want only the owned mtu line removed, got %+v", changes)
	}
	patch := devcfg.BuildPatch(changes, cliSyntax)
	if got := strings.Join(patch.Lines, "|"); got != "interface Ethernet1/1|no mtu 9216|exit" {
		t.Fatalf("patch %q", got)
	}
}

func TestPathsDiffAndClassify(t *testing.T) {
	desired := &devcfg.Config{Shape: devcfg.ShapePaths, Paths: devcfg.Paths{
		"/PORT/Ethernet0/mtu":                devcfg.String("9216"),
		"/WRED_PROFILE/ROCEFAB/green_min":    devcfg.String("150000"),
		"/PORT_QOS_MAP/Ethernet0/pfc_enable": devcfg.String("3"),
	}}
	running := &devcfg.Config{Shape: devcfg.ShapePaths, Paths: devcfg.Paths{
		"/PORT/Ethernet0/mtu":             devcfg.String("1500"),
		"/WRED_PROFILE/ROCEFAB/green_min": devcfg.String("150000"),
		"/WRED_PROFILE/ROCEFAB/stale":     devcfg.String("x"),
	}}
	classify := func(c devcfg.Change) (devcfg.Disruption, string) {
		if strings.Contains(c.Path, "mtu") || strings.Contains(c.Path, "pfc") {
			return devcfg.TrafficAffecting, "flaps the port"
		}
		return devcfg.Hitless, ""
	}
	changes := devcfg.Diff(desired, running, devcfg.Syntax{Style: devcfg.StylePaths}, classify)
	want := []struct {
		act  devcfg.Action
		path string
		dis  devcfg.Disruption
	}{
		{devcfg.Modify, "/PORT/Ethernet0/mtu", devcfg.TrafficAffecting},
		{devcfg.Add, "/PORT_QOS_MAP/Ethernet0/pfc_enable", devcfg.TrafficAffecting},
		{devcfg.Remove, "/WRED_PROFILE/ROCEFAB/stale", devcfg.Hitless},
	}
	if len(changes) != len(want) {
		t.Fatalf("got %d changes: %+v", len(changes), changes)
	}
	for i, w := range want {
		c := changes[i]
		if c.Action != w.act || c.Path != w.path || c.Disruption != w.dis {
			t.Errorf("change %d = %v %s %v, want %v %s %v", i, c.Action, c.Path, c.Disruption, w.act, w.path, w.dis)
		}
	}
	patch := devcfg.BuildPatch(changes, devcfg.Syntax{Style: devcfg.StylePaths})
	if len(patch.Updates) != 2 || len(patch.Deletes) != 1 || patch.Updates[0].Value != devcfg.String("9216") {
		t.Fatalf("patch %+v", patch)
	}
}

// TestImpliedMembership: a desired member line or path that a running one
// implies (a trunk allowing every VLAN, a Cumulus port inheriting its
// bridge's VLANs) is present; an explicit member rocefab no longer wants is
// removed; the implying line or path is never removed, and a membership
// it implies is never taken away (that would narrow a device default).
func TestImpliedMembership(t *testing.T) {
	syn := devcfg.Syntax{Style: devcfg.StyleCLITree, Negate: "no ", Exit: "exit"}
	const all = "switchport trunk allowed vlan all"
	member := func(port string, vlan string) devcfg.LineOwner {
		return devcfg.LineOwner{Parents: []string{port}, Prefix: "switchport trunk allowed vlan add " + vlan, Exact: true, ImpliedBy: []string{all}}
	}
	// The lossless VLAN moved from 100 to 101; the scope still owns 100.
	sc := devcfg.Scope{Lines: []devcfg.LineOwner{
		member("interface Ethernet1/1", "100"), member("interface Ethernet1/1", "101"),
		member("interface Ethernet1/2", "100"), member("interface Ethernet1/2", "101"),
	}}
	desired := &devcfg.Config{Shape: devcfg.ShapeTree, Owned: sc, Tree: tree(t,
		"interface Ethernet1/1\n  switchport trunk allowed vlan add 101\ninterface Ethernet1/2\n  switchport trunk allowed vlan add 101\n")}
	running := &devcfg.Config{Shape: devcfg.ShapeTree, Tree: tree(t,
		"interface Ethernet1/1\n  "+all+"\ninterface Ethernet1/2\n  switchport trunk allowed vlan add 10\n  switchport trunk allowed vlan add 100\n")}
	running = running.Filter(sc)
	var got []string
	for _, c := range devcfg.Diff(desired, running, syn, nil) {
		got = append(got, c.Action.Symbol()+" "+c.Where())
	}
	want := "+ interface Ethernet1/2 > switchport trunk allowed vlan add 101|- interface Ethernet1/2 > switchport trunk allowed vlan add 100"
	if strings.Join(got, "|") != want {
		t.Fatalf("changes = %q, want %q", strings.Join(got, "|"), want)
	}

	const inherits = "interface swp1 bridge domain br_default vlan all"
	ps := devcfg.Scope{Paths: []string{"interface swp1 bridge domain br_default vlan 100", "interface swp2 bridge domain br_default vlan 100"},
		Implied: []devcfg.ImpliedPath{
			{Path: "interface swp1 bridge domain br_default vlan 100", By: inherits},
			{Path: "interface swp2 bridge domain br_default vlan 100", By: "interface swp2 bridge domain br_default vlan all"},
		}}
	want2 := devcfg.Paths{"interface swp1 bridge domain br_default vlan 100": devcfg.Empty, "interface swp2 bridge domain br_default vlan 100": devcfg.Empty}
	have := (&devcfg.Config{Shape: devcfg.ShapePaths, Paths: devcfg.Paths{inherits: devcfg.Empty, "interface swp2 bridge domain br_default vlan 10": devcfg.Empty}}).Filter(ps)
	changes := devcfg.Diff(&devcfg.Config{Shape: devcfg.ShapePaths, Paths: want2, Owned: ps}, have, devcfg.Syntax{}, nil)
	if len(changes) != 1 || changes[0].Action != devcfg.Add || changes[0].Path != "interface swp2 bridge domain br_default vlan 100" {
		t.Fatalf("paths changes = %+v, want one add on swp2 (swp1 inherits it; the marker stays)", changes)
	}
	// Nothing wanted any more: the inheriting marker is still not removed.
	if changes := devcfg.Diff(&devcfg.Config{Shape: devcfg.ShapePaths, Paths: devcfg.Paths{}, Owned: ps}, have, devcfg.Syntax{}, nil); len(changes) != 0 {
		t.Fatalf("changes = %+v, want none", changes)
	}
}
