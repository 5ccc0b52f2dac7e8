package ssh

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/drivers"
)

// nxosCheckpoint is the checkpoint every NX-OS push takes first. It is
// the restore point and the device-side lock in one: Cisco's Nexus 9000
// System Management Configuration Guide (Configuring the Rollback
// Feature) says "Checkpoint names must be unique. You cannot overwrite
// previously saved checkpoints with the same name", so creating it fails
// while another run holds it, and its description (up to 80 characters)
// names that run in `show checkpoint summary`. NX-OS keeps at most ten
// checkpoints, so every push removes its own again.
const nxosCheckpoint = "rocefab"

// NX-OS's commit timer for `configure replace ... commit-timeout`: "The
// timer value range is between 30-3600 seconds" (Cisco NX-OS
// Configuration Replace and Commit-timeout).
const (
	nxosMinCommitTimeout = 30
	nxosMaxCommitTimeout = 3600
)

// pushNXOS takes the checkpoint, types the lines in configuration mode and
// rolls back to the checkpoint if any line fails or the session drops.
// NX-OS applies each line as it is typed, so a rocefab killed in the
// middle leaves the checkpoint (and the run's record) behind, and the
// next run on the device restores or finishes the change.
//
// A confirm window uses NX-OS's own rollback timer: the checkpoint
// rollback feature cannot expire by itself, but `configure replace FILE
// commit-timeout SECONDS` "enables you to rollback to the previous
// configuration after successfully performing the configuration replace
// operation. If the commit timer expires, the rollback operation is
// automatically initiated" (Cisco NX-OS System Management Configuration
// Guide, Performing Configuration Replace). The replace needs "a valid
// running configuration that has been received with the Cisco NX-OS
// device", so the new configuration is saved with `copy running-config`,
// the device is rolled back to the checkpoint, and the file is replaced
// in with the timer: a rocefab that dies during the window still leaves
// the device rolled back. `configure replace commit` confirms. The change
// is thus applied twice; windows beyond NX-OS's 3600 s fall back to a
// rocefab-side timer. d.mu is held.
func (d *Driver) pushNXOS(ctx context.Context, c change) (drivers.Pending, error) {
	if err := d.startCLIPush(ctx, c.patch); err != nil {
		return nil, err
	}
	if err := d.nxosLock(ctx, c); err != nil {
		return nil, err
	}
	restore := func(ctx context.Context) error { return d.nxosRestore(ctx) }
	release := func(ctx context.Context) error {
		return d.cleanupSend(ctx, "confirm", "no checkpoint "+nxosCheckpoint, "does not exist")
	}
	if err := d.checkExpect(ctx, c, false); err != nil {
		cctx, cancel := d.cleanupContext(ctx)
		defer cancel()
		d.dropCheckpoint(cctx, c.id, release)
		return nil, err
	}
	if err := d.configure(ctx, "configure terminal", c.patch.Lines, "end", "end"); err != nil {
		return nil, d.undo(ctx, err, restore, "checkpoint "+nxosCheckpoint)
	}
	window := c.opt.ConfirmWindow
	if window == 0 {
		// The checkpoint stays until the caller read the device back.
		return d.newHeldPending(c.id, restore, release), nil
	}
	secs := max(ceilUnits(window, time.Second), nxosMinCommitTimeout)
	if secs > nxosMaxCommitTimeout {
		d.log.Warn("NX-OS's commit timer allows at most 3600 s: this confirm window runs on a rocefab-side timer, which a dying rocefab cannot honour",
			zap.String("change", c.id), zap.Duration("window", window))
		return d.startLocalPending(c.id, window, restore, release), nil
	}
	return d.nxosArmTimer(ctx, c, secs, restore)
}

