package probe

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/validators/probe/transport"
	"github.com/rocefab/rocefab/validators/probe/wire"
)

// A flow is one 5-tuple of the probe mesh: this host's address and a
// chosen UDP source port to a responder's RoCEv2 port, on a QP of its own.
// Everything a flow sends uses that 5-tuple, so ECMP keeps it on one path:
// first TTL-limited probes that the routers answer with ICMP time exceeded
// (Paris-traceroute style, learning the path and the DSCP/ECN the packet
// had on arrival at each hop), then the data phase the responder reports
// on, then packets of the host MTU, and, where the data lost packets,
// TTL-limited probes that show up to which hop the loss begins.

// FlowSpec is one flow to run.
type FlowSpec struct {
	// ID is the caller's label, echoed in the result.
	ID     string `json:"id"`
	Target Target `json:"target"`
	// Src is the address to send from (default: the route's source);
	// SrcPort the UDP source port that picks the ECMP path.
	Src     netip.Addr `json:"src,omitzero"`
	SrcPort uint16     `json:"srcPort"`
	// Start is when the flow begins, from the start of the run.
	Start time.Duration `json:"start"`
	// Trace runs path discovery; Measure the data phase and MTU check.
	Trace   bool `json:"trace"`
	Measure bool `json:"measure"`
	// HopLoss is how many TTL-limited probes to send to each router hop
	// when the data phase lost packets (0: never). A flow that neither
	// traces nor measures sends them to TTLs 1..Hops, for a path learned
	// earlier.
	HopLoss int `json:"hopLoss,omitempty"`
	Hops    int `json:"hops,omitempty"`
}

// FlowRun is a batch of flows from this host.
type FlowRun struct {
	Flows []FlowSpec `json:"flows"`
	// Policy gives the DSCP, ECN, host MTU and the data phase of each flow
	// (Count packets at RatePPS; Flows is ignored: a flow is one port).
	Policy Policy `json:"policy"`
	From   string `json:"from,omitempty"`
	// MaxHops bounds the trace (default 16); HopTimeout is how long a hop
	// may take to answer (default 300 ms).
	MaxHops    int           `json:"maxHops,omitempty"`
	HopTimeout time.Duration `json:"hopTimeout,omitempty"`
	// Endpoint configures the endpoint RunFlows opens when no probe server
	// runs on this host.
	Endpoint EndpointConfig `json:"-"`
}

func (r FlowRun) withDefaults() FlowRun {
	if r.MaxHops <= 0 {
		r.MaxHops = 16
	}
	if r.HopTimeout <= 0 {
		r.HopTimeout = 300 * time.Millisecond
	}
	return r
}

// FlowResult is what one flow found.
type FlowResult struct {
	ID      string     `json:"id"`
	From    string     `json:"from"`
	To      string     `json:"to"`
	Src     netip.Addr `json:"src,omitzero"`
	SrcPort uint16     `json:"srcPort"`
	Dst     netip.Addr `json:"dst"`
	DstPort uint16     `json:"dstPort"`
	// Error says why the flow could not run at all.
	Error string `json:"error,omitempty"`
	// TraceError says why there is no trace (no raw ICMP socket, say).
	TraceError string        `json:"traceError,omitempty"`
	Trace      *FlowTrace    `json:"trace,omitempty"`
	Measured   *Measurements `json:"measured,omitempty"`
	// MTU is the check with packets of the host MTU.
	MTU     *FlowMTU  `json:"mtu,omitempty"`
	HopLoss []HopLoss `json:"hopLoss,omitempty"`
	// StartedMillis is when the flow began, from the start of the run.
	StartedMillis int64 `json:"startedMillis"`
	ElapsedMillis int64 `json:"elapsedMillis"`
	// Packets counts what the flow sent, for load accounting.
	Packets int `json:"packets"`
}

