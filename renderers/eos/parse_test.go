package eos

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/internal/corpus"
	"github.com/rocefab/rocefab/renderers/iosstyle"
)

var testSyntax = platformSyntax()

// deviceText dresses rendered text the way EOS shows it: the header
// comments, `!` separators, the global map grouped by traffic class, the
// default ` weight 0` hidden, a trunk's allowed list as one list line,
// foreign configuration, and a final `end`.
func deviceText(t *testing.T, cfg *devcfg.Config) string {
	t.Helper()
	raw, err := Encode(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("! Command: show running-config\n! device: leaf-eos (DCS-7060X5-64S, EOS-4.31.2F)\n!\n! boot system flash:/EOS.swi\n!\nhostname leaf-eos\n!\n")
	byTC := map[string][]string{}
	var rest []string
	for _, line := range strings.Split(strings.TrimRight(string(raw), "\n"), "\n") {
		if v, ok := strings.CutPrefix(line, "qos map dscp "); ok {
			d, tc, _ := strings.Cut(v, " to traffic-class ")
			byTC[tc] = append(byTC[tc], d)
			continue
		}
		rest = append(rest, line)
	}
	tcs := make([]string, 0, len(byTC))
	for tc := range byTC {
		tcs = append(tcs, tc)
	}
	sort.Strings(tcs)
	for _, tc := range tcs {
		ds := byTC[tc]
		for len(ds) > 0 { // EOS prints at most 8 code points per line
			n := min(8, len(ds))
			b.WriteString("qos map dscp " + strings.Join(ds[:n], " ") + " to traffic-class " + tc + "\n")
			ds = ds[n:]
		}
	}
	b.WriteString("!\n")
	for _, line := range rest {
		if strings.HasPrefix(line, "interface ") || strings.HasPrefix(line, "vlan ") || strings.HasPrefix(line, "   uc-tx-queue") {
			b.WriteString("!\n")
		}
		line = strings.TrimSuffix(line, " weight 0")
		// `add 100` on a port that allowed no VLAN leaves the list "100".
		line = strings.Replace(line, iosstyle.TrunkVLANs.Member, iosstyle.TrunkVLANs.Prefix, 1)
		b.WriteString(line + "\n")
		if strings.HasPrefix(line, "interface ") {
			b.WriteString("   description gpu link\n")
		}
	}
	b.WriteString("!\nvlan 1000\n   name storage\n!\ninterface Ethernet33\n   mtu 1500\n   switchport access vlan 1000\n!\ninterface Management1\n   ip address 192.0.2.12/24\n!\nend\n")
	return b.String()
}

func running(t *testing.T, desired *devcfg.Config, text string) *drivers.Running {
	t.Helper()
	parsed, err := Parse([]byte(text))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return drivers.NewRunning(parsed, devcfg.Platform{Normalise: Normalise}, desired.Owned)
}

func TestCompliantDeviceShowsNoDiff(t *testing.T) {
	desired := render(t, basicSwitch(t))
	text := deviceText(t, desired)
	if strings.Contains(text, "weight 0") {
		t.Fatal("device text should hide weight 0")
	}
	run := running(t, desired, text)
	if changes := devcfg.Diff(desired, run.Owned, testSyntax, nil); len(changes) != 0 {
		t.Fatalf("a compliant device shows %d changes, first %+v", len(changes), changes[0])
	}
	if c := devcfg.Conflicts(run.Config, desired.Singletons); len(c) != 0 {
		t.Fatalf("conflicts on a compliant device: %v", c)
	}
}

func TestRealChangesShow(t *testing.T) {
	for _, tc := range []struct {
		name   string
		edit   func(string) string
		action devcfg.Action
		where  string
	}{
		{"weight other than 0", func(s string) string {
			return strings.Replace(s, "max-mark-probability 100\n", "max-mark-probability 100 weight 5\n", 1)
		}, devcfg.Modify, `uc-tx-queue 3 > random-detect ecn $`},
		{"DSCP 24 moved into the lossless class", func(s string) string {
			return strings.Replace(s, "qos map dscp 0 1 2 3 4 5 6 7 to traffic-class 0\nqos map dscp 24 ", "qos map dscp 0 1 2 3 4 5 6 7 to traffic-class 0\nqos map dscp 24 to traffic-class 3\nqos map dscp ", 1)
		}, devcfg.Modify, `^qos map dscp 24 to traffic-class $`},
		{"service profile missing", func(s string) string {
			return strings.Replace(s, "interface Ethernet9\n   description gpu link\n   mtu 9214\n   switchport mode trunk\n   switchport trunk allowed vlan 100\n   service-profile ROCEFAB_LOSSLESS\n",
				"interface Ethernet9\n   description gpu link\n   mtu 9214\n   switchport mode trunk\n   switchport trunk allowed vlan 100\n", 1)
		}, devcfg.Add, `^interface Ethernet9 > service-profile ROCEFAB_LOSSLESS$`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			desired := render(t, basicSwitch(t))
			text := deviceText(t, desired)
			edited := tc.edit(text)
			if edited == text {
				t.Fatal("the edit did not apply to the device text")
			}
			changes := devcfg.Diff(desired, running(t, desired, edited).Owned, testSyntax, nil)
			if len(changes) != 1 {
				t.Fatalf("want exactly one change, got %d: %+v", len(changes), changes)
			}
			c := changes[0]
			if c.Action != tc.action || !regexp.MustCompile(tc.where).MatchString(c.Where()) {
				t.Fatalf("change = %s %q, want %s matching %q", c.Action, c.Where(), tc.action, tc.where)
			}
		})
	}
}

