package junos

import (
	"context"
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/devcfg"
)

// Dialect pushes Junos over SSH: configure exclusive, commit check, and
// commit (confirmed) with a comment naming the change.
var Dialect = &devcfg.Dialect{
	Errors:  []string{"syntax error", "error:", "unknown command", "is ambiguous", "missing argument"},
	Lines:   true,
	Push:    push,
	Cleanup: cleanup,
}

// push edits the candidate in `configure exclusive`, checks it and
// commits with a comment naming the change. The exclusive lock is the
// device-side lock: "configure exclusive" locks the candidate for other
// users until the session leaves configuration mode or ends, and Junos
// refuses `commit confirmed` in private mode anyway (Junos CLI User Guide,
// configure). A plain commit would also confirm someone else's pending
// commit confirmed, so a push refuses while one waits. Junos counts the
// confirm window in whole minutes, so it is rounded up. Junos runs a
// commit to its end whatever happens to the session, and discards an
// exclusive candidate when the session ends, so a lost commit answer is
// resolved by reading the device back.
func push(ctx context.Context, s devcfg.Session, c devcfg.Push) (*devcfg.Settle, error) {
	discard := func() {
		cctx, cancel := s.CleanupContext(ctx)
		defer cancel()
		if s.Connected() {
			s.SendQuiet(cctx, "push", "rollback 0")
			s.SendQuiet(cctx, "push", "exit configuration-mode")
		}
	}
	if out, err := s.Send(ctx, "lock", "configure exclusive"); err != nil {
		return nil, s.Locked(err, "the configuration database is locked: "+s.Message(out))
	}
	out, err := s.Read(ctx, "lock", "run show system commit")
	if err != nil {
		discard()
		return nil, err
	}
	if commitPending(out) {
		discard()
		return nil, s.Fail("lock", "", devcfg.FirstLine(out), devcfg.FailLocked, fmt.Errorf("a commit confirmed is waiting for confirmation (%s)", pendingComment(out)))
	}
	// In configuration mode the running configuration is read through run.
	if err := s.CheckExpect(ctx, "run "+s.ShowRunning()); err != nil {
		discard()
		return nil, err
	}
	if err := s.Configure(ctx, "", c.Patch.Lines, "", ""); err != nil {
		discard()
		return nil, err
	}
	if _, err := s.Send(ctx, "commit check", "commit check"); err != nil {
		discard()
		return nil, err
	}
	comment := ` comment "` + c.ID + `"`
	window := c.Window
	if window == 0 {
		held := &devcfg.Settle{Kind: devcfg.SettleHeld,
			Rollback: func(ctx context.Context) error { return undo(ctx, s, c.ID) },
			Discard:  func(context.Context) error { return nil }}
		if _, err := s.Commit(ctx, "commit", "commit"+comment); err != nil {
			discard()
			if s.Is(err, devcfg.FailCommitUnknown) {
				return held, err
			}
			return nil, err
		}
		s.SendQuiet(ctx, "commit", "exit configuration-mode")
		return held, nil
	}
	mins := devcfg.CeilUnits(window, time.Minute)
	if time.Duration(mins)*time.Minute != window {
		s.Log().Info("Junos confirms in whole minutes: confirm window rounded up", zap.String("change", c.ID),
			zap.Duration("requested", window), zap.Int64("minutes", mins))
	}
	pending := &devcfg.Settle{
		Kind:     devcfg.SettleDevice,
		Deadline: time.Now().Add(time.Duration(mins) * time.Minute),
		Confirm: func(ctx context.Context) error {
			return s.CommitUnknown(onPending(ctx, s, "confirm", c.ID, "commit"+comment))
		},
		Rollback: func(ctx context.Context) error {
			return onPending(ctx, s, "rollback", c.ID, "rollback 1", `commit comment "rollback of `+c.ID+`"`)
		},
	}
	if _, err := s.Commit(ctx, "commit", fmt.Sprintf("commit confirmed %d%s", mins, comment)); err != nil {
		discard()
		if s.Is(err, devcfg.FailCommitUnknown) {
			return pending, err
		}
		return nil, err
	}
	s.SendQuiet(ctx, "commit", "exit configuration-mode")
	return pending, nil
}

// undo takes back change id, committed at once, with `rollback 1`:
// the configuration before it, exactly, as long as it is still the newest
// commit (its comment names it); otherwise the caller restores from its
// snapshot.
func undo(ctx context.Context, s devcfg.Session, id string) error {
	if err := s.Ensure(ctx); err != nil {
		return err
	}
	out, err := s.Read(ctx, "rollback", "show system commit")
	if err != nil {
		return err
	}
	if !strings.Contains(pendingComment(out), id) {
		return s.Fail("rollback", "", devcfg.FirstLine(out), devcfg.FailUnsupported, fmt.Errorf("change %s is no longer the newest commit", id))
	}
	if _, err := s.Send(ctx, "rollback", "configure exclusive"); err != nil {
		return s.Locked(err, "the configuration database is locked")
	}
	for _, l := range []string{"rollback 1", `commit comment "rollback of ` + id + `"`} {
		if _, err := s.Send(ctx, "rollback", l); err != nil {
			s.SendQuiet(ctx, "rollback", "rollback 0")
			s.SendQuiet(ctx, "rollback", "exit configuration-mode")
			return err
		}
	}
	s.SendQuiet(ctx, "rollback", "exit configuration-mode")
	return nil
}

// onPending runs configuration commands against change id's pending
// commit confirmed, after checking the device still waits for it: acting
// after Junos rolled back would commit nothing (or someone else's
// change).
func onPending(ctx context.Context, s devcfg.Session, step, id string, lines ...string) error {
	if err := s.Ensure(ctx); err != nil {
		return err
	}
	out, err := s.Read(ctx, step, "show system commit")
	if err != nil {
		return err
	}
	if !commitPending(out) || !strings.Contains(pendingComment(out), id) {
		return s.Fail(step, "", devcfg.FirstLine(out), devcfg.FailRejected, fmt.Errorf("no commit of change %s is waiting for confirmation; the device rolled it back or it was confirmed", id))
	}
	if _, err := s.Send(ctx, step, "configure exclusive"); err != nil {
		return s.Locked(err, "the configuration database is locked")
	}
	for _, l := range lines {
		if _, err := s.Send(ctx, step, l); err != nil {
			s.SendQuiet(ctx, step, "rollback 0")
			s.SendQuiet(ctx, step, "exit configuration-mode")
			return err
		}
	}
	s.SendQuiet(ctx, step, "exit configuration-mode")
	return nil
}

// commitPending reads `show system commit`: the newest entry says
// "commit confirmed, rollback in Nmins" while a confirmation is awaited.
func commitPending(out string) bool {
	return strings.Contains(devcfg.FirstLine(out), "rollback in")
}

// pendingComment is the comment of the newest commit: the indented
// lines under the first entry.
func pendingComment(out string) string {
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

// cleanup rolls back a run's commit confirmed (its prefix names its
// changes) if the device still waits for it; an uncommitted candidate
// Junos discarded when the run's session ended.
func cleanup(ctx context.Context, s devcfg.Session, c devcfg.Cleanup) error {
	out, err := s.Read(ctx, "cleanup", "show system commit")
	if err != nil {
		return err
	}
	if !commitPending(out) || !strings.Contains(pendingComment(out), c.Prefix) {
		return nil
	}
	return onPending(ctx, s, "cleanup", c.Prefix, "rollback 1", `commit comment "rollback of `+strings.TrimSuffix(c.Prefix, "-")+`"`)
}