// FlowTrace is a flow's path discovery.
type FlowTrace struct {
	// Hops are the routers, TTL 1 first; the destination is not a hop.
	Hops []TraceHop `json:"hops"`
	// Reached: the destination answered at TTL len(Hops)+1. NoResponder:
	// it answered port unreachable (nothing serves the probe there).
	Reached     bool `json:"reached"`
	NoResponder bool `json:"noResponder,omitempty"`
	// BigReached: packets of the host MTU reached the destination at that
	// TTL (they were acknowledged).
	BigReached int `json:"bigReached"`
	BigSent    int `json:"bigSent"`
}

// TraceHop is what one TTL drew.
type TraceHop struct {
	TTL int `json:"ttl"`
	// From answered time exceeded; invalid when the hop stayed silent.
	From netip.Addr `json:"from,omitzero"`
	// DSCP and ECN are what the router quoted: the flow's packet as it
	// arrived there.
	DSCP uint8 `json:"dscp"`
	ECN  ECN   `json:"ecn"`
	// BigSent packets of the host MTU went out with this TTL; BigReached
	// of them were answered by this hop (so they got that far). TooBig
	// names a router that refused them: fragmentation needed, with MTU.
	BigSent    int        `json:"bigSent"`
	BigReached int        `json:"bigReached"`
	TooBigFrom netip.Addr `json:"tooBigFrom,omitzero"`
	TooBigMTU  int        `json:"tooBigMTU,omitempty"`
}

// Answered reports whether the hop answered.
func (h TraceHop) Answered() bool { return h.From.IsValid() }

// FlowMTU is the check with packets of the host MTU on the flow's 5-tuple.
type FlowMTU struct {
	Size     int `json:"size"` // IP packet size
	Sent     int `json:"sent"`
	Received int `json:"received"` // as the responder counted them
}

// HopLoss is the answer rate of TTL-limited probes to one hop.
type HopLoss struct {
	TTL      int `json:"ttl"`
	Sent     int `json:"sent"`
	Answered int `json:"answered"`
}

// flowRes is what a "flows" control event carries.
type flowRes []FlowResult

// flowKey demultiplexes ICMP errors: the quoted 5-tuple.
type flowKey struct {
	src, dst         netip.Addr
	srcPort, dstPort uint16
}

// icmpDemux reads ICMP errors and hands each to the flow it quotes.
type icmpDemux struct {
	mu    sync.Mutex
	flows map[flowKey]chan transport.ICMPError
	lns   []*transport.ICMPListener
	wg    sync.WaitGroup
}

func (d *icmpDemux) register(k flowKey) chan transport.ICMPError {
	ch := make(chan transport.ICMPError, 4096)
	d.mu.Lock()
	d.flows[k] = ch
	d.mu.Unlock()
	return ch
}

func (d *icmpDemux) unregister(k flowKey) {
	d.mu.Lock()
	delete(d.flows, k)
	d.mu.Unlock()
}

func (d *icmpDemux) run(ln *transport.ICMPListener) {
	defer d.wg.Done()
	buf := make([]byte, 65536)
	for {
		e, err := ln.Read(buf, time.Time{})
		if err != nil {
			if errors.Is(err, transport.ErrClosed) {
				return
			}
			time.Sleep(10 * time.Millisecond)
			continue
		}
		q := e.Quote
		e.Quote.Payload = append([]byte(nil), q.Payload[:min(len(q.Payload), wire.BTHLen)]...)
		d.mu.Lock()
		ch := d.flows[flowKey{q.Src.Unmap(), q.Dst.Unmap(), q.SrcPort, q.DstPort}]
		d.mu.Unlock()
		if ch != nil {
			select {
			case ch <- e:
			default: // a flow that cannot keep up loses answers, never blocks others
			}
		}
	}
}

func (d *icmpDemux) close() {
	for _, ln := range d.lns {
		ln.Close()
	}
	d.wg.Wait()
}

