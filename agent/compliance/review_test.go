package compliance

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/devcfg"
)

var (
	junosSyntax = devcfg.Syntax{Style: devcfg.StyleStatements, Set: "set ", Delete: "delete "}
	nvueSyntax  = devcfg.Syntax{Style: devcfg.StyleStatements, Set: "nv set ", Delete: "nv unset "}
	treeSyntax  = devcfg.Syntax{Style: devcfg.StyleCLITree, Negate: "no ", Exit: "exit"}
	portAny     = regexp.MustCompile(`^(Ethernet\d+(/\d+)*|et-\d+/\d+/\d+|swp\d+)$`)
)

func TestNativeStatements(t *testing.T) {
	cases := []struct {
		syn  devcfg.Syntax
		c    devcfg.Change
		want string
	}{
		{junosSyntax, devcfg.Change{Action: devcfg.Add, Path: "interfaces et-0/0/0 mtu", New: "9216"}, "set interfaces et-0/0/0 mtu 9216"},
		{junosSyntax, devcfg.Change{Action: devcfg.Add, Path: "vlans ROCEFAB_LOSSLESS", New: "{}"}, "set vlans ROCEFAB_LOSSLESS"},
		{junosSyntax, devcfg.Change{Action: devcfg.Modify, Path: "interfaces et-0/0/0 mtu", Old: "1514", New: "9216"}, "set interfaces et-0/0/0 mtu 9216 (was 1514)"},
		{junosSyntax, devcfg.Change{Action: devcfg.Remove, Path: "class-of-service schedulers ROCEFAB_OLD", Old: "{}"}, "delete class-of-service schedulers ROCEFAB_OLD"},
		{nvueSyntax, devcfg.Change{Action: devcfg.Add, Path: "interface swp1 link mtu", New: "9216"}, "nv set interface swp1 link mtu 9216"},
		{nvueSyntax, devcfg.Change{Action: devcfg.Remove, Path: "qos pfc default-global switch-priority 4", Old: "{}"}, "nv unset qos pfc default-global switch-priority 4"},
		{devcfg.Syntax{Style: devcfg.StylePaths}, devcfg.Change{Action: devcfg.Modify, Path: "sonic-db:/PORT/Ethernet0/mtu", Old: `"9100"`, New: `"9216"`}, "sonic-db:/PORT/Ethernet0/mtu: 9100 -> 9216"},
		{treeSyntax, devcfg.Change{Action: devcfg.Modify, Parents: []string{"interface Ethernet1/1"}, Path: "mtu ", Old: "mtu 1500", New: "mtu 9216"}, "interface Ethernet1/1 > mtu 1500 -> mtu 9216"},
	}
	for _, tc := range cases {
		got := reviewLine(tc.c, tc.syn).Text
		if got != tc.want {
			t.Errorf("%+v: got %q, want %q", tc.c, got, tc.want)
		}
	}
	// No pseudo-path "= {}" is left in a rendered plan of statements.
	p := &Plan{Kind: "plan", Devices: []DevicePlan{{Device: "leaf-junos", Platform: "junos", Status: StatusChanges, Changes: []devcfg.Change{
		{Action: devcfg.Add, Path: "vlans ROCEFAB_LOSSLESS", New: "{}"}}}}}
	p.Summarise()
	var b bytes.Buffer
	v := View{Platform: func(string) (PlatformView, bool) { return PlatformView{Syntax: junosSyntax}, true }}
	if err := WriteTextView(&b, p, v); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "= {}") || !strings.Contains(b.String(), "+ set vlans ROCEFAB_LOSSLESS") {
		t.Fatalf("junos plan:\n%s", b.String())
	}
}

