package wire

import (
	"encoding/binary"
	"strconv"
)

// UDPPort is the IANA port for RoCEv2.
const UDPPort = 4791

// DefaultPKey is the InfiniBand default partition.
const DefaultPKey = 0xFFFF

const psnMask = 0xFFFFFF

// BTH is the Base Transport Header (12 bytes).
type BTH struct {
	Opcode         Opcode
	SolicitedEvent bool
	MigReq         bool
	PadCnt         uint8 // 0-3; the encoder sets it from the payload length
	TVer           uint8 // transport header version, always 0
	PKey           uint16
	FECN           bool // not used by RoCEv2, masked in the ICRC
	BECN           bool // set on CNPs
	Resv6          uint8
	DestQP         uint32 // 24 bits
	AckReq         bool
	Resv7          uint8
	PSN            uint32 // 24 bits
}

// RDETH is the Reliable Datagram Extended Transport Header.
type RDETH struct{ EEContext uint32 }

// DETH is the Datagram Extended Transport Header.
type DETH struct {
	QKey  uint32
	SrcQP uint32 // 24 bits
}

// XRCETH is the XRC Extended Transport Header.
type XRCETH struct{ XRCSRQ uint32 }

// FETH is the FLUSH Extended Transport Header.
type FETH struct {
	Selectivity uint8 // 2 bits
	Placement   uint8 // 4 bits
}

// RETH is the RDMA Extended Transport Header.
type RETH struct {
	VA        uint64
	RKey      uint32
	DMALength uint32
}

// AtomicETH is the Atomic Extended Transport Header.
type AtomicETH struct {
	VA      uint64
	RKey    uint32
	SwapAdd uint64
	Compare uint64
}

// AETH syndromes (bits 6-5 of the syndrome byte).
const (
	SyndromeACK    uint8 = 0x00
	SyndromeRNRNAK uint8 = 0x20
	SyndromeNAK    uint8 = 0x60

	// AckCreditsInvalid is the "no credit count" ACK syndrome (0x1F).
	AckCreditsInvalid uint8 = 0x1F

	NAKPSNSequenceError     uint8 = SyndromeNAK // NAK code 0
	NAKInvalidRequest       uint8 = SyndromeNAK | 1
	NAKRemoteAccessError    uint8 = SyndromeNAK | 2
	NAKRemoteOperationError uint8 = SyndromeNAK | 3
)

// AETH is the ACK Extended Transport Header.
type AETH struct {
	Syndrome uint8
	MSN      uint32 // 24 bits
}

// IsNAK reports whether the syndrome is a NAK (not an ACK or RNR NAK).
func (a AETH) IsNAK() bool { return a.Syndrome&0x60 == SyndromeNAK }

// IsACK reports whether the syndrome is a positive ACK.
func (a AETH) IsACK() bool { return a.Syndrome&0x60 == SyndromeACK }

// AtomicAckETH carries the original remote data of an atomic operation.
type AtomicAckETH struct{ OrigData uint64 }

// Packet is one RoCEv2 transport packet: BTH, the extension headers its
// opcode carries, and the payload. Fields of absent headers are ignored when
// encoding and left zero when decoding.
type Packet struct {
	BTH       BTH
	RDETH     RDETH
	DETH      DETH
	XRCETH    XRCETH
	FETH      FETH
	RETH      RETH
	AtomicETH AtomicETH
	AETH      AETH
	AtomicAck AtomicAckETH
	ImmDt     uint32
	IETH      uint32 // R_Key to invalidate
	Payload   []byte // without pad; on decode it aliases the input
	ICRC      uint32 // on decode: the value carried by the packet
}

// PadLen is the number of pad bytes that align a payload to 4 bytes.
func PadLen(payload int) int { return (4 - payload&3) & 3 }

// Len returns the encoded size including pad and ICRC.
func (p *Packet) Len() int {
	info, _ := p.BTH.Opcode.Info()
	return BTHLen + info.Headers.Len() + len(p.Payload) + PadLen(len(p.Payload)) + ICRCLen
}

// HeaderLen returns the size of BTH plus the extension headers for op.
func HeaderLen(op Opcode) int {
	info, _ := op.Info()
	return BTHLen + info.Headers.Len()
}

