//go:build linux

package transport_test

import (
	"errors"
	"net/netip"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/rocefab/rocefab/internal/netnstest"
	"github.com/rocefab/rocefab/validators/probe/transport"
	"github.com/rocefab/rocefab/validators/probe/wire"
)

type host struct {
	net  *transport.UDP
	conn transport.Conn
}

// open creates a Network and one socket inside ns.
func open(t *testing.T, ns *netnstest.NS, local netip.AddrPort, tos uint8) host {
	t.Helper()
	var h host
	err := ns.Do(func() error {
		var err error
		if h.net, err = transport.NewUDP(); err != nil {
			return err
		}
		h.conn, err = h.net.Listen(local, transport.Options{TOS: tos, ReadBuffer: 1 << 20})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.conn.Close(); h.net.Close() })
	return h
}

// collect reads from c until want datagrams arrived (or a generous deadline
// passed), then for a short while longer to catch any unexpected extra.
// Waiting for the datagrams, not a fixed quiet time, keeps a slow machine
// from losing them.
func collect(t *testing.T, c transport.Conn, want int) []transport.Message {
	t.Helper()
	ch := make(chan transport.Message, 256)
	go func() {
		for {
			ms := make([]transport.Message, 8)
			for i := range ms {
				ms[i].Buf = make([]byte, 9216)
			}
			n, err := c.ReadBatch(ms)
			if err != nil {
				close(ch)
				return
			}
			for _, m := range ms[:n] {
				ch <- m
			}
		}
	}()
	var got []transport.Message
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	var extra <-chan time.Time
	for {
		select {
		case m, ok := <-ch:
			if !ok {
				return got
			}
			got = append(got, m)
			if len(got) == want {
				extra = time.After(100 * time.Millisecond)
			}
		case <-deadline.C:
			c.Close() // ends the reader goroutine
			return got
		case <-extra:
			c.Close()
			return got
		}
	}
}

