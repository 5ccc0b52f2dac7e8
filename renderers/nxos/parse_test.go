package nxos

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/internal/corpus"
	"github.com/rocefab/rocefab/renderers/iosstyle"
)

// deviceText dresses rendered text the way NX-OS shows it: headers,
// `version`/`hostname`, a VLAN summary line, `no shutdown` and foreign
// lines under interfaces, no `switchport` line (switches whose ports
// default to layer 2), the allowed-VLAN list that `add 100` leaves on a
// port that allowed no VLAN before ("switchport trunk allowed vlan 100"),
// and other configuration around rocefab's.
func deviceText(t *testing.T, cfg *devcfg.Config) string {
	t.Helper()
	raw, err := Encode(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("!Command: show running-config\n!Running configuration last done at: Mon Nov 30 10:00:00 2026\n!Time: Mon Nov 30 10:05:00 2026\n\n")
	b.WriteString("version 10.3(4a) Bios:version 05.47\nhostname leaf-nxos\n\nfeature lldp\n\n")
	b.WriteString("vlan 1,100,1000\nvlan 100\n  name RDMA\n\n")
	for _, line := range strings.Split(strings.TrimRight(string(raw), "\n"), "\n") {
		switch {
		case line == "vlan 100", line == "  switchport":
			continue
		case strings.HasPrefix(line, "  "+iosstyle.TrunkVLANs.Member):
			line = "  " + iosstyle.TrunkVLANs.Prefix + strings.TrimPrefix(line, "  "+iosstyle.TrunkVLANs.Member)
		case strings.HasPrefix(line, "interface "):
			b.WriteString("\n" + line + "\n  description gpu link\n  no shutdown\n")
			continue
		}
		b.WriteString(line + "\n")
	}
	b.WriteString("\ninterface Ethernet1/33\n  switchport mode trunk\n  switchport trunk allowed vlan 1000\n  mtu 1500\n  no shutdown\n")
	b.WriteString("\ninterface mgmt0\n  vrf member management\n  ip address 192.0.2.11/24\n")
	return b.String()
}

func running(t *testing.T, desired *devcfg.Config, text string) *drivers.Running {
	t.Helper()
	parsed, err := Parse([]byte(text))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	pf := devcfg.Platform{Normalise: Normalise}
	return drivers.NewRunning(parsed, pf, desired.Owned)
}

func TestCompliantDeviceShowsNoDiff(t *testing.T) {
	desired := render(t, basicSwitch(t))
	run := running(t, desired, deviceText(t, desired))
	if changes := devcfg.Diff(desired, run.Owned, syntax, nil); len(changes) != 0 {
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
		where  string // regexp over the change's location
	}{
		{"ECN threshold", func(s string) string {
			return strings.Replace(s, "minimum-threshold 150 kbytes", "minimum-threshold 200 kbytes", 1)
		}, devcfg.Modify, `c-out-8q-q3 > random-detect `},
		{"PFC off on one port", func(s string) string {
			return strings.Replace(s, "interface Ethernet1/5\n  description gpu link\n  no shutdown\n  switchport mode trunk\n  switchport trunk allowed vlan 100\n  mtu 9216\n  service-policy type qos input ROCEFAB_QOS\n  priority-flow-control mode on\n",
				"interface Ethernet1/5\n  description gpu link\n  no shutdown\n  switchport mode trunk\n  switchport trunk allowed vlan 100\n  mtu 9216\n  service-policy type qos input ROCEFAB_QOS\n", 1)
		}, devcfg.Add, `^interface Ethernet1/5 > priority-flow-control mode on$`},
		{"lossless VLAN missing on a RoCE trunk that carries others", func(s string) string {
			return strings.Replace(s, "interface Ethernet1/7\n  description gpu link\n  no shutdown\n  switchport mode trunk\n  switchport trunk allowed vlan 100\n",
				"interface Ethernet1/7\n  description gpu link\n  no shutdown\n  switchport mode trunk\n  switchport trunk allowed vlan 10,200\n", 1)
		}, devcfg.Add, `^interface Ethernet1/7 > switchport trunk allowed vlan add 100$`},
		{"MTU on one port", func(s string) string {
			return strings.Replace(s, "interface Ethernet1/2\n  description gpu link\n  no shutdown\n  switchport mode trunk\n  switchport trunk allowed vlan 100\n  mtu 9216\n",
				"interface Ethernet1/2\n  description gpu link\n  no shutdown\n  switchport mode trunk\n  switchport trunk allowed vlan 100\n  mtu 1500\n", 1)
		}, devcfg.Modify, `^interface Ethernet1/2 > mtu $`},
		{"lossless VLAN deleted", func(s string) string {
			return strings.Replace(strings.Replace(s, "vlan 1,100,1000\n", "vlan 1,1000\n", 1), "vlan 100\n  name RDMA\n", "", 1)
		}, devcfg.Add, `^vlan 100$`},
		{"stray line in a ROCEFAB class", func(s string) string {
			return strings.Replace(s, "  match dscp 26\n", "  match dscp 26\n  match dscp 10\n", 1)
		}, devcfg.Remove, `^class-map type qos match-any ROCEFAB_ROCE > match dscp 10$`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			desired := render(t, basicSwitch(t))
			text := deviceText(t, desired)
			edited := tc.edit(text)
			if edited == text {
				t.Fatal("the edit did not apply to the device text")
			}
			changes := devcfg.Diff(desired, running(t, desired, edited).Owned, syntax, nil)
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
// list ("switchport trunk allowed vlan 10", "... none", "no switchport
// trunk allowed vlan").
func TestTrunkMembership(t *testing.T) {
	const port = "interface Ethernet1/7"
	rendered := "interface Ethernet1/7\n  description gpu link\n  no shutdown\n  switchport mode trunk\n  switchport trunk allowed vlan 100\n"
	withList := func(lines string) func(string) string {
		return func(s string) string {
			return strings.Replace(s, rendered, "interface Ethernet1/7\n  description gpu link\n  no shutdown\n  switchport mode trunk\n"+lines, 1)
		}
	}
	asAccess := func(sw *intent.Switch) {
		sw.Ports = slices.Clone(sw.Ports)
		for i := range sw.Ports {
			if sw.Ports[i].Name == "Ethernet1/7" {
				sw.Ports[i].Mode = "access"
			}
		}
	}
	for _, tc := range []struct {
		name   string
		intent func(*intent.Switch) // nil: examples/basic
		device func(string) string
		// patch is the allowed-VLAN commands pushed to the port, in order.
		patch []string
	}{
		{"VLANs 10 and 200 besides the lossless one", nil, withList("  switchport trunk allowed vlan 10,100,200\n"), nil},
		{"VLANs 10 and 200, lossless missing", nil, withList("  switchport trunk allowed vlan 10,200\n"),
			[]string{"switchport trunk allowed vlan add 100"}},
		{"no allowed-vlan line: every VLAN allowed", nil, withList(""), nil},
		{"long list continued on add lines", nil,
			withList("  switchport trunk allowed vlan 10,200-210\n  switchport trunk allowed vlan add 100,3000\n"), nil},
		{"every VLAN but the lossless one", nil, withList("  switchport trunk allowed vlan 1-99,101-4094\n"),
			[]string{"switchport trunk allowed vlan add 100"}},
		{"no VLAN allowed", nil, withList("  switchport trunk allowed vlan none\n"),
			[]string{"switchport trunk allowed vlan add 100"}},
		{"port stops being a trunk: its membership goes, VLANs 10 and 200 stay", asAccess,
			withList("  switchport trunk allowed vlan 10,100,200\n"),
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
			changes := devcfg.Diff(desired, running(t, desired, edited).Owned, syntax, nil)
			var vlanChanges []devcfg.Change
			for _, c := range changes {
				if strings.HasPrefix(c.Path, iosstyle.TrunkVLANs.Prefix) {
					vlanChanges = append(vlanChanges, c)
				} else if tc.intent == nil {
					t.Errorf("unrelated change: %s %s", c.Action, c.Where())
				}
			}
			patch := devcfg.BuildPatch(vlanChanges, syntax)
			var got []string
			for _, l := range patch.Lines {
				if l != port && l != "exit" {
					got = append(got, l)
				}
			}
			if !slices.Equal(got, tc.patch) {
				t.Fatalf("allowed-VLAN commands = %q, want %q (changes %+v)", got, tc.patch, vlanChanges)
			}
			for _, l := range devcfg.BuildPatch(changes, syntax).Lines {
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

// TestLosslessVLANChange: a new lossless VLAN is one `add` on each trunk.
// The old membership is removed with `remove` when the scope still owns it
// (an engine that keeps the scope it last applied would pass it); scoped
// from the new intent alone, rocefab cannot tell VLAN 100 was its own and
// leaves it, rather than strip a VLAN another team may use. A port that
// allows every VLAN gets neither: it holds 101 already, and 100 is the
// device default there, not rocefab's to remove.
func TestLosslessVLANChange(t *testing.T) {
	before := render(t, basicSwitch(t))
	sw := basicSwitch(t)
	sw.Policy.VLAN = 101
	after := render(t, sw)
	// Every port carries VLANs 10 and 200 too, but Ethernet1/9 allows every VLAN.
	const allVLANs = "Ethernet1/9"
	text := strings.ReplaceAll(deviceText(t, before), "  switchport trunk allowed vlan 100\n", "  switchport trunk allowed vlan 10,100,200\n")
	block := "interface Ethernet1/9\n  description gpu link\n  no shutdown\n  switchport mode trunk\n"
	if !strings.Contains(text, block+"  switchport trunk allowed vlan 10,100,200\n") {
		t.Fatal("the device text has no allowed list on " + allVLANs)
	}
	text = strings.Replace(text, block+"  switchport trunk allowed vlan 10,100,200\n", block, 1)
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
			changes := devcfg.Diff(desired, running(t, desired, text).Owned, syntax, nil)
			perPort := map[string][]string{}
			for _, l := range linesByContext(devcfg.BuildPatch(changes, syntax).Lines) {
				if listReset.MatchString(l[1]) {
					t.Fatalf("the patch sets or resets a whole list: %q", l[1])
				}
				if strings.HasPrefix(l[1], iosstyle.TrunkVLANs.Prefix) {
					perPort[l[0]] = append(perPort[l[0]], l[1])
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

// linesByContext pairs each patch line with the context it runs in.
func linesByContext(lines []string) [][2]string {
	var out [][2]string
	ctx := ""
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "interface "):
			ctx = l
		case l == "exit":
			ctx = ""
		default:
			out = append(out, [2]string{ctx, l})
		}
	}
	return out
}

func TestForeignSystemQoSIsAConflict(t *testing.T) {
	desired := render(t, basicSwitch(t))
	text := strings.Replace(deviceText(t, desired), "  service-policy type network-qos ROCEFAB_NQ\n", "  service-policy type network-qos STORAGE_NQ\n", 1)
	run := running(t, desired, text)
	c := devcfg.Conflicts(run.Config, desired.Singletons)
	if len(c) != 1 || c[0].Held != "service-policy type network-qos STORAGE_NQ" {
		t.Fatalf("conflicts = %v", c)
	}
}

// TestWrappedLineIsAnError: a running config read through a narrow
// terminal continues a long allowed-VLAN list at column 0 (the Nexus 3000
// transcript in the shared corpus wraps VLAN 1812 as "...,18" and
// "12,1882,..."). Parsed as is, it is a VLAN 18 plus a stray line; Parse
// says which line was wrapped instead.
func TestWrappedLineIsAnError(t *testing.T) {
	long := "  switchport trunk allowed vlan 370-373,381-385,462,470-473,556,901-905,960-964,1011,1016,1081,1091,1102-1103,1178,1331,1388,1408,1608,1731,18"
	_, err := Parse([]byte("interface port-channel6\n  switchport mode trunk\n" + long + "\n12,1882,1987,2094\n  spanning-tree guard root\n"))
	if !errors.Is(err, ErrWrapped) || !strings.Contains(err.Error(), "line 4") || !strings.Contains(err.Error(), "continues line 3") || !strings.Contains(err.Error(), "142-column") {
		t.Fatalf("err = %v", err)
	}
	// Banner text is free text, never a wrap.
	if _, err := Parse([]byte("banner motd #\n2024 maintenance window\n#\nhostname n1\n")); err != nil {
		t.Errorf("a banner starting with a digit: %v", err)
	}
	// The same list on one line parses to VLAN 1812, and no line is stray.
	cfg, err := Parse([]byte("interface port-channel6\n  switchport mode trunk\n" + long + "12,1882,1987,2094\n  spanning-tree guard root\n"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Tree.Find([]string{"interface port-channel6", "switchport trunk allowed vlan add 1812"}) == nil || len(cfg.Tree.Nodes) != 1 {
		t.Fatalf("unwrapped list:\n%s", cfg.Text())
	}
}

func TestParseExpandsVLANLists(t *testing.T) {
	cfg, err := Parse([]byte("vlan 1,10-12\nvlan 11\n  name storage\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := "vlan 1\nvlan 10\nvlan 11\n  name storage\nvlan 12\n"
	if got := cfg.Tree.Text(2); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// FuzzParse: Parse never panics, and what it parses prints and parses
// back to the same tree (Normalise must not panic either).
func FuzzParse(f *testing.F) {
	// Real device output from the shared corpus, read at fuzz time.
	corpus.Seed(f, "nxos")
	goldens, _ := filepath.Glob("testdata/*/*.cfg")
	for _, g := range goldens {
		if b, err := os.ReadFile(g); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("!Command: show running-config\nversion 10.3\nvlan 1,100-102\ninterface Ethernet1/1\n  switchport mode trunk\n  no shutdown\n"))
	f.Add([]byte("  indented first\n"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		cfg, err := Parse(raw)
		if err != nil {
			return
		}
		_ = Normalise(cfg)
		text := cfg.Tree.Text(2)
		again, err := Parse([]byte(text))
		if err != nil {
			t.Fatalf("re-parse of printed tree: %v\n%s", err, text)
		}
		if got := again.Tree.Text(2); got != text {
			t.Fatalf("print → parse is not stable:\n%q\n%q", text, got)
		}
	})
}

// BenchmarkParseFilterWideTrunks: the worst case of the per-VLAN model, 64
// trunks that allow every VLAN but one (what `remove` leaves on a list of
// every VLAN), parsed, filtered to rocefab's scope and normalised.
func BenchmarkParseFilterWideTrunks(b *testing.B) {
	sw := basicSwitch(b)
	desired, err := New().Render(sw)
	if err != nil {
		b.Fatal(err)
	}
	var text strings.Builder
	for i := 1; i <= 64; i++ {
		text.WriteString("interface Ethernet1/" + strconv.Itoa(i) + "\n  switchport\n  switchport mode trunk\n  switchport trunk allowed vlan 1-99,101-4094\n  mtu 9216\n")
	}
	raw := []byte(text.String())
	pf := devcfg.Platform{Normalise: Normalise}
	b.ReportAllocs()
	for b.Loop() {
		parsed, err := Parse(raw)
		if err != nil {
			b.Fatal(err)
		}
		_ = drivers.NewRunning(parsed, pf, desired.Owned)
	}
}
