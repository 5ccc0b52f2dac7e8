package ssh

import (
	"context"
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/drivers"
)

// pushJunos edits the candidate in `configure exclusive`, checks it and
// commits with a comment naming the change. The exclusive lock is the
// device-side lock: "configure exclusive" locks the candidate for other
// users until the session leaves configuration mode or ends, and Junos
// refuses `commit confirmed` in private mode anyway (Junos CLI User Guide,
// configure). A plain commit would also confirm someone else's pending
// commit confirmed, so a push refuses while one waits. Junos counts the
// confirm window in whole minutes, so it is rounded up. Junos runs a
// commit to its end whatever happens to the session, and discards an
// exclusive candidate when the session ends, so a lost commit answer is
// resolved by reading the device back. d.mu is held.
func (d *Driver) pushJunos(ctx context.Context, c change) (drivers.Pending, error) {
	if err := d.startCLIPush(ctx, c.patch); err != nil {
		return nil, err
	}
	discard := func() {
		cctx, cancel := d.cleanupContext(ctx)
		defer cancel()
		if d.conn != nil {
			d.sendQuiet(cctx, "push", "rollback 0")
			d.sendQuiet(cctx, "push", "exit configuration-mode")
		}
	}
	if out, err := d.send(ctx, "lock", "configure exclusive"); err != nil {
		return nil, lockedError(err, "the configuration database is locked: "+deviceMessage(out, d.errs))
	}
	out, err := d.readCommand(ctx, "lock", "run show system commit")
	if err != nil {
		discard()
		return nil, err
	}
	if junosCommitPending(out) {
		discard()
		return nil, d.fail("lock", "", firstLine(out), fmt.Errorf("%w: a commit confirmed is waiting for confirmation (%s)", drivers.ErrLocked, junosPendingComment(out)))
	}
	if err := d.checkExpect(ctx, c, true); err != nil {
		discard()
		return nil, err
	}
	if err := d.configure(ctx, "", c.patch.Lines, "", ""); err != nil {
		discard()
		return nil, err
	}
	if _, err := d.send(ctx, "commit check", "commit check"); err != nil {
		discard()
		return nil, err
	}
	comment := ` comment "` + c.id + `"`
	window := c.opt.ConfirmWindow
	if window == 0 {
		if _, err := d.commitSend(ctx, "commit", "commit"+comment); err != nil {
			discard()
			if drivers.CommitUnknown(err) {
				return d.newHeldPending(c.id, func(ctx context.Context) error { return d.junosUndo(ctx, c.id) }, func(context.Context) error { return nil }), err
			}
			return nil, err
		}
		d.sendQuiet(ctx, "commit", "exit configuration-mode")
		return d.newHeldPending(c.id, func(ctx context.Context) error { return d.junosUndo(ctx, c.id) }, func(context.Context) error { return nil }), nil
	}
	mins := ceilUnits(window, time.Minute)
	if time.Duration(mins)*time.Minute != window {
		d.log.Info("Junos confirms in whole minutes: confirm window rounded up", zap.String("change", c.id),
			zap.Duration("requested", window), zap.Int64("minutes", mins))
	}
	pending := &devicePending{
		pendingChange: pendingChange{d: d, id: c.id},
		deadline:      time.Now().Add(time.Duration(mins) * time.Minute),
		confirm: func(ctx context.Context) error {
			return commitUnknown(d.junosOnPending(ctx, "confirm", c.id, "commit"+comment))
		},
		rollback: func(ctx context.Context) error {
			return d.junosOnPending(ctx, "rollback", c.id, "rollback 1", `commit comment "rollback of `+c.id+`"`)
		},
	}
	if _, err := d.commitSend(ctx, "commit", fmt.Sprintf("commit confirmed %d%s", mins, comment)); err != nil {
		discard()
		if drivers.CommitUnknown(err) {
			return pending, err
		}
		return nil, err
	}
	d.sendQuiet(ctx, "commit", "exit configuration-mode")
	return pending, nil
}

// junosUndo takes back change id, committed at once, with `rollback 1`:
// the configuration before it, exactly, as long as it is still the newest
// commit (its comment names it); otherwise the caller restores from its
// snapshot. d.mu is held.
func (d *Driver) junosUndo(ctx context.Context, id string) error {
	if _, err := d.ensure(ctx); err != nil {
		return err
	}
	out, err := d.readCommand(ctx, "rollback", "show system commit")
	if err != nil {
		return err
	}
	if !strings.Contains(junosPendingComment(out), id) {
		return d.fail("rollback", "", firstLine(out), fmt.Errorf("%w: change %s is no longer the newest commit", drivers.ErrUnsupported, id))
	}
	if _, err := d.send(ctx, "rollback", "configure exclusive"); err != nil {
		return lockedError(err, "the configuration database is locked")
	}
	for _, l := range []string{"rollback 1", `commit comment "rollback of ` + id + `"`} {
		if _, err := d.send(ctx, "rollback", l); err != nil {
			d.sendQuiet(ctx, "rollback", "rollback 0")
			d.sendQuiet(ctx, "rollback", "exit configuration-mode")
			return err
		}
	}
	d.sendQuiet(ctx, "rollback", "exit configuration-mode")
	return nil
}

// junosOnPending runs configuration commands against change id's pending
// commit confirmed, after checking the device still waits for it: acting
// after Junos rolled back would commit nothing (or someone else's
// change). d.mu is held.
func (d *Driver) junosOnPending(ctx context.Context, step, id string, lines ...string) error {
	if _, err := d.ensure(ctx); err != nil {
		return err
	}
	out, err := d.readCommand(ctx, step, "show system commit")
	if err != nil {
		return err
	}
	if !junosCommitPending(out) || !strings.Contains(junosPendingComment(out), id) {
		return d.fail(step, "", firstLine(out), fmt.Errorf("%w: no commit of change %s is waiting for confirmation; the device rolled it back or it was confirmed", drivers.ErrRejected, id))
	}
	if _, err := d.send(ctx, step, "configure exclusive"); err != nil {
		return lockedError(err, "the configuration database is locked")
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

// junosPendingComment is the comment of the newest commit: the indented
// lines under the first entry.
func junosPendingComment(out string) string {
	var lines []string
	started := false
	for _, l := range strings.Split(out, "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		indented := strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t")
		if !started {
			started = true
			continue
		}
		if !indented {
			break
		}
		lines = append(lines, strings.TrimSpace(l))
	}
	if len(lines) == 0 {
		return "no comment"
	}
	return strings.Join(lines, " ")
}

// cleanupJunos rolls back a run's commit confirmed (prefix names its
// changes) if the device still waits for it; an uncommitted candidate
// Junos discarded when the run's session ended. d.mu is held.
func (d *Driver) cleanupJunos(ctx context.Context, prefix string, _ bool) error {
	out, err := d.readCommand(ctx, "cleanup", "show system commit")
	if err != nil {
		return err
	}
	if !junosCommitPending(out) || !strings.Contains(junosPendingComment(out), prefix) {
		return nil
	}
	return d.junosOnPending(ctx, "cleanup", prefix, "rollback 1", `commit comment "rollback of `+strings.TrimSuffix(prefix, "-")+`"`)
}

func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(l); t != "" {
			return t
		}
	}
	return ""
}
