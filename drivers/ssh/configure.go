package ssh

import (
	"context"
	"strings"

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
			err = d.markRejection(line, out)
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

// markRejection fails a configuration line whose output has a line
// starting with the dialect's RejectMark, on CLIs that mark every refusal
// so: a message outside the platform's error list ("% PFC priority 3 is
// reserved ...") must not pass for success.
func (d *Driver) markRejection(line, out string) error {
	mark := d.dialect.RejectMark
	if mark == "" {
		return nil
	}
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), mark) {
			return d.fail("push", line, deviceMessage(strings.Join(lines[i:], "\n"), nil), drivers.ErrRejected)
		}
	}
	return nil
}
