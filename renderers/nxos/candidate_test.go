package nxos

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/internal/corpus"
	"github.com/rocefab/rocefab/internal/golden"
)

// planFor is what a push carries: the changes that make raw match the
// intent, as the engine computes them.
func planFor(t testing.TB, desired *devcfg.Config, raw string) []devcfg.Change {
	t.Helper()
	parsed, err := Parse([]byte(raw))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	run := drivers.NewRunning(parsed, devcfg.Platform{Normalise: Normalise}, desired.Owned)
	return devcfg.Diff(desired, run.Owned, syntax, nil)
}

// printedLines are the lines of a running configuration as NX-OS printed
// them, with their parents: what a candidate must keep unless changed.
func printedLines(t testing.TB, raw string) []string {
	t.Helper()
	tree, err := devcfg.ParseIndented(raw, "!")
	if err != nil {
		t.Fatal(err)
	}
	return flatLines(tree)
}

// checkCandidate: the candidate makes the device compliant, and every line
// the device printed outside rocefab's changes is still there.
func checkCandidate(t *testing.T, desired *devcfg.Config, raw, cand string) {
	t.Helper()
	if left := planFor(t, desired, cand); len(left) > 0 {
		t.Errorf("the candidate still differs from the intent: %d change(s), first %s %s", len(left), left[0].Action.Symbol(), left[0].Where())
	}
	owned := func(line string) bool {
		parents := strings.Split(line, " > ")
		return desired.Owned.OwnsLine(parents[:len(parents)-1], parents[len(parents)-1]) ||
			strings.Contains(line, "switchport trunk allowed vlan") || strings.HasPrefix(line, "vlan ")
	}
	kept := printedLines(t, cand)
	for _, l := range printedLines(t, raw) {
		if !owned(l) && !slices.Contains(kept, l) {
			t.Errorf("the candidate lost a line rocefab does not own: %q", l)
		}
	}
}

// TestCandidate: the golden running configuration (foreign QoS, a foreign
// VLAN, an old MTU, a narrowed trunk, a management port) becomes the file
// configure replace takes, golden too.
func TestCandidate(t *testing.T) {
	desired := render(t, basicSwitch(t))
	raw, err := os.ReadFile(filepath.Join("testdata", "candidate", "running.cfg"))
	if err != nil {
		t.Fatal(err)
	}
	changes := planFor(t, desired, string(raw))
	if len(changes) == 0 {
		t.Fatal("the golden running configuration needs no change: the test proves nothing")
	}
	cand, err := Candidate(string(raw), changes)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "candidate", "replaced.cfg"), []byte(cand))
	checkCandidate(t, desired, string(raw), cand)
	for _, want := range []string{"vlan 1,10,100,200\n", "interface mgmt0\n  vrf member management\n", "  switchport trunk allowed vlan 10,100,200\n", "policy-map type qos FOREIGN-MARKING\n"} {
		if !strings.Contains(cand, want) {
			t.Errorf("the candidate lacks %q", want)
		}
	}
}

// TestCandidateRefuses: a running configuration the model does not write
// back exactly, or a change that does not fit the device, gives no
// candidate (the push types its lines instead), never a wrong file.
func TestCandidateRefuses(t *testing.T) {
	base := "hostname n1\ninterface Ethernet1/1\n  switchport mode trunk\n  switchport trunk allowed vlan 10\n"
	add := []devcfg.Change{{Action: devcfg.Add, Parents: []string{"interface Ethernet1/1"}, Path: "mtu 9216", New: "mtu 9216"}}
	tests := []struct {
		name    string
		raw     string
		changes []devcfg.Change
	}{
		{"no changes", base, nil},
		{"a long list continued on add lines", base + "  switchport trunk allowed vlan add 20\n", add},
		{"every VLAN written out", "interface Ethernet1/1\n  switchport mode trunk\n  switchport trunk allowed vlan 1-4094\n", add},
		{"a wrapped line", "interface Ethernet1/1\n  switchport trunk allowed vlan 10,2\n0\n", add},
		{"removing a line the device lacks", base, []devcfg.Change{{Action: devcfg.Remove, Parents: []string{"interface Ethernet1/1"}, Path: "mtu 9216", Old: "mtu 9216"}}},
		{"modifying a line the device lacks", base, []devcfg.Change{{Action: devcfg.Modify, Parents: []string{"interface Ethernet1/1"}, Path: "mtu ", Old: "mtu 1500", New: "mtu 9216"}}},
		{"removing under a context the device lacks", base, []devcfg.Change{{Action: devcfg.Remove, Parents: []string{"interface Ethernet1/9"}, Path: "mtu 9216", Old: "mtu 9216"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if cand, err := Candidate(tt.raw, tt.changes); !errors.Is(err, ErrNoCandidate) {
				t.Fatalf("err = %v, candidate:\n%s", err, cand)
			}
		})
	}
	// The same base with a change that fits does give one.
	if _, err := Candidate(base, add); err != nil {
		t.Fatalf("a fitting change: %v", err)
	}
}

// TestCandidateTrunkLists: the allowed-VLAN list is written as NX-OS
// prints it after the typed equivalent; removing the last VLAN leaves an
// empty list, never no list (which would allow every VLAN).
func TestCandidateTrunkLists(t *testing.T) {
	iface := []string{"interface Ethernet1/1"}
	member := func(a devcfg.Action, vlan string) devcfg.Change {
		line := "switchport trunk allowed vlan add " + vlan
		c := devcfg.Change{Action: a, Parents: iface, Path: line}
		if a == devcfg.Remove {
			c.Old = line
		} else {
			c.New = line
		}
		return c
	}
	tests := []struct {
		name, list string
		changes    []devcfg.Change
		want       string
	}{
		{"add to a list", "  switchport trunk allowed vlan 10\n", []devcfg.Change{member(devcfg.Add, "100")}, "  switchport trunk allowed vlan 10,100\n"},
		{"add a neighbour", "  switchport trunk allowed vlan 99,101\n", []devcfg.Change{member(devcfg.Add, "100")}, "  switchport trunk allowed vlan 99-101\n"},
		{"remove one of two", "  switchport trunk allowed vlan 10,100\n", []devcfg.Change{member(devcfg.Remove, "100")}, "  switchport trunk allowed vlan 10\n"},
		{"remove the last", "  switchport trunk allowed vlan 100\n", []devcfg.Change{member(devcfg.Remove, "100")}, "  switchport trunk allowed vlan none\n"},
		{"add to none", "  switchport trunk allowed vlan none\n", []devcfg.Change{member(devcfg.Add, "100")}, "  switchport trunk allowed vlan 100\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := "interface Ethernet1/1\n  switchport mode trunk\n" + tt.list + "  mtu 9216\n"
			cand, err := Candidate(raw, tt.changes)
			if err != nil {
				t.Fatal(err)
			}
			if want := "interface Ethernet1/1\n  switchport mode trunk\n" + tt.want + "  mtu 9216\n"; cand != want {
				t.Fatalf("got\n%s\nwant\n%s", cand, want)
			}
		})
	}
}