// TestTrunkMembership: rocefab owns the lossless VLAN's membership of a
// RoCE trunk's allowed list, never the list. Other VLANs are never drift
// and never removed; a missing lossless VLAN is one `add`; a membership
// rocefab drops is one `remove`; no patch ever sets, clears or resets the
// list.
func TestTrunkMembership(t *testing.T) {
	const port = "interface Ethernet9"
	rendered := "interface Ethernet9\n   description gpu link\n   mtu 9214\n   switchport mode trunk\n   switchport trunk allowed vlan 100\n"
	withList := func(lines string) func(string) string {
		return func(s string) string {
			return strings.Replace(s, rendered, "interface Ethernet9\n   description gpu link\n   mtu 9214\n"+lines+"   switchport mode trunk\n", 1)
		}
	}
	asAccess := func(sw *intent.Switch) {
		sw.Ports = slices.Clone(sw.Ports)
		for i := range sw.Ports {
			if sw.Ports[i].Name == "Ethernet9" {
				sw.Ports[i].Mode = "access"
			}
		}
	}
	for _, tc := range []struct {
		name   string
		intent func(*intent.Switch) // nil: examples/basic
		device func(string) string
		patch  []string // the allowed-VLAN commands pushed to the port
	}{
		{"VLANs 10 and 200 besides the lossless one", nil, withList("   switchport trunk allowed vlan 10,100,200\n"), nil},
		{"VLANs 10 and 200, lossless missing", nil, withList("   switchport trunk allowed vlan 10,200\n"),
			[]string{"switchport trunk allowed vlan add 100"}},
		{"no allowed-vlan line: every VLAN allowed", nil, withList(""), nil},
		{"every VLAN but the lossless one", nil, withList("   switchport trunk allowed vlan 1-99,101-4094\n"),
			[]string{"switchport trunk allowed vlan add 100"}},
		{"no VLAN allowed", nil, withList("   switchport trunk allowed vlan none\n"),
			[]string{"switchport trunk allowed vlan add 100"}},
		{"port stops being a trunk: its membership goes, VLANs 10 and 200 stay", asAccess,
			withList("   switchport trunk allowed vlan 10,100,200\n"),
			[]string{"switchport trunk allowed vlan remove 100"}},
		// `add 100` changed nothing on a list of every VLAN: it stays so.
		{"port that allowed every VLAN stops being a trunk", asAccess, withList(""), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sw := basicSwitch(t)
			if tc.intent != nil {
				tc.intent(sw)
			}
			desired := render(t, sw)
			text := deviceText(t, render(t, basicSwitch(t)))
			edited := tc.device(text)
			if edited == text {
				t.Fatal("the edit did not apply to the device text")
			}
			changes := devcfg.Diff(desired, running(t, desired, edited).Owned, testSyntax, nil)
			var vlanChanges []devcfg.Change
			for _, c := range changes {
				if strings.HasPrefix(c.Path, iosstyle.TrunkVLANs.Prefix) {
					vlanChanges = append(vlanChanges, c)
				} else if tc.intent == nil {
					t.Errorf("unrelated change: %s %s", c.Action, c.Where())
				}
			}
			var got []string
			for _, l := range devcfg.BuildPatch(vlanChanges, testSyntax).Lines {
				if l != port && l != "exit" {
					got = append(got, l)
				}
			}
			if !slices.Equal(got, tc.patch) {
				t.Fatalf("allowed-VLAN commands = %q, want %q (changes %+v)", got, tc.patch, vlanChanges)
			}
			for _, l := range devcfg.BuildPatch(changes, testSyntax).Lines {
				if listReset.MatchString(l) {
					t.Errorf("the patch sets or resets the whole list: %q", l)
				}
			}
		})
	}
}

