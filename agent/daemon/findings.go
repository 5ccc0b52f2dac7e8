package daemon

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rocefab/rocefab/agent/daemon/history"
	"github.com/rocefab/rocefab/finding"
)

// lastFindings keeps the findings of the last run of each kind that has
// them (reload: lint, probe, mesh: localize), for rocefab_findings.
type lastFindings struct {
	mu     sync.Mutex
	byKind map[history.Kind][]finding.Finding
}

// observe replaces the kind's findings with the run's.
func (l *lastFindings) observe(r *history.Run) {
	switch r.Kind {
	case history.KindReload, history.KindProbe, history.KindMesh:
	default:
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.byKind == nil {
		l.byKind = map[history.Kind][]finding.Finding{}
	}
	l.byKind[r.Kind] = append([]finding.Finding(nil), r.Findings...)
}

func (l *lastFindings) all() []finding.Finding {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []finding.Finding
	for _, fs := range l.byKind {
		out = append(out, fs...)
	}
	return out
}

var findingsDesc = prometheus.NewDesc("rocefab_findings",
	"Findings of every source by source, code and severity: the last intent reload (lint), probe run (probe) and mesh run (localize), and the active lossless counter findings (telemetry).",
	[]string{"source", "code", "severity"}, nil)

// findingsCollector counts findings of every source with the same labels.
type findingsCollector struct{ a *Agent }

func (findingsCollector) Describe(ch chan<- *prometheus.Desc) { ch <- findingsDesc }

func (c findingsCollector) Collect(ch chan<- prometheus.Metric) {
	fs := c.a.metrics.findings.all()
	for _, f := range c.a.activeLossless() {
		fs = append(fs, f.AsFinding())
	}
	type key struct {
		source finding.Source
		code   finding.Code
		sev    finding.Severity
	}
	n := map[key]int{}
	for _, f := range fs {
		n[key{f.Source, f.Code, f.Severity}]++
	}
	for k, v := range n {
		ch <- prometheus.MustNewConstMetric(findingsDesc, prometheus.GaugeValue, float64(v),
			string(k.source), string(k.code), k.sev.String())
	}
}
