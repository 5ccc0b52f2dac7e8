package ssh

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/drivers"
)

// confirmed is the Pending of a change committed at once.
type confirmed struct{ id string }

func (c confirmed) ID() string                    { return c.id }
func (c confirmed) Confirm(context.Context) error { return nil }
func (c confirmed) Rollback(context.Context) error {
	return fmt.Errorf("%w: change %s was committed without a confirm window; push the previous configuration instead", drivers.ErrUnsupported, c.id)
}

type pendingState int

const (
	statePending pendingState = iota
	stateConfirmed
	stateRolledBack
)

func (s pendingState) String() string {
	switch s {
	case stateConfirmed:
		return "confirmed"
	case stateRolledBack:
		return "rolled back"
	}
	return "pending"
}

// pendingChange is what both kinds of pending change keep.
type pendingChange struct {
	d  *Driver
	id string

	mu    sync.Mutex
	state pendingState
	// expired is set when the confirm window ended first, with the outcome
	// of the rollback that followed (nil when it succeeded).
	expired   bool
	expiryErr error
}

func (p *pendingChange) ID() string { return p.id }

// settled answers Confirm (want stateConfirmed) or Rollback (want
// stateRolledBack) of a change that is no longer pending; done is false
// while it still is. p.mu must be held.
func (p *pendingChange) settled(want pendingState) (err error, done bool) {
	switch {
	case p.state == statePending:
		return nil, false
	case p.state == stateRolledBack && want == stateRolledBack:
		return p.expiryErr, true
	case p.state == want:
		return nil, true
	case want == stateConfirmed:
		how := ""
		if p.expired {
			how = " when its confirm window ended"
		}
		return p.d.fail("confirm", "", "", fmt.Errorf("%w: change %s was rolled back%s", drivers.ErrRejected, p.id, how)), true
	}
	return p.d.fail("rollback", "", "", fmt.Errorf("%w: change %s is already confirmed", drivers.ErrUnsupported, p.id)), true
}

// devicePending is a change the device itself rolls back unless confirmed
// in time (a commit confirmed, a commit timer: devcfg.SettleDevice).
type devicePending struct {
	pendingChange
	deadline time.Time
	confirm  func(ctx context.Context) error
	rollback func(ctx context.Context) error
	// done, when set, runs after the change is settled (a lock release).
	done func(ctx context.Context)
	// leftovers, when set, removes what the device keeps after rolling
	// back by itself (a checkpoint, a replace file).
	leftovers func(ctx context.Context)
}

func (p *devicePending) settle(ctx context.Context) {
	if p.done != nil && p.d.conn != nil {
		p.done(ctx)
	}
}

func (p *devicePending) Confirm(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err, done := p.settled(stateConfirmed); done {
		return err
	}
	p.d.mu.Lock()
	defer p.d.mu.Unlock()
	if err := p.confirm(ctx); err != nil {
		// A device that says nothing waits for confirmation (a refusal, not
		// a lost answer) has ended the window, whatever rocefab's clock
		// says.
		if time.Now().After(p.deadline) || (errors.Is(err, drivers.ErrRejected) && !drivers.CommitUnknown(err)) {
			p.state, p.expired = stateRolledBack, true
			if p.leftovers != nil {
				p.leftovers(ctx)
			}
			p.settle(ctx)
			return errors.Join(p.d.fail("confirm", "", "", fmt.Errorf("%w: the confirm window of change %s ended and the device rolled it back", drivers.ErrRejected, p.id)), err)
		}
		return err
	}
	p.state = stateConfirmed
	p.settle(ctx)
	p.d.log.Info("change confirmed", zap.String("change", p.id))
	return nil
}

func (p *devicePending) Rollback(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err, done := p.settled(stateRolledBack); done {
		return err
	}
	p.d.mu.Lock()
	defer p.d.mu.Unlock()
	if err := p.rollback(ctx); err != nil {
		if !time.Now().After(p.deadline) {
			return err
		}
		// The window is over: the device rolled back by itself, and what
		// the rollback command left to do (remove a session, a file) the
		// next run cleans up. Reading the device back confirms.
		p.d.log.Debug("rollback after the confirm window", zap.String("change", p.id), zap.Error(err))
		p.expired = true
	}
	p.state = stateRolledBack
	p.settle(ctx)
	p.d.log.Info("change rolled back", zap.String("change", p.id))
	return nil
}

// localPending is a change rocefab itself rolls back when its window ends,
// for platforms that cannot (devcfg.SettleLocal: checkpoints only).
// The timer lives in this process: if the process dies, the change stays.
type localPending struct {
	pendingChange
	restore func(ctx context.Context) error // back to the checkpoint
	discard func(ctx context.Context) error // drop the checkpoint
	timer   *time.Timer
}

