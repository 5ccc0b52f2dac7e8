package probe

import (
	"bytes"
	"context"
	"net/netip"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/gopacket/pcapgo"

	"github.com/rocefab/rocefab/validators/probe/transport"
	"github.com/rocefab/rocefab/validators/probe/wire"
)

// pkt classifies a datagram on the in-memory fabric for fault hooks.
type pkt struct {
	d       *transport.Datagram
	p       wire.Packet
	fromA   bool
	isData  bool // a data-phase SEND from A (small; sweep packets are big)
	isACK   bool
	isCNP   bool
	udpSize int
}

func classify(d *transport.Datagram) pkt {
	k := pkt{d: d, fromA: d.Src.Addr() == memA || d.Src.Addr() == memA6, udpSize: len(d.Payload)}
	if wire.Decode(d.Payload, &k.p) != nil {
		return k
	}
	op := k.p.BTH.Opcode
	k.isData = k.fromA && op == wire.OpRCSendOnly && len(k.p.Payload) > 0 && k.p.Payload[0] == 0 && len(d.Payload) < 200
	k.isACK = !k.fromA && op == wire.OpRCAcknowledge && k.p.AETH.IsACK()
	k.isCNP = op == wire.OpCNP
	return k
}

// every returns a predicate true for every nth packet it is asked about.
func every(n int64) func() bool {
	var c atomic.Int64
	return func() bool { return c.Add(1)%n == 0 }
}

func runWithFault(t *testing.T, pol Policy, to netip.Addr, hook func(f *transport.MemFabric, k pkt) bool) (*Report, PairResult) {
	t.Helper()
	f, a, _ := memPair(t, pol)
	if hook != nil {
		f.SetFault(func(d *transport.Datagram) bool { return hook(f, classify(d)) })
	}
	return runTo(t, a, pol, to)
}

