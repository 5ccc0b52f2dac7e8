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
