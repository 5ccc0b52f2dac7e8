package daemon

import (
	"context"
	"sort"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/validators/telemetry"
)

// losslessWatch runs the lossless detectors (validators/telemetry) over
// the counters the hub collects, one round per counters interval, and
// keeps their active findings for the status page. The detector is
// rebuilt, and starts from a baseline, when the intent changes.
type losslessWatch struct {
	mu       sync.Mutex
	revision string
	topo     *telemetry.Topology
	det      *telemetry.Detector
	active   []telemetry.Finding
}

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
		w.det, w.active, w.revision = nil, nil, cur.snap.Revision
		topo, err := telemetry.FromIntent(cur.res)
		w.topo = topo
		if err == nil {
			cfg := telemetry.DefaultConfig()
			cfg.Interval = a.cfg.CountersInterval
			cfg.MaxGap = max(cfg.MaxGap, 3*a.cfg.CountersInterval+a.cfg.CountersInterval/2)
			w.det, err = telemetry.New(topo, cfg)
		}
		if err != nil {
			a.log.Warn("lossless detectors not running for this intent", zap.String("revision", cur.snap.Revision), zap.Error(err))
			return
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
