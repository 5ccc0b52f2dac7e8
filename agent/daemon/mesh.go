package daemon

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/rocefab/rocefab/agent/daemon/history"
	"github.com/rocefab/rocefab/agent/daemon/notify"
	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/finding"
	"github.com/rocefab/rocefab/intent"
)

// MeshRunner runs the probe mesh over every fabric link of the intent and
// localizes what its flows saw (agent/daemon/probewire wires
// validators/probe/mesh). The mesh needs every link covered, so it is not
// split by shard.
type MeshRunner func(ctx context.Context, r *intent.Resolved) (MeshSummary, error)

// Localization verdicts a MeshSummary carries.
const (
	MeshClean        = "clean"
	MeshLocalized    = "localized"
	MeshInconclusive = "inconclusive"
)

// MeshSummary is what the agent keeps of a mesh report.
type MeshSummary struct {
	// Verdict is pass or fail (a fault, flows that could not be probed, a
	// link with too few flows); Localization clean, localized or
	// inconclusive.
	Verdict      string `json:"verdict"`
	Localization string `json:"localization"`
	Flows        int    `json:"flows"`
	// Links lists every fabric link direction of the plan.
	Links    []MeshLink    `json:"-"`
	Findings []MeshFinding `json:"findings"`
	// PartlyUnknown counts flows whose path has hops that did not answer.
	PartlyUnknown int      `json:"partlyUnknownPaths"`
	Notes         []string `json:"notes"`
}

// MeshLink is one fabric link direction and the flows that crossed it.
type MeshLink struct {
	// A and B are the cable's ends as the intent lists them; From and To
	// the direction.
	A, B     history.Port
	From, To history.Port
	Flows    int
}

// MeshDir is a link direction a finding names.
type MeshDir struct {
	From history.Port `json:"from"`
	To   history.Port `json:"to"`
}

// MeshFinding is one localized fault or one inconclusive set of symptoms.
type MeshFinding struct {
	Class  string `json:"class"`
	Status string `json:"status"` // localized or inconclusive
	// Links are the directions a localized link fault is on (two when on
	// both); Device is set for a fault in a device.
	Links  []MeshDir `json:"links,omitempty"`
	Device string    `json:"device,omitempty"`
	// Candidates are the link directions an inconclusive finding cannot
	// separate (devices among them are in Summary).
	Candidates []MeshDir `json:"candidates,omitempty"`
	Summary    string    `json:"summary"`
}

// AsFinding is the mesh finding in the shared shape (source localize), at
// sev: the class is the code, the first link direction or the device the
// subject and Where.
func (f MeshFinding) AsFinding(sev finding.Severity) finding.Finding {
	out := finding.Finding{Source: finding.SourceLocalize, Code: finding.Code(f.Class), Severity: sev, Message: f.Summary,
		Subject: finding.Subject{Device: f.Device}, Where: f.Device}
	if len(f.Links) > 0 {
		l := f.Links[0]
		out.Where = portName(l.From) + " -> " + portName(l.To)
		out.Subject = finding.Subject{Device: l.From.Device, Port: l.From.Port, Peer: l.To.Device, PeerPort: l.To.Port, Link: out.Where}
	}
	return out
}

// notifySeverity reads a webhook severity (info, warning, critical) on the
// shared scale.
func notifySeverity(s string) finding.Severity {
	v, err := finding.ParseSeverity(s)
	if err != nil {
		return finding.Warning
	}
	return v
}

// MeshSchema versions /api/v1/mesh.
const MeshSchema = "rocefab.io/agent-mesh/v1"

// MeshStatus is the body of /api/v1/mesh: the link states and what the
// last mesh run found.
type MeshStatus struct {
	SchemaVersion string `json:"schemaVersion"`
	// Enabled: the mesh runs on a schedule (Interval).
	Enabled  bool   `json:"enabled"`
	Interval string `json:"interval"`
	// LastRun is the last mesh run (any result); Summary what the last one
	// that produced a report found.
	LastRun *history.Run         `json:"lastRun,omitempty"`
	Summary *MeshSummary         `json:"summary,omitempty"`
	Links   []history.LinkHealth `json:"links"`
	ByState map[string]int       `json:"byState"`
}

// meshState is the agent's per-link health.
type meshState struct {
	mu      sync.RWMutex
	links   map[string]history.LinkHealth // by linkKey
	summary *MeshSummary
	lastRun *history.Run
}

