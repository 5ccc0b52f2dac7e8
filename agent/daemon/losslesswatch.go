package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/rocefab/rocefab/agent/daemon/history"
	"github.com/rocefab/rocefab/agent/daemon/notify"
	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/validators/telemetry"
)

// losslessWatch runs the lossless detectors (validators/telemetry) over
// the counters the hub collects, one round per counters interval, and
// keeps their active findings for the status page. The detector is
// rebuilt when the intent changes and carries its counters and findings
// over (those of devices and ports that left are dropped); its state is
// saved in the history when the agent stops and restored when it starts,
// so the first round after a restart gives rates, not a baseline.
type losslessWatch struct {
	mu       sync.Mutex
	revision string
	topo     *telemetry.Topology
	det      *telemetry.Detector
	active   []telemetry.Finding
	// recent are the findings cleared in the last recentCleared, newest
	// last, so a probe run they overlapped still lists them.
	recent []telemetry.Finding
	loaded bool // the saved state was read
	rounds int  // rounds observed by a detector
	// moves are the counter moves other than growth the detector has
	// taken in since start (resets, wraps, implausible jumps).
	moves telemetry.ReadingStatus
}

// A cleared finding is kept this long, and at most recentMost of them,
// for the probe runs still running when it cleared.
const (
	recentCleared = time.Hour
	recentMost    = 1000
)

// losslessStateKey holds the detector state in the history's metadata.
const losslessStateKey = "telemetry-state"

// activeLossless is a copy of the active findings.
func (a *Agent) activeLossless() []telemetry.Finding {
	a.watch.mu.Lock()
	defer a.watch.mu.Unlock()
	return append([]telemetry.Finding(nil), a.watch.active...)
}

// losslessLoop runs a detector round every counters interval.
func (a *Agent) losslessLoop(ctx context.Context) {
	t := time.NewTicker(a.cfg.CountersInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			a.saveLossless()
			return
		case <-t.C:
			a.losslessRound()
		}
	}
}

// losslessRound feeds the detector each device's latest counters, and
// records and announces the findings it raised or cleared.
func (a *Agent) losslessRound() {
	cur := a.intent()
	if cur == nil {
		return
	}
	rep, topo := a.detect(cur)
	if len(rep.Raised)+len(rep.Cleared) > 0 {
		a.recordLossless(cur, rep, topo)
	}
}

// detect runs one detector round.
func (a *Agent) detect(cur *loaded) (telemetry.Report, *telemetry.Topology) {
	w := &a.watch
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.det == nil || w.revision != cur.snap.Revision {
		prev := w.det
		w.det, w.active, w.revision = nil, nil, cur.snap.Revision
		cfg := telemetry.DefaultConfig()
		cfg.Interval = a.cfg.CountersInterval
		cfg.MaxGap = max(cfg.MaxGap, 3*a.cfg.CountersInterval+a.cfg.CountersInterval/2)
		if a.cfg.LosslessTune != nil {
			a.cfg.LosslessTune(&cfg)
		}
		topo, err := telemetry.FromIntent(cur.res)
		w.topo = topo
		if err == nil {
			w.det, err = telemetry.New(topo, cfg)
		}
		if err != nil {
			a.log.Warn("lossless detectors not running for this intent", zap.String("revision", cur.snap.Revision), zap.Error(err))
			return telemetry.Report{}, nil
		}
		var st *telemetry.State
		if prev != nil {
			st = prev.State()
		} else if !w.loaded {
			st = a.loadLossless()
		}
		w.loaded = true
		if st != nil {
			if err := w.det.Restore(st); err != nil {
				a.log.Warn("lossless detector state not restored; starting from a baseline", zap.Error(err))
				w.det, _ = telemetry.New(topo, cfg) // cfg was valid a moment ago
			}
		}
	}
	if w.det == nil {
		return telemetry.Report{}, nil
	}
	rep := w.det.Observe(a.hub.readings(w.topo))
	w.rounds++
	for _, rs := range rep.Readings {
		w.moves.Resets += rs.Resets
		w.moves.Wraps += rs.Wraps
		w.moves.Ambiguous += rs.Ambiguous
		w.moves.Implausible += rs.Implausible
		if rs.Resets+rs.Ambiguous+rs.Implausible > 0 {
			a.log.Debug("counters went back or jumped; taken as a new baseline where no rate is known", zap.String("device", rs.Device),
				zap.Int("resets", rs.Resets), zap.Int("wraps", rs.Wraps), zap.Int("ambiguous", rs.Ambiguous), zap.Int("implausible", rs.Implausible))
		}
	}
	w.active = rep.Active
	now := a.now()
	keep := 0
	for _, f := range w.recent {
		if now.Sub(f.Cleared) < recentCleared {
			w.recent[keep] = f
			keep++
		}
	}
	w.recent = append(w.recent[:keep], rep.Cleared...)
	if n := len(w.recent) - recentMost; n > 0 {
		w.recent = append(w.recent[:0], w.recent[n:]...)
	}
	for _, f := range rep.Raised {
		a.log.Warn("lossless finding", zap.String("code", string(f.Code)), zap.String("severity", string(f.Severity)),
			zap.String("subject", f.Subject.String()), zap.String("message", f.Message))
	}
	for _, f := range rep.Cleared {
		a.log.Info("lossless finding cleared", zap.String("code", string(f.Code)), zap.String("subject", f.Subject.String()))
	}
	return rep, w.topo
}