// AppendHeaders appends BTH, extension headers, payload and pad (everything
// the ICRC covers after the IP/UDP headers) and sets BTH.PadCnt.
func (p *Packet) AppendHeaders(b []byte) ([]byte, error) {
	info, ok := p.BTH.Opcode.Info()
	if !ok {
		return b, &Error{Kind: ErrUnknownOpcode, Detail: p.BTH.Opcode.String()}
	}
	if !info.Payload && len(p.Payload) > 0 {
		return b, &Error{Kind: ErrMalformed, Detail: info.Name + " carries no payload"}
	}
	if p.BTH.TVer != 0 {
		return b, &Error{Kind: ErrBadVersion, Detail: "TVer " + strconv.Itoa(int(p.BTH.TVer))}
	}
	pad := PadLen(len(p.Payload))
	p.BTH.PadCnt = uint8(pad)
	b = p.BTH.append(b)
	h := info.Headers
	if h&HRDETH != 0 {
		b = binary.BigEndian.AppendUint32(b, p.RDETH.EEContext&psnMask)
	}
	if h&HDETH != 0 {
		b = binary.BigEndian.AppendUint32(b, p.DETH.QKey)
		b = binary.BigEndian.AppendUint32(b, p.DETH.SrcQP&psnMask)
	}
	if h&HXRCETH != 0 {
		b = binary.BigEndian.AppendUint32(b, p.XRCETH.XRCSRQ&psnMask)
	}
	if h&HFETH != 0 {
		b = binary.BigEndian.AppendUint32(b, uint32(p.FETH.Selectivity&3)<<4|uint32(p.FETH.Placement&0xF))
	}
	if h&HRETH != 0 {
		b = binary.BigEndian.AppendUint64(b, p.RETH.VA)
		b = binary.BigEndian.AppendUint32(b, p.RETH.RKey)
		b = binary.BigEndian.AppendUint32(b, p.RETH.DMALength)
	}
	if h&HAtomicETH != 0 {
		b = binary.BigEndian.AppendUint64(b, p.AtomicETH.VA)
		b = binary.BigEndian.AppendUint32(b, p.AtomicETH.RKey)
		b = binary.BigEndian.AppendUint64(b, p.AtomicETH.SwapAdd)
		b = binary.BigEndian.AppendUint64(b, p.AtomicETH.Compare)
	}
	if h&HAETH != 0 {
		b = binary.BigEndian.AppendUint32(b, uint32(p.AETH.Syndrome)<<24|p.AETH.MSN&psnMask)
	}
	if h&HAtomicAckETH != 0 {
		b = binary.BigEndian.AppendUint64(b, p.AtomicAck.OrigData)
	}
	if h&HImmDt != 0 {
		b = binary.BigEndian.AppendUint32(b, p.ImmDt)
	}
	if h&HIETH != 0 {
		b = binary.BigEndian.AppendUint32(b, p.IETH)
	}
	if h&HCNPPad != 0 {
		b = append(b, make([]byte, CNPPadLen)...)
	}
	b = append(b, p.Payload...)
	b = append(b, make([]byte, pad)...)
	return b, nil
}

func (h *BTH) append(b []byte) []byte {
	b1 := h.PadCnt&3<<4 | h.TVer&0xF
	if h.SolicitedEvent {
		b1 |= 0x80
	}
	if h.MigReq {
		b1 |= 0x40
	}
	b4 := h.Resv6 & 0x3F
	if h.FECN {
		b4 |= 0x80
	}
	if h.BECN {
		b4 |= 0x40
	}
	b8 := h.Resv7 & 0x7F
	if h.AckReq {
		b8 |= 0x80
	}
	return append(b, byte(h.Opcode), b1, byte(h.PKey>>8), byte(h.PKey),
		b4, byte(h.DestQP>>16), byte(h.DestQP>>8), byte(h.DestQP),
		b8, byte(h.PSN>>16), byte(h.PSN>>8), byte(h.PSN))
}

// Encode appends the complete UDP payload of p (headers, payload, pad and
// ICRC) to b. env describes the IP and UDP headers the packet will travel in.
func Encode(b []byte, env *Envelope, p *Packet) ([]byte, error) {
	var h Hasher
	return h.Encode(b, env, p)
}

// Encode is the allocation-free form of the package-level Encode.
func (h *Hasher) Encode(b []byte, env *Envelope, p *Packet) ([]byte, error) {
	start := len(b)
	b, err := p.AppendHeaders(b)
	if err != nil {
		return b, err
	}
	p.ICRC = h.ICRC(env, b[start:])
	return binary.LittleEndian.AppendUint32(b, p.ICRC), nil
}

