package probe

import (
	"bytes"
	"errors"
	"net/netip"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/rocefab/rocefab/validators/probe/transport"
	"github.com/rocefab/rocefab/validators/probe/wire"
)

// rawPeer is a hand-driven requester on host A of an in-memory fabric: it
// sends packets we build byte by byte to the endpoint on B and collects what
// comes back on A's RoCEv2 port.
type rawPeer struct {
	t       *testing.T
	ep      *Endpoint // the endpoint under test, on B
	tx      transport.Conn
	rx      transport.Conn
	to      netip.AddrPort
	qp      uint32 // responder QP we address (odd)
	pol     Policy
	replies chan reply
	markers uint32 // marker requests sent (see collect)
}

type reply struct {
	p      wire.Packet
	raw    []byte
	tos    uint8
	from   netip.AddrPort
	to     netip.AddrPort
	icrcOK bool
}

func newRawPeer(t *testing.T, cfg EndpointConfig) *rawPeer {
	t.Helper()
	f := transport.NewMemFabric()
	if cfg.Policy.RoCEDSCP == 0 {
		cfg.Policy = DefaultPolicy()
	}
	cfg.Network = f.Host(memB)
	cfg.Listen = []netip.Addr{memB}
	ep, err := NewEndpoint(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ep.Close() })
	host := f.Host(memA)
	tx, err := host.Listen(netip.AddrPortFrom(memA, 50000), transport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rx, err := host.Listen(netip.AddrPortFrom(memA, DefaultPort), transport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := &rawPeer{t: t, ep: ep, tx: tx, rx: rx, to: netip.AddrPortFrom(memB, DefaultPort),
		qp: ep.policy.QPMin + 1, pol: ep.policy, replies: make(chan reply, 4096)}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		ms := make([]transport.Message, 16)
		for {
			for i := range ms {
				ms[i].Buf = make([]byte, 16384)
			}
			n, err := rx.ReadBatch(ms)
			if err != nil {
				return
			}
			for _, m := range ms[:n] {
				var rp reply
				rp.raw = m.Payload()
				rp.tos, rp.from, rp.to = m.TOS, m.Peer, netip.AddrPortFrom(m.Local, DefaultPort)
				env := wire.ProbeEnvelope(rp.from, rp.to)
				rp.icrcOK = wire.VerifyICRC(&env, rp.raw) == nil
				if err := wire.Decode(rp.raw, &rp.p); err != nil {
					t.Errorf("endpoint sent an undecodable packet: %v", err)
					continue
				}
				r.replies <- rp
			}
		}
	}()
	t.Cleanup(func() { tx.Close(); rx.Close(); wg.Wait() })
	return r
}

// req builds a request to the peer's responder QP.
func (r *rawPeer) req(op wire.Opcode, psn uint32, ackReq bool) wire.Packet {
	return wire.Packet{BTH: wire.BTH{Opcode: op, PKey: r.pol.PKey, DestQP: r.qp, PSN: psn, AckReq: ackReq}}
}

func (r *rawPeer) send(tos uint8, pkts ...wire.Packet) {
	r.t.Helper()
	env := wire.ProbeEnvelope(r.tx.LocalAddr(), r.to)
	var ms []transport.Message
	for i := range pkts {
		b, err := wire.Encode(nil, &env, &pkts[i])
		if err != nil {
			r.t.Fatal(err)
		}
		ms = append(ms, transport.Message{Buf: b, Peer: r.to, TOS: tos})
	}
	if _, err := r.tx.WriteBatch(ms); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rawPeer) sendRaw(tos uint8, b []byte) {
	if _, err := r.tx.WriteBatch([]transport.Message{{Buf: b, Peer: r.to, TOS: tos}}); err != nil {
		r.t.Fatal(err)
	}
}

