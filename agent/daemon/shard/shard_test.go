package shard

import (
	"errors"
	"fmt"
	"math"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Spec
		err  bool
	}{
		{"", All, false},
		{"0/1", Spec{0, 1}, false},
		{"2/3", Spec{2, 3}, false},
		{" 1/4 ", Spec{1, 4}, false},
		{"rocefab-agent-2/3", Spec{2, 3}, false},
		{"agent-10/16", Spec{10, 16}, false},
		{"3/3", Spec{}, true},
		{"-1/3", Spec{}, true},
		{"1/0", Spec{}, true},
		{"1", Spec{}, true},
		{"agent/3", Spec{}, true},
		{"agent-x/3", Spec{}, true},
		{"a/b", Spec{}, true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := Parse(tc.in)
			if tc.err {
				if !errors.Is(err, ErrSpec) {
					t.Fatalf("Parse(%q) = %v, %v; want an ErrSpec error", tc.in, got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Parse(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
			}
		})
	}
}

func devices(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("leaf-%04d", i)
	}
	return out
}

// TestEveryDeviceHasOneOwner: for each N, exactly one shard owns each
// device, and the shards are roughly balanced.
func TestEveryDeviceHasOneOwner(t *testing.T) {
	devs := devices(6000)
	for _, n := range []int{1, 2, 3, 5, 8} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			per := make([]int, n)
			for _, d := range devs {
				owners := 0
				for i := 0; i < n; i++ {
					if (Spec{Index: i, Count: n}).Owns(d) {
						owners++
						per[i]++
					}
				}
				if owners != 1 {
					t.Fatalf("%s has %d owners among %d shards", d, owners, n)
				}
			}
			want := float64(len(devs)) / float64(n)
			for i, c := range per {
				if math.Abs(float64(c)-want) > 0.1*want {
					t.Errorf("shard %d/%d owns %d devices, want about %.0f", i, n, c, want)
				}
			}
		})
	}
}

// TestResizeMovesOnlyWhatHashesDifferently: growing from N to N+1 shards
// moves devices only onto the new shard, about 1/(N+1) of them; shrinking
// back moves exactly those devices back and nothing else.
func TestResizeMovesOnlyWhatHashesDifferently(t *testing.T) {
	devs := devices(10000)
	for _, n := range []int{1, 2, 4, 7} {
		t.Run(fmt.Sprintf("%d to %d", n, n+1), func(t *testing.T) {
			moved := 0
			for _, d := range devs {
				before, after := Owner(d, n), Owner(d, n+1)
				if before == after {
					continue
				}
				moved++
				if after != n {
					t.Fatalf("%s moved from shard %d to old shard %d; only the new shard %d may gain devices", d, before, after, n)
				}
				// Removing the shard again returns it to where it was.
				if back := Owner(d, n); back != before {
					t.Fatalf("%s: owner %d after shrinking, was %d", d, back, before)
				}
			}
			frac := float64(moved) / float64(len(devs))
			want := 1 / float64(n+1)
			if math.Abs(frac-want) > 0.2*want {
				t.Errorf("moved %.3f of devices, want about %.3f", frac, want)
			}
		})
	}
}

// TestRemovingAMiddleShard: when shard k of N goes away and the others
// keep their identities, only shard k's devices move.
func TestRemovingAMiddleShard(t *testing.T) {
	devs := devices(5000)
	const n, gone = 5, 2
	for _, d := range devs {
		before := Owner(d, n)
		// Highest weight among the surviving shards.
		h := nameHash(d)
		after, best := -1, uint64(0)
		for j := 0; j < n; j++ {
			if j == gone {
				continue
			}
			if w := weight(h, j); after < 0 || w > best {
				after, best = j, w
			}
		}
		if before != gone && after != before {
			t.Fatalf("%s moved from surviving shard %d to %d", d, before, after)
		}
	}
}

func BenchmarkOwns(b *testing.B) {
	devs := devices(1000)
	s := Spec{Index: 3, Count: 16}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.Owns(devs[i%len(devs)])
	}
}
