package ssh

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
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
		out, err := d.send(ctx, "push", line)
		if err == nil {
			err = d.percentRejection(line, out)
		}
		if err != nil {
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

// percentRejection fails a configuration line whose output has a line
// starting with "% " on NX-OS and EOS, which mark every refusal so: a
// message outside the platform's error list ("% PFC priority 3 is reserved
// ...") must not pass for success.
func (d *Driver) percentRejection(line, out string) error {
	if d.style != devcfg.CommitNXOSCheckpoint && d.style != devcfg.CommitEOSSession {
		return nil
	}
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "% ") {
			return d.fail("push", line, deviceMessage(strings.Join(lines[i:], "\n"), nil), drivers.ErrRejected)
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
