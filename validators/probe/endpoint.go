package probe

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/validators/probe/transport"
	"github.com/rocefab/rocefab/validators/probe/wire"
)

// Errors callers can test with errors.Is.
var (
	ErrNoTargets      = errors.New("no probe targets")
	ErrPortInUse      = errors.New("probe port held by another program")
	ErrServerRunning  = errors.New("a probe server is already running")
	ErrClosed         = errors.New("probe endpoint closed")
	ErrNoFamily       = errors.New("endpoint does not listen on this address family")
	ErrQPsExhausted   = errors.New("probe QP range exhausted")
	ErrPolicyMismatch = errors.New("run policy does not match the endpoint")
)

// entropyPortMin and entropyPortMax bound the UDP source ports that carry
// flow entropy, as RoCE NICs do (roce-wire.md §1).
const (
	entropyPortMin = 49152
	entropyPortMax = 65535
)

// maxJumbo is the largest L3 MTU switches offer (9216): endpoints always
// receive packets that large.
const maxJumbo = 9216

// Counters are endpoint-wide packet counts, for operators and tests.
type Counters struct {
	Received           uint64 `json:"received"`
	Truncated          uint64 `json:"truncated"`
	Malformed          uint64 `json:"malformed"`
	ForeignPKey        uint64 `json:"foreignPKey"` // dropped: not the probe's P_Key
	ForeignQP          uint64 `json:"foreignQP"`   // dropped: QP outside the probe's range
	ICRCErrors         uint64 `json:"icrcErrors"`
	Stray              uint64 `json:"stray"`      // replies for no running session
	Unexpected         uint64 `json:"unexpected"` // not an RC request on a responder QP
	Unsupported        uint64 `json:"unsupported"`
	RepliesSent        uint64 `json:"repliesSent"`
	RepliesRateLimited uint64 `json:"repliesRateLimited"`
	CNPsSent           uint64 `json:"cnpsSent"`
	CNPsRateLimited    uint64 `json:"cnpsRateLimited"`
	SendErrors         uint64 `json:"sendErrors"`
	StatesEvicted      uint64 `json:"statesEvicted"`
}

type counters struct {
	received, truncated, malformed, foreignPKey, foreignQP, icrcErrors, stray, unexpected, unsupported,
	repliesSent, repliesRateLimited, cnpsSent, cnpsRateLimited, sendErrors, statesEvicted atomic.Uint64
}

// Endpoint is the single probe endpoint of a host on the RoCEv2 port. It
// answers other hosts' probes (the responder, odd QPs) and sends this host's
// own (sessions, even QPs); received packets are demultiplexed by
// destination QP.
type Endpoint struct {
	cfg    EndpointConfig
	policy Policy
	log    *zap.Logger
	net    transport.Network
	ownNet bool
	fams   []*family
	resp   *responder
	ctr    counters
	now    func() time.Time

	mu       sync.RWMutex
	sessions map[uint32]*session
	nextQP   uint32

	wg     sync.WaitGroup
	closed atomic.Bool
}

// family is the sockets of one address family.
type family struct {
	is4 bool
	// local is the bound address, or invalid when bound to the wildcard.
	local    netip.Addr
	listener transport.Conn   // bound to the RoCEv2 port
	pool     []transport.Conn // bound to entropy ports, used to send
	bufSize  int
}

// NewEndpoint opens the endpoint's sockets and starts answering. Real
// sockets are created in the calling thread's network namespace.
func NewEndpoint(cfg EndpointConfig) (*Endpoint, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Policy.Validate(); err != nil {
		return nil, err
	}
	e := &Endpoint{cfg: cfg, policy: cfg.Policy, log: cfg.Logger.Named("probe"), net: cfg.Network,
		sessions: make(map[uint32]*session), now: cfg.now}
	if e.now == nil {
		e.now = time.Now
	}
	e.nextQP = cfg.Policy.QPMin
	if e.net == nil {
		u, err := transport.NewUDP()
		if err != nil {
			return nil, err
		}
		e.net, e.ownNet = u, true
	}
	for _, a := range cfg.Listen {
		f, err := e.openFamily(a)
		if err != nil {
			if errors.Is(err, transport.ErrAddrInUse) {
				e.abandon()
				return nil, fmt.Errorf("%w: UDP port %d on %s", ErrPortInUse, cfg.Port, a)
			}
			// One family may be missing (e.g. IPv6 disabled); none is fatal.
			e.log.Warn("address family unavailable", zap.Stringer("listen", a), zap.Error(err))
			continue
		}
		e.fams = append(e.fams, f)
	}
	if len(e.fams) == 0 {
		e.abandon()
		return nil, fmt.Errorf("probe endpoint: no usable listen address in %v", cfg.Listen)
	}
	e.resp = newResponder(e)
	for _, f := range e.fams {
		e.wg.Add(1)
		go e.receive(f)
	}
	e.log.Info("probe endpoint up", zap.Uint16("port", cfg.Port), zap.Int("families", len(e.fams)),
		zap.Uint16("pkey", cfg.Policy.PKey))
	return e, nil
}

