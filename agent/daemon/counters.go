package daemon

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/rocefab/rocefab/drivers/gnmi"
	"github.com/rocefab/rocefab/drivers/gnmi/gnmipath"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/validators/doctor/counters"
)

// Roles of a counter source.
const (
	roleSwitch = "switch"
	roleHost   = "host"
)

// DefaultCountersMaxSeries bounds the counter series one agent exports.
// A switch RoCE port has 4 per counted priority (PFC pause rx and tx,
// watchdog, ECN) and 2 link-pause series: with 2 lossless priorities,
// 10 a port, 640 for a 64-port switch, so the default holds about 390
// such switches; shard a larger fabric over more agents.
const DefaultCountersMaxSeries = 250_000

// counterHub holds the latest value of every collected counter and
// exports them as Prometheus counters. Values are the devices' own
// counters, so a reset on the device shows as a counter reset.
//
// The number of counters it holds is bounded by limit: once full, a
// counter it does not hold yet is refused (and counted) while those it
// holds keep updating, so a fabric larger than planned, or a host with
// more NIC counters than expected, cannot grow the agent's memory and the
// Prometheus series without end. Space frees when a device leaves.
type counterHub struct {
	mu       sync.Mutex
	values   map[counters.Key]uint64
	sources  map[string]sourceState // device -> state
	limit    int
	dropped  uint64
	warnedAt time.Time
	log      *zap.Logger

	pfcPause, linkPause, watchdog, nicStorm, ecnMarked, queueDrops, hostOther, up, updated *prometheus.Desc
	series, seriesLimit, seriesDropped                                                     *prometheus.Desc
}

type sourceState struct {
	role    string
	up      bool
	updated time.Time
}

// newCounterHub holds at most limit counters (DefaultCountersMaxSeries
// when limit ≤ 0).
func newCounterHub(limit int, log *zap.Logger) *counterHub {
	if limit <= 0 {
		limit = DefaultCountersMaxSeries
	}
	if log == nil {
		log = zap.NewNop()
	}
	d := prometheus.NewDesc
	return &counterHub{
		values: map[counters.Key]uint64{}, sources: map[string]sourceState{}, limit: limit, log: log,
		pfcPause: d("rocefab_pfc_pause_frames_total", "PFC pause frames per priority on RoCE switch ports and host NICs, as the device counts them.",
			[]string{"role", "device", "port", "priority", "direction"}, nil),
		linkPause: d("rocefab_link_pause_frames_total", "Link-level (802.3x) pause frames on RoCE switch ports and host NICs.",
			[]string{"role", "device", "port", "direction"}, nil),
		watchdog: d("rocefab_pfc_watchdog_storms_total", "PFC watchdog storms (deadlocks) detected per priority on RoCE switch ports.",
			[]string{"device", "port", "priority"}, nil),
		nicStorm: d("rocefab_nic_pause_storm_events_total", "Pause-storm guard events of host NICs (the NIC's PFC watchdog), by level.",
			[]string{"device", "port", "level"}, nil),
		ecnMarked: d("rocefab_ecn_marked_packets_total", "ECN-marked packets: per queue on RoCE switch ports, RoCE packets received marked on host NICs.",
			[]string{"role", "device", "port", "queue"}, nil),
		queueDrops: d("rocefab_queue_dropped_packets_total", "Packets dropped by the egress queue of a RoCE priority on switch ports (a drop in a lossless queue is a lossless_drop).",
			[]string{"device", "port", "queue"}, nil),
		hostOther: d("rocefab_host_rdma_counter_total", "Other RDMA and NIC counters of host ports (sysfs counters, hw_counters, ethtool).",
			[]string{"device", "port", "counter"}, nil),
		up: d("rocefab_counter_source_up", "1 while the device's counters are being collected, 0 when the source fails.",
			[]string{"role", "device"}, nil),
		updated: d("rocefab_counter_last_update_timestamp_seconds", "When the device's counters last arrived.",
			[]string{"role", "device"}, nil),
		series:      d("rocefab_telemetry_series", "Device counters the agent holds and exports (one series each).", nil, nil),
		seriesLimit: d("rocefab_telemetry_series_limit", "Most device counters the agent holds (agent.counters.max-series).", nil, nil),
		seriesDropped: d("rocefab_telemetry_series_dropped_total",
			"Counter samples refused because the agent held its most counters and the sample was of a counter it did not hold yet.", nil, nil),
	}
}

