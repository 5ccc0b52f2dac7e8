package probe

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/validators/probe/transport"
	"github.com/rocefab/rocefab/validators/probe/wire"
)

// PairResult is the outcome for one sender → responder pair.
type PairResult struct {
	From         string       `json:"from"`
	To           string       `json:"to"`
	Verdict      Verdict      `json:"verdict"`
	Measurements Measurements `json:"measurements"`
}

// Name is "from -> to", the pair's name in findings.
func (p PairResult) Name() string { return p.From + " -> " + p.To }

// Run probes every target from this endpoint and returns the report. The
// run's policy must use the endpoint's P_Key and QP range (the endpoint
// answers nothing else). A cancelled ctx returns the partial report with
// ctx's error.
func (e *Endpoint) Run(ctx context.Context, cfg RunConfig) (*Report, error) {
	if len(cfg.Targets) == 0 {
		return nil, ErrNoTargets
	}
	pol := cfg.Policy.withDefaults()
	if err := pol.Validate(); err != nil {
		return nil, err
	}
	if pol.PKey != e.policy.PKey || pol.QPMin != e.policy.QPMin || pol.QPMax != e.policy.QPMax {
		return nil, fmt.Errorf("%w: run uses P_Key 0x%04x QPs 0x%x-0x%x, endpoint 0x%04x QPs 0x%x-0x%x",
			ErrPolicyMismatch, pol.PKey, pol.QPMin, pol.QPMax, e.policy.PKey, e.policy.QPMin, e.policy.QPMax)
	}
	var pw *transport.PcapWriter
	if cfg.Pcap != nil {
		var err error
		if pw, err = transport.NewPcapWriter(cfg.Pcap); err != nil {
			return nil, fmt.Errorf("pcap: %w", err)
		}
	}
	parallel := cfg.Parallel
	if parallel <= 0 {
		parallel = 4
	}
	results := make([]PairResult, len(cfg.Targets))
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i, t := range cfg.Targets {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			results[i] = e.probePair(ctx, cfg.From, t, pol, pw)
			e.log.Info("probe pair done", zap.String("pair", results[i].Name()),
				zap.Bool("reachable", results[i].Measurements.Reachable))
		}()
	}
	wg.Wait()
	return NewReport(results, pol), ctx.Err()
}

func (e *Endpoint) probePair(ctx context.Context, from string, t Target, pol Policy, pw *transport.PcapWriter) PairResult {
	began := time.Now()
	res := PairResult{From: from, To: t.label()}
	m := &res.Measurements
	m.IntentMTU = pol.HostMTU
	m.IPOverhead = wire.IPOverhead(t.Addr)
	m.Port = e.cfg.Port
	m.DSCPSent, m.ECNSent = pol.RoCEDSCP, pol.ECN
	m.Reverse.DSCPSent, m.Reverse.ECNSent = pol.RoCEDSCP, pol.ECN
	m.CNPDSCPSent = pol.CNPDSCP
	defer func() { m.ElapsedMillis = time.Since(began).Milliseconds() }()

	expected := pol.Count
	if pol.Duration > 0 {
		expected = maxSessionPackets
	}
	s, err := e.newSession(t.Addr, pol, expected, pw)
	if err != nil {
		if res.From == "" {
			res.From = e.cfg.Name
		}
		m.Error = err.Error()
		return res
	}
	defer s.close()
	if res.From == "" {
		res.From = s.src.String()
	}

	// 1. Handshake: a stats Begin, retried until the connect timeout.
	_, beginErr := s.connect(ctx)
	s.mu.Lock()
	m.Reachable = s.anyReply
	s.mu.Unlock()
	if !m.Reachable {
		m.Error = fmt.Sprintf("no probe responder answered at %s within %s", s.dst, pol.ConnectTimeout)
		return res
	}

	// 2. Data: SEND Only at the policy's rate, DSCP and ECN.
	s.runData(ctx)
	s.wait(ctx, pol.ReplyTimeout, func() bool { return s.inflight <= 0 })
	s.giveUp()

	// 3. What did the responder see?
	st, statsErr := responderStats{}, beginErr
	if beginErr == nil || errors.Is(beginErr, errNoStats) {
		st, statsErr = s.exchangeStats(ctx, statsQuery, 5, max(100*time.Millisecond, pol.ReplyTimeout/2))
	}
	s.fill(m, st, statsErr)

	// 4. Path MTU, both directions, on a QP of its own so the sweep does
	// not mix with the data counters.
	if !pol.SkipMTUSweep && ctx.Err() == nil {
		e.sweep(ctx, t.Addr, pol, pw, m)
	}
	return res
}

