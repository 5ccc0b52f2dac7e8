package junos

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/internal/corpus"
)

// deviceText dresses rendered statements the way `show configuration |
// display set` prints them: `set version` first, hierarchy order rather
// than sorted, leaf-lists in brackets, foreign statements, and an
// inactive foreign statement.
func deviceText(t *testing.T, cfg *devcfg.Config) string {
	t.Helper()
	raw, err := Encode(cfg)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
	var fill, prob []string
	var kept []string
	for _, l := range lines {
		if v, ok := strings.CutPrefix(l, "set class-of-service drop-profiles ROCEFAB_ECN interpolate fill-level "); ok {
			fill = append(fill, v)
			continue
		}
		if v, ok := strings.CutPrefix(l, "set class-of-service drop-profiles ROCEFAB_ECN interpolate drop-probability "); ok {
			prob = append(prob, v)
			continue
		}
		kept = append(kept, l)
	}
	sort.Sort(sort.Reverse(sort.StringSlice(kept)))
	var b strings.Builder
	b.WriteString("set version 23.4R1\nset system host-name leaf-junos\nset system services ssh\n")
	b.WriteString("set interfaces et-0/0/31 description \"uplink to spine\"\n")
	for _, l := range kept {
		b.WriteString(l + "\n")
	}
	b.WriteString("set class-of-service drop-profiles ROCEFAB_ECN interpolate fill-level [ " + strings.Join(fill, " ") + " ]\n")
	b.WriteString("set class-of-service drop-profiles ROCEFAB_ECN interpolate drop-probability [ " + strings.Join(prob, " ") + " ]\n")
	b.WriteString("set class-of-service classifiers dscp STORAGE forwarding-class best-effort loss-priority low code-points 000000\n")
	b.WriteString("set vlans STORAGE vlan-id 1000\ndeactivate vlans STORAGE\n")
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
	run := running(t, desired, deviceText(t, desired))
	if changes := devcfg.Diff(desired, run.Owned, devcfg.Syntax{}, nil); len(changes) != 0 {
		t.Fatalf("a compliant device shows %d changes, first %+v", len(changes), changes[0])
	}
	// A deactivated foreign statement stays in the model, marked; it is
	// not rocefab's, so it is no conflict either.
	if _, ok := run.Config.Paths["vlans STORAGE vlan-id"]; !ok || run.Config.Paths["deactivate vlans STORAGE"] == "" {
		t.Errorf("the deactivated foreign VLAN is not kept with its marker: %v", run.Config.Paths.Keys())
	}
	if c := devcfg.Conflicts(run.Config, desired.Singletons); len(c) != 0 {
		t.Errorf("conflicts on a compliant device: %v", c)
	}
	// description is not a value keyword: the quoted text, one word, stays in the path.
	if _, ok := run.Config.Paths[`interfaces et-0/0/31 description "uplink to spine"`]; !ok {
		t.Errorf("quoted description lost: %v", run.Config.Paths.Keys())
	}
}

func TestRealChangesShow(t *testing.T) {
	for _, tc := range []struct {
		name   string
		edit   func(string) string
		action devcfg.Action
		path   string
	}{
		{"fill level", func(s string) string {
			return strings.Replace(s, "fill-level [ 1 10 ]", "fill-level [ 1 20 ]", 1)
		}, devcfg.Add, `fill-level 10$`},
		{"queue lost no-loss", func(s string) string {
			return strings.Replace(s, "queue-num 3 no-loss", "queue-num 3", 1)
		}, devcfg.Modify, `^class-of-service forwarding-classes class ROCEFAB_NO_LOSS queue-num$`},
		{"port MTU", func(s string) string {
			return strings.Replace(s, "set interfaces et-0/0/7 mtu 9216", "set interfaces et-0/0/7 mtu 1514", 1)
		}, devcfg.Modify, `^interfaces et-0/0/7 mtu$`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			desired := render(t, basicSwitch(t))
			text := deviceText(t, desired)
			edited := tc.edit(text)
			if edited == text {
				t.Fatal("the edit did not apply")
			}
			changes := devcfg.Diff(desired, running(t, desired, edited).Owned, devcfg.Syntax{}, nil)
			found := false
			for _, c := range changes {
				if c.Action == tc.action && regexp.MustCompile(tc.path).MatchString(c.Path) {
					found = true
				}
			}
			if !found || len(changes) > 2 {
				t.Fatalf("want a %s of %q among at most 2 changes, got %+v", tc.action, tc.path, changes)
			}
		})
	}
}

