package probe

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"net/netip"
	"sync"
	"time"

	"github.com/rocefab/rocefab/validators/probe/transport"
	"github.com/rocefab/rocefab/validators/probe/wire"
)

// maxSessionPackets keeps a session inside half the 24-bit PSN space, so
// PSN comparisons stay unambiguous.
const maxSessionPackets = psnHalf - 1024

type recKind uint8

const (
	recData      recKind = iota + 1 // data-phase SEND
	recDataRead                     // data-phase READ request
	recControl                      // stats request
	recSweepSend                    // MTU sweep, forward
	recSweepRead                    // MTU sweep, reverse (READ request)
	recReadCont                     // further PSNs a multi-segment READ consumes
)

// sendRec is what the sender remembers about one PSN.
type sendRec struct {
	sentNs  int64
	ipSize  int32 // IP packet size (for READ: of the expected response)
	readLen int32 // READ DMA length
	kind    recKind
	flow    uint8 // index of the entropy socket it left from
	ackReq  bool
	acked   bool // its own ACK or READ response arrived
	covered bool // no longer awaited (acked, covered by a later ACK, or given up)
	sendErr bool
}

// revStats counts what came back on the reverse path.
type revStats struct {
	received   int // ACK and READ response packets for data requests
	dups       int // of which repeated an acknowledgement already received
	icrcErrors int
	ce         int
	naks       int
	reordered  int
	cnps       int
	unexpected int
	dscp       [64]int
	ecn        [4]int
	cnpDSCP    [64]int
	cnpECN     [4]int
	highest    uint32
	seenAny    bool
	flows      []*revFlow // by the responder's source port
}

// Reverse packet kinds the sender tells apart per flow.
const (
	revACK = iota
	revRead
	revCNP
	revKinds
)

var revKindNames = [revKinds]PacketKind{KindACK, KindReadResponse, KindCNP}

// revFlow is what arrived from one responder source port.
type revFlow struct {
	port  uint16
	kinds [revKinds]struct {
		received, icrcErrors int
		dscp                 [64]int
		ecn                  [4]int
	}
}

// flow returns the reverse flow from port, adding it.
func (r *revStats) flow(port uint16) *revFlow {
	for _, f := range r.flows {
		if f.port == port {
			return f
		}
	}
	f := &revFlow{port: port}
	r.flows = append(r.flows, f)
	return f
}

// revKindOf classifies a reply opcode; ok is false for anything else.
func revKindOf(op wire.Opcode) (int, bool) {
	switch {
	case op == wire.OpCNP:
		return revCNP, true
	case op == wire.OpRCAcknowledge:
		return revACK, true
	case op.Transport() == wire.RC && op.Operation() >= wire.ReadResponseFirst && op.Operation() <= wire.ReadResponseOnly:
		return revRead, true
	}
	return 0, false
}

// session is one requester QP talking to one responder.
type session struct {
	ep    *Endpoint
	fam   *family
	pol   Policy
	peer  netip.Addr
	src   netip.Addr
	dst   netip.AddrPort
	qp    uint32
	flows int
	tos   uint8
	pcap  *transport.PcapWriter

	// Used only by the goroutine that sends.
	h    wire.Hasher
	tx   []transport.Message
	offs []uint32
	flow int

	mu       sync.Mutex
	start    uint32
	n        uint32 // PSNs used
	ring     []sendRec
	inflight int
	cumIdx   uint32 // offsets below are all covered
	rev      revStats
	rttNs    []int64
	kernelTS int
	userTS   int
	anyReply bool
	statsQ   []statsMessage
	statsErr error
	signal   chan struct{}
	// revPort is the responder's source port seen on replies to each flow.
	revPort [maxFlowsPerQP]uint16
}

func (e *Endpoint) newSession(target netip.Addr, pol Policy, expected int, pw *transport.PcapWriter) (*session, error) {
	if e.closed.Load() {
		return nil, ErrClosed
	}
	target = target.Unmap()
	f := e.familyFor(target)
	if f == nil {
		return nil, fmt.Errorf("%w: %s", ErrNoFamily, target)
	}
	// Bound to one address, the endpoint sends from it: the route's
	// preferred source (127.0.0.1 for 127.0.0.3, say) would draw the
	// replies to an address nothing listens on.
	src := f.local
	if !src.IsValid() {
		var err error
		if src, err = e.net.Source(target); err != nil {
			return nil, err
		}
	}
	ringLen := 1 << min(20, max(10, bits.Len(uint(expected*2+256))))
	s := &session{
		ep: e, fam: f, pol: pol, peer: target, src: src, dst: netip.AddrPortFrom(target, e.cfg.Port),
		flows: min(pol.Flows, len(f.pool)), tos: transport.TOS(pol.RoCEDSCP, uint8(pol.ECN)), pcap: pw,
		tx: make([]transport.Message, transport.MaxBatch), offs: make([]uint32, transport.MaxBatch), start: rand.Uint32() & psnMask,
		ring: make([]sendRec, ringLen), signal: make(chan struct{}, 1),
	}
	for i := range s.tx {
		s.tx[i].Buf = make([]byte, 0, f.bufSize)
	}
	qp, err := e.allocQP(s)
	if err != nil {
		return nil, err
	}
	s.qp = qp
	return s, nil
}

