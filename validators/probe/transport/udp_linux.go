//go:build linux

package transport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/net/ipv4"
	"golang.org/x/net/ipv6"
	"golang.org/x/sys/unix"
)

// MaxBatch is the most datagrams one sendmmsg/recvmmsg call moves.
const MaxBatch = 64

const oobSize = 128 // TOS + PKTINFO + TIMESTAMPNS with alignment

// UDP is the real Network: kernel UDP sockets.
type UDP struct {
	mu        sync.Mutex
	route4    int // unbound UDP sockets used only to ask the kernel for routes
	route6    int
	closeOnce sync.Once
}

// NewUDP prepares a Network in the calling thread's network namespace.
func NewUDP() (*UDP, error) {
	u := &UDP{route4: -1, route6: -1}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("route lookup socket: %w", err)
	}
	u.route4 = fd
	// IPv6 may be disabled on the host; Source then reports no route.
	if fd, err := unix.Socket(unix.AF_INET6, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0); err == nil {
		u.route6 = fd
	}
	return u, nil
}

// Source asks the kernel which address it would send from to reach dst, by
// connecting an idle socket (no packet is sent).
func (u *UDP) Source(dst netip.Addr) (netip.Addr, error) {
	dst = dst.Unmap()
	u.mu.Lock()
	defer u.mu.Unlock()
	var sa unix.Sockaddr
	fd := u.route4
	if dst.Is4() {
		sa = &unix.SockaddrInet4{Port: 4791, Addr: dst.As4()}
	} else {
		fd = u.route6
		sa = &unix.SockaddrInet6{Port: 4791, Addr: dst.As16()}
	}
	if fd < 0 {
		return netip.Addr{}, fmt.Errorf("%w %s: socket unavailable", ErrNoSourceAddr, dst)
	}
	if err := unix.Connect(fd, sa); err != nil {
		return netip.Addr{}, fmt.Errorf("%w %s: %w", ErrNoSourceAddr, dst, err)
	}
	local, err := unix.Getsockname(fd)
	if err != nil {
		return netip.Addr{}, fmt.Errorf("%w %s: %w", ErrNoSourceAddr, dst, err)
	}
	switch a := local.(type) {
	case *unix.SockaddrInet4:
		return netip.AddrFrom4(a.Addr), nil
	case *unix.SockaddrInet6:
		return netip.AddrFrom16(a.Addr), nil
	}
	return netip.Addr{}, fmt.Errorf("%w %s", ErrNoSourceAddr, dst)
}

// Close releases the route lookup sockets.
func (u *UDP) Close() error {
	u.closeOnce.Do(func() {
		u.mu.Lock()
		defer u.mu.Unlock()
		for _, fd := range []int{u.route4, u.route6} {
			if fd >= 0 {
				_ = unix.Close(fd)
			}
		}
		u.route4, u.route6 = -1, -1
	})
	return nil
}

// Listen opens an unconnected UDP socket bound to local with:
//   - DF on every packet via IP_PMTUDISC_PROBE. Like IP_PMTUDISC_DO it makes
//     the kernel send IPv4 ID 0, which the ICRC covers, but it ignores the
//     kernel's cached path MTU, so the probe measures the path as it is now
//     rather than what an earlier ICMP "fragmentation needed" left behind.
//   - the received TOS/traffic class, destination address and kernel receive
//     timestamp reported per packet;
//   - opt.TOS as the default TOS for sends.
func (u *UDP) Listen(local netip.AddrPort, opt Options) (Conn, error) {
	is4 := local.Addr().Unmap().Is4()
	network := "udp6"
	if is4 {
		network = "udp4"
		local = netip.AddrPortFrom(local.Addr().Unmap(), local.Port())
	}
	var lc net.ListenConfig
	pc, err := lc.ListenPacket(context.Background(), network, local.String())
	if err != nil {
		if errors.Is(err, syscall.EADDRINUSE) {
			return nil, fmt.Errorf("%w: %s: %w", ErrAddrInUse, local, err)
		}
		return nil, err
	}
	uc := pc.(*net.UDPConn)
	c := &udpConn{uc: uc, is4: is4, defTOS: opt.TOS}
	if err := c.setOptions(opt); err != nil {
		uc.Close()
		return nil, err
	}
	c.local = uc.LocalAddr().(*net.UDPAddr).AddrPort()
	if is4 {
		c.local = netip.AddrPortFrom(c.local.Addr().Unmap(), c.local.Port())
		c.p4 = ipv4.NewPacketConn(uc)
	} else {
		c.p6 = ipv6.NewPacketConn(uc)
	}
	c.initBuffers()
	return c, nil
}

