package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"
	"golang.org/x/sync/errgroup"

	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers/devcfg"
	"github.com/rocefab/rocefab/validators/compliance"
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
	// Store keeps the run report and the snapshots.
	Store RunStore
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
// verification fails. The report is saved in the run store.
func (e *Engine) Apply(ctx context.Context, p *compliance.Plan, opt ApplyOptions) (*RunReport, error) {
	if opt.Verify != nil && opt.ConfirmWindow == 0 {
		opt.ConfirmWindow = DefaultVerifyWindow
	}
	user, host := Actor()
	rep := &RunReport{
		SchemaVersion: RunSchema, ID: NewRunID(e.opt.Now()), Kind: "apply",
		StartedAt: e.opt.Now().UTC(), Intent: p.Intent, User: user, Hostname: host, Options: opt.Options,
	}
	var todo []int
	for _, dp := range p.Devices {
		rep.Devices = append(rep.Devices, DeviceRun{
			Device: dp.Device, Kind: dp.Kind, Platform: dp.Platform, Transport: dp.Transport,
			Address: dp.Address, Connection: dp.Connection, Changes: len(dp.Changes),
		})
		i := len(rep.Devices) - 1
		switch {
		case dp.Status == compliance.StatusConflict:
			e.setOutcome(rep, i, OutcomeRefused, fmt.Sprintf("%v: %s", ErrConflict, conflictText(dp.Conflicts)))
		case dp.Status == compliance.StatusError || dp.Status == compliance.StatusUnreachable:
			e.setOutcome(rep, i, OutcomeFailed, "not planned: "+dp.Error)
		case dp.Status != compliance.StatusChanges && dp.Status != compliance.StatusDrifted:
			e.setOutcome(rep, i, OutcomeNoChanges, "")
		case dp.Disruptive() && !opt.AllowDisruptive:
			e.setOutcome(rep, i, OutcomeRefused, ErrDisruptive.Error()+": "+disruptiveText(&dp))
		default:
			todo = append(todo, i)
		}
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
				e.setOutcome(rep, i, OutcomeSkipped, "not attempted: an earlier device or the canary failed")
			}
			continue
		}
		ok := e.applyWave(ctx, p, rep, wave, opt)
		if !ok && (opt.StopOnFailure || (opt.Canary > 0 && w == 0 && len(waves) > 1)) {
			stopped = true
		}
	}
	e.progressFinish()
	rep.finish(e.opt.Now())
	if opt.Store.Dir != "" {
		if _, err := opt.Store.SaveReport(rep); err != nil {
			return rep, fmt.Errorf("saving run report: %w", err)
		}
	}
	return rep, ctx.Err()
}

// applyWave pushes a wave with bounded parallelism, then verifies and
// confirms or rolls back its pending commits. It reports whether every
// device in the wave ended applied.
func (e *Engine) applyWave(ctx context.Context, p *compliance.Plan, rep *RunReport, wave []int, opt ApplyOptions) bool {
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
			e.setOutcome(rep, i, OutcomeSkipped, "not attempted: stopped after a failure")
			continue
		}
		g.Go(func() error {
			mu.Lock()
			stop := failed && opt.StopOnFailure
			mu.Unlock()
			if stop {
				// A slot opened only after an earlier device failed.
				e.setOutcome(rep, i, OutcomeSkipped, "not attempted: stopped after a failure")
				return nil
			}
			a, ok := e.applyDevice(gctx, rep, p, i, opt)
			mu.Lock()
			if ok && a != nil {
				pending = append(pending, *a)
			}
			failed = failed || !ok
			mu.Unlock()
			e.progressDone(rep.Devices[i].Device, !ok)
			return nil
		})
	}
	_ = g.Wait()
	if len(pending) == 0 {
		return !failed
	}
	var names []string
	for _, a := range pending {
		names = append(names, rep.Devices[a.idx].Device)
	}
	confirm := true
	if opt.Verify != nil {
		res, err := opt.Verify(ctx, names)
		if err != nil {
			res = VerifyResult{Passed: false, Summary: "verification could not run: " + err.Error()}
		}
		rep.Verify = &res
		confirm = res.Passed
	}
	for _, a := range pending {
		e.finishPending(ctx, p, rep, a, confirm)
	}
	return !failed && confirm
}

