package engine

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"go.uber.org/zap"
	"golang.org/x/sync/errgroup"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/intent"
)

// DefaultVerifyWindow keeps commits pending while the probe verifies them
// when apply --verify is given without --confirm-timeout.
const DefaultVerifyWindow = 10 * time.Minute

// ApplyOptions control an apply.
type ApplyOptions struct {
	// AllowDisruptive permits traffic-affecting changes.
	AllowDisruptive bool
	// Canary applies to the first N devices, verifies them, then the rest.
	Canary int
	// StopOnFailure leaves every device not yet started untouched after
	// the first failure; otherwise the others continue.
	StopOnFailure bool
	// ConfirmWindow keeps commits pending until Verify passes; without
	// Confirm they roll back by themselves when the window ends.
	ConfirmWindow time.Duration
	// Verify checks the fabric after a wave of pushes (the probe). Nil
	// confirms after a clean read-back.
	Verify func(ctx context.Context, devices []string) (VerifyResult, error)
	// Store keeps the run report, the snapshots and the device records;
	// empty uses the engine's.
	Store RunStore
	// RunID names the run; empty makes a new ID.
	RunID string
	// Locks are device locks the caller already holds for this run (apply
	// takes them before it plans); the others are taken device by device.
	Locks *DeviceLocks
	// LockWait bounds how long a device held by another run (in the state
	// directory or on the device itself) is waited for before it is
	// refused, naming the holder.
	LockWait time.Duration
	// Intent is the resolved intent the plan came from, for hosts; nil for
	// a saved plan.
	Intent *intent.Resolved
	// Recorded in the report.
	Options map[string]string
}

// applied is a device pushed in this run, with its commit still pending
// when a confirm window is used.
type applied struct {
	idx     int
	drv     drivers.Driver
	pending drivers.Pending
	// before is the device's owned config read just before the push.
	before *drivers.Running
}

// Apply executes a plan exactly: each device gets an atomic push of the
// planned patch, refused if the device changed since the plan was made,
// checked by read-back, and rolled back if the read-back or the
// verification fails. The report is written to the run store before the
// first push and again as each device progresses, so a run killed in the
// middle is found (RunStore.LoadReport says interrupted) and rolled back
// or recovered by the next run on its devices. A commit whose answer is
// lost is read back: committed (then verified like any other), not
// committed, or unknown.
func (e *Engine) Apply(ctx context.Context, p *compliance.Plan, opt ApplyOptions) (*RunReport, error) {
	if opt.Verify != nil && opt.ConfirmWindow == 0 {
		opt.ConfirmWindow = DefaultVerifyWindow
	}
	if opt.Store.Dir == "" {
		opt.Store = e.opt.Store
	}
	id := opt.RunID
	if id == "" {
		id = NewRunID(e.opt.Now())
	}
	user, host := Actor()
	rep := &RunReport{
		SchemaVersion: RunSchema, ID: id, Kind: KindApply,
		StartedAt: e.opt.Now().UTC(), Intent: p.Intent, User: user, Hostname: host, Options: opt.Options,
	}
	var todo []int
	for _, dp := range p.Devices {
		rep.Devices = append(rep.Devices, DeviceRun{
			Device: dp.Device, Kind: dp.Kind, Platform: dp.Platform, Transport: dp.Transport,
			Address: dp.Address, Connection: dp.Connection, Changes: len(dp.Changes),
			Outcome: OutcomePending, Phase: PhasePending,
		})
		i := len(rep.Devices) - 1
		set := func(o Outcome, reason string) {
			rep.Devices[i].Outcome, rep.Devices[i].Reason, rep.Devices[i].Phase = o, reason, PhaseDone
		}
		switch {
		case dp.Status == compliance.StatusConflict:
			set(OutcomeRefused, fmt.Sprintf("%v: %s", ErrConflict, conflictText(dp.Conflicts)))
		case dp.Status == compliance.StatusError || dp.Status == compliance.StatusUnreachable:
			set(OutcomeFailed, "not planned: "+dp.Error)
		case dp.Status != compliance.StatusChanges && dp.Status != compliance.StatusDrifted:
			set(OutcomeNoChanges, "")
		case dp.Disruptive() && !opt.AllowDisruptive:
			set(OutcomeRefused, ErrDisruptive.Error()+": "+disruptiveText(&dp))
		default:
			todo = append(todo, i)
		}
	}
	run, err := opt.Store.begin(rep)
	if err != nil {
		return rep, fmt.Errorf("writing the run report before the first push: %w", err)
	}
	locks := opt.Locks
	if locks == nil {
		locks = opt.Store.NewDeviceLocks(id)
		defer locks.Release()
	}
	waves := [][]int{todo}
	if opt.Canary > 0 && opt.Canary < len(todo) {
		waves = [][]int{todo[:opt.Canary], todo[opt.Canary:]}
	}
	e.progressStart("apply", len(todo))
	stopped := false
	for w, wave := range waves {
		if stopped {
			for _, i := range wave {
				e.setOutcome(run, i, OutcomeSkipped, "not attempted: an earlier device or the canary failed")
			}
			continue
		}
		ok := e.applyWave(ctx, p, run, wave, opt, locks)
		if !ok && (opt.StopOnFailure || (opt.Canary > 0 && w == 0 && len(waves) > 1)) {
			stopped = true
		}
	}
	e.progressFinish()
	var endErr error
	if uerr := run.Update(func(r *RunReport) { r.finish(e.opt.Now()) }); uerr != nil {
		endErr = fmt.Errorf("saving run report: %w", uerr)
	}
	if err := run.End(); err != nil && endErr == nil {
		endErr = fmt.Errorf("saving run report: %w", err)
	}
	if endErr != nil {
		return rep, endErr
	}
	return rep, ctx.Err()
}