// RunFlows runs the flows from this endpoint, each at its start offset,
// and returns one result per flow in order. Sockets (the flows' and the
// raw ICMP listener) are opened before it returns control to other
// goroutines, in the calling thread's network namespace.
func (e *Endpoint) RunFlows(ctx context.Context, run FlowRun) ([]FlowResult, error) {
	run = run.withDefaults()
	pol := run.Policy.withDefaults()
	if err := pol.Validate(); err != nil {
		return nil, err
	}
	if pol.PKey != e.policy.PKey || pol.QPMin != e.policy.QPMin || pol.QPMax != e.policy.QPMax {
		return nil, fmt.Errorf("%w: flows use P_Key 0x%04x QPs 0x%x-0x%x, endpoint 0x%04x QPs 0x%x-0x%x",
			ErrPolicyMismatch, pol.PKey, pol.QPMin, pol.QPMax, e.policy.PKey, e.policy.QPMin, e.policy.QPMax)
	}
	from := run.From
	if from == "" {
		from = e.cfg.Name
	}
	results := make([]FlowResult, len(run.Flows))
	conns := make([]transport.Conn, len(run.Flows))
	demux := &icmpDemux{flows: map[flowKey]chan transport.ICMPError{}}
	traceErr := map[bool]string{}
	needICMP := map[bool]bool{}
	for _, f := range run.Flows {
		if f.Trace || f.HopLoss > 0 {
			needICMP[f.Target.Addr.Unmap().Is6()] = true
		}
	}
	for v6 := range needICMP {
		ln, err := transport.ListenICMP(v6)
		if err != nil {
			traceErr[v6] = err.Error()
			continue
		}
		demux.lns = append(demux.lns, ln)
		demux.wg.Add(1)
		go demux.run(ln)
	}
	defer demux.close()
	tos := transport.TOS(pol.RoCEDSCP, uint8(pol.ECN))
	for i, f := range run.Flows {
		r := &results[i]
		dst := f.Target.Addr.Unmap()
		*r = FlowResult{ID: f.ID, From: from, To: f.Target.label(), SrcPort: f.SrcPort, Dst: dst, DstPort: e.cfg.Port}
		src := f.Src.Unmap()
		if !src.IsValid() {
			var err error
			if src, err = e.net.Source(dst); err != nil {
				r.Error = err.Error()
				continue
			}
		}
		r.Src = src
		c, err := e.net.Listen(netip.AddrPortFrom(src, f.SrcPort), transport.Options{TOS: tos, WriteBuffer: 1 << 20, ReadBuffer: 16 << 10})
		if err != nil {
			r.Error = fmt.Sprintf("UDP source port %d: %v", f.SrcPort, err)
			continue
		}
		conns[i] = c
	}
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
	}()
	began := time.Now()
	var wg sync.WaitGroup
	for i, f := range run.Flows {
		if conns[i] == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if d := time.Until(began.Add(f.Start)); d > 0 {
				t := time.NewTimer(d)
				select {
				case <-t.C:
				case <-ctx.Done():
					t.Stop()
					results[i].Error = ctx.Err().Error()
					return
				}
			}
			r := &results[i]
			r.StartedMillis = time.Since(began).Milliseconds()
			start := time.Now()
			v6 := r.Dst.Is6()
			fl := &flow{e: e, run: run, pol: pol, spec: f, conn: conns[i], res: r}
			if (f.Trace || f.HopLoss > 0) && traceErr[v6] == "" {
				k := flowKey{r.Src, r.Dst, f.SrcPort, e.cfg.Port}
				fl.icmp = demux.register(k)
				defer demux.unregister(k)
			} else if f.Trace {
				r.TraceError = traceErr[v6]
			}
			fl.do(ctx)
			r.ElapsedMillis = time.Since(start).Milliseconds()
			e.log.Debug("probe flow done", zap.String("flow", f.ID), zap.String("error", r.Error))
		}()
	}
	wg.Wait()
	return results, ctx.Err()
}

// flow is one running flow.
type flow struct {
	e    *Endpoint
	run  FlowRun
	pol  Policy
	spec FlowSpec
	conn transport.Conn
	icmp chan transport.ICMPError
	res  *FlowResult
	s    *session
}

