package probe

import (
	"context"
	"errors"
	"fmt"
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
func (e *Endpoint) Run(ctx context.Context, cfg RunConfig) (rep *Report, err error) {
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
	for _, f := range e.fams {
		if pol.HostMTU+256 > f.bufSize {
			return nil, fmt.Errorf("%w: the run's host MTU %d is larger than this endpoint receives (%d bytes); start it (probe serve) with an intent of that MTU",
				ErrPolicyMismatch, pol.HostMTU, f.bufSize-256)
		}
	}
	var pw *transport.PcapWriter
	if cfg.Pcap != nil {
		var err error
		if pw, err = transport.NewPcapWriter(cfg.Pcap); err != nil {
			return nil, fmt.Errorf("pcap: %w", err)
		}
	}
	if cfg.HostCounters != nil {
		finish := cfg.HostCounters.Start(ctx)
		defer func() {
			if rep != nil {
				rep.HostCounters = append(rep.HostCounters, finish(context.WithoutCancel(ctx)))
			}
		}()
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
	e.explainSilence(ctx, results, cfg.Targets, pol)
	return NewReport(results, pol), ctx.Err()
}

func (e *Endpoint) probePair(ctx context.Context, from string, t Target, pol Policy, pw *transport.PcapWriter) (res PairResult) {
	began := time.Now()
	res = PairResult{From: from, To: t.label()}
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
		st, statsErr = s.queryStats(ctx, 5, max(100*time.Millisecond, pol.ReplyTimeout/2))
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
	readLen := p.PayloadSize
	readSize := int32(wire.IPOverhead(s.peer) + wire.BTHLen + wire.AETHLen + readLen + wire.PadLen(readLen) + wire.ICRCLen)
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
	onFlow := make([]int, s.flows) // packets sent on each flow, so every flow carries READs
	next := time.Now()
	for sent := 0; sent < total; {
		if ctx.Err() != nil || s.ep.closed.Load() || (!deadline.IsZero() && time.Now().After(deadline)) {
			return
		}
		k := min(batch, total-sent)
		if p.Outstanding > 0 {
			k = min(k, s.waitRoom(ctx, p.Outstanding, p.ReplyTimeout))
		}
		flow := s.flow % s.flows
		s.flow++
		for j := range k {
			i := sent + j
			ackReq := (i+1)%p.AckEvery == 0 || i == total-1
			onFlow[flow]++
			if p.ReadEvery > 0 && onFlow[flow]%p.ReadEvery == 0 {
				// A READ is always answered, so it is always awaited.
				pkts[j] = wire.Packet{BTH: wire.BTH{Opcode: wire.OpRCReadRequest, PKey: p.PKey, DestQP: s.qp + 1, AckReq: true},
					RETH: wire.RETH{VA: uint64(i) << 16, RKey: probeRKey, DMALength: uint32(readLen)}}
				recs[j] = sendRec{kind: recDataRead, ackReq: true, ipSize: readSize, readLen: int32(readLen)}
				continue
			}
			pkts[j] = wire.Packet{BTH: wire.BTH{Opcode: wire.OpRCSendOnly, PKey: p.PKey, DestQP: s.qp + 1, AckReq: ackReq}, Payload: payload}
			recs[j] = sendRec{kind: recData, ackReq: ackReq, ipSize: ipSize}
		}
		s.transmitOn(flow, pkts[:k], recs[:k])
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
	var sentOn [maxFlowsPerQP]int
	for off := s.n - min(s.n, uint32(len(s.ring))); off < s.n; off++ {
		r := &s.ring[off&uint32(len(s.ring)-1)]
		if (r.kind != recData && r.kind != recDataRead) || r.sendErr {
			continue
		}
		sent++
		sentOn[r.flow]++
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
	var flows []flowReport
	if statsErr == nil && st.HasFlows && flowsAddUp(st) {
		flows = st.Flows
	}
	m.PerFlow, m.FlowsComplete = s.forwardFlows(sentOn[:s.flows], flows)
	rv.PerFlow, rv.FlowsComplete = s.reverseFlows(flows)
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

// flowsAddUp reports whether the responder's flows account for all it
// counted. A responder out of per-flow budget tracks some flows in its
// totals only; per flow, those would look entirely lost.
func flowsAddUp(st responderStats) bool {
	var rx, replies uint32
	for i := range st.Flows {
		rx += st.Flows[i].Received
		replies += st.Flows[i].Sent[sentACK] + st.Flows[i].Sent[sentRead]
	}
	return rx == st.Received && replies == st.RepliesSent
}

// forwardFlows is the forward direction per flow: what each of this
// session's entropy sockets sent, and what the responder received from
// it. Without the responder's flows only the sent counts are known and no
// flow is listed. Caller holds s.mu.
func (s *session) forwardFlows(sentOn []int, flows []flowReport) ([]FlowStats, bool) {
	if flows == nil {
		return nil, false
	}
	var out []FlowStats
	for i, n := range sentOn {
		port := s.flowPort(i)
		fs := FlowStats{SrcPort: port, Kind: KindData, Sent: n, DSCPReceived: map[uint8]int{}, ECNReceived: map[ECN]int{}}
		for j := range flows {
			if f := &flows[j]; f.Port == port {
				fs.Received, fs.ICRCErrors = int(f.Received), int(f.ICRCErrors)
				fs.DSCPReceived, fs.ECNReceived = dscpHist(u32s(f.DSCP[:])), ecnHist(u32s(f.ECN[:]))
			}
		}
		if fs.Sent > 0 || fs.Received > 0 {
			out = append(out, fs)
		}
	}
	return out, true
}

// reverseFlows is the reverse direction per responder source port and
// kind: what arrived here, and with the responder's flows what it sent
// (a reverse flow whose every packet was lost is known only from those).
// Caller holds s.mu.
func (s *session) reverseFlows(flows []flowReport) ([]FlowStats, bool) {
	type key struct {
		port uint16
		kind int
	}
	sentBy := map[key]int{}
	for i := range flows {
		f := &flows[i]
		sentBy[key{f.ReplyPort, revACK}] += int(f.Sent[sentACK])
		sentBy[key{f.ReplyPort, revRead}] += int(f.Sent[sentRead])
		sentBy[key{f.ReplyPort, revCNP}] += int(f.Sent[sentCNP])
	}
	var ports []uint16
	for _, f := range s.rev.flows {
		ports = append(ports, f.port)
	}
	for k := range sentBy {
		if !slices.Contains(ports, k.port) {
			ports = append(ports, k.port)
		}
	}
	slices.Sort(ports)
	var out []FlowStats
	for kind := range revKinds {
		for _, port := range ports {
			fs := FlowStats{SrcPort: port, Kind: revKindNames[kind], Sent: sentBy[key{port, kind}],
				DSCPReceived: map[uint8]int{}, ECNReceived: map[ECN]int{}}
			for _, f := range s.rev.flows {
				if f.port == port {
					k := &f.kinds[kind]
					fs.Received, fs.ICRCErrors = k.received, k.icrcErrors
					fs.DSCPReceived, fs.ECNReceived = dscpHist(k.dscp[:]), ecnHist(k.ecn[:])
				}
			}
			if flows == nil {
				fs.Sent = fs.Received // unknown: never read as loss
			}
			if fs.Sent > 0 || fs.Received > 0 || fs.ICRCErrors > 0 {
				out = append(out, fs)
			}
		}
	}
	return out, flows != nil
}

func u32s(v []uint32) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}
