package daemon

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/prometheus/promql/parser"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/agent/daemon/history"
	"github.com/rocefab/rocefab/validators/doctor/counters"
	"github.com/rocefab/rocefab/validators/telemetry"
)

// exportedNames are the metric names the agent's registry exports once
// every family has a series: one drift, probe and counter sample each, as
// a running agent has after its first rounds. Histograms count with their
// _bucket, _sum and _count series, as PromQL names them.
func exportedNames(t *testing.T) map[string]bool {
	t.Helper()
	// The registry New builds, without running the agent.
	f := newFixture(t, 0)
	a, err := New(f.config(), f.deps())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	hub, m := a.hub, a.metrics
	a.watch.active = []telemetry.Finding{{Code: telemetry.CodePFCStorm, Severity: telemetry.SeverityError,
		Subject: telemetry.Subject{Device: "leaf1", Port: "Ethernet1", Priority: 3}}}
	now := time.Unix(1_800_000_000, 0)
	m.reloaded(true, now)
	m.intentInfo.WithLabelValues("lab", "c0ffee", "r1").Set(1)
	m.fetchErrors.Add(0)
	m.setDevice("leaf1", "simoc", compliance.StatusDrifted)
	for _, s := range deviceStates {
		m.devicesByState.WithLabelValues(string(s)).Set(0)
	}
	m.drifted.Set(1)
	for _, k := range history.Kinds {
		m.observeRun(&history.Run{Kind: k, Trigger: history.TriggerSchedule, Result: history.ResultSuccess, Started: now, Finished: now.Add(time.Second)})
		m.runsSkipped.WithLabelValues(string(k))
	}
	m.pushFailures.WithLabelValues("leaf1", "failed")
	m.webhooks.WithLabelValues("delivered")
	probe, _ := fakeProbe(t.Context(), nil, nil)
	m.observeProbe(probe)
	m.mesh.observe(MeshSummary{Findings: []MeshFinding{{Class: "loss", Status: "localized"}}},
		[]history.LinkHealth{{Link: "leaf1 swp51 - spine1 swp1", Direction: "spine1 -> leaf1", State: history.LinkGood, Flows: 3}})
	sw := func(port, c string, v uint64) counters.Sample {
		return counters.Sample{Key: counters.Key{Device: "leaf1", Port: port, Counter: c}, Value: v}
	}
	hub.set(roleSwitch, []counters.Sample{sw("Ethernet1", "pfc3/rx-pause", 1), sw("Ethernet1", "pfc3/tx-pause", 1),
		sw("Ethernet1", "pfc3/watchdog-storms", 1), sw("Ethernet1", "queue3/ecn-marked", 1), sw("Ethernet1", "queue3/drops", 1), sw("Ethernet1", "mac/rx-pause", 1)}, now)
	host, err := (&fakeHost{}).Read(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	hub.set(roleHost, host, now)

	fams, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range fams {
		names[f.GetName()] = true
		if f.GetType() == dto.MetricType_HISTOGRAM || f.GetType() == dto.MetricType_SUMMARY {
			names[f.GetName()+"_sum"], names[f.GetName()+"_count"] = true, true
		}
		if f.GetType() == dto.MetricType_HISTOGRAM {
			names[f.GetName()+"_bucket"] = true
		}
	}
	return names
}

// grafanaVars stand in for Grafana's variables so the expressions parse
// as Prometheus gets them: intervals become a duration, others (used in
// label matchers) a value.
var (
	grafanaInterval = regexp.MustCompile(`\$(__rate_interval|__interval|__range)\b|\$\{(__rate_interval|__interval|__range)\}`)
	grafanaVar      = regexp.MustCompile(`\$\{?\w+\}?`)
	labelValues     = regexp.MustCompile(`^label_values\((.+),\s*\w+\)$`)
)

func grafanaToPromQL(expr string) string {
	return grafanaVar.ReplaceAllString(grafanaInterval.ReplaceAllString(expr, "5m"), "x")
}

// queries walks a dashboard for every query: panel targets' expr and
// templating variables' label_values selectors.
func queries(v any, where string, out map[string]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			at := where + "." + k
			if s, ok := c.(string); ok {
				switch {
				case k == "expr":
					out[at] = s
				case k == "query" && strings.HasPrefix(s, "label_values("):
					out[at] = s
				}
				continue
			}
			queries(c, at, out)
		}
	case []any:
		for i, c := range x {
			queries(c, where+"["+strconv.Itoa(i)+"]", out)
		}
	}
}

// metricNames are the metric names an expression selects.
func metricNames(expr string) ([]string, error) {
	e, err := parser.ParseExpr(expr)
	if err != nil {
		return nil, err
	}
	var names []string
	parser.Inspect(e, func(n parser.Node, _ []parser.Node) error {
		if vs, ok := n.(*parser.VectorSelector); ok {
			name := vs.Name
			for _, m := range vs.LabelMatchers {
				if m.Name == "__name__" {
					name = m.Value
				}
			}
			names = append(names, name)
		}
		return nil
	})
	return names, nil
}