// collect returns the replies to everything sent so far. It sends a marker
// request on a QP of its own and waits for its ACK: the endpoint handles
// packets in order, so by then every earlier reply has been queued too.
// This keeps the tests independent of scheduling delays on a busy machine.
func (r *rawPeer) collect() []reply {
	r.t.Helper()
	marker := wire.Packet{BTH: wire.BTH{Opcode: wire.OpRCSendOnly, PKey: r.pol.PKey, DestQP: r.pol.QPMax, PSN: r.markers, AckReq: true}, Payload: []byte{0}}
	r.markers++
	r.send(ect0, marker)
	var out []reply
	deadline := time.After(10 * time.Second)
	for {
		select {
		case rp := <-r.replies:
			if rp.p.BTH.DestQP != r.pol.QPMax-1 {
				out = append(out, rp)
				continue
			}
			return append(out, r.collectQuiet(20*time.Millisecond)...)
		case <-deadline:
			r.t.Fatal("the endpoint never answered the marker request")
		}
	}
}

// collectQuiet returns the replies that arrive until quiet passes without one.
func (r *rawPeer) collectQuiet(quiet time.Duration) []reply {
	var out []reply
	for {
		select {
		case rp := <-r.replies:
			if rp.p.BTH.DestQP != r.pol.QPMax-1 {
				out = append(out, rp)
			}
		case <-time.After(quiet):
			return out
		}
	}
}

func (r *rawPeer) expectNothing() {
	r.t.Helper()
	if got := r.collect(); len(got) != 0 {
		r.t.Fatalf("expected no reply, got %d: first %s", len(got), got[0].p.BTH.Opcode)
	}
}

var ect0 = transport.TOS(DefaultRoCEDSCP, uint8(ECT0))
var ce26 = transport.TOS(DefaultRoCEDSCP, uint8(CE))

// checkReply asserts the fields every reply must carry.
func (r *rawPeer) checkReply(rp reply, op wire.Opcode, psn uint32) {
	r.t.Helper()
	b := rp.p.BTH
	if b.Opcode != op || b.PSN != psn || b.DestQP != r.qp-1 || b.PKey != r.pol.PKey {
		r.t.Fatalf("reply %s PSN %d DestQP 0x%x PKey 0x%x; want %s PSN %d DestQP 0x%x", b.Opcode, b.PSN, b.DestQP, b.PKey, op, psn, r.qp-1)
	}
	if !rp.icrcOK {
		r.t.Fatalf("%s carries a bad ICRC", op)
	}
	if rp.from.Port() < entropyPortMin || rp.to.Port() != DefaultPort {
		r.t.Fatalf("%s sent %s -> %s; want an entropy source port and destination %d", op, rp.from, rp.to, DefaultPort)
	}
}

