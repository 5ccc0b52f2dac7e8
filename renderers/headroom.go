package renderers

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/intent/headroom"
)

// HeadroomFacts are what a platform contributes to the headroom
// calculation (Attributes.Headroom).
type HeadroomFacts struct {
	// DefaultCableLength is the cable length, in meters, the platform
	// sizes headroom for when none is configured.
	DefaultCableLength int
	// DefaultCableSource cites it.
	DefaultCableSource string
	// RenderedAbove: the platform renders rocefab's computed headroom for
	// ports whose cable is longer than this many meters (NX-OS: 100); 0:
	// the platform sizes headroom itself.
	RenderedAbove int
	// RendersXoff: an explicit pfc.xoff is rendered, so lint checks it
	// against the computed minimum.
	RendersXoff bool
}

// GenericCableLength is the cable length assumed for a platform that
// declares none: the 100 m that NVUE, Junos and NX-OS size headroom for.
const GenericCableLength = 100

// FallbackSpeedMbps is the port speed assumed when neither the intent nor
// the ASIC's facts give one: 400G, which over-sizes slower ports (safe for
// what is rendered) and is what lint warns about.
const FallbackSpeedMbps = 400000

// FrameOverhead is what an Ethernet frame carries beyond its IP MTU:
// header 14, 802.1Q tag 4, FCS 4 bytes.
const FrameOverhead = 22

// jumbo is the largest IP MTU any platform renders for "max": a peer
// switch's MTU "max" is at most this.
const jumbo = 9216

// PortHeadroom is one lossless port's headroom and what it comes from.
type PortHeadroom struct {
	Port string
	// SpeedMbps is the speed used; SpeedAssumed says why it was assumed
	// ("" when written). SpeedAt is where the speed is (or would be) written.
	SpeedMbps    int
	SpeedAssumed string
	SpeedAt      intent.Loc
	// Length is the cable length used, in meters; LengthAssumed says why
	// it was assumed ("" when the link or pfc.cableLength writes it).
	Length        int
	LengthAssumed string
	LengthFrom    string // "the link" or "pfc.cableLength"
	LengthAt      intent.Loc
	// Cabled: a link of the intent ends at the port.
	Cabled bool
	// PortFrame and PeerFrame are the largest frames in flight each way.
	PortFrame, PeerFrame int
	Result               headroom.Result
	// Err is set when the model has no figure for the inputs.
	Err error
}

// Assumed reports whether speed or length was assumed.
func (p PortHeadroom) Assumed() bool { return p.SpeedAssumed != "" || p.LengthAssumed != "" }

// SwitchHeadroom is the headroom of every lossless port of one switch.
type SwitchHeadroom struct {
	ASIC headroom.ASIC
	// ASICFrom says how the chip was found: "asic", "model", or "" for the
	// generic facts.
	ASICFrom string
	// Priorities is the number of lossless priorities: each has its own
	// headroom on every port.
	Priorities int
	Ports      []PortHeadroom
}

// Total is the buffer the lossless ports reserve together: every port's
// size times the lossless priorities; an explicit pfc.xoff replaces the
// computed xoff in it. (pfc.headroom is not counted: on some ASICs it is
// the whole reservation, on others only a guaranteed minimum.) Ports
// without a figure count nothing.
func (h SwitchHeadroom) Total(p intent.Policy) uint64 {
	var t uint64
	for _, ph := range h.Ports {
		if ph.Err != nil {
			continue
		}
		size := ph.Result.Size
		if p.Xoff > 0 {
			size = size - ph.Result.Xoff + p.Xoff
		}
		t += size * uint64(h.Priorities)
	}
	return t
}

// SwitchASIC is the chip of a switch: its asic attribute when it names a
// known chip, else its model where a published mapping exists, else the
// generic facts.
func SwitchASIC(sw *intent.Switch) (headroom.ASIC, string) {
	if a, ok := headroom.Lookup(sw.ASIC); ok {
		return a, "asic"
	}
	if a, ok := headroom.ForModel(sw.Model); ok {
		return a, "model"
	}
	return headroom.Generic, ""
}

