package wire

import "strconv"

// Opcode is the BTH OpCode: a transport prefix (top 3 bits) and an operation.
type Opcode uint8

// Transport prefixes (roce-wire.md §3).
const (
	RC  Opcode = 0x00
	UC  Opcode = 0x20
	RD  Opcode = 0x40
	UD  Opcode = 0x60
	CNx Opcode = 0x80 // congestion notification
	XRC Opcode = 0xA0
)

// Operations, combined with a transport prefix (e.g. RC|SendOnly).
const (
	SendFirst              Opcode = 0x00
	SendMiddle             Opcode = 0x01
	SendLast               Opcode = 0x02
	SendLastImm            Opcode = 0x03
	SendOnly               Opcode = 0x04
	SendOnlyImm            Opcode = 0x05
	WriteFirst             Opcode = 0x06
	WriteMiddle            Opcode = 0x07
	WriteLast              Opcode = 0x08
	WriteLastImm           Opcode = 0x09
	WriteOnly              Opcode = 0x0A
	WriteOnlyImm           Opcode = 0x0B
	ReadRequest            Opcode = 0x0C
	ReadResponseFirst      Opcode = 0x0D
	ReadResponseMiddle     Opcode = 0x0E
	ReadResponseLast       Opcode = 0x0F
	ReadResponseOnly       Opcode = 0x10
	Acknowledge            Opcode = 0x11
	AtomicAcknowledge      Opcode = 0x12
	CompareSwap            Opcode = 0x13
	FetchAdd               Opcode = 0x14
	Resync                 Opcode = 0x15 // RD only
	SendLastInvalidate     Opcode = 0x16
	SendOnlyInvalidate     Opcode = 0x17
	Flush                  Opcode = 0x1C
	AtomicWrite            Opcode = 0x1D
	CongestionNotify       Opcode = 0x01 // with the CNx prefix
	opMask                 Opcode = 0x1F
	transportMask          Opcode = 0xE0
	OpCNP                         = CNx | CongestionNotify // 0x81
	OpRCSendOnly                  = RC | SendOnly
	OpRCWriteOnly                 = RC | WriteOnly
	OpRCReadRequest               = RC | ReadRequest
	OpRCAcknowledge               = RC | Acknowledge
	OpRCReadResponseOnly          = RC | ReadResponseOnly
	OpRCReadResponseFirst         = RC | ReadResponseFirst
	OpRCReadResponseMiddle        = RC | ReadResponseMiddle
	OpRCReadResponseLast          = RC | ReadResponseLast
	OpUDSendOnly                  = UD | SendOnly
	OpUCSendOnly                  = UC | SendOnly
)

// Headers is the set of extension headers that follow the BTH.
type Headers uint16

// Extension headers, in wire order: a packet carries them in this order.
const (
	HRDETH Headers = 1 << iota
	HDETH
	HXRCETH
	HFETH
	HRETH
	HAtomicETH
	HAETH
	HAtomicAckETH
	HImmDt
	HIETH
	HCNPPad // the 16 reserved bytes after a CNP's BTH
)

// Header sizes in bytes.
const (
	BTHLen          = 12
	RDETHLen        = 4
	DETHLen         = 8
	XRCETHLen       = 4
	FETHLen         = 4
	RETHLen         = 16
	AtomicETHLen    = 28
	AETHLen         = 4
	AtomicAckETHLen = 8
	ImmDtLen        = 4
	IETHLen         = 4
	CNPPadLen       = 16
	ICRCLen         = 4
)

// Class says what role a packet plays in a reliable exchange.
type Class uint8

const (
	ClassRequest  Class = iota + 1 // SEND, WRITE, READ request, atomics, FLUSH
	ClassResponse                  // ACK, READ responses, atomic ACK
	ClassCNP                       // congestion notification
)

// OpcodeInfo describes one opcode from the table in roce-wire.md §3.
type OpcodeInfo struct {
	Name    string
	Headers Headers
	Payload bool // may carry payload bytes after the headers
	Class   Class
}

type opDef struct {
	name    string
	headers Headers
	payload bool
	class   Class
}