func (h *counterHub) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{h.pfcPause, h.linkPause, h.watchdog, h.nicStorm, h.ecnMarked, h.queueDrops, h.hostOther, h.up, h.updated,
		h.series, h.seriesLimit, h.seriesDropped} {
		ch <- d
	}
}

var (
	swPFC      = regexp.MustCompile(`^pfc(\d)/(rx|tx)-pause$`)
	swWatchdog = regexp.MustCompile(`^pfc(\d)/watchdog-storms$`)
	swECN      = regexp.MustCompile(`^queue(\d)/ecn-marked$`)
	swDrops    = regexp.MustCompile(`^queue(\d)/drops$`)
	swMAC      = regexp.MustCompile(`^mac/(rx|tx)-pause$`)
	nicPFC     = regexp.MustCompile(`^ethtool/(rx|tx)_prio(\d)_pause$`)
	nicMAC     = regexp.MustCompile(`^ethtool/(rx|tx)_pause_ctrl_phy$`)
	nicStorm   = regexp.MustCompile(`^ethtool/tx_pause_storm_(warning|error)_events$`)
)

func (h *counterHub) Collect(ch chan<- prometheus.Metric) {
	h.mu.Lock()
	defer h.mu.Unlock()
	c := func(desc *prometheus.Desc, v uint64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(desc, prometheus.CounterValue, float64(v), labels...)
	}
	for k, v := range h.values {
		role := h.sources[k.Device].role
		switch name := k.Counter; {
		case role == roleSwitch && swPFC.MatchString(name):
			m := swPFC.FindStringSubmatch(name)
			c(h.pfcPause, v, role, k.Device, k.Port, m[1], m[2])
		case role == roleSwitch && swWatchdog.MatchString(name):
			c(h.watchdog, v, k.Device, k.Port, swWatchdog.FindStringSubmatch(name)[1])
		case role == roleSwitch && swECN.MatchString(name):
			c(h.ecnMarked, v, role, k.Device, k.Port, swECN.FindStringSubmatch(name)[1])
		case role == roleSwitch && swDrops.MatchString(name):
			c(h.queueDrops, v, k.Device, k.Port, swDrops.FindStringSubmatch(name)[1])
		case role == roleSwitch && swMAC.MatchString(name):
			c(h.linkPause, v, role, k.Device, k.Port, swMAC.FindStringSubmatch(name)[1])
		case role == roleHost && nicPFC.MatchString(name):
			m := nicPFC.FindStringSubmatch(name)
			c(h.pfcPause, v, role, k.Device, k.Port, m[2], m[1])
		case role == roleHost && nicMAC.MatchString(name):
			c(h.linkPause, v, role, k.Device, k.Port, nicMAC.FindStringSubmatch(name)[1])
		case role == roleHost && nicStorm.MatchString(name):
			c(h.nicStorm, v, k.Device, k.Port, nicStorm.FindStringSubmatch(name)[1])
		case role == roleHost && name == counters.PrefixHW+"np_ecn_marked_roce_packets":
			c(h.ecnMarked, v, role, k.Device, k.Port, "")
		case role == roleHost:
			c(h.hostOther, v, k.Device, k.Port, name)
		}
	}
	for dev, s := range h.sources {
		up := 0.0
		if s.up {
			up = 1
		}
		ch <- prometheus.MustNewConstMetric(h.up, prometheus.GaugeValue, up, s.role, dev)
		if !s.updated.IsZero() {
			ch <- prometheus.MustNewConstMetric(h.updated, prometheus.GaugeValue, float64(s.updated.Unix()), s.role, dev)
		}
	}
	ch <- prometheus.MustNewConstMetric(h.series, prometheus.GaugeValue, float64(len(h.values)))
	ch <- prometheus.MustNewConstMetric(h.seriesLimit, prometheus.GaugeValue, float64(h.limit))
	ch <- prometheus.MustNewConstMetric(h.seriesDropped, prometheus.CounterValue, float64(h.dropped))
}

