package transport

import (
	"errors"
	"net/netip"
)

// Errors a Network or Conn returns; real sockets wrap the errno as well.
var (
	ErrAddrInUse    = errors.New("address already in use")
	ErrClosed       = errors.New("use of closed connection")
	ErrMessageSize  = errors.New("message larger than the path allows") // EMSGSIZE
	ErrUnreachable  = errors.New("destination unreachable")
	ErrUnsupported  = errors.New("not supported on this platform")
	ErrWrongFamily  = errors.New("address family does not match the socket")
	ErrNoSourceAddr = errors.New("no source address for destination")
)

// Message is one datagram in a batch.
//
// For WriteBatch: Buf is the UDP payload, Peer the destination, Local the
// source address to put in the IP header (invalid: the kernel's choice), TOS
// the DSCP<<2|ECN byte. Err reports a failure of that one message.
//
// For ReadBatch: Buf is the receive buffer; N, Peer (the sender), Local (the
// address the packet was sent to), TOS, RxTime and Truncated are filled in.
type Message struct {
	Buf   []byte
	N     int
	Peer  netip.AddrPort
	Local netip.Addr
	TOS   uint8

	// Read only.
	HasTOS     bool  // the kernel reported the received TOS/traffic class
	RxTime     int64 // receive time, Unix nanoseconds
	KernelTime bool  // RxTime is the kernel's receive timestamp
	Truncated  bool  // the datagram did not fit in Buf

	// Write only.
	Err error
}

// Payload returns the received bytes.
func (m *Message) Payload() []byte { return m.Buf[:m.N] }

// Conn is a UDP socket that reads and writes batches. It is safe for
// concurrent use: several senders may share one socket.
type Conn interface {
	// ReadBatch blocks until at least one datagram arrives and returns how
	// many of ms it filled. After Close it returns ErrClosed.
	ReadBatch(ms []Message) (int, error)
	// WriteBatch sends every message it can and returns how many left. A
	// message that cannot be sent (too big, no route) gets Err set and the
	// batch continues; the returned error is for the socket as a whole.
	WriteBatch(ms []Message) (int, error)
	LocalAddr() netip.AddrPort
	Close() error
}

// Options configure a socket at Listen time.
type Options struct {
	// TOS is the default DSCP<<2|ECN for sends; messages with another TOS
	// carry it per packet.
	TOS uint8
	// ReadBuffer and WriteBuffer size the kernel socket buffers (0: default).
	ReadBuffer, WriteBuffer int
}

// Network opens sockets. Real sockets are created in the network namespace
// of the calling thread, so open everything before handing work to other
// goroutines.
type Network interface {
	// Listen opens a UDP socket bound to local (port 0: any free port).
	Listen(local netip.AddrPort, opt Options) (Conn, error)
	// Source returns the address the host would send from to reach dst.
	Source(dst netip.Addr) (netip.Addr, error)
	Close() error
}

// TOS builds the IP TOS / traffic class byte.
func TOS(dscp, ecn uint8) uint8 { return dscp<<2 | ecn&3 }

// SplitTOS returns the DSCP and ECN parts of a TOS byte.
func SplitTOS(tos uint8) (dscp, ecn uint8) { return tos >> 2, tos & 3 }
