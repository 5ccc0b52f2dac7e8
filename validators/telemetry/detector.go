package telemetry

import (
	"math/bits"
	"time"
)

// Detector follows every counter of a fabric from one sample round to the
// next, runs the detectors on the rates and keeps the findings. It is not
// safe for concurrent use; one goroutine feeds it rounds.
type Detector struct {
	topo     *Topology
	cfg      Config
	devs     []devState
	round    uint32
	findings map[key]*entry
	dl       deltas      // scratch for the port being read
	edges    []pauseEdge // this round's paused ports, for pause_propagation
	// paused holds each port's latest paused interval until the port is
	// read again, so a device whose sample missed this round still shows
	// its pause (devices are not read in lockstep).
	paused map[edgeKey]pauseEdge
	rated  bool // some switch gave rates this round
}

type devState struct {
	ports     []portState
	at        time.Time
	arrived   time.Time // the latest sample's arrival (Reading.Arrived)
	evalRound uint32
	ceilPrio  [NumPrioMetrics]float64
	ceilPort  [NumPortMetrics]float64
	// quantum is how long the longest pause (65535 quanta of 512 bit
	// times, IEEE 802.1Qbb) lasts at the port speed, in seconds.
	quantum float64
}

type portState struct {
	seen      bool
	at, from  time.Time // the latest sample and the one before
	evalRound uint32    // the round that last gave this port rates
	tracked   uint16    // findings kept about this port
	prioHas   [NumPriorities]PrioSet
	portHas   PortSet
	prio      [NumPriorities][NumPrioMetrics]uint64
	port      [NumPortMetrics]uint64
	// This round's figures the checks across a cable need: packets per
	// priority (a switch's egress queues, a NIC's receive priorities)
	// and the RoCE packets a NIC received.
	qOK      uint8
	q        [NumPriorities]uint64
	roceRxOK bool
	roceRx   uint64
	// ECN marks on the RoCE queue (a switch port), CE marks received and
	// CNPs sent (a NIC).
	ecnOK, ceOK, cnpOK bool
	ecn, ce, cnp       uint64
}

// deltas are one port's counter increases over one interval.
type deltas struct {
	prioOK [NumPriorities]PrioSet
	prio   [NumPriorities][NumPrioMetrics]uint64
	portOK PortSet
	port   [NumPortMetrics]uint64
	// wdJump is how far a priority's watchdog counter moved when it moved
	// faster than it can count (Implausible, so not in prio); 0 otherwise.
	wdJump   [NumPriorities]uint64
	from, to time.Time
	elapsed  time.Duration
	gap      bool
}

func (d *deltas) p(prio int, m PrioMetric) (uint64, bool) {
	return d.prio[prio][m], d.prioOK[prio]&(1<<m) != 0
}

func (d *deltas) n(m PortMetric) (uint64, bool) { return d.port[m], d.portOK&(1<<m) != 0 }

// ReadingState says what a reading gave.
type ReadingState string

// Reading states.
const (
	// ReadingRated: at least one port gave rates.
	ReadingRated ReadingState = "rated"
	// ReadingBaseline: the first reading of the device (or of every port
	// it answered for): nothing to compare against yet.
	ReadingBaseline ReadingState = "baseline"
	// ReadingStale: no port advanced in time.
	ReadingStale ReadingState = "stale"
	// ReadingUnknownDevice: the device is not in the topology.
	ReadingUnknownDevice ReadingState = "unknown_device"
)

// ReadingStatus is what became of one reading, for logs and metrics.
type ReadingStatus struct {
	Device  string        `json:"device"`
	Taken   time.Time     `json:"taken"`
	State   ReadingState  `json:"state"`
	Elapsed time.Duration `json:"elapsed"` // since the device's previous reading
	// Gap: the interval was longer than MaxGap.
	Gap          bool `json:"gap,omitempty"`
	UnknownPorts int  `json:"unknownPorts,omitempty"`
	Resets       int  `json:"resets,omitempty"`
	Wraps        int  `json:"wraps,omitempty"`
	Ambiguous    int  `json:"ambiguous,omitempty"`
	Implausible  int  `json:"implausible,omitempty"`
}

