package intent

import (
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// TestUnsafeNames: every hostile name is refused where it is written, with
// RF016, the field path and the name escaped in the message; the names
// real fabrics use are accepted.
func TestUnsafeNames(t *testing.T) {
	// sw is a switch document with name and ports written as given (YAML
	// double-quoted, so escapes reach the loader as the characters).
	sw := func(name, ports string) string {
		return docHead + "spec:\n  switches:\n    - name: " + strconv.Quote(name) + "\n      ports: [{names: " + strconv.Quote(ports) + "}]\n"
	}
	host := func(name, netdev string) string {
		return docHead + "spec:\n  hosts:\n    - name: " + strconv.Quote(name) + "\n      nics: [{netdev: " + strconv.Quote(netdev) + "}]\n"
	}
	for _, tc := range []struct {
		name, doc string
		field     string // "" when the intent is safe
		why       string
	}{
		{"path traversal", sw("../../../ESCAPED-render", "Ethernet1"), "spec.switches[0].name", `"../../../ESCAPED-render" contains the path separator '/'`},
		{"empty", sw("", "Ethernet1"), "spec.switches[0].name", "is empty"},
		{"dot", sw(".", "Ethernet1"), "spec.switches[0].name", `is or holds "."`},
		{"dot dot", sw("..", "Ethernet1"), "spec.switches[0].name", `is or holds ".."`},
		{"hidden file", sw(".leaf1", "Ethernet1"), "spec.switches[0].name", `starts with '.'`},
		{"backslash", sw(`..\leaf1`, "Ethernet1"), "spec.switches[0].name", `contains the path separator '\\'`},
		{"absolute", sw("/etc/passwd", "Ethernet1"), "spec.switches[0].name", "path separator"},
		{"bell", sw("leaf\a1", "Ethernet1"), "spec.switches[0].name", "U+0007"},
		{"terminal escape", sw("leaf\x1b[31m1", "Ethernet1"), "spec.switches[0].name", "U+001B"},
		{"newline", sw("leaf1\nleaf2", "Ethernet1"), "spec.switches[0].name", "U+000A"},
		{"bidi override", sw("leaf\u202e1fael", "Ethernet1"), "spec.switches[0].name", "bidirectional control character U+202E"},
		{"bidi isolate", sw("leaf\u20661", "Ethernet1"), "spec.switches[0].name", "bidirectional control character U+2066"},
		{"zero width space", sw("leaf\u200b1", "Ethernet1"), "spec.switches[0].name", "invisible character U+200B"},
		{"space", sw("leaf 1", "Ethernet1"), "spec.switches[0].name", "contains a space"},
		{"flag-like", sw("-rf", "Ethernet1"), "spec.switches[0].name", `starts with '-'`},
		{"non-ASCII look-alike", sw("lеaf1", "Ethernet1"), "spec.switches[0].name", "U+0435"}, // Cyrillic e
		{"colon splits link ends", sw("leaf:1", "Ethernet1"), "spec.switches[0].name", `contains ':'`},
		{"too long", sw(strings.Repeat("a", MaxNameLength+1), "Ethernet1"), "spec.switches[0].name", "more than 128"},
		{"port traversal", sw("leaf1", "Ethernet1/../x"), "spec.switches[0].ports[0].names", `".."`},
		{"port empty part", sw("leaf1", "Ethernet1//1"), "spec.switches[0].ports[0].names", "empty part"},
		{"port trailing slash", sw("leaf1", "Ethernet1/"), "spec.switches[0].ports[0].names", "empty part"},
		{"port bidi", sw("leaf1", "Ethernet\u202e1"), "spec.switches[0].ports[0].names", "U+202E"},
		{"port from a range", sw("leaf1", "Eth\u00e91-4"), "spec.switches[0].ports[0].names", "U+00E9"},
		{"netdev traversal", host("h1", "../../sys"), "spec.hosts[0].nics[0].netdev", "path separator"},
		{"netdev too long", host("h1", "ens1f0np0abcdefg"), "spec.hosts[0].nics[0].netdev", "more than 15"},
		{"host control", host("h1\x00", "eth0"), "spec.hosts[0].name", "U+0000"},

		{"fabric names", sw("leaf1.pod-3_dc1", "Ethernet1/1-4,et-0/0/0:1,swp1s0,Port-Channel10"), "", ""},
		{"nic names", host("gpu01", "ens1f0np0"), "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := LoadBytes("f.yaml", []byte(tc.doc))
			var got []Diagnostic
			for _, d := range diags {
				if d.Code == CodeUnsafeName {
					got = append(got, d)
				}
			}
			if tc.field == "" {
				if len(got) > 0 {
					t.Fatalf("a safe name refused: %v", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("want one RF016 at %s, got %v (all: %v)", tc.field, got, diagStrings(diags))
			}
			d := got[0]
			if d.Field != tc.field || d.Line == 0 || d.Col == 0 || d.File != "f.yaml" || !strings.Contains(d.Message, tc.why) {
				t.Fatalf("diagnostic %s: want field %s, a position and %q", d, tc.field, tc.why)
			}
			// The message is safe to print: no control, bidi or invisible
			// character reaches the terminal.
			for _, c := range d.String() {
				if c > unicode.MaxASCII || (unicode.IsControl(c) && c != '\n') {
					t.Fatalf("the message carries %U: %q", c, d.String())
				}
			}
		})
	}
}

// TestUnsafeGroupAndNamespace: groups and namespaces (a path under
// /run/netns) follow the device rule.
func TestUnsafeGroupAndNamespace(t *testing.T) {
	doc := docHead + "spec:\n  groups:\n    - {name: \"a/b\", netns: ../../x}\n  hosts:\n    - {name: h1, netns: \"..\"}\n"
	_, diags := LoadBytes("f.yaml", []byte(doc))
	want := map[string]bool{"spec.groups[0].name": true, "spec.groups[0].netns": true, "spec.hosts[0].netns": true}
	for _, d := range diags {
		if d.Code == CodeUnsafeName {
			delete(want, d.Field)
		}
	}
	if len(want) > 0 {
		t.Fatalf("not refused: %v (diagnostics %v)", want, diagStrings(diags))
	}
}