// Decode parses a UDP payload (BTH through ICRC) into p. It checks structure
// only; verify the ICRC with VerifyICRC, which needs the IP header.
// p.Payload aliases b.
func Decode(b []byte, p *Packet) error {
	*p = Packet{}
	if len(b) < BTHLen+ICRCLen {
		return truncated("BTH+ICRC", 0, BTHLen+ICRCLen, len(b))
	}
	p.BTH = parseBTH(b)
	h := &p.BTH
	if h.TVer != 0 {
		return &Error{Kind: ErrBadVersion, Detail: "BTH TVer " + strconv.Itoa(int(h.TVer))}
	}
	info, ok := h.Opcode.Info()
	if !ok {
		return &Error{Kind: ErrUnknownOpcode, Detail: h.Opcode.String()}
	}
	end := len(b) - ICRCLen
	p.ICRC = binary.LittleEndian.Uint32(b[end:])
	off := BTHLen
	need := func(what string, n int) error {
		if end-off < n {
			return truncated(what, off, n, end-off)
		}
		return nil
	}
	hs := info.Headers
	if hs&HRDETH != 0 {
		if err := need("RDETH", RDETHLen); err != nil {
			return err
		}
		p.RDETH.EEContext = binary.BigEndian.Uint32(b[off:]) & psnMask
		off += RDETHLen
	}
	if hs&HDETH != 0 {
		if err := need("DETH", DETHLen); err != nil {
			return err
		}
		p.DETH.QKey = binary.BigEndian.Uint32(b[off:])
		p.DETH.SrcQP = binary.BigEndian.Uint32(b[off+4:]) & psnMask
		off += DETHLen
	}
	if hs&HXRCETH != 0 {
		if err := need("XRCETH", XRCETHLen); err != nil {
			return err
		}
		p.XRCETH.XRCSRQ = binary.BigEndian.Uint32(b[off:]) & psnMask
		off += XRCETHLen
	}
	if hs&HFETH != 0 {
		if err := need("FETH", FETHLen); err != nil {
			return err
		}
		v := binary.BigEndian.Uint32(b[off:])
		p.FETH.Selectivity = uint8(v>>4) & 3
		p.FETH.Placement = uint8(v) & 0xF
		off += FETHLen
	}
	if hs&HRETH != 0 {
		if err := need("RETH", RETHLen); err != nil {
			return err
		}
		p.RETH.VA = binary.BigEndian.Uint64(b[off:])
		p.RETH.RKey = binary.BigEndian.Uint32(b[off+8:])
		p.RETH.DMALength = binary.BigEndian.Uint32(b[off+12:])
		off += RETHLen
	}
	if hs&HAtomicETH != 0 {
		if err := need("AtomicETH", AtomicETHLen); err != nil {
			return err
		}
		p.AtomicETH.VA = binary.BigEndian.Uint64(b[off:])
		p.AtomicETH.RKey = binary.BigEndian.Uint32(b[off+8:])
		p.AtomicETH.SwapAdd = binary.BigEndian.Uint64(b[off+12:])
		p.AtomicETH.Compare = binary.BigEndian.Uint64(b[off+20:])
		off += AtomicETHLen
	}
	if hs&HAETH != 0 {
		if err := need("AETH", AETHLen); err != nil {
			return err
		}
		v := binary.BigEndian.Uint32(b[off:])
		p.AETH.Syndrome = uint8(v >> 24)
		p.AETH.MSN = v & psnMask
		off += AETHLen
	}
	if hs&HAtomicAckETH != 0 {
		if err := need("AtomicAckETH", AtomicAckETHLen); err != nil {
			return err
		}
		p.AtomicAck.OrigData = binary.BigEndian.Uint64(b[off:])
		off += AtomicAckETHLen
	}
	if hs&HImmDt != 0 {
		if err := need("ImmDt", ImmDtLen); err != nil {
			return err
		}
		p.ImmDt = binary.BigEndian.Uint32(b[off:])
		off += ImmDtLen
	}
	if hs&HIETH != 0 {
		if err := need("IETH", IETHLen); err != nil {
			return err
		}
		p.IETH = binary.BigEndian.Uint32(b[off:])
		off += IETHLen
	}
	if hs&HCNPPad != 0 {
		if err := need("CNP reserved bytes", CNPPadLen); err != nil {
			return err
		}
		off += CNPPadLen
	}
	rest := b[off:end]
	if !info.Payload {
		if len(rest) != 0 || h.PadCnt != 0 {
			return &Error{Kind: ErrMalformed, Detail: info.Name + " carries " + strconv.Itoa(len(rest)) +
				" payload bytes, pad " + strconv.Itoa(int(h.PadCnt))}
		}
		return nil
	}
	if int(h.PadCnt) > len(rest) {
		return &Error{Kind: ErrMalformed, Detail: "PadCnt " + strconv.Itoa(int(h.PadCnt)) +
			" exceeds the " + strconv.Itoa(len(rest)) + " payload bytes"}
	}
	if len(rest)&3 != 0 {
		return &Error{Kind: ErrMalformed, Detail: "payload plus pad is " + strconv.Itoa(len(rest)) +
			" bytes, not a multiple of 4"}
	}
	p.Payload = rest[:len(rest)-int(h.PadCnt)]
	return nil
}

// PeekBTH decodes only the BTH, for fast filtering before a full decode.
func PeekBTH(b []byte) (BTH, error) {
	if len(b) < BTHLen+ICRCLen {
		return BTH{}, truncated("BTH+ICRC", 0, BTHLen+ICRCLen, len(b))
	}
	return parseBTH(b), nil
}

func parseBTH(b []byte) BTH {
	return BTH{
		Opcode:         Opcode(b[0]),
		SolicitedEvent: b[1]&0x80 != 0,
		MigReq:         b[1]&0x40 != 0,
		PadCnt:         b[1] >> 4 & 3,
		TVer:           b[1] & 0xF,
		PKey:           binary.BigEndian.Uint16(b[2:]),
		FECN:           b[4]&0x80 != 0,
		BECN:           b[4]&0x40 != 0,
		Resv6:          b[4] & 0x3F,
		DestQP:         binary.BigEndian.Uint32(b[4:]) & psnMask,
		AckReq:         b[8]&0x80 != 0,
		Resv7:          b[8] & 0x7F,
		PSN:            binary.BigEndian.Uint32(b[8:]) & psnMask,
	}
}
