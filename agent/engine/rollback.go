package engine

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
)

// RollbackOptions control a rollback.
type RollbackOptions struct {
	// AllowDisruptive permits restoring traffic-affecting settings.
	AllowDisruptive bool
	// LockWait bounds the wait for a device another run holds.
	LockWait time.Duration
}

// Rollback puts the devices an earlier run changed back to their snapshots
// from before that run, with the same safe push and read-back as apply. It
// is for an apply that succeeded but turned out to be wrong, and for a run
// that was interrupted: every device it had started to push is included,
// and what the interrupted run left on it is removed first.
func (e *Engine) Rollback(ctx context.Context, store RunStore, runID string, opt RollbackOptions) (*RunReport, error) {
	orig, err := store.LoadReport(runID)
	if err != nil {
		return nil, err
	}
	if orig.Status == StatusRunning {
		return nil, fmt.Errorf("run %s is still under way (pid %d on %s); roll it back once it has finished", runID, orig.PID, orig.Hostname)
	}
	user, host := Actor()
	rep := &RunReport{
		SchemaVersion: RunSchema, ID: NewRunID(e.opt.Now()), Kind: KindRollback, RollbackOf: orig.ID,
		StartedAt: e.opt.Now().UTC(), Intent: orig.Intent, User: user, Hostname: host,
	}
	for _, d := range orig.Devices {
		if d.Snapshot == "" || !touched(d) {
			continue
		}
		rep.Devices = append(rep.Devices, DeviceRun{Device: d.Device, Kind: d.Kind, Platform: d.Platform,
			Transport: d.Transport, Address: d.Address, Connection: d.Connection, Outcome: OutcomePending, Phase: PhasePending})
	}
	if len(rep.Devices) == 0 {
		return nil, fmt.Errorf("run %s changed no device with a snapshot: nothing to roll back", runID)
	}
	byDevice := map[string]DeviceRun{}
	for _, d := range orig.Devices {
		byDevice[d.Device] = d
	}
	run, err := store.begin(rep)
	if err != nil {
		return nil, fmt.Errorf("writing the run report before the first push: %w", err)
	}
	locks := store.NewDeviceLocks(rep.ID)
	defer locks.Release()
	e.progressStart("rollback", len(rep.Devices))
	// Devices are independent, as in apply: as many at once as Parallelism.
	var g errgroup.Group
	g.SetLimit(e.opt.Parallelism)
	for i := range rep.Devices {
		g.Go(func() error {
			var name string
			run.Read(func(r *RunReport) { name = r.Devices[i].Device })
			start := e.opt.Now()
			_ = run.Update(func(r *RunReport) { r.Devices[i].StartedAt = start.UTC() })
			outcome, reason := e.rollbackDevice(ctx, store, byDevice[name], run, i, opt, locks)
			_ = run.Update(func(r *RunReport) {
				d := &r.Devices[i]
				d.Outcome, d.Reason, d.Phase = outcome, reason, PhaseDone
				d.DurationMS = e.opt.Now().Sub(start).Milliseconds()
			})
			e.progressDone(name, outcome != OutcomeApplied && outcome != OutcomeNoChanges)
			return nil
		})
	}
	_ = g.Wait()
	e.progressFinish()
	err = run.Update(func(r *RunReport) { r.finish(e.opt.Now()) })
	if endErr := run.End(); err == nil {
		err = endErr
	}
	return rep, err
}

// touched: the run had started to push the device (or applied it).
func touched(d DeviceRun) bool {
	switch {
	case d.Outcome == OutcomeApplied, d.Outcome == OutcomeUnknown, d.Outcome == OutcomeInProgress:
		return true
	case d.Phase == PhasePushing, d.Phase == PhaseConfirming:
		return true
	}
	// Settled by a later run after an interruption: the change was found
	// in effect.
	return d.Found == "new"
}

