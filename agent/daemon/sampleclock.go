package daemon

import "time"

// sampleClock stamps one device's counter notifications on the agent's
// clock at the moment the device says it sampled them. Rates need the
// interval the device measured: notifications that queue up on a busy
// agent arrive bunched, and stamping them on arrival turns one interval's
// increase into a burst. The device's clock is only trusted for spacing:
// its offset from the agent is the smallest one seen (the least-delayed
// notification), so a stamp is never later than its arrival, and a jump
// of the device's clock (or a stall longer than maxLag) starts afresh.
type sampleClock struct {
	maxLag time.Duration
	offset time.Duration
	set    bool
	last   time.Time
}

func (c *sampleClock) at(device, arrival time.Time) time.Time {
	if device.IsZero() {
		return c.monotonic(arrival)
	}
	off := arrival.Sub(device)
	if !c.set || off < c.offset || off-c.offset > c.maxLag {
		c.offset, c.set = off, true
	}
	return c.monotonic(device.Add(c.offset))
}

// monotonic keeps a device's stamps in order: the detectors take a stamp
// that does not move as "nothing new".
func (c *sampleClock) monotonic(t time.Time) time.Time {
	if t.Before(c.last) {
		t = c.last
	}
	c.last = t
	return t
}

// batchTime is a notification's sampling time: the newest counter stamp.
// A target that sends no timestamp (0, the epoch) gives the zero time, so
// the arrival stamps it.
func batchTime(ts []time.Time) time.Time {
	var newest time.Time
	for _, t := range ts {
		if t.UnixNano() > 0 && t.After(newest) {
			newest = t
		}
	}
	return newest
}