// set stores samples, refusing counters beyond the limit; it returns how
// many it refused.
func (h *counterHub) set(role string, samples []counters.Sample, at time.Time) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	refused := 0
	for _, s := range samples {
		h.sources[s.Device] = sourceState{role: role, up: true, updated: at}
		if _, held := h.values[s.Key]; !held && len(h.values) >= h.limit {
			refused++
			continue
		}
		h.values[s.Key] = s.Value
	}
	if refused > 0 {
		h.dropped += uint64(refused)
		// Once a minute at most: a full hub refuses on every round.
		if h.warnedAt.IsZero() || at.Sub(h.warnedAt) >= time.Minute || at.Before(h.warnedAt) {
			h.warnedAt = at
			h.log.Warn("counter series limit reached; new counters are not exported",
				zap.String("device", samples[0].Device), zap.Int("refused", refused), zap.Int("limit", h.limit),
				zap.Uint64("refusedTotal", h.dropped))
		}
	}
	return refused
}

func (h *counterHub) setUp(role, device string, up bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.sources[device]
	s.role, s.up = role, up
	h.sources[device] = s
}

func (h *counterHub) drop(device string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.sources, device)
	for k := range h.values {
		if k.Device == device {
			delete(h.values, k)
		}
	}
}

// value is one counter's latest value (tests).
func (h *counterHub) value(k counters.Key) (uint64, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	v, ok := h.values[k]
	return v, ok
}

// sampler is the gNMI driver's streaming subscription.
type sampler interface {
	Subscribe(ctx context.Context, paths []string, mode gnmi.Mode, interval time.Duration) (<-chan gnmi.Batch, error)
}

// errNoTelemetry: the switch's transport cannot stream counters.
var errNoTelemetry = errors.New("counters need the gnmi transport")

// switchStreams keeps one gNMI SAMPLE subscription per owned switch and
// follows intent changes: a switch whose connection settings, ports or
// priorities changed is re-subscribed, a switch that left is dropped.
type switchStreams struct {
	a       *Agent
	dialSem chan struct{}
	mu      sync.Mutex
	running map[string]*stream
}

type stream struct {
	fingerprint string
	cancel      context.CancelFunc
	done        chan struct{}
}

func newSwitchStreams(a *Agent, dialParallel int) *switchStreams {
	return &switchStreams{a: a, dialSem: make(chan struct{}, max(dialParallel, 1)), running: map[string]*stream{}}
}

// counterPriorities are the lossless priorities whose pause and ECN
// counters matter: the PFC priorities and the no-drop priority.
func counterPriorities(p intent.Policy) []int {
	prios := []int{p.NoDropPriority}
	if p.PFCOn() {
		for _, x := range p.PFCPriorities {
			if !slices.Contains(prios, x) {
				prios = append(prios, x)
			}
		}
	}
	sort.Ints(prios)
	return prios
}

func streamFingerprint(r *intent.Resolved, sw *intent.Switch) string {
	ports := make([]string, len(sw.Ports))
	for i, p := range sw.Ports {
		ports[i] = p.Name
	}
	return fmt.Sprintf("%s|%s|%s|%+v|%+v|%s|%s|%v|%v", sw.Platform, sw.Transport, sw.Address.String(), sw.Creds, sw.TLS,
		r.Security.CABundle, r.Security.KnownHosts, ports, counterPriorities(sw.Policy))
}

// sync starts, restarts and stops subscriptions to match the intent.
func (s *switchStreams) sync(ctx context.Context, r *intent.Resolved, owns func(string) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	want := map[string]*intent.Switch{}
	for _, sw := range r.Switches {
		if owns == nil || owns(sw.Name) {
			want[sw.Name] = sw
		}
	}
	for name, st := range s.running {
		sw, ok := want[name]
		if ok && st.fingerprint == streamFingerprint(r, sw) {
			delete(want, name) // unchanged: keep streaming
			continue
		}
		st.cancel()
		<-st.done
		delete(s.running, name)
	}
	for name, sw := range want {
		sctx, cancel := context.WithCancel(ctx)
		st := &stream{fingerprint: streamFingerprint(r, sw), cancel: cancel, done: make(chan struct{})}
		s.running[name] = st
		go func() {
			defer close(st.done)
			s.follow(sctx, r, sw)
		}()
	}
}