// nxosArmTimer moves the just-applied change under NX-OS's commit timer.
// d.mu is held.
func (d *Driver) nxosArmTimer(ctx context.Context, c change, secs int64, restoreCheckpoint func(context.Context) error) (drivers.Pending, error) {
	file := c.id + ".cfg"
	restore := func(ctx context.Context) error {
		err := restoreCheckpoint(ctx)
		if err == nil {
			d.sendQuiet(ctx, "rollback", "delete bootflash:"+file+" no-prompt")
		}
		return err
	}
	if _, err := d.send(ctx, "push", "copy running-config bootflash:"+file); err != nil {
		return nil, d.undo(ctx, err, restore, "checkpoint "+nxosCheckpoint)
	}
	if _, err := d.send(ctx, "push", "rollback running-config checkpoint "+nxosCheckpoint); err != nil {
		return nil, d.undo(ctx, err, restore, "checkpoint "+nxosCheckpoint)
	}
	pending := &devicePending{
		pendingChange: pendingChange{d: d, id: c.id},
		deadline:      time.Now().Add(time.Duration(secs) * time.Second),
		confirm:       func(ctx context.Context) error { return d.nxosConfirm(ctx, file) },
		rollback:      func(ctx context.Context) error { return d.nxosRollback(ctx, file) },
		leftovers:     func(ctx context.Context) { d.nxosDiscard(ctx, file) },
	}
	replace := fmt.Sprintf("configure replace bootflash:%s commit-timeout %d", file, secs)
	if _, err := d.commitSend(ctx, "commit", replace); err != nil {
		if drivers.CommitUnknown(err) {
			return pending, err
		}
		// A failed replace restores the original configuration by itself.
		cctx, cancel := d.cleanupContext(ctx)
		defer cancel()
		d.nxosDiscard(cctx, file)
		return nil, err
	}
	d.log.Info("change under NX-OS's commit timer; the device rolls it back unless confirmed", zap.String("change", c.id), zap.Int64("seconds", secs))
	return pending, nil
}

// nxosConfirm stops the commit timer and removes the checkpoint and file.
func (d *Driver) nxosConfirm(ctx context.Context, file string) error {
	if _, err := d.ensure(ctx); err != nil {
		return err
	}
	if _, err := d.send(ctx, "confirm", "configure replace commit"); err != nil {
		return commitUnknown(err)
	}
	d.nxosDiscard(ctx, file)
	return nil
}

// nxosRollback restores the checkpoint before stopping the timer, so a
// rocefab dying in between still leaves the timer to roll back.
func (d *Driver) nxosRollback(ctx context.Context, file string) error {
	if _, err := d.ensure(ctx); err != nil {
		return err
	}
	if _, err := d.send(ctx, "rollback", "rollback running-config checkpoint "+nxosCheckpoint); err != nil {
		return err
	}
	d.sendQuiet(ctx, "rollback", "configure replace commit")
	d.nxosDiscard(ctx, file)
	return nil
}

// nxosDiscard removes the checkpoint and the replace file; what is left is
// only logged, the next run removes it.
func (d *Driver) nxosDiscard(ctx context.Context, file string) {
	for _, l := range []string{"delete bootflash:" + file + " no-prompt", "no checkpoint " + nxosCheckpoint} {
		if err := d.cleanupSend(ctx, "confirm", l, "No such file", "does not exist"); err != nil {
			d.log.Warn("could not remove what the change left; the next run removes it", zap.String("line", l), zap.Error(err))
		}
	}
}

// nxosLock creates the checkpoint or fails with ErrLocked naming the run
// holding it. A checkpoint left more than staleAfter ago by a run whose
// commit timer no longer runs is the leftover of a dead runner: it is
// removed and taken over. d.mu is held.
func (d *Driver) nxosLock(ctx context.Context, c change) error {
	desc := c.holder()
	if len(desc) > 80 {
		desc = desc[:80]
	}
	take := "checkpoint " + nxosCheckpoint + " description " + desc
	_, err := d.send(ctx, "lock", take)
	if err == nil || !errors.Is(err, drivers.ErrRejected) {
		return err
	}
	var de *drivers.DeviceError
	if !errors.As(err, &de) || !strings.Contains(de.Msg, "already in use") {
		return err
	}
	holder := d.nxosHolder(ctx)
	if c.run != "" && strings.Contains(holder, "run "+c.run+" ") {
		// This run's own earlier push kept it (a restore after a failed
		// read-back): it holds the state from before the run, which is
		// where a failed restore must go back to as well.
		return nil
	}
	if staleID(holder, time.Now()) && !d.nxosReplacePending(ctx) {
		d.log.Warn("removing a stale rocefab checkpoint left by a runner that died", zap.String("holder", holder))
		d.sendQuiet(ctx, "lock", "no checkpoint "+nxosCheckpoint)
		if _, err := d.send(ctx, "lock", take); err == nil {
			return nil
		}
	}
	return lockedError(err, "checkpoint "+nxosCheckpoint+" is held by "+holder)
}

