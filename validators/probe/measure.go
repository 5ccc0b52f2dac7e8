package probe

import (
	"math"
	"slices"
)

// PacketKind is the kind of packet a measurement or finding is about.
type PacketKind string

// Packet kinds. Forward packets are data (SEND and READ requests); the
// reverse direction carries ACKs, READ responses and CNPs.
const (
	KindData         PacketKind = "data"
	KindACK          PacketKind = "ACK"
	KindReadResponse PacketKind = "READ response"
	KindCNP          PacketKind = "CNP"
)

// plural names packets of the kind in a sentence: "3.1% of ACKs lost".
func (k PacketKind) plural() string {
	switch k {
	case KindData:
		return "data packets"
	case "":
		return "replies"
	}
	return string(k) + "s"
}

// FlowStats is what one flow (one UDP source port) carried of one kind of
// packet in one direction. Forward flows are named by the sender's source
// ports, reverse flows by the responder's.
type FlowStats struct {
	SrcPort      uint16        `json:"srcPort"`
	Kind         PacketKind    `json:"kind"`
	Sent         int           `json:"sent"`
	Received     int           `json:"received"`
	ICRCErrors   int           `json:"icrcErrors,omitempty"`
	DSCPReceived map[uint8]int `json:"dscpReceived"`
	ECNReceived  map[ECN]int   `json:"ecnReceived"`
}

// FlowMTU is the MTU sweep's result on one flow in one direction.
type FlowMTU struct {
	Direction string `json:"direction"`
	// SrcPort is the flow's UDP source port: the sender's forward, the
	// responder's reverse (0: no reply on this flow ever arrived).
	SrcPort uint16 `json:"srcPort"`
	// PathMTU is the largest IP packet that crossed on this flow.
	PathMTU int `json:"pathMTU"`
	// Lost is the smallest size above PathMTU that did not cross (0: none).
	Lost int `json:"lost,omitempty"`
	// Confirmed: Lost was lost again in a confirmation round that waited
	// the full reply timeout while PathMTU crossed in the same round, on the
	// same flow. Only a confirmed loss is a black hole.
	Confirmed bool `json:"confirmed,omitempty"`
}

// Direction is what one direction of a pair carried: forward is requests
// (sender → responder, as the responder reported them through the stats
// exchange), reverse is ACKs and READ responses coming back.
type Direction struct {
	Sent         int           `json:"sent"`
	Received     int           `json:"received"`
	LossPercent  float64       `json:"lossPercent"`
	Reordered    int           `json:"reordered"`
	Duplicates   int           `json:"duplicates"`
	ICRCErrors   int           `json:"icrcErrors"`
	DSCPSent     uint8         `json:"dscpSent"`
	DSCPReceived map[uint8]int `json:"dscpReceived"`
	ECNSent      ECN           `json:"ecnSent"`
	ECNReceived  map[ECN]int   `json:"ecnReceived"`
	CEMarked     int           `json:"ceMarked"`
	CEFraction   float64       `json:"ceFraction"`
	// PerFlow breaks the direction down by flow and packet kind (reverse:
	// ACK, READ response and CNP; CNPs are not in the aggregates above).
	PerFlow []FlowStats `json:"perFlow,omitempty"`
	// FlowsComplete: both ends' per-flow counts are known, so per-flow loss
	// can be judged (the responder reported its flows).
	FlowsComplete bool `json:"flowsComplete,omitempty"`
}

// RTT summarises round-trip times in microseconds.
type RTT struct {
	Samples int     `json:"samples"`
	Min     float64 `json:"min"`
	Mean    float64 `json:"mean"`
	P50     float64 `json:"p50"`
	P90     float64 `json:"p90"`
	P99     float64 `json:"p99"`
	P999    float64 `json:"p99.9"`
	Max     float64 `json:"max"`
	// Clock says how receive times were taken: "kernel" (SO_TIMESTAMPNS)
	// or "user".
	Clock string `json:"clock,omitempty"`
}

// SizeProbe is one MTU sweep point: whether IP packets of this size crossed
// in a direction (forward: SENDs; reverse: READ responses) on every flow it
// was tried on.
type SizeProbe struct {
	Size      int    `json:"size"`
	Direction string `json:"direction"`
	Passed    bool   `json:"passed"`
	// Flows is how many flows carried the size; LostOn names those it
	// never crossed on by UDP source port (0: a reverse flow never seen).
	Flows  int      `json:"flows,omitempty"`
	LostOn []uint16 `json:"lostOn,omitempty"`
}