func TestResponderAckMSNAndPSN(t *testing.T) {
	r := newRawPeer(t, EndpointConfig{})
	type ack struct {
		op       wire.Opcode
		psn, msn uint32
		syndrome uint8
	}
	ackOK := func(psn, msn uint32) ack { return ack{wire.OpRCAcknowledge, psn, msn, wire.AckCreditsInvalid} }
	write := func(psn uint32, ackReq bool) wire.Packet {
		p := r.req(wire.OpRCWriteOnly, psn, ackReq)
		p.RETH = wire.RETH{VA: 0x1000, RKey: 7, DMALength: 4}
		p.Payload = []byte{1, 2, 3, 4}
		return p
	}
	data := func(op wire.Opcode, psn uint32, ackReq bool) wire.Packet {
		p := r.req(op, psn, ackReq)
		p.Payload = []byte{0, 1, 2}
		return p
	}
	steps := []struct {
		name string
		in   []wire.Packet
		want []ack
	}{
		{"first SEND starts the QP and completes message 1", []wire.Packet{data(wire.OpRCSendOnly, 100, true)}, []ack{ackOK(100, 1)}},
		{"no AckReq, no ACK", []wire.Packet{data(wire.OpRCSendOnly, 101, false)}, nil},
		{"coalesced: ACK for 102 covers 101, MSN counts both", []wire.Packet{data(wire.OpRCSendOnly, 102, true)}, []ack{ackOK(102, 3)}},
		{"WRITE Only", []wire.Packet{write(103, true)}, []ack{ackOK(103, 4)}},
		{"multi-packet SEND completes one message at Last",
			[]wire.Packet{data(wire.RC|wire.SendFirst, 104, false), data(wire.RC|wire.SendMiddle, 105, false), data(wire.RC|wire.SendLast, 106, true)},
			[]ack{ackOK(106, 5)}},
		{"duplicate is ACKed again with the last PSN and unchanged MSN", []wire.Packet{data(wire.OpRCSendOnly, 101, true)}, []ack{ackOK(106, 5)}},
		{"a gap gets one PSN sequence error NAK for the first missing PSN, then the packet is accepted",
			[]wire.Packet{data(wire.OpRCSendOnly, 110, true)},
			[]ack{{wire.OpRCAcknowledge, 107, 5, wire.NAKPSNSequenceError}, ackOK(110, 6)}},
		{"in order again: no second NAK", []wire.Packet{data(wire.OpRCSendOnly, 111, true)}, []ack{ackOK(111, 7)}},
	}
	for _, st := range steps {
		r.send(ect0, st.in...)
		got := r.collect()
		if len(got) != len(st.want) {
			t.Fatalf("%s: %d replies, want %d", st.name, len(got), len(st.want))
		}
		for i, w := range st.want {
			r.checkReply(got[i], w.op, w.psn)
			if a := got[i].p.AETH; a.MSN != w.msn || a.Syndrome != w.syndrome {
				t.Fatalf("%s: AETH syndrome 0x%02x MSN %d, want 0x%02x MSN %d", st.name, a.Syndrome, a.MSN, w.syndrome, w.msn)
			}
			if got[i].tos != ect0 {
				t.Fatalf("%s: reply TOS 0x%02x, want DSCP 26 ECT(0)", st.name, got[i].tos)
			}
		}
	}
	// PSNs are 24 bits: 0xFFFFFF is followed by 0 without a gap.
	r.qp += 2
	r.send(ect0, data(wire.OpRCSendOnly, 0xFFFFFF, true), data(wire.OpRCSendOnly, 0, true))
	got := r.collect()
	if len(got) != 2 || got[0].p.BTH.PSN != 0xFFFFFF || got[1].p.BTH.PSN != 0 || !got[1].p.AETH.IsACK() || got[1].p.AETH.MSN != 2 {
		t.Fatalf("PSN wrap: %d replies %+v", len(got), got)
	}
}

