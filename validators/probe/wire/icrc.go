package wire

import (
	"encoding/binary"
	"hash/crc32"
	"net/netip"
	"strconv"
)

// Envelope is what the ICRC needs from the IP and UDP headers around a RoCE
// packet. Fields the ICRC masks (TOS/traffic class, TTL/hop limit, IP and
// UDP checksums, flow label) are deliberately absent.
type Envelope struct {
	Src, Dst         netip.Addr // both IPv4 or both IPv6
	SrcPort, DstPort uint16
	// IPv4 only: the Identification field and the DF flag are covered by the
	// ICRC. The probe sends ID 0 with DF (roce-wire.md §0.2).
	IPv4ID       uint16
	DontFragment bool
}

// ProbeEnvelope returns the envelope of a packet sent under the probe's
// sender contract: IPv4 ID 0 with DF set (no fields matter for IPv6).
func ProbeEnvelope(src, dst netip.AddrPort) Envelope {
	return Envelope{Src: src.Addr().Unmap(), Dst: dst.Addr().Unmap(), SrcPort: src.Port(), DstPort: dst.Port(), DontFragment: true}
}

// crcAfterLRH is the CRC-32 of the eight 0xFF bytes that stand in for the
// absent InfiniBand LRH (rxe seeds with its complement, 0xdebb20e3).
const crcAfterLRH = 0x2144df1c

const (
	ipv4HeaderLen = 20
	ipv6HeaderLen = 40
	udpHeaderLen  = 8
	protoUDP      = 17
)

// IPOverhead returns the IP plus UDP header bytes for the address family.
func IPOverhead(a netip.Addr) int {
	if a.Unmap().Is4() {
		return ipv4HeaderLen + udpHeaderLen
	}
	return ipv6HeaderLen + udpHeaderLen
}

// Hasher computes ICRCs without allocating: it keeps the scratch space for
// the masked headers, which would otherwise escape to the heap on every call
// (hash/crc32 dispatches through a function value). Not safe for concurrent
// use; the zero value is ready.
type Hasher struct {
	scratch []byte
}

const scratchLen = ipv6HeaderLen + udpHeaderLen + BTHLen

func (h *Hasher) buf() []byte {
	if h.scratch == nil {
		h.scratch = make([]byte, 0, scratchLen)
	}
	return h.scratch[:0]
}

// ICRC computes the invariant CRC over the masked IP and UDP headers given by
// env and roce, the UDP payload up to (not including) the ICRC: BTH,
// extension headers, payload and pad.
func ICRC(env *Envelope, roce []byte) uint32 {
	var h Hasher
	return h.ICRC(env, roce)
}

// ICRC is the allocation-free form of the package-level ICRC.
func (h *Hasher) ICRC(env *Envelope, roce []byte) uint32 {
	udpLen := udpHeaderLen + len(roce) + ICRCLen
	hdr := h.buf()
	src, dst := env.Src.Unmap(), env.Dst.Unmap()
	if src.Is4() {
		var flags uint16
		if env.DontFragment {
			flags = 0x4000
		}
		s4, d4 := src.As4(), dst.As4()
		hdr = append(hdr, 0x45, 0xFF)
		hdr = binary.BigEndian.AppendUint16(hdr, uint16(ipv4HeaderLen+udpLen))
		hdr = binary.BigEndian.AppendUint16(hdr, env.IPv4ID)
		hdr = binary.BigEndian.AppendUint16(hdr, flags)
		hdr = append(hdr, 0xFF, protoUDP, 0xFF, 0xFF)
		hdr = append(hdr, s4[:]...)
		hdr = append(hdr, d4[:]...)
	} else {
		s16, d16 := src.As16(), dst.As16()
		hdr = append(hdr, 0x6F, 0xFF, 0xFF, 0xFF)
		hdr = binary.BigEndian.AppendUint16(hdr, uint16(udpLen))
		hdr = append(hdr, protoUDP, 0xFF)
		hdr = append(hdr, s16[:]...)
		hdr = append(hdr, d16[:]...)
	}
	hdr = binary.BigEndian.AppendUint16(hdr, env.SrcPort)
	hdr = binary.BigEndian.AppendUint16(hdr, env.DstPort)
	hdr = binary.BigEndian.AppendUint16(hdr, uint16(udpLen))
	hdr = append(hdr, 0xFF, 0xFF)
	return icrcTail(hdr, roce)
}