// begin starts the write-ahead record of a run; without a state directory
// the report lives in memory only.
func (s RunStore) begin(rep *RunReport) (*ActiveRun, error) {
	if s.Dir == "" {
		rep.SchemaVersion, rep.Status = RunSchema, StatusRunning
		return &ActiveRun{rep: rep}, nil
	}
	return s.Begin(rep)
}

// applyWave pushes a wave with bounded parallelism, then verifies and
// confirms or rolls back its pending commits. It reports whether every
// device in the wave ended applied.
func (e *Engine) applyWave(ctx context.Context, p *compliance.Plan, run *ActiveRun, wave []int, opt ApplyOptions, locks *DeviceLocks) bool {
	var (
		mu      sync.Mutex
		pending []applied
		failed  bool
	)
	g, gctx := errgroup.WithContext(context.WithoutCancel(ctx))
	g.SetLimit(e.opt.Parallelism)
	for _, i := range wave {
		mu.Lock()
		stop := failed && opt.StopOnFailure
		mu.Unlock()
		if stop || ctx.Err() != nil {
			e.setOutcome(run, i, OutcomeSkipped, "not attempted: stopped after a failure")
			continue
		}
		g.Go(func() error {
			mu.Lock()
			stop := failed && opt.StopOnFailure
			mu.Unlock()
			if stop {
				// A slot opened only after an earlier device failed.
				e.setOutcome(run, i, OutcomeSkipped, "not attempted: stopped after a failure")
				return nil
			}
			a, ok := e.applyDevice(gctx, run, p, i, opt, locks)
			mu.Lock()
			if ok && a != nil {
				pending = append(pending, *a)
			}
			failed = failed || !ok
			mu.Unlock()
			e.progressDone(p.Devices[i].Device, !ok)
			return nil
		})
	}
	_ = g.Wait()
	if len(pending) == 0 {
		return !failed
	}
	var names []string
	for _, a := range pending {
		names = append(names, p.Devices[a.idx].Device)
	}
	confirm := true
	if opt.Verify != nil {
		res, err := opt.Verify(ctx, names)
		if err != nil {
			res = VerifyResult{Passed: false, Summary: "verification could not run: " + err.Error()}
		}
		_ = run.Update(func(r *RunReport) { r.Verify = &res })
		confirm = res.Passed
	}
	allOK := true
	for _, a := range pending {
		if !e.finishPending(ctx, p, run, a, confirm, opt, locks) {
			allOK = false
		}
	}
	return !failed && confirm && allOK
}

