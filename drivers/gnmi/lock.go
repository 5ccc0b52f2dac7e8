package gnmi

import (
	"context"
	"errors"
	"fmt"
	"time"

	gnmipb "github.com/openconfig/gnmi/proto/gnmi"
	gnmiext "github.com/openconfig/gnmi/proto/gnmi_ext"
	"go.uber.org/zap"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
)

// heldFor is how long a change pushed without a confirm window waits under
// the target's commit timer: long enough for the caller's read-back, short
// enough that a rocefab that died after the Set leaves the target rolled
// back soon.
var heldFor = 2 * time.Minute

// commitID names a commit after its run, so that a runner refused by it is
// told whose it is and a later run can cancel what a dead one left.
func commitID(runID string) string {
	if runID == "" {
		return newCommitID()
	}
	return "rocefab-" + runID
}

// pushHeld pushes a change meant to take effect at once as a confirmed
// commit, which doubles as the device lock: while it waits, the target
// refuses every other commit and every Set without the extension ("If a
// SetRequest call is made without extension whilst an existing rollback
// counter is running then a FAILED PRECONDITION error is returned",
// gnmi-commit-confirmed.md, 3.2.1). The caller confirms once its read-back
// is right; a rocefab that dies first leaves the target rolling the
// change back by itself. The device is read again first and a push
// planned against another configuration is refused: a runner that waited
// for another's commit finds its plan stale.
func (d *Driver) pushHeld(ctx context.Context, req *gnmipb.SetRequest, patch devcfg.Patch, opt drivers.PushOptions) (drivers.Pending, error) {
	if err := d.checkExpect(ctx, opt.Expect); err != nil {
		return nil, err
	}
	id := commitID(opt.RunID)
	withExt := cloneSet(req)
	withExt.Extension = []*gnmiext.Extension{commitExt(id, &gnmiext.Commit_Commit{Commit: &gnmiext.CommitRequest{RollbackDuration: durationpbOf(heldFor)}})}
	err := d.setOnce(ctx, withExt, patch)
	if err != nil && !unanswered(err) {
		return nil, err
	}
	p := &extPending{d: d, id: id, held: true}
	d.mu.Lock()
	d.held = p
	d.mu.Unlock()
	if err != nil {
		return p, commitUnknown(err)
	}
	d.log.Info("pushed under the target's commit timer until read back", zap.String("set", patchSummary(patch)), zap.String("commit", id), zap.Duration("held_for", heldFor))
	return p, nil
}

// checkExpect refuses a push planned against another owned configuration.
func (d *Driver) checkExpect(ctx context.Context, expect string) error {
	if expect == "" {
		return nil
	}
	now, err := d.Fetch(ctx)
	if err != nil {
		return err
	}
	if now.Fingerprint != expect {
		return d.deviceErr("push", "", "", fmt.Errorf("%w: planned against %s, the device holds %s now", drivers.ErrStale, short(expect), short(now.Fingerprint)))
	}
	return nil
}

func short(fp string) string {
	if len(fp) > 12 {
		return fp[:12]
	}
	return fp
}

// keepHeld confirms a held change the caller neither confirmed nor rolled
// back, before the next push or on Close: the driver contract keeps it.
func (d *Driver) keepHeld(ctx context.Context) error {
	d.mu.Lock()
	p := d.held
	d.mu.Unlock()
	if p == nil {
		return nil
	}
	return p.Confirm(ctx)
}

// Cleanup cancels the commit a dead run left waiting on the target, so the
// target goes back to what it ran before that run without waiting for its
// timer (nobody is left to confirm it). Another run's commit is not
// touched: its ID differs.
func (d *Driver) Cleanup(ctx context.Context, runID string, _ bool) error {
	if !d.commitExt || runID == "" {
		return nil
	}
	p := &extPending{d: d, id: commitID(runID)}
	err := p.Rollback(ctx)
	if errors.Is(err, drivers.ErrRejected) {
		return nil // nothing of that run waits
	}
	return err
}

var _ drivers.Cleaner = (*Driver)(nil)