func TestSenderMeasuresFaults(t *testing.T) {
	t.Parallel()
	type check func(t *testing.T, rep *Report, m Measurements)
	finding := func(code Code, sev Severity, msg, measContains string) check {
		return func(t *testing.T, rep *Report, _ Measurements) {
			t.Helper()
			for _, f := range rep.Findings {
				if f.Code == code {
					if f.Severity != sev || f.Message != msg || !strings.Contains(f.Measurement, measContains) {
						t.Errorf("%s: severity %s message %q measurement %q; want %s %q containing %q",
							code, f.Severity, f.Message, f.Measurement, sev, msg, measContains)
					}
					return
				}
			}
			t.Errorf("no %s finding in %v", code, codes(rep))
		}
	}
	verdict := func(pass bool) check {
		return func(t *testing.T, rep *Report, _ Measurements) {
			t.Helper()
			if rep.Pass() != pass {
				t.Errorf("verdict %s, findings %v", rep.Verdict, codes(rep))
			}
		}
	}
	onlyCodes := func(want ...Code) check {
		return func(t *testing.T, rep *Report, _ Measurements) {
			t.Helper()
			if got := codes(rep); !slices.Equal(got, want) {
				t.Errorf("findings %v, want exactly %v", got, want)
			}
		}
	}
	meas := func(f func(m Measurements) bool, what string) check {
		return func(t *testing.T, _ *Report, m Measurements) {
			t.Helper()
			if !f(m) {
				t.Errorf("%s: %+v", what, m)
			}
		}
	}
	drop10, drop10b, drop10c, dup10, corrupt20, reorder5 := every(10), every(10), every(10), every(10), every(20), every(5)
	var held atomic.Pointer[transport.Datagram]
	tests := []struct {
		name   string
		policy func(*Policy)
		hook   func(f *transport.MemFabric, k pkt) bool
		checks []check
	}{
		{name: "clean", checks: []check{onlyCodes(), verdict(true),
			meas(func(m Measurements) bool {
				return m.Sent == 200 && m.Received == 200 && m.Reverse.Sent == 200 && m.Reverse.Received == 200 && m.RTT.Samples == 200 && m.PathMTU == 9000
			}, "clean counts")}},
		{name: "forward DSCP remark only", hook: func(_ *transport.MemFabric, k pkt) bool {
			if k.fromA {
				k.d.TOS = transport.TOS(8, k.d.TOS&3)
			}
			return true
		}, checks: []check{onlyCodes(CodeDSCPRemarked), verdict(false),
			finding(CodeDSCPRemarked, SeverityError, "DSCP 26 arrived as 8 (remarked on the path)", "forward: DSCP 8 on 200 of 200 packets")}},
		{name: "reverse ECN bleach only", hook: func(_ *transport.MemFabric, k pkt) bool {
			if !k.fromA {
				k.d.TOS &^= 3
			}
			return true
		}, checks: []check{onlyCodes(CodeECNBleached), verdict(false),
			finding(CodeECNBleached, SeverityError, "ECN bleached: sent ECT(0), received Not-ECT", "reverse: Not-ECT")}},
		{name: "ECT(1) becomes ECT(0)", policy: func(p *Policy) { p.ECN = ECT1 }, hook: func(_ *transport.MemFabric, k pkt) bool {
			if k.fromA {
				k.d.TOS = k.d.TOS&^3 | uint8(ECT0)
			}
			return true
		}, checks: []check{onlyCodes(CodeECNRemarked), verdict(true),
			finding(CodeECNRemarked, SeverityWarning, "ECN changed: sent ECT(1), received ECT(0)", "forward")}},
		{name: "forward CE: CNPs come back", hook: func(_ *transport.MemFabric, k pkt) bool {
			if k.isData {
				k.d.TOS |= 3
			}
			return true
		}, checks: []check{onlyCodes(CodeCEMarked), verdict(true),
			meas(func(m Measurements) bool {
				return m.CEMarked == 200 && m.CNPsSent == 200 && m.CNPsReceived == 200 && m.Reverse.CEFraction == 0
			}, "CNP per CE mark"),
			finding(CodeCEMarked, SeverityWarning, "CE marked on 100.0% of packets (congestion on the path)", "200 CNPs received")}},
		{name: "CE but CNPs dropped", hook: func(_ *transport.MemFabric, k pkt) bool {
			if k.isData {
				k.d.TOS |= 3
			}
			return !k.isCNP
		}, checks: []check{onlyCodes(CodeCEMarked, CodeCEWithoutCNP), verdict(false),
			finding(CodeCEWithoutCNP, SeverityError, "CE marked but no CNP returned", "the responder sent 200 CNPs (0 rate-limited); 0 arrived")}},
		{name: "CNP DSCP remarked", hook: func(_ *transport.MemFabric, k pkt) bool {
			if k.isData {
				k.d.TOS |= 3
			}
			if k.isCNP {
				k.d.TOS = transport.TOS(0, k.d.TOS&3)
			}
			return true
		}, checks: []check{onlyCodes(CodeDSCPRemarked, CodeCEMarked), verdict(false),
			finding(CodeDSCPRemarked, SeverityError, "DSCP 48 arrived as 0 (remarked on the path)", "CNPs: DSCP 0")}},
		{name: "10% forward loss", hook: func(_ *transport.MemFabric, k pkt) bool { return !(k.isData && drop10()) },
			checks: []check{onlyCodes(CodeLoss), verdict(false),
				finding(CodeLoss, SeverityError, "10.0% loss in the lossless class", "forward 10.0% (20 of 200 lost), reverse 0.0%")}},
		{name: "10% forward loss, ecn-only within limit", policy: func(p *Policy) { p.Profile, p.MaxLossPercent = ProfileECNOnly, 15 },
			hook:   func(_ *transport.MemFabric, k pkt) bool { return !(k.isData && drop10b()) },
			checks: []check{verdict(true), finding(CodeLoss, SeverityWarning, "10.0% loss in the RoCE class, within the 15.0% the ecn-only profile allows", "forward 10.0%")}},
		{name: "10% reverse loss", hook: func(_ *transport.MemFabric, k pkt) bool { return !(k.isACK && k.udpSize < 100 && drop10c()) },
			checks: []check{verdict(false), meas(func(m Measurements) bool {
				return m.LossPercent == 0 && m.Reverse.LossPercent >= 9 && m.Reverse.LossPercent <= 11
			}, "reverse-only loss"),
				finding(CodeLoss, SeverityError, "10.0% loss in the lossless class", "forward 0.0% (0 of 200 lost)")}},
		{name: "reordering", hook: func(f *transport.MemFabric, k pkt) bool {
			if !k.isData {
				return true
			}
			if h := held.Swap(nil); h != nil {
				f.Inject(k.d) // this packet, then the held one: it arrives late
				f.Inject(h)
				return false
			}
			if reorder5() {
				held.Store(k.d.Clone())
				return false
			}
			return true
		}, checks: []check{onlyCodes(CodeReordering), verdict(true),
			// Every 5th packet the hook sees is held back behind the next one:
			// one late packet per 6, each leaving a gap that is NAKed once.
			meas(func(m Measurements) bool { return m.Reordered == 33 && m.Received == 200 && m.NAKsReceived == 33 }, "33 late packets, each a NAKed gap")}},
		{name: "duplicates", hook: func(f *transport.MemFabric, k pkt) bool {
			if k.isData && dup10() {
				f.Inject(k.d.Clone())
			}
			return true
		}, checks: []check{onlyCodes(CodeDuplicates), verdict(true),
			meas(func(m Measurements) bool {
				return m.Duplicates == 20 && m.Received == 200 && m.Reverse.Duplicates == 0 && m.Reverse.LossPercent == 0
			}, "20 forward duplicates, re-ACKed without reverse loss")}},
		{name: "corrupted requests", hook: func(_ *transport.MemFabric, k pkt) bool {
			if k.isData && corrupt20() {
				k.d.Payload[len(k.d.Payload)-10] ^= 0x40
			}
			return true
		}, checks: []check{onlyCodes(CodeICRCError, CodeLoss), verdict(false),
			finding(CodeICRCError, SeverityError, "10 packets failed the ICRC check (corrupted on the path)", "forward 10, reverse 0")}},
		{name: "MTU 1500 both ways", hook: func(_ *transport.MemFabric, k pkt) bool { return k.udpSize <= 1472 },
			checks: []check{onlyCodes(CodeMTUBlackhole), verdict(false),
				meas(func(m Measurements) bool { return m.PathMTU == 1500 && m.PathMTUReverse == 1500 }, "path MTU 1500"),
				finding(CodeMTUBlackhole, SeverityError, "packets above 1472 bytes lost: path MTU 1500 is below intent 9000", "both directions")}},
		{name: "MTU 4000 forward only", hook: func(_ *transport.MemFabric, k pkt) bool { return !k.fromA || k.udpSize <= 4000-28 },
			checks: []check{onlyCodes(CodeMTUBlackhole), verdict(false),
				meas(func(m Measurements) bool { return m.PathMTU == 4000 && m.PathMTUReverse == 9000 }, "forward 4000, reverse 9000"),
				finding(CodeMTUBlackhole, SeverityError, "packets above 3972 bytes lost: path MTU 4000 is below intent 9000", "forward: largest packet through 4000 bytes")}},
		{name: "ping-pong (one outstanding) and AckReq every 4th", policy: func(p *Policy) { p.Outstanding, p.AckEvery = 1, 4 },
			checks: []check{onlyCodes(), meas(func(m Measurements) bool { return m.Received == 200 && m.RTT.Samples == 50 && m.Reverse.Sent == 50 }, "AckReq on every 4th")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pol := fastPolicy()
			if tc.policy != nil {
				tc.policy(&pol)
			}
			rep, pr := runWithFault(t, pol, memB, tc.hook)
			for _, c := range tc.checks {
				c(t, rep, pr.Measurements)
			}
		})
	}
}

