package daemon

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/agent/daemon/history"
	"github.com/rocefab/rocefab/agent/effect"
	"github.com/rocefab/rocefab/agent/engine"
)

var (
	errBusy     = errors.New("a run of this kind is still going")
	errNoIntent = errors.New("no valid intent loaded yet")
)

// applyLockWait is how long an automatic apply waits for a device another
// process (a CLI apply on the same state directory) holds.
const applyLockWait = 2 * time.Minute

// RunNow runs kind now (trigger manual) and returns the recorded run.
// Runs wait for their devices: two runs never overlap on a device.
func (a *Agent) RunNow(ctx context.Context, kind history.Kind) (*history.Run, error) {
	return a.execute(ctx, kind, history.TriggerManual, "")
}

// execute runs one run and records it. Scheduled runs are skipped (errBusy)
// while the previous run of their kind is still going; commit and manual
// runs queue behind the device locks instead.
func (a *Agent) execute(ctx context.Context, kind history.Kind, trigger history.Trigger, id string) (*history.Run, error) {
	switch kind {
	case history.KindPlan, history.KindDrift, history.KindApply, history.KindProbe, history.KindMesh:
	default:
		return nil, fmt.Errorf("%w: cannot start a %q run", ErrConfig, kind)
	}
	cur := a.intent()
	if cur == nil {
		return nil, errNoIntent
	}
	a.mu.Lock()
	if trigger == history.TriggerSchedule && a.busy[kind] > 0 {
		a.mu.Unlock()
		return nil, errBusy
	}
	a.busy[kind]++
	if id == "" {
		id = engine.NewRunID(a.now())
	}
	started := a.now().UTC()
	a.inflight[id] = inflightRun{ID: id, Kind: kind, Trigger: trigger, Started: started}
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		a.busy[kind]--
		delete(a.inflight, id)
		a.mu.Unlock()
	}()
	run := &history.Run{ID: id, Kind: kind, Trigger: trigger, Fabric: cur.res.Name, Commit: cur.snap.Commit,
		Revision: cur.snap.Revision, Shard: a.cfg.Shard.String(), Started: started}
	// Written ahead: an agent killed during the run leaves it as running,
	// and the next agent marks it interrupted.
	ahead := *run
	ahead.Result = history.ResultRunning
	if err := a.db.Put(&ahead); err != nil {
		a.log.Error("recording a run as it starts", zap.String("run", run.ID), zap.Error(err))
	}
	switch kind {
	case history.KindPlan, history.KindDrift:
		a.check(ctx, cur, run)
	case history.KindApply:
		a.apply(ctx, cur, run)
	case history.KindProbe:
		a.probe(ctx, cur, run)
	case history.KindMesh:
		a.mesh(ctx, cur, run)
	}
	return run, nil
}

// record finishes a run: history, metrics, retention, log.
func (a *Agent) record(run *history.Run) {
	if run.Finished.IsZero() {
		run.Finished = a.now().UTC()
	}
	if err := a.db.Put(run); err != nil {
		a.log.Error("recording a run", zap.String("run", run.ID), zap.Error(err))
	}
	a.metrics.observeRun(run)
	a.mu.Lock()
	a.lastRuns[run.Kind] = run.Brief()
	a.mu.Unlock()
	a.prune()
	a.log.Info("run finished", zap.String("run", run.ID), zap.String("kind", string(run.Kind)),
		zap.String("trigger", string(run.Trigger)), zap.String("result", string(run.Result)), zap.String("commit", run.Commit))
}

// stopped records a run that ended on an error before it had results.
func (a *Agent) stopped(ctx context.Context, run *history.Run, err error) {
	run.Result, run.Error = history.ResultFailure, err.Error()
	if ctx.Err() != nil {
		run.Result, run.Error = history.ResultCancelled, "the agent stopped during the run"
	}
	a.record(run)
}

func (a *Agent) selection() engine.Selection {
	return engine.Selection{Owns: a.cfg.Shard.OwnsFunc(), SkipHosts: !a.cfg.IncludeHosts}
}

// owned lists the devices a run touches, for the device locks.
func (a *Agent) owned(cur *loaded, switches, hosts bool) []string {
	sel := a.selection()
	var out []string
	if switches {
		for _, sw := range cur.res.Switches {
			if sel.Owns == nil || sel.Owns(sw.Name) {
				out = append(out, sw.Name)
			}
		}
	}
	if hosts {
		for _, h := range cur.res.Hosts {
			if sel.Owns == nil || sel.Owns(h.Name) {
				out = append(out, h.Name)
			}
		}
	}
	return out
}

