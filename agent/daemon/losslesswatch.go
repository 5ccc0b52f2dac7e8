package daemon

import (
	"context"
	"encoding/json"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

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
	loaded   bool // the saved state was read
}

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

// losslessRound feeds the detector each device's latest counters.
func (a *Agent) losslessRound() {
	cur := a.intent()
	if cur == nil {
		return
	}
	w := &a.watch
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.det == nil || w.revision != cur.snap.Revision {
		prev := w.det
		w.det, w.active, w.revision = nil, nil, cur.snap.Revision
		cfg := telemetry.DefaultConfig()
		cfg.Interval = a.cfg.CountersInterval
		cfg.MaxGap = max(cfg.MaxGap, 3*a.cfg.CountersInterval+a.cfg.CountersInterval/2)
		topo, err := telemetry.FromIntent(cur.res)
		w.topo = topo
		if err == nil {
			w.det, err = telemetry.New(topo, cfg)
		}
		if err != nil {
			a.log.Warn("lossless detectors not running for this intent", zap.String("revision", cur.snap.Revision), zap.Error(err))
			return
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
		return
	}
	rep := w.det.Observe(a.hub.readings(w.topo))
	w.active = rep.Active
	for _, f := range rep.Raised {
		a.log.Warn("lossless finding", zap.String("code", string(f.Code)), zap.String("severity", string(f.Severity)),
			zap.String("subject", f.Subject.String()), zap.String("message", f.Message))
	}
	for _, f := range rep.Cleared {
		a.log.Info("lossless finding cleared", zap.String("code", string(f.Code)), zap.String("subject", f.Subject.String()))
	}
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

// readings are the hub's counters as one detector round: a reading per
// device, taken when its counters last arrived (a device with nothing new
// gives the same moment again, which the detector takes as stale).
func (h *counterHub) readings(t *telemetry.Topology) []telemetry.Reading {
	h.mu.Lock()
	byDev := map[string][]telemetry.NamedSample{}
	for k, v := range h.values {
		byDev[k.Device] = append(byDev[k.Device], telemetry.NamedSample{Port: k.Port, Counter: k.Counter, Value: v})
	}
	taken := map[string]time.Time{}
	for dev, s := range h.sources {
		taken[dev] = s.updated
	}
	h.mu.Unlock()
	devs := make([]string, 0, len(byDev))
	for dev := range byDev {
		devs = append(devs, dev)
	}
	sort.Strings(devs)
	out := make([]telemetry.Reading, 0, len(devs))
	for _, dev := range devs {
		if taken[dev].IsZero() {
			continue
		}
		r, _ := t.ReadingFrom(dev, taken[dev], byDev[dev])
		out = append(out, r)
	}
	return out
}

// losslessCollector exports the active findings, one series each: their
// number is bounded by the ports and priorities the intent declares.
type losslessCollector struct{ a *Agent }

var losslessFindingDesc = prometheus.NewDesc("rocefab_lossless_finding_active",
	"1 for each active finding of the lossless counter detectors, by code, severity and subject (priority empty for a whole port).",
	[]string{"code", "severity", "device", "port", "priority"}, nil)

func (losslessCollector) Describe(ch chan<- *prometheus.Desc) { ch <- losslessFindingDesc }

func (c losslessCollector) Collect(ch chan<- prometheus.Metric) {
	for _, f := range c.a.activeLossless() {
		prio := ""
		if f.Subject.Priority != telemetry.NoPriority {
			prio = strconv.Itoa(f.Subject.Priority)
		}
		ch <- prometheus.MustNewConstMetric(losslessFindingDesc, prometheus.GaugeValue, 1,
			string(f.Code), string(f.Severity), f.Subject.Device, f.Subject.Port, prio)
	}
}
