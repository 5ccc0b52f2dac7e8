package gnmisim

import (
	"math"
	"testing"
	"time"
)

// TestCounterKnobs: a rate adds its growth from the moment it is set, a
// new rate goes on from where the old one left the counter, and
// SetCounter puts the counter at a value (a clear, or near the top of
// its 64 bits so it wraps) with ticks and rates going on from there.
func TestCounterKnobs(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	c := counters{opt: CounterOptions{Tick: 10 * time.Millisecond, PerTick: PerTick{PFCRx: 2}}, start: t0,
		base: map[counterKey]uint64{}, rates: map[counterKey]rate{}}
	k := counterKey{"Ethernet1", 3, PFCRxMicros}
	c.setRate(k, 600_000, at(0))
	for _, tc := range []struct {
		ms   int
		do   func()
		want uint64
	}{
		{500, nil, 300_000},
		{500, func() { c.setRate(k, 100_000, at(500)) }, 300_000},
		{1500, nil, 400_000},
		{1500, func() { c.set(k, 0, at(1500)) }, 0},
		{2000, nil, 50_000},
		{2000, func() { c.set(k, math.MaxUint64-9, at(2000)) }, math.MaxUint64 - 9},
		{2001, nil, 90}, // 100 µs later: wrapped past 2^64
		{2001, func() { c.setRate(k, 0, at(2001)) }, 90},
		{9000, nil, 90}, // stopped
	} {
		if tc.do != nil {
			tc.do()
		}
		if got := c.value(k, at(tc.ms)); got != tc.want {
			t.Fatalf("at %d ms: %d, want %d", tc.ms, got, tc.want)
		}
	}
	tick := counterKey{"Ethernet1", 3, PFCRx}
	if got := c.value(tick, at(1000)); got != 200 {
		t.Fatalf("ticks: %d, want 200", got)
	}
	c.set(tick, 0, at(1000)) // cleared: ticks go on from 0
	if got := c.value(tick, at(1100)); got != 20 {
		t.Fatalf("ticks after a clear: %d, want 20", got)
	}
}