type udpConn struct {
	uc     *net.UDPConn
	p4     *ipv4.PacketConn
	p6     *ipv6.PacketConn
	is4    bool
	local  netip.AddrPort
	defTOS uint8
	closed atomic.Bool

	rmu   sync.Mutex
	rmsgs []ipv4.Message // ipv4.Message and ipv6.Message are the same type
	rbufs [][][]byte
	roob  [][]byte

	wmu    sync.Mutex
	wmsgs  []ipv4.Message
	wbufs  [][][]byte
	woob   [][]byte
	waddrs []net.UDPAddr
	wips   [][16]byte
}

func (c *udpConn) setOptions(opt Options) error {
	rc, err := c.uc.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	cerr := rc.Control(func(fd uintptr) {
		s := int(fd)
		set := func(name string, level, option, value int) {
			if err := unix.SetsockoptInt(s, level, option, value); err != nil && serr == nil {
				serr = fmt.Errorf("setsockopt %s: %w", name, err)
			}
		}
		if c.is4 {
			set("IP_MTU_DISCOVER", unix.IPPROTO_IP, unix.IP_MTU_DISCOVER, unix.IP_PMTUDISC_PROBE)
			set("IP_RECVTOS", unix.IPPROTO_IP, unix.IP_RECVTOS, 1)
			set("IP_PKTINFO", unix.IPPROTO_IP, unix.IP_PKTINFO, 1)
			set("IP_TOS", unix.IPPROTO_IP, unix.IP_TOS, int(opt.TOS))
		} else {
			set("IPV6_MTU_DISCOVER", unix.IPPROTO_IPV6, unix.IPV6_MTU_DISCOVER, unix.IPV6_PMTUDISC_PROBE)
			set("IPV6_DONTFRAG", unix.IPPROTO_IPV6, unix.IPV6_DONTFRAG, 1)
			set("IPV6_RECVTCLASS", unix.IPPROTO_IPV6, unix.IPV6_RECVTCLASS, 1)
			set("IPV6_RECVPKTINFO", unix.IPPROTO_IPV6, unix.IPV6_RECVPKTINFO, 1)
			set("IPV6_TCLASS", unix.IPPROTO_IPV6, unix.IPV6_TCLASS, int(opt.TOS))
		}
		// Optional: without kernel timestamps RTT falls back to user time.
		_ = unix.SetsockoptInt(s, unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
		// FORCE variants exceed rmem_max/wmem_max when privileged.
		if opt.ReadBuffer > 0 {
			if unix.SetsockoptInt(s, unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, opt.ReadBuffer) != nil {
				_ = unix.SetsockoptInt(s, unix.SOL_SOCKET, unix.SO_RCVBUF, opt.ReadBuffer)
			}
		}
		if opt.WriteBuffer > 0 {
			if unix.SetsockoptInt(s, unix.SOL_SOCKET, unix.SO_SNDBUFFORCE, opt.WriteBuffer) != nil {
				_ = unix.SetsockoptInt(s, unix.SOL_SOCKET, unix.SO_SNDBUF, opt.WriteBuffer)
			}
		}
	})
	if cerr != nil {
		return cerr
	}
	return serr
}

func (c *udpConn) initBuffers() {
	c.rmsgs = make([]ipv4.Message, MaxBatch)
	c.rbufs = make([][][]byte, MaxBatch)
	c.roob = make([][]byte, MaxBatch)
	c.wmsgs = make([]ipv4.Message, MaxBatch)
	c.wbufs = make([][][]byte, MaxBatch)
	c.woob = make([][]byte, MaxBatch)
	c.waddrs = make([]net.UDPAddr, MaxBatch)
	c.wips = make([][16]byte, MaxBatch)
	for i := range MaxBatch {
		c.rbufs[i] = make([][]byte, 1)
		c.roob[i] = make([]byte, oobSize)
		c.wbufs[i] = make([][]byte, 1)
		c.woob[i] = make([]byte, 0, oobSize)
	}
}

func (c *udpConn) LocalAddr() netip.AddrPort { return c.local }

func (c *udpConn) Close() error {
	if c.closed.Swap(true) {
		return nil
	}
	return c.uc.Close()
}

func (c *udpConn) mapErr(err error) error {
	if errors.Is(err, net.ErrClosed) || c.closed.Load() {
		return ErrClosed
	}
	return err
}

func (c *udpConn) ReadBatch(ms []Message) (int, error) {
	c.rmu.Lock()
	defer c.rmu.Unlock()
	k := min(len(ms), MaxBatch)
	xs := c.rmsgs[:k]
	for i := range xs {
		c.rbufs[i][0] = ms[i].Buf
		xs[i] = ipv4.Message{Buffers: c.rbufs[i], OOB: c.roob[i]}
	}
	var n int
	var err error
	if c.is4 {
		n, err = c.p4.ReadBatch(xs, 0)
	} else {
		n, err = c.p6.ReadBatch(xs, 0)
	}
	if err != nil {
		return 0, c.mapErr(err)
	}
	now := time.Now().UnixNano()
	for i := range n {
		m := &ms[i]
		x := &xs[i]
		m.N = x.N
		m.Truncated = x.Flags&unix.MSG_TRUNC != 0
		m.Peer = netip.AddrPort{}
		if ua, ok := x.Addr.(*net.UDPAddr); ok {
			ap := ua.AddrPort()
			m.Peer = netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
		}
		m.Local, m.TOS, m.HasTOS, m.RxTime, m.KernelTime = netip.Addr{}, 0, false, now, false
		parseOOB(m, x.OOB[:x.NN])
		if !m.Local.IsValid() {
			m.Local = c.local.Addr()
		}
	}
	return n, nil
}

func (c *udpConn) WriteBatch(ms []Message) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if len(ms) == 1 {
		return c.writeOne(&ms[0])
	}
	sent := 0
	for len(ms) > 0 {
		k := min(len(ms), MaxBatch)
		n, err := c.writeChunk(ms[:k])
		sent += n
		if err != nil {
			return sent, err
		}
		ms = ms[k:]
	}
	return sent, nil
}

