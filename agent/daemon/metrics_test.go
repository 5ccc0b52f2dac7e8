package daemon

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/rocefab/rocefab/agent/daemon/history"
	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
	"github.com/rocefab/rocefab/finding"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/validators/doctor/counters"
)

// scrape fetches /metrics and parses it as the Prometheus text format.
func scrape(t *testing.T, base, token string) map[string]*dto.MetricFamily {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, base+"/metrics", nil)
	req.Header.Set("Accept", "text/plain")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("/metrics: %s", resp.Status)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Fatalf("/metrics content type %q", ct)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("/metrics is not Prometheus text format: %v", err)
	}
	return fams
}

// fakeHost is this host's NIC counters, as the doctor's HostSource reads
// them.
type fakeHost struct{ pause atomic.Uint64 }

func (*fakeHost) Name() string { return "gpu01" }
func (h *fakeHost) Read(context.Context) ([]counters.Sample, error) {
	k := func(port, c string) counters.Key { return counters.Key{Device: "gpu01", Port: port, Counter: c} }
	return []counters.Sample{
		{Key: k("ens1f0np0", "ethtool/rx_prio3_pause"), Value: h.pause.Add(5)},
		{Key: k("ens1f0np0", "ethtool/tx_prio3_pause"), Value: 7},
		{Key: k("ens1f0np0", "ethtool/tx_pause_storm_error_events"), Value: 1},
		{Key: k("mlx5_0/1", "hw_counters/np_ecn_marked_roce_packets"), Value: 42},
		{Key: k("mlx5_0/1", "hw_counters/np_cnp_sent"), Value: 9},
	}, nil
}

func fakeProbe(_ context.Context, r *intent.Resolved, owns func(string) bool) (ProbeSummary, error) {
	return ProbeSummary{Verdict: VerdictFail,
		Pairs: []history.ProbePair{
			{From: "gpu01", To: "gpu02", Verdict: VerdictPass, Reachable: true, RTTMeanMicros: 11, RTTP99Micros: 25, RTTSamplesMicros: []float64{9, 11, 13}},
			{From: "gpu01", To: "gpu03", Verdict: VerdictFail, Reachable: true, LossPercent: 2.5, RTTMeanMicros: 40, RTTP99Micros: 90},
		},
		Findings: []history.Finding{{Code: "loss", Severity: finding.Error, Where: "gpu01 -> gpu03", Message: "2.5 % loss on a lossless class"}}}, nil
}