func TestResponderReadResponses(t *testing.T) {
	r := newRawPeer(t, EndpointConfig{})
	read := func(psn uint32, va uint64, n uint32) wire.Packet {
		p := r.req(wire.OpRCReadRequest, psn, true)
		p.RETH = wire.RETH{VA: va, RKey: probeRKey, DMALength: n}
		return p
	}
	r.send(ect0, read(500, 0x10, 201))
	got := r.collect()
	if len(got) != 1 {
		t.Fatalf("%d replies to a 201-byte READ", len(got))
	}
	r.checkReply(got[0], wire.OpRCReadResponseOnly, 500)
	if got[0].p.AETH.MSN != 1 || !bytes.Equal(got[0].p.Payload, appendReadPattern(nil, 0x10, 201)) || got[0].p.BTH.PadCnt != 3 {
		t.Fatalf("READ Response Only: MSN %d pad %d payload %d bytes", got[0].p.AETH.MSN, got[0].p.BTH.PadCnt, len(got[0].p.Payload))
	}

	// 20000 bytes at host MTU 9000 over IPv4: segments of 9000-28-20 = 8952.
	r.send(ect0, read(501, 0x2000, 20000))
	got = r.collect()
	want := []struct {
		op   wire.Opcode
		size int
		aeth bool
	}{{wire.OpRCReadResponseFirst, 8952, true}, {wire.OpRCReadResponseMiddle, 8952, false}, {wire.OpRCReadResponseLast, 2096, true}}
	if len(got) != len(want) {
		t.Fatalf("%d READ response packets, want 3", len(got))
	}
	var all []byte
	for i, w := range want {
		r.checkReply(got[i], w.op, 501+uint32(i))
		if len(got[i].p.Payload) != w.size || (got[i].p.AETH.MSN == 2) != w.aeth {
			t.Fatalf("segment %d: %d bytes, AETH MSN %d", i, len(got[i].p.Payload), got[i].p.AETH.MSN)
		}
		all = append(all, got[i].p.Payload...)
	}
	if !bytes.Equal(all, appendReadPattern(nil, 0x2000, 20000)) {
		t.Fatal("READ data does not match the pattern")
	}
	// The READ consumed PSNs 501-503: 504 is next, without a NAK.
	p := r.req(wire.OpRCSendOnly, 504, true)
	p.Payload = []byte{0}
	r.send(ect0, p)
	got = r.collect()
	if len(got) != 1 || !got[0].p.AETH.IsACK() || got[0].p.BTH.PSN != 504 || got[0].p.AETH.MSN != 3 {
		t.Fatalf("after a 3-segment READ: %+v", got)
	}
	// Above MaxReadBytes: NAK invalid request, no data.
	r.send(ect0, read(505, 0, defaultMaxReadBytes+1))
	got = r.collect()
	if len(got) != 1 || got[0].p.AETH.Syndrome != wire.NAKInvalidRequest || got[0].p.BTH.PSN != 505 {
		t.Fatalf("oversized READ: %+v", got)
	}
}

func TestResponderCNPOnlyForCEMarkedRequests(t *testing.T) {
	tests := []struct {
		name    string
		tos     uint8
		pkt     func(r *rawPeer) wire.Packet
		wantCNP bool
		counter func(Counters) uint64
	}{
		{"CE-marked SEND", ce26, func(r *rawPeer) wire.Packet {
			p := r.req(wire.OpRCSendOnly, 1, true)
			p.Payload = []byte{0}
			return p
		}, true, nil},
		{"CE-marked READ request", ce26, func(r *rawPeer) wire.Packet {
			p := r.req(wire.OpRCReadRequest, 1, true)
			p.RETH.DMALength = 8
			return p
		}, true, nil},
		{"ECT(0) SEND", ect0, func(r *rawPeer) wire.Packet {
			p := r.req(wire.OpRCSendOnly, 1, true)
			p.Payload = []byte{0}
			return p
		}, false, nil},
		{"CE-marked ACK to a requester QP", ce26, func(r *rawPeer) wire.Packet {
			p := r.req(wire.OpRCAcknowledge, 1, false)
			p.BTH.DestQP = r.qp - 1
			p.AETH.Syndrome = wire.AckCreditsInvalid
			return p
		}, false, func(c Counters) uint64 { return c.Stray }},
		{"CE-marked ACK to a responder QP", ce26, func(r *rawPeer) wire.Packet {
			p := r.req(wire.OpRCAcknowledge, 1, false)
			p.AETH.Syndrome = wire.AckCreditsInvalid
			return p
		}, false, func(c Counters) uint64 { return c.Unexpected }},
		{"CE-marked CNP", ce26, func(r *rawPeer) wire.Packet {
			p := r.req(wire.OpCNP, 0, false)
			p.BTH.BECN = true
			return p
		}, false, func(c Counters) uint64 { return c.Unexpected }},
		{"CE-marked READ response", ce26, func(r *rawPeer) wire.Packet {
			p := r.req(wire.OpRCReadResponseOnly, 1, false)
			p.Payload = []byte{1, 2, 3, 4}
			return p
		}, false, func(c Counters) uint64 { return c.Unexpected }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newRawPeer(t, EndpointConfig{})
			r.send(tc.tos, tc.pkt(r))
			var cnps []reply
			for _, rp := range r.collect() {
				if rp.p.BTH.Opcode == wire.OpCNP {
					cnps = append(cnps, rp)
				}
			}
			if !tc.wantCNP {
				if len(cnps) != 0 {
					t.Fatalf("%d CNPs for %s", len(cnps), tc.name)
				}
				if tc.counter != nil && tc.counter(r.ep.Counters()) != 1 {
					t.Fatalf("not counted as dropped: %+v", r.ep.Counters())
				}
				return
			}
			if len(cnps) != 1 {
				t.Fatalf("%d CNPs, want 1", len(cnps))
			}
			c := cnps[0]
			r.checkReply(c, wire.OpCNP, 0)
			if !c.p.BTH.BECN || c.p.BTH.AckReq || len(c.raw) != 32 || !bytes.Equal(c.raw[12:28], make([]byte, 16)) {
				t.Fatalf("CNP layout: BECN %v AckReq %v %d bytes %x", c.p.BTH.BECN, c.p.BTH.AckReq, len(c.raw), c.raw)
			}
			if d, e := transport.SplitTOS(c.tos); d != DefaultCNPDSCP || ECN(e) != ECT0 {
				t.Fatalf("CNP DSCP %d ECN %s, want 48 ECT(0)", d, ECN(e))
			}
		})
	}
}

