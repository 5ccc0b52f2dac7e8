package ssh

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/drivers"
)

// pushNVUE stages `nv set`/`nv unset` lines in the pending revision and
// applies it; a failure detaches the revision, so nothing is applied.
// Runners exclude each other with the Linux lock (linuxLock), held from
// before the first `nv config detach` until the change is applied or, with
// a confirm window, settled: NVUE's pending revision is one per device, so
// two runners staging at once would apply each other's lines.
//
// A confirm window uses `nv config apply --confirm MINUTES`: NVIDIA's NVUE
// command reference (Config Commands, nv config apply) documents
// "--confirm <time>" with a bare number of minutes ("nv config apply
// --confirm 60 requires you to confirm within one hour", ten minutes by
// default) and --confirm-status for the time left, so the window is
// rounded up to whole minutes. The reference names no confirm and abort
// options; rocefab sends --confirm-yes and --confirm-no, the options
// NVUE's CLI takes (and napalm-cumulus uses), and reads the device back
// after either, so a device that took neither is never reported settled.
// nvued applies a revision to its end whatever happens to the session, so
// a lost answer to apply is resolved by reading the device back. d.mu is
// held.
func (d *Driver) pushNVUE(ctx context.Context, c change) (drivers.Pending, error) {
	if err := d.startCLIPush(ctx, c.patch); err != nil {
		return nil, err
	}
	if err := d.linuxLock(ctx, c); err != nil {
		return nil, err
	}
	// Start from a clean pending revision: nobody's half-staged edits.
	if _, err := d.send(ctx, "push", "nv config detach"); err != nil {
		d.linuxUnlock(ctx)
		return nil, err
	}
	if err := d.checkExpect(ctx, c, false); err != nil {
		d.linuxUnlock(ctx)
		return nil, err
	}
	if err := d.configure(ctx, "", c.patch.Lines, "", ""); err != nil {
		d.nvueDetach(ctx, c)
		return nil, err
	}
	window := c.opt.ConfirmWindow
	apply := "nv config apply -y"
	var mins int64
	if window > 0 {
		mins = ceilUnits(window, time.Minute)
		if time.Duration(mins)*time.Minute != window {
			d.log.Info("NVUE confirms in whole minutes: confirm window rounded up", zap.String("change", c.id),
				zap.Duration("requested", window), zap.Int64("minutes", mins))
		}
		apply = fmt.Sprintf("nv config apply --confirm %d -y", mins)
	}
	pending := func() drivers.Pending {
		if window == 0 {
			return confirmed{id: c.id}
		}
		p := d.newDevicePending(c.id, time.Duration(mins)*time.Minute, "nv config apply --confirm-yes", "nv config apply --confirm-no")
		p.done = d.linuxUnlock
		return p
	}
	if _, err := d.commitSend(ctx, "commit", apply); err != nil {
		// Not applied: the staged lines are detached. Applied: there is
		// nothing staged any more.
		d.nvueDetach(ctx, c)
		if drivers.CommitUnknown(err) {
			return pending(), err
		}
		return nil, err
	}
	if window == 0 {
		d.linuxUnlock(ctx)
		return pending(), nil
	}
	d.log.Info("change applied with --confirm; NVUE rolls it back unless confirmed", zap.String("change", c.id), zap.Int64("minutes", mins))
	return pending(), nil
}

// nvueDetach discards the staged revision, on a fresh session if the old
// one dropped. A fresh session takes the lock again first; if another
// runner holds it meanwhile, its own push starts with a detach. d.mu is
// held.
func (d *Driver) nvueDetach(ctx context.Context, c change) {
	cctx, cancel := d.cleanupContext(ctx)
	defer cancel()
	if d.conn == nil {
		if _, err := d.ensure(cctx); err != nil {
			return
		}
		if err := d.linuxLock(cctx, c); err != nil {
			d.log.Debug("not detaching: the lock is held", zap.Error(err))
			return
		}
	}
	d.sendQuiet(cctx, "push", "nv config detach")
	d.linuxUnlock(cctx)
}

// cleanupNVUE discards a staged revision a dead run left, and rolls back
// its change if it died in the confirm window and NVUE still waits.
// Nothing is touched while another runner holds the lock. d.mu is held.
func (d *Driver) cleanupNVUE(ctx context.Context, pendingConfirm bool) error {
	if err := d.linuxLock(ctx, change{id: "cleanup"}); err != nil {
		return err
	}
	defer d.linuxUnlock(ctx)
	d.sendQuiet(ctx, "cleanup", "nv config detach")
	if pendingConfirm {
		d.sendQuiet(ctx, "cleanup", "nv config apply --confirm-no")
	}
	return nil
}