func (s *session) close() { s.ep.releaseQP(s.qp) }

func (s *session) notify() {
	select {
	case s.signal <- struct{}{}:
	default:
	}
}

// rec returns the record of psn, or nil if it is not one we sent recently.
// Caller holds s.mu.
func (s *session) rec(psn uint32) (*sendRec, uint32) {
	off := (psn - s.start) & psnMask
	if off >= s.n || s.n-off > uint32(len(s.ring)) {
		return nil, off
	}
	return &s.ring[off&uint32(len(s.ring)-1)], off
}

// receive handles a packet for this session's QP (receive-loop goroutine).
func (s *session) receive(m *transport.Message, p *wire.Packet, icrcOK bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.notify()
	if s.pcap != nil {
		_ = s.pcap.WriteDatagram(time.Unix(0, m.RxTime), m.Peer, netip.AddrPortFrom(m.Local, s.dst.Port()), m.TOS, m.Payload())
	}
	op := p.BTH.Opcode
	if !icrcOK {
		s.rev.icrcErrors++
		if k, ok := revKindOf(op); ok {
			s.rev.flow(m.Peer.Port()).kinds[k].icrcErrors++
		}
		return
	}
	s.anyReply = true
	dscp, ecn := transport.SplitTOS(m.TOS)
	switch {
	case op == wire.OpCNP:
		s.rev.cnps++
		s.rev.cnpDSCP[dscp]++
		s.rev.cnpECN[ecn]++
		k := &s.rev.flow(m.Peer.Port()).kinds[revCNP]
		k.received++
		k.dscp[dscp]++
		k.ecn[ecn]++
	case op == wire.OpRCAcknowledge:
		if !p.AETH.IsACK() {
			s.rev.naks++
			return
		}
		r, off := s.rec(p.BTH.PSN)
		if r == nil {
			s.rev.unexpected++
			return
		}
		if r.kind != recControl {
			s.countReply(p.BTH.PSN, r, revACK, m.Peer.Port(), dscp, ecn)
		}
		s.acknowledge(r, off, m)
	case op.Transport() == wire.RC && op.Operation() >= wire.ReadResponseFirst && op.Operation() <= wire.ReadResponseOnly:
		r, off := s.rec(p.BTH.PSN)
		if r == nil {
			s.rev.unexpected++
			return
		}
		// Find the READ request this segment belongs to.
		for r.kind == recReadCont && off > 0 {
			off--
			r = &s.ring[off&uint32(len(s.ring)-1)]
		}
		s.countReply(p.BTH.PSN, r, revRead, m.Peer.Port(), dscp, ecn)
		last := op.Operation() == wire.ReadResponseOnly || op.Operation() == wire.ReadResponseLast
		if last && (op.Operation() != wire.ReadResponseOnly || len(p.Payload) == int(r.readLen)) {
			s.acknowledge(r, off, m)
		}
	case op == wire.OpRCSendOnly && isStatsPayload(p.Payload):
		msg, err := parseStats(p.Payload, "responder "+s.peer.String())
		if err != nil {
			s.statsErr = err
			return
		}
		s.statsQ = append(s.statsQ, msg)
	default:
		s.rev.unexpected++
	}
}

// countReply books a reply to a data request for the reverse direction.
// Every reply packet counts as received, a repeated one too: the responder
// legitimately ACKs a duplicated or late request again, and counts that
// reply as sent. Reverse duplicates are what arrives beyond what was sent.
func (s *session) countReply(psn uint32, r *sendRec, kind int, port uint16, dscp, ecn uint8) {
	s.revPort[r.flow] = port
	k := &s.rev.flow(port).kinds[kind]
	k.received++
	k.dscp[dscp]++
	k.ecn[ecn]++
	repeat := r.acked && r.kind != recSweepRead
	if repeat {
		s.rev.dups++
	}
	s.rev.received++
	s.rev.dscp[dscp]++
	s.rev.ecn[ecn]++
	if ECN(ecn) == CE {
		s.rev.ce++
	}
	if repeat {
		return
	}
	if s.rev.seenAny {
		if back := (s.rev.highest - psn) & psnMask; back != 0 && back < psnHalf {
			s.rev.reordered++
			return
		}
	}
	s.rev.highest, s.rev.seenAny = psn, true
}

