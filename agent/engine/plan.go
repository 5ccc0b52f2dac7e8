package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"go.uber.org/zap"
	"golang.org/x/sync/errgroup"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers"
)

// Selection limits a run to some devices; empty selects all.
type Selection struct {
	Devices []string
	// Owns, when set, keeps only the devices it returns true for (the
	// daemon's shard).
	Owns func(device string) bool
	// SkipHosts leaves hosts out (e.g. when no host runner is wired).
	SkipHosts bool
}

// Keeps reports whether the selection keeps a device.
func (s Selection) Keeps(name string) bool { return s.keep(name) }

func (s Selection) keep(name string) bool {
	if s.Owns != nil && !s.Owns(name) {
		return false
	}
	if len(s.Devices) == 0 {
		return true
	}
	for _, d := range s.Devices {
		if d == name {
			return true
		}
	}
	return false
}

// Plan renders every selected device, reads what it runs and diffs the two.
// Device problems (unreachable, errors, conflicts) are recorded per device;
// the error is only for problems that stop the whole plan.
func (e *Engine) Plan(ctx context.Context, r *intent.Resolved, ref compliance.IntentRef, sel Selection) (*compliance.Plan, error) {
	return e.check(ctx, r, ref, sel, "plan")
}

// Drift is Plan with drift statuses: compliant, drifted, unreachable, error.
// An unreachable device is never counted as compliant.
func (e *Engine) Drift(ctx context.Context, r *intent.Resolved, ref compliance.IntentRef, sel Selection) (*compliance.Plan, error) {
	return e.check(ctx, r, ref, sel, "drift")
}

func (e *Engine) check(ctx context.Context, r *intent.Resolved, ref compliance.IntentRef, sel Selection, kind string) (*compliance.Plan, error) {
	return e.checkOnly(ctx, r, ref, sel, kind)
}

// DriftRun is Drift recorded as a run in the store: written ahead as
// running, so a drift killed in flight is listed as interrupted, and
// finished with each device's status. id names the run (empty: a new
// one).
func (e *Engine) DriftRun(ctx context.Context, r *intent.Resolved, ref compliance.IntentRef, sel Selection, id string) (*compliance.Plan, *RunReport, error) {
	store := e.opt.Store
	if id == "" {
		id = NewRunID(e.opt.Now())
	}
	user, host := Actor()
	rep := &RunReport{SchemaVersion: RunSchema, ID: id, Kind: KindDrift, StartedAt: e.opt.Now().UTC(), Intent: ref, User: user, Hostname: host}
	for _, sw := range r.Switches {
		if sel.keep(sw.Name) {
			rep.Devices = append(rep.Devices, DeviceRun{Device: sw.Name, Kind: "switch", Platform: sw.Platform, Outcome: OutcomePending, Phase: PhasePending})
		}
	}
	run, err := store.begin(rep)
	if err != nil {
		return nil, nil, fmt.Errorf("writing the drift run's record: %w", err)
	}
	p, err := e.checkOnly(ctx, r, ref, sel, "drift")
	_ = run.Update(func(rr *RunReport) {
		rr.FinishedAt, rr.Status = e.opt.Now().UTC(), StatusDone
		if err != nil {
			rr.Result, rr.Summary = "failure", err.Error()
			return
		}
		rr.Devices = rr.Devices[:0]
		for _, d := range p.Devices {
			rr.Devices = append(rr.Devices, DeviceRun{Device: d.Device, Kind: d.Kind, Platform: d.Platform, Transport: d.Transport,
				Address: d.Address, Status: string(d.Status), Reason: d.Error, Changes: len(d.Changes), Phase: PhaseDone})
		}
		switch {
		case p.HasFailures():
			rr.Result = "failure"
		case p.HasChanges():
			rr.Result = "changes"
		default:
			rr.Result = "success"
		}
	})
	if endErr := run.End(); err == nil && endErr != nil {
		e.log.Warn("finishing the drift run's record", zap.Error(endErr))
	}
	return p, rep, err
}