// runData sends the data phase.
func (s *session) runData(ctx context.Context) {
	p := s.pol
	payload := make([]byte, p.PayloadSize) // payload[0] == 0: never a stats message
	for i := 1; i < len(payload); i++ {
		payload[i] = byte(i)
	}
	ipSize := int32(wire.IPOverhead(s.peer) + wire.BTHLen + len(payload) + wire.PadLen(len(payload)) + wire.ICRCLen)
	total := p.Count
	var deadline time.Time
	if p.Duration > 0 {
		total = maxSessionPackets
		deadline = time.Now().Add(p.Duration)
	}
	total = min(total, maxSessionPackets)
	batch := transport.MaxBatch
	var interval time.Duration
	if p.RatePPS > 0 {
		batch = min(max(p.RatePPS/1000, 1), transport.MaxBatch) // about one batch a millisecond
		interval = time.Duration(batch) * time.Second / time.Duration(p.RatePPS)
	}
	if p.Outstanding > 0 {
		batch = min(batch, p.Outstanding)
	}
	pkts := make([]wire.Packet, transport.MaxBatch)
	recs := make([]sendRec, transport.MaxBatch)
	next := time.Now()
	for sent := 0; sent < total; {
		if ctx.Err() != nil || s.ep.closed.Load() || (!deadline.IsZero() && time.Now().After(deadline)) {
			return
		}
		k := min(batch, total-sent)
		if p.Outstanding > 0 {
			k = min(k, s.waitRoom(ctx, p.Outstanding, p.ReplyTimeout))
		}
		for j := range k {
			i := sent + j
			ackReq := (i+1)%p.AckEvery == 0 || i == total-1
			pkts[j] = wire.Packet{BTH: wire.BTH{Opcode: wire.OpRCSendOnly, PKey: p.PKey, DestQP: s.qp + 1, AckReq: ackReq}, Payload: payload}
			recs[j] = sendRec{kind: recData, ackReq: ackReq, ipSize: ipSize}
		}
		s.transmit(pkts[:k], recs[:k])
		sent += k
		if interval > 0 {
			next = next.Add(interval)
			if d := time.Until(next); d > 0 {
				t := time.NewTimer(d)
				select {
				case <-t.C:
				case <-ctx.Done():
					t.Stop()
				}
			} else if d < -100*time.Millisecond {
				next = time.Now() // fell far behind: do not burst to catch up
			}
		}
	}
}

// waitRoom blocks until fewer than limit AckReq packets are in flight and
// returns the room. After timeout it stops waiting for what is in flight.
func (s *session) waitRoom(ctx context.Context, limit int, timeout time.Duration) int {
	room := func() int { return limit - s.inflight }
	if s.wait(ctx, timeout, func() bool { return room() > 0 }) {
		s.mu.Lock()
		defer s.mu.Unlock()
		return max(1, room())
	}
	s.giveUp()
	return limit
}

