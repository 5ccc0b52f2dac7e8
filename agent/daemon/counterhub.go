package daemon

import (
	"regexp"
	"sort"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/rocefab/rocefab/validators/doctor/counters"
	"github.com/rocefab/rocefab/validators/telemetry"
)

// Roles of a counter source.
const (
	roleSwitch = "switch"
	roleHost   = "host"
)

// DefaultCountersMaxSeries bounds the counter series one agent exports
// on /metrics. A switch RoCE port has 5 per exported priority (PFC pause
// rx and tx, watchdog, ECN, queue drops) and 2 link-pause series: with
// the no-drop and the CNP priority, 12 a port, 768 for a 64-port switch,
// so the default exports about 325 such switches in full.
const DefaultCountersMaxSeries = 250_000

// DefaultCountersMaxHeld bounds the counters one agent holds for the
// lossless detectors: 1,000 switches × 64 ports × 8 priorities × 5
// counters plus link pause (2.7 million) fit, with room for hosts.
const DefaultCountersMaxHeld = 3_000_000

// counterHub holds the latest value of every collected counter, which
// the lossless detectors read, and exports them as Prometheus counters.
// Values are the devices' own counters, so a reset on the device shows as
// a counter reset.
//
// Two bounds, so that detection does not depend on what Prometheus can
// take. The counters held are bounded by maxHeld: once full, a counter it
// does not hold yet is refused (and counted), those it holds keep
// updating, so a fabric larger than planned cannot grow the agent's
// memory without end. What /metrics exports is bounded by maxExport:
// while the exportable counters fit, all are exported; past it only the
// key series are, those of the RoCE, no-drop and CNP priorities and link
// pause of each port, and every counter of a host, each taking one of the
// maxExport slots first come (a series keeps its slot while it is held),
// and the rest are held but not exported. Space frees when a device
// leaves.
type counterHub struct {
	mu         sync.Mutex
	devs       map[string]*devCounters
	keys       map[string]uint8 // device -> key priorities, as setKeyPriorities said
	held       int              // counters held, over all devices
	exportable int              // held counters that map to a metric family
	slots      int              // key series holding an export slot
	maxHeld    int
	maxExport  int
	dropped    uint64
	warnedAt   time.Time
	log        *zap.Logger

	fams                                   [numFams]*prometheus.Desc
	up, updated                            *prometheus.Desc
	series, seriesLimit, seriesDropped     *prometheus.Desc
	heldSeries, heldLimit, seriesUnexposed *prometheus.Desc
}

// devCounters are one device's counters.
type devCounters struct {
	role    string
	up      bool
	updated time.Time // when the device sampled its latest counters
	arrived time.Time // when they reached the agent
	// keyPrios are the priorities whose series are key (bit p for p);
	// zero until the device's stream says, and then every priority is.
	keyPrios uint8
	vals     map[portCounter]*heldCounter
	ports    map[string]*portCycle
}

// portCycle is one port's counters as the detectors read them: whole
// sample cycles. A gNMI target samples each subscription on its own timer
// and sends each in its own notification (sample_interval is a field of
// each Subscription in gnmi.proto), so a detector round can fall
// between two notifications of one port; read as they come, one counter
// would have moved over the interval and another not at all, a rate of
// nothing and then of two intervals. The counters shown move once every
// counter the port gives has come again, or when one comes twice (a new
// cycle: the missing ones are not read that cycle), each counter once,
// stamped with the cycle's newest sample time. A counter missing two
// cycles running is not waited for until it comes again.
type portCycle struct {
	counters       []*heldCounter
	taken, arrived time.Time // the cycle shown
	nextTaken      time.Time // the cycle coming
	nextArrived    time.Time
	committed      bool // a cycle was shown: the first waits for its end
	expected       int  // counters a whole cycle has
	staged         int  // counters in the cycle coming
	touched        bool // in the whole reading being stored
}

// missedCycles is how many cycles running a counter may miss before a
// cycle stops waiting for it.
const missedCycles = 2

func (p *portCycle) add(c *heldCounter) {
	c.port = p
	p.counters = append(p.counters, c)
	p.expected++
}