func (e *Engine) checkOnly(ctx context.Context, r *intent.Resolved, ref compliance.IntentRef, sel Selection, kind string) (*compliance.Plan, error) {
	p := &compliance.Plan{SchemaVersion: compliance.PlanSchema, Kind: kind, CreatedAt: e.opt.Now().UTC(), Intent: ref}
	var switches []*intent.Switch
	for _, sw := range r.Switches {
		if sel.keep(sw.Name) {
			switches = append(switches, sw)
		}
	}
	var hosts []*intent.Host
	if !sel.SkipHosts {
		for _, h := range r.Hosts {
			if sel.keep(h.Name) {
				hosts = append(hosts, h)
			}
		}
	}
	results := make([]compliance.DevicePlan, len(switches)+len(hosts))
	e.progressStart(kind, len(results))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(e.opt.Parallelism)
	for i, sw := range switches {
		g.Go(func() error {
			results[i] = e.planSwitch(gctx, r, sw, kind)
			e.progressDone(sw.Name, failedStatus(results[i].Status))
			return nil
		})
	}
	for j, h := range hosts {
		i := len(switches) + j
		g.Go(func() error {
			results[i] = e.planHost(gctx, r, h, kind)
			e.progressDone(h.Name, failedStatus(results[i].Status))
			return nil
		})
	}
	_ = g.Wait()
	e.progressFinish()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sort.SliceStable(results, func(i, j int) bool {
		if results[i].Kind != results[j].Kind {
			return results[i].Kind > results[j].Kind // switches first
		}
		return results[i].Device < results[j].Device
	})
	p.Devices = results
	if len(hosts) == 0 && len(r.Hosts) > 0 && !sel.SkipHosts && e.hosts == nil {
		// Reported, not hidden: hosts need the host runner.
		p.Devices = append(p.Devices, compliance.DevicePlan{Device: "(hosts)", Kind: "host", Status: compliance.StatusError, Error: "no host runner configured"})
	}
	p.Summarise()
	return p, nil
}

func failedStatus(s compliance.Status) bool {
	return s == compliance.StatusError || s == compliance.StatusUnreachable || s == compliance.StatusConflict
}

func (e *Engine) planSwitch(ctx context.Context, r *intent.Resolved, sw *intent.Switch, kind string) compliance.DevicePlan {
	dp, entry, err := e.switchPlan(r, sw)
	if err != nil {
		return withError(dp, err)
	}
	desired, err := e.renderers.Render(sw)
	if err != nil {
		return withError(dp, err)
	}
	dp.Desired, dp.Notes = desired, desired.Notes
	rendered := desired.Owned.Clone()
	dp.Rendered = &rendered
	var ours *devcfg.Config
	if e.opt.LastApplied != nil {
		ours = e.opt.LastApplied(sw.Name)
	}
	if ours != nil {
		// What rocefab applied last time stays its own until removed: a
		// port that left the intent or a moved lossless VLAN is cleaned up.
		desired.Owned.Merge(ours.Owned)
	}
	dp.Warnings = append(dp.Warnings, e.deviceWarnings(sw.Name)...)
	drv, err := e.openDriver(ctx, &dp, desired.Owned)
	if err != nil {
		return withError(dp, err)
	}
	defer drv.Close()
	running, err := e.fetch(ctx, drv)
	if err != nil {
		return withError(dp, err)
	}
	if fit := entry.Attrs.Fit; fit != nil {
		// The platform checks the device (ports, buffer model) and may
		// re-scope; the owned view is filtered again with that scope.
		if err := fit(sw, desired, running.Config); err != nil {
			return withError(dp, err)
		}
		dp.Notes = desired.Notes
		running = drivers.NewRunning(running.Config, entry.Attrs.Platform, desired.Owned)
	}
	e.readAgain(sw.Name)
	var earlier []*devcfg.Config
	if ours == nil && e.opt.Earlier != nil {
		// No record in this state directory: what earlier revisions of the
		// intent rendered is rocefab's own. The newest the device runs
		// exactly is what rocefab applied last.
		earlier = e.opt.Earlier(sw.Name)
		if ours = matchEarlier(earlier, running, entry); ours != nil {
			desired.Owned.Merge(ours.Owned)
			running = drivers.NewRunning(running.Config, entry.Attrs.Platform, desired.Owned)
		}
	}
	dp.Fingerprint = running.Fingerprint
	dp.Changes = devcfg.Diff(desired, running.Owned, entry.Attrs.Platform.Syntax, entry.Attrs.Classify)
	dp.Patch = devcfg.BuildPatch(dp.Changes, entry.Attrs.Platform.Syntax)
	dp.Conflicts = devcfg.ConflictsExcept(running.Config, desired.Singletons, ours)
	if ours == nil && len(earlier) > 0 {
		dp.Conflicts = exceptEarlier(dp.Conflicts, running.Config, desired.Singletons, earlier)
	}
	dp.Status = statusFor(kind, len(dp.Changes) > 0, len(dp.Conflicts) > 0)
	return dp
}

// matchEarlier returns the newest earlier render the device runs exactly
// (in that render's own scope), or nil.
func matchEarlier(earlier []*devcfg.Config, running *drivers.Running, entry *renderers.Entry) *devcfg.Config {
	for _, c := range earlier {
		r := drivers.NewRunning(running.Config, entry.Attrs.Platform, c.Owned)
		if len(devcfg.Diff(c, r.Owned, entry.Attrs.Platform.Syntax, nil)) == 0 {
			return c
		}
	}
	return nil
}