// listReset matches every allowed-VLAN command but add and remove of one
// member: they replace, clear or reset the list.
var listReset = regexp.MustCompile(`^(no )?switchport trunk allowed vlan($| (none|all|except|[0-9]))`)

// TestLosslessVLANChange: a new lossless VLAN is one `add` on each trunk;
// the old membership goes with `remove` only while the scope still owns it
// (from the new intent alone, VLAN 100 could be another team's). A port
// that allows every VLAN gets neither.
func TestLosslessVLANChange(t *testing.T) {
	before := render(t, basicSwitch(t))
	sw := basicSwitch(t)
	sw.Policy.VLAN = 101
	after := render(t, sw)
	// Every port carries VLANs 10 and 200 too, but Ethernet9 allows every VLAN.
	const allVLANs = "Ethernet9"
	text := strings.ReplaceAll(deviceText(t, before), "   switchport trunk allowed vlan 100\n", "   switchport trunk allowed vlan 10,100,200\n")
	block := "interface Ethernet9\n   description gpu link\n   mtu 9214\n   switchport mode trunk\n"
	if !strings.Contains(text, block+"   switchport trunk allowed vlan 10,100,200\n") {
		t.Fatal("the device text has no allowed list on " + allVLANs)
	}
	text = strings.Replace(text, block+"   switchport trunk allowed vlan 10,100,200\n", block, 1)
	for _, tc := range []struct {
		name  string
		scope devcfg.Scope
		want  []string
	}{
		{"scope of the new intent", after.Owned, []string{"switchport trunk allowed vlan add 101"}},
		{"scope that still owns VLAN 100", func() devcfg.Scope { s := after.Owned.Clone(); s.Merge(before.Owned); return s }(),
			[]string{"switchport trunk allowed vlan add 101", "switchport trunk allowed vlan remove 100"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			desired := after.Clone()
			desired.Owned = tc.scope
			changes := devcfg.Diff(desired, running(t, desired, text).Owned, testSyntax, nil)
			perPort := map[string][]string{}
			ctx := ""
			for _, l := range devcfg.BuildPatch(changes, testSyntax).Lines {
				switch {
				case listReset.MatchString(l):
					t.Fatalf("the patch sets or resets a whole list: %q", l)
				case strings.HasPrefix(l, "interface "):
					ctx = l
				case strings.HasPrefix(l, iosstyle.TrunkVLANs.Prefix):
					perPort[ctx] = append(perPort[ctx], l)
				}
			}
			if _, touched := perPort["interface "+allVLANs]; touched || len(perPort) != len(sw.Ports)-1 {
				t.Fatalf("%d ports got allowed-VLAN commands, want all %d but %s, which allows every VLAN: %v", len(perPort), len(sw.Ports)-1, allVLANs, perPort)
			}
			for port, got := range perPort {
				if !slices.Equal(got, tc.want) {
					t.Errorf("%s: %q, want %q", port, got, tc.want)
				}
			}
		})
	}
}

