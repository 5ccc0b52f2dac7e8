package probe

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"regexp"
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
	isData  bool // a data-phase request from A: SEND or READ request (small; sweep packets are big)
	isACK   bool
	isRead  bool // a data-phase READ response (small)
	isCNP   bool
	udpSize int
}

func classify(d *transport.Datagram) pkt {
	k := pkt{d: d, fromA: d.Src.Addr() == memA || d.Src.Addr() == memA6, udpSize: len(d.Payload)}
	if wire.Decode(d.Payload, &k.p) != nil {
		return k
	}
	op := k.p.BTH.Opcode
	send := op == wire.OpRCSendOnly && len(k.p.Payload) > 0 && k.p.Payload[0] == 0
	k.isData = k.fromA && (send || op == wire.OpRCReadRequest) && len(d.Payload) < 200
	k.isACK = !k.fromA && op == wire.OpRCAcknowledge && k.p.AETH.IsACK()
	k.isRead = !k.fromA && op == wire.OpRCReadResponseOnly && len(d.Payload) < 200
	k.isCNP = op == wire.OpCNP
	return k
}

// every returns a predicate true for every nth packet it is asked about.
func every(n int64) func() bool {
	var c atomic.Int64
	return func() bool { return c.Add(1)%n == 0 }
}

// entropyPorts are an endpoint's UDP source ports, in flow order.
func entropyPorts(e *Endpoint) []uint16 {
	var out []uint16
	for _, c := range e.fams[0].pool {
		out = append(out, c.LocalAddr().Port())
	}
	return out
}

// ports are the entropy ports of A (forward flows) and B (reverse flows).
type ports struct{ a, b []uint16 }

func runWithFault(t *testing.T, pol Policy, to netip.Addr, hook func(f *transport.MemFabric, k pkt) bool) (*Report, PairResult) {
	t.Helper()
	rep, pr, _ := runWithFaultOn(t, pol, to, func(ports) func(*transport.MemFabric, pkt) bool { return hook })
	return rep, pr
}

// runWithFaultOn builds the hook once the endpoints' ports are known, so
// a fault can hit some flows only.
func runWithFaultOn(t *testing.T, pol Policy, to netip.Addr, mk func(ports) func(*transport.MemFabric, pkt) bool) (*Report, PairResult, ports) {
	t.Helper()
	f, a, b := memPair(t, pol)
	ps := ports{entropyPorts(a), entropyPorts(b)}
	if hook := mk(ps); hook != nil {
		f.SetFault(func(d *transport.Datagram) bool { return hook(f, classify(d)) })
	}
	rep, pr := runTo(t, a, pol, to)
	return rep, pr, ps
}

func portList(ps ...uint16) string {
	var out []string
	for _, p := range ps {
		out = append(out, fmt.Sprint(p))
	}
	return strings.Join(out, ", ")
}