// finishPending confirms or rolls back a device's pending commit and reads
// the device back: the read-back, not the answer to the confirmation,
// says what the device runs. It reports whether the device ended applied.
func (e *Engine) finishPending(ctx context.Context, p *compliance.Plan, run *ActiveRun, a applied, confirm bool, opt ApplyOptions, locks *DeviceLocks) bool {
	dp := &p.Devices[a.idx]
	defer locks.Unlock(dp.Device)
	defer a.drv.Close()
	if confirm {
		return e.settleConfirm(ctx, run, opt, a.idx, dp, a.drv, a.pending, a.before, a.pending.Confirm(ctx), "")
	}
	reason := "verification failed"
	run.Read(func(r *RunReport) {
		if r.Verify != nil {
			reason += ": " + r.Verify.Summary
		}
	})
	outcome := OutcomeRolledBack
	if err := e.undo(ctx, a.drv, a.pending, dp, a.before, run.ID()); err != nil {
		reason += "; rollback failed, the device may hold part of the change (run drift): " + err.Error()
		outcome = OutcomeFailed
	}
	e.settle(run, opt.Store, a.idx, dp.Device, outcome, reason)
	return false
}

// settleConfirm settles a change whose confirmation answered err: the
// read-back, not the answer, says what the device runs. note prefixes the
// outcome's reason.
func (e *Engine) settleConfirm(ctx context.Context, run *ActiveRun, opt ApplyOptions, i int, dp *compliance.DevicePlan, drv drivers.Driver, pending drivers.Pending, before *drivers.Running, err error, note string) bool {
	if drivers.CommitUnknown(err) {
		// Asked again, the device either confirms or says nothing waits.
		err = pending.Confirm(ctx)
	}
	state, after, rerr := e.readState(ctx, drv, dp, before)
	switch {
	case state == stateNew && (err == nil || !drivers.CommitUnknown(err)):
		if err != nil {
			e.log.Info("the device no longer waits for confirmation and holds the change: an earlier confirmation took effect", zap.String("device", dp.Device), zap.Error(err))
		}
		e.settleApplied(run, opt.Store, i, dp, after)
		if note != "" {
			_ = run.Update(func(r *RunReport) { r.Devices[i].Reason = note })
		}
		return true
	case state == stateOld:
		reason := "confirm failed and the device rolled the change back"
		if err != nil {
			reason += ": " + deviceMessage(dp.Device, err)
		}
		e.settle(run, opt.Store, i, dp.Device, OutcomeRolledBack, joinReason(note, reason))
		return false
	default:
		reason := "the confirmation went unanswered and the device could not be told apart (it rolls the change back by itself when its commit timer ends, unless the confirmation took effect): read it again with drift"
		if rerr != nil {
			reason += "; read-back: " + rerr.Error()
		}
		e.settleUnknown(run, opt.Store, i, dp.Device, joinReason(note, reason))
		return false
	}
}

