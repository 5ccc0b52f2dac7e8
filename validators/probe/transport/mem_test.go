package transport

import (
	"bytes"
	"errors"
	"net/netip"
	"testing"
)

var (
	addrA = netip.MustParseAddr("10.0.0.1")
	addrB = netip.MustParseAddr("10.0.0.2")
)

func mustListen(t *testing.T, h *MemHost, ap netip.AddrPort) Conn {
	t.Helper()
	c, err := h.Listen(ap, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestMemDeliversWithTOSAndAddresses(t *testing.T) {
	f := NewMemFabric()
	a, b := f.Host(addrA), f.Host(addrB)
	src := mustListen(t, a, netip.AddrPortFrom(netip.IPv4Unspecified(), 0))
	dst := mustListen(t, b, netip.AddrPortFrom(netip.IPv4Unspecified(), 4791))
	if p := src.LocalAddr().Port(); p < 49152 {
		t.Fatalf("port 0 bound to %d, want the entropy range", p)
	}
	out := []Message{
		{Buf: []byte("one"), Peer: netip.AddrPortFrom(addrB, 4791), TOS: TOS(26, 2)},
		{Buf: []byte("two"), Peer: netip.AddrPortFrom(addrB, 4791), TOS: TOS(48, 2)},
		{Buf: []byte("lost"), Peer: netip.AddrPortFrom(addrB, 9999)},
	}
	n, err := src.WriteBatch(out)
	if err != nil || n != 3 {
		t.Fatalf("WriteBatch = %d, %v", n, err)
	}
	in := make([]Message, 4)
	for i := range in {
		in[i].Buf = make([]byte, 2)
	}
	n, err = dst.ReadBatch(in)
	if err != nil || n != 2 {
		t.Fatalf("ReadBatch = %d, %v", n, err)
	}
	if in[0].Peer != netip.AddrPortFrom(addrA, src.LocalAddr().Port()) || in[0].Local != addrB {
		t.Errorf("addresses: peer %s local %s", in[0].Peer, in[0].Local)
	}
	if d, e := SplitTOS(in[1].TOS); d != 48 || e != 2 || !in[1].HasTOS {
		t.Errorf("TOS = dscp %d ecn %d", d, e)
	}
	if !in[0].Truncated || !bytes.Equal(in[0].Payload(), []byte("on")) {
		t.Errorf("a 3-byte datagram into a 2-byte buffer: truncated=%v payload=%q", in[0].Truncated, in[0].Payload())
	}
	if f.Undeliverable.Load() != 1 {
		t.Errorf("datagram to a closed port should count as undeliverable")
	}
}

func TestMemFaultHookRewritesAndDrops(t *testing.T) {
	f := NewMemFabric()
	a, b := f.Host(addrA), f.Host(addrB)
	src := mustListen(t, a, netip.AddrPortFrom(addrA, 50000))
	dst := mustListen(t, b, netip.AddrPortFrom(addrB, 4791))
	f.SetFault(func(d *Datagram) bool {
		d.TOS = TOS(8, 0) // remark and bleach
		return d.Payload[0] != 'x'
	})
	_, _ = src.WriteBatch([]Message{
		{Buf: []byte("xdrop"), Peer: dst.LocalAddr(), TOS: TOS(26, 2)},
		{Buf: []byte("keep"), Peer: dst.LocalAddr(), TOS: TOS(26, 2)},
	})
	in := []Message{{Buf: make([]byte, 16)}}
	if n, err := dst.ReadBatch(in); n != 1 || err != nil {
		t.Fatal(n, err)
	}
	if string(in[0].Payload()) != "keep" || in[0].TOS != TOS(8, 0) {
		t.Fatalf("got %q tos %#x", in[0].Payload(), in[0].TOS)
	}
	if f.Dropped.Load() != 1 {
		t.Fatalf("dropped = %d", f.Dropped.Load())
	}
}

func TestMemAddrInUseAndClose(t *testing.T) {
	f := NewMemFabric()
	b := f.Host(addrB)
	c := mustListen(t, b, netip.AddrPortFrom(netip.IPv4Unspecified(), 4791))
	if _, err := b.Listen(netip.AddrPortFrom(addrB, 4791), Options{}); !errors.Is(err, ErrAddrInUse) {
		t.Fatalf("second bind: %v", err)
	}
	if _, err := b.Listen(netip.AddrPortFrom(addrA, 1), Options{}); err == nil {
		t.Fatal("binding a foreign address should fail")
	}
	done := make(chan error)
	go func() {
		_, err := c.ReadBatch([]Message{{Buf: make([]byte, 8)}})
		done <- err
	}()
	c.Close()
	if err := <-done; !errors.Is(err, ErrClosed) {
		t.Fatalf("ReadBatch after Close: %v", err)
	}
	if _, err := b.Listen(netip.AddrPortFrom(addrB, 4791), Options{}); err != nil {
		t.Fatalf("port not released on Close: %v", err)
	}
}