// fromPlan fills a run from a plan or drift report.
func fromPlan(run *history.Run, p *compliance.Plan) {
	run.Devices = run.Devices[:0]
	for _, d := range p.Devices {
		run.Devices = append(run.Devices, history.Device{Device: d.Device, Kind: d.Kind, Platform: d.Platform,
			Status: string(d.Status), Error: d.Error, Changes: d.Changes, Conflicts: d.Conflicts})
	}
	run.Summary = history.Summary{Devices: len(p.Devices), ByStatus: map[string]int{},
		Changes: p.Summary.Add + p.Summary.Modify + p.Summary.Remove, Findings: run.Summary.Findings}
	for s, n := range p.Summary.ByStatus {
		run.Summary.ByStatus[string(s)] = n
	}
	switch {
	case p.HasFailures():
		run.Result = history.ResultFailure
	case p.HasChanges():
		run.Result = history.ResultChanges
	default:
		run.Result = history.ResultSuccess
	}
}

// check is a plan or drift run.
func (a *Agent) check(ctx context.Context, cur *loaded, run *history.Run) {
	release, err := a.devices.acquire(ctx, run.ID, a.owned(cur, true, a.cfg.IncludeHosts))
	if err != nil {
		a.stopped(ctx, run, err)
		return
	}
	defer release()
	a.checkLocked(ctx, cur, run)
}

func (a *Agent) checkLocked(ctx context.Context, cur *loaded, run *history.Run) {
	eng := a.deps.Engine
	var p *compliance.Plan
	var err error
	if run.Kind == history.KindPlan {
		p, err = eng.Plan(ctx, cur.res, cur.ref, a.selection())
	} else {
		// Also recorded in the state directory's run store, under the same
		// ID, so `rocefab runs` lists the agent's drifts with the CLI's.
		p, _, err = eng.DriftRun(ctx, cur.res, cur.ref, a.selection(), run.ID)
	}
	if err != nil {
		a.stopped(ctx, run, err)
		return
	}
	// What each difference does to the lossless class: breaking drift is
	// announced as critical.
	effect.Annotate(p, cur.res, a.deps.Renderers)
	fromPlan(run, p)
	a.record(run)
	if run.Kind == history.KindDrift {
		a.updateStates(run, p)
	}
}

// apply plans a new commit and applies it within the guardrails: never a
// traffic-affecting change, never more than MaxDevices devices, stop at
// the first failure. A drift check follows so states reflect the result.
func (a *Agent) apply(ctx context.Context, cur *loaded, run *history.Run) {
	release, err := a.devices.acquire(ctx, run.ID, a.owned(cur, true, a.cfg.IncludeHosts))
	if err != nil {
		a.stopped(ctx, run, err)
		return
	}
	defer release()
	p, err := a.deps.Engine.Plan(ctx, cur.res, cur.ref, a.selection())
	if err != nil {
		a.stopped(ctx, run, err)
		return
	}
	changing := p.Summary.ByStatus[compliance.StatusChanges] + p.Summary.ByStatus[compliance.StatusDrifted]
	if changing == 0 {
		fromPlan(run, p)
		if run.Result == history.ResultChanges {
			run.Result = history.ResultSuccess
		}
		a.record(run)
		return
	}
	if changing > a.cfg.Apply.MaxDevices {
		fromPlan(run, p)
		run.Result = history.ResultFailure
		run.Error = fmt.Sprintf("guardrail: %d devices have changes, more than the %d an automatic apply may change (agent.apply.max-devices); nothing was applied: review the plan and apply it by hand",
			changing, a.cfg.Apply.MaxDevices)
		a.record(run)
		return
	}
	changes := map[string]compliance.DevicePlan{}
	for _, d := range p.Devices {
		changes[d.Device] = d
	}
	rep, err := a.deps.Engine.Apply(ctx, p, engine.ApplyOptions{
		AllowDisruptive: false, // never automatically, whatever the settings
		StopOnFailure:   true,
		Store:           engine.RunStore{Dir: a.cfg.StateDir},
		RunID:           run.ID,
		LockWait:        applyLockWait,
		Intent:          cur.res,
		Options:         map[string]string{"agent": "true", "trigger": string(run.Trigger), "maxDevices": fmt.Sprint(a.cfg.Apply.MaxDevices)},
	})
	if rep == nil {
		a.stopped(ctx, run, err)
		return
	}
	run.ID = rep.ID // the engine's report and snapshots: rocefab rollback <id>
	run.Summary = history.Summary{Devices: len(rep.Devices), ByStatus: map[string]int{}}
	pushed := false
	for _, d := range rep.Devices {
		dp := changes[d.Device]
		run.Devices = append(run.Devices, history.Device{Device: d.Device, Kind: d.Kind, Platform: d.Platform,
			Status: string(d.Outcome), Error: d.Reason, Changes: dp.Changes, Conflicts: dp.Conflicts})
		run.Summary.ByStatus[string(d.Outcome)]++
		run.Summary.Changes += len(dp.Changes)
		switch d.Outcome {
		case engine.OutcomeApplied:
			pushed = true
		case engine.OutcomeFailed, engine.OutcomeRolledBack, engine.OutcomeUnknown:
			// Whatever the report says, the device is read again right away:
			// its state is never the one from before the push.
			pushed = pushed || d.Snapshot != ""
			a.metrics.pushFailures.WithLabelValues(d.Device, string(d.Outcome)).Inc()
		}
	}
	switch {
	case err != nil && ctx.Err() != nil:
		run.Result, run.Error = history.ResultCancelled, "the agent stopped during the apply; devices not yet started were left untouched"
	case err != nil:
		run.Result, run.Error = history.ResultFailure, err.Error()
	case rep.Failed():
		run.Result = history.ResultFailure
		run.Error = "some devices were not applied (refused, failed or rolled back); see each device"
	default:
		run.Result = history.ResultSuccess
	}
	a.record(run)
	if pushed && ctx.Err() == nil {
		follow := &history.Run{ID: engine.NewRunID(a.now()), Kind: history.KindDrift, Trigger: run.Trigger, Fabric: run.Fabric,
			Commit: run.Commit, Revision: run.Revision, Shard: run.Shard, Started: a.now().UTC()}
		a.checkLocked(ctx, cur, follow)
	}
}