// applyDevice pushes one device. It returns the pending commit to confirm
// later (nil when already final) and whether the device succeeded so far.
func (e *Engine) applyDevice(ctx context.Context, run *ActiveRun, p *compliance.Plan, i int, opt ApplyOptions, locks *DeviceLocks) (*applied, bool) {
	dp := &p.Devices[i]
	start := e.opt.Now()
	_ = run.Update(func(r *RunReport) { r.Devices[i].StartedAt = start.UTC() })
	defer func() {
		_ = run.Update(func(r *RunReport) { r.Devices[i].DurationMS = e.opt.Now().Sub(start).Milliseconds() })
	}()
	log := e.log.With(zap.String("device", dp.Device))

	if dp.Kind == "host" {
		if e.hosts == nil {
			e.setOutcome(run, i, OutcomeFailed, "no host runner configured")
			return nil, false
		}
		if err := e.hosts.ApplyHost(ctx, opt.Intent, *dp); err != nil {
			e.setOutcome(run, i, OutcomeFailed, deviceMessage(dp.Device, err))
			return nil, false
		}
		e.setOutcome(run, i, OutcomeApplied, "")
		return nil, true
	}
	if dp.Desired == nil {
		e.setOutcome(run, i, OutcomeFailed, "the plan holds no desired configuration for this device")
		return nil, false
	}
	// One writer per device: the state directory's lock, across processes.
	if err := locks.Lock(ctx, KindApply, opt.LockWait, dp.Device); err != nil {
		e.setOutcome(run, i, OutcomeRefused, deviceMessage(dp.Device, err))
		return nil, false
	}
	keepLock := false
	defer func() {
		if !keepLock {
			locks.Unlock(dp.Device)
		}
	}()
	drv, err := e.openDriver(ctx, dp, dp.Desired.Owned)
	if err != nil {
		e.setOutcome(run, i, OutcomeFailed, deviceMessage(dp.Device, err))
		return nil, false
	}
	keepOpen := false
	defer func() {
		if !keepOpen {
			drv.Close()
		}
	}()
	// An earlier run interrupted here is read back and settled first.
	if a := opt.Store.Interrupted(dp.Device); a != nil && a.Run != run.ID() {
		note := e.recoverDevice(ctx, opt.Store, drv, dp, a, run.ID())
		_ = run.Update(func(r *RunReport) { r.Devices[i].Reason = note })
	}
	before, err := e.fetch(ctx, drv)
	if err != nil {
		e.setOutcome(run, i, OutcomeFailed, deviceMessage(dp.Device, err))
		return nil, false
	}
	if before.Fingerprint != dp.Fingerprint {
		e.setOutcome(run, i, OutcomeRefused, fmt.Sprintf("%v: plan %s, device now %s; run plan again", ErrStalePlan, short(dp.Fingerprint), short(before.Fingerprint)))
		return nil, false
	}
	if opt.Store.Dir != "" {
		snap := before.Owned.Clone()
		snap.Device, snap.Platform, snap.Owned = dp.Device, dp.Platform, dp.Desired.Owned.Clone()
		path, err := opt.Store.SaveSnapshot(run.ID(), dp.Device, snap)
		if err != nil {
			e.setOutcome(run, i, OutcomeFailed, "snapshot: "+err.Error())
			return nil, false
		}
		want := dp.Desired.Clone()
		want.Device, want.Platform = dp.Device, dp.Platform
		wantPath, err := opt.Store.SaveDesired(run.ID(), dp.Device, want)
		if err != nil {
			e.setOutcome(run, i, OutcomeFailed, "desired config: "+err.Error())
			return nil, false
		}
		_ = run.Update(func(r *RunReport) { r.Devices[i].Snapshot, r.Devices[i].Desired = path, wantPath })
	}
	// Written ahead: killed from here on, the run is found interrupted on
	// this device.
	e.markActive(run, opt.Store, i, dp.Device, PhasePushing)
	pending, err := e.push(ctx, drv, dp, run.ID(), opt)
	if err != nil && drivers.CommitUnknown(err) {
		return e.resolveUnknown(ctx, run, opt, i, dp, drv, pending, before, err, &keepOpen, &keepLock)
	}
	if err != nil {
		log.Warn("push failed", zap.Error(err))
		switch {
		case errors.Is(err, drivers.ErrStale):
			e.settle(run, opt.Store, i, dp.Device, OutcomeRefused, fmt.Sprintf("%v: %s; run plan again", ErrStalePlan, deviceMessage(dp.Device, err)))
		case errors.Is(err, drivers.ErrLocked):
			e.settle(run, opt.Store, i, dp.Device, OutcomeRefused, deviceMessage(dp.Device, err))
		default:
			e.settle(run, opt.Store, i, dp.Device, OutcomeFailed, deviceMessage(dp.Device, err)+" (device left unchanged)")
		}
		return nil, false
	}
	return e.readBack(ctx, run, opt, i, dp, drv, pending, before, "", &keepOpen, &keepLock)
}

