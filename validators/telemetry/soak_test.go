package telemetry

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/rocefab/rocefab/intent"
)

// The soak plays hours of 10 s sample rounds of examples/ai-cluster (2
// NX-OS spines, 4 EOS and 4 SONiC leaves, 64 mlx5 hosts) from a model of a
// healthy training fabric, and the detectors must stay silent. The model's
// counters behave as the sources document them:
//
//   - mlx5 per-priority pause frames and pause time in µs, per-priority
//     packets and discards, vport RDMA packets and the pause-storm guard
//     events: Linux Documentation/networking/device_drivers/ethernet/
//     mellanox/mlx5/counters.rst (NVIDIA).
//   - RDMA hw_counters: np_ecn_marked_roce_packets are CE-marked RoCE
//     packets the notification point received, np_cnp_sent the CNPs it
//     answered them with, rp_cnp_handled/ignored what the reaction point
//     did with CNPs (Linux commit "IB/mlx5: Support congestion related
//     counters"). A notification point that is on answers every marked QP
//     with at least one CNP, throttled per QP, so CNPs are a fraction of CE.
//   - Pause time in µs per priority (SAI_PORT_STAT_PFC_n_RX_PAUSE_DURATION_US,
//     which SONiC's PFC watchdog uses), frames counted at one refresh per
//     half of the longest pause (65535 quanta of 512 bit times, IEEE
//     802.1Qbb) while a port is held paused, plus the XOFF/XON pair.
//   - A NIC that stalls pauses its switch port without end, and the pause
//     spreads ToR → spine → other ToRs → hosts (Guo et al., "RDMA over
//     Commodity Ethernet at Scale", SIGCOMM 2016); normal incast pauses
//     a hop or two briefly. SONiC's watchdog takes 80 % (later 99 %) of a
//     window paused as a storm (sonic-swss #3036); Junos detects after two
//     100 ms polls.
//
// Normal pause bursts: per round a host-facing leaf port sees incast with
// probability 8 % (pausing the leaf's senders a few percent, 1 in 30 of
// them heavy: 10–45 % for at most 20 s, a cool-down after), and a busy
// NIC backpressures its leaf a few percent with probability 5 %. Heavy
// incast pauses the spine ports toward the leaf and, more weakly, the
// spine's other leaves and some hosts, so two-hop spreads above the 20 %
// threshold do occur, for one or two rounds. Counters start at random
// values (devices up for months); spine2 reads 32-bit pause-frame, drop and
// packet counters that start near the top and wrap; leaf2 has its counters
// cleared, gpu010 reboots, leaf5 is unreachable for five minutes, reads
// take their snapshot up to 2 s (1 % of them 5 s) before the round's
// end while the counters run on, 1 % of reads are missed, one read
// comes twice; the agent restarts once with its state and once without;
// rack 1 and leaf1 go through the named-counter adapter.

const (
	soakRoCEPPS = 400e9 / (4160 * 8) // 400G of 4 KB RoCE frames: 12M packets/s
)

// soakQuantum is how long one pause frame holds a port of dev: 65535
// quanta of 512 bit times at the port's speed (the intent's, else the
// detectors' default).
func soakQuantum(dev *device) float64 {
	speed := dev.speed
	if speed <= 0 {
		speed = DefaultConfig().DefaultSpeed
	}
	return 65535 * 512 / speed
}

type soakDev struct {
	name     string
	platform string
	host     bool
	ports    []PortCounters // cumulative; Has is what the source reads
	inc      []PortCounters // this round's increments, every counter
	narrow   Widths
	named    bool // read through ReadingFrom

	// host traffic
	busy         bool
	tx, rx       uint64
	lastRetrans  int
	heavyRounds  int // leaves: consecutive heavy-incast rounds
	coolDown     int
	downFrom     int // unreachable in rounds [downFrom, downTo)
	downTo       int
	skippedRound int
}

type soakFabric struct {
	tb    testing.TB
	r     *intent.Resolved
	topo  *Topology
	rng   *rand.Rand
	round int
	now   time.Time
	devs  []*soakDev
	by    map[string]*soakDev
	// paused[port] is this round's paused share, by device and port index
	paused map[[2]int32]float64
	events soakEvents
	inject func(f *soakFabric)
}

// soakEvents are the rounds of the scripted counter events.
type soakEvents struct {
	clearLeaf2, rebootGPU010, leaf5Down, dupLeaf3 int
}