// capture opens an AF_PACKET socket in ns that sees IP packets as they
// arrived on the wire, IP header included.
func capture(t *testing.T, ns *netnstest.NS) int {
	t.Helper()
	var fd int
	err := ns.Do(func() error {
		var err error
		fd, err = unix.Socket(unix.AF_PACKET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, int(htons(unix.ETH_P_ALL)))
		if err != nil {
			return err
		}
		tv := unix.NsecToTimeval(int64(200 * time.Millisecond))
		return unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	return fd
}

func htons(v uint16) uint16 { return v<<8 | v>>8 }

// capturedRoCE returns every incoming RoCE packet (UDP dport 4791) seen on fd.
func capturedRoCE(fd int) [][]byte {
	var out [][]byte
	buf := make([]byte, 65536)
	for {
		n, from, err := unix.Recvfrom(fd, buf, 0)
		if err != nil {
			return out
		}
		if ll, ok := from.(*unix.SockaddrLinklayer); ok && ll.Pkttype == unix.PACKET_OUTGOING {
			continue
		}
		pkt := append([]byte(nil), buf[:n]...)
		var p wire.Packet
		info, err := wire.DecodeIP(pkt, &p)
		if info.DstPort == wire.UDPPort && (err == nil || errors.Is(err, wire.ErrBadICRC)) {
			out = append(out, pkt)
		}
	}
}

// Over a real routed path: per-packet TOS (default and via cmsg), the
// destination address, kernel timestamps, and the sender contract the ICRC
// depends on (IPv4 ID 0 with DF), checked on packets captured at the
// receiver.
func TestUDPRoutedPath(t *testing.T) {
	netnstest.Require(t)
	t.Parallel()
	l := netnstest.NewLine(t, netnstest.LineOptions{})
	for _, fam := range []struct {
		name   string
		a, b   netip.Addr
		unspec netip.Addr
	}{
		{"ipv4", l.AAddr, l.BAddr, netip.IPv4Unspecified()},
		{"ipv6", l.AAddr6, l.BAddr6, netip.IPv6Unspecified()},
	} {
		t.Run(fam.name, func(t *testing.T) {
			def := transport.TOS(26, 2)
			a := open(t, l.A, netip.AddrPortFrom(fam.unspec, 0), def)
			b := open(t, l.B, netip.AddrPortFrom(fam.unspec, wire.UDPPort), def)
			capFD := capture(t, l.B)
			src, err := a.net.Source(fam.b)
			if err != nil || src != fam.a {
				t.Fatalf("Source(%s) = %s, %v; want %s", fam.b, src, err, fam.a)
			}
			dst := netip.AddrPortFrom(fam.b, wire.UDPPort)
			from := netip.AddrPortFrom(src, a.conn.LocalAddr().Port())
			tos := []uint8{def, transport.TOS(48, 2), transport.TOS(8, 0), transport.TOS(26, 1)}
			var out []transport.Message
			for i, tv := range tos {
				env := wire.ProbeEnvelope(from, dst)
				p := wire.Packet{BTH: wire.BTH{Opcode: wire.OpRCSendOnly, PKey: 0xFFFF, DestQP: 3, PSN: uint32(i)}, Payload: make([]byte, 61)}
				buf, err := wire.Encode(nil, &env, &p)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, transport.Message{Buf: buf, Peer: dst, Local: src, TOS: tv})
			}
			sent := time.Now()
			if n, err := a.conn.WriteBatch(out); n != len(out) || err != nil {
				t.Fatalf("WriteBatch = %d, %v", n, err)
			}
			got := collect(t, b.conn, len(out))
			if len(got) != len(out) {
				t.Fatalf("received %d of %d", len(got), len(out))
			}
			for i, m := range got {
				if !m.HasTOS || m.TOS != tos[i] {
					t.Errorf("packet %d: TOS %#x (reported %v), sent %#x", i, m.TOS, m.HasTOS, tos[i])
				}
				if m.Peer != from || m.Local != fam.b {
					t.Errorf("packet %d: peer %s local %s, want %s → %s", i, m.Peer, m.Local, from, fam.b)
				}
				// The kernel stamps the packet between the send and now (a
				// second either side for clock adjustments).
				if rx := time.Unix(0, m.RxTime); !m.KernelTime || rx.Before(sent.Add(-time.Second)) || rx.After(time.Now().Add(time.Second)) {
					t.Errorf("packet %d: kernel timestamp %v at %d", i, m.KernelTime, m.RxTime)
				}
				// The receiver's ICRC check assumes the sender contract.
				env := wire.ProbeEnvelope(m.Peer, netip.AddrPortFrom(m.Local, wire.UDPPort))
				if err := wire.VerifyICRC(&env, m.Payload()); err != nil {
					t.Errorf("packet %d: %v", i, err)
				}
			}
			wirePkts := capturedRoCE(capFD)
			if len(wirePkts) != len(out) {
				t.Fatalf("captured %d RoCE packets, want %d", len(wirePkts), len(out))
			}
			for i, pkt := range wirePkts {
				var p wire.Packet
				info, err := wire.DecodeIP(pkt, &p)
				if err != nil {
					t.Errorf("captured packet %d fails the ICRC on the wire: %v", i, err)
				}
				if fam.a.Is4() && (info.IPv4ID != 0 || !info.DontFragment) {
					t.Errorf("captured packet %d: IPv4 ID %d DF %v, the sender contract is ID 0 with DF", i, info.IPv4ID, info.DontFragment)
				}
			}
		})
	}
}

// On a path whose second hop has MTU 1500: a datagram bigger than the
// sender's own link fails alone with ErrMessageSize while the rest of the
// batch goes out; a datagram that fits the first link but not the second is
// dropped in the network without a local error, even after the router's
// ICMP taught the kernel the path MTU (IP_PMTUDISC_PROBE ignores it).
func TestUDPMessageSizeAndPMTUProbe(t *testing.T) {
	netnstest.Require(t)
	t.Parallel()
	l := netnstest.NewLine(t, netnstest.LineOptions{MTUB: 1500})
	unspec := netip.IPv4Unspecified()
	a := open(t, l.A, netip.AddrPortFrom(unspec, wire.UDPPort), 0)
	b := open(t, l.B, netip.AddrPortFrom(unspec, 0), 0)

	// B's own link is 1500.
	toA := netip.AddrPortFrom(l.AAddr, wire.UDPPort)
	batch := []transport.Message{
		{Buf: make([]byte, 100), Peer: toA},
		{Buf: make([]byte, 3000), Peer: toA},
		{Buf: make([]byte, 1472), Peer: toA}, // exactly 1500 on the wire
	}
	n, err := b.conn.WriteBatch(batch)
	if err != nil || n != 2 {
		t.Fatalf("WriteBatch = %d, %v; want 2 sent", n, err)
	}
	if !errors.Is(batch[1].Err, transport.ErrMessageSize) || batch[0].Err != nil || batch[2].Err != nil {
		t.Fatalf("per-message errors: %v / %v / %v", batch[0].Err, batch[1].Err, batch[2].Err)
	}
	// A lone datagram takes the sendmsg path; the error is the same.
	lone := []transport.Message{{Buf: make([]byte, 3000), Peer: toA}}
	if n, err := b.conn.WriteBatch(lone); n != 0 || err != nil || !errors.Is(lone[0].Err, transport.ErrMessageSize) {
		t.Fatalf("lone 3000-byte datagram: %d, %v, %v", n, err, lone[0].Err)
	}
	if got := collect(t, a.conn, 2); len(got) != 2 || got[1].N != 1472 {
		t.Fatalf("A received %d datagrams", len(got))
	}

	// A's link is 9000; the router's egress to B is 1500.
	a2 := open(t, l.A, netip.AddrPortFrom(unspec, 0), 0)
	b2 := open(t, l.B, netip.AddrPortFrom(unspec, wire.UDPPort), 0)
	toB := netip.AddrPortFrom(l.BAddr, wire.UDPPort)
	for range 2 {
		big := []transport.Message{{Buf: make([]byte, 3000), Peer: toB}}
		if n, err := a2.conn.WriteBatch(big); n != 1 || err != nil || big[0].Err != nil {
			t.Fatalf("3000-byte send: %d, %v, %v (PMTU cache must not block probes)", n, err, big[0].Err)
		}
		time.Sleep(50 * time.Millisecond) // let the ICMP arrive
	}
	small := []transport.Message{{Buf: make([]byte, 64), Peer: toB}}
	if _, err := a2.conn.WriteBatch(small); err != nil || small[0].Err != nil {
		t.Fatal(err, small[0].Err)
	}
	got := collect(t, b2.conn, 1)
	if len(got) != 1 || got[0].N != 64 {
		t.Fatalf("B received %d datagrams, want only the 64-byte one", len(got))
	}
}
