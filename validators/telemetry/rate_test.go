package telemetry

import (
	"math"
	"testing"
	"time"
)

func TestDiff(t *testing.T) {
	const s10 = 10 * time.Second
	line100G := 100e9 / minFrameBits // 148.8 Mpps
	tests := []struct {
		name       string
		prev, cur  uint64
		elapsed    time.Duration
		w          Width
		maxRate    float64
		wantChange Change
		wantDelta  uint64
	}{
		{"steady growth", 1_000, 1_600, s10, Width64, line100G, Advanced, 600},
		{"no change", 42, 42, s10, Width64, line100G, Advanced, 0},
		{"64-bit clear counters", 9_876_543, 120, s10, Width64, line100G, Reset, 120},
		{"64-bit reset to exactly zero", 5, 0, s10, Width64, line100G, Reset, 0},
		{"64-bit wrap near the top", math.MaxUint64 - 99, 400, s10, Width64, line100G, Wrapped, 500},
		{"64-bit wrap without a ceiling", math.MaxUint64 - 9, 10, s10, Width64, 0, Wrapped, 20},
		{"64-bit reset without a ceiling", 1 << 40, 7, s10, Width64, 0, Reset, 7},
		// 148.8 Mpps for 10 s is 1.49e9 packets, a third of a 32-bit turn.
		{"32-bit wrap at 100G", math.MaxUint32 - 1_000_000, 2_000_000, s10, Width32, line100G, Wrapped, 3_000_001},
		{"32-bit decrease too far for a wrap is a reset", 2_000_000_000, 5_000, s10, Width32, line100G, Reset, 5_000},
		{"32-bit decrease within a turn's reach is a wrap", 3_000_000_000, 5_000, s10, Width32, line100G, Wrapped, 1<<32 - 3_000_000_000 + 5_000},
		{"32-bit pause frames wrap", math.MaxUint32 - 10, 20, s10, Width32, maxFramesPerSecond, Wrapped, 31},
		{"32-bit pause frames reset from mid-range", 2_000_000, 20, s10, Width32, maxFramesPerSecond, Reset, 20},
		{"32-bit pause time wraps after 71 minutes at full pause", math.MaxUint32 - 4_000_000, 5_000_000, s10, Width32, maxMicrosPerSecond, Wrapped, 9_000_001},
		{"32-bit wrap without a ceiling: upper half", 3_500_000_000, 100, s10, Width32, 0, Wrapped, 1<<32 - 3_500_000_000 + 100},
		{"32-bit reset without a ceiling: lower half", 1_000_000_000, 100, s10, Width32, 0, Reset, 100},
		{"32-bit counter that can turn over within the interval", 10, 20, s10, Width32, 800e9 / minFrameBits, Ambiguous, 0},
		{"32-bit declared but the value is wider: read as 64-bit", 1 << 33, 1<<33 + 5, s10, Width32, line100G, Advanced, 5},
		{"32-bit declared, wider value went back: a 64-bit reset", 1 << 33, 9, s10, Width32, line100G, Reset, 9},
		{"jump faster than the line rate", 0, 1 << 40, s10, Width64, line100G, Implausible, 0},
		{"pause time longer than the interval", 0, 11_000_000, s10, Width64, maxMicrosPerSecond, Implausible, 0},
		{"pause time equal to the interval", 0, 10_000_000, s10, Width64, maxMicrosPerSecond, Advanced, 10_000_000},
		{"time did not advance", 1, 2, 0, Width64, line100G, Stale, 0},
		{"time went back", 1, 2, -time.Second, Width64, line100G, Stale, 0},
		{"long gap, 64-bit: delta still exact", 1_000, 1_000_000, time.Hour, Width64, line100G, Advanced, 999_000},
		{"long gap, 32-bit at line rate: ambiguous", 1_000, 1_000_000, time.Hour, Width32, line100G, Ambiguous, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Diff(tc.prev, tc.cur, tc.elapsed, tc.w, tc.maxRate)
			if got.Change != tc.wantChange || got.Delta != tc.wantDelta {
				t.Fatalf("Diff(%d, %d, %v, %d, %g) = %s %d, want %s %d",
					tc.prev, tc.cur, tc.elapsed, tc.w, tc.maxRate, got.Change, got.Delta, tc.wantChange, tc.wantDelta)
			}
			if got.Valid() != (tc.wantChange <= Reset) {
				t.Errorf("Valid() = %v for %s", got.Valid(), got.Change)
			}
			r, ok := got.Rate()
			if ok != got.Valid() || (ok && r != float64(tc.wantDelta)/tc.elapsed.Seconds()) {
				t.Errorf("Rate() = %g, %v", r, ok)
			}
		})
	}
}

// TestCounterSequence follows one counter through a day of events: a
// restart of the agent (no state: no rate), growth, a 32-bit wrap, a gap,
// a clear, a repeated sample and a clock step.
func TestCounterSequence(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	type sample struct {
		after      time.Duration
		v          uint64
		wantChange Change
		wantRate   float64 // per second; ignored when the step has none
	}
	seq := []sample{
		{0, math.MaxUint32 - 25_000, Baseline, 0},
		{10 * time.Second, math.MaxUint32 - 15_000, Advanced, 1_000},
		{20 * time.Second, 4_999, Wrapped, 2_000},        // 15,000 + 1 + 4,999 over 10 s
		{20 * time.Second, 4_999, Stale, 0},              // the same read twice
		{5 * time.Minute, 284_999, Advanced, 1_000},      // a gap: the average over it
		{5*time.Minute + 10*time.Second, 300, Reset, 30}, // clear counters
		{5*time.Minute + 5*time.Second, 200, Stale, 0},   // clock stepped back: new baseline
		{5*time.Minute + 15*time.Second, 10_200, Advanced, 1_000},
	}
	var c Counter
	for i, s := range seq {
		got := c.Next(s.v, t0.Add(s.after), Width32, maxFramesPerSecond)
		if got.Change != s.wantChange {
			t.Fatalf("sample %d: change %s, want %s", i, got.Change, s.wantChange)
		}
		r, ok := got.Rate()
		if ok && r != s.wantRate {
			t.Errorf("sample %d: rate %g, want %g", i, r, s.wantRate)
		}
		if !ok && s.wantChange <= Reset {
			t.Errorf("sample %d: no rate", i)
		}
	}
}

func TestCounterAfterRestartWithState(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	var before Counter
	before.Next(1_000, t0, Width64, 1e9)
	saved := before // what the agent persisted

	// A restarted agent without state gives no rate for the first sample.
	var fresh Counter
	if s := fresh.Next(2_000, t0.Add(10*time.Second), Width64, 1e9); s.Change != Baseline {
		t.Errorf("fresh counter: %s, want baseline", s.Change)
	}
	// With the saved state the first sample continues the series.
	restored := saved
	if s := restored.Next(2_000, t0.Add(10*time.Second), Width64, 1e9); s.Change != Advanced || s.Delta != 1_000 {
		t.Errorf("restored counter: %s %d, want advanced 1000", s.Change, s.Delta)
	}
}