// Source capabilities by platform: which counters each reads.
var (
	capSONiC = PrioSetOf(PauseRx, PauseTx, PauseRxMicros, PauseTxMicros, WatchdogStorms, Drops, PGDrops, ECNMarked, TxPackets, RxPackets)
	capEOS   = PrioSetOf(PauseRx, PauseTx, WatchdogStorms, Drops, ECNMarked, TxPackets)
	capNXOS  = PrioSetOf(PauseRx, PauseTx, Drops, TxPackets)
	capNIC   = PrioSetOf(PauseRx, PauseTx, PauseRxMicros, PauseTxMicros, Drops, PGDrops, TxPackets, RxPackets)
)

func newSoak(tb testing.TB, seed uint64, rounds int) *soakFabric {
	r, topo := aiCluster(tb)
	f := &soakFabric{tb: tb, r: r, topo: topo, rng: rand.New(rand.NewPCG(seed, 0x50a4)), now: t0, by: map[string]*soakDev{}}
	platform := map[string]string{}
	for _, sw := range r.Switches {
		platform[sw.Name] = sw.Platform
	}
	for i := range topo.devs {
		d := &topo.devs[i]
		sd := &soakDev{name: d.name, host: d.host, platform: platform[d.name], downFrom: -1}
		caps := capNIC
		switch sd.platform {
		case "sonic":
			caps = capSONiC
		case "eos":
			caps = capEOS
		case "nxos":
			caps = capNXOS
		}
		if sd.name == "spine2" {
			sd.narrow = Widths{Prio: PrioSetOf(PauseRx, PauseTx, Drops, TxPackets)}
		}
		sd.named = sd.name == "leaf1" || (d.host && sd.name <= "gpu008")
		for _, p := range d.ports {
			pc := PortCounters{Name: p.name}
			for prio := range NumPriorities {
				pc.Prio[prio].Has = caps
				for m := range NumPrioMetrics {
					pc.Prio[prio].V[m] = f.start(sd, sd.narrow.Prio.Has(PrioMetric(m)))
				}
			}
			if d.host {
				pc.Port.Has = PortSet(1<<NumPortMetrics - 1)
				for m := range NumPortMetrics {
					pc.Port.V[m] = f.start(sd, false)
				}
			}
			sd.ports = append(sd.ports, pc)
		}
		sd.inc = make([]PortCounters, len(sd.ports))
		sd.busy = f.rng.Float64() < 0.8
		f.devs = append(f.devs, sd)
		f.by[sd.name] = sd
	}
	f.events = soakEvents{clearLeaf2: rounds / 3, rebootGPU010: rounds / 2, leaf5Down: rounds / 4, dupLeaf3: rounds / 5}
	f.by["leaf5"].downFrom, f.by["leaf5"].downTo = f.events.leaf5Down, f.events.leaf5Down+30
	f.by["gpu010"].downFrom, f.by["gpu010"].downTo = f.events.rebootGPU010, f.events.rebootGPU010+3
	return f
}

// start is a counter's value when the run begins: anything a device up for
// months may show, or near the top of a 32-bit counter.
func (f *soakFabric) start(_ *soakDev, narrow bool) uint64 {
	if narrow {
		return 1<<32 - 1 - f.rng.Uint64N(300_000)
	}
	return f.rng.Uint64N(1 << 40)
}

func (f *soakFabric) idx(d *soakDev, port string) int {
	return int(f.topo.devs[f.topo.byName[d.name]].byPort[port])
}

func (f *soakFabric) inc(dev string, port string) *PortCounters {
	d := f.by[dev]
	return &d.inc[f.idx(d, port)]
}

// pauseBy adds to the share of this round a port is paused by its
// neighbour; healthy episodes never hold a port past 70 %.
func (f *soakFabric) pauseBy(dev string, port string, frac float64) {
	di := f.topo.byName[dev]
	k := [2]int32{di, f.topo.devs[di].byPort[port]}
	f.paused[k] = min(0.7, f.paused[k]+frac)
}

func (f *soakFabric) exp(mean, cap float64) float64 { return min(cap, f.rng.ExpFloat64()*mean) }
func (f *soakFabric) uni(lo, hi float64) float64    { return lo + f.rng.Float64()*(hi-lo) }