// stop ends every subscription and waits for them.
func (s *switchStreams) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, st := range s.running {
		st.cancel()
		<-st.done
		delete(s.running, name)
	}
}

// follow keeps a switch subscribed, reconnecting with backoff, until ctx
// ends; its series are dropped then.
func (s *switchStreams) follow(ctx context.Context, r *intent.Resolved, sw *intent.Switch) {
	hub, log := s.a.hub, s.a.log.With(zap.String("device", sw.Name))
	defer hub.drop(sw.Name)
	interval := s.a.cfg.CountersInterval
	backoff := max(interval, time.Second)
	for {
		got, err := s.subscribe(ctx, r, sw)
		if ctx.Err() != nil {
			return
		}
		hub.setUp(roleSwitch, sw.Name, false)
		if errors.Is(err, errNoTelemetry) {
			log.Info("switch counters not collected", zap.Error(err))
			return
		}
		log.Warn("switch counter subscription ended; reconnecting", zap.Duration("in", backoff), zap.Error(err))
		if got {
			backoff = max(interval, time.Second)
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		backoff = min(backoff*2, 5*time.Minute)
	}
}

// subscribe runs one SAMPLE subscription until it fails or ctx ends, and
// reports whether any counter arrived.
func (s *switchStreams) subscribe(ctx context.Context, r *intent.Resolved, sw *intent.Switch) (bool, error) {
	select {
	case s.dialSem <- struct{}{}:
	case <-ctx.Done():
		return false, ctx.Err()
	}
	drv, transport, err := s.a.deps.Engine.OpenSwitch(ctx, r, sw)
	if err != nil {
		<-s.dialSem
		return false, err
	}
	defer drv.Close()
	sub, ok := drv.(sampler)
	if !ok {
		<-s.dialSem
		if transport == "ssh" {
			return s.pollSSH(ctx, sw, drv)
		}
		return false, fmt.Errorf("%w; %s uses %s", errNoTelemetry, sw.Name, transport)
	}
	ports := make([]string, len(sw.Ports))
	for i, p := range sw.Ports {
		ports[i] = p.Name
	}
	byPath := map[string]counters.CounterPath{}
	cps := counters.PathsFor(sw.Platform, ports, counterPriorities(sw.Policy))
	for _, cp := range cps {
		canon, err := gnmipath.Canonical(cp.Path)
		if err != nil {
			<-s.dialSem
			return false, fmt.Errorf("counter path %s: %w", cp.Path, err)
		}
		byPath[canon] = cp
	}
	// One stream: a platform's counters live under one gNMI target.
	targets, byTarget := counters.Requests(cps)
	if len(targets) != 1 {
		<-s.dialSem
		return false, fmt.Errorf("%s: counter paths under %d gNMI targets; one stream takes one", sw.Name, len(targets))
	}
	ch, err := sub.Subscribe(ctx, byTarget[targets[0]], gnmi.Sample, s.a.cfg.CountersInterval)
	<-s.dialSem
	if err != nil {
		return false, err
	}
	got := false
	for b := range ch {
		if b.Err != nil {
			return got, b.Err
		}
		var samples []counters.Sample
		for _, c := range b.Counters {
			canon, err := gnmipath.Canonical(c.Path)
			if err != nil {
				continue
			}
			if cp, ok := byPath[canon]; ok {
				samples = append(samples, counters.Sample{Key: counters.Key{Device: sw.Name, Port: cp.Port, Counter: cp.Counter}, Value: c.Value})
			}
		}
		if len(samples) > 0 {
			got = true
			s.a.hub.set(roleSwitch, samples, s.a.now())
		}
	}
	return got, ctx.Err()
}

// pollHost reads this host's NIC counters every interval until ctx ends.
func (a *Agent) pollHost(ctx context.Context, src counters.Source) {
	defer a.hub.drop(src.Name())
	t := time.NewTicker(a.cfg.CountersInterval)
	defer t.Stop()
	for {
		samples, err := src.Read(ctx)
		if len(samples) > 0 {
			a.hub.set(roleHost, samples, a.now())
		}
		if err != nil {
			a.log.Warn("host counters", zap.String("host", src.Name()), zap.Error(err))
			if len(samples) == 0 {
				a.hub.setUp(roleHost, src.Name(), false)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