// TestMetricsExposition: /metrics parses as the Prometheus text format and
// has the compliance, run, probe and counter families. Switch counters
// arrive continuously by gNMI SAMPLE, with no probe run involved.
func TestMetricsExposition(t *testing.T) {
	f := newFixture(t, 2, func(o *gnmisim.Options) {
		if o.Name == "leaf2" {
			o.Counters.Tick = 5 * time.Millisecond
			o.Counters.PerTick = gnmisim.PerTick{gnmisim.PFCRx: 1, gnmisim.PFCTx: 1, gnmisim.ECNMarked: 3}
		}
	})
	c1 := f.commit("first", f.intent("150KB", "9216"))
	f.converge("150KB", "9216")
	f.sims["leaf1"].Jump("Ethernet1", 3, gnmisim.PFCRx, 1204)
	f.sims["leaf1"].Jump("Ethernet2", 3, gnmisim.WatchdogStorms, 2)
	f.sims["leaf1"].Jump("Ethernet1", 3, gnmisim.ECNMarked, 35000)
	f.sims["leaf1"].Jump("Ethernet2", 3, gnmisim.QueueDrops, 6)
	cfg := f.config()
	cfg.CountersInterval = 20 * time.Millisecond
	deps := f.deps()
	host := &fakeHost{}
	deps.HostCounters, deps.Probe = host, fakeProbe
	a := f.start(cfg, deps)
	a.waitRun(history.KindPlan, history.TriggerCommit, c1)
	if _, err := a.RunNow(context.Background(), history.KindDrift); err != nil {
		t.Fatal(err)
	}
	probe, err := a.RunNow(context.Background(), history.KindProbe)
	if err != nil {
		t.Fatal(err)
	}
	if probe.Result != history.ResultFailure || len(probe.Pairs) != 2 || len(probe.Findings) != 1 {
		t.Fatalf("probe run %s %+v", probe.Result, probe)
	}
	key := func(dev, port, c string) counters.Key { return counters.Key{Device: dev, Port: port, Counter: c} }
	waitFor(t, "leaf1's counters", func() bool {
		v, _ := a.hub.value(key("leaf1", "Ethernet1", "pfc3/rx-pause"))
		return v == 1204
	})
	// leaf2's counters move by themselves: successive samples rise.
	var first uint64
	waitFor(t, "leaf2's counters", func() bool {
		first, _ = a.hub.value(key("leaf2", "Ethernet1", "queue3/ecn-marked"))
		return first > 0
	})
	waitFor(t, "leaf2's counters to move", func() bool {
		v, _ := a.hub.value(key("leaf2", "Ethernet1", "queue3/ecn-marked"))
		return v > first
	})
	waitFor(t, "host counters", func() bool { return host.pause.Load() >= 10 })

	fams := scrape(t, a.base, "")
	for _, name := range []string{
		"rocefab_agent_info", "rocefab_intent_reload_success", "rocefab_intent_info", "rocefab_intent_reload_timestamp_seconds",
		"rocefab_device_compliant", "rocefab_device_state", "rocefab_devices", "rocefab_drift_devices",
		"rocefab_last_run_timestamp_seconds", "rocefab_last_run_duration_seconds", "rocefab_last_run_success", "rocefab_last_run_result", "rocefab_runs_total",
		"rocefab_probe_verdict_pass", "rocefab_probe_rtt_seconds", "rocefab_probe_rtt_p99_seconds", "rocefab_probe_loss_ratio", "rocefab_probe_pair_pass", "rocefab_probe_findings",
		"rocefab_pfc_pause_frames_total", "rocefab_pfc_watchdog_storms_total", "rocefab_ecn_marked_packets_total", "rocefab_queue_dropped_packets_total",
		"rocefab_nic_pause_storm_events_total", "rocefab_host_rdma_counter_total", "rocefab_counter_source_up", "rocefab_counter_last_update_timestamp_seconds",
		"go_goroutines", "process_open_fds",
	} {
		if _, ok := fams[name]; !ok {
			t.Errorf("/metrics has no %s", name)
		}
	}
	if h := fams["rocefab_probe_rtt_seconds"]; h != nil && h.GetType() != dto.MetricType_HISTOGRAM {
		t.Errorf("rocefab_probe_rtt_seconds is a %s", h.GetType())
	}
	for _, tc := range []struct {
		family string
		labels map[string]string
		want   float64
	}{
		{"rocefab_pfc_pause_frames_total", map[string]string{"role": "switch", "device": "leaf1", "port": "Ethernet1", "priority": "3", "direction": "rx"}, 1204},
		{"rocefab_pfc_watchdog_storms_total", map[string]string{"device": "leaf1", "port": "Ethernet2", "priority": "3"}, 2},
		{"rocefab_ecn_marked_packets_total", map[string]string{"role": "switch", "device": "leaf1", "port": "Ethernet1", "queue": "3"}, 35000},
		{"rocefab_queue_dropped_packets_total", map[string]string{"device": "leaf1", "port": "Ethernet2", "queue": "3"}, 6},
		{"rocefab_pfc_pause_frames_total", map[string]string{"role": "host", "device": "gpu01", "port": "ens1f0np0", "priority": "3", "direction": "tx"}, 7},
		{"rocefab_ecn_marked_packets_total", map[string]string{"role": "host", "device": "gpu01", "port": "mlx5_0/1"}, 42},
		{"rocefab_nic_pause_storm_events_total", map[string]string{"device": "gpu01", "level": "error"}, 1},
		{"rocefab_host_rdma_counter_total", map[string]string{"device": "gpu01", "counter": "hw_counters/np_cnp_sent"}, 9},
		{"rocefab_counter_source_up", map[string]string{"role": "switch", "device": "leaf2"}, 1},
		{"rocefab_probe_verdict_pass", nil, 0},
		{"rocefab_probe_pair_pass", map[string]string{"from": "gpu01", "to": "gpu02"}, 1},
		{"rocefab_probe_pair_pass", map[string]string{"from": "gpu01", "to": "gpu03"}, 0},
		{"rocefab_probe_loss_ratio", map[string]string{"from": "gpu01", "to": "gpu03"}, 0.025},
		{"rocefab_probe_findings", map[string]string{"code": "loss", "severity": "error"}, 1},
		{"rocefab_last_run_result", map[string]string{"kind": "probe", "result": "failure"}, 1},
		{"rocefab_last_run_result", map[string]string{"kind": "drift", "result": "success"}, 1},
		{"rocefab_devices", map[string]string{"state": "compliant"}, 2},
		{"rocefab_intent_reload_success", nil, 1},
	} {
		if v, ok := valueIn(fams, tc.family, tc.labels); !ok || v != tc.want {
			t.Errorf("%s%v = %v (present %v), want %v", tc.family, tc.labels, v, ok, tc.want)
		}
	}
	var samples uint64
	for _, m := range fams["rocefab_probe_rtt_seconds"].GetMetric() {
		samples += m.GetHistogram().GetSampleCount()
	}
	if samples != 4 { // three samples of one pair, the mean of the other
		t.Errorf("RTT histogram holds %d observations, want 4", samples)
	}
}

func valueIn(fams map[string]*dto.MetricFamily, family string, labels map[string]string) (float64, bool) {
	mf, ok := fams[family]
	if !ok {
		return 0, false
	}
next:
	for _, m := range mf.GetMetric() {
		for k, v := range labels {
			found := false
			for _, lp := range m.GetLabel() {
				if lp.GetName() == k && lp.GetValue() == v {
					found = true
				}
			}
			if !found {
				continue next
			}
		}
		switch {
		case m.Gauge != nil:
			return m.GetGauge().GetValue(), true
		case m.Counter != nil:
			return m.GetCounter().GetValue(), true
		}
	}
	return 0, false
}
