package ssh

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/internal/secret"
)

// session is the driver's side of a platform's devcfg.Dialect: the push
// it runs for one change. d.mu is held while a dialect runs.
type session struct {
	d *Driver
	c change
}

var _ devcfg.Session = session{}

func (s session) Send(ctx context.Context, step, line string) (string, error) {
	return s.d.send(ctx, step, line)
}

func (s session) SendQuiet(ctx context.Context, step, line string) { s.d.sendQuiet(ctx, step, line) }

func (s session) SendRaw(ctx context.Context, step, line string) (string, error) {
	return s.d.sendChecked(ctx, step, line, nil)
}

func (s session) SendFresh(ctx context.Context, step, line string) error {
	return s.d.sendFresh(ctx, step, line)
}

func (s session) Commit(ctx context.Context, step, line string) (string, error) {
	return s.d.commitSend(ctx, step, line)
}

func (s session) Read(ctx context.Context, step, line string) (string, error) {
	return s.d.readCommand(ctx, step, line)
}

func (s session) CleanupSend(ctx context.Context, step, line string, gone ...string) error {
	return s.d.cleanupSend(ctx, step, line, gone...)
}

func (s session) Configure(ctx context.Context, enter string, lines []string, leave, abandon string) error {
	return s.d.configure(ctx, enter, lines, leave, abandon)
}

func (s session) Ensure(ctx context.Context) error {
	_, err := s.d.ensure(ctx)
	return err
}

func (s session) Connected() bool     { return s.d.conn != nil }
func (s session) ShowRunning() string { return s.d.showCmd }

func (s session) CheckExpect(ctx context.Context, cmd string) error {
	if s.c.opt.Expect == "" {
		return nil
	}
	_, err := s.ReadRunning(ctx, cmd)
	return err
}

func (s session) ReadRunning(ctx context.Context, cmd string) (string, error) {
	return s.d.readExpected(ctx, s.c, cmd)
}

func (s session) ShellLock(ctx context.Context, holder string) error {
	return s.d.shellLock(ctx, holder)
}

func (s session) ShellUnlock(ctx context.Context) { s.d.shellUnlock(ctx) }

func (s session) Undo(ctx context.Context, pushErr error, restore func(context.Context) error, what string) error {
	return s.d.undo(ctx, pushErr, restore, what)
}

func (s session) CleanupContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return s.d.cleanupContext(ctx)
}

func (s session) Fail(step, line, msg string, kind devcfg.Failure, err error) error {
	sentinel := failureError(kind)
	switch {
	case sentinel == nil:
	case err == nil:
		err = sentinel
	default:
		err = fmt.Errorf("%w: %w", sentinel, err)
	}
	return s.d.fail(step, line, msg, err)
}

func (s session) WithLine(err error, line string) error {
	de, ok := err.(*drivers.DeviceError)
	if !ok {
		return err
	}
	de.Line = secret.Redact(line, s.d.opt.Creds.Password)
	return de
}

func (s session) Locked(err error, holder string) error { return lockedError(err, holder) }
func (s session) CommitUnknown(err error) error         { return commitUnknown(err) }

func (s session) Is(err error, kind devcfg.Failure) bool {
	if kind == devcfg.FailCommitUnknown {
		return drivers.CommitUnknown(err)
	}
	sentinel := failureError(kind)
	return sentinel != nil && errors.Is(err, sentinel)
}

func (s session) Message(out string) string { return deviceMessage(out, s.d.errs) }
func (s session) Timeout() time.Duration    { return s.d.opt.Timeout }
func (s session) Log() *zap.Logger          { return s.d.log }

// failureError is the driver sentinel of a dialect's failure kind.
func failureError(kind devcfg.Failure) error {
	switch kind {
	case devcfg.FailRejected:
		return drivers.ErrRejected
	case devcfg.FailLocked:
		return drivers.ErrLocked
	case devcfg.FailStale:
		return drivers.ErrStale
	case devcfg.FailUnsupported:
		return drivers.ErrUnsupported
	case devcfg.FailCommitUnknown:
		return drivers.ErrCommitUnknown
	}
	return nil
}

// settled turns a dialect's settle into the Pending the caller holds,
// registering what the driver must track (held restore points,
// rocefab-side timers). d.mu is held.
func (d *Driver) settled(id string, st *devcfg.Settle) drivers.Pending {
	if st == nil {
		return nil
	}
	switch st.Kind {
	case devcfg.SettleHeld:
		return d.newHeldPending(id, st.Rollback, st.Discard, st.Reverts)
	case devcfg.SettleLocal:
		return d.startLocalPending(id, st.Window, st.Rollback, st.Discard)
	case devcfg.SettleDevice:
		return &devicePending{
			pendingChange: pendingChange{d: d, id: id},
			deadline:      st.Deadline,
			confirm:       st.Confirm,
			rollback:      st.Rollback,
			leftovers:     st.Leftovers,
			done:          st.Done,
		}
	}
	return confirmed{id: id}
}

// undo restores the pre-push state after a failed push and returns the push
// error. When the restore fails too the device may hold part of the
// change: the error is then ErrCommitUnknown, and the restore point stays
// for the next run to restore.
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