// startLocalPending arms the rocefab-side timer. d.mu must be held.
func (d *Driver) startLocalPending(id string, window time.Duration, restore, discard func(context.Context) error) *localPending {
	p := &localPending{pendingChange: pendingChange{d: d, id: id}, restore: restore, discard: discard}
	d.pending[p] = struct{}{}
	p.timer = time.AfterFunc(window, p.expire)
	d.log.Info("change pending confirmation; rocefab rolls it back when the window ends", zap.String("change", id), zap.Duration("window", window))
	return p
}

func (p *localPending) expire() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.state != statePending {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*p.d.opt.Timeout)
	defer cancel()
	p.d.mu.Lock()
	err := p.restore(ctx)
	delete(p.d.pending, p)
	p.d.mu.Unlock()
	p.state, p.expired, p.expiryErr = stateRolledBack, true, err
	if err != nil {
		p.d.log.Error("confirm window ended but the rollback failed: the device keeps the unconfirmed change", zap.String("change", p.id), zap.Error(err))
		return
	}
	p.d.log.Warn("confirm window ended without confirmation: change rolled back", zap.String("change", p.id))
}

func (p *localPending) Confirm(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err, done := p.settled(stateConfirmed); done {
		return err
	}
	p.timer.Stop()
	p.d.mu.Lock()
	defer p.d.mu.Unlock()
	delete(p.d.pending, p)
	p.state = stateConfirmed
	if err := p.discard(ctx); err != nil {
		// The change stands; only the checkpoint is left behind.
		p.d.log.Warn("change confirmed, but its checkpoint could not be removed", zap.String("change", p.id), zap.Error(err))
	}
	p.d.log.Info("change confirmed", zap.String("change", p.id))
	return nil
}

func (p *localPending) Rollback(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err, done := p.settled(stateRolledBack); done {
		return err
	}
	p.timer.Stop()
	p.d.mu.Lock()
	defer p.d.mu.Unlock()
	if err := p.restore(ctx); err != nil {
		// Keep it pending: the timer's job is not done. Re-arm it.
		p.timer.Reset(time.Second)
		return err
	}
	delete(p.d.pending, p)
	p.state = stateRolledBack
	p.d.log.Info("change rolled back", zap.String("change", p.id))
	return nil
}

// heldPending is a change committed at once whose exact restore point the
// driver keeps until the caller has read the device back
// (devcfg.SettleHeld: a checkpoint, a rollback to the previous commit):
// Confirm drops it, Rollback restores it. A
// later Push or Close on the driver confirms it. A restore built
// from a diff of rocefab's own lines could leave what the device generated
// alongside them; the checkpoint cannot.
type heldPending struct {
	pendingChange
	restore func(ctx context.Context) error
	discard func(ctx context.Context) error
	// reverts: the device rolls the change back by itself unless discard
	// confirms it in time (devcfg.Settle.Reverts).
	reverts bool
}

// newHeldPending registers a held change. d.mu is held.
func (d *Driver) newHeldPending(id string, restore, discard func(context.Context) error, reverts bool) *heldPending {
	p := &heldPending{pendingChange: pendingChange{d: d, id: id}, restore: restore, discard: discard, reverts: reverts}
	d.held[p] = struct{}{}
	return p
}

// Reverts: see drivers.Reverting.
func (p *heldPending) Reverts() bool { return p.reverts }

// Reverts: the device rolls the change back unless confirmed in time.
func (p *devicePending) Reverts() bool { return true }

func (p *heldPending) Confirm(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err, done := p.settled(stateConfirmed); done {
		return err
	}
	p.d.mu.Lock()
	defer p.d.mu.Unlock()
	if p.reverts {
		return p.confirmReverting(ctx)
	}
	p.state = stateConfirmed
	delete(p.d.held, p)
	if err := p.discard(ctx); err != nil {
		// The change stands; only the restore point is left behind.
		p.d.log.Warn("change kept, but its checkpoint could not be removed", zap.String("change", p.id), zap.Error(err))
	}
	return nil
}

// confirmReverting stops the device's rollback timer. An unanswered
// confirmation keeps the change held (the caller reads the device back); a
// refused one means the timer had run out and the device rolled back.
// p.mu and p.d.mu are held.
func (p *heldPending) confirmReverting(ctx context.Context) error {
	err := p.discard(ctx)
	switch {
	case err == nil:
		p.state = stateConfirmed
	case errors.Is(err, drivers.ErrRejected) && !drivers.CommitUnknown(err):
		p.state, p.expired = stateRolledBack, true
		err = errors.Join(p.d.fail("confirm", "", "", fmt.Errorf("%w: the device's rollback timer of change %s ran out and it rolled the change back", drivers.ErrRejected, p.id)), err)
	default:
		return err
	}
	delete(p.d.held, p)
	return err
}

func (p *heldPending) Rollback(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err, done := p.settled(stateRolledBack); done {
		return err
	}
	p.d.mu.Lock()
	defer p.d.mu.Unlock()
	if err := p.restore(ctx); err != nil {
		return err
	}
	p.state = stateRolledBack
	delete(p.d.held, p)
	p.d.log.Info("change rolled back to its checkpoint", zap.String("change", p.id))
	return nil
}