// stage takes one counter's new value. Part of a cycle (cycle) commits
// the cycle staged when the counter comes twice or the cycle is whole; a
// whole reading is committed by its caller.
func (p *portCycle) stage(c *heldCounter, v uint64, taken, arrived time.Time, cycle bool) {
	if cycle && c.staged {
		p.commit()
	}
	c.v = v
	if !c.staged {
		if c.missed >= missedCycles { // back: waited for again
			p.expected++
		}
		c.staged, c.missed = true, 0
		p.staged++
	}
	if taken.After(p.nextTaken) {
		p.nextTaken = taken
	}
	p.nextArrived = arrived
	if cycle && p.committed && p.staged == p.expected {
		p.commit()
	}
}

// commit shows the cycle staged.
func (p *portCycle) commit() {
	if p.staged == 0 {
		return
	}
	for _, c := range p.counters {
		c.inShown = c.staged
		switch {
		case c.staged:
			c.shown = c.v
		case c.missed < missedCycles:
			c.missed++
			if c.missed == missedCycles {
				p.expected--
			}
		}
		c.staged = false
	}
	p.committed, p.staged = true, 0
	p.taken, p.arrived, p.nextTaken = p.nextTaken, p.nextArrived, time.Time{}
}

type portCounter struct{ Port, Counter string }

// heldCounter is one counter, with its metric family worked out once.
type heldCounter struct {
	v uint64 // the latest, exported
	// shown is the value the detectors read (portCycle); staged: v came
	// in the cycle coming; inShown: shown is part of the cycle shown.
	shown           uint64
	staged, inShown bool
	missed          uint8 // cycles running it did not come in
	port            *portCycle
	fam             int8 // famNone when no family exports it
	a, b            int8 // the family's small labels (priority, direction, level)
	key             bool
	slot            bool
}

// Metric families of device counters.
const (
	famNone int8 = iota - 1
	famPFC
	famLinkPause
	famWatchdog
	famNICStorm
	famECN
	famQueueDrops
	famHostOther
	numFams
)

var (
	directions = [...]string{"rx", "tx"}
	levels     = [...]string{"warning", "error"}
	prioNames  = [...]string{"0", "1", "2", "3", "4", "5", "6", "7"}
)

// newCounterHub exports at most maxExport series and holds at most
// maxHeld counters (the defaults when ≤ 0); maxHeld is at least maxExport.
func newCounterHub(maxExport, maxHeld int, log *zap.Logger) *counterHub {
	if maxExport <= 0 {
		maxExport = DefaultCountersMaxSeries
	}
	if maxHeld <= 0 {
		maxHeld = DefaultCountersMaxHeld
	}
	maxHeld = max(maxHeld, maxExport)
	if log == nil {
		log = zap.NewNop()
	}
	d := prometheus.NewDesc
	h := &counterHub{devs: map[string]*devCounters{}, keys: map[string]uint8{}, maxHeld: maxHeld, maxExport: maxExport, log: log,
		up: d("rocefab_counter_source_up", "1 while the device's counters are being collected, 0 when the source fails.",
			[]string{"role", "device"}, nil),
		updated: d("rocefab_counter_last_update_timestamp_seconds", "When the device's counters last arrived.",
			[]string{"role", "device"}, nil),
		series:      d("rocefab_telemetry_series", "Device counter series the agent exports now.", nil, nil),
		seriesLimit: d("rocefab_telemetry_series_limit", "Most device counter series the agent exports (agent.counters.max-series).", nil, nil),
		seriesDropped: d("rocefab_telemetry_series_dropped_total",
			"Counter samples refused because the agent held its most counters and the sample was of a counter it did not hold yet.", nil, nil),
		heldSeries: d("rocefab_telemetry_series_held", "Device counters the agent holds for the lossless detectors.", nil, nil),
		heldLimit:  d("rocefab_telemetry_series_held_limit", "Most device counters the agent holds (agent.counters.max-held).", nil, nil),
		seriesUnexposed: d("rocefab_telemetry_series_unexported",
			"Device counters held for the detectors but not exported, because the exportable ones exceed agent.counters.max-series.", nil, nil),
	}
	h.fams[famPFC] = d("rocefab_pfc_pause_frames_total", "PFC pause frames per priority on RoCE switch ports and host NICs, as the device counts them.",
		[]string{"role", "device", "port", "priority", "direction"}, nil)
	h.fams[famLinkPause] = d("rocefab_link_pause_frames_total", "Link-level (802.3x) pause frames on RoCE switch ports and host NICs.",
		[]string{"role", "device", "port", "direction"}, nil)
	h.fams[famWatchdog] = d("rocefab_pfc_watchdog_storms_total", "PFC watchdog storms (deadlocks) detected per priority on RoCE switch ports.",
		[]string{"device", "port", "priority"}, nil)
	h.fams[famNICStorm] = d("rocefab_nic_pause_storm_events_total", "Pause-storm guard events of host NICs (the NIC's PFC watchdog), by level.",
		[]string{"device", "port", "level"}, nil)
	h.fams[famECN] = d("rocefab_ecn_marked_packets_total", "ECN-marked packets: per queue on RoCE switch ports, RoCE packets received marked on host NICs.",
		[]string{"role", "device", "port", "queue"}, nil)
	h.fams[famQueueDrops] = d("rocefab_queue_dropped_packets_total", "Packets dropped by the egress queue of a RoCE priority on switch ports (a drop in a lossless queue is a lossless_drop).",
		[]string{"device", "port", "queue"}, nil)
	h.fams[famHostOther] = d("rocefab_host_rdma_counter_total", "Other RDMA and NIC counters of host ports (sysfs counters, hw_counters, ethtool).",
		[]string{"device", "port", "counter"}, nil)
	return h
}

