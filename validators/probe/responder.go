package probe

import (
	"hash/maphash"
	"net/netip"
	"sync"
	"time"

	"github.com/rocefab/rocefab/validators/probe/transport"
	"github.com/rocefab/rocefab/validators/probe/wire"
)

const (
	psnMask    = 0xFFFFFF
	psnHalf    = 1 << 23
	seenWindow = 8192 // PSNs remembered for duplicate and reorder detection
	probeRKey  = 0x50524F42
)

// responder answers RC requests on the probe's responder QPs. It keeps RC
// semantics on the wire (ACK PSN and MSN, PSN sequence error NAK, READ
// responses) but never stalls a QP: a PSN gap is NAKed once and then
// accepted, because the probe measures loss instead of recovering from it.
type responder struct {
	ep       *Endpoint
	pkey     uint16
	replyTOS uint8
	cnpTOS   uint8
	maxRead  int
	maxPeers int
	seed     maphash.Seed

	mu           sync.Mutex
	states       map[stateKey]*qpState
	flowsTracked int // flowStats held by all states
	replies      tokenBucket
	replyBytes   tokenBucket
	cnps         tokenBucket
}

type stateKey struct {
	peer netip.Addr
	qp   uint32 // the responder QP (odd)
}

// qpState is the responder side of one (peer, QP) pair.
type qpState struct {
	key      stateKey
	ePSN     uint32
	msn      uint32
	sendPSN  uint32 // PSNs of the stats SENDs the responder originates
	nakedFor uint32 // ePSN value a sequence-error NAK was last sent for
	naked    bool
	highest  uint32
	seen     [seenWindow / 64]uint64
	lastUsed time.Time
	conn     int // entropy socket of replies to flows without state of their own
	stats    responderStats
	flows    []*flowStat // in order of first arrival
	lastFlow *flowStat
	mtu      int // the requester's host MTU from its Begin; 0: the responder's own
}

// flowStat is one requester flow (UDP source port) of a QP: its counters
// and the entropy socket its replies leave from. Each flow of a QP gets the
// next socket, so the replies of a sender's k flows take k reverse paths
// through an ECMP fabric, as the requests do forward.
type flowStat struct {
	fr   flowReport
	conn int
}

// Per-flow state is bounded: per QP by the most flows a policy may use,
// per endpoint so a spoofed flood cannot grow it without limit.
const (
	maxFlowsPerQP   = 256
	maxTrackedFlows = 16384
)

func rate(v int) float64 {
	if v < 0 {
		return -1
	}
	return float64(v)
}

func newResponder(e *Endpoint) *responder {
	now := e.now()
	p := e.policy
	r := &responder{
		ep: e, pkey: p.PKey, maxRead: e.cfg.MaxReadBytes, maxPeers: e.cfg.MaxPeers, seed: maphash.MakeSeed(),
		replyTOS: transport.TOS(p.RoCEDSCP, uint8(p.ECN)), cnpTOS: transport.TOS(p.CNPDSCP, uint8(p.ECN)),
		states: make(map[stateKey]*qpState),
	}
	// Bursts of a tenth of a second absorb an MTU sweep round.
	r.replies = newTokenBucket(rate(e.cfg.ReplyPPS), max(64, float64(e.cfg.ReplyPPS)/10), now)
	r.replyBytes = newTokenBucket(rate(e.cfg.ReplyBytesPerSec), max(1<<20, float64(e.cfg.ReplyBytesPerSec)/10), now)
	r.cnps = newTokenBucket(rate(e.cfg.CNPPPS), max(64, float64(e.cfg.CNPPPS)/10), now)
	return r
}

// state finds or creates the state of key; a new QP starts at psn.
func (r *responder) state(key stateKey, psn uint32, now time.Time, pool int) *qpState {
	st := r.states[key]
	if st == nil {
		if len(r.states) >= r.maxPeers {
			r.evictOldest()
		}
		st = &qpState{key: key, conn: int(maphash.Comparable(r.seed, key) % uint64(pool))}
		st.reset(psn, r)
		r.states[key] = st
	}
	st.lastUsed = now
	return st
}