// Headroom computes the headroom of every lossless port of sw on a platform
// with the given facts and MTU ceiling. A switch without PFC has none.
func Headroom(sw *intent.Switch, facts *HeadroomFacts, ceiling int) SwitchHeadroom {
	p := sw.Policy
	asic, from := SwitchASIC(sw)
	h := SwitchHeadroom{ASIC: asic, ASICFrom: from, Priorities: len(p.PFCPriorities)}
	if !p.PFCOn() {
		return h
	}
	if ceiling <= 0 {
		ceiling = jumbo
	}
	defLen, defWhat := GenericCableLength, "no length, the usual platform default"
	if facts != nil && facts.DefaultCableLength > 0 {
		defLen, defWhat = facts.DefaultCableLength, "no length, the "+sw.Platform+" default"
	}
	assumedSpeed, assumedWhy := FallbackSpeedMbps, ", no ASIC fact to go by"
	if asic.MaxSpeedMbps > 0 {
		assumedSpeed, assumedWhy = asic.MaxSpeedMbps, ", the fastest "+asic.Name+" port"
	}
	portFrame := SwitchMTU(p, ceiling) + FrameOverhead
	h.Ports = make([]PortHeadroom, 0, len(sw.Ports))
	for _, port := range sw.Ports {
		ph := PortHeadroom{Port: port.Name, SpeedAt: port.SpeedAt, PortFrame: portFrame, PeerFrame: portFrame, Cabled: port.Cable != nil}
		switch {
		case port.Speed.Mbps > 0:
			ph.SpeedMbps = port.Speed.Mbps
		case port.Speed.Unknown:
			ph.SpeedMbps, ph.SpeedAssumed = assumedSpeed, "speed unknown"+assumedWhy
		default:
			ph.SpeedMbps, ph.SpeedAssumed = assumedSpeed, "speed not written"+assumedWhy
		}
		switch {
		case port.Cable != nil && port.Cable.Length > 0:
			ph.Length, ph.LengthFrom, ph.LengthAt = port.Cable.Length, "the link", port.Cable.At
		case p.CableLength > 0:
			ph.Length, ph.LengthFrom, ph.LengthAt = p.CableLength, "pfc.cableLength", p.Origin("pfc.cableLength")
		default:
			ph.Length, ph.LengthAssumed = defLen, defWhat
			if port.Cable != nil {
				ph.LengthAt = port.Cable.At
			} else {
				ph.LengthAt = port.At
			}
		}
		if c := port.Cable; c != nil {
			switch {
			case c.PeerMTU.Max:
				ph.PeerFrame = jumbo + FrameOverhead
			case c.PeerMTU.Value > 0:
				ph.PeerFrame = c.PeerMTU.Value + FrameOverhead
			}
		}
		ph.Result, ph.Err = headroom.Compute(headroom.Inputs{
			SpeedMbps: ph.SpeedMbps, CableMeters: ph.Length, PortFrame: ph.PortFrame, PeerFrame: ph.PeerFrame, ASIC: asic,
		})
		h.Ports = append(h.Ports, ph)
	}
	return h
}

// Worst is the port that needs the most xoff, and whether there is one.
func (h SwitchHeadroom) Worst() (PortHeadroom, bool) {
	var worst PortHeadroom
	found := false
	for _, ph := range h.Ports {
		if ph.Err == nil && (!found || ph.Result.Xoff > worst.Result.Xoff) {
			worst, found = ph, true
		}
	}
	return worst, found
}

// Inputs says what a port's figure was computed from, for notes and
// diagnostics: "100G, 300 m, frames 9238/9022 B, Spectrum-2".
func (p PortHeadroom) Inputs(asic headroom.ASIC) string {
	return fmt.Sprintf("%s, %d m, frames %d/%d B, %s", headroom.SpeedText(p.SpeedMbps), p.Length, p.PortFrame, p.PeerFrame, asic.Name)
}

// Terms spells a figure out: "cable 37879 B, peer response 25216 B, MAC/PHY 819 B, cell occupancy 1.04".
func (p PortHeadroom) Terms() string {
	r := p.Result
	return fmt.Sprintf("cable %.0f B, peer response %.0f B, MAC/PHY %.0f B, cell occupancy %.3g", r.Cable, r.Response, r.Interface, r.Occupancy)
}

// Notes are the plan notes of a switch's headroom: one line per group of
// ports that need the same, and the total against the ASIC's buffer.
func (h SwitchHeadroom) Notes(p intent.Policy) []string {
	if len(h.Ports) == 0 {
		return nil
	}
	type group struct {
		ports []string
		first PortHeadroom
	}
	// Ports that differ only in the frames at their far end share a line
	// when they need the same.
	type key struct {
		speed, length               int
		speedAssumed, lengthAssumed string
		xoff, size                  uint64
		err                         string
	}
	byKey := map[key]*group{}
	var order []key
	for _, ph := range h.Ports {
		k := key{ph.SpeedMbps, ph.Length, ph.SpeedAssumed, ph.LengthAssumed, ph.Result.Xoff, ph.Result.Size, ""}
		if ph.Err != nil {
			k.err = ph.Err.Error()
		}
		g := byKey[k]
		if g == nil {
			g = &group{first: ph}
			byKey[k] = g
			order = append(order, k)
		}
		g.ports = append(g.ports, ph.Port)
	}
	var out []string
	for _, key := range order {
		g := byKey[key]
		ph := g.first
		names := CompactPortNames(g.ports)
		if ph.Err != nil {
			out = append(out, fmt.Sprintf("headroom: %s: not computed: %v", names, ph.Err))
			continue
		}
		what := fmt.Sprintf("%s, %d m, %s", headroom.SpeedText(ph.SpeedMbps), ph.Length, h.ASIC.Name)
		var assumed []string
		if ph.SpeedAssumed != "" {
			assumed = append(assumed, headroom.SpeedText(ph.SpeedMbps)+" ("+ph.SpeedAssumed+")")
		}
		if ph.LengthAssumed != "" {
			assumed = append(assumed, strconv.Itoa(ph.Length)+" m ("+ph.LengthAssumed+")")
		}
		if len(assumed) > 0 {
			what += "; assumed " + strings.Join(assumed, ", ")
		}
		out = append(out, fmt.Sprintf("headroom: %s need xoff %d B, size %d B (%s)", names, ph.Result.Xoff, ph.Result.Size, what))
	}
	if p.Xoff > 0 {
		if w, ok := h.Worst(); ok {
			out = append(out, fmt.Sprintf("headroom: pfc.xoff %d B is written; %s needs at least %d B", p.Xoff, w.Port, w.Result.Xoff))
		}
	}
	total := h.Total(p)
	prio := "priority"
	if h.Priorities != 1 {
		prio = "priorities"
	}
	line := fmt.Sprintf("headroom: %d lossless ports × %d %s reserve %d B", len(h.Ports), h.Priorities, prio, total)
	if h.ASIC.Buffer > 0 {
		line += fmt.Sprintf(" of %s's %d B buffer", h.ASIC.Name, h.ASIC.Buffer)
	}
	return append(out, line)
}