// acknowledge marks r answered, takes an RTT sample, and treats every
// earlier PSN as no longer awaited (RC ACKs are cumulative).
func (s *session) acknowledge(r *sendRec, off uint32, m *transport.Message) {
	if r.acked {
		return
	}
	r.acked = true
	if (r.kind == recData || r.kind == recDataRead) && r.sentNs > 0 {
		if d := m.RxTime - r.sentNs; d > 0 && len(s.rttNs) < 1<<20 {
			s.rttNs = append(s.rttNs, d)
			if m.KernelTime {
				s.kernelTS++
			} else {
				s.userTS++
			}
		}
	}
	for ; s.cumIdx <= off; s.cumIdx++ {
		if s.n-s.cumIdx > uint32(len(s.ring)) {
			continue
		}
		c := &s.ring[s.cumIdx&uint32(len(s.ring)-1)]
		if c.ackReq && !c.covered {
			c.covered = true
			s.inflight--
		}
	}
}

// giveUp stops waiting for everything in flight.
func (s *session) giveUp() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for ; s.cumIdx < s.n; s.cumIdx++ {
		if s.n-s.cumIdx > uint32(len(s.ring)) {
			continue
		}
		c := &s.ring[s.cumIdx&uint32(len(s.ring)-1)]
		if c.ackReq && !c.covered {
			c.covered = true
		}
	}
	s.inflight = 0
}

// readSpan is how many PSNs a READ of n bytes consumes: the responder
// segments at the host MTU (see responder.maxReadSegment).
func (s *session) readSpan(n int) uint32 {
	seg := max(256, (s.pol.HostMTU-wire.IPOverhead(s.peer)-wire.BTHLen-wire.AETHLen-wire.ICRCLen)&^3)
	return uint32(max(1, (n+seg-1)/seg))
}

// transmit sends up to MaxBatch packets on the next flow, assigning PSNs.
// It returns the offset of the first packet.
func (s *session) transmit(pkts []wire.Packet, recs []sendRec) uint32 {
	flow := s.flow % s.flows
	s.flow++
	return s.transmitOn(flow, pkts, recs)
}

// flowPort is the UDP source port of flow i.
func (s *session) flowPort(i int) uint16 { return s.fam.pool[i].LocalAddr().Port() }

// transmitOn sends up to MaxBatch packets on flow, assigning PSNs.
func (s *session) transmitOn(flow int, pkts []wire.Packet, recs []sendRec) uint32 {
	conn := s.fam.pool[flow]
	env := wire.Envelope{Src: s.src, Dst: s.peer, SrcPort: conn.LocalAddr().Port(), DstPort: s.dst.Port(), DontFragment: true}
	offs := s.offs[:len(pkts)]
	s.mu.Lock()
	first := s.n
	for i := range pkts {
		pkts[i].BTH.PSN = (s.start + s.n) & psnMask
		span := uint32(1)
		if pkts[i].BTH.Opcode.Operation() == wire.ReadRequest {
			span = s.readSpan(int(pkts[i].RETH.DMALength))
		}
		offs[i] = s.n
		recs[i].flow = uint8(flow)
		s.ring[s.n&uint32(len(s.ring)-1)] = recs[i]
		for j := uint32(1); j < span; j++ {
			s.ring[(s.n+j)&uint32(len(s.ring)-1)] = sendRec{kind: recReadCont}
		}
		s.n += span
		if recs[i].ackReq {
			s.inflight++
		}
	}
	s.mu.Unlock()
	k := 0
	for i := range pkts {
		m := &s.tx[k]
		buf, err := s.h.Encode(m.Buf[:0], &env, &pkts[i])
		if err != nil {
			continue
		}
		m.Buf, m.Peer, m.Local, m.TOS = buf, s.dst, s.src, s.tos
		k++
	}
	now := time.Now().UnixNano()
	s.mu.Lock()
	for _, o := range offs {
		s.ring[o&uint32(len(s.ring)-1)].sentNs = now
	}
	s.mu.Unlock()
	_, err := conn.WriteBatch(s.tx[:k])
	failed := false
	for i := range k {
		if err != nil || s.tx[i].Err != nil {
			failed = true
		} else if s.pcap != nil {
			_ = s.pcap.WriteDatagram(time.Unix(0, now), netip.AddrPortFrom(s.src, env.SrcPort), s.dst, s.tos, s.tx[i].Buf)
		}
	}
	if failed {
		s.mu.Lock()
		for i := range k {
			if err != nil || s.tx[i].Err != nil {
				r := &s.ring[offs[i]&uint32(len(s.ring)-1)]
				r.sendErr = true
				if r.ackReq && !r.covered {
					r.covered = true
					s.inflight--
				}
			}
		}
		s.mu.Unlock()
	}
	return first
}