func (h *counterHub) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range h.fams {
		ch <- d
	}
	for _, d := range []*prometheus.Desc{h.up, h.updated, h.series, h.seriesLimit, h.seriesDropped, h.heldSeries, h.heldLimit, h.seriesUnexposed} {
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

func dirIndex(s string) int8 {
	if s == "tx" {
		return 1
	}
	return 0
}

// classify finds a counter's family and small labels, and its priority
// (-1 for none), once when the counter is first held.
func classify(role, name string) (c heldCounter, prio int) {
	c.fam, c.a, c.b, prio = famNone, 0, 0, -1
	digit := func(s string) int { return int(s[0] - '0') }
	switch role {
	case roleSwitch:
		switch {
		case swPFC.MatchString(name):
			m := swPFC.FindStringSubmatch(name)
			prio = digit(m[1])
			c.fam, c.a, c.b = famPFC, int8(prio), dirIndex(m[2])
		case swWatchdog.MatchString(name):
			prio = digit(swWatchdog.FindStringSubmatch(name)[1])
			c.fam, c.a = famWatchdog, int8(prio)
		case swECN.MatchString(name):
			prio = digit(swECN.FindStringSubmatch(name)[1])
			c.fam, c.a = famECN, int8(prio)
		case swDrops.MatchString(name):
			prio = digit(swDrops.FindStringSubmatch(name)[1])
			c.fam, c.a = famQueueDrops, int8(prio)
		case swMAC.MatchString(name):
			c.fam, c.b = famLinkPause, dirIndex(swMAC.FindStringSubmatch(name)[1])
		}
	case roleHost:
		switch {
		case nicPFC.MatchString(name):
			m := nicPFC.FindStringSubmatch(name)
			prio = digit(m[2])
			c.fam, c.a, c.b = famPFC, int8(prio), dirIndex(m[1])
		case nicMAC.MatchString(name):
			c.fam, c.b = famLinkPause, dirIndex(nicMAC.FindStringSubmatch(name)[1])
		case nicStorm.MatchString(name):
			c.fam = famNICStorm
			if nicStorm.FindStringSubmatch(name)[1] == "error" {
				c.b = 1
			}
		case name == counters.PrefixHW+"np_ecn_marked_roce_packets":
			c.fam, c.a = famECN, -1
		default:
			c.fam = famHostOther
		}
	}
	return c, prio
}

// isKey: every host counter is (a host has one or two NICs); a switch
// counter is when it has no priority (link pause) or one of the device's
// key priorities.
func (d *devCounters) isKey(prio int) bool {
	return d.role == roleHost || prio < 0 || d.keyPrios == 0 || d.keyPrios&(1<<prio) != 0
}

func (h *counterHub) Collect(ch chan<- prometheus.Metric) {
	h.mu.Lock()
	defer h.mu.Unlock()
	all := h.exportable <= h.maxExport
	for dev, d := range h.devs {
		for k, c := range d.vals {
			if c.fam == famNone || !(all || c.slot) {
				continue
			}
			var labels []string
			switch c.fam {
			case famPFC:
				labels = []string{d.role, dev, k.Port, prioNames[c.a], directions[c.b]}
			case famLinkPause:
				labels = []string{d.role, dev, k.Port, directions[c.b]}
			case famWatchdog, famQueueDrops:
				labels = []string{dev, k.Port, prioNames[c.a]}
			case famNICStorm:
				labels = []string{dev, k.Port, levels[c.b]}
			case famECN:
				q := ""
				if c.a >= 0 {
					q = prioNames[c.a]
				}
				labels = []string{d.role, dev, k.Port, q}
			case famHostOther:
				labels = []string{dev, k.Port, k.Counter}
			}
			ch <- prometheus.MustNewConstMetric(h.fams[c.fam], prometheus.CounterValue, float64(c.v), labels...)
		}
	}
	for dev, d := range h.devs {
		up := 0.0
		if d.up {
			up = 1
		}
		ch <- prometheus.MustNewConstMetric(h.up, prometheus.GaugeValue, up, d.role, dev)
		if !d.updated.IsZero() {
			ch <- prometheus.MustNewConstMetric(h.updated, prometheus.GaugeValue, float64(d.updated.Unix()), d.role, dev)
		}
	}
	exported := h.slots
	if all {
		exported = h.exportable
	}
	g := func(desc *prometheus.Desc, v int) {
		ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, float64(v))
	}
	g(h.series, exported)
	g(h.seriesLimit, h.maxExport)
	g(h.heldSeries, h.held)
	g(h.heldLimit, h.maxHeld)
	g(h.seriesUnexposed, h.exportable-exported)
	ch <- prometheus.MustNewConstMetric(h.seriesDropped, prometheus.CounterValue, float64(h.dropped))
}

