package probe

import (
	"net"
	"net/netip"
	"testing"
)

// An endpoint bound to one address sends from it. The route's preferred
// source for 127.0.0.2 is 127.0.0.1, where nothing listens: sending from
// there lost every reply (the demo's loopback hosts, a host with several
// addresses).
func TestBoundEndpointSendsFromItsAddress(t *testing.T) {
	t.Parallel()
	a, b := netip.MustParseAddr("127.0.0.2"), netip.MustParseAddr("127.0.0.3")
	pc, err := net.ListenPacket("udp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no loopback address 127.0.0.2: %v", err)
	}
	port := uint16(pc.LocalAddr().(*net.UDPAddr).Port)
	pc.Close()
	pol := fastPolicy()
	open := func(addr netip.Addr) *Endpoint {
		e, err := NewEndpoint(EndpointConfig{Policy: pol, Port: port, Listen: []netip.Addr{addr}, Name: addr.String()})
		if err != nil {
			t.Skipf("port %d on %s: %v", port, addr, err)
		}
		t.Cleanup(func() { e.Close() })
		return e
	}
	responder, sender := open(a), open(b)
	rep, pr := runTo(t, sender, pol, a)
	if !rep.Pass() || !pr.Measurements.Reachable {
		t.Fatalf("bound loopback endpoints: %s %v (%s)", rep.Verdict, rep.Findings, pr.Measurements.Error)
	}
	if pr.From != b.String() {
		t.Errorf("pair from %q, want the bound address %s", pr.From, b)
	}
	if got := responder.Counters().Received; got < uint64(pol.Count) {
		t.Errorf("responder received %d packets, want at least %d", got, pol.Count)
	}
}
