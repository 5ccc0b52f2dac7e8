package junos

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/renderers/devcfg"
	"github.com/rocefab/rocefab/validators/compliance"
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
	if changes := compliance.Diff(desired, run.Owned, devcfg.Syntax{}, nil); len(changes) != 0 {
		t.Fatalf("a compliant device shows %d changes, first %+v", len(changes), changes[0])
	}
	if _, ok := run.Config.Paths["vlans STORAGE vlan-id"]; ok {
		t.Error("a deactivated statement was kept")
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
		{"PFC profile deactivated on a port", func(s string) string {
			return s + "deactivate class-of-service interfaces et-0/0/3 congestion-notification-profile\n"
		}, devcfg.Add, `^class-of-service interfaces et-0/0/3 congestion-notification-profile$`},
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
			changes := compliance.Diff(desired, running(t, desired, edited).Owned, devcfg.Syntax{}, nil)
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

func TestParseErrorsNameTheLine(t *testing.T) {
	_, err := Parse([]byte("set version 1\nset interfaces \"unterminated\n"))
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("err = %v", err)
	}
}

// FuzzParse: Parse never panics, and what it parses prints and parses
// back to the same model.
func FuzzParse(f *testing.F) {
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
	if changes := compliance.Diff(desired, running(t, desired, text).Owned, devcfg.Syntax{}, nil); len(changes) != 0 {
		t.Fatalf("another VLAN on a RoCE port shows as drift: %+v", changes)
	}
	missing := strings.Replace(deviceText(t, desired),
		"set interfaces et-0/0/0 unit 0 family ethernet-switching vlan members ROCEFAB_LOSSLESS\n", "", 1)
	changes := compliance.Diff(desired, running(t, desired, missing).Owned, devcfg.Syntax{}, nil)
	if len(changes) != 1 || changes[0].Action != devcfg.Add || !strings.HasSuffix(changes[0].Path, "vlan members ROCEFAB_LOSSLESS") {
		t.Fatalf("a missing membership should be one add, got %+v", changes)
	}
}