// TestGrafanaDashboards: every query in the example dashboards parses as
// PromQL and names only metrics the agent exports, so a renamed metric
// breaks this test and not an operator's dashboard.
func TestGrafanaDashboards(t *testing.T) {
	exported := exportedNames(t)
	files, _ := filepath.Glob("../../examples/grafana/*.json")
	if len(files) == 0 {
		t.Fatal("no dashboards in examples/grafana")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var dash map[string]any
			if err := json.Unmarshal(raw, &dash); err != nil {
				t.Fatal(err)
			}
			qs := map[string]string{}
			queries(dash, "", qs)
			if len(qs) < 10 {
				t.Fatalf("only %d queries found", len(qs))
			}
			used := map[string]bool{}
			keys := make([]string, 0, len(qs))
			for k := range qs {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, at := range keys {
				q := qs[at]
				if m := labelValues.FindStringSubmatch(q); m != nil {
					q = m[1]
				}
				names, err := metricNames(grafanaToPromQL(q))
				if err != nil {
					t.Errorf("%s: %q does not parse: %v", at, qs[at], err)
					continue
				}
				if len(names) == 0 {
					t.Errorf("%s: %q selects no metric", at, qs[at])
				}
				for _, n := range names {
					used[n] = true
					if !exported[n] {
						t.Errorf("%s: %q uses %s, which the agent does not export", at, qs[at], n)
					}
				}
			}
			t.Logf("%d queries over %d metrics", len(qs), len(used))
			// The five views the dashboard promises, laid out on Grafana's
			// 24-column grid without panels on top of each other.
			var rows []string
			taken := map[[2]int]string{}
			for _, p := range dash["panels"].([]any) {
				p := p.(map[string]any)
				title, _ := p["title"].(string)
				if p["type"] == "row" {
					rows = append(rows, title)
				}
				g, _ := p["gridPos"].(map[string]any)
				x, y, w, h := g["x"].(float64), g["y"].(float64), g["w"].(float64), g["h"].(float64)
				if w < 1 || h < 1 || x+w > 24 {
					t.Errorf("panel %q at %v is off the grid", title, g)
				}
				for i := int(x); i < int(x+w); i++ {
					for j := int(y); j < int(y+h); j++ {
						if other, ok := taken[[2]int{i, j}]; ok {
							t.Fatalf("panel %q overlaps %q", title, other)
						}
						taken[[2]int{i, j}] = title
					}
				}
			}
			if got := strings.Join(rows, ", "); got != "Fabric overview, Lossless health per port, Probe matrix, Probe mesh, Drift" {
				t.Errorf("rows %s", got)
			}
		})
	}
}

// TestMetricNamesOfQueries: the query walk finds what a dashboard holds
// and the name extraction sees through functions, aggregations and
// Grafana variables.
func TestMetricNamesOfQueries(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want string
		bad  bool
	}{
		{`rocefab_drift_devices`, "rocefab_drift_devices", false},
		{`sum by (device) (rate(rocefab_pfc_pause_frames_total{device=~"$device", direction="rx"}[$__rate_interval]))`, "rocefab_pfc_pause_frames_total", false},
		{`histogram_quantile(0.99, sum by (le) (rate(rocefab_probe_rtt_seconds_bucket[${__rate_interval}])))`, "rocefab_probe_rtt_seconds_bucket", false},
		{`time() - rocefab_counter_last_update_timestamp_seconds`, "rocefab_counter_last_update_timestamp_seconds", false},
		{`count(rocefab_counter_source_up == 0) or vector(0)`, "rocefab_counter_source_up", false},
		{`{__name__="rocefab_devices", state="drifted"}`, "rocefab_devices", false},
		{`a / on(device) b`, "a,b", false},
		{`sum(rate(x[5m])`, "", true},
	} {
		got, err := metricNames(grafanaToPromQL(tc.expr))
		if (err != nil) != tc.bad || strings.Join(got, ",") != tc.want {
			t.Errorf("%s: %v %v, want %q (error %v)", tc.expr, got, err, tc.want, tc.bad)
		}
	}
	qs := map[string]string{}
	queries(map[string]any{"panels": []any{map[string]any{"targets": []any{map[string]any{"expr": "a"}, map[string]any{"expr": "b"}}}},
		"templating": map[string]any{"list": []any{map[string]any{"query": map[string]any{"query": "label_values(c{x=\"1\"}, device)"}}}}}, "", qs)
	if len(qs) != 3 || qs[".panels[0].targets[1].expr"] != "b" {
		t.Errorf("queries %v", qs)
	}
}

// TestMetricsDocumented: docs/agent.md names every metric the agent
// exports, and every rocefab metric it names is exported.
func TestMetricsDocumented(t *testing.T) {
	exported := exportedNames(t)
	raw, err := os.ReadFile("../../docs/agent.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	for name := range exported {
		if !strings.HasPrefix(name, "rocefab_") || strings.HasSuffix(name, "_bucket") || strings.HasSuffix(name, "_sum") ||
			(strings.HasSuffix(name, "_count") && exported[strings.TrimSuffix(name, "_count")+"_bucket"]) {
			continue
		}
		if !strings.Contains(doc, "`"+name+"`") {
			t.Errorf("docs/agent.md does not name %s", name)
		}
	}
	for _, m := range regexp.MustCompile("`(rocefab_[a-z0-9_]+)`").FindAllStringSubmatch(doc, -1) {
		if !exported[m[1]] {
			t.Errorf("docs/agent.md names %s, which the agent does not export", m[1])
		}
	}
}