// TestDeactivatedNodeIsAConflict: a `deactivate` on a rendered statement
// or on a node above it (the blog config in the shared corpus deactivates
// whole `class-of-service interfaces X` stanzas) leaves rocefab's
// statements configured but not running. The plan says which node is
// inactive (a conflict, so apply refuses) and plans no change: the same
// `set` lines pushed again would stay inactive.
func TestDeactivatedNodeIsAConflict(t *testing.T) {
	desired := render(t, basicSwitch(t))
	for _, node := range []string{
		"class-of-service interfaces et-0/0/3",
		"class-of-service interfaces et-0/0/3 congestion-notification-profile",
		"class-of-service",
		"interfaces et-0/0/7 mtu",
		"class-of-service schedulers ROCEFAB_NO_LOSS",
	} {
		t.Run(node, func(t *testing.T) {
			run := running(t, desired, deviceText(t, desired)+"deactivate "+node+"\n")
			if changes := devcfg.Diff(desired, run.Owned, devcfg.Syntax{}, nil); len(changes) != 0 {
				t.Errorf("changes planned under an inactive node: %+v", changes)
			}
			c := devcfg.Conflicts(run.Config, desired.Singletons)
			if len(c) != 1 || c[0].Held != "deactivate "+node || !strings.Contains(c[0].String(), "deactivated") {
				t.Fatalf("conflicts = %v, want one naming %q", c, node)
			}
		})
	}
	// Deactivating an unrelated port or statement is no conflict.
	run := running(t, desired, deviceText(t, desired)+"deactivate interfaces et-0/0/40\ndeactivate class-of-service interfaces et-0/0/3 unit 0 rewrite-rules\n")
	if c := devcfg.Conflicts(run.Config, desired.Singletons); len(c) != 0 {
		t.Errorf("conflicts for foreign deactivations: %v", c)
	}
}

// TestSetMembersKeepTheirOwnPath: statements whose last word is one member
// of a set never collapse into one path (Batfish's Junos CoS grammar test
// config has `host-outbound-traffic ieee-802.1 rewrite-rules` and
// `... override-firewall`), also where a value keyword appears outside
// the context that makes it single-valued; and a value keyword that shows
// two values in one listing is taken as a set.
func TestSetMembersKeepTheirOwnPath(t *testing.T) {
	cfg, err := Parse([]byte(`set class-of-service host-outbound-traffic ieee-802.1 rewrite-rules
set class-of-service host-outbound-traffic ieee-802.1 override-firewall
set class-of-service congestion-notification-profile A
set class-of-service congestion-notification-profile B
set class-of-service interfaces ae1 unit 0 classifiers dscp DSCP-BA
set class-of-service interfaces ae1 unit 0 classifiers ieee-802.1 IEEE-BA
set protocols lldp interface mtu xe-0/0/1
set protocols lldp interface mtu xe-0/0/2
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"class-of-service host-outbound-traffic ieee-802.1 rewrite-rules",
		"class-of-service host-outbound-traffic ieee-802.1 override-firewall",
		"class-of-service congestion-notification-profile A",
		"class-of-service congestion-notification-profile B",
		"protocols lldp interface mtu xe-0/0/1",
		"protocols lldp interface mtu xe-0/0/2",
	} {
		if cfg.Paths[want] != devcfg.Empty {
			t.Errorf("%q is not its own path: %v", want, cfg.Paths.Keys())
		}
	}
	if got := cfg.Paths["class-of-service interfaces ae1 unit 0 classifiers dscp"]; got != devcfg.String("DSCP-BA") {
		t.Errorf("an interface unit's dscp classifier is single-valued, got %s", got)
	}
	if len(cfg.Paths) != 8 {
		t.Errorf("8 statements became %d paths: %v", len(cfg.Paths), cfg.Paths.Keys())
	}
}

func TestParseErrorsNameTheLine(t *testing.T) {
	_, err := Parse([]byte("set version 1\nset interfaces \"unterminated\n"))
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("err = %v", err)
	}
}

// FuzzParse: Parse never panics, and what it parses prints and parses
// back to the same model.
func FuzzParse(f *testing.F) {
	// Real device output from the shared corpus, read at fuzz time.
	corpus.Seed(f, "junos")
	goldens, _ := filepath.Glob("testdata/*/*.set")
	for _, g := range goldens {
		if b, err := os.ReadFile(g); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("set version 23.4R1\nset a b fill-level [ 1 10 ]\ndeactivate a\nset x \"quoted word\" mtu 9\n"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		cfg, err := Parse(raw)
		if err != nil {
			return
		}
		_ = Normalise(cfg)
		text, _ := Encode(cfg)
		again, err := Parse(text)
		if err != nil {
			t.Fatalf("re-parse of printed statements: %v\n%s", err, text)
		}
		if got, want := again.Paths.Text(), cfg.Paths.Text(); got != want {
			t.Fatalf("print → parse is not stable:\n%s\n%s", want, got)
		}
	})
}

// TestOtherVLANsOnARoCEPortAreNotDrift: rocefab owns the lossless VLAN's
// membership of a trunk, never the port's other VLANs.
func TestOtherVLANsOnARoCEPortAreNotDrift(t *testing.T) {
	desired := render(t, basicSwitch(t))
	text := deviceText(t, desired) + "set interfaces et-0/0/0 unit 0 family ethernet-switching vlan members STORAGE\n"
	if changes := devcfg.Diff(desired, running(t, desired, text).Owned, devcfg.Syntax{}, nil); len(changes) != 0 {
		t.Fatalf("another VLAN on a RoCE port shows as drift: %+v", changes)
	}
	missing := strings.Replace(deviceText(t, desired),
		"set interfaces et-0/0/0 unit 0 family ethernet-switching vlan members ROCEFAB_LOSSLESS\n", "", 1)
	changes := devcfg.Diff(desired, running(t, desired, missing).Owned, devcfg.Syntax{}, nil)
	if len(changes) != 1 || changes[0].Action != devcfg.Add || !strings.HasSuffix(changes[0].Path, "vlan members ROCEFAB_LOSSLESS") {
		t.Fatalf("a missing membership should be one add, got %+v", changes)
	}
}