func TestNaturalPortOrder(t *testing.T) {
	var cs []devcfg.Change
	// The diff lists paths in string order; each port has its own value,
	// so nothing groups and the order shows.
	for _, n := range []int{0, 12, 4, 8} {
		cs = append(cs, devcfg.Change{Action: devcfg.Add, Path: fmt.Sprintf("sonic-db:/PORT/Ethernet%d/description", n), New: fmt.Sprintf(`"host-%c"`, 'a'+n)})
	}
	for _, p := range []string{"Ethernet1/10", "Ethernet1/2", "swp10", "swp2"} {
		cs = append(cs, devcfg.Change{Action: devcfg.Remove, Path: "sonic-db:/X/" + p, Old: `"` + p + `"`})
	}
	lines := ReviewLines(DevicePlan{Changes: cs}, PlatformView{Syntax: devcfg.Syntax{Style: devcfg.StylePaths}})
	var got []string
	for _, l := range lines {
		got = append(got, strings.Fields(l.Text)[0])
	}
	want := []string{
		"sonic-db:/PORT/Ethernet0/description", "sonic-db:/PORT/Ethernet4/description", "sonic-db:/PORT/Ethernet8/description", "sonic-db:/PORT/Ethernet12/description",
		"sonic-db:/X/Ethernet1/2", "sonic-db:/X/Ethernet1/10", "sonic-db:/X/swp2", "sonic-db:/X/swp10",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("order:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Grouped, the range reads in natural order too.
	var same []devcfg.Change
	for _, n := range []int{12, 0, 124, 4, 8} {
		same = append(same, devcfg.Change{Action: devcfg.Add, Path: fmt.Sprintf("sonic-db:/BUFFER_PG/Ethernet%d|3/profile", n), New: `"NULL"`})
	}
	groups := GroupLines(ReviewLines(DevicePlan{Changes: same}, PlatformView{}), portAny)
	if len(groups) != 1 || groups[0].Text != "sonic-db:/BUFFER_PG/Ethernet[0-12 step 4,124]|3/profile = NULL" && groups[0].Text != "sonic-db:/BUFFER_PG/Ethernet[0,4,8,12,124]|3/profile = NULL" {
		t.Fatalf("groups: %+v", groups)
	}
}

func TestCompactValues(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{[]string{"1", "2", "3", "4"}, "1-4"},
		{[]string{"0", "4", "8", "12"}, "0-12 step 4"},
		{[]string{"1", "2", "4", "5", "6", "9"}, "1,2,4-6,9"},
		{[]string{"000000", "000001"}, "000000,000001"},
		{[]string{"7"}, "7"},
	} {
		got := compactValues(tc.in)
		if got != tc.want {
			t.Errorf("%v: %q, want %q", tc.in, got, tc.want)
		}
		back, ok := expandValues(got)
		if !ok || !slices.Equal(back, tc.in) {
			t.Errorf("%q expands to %v, want %v", got, back, tc.in)
		}
	}
}

// randomLines is a device's worth of per-port and per-value changes in
// the forms every platform prints, shuffled, with a few that must never
// group (another value, another sign, another block, another effect).
func randomLines(r *rand.Rand) []Line {
	var lines []Line
	add := func(sign, text string, eff devcfg.Effect, block ...string) {
		lines = append(lines, Line{Sign: sign, Text: text, Effect: eff, Block: block, Change: len(lines)})
	}
	ports := r.IntN(40) + 1
	for p := 1; p <= ports; p++ {
		add("+", fmt.Sprintf("interface Ethernet1/%d > mtu 9216", p), devcfg.EffectBreaks)
		add("~", fmt.Sprintf("interface Ethernet1/%d > mtu %d -> mtu 9216", p, []int{1500, 9000}[r.IntN(2)]), devcfg.EffectBreaks)
		add("+", fmt.Sprintf("set interfaces et-0/0/%d unit 0 family ethernet-switching interface-mode trunk", p-1), "")
		add("+", fmt.Sprintf("nv set interface swp%d qos pfc-watchdog state enable", p), devcfg.EffectDegrades)
		add("+", fmt.Sprintf("sonic-db:/BUFFER_PG/Ethernet%d|3/profile = NULL", 4*(p-1)), devcfg.EffectBreaks)
		add("+", fmt.Sprintf("/qos/interfaces/interface[interface-id=Ethernet%d]/config/interface-id = Ethernet%d", p, p), "")
		if r.IntN(5) == 0 {
			add("-", fmt.Sprintf("interface Ethernet1/%d > mtu 9216", p), devcfg.EffectBreaks) // another sign
		}
		if r.IntN(7) == 0 {
			add("+", fmt.Sprintf("interface Ethernet1/%d > mtu 9216", p), devcfg.EffectNeutral) // another effect
		}
	}
	for d := 0; d < 64; d++ {
		add("+", fmt.Sprintf("qos map dscp %d to traffic-class %d", d, d>>3), "")
	}
	add("+", "class-map type qos match-any ROCEFAB_ROCE", "", "match dscp 26")
	add("+", "class-map type qos match-any ROCEFAB_CNP", "", "match dscp 48")
	r.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	return lines
}

// TestGroupingShowsEveryChange: for many random devices, reading the
// grouped lines back (expanding each range) gives exactly the lines that
// went in, each once, with its sign, block and effect.
func TestGroupingShowsEveryChange(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 65000))
	for run := 0; run < 200; run++ {
		lines := randomLines(r)
		groups := GroupLines(lines, portAny)
		seen := map[int]bool{}
		var read []string
		for _, g := range groups {
			texts := []string{g.Text}
			if g.Count() > 1 {
				texts = Expand(g.Text)
			}
			if len(texts) != g.Count() {
				t.Fatalf("run %d: %q expands to %d lines, the group holds %d", run, g.Text, len(texts), g.Count())
			}
			for i, m := range g.Members {
				if seen[m.Change] {
					t.Fatalf("run %d: change %d shown twice", run, m.Change)
				}
				seen[m.Change] = true
				if m.Sign != g.Sign || m.Effect != g.Effect || strings.Join(m.Block, "\n") != strings.Join(g.Block, "\n") {
					t.Fatalf("run %d: %q grouped with %q of another sign, effect or block", run, m.Text, g.Text)
				}
				if texts[i] != m.Text {
					t.Fatalf("run %d: member %d of %q reads %q, is %q", run, i, g.Text, texts[i], m.Text)
				}
				read = append(read, g.Sign+" "+texts[i]+" "+string(g.Effect))
			}
		}
		var in []string
		for _, l := range lines {
			in = append(in, l.Sign+" "+l.Text+" "+string(l.Effect))
		}
		slices.Sort(in)
		slices.Sort(read)
		if !slices.Equal(in, read) {
			t.Fatalf("run %d: grouped lines read back differ from the input", run)
		}
		if len(groups) >= len(lines) {
			t.Fatalf("run %d: nothing grouped (%d lines, %d groups)", run, len(lines), len(groups))
		}
	}
}