// TestCandidateOnRealConfigs: on every NX-OS configuration of the shared
// corpus, with rocefab's intent applied, a candidate is either refused or
// makes the device compliant while keeping every line it does not own.
func TestCandidateOnRealConfigs(t *testing.T) {
	desired := render(t, basicSwitch(t))
	built := 0
	for _, it := range corpus.Items(t) {
		if it.Kind != "nxos" {
			continue
		}
		t.Run(it.Name, func(t *testing.T) {
			raw, err := os.ReadFile(it.Path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Parse(raw); err != nil {
				// Unreadable (a wrapped transcript): no candidate either.
				if _, cerr := Candidate(string(raw), []devcfg.Change{{Action: devcfg.Add, Path: "mtu 9216", New: "mtu 9216"}}); !errors.Is(cerr, ErrNoCandidate) {
					t.Fatalf("parse fails (%v), yet Candidate: %v", err, cerr)
				}
				return
			}
			cand, err := Candidate(string(raw), planFor(t, desired, string(raw)))
			if errors.Is(err, ErrNoCandidate) {
				t.Logf("refused, the push types its lines: %v", err)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			built++
			checkCandidate(t, desired, string(raw), cand)
		})
	}
	if built == 0 {
		t.Error("no corpus configuration gave a candidate: the check above proved nothing")
	}
}

// FuzzCandidate: Candidate never panics, and a candidate it builds reads
// back and leaves no difference to the intent.
func FuzzCandidate(f *testing.F) {
	corpus.Seed(f, "nxos")
	if b, err := os.ReadFile(filepath.Join("testdata", "candidate", "running.cfg")); err == nil {
		f.Add(b)
	}
	f.Add([]byte("vlan 1,10\nvlan 10\n  name a\ninterface Ethernet1/1\n  switchport mode trunk\n  switchport trunk allowed vlan 10\n"))
	desired, err := New().Render(basicSwitch(f))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		parsed, err := Parse(raw)
		if err != nil {
			return
		}
		run := drivers.NewRunning(parsed, devcfg.Platform{Normalise: Normalise}, desired.Owned)
		changes := devcfg.Diff(desired, run.Owned, syntax, nil)
		cand, err := Candidate(string(raw), changes)
		if err != nil {
			return
		}
		if left := planFor(t, desired, cand); len(left) > 0 {
			t.Fatalf("candidate still differs: %+v\n%s", left[0], cand)
		}
	})
}

// BenchmarkCandidate builds the replace file of the golden running
// configuration (32 ports) and of one with 576 ports.
func BenchmarkCandidate(b *testing.B) {
	desired, err := New().Render(basicSwitch(b))
	if err != nil {
		b.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join("testdata", "candidate", "running.cfg"))
	if err != nil {
		b.Fatal(err)
	}
	var wide strings.Builder
	wide.Write(raw)
	for i := 33; i <= 576; i++ {
		wide.WriteString("interface Ethernet1/" + strconv.Itoa(i) + "\n  switchport mode trunk\n  switchport trunk allowed vlan 10,200\n  no shutdown\n")
	}
	for _, in := range []struct {
		name string
		raw  string
	}{{"32-ports", string(raw)}, {"576-ports", wide.String()}} {
		b.Run(in.name, func(b *testing.B) {
			changes := planFor(b, desired, in.raw)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Candidate(in.raw, changes); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