// icrcTail finishes the CRC over the masked IP+UDP header in hdr, then the
// BTH with byte 4 masked, then the rest of roce.
func icrcTail(hdr, roce []byte) uint32 {
	n := min(len(roce), BTHLen)
	hdr = append(hdr, roce[:n]...)
	if n > 4 {
		hdr[len(hdr)-n+4] = 0xFF // FECN, BECN, Resv6
	}
	c := crc32.Update(crcAfterLRH, crc32.IEEETable, hdr)
	return crc32.Update(c, crc32.IEEETable, roce[n:])
}

// VerifyICRC checks the ICRC at the end of udpPayload (BTH through ICRC).
func VerifyICRC(env *Envelope, udpPayload []byte) error {
	var h Hasher
	return h.Verify(env, udpPayload)
}

// Verify is the allocation-free form of VerifyICRC.
func (h *Hasher) Verify(env *Envelope, udpPayload []byte) error {
	if len(udpPayload) < BTHLen+ICRCLen {
		return truncated("BTH+ICRC", 0, BTHLen+ICRCLen, len(udpPayload))
	}
	end := len(udpPayload) - ICRCLen
	got := binary.LittleEndian.Uint32(udpPayload[end:])
	if want := h.ICRC(env, udpPayload[:end]); got != want {
		return icrcMismatch(got, want)
	}
	return nil
}

func icrcMismatch(got, want uint32) error {
	return &Error{Kind: ErrBadICRC, Detail: "carried 0x" + strconv.FormatUint(uint64(got), 16) +
		", computed 0x" + strconv.FormatUint(uint64(want), 16)}
}

// IPInfo is what DecodeIP read from the IP and UDP headers.
type IPInfo struct {
	Envelope
	TOS       uint8 // IPv4 TOS or IPv6 traffic class: DSCP<<2 | ECN
	TTL       uint8 // or hop limit
	FlowLabel uint32
	UDPLen    int
}

// ICRCOfIPPacket computes the ICRC of a whole IP packet (IPv4 without
// options or IPv6 without extension headers, carrying UDP) and returns it
// with the value the packet carries and the parsed headers.
func ICRCOfIPPacket(pkt []byte) (computed, carried uint32, info IPInfo, err error) {
	computed, carried, info, _, err = icrcOfIP(pkt)
	return computed, carried, info, err
}

func icrcOfIP(pkt []byte) (computed, carried uint32, info IPInfo, roce []byte, err error) {
	info, roce, err = parseIPUDP(pkt)
	if err != nil {
		return 0, 0, info, nil, err
	}
	if len(roce) < BTHLen+ICRCLen {
		return 0, 0, info, nil, truncated("BTH+ICRC", 0, BTHLen+ICRCLen, len(roce))
	}
	end := len(roce) - ICRCLen
	carried = binary.LittleEndian.Uint32(roce[end:])
	// Mask a copy of the headers; the UDP payload follows them directly.
	var scratch [ipv6HeaderLen + udpHeaderLen + BTHLen]byte
	hl := IPOverhead(info.Src)
	hdr := append(scratch[:0], pkt[:hl]...)
	if info.Src.Is4() {
		hdr[1] = 0xFF                 // TOS
		hdr[8] = 0xFF                 // TTL
		hdr[10], hdr[11] = 0xFF, 0xFF // header checksum
	} else {
		hdr[0] |= 0x0F // traffic class, high nibble
		hdr[1], hdr[2], hdr[3] = 0xFF, 0xFF, 0xFF
		hdr[7] = 0xFF // hop limit
	}
	hdr[hl-2], hdr[hl-1] = 0xFF, 0xFF // UDP checksum
	return icrcTail(hdr, roce[:end]), carried, info, roce, nil
}

