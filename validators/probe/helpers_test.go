package probe

import (
	"context"
	"net/netip"
	"testing"
	"time"

	"github.com/rocefab/rocefab/validators/probe/transport"
)

var (
	memA  = netip.MustParseAddr("10.0.0.1")
	memB  = netip.MustParseAddr("10.0.0.2")
	memA6 = netip.MustParseAddr("fd00::1")
	memB6 = netip.MustParseAddr("fd00::2")
)

// fastPolicy keeps in-memory runs short. The connect timeout stays long:
// a healthy run never waits for it, and a busy test machine can delay the
// first answer.
func fastPolicy() Policy {
	p := DefaultPolicy()
	p.Count = 200
	// Batches of 8 a millisecond, each on the next flow: 200 packets give
	// every one of the 8 flows about 25, with READs on each.
	p.RatePPS = 8000
	p.Outstanding = 16
	p.ConnectTimeout = 3 * time.Second
	p.ReplyTimeout = 150 * time.Millisecond
	return p
}

func memEndpoint(t testing.TB, f *transport.MemFabric, pol Policy, addrs ...netip.Addr) *Endpoint {
	t.Helper()
	e, err := NewEndpoint(EndpointConfig{Policy: pol, Network: f.Host(addrs...), Listen: addrs, Name: addrs[0].String()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// memPair is host A and host B on an in-memory fabric.
func memPair(t testing.TB, pol Policy) (*transport.MemFabric, *Endpoint, *Endpoint) {
	f := transport.NewMemFabric()
	return f, memEndpoint(t, f, pol, memA, memA6), memEndpoint(t, f, pol, memB, memB6)
}

func runTo(t testing.TB, e *Endpoint, pol Policy, to netip.Addr) (*Report, PairResult) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rep, err := e.Run(ctx, RunConfig{Targets: []Target{{Addr: to}}, Policy: pol})
	if err != nil {
		t.Fatal(err)
	}
	return rep, rep.Pairs[0]
}