// probe runs the probe for the owned hosts.
func (a *Agent) probe(ctx context.Context, cur *loaded, run *history.Run) {
	if a.deps.Probe == nil {
		a.stopped(ctx, run, errors.New("no probe runner is configured in this build"))
		return
	}
	release, err := a.devices.acquire(ctx, run.ID, a.owned(cur, false, true))
	if err != nil {
		a.stopped(ctx, run, err)
		return
	}
	defer release()
	// Recorded in the run store too, written ahead, so `rocefab runs`
	// lists probes with the rest.
	user, host := engine.Actor()
	store := engine.RunStore{Dir: a.cfg.StateDir}
	rec, recErr := store.Begin(&engine.RunReport{ID: run.ID, Kind: engine.KindProbe, StartedAt: run.Started,
		Intent: cur.ref, User: user, Hostname: host, Options: map[string]string{"agent": "true", "trigger": string(run.Trigger)}})
	if recErr != nil {
		a.log.Warn("recording the probe run", zap.Error(recErr))
	}
	sum, err := a.deps.Probe(ctx, cur.res, a.cfg.Shard.OwnsFunc())
	if rec != nil {
		_ = rec.Update(func(r *engine.RunReport) {
			r.FinishedAt, r.Status, r.Result = a.now().UTC(), engine.StatusDone, "success"
			switch {
			case err != nil:
				r.Result, r.Summary = "failure", "probe: "+err.Error()
			case sum.Verdict != VerdictPass:
				r.Result, r.Summary = "failure", fmt.Sprintf("probe verdict %s over %d pairs", sum.Verdict, len(sum.Pairs))
			default:
				r.Summary = fmt.Sprintf("probe verdict %s over %d pairs", sum.Verdict, len(sum.Pairs))
			}
		})
		_ = rec.End()
	}
	if err != nil {
		a.stopped(ctx, run, fmt.Errorf("probe: %w", err))
		return
	}
	run.Pairs, run.Findings = sum.Pairs, sum.Findings
	run.Lossless = a.losslessDuring(run.Started, a.now().UTC(), sum.Pairs)
	run.Summary = history.Summary{Devices: len(sum.Pairs), ByStatus: map[string]int{}, Findings: len(sum.Findings)}
	for _, p := range sum.Pairs {
		run.Summary.ByStatus[p.Verdict]++
	}
	run.Result = history.ResultSuccess
	if sum.Verdict != VerdictPass {
		run.Result = history.ResultFailure
		run.Error = fmt.Sprintf("probe verdict %s: %d of %d pairs failed", sum.Verdict, run.Summary.ByStatus[VerdictFail], len(sum.Pairs))
	}
	a.metrics.observeProbe(sum)
	a.record(run)
}
