package cumulus

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/devcfg"
)

// Dialect pushes Cumulus Linux over SSH with NVUE: `nv set`/`nv unset`
// staged in the pending revision, `nv config apply` (--confirm for a
// confirm window), runners excluded by the shell lock.
var Dialect = &devcfg.Dialect{
	Errors:  []string{"Error:", "ERROR:", "command not found", "Invalid config"},
	Lines:   true,
	Push:    push,
	Cleanup: cleanup,
}

// push stages `nv set`/`nv unset` lines in the pending revision and
// applies it; a failure detaches the revision, so nothing is applied.
// Runners exclude each other with the shell lock (Session.ShellLock), held
// from before the first `nv config detach` until the change is applied
// or, with a confirm window, settled: NVUE's pending revision is one per
// device, so two runners staging at once would apply each other's lines.
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
// a lost answer to apply is resolved by reading the device back.
func push(ctx context.Context, s devcfg.Session, c devcfg.Push) (*devcfg.Settle, error) {
	if err := s.ShellLock(ctx, c.Holder); err != nil {
		return nil, err
	}
	// Start from a clean pending revision: nobody's half-staged edits.
	if _, err := s.Send(ctx, "push", "nv config detach"); err != nil {
		s.ShellUnlock(ctx)
		return nil, err
	}
	if err := s.CheckExpect(ctx, s.ShowRunning()); err != nil {
		s.ShellUnlock(ctx)
		return nil, err
	}
	if err := s.Configure(ctx, "", c.Patch.Lines, "", ""); err != nil {
		detach(ctx, s, c)
		return nil, err
	}
	window := c.Window
	apply := "nv config apply -y"
	var mins int64
	if window > 0 {
		mins = devcfg.CeilUnits(window, time.Minute)
		if time.Duration(mins)*time.Minute != window {
			s.Log().Info("NVUE confirms in whole minutes: confirm window rounded up", zap.String("change", c.ID),
				zap.Duration("requested", window), zap.Int64("minutes", mins))
		}
		apply = fmt.Sprintf("nv config apply --confirm %d -y", mins)
	}
	pending := func() *devcfg.Settle {
		if window == 0 {
			return &devcfg.Settle{Kind: devcfg.SettledNow}
		}
		return &devcfg.Settle{
			Kind:     devcfg.SettleDevice,
			Deadline: time.Now().Add(time.Duration(mins) * time.Minute),
			Confirm: func(ctx context.Context) error {
				return s.CommitUnknown(s.SendFresh(ctx, "confirm", "nv config apply --confirm-yes"))
			},
			Rollback: func(ctx context.Context) error { return s.SendFresh(ctx, "rollback", "nv config apply --confirm-no") },
			Done:     s.ShellUnlock,
		}
	}
	if _, err := s.Commit(ctx, "commit", apply); err != nil {
		// Not applied: the staged lines are detached. Applied: there is
		// nothing staged any more.
		detach(ctx, s, c)
		if s.Is(err, devcfg.FailCommitUnknown) {
			return pending(), err
		}
		return nil, err
	}
	if window == 0 {
		s.ShellUnlock(ctx)
		return pending(), nil
	}
	s.Log().Info("change applied with --confirm; NVUE rolls it back unless confirmed", zap.String("change", c.ID), zap.Int64("minutes", mins))
	return pending(), nil
}

// detach discards the staged revision, on a fresh session if the old
// one dropped. A fresh session takes the lock again first; if another
// runner holds it meanwhile, its own push starts with a detach.
func detach(ctx context.Context, s devcfg.Session, c devcfg.Push) {
	cctx, cancel := s.CleanupContext(ctx)
	defer cancel()
	if !s.Connected() {
		if err := s.Ensure(cctx); err != nil {
			return
		}
		if err := s.ShellLock(cctx, c.Holder); err != nil {
			s.Log().Debug("not detaching: the lock is held", zap.Error(err))
			return
		}
	}
	s.SendQuiet(cctx, "push", "nv config detach")
	s.ShellUnlock(cctx)
}

// cleanup discards a staged revision a dead run left, and rolls back
// its change if it died in the confirm window and NVUE still waits.
// Nothing is touched while another runner holds the lock.
func cleanup(ctx context.Context, s devcfg.Session, c devcfg.Cleanup) error {
	if err := s.ShellLock(ctx, c.Holder); err != nil {
		return err
	}
	defer s.ShellUnlock(ctx)
	s.SendQuiet(ctx, "cleanup", "nv config detach")
	if c.PendingConfirm {
		s.SendQuiet(ctx, "cleanup", "nv config apply --confirm-no")
	}
	return nil
}