// step generates one round of healthy increments, lets the injection
// change them, applies them and returns the readings.
func (f *soakFabric) step() []Reading {
	f.round++
	f.now = f.now.Add(el)
	f.paused = map[[2]int32]float64{}
	for _, d := range f.devs {
		for i := range d.inc {
			d.inc[i] = PortCounters{}
		}
	}
	secs := el.Seconds()
	// Hosts: RoCE on priority 3, TCP on 0, CE marks answered with CNPs.
	for _, d := range f.devs {
		if !d.host {
			continue
		}
		if f.rng.Float64() < 0.05 {
			d.busy = !d.busy
		}
		util := 0.0005
		if d.busy {
			util = f.uni(0.3, 0.9)
		}
		d.tx = uint64(util * soakRoCEPPS * secs)
		d.rx = uint64(f.uni(0.5, 1.5) * util * soakRoCEPPS * secs)
		tcp := uint64(f.uni(1e4, 1e5) * secs)
		pc := &d.inc[0]
		pc.Prio[3].V[TxPackets] = d.tx
		pc.Prio[3].V[RxPackets] = d.rx
		pc.Prio[0].V[TxPackets] = tcp
		pc.Prio[0].V[RxPackets] = tcp
		ce := uint64(float64(d.rx) * f.uni(0, 0.0002))
		f.mark(d, ce)
		handled := uint64(f.uni(0, 2) * float64(d.tx) * 0.0001)
		pc.Port.V[CNPHandled] = handled
		if f.rng.Float64() < 0.1 {
			pc.Port.V[CNPIgnored] = f.rng.Uint64N(10) // CNPs for QPs already gone
		}
		// A one-off retransmission now and then (a peer process died),
		// isolated: never twice within five minutes.
		if f.round-d.lastRetrans > 30 && f.rng.Float64() < 1.0/1500 {
			d.lastRetrans = f.round
			pc.Port.V[[]PortMetric{OutOfSequence, PacketSeqErr, LocalAckTimeout}[f.rng.IntN(3)]] = 1 + f.rng.Uint64N(3)
		}
		// A busy NIC whose receive path briefly backs up pauses its leaf.
		if d.busy && f.rng.Float64() < 0.05 {
			leaf, _ := f.topo.Peer(d.name, pc.Name)
			f.pauseBy(leaf.Device, leaf.Port, f.exp(0.005, 0.08))
		}
	}
	// Leaves: incast toward a host pauses the leaf's senders.
	for _, d := range f.devs {
		if d.host || d.platform == "nxos" {
			continue
		}
		heavyNow := false
		for i, p := range f.topo.devs[f.topo.byName[d.name]].ports {
			if p.peer == noRef || !f.topo.devs[p.peer.dev].host || f.rng.Float64() >= 0.08 {
				continue
			}
			host := f.by[f.topo.devs[p.peer.dev].name]
			frac := f.exp(0.01, 0.1)
			if d.coolDown == 0 && d.heavyRounds < 2 && (d.heavyRounds > 0 && f.rng.Float64() < 0.5 || f.rng.Float64() < 1.0/30) {
				frac = f.uni(0.1, 0.45)
				heavyNow = true
			}
			// The congested egress marks ECN; the host answers with CNPs.
			marks := uint64(float64(host.rx) * f.uni(0.001, 0.02) * min(1, frac/0.1))
			d.inc[i].Prio[3].V[ECNMarked] += marks
			f.mark(host, marks)
			f.spreadIncast(d, frac)
		}
		switch {
		case heavyNow:
			d.heavyRounds++
		case d.heavyRounds > 0:
			d.heavyRounds, d.coolDown = 0, 3
		case d.coolDown > 0:
			d.coolDown--
		}
		if d.heavyRounds == 2 {
			d.heavyRounds, d.coolDown = 0, 3
		}
	}
	// Switch queues carry what the hosts send and receive.
	for _, d := range f.devs {
		if d.host {
			continue
		}
		for i, p := range f.topo.devs[f.topo.byName[d.name]].ports {
			pc := &d.inc[i]
			if p.peer != noRef && f.topo.devs[p.peer.dev].host {
				h := f.by[f.topo.devs[p.peer.dev].name]
				hp := &h.inc[p.peer.port]
				pc.Prio[3].V[TxPackets] = hp.Prio[3].V[RxPackets]
				pc.Prio[0].V[TxPackets] = hp.Prio[0].V[RxPackets]
				pc.Prio[3].V[RxPackets] = hp.Prio[3].V[TxPackets]
				continue
			}
			pc.Prio[3].V[TxPackets] = uint64(f.uni(0.2, 0.6) * soakRoCEPPS * secs)
			pc.Prio[3].V[RxPackets] = uint64(f.uni(0.2, 0.6) * soakRoCEPPS * secs)
			pc.Prio[0].V[TxPackets] = uint64(f.uni(1e4, 1e5) * secs)
			pc.Prio[6].V[TxPackets] = uint64(f.uni(10, 500) * secs)
			if f.rng.Float64() < 0.05 {
				pc.Prio[0].V[Drops] = f.rng.Uint64N(200) // TCP tail drops on a lossy queue
			}
		}
	}
	// CNPs: the CNP priority and the RDMA packet counts.
	for _, d := range f.devs {
		if !d.host {
			continue
		}
		pc := &d.inc[0]
		cnpRx := pc.Port.V[CNPHandled] + pc.Port.V[CNPIgnored]
		pc.Prio[6].V[TxPackets] = pc.Port.V[CNPSent]
		pc.Prio[6].V[RxPackets] = cnpRx
		pc.Port.V[RoCETxPackets] = d.tx + pc.Port.V[CNPSent]
		pc.Port.V[RoCERxPackets] = d.rx + cnpRx
	}
	// Pause: time and frames on the paused port, the same sent by its
	// neighbour.
	for k, frac := range f.paused {
		dev := &f.topo.devs[k[0]]
		pt := dev.ports[k[1]]
		us := uint64(frac * float64(el.Microseconds()))
		frames := uint64(frac*secs/(soakQuantum(dev)/2)) + 2
		pc := &f.by[dev.name].inc[k[1]]
		pc.Prio[3].V[PauseRxMicros] += us
		pc.Prio[3].V[PauseRx] += frames
		if pt.peer != noRef {
			peer := &f.by[f.topo.devs[pt.peer.dev].name].inc[pt.peer.port]
			peer.Prio[3].V[PauseTxMicros] += us
			peer.Prio[3].V[PauseTx] += frames
		}
	}
	if f.inject != nil {
		f.inject(f)
	}
	return f.apply()
}