func (e *Engine) finishPending(ctx context.Context, p *compliance.Plan, rep *RunReport, a applied, confirm bool) {
	defer a.drv.Close()
	if a.pending == nil {
		return
	}
	if confirm {
		if err := a.pending.Confirm(ctx); err != nil {
			e.setOutcome(rep, a.idx, OutcomeRolledBack, "confirm failed, the device rolls back by itself: "+err.Error())
		}
		return
	}
	reason := "verification failed"
	if rep.Verify != nil {
		reason += ": " + rep.Verify.Summary
	}
	outcome := OutcomeRolledBack
	if err := e.undo(ctx, a.drv, a.pending, &p.Devices[a.idx], a.before); err != nil {
		reason += "; rollback failed, the device may hold part of the change (run drift): " + err.Error()
		outcome = OutcomeFailed
	}
	e.setOutcome(rep, a.idx, outcome, reason)
}

// applyDevice pushes one device. It returns the pending commit to confirm
// later (nil when already final) and whether the device succeeded so far.
func (e *Engine) applyDevice(ctx context.Context, rep *RunReport, p *compliance.Plan, i int, opt ApplyOptions) (*applied, bool) {
	dp := &p.Devices[i]
	start := e.opt.Now()
	rep.Devices[i].StartedAt = start.UTC()
	defer func() { rep.Devices[i].DurationMS = e.opt.Now().Sub(start).Milliseconds() }()
	log := e.log.With(zap.String("device", dp.Device))

	if dp.Kind == "host" {
		if e.hosts == nil {
			e.setOutcome(rep, i, OutcomeFailed, "no host runner configured")
			return nil, false
		}
		if err := e.hosts.ApplyHost(ctx, opt.Intent, *dp); err != nil {
			e.setOutcome(rep, i, OutcomeFailed, deviceMessage(dp.Device, err))
			return nil, false
		}
		e.setOutcome(rep, i, OutcomeApplied, "")
		return nil, true
	}
	if dp.Desired == nil {
		e.setOutcome(rep, i, OutcomeFailed, "the plan holds no desired configuration for this device")
		return nil, false
	}
	drv, err := e.openDriver(ctx, dp, dp.Desired.Owned)
	if err != nil {
		e.setOutcome(rep, i, OutcomeFailed, deviceMessage(dp.Device, err))
		return nil, false
	}
	keepOpen := false
	defer func() {
		if !keepOpen {
			drv.Close()
		}
	}()
	before, err := e.fetch(ctx, drv)
	if err != nil {
		e.setOutcome(rep, i, OutcomeFailed, deviceMessage(dp.Device, err))
		return nil, false
	}
	if before.Fingerprint != dp.Fingerprint {
		e.setOutcome(rep, i, OutcomeRefused, fmt.Sprintf("%v: plan %s, device now %s; run plan again", ErrStalePlan, short(dp.Fingerprint), short(before.Fingerprint)))
		return nil, false
	}
	if opt.Store.Dir != "" {
		snap := before.Owned.Clone()
		snap.Device, snap.Platform, snap.Owned = dp.Device, dp.Platform, dp.Desired.Owned.Clone()
		path, err := opt.Store.SaveSnapshot(rep.ID, dp.Device, snap)
		if err != nil {
			e.setOutcome(rep, i, OutcomeFailed, "snapshot: "+err.Error())
			return nil, false
		}
		rep.Devices[i].Snapshot = path
	}
	pushCtx, cancel := context.WithTimeout(ctx, e.opt.Timeout)
	pending, err := drv.Push(pushCtx, dp.Patch, drivers.PushOptions{ConfirmWindow: opt.ConfirmWindow})
	cancel()
	if err != nil {
		log.Warn("push failed", zap.Error(err))
		e.setOutcome(rep, i, OutcomeFailed, deviceMessage(dp.Device, err)+" (device left unchanged)")
		return nil, false
	}
	after, err := e.fetch(ctx, drv)
	var leftover []devcfg.Change
	if err == nil {
		leftover = compliance.Diff(dp.Desired, after.Owned, e.syntax(dp.Platform), nil)
	}
	if err != nil || len(leftover) > 0 {
		reason := "read-back failed"
		if err != nil {
			reason += ": " + err.Error()
		} else {
			reason = fmt.Sprintf("read-back still differs from the intent (%d change(s), first: %s %s)", len(leftover), leftover[0].Action.Symbol(), leftover[0].Where())
		}
		outcome := OutcomeRolledBack
		if rbErr := e.undo(ctx, drv, pending, dp, before); rbErr != nil {
			reason += "; rollback failed, the device may hold part of the change (run drift): " + rbErr.Error()
			outcome = OutcomeFailed
		}
		e.setOutcome(rep, i, outcome, reason)
		return nil, false
	}
	e.setOutcome(rep, i, OutcomeApplied, "")
	if opt.Store.Dir != "" {
		got := after.Owned.Clone()
		got.Device, got.Platform = dp.Device, dp.Platform
		if dp.Rendered != nil {
			got.Owned = dp.Rendered.Clone()
		}
		if path, err := opt.Store.SaveApplied(rep.ID, dp.Device, got); err == nil {
			rep.Devices[i].Applied = path
		}
	}
	if opt.ConfirmWindow > 0 {
		keepOpen = true
		return &applied{idx: i, drv: drv, pending: pending, before: before}, true
	}
	return nil, true
}