// TestMarkdownFitsAnyFleet: a fleet of thousands of devices, none alike,
// still makes a comment under the limit that says what it left out and
// links the full plan; a small fleet is shown whole.
func TestMarkdownFitsAnyFleet(t *testing.T) {
	for _, n := range []int{3, 200, 5000} {
		p := &Plan{Kind: "plan", Intent: IntentRef{Fabric: "big"}}
		for i := 0; i < n; i++ {
			d := DevicePlan{Device: fmt.Sprintf("leaf%04d", i), Kind: "switch", Platform: "nxos", Transport: "ssh", Status: StatusChanges}
			for port := 1; port <= 32; port++ {
				// Each device has its own MTU, so no two devices share a section.
				d.Changes = append(d.Changes, devcfg.Change{Action: devcfg.Modify, Parents: []string{fmt.Sprintf("interface Ethernet1/%d", port)},
					Path: "mtu ", Old: "mtu 1500", New: fmt.Sprintf("mtu %d", 2000+i), Disruption: devcfg.TrafficAffecting, Reason: "MTU"})
				d.Changes = append(d.Changes, devcfg.Change{Action: devcfg.Add, Parents: []string{fmt.Sprintf("interface Ethernet1/%d", port)},
					Path: fmt.Sprintf("description leaf%04d port %d", i, port), New: fmt.Sprintf("description leaf%04d port %d", i, port)})
			}
			p.Devices = append(p.Devices, d)
		}
		p.Summarise()
		var b bytes.Buffer
		if err := WriteMarkdownView(&b, p, View{FullPlan: "https://github.com/o/r/actions/runs/1"}); err != nil {
			t.Fatal(err)
		}
		md := b.String()
		if len(md) >= 65000 {
			t.Fatalf("%d devices: %d characters", n, len(md))
		}
		cut := strings.Contains(md, "not shown") || strings.Contains(md, "were cut")
		if n == 3 && cut {
			t.Fatalf("3 devices were cut:\n%s", md)
		}
		if n > 3 && (!cut || !strings.Contains(md, "(https://github.com/o/r/actions/runs/1)")) {
			t.Fatalf("%d devices: the cut is not said or not linked:\n%s", n, md[len(md)-800:])
		}
		if strings.Count(md, "<details>") != strings.Count(md, "</details>") || strings.Count(md, "```")%2 != 0 {
			t.Fatalf("%d devices: unbalanced details or code fences", n)
		}
	}
}

// TestColourOnlyWhenAsked: the text plan has ANSI colours only with
// View.Color (the CLI sets it on a terminal without NO_COLOR); Markdown
// never.
func TestColourOnlyWhenAsked(t *testing.T) {
	p := samplePlan("drift")
	var plain, coloured, md bytes.Buffer
	if err := WriteTextView(&plain, p, View{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteTextView(&coloured, p, View{Color: true}); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdownView(&md, p, View{Color: true}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "\x1b[") || strings.Contains(md.String(), "\x1b[") {
		t.Fatal("colour without View.Color, or in Markdown")
	}
	if !strings.Contains(coloured.String(), "\x1b[1m\x1b[31mbreaks lossless\x1b[0m") || !strings.Contains(coloured.String(), "\x1b[32m+\x1b[0m") {
		t.Fatalf("no colour with View.Color:\n%q", coloured.String())
	}
	// Without the escapes the coloured text is the plain one.
	if stripped := regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(coloured.String(), ""); stripped != plain.String() {
		t.Fatalf("colour changed the text")
	}
}