// evictOldest drops the least recently used state other than keep.
func (r *responder) evictOldest(keep ...*qpState) {
	var oldest *qpState
	for _, st := range r.states {
		if (len(keep) == 0 || st != keep[0]) && (oldest == nil || st.lastUsed.Before(oldest.lastUsed)) {
			oldest = st
		}
	}
	if oldest != nil {
		r.flowsTracked -= len(oldest.flows)
		delete(r.states, oldest.key)
		r.ep.ctr.statesEvicted.Add(1)
	}
}

// findFlow returns the state of the requester flow from port, if any.
func (st *qpState) findFlow(port uint16) *flowStat {
	if f := st.lastFlow; f != nil && f.fr.Port == port {
		return f
	}
	for _, f := range st.flows {
		if f.fr.Port == port {
			st.lastFlow = f
			return f
		}
	}
	return nil
}

// flow returns the state of the requester flow from port, creating it
// with the QP's next reply socket; nil means the budget is spent and the
// flow is counted in the QP's totals only.
func (r *responder) flow(st *qpState, port uint16, pool []transport.Conn) *flowStat {
	if f := st.findFlow(port); f != nil {
		return f
	}
	if len(st.flows) >= maxFlowsPerQP {
		return nil
	}
	if r.flowsTracked >= maxTrackedFlows {
		r.evictOldest(st)
		if r.flowsTracked >= maxTrackedFlows {
			return nil
		}
	}
	conn := (st.conn + len(st.flows)) % len(pool)
	f := &flowStat{conn: conn, fr: flowReport{Port: port, ReplyPort: pool[conn].LocalAddr().Port()}}
	st.flows = append(st.flows, f)
	st.lastFlow = f
	r.flowsTracked++
	return f
}

// reset starts the QP afresh with psn as the next expected PSN (a stats
// Begin plays the role of connection setup).
func (st *qpState) reset(psn uint32, r *responder) {
	st.ePSN, st.msn, st.naked = psn, 0, false
	st.highest = (psn - 1) & psnMask
	st.seen = [seenWindow / 64]uint64{}
	st.stats = responderStats{ReplyTOS: r.replyTOS, CNPTOS: r.cnpTOS}
	r.flowsTracked -= len(st.flows)
	st.flows, st.lastFlow = nil, nil
}

type arrival uint8

const (
	arrivalNew  arrival = iota
	arrivalLate         // first copy, but after a higher PSN: reordered
	arrivalDup
)

// markSeen classifies psn against the PSNs already received.
func (st *qpState) markSeen(psn uint32) arrival {
	bit := func(p uint32) (int, uint64) { i := p % seenWindow; return int(i / 64), 1 << (i % 64) }
	ahead := (psn - st.highest) & psnMask
	if ahead != 0 && ahead < psnHalf {
		// Clear the slots between the old highest and psn, then set psn.
		n := min(ahead, seenWindow)
		for p := (st.highest + 1) & psnMask; n > 0; p, n = (p+1)&psnMask, n-1 {
			w, m := bit(p)
			st.seen[w] &^= m
		}
		w, m := bit(psn)
		st.seen[w] |= m
		st.highest = psn
		return arrivalNew
	}
	back := (st.highest - psn) & psnMask
	if back >= seenWindow {
		return arrivalDup // too old to tell; treat as a repeat
	}
	w, m := bit(psn)
	if st.seen[w]&m != 0 {
		return arrivalDup
	}
	st.seen[w] |= m
	return arrivalLate
}

