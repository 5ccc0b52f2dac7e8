//go:build !linux

package transport

import "net/netip"

// MaxBatch is the most datagrams one batch call moves.
const MaxBatch = 64

// UDP is unavailable off Linux: the probe relies on Linux socket options
// (IP_PMTUDISC_PROBE, IP_RECVTOS, SO_TIMESTAMPNS, sendmmsg).
type UDP struct{}

// NewUDP reports ErrUnsupported off Linux.
func NewUDP() (*UDP, error) { return nil, ErrUnsupported }

func (*UDP) Listen(netip.AddrPort, Options) (Conn, error) { return nil, ErrUnsupported }
func (*UDP) Source(netip.Addr) (netip.Addr, error)        { return netip.Addr{}, ErrUnsupported }
func (*UDP) Close() error                                 { return nil }
