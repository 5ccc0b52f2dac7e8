//go:build linux

package transport

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ICMPListener receives the ICMP errors that arrive at this host, for path
// discovery: a raw socket sees the whole error, including the TOS our
// datagram had when a router quoted it, which IP_RECVERR does not give.
// It needs CAP_NET_RAW. The kernel handles the errors as usual besides.
type ICMPListener struct {
	c  *net.IPConn
	v6 bool
}

// ListenICMP opens a raw ICMP (or ICMPv6) socket in the calling thread's
// network namespace, filtered to the error types path discovery reads.
func ListenICMP(v6 bool) (*ICMPListener, error) {
	network, addr := "ip4:icmp", "0.0.0.0"
	if v6 {
		network, addr = "ip6:ipv6-icmp", "::"
	}
	c, err := net.ListenIP(network, &net.IPAddr{IP: net.ParseIP(addr)})
	if err != nil {
		if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EACCES) {
			return nil, fmt.Errorf("path discovery needs a raw ICMP socket (CAP_NET_RAW; run as root): %w", err)
		}
		return nil, fmt.Errorf("raw ICMP socket: %w", err)
	}
	l := &ICMPListener{c: c, v6: v6}
	if err := l.filter(); err != nil {
		c.Close()
		return nil, err
	}
	_ = c.SetReadBuffer(4 << 20)
	return l, nil
}

// filter lets only destination unreachable, packet too big and time
// exceeded through, so a busy host's echo traffic stays in the kernel.
func (l *ICMPListener) filter() error {
	rc, err := l.c.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	err = rc.Control(func(fd uintptr) {
		if l.v6 {
			var f unix.ICMPv6Filter // a set bit blocks the type
			for i := range f.Data {
				f.Data[i] = 0xffffffff
			}
			for _, t := range []uint8{icmp6DestUnreach, icmp6PacketTooBig, icmp6TimeExceeded} {
				f.Data[t>>5] &^= 1 << (t & 31)
			}
			serr = unix.SetsockoptICMPv6Filter(int(fd), unix.SOL_ICMPV6, unix.ICMPV6_FILTER, &f)
			return
		}
		mask := ^uint32(1<<icmp4DestUnreach | 1<<icmp4TimeExceeded)
		// ICMP_FILTER (1) on SOL_RAW takes a 32-bit mask of blocked types.
		serr = unix.SetsockoptString(int(fd), unix.SOL_RAW, 1, string((*[4]byte)(unsafe.Pointer(&mask))[:]))
	})
	if err != nil {
		return err
	}
	if serr != nil {
		return fmt.Errorf("ICMP filter: %w", serr)
	}
	return nil
}

// Read returns the next ICMP error about a UDP datagram, skipping anything
// else. After the deadline it returns an error for which os.IsTimeout is
// true; after Close, ErrClosed.
func (l *ICMPListener) Read(buf []byte, deadline time.Time) (ICMPError, error) {
	if err := l.c.SetReadDeadline(deadline); err != nil {
		if errors.Is(err, net.ErrClosed) {
			// Closed between two reads: a caller that loops until
			// ErrClosed must see it here too, or it never ends.
			return ICMPError{}, ErrClosed
		}
		return ICMPError{}, err
	}
	for {
		n, from, err := l.c.ReadFromIP(buf)
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return ICMPError{}, ErrClosed
			}
			return ICMPError{}, err
		}
		a, _ := netip.AddrFromSlice(from.IP)
		var e ICMPError
		if l.v6 {
			e, err = ParseICMP6(buf[:n], a.Unmap())
		} else {
			e, err = ParseICMP4(buf[:n], a.Unmap())
		}
		if err == nil {
			return e, nil
		}
	}
}

// Close stops Read.
func (l *ICMPListener) Close() error { return l.c.Close() }

// SetTTL sets the TTL (hop limit) of the datagrams c sends from now on;
// c must be a socket from UDP.Listen. Path discovery sends a flow's own
// 5-tuple with a rising TTL, Paris-traceroute style.
func SetTTL(c Conn, ttl int) error {
	uc, ok := c.(*udpConn)
	if !ok {
		return fmt.Errorf("%w: TTL on a %T", ErrUnsupported, c)
	}
	rc, err := uc.uc.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	err = rc.Control(func(fd uintptr) {
		if uc.is4 {
			serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_IP, unix.IP_TTL, ttl)
		} else {
			serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_IPV6, unix.IPV6_UNICAST_HOPS, ttl)
		}
	})
	if err != nil {
		return err
	}
	return serr
}
