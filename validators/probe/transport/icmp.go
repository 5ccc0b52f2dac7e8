package transport

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
)

// ICMPError is an ICMP or ICMPv6 error about a UDP datagram we sent: who
// sent it, what it says, and the start of our datagram as it arrived there.
type ICMPError struct {
	From netip.Addr `json:"from"`
	V6   bool       `json:"v6,omitempty"`
	Type uint8      `json:"type"`
	Code uint8      `json:"code"`
	// MTU is the next-hop MTU of "fragmentation needed" / "packet too big".
	MTU   int   `json:"mtu,omitempty"`
	Quote Quote `json:"quote"`
}

// Quote is the datagram an ICMP error quotes, as the router saw it: its
// TOS (DSCP and ECN after every earlier hop), its length, the UDP ports and
// as much of the UDP payload as the router included.
type Quote struct {
	Src, Dst netip.Addr
	SrcPort  uint16
	DstPort  uint16
	TOS      uint8 // IPv4 TOS or IPv6 traffic class
	TTL      uint8 // or hop limit: what was left when it expired
	// Length is the whole IP packet's length from its header.
	Length int
	// Payload is the quoted part of the UDP payload (may be truncated).
	Payload []byte
}

// ICMP types this package reads.
const (
	icmp4DestUnreach  = 3
	icmp4TimeExceeded = 11
	icmp4FragNeeded   = 4 // code of DestUnreach
	icmp4PortUnreach  = 3 // code of DestUnreach

	icmp6DestUnreach  = 1
	icmp6PacketTooBig = 2
	icmp6TimeExceeded = 3
	icmp6PortUnreach  = 4 // code of DestUnreach
)

// TimeExceeded is a router saying the TTL ran out there.
func (e ICMPError) TimeExceeded() bool {
	if e.V6 {
		return e.Type == icmp6TimeExceeded && e.Code == 0
	}
	return e.Type == icmp4TimeExceeded && e.Code == 0
}

// TooBig is "fragmentation needed" (IPv4) or "packet too big" (IPv6).
func (e ICMPError) TooBig() bool {
	if e.V6 {
		return e.Type == icmp6PacketTooBig
	}
	return e.Type == icmp4DestUnreach && e.Code == icmp4FragNeeded
}

// PortUnreachable is the destination saying nothing listens on the port.
func (e ICMPError) PortUnreachable() bool {
	if e.V6 {
		return e.Type == icmp6DestUnreach && e.Code == icmp6PortUnreach
	}
	return e.Type == icmp4DestUnreach && e.Code == icmp4PortUnreach
}

// Unreachable is any destination-unreachable message.
func (e ICMPError) Unreachable() bool {
	if e.V6 {
		return e.Type == icmp6DestUnreach
	}
	return e.Type == icmp4DestUnreach
}

// ErrNotICMPError is returned for ICMP messages that are not errors about
// a UDP datagram (echo replies, errors about TCP).
var ErrNotICMPError = errors.New("not an ICMP error about a UDP datagram")

// ParseICMP4 reads an ICMP message (without the IP header in front of it,
// as a raw ip4:icmp socket returns it) sent by from.
func ParseICMP4(msg []byte, from netip.Addr) (ICMPError, error) {
	e := ICMPError{From: from.Unmap()}
	if len(msg) < 8 {
		return e, fmt.Errorf("ICMP message of %d bytes is shorter than its header", len(msg))
	}
	e.Type, e.Code = msg[0], msg[1]
	if e.Type != icmp4DestUnreach && e.Type != icmp4TimeExceeded {
		return e, ErrNotICMPError
	}
	if e.TooBig() {
		e.MTU = int(binary.BigEndian.Uint16(msg[6:8]))
	}
	orig := msg[8:]
	// RFC 4884: a non-zero length (32-bit words) bounds the original
	// datagram; extension objects follow it.
	if n := int(msg[5]) * 4; n > 0 && n <= len(orig) {
		orig = orig[:n]
	}
	if len(orig) < 20 || orig[0]>>4 != 4 {
		return e, fmt.Errorf("ICMP from %s quotes no IPv4 header", from)
	}
	ihl := int(orig[0]&0x0f) * 4
	if ihl < 20 || len(orig) < ihl+8 {
		return e, fmt.Errorf("ICMP from %s quotes %d bytes, too few for the IPv4 and UDP headers", from, len(orig))
	}
	if orig[9] != 17 {
		return e, ErrNotICMPError
	}
	q := &e.Quote
	q.TOS, q.TTL = orig[1], orig[8]
	q.Length = int(binary.BigEndian.Uint16(orig[2:4]))
	q.Src, q.Dst = netip.AddrFrom4([4]byte(orig[12:16])), netip.AddrFrom4([4]byte(orig[16:20]))
	udp := orig[ihl:]
	q.SrcPort, q.DstPort = binary.BigEndian.Uint16(udp[0:2]), binary.BigEndian.Uint16(udp[2:4])
	q.Payload = udp[8:]
	return e, nil
}

// ParseICMP6 reads an ICMPv6 message (as a raw ip6:ipv6-icmp socket
// returns it) sent by from.
func ParseICMP6(msg []byte, from netip.Addr) (ICMPError, error) {
	e := ICMPError{From: from, V6: true}
	if len(msg) < 8 {
		return e, fmt.Errorf("ICMPv6 message of %d bytes is shorter than its header", len(msg))
	}
	e.Type, e.Code = msg[0], msg[1]
	orig := msg[8:]
	switch e.Type {
	case icmp6PacketTooBig:
		e.MTU = int(binary.BigEndian.Uint32(msg[4:8]))
	case icmp6DestUnreach, icmp6TimeExceeded:
		if n := int(msg[4]) * 8; n > 0 && n <= len(orig) { // RFC 4884, 64-bit words
			orig = orig[:n]
		}
	default:
		return e, ErrNotICMPError
	}
	if len(orig) < 40 || orig[0]>>4 != 6 {
		return e, fmt.Errorf("ICMPv6 from %s quotes no IPv6 header", from)
	}
	q := &e.Quote
	q.TOS = orig[0]<<4 | orig[1]>>4
	q.TTL = orig[7]
	q.Length = 40 + int(binary.BigEndian.Uint16(orig[4:6]))
	q.Src, q.Dst = netip.AddrFrom16([16]byte(orig[8:24])), netip.AddrFrom16([16]byte(orig[24:40]))
	// Walk the extension headers a probe could carry before UDP.
	next, rest := orig[6], orig[40:]
	for next != 17 {
		switch next {
		case 0, 43, 60: // hop-by-hop, routing, destination options
			if len(rest) < 8 {
				return e, fmt.Errorf("ICMPv6 from %s quotes a truncated extension header", from)
			}
			n := (int(rest[1]) + 1) * 8
			if len(rest) < n {
				return e, fmt.Errorf("ICMPv6 from %s quotes a truncated extension header", from)
			}
			next, rest = rest[0], rest[n:]
		default:
			return e, ErrNotICMPError
		}
	}
	if len(rest) < 8 {
		return e, fmt.Errorf("ICMPv6 from %s quotes %d bytes of UDP, too few for its header", from, len(rest))
	}
	q.SrcPort, q.DstPort = binary.BigEndian.Uint16(rest[0:2]), binary.BigEndian.Uint16(rest[2:4])
	q.Payload = rest[8:]
	return e, nil
}
