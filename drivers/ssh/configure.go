package ssh

import (
	"context"
	"fmt"
	"math"
	"time"
)

// configure enters a configuration context, types the lines and leaves.
// On the first rejected line it stops, types abandon (if the session is
// still up) and returns the rejection naming the line and the device's
// message.
func (d *Driver) configure(ctx context.Context, enter string, lines []string, leave, abandon string) error {
	if enter != "" {
		if _, err := d.send(ctx, "push", enter); err != nil {
			return err
		}
	}
	for _, line := range lines {
		if _, err := d.send(ctx, "push", line); err != nil {
			if d.conn != nil && abandon != "" {
				d.sendQuiet(ctx, "push", abandon)
			}
			return err
		}
	}
	if leave != "" {
		if _, err := d.send(ctx, "push", leave); err != nil {
			return err
		}
	}
	return nil
}

// ceilUnits rounds a window up to whole units (minutes for Junos, seconds
// for EOS and NVUE), never below one.
func ceilUnits(window, unit time.Duration) int64 {
	n := int64(math.Ceil(float64(window) / float64(unit)))
	if n < 1 {
		n = 1
	}
	return n
}

// hms formats seconds as EOS's hh:mm:ss.
func hms(secs int64) string {
	return fmt.Sprintf("%02d:%02d:%02d", secs/3600, secs/60%60, secs%60)
}