// fakeClock is a settable clock for the token buckets.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) Add(d time.Duration) { c.mu.Lock(); c.now = c.now.Add(d); c.mu.Unlock() }

func TestResponderRateLimitsRepliesAndCNPs(t *testing.T) {
	clk := &fakeClock{now: time.Unix(1e9, 0)}
	r := newRawPeer(t, EndpointConfig{ReplyPPS: 300, CNPPPS: 100, now: clk.Now})
	burst := func() []wire.Packet {
		var ps []wire.Packet
		for i := range 200 {
			p := r.req(wire.OpRCSendOnly, uint32(i), true)
			p.Payload = []byte{0}
			ps = append(ps, p)
		}
		return ps
	}
	count := func(rs []reply) (acks, cnps int) {
		for _, rp := range rs {
			if rp.p.BTH.Opcode == wire.OpCNP {
				cnps++
			} else {
				acks++
			}
		}
		return
	}
	// Buckets hold a tenth of a second, at least 64: 64 ACKs and 64 CNPs.
	ps := burst()
	r.send(ce26, ps...)
	acks, cnps := count(r.collectQuiet(300 * time.Millisecond))
	if acks != 64 || cnps != 64 {
		t.Fatalf("with a frozen clock: %d ACKs, %d CNPs; want the 64-packet bursts", acks, cnps)
	}
	c := r.ep.Counters()
	if c.RepliesRateLimited != 136 || c.CNPsRateLimited != 136 {
		t.Fatalf("rate-limited counters %+v", c)
	}
	// A second later the buckets are full again, and no fuller.
	clk.Add(time.Second)
	for i := range ps {
		ps[i].BTH.PSN += 200
	}
	r.send(ce26, ps...)
	acks, cnps = count(r.collectQuiet(300 * time.Millisecond))
	if acks != 64 || cnps != 64 {
		t.Fatalf("after refill: %d ACKs, %d CNPs", acks, cnps)
	}
}

