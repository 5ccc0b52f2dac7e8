package probe

import (
	"context"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/rocefab/rocefab/validators/probe/transport"
	"github.com/rocefab/rocefab/validators/probe/wire"
)

// sweepLadder is the default list of IP sizes: common MTUs below the
// intent, then the intent itself.
func sweepLadder(hostMTU int) []int {
	var out []int
	for _, s := range []int{1280, 1500, 2048, 4096} {
		if s < hostMTU {
			out = append(out, s)
		}
	}
	return append(out, hostMTU)
}

// SweepLadder is the default ladder of IP packet sizes the MTU sweep tries
// up to hostMTU, for callers that add sizes of their own.
func SweepLadder(hostMTU int) []int { return sweepLadder(hostMTU) }

const (
	// sweepControl is the small size every flow carries first: a flow on
	// which even it is lost has a loss problem, not an MTU one.
	sweepControl = 256
	// sweepTries is how many packets of the control a confirmation round
	// sends per flow, and half of how many of the failing size: one
	// crossing passes a size, so random loss q fakes a black hole with
	// probability q^7 (the search round's packet and six more): 1 in 78,000
	// at 20% loss.
	sweepTries = 3
	// sweepConfirmRounds bounds the confirmation rounds per flow and size.
	sweepConfirmRounds = 3
	// sweepMaxFlows bounds the flows the sweep covers, so that its READ
	// responses stay inside the responder's reply-byte burst.
	sweepMaxFlows = 16
)

const (
	dirForward = iota
	dirReverse
)

var dirNames = [2]string{"forward", "reverse"}

// sizeResult is what the sweep knows about one size on one flow in one
// direction.
type sizeResult struct {
	tries        int  // packets sent
	passed       bool // one of them crossed (also late)
	confirmTries int  // confirmation rounds it was part of as the failing size
	confirmed    bool // lost in a valid confirmation round whose control crossed
}

type sweepPoint struct{ dir, flow, size int }

// sweeper runs the MTU sweep of one pair on its own session.
type sweeper struct {
	s       *session
	pol     Policy
	ov      int
	flows   int
	payload []byte
	res     [2][]map[int]*sizeResult // [direction][flow] by IP size
	limited uint32                   // the sweep QP's RepliesRateLimited last seen
}

// sweep finds the largest IP packet that crosses in each direction, on each
// flow: SENDs of size S forward, READs whose response is S bytes reverse,
// all with DF. It probes a ladder on every flow, narrows the gap between
// the largest size that passed and the smallest that failed, and then
// confirms: a size counts as lost only when, in a round that waits the full
// reply timeout, it fails again on that flow while the largest passing size
// crosses on the same flow and the responder rate-limited nothing.
func (e *Endpoint) sweep(ctx context.Context, target netip.Addr, pol Policy, pw *transport.PcapWriter, m *Measurements) {
	flows := min(pol.Flows, sweepMaxFlows)
	s, err := e.newSession(target, pol, 512*flows+1024, pw)
	if err != nil {
		m.MTUError = err.Error()
		return
	}
	defer s.close()
	// The sweep's QP is new to this run but not to the responder: every
	// `probe run` process numbers its QPs from QPMin, so the responder still
	// holds the expected PSN the previous run's sweep left on this QP. A
	// session that skipped the Begin started at a random PSN that lay behind
	// that stale ePSN half the time; its SENDs were then duplicates to the
	// responder, ACKed with the stale PSN and ignored here, and every forward
	// size looked lost ("path MTU 108", the data packets' size), while READs,
	// which a responder re-executes, passed. The Begin sets the responder's
	// ePSN to this session's first PSN, as connection setup does on an RC QP.
	if _, err := s.connect(ctx); err != nil && !s.answered() {
		m.MTUError = "the MTU sweep's session got no answer to its handshake: " + err.Error()
		return
	}
	flows = min(flows, s.flows)
	w := &sweeper{s: s, pol: pol, ov: wire.IPOverhead(target), flows: flows, payload: make([]byte, pol.HostMTU)}
	for i := 1; i < len(w.payload); i++ {
		w.payload[i] = byte(i)
	}
	for d := range w.res {
		w.res[d] = make([]map[int]*sizeResult, flows)
		for f := range flows {
			w.res[d][f] = map[int]*sizeResult{}
		}
	}
	w.report(m, w.run(ctx, searchWait(pol, m)))
}