// mark counts CE marks at a host and the CNPs its notification point sends.
func (f *soakFabric) mark(h *soakDev, ce uint64) {
	if ce == 0 {
		return
	}
	pc := &h.inc[0]
	pc.Port.V[CEReceived] += ce
	pc.Port.V[CNPSent] += max(1, uint64(float64(ce)*f.uni(0.1, 0.6)))
}

// spreadIncast: a leaf congested toward a host pauses its senders: the
// spine ports toward it, some of its hosts, and (more weakly) the spines
// pause their other leaves.
func (f *soakFabric) spreadIncast(leaf *soakDev, frac float64) {
	ld := &f.topo.devs[f.topo.byName[leaf.name]]
	for _, p := range ld.ports {
		if p.peer == noRef {
			continue
		}
		peer := &f.topo.devs[p.peer.dev]
		if peer.host {
			if f.rng.Float64() < 0.25 {
				f.pauseBy(peer.name, peer.ports[p.peer.port].name, frac*f.uni(0.1, 0.5))
			}
			continue
		}
		spineFrac := frac * f.uni(0.3, 0.9)
		f.pauseBy(peer.name, peer.ports[p.peer.port].name, spineFrac)
		for _, sp := range peer.ports {
			if sp.peer == noRef || sp.peer.dev == f.topo.byName[leaf.name] || f.rng.Float64() >= 0.3 {
				continue
			}
			other := &f.topo.devs[sp.peer.dev]
			f.pauseBy(other.name, other.ports[sp.peer.port].name, spineFrac*f.uni(0.2, 0.6))
		}
	}
}