func (f *flow) do(ctx context.Context) {
	pol := f.pol
	expected := pol.Count + f.run.MaxHops*(3+f.spec.HopLoss) + 64
	s, err := f.e.newSession(f.res.Dst, pol, expected, nil)
	if err != nil {
		f.res.Error = err.Error()
		return
	}
	defer s.close()
	// Every packet of the session leaves by the flow's own socket.
	fam := *s.fam
	fam.pool = []transport.Conn{f.conn}
	s.fam, s.flows, s.src = &fam, 1, f.res.Src
	f.s = s
	defer func() { f.res.Packets = int(s.n) }()

	if !f.spec.Trace && !f.spec.Measure {
		if f.spec.HopLoss > 0 && f.spec.Hops > 0 && f.icmp != nil {
			ttls := make([]int, f.spec.Hops)
			for i := range ttls {
				ttls[i] = i + 1
			}
			f.hopLoss(ctx, ttls)
		}
		return
	}
	// A stats Begin resets the responder's state for this QP, so the
	// trace's probes are acknowledged with their own PSNs.
	per := min(250*time.Millisecond, pol.ConnectTimeout)
	_, beginErr := s.exchangeStats(ctx, statsBegin, max(1, int(pol.ConnectTimeout/per)), per)
	if f.spec.Trace && f.icmp != nil {
		f.trace(ctx)
	}
	if !f.spec.Measure {
		return
	}
	m := &Measurements{IntentMTU: pol.HostMTU, IPOverhead: wire.IPOverhead(f.res.Dst), Port: f.e.cfg.Port}
	m.DSCPSent, m.ECNSent = pol.RoCEDSCP, pol.ECN
	m.Reverse.DSCPSent, m.Reverse.ECNSent = pol.RoCEDSCP, pol.ECN
	m.CNPDSCPSent = pol.CNPDSCP
	f.res.Measured = m
	// Begin again: it resets what the trace's probes left at the
	// responder. Without an answer so far, the full connect timeout.
	attempts := 5
	if beginErr != nil {
		attempts = max(1, int(pol.ConnectTimeout/per))
	}
	_, beginErr = s.exchangeStats(ctx, statsBegin, attempts, per)
	s.mu.Lock()
	m.Reachable = s.anyReply
	s.rev = revStats{} // the trace's replies are not the data phase's
	s.mu.Unlock()
	if !m.Reachable {
		m.Error = fmt.Sprintf("no probe responder answered at %s within %s", s.dst, pol.ConnectTimeout)
		return
	}
	s.giveUp()
	s.runData(ctx)
	s.wait(ctx, pol.ReplyTimeout, func() bool { return s.inflight <= 0 })
	s.giveUp()
	st, statsErr := responderStats{}, beginErr
	if beginErr == nil || errors.Is(beginErr, errNoStats) {
		st, statsErr = s.exchangeStats(ctx, statsQuery, 5, max(100*time.Millisecond, pol.ReplyTimeout/2))
	}
	s.fill(m, st, statsErr)
	if statsErr == nil && ctx.Err() == nil {
		f.mtu(ctx, st, true)
	}
	if f.spec.HopLoss > 0 && f.icmp != nil && m.StatsExchanged && m.Received < m.Sent && f.res.Trace != nil && ctx.Err() == nil {
		var ttls []int
		for _, h := range f.res.Trace.Hops {
			ttls = append(ttls, h.TTL)
		}
		f.hopLoss(ctx, ttls)
	}
}

// acked reports whether the packet with psn was answered.
func (s *session) acked(psn uint32) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, _ := s.rec(psn)
	return r != nil && r.acked
}

const bigPerHop = 2 // packets of the host MTU per TTL and in the end-to-end check (+1)

