package transport

import (
	"encoding/binary"
	"io"
	"net/netip"
	"sync"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"
)

// PcapWriter records probe datagrams as a classic pcap file of raw IP
// packets (LINKTYPE_RAW) that Wireshark and tshark dissect as InfiniBand.
// The IP and UDP headers are rebuilt from what the socket reports: address,
// ports and TOS are real; TTL (64) and IPv4 ID (0, as the probe sends) are
// not the values a received packet carried. Safe for concurrent use.
type PcapWriter struct {
	mu  sync.Mutex
	w   *pcapgo.Writer
	buf []byte
}

const pcapSnapLen = 65535

// NewPcapWriter writes the file header and returns the writer.
func NewPcapWriter(w io.Writer) (*PcapWriter, error) {
	pw := pcapgo.NewWriter(w)
	if err := pw.WriteFileHeader(pcapSnapLen, layers.LinkTypeRaw); err != nil {
		return nil, err
	}
	return &PcapWriter{w: pw}, nil
}

// WriteDatagram records one UDP datagram.
func (p *PcapWriter) WriteDatagram(t time.Time, src, dst netip.AddrPort, tos uint8, payload []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf = AppendIPUDP(p.buf[:0], src, dst, tos, payload)
	n := min(len(p.buf), pcapSnapLen)
	return p.w.WritePacket(gopacket.CaptureInfo{Timestamp: t, CaptureLength: n, Length: len(p.buf)}, p.buf[:n])
}

// AppendIPUDP appends an IPv4 (DF, ID 0, TTL 64) or IPv6 (hop limit 64)
// packet carrying payload in UDP, with valid checksums.
func AppendIPUDP(b []byte, src, dst netip.AddrPort, tos uint8, payload []byte) []byte {
	s, d := src.Addr().Unmap(), dst.Addr().Unmap()
	udpLen := 8 + len(payload)
	start := len(b)
	var pseudo uint32
	if s.Is4() {
		s4, d4 := s.As4(), d.As4()
		b = append(b, 0x45, tos)
		b = binary.BigEndian.AppendUint16(b, uint16(20+udpLen))
		b = append(b, 0, 0, 0x40, 0, 64, 17, 0, 0)
		b = append(b, s4[:]...)
		b = append(b, d4[:]...)
		binary.BigEndian.PutUint16(b[start+10:], ^fold(sum(0, b[start:start+20])))
		pseudo = sum(sum(0, s4[:]), d4[:]) + 17 + uint32(udpLen)
	} else {
		s16, d16 := s.As16(), d.As16()
		b = binary.BigEndian.AppendUint32(b, 6<<28|uint32(tos)<<20)
		b = binary.BigEndian.AppendUint16(b, uint16(udpLen))
		b = append(b, 17, 64)
		b = append(b, s16[:]...)
		b = append(b, d16[:]...)
		pseudo = sum(sum(0, s16[:]), d16[:]) + 17 + uint32(udpLen)
	}
	u := len(b)
	b = binary.BigEndian.AppendUint16(b, src.Port())
	b = binary.BigEndian.AppendUint16(b, dst.Port())
	b = binary.BigEndian.AppendUint16(b, uint16(udpLen))
	b = append(b, 0, 0)
	b = append(b, payload...)
	c := ^fold(sum(pseudo, b[u:]))
	if c == 0 {
		c = 0xFFFF // 0 means "no checksum" in UDP
	}
	binary.BigEndian.PutUint16(b[u+6:], c)
	return b
}

func sum(acc uint32, b []byte) uint32 {
	for len(b) >= 2 {
		acc += uint32(b[0])<<8 | uint32(b[1])
		b = b[2:]
	}
	if len(b) == 1 {
		acc += uint32(b[0]) << 8
	}
	return acc
}

func fold(acc uint32) uint16 {
	for acc > 0xFFFF {
		acc = acc&0xFFFF + acc>>16
	}
	return uint16(acc)
}
