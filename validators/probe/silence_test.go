package probe

import (
	"context"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/internal/netnstest"
)

func TestClassifySilence(t *testing.T) {
	dst := netip.MustParseAddr("198.51.100.6")
	hop := func(a string) TraceHop { return TraceHop{TTL: 1, From: netip.MustParseAddr(a)} }
	silent := TraceHop{TTL: 2}
	cases := []struct {
		name   string
		fr     FlowResult
		want   Code
		reason string
	}{
		{"no route here", FlowResult{Dst: dst, Error: "UDP source port 0: connect: network is unreachable"}, CodeNoPath, "this host has no route to 198.51.100.6"},
		{"no raw socket", FlowResult{Dst: dst, TraceError: "raw ICMP socket: operation not permitted"}, "", "run as root"},
		{"port unreachable", FlowResult{Dst: dst, DstPort: 4791, Trace: &FlowTrace{Hops: []TraceHop{hop("192.0.2.1")}, Reached: true, NoResponder: true}},
			CodeNoResponder, "198.51.100.6 answered ICMP port unreachable: the host is up and the path to it works, but nothing serves UDP 4791 there"},
		{"first hop silent", FlowResult{Dst: dst, Trace: &FlowTrace{Hops: []TraceHop{{TTL: 1}, {TTL: 2}, {TTL: 3}}}}, CodeNoPath, "not even the first"},
		{"stops after a hop", FlowResult{Dst: dst, Trace: &FlowTrace{Hops: []TraceHop{hop("192.0.2.1"), silent, {TTL: 3}, {TTL: 4}}}}, CodeNoPath,
			"the path to 198.51.100.6 stops after hop 1 (192.0.2.1)"},
		{"a silent hop between", FlowResult{Dst: dst, Trace: &FlowTrace{Hops: []TraceHop{hop("192.0.2.1"), silent, hop("198.51.100.129"), {TTL: 4}}}}, CodeNoPath,
			"stops after hop 3 (198.51.100.129)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := ClassifySilence(tc.fr)
			if s.Verdict != tc.want || !strings.Contains(s.Reason, tc.reason) {
				t.Fatalf("got %q: %s", s.Verdict, s.Reason)
			}
		})
	}
	// The verdict turns a traced no_path into its own code.
	pr := PairResult{From: "a", To: "b", Measurements: Measurements{Silence: &Silence{Verdict: CodeNoPath, Reason: "no router answered"}}}
	if fs := Evaluate(pr, DefaultPolicy()); len(fs) != 1 || fs[0].Code != CodeNoPath || !strings.Contains(fs[0].Message, "packets do not get to b") {
		t.Fatalf("findings %+v", fs)
	}
	pr.Measurements.Silence = &Silence{Verdict: CodeNoResponder, Reason: "b answered ICMP port unreachable"}
	if fs := Evaluate(pr, DefaultPolicy()); len(fs) != 1 || fs[0].Code != CodeNoResponder || !strings.Contains(fs[0].Message, "port unreachable") {
		t.Fatalf("findings %+v", fs)
	}
}

// TestE2ENoPathOrNoResponder: across a router, a host whose responder is
// not running is no_responder (it answers port unreachable), and a broken
// path is no_path whichever way it breaks: the router's forwarding off,
// the sender without a route, the router without one. Each is told apart
// on the first run.
func TestE2ENoPathOrNoResponder(t *testing.T) {
	netnstest.Require(t)
	t.Parallel()
	l := netnstest.NewLine(t, netnstest.LineOptions{})
	pol := e2ePolicy()
	pol.ConnectTimeout = 500 * time.Millisecond
	a := nsEndpoint(t, l.A, EndpointConfig{Policy: pol})
	probe := func(to netip.Addr) (Finding, *Silence) {
		t.Helper()
		var rep *Report
		// Run from inside A, as the CLI and probe serve do: the trace's
		// sockets open in the caller's namespace.
		if err := l.A.Do(func() error {
			var err error
			rep, err = a.Run(context.Background(), RunConfig{Targets: []Target{{Name: "host-b", Addr: to}}, Policy: pol, From: "host-a"})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if rep.Pass() || len(rep.Findings) != 1 {
			t.Fatalf("verdict %s, findings %+v", rep.Verdict, rep.Findings)
		}
		return rep.Findings[0], rep.Pairs[0].Measurements.Silence
	}
	for _, to := range []netip.Addr{l.BAddr, l.BAddr6} {
		f, s := probe(to)
		if f.Code != CodeNoResponder || s == nil || s.Verdict != CodeNoResponder || !strings.Contains(f.Message, "answered ICMP port unreachable") {
			t.Fatalf("no responder at %s: %+v, silence %+v", to, f, s)
		}
	}

	l.Router.Sysctl(t, "net.ipv4.ip_forward", "0")
	f, s := probe(l.BAddr)
	if f.Code != CodeNoPath || !strings.Contains(f.Message, "not even the first") {
		t.Fatalf("forwarding off: %+v, silence %+v", f, s)
	}
	l.Router.Sysctl(t, "net.ipv4.ip_forward", "1")

	l.Router.Run("ip", "route", "add", "unreachable", l.BAddr.String()+"/32")
	f, s = probe(l.BAddr)
	if f.Code != CodeNoPath {
		t.Fatalf("router without a route: %+v, silence %+v", f, s)
	}
	l.Router.Run("ip", "route", "del", "unreachable", l.BAddr.String()+"/32")

	l.A.Run("ip", "route", "del", "default")
	f, s = probe(l.BAddr)
	if f.Code != CodeNoPath || !strings.Contains(f.Message, "no route") {
		t.Fatalf("no route on the sender: %+v, silence %+v", f, s)
	}
}