// probePackets builds n SEND Only packets of IP size ipSize (0: small).
func (f *flow) probePackets(n, ipSize int) ([]wire.Packet, []sendRec) {
	ov := wire.IPOverhead(f.res.Dst)
	payload := 16
	if ipSize > 0 {
		payload = (ipSize - ov - wire.BTHLen - wire.ICRCLen) &^ 3
	}
	buf := make([]byte, payload) // buf[0] == 0: never a stats message
	pkts := make([]wire.Packet, n)
	recs := make([]sendRec, n)
	for i := range pkts {
		pkts[i] = wire.Packet{BTH: wire.BTH{Opcode: wire.OpRCSendOnly, PKey: f.pol.PKey, DestQP: f.s.qp + 1, AckReq: true}, Payload: buf}
		recs[i] = sendRec{kind: recControl, ackReq: true, ipSize: int32(ov + wire.BTHLen + payload + wire.ICRCLen)}
	}
	return pkts, recs
}

// quotedPSN is the PSN of this flow's BTH that an ICMP error quotes, if
// it quotes one (routers include at least the first 8 bytes after the IP
// header, Linux up to 576 bytes of the datagram; the BTH needs 12 more).
func (f *flow) quotedPSN(e transport.ICMPError) (uint32, bool) {
	b := e.Quote.Payload
	if len(b) < wire.BTHLen {
		return 0, false
	}
	if qp := binary.BigEndian.Uint32(b[4:8]) & psnMask; qp != f.s.qp+1 {
		return 0, false
	}
	return binary.BigEndian.Uint32(b[8:12]) & psnMask, true
}

// trace sends a small probe and bigPerHop packets of the host MTU at each
// TTL, one TTL at a time, until the destination answers. A hop that stays
// silent is asked once more, and so are big packets none of which got an
// answer, so one lost packet or reply is not taken for a silent router or
// an MTU black hole.
func (f *flow) trace(ctx context.Context) {
	tr := &FlowTrace{}
	f.res.Trace = tr
	defer func() {
		if err := transport.SetTTL(f.conn, -1); err != nil && f.res.Error == "" {
			f.res.Error = "restoring the TTL: " + err.Error()
		}
	}()
	silent := 0
	for ttl := 1; ttl <= f.run.MaxHops && ctx.Err() == nil; ttl++ {
		if err := transport.SetTTL(f.conn, ttl); err != nil {
			f.res.TraceError = err.Error()
			f.res.Trace = nil
			return
		}
		hop := TraceHop{TTL: ttl}
		reached, answered := f.probeTTL(ctx, &hop, tr, true)
		if !reached && !answered {
			reached, answered = f.probeTTL(ctx, &hop, tr, true)
		}
		if answered && !reached && hop.BigReached == 0 && !hop.TooBigFrom.IsValid() {
			f.probeTTL(ctx, &hop, tr, false)
		}
		if reached {
			tr.Reached = true
			if tr.BigReached == 0 && tr.BigSent > 0 {
				f.probeTTL(ctx, &hop, tr, false)
			}
			break
		}
		tr.Hops = append(tr.Hops, hop)
		if hop.Answered() {
			silent = 0
		} else if silent++; silent >= 3 {
			break // three silent hops in a row: give up rather than walk to MaxHops
		}
	}
	f.s.giveUp()
}

