package netnstest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"os"
	"time"

	"golang.org/x/net/icmp"
	"golang.org/x/net/ipv4"
	"golang.org/x/net/ipv6"
	"golang.org/x/sys/unix"
)

// PingOptions shape one ICMP echo request.
type PingOptions struct {
	// Size is the IP packet size (0: a small packet).
	Size int
	// DontFragment sets DF (IPv4) or forbids fragmenting (IPv6), so a
	// packet larger than a hop's MTU is lost instead of split.
	DontFragment bool
	// Timeout bounds the wait for the reply (0: one second).
	Timeout time.Duration
}

// Errors Ping returns, for errors.Is.
var (
	ErrNoEchoReply = errors.New("no ICMP echo reply")
	// ErrTooBig: a hop answered that the packet exceeds its MTU
	// (fragmentation needed, or packet too big).
	ErrTooBig = errors.New("packet larger than a hop's MTU")
)

// Ping sends one ICMP echo request from inside the namespace to dst and
// waits for the reply. It uses a raw socket opened in the namespace, so
// it needs no ping binary (tests run where only Go and iproute2 are
// installed).
func (ns *NS) Ping(dst netip.Addr, opt PingOptions) error {
	if opt.Timeout == 0 {
		opt.Timeout = time.Second
	}
	var err error
	if doErr := ns.Do(func() error { err = ping(dst, opt); return nil }); doErr != nil {
		return doErr
	}
	return err
}

func ping(dst netip.Addr, opt PingOptions) error {
	dst = dst.Unmap()
	network, proto, hdr := "ip4:icmp", 1, 20
	var typ, reply icmp.Type = ipv4.ICMPTypeEcho, ipv4.ICMPTypeEchoReply
	if dst.Is6() {
		network, proto, hdr = "ip6:ipv6-icmp", 58, 40
		typ, reply = ipv6.ICMPTypeEchoRequest, ipv6.ICMPTypeEchoReply
	}
	c, err := net.ListenPacket(network, "")
	if err != nil {
		return fmt.Errorf("ping %s: %w", dst, err)
	}
	defer c.Close()
	if opt.DontFragment {
		if err := setDF(c.(*net.IPConn), dst.Is6()); err != nil {
			return fmt.Errorf("ping %s: set DF: %w", dst, err)
		}
	}
	id, seq := rand.IntN(1<<16), rand.IntN(1<<16)
	data := make([]byte, max(8, opt.Size-hdr-8))
	msg := icmp.Message{Type: typ, Body: &icmp.Echo{ID: id, Seq: seq, Data: data}}
	b, err := msg.Marshal(nil) // the kernel fills in the ICMPv6 checksum
	if err != nil {
		return err
	}
	to := &net.IPAddr{IP: dst.AsSlice()}
	if _, err := c.WriteTo(b, to); err != nil {
		if errors.Is(err, unix.EMSGSIZE) {
			return fmt.Errorf("ping %s: %w (the local link or a cached path MTU)", dst, ErrTooBig)
		}
		return fmt.Errorf("ping %s: %w", dst, err)
	}
	deadline := time.Now().Add(opt.Timeout)
	_ = c.SetReadDeadline(deadline)
	buf := make([]byte, 65536)
	for {
		n, from, err := c.ReadFrom(buf)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return fmt.Errorf("ping %s: %w within %s", dst, ErrNoEchoReply, opt.Timeout)
		}
		if err != nil {
			return fmt.Errorf("ping %s: %w", dst, err)
		}
		m, err := icmp.ParseMessage(proto, buf[:n])
		if err != nil {
			continue
		}
		if mtu, ok := tooBig(buf[:n], m, id, seq); ok {
			return fmt.Errorf("ping %s: %w (MTU %d)", dst, ErrTooBig, mtu)
		}
		if m.Type != reply {
			continue // someone else's ICMP
		}
		if e, ok := m.Body.(*icmp.Echo); ok && e.ID == id && e.Seq == seq && from.(*net.IPAddr).IP.Equal(to.IP) {
			return nil
		}
	}
}

// tooBig recognises "fragmentation needed" (ICMPv4 3/4) and "packet too
// big" (ICMPv6 2) about our echo request, whose ID and sequence number the
// quoted packet carries after its IP header, and returns the hop's MTU.
func tooBig(raw []byte, m *icmp.Message, id, seq int) (int, bool) {
	var quoted []byte
	var mtu, hdr int
	switch b := m.Body.(type) {
	case *icmp.DstUnreach:
		if m.Type != ipv4.ICMPTypeDestinationUnreachable || m.Code != 4 || len(b.Data) < 1 || len(raw) < 8 {
			return 0, false
		}
		// RFC 1191: the next-hop MTU is in the header's last two bytes.
		quoted, hdr, mtu = b.Data, int(b.Data[0]&0x0f)*4, int(raw[6])<<8|int(raw[7])
	case *icmp.PacketTooBig:
		quoted, hdr, mtu = b.Data, 40, b.MTU
	default:
		return 0, false
	}
	if len(quoted) < hdr+8 {
		return 0, false
	}
	e := quoted[hdr:]
	return mtu, int(e[4])<<8|int(e[5]) == id && int(e[6])<<8|int(e[7]) == seq
}

// setDF makes the kernel refuse to fragment the socket's packets.
func setDF(c *net.IPConn, v6 bool) error {
	rc, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		if v6 {
			serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_IPV6, unix.IPV6_MTU_DISCOVER, unix.IPV6_PMTUDISC_DO)
			return
		}
		serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_IP, unix.IP_MTU_DISCOVER, unix.IP_PMTUDISC_DO)
	}); err != nil {
		return err
	}
	return serr
}