// push sends the patch, retrying with a jittered wait while the device
// itself is locked by another run, up to opt.LockWait.
func (e *Engine) push(ctx context.Context, drv drivers.Driver, dp *compliance.DevicePlan, runID string, opt ApplyOptions) (drivers.Pending, error) {
	deadline := time.Now().Add(opt.LockWait)
	for attempt := 0; ; attempt++ {
		pushCtx, cancel := context.WithTimeout(ctx, e.pushBudget(dp.Patch))
		pending, err := drv.Push(pushCtx, dp.Patch, drivers.PushOptions{ConfirmWindow: opt.ConfirmWindow, RunID: runID, Expect: dp.Fingerprint, Changes: dp.Changes})
		cancel()
		if !errors.Is(err, drivers.ErrLocked) || !time.Now().Before(deadline) {
			return pending, err
		}
		wait := time.Duration(50+rand.IntN(200)) * time.Millisecond << min(attempt, 4)
		e.log.Info("device locked by another run; waiting", zap.String("device", dp.Device), zap.Duration("wait", wait), zap.Error(err))
		select {
		case <-ctx.Done():
			return nil, errors.Join(err, ctx.Err())
		case <-time.After(min(wait, time.Until(deadline)+time.Millisecond)):
		}
	}
}

// readBack checks a pushed device against the intent and undoes the push
// when it differs. note prefixes the outcome's reason.
func (e *Engine) readBack(ctx context.Context, run *ActiveRun, opt ApplyOptions, i int, dp *compliance.DevicePlan, drv drivers.Driver, pending drivers.Pending, before *drivers.Running, note string, keepOpen, keepLock *bool) (*applied, bool) {
	after, err := e.fetch(ctx, drv)
	var leftover []devcfg.Change
	if err == nil {
		leftover = devcfg.Diff(dp.Desired, after.Owned, e.syntax(dp.Platform), nil)
	}
	if err != nil || len(leftover) > 0 {
		reason := "read-back failed"
		if err != nil {
			reason += ": " + err.Error()
		} else {
			reason = fmt.Sprintf("read-back still differs from the intent (%d change(s), first: %s %s)", len(leftover), leftover[0].Action.Symbol(), leftover[0].Where())
		}
		if rbErr := e.undo(ctx, drv, pending, dp, before, run.ID()); rbErr != nil {
			// Neither the change nor the snapshot is known to be in effect:
			// unknown, so drift warns and the next apply reads it back first.
			reason += "; rollback failed, the device may hold the change, part of it or none (run drift): " + rbErr.Error()
			e.settleUnknown(run, opt.Store, i, dp.Device, joinReason(note, reason))
			return nil, false
		}
		e.settle(run, opt.Store, i, dp.Device, OutcomeRolledBack, joinReason(note, reason))
		return nil, false
	}
	if opt.ConfirmWindow > 0 {
		_ = run.Update(func(r *RunReport) {
			r.Devices[i].Reason = joinReason(note, "")
		})
		e.markActive(run, opt.Store, i, dp.Device, PhaseConfirming)
		*keepOpen, *keepLock = true, true
		return &applied{idx: i, drv: drv, pending: pending, before: before}, true
	}
	// Committed at once, read back right: the driver may drop the restore
	// point it kept (a checkpoint, a region snapshot), or confirm a change
	// the device holds under its commit timer until now.
	if err := pending.Confirm(ctx); err != nil {
		if r, ok := pending.(drivers.Reverting); ok && r.Reverts() {
			return nil, e.settleConfirm(ctx, run, opt, i, dp, drv, pending, before, err, note)
		}
		e.log.Warn("the change stands, but what kept it restorable could not be removed", zap.String("device", dp.Device), zap.Error(err))
	}
	e.settleApplied(run, opt.Store, i, dp, after)
	if note != "" {
		_ = run.Update(func(r *RunReport) { r.Devices[i].Reason = note })
	}
	return nil, true
}

