package eos

import (
	"context"
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/devcfg"
)

// Dialect pushes EOS over SSH through a configuration session named after
// the change, committed at once or under a commit timer.
var Dialect = &devcfg.Dialect{
	Errors:     []string{"% Invalid", "% Error", "% Incomplete", "% Ambiguous", "% Cannot commit"},
	RejectMark: "% ", // EOS marks every refusal so
	Lines:      true,
	Push:       push,
	Cleanup:    cleanup,
}

// push types the lines into a configuration session named after the
// run, which changes nothing until commit; any failure aborts the
// session. A confirm window commits with `commit timer`, and EOS rolls
// back unless `configure session NAME commit` follows in time.
//
// The named session is also how runners see each other on the device: it
// is opened first, and while another rocefab session is open (pending, or
// committed under a timer) the push yields with a lock error naming it.
// EOS keeps uncommitted sessions across logins, so a session a dead runner
// left behind counts only for devcfg.StaleAfter. A commit whose answer is
// lost has run or not: the session is gone or still pending, and reading
// the device back tells.
func push(ctx context.Context, s devcfg.Session, c devcfg.Push) (*devcfg.Settle, error) {
	if err := lock(ctx, s, c); err != nil {
		return nil, err
	}
	if err := s.CheckExpect(ctx, s.ShowRunning()); err != nil {
		forget(ctx, s, c.ID)
		return nil, err
	}
	if err := s.Configure(ctx, "configure session "+c.ID, c.Patch.Lines, "", ""); err != nil {
		forget(ctx, s, c.ID)
		return nil, err
	}
	window := c.Window
	commit := "commit"
	var secs int64
	if window > 0 {
		secs = devcfg.CeilUnits(window, time.Second)
		commit = "commit timer " + hms(secs)
	}
	pending := func() *devcfg.Settle {
		if window == 0 {
			return &devcfg.Settle{Kind: devcfg.SettledNow}
		}
		confirmCmd, rollbackCmd := "configure session "+c.ID+" commit", "configure session "+c.ID+" abort"
		return &devcfg.Settle{
			Kind:     devcfg.SettleDevice,
			Deadline: time.Now().Add(time.Duration(secs) * time.Second),
			Confirm:  func(ctx context.Context) error { return s.CommitUnknown(s.SendFresh(ctx, "confirm", confirmCmd)) },
			Rollback: func(ctx context.Context) error { return s.SendFresh(ctx, "rollback", rollbackCmd) },
		}
	}
	if _, err := s.Commit(ctx, "commit", commit); err != nil {
		// Never committed: the session is removed. Committed: removing it
		// fails and changes nothing.
		forget(ctx, s, c.ID)
		if s.Is(err, devcfg.FailCommitUnknown) {
			return pending(), err
		}
		return nil, err
	}
	if window > 0 {
		s.Log().Info("change committed with a commit timer; EOS rolls it back unless confirmed", zap.String("change", c.ID), zap.String("timer", hms(secs)))
	}
	return pending(), nil
}

// hms formats seconds as EOS's hh:mm:ss.
func hms(secs int64) string {
	return fmt.Sprintf("%02d:%02d:%02d", secs/3600, secs/60%60, secs%60)
}

// lock opens the run's session and yields to any other open rocefab
// session. Both of two runners starting at once may yield; each then
// retries after its own wait.
func lock(ctx context.Context, s devcfg.Session, c devcfg.Push) error {
	// A session the device opened before the answer was lost is removed.
	if _, err := s.Send(ctx, "lock", "configure session "+c.ID); err != nil {
		forget(ctx, s, c.ID)
		return err
	}
	if _, err := s.Send(ctx, "lock", "end"); err != nil {
		forget(ctx, s, c.ID)
		return err
	}
	out, err := s.Read(ctx, "lock", "show configuration sessions")
	if err != nil {
		forget(ctx, s, c.ID)
		return err
	}
	for _, cs := range sessions(out) {
		if cs.name == c.ID || !strings.HasPrefix(cs.name, "rocefab-") {
			continue
		}
		timer := strings.Contains(strings.ToLower(cs.state), "timer")
		if !timer && devcfg.StaleID(cs.name, time.Now()) {
			continue
		}
		forget(ctx, s, c.ID)
		return s.Fail("lock", "", "", devcfg.FailLocked, fmt.Errorf("configuration session %s of another rocefab run is open (%s)", cs.name, cs.state))
	}
	return nil
}

type configSession struct{ name, state string }

// sessions reads `show configuration sessions`: a table of name and
// state under a dashed header, the current session marked with "*".
func sessions(out string) []configSession {
	var list []configSession
	body := false
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(l), "*"))
		switch {
		case len(f) == 0:
			continue
		case strings.HasPrefix(f[0], "---"):
			body = true
			continue
		case !body || len(f) < 2:
			continue
		}
		list = append(list, configSession{name: f[0], state: f[1]})
	}
	return list
}

// forget removes a session that was never committed so it does not
// linger on the device; a session committed meanwhile is gone already and
// one under a commit timer cannot be removed, so this changes no running
// configuration.
func forget(ctx context.Context, s devcfg.Session, id string) {
	cctx, cancel := s.CleanupContext(ctx)
	defer cancel()
	if s.Connected() {
		s.SendQuiet(cctx, "push", "abort")
	}
	if err := s.CleanupSend(cctx, "push", "no configure session "+id, "does not exist"); err != nil {
		s.Log().Debug("removing the configuration session", zap.Error(err))
	}
}

// cleanup removes a run's sessions (its prefix names them): aborting one
// that waits under a commit timer (the run can no longer confirm it),
// removing one never committed.
func cleanup(ctx context.Context, s devcfg.Session, c devcfg.Cleanup) error {
	out, err := s.Read(ctx, "cleanup", "show configuration sessions")
	if err != nil {
		return err
	}
	for _, cs := range sessions(out) {
		if !strings.HasPrefix(cs.name, c.Prefix) {
			continue
		}
		if strings.Contains(strings.ToLower(cs.state), "timer") {
			if _, err := s.Send(ctx, "cleanup", "configure session "+cs.name+" abort"); err != nil {
				return err
			}
			continue
		}
		s.SendQuiet(ctx, "cleanup", "no configure session "+cs.name)
	}
	return nil
}