// apply adds the increments to the counters, plays the scripted counter
// events and returns this round's readings.
func (f *soakFabric) apply() []Reading {
	var out []Reading
	for _, d := range f.devs {
		if (d.name == "leaf2" && f.round == f.events.clearLeaf2) || (d.name == "gpu010" && f.round == d.downTo) {
			for i := range d.ports { // clear counters, or a reboot
				for p := range NumPriorities {
					d.ports[i].Prio[p].V = [NumPrioMetrics]uint64{}
				}
				d.ports[i].Port.V = [NumPortMetrics]uint64{}
			}
		}
		for i := range d.ports {
			pc, inc := &d.ports[i], &d.inc[i]
			for p := range NumPriorities {
				for m := range NumPrioMetrics {
					pc.Prio[p].V[m] += inc.Prio[p].V[m]
					if d.narrow.Prio.Has(PrioMetric(m)) {
						pc.Prio[p].V[m] &= 1<<32 - 1
					}
				}
			}
			for m := range NumPortMetrics {
				pc.Port.V[m] += inc.Port.V[m]
			}
		}
		if f.round >= d.downFrom && f.round < d.downTo || f.rng.Float64() < 0.01 {
			continue
		}
		// Counters run on between rounds: a read u seconds before the
		// round's end shows all but u/10 of the round's increments.
		u := f.uni(0, 2)
		if f.rng.Float64() < 0.01 {
			u = 5 // a slow round: the read took its snapshot 5 s early
		}
		taken := f.now.Add(-time.Duration(u * float64(time.Second)))
		ports := slices.Clone(d.ports)
		for i := range ports {
			pc, inc := &ports[i], &d.inc[i]
			for p := range NumPriorities {
				for m := range NumPrioMetrics {
					pc.Prio[p].V[m] -= f.notYet(inc.Prio[p].V[m], u)
					if d.narrow.Prio.Has(PrioMetric(m)) {
						pc.Prio[p].V[m] &= 1<<32 - 1
					}
				}
			}
			for m := range NumPortMetrics {
				pc.Port.V[m] -= f.notYet(inc.Port.V[m], u)
			}
		}
		r := Reading{Device: d.name, Taken: taken, Narrow: d.narrow, Ports: ports}
		if d.named {
			var unplaced []NamedSample
			r, unplaced = f.topo.ReadingFrom(d.name, taken, f.toNamed(d, ports))
			if len(unplaced) > 0 {
				f.tb.Fatalf("%s: unplaced %v", d.name, unplaced)
			}
		}
		out = append(out, r)
		if d.name == "leaf3" && f.round == f.events.dupLeaf3 {
			out = append(out, r)
		}
	}
	return out
}

// notYet is the part of a round's increment that happens after a read u
// seconds before the round's end: a share of a steady flow, or all or
// nothing of a few discrete events (a drop, a timeout happen at one
// moment).
func (f *soakFabric) notYet(inc uint64, u float64) uint64 {
	share := u / el.Seconds()
	if inc >= 100 {
		return uint64(float64(inc) * share)
	}
	if inc > 0 && f.rng.Float64() < share {
		return inc
	}
	return 0
}

// The counter names of each metric and priority, as the collectors write
// them (see names.go).
var swNames, nicNames = func() (sw, nic [NumPrioMetrics][NumPriorities]string) {
	swFmt := map[PrioMetric]string{PauseRx: "pfc%d/rx-pause", PauseTx: "pfc%d/tx-pause", PauseRxMicros: "pfc%d/rx-pause-us",
		PauseTxMicros: "pfc%d/tx-pause-us", WatchdogStorms: "pfc%d/watchdog-storms", Drops: "queue%d/drops", TxPackets: "queue%d/tx-packets",
		ECNMarked: "queue%d/ecn-marked", PGDrops: "pg%d/drops", RxPackets: "pg%d/rx-packets"}
	nicFmt := map[PrioMetric]string{PauseRx: "ethtool/rx_prio%d_pause", PauseTx: "ethtool/tx_prio%d_pause",
		PauseRxMicros: "ethtool/rx_prio%d_pause_duration", PauseTxMicros: "ethtool/tx_prio%d_pause_duration",
		Drops: "ethtool/rx_prio%d_discards", PGDrops: "ethtool/rx_prio%d_buf_discard", ECNMarked: "ethtool/rx_prio%d_marked",
		TxPackets: "ethtool/tx_prio%d_packets", RxPackets: "ethtool/rx_prio%d_packets"}
	for m := range NumPrioMetrics {
		for p := range NumPriorities {
			sw[m][p] = fmt.Sprintf(swFmt[PrioMetric(m)], p)
			if f, ok := nicFmt[PrioMetric(m)]; ok {
				nic[m][p] = fmt.Sprintf(f, p)
			}
		}
	}
	return sw, nic
}()

