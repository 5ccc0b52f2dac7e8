package wire

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func readVector(t testing.TB, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "vectors", name))
	if err != nil {
		t.Fatal(err)
	}
	b, err := hex.DecodeString(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The three published vectors of roce-wire.md §4, checked end to end: the
// ICRC we compute, the fields we decode, and a byte-identical re-encode.
func TestPublishedVectors(t *testing.T) {
	tests := []struct {
		file     string
		icrcWire string // last 4 bytes as they appear on the wire
		opcode   Opcode
		destQP   uint32
		psn      uint32
		becn     bool
		padCnt   uint8
		payload  int
		tos      uint8
	}{
		{"ipv4_uc_send_only.hex", "78f353f3", UC | SendOnly, 0xd3, 0xcf1710, false, 2, 18, 0x01},
		{"cx4lx_cnp.hex", "82fd002a", OpCNP, 0x118, 0, true, 0, 0, 0xc2},
		{"ipv6_uc_send_only.hex", "3e5b743b", UC | SendOnly, 0xd3, 0xcf1710, false, 2, 18, 0xe2},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			pkt := readVector(t, tc.file)
			computed, carried, info, err := ICRCOfIPPacket(pkt)
			if err != nil {
				t.Fatal(err)
			}
			var wireICRC [4]byte
			binary.LittleEndian.PutUint32(wireICRC[:], computed)
			if got := hex.EncodeToString(wireICRC[:]); got != tc.icrcWire {
				t.Fatalf("computed ICRC on the wire = %s, want %s", got, tc.icrcWire)
			}
			if computed != carried {
				t.Fatalf("computed %08x, packet carries %08x", computed, carried)
			}
			var p Packet
			info, err = DecodeIP(pkt, &p)
			if err != nil {
				t.Fatal(err)
			}
			if p.BTH.Opcode != tc.opcode || p.BTH.DestQP != tc.destQP || p.BTH.PSN != tc.psn ||
				p.BTH.BECN != tc.becn || p.BTH.PadCnt != tc.padCnt || len(p.Payload) != tc.payload ||
				p.BTH.PKey != 0xFFFF || info.TOS != tc.tos || info.DstPort != UDPPort {
				t.Fatalf("decoded %+v payload %d, info %+v", p.BTH, len(p.Payload), info)
			}
			// Re-encode from the decoded fields and the IP header's envelope.
			env := info.Envelope
			got, err := Encode(nil, &env, &p)
			if err != nil {
				t.Fatal(err)
			}
			hl := IPOverhead(info.Src)
			if want := pkt[hl:]; !bytes.Equal(got, want) {
				t.Fatalf("re-encoded\n %x\nwant\n %x", got, want)
			}
			if err := VerifyICRC(&env, got); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Masked fields may change in flight without breaking the ICRC; unmasked
// ones must break it (roce-wire.md §4 "Not masked").
func TestICRCMasking(t *testing.T) {
	v4 := readVector(t, "ipv4_uc_send_only.hex")
	v6 := readVector(t, "ipv6_uc_send_only.hex")
	tests := []struct {
		name   string
		pkt    []byte
		mutate func(b []byte)
		ok     bool
	}{
		{"v4 TOS (DSCP remark, ECN CE)", v4, func(b []byte) { b[1] = 0x23 }, true},
		{"v4 TTL", v4, func(b []byte) { b[8]-- }, true},
		{"v4 header checksum", v4, func(b []byte) { b[10] ^= 0x5a }, true},
		{"v4 UDP checksum", v4, func(b []byte) { b[26] ^= 0xff }, true},
		{"BTH FECN/BECN byte", v4, func(b []byte) { b[28+4] |= 0xC0 }, true},
		{"v4 identification", v4, func(b []byte) { b[5]++ }, false},
		{"v4 DF flag", v4, func(b []byte) { b[6] ^= 0x40 }, false},
		{"v4 source address", v4, func(b []byte) { b[15]++ }, false},
		{"UDP source port", v4, func(b []byte) { b[21]++ }, false},
		{"BTH P_Key", v4, func(b []byte) { b[28+3] = 0xfe }, false},
		{"BTH DestQP", v4, func(b []byte) { b[28+7]++ }, false},
		{"BTH AckReq", v4, func(b []byte) { b[28+8] |= 0x80 }, false},
		{"payload byte", v4, func(b []byte) { b[45] ^= 1 }, false},
		{"v6 traffic class and flow label", v6, func(b []byte) { b[0], b[1], b[2], b[3] = 0x60, 0x0f, 0x12, 0x34 }, true},
		{"v6 hop limit", v6, func(b []byte) { b[7] = 1 }, true},
		{"v6 destination", v6, func(b []byte) { b[39]++ }, false},
		{"v6 source", v6, func(b []byte) { b[8] ^= 0x80 }, false},
		{"v6 UDP destination port", v6, func(b []byte) { b[43]++ }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := append([]byte(nil), tc.pkt...)
			tc.mutate(b)
			var p Packet
			_, err := DecodeIP(b, &p)
			if tc.ok && err != nil {
				t.Fatalf("masked field broke the ICRC: %v", err)
			}
			if !tc.ok && !errors.Is(err, ErrBadICRC) {
				t.Fatalf("unmasked change not detected, err = %v", err)
			}
		})
	}
}

func TestCRCAfterLRHConstant(t *testing.T) {
	if got := crc32.ChecksumIEEE(bytes.Repeat([]byte{0xFF}, 8)); got != crcAfterLRH {
		t.Fatalf("crc32(8×0xFF) = %08x, want %08x", got, crcAfterLRH)
	}
	if crcAfterLRH^0xFFFFFFFF != 0xdebb20e3 {
		t.Fatal("seed does not match rxe's 0xdebb20e3")
	}
}

// The opcode table is checked against roce-wire.md §3 written out by hand,
// so a wrong row in the table fails here rather than round-tripping quietly.
func TestOpcodeTableMatchesSpec(t *testing.T) {
	spec := map[Opcode]Headers{
		0x00: 0, 0x01: 0, 0x02: 0, 0x03: HImmDt, 0x04: 0, 0x05: HImmDt,
		0x06: HRETH, 0x07: 0, 0x08: 0, 0x09: HImmDt, 0x0A: HRETH, 0x0B: HRETH | HImmDt,
		0x0C: HRETH, 0x0D: HAETH, 0x0E: 0, 0x0F: HAETH, 0x10: HAETH, 0x11: HAETH,
		0x12: HAETH | HAtomicAckETH, 0x13: HAtomicETH, 0x14: HAtomicETH,
		0x16: HIETH, 0x17: HIETH, 0x1C: HFETH | HRETH, 0x1D: HRETH,
		0x20: 0, 0x23: HImmDt, 0x24: 0, 0x26: HRETH, 0x2A: HRETH, 0x2B: HRETH | HImmDt,
		0x64: HDETH, 0x65: HDETH | HImmDt,
		0x81: HCNPPad,
		0x44: HRDETH | HDETH, 0x4C: HRDETH | HDETH | HRETH, 0x51: HRDETH | HAETH,
		0xA4: HXRCETH, 0xAC: HXRCETH | HRETH, 0xB1: HAETH,
	}
	for op, want := range spec {
		info, ok := op.Info()
		if !ok {
			t.Errorf("0x%02x missing from the table", uint8(op))
			continue
		}
		if info.Headers != want {
			t.Errorf("0x%02x %s: headers %b, want %b", uint8(op), info.Name, info.Headers, want)
		}
	}
	for _, op := range []Opcode{0x15, 0x18, 0x1E, 0x1F, 0x2C, 0x35, 0x60, 0x66, 0x80, 0x82, 0xB5, 0xC0, 0xE0, 0xFF} {
		if op.Known() {
			t.Errorf("0x%02x should not be in the table", uint8(op))
		}
	}
	noPayload := []Opcode{0x0C, 0x11, 0x12, 0x13, 0x14, 0x1C, 0x81}
	for _, op := range noPayload {
		if info, _ := op.Info(); info.Payload {
			t.Errorf("%s must not carry payload", info.Name)
		}
	}
	if n := len(AllOpcodes()); n < 80 {
		t.Errorf("table has %d opcodes, expected RC, UC, RD, UD, XRC and CNP", n)
	}
}

// fullPacket sets every field to a distinct non-zero value within its width.
func fullPacket(op Opcode, payload int) Packet {
	p := Packet{
		BTH: BTH{Opcode: op, SolicitedEvent: true, MigReq: true, PKey: 0x8123, FECN: true, BECN: true,
			Resv6: 0x15, DestQP: 0xABCDEF, AckReq: true, Resv7: 0x2A, PSN: 0x123456},
		RDETH:     RDETH{EEContext: 0x00AB12},
		DETH:      DETH{QKey: 0x80010002, SrcQP: 0x0F0E0D},
		XRCETH:    XRCETH{XRCSRQ: 0x123ABC},
		FETH:      FETH{Selectivity: 2, Placement: 0xA},
		RETH:      RETH{VA: 0x1122334455667788, RKey: 0xDEADBEEF, DMALength: 4096},
		AtomicETH: AtomicETH{VA: 0x0102030405060708, RKey: 0xCAFEF00D, SwapAdd: 0x1111222233334444, Compare: 0x5555666677778888},
		AETH:      AETH{Syndrome: 0x1F, MSN: 0x654321},
		AtomicAck: AtomicAckETH{OrigData: 0x99AABBCCDDEEFF00},
		ImmDt:     0x01020304,
		IETH:      0x0A0B0C0D,
	}
	if payload > 0 {
		p.Payload = make([]byte, payload)
		for i := range p.Payload {
			p.Payload[i] = byte(i*7 + 1)
		}
	}
	return p
}

// onlyPresent zeroes the fields of headers the opcode does not carry, which
// is what a decoder must return.
func onlyPresent(p Packet) Packet {
	info, _ := p.BTH.Opcode.Info()
	h := info.Headers
	if h&HRDETH == 0 {
		p.RDETH = RDETH{}
	}
	if h&HDETH == 0 {
		p.DETH = DETH{}
	}
	if h&HXRCETH == 0 {
		p.XRCETH = XRCETH{}
	}
	if h&HFETH == 0 {
		p.FETH = FETH{}
	}
	if h&HRETH == 0 {
		p.RETH = RETH{}
	}
	if h&HAtomicETH == 0 {
		p.AtomicETH = AtomicETH{}
	}
	if h&HAETH == 0 {
		p.AETH = AETH{}
	}
	if h&HAtomicAckETH == 0 {
		p.AtomicAck = AtomicAckETH{}
	}
	if h&HImmDt == 0 {
		p.ImmDt = 0
	}
	if h&HIETH == 0 {
		p.IETH = 0
	}
	return p
}

var (
	env4 = Envelope{Src: netip.MustParseAddr("192.0.2.1"), Dst: netip.MustParseAddr("198.51.100.1"),
		SrcPort: 50001, DstPort: UDPPort, DontFragment: true}
	env6 = Envelope{Src: netip.MustParseAddr("2001:db8:a::1"), Dst: netip.MustParseAddr("2001:db8:b::1"),
		SrcPort: 65535, DstPort: UDPPort}
)

// buildIP wraps a UDP payload in a minimal IPv4 or IPv6 + UDP header.
func buildIP(env Envelope, tos uint8, udpPayload []byte) []byte {
	udpLen := 8 + len(udpPayload)
	var b []byte
	if env.Src.Is4() {
		s, d := env.Src.As4(), env.Dst.As4()
		b = []byte{0x45, tos, 0, 0, 0, 0, 0, 0, 64, 17, 0, 0}
		binary.BigEndian.PutUint16(b[2:], uint16(20+udpLen))
		binary.BigEndian.PutUint16(b[4:], env.IPv4ID)
		if env.DontFragment {
			b[6] = 0x40
		}
		b = append(append(b, s[:]...), d[:]...)
	} else {
		s, d := env.Src.As16(), env.Dst.As16()
		b = make([]byte, 8)
		binary.BigEndian.PutUint32(b, 6<<28|uint32(tos)<<20|0x12345)
		binary.BigEndian.PutUint16(b[4:], uint16(udpLen))
		b[6], b[7] = 17, 64
		b = append(append(b, s[:]...), d[:]...)
	}
	b = binary.BigEndian.AppendUint16(b, env.SrcPort)
	b = binary.BigEndian.AppendUint16(b, env.DstPort)
	b = binary.BigEndian.AppendUint16(b, uint16(udpLen))
	b = append(b, 0, 0)
	return append(b, udpPayload...)
}

// Every opcode in the table survives encode → decode, over IPv4 and IPv6,
// with each pad length.
func TestRoundTripEveryOpcode(t *testing.T) {
	for _, op := range AllOpcodes() {
		info, _ := op.Info()
		sizes := []int{0}
		if info.Payload {
			sizes = []int{0, 1, 2, 3, 4, 61, 1024}
		}
		for _, env := range []Envelope{env4, env6} {
			for _, size := range sizes {
				name := info.Name + "/" + env.Src.String() + "/" + strconv.Itoa(size)
				t.Run(name, func(t *testing.T) {
					in := fullPacket(op, size)
					enc, err := Encode(nil, &env, &in)
					if err != nil {
						t.Fatal(err)
					}
					if len(enc) != in.Len() {
						t.Fatalf("encoded %d bytes, Len() says %d", len(enc), in.Len())
					}
					if len(enc)%4 != 0 {
						t.Fatalf("encoded length %d is not 4-byte aligned", len(enc))
					}
					if err := VerifyICRC(&env, enc); err != nil {
						t.Fatal(err)
					}
					var out Packet
					if err := Decode(enc, &out); err != nil {
						t.Fatal(err)
					}
					want := onlyPresent(in)
					want.BTH.PadCnt = uint8(PadLen(size))
					if size == 0 {
						want.Payload, out.Payload = nil, nil
					}
					if !reflect.DeepEqual(out, want) {
						t.Fatalf("round trip differs:\n got  %+v\n want %+v", out, want)
					}
					// Through a whole IP packet too, with a TOS that must not matter.
					var viaIP Packet
					if _, err := DecodeIP(buildIP(env, 0x6B, enc), &viaIP); err != nil {
						t.Fatal(err)
					}
					if viaIP.BTH != out.BTH || viaIP.ICRC != out.ICRC {
						t.Fatalf("DecodeIP differs from Decode: %+v vs %+v", viaIP.BTH, out.BTH)
					}
				})
			}
		}
	}
}

func TestCNPEncoding(t *testing.T) {
	// Rebuild the ConnectX-4 Lx CNP from fields alone and compare bytes.
	pkt := readVector(t, "cx4lx_cnp.hex")
	env := Envelope{Src: netip.MustParseAddr("10.0.17.1"), Dst: netip.MustParseAddr("10.0.18.1"),
		SrcPort: 0, DstPort: UDPPort, IPv4ID: 0x718c, DontFragment: true}
	cnp := Packet{BTH: BTH{Opcode: OpCNP, PKey: 0xFFFF, BECN: true, DestQP: 0x118}}
	got, err := Encode(nil, &env, &cnp)
	if err != nil {
		t.Fatal(err)
	}
	if want := pkt[28:]; !bytes.Equal(got, want) {
		t.Fatalf("CNP\n got  %x\n want %x", got, want)
	}
	if len(got) != 32 { // UDP length 40 minus the UDP header
		t.Fatalf("CNP is %d bytes, want 32", len(got))
	}
}

func TestDecodeErrors(t *testing.T) {
	good, err := Encode(nil, &env4, &Packet{BTH: BTH{Opcode: OpRCReadRequest, PKey: 0xFFFF}, RETH: RETH{DMALength: 8}})
	if err != nil {
		t.Fatal(err)
	}
	ack, _ := Encode(nil, &env4, &Packet{BTH: BTH{Opcode: OpRCAcknowledge}})
	send, _ := Encode(nil, &env4, &Packet{BTH: BTH{Opcode: OpRCSendOnly}, Payload: []byte{1, 2, 3, 4, 5, 6, 7, 8}})
	with := func(b []byte, f func([]byte) []byte) []byte { return f(append([]byte(nil), b...)) }
	tests := []struct {
		name string
		in   []byte
		want error
	}{
		{"empty", nil, ErrTruncated},
		{"BTH only, no ICRC", good[:12], ErrTruncated},
		{"RETH cut short", append(append([]byte(nil), good[:20]...), 0, 0, 0, 0), ErrTruncated},
		{"TVer 1", with(good, func(b []byte) []byte { b[1] |= 1; return b }), ErrBadVersion},
		{"reserved opcode 0x1E", with(good, func(b []byte) []byte { b[0] = 0x1E; return b }), ErrUnknownOpcode},
		{"manufacturer opcode 0xE0", with(good, func(b []byte) []byte { b[0] = 0xE0; return b }), ErrUnknownOpcode},
		{"payload on an ACK", with(ack, func(b []byte) []byte { return append(b[:16], 0, 0, 0, 0, 1, 2, 3, 4) }), ErrMalformed},
		{"pad on an ACK", with(ack, func(b []byte) []byte { b[1] |= 0x10; return b }), ErrMalformed},
		{"PadCnt larger than payload", with(send[:12], func(b []byte) []byte { b[1] |= 0x30; return append(b, 1, 2, 3, 4) }), ErrMalformed},
		{"unaligned payload", with(send, func(b []byte) []byte { return append(b[:13], 0, 0, 0, 0) }), ErrMalformed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var p Packet
			err := Decode(tc.in, &p)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			var we *Error
			if !errors.As(err, &we) || !strings.HasPrefix(err.Error(), "roce: ") {
				t.Fatalf("error %q is not a *wire.Error", err)
			}
		})
	}
}

func TestEncodeRejects(t *testing.T) {
	_, err := Encode(nil, &env4, &Packet{BTH: BTH{Opcode: 0x1E}})
	if !errors.Is(err, ErrUnknownOpcode) {
		t.Errorf("unknown opcode: %v", err)
	}
	_, err = Encode(nil, &env4, &Packet{BTH: BTH{Opcode: OpRCAcknowledge}, Payload: []byte{1}})
	if !errors.Is(err, ErrMalformed) {
		t.Errorf("payload on ACK: %v", err)
	}
}

func TestDecodeIPRejectsNonRoCE(t *testing.T) {
	send, _ := Encode(nil, &env4, &Packet{BTH: BTH{Opcode: OpRCSendOnly}, Payload: []byte{1, 2, 3, 4}})
	ip := buildIP(env4, 0, send)
	tcp := append([]byte(nil), ip...)
	tcp[9] = 6
	frag := append([]byte(nil), ip...)
	frag[7] = 1
	v5 := append([]byte(nil), ip...)
	v5[0] = 0x55
	short := ip[:30]
	for name, tc := range map[string]struct {
		b    []byte
		want error
	}{
		"tcp": {tcp, ErrNotRoCE}, "fragment": {frag, ErrNotRoCE}, "version 5": {v5, ErrBadVersion}, "short": {short, ErrTruncated},
	} {
		var p Packet
		if _, err := DecodeIP(tc.b, &p); !errors.Is(err, tc.want) {
			t.Errorf("%s: err = %v, want %v", name, err, tc.want)
		}
	}
}
