package probe

import (
	"context"
	"errors"
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
	l := netnstest.NewLine(t, opt)
	if len(rules) > 0 {
		l.Nft(t, rules...)
	}
	a := nsEndpoint(t, l.A, EndpointConfig{Policy: pol, Name: "host-a"})
	nsEndpoint(t, l.B, EndpointConfig{Policy: pol, Name: "host-b"})
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

func TestE2EFaultsAreNamed(t *testing.T) {
	netnstest.Require(t)
	netnstest.RequireTool(t, "nft")
	t.Parallel()
	exact := func(code Code, msg string) func(*testing.T, *Report, PairResult) {
		return func(t *testing.T, rep *Report, _ PairResult) {
			fs := findingsWith(rep, code)
			if len(fs) == 0 {
				t.Fatalf("no %s finding; got %v", code, codes(rep))
			}
			for _, f := range fs {
				if f.Message != msg {
					t.Errorf("%s message %q, want %q", code, f.Message, msg)
				}
				if f.Pair != "host-a -> host-b" || f.Severity != SeverityError {
					t.Errorf("finding %+v", f)
				}
			}
			if rep.Pass() {
				t.Error("verdict passed")
			}
		}
	}
	tests := []struct {
		name  string
		opt   netnstest.LineOptions
		rules []string
		check func(*testing.T, *Report, PairResult)
	}{
		{"dscp remark", netnstest.LineOptions{}, []string{"udp dport 4791 ip dscp set cs1"},
			exact(CodeDSCPRemarked, "DSCP 26 arrived as 8 (remarked on the path)")},
		{"ecn bleach", netnstest.LineOptions{}, []string{"ip ecn set not-ect"},
			exact(CodeECNBleached, "ECN bleached: sent ECT(0), received Not-ECT")},
		{"mtu mismatch on one hop", netnstest.LineOptions{MTUB: 1500}, nil, func(t *testing.T, rep *Report, pr PairResult) {
			exact(CodeMTUBlackhole, "packets above 1472 bytes lost: path MTU 1500 is below intent 9000")(t, rep, pr)
			if m := pr.Measurements; m.PathMTU != 1500 || m.PathMTUReverse != 1500 || m.LossPercent != 0 {
				t.Errorf("path MTU %d/%d loss %.1f", m.PathMTU, m.PathMTUReverse, m.LossPercent)
			}
		}},
		{"random loss", netnstest.LineOptions{}, []string{"numgen random mod 100 < 5 drop"}, func(t *testing.T, rep *Report, pr PairResult) {
			fs := findingsWith(rep, CodeLoss)
			if len(fs) != 1 || !regexp.MustCompile(`^\d+\.\d% loss in the lossless class$`).MatchString(fs[0].Message) {
				t.Fatalf("loss findings %+v (all: %v)", fs, codes(rep))
			}
			m := pr.Measurements
			if m.LossPercent < 1 || m.LossPercent > 15 || m.Reverse.LossPercent > 15 {
				t.Errorf("5%% random drop measured as forward %.1f%% reverse %.1f%%", m.LossPercent, m.Reverse.LossPercent)
			}
			if rep.Pass() {
				t.Error("loss in the lossless class must fail")
			}
			if slices.Contains(codes(rep), CodeMTUBlackhole) {
				t.Error("random loss misread as an MTU black hole")
			}
		}},
		{"CE marking", netnstest.LineOptions{}, []string{"ip ecn set ce"}, func(t *testing.T, rep *Report, pr PairResult) {
			fs := findingsWith(rep, CodeCEMarked)
			if len(fs) != 1 || fs[0].Severity == SeverityError || fs[0].Message != "CE marked on 100.0% of packets (congestion on the path)" {
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
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pol := e2ePolicy()
			if tc.name == "random loss" {
				pol.Count = 600
			}
			rep, pr := probeLine(t, tc.opt, pol, v4, tc.rules...)
			tc.check(t, rep, pr)
		})
	}
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