var nicPortNames = map[PortMetric][2]string{
	RoCETxPackets: {"netdev", "ethtool/tx_vport_rdma_unicast_packets"}, RoCERxPackets: {"netdev", "ethtool/rx_vport_rdma_unicast_packets"},
	StormWarnings: {"netdev", "ethtool/tx_pause_storm_warning_events"}, StormErrors: {"netdev", "ethtool/tx_pause_storm_error_events"},
	CEReceived: {"rdma", "hw_counters/np_ecn_marked_roce_packets"}, CNPSent: {"rdma", "hw_counters/np_cnp_sent"},
	CNPHandled: {"rdma", "hw_counters/rp_cnp_handled"}, CNPIgnored: {"rdma", "hw_counters/rp_cnp_ignored"},
	OutOfSequence: {"rdma", "hw_counters/out_of_sequence"}, PacketSeqErr: {"rdma", "hw_counters/packet_seq_err"},
	LocalAckTimeout: {"rdma", "hw_counters/local_ack_timeout_err"}}

// toNamed writes a device's counters as the collectors name them.
func (f *soakFabric) toNamed(d *soakDev, ports []PortCounters) []NamedSample {
	var out []NamedSample
	dev := &f.topo.devs[f.topo.byName[d.name]]
	names := &swNames
	if d.host {
		names = &nicNames
	}
	for i, pc := range ports {
		for p := range NumPriorities {
			for m := range NumPrioMetrics {
				if pc.Prio[p].Has.Has(PrioMetric(m)) {
					out = append(out, NamedSample{Port: pc.Name, Counter: names[m][p], Value: pc.Prio[p].V[m]})
				}
			}
		}
		for m := range NumPortMetrics {
			if pc.Port.Has.Has(PortMetric(m)) {
				n := nicPortNames[PortMetric(m)]
				port := pc.Name
				if n[0] == "rdma" {
					port = dev.ports[i].rdma
				}
				out = append(out, NamedSample{Port: port, Counter: n[1], Value: pc.Port.V[m]})
			}
		}
	}
	return out
}

// soakResult is what a soak run saw.
type soakResult struct {
	raised, cleared []Finding
	raisedRound     map[string]int // "code subject" -> first round raised
	activeAtRestart []string       // active when the agent saved its state
	stats           soakStats
}

type soakStats struct {
	rounds, readings, resets, wraps, ambiguous, gaps, stale int
	pendingRounds                                           map[Code]int // rounds a finding was pending but never raised
	maxPaused                                               float64
	twoHopRounds                                            int
}

// soak runs rounds of a seed, restarting the agent once with its state
// (after 30 s down) and once without.
func soak(tb testing.TB, seed uint64, rounds int, inject func(f *soakFabric)) soakResult {
	return soakWith(tb, seed, rounds, inject, rounds*2/5, rounds*4/5)
}

func soakWith(tb testing.TB, seed uint64, rounds int, inject func(f *soakFabric), restartWith, restartWithout int) soakResult {
	f := newSoak(tb, seed, rounds)
	f.inject = inject
	cfg := DefaultConfig()
	newDet := func() *Detector {
		d, err := New(f.topo, cfg)
		if err != nil {
			tb.Fatal(err)
		}
		return d
	}
	det := newDet()
	res := soakResult{raisedRound: map[string]int{}, stats: soakStats{pendingRounds: map[Code]int{}}}
	var saved []byte
	for r := 1; r <= rounds; r++ {
		readings := f.step()
		switch {
		case r == restartWith: // the agent stops, saving its state…
			b, err := json.Marshal(det.State())
			if err != nil {
				tb.Fatal(err)
			}
			saved = b
			for _, fd := range det.Active() {
				res.activeAtRestart = append(res.activeAtRestart, string(fd.Code)+" "+fd.Subject.String())
			}
			continue
		case r > restartWith && r < restartWith+3: // …is down for 30 s…
			continue
		case r == restartWith+3: // …and starts again from it.
			var st State
			if err := json.Unmarshal(saved, &st); err != nil {
				tb.Fatal(err)
			}
			det = newDet()
			if err := det.Restore(&st); err != nil {
				tb.Fatal(err)
			}
		case r == restartWithout: // a restart that lost its state
			det = newDet()
		}
		rep := det.Observe(readings)
		res.stats.rounds++
		for _, rs := range rep.Readings {
			res.stats.readings++
			res.stats.resets += rs.Resets
			res.stats.wraps += rs.Wraps
			res.stats.ambiguous += rs.Ambiguous
			if rs.Gap {
				res.stats.gaps++
			}
			if rs.State == ReadingStale {
				res.stats.stale++
			}
		}
		for _, e := range det.edges {
			res.stats.maxPaused = max(res.stats.maxPaused, e.frac)
		}
		for _, e := range det.findings {
			if !e.active && e.hitRound == det.round {
				res.stats.pendingRounds[e.f.Code]++
				if e.f.Code == CodePausePropagation {
					res.stats.twoHopRounds++
				}
			}
		}
		for _, fd := range rep.Raised {
			res.raised = append(res.raised, fd)
			k := string(fd.Code) + " " + fd.Subject.String()
			if _, ok := res.raisedRound[k]; !ok {
				res.raisedRound[k] = r
			}
		}
		res.cleared = append(res.cleared, rep.Cleared...)
	}
	return res
}