// searchWait is how long a search round waits: a multiple of the RTT, at
// most the reply timeout. Only confirmation rounds need the full timeout.
func searchWait(pol Policy, m *Measurements) time.Duration {
	wait := pol.ReplyTimeout
	if m.RTT.Samples > 0 {
		wait = min(wait, max(50*time.Millisecond, time.Duration(20*m.RTT.P999*1e3)))
	}
	return wait
}

// run sweeps and returns the ladder it started from.
func (w *sweeper) run(ctx context.Context, wait time.Duration) []int {
	ladder := []int{sweepControl}
	sizes := w.pol.Sizes
	if len(sizes) == 0 {
		sizes = sweepLadder(w.pol.HostMTU)
	}
	for _, s := range sizes {
		ladder = append(ladder, s&^3) // what a packet of whole words can be
	}
	slices.Sort(ladder)
	ladder = slices.Compact(ladder)
	var first []sweepPoint
	for d := range 2 {
		for f := range w.flows {
			for _, size := range ladder {
				first = append(first, sweepPoint{d, f, size})
			}
		}
	}
	w.round(ctx, first, 1, wait)
	for range 24 {
		if ctx.Err() != nil {
			return ladder
		}
		var search, confirm []sweepPoint
		for d := range 2 {
			for f := range w.flows {
				lo, hi := w.bounds(d, f)
				switch {
				case hi == 0:
				case lo == 0:
					// Even the control was lost: try it again, a few times.
					if w.result(sweepPoint{d, f, sweepControl}).tries < sweepTries {
						search = append(search, sweepPoint{d, f, sweepControl})
					}
				case hi-lo > 4:
					for _, size := range between(lo, hi) {
						search = append(search, sweepPoint{d, f, size})
					}
				default:
					if r := w.result(sweepPoint{d, f, hi}); !r.confirmed && r.confirmTries < sweepConfirmRounds {
						confirm = append(confirm, sweepPoint{d, f, hi}, sweepPoint{d, f, lo})
					}
				}
			}
		}
		switch {
		case len(search) > 0:
			w.round(ctx, search, 1, wait)
		case len(confirm) > 0:
			w.confirm(ctx, confirm)
		default:
			return ladder
		}
	}
	return ladder
}