// handle processes one request addressed to a responder QP.
func (r *responder) handle(m *transport.Message, p *wire.Packet, icrcOK bool, out *replyBatch) {
	op := p.BTH.Opcode
	if op.Transport() != wire.RC || op.Class() != wire.ClassRequest {
		r.ep.ctr.unexpected.Add(1)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.ep.now()
	key := stateKey{peer: m.Peer.Addr(), qp: p.BTH.DestQP}
	if !icrcOK {
		// Book it against the QP if we know it; a corrupted header must not
		// create state.
		if st := r.states[key]; st != nil {
			st.stats.ICRCErrors++
			if f := st.findFlow(m.Peer.Port()); f != nil {
				f.fr.ICRCErrors++
			}
		}
		return
	}
	st := r.state(key, p.BTH.PSN, now, len(out.fam.pool))
	psn := p.BTH.PSN

	var stats statsMessage
	var statsErr error
	isStats := (op == wire.OpRCSendOnly) && isStatsPayload(p.Payload)
	if isStats {
		stats, statsErr = parseStats(p.Payload, m.Peer.Addr().String())
		if statsErr == nil && stats.Kind == statsBegin {
			st.reset(psn, r)
			st.mtu = int(stats.HostMTU)
		}
	}
	fl := r.flow(st, m.Peer.Port(), out.fam.pool)
	rc := replyCtx{r: r, st: st, fl: fl, conn: st.conn, out: out, peer: m.Peer.Addr(), local: m.Local, now: now}
	if fl != nil {
		rc.conn = fl.conn
	}

	dscp, ecn := transport.SplitTOS(m.TOS)
	if ECN(ecn) == CE {
		// Notification point: every CE-marked request earns a CNP to the
		// requester's QP (rate-limited). Replies, ACKs and CNPs never do.
		rc.cnp()
	}
	seen := st.markSeen(psn)
	if !isStats {
		switch seen {
		case arrivalDup:
			st.stats.Duplicates++
		case arrivalLate:
			st.stats.Reordered++
		}
		if seen != arrivalDup {
			st.stats.Received++
			st.stats.Bytes += uint64(len(m.Payload()))
			st.stats.DSCP[dscp]++
			st.stats.ECN[ecn]++
			if ECN(ecn) == CE {
				st.stats.CE++
			}
			st.stats.MaxSize = max(st.stats.MaxSize, uint16(min(len(m.Payload()), 0xFFFF)))
			if fl != nil {
				fl.fr.Received++
				fl.fr.DSCP[dscp]++
				fl.fr.ECN[ecn]++
			}
		}
	}
	rc.data = !isStats

	diff := (psn - st.ePSN) & psnMask
	switch {
	case diff == 0:
		st.ePSN = (psn + rc.execute(p)) & psnMask
	case diff < psnHalf:
		// Packets are missing: NAK the first missing PSN once, then accept
		// this packet and move on.
		if !st.naked || st.nakedFor != st.ePSN {
			rc.nak(wire.NAKPSNSequenceError, st.ePSN)
			st.naked, st.nakedFor = true, st.ePSN
		}
		st.ePSN = (psn + rc.execute(p)) & psnMask
	default:
		// Behind ePSN: RC treats it as a duplicate request (C9-105): SEND
		// and WRITE are ACKed again with the last PSN, READ is re-executed.
		if op.Operation() == wire.ReadRequest {
			if int(p.RETH.DMALength) <= r.maxRead {
				rc.readResponses(psn, p.RETH) // same MSN: not a new message
			}
		} else if p.BTH.AckReq {
			rc.ack((st.ePSN - 1) & psnMask)
		}
	}
	if isStats && seen != arrivalDup {
		rc.data = false
		rc.statsAnswer(stats, statsErr)
	}
}

// replyCtx carries what one request's replies need.
type replyCtx struct {
	r           *responder
	st          *qpState
	fl          *flowStat // the requester flow, nil when not tracked
	conn        int       // the entropy socket replies leave from
	out         *replyBatch
	peer, local netip.Addr
	now         time.Time
	data        bool // the request is a data packet (counts towards RepliesSent)
}

// execute performs a request that is in sequence (or accepted after a gap)
// and returns how many PSNs it consumes.
func (rc *replyCtx) execute(p *wire.Packet) uint32 {
	st := rc.st
	psn := p.BTH.PSN
	switch p.BTH.Opcode.Operation() {
	case wire.SendOnly, wire.SendOnlyImm, wire.SendLast, wire.SendLastImm, wire.SendLastInvalidate,
		wire.SendOnlyInvalidate, wire.WriteOnly, wire.WriteOnlyImm, wire.WriteLast, wire.WriteLastImm:
		st.msn = (st.msn + 1) & psnMask // a message completed
		if p.BTH.AckReq {
			rc.ack(psn)
		}
		return 1
	case wire.SendFirst, wire.SendMiddle, wire.WriteFirst, wire.WriteMiddle:
		if p.BTH.AckReq {
			rc.ack(psn)
		}
		return 1
	case wire.ReadRequest:
		n := int(p.RETH.DMALength)
		if n > rc.r.maxRead {
			rc.nak(wire.NAKInvalidRequest, psn)
			return 1
		}
		st.msn = (st.msn + 1) & psnMask
		return rc.readResponses(psn, p.RETH)
	}
	rc.r.ep.ctr.unsupported.Add(1)
	rc.nak(wire.NAKInvalidRequest, psn)
	return 1
}

// maxReadSegment is the READ response payload that fits the host MTU the
// requester announced in its Begin, else the responder's own: the probe
// segments at the IP MTU under test, not an IB MTU. Requester and responder
// must agree, or they disagree on how many PSNs a READ consumes.
func (rc *replyCtx) maxReadSegment() int {
	mtu := rc.r.ep.policy.HostMTU
	if rc.st.mtu >= 576 {
		mtu = rc.st.mtu
	}
	seg := mtu - wire.IPOverhead(rc.peer) - wire.BTHLen - wire.AETHLen - wire.ICRCLen
	return max(256, seg&^3)
}

// readResponses sends READ Response Only, or First/Middle/Last, starting at
// the request's PSN; the payload is a pattern derived from the VA.
func (rc *replyCtx) readResponses(psn uint32, reth wire.RETH) uint32 {
	total := int(reth.DMALength)
	seg := rc.maxReadSegment()
	n := max(1, (total+seg-1)/seg)
	off := 0
	for i := range n {
		size := min(seg, total-off)
		var op wire.Opcode
		switch {
		case n == 1:
			op = wire.OpRCReadResponseOnly
		case i == 0:
			op = wire.OpRCReadResponseFirst
		case i == n-1:
			op = wire.OpRCReadResponseLast
		default:
			op = wire.OpRCReadResponseMiddle
		}
		p := wire.Packet{BTH: wire.BTH{Opcode: op, PKey: rc.r.pkey, DestQP: rc.st.key.qp - 1, PSN: (psn + uint32(i)) & psnMask}}
		if op != wire.OpRCReadResponseMiddle {
			p.AETH = wire.AETH{Syndrome: wire.AckCreditsInvalid, MSN: rc.st.msn}
		}
		rc.send(replyRead, &p, func(b []byte) []byte { return appendReadPattern(b, reth.VA+uint64(off), size) })
		off += size
	}
	return uint32(n)
}

// appendReadPattern is the content a READ returns: byte i is VA+i, so the
// requester can check what came back.
func appendReadPattern(b []byte, va uint64, n int) []byte {
	for i := range n {
		b = append(b, byte(va+uint64(i)))
	}
	return b
}

func (rc *replyCtx) ack(psn uint32) {
	p := wire.Packet{BTH: wire.BTH{Opcode: wire.OpRCAcknowledge, PKey: rc.r.pkey, DestQP: rc.st.key.qp - 1, PSN: psn},
		AETH: wire.AETH{Syndrome: wire.AckCreditsInvalid, MSN: rc.st.msn}}
	rc.send(replyACK, &p, nil)
}

func (rc *replyCtx) nak(syndrome uint8, psn uint32) {
	p := wire.Packet{BTH: wire.BTH{Opcode: wire.OpRCAcknowledge, PKey: rc.r.pkey, DestQP: rc.st.key.qp - 1, PSN: psn},
		AETH: wire.AETH{Syndrome: syndrome, MSN: rc.st.msn}}
	rc.send(replyNAK, &p, nil)
}

func (rc *replyCtx) cnp() {
	// CNP per roce-wire.md §5: BECN set, PSN 0, 16 reserved bytes.
	p := wire.Packet{BTH: wire.BTH{Opcode: wire.OpCNP, PKey: rc.r.pkey, BECN: true, DestQP: rc.st.key.qp - 1}}
	rc.send(replyCNP, &p, nil)
}

// statsAnswer replies to a stats request with a SEND of our own.
func (rc *replyCtx) statsAnswer(req statsMessage, err error) {
	st := rc.st
	p := wire.Packet{BTH: wire.BTH{Opcode: wire.OpRCSendOnly, PKey: rc.r.pkey, DestQP: st.key.qp - 1, PSN: st.sendPSN}}
	st.sendPSN = (st.sendPSN + 1) & psnMask
	var body func([]byte) []byte
	switch {
	case err != nil:
		code, arg := statsErrKind, uint8(0)
		if req.Version != StatsVersion {
			code, arg = statsErrVersion, req.Version
		}
		body = func(b []byte) []byte { return appendStatsError(b, req.Token, code, arg) }
	case req.Kind == statsBegin || req.Kind == statsQuery:
		snapshot := st.stats
		snapshot.Token = req.Token
		st.flowPage(&snapshot, int(req.FirstFlow))
		body = func(b []byte) []byte { return appendStatsReply(b, &snapshot) }
	default:
		body = func(b []byte) []byte { return appendStatsError(b, req.Token, statsErrKind, uint8(req.Kind)) }
	}
	rc.send(replyStats, &p, body)
}

// flowPage fills s's per-flow section with the flows from first on that
// fit one stats reply.
func (st *qpState) flowPage(s *responderStats, first int) {
	first = min(first, len(st.flows))
	// What is left of a packet that fits any path once the counters are in.
	budget := statsReplyMax - wire.BTHLen - wire.ICRCLen - len(appendStatsReply(nil, s)) - flowsHdrLen
	s.HasFlows, s.FlowsTotal, s.FlowsFirst = true, uint16(len(st.flows)), uint16(first)
	for _, f := range st.flows[first:] {
		n := f.fr.encodedLen()
		if len(s.Flows) > 0 && (n > budget || len(s.Flows) == 255) {
			break
		}
		budget -= n
		s.Flows = append(s.Flows, f.fr)
	}
}

type replyKind uint8

const (
	replyACK   replyKind = iota // ACK to a request
	replyRead                   // READ response
	replyNAK                    // NAK
	replyStats                  // stats SEND
	replyCNP
)

// sentIndex is where a reply of kind counts in flowReport.Sent; -1: not
// counted per flow (stats SENDs, ACKs to stats requests).
func sentIndex(kind replyKind, data bool) int {
	switch {
	case kind == replyCNP:
		return sentCNP
	case kind == replyNAK:
		return sentNAK
	case kind == replyACK && data:
		return sentACK
	case kind == replyRead && data:
		return sentRead
	}
	return -1
}

// send rate-limits and queues one reply. Replies go to the requester's
// RoCEv2 port from the entropy port of the request's flow, so one flow
// keeps one path and its packets stay in order.
func (rc *replyCtx) send(kind replyKind, p *wire.Packet, payload func([]byte) []byte) {
	r, st := rc.r, rc.st
	if kind == replyCNP {
		if !r.cnps.take(1, rc.now) {
			st.stats.CNPsRateLimited++
			r.ep.ctr.cnpsRateLimited.Add(1)
			return
		}
	} else if !r.replies.take(1, rc.now) {
		st.stats.RepliesRateLimited++
		r.ep.ctr.repliesRateLimited.Add(1)
		return
	}
	tos := r.replyTOS
	if kind == replyCNP {
		tos = r.cnpTOS
	}
	n, ok := rc.out.add(rc.conn, netip.AddrPortFrom(rc.peer, r.ep.cfg.Port), rc.local, tos, p, payload,
		replyMeta{conn: rc.conn, st: st, fl: rc.fl, kind: kind, data: rc.data})
	if !ok {
		return
	}
	// READ responses can be large: bytes are limited as well as packets.
	if kind != replyCNP && !r.replyBytes.take(float64(n), rc.now) {
		rc.out.drop()
		st.stats.RepliesRateLimited++
		r.ep.ctr.repliesRateLimited.Add(1)
		return
	}
	if i := sentIndex(kind, rc.data); i >= 0 && rc.fl != nil {
		rc.fl.fr.Sent[i]++
	}
	switch kind {
	case replyCNP:
		st.stats.CNPsSent++
		r.ep.ctr.cnpsSent.Add(1)
	case replyACK, replyRead:
		if rc.data {
			st.stats.RepliesSent++
		}
		r.ep.ctr.repliesSent.Add(1)
	default:
		r.ep.ctr.repliesSent.Add(1)
	}
}

// replyBatch collects a receive loop's replies and sends them together.
type replyBatch struct {
	e       *Endpoint
	fam     *family
	msgs    []transport.Message
	meta    []replyMeta
	n       int
	h       wire.Hasher
	scratch []byte // payload under construction
}

type replyMeta struct {
	conn int
	st   *qpState
	fl   *flowStat
	kind replyKind
	data bool
}

func newReplyBatch(e *Endpoint, f *family) *replyBatch {
	b := &replyBatch{e: e, fam: f, msgs: make([]transport.Message, transport.MaxBatch),
		meta: make([]replyMeta, transport.MaxBatch), scratch: make([]byte, 0, f.bufSize)}
	for i := range b.msgs {
		b.msgs[i].Buf = make([]byte, 0, f.bufSize)
	}
	return b
}

// add encodes p, with the payload that payload appends, into the next slot
// and returns its size. The responder lock is held.
func (b *replyBatch) add(conn int, dst netip.AddrPort, src netip.Addr, tos uint8, p *wire.Packet,
	payload func([]byte) []byte, meta replyMeta) (int, bool) {
	if b.n == len(b.msgs) {
		b.flush(true)
	}
	m := &b.msgs[b.n]
	c := b.fam.pool[conn]
	env := wire.Envelope{Src: src, Dst: dst.Addr(), SrcPort: c.LocalAddr().Port(), DstPort: dst.Port(), DontFragment: true}
	if payload != nil {
		b.scratch = payload(b.scratch[:0])
		p.Payload = b.scratch
	}
	buf, err := b.h.Encode(m.Buf[:0], &env, p)
	if err != nil {
		return 0, false
	}
	m.Buf, m.Peer, m.Local, m.TOS = buf, dst, src, tos
	b.meta[b.n] = meta
	b.n++
	return len(buf), true
}

// drop removes the slot add just filled.
func (b *replyBatch) drop() { b.n-- }

// flush sends the queued replies in the order they were queued, one
// WriteBatch per run of replies from the same entropy socket, and books
// send failures (e.g. a READ response larger than the local link). The
// order matters: a stats answer must not overtake the ACKs queued before
// it on another socket, or the sender would count those ACKs as lost.
// locked says whether the caller holds the responder lock.
func (b *replyBatch) flush(locked bool) {
	if b.n == 0 {
		return
	}
	var failed [transport.MaxBatch]int
	nf := 0
	for i := 0; i < b.n; {
		j := i + 1
		for j < b.n && b.meta[j].conn == b.meta[i].conn {
			j++
		}
		ms := b.msgs[i:j]
		_, err := b.fam.pool[b.meta[i].conn].WriteBatch(ms)
		for k := range ms {
			if err != nil || ms[k].Err != nil {
				failed[nf] = i + k
				nf++
			}
		}
		i = j
	}
	if nf > 0 {
		r := b.e.resp
		if !locked {
			r.mu.Lock()
		}
		for _, i := range failed[:nf] {
			meta := b.meta[i]
			b.e.ctr.sendErrors.Add(1)
			meta.st.stats.ReplySendErrors++
			if (meta.kind == replyACK || meta.kind == replyRead) && meta.data && meta.st.stats.RepliesSent > 0 {
				meta.st.stats.RepliesSent--
			}
			if k := sentIndex(meta.kind, meta.data); k >= 0 && meta.fl != nil && meta.fl.fr.Sent[k] > 0 {
				meta.fl.fr.Sent[k]--
			}
		}
		if !locked {
			r.mu.Unlock()
		}
	}
	b.n = 0
}
