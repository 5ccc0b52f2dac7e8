package daemon

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/agent/daemon/history"
)

// deviceStates are the one-hot values of rocefab_device_state.
var deviceStates = []compliance.Status{compliance.StatusCompliant, compliance.StatusDrifted,
	compliance.StatusUnreachable, compliance.StatusError, compliance.StatusConflict}

// metrics are the agent's own registry: no global default registry, so
// tests and several agents in one process do not collide.
type metrics struct {
	reg *prometheus.Registry

	info          *prometheus.GaugeVec
	reloadSuccess prometheus.Gauge
	reloadTime    prometheus.Gauge
	intentInfo    *prometheus.GaugeVec
	fetchErrors   prometheus.Counter

	deviceCompliant *prometheus.GaugeVec
	deviceState     *prometheus.GaugeVec
	devicesByState  *prometheus.GaugeVec
	drifted         prometheus.Gauge

	lastRunTime     *prometheus.GaugeVec
	lastRunDuration *prometheus.GaugeVec
	lastRunSuccess  *prometheus.GaugeVec
	lastRunResult   *prometheus.GaugeVec
	runs            *prometheus.CounterVec
	runsSkipped     *prometheus.CounterVec
	pushFailures    *prometheus.CounterVec

	probeVerdict  prometheus.Gauge
	probeRTT      *prometheus.HistogramVec
	probeRTTP99   *prometheus.GaugeVec
	probeLoss     *prometheus.GaugeVec
	probePairPass *prometheus.GaugeVec
	probeFindings *prometheus.GaugeVec

	webhooks *prometheus.CounterVec
	mesh     *meshMetrics
	findings lastFindings

	counters *counterHub
}

func newMetrics(version, shardSpec string, hub *counterHub) *metrics {
	m := &metrics{reg: prometheus.NewRegistry(), counters: hub}
	g := func(name, help string) prometheus.Gauge {
		x := prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: help})
		m.reg.MustRegister(x)
		return x
	}
	gv := func(name, help string, labels ...string) *prometheus.GaugeVec {
		x := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labels)
		m.reg.MustRegister(x)
		return x
	}
	cv := func(name, help string, labels ...string) *prometheus.CounterVec {
		x := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
		m.reg.MustRegister(x)
		return x
	}
	m.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))

	m.info = gv("rocefab_agent_info", "Constant 1, labelled with the agent's version and shard.", "version", "shard")
	m.info.WithLabelValues(version, shardSpec).Set(1)
	m.reloadSuccess = g("rocefab_intent_reload_success", "1 if the last intent (re)load was valid, 0 if it was refused; the agent then keeps the last valid intent.")
	m.reloadTime = g("rocefab_intent_reload_timestamp_seconds", "When the intent was last (re)loaded or refused.")
	m.intentInfo = gv("rocefab_intent_info", "Constant 1 for the intent in use, labelled with its fabric, commit and revision.", "fabric", "commit", "revision")
	m.fetchErrors = prometheus.NewCounter(prometheus.CounterOpts{Name: "rocefab_intent_fetch_errors_total", Help: "Failed fetches (git) or reads (folder) of the intent."})
	m.reg.MustRegister(m.fetchErrors)

	m.deviceCompliant = gv("rocefab_device_compliant", "1 if the device matched the intent at the last drift check, else 0.", "device", "platform")
	m.deviceState = gv("rocefab_device_state", "1 for the device's state at the last drift check (compliant, drifted, unreachable, error, conflict), 0 for the others.", "device", "platform", "state")
	m.devicesByState = gv("rocefab_devices", "Devices per state at the last drift check.", "state")
	m.drifted = g("rocefab_drift_devices", "Devices that drifted from the intent at the last drift check.")

	m.lastRunTime = gv("rocefab_last_run_timestamp_seconds", "When the last run of each kind finished.", "kind")
	m.lastRunDuration = gv("rocefab_last_run_duration_seconds", "How long the last run of each kind took.", "kind")
	m.lastRunSuccess = gv("rocefab_last_run_success", "1 if the last run of each kind did not fail (success or changes), else 0.", "kind")
	m.lastRunResult = gv("rocefab_last_run_result", "1 for the result of the last run of each kind (success, changes, failure, cancelled), 0 for the others.", "kind", "result")
	m.runs = cv("rocefab_runs_total", "Runs by kind, trigger and result.", "kind", "trigger", "result")
	m.runsSkipped = cv("rocefab_runs_skipped_total", "Scheduled runs skipped because the previous run of the kind was still going.", "kind")
	m.pushFailures = cv("rocefab_push_failures_total", "Devices whose push failed, was refused or was rolled back in an agent apply.", "device", "outcome")

	m.probeVerdict = g("rocefab_probe_verdict_pass", "1 if the last probe run passed, 0 if it failed.")
	m.probeRTT = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "rocefab_probe_rtt_seconds",
		Help:    "Probe round-trip times per pair (every sample when the runner gives them, else the run's mean).",
		Buckets: prometheus.ExponentialBuckets(2e-6, 2, 16)}, []string{"from", "to"})
	m.reg.MustRegister(m.probeRTT)
	m.probeRTTP99 = gv("rocefab_probe_rtt_p99_seconds", "99th percentile probe RTT per pair at the last probe run.", "from", "to")
	m.probeLoss = gv("rocefab_probe_loss_ratio", "Probe packet loss per pair at the last probe run (0..1).", "from", "to")
	m.probePairPass = gv("rocefab_probe_pair_pass", "1 if the pair passed at the last probe run, else 0.", "from", "to")
	m.probeFindings = gv("rocefab_probe_findings", "Findings of the last probe run by code and severity.", "code", "severity")

	m.webhooks = cv("rocefab_webhook_notifications_total", "Webhook notifications by result (delivered, failed).", "result")

	m.mesh = newMeshMetrics(m.reg)
	m.reg.MustRegister(hub)
	return m
}