func (e *Endpoint) openFamily(a netip.Addr) (*family, error) {
	f := &family{is4: a.Unmap().Is4()}
	if !a.IsUnspecified() {
		f.local = a.Unmap()
	}
	// Receive whatever a jumbo path carries, not only this endpoint's own
	// host MTU: a run with another policy (a `probe run` through a server
	// started for 4200) must see the wire, not a truncated buffer.
	f.bufSize = max(maxJumbo, e.policy.HostMTU) + 256
	replyTOS := transport.TOS(e.policy.RoCEDSCP, uint8(e.policy.ECN))
	ln, err := e.net.Listen(netip.AddrPortFrom(a, e.cfg.Port), transport.Options{TOS: replyTOS, ReadBuffer: 8 << 20})
	if err != nil {
		return nil, err
	}
	f.listener = ln
	for range e.policy.Flows {
		c, err := e.listenEntropy(a, replyTOS)
		if err != nil {
			ln.Close()
			for _, c := range f.pool {
				c.Close()
			}
			return nil, fmt.Errorf("entropy port: %w", err)
		}
		f.pool = append(f.pool, c)
	}
	return f, nil
}

// listenEntropy binds a random port in 49152-65535 (the kernel's ephemeral
// range usually starts lower, so port 0 would not do).
func (e *Endpoint) listenEntropy(a netip.Addr, tos uint8) (transport.Conn, error) {
	var last error
	for range 200 {
		port := uint16(entropyPortMin + rand.IntN(entropyPortMax-entropyPortMin+1))
		c, err := e.net.Listen(netip.AddrPortFrom(a, port), transport.Options{TOS: tos, WriteBuffer: 4 << 20, ReadBuffer: 64 << 10})
		if err == nil {
			return c, nil
		}
		if !errors.Is(err, transport.ErrAddrInUse) {
			return nil, err
		}
		last = err
	}
	return nil, last
}

// Close stops the endpoint; running sessions fail.
func (e *Endpoint) Close() error {
	if e.closed.Swap(true) {
		return nil
	}
	e.closeSockets()
	e.wg.Wait()
	if e.ownNet {
		e.net.Close()
	}
	e.log.Info("probe endpoint closed")
	return nil
}

func (e *Endpoint) closeSockets() {
	for _, f := range e.fams {
		f.listener.Close()
		for _, c := range f.pool {
			c.Close()
		}
	}
}

// abandon releases what a failed NewEndpoint opened.
func (e *Endpoint) abandon() {
	e.closeSockets()
	if e.ownNet {
		e.net.Close()
	}
}

// Counters returns a snapshot of the endpoint-wide counts.
func (e *Endpoint) Counters() Counters {
	c := &e.ctr
	return Counters{
		Received: c.received.Load(), Truncated: c.truncated.Load(), Malformed: c.malformed.Load(),
		ForeignPKey: c.foreignPKey.Load(), ForeignQP: c.foreignQP.Load(), ICRCErrors: c.icrcErrors.Load(),
		Stray: c.stray.Load(), Unexpected: c.unexpected.Load(), Unsupported: c.unsupported.Load(),
		RepliesSent: c.repliesSent.Load(), RepliesRateLimited: c.repliesRateLimited.Load(),
		CNPsSent: c.cnpsSent.Load(), CNPsRateLimited: c.cnpsRateLimited.Load(),
		SendErrors: c.sendErrors.Load(), StatesEvicted: c.statesEvicted.Load(),
	}
}

// Policy returns the endpoint's policy with defaults applied.
func (e *Endpoint) Policy() Policy { return e.policy }

// Name is the endpoint's label in reports.
func (e *Endpoint) Name() string { return e.cfg.Name }

func (e *Endpoint) familyFor(a netip.Addr) *family {
	is4 := a.Unmap().Is4()
	for _, f := range e.fams {
		if f.is4 == is4 {
			return f
		}
	}
	return nil
}

// rxScratch is per-receive-loop state, so the hot path does not allocate.
type rxScratch struct {
	pkt wire.Packet
	h   wire.Hasher
	out *replyBatch
}