// exceptEarlier drops conflicts over a value some earlier revision of the
// intent rendered for the device: rocefab's own, even where the device no
// longer matches that revision as a whole.
func exceptEarlier(conflicts []devcfg.Conflict, running *devcfg.Config, singletons []devcfg.Singleton, earlier []*devcfg.Config) []devcfg.Conflict {
	var out []devcfg.Conflict
	for _, c := range conflicts {
		ours := false
		for _, rev := range earlier {
			if !slices.ContainsFunc(devcfg.ConflictsExcept(running, singletons, rev), func(x devcfg.Conflict) bool { return x == c }) {
				ours = true
				break
			}
		}
		if !ours {
			out = append(out, c)
		}
	}
	return out
}

// deviceWarnings says what the state directory knows a plan must not
// hide: a run interrupted on the device, a run applying to it right now,
// an outcome nobody could read back.
func (e *Engine) deviceWarnings(device string) []string {
	store := e.opt.Store
	if store.Dir == "" {
		return nil
	}
	rec, err := store.DeviceRecord(device)
	if err != nil || rec == nil {
		return nil
	}
	var out []string
	if a := rec.Active; a != nil {
		if store.Alive(a.Run) {
			out = append(out, fmt.Sprintf("%s run %s is %s on this device right now (since %s)", a.Kind, a.Run, a.Phase, a.At.UTC().Format(time.RFC3339)))
		} else if u := rec.Unknown; u == nil || u.Run != a.Run {
			out = append(out, interruptedNote(a))
		}
	}
	if u := rec.Unknown; u != nil {
		// Written before the read: the read may fail too.
		out = append(out, fmt.Sprintf("what the device ran after run %s was unknown (%s); this report reads it again, and the next apply, or rollback %s, settles the run", u.Run, u.Reason, u.Run))
	}
	return out
}

// readAgain clears an unknown mark once the device has been read.
func (e *Engine) readAgain(device string) {
	store := e.opt.Store
	if store.Dir == "" {
		return
	}
	if rec, err := store.DeviceRecord(device); err != nil || rec == nil || rec.Unknown == nil {
		return
	}
	_ = store.UpdateDevice(device, func(r *DeviceRecord) { r.Unknown = nil })
}

func (e *Engine) fetch(ctx context.Context, drv drivers.Driver) (*drivers.Running, error) {
	ctx, cancel := context.WithTimeout(ctx, e.opt.Timeout)
	defer cancel()
	return drv.Fetch(ctx)
}

func (e *Engine) planHost(ctx context.Context, r *intent.Resolved, h *intent.Host, kind string) compliance.DevicePlan {
	dp := compliance.DevicePlan{Device: h.Name, Kind: "host", Platform: "host"}
	if e.hosts == nil {
		dp.Status = compliance.StatusError
		dp.Error = "hosts are planned through the host runner, which is not configured"
		return dp
	}
	got, err := e.hosts.PlanHost(ctx, r, h)
	if err != nil {
		return withError(dp, err)
	}
	got.Kind = "host"
	if got.Status == "" || got.Status == compliance.StatusChanges || got.Status == compliance.StatusNoChanges {
		got.Status = statusFor(kind, len(got.Changes) > 0, false)
	}
	return got
}

func statusFor(kind string, changes, conflicts bool) compliance.Status {
	switch {
	case conflicts:
		return compliance.StatusConflict
	case kind == "drift" && changes:
		return compliance.StatusDrifted
	case kind == "drift":
		return compliance.StatusCompliant
	case changes:
		return compliance.StatusChanges
	}
	return compliance.StatusNoChanges
}

func withError(dp compliance.DevicePlan, err error) compliance.DevicePlan {
	dp.Status = compliance.StatusError
	if unreachable(err) {
		dp.Status = compliance.StatusUnreachable
	}
	dp.Error = deviceMessage(dp.Device, err)
	return dp
}

// deviceMessage drops a leading "device: " the driver already added, since
// plans print the device name next to it.
func deviceMessage(device string, err error) string {
	var de *drivers.DeviceError
	msg := err.Error()
	if errors.As(err, &de) {
		msg = strings.TrimPrefix(msg, de.Device+": ")
	}
	return strings.TrimPrefix(msg, device+": ")
}

func (e *Engine) progressStart(op string, total int) {
	if e.opt.Progress != nil {
		e.opt.Progress.Start(op, total)
	}
}

func (e *Engine) progressDone(device string, failed bool) {
	if e.opt.Progress != nil {
		e.progressMu.Lock()
		defer e.progressMu.Unlock()
		e.opt.Progress.Done(device, failed)
	}
}

func (e *Engine) progressFinish() {
	if e.opt.Progress != nil {
		e.opt.Progress.Finish()
	}
}
