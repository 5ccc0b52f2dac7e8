package ssh

import (
	"context"
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/renderers/devcfg"
)

// pushJunos edits a candidate, checks it and commits. Without a window it
// uses `configure private`; with one it needs `configure exclusive`, since
// Junos refuses commit confirmed in private mode. Junos counts the window
// in whole minutes, so it is rounded up. d.mu is held.
func (d *Driver) pushJunos(ctx context.Context, id string, patch devcfg.Patch, window time.Duration) (drivers.Pending, error) {
	if err := d.startCLIPush(ctx, patch); err != nil {
		return nil, err
	}
	mode := "configure private"
	if window > 0 {
		mode = "configure exclusive"
	}
	discard := func() {
		cctx, cancel := d.cleanupContext(ctx)
		defer cancel()
		if d.conn != nil {
			d.sendQuiet(cctx, "push", "rollback 0")
			d.sendQuiet(cctx, "push", "exit configuration-mode")
		}
	}
	if err := d.configure(ctx, mode, patch.Lines, "", ""); err != nil {
		discard()
		return nil, err
	}
	if _, err := d.send(ctx, "commit check", "commit check"); err != nil {
		discard()
		return nil, err
	}
	if window == 0 {
		if _, err := d.send(ctx, "commit", "commit"); err != nil {
			discard()
			return nil, err
		}
		d.sendQuiet(ctx, "commit", "exit configuration-mode")
		return confirmed{id: id}, nil
	}
	mins := ceilUnits(window, time.Minute)
	if time.Duration(mins)*time.Minute != window {
		d.log.Info("Junos confirms in whole minutes: confirm window rounded up", zap.String("change", id),
			zap.Duration("requested", window), zap.Int64("minutes", mins))
	}
	if _, err := d.send(ctx, "commit", fmt.Sprintf("commit confirmed %d", mins)); err != nil {
		discard()
		return nil, err
	}
	d.sendQuiet(ctx, "commit", "exit configuration-mode")
	return &devicePending{
		pendingChange: pendingChange{d: d, id: id},
		deadline:      time.Now().Add(time.Duration(mins) * time.Minute),
		confirm: func(ctx context.Context) error {
			return d.junosOnPending(ctx, "confirm", id, "commit")
		},
		rollback: func(ctx context.Context) error {
			return d.junosOnPending(ctx, "rollback", id, "rollback 1", "commit")
		},
	}, nil
}

// junosOnPending runs configuration commands against a pending commit
// confirmed, after checking the device still waits for it: confirming
// after Junos rolled back would silently commit nothing.
func (d *Driver) junosOnPending(ctx context.Context, step, id string, lines ...string) error {
	if _, err := d.ensure(ctx); err != nil {
		return err
	}
	out, err := d.readCommand(ctx, step, "show system commit")
	if err != nil {
		return err
	}
	if !junosCommitPending(out) {
		return d.fail(step, "", firstLine(out), fmt.Errorf("%w: no commit is waiting for confirmation; the device already rolled back change %s", drivers.ErrRejected, id))
	}
	if _, err := d.send(ctx, step, "configure exclusive"); err != nil {
		return err
	}
	for _, l := range lines {
		if _, err := d.send(ctx, step, l); err != nil {
			d.sendQuiet(ctx, step, "rollback 0")
			d.sendQuiet(ctx, step, "exit configuration-mode")
			return err
		}
	}
	d.sendQuiet(ctx, step, "exit configuration-mode")
	return nil
}

// junosCommitPending reads `show system commit`: the newest entry says
// "commit confirmed, rollback in Nmins" while a confirmation is awaited.
func junosCommitPending(out string) bool {
	return strings.Contains(firstLine(out), "rollback in")
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(l); t != "" {
			return t
		}
	}
	return ""
}
