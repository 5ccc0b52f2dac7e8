package daemon

import (
	"context"
	"math/bits"
	"slices"
	"sort"
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
	"github.com/rocefab/rocefab/validators/telemetry"
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

// TestCounterSeriesBound: the hub holds every counter for the detectors
// up to its held bound, refusing (counting, logging once a minute) those
// beyond it while the held ones keep updating; /metrics exports every
// counter while they fit the export bound, and past it only the key
// series (the switch's key priorities, link pause, host counters), first
// come. A device leaving frees both.
func TestCounterSeriesBound(t *testing.T) {
	core, logs := observer.New(zapcore.WarnLevel)
	h := newCounterHub(4, 6, zap.New(core))
	h.setKeyPriorities("leaf1", []int{3})
	h.setKeyPriorities("leaf2", []int{3})
	t0 := time.Unix(1_800_000_000, 0)
	s := func(dev, port, c string, v uint64) counters.Sample {
		return counters.Sample{Key: counters.Key{Device: dev, Port: port, Counter: c}, Value: v}
	}
	type want struct {
		refused                    int
		held, exported, unexported int
		dropped                    uint64
		warns                      int
		exportedKeys               []string // device/port/counter exported, sorted
	}
	steps := []struct {
		name    string
		role    string
		samples []counters.Sample
		after   time.Duration
		drop    string // a device leaving before the samples
		want    want
	}{
		{"leaf1 fits both bounds", roleSwitch, []counters.Sample{s("leaf1", "Ethernet1", "pfc3/rx-pause", 10), s("leaf1", "Ethernet1", "pfc5/rx-pause", 1),
			s("leaf1", "Ethernet2", "pfc3/rx-pause", 5)}, 0, "",
			want{0, 3, 3, 0, 0, 0, []string{"leaf1/Ethernet1/pfc3/rx-pause", "leaf1/Ethernet1/pfc5/rx-pause", "leaf1/Ethernet2/pfc3/rx-pause"}}},
		{"leaf2 passes the export bound: key series only", roleSwitch, []counters.Sample{s("leaf2", "Ethernet1", "pfc3/rx-pause", 1), s("leaf2", "Ethernet1", "pfc5/tx-pause", 2)},
			time.Second, "",
			want{0, 5, 3, 2, 0, 0, []string{"leaf1/Ethernet1/pfc3/rx-pause", "leaf1/Ethernet2/pfc3/rx-pause", "leaf2/Ethernet1/pfc3/rx-pause"}}},
		{"held bound: the rest refused", roleSwitch, []counters.Sample{s("leaf2", "Ethernet2", "mac/rx-pause", 3), s("leaf2", "Ethernet2", "pfc3/rx-pause", 4),
			s("leaf2", "Ethernet2", "pfc3/tx-pause", 4)}, 2 * time.Second, "",
			want{2, 6, 4, 2, 2, 1, []string{"leaf1/Ethernet1/pfc3/rx-pause", "leaf1/Ethernet2/pfc3/rx-pause", "leaf2/Ethernet1/pfc3/rx-pause", "leaf2/Ethernet2/mac/rx-pause"}}},
		{"held counters still update", roleSwitch, []counters.Sample{s("leaf1", "Ethernet1", "pfc3/rx-pause", 10), s("leaf1", "Ethernet1", "pfc5/rx-pause", 99),
			s("leaf2", "Ethernet1", "pfc3/rx-pause", 7), s("leaf2", "Ethernet1", "pfc5/tx-pause", 2)},
			3 * time.Second, "",
			want{0, 6, 4, 2, 2, 1, []string{"leaf1/Ethernet1/pfc3/rx-pause", "leaf1/Ethernet2/pfc3/rx-pause", "leaf2/Ethernet1/pfc3/rx-pause", "leaf2/Ethernet2/mac/rx-pause"}}},
		{"refused again within the minute: counted, not logged", roleHost, []counters.Sample{s("gpu01", "ens1f0np0", "ethtool/rx_prio3_pause", 1)},
			30 * time.Second, "",
			want{1, 6, 4, 2, 3, 1, []string{"leaf1/Ethernet1/pfc3/rx-pause", "leaf1/Ethernet2/pfc3/rx-pause", "leaf2/Ethernet1/pfc3/rx-pause", "leaf2/Ethernet2/mac/rx-pause"}}},
		{"a minute later: logged again", roleHost, []counters.Sample{s("gpu01", "ens1f0np0", "ethtool/rx_prio3_pause", 1)},
			90 * time.Second, "",
			want{1, 6, 4, 2, 4, 2, []string{"leaf1/Ethernet1/pfc3/rx-pause", "leaf1/Ethernet2/pfc3/rx-pause", "leaf2/Ethernet1/pfc3/rx-pause", "leaf2/Ethernet2/mac/rx-pause"}}},
		{"leaf1 leaves: room for the rest, all exported again", roleSwitch, []counters.Sample{s("leaf2", "Ethernet2", "mac/rx-pause", 3), s("leaf2", "Ethernet2", "pfc3/rx-pause", 4)},
			100 * time.Second, "leaf1",
			want{0, 4, 4, 0, 4, 2, []string{"leaf2/Ethernet1/pfc3/rx-pause", "leaf2/Ethernet1/pfc5/tx-pause", "leaf2/Ethernet2/mac/rx-pause", "leaf2/Ethernet2/pfc3/rx-pause"}}},
	}
	topo, err := telemetry.NewTopology([]telemetry.DeviceSpec{
		{Name: "leaf1", Ports: []telemetry.PortSpec{{Name: "Ethernet1"}, {Name: "Ethernet2"}}},
		{Name: "leaf2", Ports: []telemetry.PortSpec{{Name: "Ethernet1"}, {Name: "Ethernet2"}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range steps {
		if st.drop != "" {
			h.drop(st.drop)
		}
		if got := h.set(st.role, st.samples, t0.Add(st.after)); got != st.want.refused {
			t.Errorf("%s: refused %d, want %d", st.name, got, st.want.refused)
		}
		fams := gatherHub(t, h)
		for _, c := range []struct {
			family string
			want   float64
		}{{"rocefab_telemetry_series", float64(st.want.exported)}, {"rocefab_telemetry_series_limit", 4},
			{"rocefab_telemetry_series_held", float64(st.want.held)}, {"rocefab_telemetry_series_held_limit", 6},
			{"rocefab_telemetry_series_unexported", float64(st.want.unexported)},
			{"rocefab_telemetry_series_dropped_total", float64(st.want.dropped)}} {
			if v, ok := valueIn(fams, c.family, nil); !ok || v != c.want {
				t.Errorf("%s: %s = %v (%v), want %v", st.name, c.family, v, ok, c.want)
			}
		}
		if got := exportedCounters(fams); !slices.Equal(got, st.want.exportedKeys) {
			t.Errorf("%s: exported %v, want %v", st.name, got, st.want.exportedKeys)
		}
		if got := logs.FilterMessage("counter limit reached; new counters are neither held for the detectors nor exported").Len(); got != st.want.warns {
			t.Errorf("%s: %d warnings, want %d", st.name, got, st.want.warns)
		}
		// The detectors read every held counter, exported or not (each
		// step reads each port it names whole).
		n := 0
		for _, r := range h.readings(topo) {
			for _, p := range r.Ports {
				for _, pv := range p.Prio {
					n += bits.OnesCount(uint(pv.Has))
				}
				n += bits.OnesCount(uint(p.Port.Has))
			}
		}
		if _, ok := h.value(counters.Key{Device: "leaf2", Port: "Ethernet2", Counter: "mac/rx-pause"}); ok {
			n++ // held and exported, but no detector reads link pause
		}
		if n != st.want.held {
			t.Errorf("%s: the detectors read %d counters, want the %d held", st.name, n, st.want.held)
		}
	}
	if v, _ := h.value(counters.Key{Device: "leaf2", Port: "Ethernet1", Counter: "pfc3/rx-pause"}); v != 7 {
		t.Errorf("held counter not updated: %d", v)
	}
	if _, ok := h.value(counters.Key{Device: "gpu01", Port: "ens1f0np0", Counter: "ethtool/rx_prio3_pause"}); ok {
		t.Error("a refused counter is held")
	}
	if d := newCounterHub(0, 0, nil); d.maxExport != DefaultCountersMaxSeries || d.maxHeld != DefaultCountersMaxHeld {
		t.Errorf("default bounds %d, %d", d.maxExport, d.maxHeld)
	}
	if d := newCounterHub(10, 5, nil); d.maxHeld != 10 {
		t.Errorf("held bound %d below the export bound 10", d.maxHeld)
	}
}

// exportedCounters names the exported counter series as
// device/port/counter, sorted, from their families and labels.
func exportedCounters(fams map[string]*dto.MetricFamily) []string {
	var out []string
	for _, name := range []string{"rocefab_pfc_pause_frames_total", "rocefab_link_pause_frames_total", "rocefab_pfc_watchdog_storms_total",
		"rocefab_ecn_marked_packets_total", "rocefab_queue_dropped_packets_total", "rocefab_nic_pause_storm_events_total", "rocefab_host_rdma_counter_total"} {
		for _, m := range fams[name].GetMetric() {
			l := map[string]string{}
			for _, lp := range m.GetLabel() {
				l[lp.GetName()] = lp.GetValue()
			}
			var c string
			switch name {
			case "rocefab_pfc_pause_frames_total":
				c = "pfc" + l["priority"] + "/" + l["direction"] + "-pause"
			case "rocefab_link_pause_frames_total":
				c = "mac/" + l["direction"] + "-pause"
			default:
				c = name + "{" + l["priority"] + l["queue"] + l["level"] + l["counter"] + "}"
			}
			out = append(out, l["device"]+"/"+l["port"]+"/"+c)
		}
	}
	sort.Strings(out)
	return out
}

// TestCounterLabels: the lossless counter families carry the device and
// port, and the per-priority ones the priority, on switches and hosts.
func TestCounterLabels(t *testing.T) {
	h := newCounterHub(0, 0, nil)
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

// TestCounterSeriesLimitSetting: the agent's bounds come from its
// configuration and apply to the streamed switch counters: it holds up to
// max-held for the detectors and exports up to max-series of them.
func TestCounterSeriesLimitSetting(t *testing.T) {
	f := newFixture(t, 1, func(o *gnmisim.Options) {
		o.Counters.Tick = 5 * time.Millisecond
		o.Counters.PerTick = gnmisim.PerTick{gnmisim.PFCRx: 1, gnmisim.PFCTx: 1, gnmisim.ECNMarked: 1}
	})
	c1 := f.commit("first", f.intent("150KB", "9216"))
	cfg := f.config()
	cfg.CountersInterval = 20 * time.Millisecond
	cfg.CountersMaxSeries = 2
	cfg.CountersMaxHeld = 5
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
	for family, want := range map[string]float64{"rocefab_telemetry_series_limit": 2, "rocefab_telemetry_series_held": 5,
		"rocefab_telemetry_series_held_limit": 5} {
		if v, _ := valueIn(fams, family, nil); v != want {
			t.Errorf("%s %v, want %v", family, v, want)
		}
	}
	// Held but not exported: some of the 5 (not those no family exports,
	// such as ingress priority-group drops).
	if v, _ := valueIn(fams, "rocefab_telemetry_series_unexported", nil); v < 1 || v > 3 {
		t.Errorf("unexported %v, want 1..3", v)
	}
	n := len(exportedCounters(fams))
	if n != 2 {
		t.Errorf("%d counter series exported, want 2", n)
	}
}