// observeRun updates the per-kind run metrics.
func (m *metrics) observeRun(r *history.Run) {
	kind := string(r.Kind)
	m.lastRunTime.WithLabelValues(kind).Set(float64(r.Finished.Unix()))
	m.lastRunDuration.WithLabelValues(kind).Set(r.Finished.Sub(r.Started).Seconds())
	ok := 0.0
	if r.Result == history.ResultSuccess || r.Result == history.ResultChanges {
		ok = 1
	}
	m.lastRunSuccess.WithLabelValues(kind).Set(ok)
	for _, res := range history.Results {
		v := 0.0
		if res == r.Result {
			v = 1
		}
		m.lastRunResult.WithLabelValues(kind, string(res)).Set(v)
	}
	m.runs.WithLabelValues(kind, string(r.Trigger), string(r.Result)).Inc()
	m.findings.observe(r)
}

// setDevice sets a device's compliance series.
func (m *metrics) setDevice(device, platform string, state compliance.Status) {
	c := 0.0
	if state == compliance.StatusCompliant {
		c = 1
	}
	m.deviceCompliant.WithLabelValues(device, platform).Set(c)
	for _, s := range deviceStates {
		v := 0.0
		if s == state {
			v = 1
		}
		m.deviceState.WithLabelValues(device, platform, string(s)).Set(v)
	}
}

// dropDevice removes a device that left the intent or the shard.
func (m *metrics) dropDevice(device, platform string) {
	m.deviceCompliant.DeleteLabelValues(device, platform)
	for _, s := range deviceStates {
		m.deviceState.DeleteLabelValues(device, platform, string(s))
	}
}

// observeProbe replaces the per-pair probe series with this run's.
func (m *metrics) observeProbe(s ProbeSummary) {
	pass := 0.0
	if s.Verdict == VerdictPass {
		pass = 1
	}
	m.probeVerdict.Set(pass)
	m.probeLoss.Reset()
	m.probePairPass.Reset()
	m.probeRTTP99.Reset()
	m.probeFindings.Reset()
	for _, p := range s.Pairs {
		m.probeLoss.WithLabelValues(p.From, p.To).Set(p.LossPercent / 100)
		v := 0.0
		if p.Verdict == VerdictPass {
			v = 1
		}
		m.probePairPass.WithLabelValues(p.From, p.To).Set(v)
		if !p.Reachable {
			continue
		}
		m.probeRTTP99.WithLabelValues(p.From, p.To).Set(p.RTTP99Micros / 1e6)
		h := m.probeRTT.WithLabelValues(p.From, p.To)
		if len(p.RTTSamplesMicros) > 0 {
			for _, us := range p.RTTSamplesMicros {
				h.Observe(us / 1e6)
			}
		} else if p.RTTMeanMicros > 0 {
			h.Observe(p.RTTMeanMicros / 1e6)
		}
	}
	for _, f := range s.Findings {
		m.probeFindings.WithLabelValues(string(f.Code), f.Severity.String()).Inc()
	}
}

func (m *metrics) reloaded(ok bool, at time.Time) {
	v := 0.0
	if ok {
		v = 1
	}
	m.reloadSuccess.Set(v)
	m.reloadTime.Set(float64(at.Unix()))
}