// nxosHolder reads the description of the lock checkpoint.
func (d *Driver) nxosHolder(ctx context.Context) string {
	out, err := d.readCommand(ctx, "lock", "show checkpoint summary")
	if err != nil {
		return "another run"
	}
	return nxosCheckpointDescription(out, nxosCheckpoint)
}

// nxosCheckpointDescription finds a checkpoint's "Description:" line in
// `show checkpoint summary` ("N) NAME:" blocks).
func nxosCheckpointDescription(out, name string) string {
	in := false
	for _, l := range strings.Split(out, "\n") {
		t := strings.TrimSpace(l)
		if _, rest, ok := strings.Cut(t, ") "); ok && strings.HasSuffix(rest, ":") {
			in = strings.TrimSuffix(rest, ":") == name
			continue
		}
		if d, ok := strings.CutPrefix(t, "Description:"); ok && in {
			return strings.TrimSpace(d)
		}
	}
	if in {
		return "a checkpoint without description"
	}
	return "another run"
}

// nxosReplacePending reports whether a configure replace waits for commit.
func (d *Driver) nxosReplacePending(ctx context.Context) bool {
	out, err := d.readCommand(ctx, "lock", "show config-replace status")
	return err == nil && strings.Contains(out, "running")
}

// nxosRestore rolls the running configuration back to the checkpoint and
// deletes it, on a fresh session if the old one dropped.
func (d *Driver) nxosRestore(ctx context.Context) error {
	if _, err := d.ensure(ctx); err != nil {
		return err
	}
	if _, err := d.send(ctx, "rollback", "rollback running-config checkpoint "+nxosCheckpoint); err != nil {
		return err
	}
	return d.cleanupSend(ctx, "rollback", "no checkpoint "+nxosCheckpoint, "does not exist")
}

// cleanupNXOS removes the checkpoint and files of a run (prefix names its
// files). A configure replace still waiting for commit under that
// checkpoint is the run's unconfirmed change: it is rolled back now, as
// the timer would. d.mu is held.
func (d *Driver) cleanupNXOS(ctx context.Context, runID, prefix string, pendingConfirm bool) error {
	var files []string
	if out, err := d.readCommand(ctx, "cleanup", "dir bootflash:"); err == nil {
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Fields(l); len(f) > 0 && strings.HasPrefix(f[len(f)-1], prefix) {
				files = append(files, f[len(f)-1])
			}
		}
	}
	holder := d.nxosHolder(ctx)
	if !strings.Contains(holder, "run "+runID+" ") {
		for _, f := range files {
			d.sendQuiet(ctx, "cleanup", "delete bootflash:"+f+" no-prompt")
		}
		return nil
	}
	if pendingConfirm || d.nxosReplacePending(ctx) {
		if _, err := d.send(ctx, "cleanup", "rollback running-config checkpoint "+nxosCheckpoint); err != nil {
			return err
		}
		d.sendQuiet(ctx, "cleanup", "configure replace commit")
	}
	for _, f := range files {
		d.sendQuiet(ctx, "cleanup", "delete bootflash:"+f+" no-prompt")
	}
	return d.cleanupSend(ctx, "cleanup", "no checkpoint "+nxosCheckpoint, "does not exist")
}

// undo restores the pre-push state after a failed push and returns the push
// error. When the restore fails too the device may hold part of the
// change: the error is then ErrCommitUnknown, and the checkpoint stays for
// the next run to restore.
func (d *Driver) undo(ctx context.Context, pushErr error, restore func(context.Context) error, what string) error {
	cctx, cancel := d.cleanupContext(ctx)
	defer cancel()
	if err := restore(cctx); err != nil {
		d.log.Error("push failed and restoring the device failed too", zap.Error(err))
		return errors.Join(pushErr, d.fail("rollback", "", "", fmt.Errorf("%w: restoring %s failed, the device may hold part of the change: %w", drivers.ErrCommitUnknown, what, err)))
	}
	d.log.Info("push failed; device restored", zap.String("to", what), zap.Error(pushErr))
	return pushErr
}
