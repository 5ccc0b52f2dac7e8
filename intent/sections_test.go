package intent

import (
	"strings"
	"testing"
)

// TestSectionsResolve: a device's section replaces its group's whole, a
// null one is not written, and the cache key follows the settings, not
// their positions or style.
func TestSectionsResolve(t *testing.T) {
	r := mustResolve(t, lines(
		"apiVersion: rocefab.io/v1alpha1",
		"kind: Fabric",
		"spec:",
		"  groups:",
		"    - {name: g, platform: p, plat: {size: 10MB, level: 1}}",
		"  switches:",
		"    - {name: inherits, group: g}",
		"    - {name: unset, group: g, plat: ~}",
		"    - name: same",
		"      group: g",
		"      plat:",
		"        size: 10MB",
		"        level: 1",
		"    - {name: own, group: g, plat: {level: 2}, other: {x: 1}}",
		"    - {name: loop, group: g, plat: &a {self: [*a]}}",
	))
	sec := func(sw string) string {
		s, ok := r.Switch(sw).Section("plat")
		if !ok {
			return ""
		}
		return s.At.Field
	}
	for sw, want := range map[string]string{"inherits": "spec.groups[0].plat", "unset": "spec.groups[0].plat", "same": "spec.switches[2].plat", "own": "spec.switches[3].plat"} {
		if got := sec(sw); got != want {
			t.Errorf("%s: section at %q, want %q", sw, got, want)
		}
	}
	if got := strings.Join(r.Switch("own").SectionNames(), ","); got != "other,plat" {
		t.Errorf("own sections = %s", got)
	}
	if _, ok := r.Switch("inherits").Section("other"); ok {
		t.Error("a device's section leaked into its group's")
	}
	key := func(sw string) string { return r.Switch(sw).SectionKey() }
	if key("inherits") != key("same") || key("inherits") != key("unset") || key("inherits") == key("own") || key("inherits") == "" {
		t.Errorf("section keys: inherits %q same %q unset %q own %q", key("inherits"), key("same"), key("unset"), key("own"))
	}
	_ = key("loop") // an alias nested in itself ends
}

// TestSectionDecodeRemembers: a section decodes the same value, and the
// same diagnostics, every time (platforms decode theirs on every render,
// so the result is kept), and a caller's copy is its own.
func TestSectionDecodeRemembers(t *testing.T) {
	r := mustResolve(t, lines(
		"apiVersion: rocefab.io/v1alpha1",
		"kind: Fabric",
		"spec:",
		"  switches:",
		"    - {name: s, platform: p, plat: {size: 10MB, level: 1, typo: 2}}",
	))
	type settings struct {
		Src
		Size  *Bytes `yaml:"size"`
		Level int    `yaml:"level"`
	}
	sec, ok := r.Switch("s").Section("plat")
	if !ok {
		t.Fatal("no section")
	}
	var first, second settings
	d1, d2 := sec.Decode(&first), sec.Decode(&second)
	if first.Size == nil || first.Size.N != 10_000_000 || first.Level != 1 || second.Size == nil || second.Size.N != first.Size.N || second.Level != 1 {
		t.Fatalf("decoded %+v then %+v", first, second)
	}
	if len(d1) != 1 || len(d2) != 1 || d1[0].String() != d2[0].String() || !strings.Contains(d1[0].String(), "typo") {
		t.Fatalf("diagnostics %v then %v", d1, d2)
	}
	first.Level = 7
	var third settings
	sec.Decode(&third)
	if third.Level != 1 {
		t.Fatalf("a caller's change reached the kept value: %+v", third)
	}
}