func linkKey(l history.LinkHealth) string { return l.Link + "\x00" + l.Direction }

func portName(p history.Port) string { return p.Device + " " + p.Port }

// linkName names a cable by its ends in intent order; the direction by
// the devices packets go between (the link name tells parallel cables
// apart).
func linkName(l MeshLink) (link, dir string) {
	return portName(l.A) + " - " + portName(l.B), l.From.Device + " -> " + l.To.Device
}

// classSeverity: a fault that breaks the lossless class (remarked DSCP or
// ECN, loss, an MTU black hole) is critical; CE marks only say a queue
// marks, a warning.
func classSeverity(class string) string {
	if class == "ce_marked" {
		return notify.SeverityWarning
	}
	return notify.SeverityCritical
}

func worseSeverity(a, b string) string {
	rank := map[string]int{notify.SeverityInfo: 1, notify.SeverityWarning: 2, notify.SeverityCritical: 3}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

// nextLinks is the link health after a mesh run, and the changes to
// announce. A link is bad when a fault is localized on it, unknown when
// no flow crossed it or an inconclusive finding cannot clear it, good
// otherwise. Only changes of the last known state announce: good (or
// never known) to bad is link_bad, bad to good link_recovered; a run that
// leaves a link unknown announces nothing, and the next known state is
// compared with the one before it.
func nextLinks(prev map[string]history.LinkHealth, sum MeshSummary, now time.Time) ([]history.LinkHealth, []notify.LinkChange) {
	type dirKey struct{ from, to history.Port }
	bad := map[dirKey][]MeshFinding{}
	unsure := map[dirKey]bool{}
	for _, f := range sum.Findings {
		switch f.Status {
		case MeshLocalized:
			for _, d := range f.Links {
				k := dirKey{d.From, d.To}
				bad[k] = append(bad[k], f)
			}
		case MeshInconclusive:
			for _, d := range f.Candidates {
				unsure[dirKey{d.From, d.To}] = true
			}
		}
	}
	var out []history.LinkHealth
	var changes []notify.LinkChange
	for _, ml := range sum.Links {
		name, dir := linkName(ml)
		l := history.LinkHealth{Link: name, Direction: dir, From: ml.From, To: ml.To, Flows: ml.Flows, State: history.LinkGood}
		k := dirKey{ml.From, ml.To}
		switch {
		case len(bad[k]) > 0:
			l.State = history.LinkBad
			for _, f := range bad[k] {
				if !slices.Contains(l.Classes, f.Class) {
					l.Classes = append(l.Classes, f.Class)
				}
				l.Evidence = append(l.Evidence, f.Summary)
				l.Severity = worseSeverity(l.Severity, classSeverity(f.Class))
			}
		case ml.Flows == 0 || unsure[k]:
			l.State = history.LinkUnknown
		}
		p, known := prev[linkKey(l)]
		l.Last, l.Since = l.State, now
		if l.State == history.LinkUnknown {
			l.Last = p.Last
		}
		if known && p.State == l.State {
			l.Since = p.Since
		}
		switch {
		case l.Last == history.LinkBad && p.Last != history.LinkBad:
			changes = append(changes, notify.LinkChange{Event: notify.LinkBad, Link: l.Link, Direction: l.Direction, From: p.Last, To: l.State,
				Classes: l.Classes, Evidence: l.Evidence, Severity: l.Severity})
		case l.Last == history.LinkGood && p.Last == history.LinkBad:
			changes = append(changes, notify.LinkChange{Event: notify.LinkRecovered, Link: l.Link, Direction: l.Direction, From: p.Last, To: l.State,
				Classes: p.Classes, Evidence: []string{fmt.Sprintf("no fault localized on %d flow(s) through it", l.Flows)}, Severity: notify.SeverityInfo})
		}
		out = append(out, l)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Link != out[j].Link {
			return out[i].Link < out[j].Link
		}
		return out[i].Direction < out[j].Direction
	})
	return out, changes
}