// writeOne sends a lone datagram with sendmsg: for ping-pong traffic the
// batching machinery costs more than it saves.
func (c *udpConn) writeOne(m *Message) (int, error) {
	m.Err = nil
	dst := m.Peer.Addr().Unmap()
	if dst.Is4() != c.is4 {
		m.Err = fmt.Errorf("%w: %s on %s socket", ErrWrongFamily, dst, c.local)
		return 0, nil
	}
	oob := c.woob[0][:0]
	if m.TOS != c.defTOS {
		oob = appendTOS(oob, c.is4, m.TOS)
	}
	if src := m.Local.Unmap(); src.IsValid() && !src.IsUnspecified() {
		oob = appendPktinfo(oob, src)
	}
	_, _, err := c.uc.WriteMsgUDPAddrPort(m.Buf, oob, netip.AddrPortFrom(dst, m.Peer.Port()))
	if err == nil {
		return 1, nil
	}
	if c.closed.Load() || errors.Is(err, net.ErrClosed) {
		return 0, ErrClosed
	}
	m.Err = classify(err)
	return 0, nil
}

func (c *udpConn) writeChunk(ms []Message) (int, error) {
	xs := c.wmsgs[:len(ms)]
	for i := range ms {
		m := &ms[i]
		m.Err = nil
		dst := m.Peer.Addr().Unmap()
		if dst.Is4() != c.is4 {
			m.Err = fmt.Errorf("%w: %s on %s socket", ErrWrongFamily, dst, c.local)
		}
		a := &c.waddrs[i]
		c.wips[i] = dst.As16()
		if c.is4 {
			a.IP = c.wips[i][12:16]
		} else {
			a.IP = c.wips[i][:]
		}
		a.Port = int(m.Peer.Port())
		c.wbufs[i][0] = m.Buf
		oob := c.woob[i][:0]
		if m.TOS != c.defTOS {
			oob = appendTOS(oob, c.is4, m.TOS)
		}
		if src := m.Local.Unmap(); src.IsValid() && !src.IsUnspecified() {
			oob = appendPktinfo(oob, src)
		}
		xs[i] = ipv4.Message{Buffers: c.wbufs[i], OOB: oob, Addr: a}
	}
	sent, off := 0, 0
	for off < len(xs) {
		if ms[off].Err != nil { // refused before the syscall
			off++
			continue
		}
		end := off + 1
		for end < len(xs) && ms[end].Err == nil {
			end++
		}
		var n int
		var err error
		if c.is4 {
			n, err = c.p4.WriteBatch(xs[off:end], 0)
		} else {
			n, err = c.p6.WriteBatch(xs[off:end], 0)
		}
		if n > 0 {
			sent += n
			off += n
			continue
		}
		if err == nil {
			err = errors.New("sendmmsg sent nothing")
		}
		if c.closed.Load() || errors.Is(err, net.ErrClosed) {
			return sent, ErrClosed
		}
		// sendmmsg reports an error only for the first message it could not
		// send; blame that one and carry on with the rest.
		ms[off].Err = classify(err)
		off++
	}
	return sent, nil
}