// operations lists the operation half of each opcode as RC defines it; the
// other transports reuse the rows they support and add their own headers.
var operations = [32]opDef{
	SendFirst:          {"SEND First", 0, true, ClassRequest},
	SendMiddle:         {"SEND Middle", 0, true, ClassRequest},
	SendLast:           {"SEND Last", 0, true, ClassRequest},
	SendLastImm:        {"SEND Last with Immediate", HImmDt, true, ClassRequest},
	SendOnly:           {"SEND Only", 0, true, ClassRequest},
	SendOnlyImm:        {"SEND Only with Immediate", HImmDt, true, ClassRequest},
	WriteFirst:         {"RDMA WRITE First", HRETH, true, ClassRequest},
	WriteMiddle:        {"RDMA WRITE Middle", 0, true, ClassRequest},
	WriteLast:          {"RDMA WRITE Last", 0, true, ClassRequest},
	WriteLastImm:       {"RDMA WRITE Last with Immediate", HImmDt, true, ClassRequest},
	WriteOnly:          {"RDMA WRITE Only", HRETH, true, ClassRequest},
	WriteOnlyImm:       {"RDMA WRITE Only with Immediate", HRETH | HImmDt, true, ClassRequest},
	ReadRequest:        {"RDMA READ Request", HRETH, false, ClassRequest},
	ReadResponseFirst:  {"RDMA READ Response First", HAETH, true, ClassResponse},
	ReadResponseMiddle: {"RDMA READ Response Middle", 0, true, ClassResponse},
	ReadResponseLast:   {"RDMA READ Response Last", HAETH, true, ClassResponse},
	ReadResponseOnly:   {"RDMA READ Response Only", HAETH, true, ClassResponse},
	Acknowledge:        {"Acknowledge", HAETH, false, ClassResponse},
	AtomicAcknowledge:  {"ATOMIC Acknowledge", HAETH | HAtomicAckETH, false, ClassResponse},
	CompareSwap:        {"CmpSwap", HAtomicETH, false, ClassRequest},
	FetchAdd:           {"FetchAdd", HAtomicETH, false, ClassRequest},
	Resync:             {"RESYNC", 0, false, ClassRequest},
	SendLastInvalidate: {"SEND Last with Invalidate", HIETH, true, ClassRequest},
	SendOnlyInvalidate: {"SEND Only with Invalidate", HIETH, true, ClassRequest},
	Flush:              {"FLUSH", HFETH | HRETH, false, ClassRequest},
	AtomicWrite:        {"ATOMIC WRITE", HRETH, true, ClassRequest},
}

func rangeOps(first, last Opcode) []Opcode {
	var ops []Opcode
	for o := first; o <= last; o++ {
		ops = append(ops, o)
	}
	return ops
}

// buildTable assembles the 256-entry table once; it is never written after.
func buildTable() [256]OpcodeInfo {
	var t [256]OpcodeInfo
	add := func(prefix Opcode, tname string, extra func(op Opcode, d opDef) Headers, ops ...Opcode) {
		for _, op := range ops {
			d := operations[op]
			t[prefix|op] = OpcodeInfo{Name: tname + " " + d.name, Headers: d.headers | extra(op, d), Payload: d.payload, Class: d.class}
		}
	}
	none := func(Opcode, opDef) Headers { return 0 }
	// RC: everything but RESYNC.
	add(RC, "RC", none, append(rangeOps(SendFirst, FetchAdd), SendLastInvalidate, SendOnlyInvalidate, Flush, AtomicWrite)...)
	// UC: SEND and WRITE only.
	add(UC, "UC", none, rangeOps(SendFirst, WriteOnlyImm)...)
	// RD: RDETH on every packet, DETH on requests.
	add(RD, "RD", func(op Opcode, d opDef) Headers {
		if d.class == ClassRequest {
			return HRDETH | HDETH
		}
		return HRDETH
	}, rangeOps(SendFirst, Resync)...)
	// UD: SEND Only (with Immediate) with a DETH.
	add(UD, "UD", func(Opcode, opDef) Headers { return HDETH }, SendOnly, SendOnlyImm)
	// XRC: XRCETH on requests.
	add(XRC, "XRC", func(op Opcode, d opDef) Headers {
		if d.class == ClassRequest {
			return HXRCETH
		}
		return 0
	}, append(rangeOps(SendFirst, FetchAdd), SendLastInvalidate, SendOnlyInvalidate)...)
	t[OpCNP] = OpcodeInfo{Name: "CNP", Headers: HCNPPad, Class: ClassCNP}
	return t
}

var opcodeTable = buildTable()

// Info describes an opcode; ok is false for opcodes outside the table
// (reserved and manufacturer-specific codes).
func (o Opcode) Info() (info OpcodeInfo, ok bool) {
	info = opcodeTable[o]
	return info, info.Name != ""
}

// Known reports whether the opcode is in the table.
func (o Opcode) Known() bool { return opcodeTable[o].Name != "" }

// Transport is the prefix (RC, UC, RD, UD, CNx, XRC).
func (o Opcode) Transport() Opcode { return o & transportMask }

// Operation is the opcode without its transport prefix.
func (o Opcode) Operation() Opcode { return o & opMask }

// Class returns the role of the opcode, or 0 when unknown.
func (o Opcode) Class() Class { return opcodeTable[o].Class }

func (o Opcode) String() string {
	if n := opcodeTable[o].Name; n != "" {
		return n
	}
	return "opcode 0x" + strconv.FormatUint(uint64(o), 16)
}

// AllOpcodes lists every opcode in the table in numeric order.
func AllOpcodes() []Opcode {
	var ops []Opcode
	for i := range opcodeTable {
		if opcodeTable[i].Name != "" {
			ops = append(ops, Opcode(i))
		}
	}
	return ops
}

// Len returns the total size of the given extension headers.
func (h Headers) Len() int {
	n := 0
	for _, hs := range headerSizes {
		if h&hs.h != 0 {
			n += hs.n
		}
	}
	return n
}

var headerSizes = [...]struct {
	h Headers
	n int
}{
	{HRDETH, RDETHLen}, {HDETH, DETHLen}, {HXRCETH, XRCETHLen}, {HFETH, FETHLen},
	{HRETH, RETHLen}, {HAtomicETH, AtomicETHLen}, {HAETH, AETHLen},
	{HAtomicAckETH, AtomicAckETHLen}, {HImmDt, ImmDtLen}, {HIETH, IETHLen}, {HCNPPad, CNPPadLen},
}