// rollbackDevice restores one device and records in run the snapshot of
// what it replaced (so a rollback can be rolled back) and the read-back.
func (e *Engine) rollbackDevice(ctx context.Context, store RunStore, orig DeviceRun, run *ActiveRun, i int, opt RollbackOptions, locks *DeviceLocks) (Outcome, string) {
	if orig.Kind == "host" {
		return OutcomeSkipped, "host NIC settings are runtime state; re-apply the intent instead"
	}
	snap, err := store.LoadSnapshot(orig.Snapshot)
	if err != nil {
		return OutcomeFailed, err.Error()
	}
	snap.Device, snap.Platform = orig.Device, orig.Platform
	if err := locks.Lock(ctx, KindRollback, opt.LockWait, orig.Device); err != nil {
		return OutcomeRefused, deviceMessage(orig.Device, err)
	}
	dp := &compliance.DevicePlan{Device: orig.Device, Platform: orig.Platform, Transport: orig.Transport,
		Address: orig.Address, Connection: orig.Connection}
	drv, err := e.openDriver(ctx, dp, snap.Owned)
	if err != nil {
		return OutcomeFailed, deviceMessage(orig.Device, err)
	}
	defer drv.Close()
	note := ""
	if a := store.Interrupted(orig.Device); a != nil {
		// Settled first: what it left is removed, and its record says what
		// the device held (the restore below then goes back to the
		// snapshot from any of those).
		note = e.recoverDevice(ctx, store, drv, dp, a, run.ID())
	}
	now, err := e.fetch(ctx, drv)
	if err != nil {
		return OutcomeFailed, joinReason(note, deviceMessage(orig.Device, err))
	}
	changes := devcfg.Diff(snap, now.Owned, e.syntax(orig.Platform), e.classifier(orig.Platform))
	if len(changes) == 0 {
		e.noteApplied(store, run, i, orig.Device, snap, now)
		return OutcomeNoChanges, joinReason(note, "already at the snapshot")
	}
	if !opt.AllowDisruptive {
		for i := range changes {
			if changes[i].Disruption == devcfg.TrafficAffecting {
				// The same guard as apply: restoring an MTU or PFC setting
				// flaps links just like changing it.
				return OutcomeRefused, joinReason(note, ErrDisruptive.Error()+": "+disruptiveText(&compliance.DevicePlan{Changes: changes}))
			}
		}
	}
	// Keep a snapshot of what we replace, so a rollback can be rolled back.
	cur := now.Owned.Clone()
	cur.Device, cur.Platform, cur.Owned = orig.Device, orig.Platform, snap.Owned.Clone()
	path, err := store.SaveSnapshot(run.ID(), orig.Device, cur)
	if err != nil {
		return OutcomeFailed, "snapshot: " + err.Error()
	}
	snap.Device, snap.Platform = orig.Device, orig.Platform
	wantPath, err := store.SaveDesired(run.ID(), orig.Device, snap)
	if err != nil {
		return OutcomeFailed, "desired config: " + err.Error()
	}
	_ = store.UpdateDevice(orig.Device, func(r *DeviceRecord) {
		r.Active = &ActiveRef{Run: run.ID(), Kind: KindRollback, Phase: PhasePushing, At: e.opt.Now().UTC()}
	})
	_ = run.Update(func(r *RunReport) {
		r.Devices[i].Snapshot, r.Devices[i].Desired, r.Devices[i].Phase, r.Devices[i].Outcome = path, wantPath, PhasePushing, OutcomeInProgress
	})
	after, err := e.restore(ctx, drv, snap, now, run.ID())
	if err != nil {
		_ = store.UpdateDevice(orig.Device, func(r *DeviceRecord) {
			if r.Active != nil && r.Active.Run == run.ID() {
				r.Active = nil
			}
		})
		return OutcomeFailed, joinReason(note, err.Error())
	}
	e.noteApplied(store, run, i, orig.Device, snap, after)
	return OutcomeApplied, joinReason(note, "restored the snapshot taken before the run")
}

// noteApplied records what a rolled-back device runs now as rocefab's.
func (e *Engine) noteApplied(store RunStore, run *ActiveRun, i int, device string, snap *devcfg.Config, after *drivers.Running) {
	got := after.Owned.Clone()
	got.Device, got.Platform, got.Owned = device, snap.Platform, snap.Owned.Clone()
	path, err := store.SaveApplied(run.ID(), device, got)
	if err != nil {
		return
	}
	_ = run.Update(func(r *RunReport) { r.Devices[i].Applied = path })
	_ = store.UpdateDevice(device, func(r *DeviceRecord) {
		if r.Active != nil && r.Active.Run == run.ID() {
			r.Active = nil
		}
		r.Unknown = nil
		r.LastApplied = &AppliedRef{Run: run.ID(), At: e.opt.Now().UTC(), Path: path}
	})
}

// classifier is the platform's disruption rule, or nil.
func (e *Engine) classifier(platform string) devcfg.Classifier {
	if entry, err := e.renderers.Lookup(platform); err == nil {
		return entry.Attrs.Classify
	}
	return nil
}
