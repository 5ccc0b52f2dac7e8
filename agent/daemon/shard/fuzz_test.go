package shard

import (
	"errors"
	"testing"
)

// FuzzParse: Parse never panics, accepts only 0 <= i < N, and its String
// reads back to the same shard.
func FuzzParse(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		spec, err := Parse(s)
		if err != nil {
			if !errors.Is(err, ErrSpec) {
				t.Fatalf("Parse(%q): error %v does not wrap ErrSpec", s, err)
			}
			return
		}
		if spec.Count < 1 || spec.Index < 0 || spec.Index >= spec.Count {
			t.Fatalf("Parse(%q) = %+v", s, spec)
		}
		back, err := Parse(spec.String())
		if err != nil || back != spec {
			t.Fatalf("Parse(%q) = %+v, but its String %q reads back as %+v, %v", s, spec, spec.String(), back, err)
		}
	})
}
