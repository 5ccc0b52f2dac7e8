package transport

import (
	"encoding/hex"
	"errors"
	"net/netip"
	"strings"
	"testing"
)

// Captured on the lab fabric (examples/lab): a raw ip4:icmp socket on h1
// after UDP 192.0.2.2:50000 -> 198.51.100.6:4791 with DSCP 26, ECT(0).
const (
	// TTL 1, answered by leaf1 from the port h1 is cabled to.
	capTimeExceeded = "0b00322200000000456a00580000400001118cefc0000202c6336406c35012b70044ec91" +
		"000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
	// An 8928-byte packet at TTL 3, leaf1's uplinks at MTU 1500.
	capFragNeeded = "0304ef31000005dc456a22e00000400003116867c0000202c6336406c35012b722cc0f1a" +
		"0000000000000000000000000000000000000000"
	// TTL 4 reached h4, where nothing listened on 4791.
	capPortUnreach = "03033a1f00000000456a00580000400001118cefc0000202c6336406c35012b70044ec91" +
		"0000000000000000"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// icmp6 builds an ICMPv6 error quoting a UDP datagram with traffic class tc.
func icmp6(typ, code uint8, word uint32, tc uint8, ext []byte) []byte {
	b := []byte{typ, code, 0, 0, byte(word >> 24), byte(word >> 16), byte(word >> 8), byte(word)}
	next := byte(17)
	if ext != nil {
		next = 60
	}
	ip := []byte{0x60 | tc>>4, tc << 4, 0, 0, 0, byte(8 + 12 + len(ext)), next, 1}
	src, dst := netip.MustParseAddr("2001:db8:a::1").As16(), netip.MustParseAddr("2001:db8:b::1").As16()
	ip = append(append(append(ip, src[:]...), dst[:]...), ext...)
	udp := []byte{0xc3, 0x50, 0x12, 0xb7, 0, 20, 0, 0}
	return append(append(append(b, ip...), udp...), make([]byte, 12)...)
}

func TestParseICMP(t *testing.T) {
	router := netip.MustParseAddr("192.0.2.1")
	r6 := netip.MustParseAddr("2001:db8:a::fe")
	for _, tc := range []struct {
		name  string
		v6    bool
		msg   []byte
		check func(*testing.T, ICMPError)
		err   string
	}{
		{name: "time exceeded", msg: unhex(t, capTimeExceeded), check: func(t *testing.T, e ICMPError) {
			q := e.Quote
			if !e.TimeExceeded() || e.TooBig() || e.Unreachable() || e.From != router {
				t.Errorf("%+v", e)
			}
			if q.TOS != 26<<2|2 || q.TTL != 1 || q.Length != 88 || q.SrcPort != 50000 || q.DstPort != 4791 {
				t.Errorf("quote %+v", q)
			}
			if q.Src != netip.MustParseAddr("192.0.2.2") || q.Dst != netip.MustParseAddr("198.51.100.6") || len(q.Payload) != 48 {
				t.Errorf("quote %s -> %s, %d payload bytes", q.Src, q.Dst, len(q.Payload))
			}
		}},
		{name: "fragmentation needed", msg: unhex(t, capFragNeeded), check: func(t *testing.T, e ICMPError) {
			if !e.TooBig() || !e.Unreachable() || e.MTU != 1500 || e.Quote.Length != 8928 || e.Quote.TTL != 3 {
				t.Errorf("%+v", e)
			}
		}},
		{name: "port unreachable", msg: unhex(t, capPortUnreach), check: func(t *testing.T, e ICMPError) {
			if !e.PortUnreachable() || e.TimeExceeded() || len(e.Quote.Payload) != 8 {
				t.Errorf("%+v", e)
			}
		}},
		{name: "RFC 4884 length bounds the quote", msg: func() []byte {
			b := unhex(t, capTimeExceeded)
			b[5] = 9 // 36 bytes of original datagram, then an extension
			return append(b, 0x20, 0, 0, 0, 0, 8, 1, 1, 0, 0, 0, 1)
		}(), check: func(t *testing.T, e ICMPError) {
			if len(e.Quote.Payload) != 36-28 {
				t.Errorf("payload %d bytes, want 8 (the rest is extensions)", len(e.Quote.Payload))
			}
		}},
		{name: "echo reply", msg: []byte{0, 0, 0, 0, 0, 1, 0, 1}, err: ErrNotICMPError.Error()},
		{name: "about TCP", msg: func() []byte { b := unhex(t, capTimeExceeded); b[8+9] = 6; return b }(), err: ErrNotICMPError.Error()},
		{name: "truncated header", msg: []byte{11, 0, 0}, err: "shorter than its header"},
		{name: "quote too short", msg: unhex(t, capTimeExceeded)[:8+20+4], err: "too few for the IPv4 and UDP headers"},
		{name: "quote not IPv4", msg: func() []byte { b := unhex(t, capTimeExceeded); b[8] = 0x65; return b }(), err: "quotes no IPv4 header"},
		{name: "v6 time exceeded", v6: true, msg: icmp6(3, 0, 0, 26<<2|2, nil), check: func(t *testing.T, e ICMPError) {
			q := e.Quote
			if !e.TimeExceeded() || !e.V6 || q.TOS != 26<<2|2 || q.SrcPort != 50000 || q.DstPort != 4791 || q.TTL != 1 || len(q.Payload) != 12 {
				t.Errorf("%+v", e)
			}
			if q.Src != netip.MustParseAddr("2001:db8:a::1") || q.Length != 40+20 {
				t.Errorf("quote %+v", q)
			}
		}},
		{name: "v6 packet too big", v6: true, msg: icmp6(2, 0, 1500, 0, nil), check: func(t *testing.T, e ICMPError) {
			if !e.TooBig() || e.MTU != 1500 || e.Unreachable() {
				t.Errorf("%+v", e)
			}
		}},
		{name: "v6 port unreachable", v6: true, msg: icmp6(1, 4, 0, 0, nil), check: func(t *testing.T, e ICMPError) {
			if !e.PortUnreachable() || !e.Unreachable() {
				t.Errorf("%+v", e)
			}
		}},
		{name: "v6 destination options before UDP", v6: true, msg: icmp6(3, 0, 0, 8, []byte{17, 0, 1, 4, 0, 0, 0, 0}), check: func(t *testing.T, e ICMPError) {
			if e.Quote.DstPort != 4791 || e.Quote.TOS != 8 {
				t.Errorf("%+v", e)
			}
		}},
		{name: "v6 echo", v6: true, msg: []byte{129, 0, 0, 0, 0, 1, 0, 1}, err: ErrNotICMPError.Error()},
		{name: "v6 quote short", v6: true, msg: icmp6(3, 0, 0, 0, nil)[:8+40+4], err: "too few for its header"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var e ICMPError
			var err error
			if tc.v6 {
				e, err = ParseICMP6(tc.msg, r6)
			} else {
				e, err = ParseICMP4(tc.msg, router)
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				if strings.Contains(tc.err, "not an ICMP") && !errors.Is(err, ErrNotICMPError) {
					t.Fatalf("err %v is not ErrNotICMPError", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, e)
		})
	}
}

func FuzzParseICMP(f *testing.F) {
	for _, s := range []string{capTimeExceeded, capFragNeeded, capPortUnreach} {
		f.Add(unhex(f, s), false)
	}
	f.Add(icmp6(3, 0, 0, 26<<2|2, nil), true)
	f.Add(icmp6(2, 0, 9000, 0, []byte{17, 0, 1, 4, 0, 0, 0, 0}), true)
	f.Fuzz(func(t *testing.T, msg []byte, v6 bool) {
		var e ICMPError
		var err error
		if v6 {
			e, err = ParseICMP6(msg, netip.MustParseAddr("2001:db8::1"))
		} else {
			e, err = ParseICMP4(msg, netip.MustParseAddr("192.0.2.1"))
		}
		if err != nil {
			return
		}
		if len(e.Quote.Payload) > len(msg) || !e.Quote.Src.IsValid() || !e.Quote.Dst.IsValid() {
			t.Fatalf("parsed %+v from %d bytes", e, len(msg))
		}
		if e.Quote.Src.Is4() == v6 {
			t.Fatalf("quote family does not match: %+v", e.Quote)
		}
	})
}
