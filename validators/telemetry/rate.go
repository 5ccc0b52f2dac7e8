package telemetry

import (
	"math"
	"time"
)

// Width is a counter's size in bits. Most counters today are 64-bit
// (OpenConfig counter64, SAI, mlx5 PPCNT); SNMP Counter32 and some older
// ASIC and NIC registers are 32-bit and wrap within hours at line rate.
type Width uint8

// Counter widths.
const (
	Width64 Width = 64
	Width32 Width = 32
)

// Change says how a counter moved between two samples.
type Change uint8

// Changes. Only Advanced, Wrapped and Reset give a delta.
const (
	// Advanced: the counter grew (or stayed).
	Advanced Change = iota
	// Wrapped: it passed its maximum and started again from zero; the
	// delta counts across the wrap.
	Wrapped
	// Reset: it went back (clear counters, reboot, driver reload); the
	// delta is the value since the reset.
	Reset
	// Baseline: there is no earlier sample (first read, a counter that
	// appeared, an agent restart without saved state).
	Baseline
	// Stale: time did not advance between the samples.
	Stale
	// Ambiguous: a 32-bit counter that may have wrapped more than once in
	// the interval; the delta cannot be known.
	Ambiguous
	// Implausible: it grew faster than the port could count; the sample
	// is taken as a new baseline.
	Implausible
)

var changeNames = [...]string{"advanced", "wrapped", "reset", "baseline", "stale", "ambiguous", "implausible"}

func (c Change) String() string {
	if int(c) < len(changeNames) {
		return changeNames[c]
	}
	return "invalid"
}

// Step is one counter's movement between two samples.
type Step struct {
	Delta   uint64
	Elapsed time.Duration
	Change  Change
}

// Valid reports whether Delta is the counter's increase over Elapsed.
func (s Step) Valid() bool { return s.Change <= Reset }

// Rate is the increase per second, and false when the step has none.
func (s Step) Rate() (float64, bool) {
	if !s.Valid() || s.Elapsed <= 0 {
		return 0, false
	}
	return float64(s.Delta) / s.Elapsed.Seconds(), true
}

// Diff is the movement of a counter of width w from prev to cur over
// elapsed. maxRate is the fastest the counter can grow per second (0: no
// known ceiling).
//
// A decrease is a wrap when the counter could have passed its maximum in
// the interval: the distance over the top, (2^w − prev) + cur, is at most
// maxRate × elapsed (or, without a ceiling, at most half the counter's
// range). Anything else is a reset. A 32-bit counter whose ceiling allows
// a whole turn in the interval is Ambiguous: sample it faster. A value that
// does not fit the declared width is read as 64-bit.
func Diff(prev, cur uint64, elapsed time.Duration, w Width, maxRate float64) Step {
	s := Step{Elapsed: elapsed}
	if elapsed <= 0 {
		s.Change = Stale
		return s
	}
	if w != Width32 || prev > math.MaxUint32 || cur > math.MaxUint32 {
		w = Width64
	}
	limit := math.Inf(1)
	if maxRate > 0 {
		limit = maxRate * elapsed.Seconds()
	}
	if w == Width32 && maxRate > 0 && limit >= 1<<32 {
		s.Change = Ambiguous
		return s
	}
	if cur >= prev {
		s.Delta = cur - prev
		if float64(s.Delta) > limit {
			s.Change, s.Delta = Implausible, 0
		}
		return s
	}
	var over, half uint64 // distance over the top; half the range
	if w == Width32 {
		over, half = (1<<32-prev)+cur, 1<<31
	} else {
		over, half = (math.MaxUint64-prev)+cur+1, 1<<63
	}
	if (maxRate > 0 && float64(over) <= limit) || (maxRate <= 0 && over <= half) {
		s.Change, s.Delta = Wrapped, over
		return s
	}
	s.Change, s.Delta = Reset, cur
	if float64(cur) > limit {
		s.Change, s.Delta = Implausible, 0
	}
	return s
}

// Counter follows one cumulative counter across samples. The zero value
// has no baseline. Its fields are exported so the state survives an agent
// restart.
type Counter struct {
	Last uint64    `json:"last"`
	At   time.Time `json:"at"`
	Seen bool      `json:"seen"`
}

// Next takes a sample and returns the step since the previous one. The
// first sample, and one after an ambiguous or implausible step, is a
// baseline with no rate. A sample older than the baseline re-baselines (a
// stepped clock); a repeat of the same moment is Stale and changes nothing.
func (c *Counter) Next(v uint64, at time.Time, w Width, maxRate float64) Step {
	if !c.Seen {
		*c = Counter{Last: v, At: at, Seen: true}
		return Step{Change: Baseline}
	}
	elapsed := at.Sub(c.At)
	if elapsed <= 0 {
		if elapsed < 0 {
			*c = Counter{Last: v, At: at, Seen: true}
		}
		return Step{Change: Stale, Elapsed: elapsed}
	}
	s := Diff(c.Last, v, elapsed, w, maxRate)
	c.Last, c.At = v, at
	return s
}