// fill turns the session's records and the responder's stats into m.
func (s *session) fill(m *Measurements, st responderStats, statsErr error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sent, ackReqs, acked := 0, 0, 0
	for off := s.n - min(s.n, uint32(len(s.ring))); off < s.n; off++ {
		r := &s.ring[off&uint32(len(s.ring)-1)]
		if r.kind != recData || r.sendErr {
			continue
		}
		sent++
		if r.ackReq {
			ackReqs++
			if r.acked {
				acked++
			}
		}
	}
	m.Flows = s.flows
	m.Sent = sent
	m.RoundTripLossPercent = percent(ackReqs-acked, ackReqs)
	m.RTT = summarizeRTT(s.rttNs, s.kernelTS, s.userTS)
	rv := &m.Reverse
	rv.Received = s.rev.received
	rv.ICRCErrors = s.rev.icrcErrors
	rv.Duplicates = s.rev.dups // refined below when the responder's count is known
	rv.Reordered = s.rev.reordered
	rv.DSCPReceived = dscpHist(s.rev.dscp[:])
	rv.ECNReceived = ecnHist(s.rev.ecn[:])
	rv.CEMarked = s.rev.ce
	rv.CEFraction = fraction(s.rev.ce, s.rev.received)
	m.NAKsReceived = s.rev.naks
	m.CNPsReceived = s.rev.cnps
	if s.rev.cnps > 0 {
		m.CNPDSCPReceived = dscpHist(s.rev.cnpDSCP[:])
	}
	if statsErr != nil {
		// Without the responder's view only round-trip figures are known.
		m.StatsError = statsErr.Error()
		m.StatsVersionMismatch = errors.Is(statsErr, ErrStatsVersion)
		m.Received = acked
		m.LossPercent = m.RoundTripLossPercent
		rv.Sent = rv.Received
		return
	}
	m.StatsExchanged = true
	m.Received = int(st.Received)
	m.LossPercent = percent(sent-m.Received, sent)
	m.Reordered, m.Duplicates, m.ICRCErrors = int(st.Reordered), int(st.Duplicates), int(st.ICRCErrors)
	m.DSCPReceived = dscpHist(u32s(st.DSCP[:]))
	m.ECNReceived = ecnHist(u32s(st.ECN[:]))
	m.CEMarked = int(st.CE)
	m.CEFraction = fraction(int(st.CE), int(st.Received))
	rv.Sent = int(st.RepliesSent)
	rv.LossPercent = percent(rv.Sent-rv.Received, rv.Sent)
	rv.Duplicates = max(0, rv.Received-rv.Sent)
	rv.DSCPSent, rv.ECNSent = st.ReplyTOS>>2, ECN(st.ReplyTOS&3)
	m.CNPsSent, m.CNPsRateLimited, m.CNPDSCPSent = int(st.CNPsSent), int(st.CNPsRateLimited), st.CNPTOS>>2
	m.RepliesRateLimited = int(st.RepliesRateLimited)
}

func u32s(v []uint32) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}

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

const sweepTries = 3 // packets per size and direction; a size passes if one gets through

// SweepLadder is the default ladder of IP packet sizes the MTU sweep tries
// up to hostMTU, for callers that add sizes of their own.
func SweepLadder(hostMTU int) []int { return sweepLadder(hostMTU) }