func soakSeeds(t *testing.T) (seeds []uint64, hours float64) {
	n, hours := 20, 6.0
	if testing.Short() {
		n, hours = 3, 2
	}
	if v := os.Getenv("ROCEFAB_SOAK_SEEDS"); v != "" {
		if x, err := strconv.Atoi(v); err == nil && x > 0 {
			n = x
		}
	}
	for i := range n {
		seeds = append(seeds, uint64(i+1))
	}
	return seeds, hours
}

// TestHealthySoakIsSilent: hours of a healthy fabric, with pause bursts,
// congestion marks, one-off retransmissions and every counter event, give
// no finding, on every seed.
func TestHealthySoakIsSilent(t *testing.T) {
	seeds, hours := soakSeeds(t)
	rounds := int(hours * 360)
	var total soakStats
	total.pendingRounds = map[Code]int{}
	for _, seed := range seeds {
		res := soak(t, seed, rounds, nil)
		for _, f := range res.raised {
			t.Errorf("seed %d: %s", seed, f)
		}
		s := res.stats
		total.rounds += s.rounds
		total.readings += s.readings
		total.resets += s.resets
		total.wraps += s.wraps
		total.ambiguous += s.ambiguous
		total.gaps += s.gaps
		total.stale += s.stale
		total.twoHopRounds += s.twoHopRounds
		total.maxPaused = max(total.maxPaused, s.maxPaused)
		for c, n := range s.pendingRounds {
			total.pendingRounds[c] += n
		}
	}
	t.Logf("%d seeds × %.0f h: %d rounds, %d readings; %d resets, %d wraps, %d ambiguous 32-bit steps, %d gap readings, %d stale; "+
		"most paused port %.0f%%; pending but never raised: %v", len(seeds), hours, total.rounds, total.readings, total.resets,
		total.wraps, total.ambiguous, total.gaps, total.stale, 100*total.maxPaused, total.pendingRounds)
	// The run must exercise what it claims to: counter events, and
	// conditions that approach the thresholds without holding.
	if total.resets == 0 || total.wraps == 0 || total.ambiguous == 0 || total.gaps == 0 || total.stale == 0 {
		t.Errorf("the counter events did not all happen: %+v", total)
	}
	if total.maxPaused < 0.3 || total.pendingRounds[CodePausePropagation] == 0 || total.pendingRounds[CodeRetransmits] == 0 {
		t.Errorf("the healthy bursts never came near a threshold: %+v", total)
	}
}

// injection is one anomaly played into the healthy run from round from to
// round to, and what it must raise.
type injection struct {
	name    string
	code    Code
	subject string
	play    func(f *soakFabric)
	once    bool // played in round from only
}

