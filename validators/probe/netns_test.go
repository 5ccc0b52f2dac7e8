package probe

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/rocefab/rocefab/internal/netnstest"
)

// e2ePolicy keeps each netns run to about a second.
func e2ePolicy() Policy {
	p := DefaultPolicy()
	p.Count = 300
	p.RatePPS = 3000
	p.ConnectTimeout = 3 * time.Second
	p.ReplyTimeout = 300 * time.Millisecond
	return p
}

// nsEndpoint opens an endpoint whose sockets live in ns.
func nsEndpoint(t testing.TB, ns *netnstest.NS, cfg EndpointConfig) *Endpoint {
	t.Helper()
	var e *Endpoint
	if err := ns.Do(func() error {
		var err error
		e, err = NewEndpoint(cfg)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// probeLine builds host A – router – host B with an endpoint on each host,
// loads the nft fault rules into the router, and probes B from A.
func probeLine(t *testing.T, opt netnstest.LineOptions, pol Policy, to func(*netnstest.Line) netip.Addr, rules ...string) (*Report, PairResult) {
	t.Helper()
	return probeLineWith(t, opt, pol, to, func(_, _ []uint16) []string { return rules })
}

// probeLineWith is probeLine with rules that may name the endpoints'
// entropy ports: A's are the forward flows, B's the reverse flows.
func probeLineWith(t *testing.T, opt netnstest.LineOptions, pol Policy, to func(*netnstest.Line) netip.Addr, rules func(a, b []uint16) []string) (*Report, PairResult) {
	t.Helper()
	l := netnstest.NewLine(t, opt)
	a := nsEndpoint(t, l.A, EndpointConfig{Policy: pol, Name: "host-a"})
	b := nsEndpoint(t, l.B, EndpointConfig{Policy: pol, Name: "host-b"})
	if rs := rules(entropyPorts(a), entropyPorts(b)); len(rs) > 0 {
		l.Nft(t, rs...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rep, err := a.Run(ctx, RunConfig{Targets: []Target{{Name: "host-b", Addr: to(l)}}, Policy: pol, From: "host-a"})
	if err != nil {
		t.Fatal(err)
	}
	if testing.Verbose() {
		var b []byte
		buf := &bytesWriter{&b}
		rep.WriteText(buf)
		t.Logf("\n%s", b)
	}
	return rep, rep.Pairs[0]
}

type bytesWriter struct{ b *[]byte }

func (w *bytesWriter) Write(p []byte) (int, error) { *w.b = append(*w.b, p...); return len(p), nil }

func v4(l *netnstest.Line) netip.Addr { return l.BAddr }
func v6(l *netnstest.Line) netip.Addr { return l.BAddr6 }

func findingsWith(rep *Report, code Code) []Finding {
	var out []Finding
	for _, f := range rep.Findings {
		if f.Code == code {
			out = append(out, f)
		}
	}
	return out
}

func codes(rep *Report) []Code {
	var out []Code
	for _, f := range rep.Findings {
		out = append(out, f.Code)
	}
	return out
}

func TestE2ECleanPathPasses(t *testing.T) {
	netnstest.Require(t)
	t.Parallel()
	for _, fam := range []struct {
		name string
		to   func(*netnstest.Line) netip.Addr
	}{{"ipv4", v4}, {"ipv6", v6}} {
		t.Run(fam.name, func(t *testing.T) {
			t.Parallel()
			rep, pr := probeLine(t, netnstest.LineOptions{}, e2ePolicy(), fam.to)
			m := pr.Measurements
			if !rep.Pass() || len(rep.Findings) != 0 {
				t.Fatalf("clean path: verdict %s, findings %v", rep.Verdict, rep.Findings)
			}
			if m.Sent != 300 || m.Received != 300 || m.Reverse.Received != m.Reverse.Sent || m.Reverse.Sent < 300 {
				t.Errorf("counts: sent %d received %d, replies %d/%d", m.Sent, m.Received, m.Reverse.Received, m.Reverse.Sent)
			}
			if m.DSCPReceived[26] != 300 || m.ECNReceived[ECT0] != 300 || m.Reverse.DSCPReceived[26] != m.Reverse.Received {
				t.Errorf("DSCP/ECN as received: %v %v reverse %v", m.DSCPReceived, m.ECNReceived, m.Reverse.DSCPReceived)
			}
			if m.ICRCErrors != 0 || m.Reverse.ICRCErrors != 0 {
				t.Errorf("ICRC errors on a clean path: %d/%d (the IPv4 ID 0 contract is broken?)", m.ICRCErrors, m.Reverse.ICRCErrors)
			}
			if m.RTT.Samples != 300 || m.RTT.Clock != "kernel" || m.RTT.P50 <= 0 || m.RTT.P50 > m.RTT.P99 {
				t.Errorf("RTT %+v", m.RTT)
			}
			if m.PathMTU != 9000 || m.PathMTUReverse != 9000 {
				t.Errorf("path MTU %d/%d, want 9000 both ways", m.PathMTU, m.PathMTUReverse)
			}
			if m.Flows != 8 {
				t.Errorf("flows %d", m.Flows)
			}
		})
	}
}

// nftPorts is an nft set of ports: "{ 49152, 50001 }".
func nftPorts(ps ...uint16) string { return "{ " + portList(ps...) + " }" }

// e2eWant is one finding a fault must produce: code, severity, direction,
// packet kind, the message (a regular expression) and the flows it names
// (nil: every flow).
type e2eWant struct {
	code  Code
	sev   Severity
	dir   string
	kind  PacketKind
	msg   string
	flows []uint16
}

// TestE2EFaultsAreNamed injects one fault per direction and packet kind
// with nftables in the router, some on a few flows only (matched by UDP
// source port), some on the reverse path only (matched by the responder's
// address and the BTH opcode, the first byte after the UDP header), and
// checks that the findings are exactly the expected ones, with direction,
// kind and flows as fields.
func TestE2EFaultsAreNamed(t *testing.T) {
	netnstest.Require(t)
	netnstest.RequireTool(t, "nft")
	t.Parallel()
	const (
		fwd  = "ip saddr 192.0.2.1 udp dport 4791 "
		rev  = "ip saddr 198.51.100.1 udp dport 4791 "
		fa   = `forward host-a → host-b: `
		ra   = `reverse host-b → host-a: `
		op   = "@th,64,8 " // the BTH opcode
		ack  = op + "0x11 "
		read = op + "0x0d-0x10 "
		cnp  = op + "0x81 "
	)
	q := regexp.QuoteMeta
	tests := []struct {
		name  string
		opt   netnstest.LineOptions
		rules func(a, b []uint16) []string
		want  func(a, b []uint16) []e2eWant
		check func(t *testing.T, m Measurements)
	}{
		{name: "forward: DSCP remarked on two flows",
			rules: func(a, _ []uint16) []string {
				return []string{fwd + "udp sport " + nftPorts(a[1], a[4]) + " ip dscp set cs1"}
			},
			want: func(a, _ []uint16) []e2eWant {
				return []e2eWant{{CodeDSCPRemarked, SeverityError, "forward", KindData,
					q(fa + "DSCP 26 arrived as 8 on 2 of 8 flows (UDP source ports " + portList(a[1], a[4]) + ")"), []uint16{a[1], a[4]}}}
			}},
		{name: "forward: ECN bleached",
			rules: func(_, _ []uint16) []string { return []string{fwd + "ip ecn set not-ect"} },
			want: func(_, _ []uint16) []e2eWant {
				return []e2eWant{{CodeECNBleached, SeverityError, "forward", KindData, q(fa + "ECN bleached: sent ECT(0), received Not-ECT on all 8 flows"), nil}}
			}},
		{name: "forward: data lost on one flow",
			rules: func(a, _ []uint16) []string {
				return []string{fwd + "udp sport " + fmt.Sprint(a[3]) + " " + op + "{ 0x04, 0x0c } numgen random mod 100 < 30 drop"}
			},
			want: func(a, _ []uint16) []e2eWant {
				return []e2eWant{{CodeLoss, SeverityError, "forward", KindData,
					q(fa) + `\d+\.\d+% of data packets lost` + q(fmt.Sprintf(" on 1 of 8 flows (UDP source port %d) in the lossless class", a[3])), []uint16{a[3]}}}
			}},
		{name: "forward: MTU 4000 on two flows",
			rules: func(a, _ []uint16) []string {
				return []string{fwd + "udp sport " + nftPorts(a[2], a[6]) + " ip length > 4000 drop"}
			},
			want: func(a, _ []uint16) []e2eWant {
				return []e2eWant{{CodeMTUBlackhole, SeverityError, "forward", KindData,
					q(fa + "packets above 4000 bytes lost on 2 of 8 flows (UDP source ports " + portList(a[2], a[6]) + "): path MTU 4000 is below intent 9000"),
					[]uint16{a[2], a[6]}}}
			},
			check: func(t *testing.T, m Measurements) {
				if m.PathMTU != 4000 || m.PathMTUReverse != 9000 {
					t.Errorf("path MTU %d/%d, want 4000/9000", m.PathMTU, m.PathMTUReverse)
				}
			}},
		{name: "reverse only: ACK DSCP remarked",
			rules: func(_, _ []uint16) []string { return []string{rev + ack + "ip dscp set cs1"} },
			want: func(_, _ []uint16) []e2eWant {
				return []e2eWant{{CodeDSCPRemarked, SeverityError, "reverse", KindACK, q(ra + "ACK DSCP 26 arrived as 8 on all 8 flows"), nil}}
			}},
		{name: "reverse only: ACKs lost",
			rules: func(_, _ []uint16) []string { return []string{rev + ack + "numgen random mod 100 < 5 drop"} },
			want: func(_, _ []uint16) []e2eWant {
				return []e2eWant{{CodeLoss, SeverityError, "reverse", KindACK, q(ra) + `\d+\.\d+% of ACKs lost( on .*)? in the lossless class`, []uint16{}}}
			},
			check: func(t *testing.T, m Measurements) {
				if m.LossPercent != 0 {
					t.Errorf("forward loss %.1f%% with a reverse-only fault", m.LossPercent)
				}
			}},
		{name: "reverse only: READ response DSCP remarked",
			rules: func(_, _ []uint16) []string { return []string{rev + read + "ip dscp set af11"} },
			want: func(_, _ []uint16) []e2eWant {
				return []e2eWant{{CodeDSCPRemarked, SeverityError, "reverse", KindReadResponse, q(ra + "READ response DSCP 26 arrived as 10 on all 8 flows"), nil}}
			}},
		{name: "reverse only: READ responses lost on one flow",
			rules: func(_, b []uint16) []string {
				return []string{rev + "udp sport " + fmt.Sprint(b[3]) + " " + read + "ip length < 200 drop"}
			},
			want: func(_, b []uint16) []e2eWant {
				return []e2eWant{{CodeLoss, SeverityError, "reverse", KindReadResponse,
					q(ra) + `\d+\.\d+% of READ responses lost` + q(fmt.Sprintf(" on 1 of 8 flows (UDP source port %d) in the lossless class", b[3])), []uint16{b[3]}}}
			}},
		{name: "reverse only: CNP DSCP remarked",
			rules: func(_, _ []uint16) []string { return []string{fwd + "ip ecn set ce", rev + cnp + "ip dscp set cs0"} },
			want: func(_, _ []uint16) []e2eWant {
				return []e2eWant{{CodeDSCPRemarked, SeverityError, "reverse", KindCNP, q(ra + "CNP DSCP 48 arrived as 0 on all 8 flows"), nil},
					{CodeCEMarked, SeverityWarning, "forward", KindData, q(fa + "CE marked on 100.0% of data packets on all 8 flows (congestion on the path)"), nil}}
			}},
		{name: "reverse only: CNPs lost",
			rules: func(_, _ []uint16) []string { return []string{fwd + "ip ecn set ce", rev + cnp + "drop"} },
			want: func(_, _ []uint16) []e2eWant {
				return []e2eWant{{CodeCEMarked, SeverityWarning, "forward", KindData, q(fa + "CE marked on 100.0% of data packets on all 8 flows (congestion on the path)"), nil},
					{CodeCEWithoutCNP, SeverityError, "reverse", KindCNP, q(ra + "CE marked but no CNP returned"), []uint16{}}}
			}},
		{name: "reverse only: MTU 2048 on one flow",
			rules: func(_, b []uint16) []string {
				return []string{rev + "udp sport " + fmt.Sprint(b[5]) + " ip length > 2048 drop"}
			},
			want: func(_, b []uint16) []e2eWant {
				return []e2eWant{{CodeMTUBlackhole, SeverityError, "reverse", KindReadResponse,
					q(ra + fmt.Sprintf("packets above 2048 bytes lost on 1 of 8 flows (UDP source port %d): path MTU 2048 is below intent 9000", b[5])), []uint16{b[5]}}}
			},
			check: func(t *testing.T, m Measurements) {
				if m.PathMTU != 9000 || m.PathMTUReverse != 2048 {
					t.Errorf("path MTU %d/%d, want 9000/2048", m.PathMTU, m.PathMTUReverse)
				}
			}},
		{name: "both ways: DSCP remarked, each direction and kind named",
			rules: func(_, _ []uint16) []string { return []string{"udp dport 4791 ip dscp set cs1"} },
			want: func(_, _ []uint16) []e2eWant {
				return []e2eWant{{CodeDSCPRemarked, SeverityError, "forward", KindData, q(fa + "DSCP 26 arrived as 8 on all 8 flows"), nil},
					{CodeDSCPRemarked, SeverityError, "reverse", KindACK, q(ra + "ACK DSCP 26 arrived as 8 on all 8 flows"), nil},
					{CodeDSCPRemarked, SeverityError, "reverse", KindReadResponse, q(ra + "READ response DSCP 26 arrived as 8 on all 8 flows"), nil}}
			}},
		{name: "both ways: MTU 1500 on one hop", opt: netnstest.LineOptions{MTUB: 1500}, rules: func(_, _ []uint16) []string { return nil },
			want: func(_, _ []uint16) []e2eWant {
				return []e2eWant{{CodeMTUBlackhole, SeverityError, "forward", KindData, q(fa + "packets above 1500 bytes lost on all 8 flows: path MTU 1500 is below intent 9000"), nil},
					{CodeMTUBlackhole, SeverityError, "reverse", KindReadResponse, q(ra + "packets above 1500 bytes lost on all 8 flows: path MTU 1500 is below intent 9000"), nil}}
			},
			check: func(t *testing.T, m Measurements) {
				if m.PathMTU != 1500 || m.PathMTUReverse != 1500 || m.LossPercent != 0 {
					t.Errorf("path MTU %d/%d loss %.1f", m.PathMTU, m.PathMTUReverse, m.LossPercent)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var a, b []uint16
			rep, pr := probeLineWith(t, tc.opt, e2ePolicy(), v4, func(pa, pb []uint16) []string { a, b = pa, pb; return tc.rules(pa, pb) })
			want := tc.want(a, b)
			if len(rep.Findings) != len(want) {
				t.Errorf("%d findings, want %d:", len(rep.Findings), len(want))
			}
			for i, f := range rep.Findings {
				t.Logf("finding: %s %s %s/%s flows %v of %d: %s", f.Severity, f.Code, f.Direction, f.PacketKind, f.Flows, f.FlowsTotal, f.Message)
				if i >= len(want) {
					continue
				}
				w := want[i]
				if f.Code != w.code || f.Severity != w.sev || f.Direction != w.dir || f.PacketKind != w.kind ||
					!regexp.MustCompile("^"+w.msg+"$").MatchString(f.Message) || f.Pair != "host-a -> host-b" {
					t.Errorf("finding %d:\n got  %s %s %s/%s %q\n want %s %s %s/%s %q", i, f.Severity, f.Code, f.Direction, f.PacketKind, f.Message,
						w.sev, w.code, w.dir, w.kind, w.msg)
				}
				switch {
				case w.flows == nil && (len(f.Flows) != 8 || f.FlowsTotal != 8):
					t.Errorf("finding %d names flows %v of %d, want all 8", i, f.Flows, f.FlowsTotal)
				case len(w.flows) > 0 && !slices.Equal(f.Flows, w.flows):
					t.Errorf("finding %d names flows %v, want %v", i, f.Flows, w.flows)
				}
			}
			fails := slices.ContainsFunc(want, func(w e2eWant) bool { return w.sev == SeverityError })
			if rep.Pass() == fails {
				t.Errorf("verdict %s", rep.Verdict)
			}
			if tc.check != nil {
				tc.check(t, pr.Measurements)
			}
		})
	}
}

// Random loss both ways is loss, never a black hole; CE both ways is
// congestion (a failure only under pfc-only).
func TestE2ELossAndCongestionBothWays(t *testing.T) {
	netnstest.Require(t)
	netnstest.RequireTool(t, "nft")
	t.Parallel()
	t.Run("random loss", func(t *testing.T) {
		t.Parallel()
		pol := e2ePolicy()
		pol.Count = 600
		rep, pr := probeLine(t, netnstest.LineOptions{}, pol, v4, "numgen random mod 100 < 5 drop")
		m := pr.Measurements
		if fs := findingsWith(rep, CodeLoss); len(fs) == 0 || fs[0].Direction != "forward" ||
			!regexp.MustCompile(`^forward host-a → host-b: \d+\.\d% of data packets lost on .* in the lossless class$`).MatchString(fs[0].Message) {
			t.Fatalf("loss findings %+v (all: %v)", fs, codes(rep))
		}
		if m.LossPercent < 1 || m.LossPercent > 15 || m.Reverse.LossPercent > 15 {
			t.Errorf("5%% random drop measured as forward %.1f%% reverse %.1f%%", m.LossPercent, m.Reverse.LossPercent)
		}
		if rep.Pass() {
			t.Error("loss in the lossless class must fail")
		}
		if slices.Contains(codes(rep), CodeMTUBlackhole) {
			t.Error("random loss misread as an MTU black hole")
		}
	})
	t.Run("CE marking", func(t *testing.T) {
		t.Parallel()
		rep, pr := probeLine(t, netnstest.LineOptions{}, e2ePolicy(), v4, "ip ecn set ce")
		fs := findingsWith(rep, CodeCEMarked)
		if len(fs) == 0 || fs[0].Severity == SeverityError || fs[0].Message != "forward host-a → host-b: CE marked on 100.0% of data packets on all 8 flows (congestion on the path)" {
			t.Fatalf("ce_marked findings %+v", fs)
		}
		m := pr.Measurements
		if m.CNPsReceived < m.Received || m.CNPsSent < m.Received || m.CEMarked != m.Received {
			t.Errorf("CE on %d of %d requests, CNPs sent %d received %d: every CE-marked request needs a CNP",
				m.CEMarked, m.Received, m.CNPsSent, m.CNPsReceived)
		}
		if m.CNPDSCPReceived[48] != m.CNPsReceived {
			t.Errorf("CNP DSCP %v, want all 48", m.CNPDSCPReceived)
		}
		if !rep.Pass() || slices.Contains(codes(rep), CodeCEWithoutCNP) {
			t.Errorf("dcqcn: CE with CNPs is congestion, not a failure; got %s %v", rep.Verdict, codes(rep))
		}
		pfc := DefaultPolicy()
		pfc.Profile = ProfilePFCOnly
		if again := NewReport(rep.Pairs, pfc); again.Pass() || findingsWith(again, CodeCEMarked)[0].Severity != SeverityError {
			t.Errorf("pfc-only: CE marks must fail the verdict: %+v", again.Findings)
		}
	})
}

func TestE2ENoResponder(t *testing.T) {
	netnstest.Require(t)
	t.Parallel()
	l := netnstest.NewLine(t, netnstest.LineOptions{})
	pol := e2ePolicy()
	pol.ConnectTimeout = 500 * time.Millisecond
	a := nsEndpoint(t, l.A, EndpointConfig{Policy: pol})
	rep, err := a.Run(context.Background(), RunConfig{Targets: []Target{{Name: "host-b", Addr: l.BAddr}}, Policy: pol, From: "host-a"})
	if err != nil {
		t.Fatal(err)
	}
	fs := findingsWith(rep, CodeNoResponder)
	if rep.Pass() || len(fs) != 1 || fs[0].Pair != "host-a -> host-b" || fs[0].Message != "no probe responder answered at host-b" {
		t.Fatalf("verdict %s findings %+v", rep.Verdict, rep.Findings)
	}
}

// `probe serve` on host A, then `probe run` on the same host: the run goes
// through the server's control socket and its endpoint in A's namespace.
// The test calls Run from the test's own namespace, which has no route to
// B, so a passing verdict proves the server did the work; a second server
// is refused by name rather than with "address in use".
func TestE2ERunThroughServe(t *testing.T) {
	netnstest.Require(t)
	t.Parallel()
	l := netnstest.NewLine(t, netnstest.LineOptions{})
	pol := e2ePolicy()
	nsEndpoint(t, l.B, EndpointConfig{Policy: pol})
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- l.A.Do(func() error { return Serve(ctx, EndpointConfig{Policy: pol, RunDir: dir}) }) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	waitControl(t, dir)

	rep, err := Run(context.Background(), RunConfig{Targets: []Target{{Name: "host-b", Addr: l.BAddr}}, Policy: pol,
		From: "host-a", Endpoint: EndpointConfig{RunDir: dir}})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Pass() || rep.Pairs[0].Measurements.Received != pol.Count {
		t.Fatalf("run through the server: %s %v", rep.Verdict, rep.Findings)
	}
	err = l.A.Do(func() error { return Serve(context.Background(), EndpointConfig{Policy: pol, RunDir: dir}) })
	if !errors.Is(err, ErrServerRunning) {
		t.Fatalf("second server on the host: %v", err)
	}
	// Even without the control socket dir, a second endpoint on the port
	// gets the probe's own error, not a raw EADDRINUSE.
	err = l.A.Do(func() error { _, err := NewEndpoint(EndpointConfig{Policy: pol}); return err })
	if !errors.Is(err, ErrPortInUse) {
		t.Fatalf("second endpoint: %v", err)
	}
}
