package probe

import (
	"net"
	"net/netip"
	"os"
	"testing"
)

// An endpoint bound to one address sends from it. The route's preferred
// source for 127.0.0.2 is 127.0.0.1, where nothing listens: sending from
// there lost every reply (the demo's loopback hosts, a host with several
// addresses).
func TestBoundEndpointSendsFromItsAddress(t *testing.T) {
	t.Parallel()
	a, b := netip.MustParseAddr("127.0.0.2"), netip.MustParseAddr("127.0.0.3")
	pol := fastPolicy()
	// Both endpoints share a port the kernel picked as free on 127.0.0.2;
	// another process may take it in between, so try a few.
	var responder, sender *Endpoint
	for attempt := 0; responder == nil; attempt++ {
		pc, err := net.ListenPacket("udp", "127.0.0.2:0")
		if err != nil {
			// Linux answers on all of 127/8; other systems need an alias.
			if os.Getenv("ROCEFAB_REQUIRE_NETNS") == "1" {
				t.Fatalf("no loopback address 127.0.0.2: %v", err)
			}
			t.Skipf("no loopback address 127.0.0.2: %v", err)
		}
		port := uint16(pc.LocalAddr().(*net.UDPAddr).Port)
		pc.Close()
		r, err1 := NewEndpoint(EndpointConfig{Policy: pol, Port: port, Listen: []netip.Addr{a}, Name: a.String()})
		s, err2 := NewEndpoint(EndpointConfig{Policy: pol, Port: port, Listen: []netip.Addr{b}, Name: b.String()})
		if err1 == nil && err2 == nil {
			responder, sender = r, s
			t.Cleanup(func() { r.Close(); s.Close() })
			break
		}
		for _, e := range []*Endpoint{r, s} {
			if e != nil {
				e.Close()
			}
		}
		if attempt == 4 {
			t.Fatalf("port %d on %s and %s: %v, %v", port, a, b, err1, err2)
		}
	}
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