// wait blocks until cond holds (checked under s.mu), ctx ends or the
// timeout passes; it reports whether cond held.
func (s *session) wait(ctx context.Context, timeout time.Duration, cond func() bool) bool {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		s.mu.Lock()
		ok := cond()
		s.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-s.signal:
		case <-ctx.Done():
			return false
		case <-timer.C:
			s.mu.Lock()
			ok := cond()
			s.mu.Unlock()
			return ok
		}
	}
}

var errNoStats = errors.New("the responder returned no statistics")

// connect is the session's connection setup: a stats Begin, retried until
// the connect timeout, which resets the responder's state for this (peer,
// QP) and sets its expected PSN to the Begin's. Every session sends it
// before any request; without it the responder judges the session's PSNs
// against whatever session used the QP number before.
func (s *session) connect(ctx context.Context) (responderStats, error) {
	per := min(250*time.Millisecond, s.pol.ConnectTimeout)
	return s.exchangeStats(ctx, statsBegin, 0, max(1, int(s.pol.ConnectTimeout/per)), per)
}

// answered reports whether anything came back on this session.
func (s *session) answered() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.anyReply
}

// queryStats asks for the responder's counters and every page of its
// per-flow section. A page that does not come back leaves the per-flow
// view out (HasFlows false) rather than half of it.
func (s *session) queryStats(ctx context.Context, attempts int, per time.Duration) (responderStats, error) {
	st, err := s.exchangeStats(ctx, statsQuery, 0, attempts, per)
	if err != nil || !st.HasFlows {
		return st, err
	}
	for next := int(st.FlowsFirst) + len(st.Flows); next < int(st.FlowsTotal); {
		page, err := s.exchangeStats(ctx, statsQuery, uint16(next), attempts, per)
		if err != nil || !page.HasFlows || int(page.FlowsFirst) != next || len(page.Flows) == 0 {
			st.HasFlows, st.Flows = false, nil
			return st, nil
		}
		st.Flows = append(st.Flows, page.Flows...)
		next += len(page.Flows)
	}
	return st, nil
}

// exchangeStats sends a stats request and waits for the matching answer,
// retrying with a fresh request (and PSN) each attempt. firstFlow is the
// per-flow page a Query asks for.
func (s *session) exchangeStats(ctx context.Context, kind statsKind, firstFlow uint16, attempts int, per time.Duration) (responderStats, error) {
	// A late answer to an earlier attempt is as good as the current one.
	var tokens []uint32
	for range attempts {
		if ctx.Err() != nil {
			return responderStats{}, ctx.Err()
		}
		token := rand.Uint32()
		tokens = append(tokens, token)
		var payload []byte
		switch kind {
		case statsQuery:
			payload = appendStatsQuery(nil, token, firstFlow)
		case statsBegin:
			payload = appendStatsBegin(nil, token, uint16(min(s.pol.HostMTU, 0xFFFF)))
		default:
			payload = appendStatsRequest(nil, kind, token)
		}
		pkt := []wire.Packet{{BTH: wire.BTH{Opcode: wire.OpRCSendOnly, PKey: s.pol.PKey, DestQP: s.qp + 1, AckReq: true},
			Payload: payload}}
		s.transmit(pkt, []sendRec{{kind: recControl, ackReq: true}})
		var got *statsMessage
		var gotErr error
		s.wait(ctx, per, func() bool {
			if s.statsErr != nil {
				gotErr, s.statsErr = s.statsErr, nil
				return true
			}
			for _, m := range s.statsQ {
				for _, t := range tokens {
					if m.Token == t {
						got = &m
						s.statsQ = s.statsQ[:0]
						return true
					}
				}
			}
			return false
		})
		if gotErr != nil {
			return responderStats{}, gotErr
		}
		if got != nil {
			if got.Kind == statsError {
				if got.ErrCode == statsErrVersion {
					return responderStats{}, fmt.Errorf("%w: responder %s does not speak stats version %d", ErrStatsVersion, s.peer, got.ErrArg)
				}
				return responderStats{}, fmt.Errorf("responder %s rejected the stats request (code %d)", s.peer, got.ErrCode)
			}
			return got.Stats, nil
		}
	}
	return responderStats{}, errNoStats
}