// Report is the outcome of one sample round.
type Report struct {
	// Raised are findings that became active this round.
	Raised []Finding `json:"raised"`
	// Cleared are findings whose condition has been absent for the code's
	// clear time; Cleared is set on them.
	Cleared []Finding `json:"cleared"`
	// Active is every active finding after the round.
	Active   []Finding       `json:"active"`
	Readings []ReadingStatus `json:"readings"`
}

// New makes a detector for a topology.
func New(t *Topology, cfg Config) (*Detector, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	d := &Detector{topo: t, cfg: cfg, devs: make([]devState, len(t.devs)), findings: map[key]*entry{}, paused: map[edgeKey]pauseEdge{}}
	for i := range t.devs {
		dev, ds := &t.devs[i], &d.devs[i]
		ds.ports = make([]portState, len(dev.ports))
		speed := dev.speed
		if speed <= 0 {
			speed = cfg.DefaultSpeed
		}
		for m := range NumPrioMetrics {
			ds.ceilPrio[m] = ceiling(prioKinds[m], speed)
		}
		for m := range NumPortMetrics {
			ds.ceilPort[m] = ceiling(portKinds[m], speed)
		}
		ds.quantum = 65535 * 512 / speed
	}
	return d, nil
}

// Observe takes one sample round, one reading per device that answered
// (devices may be missing), and returns what changed. Readings of one
// device are compared with that device's previous reading, whenever it was.
func (d *Detector) Observe(readings []Reading) Report {
	d.round++
	d.edges = d.edges[:0]
	d.rated = false
	rep := Report{Readings: make([]ReadingStatus, 0, len(readings))}
	var latest time.Time
	for i := range readings {
		rep.Readings = append(rep.Readings, d.ingest(&readings[i]))
		if a := readings[i].arrival(); a.After(latest) {
			latest = a
		}
	}
	d.checkAcrossCables()
	d.pausedEdges(latest)
	d.checkPropagation(latest)
	d.finish(&rep)
	return rep
}

func (d *Detector) ingest(r *Reading) ReadingStatus {
	rs := ReadingStatus{Device: r.Device, Taken: r.Taken}
	di, ok := d.topo.byName[r.Device]
	if !ok {
		rs.State = ReadingUnknownDevice
		return rs
	}
	dev, ds := &d.topo.devs[di], &d.devs[di]
	if a := r.arrival(); a.After(ds.arrived) {
		ds.arrived = a // the checks below record it with what they find
	}
	if !ds.at.IsZero() {
		rs.Elapsed = r.Taken.Sub(ds.at)
	}
	var rated, baseline bool
	for i := range r.Ports {
		pc := &r.Ports[i]
		pi := int32(i)
		if i >= len(dev.ports) || dev.ports[i].name != pc.Name {
			var found bool
			if pi, found = dev.byPort[pc.Name]; !found {
				rs.UnknownPorts++
				continue
			}
		}
		switch d.ingestPort(di, pi, pc, r, &rs) {
		case ReadingRated:
			rated = true
		case ReadingBaseline:
			baseline = true
		}
	}
	switch {
	case rated:
		rs.State = ReadingRated
		ds.evalRound = d.round
		if !dev.host {
			d.rated = true
		}
	case baseline:
		rs.State = ReadingBaseline
	default:
		rs.State = ReadingStale
	}
	if r.Taken.After(ds.at) {
		ds.at = r.Taken
	}
	return rs
}

