package telemetry

import "math/bits"

// NumPriorities is the number of IEEE 802.1p priorities (and of the switch
// queues they map to one to one).
const NumPriorities = 8

// PrioMetric is a counter kept per port and priority. On switches a
// priority's queue is the traffic class of the same number, which is how
// rocefab renders every platform.
type PrioMetric uint8

// Per-priority counters. The names a collector uses for them are listed
// in names.go.
const (
	// PauseRx: PFC pause frames received, i.e. the neighbour asked this
	// port to stop sending on the priority.
	PauseRx PrioMetric = iota
	// PauseTx: PFC pause frames sent to the neighbour.
	PauseTx
	// PauseRxMicros: time this port was paused on the priority, in µs
	// (SAI_PORT_STAT_PFC_n_RX_PAUSE_DURATION_US, mlx5 rx_prioN_pause_duration).
	PauseRxMicros
	// PauseTxMicros: time this port paused its neighbour, in µs.
	PauseTxMicros
	// WatchdogStorms: PFC watchdog storm (deadlock) detections on the
	// priority's queue.
	WatchdogStorms
	// Drops: switch egress queue drops; on a NIC the priority's receive
	// discards (mlx5 rx_prioN_discards).
	Drops
	// PGDrops: switch ingress priority-group drops (headroom overflow); on
	// a NIC the per-host buffer and congestion discards.
	PGDrops
	// ECNMarked: packets ECN-marked on the queue; on a NIC the priority's
	// marked receive packets (mlx5 rx_prioN_marked).
	ECNMarked
	// TxPackets: packets sent on the priority (switch queue, NIC
	// tx_prioN_packets).
	TxPackets
	// RxPackets: packets received on the priority (switch ingress priority
	// group, NIC rx_prioN_packets).
	RxPackets
	NumPrioMetrics
)

// PortMetric is a counter kept per port: the RDMA counters of a host NIC.
type PortMetric uint8

// Per-port counters (host NICs; mlx5 hw_counters and ethtool names in
// names.go).
const (
	// CEReceived: CE-marked RoCE packets received by the notification
	// point (np_ecn_marked_roce_packets).
	CEReceived PortMetric = iota
	// CNPSent: CNPs sent by the notification point in answer to CE
	// marks (np_cnp_sent).
	CNPSent
	// CNPHandled: CNPs the reaction point acted on (rp_cnp_handled).
	CNPHandled
	// CNPIgnored: CNPs received and ignored by the reaction point
	// (rp_cnp_ignored).
	CNPIgnored
	// OutOfSequence: out-of-sequence packets received (out_of_sequence).
	OutOfSequence
	// PacketSeqErr: NAK sequence errors received (packet_seq_err).
	PacketSeqErr
	// LocalAckTimeout: ACK timer expiries at the sender, each a
	// retransmission (local_ack_timeout_err).
	LocalAckTimeout
	// RoCETxPackets: RDMA packets sent (mlx5 tx_vport_rdma_unicast_packets).
	RoCETxPackets
	// RoCERxPackets: RDMA packets received (rx_vport_rdma_unicast_packets).
	RoCERxPackets
	// StormWarnings: the NIC's pause-storm guard saw it pausing for long
	// (mlx5 tx_pause_storm_warning_events).
	StormWarnings
	// StormErrors: the guard stopped the NIC's pause frames
	// (tx_pause_storm_error_events).
	StormErrors
	NumPortMetrics
)

// PrioSet and PortSet are sets of metrics, one bit each.
type (
	PrioSet uint16
	PortSet uint16
)

// Has reports whether m is in the set.
func (s PrioSet) Has(m PrioMetric) bool { return s&(1<<m) != 0 }

// Has reports whether m is in the set.
func (s PortSet) Has(m PortMetric) bool { return s&(1<<m) != 0 }

// Len is the number of metrics in the set.
func (s PrioSet) Len() int { return bits.OnesCount16(uint16(s)) }

// Len is the number of metrics in the set.
func (s PortSet) Len() int { return bits.OnesCount16(uint16(s)) }

// PrioSetOf builds a set of per-priority metrics.
func PrioSetOf(ms ...PrioMetric) PrioSet {
	var s PrioSet
	for _, m := range ms {
		s |= 1 << m
	}
	return s
}

// PortSetOf builds a set of per-port metrics.
func PortSetOf(ms ...PortMetric) PortSet {
	var s PortSet
	for _, m := range ms {
		s |= 1 << m
	}
	return s
}

var prioNames = [NumPrioMetrics]string{
	"pause_rx", "pause_tx", "pause_rx_us", "pause_tx_us", "watchdog_storms",
	"drops", "pg_drops", "ecn_marked", "tx_packets", "rx_packets",
}

var portNames = [NumPortMetrics]string{
	"ce_received", "cnp_sent", "cnp_handled", "cnp_ignored", "out_of_sequence",
	"packet_seq_err", "local_ack_timeout_err", "roce_tx_packets", "roce_rx_packets",
	"pause_storm_warnings", "pause_storm_errors",
}

func (m PrioMetric) String() string {
	if m < NumPrioMetrics {
		return prioNames[m]
	}
	return "prio_metric_invalid"
}

func (m PortMetric) String() string {
	if m < NumPortMetrics {
		return portNames[m]
	}
	return "port_metric_invalid"
}

// kind says what a counter counts, which bounds how fast it can grow.
type kind uint8

const (
	kindPackets kind = iota // bounded by the line rate in minimum frames
	kindFrames              // pause frames
	kindMicros              // pause time
	kindEvents              // watchdog and storm-guard events
)

var prioKinds = [NumPrioMetrics]kind{
	PauseRx: kindFrames, PauseTx: kindFrames, PauseRxMicros: kindMicros, PauseTxMicros: kindMicros,
	WatchdogStorms: kindEvents, Drops: kindPackets, PGDrops: kindPackets, ECNMarked: kindPackets,
	TxPackets: kindPackets, RxPackets: kindPackets,
}

var portKinds = [NumPortMetrics]kind{
	CEReceived: kindPackets, CNPSent: kindPackets, CNPHandled: kindPackets, CNPIgnored: kindPackets,
	OutOfSequence: kindPackets, PacketSeqErr: kindPackets, LocalAckTimeout: kindPackets,
	RoCETxPackets: kindPackets, RoCERxPackets: kindPackets, StormWarnings: kindEvents, StormErrors: kindEvents,
}

// Growth ceilings, per second, used to tell a wrap from a reset and to
// reject impossible jumps. They are ceilings, not expectations.
const (
	// A port cannot be paused for more than the elapsed time; 1 % slack
	// covers the two clocks (device counter vs. sample stamp).
	maxMicrosPerSecond = 1.01e6
	// A PFC sender refreshes a pause at most every few quanta (one quantum
	// is 512 bit times, IEEE 802.1Qbb); a million frames a second per
	// priority is far above any real sender and still small against 2^32.
	maxFramesPerSecond = 1e6
	maxEventsPerSecond = 1e3
	// minFrameBits is a minimum Ethernet frame on the wire: 64 bytes plus
	// 8 of preamble and 12 of inter-frame gap.
	minFrameBits = 84 * 8
)

// ceiling is the fastest a counter of kind k can grow on a port of speed
// bits/s.
func ceiling(k kind, speed float64) float64 {
	switch k {
	case kindFrames:
		return maxFramesPerSecond
	case kindMicros:
		return maxMicrosPerSecond
	case kindEvents:
		return maxEventsPerSecond
	}
	return speed / minFrameBits
}