func TestResponderFiltersForeignTraffic(t *testing.T) {
	r := newRawPeer(t, EndpointConfig{})
	good := func(psn uint32) wire.Packet {
		p := r.req(wire.OpRCSendOnly, psn, true)
		p.Payload = []byte{0}
		return p
	}
	wrongKey := good(1)
	wrongKey.BTH.PKey = 0xFFFF
	below, above := good(1), good(1)
	below.BTH.DestQP = r.pol.QPMin - 1
	above.BTH.DestQP = r.pol.QPMax + 1
	uc := good(1)
	uc.BTH.Opcode = wire.OpUCSendOnly
	r.send(ect0, wrongKey, below, above, uc)
	r.expectNothing()

	// A packet with a broken ICRC is counted, not answered.
	env := wire.ProbeEnvelope(r.tx.LocalAddr(), r.to)
	p := good(1)
	b, _ := wire.Encode(nil, &env, &p)
	b[len(b)-1] ^= 0xFF
	r.sendRaw(ect0, b)
	r.sendRaw(ect0, []byte{1, 2, 3}) // not even a BTH
	r.expectNothing()

	c := r.ep.Counters()
	c.Received -= uint64(r.markers)
	c.RepliesSent -= uint64(r.markers)
	want := Counters{Received: 6, ForeignPKey: 1, ForeignQP: 2, Unexpected: 1, ICRCErrors: 1, Malformed: 1}
	if c != want {
		t.Fatalf("counters\n got  %+v\n want %+v", c, want)
	}
	// Once the QP is known, its stats report ICRC failures too (a corrupted
	// packet never creates state).
	begin := r.req(wire.OpRCSendOnly, 10, true)
	begin.Payload = appendStatsRequest(nil, statsBegin, 8)
	r.send(ect0, begin)
	p = good(11)
	b, _ = wire.Encode(nil, &env, &p)
	b[len(b)-1] ^= 0xFF
	r.sendRaw(ect0, b)
	q := r.req(wire.OpRCSendOnly, 11, true)
	q.Payload = appendStatsRequest(nil, statsQuery, 9)
	r.send(ect0, q)
	for _, rp := range r.collect() {
		if rp.p.BTH.Opcode == wire.OpRCSendOnly {
			if m, err := parseStats(rp.p.Payload, "test"); err == nil && m.Token == 9 {
				if m.Stats.ICRCErrors != 1 {
					t.Fatalf("stats %+v", m.Stats)
				}
				return
			}
		}
	}
	t.Fatal("no stats reply")
}

func TestStatsExchange(t *testing.T) {
	r := newRawPeer(t, EndpointConfig{})
	stats := func(kind statsKind, psn, token uint32) responderStats {
		t.Helper()
		p := r.req(wire.OpRCSendOnly, psn, true)
		p.Payload = appendStatsRequest(nil, kind, token)
		r.send(ect0, p)
		for _, rp := range r.collect() {
			if rp.p.BTH.Opcode == wire.OpRCSendOnly {
				r.checkReply(rp, wire.OpRCSendOnly, rp.p.BTH.PSN)
				m, err := parseStats(rp.p.Payload, "test")
				if err != nil || m.Kind != statsReply || m.Token != token {
					t.Fatalf("stats reply %+v, %v", m, err)
				}
				return m.Stats
			}
		}
		t.Fatal("no stats reply")
		return responderStats{}
	}
	stats(statsBegin, 1000, 1)
	for i := range 5 {
		p := r.req(wire.OpRCSendOnly, uint32(1001+i), false)
		p.Payload = make([]byte, 64)
		r.send(transport.TOS(8, uint8(ECT1)), p)
	}
	got := stats(statsQuery, 1006, 2)
	if got.Received != 5 || got.DSCP[8] != 5 || got.ECN[ECT1] != 5 || got.Bytes != 5*(12+64+4) || got.ReplyTOS != ect0 {
		t.Fatalf("after 5 SENDs: %+v", got)
	}
	// Begin starts over.
	if got := stats(statsBegin, 2000, 3); got.Received != 0 {
		t.Fatalf("Begin did not reset: %+v", got)
	}

	// An unknown version gets a clear error answer naming the version.
	p := r.req(wire.OpRCSendOnly, 2001, true)
	p.Payload = appendStatsHeader(nil, 2, statsQuery, 77)
	r.send(ect0, p)
	var answered bool
	for _, rp := range r.collect() {
		if rp.p.BTH.Opcode != wire.OpRCSendOnly {
			continue
		}
		m, err := parseStats(rp.p.Payload, "test")
		if err != nil || m.Kind != statsError || m.ErrCode != statsErrVersion || m.ErrArg != 2 || m.Token != 77 {
			t.Fatalf("answer to a v2 request: %+v, %v", m, err)
		}
		answered = true
	}
	if !answered {
		t.Fatal("no answer to a v2 stats request")
	}
}