func (d *Detector) ingestPort(di, pi int32, pc *PortCounters, r *Reading, rs *ReadingStatus) ReadingState {
	ds := &d.devs[di]
	ps := &ds.ports[pi]
	taken := pc.Taken
	if taken.IsZero() {
		taken = r.Taken
	}
	keep := func() {
		for p := range NumPriorities {
			ps.prio[p], ps.prioHas[p] = pc.Prio[p].V, pc.Prio[p].Has
		}
		ps.port, ps.portHas = pc.Port.V, pc.Port.Has
	}
	if !ps.seen {
		keep()
		ps.seen, ps.at = true, taken
		return ReadingBaseline
	}
	elapsed := taken.Sub(ps.at)
	if elapsed <= 0 {
		if elapsed < 0 { // a stepped clock: start again from here
			keep()
			ps.at = taken
		}
		return ReadingStale
	}
	dl := &d.dl
	dl.from, dl.to, dl.elapsed = ps.at, taken, elapsed
	dl.gap = elapsed > d.cfg.MaxGap
	if dl.gap {
		rs.Gap = true
	}
	for p := range NumPriorities {
		cur := &pc.Prio[p]
		dl.prioOK[p], dl.wdJump[p] = 0, 0
		for b := uint16(cur.Has & ps.prioHas[p]); b != 0; b &= b - 1 {
			m := bits.TrailingZeros16(b)
			w := Width64
			if r.Narrow.Prio&(1<<m) != 0 {
				w = Width32
			}
			s := Diff(ps.prio[p][m], cur.V[m], elapsed, w, ds.ceilPrio[m])
			if s.Valid() {
				dl.prioOK[p] |= 1 << m
				dl.prio[p][m] = s.Delta
			} else if s.Change == Implausible && PrioMetric(m) == WatchdogStorms {
				dl.wdJump[p] = cur.V[m] // gone back (a reset): the value since
				if cur.V[m] >= ps.prio[p][m] {
					dl.wdJump[p] = cur.V[m] - ps.prio[p][m]
				}
			}
			tally(rs, s.Change)
		}
	}
	dl.portOK = 0
	for b := uint16(pc.Port.Has & ps.portHas); b != 0; b &= b - 1 {
		m := bits.TrailingZeros16(b)
		w := Width64
		if r.Narrow.Port&(1<<m) != 0 {
			w = Width32
		}
		s := Diff(ps.port[m], pc.Port.V[m], elapsed, w, ds.ceilPort[m])
		if s.Valid() {
			dl.portOK |= 1 << m
			dl.port[m] = s.Delta
		}
		tally(rs, s.Change)
	}
	keep()
	ps.from, ps.at = ps.at, taken
	ps.evalRound = d.round
	d.checkPort(ref{di, pi}, dl)
	return ReadingRated
}

func tally(rs *ReadingStatus, c Change) {
	switch c {
	case Reset:
		rs.Resets++
	case Wrapped:
		rs.Wraps++
	case Ambiguous:
		rs.Ambiguous++
	case Implausible:
		rs.Implausible++
	}
}

// checkPort runs the checks that need only this port's counters.
func (d *Detector) checkPort(r ref, dl *deltas) {
	dev := &d.topo.devs[r.dev]
	ps := &d.devs[r.dev].ports[r.port]
	pol := dev.policy

	qm := TxPackets // what the checks across the cable compare
	if dev.host {
		qm = RxPackets
	}
	ps.ecnOK = false
	if pol.RoCE >= 0 {
		ps.ecn, ps.ecnOK = dl.p(pol.RoCE, ECNMarked)
	}
	ps.qOK = 0
	for p := range NumPriorities {
		if dl.prioOK[p]&(1<<qm) != 0 {
			ps.qOK |= 1 << p
			ps.q[p] = dl.prio[p][qm]
		}
	}
	for b := pol.Lossless; b != 0; b &= b - 1 {
		p := bits.TrailingZeros8(b)
		d.checkStorm(r, p, dl)
		d.checkLosslessDrop(r, p, dl)
	}
	if pol.CNP >= 0 && !pol.lossless(pol.CNP) {
		d.checkCNPDrop(r, pol.CNP, dl)
	}
	if !dev.host {
		return
	}
	d.checkNICStorm(r, dl)
	if pol.ECN {
		d.checkCNPIgnored(r, dl)
	}
	ps.ce, ps.ceOK = dl.n(CEReceived)
	ps.cnp, ps.cnpOK = dl.n(CNPSent)
	d.checkHostTxQueue(r, dl)
	d.checkRetransmits(r, dl)
	ps.roceRxOK = false
	if rx, ok := dl.n(RoCERxPackets); ok {
		handled, _ := dl.n(CNPHandled) // CNPs are RDMA packets but travel on the CNP priority
		ignored, _ := dl.n(CNPIgnored)
		ps.roceRx, ps.roceRxOK = sub(rx, handled+ignored), true
	}
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func sub(a, b uint64) uint64 {
	if b > a {
		return 0
	}
	return a - b
}
