package headroom

import (
	"fmt"
	"math"
	"sort"
	"strconv"
)

// Constants of the delay model, as SONiC's calculation uses them.
const (
	// SignalSpeed is the propagation speed in a cable, m/s: about two
	// thirds of light, 5.05 ns per metre each way.
	SignalSpeed = 198_000_000
	// MinPacket is the smallest Ethernet frame, the worst case for cells.
	MinPacket = 64
	// QuantumBits is one pause quantum: 512 bit times (IEEE 802.3 31B).
	QuantumBits = 512
	// DefaultSmallPacketPercent is SONiC's LOSSLESS_TRAFFIC_PATTERN default
	// (files/build_templates/buffers_config.j2): half the lossless packets
	// are 64-byte ones.
	DefaultSmallPacketPercent = 50
	// GenericMACPHYDelay is the MAC/PHY delay, in bytes, used for an ASIC
	// that publishes none: 0.8 KB, the figure of every ASIC in SONiC's
	// published ASIC_TABLEs (Spectrum-1..6, Tofino-2).
	GenericMACPHYDelay = 0.8 * 1024
	// roundTo is SONiC's rounding of xoff, xon and size.
	roundTo = 1024
	// compensation is SONiC's 2 KiB added when a partial small-packet
	// pattern leaves xoff more than 2 KiB below the all-small worst case.
	compensation = 2 * 1024
)

// pauseQuanta is the pause reaction time per port speed (Mb/s) in pause
// quanta, IEEE 802.3 Annex 31B.3.7, as SONiC's buffer_headroom_mellanox.lua
// tabulates it.
var pauseQuanta = map[int]int{
	800000: 905,
	400000: 905,
	200000: 453,
	100000: 394,
	50000:  147,
	40000:  118,
	25000:  80,
	10000:  67,
	1000:   2,
	100:    1,
}

// Speeds lists the port speeds (Mb/s) the model has a response time for.
func Speeds() []int {
	out := make([]int, 0, len(pauseQuanta))
	for s := range pauseQuanta {
		out = append(out, s)
	}
	sort.Ints(out)
	return out
}

// Inputs are what one lossless port's headroom depends on.
type Inputs struct {
	// SpeedMbps is the port speed in Mb/s (100000 for 100G).
	SpeedMbps int
	// CableMeters is the cable length.
	CableMeters int
	// PortFrame is the largest frame this port may be transmitting when it
	// wants to send PAUSE, in bytes: it delays the PFC frame.
	PortFrame int
	// PeerFrame is the largest lossless frame the peer may have begun when
	// PAUSE reaches it, in bytes.
	PeerFrame int
	// SmallPacketPercent is the share of 64-byte packets in the lossless
	// traffic, 0..100; 0 means DefaultSmallPacketPercent.
	SmallPacketPercent int
	// Lanes is the port's SerDes lane count; 8-lane ports have twice the
	// pipeline latency and one more port frame (SONiC). 0: unknown.
	Lanes int
	// SharedHeadroomPool: the ASIC pools xoff; size holds xon only.
	SharedHeadroomPool bool
	ASIC               ASIC
}

// Result is the headroom one lossless port needs, in bytes, with the terms
// it is made of.
type Result struct {
	// Xoff is the headroom above the pause point: what still arrives after
	// the port sends PAUSE. An explicit xoff must be at least this.
	Xoff uint64
	// Xon is the reserved buffer below the pause point (pipeline latency);
	// 0 when the ASIC publishes none.
	Xon uint64
	// Size is the buffer reserved per lossless priority group.
	Size uint64

	Cable       float64 // bytes on the cable, both directions
	Response    float64 // the peer's pause reaction, bytes
	Interface   float64 // MAC/PHY delay, bytes
	Propagation float64 // port frame + cable + interface + response (+ tile)
	Occupancy   float64 // cell occupancy factor
}

// Compute returns the headroom for one port. It fails on inputs the model
// has no figure for (a speed without an IEEE response time, no frames).
func Compute(in Inputs) (Result, error) {
	var r Result
	quanta, ok := pauseQuanta[in.SpeedMbps]
	if !ok {
		return r, fmt.Errorf("no IEEE 802.3 pause reaction time for %s (known: %s)", SpeedText(in.SpeedMbps), speedList())
	}
	if in.CableMeters < 0 {
		return r, fmt.Errorf("cable length %d m is negative", in.CableMeters)
	}
	if in.PortFrame <= 0 || in.PeerFrame <= 0 {
		return r, fmt.Errorf("frame sizes must be positive (port %d B, peer %d B)", in.PortFrame, in.PeerFrame)
	}
	small := in.SmallPacketPercent
	if small == 0 {
		small = DefaultSmallPacketPercent
	}
	if small < 0 || small > 100 {
		return r, fmt.Errorf("small-packet share %d %% is outside 0..100", small)
	}
	a := in.ASIC
	speed := float64(in.SpeedMbps)
	pipeline := float64(a.PipelineLatency)
	overhead := 0.0
	if in.Lanes == 8 {
		pipeline *= 2
		overhead = float64(in.PortFrame)
	}
	r.Interface = a.macPHY()
	r.Response = float64(quanta) * QuantumBits / 8
	r.Cable = 2 * float64(in.CableMeters) * speed * 1e6 / SignalSpeed / 8
	tile := speed / 1000 * a.TileBytesPerGbps
	r.Propagation = float64(in.PortFrame) + r.Cable + r.Interface + r.Response + tile

	worst := 1.0
	if a.CellSize > 0 {
		cell := float64(a.CellSize)
		if cell > 2*MinPacket {
			worst = cell / MinPacket
		} else {
			worst = 2 * cell / (1 + cell)
		}
		worst = math.Ceil(worst)
	}
	peer := float64(in.PeerFrame)
	smallByByte := 100 * MinPacket / ((float64(small)*MinPacket + float64(100-small)*peer) / 100)
	r.Occupancy = (100 - smallByByte + smallByByte*worst) / 100

	xoff := ceilTo(peer + r.Propagation*r.Occupancy)
	xoff += float64(a.XoffCompensation)
	if !in.SharedHeadroomPool && small != 100 {
		full := ceilTo(peer + r.Propagation*worst)
		if xoff+compensation < full {
			xoff += compensation
		}
	}
	xon := ceilTo(pipeline)
	size := xoff + xon + overhead
	if in.SharedHeadroomPool {
		size = xon
	}
	r.Xoff, r.Xon, r.Size = uint64(xoff), uint64(xon), uint64(ceilTo(size))
	return r, nil
}

func ceilTo(v float64) float64 { return math.Ceil(v/roundTo) * roundTo }

// SpeedText writes a speed in Mb/s the way ports are named: 100G, 2.5G,
// 100M.
func SpeedText(mbps int) string {
	switch {
	case mbps >= 1000000 && mbps%100000 == 0:
		return strconv.FormatFloat(float64(mbps)/1e6, 'f', -1, 64) + "T"
	case mbps >= 1000:
		return strconv.FormatFloat(float64(mbps)/1000, 'f', -1, 64) + "G"
	default:
		return strconv.Itoa(mbps) + "M"
	}
}

func speedList() string {
	s := ""
	for i, v := range Speeds() {
		if i > 0 {
			s += ", "
		}
		s += SpeedText(v)
	}
	return s
}
