//go:build linux

package transport

import (
	"net/netip"
	"testing"
	"time"

	"github.com/rocefab/rocefab/internal/netnstest"
)

// TestICMPListenerSeesTheQuote: a datagram sent with TTL 1 across a router
// comes back as time exceeded from the router's port, quoting our ports
// and the TOS as it arrived; with the TTL raised it reaches B, where
// nothing listens, and B answers port unreachable. Both address families.
func TestICMPListenerSeesTheQuote(t *testing.T) {
	netnstest.Require(t)
	l := netnstest.NewLine(t, netnstest.LineOptions{})
	for _, fam := range []struct {
		name          string
		src, dst, rtr netip.Addr
		v6            bool
	}{
		{"ipv4", l.AAddr, l.BAddr, netip.MustParseAddr("192.0.2.254"), false},
		{"ipv6", l.AAddr6, l.BAddr6, netip.MustParseAddr("2001:db8:a::fe"), true},
	} {
		t.Run(fam.name, func(t *testing.T) {
			var ln *ICMPListener
			var conn Conn
			err := l.A.Do(func() error {
				var err error
				if ln, err = ListenICMP(fam.v6); err != nil {
					return err
				}
				u, err := NewUDP()
				if err != nil {
					return err
				}
				conn, err = u.Listen(netip.AddrPortFrom(fam.src, 0), Options{TOS: TOS(26, 2)})
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			defer conn.Close()
			sport := conn.LocalAddr().Port()
			buf := make([]byte, 4096)
			next := func(ttl int) ICMPError {
				t.Helper()
				if err := SetTTL(conn, ttl); err != nil {
					t.Fatal(err)
				}
				deadline := time.Now().Add(5 * time.Second)
				for attempt := 0; ; attempt++ {
					if _, err := conn.WriteBatch([]Message{{Buf: []byte("rocefab path probe"), Peer: netip.AddrPortFrom(fam.dst, 4791), TOS: TOS(26, 2)}}); err != nil {
						t.Fatal(err)
					}
					e, err := ln.Read(buf, time.Now().Add(500*time.Millisecond))
					for err == nil && e.Quote.SrcPort != sport {
						e, err = ln.Read(buf, time.Now().Add(500*time.Millisecond))
					}
					if err == nil {
						return e
					}
					if time.Now().After(deadline) {
						t.Fatalf("TTL %d: no ICMP error: %v", ttl, err)
					}
				}
			}
			e := next(1)
			if !e.TimeExceeded() || e.From != fam.rtr || e.Quote.TOS != TOS(26, 2) || e.Quote.Dst != fam.dst || e.Quote.DstPort != 4791 {
				t.Errorf("TTL 1: %+v", e)
			}
			if string(e.Quote.Payload) != "rocefab path probe" {
				t.Errorf("quoted payload %q", e.Quote.Payload)
			}
			if e = next(2); !e.PortUnreachable() || e.From != fam.dst {
				t.Errorf("TTL 2: %+v", e)
			}
		})
	}
}