func TestForeignMapOfRoCEDSCPIsAConflict(t *testing.T) {
	desired := render(t, basicSwitch(t))
	parsed, err := Parse([]byte("qos map dscp 10 26 to traffic-class 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	c := devcfg.Conflicts(parsed, desired.Singletons)
	if len(c) != 1 || c[0].Held != "qos map dscp 26 to traffic-class 1" || c[0].Want != "qos map dscp 26 to traffic-class 3" {
		t.Fatalf("conflicts = %v", c)
	}
}

// TestMultiDSCPMapWithDropPrecedence: a foreign grouped map line with a
// drop-precedence suffix (AVD's qos.cfg renders such lines) is split per
// DSCP, so DSCP 26 there is a conflict, the other DSCPs are remapped one by
// one, and no patch removes the foreign line after adding the new ones.
func TestMultiDSCPMapWithDropPrecedence(t *testing.T) {
	desired := render(t, basicSwitch(t))
	const foreign = "qos map dscp 18 26 to traffic-class 4 drop-precedence 2"
	text := strings.Replace(deviceText(t, desired), "qos map dscp 26 to traffic-class 3\n", "", 1)
	text = strings.Replace(text, "qos map dscp 16 17 18 19 ", "qos map dscp 16 17 19 ", 1)
	text = strings.Replace(text, "hostname leaf-eos\n", "hostname leaf-eos\n"+foreign+"\n", 1)
	if !strings.Contains(text, foreign) || strings.Contains(text, " 26 to traffic-class 3") || strings.Contains(text, " 18 19 ") {
		t.Fatal("the edit did not apply to the device text")
	}
	run := running(t, desired, text)
	c := devcfg.Conflicts(run.Config, desired.Singletons)
	if len(c) != 1 || c[0].Held != "qos map dscp 26 to traffic-class 4 drop-precedence 2" {
		t.Fatalf("conflicts = %v", c)
	}
	changes := devcfg.Diff(desired, run.Owned, testSyntax, nil)
	patch := devcfg.BuildPatch(changes, testSyntax).Lines
	want := []string{"qos map dscp 18 to traffic-class 2", "qos map dscp 26 to traffic-class 3"}
	if !slices.Equal(patch, want) {
		t.Fatalf("patch = %q, want %q", patch, want)
	}
}

// TestPortModeIsOwned: EOS ports are switched until `no switchport` (the
// AVD ethernet-interfaces template renders it for routed ports). On the
// ports rocefab lists the mode is its own: `no switchport` on a port the
// intent wants switched is removed with `switchport`, and a routed port
// without it gets it.
func TestPortModeIsOwned(t *testing.T) {
	const port = "interface Ethernet9"
	asRouted := func(sw *intent.Switch) {
		for i := range sw.Ports {
			if sw.Ports[i].Name == "Ethernet9" {
				sw.Ports[i].Mode = "routed"
			}
		}
	}
	for _, tc := range []struct {
		name   string
		intent func(*intent.Switch)
		device func(string) string
		patch  []string
	}{
		{"trunk intent, routed port", nil, func(s string) string {
			return strings.Replace(s, port+"\n   description gpu link\n", port+"\n   description gpu link\n   no switchport\n", 1)
		}, []string{port, "switchport", "exit"}},
		{"routed intent, switched port", asRouted, func(s string) string { return s },
			[]string{port, "no switchport", "switchport trunk allowed vlan remove 100", "no switchport mode trunk", "exit"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sw := basicSwitch(t)
			if tc.intent != nil {
				tc.intent(sw)
			}
			desired := render(t, sw)
			text := tc.device(deviceText(t, render(t, basicSwitch(t))))
			changes := devcfg.Diff(desired, running(t, desired, text).Owned, testSyntax, nil)
			if got := devcfg.BuildPatch(changes, testSyntax).Lines; !slices.Equal(got, tc.patch) {
				t.Fatalf("patch = %q, want %q", got, tc.patch)
			}
		})
	}
}

// TestRunningConfigAllShowsNoDefaults: `show running-config all` prints
// the switchport defaults (`switchport`, `switchport mode access`,
// `switchport access vlan 1`); a compliant device read that way plans no
// change, so the default access VLAN is never removed.
func TestRunningConfigAllShowsNoDefaults(t *testing.T) {
	desired := render(t, basicSwitch(t))
	text := strings.ReplaceAll(deviceText(t, desired), "   description gpu link\n",
		"   description gpu link\n   switchport\n   switchport access vlan 1\n   switchport trunk native vlan 1\n")
	text = strings.Replace(text, "interface Ethernet33\n   mtu 1500\n", "interface Ethernet33\n   mtu 1500\n   switchport mode access\n", 1)
	if changes := devcfg.Diff(desired, running(t, desired, text).Owned, testSyntax, nil); len(changes) != 0 {
		t.Fatalf("a compliant device read with `all` shows %d changes, first %+v", len(changes), changes[0])
	}
}

func TestSplitMapLine(t *testing.T) {
	for in, want := range map[string][]string{
		"qos map dscp 24 25 to traffic-class 0": {"qos map dscp 24 to traffic-class 0", "qos map dscp 25 to traffic-class 0"},
		"qos map cos 3 to traffic-class 3":      {"qos map cos 3 to traffic-class 3"},
		"qos map traffic-class 3 to dscp 26":    {"qos map traffic-class 3 to dscp 26"},
		"qos map dscp x to traffic-class 0":     {"qos map dscp x to traffic-class 0"},
		// AVD molecule qos.cfg: several DSCPs, then a drop precedence.
		"qos map dscp 18 26 to traffic-class 4 drop-precedence 2": {"qos map dscp 18 to traffic-class 4 drop-precedence 2", "qos map dscp 26 to traffic-class 4 drop-precedence 2"},
	} {
		if got := splitMapLine(in); strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("splitMapLine(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzParse: Parse never panics, and what it parses prints and parses
// back to the same tree.
func FuzzParse(f *testing.F) {
	// Real device output from the shared corpus, read at fuzz time.
	corpus.Seed(f, "eos")
	goldens, _ := filepath.Glob("testdata/*/*.cfg")
	for _, g := range goldens {
		if b, err := os.ReadFile(g); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("! Command: show running-config\nqos map dscp 0 1 2 to traffic-class 0\nvlan 10,20-22\n   name x\n!\nend\n"))
	f.Add([]byte("qos profile A\n   uc-tx-queue " + strconv.Itoa(3) + "\n      random-detect ecn minimum-threshold 1 kbytes maximum-threshold 2 kbytes\n"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		cfg, err := Parse(raw)
		if err != nil {
			return
		}
		_ = Normalise(cfg)
		text := cfg.Tree.Text(3)
		again, err := Parse([]byte(text))
		if err != nil {
			t.Fatalf("re-parse of printed tree: %v\n%s", err, text)
		}
		if got := again.Tree.Text(3); got != text {
			t.Fatalf("print → parse is not stable:\n%q\n%q", text, got)
		}
	})
}
