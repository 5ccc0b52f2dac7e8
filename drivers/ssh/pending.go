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

// devicePending is a change the device itself rolls back unless confirmed
// in time (Junos commit confirmed, EOS commit timer, NVUE apply --confirm).
type devicePending struct {
	d        *Driver
	id       string
	deadline time.Time
	confirm  func(ctx context.Context) error
	rollback func(ctx context.Context) error

	mu    sync.Mutex
	state pendingState
}

func (p *devicePending) ID() string { return p.id }

func (p *devicePending) Confirm(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch p.state {
	case stateConfirmed:
		return nil
	case stateRolledBack:
		return p.d.fail("confirm", "", "", fmt.Errorf("%w: change %s was rolled back", drivers.ErrRejected, p.id))
	}
	p.d.mu.Lock()
	defer p.d.mu.Unlock()
	if err := p.confirm(ctx); err != nil {
		if time.Now().After(p.deadline) {
			p.state = stateRolledBack
			return errors.Join(p.d.fail("confirm", "", "", fmt.Errorf("%w: the confirm window of change %s ended and the device rolled it back", drivers.ErrRejected, p.id)), err)
		}
		return err
	}
	p.state = stateConfirmed
	p.d.log.Info("change confirmed", zap.String("change", p.id))
	return nil
}

func (p *devicePending) Rollback(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch p.state {
	case stateRolledBack:
		return nil
	case stateConfirmed:
		return p.d.fail("rollback", "", "", fmt.Errorf("%w: change %s is already confirmed", drivers.ErrUnsupported, p.id))
	}
	p.d.mu.Lock()
	defer p.d.mu.Unlock()
	if time.Now().After(p.deadline) {
		// The device has already rolled back by itself.
		p.state = stateRolledBack
		return nil
	}
	if err := p.rollback(ctx); err != nil {
		return err
	}
	p.state = stateRolledBack
	p.d.log.Info("change rolled back", zap.String("change", p.id))
	return nil
}

// localPending is a change rocefab itself rolls back when its window ends,
// for platforms that cannot (NX-OS checkpoints, SONiC config checkpoints).
// The timer lives in this process: if the process dies, the change stays.
type localPending struct {
	d       *Driver
	id      string
	restore func(ctx context.Context) error // back to the checkpoint
	discard func(ctx context.Context) error // drop the checkpoint
	timer   *time.Timer

	mu    sync.Mutex
	state pendingState
	// expired records the outcome of a rollback the timer made.
	expired error
}

// startLocalPending arms the rocefab-side timer. d.mu must be held.
func (d *Driver) startLocalPending(id string, window time.Duration, restore, discard func(context.Context) error) *localPending {
	p := &localPending{d: d, id: id, restore: restore, discard: discard}
	d.pending[p] = struct{}{}
	p.timer = time.AfterFunc(window, p.expire)
	d.log.Info("change pending confirmation; rocefab rolls it back when the window ends", zap.String("change", id), zap.Duration("window", window))
	return p
}

func (p *localPending) ID() string { return p.id }

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
	p.state = stateRolledBack
	p.expired = err
	if err != nil {
		p.d.log.Error("confirm window ended but the rollback failed: the device keeps the unconfirmed change", zap.String("change", p.id), zap.Error(err))
		return
	}
	p.d.log.Warn("confirm window ended without confirmation: change rolled back", zap.String("change", p.id))
}

func (p *localPending) Confirm(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch p.state {
	case stateConfirmed:
		return nil
	case stateRolledBack:
		return p.d.fail("confirm", "", "", fmt.Errorf("%w: change %s was rolled back when its confirm window ended", drivers.ErrRejected, p.id))
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
	switch p.state {
	case stateRolledBack:
		return p.expired
	case stateConfirmed:
		return p.d.fail("rollback", "", "", fmt.Errorf("%w: change %s is already confirmed", drivers.ErrUnsupported, p.id))
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
