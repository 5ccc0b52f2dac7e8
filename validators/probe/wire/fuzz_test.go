package wire

import (
	"bytes"
	"reflect"
	"testing"
)

// FuzzDecode feeds arbitrary bytes to Decode (as a UDP payload) and DecodeIP
// (as an IP packet). Neither may panic, and whatever Decode accepts must
// re-encode to something that decodes to the same packet.
func FuzzDecode(f *testing.F) {
	// Seeds live in testdata/fuzz/FuzzDecode (the published vectors as IP
	// packets and as bare UDP payloads, plus one packet per header shape).
	f.Fuzz(func(t *testing.T, data []byte) {
		var ip Packet
		_, _ = DecodeIP(data, &ip)

		var p Packet
		if err := Decode(data, &p); err != nil {
			return
		}
		body, err := p.AppendHeaders(nil)
		if err != nil {
			t.Fatalf("decoded packet does not re-encode: %v (%+v)", err, p.BTH)
		}
		// Length is preserved: headers, payload and pad are all fixed by
		// the opcode and PadCnt.
		if len(body)+ICRCLen != len(data) {
			t.Fatalf("re-encoded %d+4 bytes from %d", len(body), len(data))
		}
		var again Packet
		if err := Decode(append(body, data[len(data)-ICRCLen:]...), &again); err != nil {
			t.Fatalf("re-encoded packet does not decode: %v", err)
		}
		if !bytes.Equal(p.Payload, again.Payload) {
			t.Fatalf("payload changed: %x vs %x", p.Payload, again.Payload)
		}
		p.Payload, again.Payload = nil, nil
		if !reflect.DeepEqual(p, again) {
			t.Fatalf("decode/encode/decode differs:\n%+v\n%+v", p, again)
		}
	})
}