// activeWindow is a copy of f whose LastSeen is the end of the time it
// was active: its clearing, or now while it is active. A finding stays
// active between the rounds that show it (a storm the watchdog broke is
// still being watched), so a probe run in that time ran during it.
func activeWindow(f telemetry.Finding, now time.Time) telemetry.Finding {
	switch {
	case !f.Cleared.IsZero():
		f.LastSeen = maxTime(f.LastSeen, f.Cleared)
	case now.After(f.LastSeen):
		f.LastSeen = now
	}
	return f
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// recentProbeRuns are the probe runs that may overlap a finding: the
// newest recorded ones and those in progress (ending now).
func (a *Agent) recentProbeRuns(now time.Time) []telemetry.ProbeRun {
	var out []telemetry.ProbeRun
	page, err := a.db.List(history.Query{Kind: history.KindProbe, Limit: 100})
	if err != nil {
		a.log.Warn("probe runs not read for the lossless findings", zap.Error(err))
	}
	for i := len(page.Runs) - 1; i >= 0; i-- { // oldest first
		r := page.Runs[i]
		out = append(out, telemetry.ProbeRun{ID: r.ID, Start: r.Started, End: r.Finished})
	}
	a.mu.RLock()
	var running []inflightRun
	for _, r := range a.inflight {
		if r.Kind == history.KindProbe {
			running = append(running, r)
		}
	}
	a.mu.RUnlock()
	sort.Slice(running, func(i, j int) bool { return running[i].Started.Before(running[j].Started) })
	for _, r := range running {
		out = append(out, telemetry.ProbeRun{ID: r.ID, Start: r.Started, End: now})
	}
	return out
}

// recordLossless records a round that raised or cleared findings as a
// lossless run, each finding with the probe runs it overlapped, and
// announces it.
func (a *Agent) recordLossless(cur *loaded, rep telemetry.Report, topo *telemetry.Topology) {
	now := a.now().UTC()
	run := &history.Run{ID: engine.NewRunID(now), Kind: history.KindLossless, Trigger: history.TriggerSchedule, Fabric: cur.res.Name,
		Commit: cur.snap.Commit, Revision: cur.snap.Revision, Shard: a.cfg.Shard.String(), Started: now, Finished: now,
		Summary: history.Summary{ByStatus: map[string]int{}}}
	var fs []telemetry.Finding
	for _, f := range rep.Raised {
		run.Lossless = append(run.Lossless, history.LosslessFinding{Event: history.LosslessRaised, Finding: f})
		fs = append(fs, activeWindow(f, now))
	}
	for _, f := range rep.Cleared {
		run.Lossless = append(run.Lossless, history.LosslessFinding{Event: history.LosslessCleared, Finding: f})
		fs = append(fs, activeWindow(f, now))
	}
	for _, o := range telemetry.Correlate(a.recentProbeRuns(now), fs, nil) {
		lf := &run.Lossless[o.Finding]
		lf.ProbeRuns = append(lf.ProbeRuns, o.Run)
	}
	run.Result = history.ResultSuccess
	devices := map[string]bool{}
	for _, lf := range run.Lossless {
		devices[lf.Subject.Device] = true
		run.Summary.ByStatus[lf.Event]++
		if lf.Event != history.LosslessRaised {
			continue
		}
		if lf.Severity == telemetry.SeverityError {
			run.Result = history.ResultFailure
		} else if run.Result == history.ResultSuccess {
			run.Result = history.ResultChanges
		}
	}
	run.Summary.Devices, run.Summary.Findings = len(devices), len(run.Lossless)
	if run.Result == history.ResultFailure {
		run.Error = fmt.Sprintf("%d lossless finding(s) raised", run.Summary.ByStatus[history.LosslessRaised])
	}
	a.record(run)

	ev := notify.Event{Fabric: run.Fabric, Shard: shardLabel(a), RunID: run.ID, RunKind: string(run.Kind), Commit: run.Commit,
		Time: now, Changes: []notify.DeviceChange{}}
	for _, lf := range run.Lossless {
		event := notify.FindingRaised
		if lf.Event == history.LosslessCleared {
			event = notify.FindingCleared
		}
		fc := notify.NewFindingChange(event, lf.AsFinding())
		fc.ProbeRuns = lf.ProbeRuns
		ev.Findings = append(ev.Findings, fc)
	}
	ev.Finish()
	if a.deps.Notifier != nil {
		a.deps.Notifier.Notify(ev)
	}
}

// losslessDuring are the counter findings active at some moment of a
// probe run from start to end, with the run's pairs whose cabled path
// crosses each finding's device.
func (a *Agent) losslessDuring(start, end time.Time, pairs []history.ProbePair) []history.LosslessFinding {
	w := &a.watch
	w.mu.Lock()
	topo := w.topo
	orig := append(append(make([]telemetry.Finding, 0, len(w.active)+len(w.recent)), w.active...), w.recent...)
	w.mu.Unlock()
	fs := make([]telemetry.Finding, len(orig))
	for i, f := range orig {
		fs[i] = activeWindow(f, end)
	}
	if len(fs) == 0 {
		return nil
	}
	pr := telemetry.ProbeRun{Start: start, End: end}
	for _, p := range pairs {
		pr.Pairs = append(pr.Pairs, telemetry.ProbePair{From: p.From, To: p.To})
	}
	var path telemetry.PathFunc
	if topo != nil {
		path = topo.CablePath
	}
	var out []history.LosslessFinding
	for _, o := range telemetry.Correlate([]telemetry.ProbeRun{pr}, fs, path) {
		out = append(out, history.LosslessFinding{Finding: orig[o.Finding], Pairs: o.Pairs})
	}
	return out
}

// loadLossless reads the state a previous agent saved; nil when none.
func (a *Agent) loadLossless() *telemetry.State {
	raw, err := a.db.Meta(losslessStateKey)
	if err != nil || raw == "" {
		if err != nil {
			a.log.Warn("lossless detector state not read", zap.Error(err))
		}
		return nil
	}
	var st telemetry.State
	if err := json.Unmarshal([]byte(raw), &st); err != nil {
		a.log.Warn("lossless detector state not read", zap.Error(err))
		return nil
	}
	return &st
}

// saveLossless keeps the detector's state for the next start.
func (a *Agent) saveLossless() {
	w := &a.watch
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.det == nil {
		return
	}
	b, err := json.Marshal(w.det.State())
	if err == nil {
		err = a.db.SetMeta(losslessStateKey, string(b))
	}
	if err != nil {
		a.log.Warn("lossless detector state not saved", zap.Error(err))
	}
}

// losslessCollector exports the active findings, one series each: their
// number is bounded by the ports and priorities the intent declares.
type losslessCollector struct{ a *Agent }

var losslessFindingDesc = prometheus.NewDesc("rocefab_lossless_finding_active",
	"1 for each active finding of the lossless counter detectors, by code, severity and subject (priority empty for a whole port).",
	[]string{"code", "severity", "device", "port", "priority"}, nil)

func (losslessCollector) Describe(ch chan<- *prometheus.Desc) { ch <- losslessFindingDesc }

func (c losslessCollector) Collect(ch chan<- prometheus.Metric) {
	for _, lf := range c.a.activeLossless() {
		f := lf.AsFinding()
		ch <- prometheus.MustNewConstMetric(losslessFindingDesc, prometheus.GaugeValue, 1,
			string(f.Code), f.Severity.String(), f.Subject.Device, f.Subject.Port, f.Subject.PriorityLabel())
	}
}
