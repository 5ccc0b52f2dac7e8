package daemon

import (
	"context"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/rocefab/rocefab/agent/daemon/history"
	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
	"github.com/rocefab/rocefab/validators/doctor/counters"
)

func gatherHub(t *testing.T, h *counterHub) map[string]*dto.MetricFamily {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(h)
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*dto.MetricFamily{}
	for _, f := range fams {
		out[f.GetName()] = f
	}
	return out
}

// TestCounterSeriesBound: a full hub refuses counters it does not hold,
// counts them, keeps updating those it holds, and takes new ones again
// once a device leaves.
func TestCounterSeriesBound(t *testing.T) {
	core, logs := observer.New(zapcore.WarnLevel)
	h := newCounterHub(4, zap.New(core))
	t0 := time.Unix(1_800_000_000, 0)
	s := func(dev, port, c string, v uint64) counters.Sample {
		return counters.Sample{Key: counters.Key{Device: dev, Port: port, Counter: c}, Value: v}
	}
	steps := []struct {
		name    string
		role    string
		samples []counters.Sample
		after   time.Duration
		drop    string // a device leaving before the samples
		refused int
		held    int
		dropped uint64
		warns   int
	}{
		{"leaf1 fits", roleSwitch, []counters.Sample{s("leaf1", "Ethernet1", "pfc3/rx-pause", 10), s("leaf1", "Ethernet1", "pfc3/tx-pause", 1),
			s("leaf1", "Ethernet2", "pfc3/rx-pause", 5)}, 0, "", 0, 3, 0, 0},
		{"leaf2 overflows", roleSwitch, []counters.Sample{s("leaf2", "Ethernet1", "pfc3/rx-pause", 1), s("leaf2", "Ethernet1", "pfc3/tx-pause", 2),
			s("leaf2", "Ethernet2", "pfc3/rx-pause", 3)}, time.Second, "", 2, 4, 2, 1},
		{"held counters still update", roleSwitch, []counters.Sample{s("leaf1", "Ethernet1", "pfc3/rx-pause", 99), s("leaf2", "Ethernet1", "pfc3/rx-pause", 7)},
			2 * time.Second, "", 0, 4, 2, 1},
		{"refused again within the minute: counted, not logged", roleSwitch, []counters.Sample{s("leaf2", "Ethernet2", "pfc3/rx-pause", 4)},
			30 * time.Second, "", 1, 4, 3, 1},
		{"a minute later: logged again", roleHost, []counters.Sample{s("gpu01", "ens1f0np0", "ethtool/rx_prio3_pause", 1)},
			90 * time.Second, "", 1, 4, 4, 2},
		{"leaf1 leaves: room for the rest", roleSwitch, []counters.Sample{s("leaf2", "Ethernet1", "pfc3/tx-pause", 2), s("leaf2", "Ethernet2", "pfc3/rx-pause", 3)},
			100 * time.Second, "leaf1", 0, 3, 4, 2},
	}
	for _, st := range steps {
		if st.drop != "" {
			h.drop(st.drop)
		}
		if got := h.set(st.role, st.samples, t0.Add(st.after)); got != st.refused {
			t.Errorf("%s: refused %d, want %d", st.name, got, st.refused)
		}
		fams := gatherHub(t, h)
		for _, c := range []struct {
			family string
			want   float64
		}{{"rocefab_telemetry_series", float64(st.held)}, {"rocefab_telemetry_series_limit", 4}, {"rocefab_telemetry_series_dropped_total", float64(st.dropped)}} {
			if v, ok := valueIn(fams, c.family, nil); !ok || v != c.want {
				t.Errorf("%s: %s = %v (%v), want %v", st.name, c.family, v, ok, c.want)
			}
		}
		if got := logs.FilterMessage("counter series limit reached; new counters are not exported").Len(); got != st.warns {
			t.Errorf("%s: %d warnings, want %d", st.name, got, st.warns)
		}
	}
	if v, _ := h.value(counters.Key{Device: "leaf2", Port: "Ethernet1", Counter: "pfc3/rx-pause"}); v != 7 {
		t.Errorf("held counter not updated: %d", v)
	}
	if _, ok := h.value(counters.Key{Device: "gpu01", Port: "ens1f0np0", Counter: "ethtool/rx_prio3_pause"}); ok {
		t.Error("a refused counter is held")
	}
	if got := newCounterHub(0, nil).limit; got != DefaultCountersMaxSeries {
		t.Errorf("default limit %d", got)
	}
}