// device is a device's counters, created with its role.
func (h *counterHub) device(role, name string) *devCounters {
	d := h.devs[name]
	if d != nil && d.role != role {
		h.forget(d) // a device that changed roles is counted anew
		d = nil
	}
	if d == nil {
		d = &devCounters{role: role, keyPrios: h.keys[name], vals: map[portCounter]*heldCounter{}, ports: map[string]*portCycle{}}
		h.devs[name] = d
	}
	return d
}

// setKeyPriorities says which of a switch's priorities are key series
// (the no-drop, PFC and CNP priorities); until it is called all are.
func (h *counterHub) setKeyPriorities(device string, prios []int) {
	var m uint8
	for _, p := range prios {
		if p >= 0 && p < 8 {
			m |= 1 << p
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.keys[device] = m
	d := h.devs[device]
	if d == nil || d.keyPrios == m {
		return
	}
	d.keyPrios = m
	for k, c := range d.vals { // only new keys need it, but the set may change
		_, prio := classify(d.role, k.Counter)
		c.key = d.isKey(prio)
		if !c.key && c.slot {
			c.slot = false
			h.slots--
		}
	}
}

// set stores a whole reading of counters taken and arrived at at (a host
// read, an SSH poll), refusing counters beyond maxHeld; it returns how
// many it refused.
func (h *counterHub) set(role string, samples []counters.Sample, at time.Time) int {
	return h.store(role, samples, at, at, true)
}

// setSampled stores part of a sample cycle, one notification the device
// stamped at taken that arrived at arrived: rates follow the device,
// currency the agent's clock.
func (h *counterHub) setSampled(role string, samples []counters.Sample, taken, arrived time.Time) int {
	return h.store(role, samples, taken, arrived, false)
}

// endCycle says a device's first sample cycle is whole (gNMI's
// sync_response): its ports show it without waiting for the next.
func (h *counterHub) endCycle(device string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if d := h.devs[device]; d != nil {
		for _, p := range d.ports {
			p.commit()
		}
	}
}

func (h *counterHub) store(role string, samples []counters.Sample, taken, arrived time.Time, whole bool) int {
	at := taken
	h.mu.Lock()
	defer h.mu.Unlock()
	refused := 0
	var d *devCounters
	var touched []*portCycle
	cur := ""
	for _, s := range samples {
		if d == nil || s.Device != cur {
			d, cur = h.device(role, s.Device), s.Device
			d.up, d.updated, d.arrived = true, at, arrived
		}
		k := portCounter{s.Port, s.Counter}
		c := d.vals[k]
		if c == nil {
			if h.held >= h.maxHeld {
				refused++
				continue
			}
			cl, prio := classify(role, s.Counter)
			c = &cl
			c.key = d.isKey(prio)
			d.vals[k] = c
			h.held++
			if c.fam != famNone {
				h.exportable++
			}
			p := d.ports[s.Port]
			if p == nil {
				p = &portCycle{}
				d.ports[s.Port] = p
			}
			p.add(c)
		}
		p := c.port
		p.stage(c, s.Value, at, arrived, !whole)
		if whole && !p.touched {
			p.touched = true
			touched = append(touched, p)
		}
		if c.key && !c.slot && c.fam != famNone && h.slots < h.maxExport {
			c.slot = true
			h.slots++
		}
	}
	for _, p := range touched {
		p.touched = false
		p.commit()
	}
	if refused > 0 {
		h.dropped += uint64(refused)
		// Once a minute at most: a full hub refuses on every round.
		if h.warnedAt.IsZero() || at.Sub(h.warnedAt) >= time.Minute || at.Before(h.warnedAt) {
			h.warnedAt = at
			h.log.Warn("counter limit reached; new counters are neither held for the detectors nor exported",
				zap.String("device", samples[0].Device), zap.Int("refused", refused), zap.Int("limit", h.maxHeld),
				zap.Uint64("refusedTotal", h.dropped))
		}
	}
	return refused
}

func (h *counterHub) setUp(role, device string, up bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.device(role, device).up = up
}

// forget uncounts a device's counters.
func (h *counterHub) forget(d *devCounters) {
	for _, c := range d.vals {
		h.held--
		if c.fam != famNone {
			h.exportable--
		}
		if c.slot {
			h.slots--
		}
	}
}

func (h *counterHub) drop(device string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if d := h.devs[device]; d != nil {
		h.forget(d)
		delete(h.devs, device)
	}
	delete(h.keys, device)
}

// value is one counter's latest value (tests).
func (h *counterHub) value(k counters.Key) (uint64, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	d := h.devs[k.Device]
	if d == nil {
		return 0, false
	}
	c, ok := d.vals[portCounter{k.Port, k.Counter}]
	if !ok {
		return 0, false
	}
	return c.v, true
}

// readings are the hub's counters as one detector round: a reading per
// device, taken when its counters last arrived (a device with nothing new
// gives the same moment again, which the detector takes as stale). Every
// held counter is read, exported or not. The lock is taken per device,
// so collection goes on during a round.
func (h *counterHub) readings(t *telemetry.Topology) []telemetry.Reading {
	h.mu.Lock()
	devs := make([]string, 0, len(h.devs))
	for dev, d := range h.devs {
		if len(d.vals) > 0 && !d.updated.IsZero() {
			devs = append(devs, dev)
		}
	}
	h.mu.Unlock()
	sort.Strings(devs)
	out := make([]telemetry.Reading, 0, len(devs))
	var buf []telemetry.NamedSample
	for _, dev := range devs {
		h.mu.Lock()
		d := h.devs[dev]
		if d == nil {
			h.mu.Unlock()
			continue
		}
		buf = buf[:0]
		for k, c := range d.vals {
			if c.inShown {
				buf = append(buf, telemetry.NamedSample{Port: k.Port, Counter: k.Counter, Value: c.shown, Taken: c.port.taken})
			}
		}
		var taken, arrived time.Time
		for _, p := range d.ports {
			if p.committed && p.taken.After(taken) {
				taken = p.taken
			}
			if p.committed && p.arrived.After(arrived) {
				arrived = p.arrived
			}
		}
		h.mu.Unlock()
		if len(buf) == 0 {
			continue
		}
		r, _ := t.ReadingFrom(dev, taken, buf)
		r.Arrived = arrived
		out = append(out, r)
	}
	return out
}

// keyPriorities are a switch's key priorities: those whose counters are
// collected (no-drop and PFC) and the CNP priority.
func keyPriorities(counted []int, cnp int) []int {
	out := append([]int(nil), counted...)
	for _, p := range out {
		if p == cnp {
			return out
		}
	}
	return append(out, cnp)
}
