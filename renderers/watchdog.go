package renderers

import (
	"fmt"
	"time"
)

// WatchdogTimes is how a platform expresses the PFC watchdog's detection
// and restoration times, as data: the renderer writes them with it and
// lint checks an intent against it.
type WatchdogTimes struct {
	Detection   TimeRange
	Restoration TimeRange
}

// TimeRange is one watchdog time a platform takes. Step is the unit the
// platform counts in (EOS: seconds with at most two decimals, so 10 ms);
// a zero Step means rocefab does not render the time and the platform keeps
// its default. Min and Max bound it; zero is unbounded.
type TimeRange struct {
	Step     time.Duration
	Min, Max time.Duration
	// Form says how the platform writes it, for messages ("seconds with
	// at most two decimals").
	Form string
}

// Rendered reports whether rocefab renders the time on the platform.
func (r TimeRange) Rendered() bool { return r.Step > 0 }

// Check returns why d cannot be expressed, or nil. A zero d is the
// platform default and always fine.
func (r TimeRange) Check(platform, what string, d time.Duration) error {
	switch {
	case d == 0 || !r.Rendered():
		return nil
	case d < 0:
		return fmt.Errorf("PFC watchdog %s time %s is negative", what, d)
	case d%r.Step != 0:
		return fmt.Errorf("PFC watchdog %s time %s cannot be expressed on %s, which takes %s (a multiple of %s)", what, d, platform, r.Form, r.Step)
	case r.Min > 0 && d < r.Min:
		return fmt.Errorf("PFC watchdog %s time %s is below %s's minimum %s", what, d, platform, r.Min)
	case r.Max > 0 && d > r.Max:
		return fmt.Errorf("PFC watchdog %s time %s is above %s's maximum %s", what, d, platform, r.Max)
	}
	return nil
}