func TestSenderMeasuresFaults(t *testing.T) {
	t.Parallel()
	type check func(t *testing.T, rep *Report, m Measurements, ps ports)
	// finding checks the one finding of code whose message matches msg
	// (a regular expression once ports are filled in by fill).
	finding := func(code Code, sev Severity, msg func(ports) string, measContains string) check {
		return findingOf(code, sev, func(ps ports, _ Measurements) (string, string) { return msg(ps), measContains })
	}
	is := func(s string) func(ports) string { return func(ports) string { return regexp.QuoteMeta(s) } }
	verdict := func(pass bool) check {
		return func(t *testing.T, rep *Report, _ Measurements, _ ports) {
			t.Helper()
			if rep.Pass() != pass {
				t.Errorf("verdict %s, findings %v", rep.Verdict, codes(rep))
			}
		}
	}
	onlyCodes := func(want ...Code) check {
		return func(t *testing.T, rep *Report, _ Measurements, _ ports) {
			t.Helper()
			if got := codes(rep); !slices.Equal(got, want) {
				t.Errorf("findings %v, want exactly %v", got, want)
			}
		}
	}
	meas := func(f func(m Measurements) bool, what string) check {
		return func(t *testing.T, _ *Report, m Measurements, _ ports) {
			t.Helper()
			if !f(m) {
				t.Errorf("%s: %+v", what, m)
			}
		}
	}
	const fa, ra = "forward 10.0.0.1 → 10.0.0.2: ", "reverse 10.0.0.2 → 10.0.0.1: "
	drop10, drop10b, drop10c, dup10, corrupt20, reorder5 := every(10), every(10), every(10), every(10), every(20), every(5)
	var held atomic.Pointer[transport.Datagram]
	tests := []struct {
		name   string
		policy func(*Policy)
		hook   func(ps ports) func(f *transport.MemFabric, k pkt) bool
		checks []check
	}{
		{name: "clean", checks: []check{onlyCodes(), verdict(true),
			meas(func(m Measurements) bool {
				return m.Sent == 200 && m.Received == 200 && m.Reverse.Sent == 200 && m.Reverse.Received == 200 && m.RTT.Samples == 200 &&
					m.PathMTU == 9000 && m.PathMTUReverse == 9000 && m.FlowsComplete && m.Reverse.FlowsComplete &&
					len(ofKind(m.PerFlow, KindData)) == 8 && len(ofKind(m.Reverse.PerFlow, KindACK)) == 8 &&
					len(ofKind(m.Reverse.PerFlow, KindReadResponse)) == 8 && len(m.MTUByFlow) == 16
			}, "clean counts, every flow carrying data, ACKs and READ responses")}},
		{name: "forward DSCP remark only", hook: fault(func(_ *transport.MemFabric, k pkt) bool {
			if k.fromA {
				k.d.TOS = transport.TOS(8, k.d.TOS&3)
			}
			return true
		}), checks: []check{onlyCodes(CodeDSCPRemarked), verdict(false),
			finding(CodeDSCPRemarked, SeverityError, is(fa+"DSCP 26 arrived as 8 on all 8 flows"), "forward data packets: DSCP 8 on 200 of 200 packets")}},
		{name: "forward DSCP remark on two flows", hook: func(ps ports) func(*transport.MemFabric, pkt) bool {
			return func(_ *transport.MemFabric, k pkt) bool {
				if k.fromA && (k.d.Src.Port() == ps.a[2] || k.d.Src.Port() == ps.a[5]) {
					k.d.TOS = transport.TOS(8, k.d.TOS&3)
				}
				return true
			}
		}, checks: []check{onlyCodes(CodeDSCPRemarked), verdict(false),
			findingOf(CodeDSCPRemarked, SeverityError, func(ps ports, m Measurements) (string, string) {
				n := sentOn(m.PerFlow, KindData, ps.a[2]) + sentOn(m.PerFlow, KindData, ps.a[5])
				return regexp.QuoteMeta(fa + "DSCP 26 arrived as 8 on 2 of 8 flows (UDP source ports " + portList(ps.a[2], ps.a[5]) + ")"),
					fmt.Sprintf("forward data packets: DSCP 8 on %d of 200 packets", n)
			})}},
		{name: "reverse ECN bleach only", hook: fault(func(_ *transport.MemFabric, k pkt) bool {
			if !k.fromA {
				k.d.TOS &^= 3
			}
			return true
		}), checks: []check{onlyCodes(CodeECNBleached, CodeECNBleached), verdict(false),
			finding(CodeECNBleached, SeverityError, is(ra+"ACK ECN bleached: sent ECT(0), received Not-ECT on all 8 flows"), "reverse ACKs: Not-ECT"),
			finding(CodeECNBleached, SeverityError, is(ra+"READ response ECN bleached: sent ECT(0), received Not-ECT on all 8 flows"), "reverse READ responses: Not-ECT")}},
		{name: "ECT(1) becomes ECT(0)", policy: func(p *Policy) { p.ECN = ECT1 }, hook: fault(func(_ *transport.MemFabric, k pkt) bool {
			if k.fromA {
				k.d.TOS = k.d.TOS&^3 | uint8(ECT0)
			}
			return true
		}), checks: []check{onlyCodes(CodeECNRemarked), verdict(true),
			finding(CodeECNRemarked, SeverityWarning, is(fa+"ECN changed: sent ECT(1), received ECT(0) on all 8 flows"), "forward")}},
		{name: "forward CE: CNPs come back", hook: fault(func(_ *transport.MemFabric, k pkt) bool {
			if k.isData {
				k.d.TOS |= 3
			}
			return true
		}), checks: []check{onlyCodes(CodeCEMarked), verdict(true),
			meas(func(m Measurements) bool {
				return m.CEMarked == 200 && m.CNPsSent == 200 && m.CNPsReceived == 200 && m.Reverse.CEFraction == 0 &&
					len(ofKind(m.Reverse.PerFlow, KindCNP)) == 8
			}, "CNP per CE mark, on every reverse flow"),
			finding(CodeCEMarked, SeverityWarning, is(fa+"CE marked on 100.0% of data packets on all 8 flows (congestion on the path)"), "200 CNPs received")}},
		{name: "CE but CNPs dropped", hook: fault(func(_ *transport.MemFabric, k pkt) bool {
			if k.isData {
				k.d.TOS |= 3
			}
			return !k.isCNP
		}), checks: []check{onlyCodes(CodeCEMarked, CodeCEWithoutCNP), verdict(false),
			finding(CodeCEWithoutCNP, SeverityError, is(ra+"CE marked but no CNP returned"), "the responder sent 200 CNPs (0 rate-limited); 0 arrived")}},
		{name: "CNP DSCP remarked", hook: fault(func(_ *transport.MemFabric, k pkt) bool {
			if k.isData {
				k.d.TOS |= 3
			}
			if k.isCNP {
				k.d.TOS = transport.TOS(0, k.d.TOS&3)
			}
			return true
		}), checks: []check{onlyCodes(CodeDSCPRemarked, CodeCEMarked), verdict(false),
			finding(CodeDSCPRemarked, SeverityError, is(ra+"CNP DSCP 48 arrived as 0 on all 8 flows"), "reverse CNPs: DSCP 0 on 200 of 200")}},
		{name: "CNPs lost on one reverse flow", hook: func(ps ports) func(*transport.MemFabric, pkt) bool {
			return func(_ *transport.MemFabric, k pkt) bool {
				if k.isData {
					k.d.TOS |= 3
				}
				return !(k.isCNP && k.d.Src.Port() == ps.b[3])
			}
		}, checks: []check{onlyCodes(CodeCEMarked, CodeLoss), verdict(true),
			findingOf(CodeLoss, SeverityWarning, func(ps ports, m Measurements) (string, string) {
				n := sentOn(m.Reverse.PerFlow, KindCNP, ps.b[3])
				return regexp.QuoteMeta(ra + pct(percent(n, 200)) + " of CNPs lost on 1 of 8 flows (UDP source port " + fmt.Sprint(ps.b[3]) + ")"),
					fmt.Sprintf("reverse CNPs: %d of 200 lost", n)
			})}},
		{name: "10% forward loss", hook: fault(func(_ *transport.MemFabric, k pkt) bool { return !(k.isData && drop10()) }),
			checks: []check{onlyCodes(CodeLoss), verdict(false),
				finding(CodeLoss, SeverityError, func(ports) string {
					return regexp.QuoteMeta(fa+"10.0% of data packets lost on ") + `.* in the lossless class`
				},
					"forward data packets: 20 of 200 lost")}},
		{name: "10% forward loss, ecn-only within limit", policy: func(p *Policy) { p.Profile, p.MaxLossPercent = ProfileECNOnly, 15 },
			hook: fault(func(_ *transport.MemFabric, k pkt) bool { return !(k.isData && drop10b()) }),
			checks: []check{verdict(true), finding(CodeLoss, SeverityWarning,
				func(ports) string {
					return regexp.QuoteMeta(fa+"10.0% of data packets lost on ") + `.*, within the 15\.0% the ecn-only profile allows`
				}, "forward")}},
		{name: "one forward flow lost", hook: func(ps ports) func(*transport.MemFabric, pkt) bool {
			return func(_ *transport.MemFabric, k pkt) bool { return !(k.isData && k.d.Src.Port() == ps.a[6]) }
		}, checks: []check{onlyCodes(CodeLoss), verdict(false),
			findingOf(CodeLoss, SeverityError, func(ps ports, m Measurements) (string, string) {
				n := sentOn(m.PerFlow, KindData, ps.a[6])
				return regexp.QuoteMeta(fa + pct(percent(n, 200)) + " of data packets lost on 1 of 8 flows (UDP source port " + fmt.Sprint(ps.a[6]) + ") in the lossless class"),
					fmt.Sprintf("forward data packets: %d of 200 lost", n)
			})}},
		{name: "10% ACK loss on the reverse path", hook: fault(func(_ *transport.MemFabric, k pkt) bool { return !(k.isACK && k.udpSize < 100 && drop10c()) }),
			checks: []check{onlyCodes(CodeLoss), verdict(false),
				meas(func(m Measurements) bool {
					acks := sumFlows(ofKind(m.Reverse.PerFlow, KindACK))
					lost := acks.Sent - acks.Received
					return m.LossPercent == 0 && lost*100 >= acks.Sent*8 && lost*100 <= acks.Sent*12
				}, "reverse-only loss, every 10th ACK"),
				finding(CodeLoss, SeverityError, func(ports) string { return regexp.QuoteMeta(ra) + `\d+\.\d% of ACKs lost on .* in the lossless class` }, "reverse ACKs")}},
		{name: "READ responses lost on one reverse flow", hook: func(ps ports) func(*transport.MemFabric, pkt) bool {
			return func(_ *transport.MemFabric, k pkt) bool { return !(k.isRead && k.d.Src.Port() == ps.b[1]) }
		}, checks: []check{onlyCodes(CodeLoss), verdict(false),
			findingOf(CodeLoss, SeverityError, func(ps ports, m Measurements) (string, string) {
				n, all := sentOn(m.Reverse.PerFlow, KindReadResponse, ps.b[1]), sumFlows(ofKind(m.Reverse.PerFlow, KindReadResponse)).Sent
				return regexp.QuoteMeta(ra + pct(percent(n, all)) + " of READ responses lost on 1 of 8 flows (UDP source port " + fmt.Sprint(ps.b[1]) + ") in the lossless class"),
					fmt.Sprintf("reverse READ responses: %d of %d lost", n, all)
			})}},
		{name: "reordering", hook: fault(func(f *transport.MemFabric, k pkt) bool {
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
		}), checks: []check{verdict(true),
			// A late READ request makes its response late as well, so the
			// reverse direction may report reordering too.
			func(t *testing.T, rep *Report, _ Measurements, _ ports) {
				for _, c := range codes(rep) {
					if c != CodeReordering {
						t.Errorf("findings %v, want only reordering", codes(rep))
					}
				}
			},
			// Every 5th packet the hook sees is held back behind the next one:
			// one late packet per 6, each leaving a gap that is NAKed once.
			meas(func(m Measurements) bool { return m.Reordered == 33 && m.Received == 200 && m.NAKsReceived == 33 }, "33 late packets, each a NAKed gap"),
			finding(CodeReordering, SeverityWarning, is(fa+"33 data packets arrived out of order"), "forward 33")}},
		{name: "duplicates", hook: fault(func(f *transport.MemFabric, k pkt) bool {
			if k.isData && dup10() {
				f.Inject(k.d.Clone())
			}
			return true
		}), checks: []check{onlyCodes(CodeDuplicates), verdict(true),
			meas(func(m Measurements) bool {
				return m.Duplicates == 20 && m.Received == 200 && m.Reverse.Duplicates == 0 && m.Reverse.LossPercent == 0
			}, "20 forward duplicates, re-ACKed without reverse loss")}},
		{name: "corrupted requests", hook: fault(func(_ *transport.MemFabric, k pkt) bool {
			if k.isData && corrupt20() {
				k.d.Payload[len(k.d.Payload)-3] ^= 0x40 // inside the ICRC
			}
			return true
		}), checks: []check{onlyCodes(CodeICRCError, CodeLoss), verdict(false),
			finding(CodeICRCError, SeverityError, func(ports) string {
				return regexp.QuoteMeta(fa+"10 data packets failed the ICRC check on ") + `\d of 8 flows \(UDP source ports [0-9, ]+\): corrupted on the path`
			}, "forward: 10 data packets")}},
		{name: "MTU 1500 both ways", hook: fault(func(_ *transport.MemFabric, k pkt) bool { return k.udpSize <= 1472 }),
			checks: []check{onlyCodes(CodeMTUBlackhole, CodeMTUBlackhole), verdict(false),
				meas(func(m Measurements) bool { return m.PathMTU == 1500 && m.PathMTUReverse == 1500 }, "path MTU 1500"),
				finding(CodeMTUBlackhole, SeverityError, is(fa+"packets above 1500 bytes lost on all 8 flows: path MTU 1500 is below intent 9000"),
					"forward: largest IP packet through 1500 bytes; 1504 bytes lost again"),
				finding(CodeMTUBlackhole, SeverityError, is(ra+"packets above 1500 bytes lost on all 8 flows: path MTU 1500 is below intent 9000"), "reverse")}},
		{name: "MTU 4000 forward only", hook: fault(func(_ *transport.MemFabric, k pkt) bool { return !k.fromA || k.udpSize <= 4000-28 }),
			checks: []check{onlyCodes(CodeMTUBlackhole), verdict(false),
				meas(func(m Measurements) bool { return m.PathMTU == 4000 && m.PathMTUReverse == 9000 }, "forward 4000, reverse 9000"),
				finding(CodeMTUBlackhole, SeverityError, is(fa+"packets above 4000 bytes lost on all 8 flows: path MTU 4000 is below intent 9000"), "forward: largest IP packet through 4000 bytes")}},
		{name: "MTU 4000 on two forward flows", hook: func(ps ports) func(*transport.MemFabric, pkt) bool {
			return func(_ *transport.MemFabric, k pkt) bool {
				return !(k.fromA && (k.d.Src.Port() == ps.a[0] || k.d.Src.Port() == ps.a[4]) && k.udpSize > 4000-28)
			}
		}, checks: []check{onlyCodes(CodeMTUBlackhole), verdict(false),
			meas(func(m Measurements) bool { return m.PathMTU == 4000 && m.PathMTUReverse == 9000 }, "forward 4000 on the worst flows"),
			finding(CodeMTUBlackhole, SeverityError, func(ps ports) string {
				return regexp.QuoteMeta(fa + "packets above 4000 bytes lost on 2 of 8 flows (UDP source ports " + portList(ps.a[0], ps.a[4]) + "): path MTU 4000 is below intent 9000")
			}, "forward")}},
		{name: "MTU 2048 on one reverse flow", hook: func(ps ports) func(*transport.MemFabric, pkt) bool {
			return func(_ *transport.MemFabric, k pkt) bool {
				return !(!k.fromA && k.d.Src.Port() == ps.b[5] && k.udpSize > 2048-28)
			}
		}, checks: []check{onlyCodes(CodeMTUBlackhole), verdict(false),
			meas(func(m Measurements) bool { return m.PathMTU == 9000 && m.PathMTUReverse == 2048 }, "reverse 2048 on one flow"),
			finding(CodeMTUBlackhole, SeverityError, func(ps ports) string {
				return regexp.QuoteMeta(ra + "packets above 2048 bytes lost on 1 of 8 flows (UDP source port " + fmt.Sprint(ps.b[5]) + "): path MTU 2048 is below intent 9000")
			}, "reverse")}},
		{name: "random loss is not a black hole", hook: fault(func(_ *transport.MemFabric, k pkt) bool { return rand.IntN(100) >= 5 }),
			checks: []check{verdict(false), func(t *testing.T, rep *Report, _ Measurements, _ ports) {
				if slices.Contains(codes(rep), CodeMTUBlackhole) || !slices.Contains(codes(rep), CodeLoss) {
					t.Errorf("5%% random loss: findings %v", codes(rep))
				}
			}}},
		{name: "ping-pong (one outstanding) and AckReq every 4th", policy: func(p *Policy) { p.Outstanding, p.AckEvery, p.ReadEvery = 1, 4, -1 },
			checks: []check{onlyCodes(), meas(func(m Measurements) bool { return m.Received == 200 && m.RTT.Samples == 50 && m.Reverse.Sent == 50 }, "AckReq on every 4th")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pol := fastPolicy()
			if tc.policy != nil {
				tc.policy(&pol)
			}
			hook := tc.hook
			if hook == nil {
				hook = func(ports) func(*transport.MemFabric, pkt) bool { return nil }
			}
			rep, pr, ps := runWithFaultOn(t, pol, memB, hook)
			for _, c := range tc.checks {
				c(t, rep, pr.Measurements, ps)
			}
		})
	}
}