// Measurements is everything measured for one pair. The embedded Direction
// is the forward direction.
type Measurements struct {
	// Reachable is false when nothing came back from the responder.
	Reachable bool `json:"reachable"`
	// Error explains a pair that could not be probed at all.
	Error string `json:"error,omitempty"`
	// Silence is what tracing the path showed when nothing answered.
	Silence *Silence `json:"silence,omitempty"`
	// StatsExchanged is true when the responder reported what it saw.
	StatsExchanged bool   `json:"statsExchanged"`
	StatsError     string `json:"statsError,omitempty"`
	// StatsVersionMismatch: the responder speaks another stats version.
	StatsVersionMismatch bool `json:"statsVersionMismatch,omitempty"`
	Flows                int  `json:"flows"`
	RTT                  RTT  `json:"rttMicros"`
	Direction
	Reverse Direction `json:"reverse"`
	// RoundTripLossPercent counts AckReq packets without their own reply;
	// it is the only loss figure when the stats exchange failed.
	RoundTripLossPercent float64 `json:"roundTripLossPercent"`
	NAKsReceived         int     `json:"naksReceived"`
	CNPsSent             int     `json:"cnpsSent"` // by the responder
	CNPsRateLimited      int     `json:"cnpsRateLimited"`
	CNPsReceived         int     `json:"cnpsReceived"`
	CNPDSCPSent          uint8   `json:"cnpDSCPSent"`
	// CNPDSCPReceived histograms the DSCP of arriving CNPs.
	CNPDSCPReceived    map[uint8]int `json:"cnpDSCPReceived,omitempty"`
	RepliesRateLimited int           `json:"repliesRateLimited"`
	// PathMTU is the largest IP packet that crossed sender → responder;
	// PathMTUReverse the other way. 0 means not measured.
	PathMTU        int         `json:"pathMTU"`
	PathMTUReverse int         `json:"pathMTUReverse"`
	IntentMTU      int         `json:"intentMTU"`
	IPOverhead     int         `json:"ipOverhead"` // IP+UDP header bytes (28 or 48)
	MTUProbes      []SizeProbe `json:"mtuProbes,omitempty"`
	// MTUByFlow is the sweep's result per flow and direction.
	MTUByFlow []FlowMTU `json:"mtuByFlow,omitempty"`
	// MTUError says why the MTU sweep did not run or could not finish.
	MTUError      string `json:"mtuError,omitempty"`
	ElapsedMillis int64  `json:"elapsedMillis"`
	// Port is the UDP port probed; 0 in reports from before it was
	// recorded means the RoCEv2 default.
	Port uint16 `json:"port,omitempty"`
}

// summarizeRTT computes percentiles (nearest rank) in microseconds.
func summarizeRTT(ns []int64, kernel, user int) RTT {
	if len(ns) == 0 {
		return RTT{}
	}
	s := slices.Clone(ns)
	slices.Sort(s)
	var sum float64
	for _, v := range s {
		sum += float64(v)
	}
	pct := func(p float64) float64 {
		i := int(math.Ceil(p/100*float64(len(s)))) - 1
		return us(s[min(max(i, 0), len(s)-1)])
	}
	r := RTT{Samples: len(s), Min: us(s[0]), Mean: round3(sum / float64(len(s)) / 1e3),
		P50: pct(50), P90: pct(90), P99: pct(99), P999: pct(99.9), Max: us(s[len(s)-1])}
	switch {
	case kernel > 0 && user == 0:
		r.Clock = "kernel"
	case kernel == 0:
		r.Clock = "user"
	default:
		r.Clock = "mixed"
	}
	return r
}

func us(ns int64) float64 { return round3(float64(ns) / 1e3) }

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

func percent(part, whole int) float64 {
	if whole <= 0 || part <= 0 {
		return 0
	}
	return round3(100 * float64(part) / float64(whole))
}

func fraction(part, whole int) float64 {
	if whole <= 0 || part <= 0 {
		return 0
	}
	return math.Round(1e6*float64(part)/float64(whole)) / 1e6
}

func dscpHist(h []int) map[uint8]int {
	m := map[uint8]int{}
	for d, n := range h {
		if n > 0 {
			m[uint8(d)] = n
		}
	}
	return m
}

func ecnHist(h []int) map[ECN]int {
	m := map[ECN]int{}
	for e, n := range h {
		if n > 0 {
			m[ECN(e)] = n
		}
	}
	return m
}