func TestStatsCodec(t *testing.T) {
	in := responderStats{Token: 5, Received: 1, Bytes: 2, Duplicates: 3, Reordered: 4, ICRCErrors: 5, CE: 6,
		RepliesSent: 7, RepliesRateLimited: 8, ReplySendErrors: 9, CNPsSent: 10, CNPsRateLimited: 11,
		MaxSize: 9000, ReplyTOS: 0x6a, CNPTOS: 0xc2}
	in.DSCP[0], in.DSCP[26], in.DSCP[63] = 1, 300, 2
	in.ECN = [4]uint32{1, 2, 3, 4}
	m, err := parseStats(appendStatsReply(nil, &in), "responder x")
	if err != nil || !reflect.DeepEqual(m.Stats, in) {
		t.Fatalf("round trip\n got  %+v\n want %+v\n err %v", m.Stats, in, err)
	}
	// The per-flow section round-trips; a truncated one, or one listing
	// flows past its total, is refused.
	in.HasFlows, in.FlowsTotal, in.FlowsFirst = true, 5, 2
	in.Flows = []flowReport{{Port: 49153, ReplyPort: 50001, Received: 9, ICRCErrors: 1, Sent: [sentKinds]uint32{1, 2, 3, 4}}, {Port: 49154}}
	in.Flows[0].DSCP[26], in.Flows[0].DSCP[8], in.Flows[0].ECN = 7, 2, [4]uint32{0, 0, 8, 1}
	withFlows := appendStatsReply(nil, &in)
	if m, err := parseStats(withFlows, "x"); err != nil || !reflect.DeepEqual(m.Stats, in) {
		t.Fatalf("per-flow round trip\n got  %+v\n want %+v\n err %v", m.Stats, in, err)
	}
	if _, err := parseStats(withFlows[:len(withFlows)-3], "x"); err == nil {
		t.Error("truncated per-flow section accepted")
	}
	in.FlowsTotal = 3
	if _, err := parseStats(appendStatsReply(nil, &in), "x"); err == nil {
		t.Error("flows 2-3 of 3 accepted")
	}
	in.HasFlows, in.FlowsTotal, in.FlowsFirst, in.Flows = false, 0, 0, nil
	if m, err := parseStats(append(appendStatsReply(nil, &in), 'Z', 0, 1), "x"); err != nil || m.Stats.HasFlows {
		t.Errorf("a later release's section: %+v %v", m.Stats, err)
	}
	if m, err := parseStats(appendStatsQuery(nil, 4, 300), "x"); err != nil || m.Kind != statsQuery || m.FirstFlow != 300 || m.Token != 4 {
		t.Errorf("query for page 300: %+v %v", m, err)
	}

	// A reply in a version we do not speak is refused by name.
	b := appendStatsReply(nil, &in)
	b[4] = 2
	_, err = parseStats(b, "responder 10.0.0.2")
	var ve *StatsVersionError
	if !errors.Is(err, ErrStatsVersion) || !errors.As(err, &ve) ||
		err.Error() != "responder 10.0.0.2 speaks probe stats version 2; this probe speaks 1" {
		t.Fatalf("v2 reply: %v", err)
	}
	for _, bad := range [][]byte{b[:30], append(appendStatsReply(nil, &in)[:statsHdrLen+statsFixedLen+1], 9)} {
		bad[4] = 1
		if _, err := parseStats(bad, "x"); err == nil {
			t.Errorf("truncated reply accepted: %x", bad)
		}
	}
	if _, err := parseStats([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, "x"); !errors.Is(err, errNotStats) {
		t.Errorf("data payload taken for stats: %v", err)
	}
}

// Every page of a QP's flows fits a 1280-byte IPv6 packet, however many
// DSCPs the counters hold, and the pages add up to all flows.
func TestStatsPagesFitTheSmallestMTU(t *testing.T) {
	st := &qpState{}
	for i := range maxFlowsPerQP {
		f := &flowStat{fr: flowReport{Port: uint16(49152 + i), ReplyPort: uint16(50000 + i%8), Received: 1000}}
		for d := range 64 {
			f.fr.DSCP[d] = 1 // the worst case: every DSCP on every flow
		}
		st.flows = append(st.flows, f)
	}
	var base responderStats
	for d := range 64 {
		base.DSCP[d] = 5
	}
	seen := 0
	for first := 0; first < len(st.flows); {
		s := base
		st.flowPage(&s, first)
		b := appendStatsReply(nil, &s)
		if n := len(b) + wire.BTHLen + wire.ICRCLen + 48; n > 1280 {
			t.Fatalf("page from flow %d: a %d-byte IPv6 packet", first, n)
		}
		m, err := parseStats(b, "x")
		if err != nil || int(m.Stats.FlowsFirst) != first || int(m.Stats.FlowsTotal) != maxFlowsPerQP || len(m.Stats.Flows) == 0 {
			t.Fatalf("page from flow %d: %v first %d total %d flows %d", first, err, m.Stats.FlowsFirst, m.Stats.FlowsTotal, len(m.Stats.Flows))
		}
		seen += len(m.Stats.Flows)
		first += len(m.Stats.Flows)
	}
	if seen != maxFlowsPerQP {
		t.Fatalf("pages hold %d flows, want %d", seen, maxFlowsPerQP)
	}
}

// A Begin that carries the requester's host MTU makes the responder
// segment that QP's READ responses at it; without one it uses its own.
func TestResponderSegmentsReadsAtTheRequestersMTU(t *testing.T) {
	r := newRawPeer(t, EndpointConfig{}) // the responder's own host MTU is 9000
	read := func(psn uint32, n uint32) wire.Packet {
		p := r.req(wire.OpRCReadRequest, psn, true)
		p.RETH = wire.RETH{VA: 0x10, RKey: probeRKey, DMALength: n}
		return p
	}
	begin := func(psn uint32, body []byte) {
		p := r.req(wire.OpRCSendOnly, psn, true)
		p.Payload = body
		r.send(ect0, p)
		r.collect()
	}
	sizes := func() []int {
		var out []int
		for _, rp := range r.collect() {
			if op := rp.p.BTH.Opcode.Operation(); op >= wire.ReadResponseFirst && op <= wire.ReadResponseOnly {
				out = append(out, len(rp.p.Payload))
			}
		}
		return out
	}
	begin(100, appendStatsBegin(nil, 1, 4200))
	r.send(ect0, read(101, 6000))
	// 4200 - 20 (IPv4) - 8 (UDP) - 12 (BTH) - 4 (AETH) - 4 (ICRC) = 4152.
	if got := sizes(); !slices.Equal(got, []int{4152, 1848}) {
		t.Fatalf("READ of 6000 after a Begin at MTU 4200: segments %v", got)
	}
	r.qp += 2
	begin(200, appendStatsRequest(nil, statsBegin, 2)) // no MTU: the responder's own
	r.send(ect0, read(201, 6000))
	if got := sizes(); !slices.Equal(got, []int{6000}) {
		t.Fatalf("READ of 6000 after a Begin without MTU: segments %v", got)
	}
	if m, err := parseStats(appendStatsBegin(nil, 3, 4200), "x"); err != nil || m.Kind != statsBegin || m.HostMTU != 4200 || m.Token != 3 {
		t.Fatalf("Begin codec: %+v %v", m, err)
	}
}
