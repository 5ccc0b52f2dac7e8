package daemon

import (
	"context"
	"sync"
)

// deviceLocks keeps two runs off the same device. A run takes all its
// devices at once, so runs never deadlock; waiting runs are served in
// arrival order where their devices overlap, so a fleet-wide check is not
// starved by a stream of small runs.
type deviceLocks struct {
	mu      sync.Mutex
	held    map[string]string // device -> run ID
	waiting []*lockWaiter
	changed chan struct{} // closed whenever locks are released
}

type lockWaiter struct {
	devices map[string]bool
}

func newDeviceLocks() *deviceLocks {
	return &deviceLocks{held: map[string]string{}, changed: make(chan struct{})}
}

// acquire waits until every device is free, then holds them for runID.
func (l *deviceLocks) acquire(ctx context.Context, runID string, devices []string) (release func(), err error) {
	w := &lockWaiter{devices: make(map[string]bool, len(devices))}
	for _, d := range devices {
		w.devices[d] = true
	}
	l.mu.Lock()
	l.waiting = append(l.waiting, w)
	l.mu.Unlock()
	for {
		l.mu.Lock()
		if l.free(w) {
			for d := range w.devices {
				l.held[d] = runID
			}
			l.dropWaiter(w)
			l.mu.Unlock()
			return func() { l.release(w) }, nil
		}
		wait := l.changed
		l.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			l.mu.Lock()
			l.dropWaiter(w)
			l.broadcast() // a later waiter may have been queued behind us
			l.mu.Unlock()
			return nil, ctx.Err()
		}
	}
}

// free: none of w's devices is held, nor wanted by an earlier waiter.
func (l *deviceLocks) free(w *lockWaiter) bool {
	for d := range w.devices {
		if _, ok := l.held[d]; ok {
			return false
		}
	}
	for _, earlier := range l.waiting {
		if earlier == w {
			break
		}
		for d := range w.devices {
			if earlier.devices[d] {
				return false
			}
		}
	}
	return true
}

func (l *deviceLocks) dropWaiter(w *lockWaiter) {
	for i, x := range l.waiting {
		if x == w {
			l.waiting = append(l.waiting[:i], l.waiting[i+1:]...)
			return
		}
	}
}

func (l *deviceLocks) release(w *lockWaiter) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for d := range w.devices {
		delete(l.held, d)
	}
	l.broadcast()
}

func (l *deviceLocks) broadcast() {
	close(l.changed)
	l.changed = make(chan struct{})
}

// holder is the run holding a device, "" if none.
func (l *deviceLocks) holder(device string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.held[device]
}