// DecodeIP parses an IP packet carrying RoCEv2, decodes the transport
// headers into p and verifies the ICRC. On ErrBadICRC p is still filled in.
func DecodeIP(pkt []byte, p *Packet) (IPInfo, error) {
	computed, carried, info, roce, err := icrcOfIP(pkt)
	if err != nil {
		return info, err
	}
	if err := Decode(roce, p); err != nil {
		return info, err
	}
	if computed != carried {
		return info, icrcMismatch(carried, computed)
	}
	return info, nil
}

// parseIPUDP returns the IP/UDP fields and the UDP payload of pkt, trimmed to
// the lengths the headers state (link padding is dropped).
func parseIPUDP(pkt []byte) (IPInfo, []byte, error) {
	var info IPInfo
	if len(pkt) < 1 {
		return info, nil, truncated("IP header", 0, 1, 0)
	}
	var l4 []byte
	switch pkt[0] >> 4 {
	case 4:
		if len(pkt) < ipv4HeaderLen {
			return info, nil, truncated("IPv4 header", 0, ipv4HeaderLen, len(pkt))
		}
		if pkt[0]&0xF != 5 {
			return info, nil, &Error{Kind: ErrNotRoCE, Detail: "IPv4 options are not supported"}
		}
		if pkt[9] != protoUDP {
			return info, nil, &Error{Kind: ErrNotRoCE, Detail: "IP protocol " + strconv.Itoa(int(pkt[9]))}
		}
		total := int(binary.BigEndian.Uint16(pkt[2:]))
		if total < ipv4HeaderLen || total > len(pkt) {
			return info, nil, truncated("IPv4 packet", 0, total, len(pkt))
		}
		info.TOS, info.TTL = pkt[1], pkt[8]
		info.IPv4ID = binary.BigEndian.Uint16(pkt[4:])
		info.DontFragment = pkt[6]&0x40 != 0
		if binary.BigEndian.Uint16(pkt[6:])&0x3FFF != 0 {
			return info, nil, &Error{Kind: ErrNotRoCE, Detail: "IPv4 fragment"}
		}
		info.Src = netip.AddrFrom4([4]byte(pkt[12:16]))
		info.Dst = netip.AddrFrom4([4]byte(pkt[16:20]))
		l4 = pkt[ipv4HeaderLen:total]
	case 6:
		if len(pkt) < ipv6HeaderLen {
			return info, nil, truncated("IPv6 header", 0, ipv6HeaderLen, len(pkt))
		}
		if pkt[6] != protoUDP {
			return info, nil, &Error{Kind: ErrNotRoCE, Detail: "IPv6 next header " + strconv.Itoa(int(pkt[6]))}
		}
		plen := int(binary.BigEndian.Uint16(pkt[4:]))
		if ipv6HeaderLen+plen > len(pkt) {
			return info, nil, truncated("IPv6 packet", 0, ipv6HeaderLen+plen, len(pkt))
		}
		vtf := binary.BigEndian.Uint32(pkt)
		info.TOS = uint8(vtf >> 20)
		info.FlowLabel = vtf & 0xFFFFF
		info.TTL = pkt[7]
		info.Src = netip.AddrFrom16([16]byte(pkt[8:24]))
		info.Dst = netip.AddrFrom16([16]byte(pkt[24:40]))
		l4 = pkt[ipv6HeaderLen : ipv6HeaderLen+plen]
	default:
		return info, nil, &Error{Kind: ErrBadVersion, Detail: "IP version " + strconv.Itoa(int(pkt[0]>>4))}
	}
	if len(l4) < udpHeaderLen {
		return info, nil, truncated("UDP header", 0, udpHeaderLen, len(l4))
	}
	info.SrcPort = binary.BigEndian.Uint16(l4)
	info.DstPort = binary.BigEndian.Uint16(l4[2:])
	info.UDPLen = int(binary.BigEndian.Uint16(l4[4:]))
	if info.UDPLen < udpHeaderLen || info.UDPLen > len(l4) {
		return info, nil, truncated("UDP datagram", 0, info.UDPLen, len(l4))
	}
	// The trim keeps the IP and UDP lengths consistent with the payload the
	// CRC walks; a longer IP length than UDP length is link padding.
	return info, l4[udpHeaderLen:info.UDPLen], nil
}
