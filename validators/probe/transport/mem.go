package transport

import (
	"fmt"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"
)

// Datagram is a packet in flight on a MemFabric.
type Datagram struct {
	Src, Dst netip.AddrPort
	TOS      uint8
	Payload  []byte // a private copy; a fault hook may change it
}

// Clone returns a deep copy, e.g. to inject a duplicate.
func (d *Datagram) Clone() *Datagram {
	c := *d
	c.Payload = append([]byte(nil), d.Payload...)
	return &c
}

// FaultFunc sees every datagram a MemFabric carries and may change it in
// place. Returning false drops it. Calls are serialised by the fabric.
type FaultFunc func(d *Datagram) bool

// MemFabric is an in-memory network for tests: hosts own addresses, sockets
// bind to them, and a fault hook plays the role of a misbehaving switch.
type MemFabric struct {
	mu     sync.Mutex
	hosts  map[netip.Addr]*MemHost
	hookMu sync.Mutex
	hook   FaultFunc

	Dropped       atomic.Int64 // by the fault hook
	Overflowed    atomic.Int64 // receive queue full
	Undeliverable atomic.Int64 // nobody listening
}

// NewMemFabric returns an empty fabric.
func NewMemFabric() *MemFabric {
	return &MemFabric{hosts: make(map[netip.Addr]*MemHost)}
}

// SetFault installs (or with nil removes) the fault hook.
func (f *MemFabric) SetFault(fn FaultFunc) {
	f.hookMu.Lock()
	f.hook = fn
	f.hookMu.Unlock()
}

// Host adds a host owning addrs and returns its Network.
func (f *MemFabric) Host(addrs ...netip.Addr) *MemHost {
	h := &MemHost{fabric: f, addrs: addrs, socks: make(map[netip.AddrPort]*memConn)}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, a := range addrs {
		f.hosts[a.Unmap()] = h
	}
	return h
}

// Inject delivers d without passing the fault hook (for delayed or
// duplicated packets a hook held back).
func (f *MemFabric) Inject(d *Datagram) { f.deliver(d) }

func (f *MemFabric) send(d *Datagram) {
	f.hookMu.Lock()
	hook := f.hook
	keep := hook == nil || hook(d)
	f.hookMu.Unlock()
	if !keep {
		f.Dropped.Add(1)
		return
	}
	f.deliver(d)
}

func (f *MemFabric) deliver(d *Datagram) {
	f.mu.Lock()
	h := f.hosts[d.Dst.Addr()]
	f.mu.Unlock()
	if h == nil {
		f.Undeliverable.Add(1)
		return
	}
	c := h.lookup(d.Dst)
	if c == nil {
		f.Undeliverable.Add(1)
		return
	}
	select {
	case c.queue <- d:
	case <-c.done:
	default:
		f.Overflowed.Add(1)
	}
}

// MemHost is one host on a MemFabric; it implements Network.
type MemHost struct {
	fabric *MemFabric
	addrs  []netip.Addr
	mu     sync.Mutex
	socks  map[netip.AddrPort]*memConn // unspecified address = wildcard
	next   uint16
}

var _ Network = (*MemHost)(nil)

func (h *MemHost) owns(a netip.Addr) bool {
	for _, x := range h.addrs {
		if x == a {
			return true
		}
	}
	return false
}

func (h *MemHost) lookup(dst netip.AddrPort) *memConn {
	h.mu.Lock()
	defer h.mu.Unlock()
	if c := h.socks[dst]; c != nil {
		return c
	}
	wild := netip.IPv6Unspecified()
	if dst.Addr().Is4() {
		wild = netip.IPv4Unspecified()
	}
	return h.socks[netip.AddrPortFrom(wild, dst.Port())]
}