// resolveUnknown reads back a device whose commit answer was lost and
// settles it as committed (then checked and, with a confirm window, kept
// pending like any other), not committed, or unknown.
func (e *Engine) resolveUnknown(ctx context.Context, run *ActiveRun, opt ApplyOptions, i int, dp *compliance.DevicePlan, drv drivers.Driver, pending drivers.Pending, before *drivers.Running, pushErr error, keepOpen, keepLock *bool) (*applied, bool) {
	lost := deviceMessage(dp.Device, pushErr)
	e.log.Warn("commit answer lost; reading the device back", zap.String("device", dp.Device), zap.Error(pushErr))
	state, _, rerr := e.readState(ctx, drv, dp, before)
	switch state {
	case stateNew:
		note := "the answer to the commit was lost (" + lost + "); read back: committed"
		if opt.ConfirmWindow == 0 {
			if pending != nil {
				// Settles what a pending change keeps (SONiC's checkpoint).
				if err := pending.Confirm(ctx); err != nil {
					e.log.Debug("settling a change found committed", zap.Error(err))
				}
			}
			e.cleanup(ctx, drv, run.ID(), false)
		}
		if pending == nil {
			pending = noPending{}
		}
		return e.readBack(ctx, run, opt, i, dp, drv, pending, before, note, keepOpen, keepLock)
	case stateOld:
		if pending != nil {
			_ = pending.Rollback(ctx) // removes what the push left (checkpoints, files)
		}
		e.cleanup(ctx, drv, run.ID(), false)
		e.settle(run, opt.Store, i, dp.Device, OutcomeFailed, "the answer to the commit was lost ("+lost+"); read back: not committed (device left unchanged)")
		return nil, false
	case statePartial:
		reason := "the answer to the commit was lost (" + lost + "); read back: the device holds part of the change"
		if pending == nil {
			pending = noPending{}
		}
		if err := e.undo(ctx, drv, pending, dp, before, run.ID()); err != nil {
			e.settleUnknown(run, opt.Store, i, dp.Device, reason+"; restoring it failed: "+err.Error())
			return nil, false
		}
		e.cleanup(ctx, drv, run.ID(), false)
		e.settle(run, opt.Store, i, dp.Device, OutcomeRolledBack, reason+"; restored to the snapshot")
		return nil, false
	}
	reason := "the answer to the commit was lost (" + lost + ") and the device could not be read back"
	if rerr != nil {
		reason += ": " + deviceMessage(dp.Device, rerr)
	}
	e.settleUnknown(run, opt.Store, i, dp.Device, reason+"; nothing is known until it is read again (drift), and the next apply on it recovers it first")
	return nil, false
}

type readState int

const (
	stateUnreadable readState = iota
	stateNew
	stateOld
	statePartial
)

// readState reads a device back and tells whether it runs the change
// (new), the configuration from before the push (old), or neither. A
// driver reconnects as needed; a transient failure is read again.
func (e *Engine) readState(ctx context.Context, drv drivers.Driver, dp *compliance.DevicePlan, before *drivers.Running) (readState, *drivers.Running, error) {
	var now *drivers.Running
	err := drivers.Retry(ctx, max(e.opt.Retries, 2), 200*time.Millisecond, func(ctx context.Context) error {
		var err error
		now, err = e.fetch(ctx, drv)
		if err != nil && (unreachable(err) || errors.Is(err, drivers.ErrTransient)) {
			return fmt.Errorf("%w: %w", drivers.ErrTransient, err)
		}
		return err
	})
	if err != nil {
		return stateUnreadable, nil, err
	}
	switch {
	case len(devcfg.Diff(dp.Desired, now.Owned, e.syntax(dp.Platform), nil)) == 0:
		return stateNew, now, nil
	case now.Fingerprint == before.Fingerprint:
		return stateOld, now, nil
	}
	return statePartial, now, nil
}

// noPending stands in for a change the driver could not hand back.
type noPending struct{}