func (e *Endpoint) receive(f *family) {
	defer e.wg.Done()
	ms := make([]transport.Message, transport.MaxBatch)
	for i := range ms {
		ms[i].Buf = make([]byte, f.bufSize)
	}
	rx := &rxScratch{out: newReplyBatch(e, f)}
	for {
		for i := range ms {
			ms[i].Buf = ms[i].Buf[:cap(ms[i].Buf)]
		}
		n, err := f.listener.ReadBatch(ms)
		if err != nil {
			if errors.Is(err, transport.ErrClosed) || e.closed.Load() {
				return
			}
			e.log.Warn("probe receive", zap.Error(err))
			time.Sleep(10 * time.Millisecond)
			continue
		}
		for i := range n {
			e.dispatch(&ms[i], rx)
		}
		rx.out.flush(false)
	}
}

// dispatch filters one datagram and hands it to a session or the responder.
func (e *Endpoint) dispatch(m *transport.Message, rx *rxScratch) {
	e.ctr.received.Add(1)
	if m.Truncated {
		e.ctr.truncated.Add(1)
		return
	}
	b := m.Payload()
	p := &rx.pkt
	if err := wire.Decode(b, p); err != nil {
		e.ctr.malformed.Add(1)
		return
	}
	// The probe answers only its own partition and QP range; anything else
	// is someone else's RoCE traffic and is dropped without a reply.
	if p.BTH.PKey != e.policy.PKey {
		e.ctr.foreignPKey.Add(1)
		return
	}
	qp := p.BTH.DestQP
	if qp < e.policy.QPMin || qp > e.policy.QPMax {
		e.ctr.foreignQP.Add(1)
		return
	}
	// The sender contract (IPv4 ID 0, DF) lets a UDP socket check the ICRC
	// without seeing the IP header.
	env := wire.Envelope{Src: m.Peer.Addr(), Dst: m.Local, SrcPort: m.Peer.Port(), DstPort: e.cfg.Port, DontFragment: true}
	icrcOK := rx.h.Verify(&env, b) == nil
	if !icrcOK {
		e.ctr.icrcErrors.Add(1)
	}
	if isRequesterQP(qp, e.policy) {
		e.mu.RLock()
		s := e.sessions[qp]
		e.mu.RUnlock()
		if s == nil || s.peer != m.Peer.Addr() {
			e.ctr.stray.Add(1)
			return
		}
		s.receive(m, p, icrcOK)
		return
	}
	e.resp.handle(m, p, icrcOK, rx.out)
}

// QPs pair up: requester QP q (even offset from QPMin) talks to responder QP
// q+1. BTH carries only the destination QP, so this fixed pairing is how a
// responder knows where to send ACKs and CNPs.
func isRequesterQP(qp uint32, p Policy) bool { return (qp-p.QPMin)%2 == 0 }

// allocQP reserves a requester QP for s.
func (e *Endpoint) allocQP(s *session) (uint32, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := (e.policy.QPMax - e.policy.QPMin + 1) / 2
	for range n {
		qp := e.nextQP
		e.nextQP += 2
		if e.nextQP+1 > e.policy.QPMax {
			e.nextQP = e.policy.QPMin
		}
		if _, busy := e.sessions[qp]; !busy {
			e.sessions[qp] = s
			return qp, nil
		}
	}
	return 0, ErrQPsExhausted
}

func (e *Endpoint) releaseQP(qp uint32) {
	e.mu.Lock()
	delete(e.sessions, qp)
	e.mu.Unlock()
}

// Serve runs the control socket (if RunDir is set) until ctx ends, so that
// Run on this host goes through this endpoint.
func (e *Endpoint) Serve(ctx context.Context) error {
	if e.cfg.RunDir != "" {
		stop, err := e.startControl(ctx)
		if err != nil {
			return err
		}
		defer stop()
	}
	<-ctx.Done()
	return nil
}

// Serve opens an endpoint from cfg and serves until ctx ends. It refuses to
// start when a probe server already runs (its control socket answers).
func Serve(ctx context.Context, cfg EndpointConfig) error {
	cfg = cfg.withDefaults()
	if cfg.RunDir != "" && controlAlive(cfg.RunDir) {
		return fmt.Errorf("%w (control socket %s)", ErrServerRunning, controlPath(cfg.RunDir))
	}
	e, err := NewEndpoint(cfg)
	if err != nil {
		return err
	}
	defer e.Close()
	return e.Serve(ctx)
}
