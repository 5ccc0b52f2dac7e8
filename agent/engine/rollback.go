package engine

import (
	"context"
	"fmt"

	"golang.org/x/sync/errgroup"

	"github.com/rocefab/rocefab/renderers/devcfg"
	"github.com/rocefab/rocefab/validators/compliance"
)

// RollbackOptions control a rollback.
type RollbackOptions struct {
	// AllowDisruptive permits restoring traffic-affecting settings.
	AllowDisruptive bool
}

// Rollback puts the devices an earlier run applied back to their snapshots
// from before that run, with the same safe push and read-back as apply. It
// is for an apply that succeeded but turned out to be wrong.
func (e *Engine) Rollback(ctx context.Context, store RunStore, runID string, opt RollbackOptions) (*RunReport, error) {
	orig, err := store.LoadReport(runID)
	if err != nil {
		return nil, err
	}
	user, host := Actor()
	rep := &RunReport{
		SchemaVersion: RunSchema, ID: NewRunID(e.opt.Now()), Kind: "rollback", RollbackOf: orig.ID,
		StartedAt: e.opt.Now().UTC(), Intent: orig.Intent, User: user, Hostname: host,
	}
	for _, d := range orig.Devices {
		if d.Outcome != OutcomeApplied || d.Snapshot == "" {
			continue
		}
		rep.Devices = append(rep.Devices, DeviceRun{Device: d.Device, Kind: d.Kind, Platform: d.Platform,
			Transport: d.Transport, Address: d.Address, Connection: d.Connection})
	}
	if len(rep.Devices) == 0 {
		return nil, fmt.Errorf("run %s changed no device with a snapshot: nothing to roll back", runID)
	}
	byDevice := map[string]DeviceRun{}
	for _, d := range orig.Devices {
		byDevice[d.Device] = d
	}
	e.progressStart("rollback", len(rep.Devices))
	// Devices are independent, as in apply: as many at once as Parallelism.
	var g errgroup.Group
	g.SetLimit(e.opt.Parallelism)
	for i := range rep.Devices {
		g.Go(func() error {
			d := &rep.Devices[i]
			start := e.opt.Now()
			d.StartedAt = start.UTC()
			outcome, reason := e.rollbackDevice(ctx, store, byDevice[d.Device], rep.ID, d, opt)
			d.Outcome, d.Reason = outcome, reason
			d.DurationMS = e.opt.Now().Sub(start).Milliseconds()
			e.progressDone(d.Device, outcome != OutcomeApplied && outcome != OutcomeNoChanges)
			return nil
		})
	}
	_ = g.Wait()
	e.progressFinish()
	rep.finish(e.opt.Now())
	if _, err := store.SaveReport(rep); err != nil {
		return rep, err
	}
	return rep, nil
}

// rollbackDevice restores one device and records in run the snapshot of
// what it replaced (so a rollback can be rolled back) and the read-back.
func (e *Engine) rollbackDevice(ctx context.Context, store RunStore, orig DeviceRun, newRun string, run *DeviceRun, opt RollbackOptions) (Outcome, string) {
	if orig.Kind == "host" {
		return OutcomeSkipped, "host NIC settings are runtime state; re-apply the intent instead"
	}
	snap, err := store.LoadSnapshot(orig.Snapshot)
	if err != nil {
		return OutcomeFailed, err.Error()
	}
	dp := &compliance.DevicePlan{Device: orig.Device, Platform: orig.Platform, Transport: orig.Transport,
		Address: orig.Address, Connection: orig.Connection}
	drv, err := e.openDriver(ctx, dp, snap.Owned)
	if err != nil {
		return OutcomeFailed, deviceMessage(orig.Device, err)
	}
	defer drv.Close()
	now, err := e.fetch(ctx, drv)
	if err != nil {
		return OutcomeFailed, deviceMessage(orig.Device, err)
	}
	changes := compliance.Diff(snap, now.Owned, e.syntax(orig.Platform), e.classifier(orig.Platform))
	if len(changes) == 0 {
		return OutcomeNoChanges, "already at the snapshot"
	}
	if !opt.AllowDisruptive {
		for i := range changes {
			if changes[i].Disruption == devcfg.TrafficAffecting {
				// The same guard as apply: restoring an MTU or PFC setting
				// flaps links just like changing it.
				return OutcomeRefused, ErrDisruptive.Error() + ": " + disruptiveText(&compliance.DevicePlan{Changes: changes})
			}
		}
	}
	// Keep a snapshot of what we replace, so a rollback can be rolled back.
	cur := now.Owned.Clone()
	cur.Device, cur.Platform, cur.Owned = orig.Device, orig.Platform, snap.Owned.Clone()
	path, err := store.SaveSnapshot(newRun, orig.Device, cur)
	if err != nil {
		return OutcomeFailed, "snapshot: " + err.Error()
	}
	run.Snapshot = path
	snap.Device, snap.Platform = orig.Device, orig.Platform
	after, err := e.restore(ctx, drv, snap, now)
	if err != nil {
		return OutcomeFailed, err.Error()
	}
	got := after.Owned.Clone()
	got.Device, got.Platform, got.Owned = orig.Device, orig.Platform, snap.Owned.Clone()
	if path, err := store.SaveApplied(newRun, orig.Device, got); err == nil {
		run.Applied = path
	}
	return OutcomeApplied, "restored the snapshot taken before the run"
}

// classifier is the platform's disruption rule, or nil.
func (e *Engine) classifier(platform string) compliance.Classifier {
	if entry, err := e.renderers.Lookup(platform); err == nil {
		return entry.Attrs.Classify
	}
	return nil
}