// sweep finds the largest IP packet that crosses in each direction: SENDs
// of size S forward, READs whose response is S bytes reverse, all with DF.
// It probes a ladder, then narrows the gap between the largest size that
// passed and the smallest that failed.
func (e *Endpoint) sweep(ctx context.Context, target netip.Addr, pol Policy, pw *transport.PcapWriter, m *Measurements) {
	s, err := e.newSession(target, pol, 2048, pw)
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
	ov := wire.IPOverhead(target)
	// Search rounds wait a multiple of the RTT; a size is only declared
	// lost after a confirmation round that waits the full reply timeout, so
	// a slow machine cannot fake a black hole.
	wait := pol.ReplyTimeout
	if m.RTT.Samples > 0 {
		wait = min(wait, max(50*time.Millisecond, time.Duration(20*m.RTT.P999*1e3)))
	}
	fwd, rev := map[int]bool{}, map[int]bool{}
	// The data phase already proved its own packet size (forward) and the
	// ACK size (reverse); those seed the search but are not listed.
	seedF := ov + wire.BTHLen + pol.PayloadSize + wire.PadLen(pol.PayloadSize) + wire.ICRCLen
	seedR := ov + wire.BTHLen + wire.AETHLen + wire.ICRCLen
	if m.Received > 0 {
		fwd[seedF] = true
	}
	if m.Reverse.Received > 0 {
		rev[seedR] = true
	}
	payload := make([]byte, pol.HostMTU)
	for i := 1; i < len(payload); i++ {
		payload[i] = byte(i)
	}

	round := func(fsizes, rsizes []int, wait time.Duration) {
		var pkts []wire.Packet
		var recs []sendRec
		for _, size := range fsizes {
			n := (size - ov - wire.BTHLen - wire.ICRCLen) &^ 3
			if n < 4 {
				continue
			}
			for range sweepTries {
				pkts = append(pkts, wire.Packet{BTH: wire.BTH{Opcode: wire.OpRCSendOnly, PKey: pol.PKey, DestQP: s.qp + 1, AckReq: true}, Payload: payload[:n]})
				recs = append(recs, sendRec{kind: recSweepSend, ipSize: int32(ov + wire.BTHLen + n + wire.ICRCLen), ackReq: true})
			}
		}
		for _, size := range rsizes {
			n := (size - ov - wire.BTHLen - wire.AETHLen - wire.ICRCLen) &^ 3
			if n < 4 {
				continue
			}
			for range sweepTries {
				pkts = append(pkts, wire.Packet{BTH: wire.BTH{Opcode: wire.OpRCReadRequest, PKey: pol.PKey, DestQP: s.qp + 1, AckReq: true},
					RETH: wire.RETH{VA: uint64(size) << 32, RKey: probeRKey, DMALength: uint32(n)}})
				recs = append(recs, sendRec{kind: recSweepRead, ipSize: int32(ov + wire.BTHLen + wire.AETHLen + n + wire.ICRCLen), readLen: int32(n), ackReq: true})
			}
		}
		for i := 0; i < len(pkts); i += transport.MaxBatch {
			j := min(i+transport.MaxBatch, len(pkts))
			s.transmit(pkts[i:j], recs[i:j])
		}
		s.wait(ctx, wait, func() bool { return s.inflight <= 0 })
		s.giveUp()
		// Judge every sweep packet so far: a late reply to an earlier round
		// still proves its size.
		s.mu.Lock()
		defer s.mu.Unlock()
		for off := s.n - min(s.n, uint32(len(s.ring))); off < s.n; off++ {
			r := &s.ring[off&uint32(len(s.ring)-1)]
			switch r.kind {
			case recSweepSend:
				fwd[int(r.ipSize)] = fwd[int(r.ipSize)] || r.acked
			case recSweepRead:
				rev[int(r.ipSize)] = rev[int(r.ipSize)] || r.acked
			}
		}
	}

	ladder := pol.Sizes
	if len(ladder) == 0 {
		ladder = sweepLadder(pol.HostMTU)
	}
	round(ladder, ladder, wait)
	confirmed := map[string]bool{}
	unconfirmed := func(dir string, res map[int]bool) []int {
		if _, hi := bounds(res); hi > 0 && !confirmed[fmt.Sprint(dir, hi)] {
			confirmed[fmt.Sprint(dir, hi)] = true
			return []int{hi}
		}
		return nil
	}
	for range 12 {
		if ctx.Err() != nil {
			break
		}
		if fc, rc := between(fwd), between(rev); len(fc) > 0 || len(rc) > 0 {
			round(fc, rc, wait)
			continue
		}
		fc, rc := unconfirmed("f", fwd), unconfirmed("r", rev)
		if len(fc) == 0 && len(rc) == 0 {
			break
		}
		round(fc, rc, pol.ReplyTimeout)
	}
	m.PathMTU, _ = bounds(fwd)
	m.PathMTUReverse, _ = bounds(rev)
	delete(fwd, seedF)
	delete(rev, seedR)
	for _, size := range slices.Sorted(maps.Keys(fwd)) {
		m.MTUProbes = append(m.MTUProbes, SizeProbe{Size: size, Direction: "forward", Passed: fwd[size]})
	}
	for _, size := range slices.Sorted(maps.Keys(rev)) {
		m.MTUProbes = append(m.MTUProbes, SizeProbe{Size: size, Direction: "reverse", Passed: rev[size]})
	}
}

// bounds returns the largest size that passed and the smallest failed size
// above it (0 if none). Failures below a pass are loss, not MTU.
func bounds(res map[int]bool) (lo, hi int) {
	for s, ok := range res {
		if ok && s > lo {
			lo = s
		}
	}
	for s, ok := range res {
		if !ok && s > lo && (hi == 0 || s < hi) {
			hi = s
		}
	}
	return lo, hi
}

// between picks up to 7 sizes (multiples of 4) inside the open gap.
func between(res map[int]bool) []int {
	lo, hi := bounds(res)
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
