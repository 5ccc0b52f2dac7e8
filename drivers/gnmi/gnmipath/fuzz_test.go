package gnmipath

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rocefab/rocefab/devcfg"
)

// FuzzParse: a parsed path formats to a canonical string that parses back
// to the same canonical string.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"/", "/a/b[k=v]/c", "sonic-db:/BUFFER_PG/Ethernet0|3/profile", `/x[k=a\]b][j=1]/y\/z`, "cli:/interface Ethernet1/pfc on", "openconfig:/qos"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse(s)
		if err != nil {
			return
		}
		c := Format(p)
		p2, err := Parse(c)
		if err != nil {
			t.Fatalf("Parse(Format(Parse(%q))) = %q: %v", s, c, err)
		}
		if c2 := Format(p2); c2 != c {
			t.Fatalf("not canonical: %q -> %q -> %q", s, c, c2)
		}
	})
}

// FuzzFlatten: flattening never panics, every produced path parses, and
// building the leaves back and flattening again gives the same leaves.
func FuzzFlatten(f *testing.F) {
	seeds := []struct{ base, js string }{
		{"/", `{"openconfig-interfaces:interfaces":{"interface":[{"name":"E1","config":{"mtu":9216}}]}}`},
		{"/qos/queues/queue", `[{"name":"Q3","config":{"queue-id":3}}]`},
		{"sonic-db:/", `{"PORT":{"Ethernet0":{"mtu":"9216","lanes":["1","2"]}}}`},
		{"/a[k=1]", `{"k":1,"b":{"c":[{"d":{}}]}}`},
		{"/", `{"a":[{"x":1.5,"y":true,"z":{"w":null}}]}`},
	}
	for _, s := range seeds {
		f.Add(s.base, s.js)
	}
	f.Fuzz(func(t *testing.T, base, js string) {
		bp, err := Parse(base)
		if err != nil {
			return
		}
		got := devcfg.Paths{}
		if err := Flatten(bp, []byte(js), got); err != nil {
			return
		}
		root := Format(bp)
		var leaves []Leaf
		for p, v := range got {
			pp, err := Parse(p)
			if err != nil {
				t.Fatalf("flattened path %q does not parse: %v", p, err)
			}
			if !Under(p, root) {
				t.Fatalf("flattened path %q not under base %q", p, root)
			}
			leaves = append(leaves, Leaf{Elems: pp.GetElem(), Value: v})
		}
		if !IsOpenConfig(bp.GetOrigin()) || len(leaves) == 0 {
			return
		}
		raw, err := Build(leaves, nil)
		if err != nil {
			return // leaves that clash (a leaf above another) cannot nest
		}
		again := devcfg.Paths{}
		if err := Flatten(MustParse("/"), raw, again); err != nil {
			t.Fatalf("Flatten(Build) failed: %v\n%s", err, raw)
		}
		if d := cmp.Diff(got, again); d != "" {
			t.Fatalf("flatten∘build not idempotent (-first +second):\n%s\njson: %s", d, raw)
		}
	})
}

// FuzzNumericLeaves: reading a counter subtree never panics, and every
// counter path it returns parses back to itself under base.
func FuzzNumericLeaves(f *testing.F) {
	f.Add("/COUNTERS/Ethernet0/Pfcwd", `{"Ethernet0:3":{"PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED":"2","PFC_WD_STATUS":"operational"}}`)
	f.Add("/COUNTERS/Ethernet0/Queues", `{"Ethernet0:0":{},"Ethernet0:3":{"SAI_QUEUE_STAT_PACKETS":"18446744073709551615"}}`)
	f.Add("/a", `{"b/c":{"d[e]":1},"x":-1,"y":1.5}`)
	f.Fuzz(func(t *testing.T, base, js string) {
		bp, err := Parse(base)
		if err != nil {
			return
		}
		root := Format(bp)
		for p := range NumericLeaves(bp, []byte(js)) {
			pp, err := Parse(p)
			if err != nil {
				t.Fatalf("counter path %q does not parse: %v", p, err)
			}
			if Format(pp) != p || !Under(p, root) {
				t.Fatalf("counter path %q is not canonical or not under %q", p, root)
			}
		}
	})
}