// Listen binds a socket on this host; port 0 picks a free port above 49152.
func (h *MemHost) Listen(local netip.AddrPort, opt Options) (Conn, error) {
	a := local.Addr().Unmap()
	if !a.IsUnspecified() && !h.owns(a) {
		return nil, fmt.Errorf("mem: %s is not an address of this host", a)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	port := local.Port()
	if port == 0 {
		for range 16384 {
			h.next++
			p := 49152 + h.next%16384
			if h.free(a, p) {
				port = p
				break
			}
		}
	}
	key := netip.AddrPortFrom(a, port)
	if !h.free(a, port) {
		return nil, fmt.Errorf("%w: %s", ErrAddrInUse, key)
	}
	c := &memConn{host: h, local: key, tos: opt.TOS, queue: make(chan *Datagram, 8192), done: make(chan struct{})}
	h.socks[key] = c
	return c, nil
}

// free reports whether a and port can be bound (caller holds h.mu).
func (h *MemHost) free(a netip.Addr, port uint16) bool {
	if h.socks[netip.AddrPortFrom(a, port)] != nil {
		return false
	}
	wild := netip.IPv6Unspecified()
	if a.Is4() {
		wild = netip.IPv4Unspecified()
	}
	if h.socks[netip.AddrPortFrom(wild, port)] != nil {
		return false
	}
	if a.IsUnspecified() {
		for k := range h.socks {
			if k.Port() == port && k.Addr().Is4() == a.Is4() {
				return false
			}
		}
	}
	return true
}

// Source returns the host's first address of dst's family.
func (h *MemHost) Source(dst netip.Addr) (netip.Addr, error) {
	for _, a := range h.addrs {
		if a.Is4() == dst.Unmap().Is4() {
			return a, nil
		}
	}
	return netip.Addr{}, fmt.Errorf("%w %s", ErrNoSourceAddr, dst)
}

// Close does nothing; sockets close individually.
func (h *MemHost) Close() error { return nil }

type memConn struct {
	host   *MemHost
	local  netip.AddrPort
	tos    uint8
	queue  chan *Datagram
	done   chan struct{}
	closed atomic.Bool
}

func (c *memConn) LocalAddr() netip.AddrPort { return c.local }

func (c *memConn) Close() error {
	if c.closed.Swap(true) {
		return nil
	}
	c.host.mu.Lock()
	delete(c.host.socks, c.local)
	c.host.mu.Unlock()
	close(c.done)
	return nil
}

func (c *memConn) ReadBatch(ms []Message) (int, error) {
	if len(ms) == 0 {
		return 0, nil
	}
	var d *Datagram
	select {
	case d = <-c.queue:
	case <-c.done:
		return 0, ErrClosed
	}
	n := 0
	for {
		m := &ms[n]
		m.N = copy(m.Buf, d.Payload)
		m.Truncated = len(d.Payload) > len(m.Buf)
		m.Peer, m.Local, m.TOS, m.HasTOS = d.Src, d.Dst.Addr(), d.TOS, true
		m.RxTime, m.KernelTime = time.Now().UnixNano(), false
		n++
		if n == len(ms) {
			return n, nil
		}
		select {
		case d = <-c.queue:
		default:
			return n, nil
		}
	}
}

func (c *memConn) WriteBatch(ms []Message) (int, error) {
	if c.closed.Load() {
		return 0, ErrClosed
	}
	sent := 0
	for i := range ms {
		m := &ms[i]
		m.Err = nil
		dst := netip.AddrPortFrom(m.Peer.Addr().Unmap(), m.Peer.Port())
		if dst.Addr().Is4() != c.local.Addr().Is4() {
			m.Err = fmt.Errorf("%w: %s on %s socket", ErrWrongFamily, dst, c.local)
			continue
		}
		src := m.Local.Unmap()
		if !src.IsValid() || src.IsUnspecified() {
			src = c.local.Addr()
			if src.IsUnspecified() {
				var err error
				if src, err = c.host.Source(dst.Addr()); err != nil {
					m.Err = err
					continue
				}
			}
		}
		c.host.fabric.send(&Datagram{
			Src: netip.AddrPortFrom(src, c.local.Port()), Dst: dst, TOS: m.TOS,
			Payload: append([]byte(nil), m.Buf...),
		})
		sent++
	}
	return sent, nil
}