// mesh is a mesh run: every host's flows, so it waits for every host.
func (a *Agent) mesh(ctx context.Context, cur *loaded, run *history.Run) {
	if a.deps.Mesh == nil {
		a.metrics.mesh.runs.WithLabelValues("error").Inc()
		a.stopped(ctx, run, errors.New("no mesh runner is configured in this build"))
		return
	}
	hosts := make([]string, 0, len(cur.res.Hosts))
	for _, h := range cur.res.Hosts {
		hosts = append(hosts, h.Name)
	}
	release, err := a.devices.acquire(ctx, run.ID, hosts)
	if err != nil {
		a.stopped(ctx, run, err)
		return
	}
	defer release()
	// Recorded in the run store too, written ahead, as probes are, so
	// `rocefab runs` lists mesh runs with the rest.
	user, host := engine.Actor()
	store := engine.RunStore{Dir: a.cfg.StateDir}
	rec, recErr := store.Begin(&engine.RunReport{ID: run.ID, Kind: engine.KindMesh, StartedAt: run.Started,
		Intent: cur.ref, User: user, Hostname: host, Options: map[string]string{"agent": "true", "trigger": string(run.Trigger)}})
	if recErr != nil {
		a.log.Warn("recording the mesh run", zap.Error(recErr))
	}
	sum, err := a.deps.Mesh(ctx, cur.res)
	if rec != nil {
		_ = rec.Update(func(r *engine.RunReport) {
			r.FinishedAt, r.Status, r.Result = a.now().UTC(), engine.StatusDone, "success"
			switch {
			case err != nil:
				r.Result, r.Summary = "failure", "mesh: "+err.Error()
			case sum.Verdict != VerdictPass:
				r.Result, r.Summary = "failure", fmt.Sprintf("mesh verdict %s, localization %s, %d finding(s) over %d flows", sum.Verdict, sum.Localization, len(sum.Findings), sum.Flows)
			default:
				r.Summary = fmt.Sprintf("mesh verdict %s over %d flows", sum.Verdict, sum.Flows)
			}
		})
		_ = rec.End()
	}
	if err != nil {
		a.metrics.mesh.runs.WithLabelValues("error").Inc()
		a.stopped(ctx, run, fmt.Errorf("mesh: %w", err))
		a.meshRecorded(run, nil)
		return
	}
	now := a.now().UTC()
	a.meshState.mu.Lock()
	links, changes := nextLinks(a.meshState.links, sum, now)
	a.meshState.links = map[string]history.LinkHealth{}
	for _, l := range links {
		a.meshState.links[linkKey(l)] = l
	}
	a.meshState.summary = &sum
	a.meshState.mu.Unlock()
	a.metrics.mesh.observe(sum, links)

	run.Links = links
	run.Summary = history.Summary{Devices: len(links), ByStatus: map[string]int{}, Findings: len(sum.Findings)}
	for _, l := range links {
		run.Summary.ByStatus[l.State]++
	}
	for _, f := range sum.Findings {
		sev := classSeverity(f.Class)
		if f.Status != MeshLocalized {
			sev = notify.SeverityWarning
		}
		run.Findings = append(run.Findings, f.AsFinding(notifySeverity(sev)))
	}
	run.Result = history.ResultSuccess
	if sum.Verdict != VerdictPass {
		run.Result = history.ResultFailure
		run.Error = fmt.Sprintf("mesh verdict %s (localization %s): %d of %d link directions bad, %d unknown",
			sum.Verdict, sum.Localization, run.Summary.ByStatus[history.LinkBad], len(links), run.Summary.ByStatus[history.LinkUnknown])
	}
	a.record(run)
	a.meshRecorded(run, changes)
}

// meshRecorded keeps the run for /api/v1/mesh and announces the link
// changes.
func (a *Agent) meshRecorded(run *history.Run, changes []notify.LinkChange) {
	brief := run.Brief()
	a.meshState.mu.Lock()
	a.meshState.lastRun = &brief
	a.meshState.mu.Unlock()
	if len(changes) == 0 {
		return
	}
	ev := notify.Event{Fabric: run.Fabric, Shard: shardLabel(a), RunID: run.ID, RunKind: string(run.Kind), Commit: run.Commit,
		Time: a.now().UTC(), Changes: []notify.DeviceChange{}, Links: changes}
	ev.Finish()
	for _, c := range ev.Links {
		a.log.Info("fabric link health changed", zap.String("event", c.Event), zap.String("link", c.Link),
			zap.String("direction", c.Direction), zap.String("severity", c.Severity))
	}
	if a.deps.Notifier != nil {
		a.deps.Notifier.Notify(ev)
	}
}