// TestCounterLabels: the lossless counter families carry the device and
// port, and the per-priority ones the priority, on switches and hosts.
func TestCounterLabels(t *testing.T) {
	h := newCounterHub(0, nil)
	now := time.Unix(1_800_000_000, 0)
	k := func(dev, port, c string) counters.Key { return counters.Key{Device: dev, Port: port, Counter: c} }
	h.set(roleSwitch, []counters.Sample{{Key: k("leaf1", "Ethernet1", "pfc3/rx-pause"), Value: 1},
		{Key: k("leaf1", "Ethernet1", "pfc3/watchdog-storms"), Value: 1}, {Key: k("leaf1", "Ethernet1", "queue3/ecn-marked"), Value: 1},
		{Key: k("leaf1", "Ethernet1", "mac/rx-pause"), Value: 1}}, now)
	host, _ := (&fakeHost{}).Read(context.Background())
	h.set(roleHost, host, now)
	fams := gatherHub(t, h)
	for family, want := range map[string][]string{
		"rocefab_pfc_pause_frames_total":       {"device", "port", "priority", "direction", "role"},
		"rocefab_pfc_watchdog_storms_total":    {"device", "port", "priority"},
		"rocefab_ecn_marked_packets_total":     {"device", "port", "queue", "role"},
		"rocefab_link_pause_frames_total":      {"device", "port", "direction", "role"},
		"rocefab_nic_pause_storm_events_total": {"device", "port", "level"},
		"rocefab_host_rdma_counter_total":      {"device", "port", "counter"},
	} {
		f := fams[family]
		if f == nil || len(f.GetMetric()) == 0 {
			t.Errorf("no %s", family)
			continue
		}
		for _, m := range f.GetMetric() {
			have := map[string]string{}
			for _, lp := range m.GetLabel() {
				have[lp.GetName()] = lp.GetValue()
			}
			for _, l := range want {
				if _, ok := have[l]; !ok {
					t.Errorf("%s%v has no %s label", family, have, l)
				}
			}
			if len(have) != len(want) {
				t.Errorf("%s has labels %v, want %v", family, have, want)
			}
			if p, ok := have["priority"]; ok && p != "3" {
				t.Errorf("%s priority %q", family, p)
			}
		}
	}
}

// TestCounterSeriesLimitSetting: the agent's limit comes from its
// configuration and applies to the streamed switch counters.
func TestCounterSeriesLimitSetting(t *testing.T) {
	f := newFixture(t, 1, func(o *gnmisim.Options) {
		o.Counters.Tick = 5 * time.Millisecond
		o.Counters.PerTick = gnmisim.PerTick{gnmisim.PFCRx: 1, gnmisim.PFCTx: 1, gnmisim.ECNMarked: 1}
	})
	c1 := f.commit("first", f.intent("150KB", "9216"))
	cfg := f.config()
	cfg.CountersInterval = 20 * time.Millisecond
	cfg.CountersMaxSeries = 2
	a := f.start(cfg, f.deps())
	a.waitRun(history.KindPlan, history.TriggerCommit, c1)
	waitFor(t, "refused counters", func() bool {
		v, _ := valueIn(scrape(t, a.base, ""), "rocefab_telemetry_series_dropped_total", nil)
		return v > 0
	})
	fams := scrape(t, a.base, "")
	if v, _ := valueIn(fams, "rocefab_telemetry_series", nil); v != 2 {
		t.Errorf("series %v, want 2", v)
	}
	if v, _ := valueIn(fams, "rocefab_telemetry_series_limit", nil); v != 2 {
		t.Errorf("limit %v, want 2", v)
	}
	n := 0
	for _, name := range []string{"rocefab_pfc_pause_frames_total", "rocefab_pfc_watchdog_storms_total", "rocefab_ecn_marked_packets_total", "rocefab_link_pause_frames_total"} {
		n += len(fams[name].GetMetric())
	}
	if n != 2 {
		t.Errorf("%d counter series exported, want 2", n)
	}
}
