package ssh

import (
	"context"
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/drivers"
)

// pushEOS types the lines into a configuration session named after the
// run, which changes nothing until commit; any failure aborts the
// session. A confirm window commits with `commit timer`, and EOS rolls
// back unless `configure session NAME commit` follows in time.
//
// The named session is also how runners see each other on the device: it
// is opened first, and while another rocefab session is open (pending, or
// committed under a timer) the push yields with ErrLocked naming it. EOS
// keeps uncommitted sessions across logins, so a session a dead runner
// left behind counts only for staleAfter. A commit whose answer is lost
// has run or not: the session is gone or still pending, and reading the
// device back tells. d.mu is held.
func (d *Driver) pushEOS(ctx context.Context, c change) (drivers.Pending, error) {
	if err := d.startCLIPush(ctx, c.patch); err != nil {
		return nil, err
	}
	if err := d.eosLock(ctx, c); err != nil {
		return nil, err
	}
	if err := d.checkExpect(ctx, c, false); err != nil {
		d.eosForget(ctx, c.id)
		return nil, err
	}
	if err := d.configure(ctx, "configure session "+c.id, c.patch.Lines, "", ""); err != nil {
		d.eosForget(ctx, c.id)
		return nil, err
	}
	window := c.opt.ConfirmWindow
	commit := "commit"
	var secs int64
	if window > 0 {
		secs = ceilUnits(window, time.Second)
		commit = "commit timer " + hms(secs)
	}
	pending := func() drivers.Pending {
		if window == 0 {
			return confirmed{id: c.id}
		}
		return d.newDevicePending(c.id, time.Duration(secs)*time.Second, "configure session "+c.id+" commit", "configure session "+c.id+" abort")
	}
	if _, err := d.commitSend(ctx, "commit", commit); err != nil {
		// Never committed: the session is removed. Committed: removing it
		// fails and changes nothing.
		d.eosForget(ctx, c.id)
		if drivers.CommitUnknown(err) {
			return pending(), err
		}
		return nil, err
	}
	if window > 0 {
		d.log.Info("change committed with a commit timer; EOS rolls it back unless confirmed", zap.String("change", c.id), zap.String("timer", hms(secs)))
	}
	return pending(), nil
}

// eosLock opens the run's session and yields to any other open rocefab
// session. Both of two runners starting at once may yield; each then
// retries after its own wait. d.mu is held.
func (d *Driver) eosLock(ctx context.Context, c change) error {
	// A session the device opened before the answer was lost is removed.
	if _, err := d.send(ctx, "lock", "configure session "+c.id); err != nil {
		d.eosForget(ctx, c.id)
		return err
	}
	if _, err := d.send(ctx, "lock", "end"); err != nil {
		d.eosForget(ctx, c.id)
		return err
	}
	out, err := d.readCommand(ctx, "lock", "show configuration sessions")
	if err != nil {
		d.eosForget(ctx, c.id)
		return err
	}
	for _, s := range eosSessions(out) {
		if s.name == c.id || !strings.HasPrefix(s.name, "rocefab-") {
			continue
		}
		timer := strings.Contains(strings.ToLower(s.state), "timer")
		if !timer && staleID(s.name, time.Now()) {
			continue
		}
		d.eosForget(ctx, c.id)
		return d.fail("lock", "", "", fmt.Errorf("%w: configuration session %s of another rocefab run is open (%s)", drivers.ErrLocked, s.name, s.state))
	}
	return nil
}

type eosSession struct{ name, state string }

// eosSessions reads `show configuration sessions`: a table of name and
// state under a dashed header, the current session marked with "*".
func eosSessions(out string) []eosSession {
	var list []eosSession
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
		list = append(list, eosSession{name: f[0], state: f[1]})
	}
	return list
}

// eosForget removes a session that was never committed so it does not
// linger on the device; a session committed meanwhile is gone already and
// one under a commit timer cannot be removed, so this changes no running
// configuration. d.mu is held.
func (d *Driver) eosForget(ctx context.Context, id string) {
	cctx, cancel := d.cleanupContext(ctx)
	defer cancel()
	if d.conn != nil {
		d.sendQuiet(cctx, "push", "abort")
	}
	if err := d.cleanupSend(cctx, "push", "no configure session "+id, "does not exist"); err != nil {
		d.log.Debug("removing the configuration session", zap.Error(err))
	}
}

// cleanupEOS removes a run's sessions (prefix names them): aborting one
// that waits under a commit timer (the run can no longer confirm it),
// removing one never committed. d.mu is held.
func (d *Driver) cleanupEOS(ctx context.Context, prefix string) error {
	out, err := d.readCommand(ctx, "cleanup", "show configuration sessions")
	if err != nil {
		return err
	}
	for _, s := range eosSessions(out) {
		if !strings.HasPrefix(s.name, prefix) {
			continue
		}
		if strings.Contains(strings.ToLower(s.state), "timer") {
			if _, err := d.send(ctx, "cleanup", "configure session "+s.name+" abort"); err != nil {
				return err
			}
			continue
		}
		d.sendQuiet(ctx, "cleanup", "no configure session "+s.name)
	}
	return nil
}