// probeTTL sends bigPerHop packets of the host MTU, and a small probe
// if small, at the socket's TTL, and books what answers within the hop
// timeout into hop (or, when the destination answers, into tr). It
// reports whether the destination answered and whether the hop did.
func (f *flow) probeTTL(ctx context.Context, hop *TraceHop, tr *FlowTrace, small bool) (reached, answered bool) {
	s := f.s
	var pkts []wire.Packet
	var recs []sendRec
	if small {
		pkts, recs = f.probePackets(1, 0)
	}
	big, brec := f.probePackets(bigPerHop, f.pol.HostMTU)
	pkts, recs = append(pkts, big...), append(recs, brec...)
	s.transmit(pkts, recs)
	smallPSN, bigPSN := uint32(0), map[uint32]bool{}
	for i, p := range pkts {
		if small && i == 0 {
			smallPSN = p.BTH.PSN
		} else {
			bigPSN[p.BTH.PSN] = true
		}
	}
	hop.BigSent += len(bigPSN)
	tr.BigSent += len(bigPSN)
	bigDone := map[uint32]bool{}
	smallDone := !small
	// The big packets get the whole hop timeout too: on a loaded host
	// their answers can trail the small one's by far more than an RTT,
	// and an answer given up on too early reads as an MTU black hole.
	deadline := time.Now().Add(f.run.HopTimeout)
	for {
		if small && !reached && s.acked(smallPSN) {
			reached, smallDone = true, true
		}
		for psn := range bigPSN {
			if !bigDone[psn] && s.acked(psn) {
				bigDone[psn] = true
				tr.BigReached++
				reached = reached || !small
			}
		}
		if smallDone && len(bigDone) == len(bigPSN) {
			break
		}
		wait := time.Until(deadline)
		if wait <= 0 || ctx.Err() != nil {
			break
		}
		t := time.NewTimer(wait)
		select {
		case e := <-f.icmp:
			psn, hasPSN := f.quotedPSN(e)
			isSmall := small && ((hasPSN && psn == smallPSN) || (!hasPSN && e.Quote.Length < f.pol.HostMTU))
			isBig := (hasPSN && bigPSN[psn]) || (!hasPSN && e.Quote.Length >= f.pol.HostMTU)
			switch {
			case e.TimeExceeded() && isSmall && !smallDone:
				hop.From = e.From
				dscp, ecn := transport.SplitTOS(e.Quote.TOS)
				hop.DSCP, hop.ECN = dscp, ECN(ecn)
				smallDone, answered = true, true
			case e.TimeExceeded() && isBig && (!hasPSN || !bigDone[psn]):
				hop.BigReached++
				bigDone[psn] = true
			case e.TooBig() && isBig && (!hasPSN || !bigDone[psn]):
				hop.TooBigFrom, hop.TooBigMTU = e.From, e.MTU
				bigDone[psn] = true
			case e.Unreachable() && e.From == f.res.Dst && isSmall:
				reached, smallDone = true, true
				tr.NoResponder = e.PortUnreachable()
			}
		case <-s.signal:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	if reached {
		// What went out at the destination's TTL is the destination's.
		hop.BigSent -= len(bigPSN)
	} else {
		tr.BigSent -= len(bigPSN)
	}
	return reached, answered
}

// mtu sends packets of the host MTU on the flow and asks the responder how
// many arrived.
func (f *flow) mtu(ctx context.Context, before responderStats, retry bool) {
	s := f.s
	pkts, recs := f.probePackets(bigPerHop+1, f.pol.HostMTU)
	for i := range recs {
		recs[i].kind = recSweepSend // not data: the data phase's figures stay as they are
	}
	s.transmit(pkts, recs)
	s.wait(ctx, f.pol.ReplyTimeout, func() bool { return s.inflight <= 0 })
	s.giveUp()
	after, err := s.exchangeStats(ctx, statsQuery, 5, max(100*time.Millisecond, f.pol.ReplyTimeout/2))
	if err != nil {
		return
	}
	f.res.MTU = &FlowMTU{Size: int(recs[0].ipSize), Sent: len(pkts), Received: int(after.Received - before.Received)}
	if f.res.MTU.Received == 0 && retry {
		// None arrived: once more, so random loss is not read as a black
		// hole.
		f.mtu(ctx, after, false)
		f.res.MTU.Sent += len(pkts)
	}
}

// hopLoss sends HopLoss probes at each TTL and counts the answers: loss
// that starts at hop t shows from t on.
func (f *flow) hopLoss(ctx context.Context, ttls []int) {
	s := f.s
	defer func() { _ = transport.SetTTL(f.conn, -1) }()
	for _, ttl := range ttls {
		if ctx.Err() != nil {
			return
		}
		if err := transport.SetTTL(f.conn, ttl); err != nil {
			return
		}
		hl := HopLoss{TTL: ttl, Sent: f.spec.HopLoss}
		want := map[uint32]bool{}
		interval := time.Duration(0)
		batch := transport.MaxBatch
		if f.pol.RatePPS > 0 {
			batch = min(max(f.pol.RatePPS/1000, 1), transport.MaxBatch)
			interval = time.Duration(batch) * time.Second / time.Duration(f.pol.RatePPS)
		}
		answered := map[uint32]bool{}
		drain := func(wait time.Duration) {
			t := time.NewTimer(wait)
			defer t.Stop()
			for {
				select {
				case e := <-f.icmp:
					if psn, ok := f.quotedPSN(e); ok && e.TimeExceeded() && want[psn] {
						answered[psn] = true
					}
					if len(answered) == len(want) && len(want) == hl.Sent {
						return
					}
				case <-t.C:
					return
				case <-ctx.Done():
					return
				}
			}
		}
		for sent := 0; sent < hl.Sent; {
			k := min(batch, hl.Sent-sent)
			pkts, recs := f.probePackets(k, 0)
			for i := range recs {
				recs[i].ackReq = false // routers answer, not the responder
				pkts[i].BTH.AckReq = false
			}
			s.transmit(pkts, recs)
			for _, p := range pkts {
				want[p.BTH.PSN] = true
			}
			sent += k
			drain(interval)
		}
		drain(f.run.HopTimeout)
		hl.Answered = len(answered)
		f.res.HopLoss = append(f.res.HopLoss, hl)
	}
}

// RunFlows runs the flows from this host: through the probe server's
// endpoint when one runs here (its control socket answers in
// run.Endpoint.RunDir), else through an endpoint of its own.
func RunFlows(ctx context.Context, run FlowRun) ([]FlowResult, error) {
	if len(run.Flows) == 0 {
		return nil, ErrNoTargets
	}
	dir := run.Endpoint.RunDir
	if dir != "" {
		res, err := flowsViaServer(ctx, dir, run)
		if !errors.Is(err, errNoServer) {
			return res, err
		}
	}
	ecfg := run.Endpoint
	ecfg.Policy = run.Policy
	ep, err := NewEndpoint(ecfg)
	if err != nil {
		return nil, err
	}
	defer ep.Close()
	return ep.RunFlows(ctx, run)
}

// serveFlows answers a control request for flows.
func (e *Endpoint) serveFlows(ctx context.Context, out *eventWriter, run *FlowRun) {
	if run == nil {
		_ = out.send(controlEvent{Type: "error", Error: "flows request without flows"})
		return
	}
	e.log.Info("probe flows via control socket", zap.Int("flows", len(run.Flows)))
	res, err := e.RunFlows(ctx, *run)
	if res == nil {
		_ = out.send(controlEvent{Type: "error", Error: err.Error()})
		return
	}
	_ = out.send(controlEvent{Type: "flows", Flows: res})
}

// flowsViaServer asks the server on dir's control socket to run the flows.
func flowsViaServer(ctx context.Context, dir string, run FlowRun) ([]FlowResult, error) {
	var out []FlowResult
	err := controlCall(ctx, dir, controlRequest{Version: controlVersion, Op: "flows", Flows: &run}, func(ev controlEvent) (bool, error) {
		if ev.Type != "flows" {
			return false, fmt.Errorf("probe server sent unknown event %q", ev.Type)
		}
		out = ev.Flows
		return true, nil
	})
	return out, err
}

// controlCall sends one request and hands events other than errors to
// handle until it reports done.
func controlCall(ctx context.Context, dir string, req controlRequest, handle func(controlEvent) (bool, error)) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", controlPath(dir))
	if err != nil {
		return fmt.Errorf("%w: %w", errNoServer, err)
	}
	defer c.Close()
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			c.Close()
		case <-done:
		}
	}()
	if err := json.NewEncoder(c).Encode(req); err != nil {
		return fmt.Errorf("probe server: %w", err)
	}
	dec := json.NewDecoder(c)
	for {
		var ev controlEvent
		if err := dec.Decode(&ev); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("probe server closed the connection: %w", err)
		}
		if ev.Type == "error" {
			return fmt.Errorf("probe server: %s", ev.Error)
		}
		fin, err := handle(ev)
		if err != nil || fin {
			return err
		}
	}
}