// undo takes back a push whose read-back failed: through its pending
// commit, and where that cannot (committed at once, or the commit is no
// longer pending, e.g. someone else committed on top) by pushing the owned
// configuration read just before the push. The final read-back decides.
func (e *Engine) undo(ctx context.Context, drv drivers.Driver, pending drivers.Pending, dp *compliance.DevicePlan, before *drivers.Running) error {
	rbErr := pending.Rollback(ctx)
	if rbErr == nil {
		return nil
	}
	if !errors.Is(rbErr, drivers.ErrUnsupported) {
		e.log.Warn("pending rollback failed; restoring the snapshot instead", zap.String("device", dp.Device), zap.Error(rbErr))
	}
	snap := before.Owned.Clone()
	snap.Device, snap.Platform, snap.Owned = dp.Device, dp.Platform, dp.Desired.Owned.Clone()
	now, err := e.fetch(ctx, drv)
	if err != nil {
		return errors.Join(rbErr, err)
	}
	if _, err := e.restore(ctx, drv, snap, now); err != nil {
		return errors.Join(rbErr, err)
	}
	return nil
}

// restore pushes what turns the device's owned configuration (now) back
// into snap and checks the read-back, which it returns.
func (e *Engine) restore(ctx context.Context, drv drivers.Driver, snap *devcfg.Config, now *drivers.Running) (*drivers.Running, error) {
	syn := e.syntax(snap.Platform)
	changes := compliance.Diff(snap, now.Owned, syn, nil)
	if len(changes) == 0 {
		return now, nil
	}
	pushCtx, cancel := context.WithTimeout(ctx, e.opt.Timeout)
	_, err := drv.Push(pushCtx, devcfg.BuildPatch(changes, syn), drivers.PushOptions{})
	cancel()
	if err != nil {
		return nil, fmt.Errorf("%s (device left unchanged)", deviceMessage(snap.Device, err))
	}
	after, err := e.fetch(ctx, drv)
	if err != nil {
		return nil, fmt.Errorf("read-back: %w", err)
	}
	if left := compliance.Diff(snap, after.Owned, syn, nil); len(left) > 0 {
		return nil, fmt.Errorf("read-back differs from the snapshot (%d change(s), first: %s %s)", len(left), left[0].Action.Symbol(), left[0].Where())
	}
	return after, nil
}

func (e *Engine) setOutcome(rep *RunReport, i int, o Outcome, reason string) {
	rep.Devices[i].Outcome, rep.Devices[i].Reason = o, reason
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