func TestSenderIPv6AndNoResponder(t *testing.T) {
	t.Parallel()
	pol := fastPolicy()
	_, a, _ := memPair(t, pol)
	rep, pr := runTo(t, a, pol, memB6)
	if !rep.Pass() || pr.Measurements.IPOverhead != 48 || pr.Measurements.PathMTU != 9000 || pr.From != memA6.String() {
		t.Fatalf("IPv6: %s %+v", rep.Verdict, pr)
	}
	nobody := netip.MustParseAddr("10.0.0.9")
	pol.ConnectTimeout = 300 * time.Millisecond
	rep, pr = runTo(t, a, pol, nobody)
	if rep.Pass() || pr.Measurements.Reachable || len(rep.Findings) != 1 || rep.Findings[0].Code != CodeNoResponder ||
		rep.Findings[0].Message != "no probe responder answered at 10.0.0.9" || rep.Findings[0].Pair != "10.0.0.1 -> 10.0.0.9" {
		t.Fatalf("no responder: %+v", rep.Findings)
	}
}

func TestSenderRateAndDuration(t *testing.T) {
	t.Parallel()
	pol := fastPolicy()
	pol.Count, pol.Duration, pol.RatePPS, pol.Outstanding, pol.SkipMTUSweep = 0, 200*time.Millisecond, 1000, 0, true
	_, a, _ := memPair(t, pol)
	_, pr := runTo(t, a, pol, memB)
	if m := pr.Measurements; m.Sent < 150 || m.Sent > 230 || m.Received != m.Sent {
		t.Fatalf("1000 pps for 200 ms sent %d (received %d)", m.Sent, m.Received)
	}
}

