package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/gofrs/flock"
	"golang.org/x/sync/errgroup"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/intent"
)

// UpdateReport changes a stored report under a short lock of its own, so
// runs settling devices of the same interrupted run one by one do not lose
// each other's updates.
func (s RunStore) UpdateReport(id string, fn func(r *RunReport)) error {
	fl := flock.New(filepath.Join(s.runDir(id), "update.lock"), flock.SetPermissions(0o600))
	if err := fl.Lock(); err != nil {
		return err
	}
	defer fl.Unlock()
	r, err := s.LoadReport(id)
	if err != nil {
		return err
	}
	fn(r)
	_, err = s.SaveReport(r)
	return err
}

// recoverDevice settles what the interrupted run a left on a device: it
// removes the run's leftovers there (rolling back a change that still
// waited for confirmation), reads the device back and records in that
// run's report what it found: the change in effect (new), not in effect
// (old), or in part (then restored to the snapshot). It returns a note for
// the run that found it. The driver's scope may differ from the
// interrupted run's; each comparison filters the running configuration by
// the scope of the configuration it compares with.
func (e *Engine) recoverDevice(ctx context.Context, store RunStore, drv drivers.Driver, dp *compliance.DevicePlan, a *ActiveRef, by string) string {
	note := store.leftNote(dp.Device, a)
	orig, err := store.LoadReport(a.Run)
	var dr *DeviceRun
	if err == nil {
		dr = orig.Device(dp.Device)
	}
	e.cleanup(ctx, drv, a.Run, a.Phase == PhaseConfirming)
	raw, err := e.fetch(ctx, drv)
	if err != nil {
		return note + "; reading it back failed: " + deviceMessage(dp.Device, err)
	}
	entry, err := e.renderers.Lookup(dp.Platform)
	if err != nil {
		return note + "; " + err.Error()
	}
	platform, syn := entry.Attrs.Platform, entry.Attrs.Platform.Syntax
	owned := func(c *devcfg.Config) *drivers.Running { return drivers.NewRunning(raw.Config, platform, c.Owned) }
	load := func(path string) *devcfg.Config {
		if path == "" {
			return nil
		}
		c, err := store.LoadSnapshot(path)
		if err != nil {
			return nil
		}
		return c
	}
	var desired, snap *devcfg.Config
	if dr != nil {
		desired, snap = load(dr.Desired), load(dr.Snapshot)
	}
	found, outcome := "unknown: the run left no snapshot to compare with", OutcomeUnknown
	switch {
	case a.Phase != PhaseConfirming && desired != nil && len(devcfg.Diff(desired, owned(desired).Owned, syn, nil)) == 0:
		found, outcome = "new", OutcomeApplied
	case snap != nil && len(devcfg.Diff(snap, owned(snap).Owned, syn, nil)) == 0:
		found, outcome = "old", OutcomeFailed
		if a.Phase == PhaseConfirming {
			outcome = OutcomeRolledBack
		}
	case snap != nil:
		if _, err := e.restore(ctx, drv, snap, owned(snap), by); err != nil {
			found = "partial: restoring the snapshot failed: " + err.Error()
		} else {
			found, outcome = "partial, restored to the snapshot", OutcomeRolledBack
		}
	}
	at := e.opt.Now().UTC()
	appliedPath := ""
	if outcome == OutcomeApplied && desired != nil {
		got := owned(desired).Owned.Clone()
		got.Device, got.Platform, got.Owned = dp.Device, dp.Platform, desired.Owned.Clone()
		appliedPath, _ = store.SaveApplied(a.Run, dp.Device, got)
	}
	if orig != nil {
		err := store.UpdateReport(a.Run, func(r *RunReport) {
			if d := r.Device(dp.Device); d != nil {
				d.Outcome, d.Phase, d.Found = outcome, PhaseDone, found
				d.Reason = fmt.Sprintf("interrupted while %s; read back by run %s at %s: %s", a.Phase, by, at.Format(time.RFC3339), found)
				if appliedPath != "" {
					d.Applied = appliedPath
				}
			}
			r.Recovered = append(r.Recovered, Recovery{By: by, At: at, Devices: []string{dp.Device}})
		})
		if err != nil {
			e.log.Warn("recording what an interrupted run left")
		}
	}
	_ = store.UpdateDevice(dp.Device, func(rec *DeviceRecord) {
		if outcome != OutcomeUnknown && rec.Active != nil && rec.Active.Run == a.Run {
			rec.Active = nil
		}
		if rec.Unknown != nil && rec.Unknown.Run == a.Run && outcome != OutcomeUnknown {
			rec.Unknown = nil
		}
		if appliedPath != "" {
			rec.LastApplied = &AppliedRef{Run: a.Run, At: at, Path: appliedPath}
		}
	})
	return note + "; read back: " + found
}

