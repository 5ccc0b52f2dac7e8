package wire

import "testing"

// BenchmarkEncodeICRC is the sender's per-packet cost: a 64-byte RC SEND
// Only with AckReq, headers plus ICRC, into a reused buffer.
func BenchmarkEncodeICRC(b *testing.B) {
	for _, tc := range []struct {
		name string
		env  Envelope
		size int
	}{{"ipv4/64B", env4, 64}, {"ipv6/64B", env6, 64}, {"ipv4/4096B", env4, 4096}} {
		b.Run(tc.name, func(b *testing.B) {
			p := Packet{BTH: BTH{Opcode: OpRCSendOnly, PKey: 0xFFFF, DestQP: 0x11, AckReq: true}, Payload: make([]byte, tc.size)}
			buf := make([]byte, 0, 9000)
			var h Hasher
			b.SetBytes(int64(p.Len()))
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				p.BTH.PSN = uint32(i) & psnMask
				var err error
				if buf, err = h.Encode(buf[:0], &tc.env, &p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecodeVerify is the receiver's per-packet cost: decode and check
// the ICRC of a 64-byte SEND.
func BenchmarkDecodeVerify(b *testing.B) {
	p := Packet{BTH: BTH{Opcode: OpRCSendOnly, PKey: 0xFFFF, DestQP: 0x11, AckReq: true}, Payload: make([]byte, 64)}
	enc, err := Encode(nil, &env4, &p)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(enc)))
	b.ReportAllocs()
	var out Packet
	var h Hasher
	for b.Loop() {
		if err := Decode(enc, &out); err != nil {
			b.Fatal(err)
		}
		if err := h.Verify(&env4, enc); err != nil {
			b.Fatal(err)
		}
	}
}
