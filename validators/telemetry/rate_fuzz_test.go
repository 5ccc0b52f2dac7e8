package telemetry

import (
	"math"
	"testing"
	"time"
)

// FuzzDiff checks what every step must satisfy, whatever the values: an
// advance is the plain difference, a wrap lands on the new value modulo
// the width, a reset counts from zero, and no valid step grows faster
// than the ceiling allows.
func FuzzDiff(f *testing.F) {
	f.Add(uint64(1_000), uint64(1_600), int64(10e9), true, 148.8e6)
	f.Add(uint64(math.MaxUint32-1_000_000), uint64(2_000_000), int64(10e9), false, 148.8e6)
	f.Add(uint64(math.MaxUint64-99), uint64(400), int64(10e9), true, 0.0)
	f.Add(uint64(2_000_000), uint64(20), int64(10e9), false, 1e6)
	f.Add(uint64(5), uint64(5), int64(0), true, 1e3)
	f.Add(uint64(1<<33), uint64(9), int64(-1), false, 1e6)
	f.Fuzz(func(t *testing.T, prev, cur uint64, ns int64, wide bool, maxRate float64) {
		if math.IsNaN(maxRate) || math.IsInf(maxRate, 0) {
			return
		}
		w := Width32
		if wide {
			w = Width64
		}
		el := time.Duration(ns)
		s := Diff(prev, cur, el, w, maxRate)
		eff := w
		if prev > math.MaxUint32 || cur > math.MaxUint32 {
			eff = Width64
		}
		if (el <= 0) != (s.Change == Stale) {
			t.Fatalf("elapsed %v gave %s", el, s.Change)
		}
		if !s.Valid() && s.Delta != 0 {
			t.Fatalf("%s with delta %d", s.Change, s.Delta)
		}
		switch s.Change {
		case Advanced:
			if cur < prev || s.Delta != cur-prev {
				t.Fatalf("advanced %d→%d by %d", prev, cur, s.Delta)
			}
		case Wrapped:
			if cur >= prev {
				t.Fatalf("wrapped though %d→%d grew", prev, cur)
			}
			if eff == Width32 && (prev+s.Delta)%(1<<32) != cur {
				t.Fatalf("32-bit wrap %d→%d by %d does not land", prev, cur, s.Delta)
			}
			if eff == Width64 && prev+s.Delta != cur { // uint64 arithmetic wraps by itself
				t.Fatalf("64-bit wrap %d→%d by %d does not land", prev, cur, s.Delta)
			}
		case Reset:
			if cur >= prev || s.Delta != cur {
				t.Fatalf("reset %d→%d by %d", prev, cur, s.Delta)
			}
		case Ambiguous:
			if eff != Width32 || maxRate <= 0 {
				t.Fatalf("ambiguous for a %d-bit counter, ceiling %g", eff, maxRate)
			}
		}
		if s.Valid() && maxRate > 0 && float64(s.Delta) > maxRate*el.Seconds() {
			t.Fatalf("%s by %d over %v exceeds the ceiling %g/s", s.Change, s.Delta, el, maxRate)
		}
		if r, ok := s.Rate(); ok && (r < 0 || math.IsNaN(r)) {
			t.Fatalf("rate %g", r)
		}
	})
}