// findingOf checks the finding of code whose message matches the regular
// expression msg returns; its measurement must contain the second value.
func findingOf(code Code, sev Severity, msg func(ports, Measurements) (string, string)) func(*testing.T, *Report, Measurements, ports) {
	return func(t *testing.T, rep *Report, m Measurements, ps ports) {
		t.Helper()
		pattern, measContains := msg(ps, m)
		re := regexp.MustCompile("^" + pattern + "$")
		for _, f := range rep.Findings {
			if f.Code == code && re.MatchString(f.Message) {
				if f.Severity != sev || !strings.Contains(f.Measurement, measContains) {
					t.Errorf("%s: severity %s measurement %q; want %s containing %q", code, f.Severity, f.Measurement, sev, measContains)
				}
				return
			}
		}
		var got []string
		for _, f := range rep.Findings {
			got = append(got, string(f.Code)+": "+f.Message)
		}
		t.Errorf("no %s finding matching %q in\n%s", code, re, strings.Join(got, "\n"))
	}
}

// sentOn is what the flow from port sent of kind.
func sentOn(fs []FlowStats, kind PacketKind, port uint16) int {
	for _, f := range fs {
		if f.Kind == kind && f.SrcPort == port {
			return f.Sent
		}
	}
	return 0
}

// fault is a hook that needs no ports.
func fault(h func(*transport.MemFabric, pkt) bool) func(ports) func(*transport.MemFabric, pkt) bool {
	return func(ports) func(*transport.MemFabric, pkt) bool { return h }
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
	// The pair's own time is recorded (a lower bound only: no wall-clock
	// ceiling in tests).
	if ms := pr.Measurements.ElapsedMillis; ms < 200 {
		t.Fatalf("elapsed %d ms for a 200 ms data phase", ms)
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

// Forty flows do not fit one stats reply: the sender pages through the
// responder's flows and still gets every one.
func TestSenderPagesThroughManyFlows(t *testing.T) {
	t.Parallel()
	pol := fastPolicy()
	pol.Flows, pol.Count, pol.SkipMTUSweep = 40, 400, true
	_, a, _ := memPair(t, pol)
	rep, pr := runTo(t, a, pol, memB)
	m := pr.Measurements
	if !rep.Pass() || !m.FlowsComplete || !m.Reverse.FlowsComplete {
		t.Fatalf("verdict %s, flows complete %v/%v: %v", rep.Verdict, m.FlowsComplete, m.Reverse.FlowsComplete, rep.Findings)
	}
	if n, r := len(ofKind(m.PerFlow, KindData)), len(ofKind(m.Reverse.PerFlow, KindACK)); n != 40 || r != 40 {
		t.Fatalf("%d forward and %d reverse ACK flows, want 40 each", n, r)
	}
	if sum := sumFlows(ofKind(m.PerFlow, KindData)); sum.Received != 400 || sum.Sent != 400 {
		t.Fatalf("per-flow totals %d/%d", sum.Sent, sum.Received)
	}
}