// restoreMesh takes the link states from the newest mesh run that has
// them, so a restarted agent neither loses them nor announces again a
// link that was already bad.
func (a *Agent) restoreMesh() error {
	page, err := a.db.List(history.Query{Kind: history.KindMesh, Limit: 20})
	if err != nil {
		return err
	}
	for i, b := range page.Runs {
		if i == 0 {
			r := b
			a.meshState.lastRun = &r
		}
		if b.Summary.Devices == 0 {
			continue
		}
		full, err := a.db.Get(b.ID)
		if err != nil {
			return err
		}
		for _, l := range full.Links {
			a.meshState.links[linkKey(l)] = l
		}
		a.metrics.mesh.setLinks(full.Links)
		return nil
	}
	return nil
}

// CurrentMesh is what /api/v1/mesh serves.
func (a *Agent) CurrentMesh() MeshStatus {
	st := MeshStatus{SchemaVersion: MeshSchema, Enabled: a.cfg.Mesh.Interval > 0 && a.deps.Mesh != nil,
		Interval: a.cfg.Mesh.Interval.String(), Links: []history.LinkHealth{}, ByState: map[string]int{}}
	a.meshState.mu.RLock()
	st.LastRun, st.Summary = a.meshState.lastRun, a.meshState.summary
	for _, l := range a.meshState.links {
		st.Links = append(st.Links, l)
		st.ByState[l.State]++
	}
	a.meshState.mu.RUnlock()
	sort.Slice(st.Links, func(i, j int) bool {
		if st.Links[i].Link != st.Links[j].Link {
			return st.Links[i].Link < st.Links[j].Link
		}
		return st.Links[i].Direction < st.Links[j].Direction
	})
	return st
}

func (a *Agent) meshStatus(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, a.CurrentMesh())
}

// meshMetrics are the per-link health series; their cardinality is the
// intent's fabric links times two directions.
type meshMetrics struct {
	healthy  *prometheus.GaugeVec
	state    *prometheus.GaugeVec
	flows    *prometheus.GaugeVec
	bad      prometheus.Gauge
	findings *prometheus.GaugeVec
	runs     *prometheus.CounterVec
}

var linkStates = []string{history.LinkGood, history.LinkBad, history.LinkUnknown}

func newMeshMetrics(reg *prometheus.Registry) *meshMetrics {
	m := &meshMetrics{
		healthy: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "rocefab_mesh_link_healthy",
			Help: "1 if the last mesh run found the fabric link good in this direction, 0 if bad or unknown."}, []string{"link", "direction"}),
		state: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "rocefab_mesh_link_state",
			Help: "1 for the fabric link direction's state at the last mesh run (good, bad, unknown), 0 for the others."}, []string{"link", "direction", "state"}),
		flows: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "rocefab_mesh_link_flows",
			Help: "Probe flows that crossed the fabric link in this direction at the last mesh run."}, []string{"link", "direction"}),
		bad: prometheus.NewGauge(prometheus.GaugeOpts{Name: "rocefab_mesh_bad_links",
			Help: "Fabric link directions a fault was localized on at the last mesh run."}),
		findings: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "rocefab_mesh_findings",
			Help: "Findings of the last mesh run by symptom class and status (localized, inconclusive)."}, []string{"class", "status"}),
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "rocefab_mesh_runs_total",
			Help: "Mesh runs by localization result (clean, localized, inconclusive) or error."}, []string{"result"}),
	}
	reg.MustRegister(m.healthy, m.state, m.flows, m.bad, m.findings, m.runs)
	return m
}

// setLinks replaces the link series: links that left the intent go.
func (m *meshMetrics) setLinks(links []history.LinkHealth) {
	m.healthy.Reset()
	m.state.Reset()
	m.flows.Reset()
	bad := 0
	for _, l := range links {
		v := 0.0
		if l.State == history.LinkGood {
			v = 1
		}
		m.healthy.WithLabelValues(l.Link, l.Direction).Set(v)
		for _, s := range linkStates {
			x := 0.0
			if s == l.State {
				x = 1
			}
			m.state.WithLabelValues(l.Link, l.Direction, s).Set(x)
		}
		m.flows.WithLabelValues(l.Link, l.Direction).Set(float64(l.Flows))
		if l.State == history.LinkBad {
			bad++
		}
	}
	m.bad.Set(float64(bad))
}

func (m *meshMetrics) observe(sum MeshSummary, links []history.LinkHealth) {
	m.setLinks(links)
	m.findings.Reset()
	for _, f := range sum.Findings {
		m.findings.WithLabelValues(f.Class, f.Status).Inc()
	}
	result := sum.Localization
	if result == "" {
		result = MeshClean
	}
	m.runs.WithLabelValues(result).Inc()
}