func (noPending) ID() string                    { return "" }
func (noPending) Confirm(context.Context) error { return nil }
func (noPending) Rollback(context.Context) error {
	return fmt.Errorf("%w: no pending change to roll back", drivers.ErrUnsupported)
}

// cleanup removes what run left on the device, if the driver can.
func (e *Engine) cleanup(ctx context.Context, drv drivers.Driver, runID string, pendingConfirm bool) {
	c, ok := drv.(drivers.Cleaner)
	if !ok {
		return
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*e.opt.Timeout)
	defer cancel()
	if err := c.Cleanup(cctx, runID, pendingConfirm); err != nil {
		e.log.Warn("removing what a run left on the device failed", zap.String("run", runID), zap.Error(err))
	}
}

// undo takes back a push whose read-back failed: through its pending
// commit, and where that cannot (committed at once, or the commit is no
// longer pending, e.g. someone else committed on top) or did not bring the
// snapshot back, by pushing the owned configuration read just before the
// push. The final read-back decides.
func (e *Engine) undo(ctx context.Context, drv drivers.Driver, pending drivers.Pending, dp *compliance.DevicePlan, before *drivers.Running, runID string) error {
	rbErr := pending.Rollback(ctx)
	if rbErr != nil && !errors.Is(rbErr, drivers.ErrUnsupported) {
		e.log.Warn("pending rollback failed; restoring the snapshot instead", zap.String("device", dp.Device), zap.Error(rbErr))
	}
	snap := before.Owned.Clone()
	snap.Device, snap.Platform, snap.Owned = dp.Device, dp.Platform, dp.Desired.Owned.Clone()
	now, err := e.fetch(ctx, drv)
	if err != nil {
		return errors.Join(rbErr, err)
	}
	if _, err := e.restore(ctx, drv, snap, now, runID); err != nil {
		return errors.Join(rbErr, err)
	}
	return nil
}

// restore pushes what turns the device's owned configuration (now) back
// into snap and checks the read-back, which it returns.
func (e *Engine) restore(ctx context.Context, drv drivers.Driver, snap *devcfg.Config, now *drivers.Running, runID string) (*drivers.Running, error) {
	syn := e.syntax(snap.Platform)
	changes := devcfg.Diff(snap, now.Owned, syn, nil)
	if len(changes) == 0 {
		return now, nil
	}
	patch := devcfg.BuildPatch(changes, syn)
	pushCtx, cancel := context.WithTimeout(ctx, e.pushBudget(patch))
	pending, err := drv.Push(pushCtx, patch, drivers.PushOptions{RunID: runID, Changes: changes})
	cancel()
	if err != nil && !drivers.CommitUnknown(err) {
		return nil, fmt.Errorf("%s (device left unchanged)", deviceMessage(snap.Device, err))
	}
	if pending != nil {
		// Whatever the read-back says, the restore point of this push (a
		// checkpoint that doubles as the device lock) must not linger.
		defer func() {
			if cerr := pending.Confirm(ctx); cerr != nil {
				e.log.Debug("dropping the restore point of a restore", zap.Error(cerr))
			}
		}()
	}
	after, rerr := e.fetch(ctx, drv)
	if rerr != nil {
		return nil, errors.Join(err, fmt.Errorf("read-back: %w", rerr))
	}
	if left := devcfg.Diff(snap, after.Owned, syn, nil); len(left) > 0 {
		return nil, errors.Join(err, fmt.Errorf("read-back differs from the snapshot (%d change(s), first: %s %s)", len(left), left[0].Action.Symbol(), left[0].Where()))
	}
	return after, nil
}

// pushBudget bounds one push: the driver bounds every command by the
// timeout, so the whole push gets a timeout per batch of lines (or path
// updates) on top of the commands every push sends.
func (e *Engine) pushBudget(p devcfg.Patch) time.Duration {
	n := len(p.Lines) + (len(p.Updates)+len(p.Deletes))/10
	return e.opt.Timeout * time.Duration(8+n/20)
}