// A responder that answers the stats exchange in a version we do not speak
// must fail the verdict with a clear finding, not pass unproven.
func TestSenderRejectsUnknownStatsVersion(t *testing.T) {
	f := transport.NewMemFabric()
	pol := fastPolicy()
	a := memEndpoint(t, f, pol, memA)
	host := f.Host(memB)
	rx, _ := host.Listen(netip.AddrPortFrom(memB, DefaultPort), transport.Options{})
	tx, _ := host.Listen(netip.AddrPortFrom(memB, 50001), transport.Options{})
	defer rx.Close()
	defer tx.Close()
	go func() { // a future responder: ACKs everything, speaks stats v2
		ms := []transport.Message{{Buf: make([]byte, 9000)}}
		var psn uint32
		for {
			ms[0].Buf = ms[0].Buf[:cap(ms[0].Buf)]
			if _, err := rx.ReadBatch(ms); err != nil {
				return
			}
			var p wire.Packet
			if wire.Decode(ms[0].Payload(), &p) != nil {
				continue
			}
			env := wire.ProbeEnvelope(tx.LocalAddr(), netip.AddrPortFrom(memA, DefaultPort))
			var out [][]byte
			ack := wire.Packet{BTH: wire.BTH{Opcode: wire.OpRCAcknowledge, PKey: p.BTH.PKey, DestQP: p.BTH.DestQP - 1, PSN: p.BTH.PSN}, AETH: wire.AETH{Syndrome: 0x1F}}
			b, _ := wire.Encode(nil, &env, &ack)
			out = append(out, b)
			if isStatsPayload(p.Payload) {
				in := responderStats{Received: 1}
				body := appendStatsReply(nil, &in)
				body[4] = 2
				copy(body[8:12], p.Payload[8:12]) // echo the token
				s := wire.Packet{BTH: wire.BTH{Opcode: wire.OpRCSendOnly, PKey: p.BTH.PKey, DestQP: p.BTH.DestQP - 1, PSN: psn}, Payload: body}
				psn++
				b, _ := wire.Encode(nil, &env, &s)
				out = append(out, b)
			}
			for _, b := range out {
				tx.WriteBatch([]transport.Message{{Buf: b, Peer: netip.AddrPortFrom(memA, DefaultPort)}})
			}
		}
	}()
	pol.SkipMTUSweep = true
	rep, pr := runTo(t, a, pol, memB)
	m := pr.Measurements
	if rep.Pass() || !m.Reachable || m.StatsExchanged || !m.StatsVersionMismatch || !strings.Contains(m.StatsError, "speaks probe stats version 2; this probe speaks 1") {
		t.Fatalf("verdict %s measurements %+v", rep.Verdict, m)
	}
	if fs := findingsWith(rep, CodeStatsVersion); len(fs) != 1 || fs[0].Severity != SeverityError {
		t.Fatalf("findings %+v", rep.Findings)
	}
}

func TestRunWritesPcapOfBothDirections(t *testing.T) {
	pol := fastPolicy()
	pol.Count, pol.SkipMTUSweep = 20, true
	_, a, _ := memPair(t, pol)
	var buf bytes.Buffer
	rep, err := a.Run(context.Background(), RunConfig{Targets: []Target{{Addr: memB}}, Policy: pol, Pcap: &buf})
	if err != nil || !rep.Pass() {
		t.Fatal(err, rep.Findings)
	}
	r, err := pcapgo.NewReader(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var out, in int
	for {
		data, _, err := r.ReadPacketData()
		if err != nil {
			break
		}
		var p wire.Packet
		info, err := wire.DecodeIP(data, &p)
		if err != nil {
			t.Fatalf("pcap record does not decode with a valid ICRC: %v", err)
		}
		if info.DstPort != DefaultPort {
			t.Fatalf("a probe packet to port %d", info.DstPort)
		}
		if info.Src == memA {
			out++
		} else {
			in++
		}
	}
	// 20 data + Begin + Query out; 20 ACKs + 2 control ACKs + 2 stats SENDs in.
	if out != 22 || in != 24 {
		t.Fatalf("pcap holds %d sent and %d received packets", out, in)
	}
}