// Recover settles every selected switch that an interrupted run left
// behind, before anything is planned on it. It returns one note per
// device it settled.
func (e *Engine) Recover(ctx context.Context, r *intent.Resolved, sel Selection, by string) map[string]string {
	store := e.opt.Store
	if store.Dir == "" {
		return nil
	}
	notes := map[string]string{}
	var g errgroup.Group
	g.SetLimit(e.opt.Parallelism)
	results := make([]string, len(r.Switches))
	for i, sw := range r.Switches {
		if !sel.keep(sw.Name) {
			continue
		}
		a := store.Interrupted(sw.Name)
		if a == nil {
			continue
		}
		g.Go(func() error {
			dp, _, err := e.switchPlan(r, sw)
			if err != nil {
				results[i] = store.leftNote(sw.Name, a) + "; " + err.Error()
				return nil
			}
			scope := devcfg.Scope{}
			if desired, err := e.renderers.Render(sw); err == nil {
				scope = desired.Owned
			}
			drv, err := e.openDriver(ctx, &dp, scope)
			if err != nil {
				results[i] = store.leftNote(sw.Name, a) + "; " + deviceMessage(sw.Name, err)
				return nil
			}
			defer drv.Close()
			results[i] = e.recoverDevice(ctx, store, drv, &dp, a, by)
			return nil
		})
	}
	_ = g.Wait()
	for i, sw := range r.Switches {
		if results[i] != "" {
			notes[sw.Name] = results[i]
		}
	}
	return notes
}

// RunSummary is one line of `rocefab runs`.
type RunSummary struct {
	ID         string         `json:"id"`
	Kind       string         `json:"kind"`
	Status     string         `json:"status"`
	Result     string         `json:"result,omitempty"`
	StartedAt  time.Time      `json:"startedAt"`
	FinishedAt time.Time      `json:"finishedAt,omitzero"`
	User       string         `json:"user,omitempty"`
	Hostname   string         `json:"hostname,omitempty"`
	RollbackOf string         `json:"rollbackOf,omitempty"`
	Devices    int            `json:"devices"`
	Outcomes   map[string]int `json:"outcomes,omitempty"`
	Summary    string         `json:"summary,omitempty"`
	// Unreadable is why a run's report could not be read.
	Unreadable string `json:"unreadable,omitempty"`
}

// Runs summarises stored runs, newest first; kinds, when given, filters.
func (s RunStore) Runs(kinds ...string) ([]RunSummary, error) {
	ids, err := s.List()
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, k := range kinds {
		want[k] = true
	}
	var out []RunSummary
	for _, id := range ids {
		r, err := s.LoadReport(id)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) || !s.hasReport(id) {
				continue // a directory without a report: a run that never began
			}
			out = append(out, RunSummary{ID: id, Unreadable: err.Error()})
			continue
		}
		if len(want) > 0 && !want[r.Kind] {
			continue
		}
		sum := RunSummary{ID: r.ID, Kind: r.Kind, Status: r.Status, Result: r.Result, StartedAt: r.StartedAt,
			FinishedAt: r.FinishedAt, User: r.User, Hostname: r.Hostname, RollbackOf: r.RollbackOf,
			Devices: len(r.Devices), Outcomes: map[string]int{}, Summary: r.Summary}
		if sum.Status == "" {
			sum.Status = StatusDone // reports from before write-ahead records
		}
		if sum.Status != StatusDone {
			sum.Result = ""
		}
		for _, d := range r.Devices {
			k := string(d.Outcome)
			if d.Status != "" {
				k = d.Status
			}
			sum.Outcomes[k]++
		}
		out = append(out, sum)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].StartedAt.After(out[j].StartedAt) })
	return out, nil
}

func (s RunStore) hasReport(id string) bool {
	_, err := os.Stat(filepath.Join(s.runDir(id), "report.json"))
	return err == nil
}
