package ssh

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/renderers/devcfg"
)

// pushNXOS takes a checkpoint, types the lines in configuration mode and
// rolls back to the checkpoint if any line fails or the session drops.
// NX-OS cannot roll back by itself, so a confirm window runs a
// rocefab-side timer. d.mu is held.
func (d *Driver) pushNXOS(ctx context.Context, id string, patch devcfg.Patch, window time.Duration) (drivers.Pending, error) {
	if err := d.startCLIPush(ctx, patch); err != nil {
		return nil, err
	}
	if _, err := d.send(ctx, "push", "checkpoint "+id); err != nil {
		return nil, err
	}
	restore := func(ctx context.Context) error { return d.nxosRestore(ctx, id) }
	discard := func(ctx context.Context) error { return d.sendFresh(ctx, "confirm", "no checkpoint "+id) }
	if err := d.configure(ctx, "configure terminal", patch.Lines, "end", "end"); err != nil {
		return nil, d.undo(ctx, err, restore, "checkpoint "+id)
	}
	if window == 0 {
		d.dropCheckpoint(ctx, id, discard)
		return confirmed{id: id}, nil
	}
	return d.startLocalPending(id, window, restore, discard), nil
}

// nxosRestore rolls the running configuration back to the checkpoint and
// deletes it, on a fresh session if the old one dropped.
func (d *Driver) nxosRestore(ctx context.Context, id string) error {
	if _, err := d.ensure(ctx); err != nil {
		return err
	}
	if _, err := d.send(ctx, "rollback", "rollback running-config checkpoint "+id); err != nil {
		return err
	}
	d.sendQuiet(ctx, "rollback", "no checkpoint "+id)
	return nil
}

// undo restores the pre-push state after a failed push and returns the push
// error, joined with the restore error if that failed too.
func (d *Driver) undo(ctx context.Context, pushErr error, restore func(context.Context) error, what string) error {
	cctx, cancel := d.cleanupContext(ctx)
	defer cancel()
	if err := restore(cctx); err != nil {
		d.log.Error("push failed and restoring the device failed too", zap.Error(err))
		return errors.Join(pushErr, d.fail("rollback", "", "", fmt.Errorf("restoring %s failed, the device may hold part of the change: %w", what, err)))
	}
	d.log.Info("push failed; device restored", zap.String("to", what), zap.Error(pushErr))
	return pushErr
}
