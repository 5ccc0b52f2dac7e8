package telemetry

import (
	"strconv"
	"strings"
	"time"
)

// NamedSample is a counter as the collectors name it: a port (a switch
// interface, a host netdev, or an RDMA port "mlx5_0/1") and a counter name
// in the doctor/counters convention.
type NamedSample struct {
	Port    string
	Counter string
	Value   uint64
	// Taken is when the device sampled it, where it stamps counters apart;
	// zero: the reading's moment. A port's is its newest counter's.
	Taken time.Time
}

// Counter names the adapter reads. Switch counters (one per priority or
// queue N):
//
//	pfcN/rx-pause, pfcN/tx-pause          PFC frames     → PauseRx, PauseTx
//	pfcN/rx-pause-us, pfcN/tx-pause-us    pause time µs  → PauseRxMicros, PauseTxMicros
//	pfcN/watchdog-storms                  watchdog       → WatchdogStorms
//	queueN/drops, queueN/tx-packets       egress queue   → Drops, TxPackets
//	queueN/ecn-marked                     WRED ECN marks → ECNMarked
//	pgN/drops, pgN/rx-packets             ingress PG     → PGDrops, RxPackets
//
// Host NIC counters, by the mlx5 names (Linux
// Documentation/networking/device_drivers/ethernet/mellanox/mlx5/counters.rst
// and the RDMA hw_counters):
//
//	ethtool/{rx,tx}_prioN_pause[_duration]             → PauseRx/Tx[Micros]
//	ethtool/rx_prioN_discards                          → Drops
//	ethtool/rx_prioN_buf_discard, rx_prioN_cong_discard → PGDrops (summed)
//	ethtool/rx_prioN_marked                            → ECNMarked
//	ethtool/{tx,rx}_prioN_packets                      → TxPackets, RxPackets
//	ethtool/{tx,rx}_vport_rdma_unicast_packets         → RoCETxPackets, RoCERxPackets
//	ethtool/tx_pause_storm_{warning,error}_events      → StormWarnings, StormErrors
//	hw_counters/np_ecn_marked_roce_packets, np_cnp_sent, rp_cnp_handled,
//	rp_cnp_ignored, out_of_sequence, packet_seq_err, local_ack_timeout_err
//
// Anything else is ignored.
var (
	switchPrio = map[string]map[string]PrioMetric{
		"pfc":   {"rx-pause": PauseRx, "tx-pause": PauseTx, "rx-pause-us": PauseRxMicros, "tx-pause-us": PauseTxMicros, "watchdog-storms": WatchdogStorms},
		"queue": {"drops": Drops, "tx-packets": TxPackets, "ecn-marked": ECNMarked},
		"pg":    {"drops": PGDrops, "rx-packets": RxPackets},
	}
	ethtoolPrio = map[string]PrioMetric{
		"rx_pause": PauseRx, "tx_pause": PauseTx, "rx_pause_duration": PauseRxMicros, "tx_pause_duration": PauseTxMicros,
		"rx_discards": Drops, "rx_buf_discard": PGDrops, "rx_cong_discard": PGDrops, "rx_marked": ECNMarked,
		"tx_packets": TxPackets, "rx_packets": RxPackets,
	}
	portNamed = map[string]PortMetric{
		"ethtool/tx_vport_rdma_unicast_packets": RoCETxPackets, "ethtool/rx_vport_rdma_unicast_packets": RoCERxPackets,
		"ethtool/tx_pause_storm_warning_events": StormWarnings, "ethtool/tx_pause_storm_error_events": StormErrors,
		"hw_counters/np_ecn_marked_roce_packets": CEReceived, "hw_counters/np_cnp_sent": CNPSent,
		"hw_counters/rp_cnp_handled": CNPHandled, "hw_counters/rp_cnp_ignored": CNPIgnored,
		"hw_counters/out_of_sequence": OutOfSequence, "hw_counters/packet_seq_err": PacketSeqErr,
		"hw_counters/local_ack_timeout_err": LocalAckTimeout,
	}
)

// parseName maps a counter name to a metric: per priority (prio ≥ 0) or
// per port (prio -1). ok is false for counters the detectors do not use.
func parseName(counter string) (prio int, pm PrioMetric, nm PortMetric, ok bool) {
	if m, found := portNamed[counter]; found {
		return -1, 0, m, true
	}
	if rest, found := strings.CutPrefix(counter, "ethtool/"); found {
		// rx_prio3_pause_duration → "rx_" + "3" + "_pause_duration"
		dir, tail, found := strings.Cut(rest, "_prio")
		if !found || len(tail) < 2 || tail[0] < '0' || tail[0] > '7' || tail[1] != '_' {
			return 0, 0, 0, false
		}
		m, found := ethtoolPrio[dir+tail[1:]]
		return int(tail[0] - '0'), m, 0, found
	}
	head, what, found := strings.Cut(counter, "/")
	if !found || len(head) < 2 {
		return 0, 0, 0, false
	}
	n, err := strconv.Atoi(head[len(head)-1:])
	if err != nil || n > 7 {
		return 0, 0, 0, false
	}
	m, found := switchPrio[head[:len(head)-1]][what]
	return n, m, 0, found
}

// ReadingFrom builds a device's reading from named samples. A host's
// RDMA-port counters ("mlx5_0/1") join the NIC that port belongs to. It
// returns the samples it could not place (unknown ports); counter names the
// detectors do not read are skipped silently. Every counter is taken as
// 64-bit; a caller whose source reads 32-bit ones sets Reading.Narrow.
func (t *Topology) ReadingFrom(device string, taken time.Time, samples []NamedSample) (Reading, []NamedSample) {
	r := Reading{Device: device, Taken: taken}
	di, ok := t.byName[device]
	if !ok {
		return r, samples
	}
	dev := &t.devs[di]
	at := map[int32]int{} // port index -> position in r.Ports
	var unplaced []NamedSample
	for _, s := range samples {
		prio, pm, nm, ok := parseName(s.Counter)
		if !ok {
			continue
		}
		pi, found := dev.byPort[s.Port]
		if !found {
			pi, found = dev.byRDMA[s.Port]
		}
		if !found {
			unplaced = append(unplaced, s)
			continue
		}
		i, seen := at[pi]
		if !seen {
			i = len(r.Ports)
			at[pi] = i
			r.Ports = append(r.Ports, PortCounters{Name: dev.ports[pi].name})
		}
		pc := &r.Ports[i]
		if s.Taken.After(pc.Taken) {
			pc.Taken = s.Taken
		}
		switch {
		case prio < 0:
			pc.SetPort(nm, s.Value)
		case pm == PGDrops && dev.host:
			pc.Add(prio, pm, s.Value) // buffer and congestion discards together
		default:
			pc.Set(prio, pm, s.Value)
		}
	}
	return r, unplaced
}