func soakInjections() []injection {
	return []injection{
		{"a NIC's pause holds its leaf port", CodePFCStorm, "leaf7 Ethernet24 priority 3",
			func(f *soakFabric) { f.forcePause("leaf7", "Ethernet24", 0.97) }, false},
		{"a watchdog trip", CodePFCStorm, "leaf1 Ethernet5 priority 3",
			func(f *soakFabric) { f.inc("leaf1", "Ethernet5").Prio[3].V[WatchdogStorms]++ }, true},
		{"pause spreading three hops from a host", CodePausePropagation, "gpu020 priority 3",
			func(f *soakFabric) {
				f.forcePause("leaf3", "Ethernet4", 0.6)
				f.forcePause("spine1", "Ethernet1/3", 0.45)
				f.forcePause("leaf5", "Ethernet248", 0.3)
			}, false},
		{"drops on the lossless queue", CodeLosslessDrop, "leaf2 Ethernet3 priority 3",
			func(f *soakFabric) { f.inc("leaf2", "Ethernet3").Prio[3].V[Drops] += 5 }, false},
		{"drops on the CNP queue", CodeCNPDrop, "spine1 Ethernet1/4 priority 6",
			func(f *soakFabric) { f.inc("spine1", "Ethernet1/4").Prio[6].V[Drops] += 20 }, false},
		{"notification point off", CodeECNWithoutCNP, "gpu033 ens1f0np0",
			func(f *soakFabric) {
				pc := f.inc("gpu033", "ens1f0np0")
				pc.Port.V[CEReceived] += 20_000
				pc.Port.V[CNPSent] = 0
			}, false},
		{"reaction point off", CodeCNPIgnored, "gpu040 ens1f0np0",
			func(f *soakFabric) {
				pc := f.inc("gpu040", "ens1f0np0")
				pc.Port.V[CNPIgnored] += max(2_000, pc.Port.V[CNPHandled])
				pc.Port.V[CNPHandled] = 0
			}, false},
		{"RoCE sent on priority 0", CodeWrongQueue, "gpu045 ens1f0np0",
			func(f *soakFabric) {
				pc := f.inc("gpu045", "ens1f0np0")
				pc.Port.V[RoCETxPackets] += 5_000_000 // the job keeps sending
				pc.Prio[0].V[TxPackets] += pc.Prio[3].V[TxPackets] + 5_000_000
				pc.Prio[3].V[TxPackets] = 0
			}, false},
		{"retransmissions growing", CodeRetransmits, "gpu060 ens1f0np0",
			func(f *soakFabric) {
				pc := f.inc("gpu060", "ens1f0np0")
				pc.Port.V[OutOfSequence] += 50
				pc.Port.V[PacketSeqErr] += 10
			}, false},
	}
}

// forcePause holds a port paused by its neighbour at frac this round.
func (f *soakFabric) forcePause(dev, port string, frac float64) {
	di := f.topo.byName[dev]
	k := [2]int32{di, f.topo.devs[di].byPort[port]}
	extra := frac - f.paused[k]
	if extra <= 0 {
		return
	}
	us := uint64(extra * float64(el.Microseconds()))
	frames := uint64(extra * el.Seconds() / (soakQuantum(&f.topo.devs[di]) / 2))
	pc := f.inc(dev, port)
	pc.Prio[3].V[PauseRxMicros] += us
	pc.Prio[3].V[PauseRx] += frames
	if peer, ok := f.topo.Peer(dev, port); ok {
		pp := f.inc(peer.Device, peer.Port)
		pp.Prio[3].V[PauseTxMicros] += us
		pp.Prio[3].V[PauseTx] += frames
	}
	f.paused[k] = frac
}

// TestSoakMutations: the same healthy run with one anomaly injected for
// five minutes raises exactly that detector, on that subject, within its
// sustain time, and clears it after the anomaly ends.
func TestSoakMutations(t *testing.T) {
	// The agent restarts with its state just after the anomaly ends (the
	// finding must survive it) and without state long after it cleared.
	const from, to, rounds = 300, 330, 900
	seed := uint64(7)
	if base := soak(t, seed, rounds, nil); len(base.raised) > 0 {
		t.Fatalf("the base run is not silent: %v", base.raised)
	}
	for _, inj := range soakInjections() {
		t.Run(inj.name, func(t *testing.T) {
			end := to
			if inj.once {
				end = from + 1
			}
			res := soakWith(t, seed, rounds, func(f *soakFabric) {
				if f.round >= from && f.round < end {
					inj.play(f)
				}
			}, end+2, rounds*4/5)
			want := string(inj.code) + " " + inj.subject
			if !slices.Equal(res.activeAtRestart, []string{want}) {
				t.Errorf("active when the agent restarted: %q, want %q", res.activeAtRestart, want)
			}
			if len(res.raised) != 1 {
				t.Fatalf("raised %d findings, want exactly %q: %v", len(res.raised), want, res.raised)
			}
			got := res.raised[0]
			if string(got.Code)+" "+got.Subject.String() != want {
				t.Fatalf("raised %s, want %q", got, want)
			}
			hold := DefaultConfig().hold(inj.code)
			latest := from + int(math.Ceil(hold.For.Seconds()/el.Seconds())) + 2 // jitter and a missed read
			if r := res.raisedRound[want]; r < from || r > latest {
				t.Errorf("raised in round %d, want %d–%d", r, from, latest)
			}
			if len(res.cleared) != 1 || res.cleared[0].Cleared.Before(got.LastSeen) {
				t.Errorf("cleared %v after the anomaly ended", res.cleared)
			}
			t.Logf("round %d: %s", res.raisedRound[want], got)
		})
	}
}