// setOutcome settles a device that never reached its push.
func (e *Engine) setOutcome(run *ActiveRun, i int, o Outcome, reason string) {
	_ = run.Update(func(r *RunReport) {
		r.Devices[i].Outcome, r.Devices[i].Reason, r.Devices[i].Phase = o, joinReason(r.Devices[i].Reason, reason), PhaseDone
	})
}

// markActive records a device's phase in the device's record, then in the
// report, before the step it names: killed in between, the device is
// marked and the report not yet, which the next run settles alike.
func (e *Engine) markActive(run *ActiveRun, store RunStore, i int, device, phase string) {
	if err := store.UpdateDevice(device, func(d *DeviceRecord) {
		d.Active = &ActiveRef{Run: run.ID(), Kind: KindApply, Phase: phase, At: e.opt.Now().UTC()}
	}); err != nil {
		e.log.Warn("writing the device record", zap.String("device", device), zap.Error(err))
	}
	_ = run.Update(func(r *RunReport) { r.Devices[i].Phase, r.Devices[i].Outcome = phase, OutcomeInProgress })
}

// settle records a device's final outcome; the device no longer carries
// this run.
func (e *Engine) settle(run *ActiveRun, store RunStore, i int, device string, o Outcome, reason string) {
	e.setOutcome(run, i, o, reason)
	if err := store.UpdateDevice(device, func(d *DeviceRecord) {
		if d.Active != nil && d.Active.Run == run.ID() {
			d.Active = nil
		}
		if d.Unknown != nil && d.Unknown.Run == run.ID() {
			d.Unknown = nil
		}
	}); err != nil {
		e.log.Warn("writing the device record", zap.String("device", device), zap.Error(err))
	}
}

// settleApplied records a device applied and what it now runs.
func (e *Engine) settleApplied(run *ActiveRun, store RunStore, i int, dp *compliance.DevicePlan, after *drivers.Running) {
	path := ""
	if store.Dir != "" {
		got := after.Owned.Clone()
		got.Device, got.Platform = dp.Device, dp.Platform
		if dp.Rendered != nil {
			got.Owned = dp.Rendered.Clone()
		}
		if p, err := store.SaveApplied(run.ID(), dp.Device, got); err == nil {
			path = p
		}
	}
	_ = run.Update(func(r *RunReport) {
		r.Devices[i].Outcome, r.Devices[i].Phase, r.Devices[i].Applied = OutcomeApplied, PhaseDone, path
	})
	if err := store.UpdateDevice(dp.Device, func(d *DeviceRecord) {
		d.Active, d.Unknown = nil, nil
		if path != "" {
			d.LastApplied = &AppliedRef{Run: run.ID(), At: e.opt.Now().UTC(), Path: path}
		}
	}); err != nil {
		e.log.Warn("writing the device record", zap.String("device", dp.Device), zap.Error(err))
	}
}

// settleUnknown records that nobody knows what the device runs. The
// device keeps this run as active, so the next apply or rollback on it
// reads it back and settles it first.
func (e *Engine) settleUnknown(run *ActiveRun, store RunStore, i int, device, reason string) {
	e.setOutcome(run, i, OutcomeUnknown, reason)
	if err := store.UpdateDevice(device, func(d *DeviceRecord) {
		d.Unknown = &UnknownRef{Run: run.ID(), At: e.opt.Now().UTC(), Reason: reason}
	}); err != nil {
		e.log.Warn("writing the device record", zap.String("device", device), zap.Error(err))
	}
}

func joinReason(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

func conflictText(cs []devcfg.Conflict) string {
	if len(cs) == 0 {
		return ""
	}
	return cs[0].String()
}

func disruptiveText(dp *compliance.DevicePlan) string {
	for _, c := range dp.Changes {
		if c.Disruption == devcfg.TrafficAffecting {
			s := c.Action.Symbol() + " " + c.Where()
			if c.Reason != "" {
				s += " (" + c.Reason + ")"
			}
			return s
		}
	}
	return ""
}

func short(fp string) string {
	if len(fp) > 19 {
		return fp[:19]
	}
	return fp
}