// confirm sends each failing size with its control (pairs of points) and
// waits the full reply timeout. A round in which the responder rate-limited
// replies proves nothing and is repeated after the limiter refills.
func (w *sweeper) confirm(ctx context.Context, pairs []sweepPoint) {
	var points []sweepPoint
	for i := 0; i < len(pairs); i += 2 {
		points = append(points, pairs[i], pairs[i], pairs[i+1]) // the failing size twice
	}
	start := w.round(ctx, points, sweepTries, w.pol.ReplyTimeout)
	limited, known := w.rateLimited(ctx)
	for i := 0; i < len(pairs); i += 2 {
		hi, lo := pairs[i], pairs[i+1]
		r := w.result(hi)
		r.confirmTries++
		if !known || limited || w.crossed(hi, start) || !w.crossed(lo, start) {
			continue
		}
		r.confirmed = true
	}
	if limited {
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// rateLimited asks the responder whether it suppressed replies on the
// sweep's QP since the last ask; known is false without an answer.
func (w *sweeper) rateLimited(ctx context.Context) (limited, known bool) {
	st, err := w.s.exchangeStats(ctx, statsQuery, 0, 3, max(100*time.Millisecond, w.pol.ReplyTimeout/2))
	if err != nil {
		return false, false
	}
	limited = st.RepliesRateLimited != w.limited
	w.limited = st.RepliesRateLimited
	return limited, true
}

func (w *sweeper) result(p sweepPoint) *sizeResult {
	m := w.res[p.dir][p.flow]
	r := m[p.size]
	if r == nil {
		r = &sizeResult{}
		m[p.size] = r
	}
	return r
}

// bounds returns the largest size that passed on the flow and the
// smallest failed size above it (0 if none). Failures below a pass are
// loss, not MTU.
func (w *sweeper) bounds(dir, flow int) (lo, hi int) {
	res := w.res[dir][flow]
	for s, r := range res {
		if r.passed && s > lo {
			lo = s
		}
	}
	for s, r := range res {
		if r.tries > 0 && !r.passed && s > lo && (hi == 0 || s < hi) {
			hi = s
		}
	}
	return lo, hi
}

// between picks up to 7 sizes (multiples of 4) inside the open gap.
func between(lo, hi int) []int {
	if hi == 0 || hi-lo <= 4 {
		return nil
	}
	var out []int
	for i := 1; i <= 7; i++ {
		s := (lo + (hi-lo)*i/8) &^ 3
		if s > lo && s < hi && (len(out) == 0 || out[len(out)-1] != s) {
			out = append(out, s)
		}
	}
	return out
}

// packet builds one sweep probe: a SEND of the size forward, a READ whose
// response is the size reverse.
func (w *sweeper) packet(p sweepPoint) (wire.Packet, sendRec, bool) {
	s := w.s
	if p.dir == dirForward {
		n := p.size - w.ov - wire.BTHLen - wire.ICRCLen
		if n < 4 || n > len(w.payload) {
			return wire.Packet{}, sendRec{}, false
		}
		return wire.Packet{BTH: wire.BTH{Opcode: wire.OpRCSendOnly, PKey: w.pol.PKey, DestQP: s.qp + 1, AckReq: true}, Payload: w.payload[:n]},
			sendRec{kind: recSweepSend, ipSize: int32(p.size), ackReq: true}, true
	}
	n := p.size - w.ov - wire.BTHLen - wire.AETHLen - wire.ICRCLen
	if n < 4 {
		return wire.Packet{}, sendRec{}, false
	}
	return wire.Packet{BTH: wire.BTH{Opcode: wire.OpRCReadRequest, PKey: w.pol.PKey, DestQP: s.qp + 1, AckReq: true},
			RETH: wire.RETH{VA: uint64(p.size) << 32, RKey: probeRKey, DMALength: uint32(n)}},
		sendRec{kind: recSweepRead, ipSize: int32(p.size), readLen: int32(n), ackReq: true}, true
}

// round sends tries packets of every point on its flow, waits for the
// replies (at most wait), and books every sweep reply so far: a late reply
// to an earlier round still proves its size. It returns the ring offset
// the round started at.
func (w *sweeper) round(ctx context.Context, points []sweepPoint, tries int, wait time.Duration) uint32 {
	s := w.s
	pkts := make([][]wire.Packet, w.flows)
	recs := make([][]sendRec, w.flows)
	for _, p := range points {
		pkt, rec, ok := w.packet(p)
		if !ok {
			continue
		}
		w.result(p).tries += tries
		for range tries {
			pkts[p.flow] = append(pkts[p.flow], pkt)
			recs[p.flow] = append(recs[p.flow], rec)
		}
	}
	s.mu.Lock()
	start := s.n
	s.mu.Unlock()
	for f := range w.flows {
		for i := 0; i < len(pkts[f]); i += transport.MaxBatch {
			j := min(i+transport.MaxBatch, len(pkts[f]))
			s.transmitOn(f, pkts[f][i:j], recs[f][i:j])
		}
	}
	s.wait(ctx, wait, func() bool { return s.inflight <= 0 })
	s.giveUp()
	s.mu.Lock()
	defer s.mu.Unlock()
	for off := s.n - min(s.n, uint32(len(s.ring))); off < s.n; off++ {
		r := &s.ring[off&uint32(len(s.ring)-1)]
		if d, ok := sweepDir(r.kind); ok && r.acked && int(r.flow) < w.flows {
			w.result(sweepPoint{d, int(r.flow), int(r.ipSize)}).passed = true
		}
	}
	return start
}

// crossed reports whether a packet of p sent at or after offset start
// was answered.
func (w *sweeper) crossed(p sweepPoint, start uint32) bool {
	s := w.s
	s.mu.Lock()
	defer s.mu.Unlock()
	for off := max(start, s.n-min(s.n, uint32(len(s.ring)))); off < s.n; off++ {
		r := &s.ring[off&uint32(len(s.ring)-1)]
		if d, ok := sweepDir(r.kind); ok && d == p.dir && int(r.flow) == p.flow && int(r.ipSize) == p.size && r.acked {
			return true
		}
	}
	return false
}

func sweepDir(k recKind) (int, bool) {
	switch k {
	case recSweepSend:
		return dirForward, true
	case recSweepRead:
		return dirReverse, true
	}
	return 0, false
}

// port names flow f in direction d: the sender's source port forward,
// the responder's (as seen on its replies) reverse.
func (w *sweeper) port(d, f int) uint16 {
	if d == dirForward {
		return w.s.flowPort(f)
	}
	w.s.mu.Lock()
	defer w.s.mu.Unlock()
	return w.s.revPort[f]
}

// report writes the sweep's results into m. A direction's path MTU is the
// smallest per-flow MTU among the flows with a conclusive result: nothing
// lost above the largest size that passed, or a confirmed loss.
func (w *sweeper) report(m *Measurements, ladder []int) {
	var notes []string
	for d := range 2 {
		pathMTU, judged := 0, 0
		var unjudged []string
		// The sizes worth listing: the ladder and each flow's boundary.
		sizes := map[int]bool{}
		for _, s := range ladder {
			sizes[s] = true
		}
		for f := range w.flows {
			lo, hi := w.bounds(d, f)
			sizes[lo], sizes[hi] = true, true
			fm := FlowMTU{Direction: dirNames[d], SrcPort: w.port(d, f), PathMTU: lo, Lost: hi}
			if hi > 0 {
				fm.Confirmed = w.result(sweepPoint{d, f, hi}).confirmed
			}
			m.MTUByFlow = append(m.MTUByFlow, fm)
			if lo == 0 || (hi > 0 && !fm.Confirmed) {
				unjudged = append(unjudged, fmt.Sprint(fm.SrcPort))
				continue
			}
			judged++
			if pathMTU == 0 || lo < pathMTU {
				pathMTU = lo
			}
		}
		if d == dirForward {
			m.PathMTU = pathMTU
		} else {
			m.PathMTUReverse = pathMTU
		}
		if len(unjudged) > 0 {
			notes = append(notes, fmt.Sprintf("%s: no conclusive result on %d of %d flows (UDP source ports %s): "+
				"sizes went unanswered while smaller ones were lost too, or the responder rate-limited replies",
				dirNames[d], len(unjudged), w.flows, strings.Join(unjudged, ", ")))
		}
		delete(sizes, 0)
		for _, size := range slices.Sorted(maps.Keys(sizes)) {
			sp := SizeProbe{Size: size, Direction: dirNames[d]}
			for f := range w.flows {
				if r := w.res[d][f][size]; r != nil && r.tries > 0 {
					sp.Flows++
					if !r.passed {
						sp.LostOn = append(sp.LostOn, w.port(d, f))
					}
				}
			}
			sp.Passed = len(sp.LostOn) == 0
			m.MTUProbes = append(m.MTUProbes, sp)
		}
	}
	if len(notes) > 0 {
		m.MTUError = strings.Join(notes, "; ")
	}
}