func classify(err error) error {
	switch {
	case errors.Is(err, unix.EMSGSIZE):
		return fmt.Errorf("%w: %w", ErrMessageSize, err)
	case errors.Is(err, unix.ENETUNREACH), errors.Is(err, unix.EHOSTUNREACH),
		errors.Is(err, unix.EADDRNOTAVAIL), errors.Is(err, unix.ECONNREFUSED):
		return fmt.Errorf("%w: %w", ErrUnreachable, err)
	}
	return err
}

// appendCmsg appends one control message; b's backing array comes from make
// and is 8-byte aligned, as the cmsghdr cast needs.
func appendCmsg(b []byte, level, typ int32, data []byte) []byte {
	start := len(b)
	space := unix.CmsgSpace(len(data))
	b = b[:start+space]
	clear(b[start:])
	h := (*unix.Cmsghdr)(unsafe.Pointer(&b[start]))
	h.Level, h.Type = level, typ
	h.SetLen(unix.CmsgLen(len(data)))
	copy(b[start+unix.CmsgLen(0):], data)
	return b
}

func appendTOS(b []byte, is4 bool, tos uint8) []byte {
	var v [4]byte
	*(*int32)(unsafe.Pointer(&v[0])) = int32(tos)
	if is4 {
		return appendCmsg(b, unix.IPPROTO_IP, unix.IP_TOS, v[:])
	}
	return appendCmsg(b, unix.IPPROTO_IPV6, unix.IPV6_TCLASS, v[:])
}

func appendPktinfo(b []byte, src netip.Addr) []byte {
	if src.Is4() {
		var pi unix.Inet4Pktinfo
		pi.Spec_dst = src.As4()
		return appendCmsg(b, unix.IPPROTO_IP, unix.IP_PKTINFO, (*[unix.SizeofInet4Pktinfo]byte)(unsafe.Pointer(&pi))[:])
	}
	var pi unix.Inet6Pktinfo
	pi.Addr = src.As16()
	return appendCmsg(b, unix.IPPROTO_IPV6, unix.IPV6_PKTINFO, (*[unix.SizeofInet6Pktinfo]byte)(unsafe.Pointer(&pi))[:])
}

// parseOOB reads the control messages the socket options above ask for.
func parseOOB(m *Message, oob []byte) {
	hl := unix.CmsgLen(0)
	for len(oob) >= hl {
		h := (*unix.Cmsghdr)(unsafe.Pointer(&oob[0]))
		l := int(h.Len)
		if l < hl || l > len(oob) {
			return
		}
		data := oob[hl:l]
		switch {
		case h.Level == unix.IPPROTO_IP && h.Type == unix.IP_TOS && len(data) >= 1:
			m.TOS, m.HasTOS = data[0], true
		case h.Level == unix.IPPROTO_IPV6 && h.Type == unix.IPV6_TCLASS && len(data) >= 4:
			m.TOS, m.HasTOS = uint8(*(*int32)(unsafe.Pointer(&data[0]))), true
		case h.Level == unix.IPPROTO_IP && h.Type == unix.IP_PKTINFO && len(data) >= unix.SizeofInet4Pktinfo:
			pi := (*unix.Inet4Pktinfo)(unsafe.Pointer(&data[0]))
			m.Local = netip.AddrFrom4(pi.Addr)
		case h.Level == unix.IPPROTO_IPV6 && h.Type == unix.IPV6_PKTINFO && len(data) >= unix.SizeofInet6Pktinfo:
			pi := (*unix.Inet6Pktinfo)(unsafe.Pointer(&data[0]))
			m.Local = netip.AddrFrom16(pi.Addr)
		case h.Level == unix.SOL_SOCKET && h.Type == unix.SCM_TIMESTAMPNS && len(data) >= int(unsafe.Sizeof(unix.Timespec{})):
			ts := (*unix.Timespec)(unsafe.Pointer(&data[0]))
			m.RxTime, m.KernelTime = ts.Nano(), true
		}
		next := unix.CmsgSpace(l - hl)
		if next > len(oob) {
			return
		}
		oob = oob[next:]
	}
}