// CompactPortNames writes port names as ranges the intent would accept:
// Ethernet1/1-4, Ethernet0-124 step 4, swp1, swp3.
func CompactPortNames(names []string) string {
	type port struct {
		prefix string
		n      int
		name   string
	}
	ports := make([]port, 0, len(names))
	for _, name := range names {
		i := len(name)
		for i > 0 && name[i-1] >= '0' && name[i-1] <= '9' {
			i--
		}
		n, err := strconv.Atoi(name[i:])
		if i == len(name) || err != nil {
			ports = append(ports, port{prefix: name, n: -1, name: name})
			continue
		}
		ports = append(ports, port{prefix: name[:i], n: n, name: name})
	}
	sort.SliceStable(ports, func(a, b int) bool {
		if ports[a].prefix != ports[b].prefix {
			return ports[a].prefix < ports[b].prefix
		}
		return ports[a].n < ports[b].n
	})
	var parts []string
	for i := 0; i < len(ports); {
		p := ports[i]
		if p.n < 0 {
			parts = append(parts, p.name)
			i++
			continue
		}
		j := i + 1
		step := 0
		if j < len(ports) && ports[j].prefix == p.prefix && ports[j].n > p.n {
			step = ports[j].n - p.n
			for j < len(ports) && ports[j].prefix == p.prefix && ports[j].n-ports[j-1].n == step {
				j++
			}
		}
		switch run := j - i; {
		case run >= 3 || (run == 2 && step == 1):
			r := fmt.Sprintf("%s%d-%d", p.prefix, p.n, ports[j-1].n)
			if step > 1 {
				r += fmt.Sprintf(" step %d", step)
			}
			parts = append(parts, r)
			i = j
		default:
			parts = append(parts, p.name)
			i++
		}
	}
	return strings.Join(parts, ", ")
}

// Reservation is one lossless priority group's buffer in the three numbers
// platforms take: Pause bytes before the port pauses its peer (SONiC's
// xon), Xoff bytes above that for what still arrives, and Size, the whole.
type Reservation struct{ Size, Pause, Xoff uint64 }

// ExplicitReservation turns a written pfc.headroom, xon and xoff into the
// reservation a platform renders, filling what is not written from the
// computed headroom: xoff from the port that needs the most, the pause
// point from the ASIC's pipeline latency (else two of the port's largest
// frames), the size as their sum. A written size below pause plus xoff is
// an error.
func ExplicitReservation(sw *intent.Switch, h SwitchHeadroom, ceiling int) (Reservation, error) {
	p := sw.Policy
	r := Reservation{Size: p.Headroom, Pause: p.Xon, Xoff: p.Xoff}
	worst, ok := h.Worst()
	if r.Xoff == 0 {
		if !ok {
			return r, fmt.Errorf("switch %s: no headroom figure to size the lossless buffer with (write pfc.xoff)", sw.Name)
		}
		r.Xoff = worst.Result.Xoff
	}
	if r.Pause == 0 {
		if ok {
			r.Pause = worst.Result.Xon
		}
		if r.Pause == 0 {
			if ceiling <= 0 {
				ceiling = jumbo
			}
			r.Pause = uint64(2 * (SwitchMTU(p, ceiling) + FrameOverhead))
		}
	}
	if r.Size == 0 {
		r.Size = r.Pause + r.Xoff
	}
	if r.Size < r.Pause+r.Xoff {
		return r, fmt.Errorf("switch %s: pfc.headroom %d B is below the pause point %d B plus xoff %d B it must hold", sw.Name, r.Size, r.Pause, r.Xoff)
	}
	return r, nil
}
