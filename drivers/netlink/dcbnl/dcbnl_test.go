package dcbnl

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

// cIEEEPFC mirrors struct ieee_pfc with C alignment rules, which Go shares
// for these field types on Linux.
type cIEEEPFC struct {
	PfcCap      uint8
	PfcEn       uint8
	Mbc         uint8
	Delay       uint16
	Requests    [8]uint64
	Indications [8]uint64
}

type cDCBApp struct {
	Selector uint8
	Priority uint8
	Protocol uint16
}

func TestStructLayouts(t *testing.T) {
	var p cIEEEPFC
	if got := unsafe.Sizeof(p); got != IEEEPFCLen {
		t.Errorf("sizeof(ieee_pfc) = %d, want %d", got, IEEEPFCLen)
	}
	if unsafe.Offsetof(p.PfcEn) != 1 || unsafe.Offsetof(p.Delay) != 4 || unsafe.Offsetof(p.Requests) != 8 || unsafe.Offsetof(p.Indications) != 72 {
		t.Errorf("ieee_pfc offsets: en %d delay %d requests %d indications %d",
			unsafe.Offsetof(p.PfcEn), unsafe.Offsetof(p.Delay), unsafe.Offsetof(p.Requests), unsafe.Offsetof(p.Indications))
	}
	if got := unsafe.Sizeof(cDCBApp{}); got != AppLen {
		t.Errorf("sizeof(dcb_app) = %d, want %d", got, AppLen)
	}
}

func TestPFCMarshal(t *testing.T) {
	p := PFC{Cap: 8, Enable: 0x08, MBC: 1, Delay: 0x1234}
	p.Requests[0] = 0x0102030405060708
	p.Indications[7] = 0xAABBCCDDEEFF0011
	b := p.Marshal()
	if len(b) != 136 {
		t.Fatalf("len = %d, want 136", len(b))
	}
	// The same bytes the C struct has in memory.
	c := cIEEEPFC{PfcCap: 8, PfcEn: 0x08, Mbc: 1, Delay: 0x1234}
	c.Requests[0] = p.Requests[0]
	c.Indications[7] = p.Indications[7]
	mem := unsafe.Slice((*byte)(unsafe.Pointer(&c)), unsafe.Sizeof(c))
	if !bytes.Equal(b, mem) {
		t.Errorf("marshal differs from the C layout:\n got %x\nwant %x", b, mem)
	}
	if b[1] != 0x08 {
		t.Errorf("pfc_en at offset 1 = %#x", b[1])
	}
	if binary.NativeEndian.Uint16(b[4:]) != 0x1234 {
		t.Errorf("delay at offset 4 = %#x", binary.NativeEndian.Uint16(b[4:]))
	}
	back, err := ParsePFC(b)
	if err != nil {
		t.Fatal(err)
	}
	if back != p {
		t.Errorf("round trip: %+v != %+v", back, p)
	}
	if _, err := ParsePFC(b[:135]); !errors.Is(err, ErrMalformed) {
		t.Errorf("short ieee_pfc: err = %v", err)
	}
}

func TestAppMarshal(t *testing.T) {
	a := App{Selector: SelDSCP, Priority: 3, Protocol: 26}
	b := a.Marshal()
	c := cDCBApp{Selector: 5, Priority: 3, Protocol: 26}
	mem := unsafe.Slice((*byte)(unsafe.Pointer(&c)), unsafe.Sizeof(c))
	if !bytes.Equal(b, mem) {
		t.Errorf("dcb_app = %x, want %x", b, mem)
	}
	back, err := ParseApp(b)
	if err != nil || back != a {
		t.Errorf("round trip = %+v, %v", back, err)
	}
	if _, err := ParseApp(b[:3]); !errors.Is(err, ErrMalformed) {
		t.Errorf("short dcb_app: err = %v", err)
	}
	if got := a.String(); got != "dscp 26 → priority 3" {
		t.Errorf("String = %q", got)
	}
}

func u16(v uint16) []byte { return binary.NativeEndian.AppendUint16(nil, v) }

// attr builds one attribute by hand, padded to 4 bytes.
func attr(typ uint16, data []byte) []byte {
	b := append(u16(uint16(4+len(data))), u16(typ)...)
	b = append(b, data...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

func TestRequestLayouts(t *testing.T) {
	t.Run("ieee get", func(t *testing.T) {
		want := append([]byte{0, CmdIEEEGet, 0, 0}, attr(AttrIfname, []byte("eth0\x00"))...)
		if got := GetIEEE("eth0"); !bytes.Equal(got, want) {
			t.Errorf("got %x\nwant %x", got, want)
		}
		if len(want) != 4+12 {
			t.Errorf("ifname attribute should be padded to 12 bytes, message is %d", len(want))
		}
	})
	t.Run("dcbx", func(t *testing.T) {
		want := append([]byte{0, CmdSDCBX, 0, 0}, attr(AttrIfname, []byte("ens1f0np0\x00"))...)
		want = append(want, attr(AttrDCBX, []byte{DCBXHost | DCBXVerIEEE})...)
		if got := SetDCBX("ens1f0np0", 0x09); !bytes.Equal(got, want) {
			t.Errorf("got %x\nwant %x", got, want)
		}
		if got := GetDCBX("x"); got[1] != CmdGDCBX {
			t.Errorf("cmd = %d", got[1])
		}
	})
	t.Run("ieee set nested", func(t *testing.T) {
		pfc := PFC{Enable: 0x08}
		apps := []App{{SelDSCP, 3, 26}, {SelDSCP, 6, 48}}
		got := SetIEEE("eth0", IEEE{PFC: &pfc, Apps: apps, Trust: []uint8{SelDSCP, SelPCP}})
		table := append(attr(AttrIEEEApp, apps[0].Marshal()), attr(AttrIEEEApp, apps[1].Marshal())...)
		trust := append(attr(AttrIEEEApp, []byte{SelDSCP}), attr(AttrDCBApp, []byte{SelPCP})...)
		inner := append(attr(AttrIEEEPFC, pfc.Marshal()), attr(AttrIEEEAppTable, table)...)
		inner = append(inner, attr(AttrAppTrust, trust)...)
		want := append([]byte{0, CmdIEEESet, 0, 0}, attr(AttrIfname, []byte("eth0\x00"))...)
		want = append(want, attr(AttrIEEE, inner)...)
		if !bytes.Equal(got, want) {
			t.Errorf("got  %x\nwant %x", got, want)
		}
		// The PFC attribute: 4-byte header + 136 bytes, already aligned.
		off := 4 + 12 + 4
		if l := binary.NativeEndian.Uint16(got[off:]); l != 140 {
			t.Errorf("DCB_ATTR_IEEE_PFC length = %d, want 140", l)
		}
		// Each APP entry is a 4-byte header and a 4-byte dcb_app.
		if l := binary.NativeEndian.Uint16(got[off+140:]); l != 4+2*8 {
			t.Errorf("APP table length = %d, want 20", l)
		}
	})
	t.Run("ieee del", func(t *testing.T) {
		got := DelIEEE("eth0", []App{{SelDSCP, 3, 26}})
		if got[1] != CmdIEEEDel {
			t.Errorf("cmd = %d", got[1])
		}
		r, err := ParseReply(append([]byte{0, CmdIEEEGet, 0, 0}, got[4:]...))
		if err != nil {
			t.Fatal(err)
		}
		if len(r.IEEE.Apps) != 1 || r.IEEE.Apps[0] != (App{SelDSCP, 3, 26}) {
			t.Errorf("apps = %+v", r.IEEE.Apps)
		}
	})
}

// kernelGetReply is an IEEE_GET answer laid out as dcbnl_ieee_fill writes
// it: ifname, the IEEE nest (ETS, PFC, APP table, trust table) with the
// nested flag on, then DCBX at the top level.
func kernelGetReply() []byte {
	ets := make([]byte, 59) // struct ieee_ets, not decoded
	pfc := PFC{Cap: 8, Enable: 0x08, Delay: 0xffff}
	table := append(attr(AttrIEEEApp, App{SelDSCP, 3, 26}.Marshal()), attr(AttrIEEEApp, App{SelDSCP, 6, 48}.Marshal())...)
	table = append(table, attr(AttrDCBApp, App{SelPCP, 5, 5}.Marshal())...)
	trust := attr(AttrIEEEApp, []byte{SelDSCP})
	inner := append(attr(AttrIEEEETS, ets), attr(AttrIEEEPFC, pfc.Marshal())...)
	inner = append(inner, attr(AttrIEEEAppTable|0x8000, table)...)
	inner = append(inner, attr(AttrAppTrust|0x8000, trust)...)
	b := append([]byte{0, CmdIEEEGet, 0, 0}, attr(AttrIfname, []byte("ens1f0np0\x00"))...)
	b = append(b, attr(AttrIEEE|0x8000, inner)...)
	return append(b, attr(AttrDCBX, []byte{0x09})...)
}

func TestParseReply(t *testing.T) {
	r, err := ParseReply(kernelGetReply())
	if err != nil {
		t.Fatal(err)
	}
	dcbx := uint8(0x09)
	want := &Reply{
		Cmd: CmdIEEEGet, Ifname: "ens1f0np0", DCBX: &dcbx,
		IEEE: &IEEE{
			PFC:          &PFC{Cap: 8, Enable: 0x08, Delay: 0xffff},
			Apps:         []App{{SelDSCP, 3, 26}, {SelDSCP, 6, 48}, {SelPCP, 5, 5}},
			AppsPresent:  true,
			Trust:        []uint8{SelDSCP},
			TrustPresent: true,
		},
	}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("reply (-want +got):\n%s", diff)
	}
}

// kernelPeerReply is an IEEE_GET answer from a driver that runs DCBX and
// reports its peer, as dcbnl_ieee_fill lays it out: after the local APP
// table, DCB_ATTR_IEEE_PEER_PFC (struct ieee_pfc) and
// DCB_ATTR_IEEE_PEER_APP, a nest of DCB_ATTR_IEEE_APP entries built by
// dcbnl_build_peer_app (no info block for IEEE). The peer enables PFC on
// priority 4 and maps DSCP 26 to priority 0.
func kernelPeerReply() []byte {
	local := attr(AttrIEEEApp, App{SelDSCP, 3, 26}.Marshal())
	peerPFC := PFC{Cap: 8, Enable: 0x10}
	peerApps := append(attr(AttrIEEEApp, App{SelDSCP, 0, 26}.Marshal()), attr(AttrIEEEApp, App{SelDSCP, 6, 48}.Marshal())...)
	inner := append(attr(AttrIEEEPFC, PFC{Cap: 8, Enable: 0x08}.Marshal()), attr(AttrIEEEAppTable|0x8000, local)...)
	inner = append(inner, attr(AttrIEEEPeerPFC, peerPFC.Marshal())...)
	inner = append(inner, attr(AttrIEEEPeerApp|0x8000, peerApps)...)
	b := append([]byte{0, CmdIEEEGet, 0, 0}, attr(AttrIfname, []byte("ens1f0np0\x00"))...)
	b = append(b, attr(AttrIEEE|0x8000, inner)...)
	return append(b, attr(AttrDCBX, []byte{0x05})...)
}

func TestParsePeer(t *testing.T) {
	for _, tc := range []struct {
		name    string
		msg     []byte
		pfc     *PFC
		apps    []App
		present bool
	}{
		{"peer reported", kernelPeerReply(), &PFC{Cap: 8, Enable: 0x10}, []App{{SelDSCP, 0, 26}, {SelDSCP, 6, 48}}, true},
		{"no peer (host-managed DCBX, mlx5)", kernelGetReply(), nil, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ParseReply(tc.msg)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.pfc, r.IEEE.PeerPFC); d != "" {
				t.Errorf("peer PFC (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.apps, r.IEEE.PeerApps); d != "" {
				t.Errorf("peer APP (-want +got):\n%s", d)
			}
			if r.IEEE.PeerAppsPresent != tc.present {
				t.Errorf("peer APP present %v, want %v", r.IEEE.PeerAppsPresent, tc.present)
			}
		})
	}
	// A peer PFC shorter than struct ieee_pfc is malformed, not zero.
	bad := append([]byte{0, CmdIEEEGet, 0, 0}, attr(AttrIEEE|0x8000, attr(AttrIEEEPeerPFC, make([]byte, 10)))...)
	if _, err := ParseReply(bad); !errors.Is(err, ErrMalformed) {
		t.Errorf("short peer PFC: %v, want ErrMalformed", err)
	}
}

func TestParseSetStatus(t *testing.T) {
	// dcbnl_ieee_set answers nla_put_u8(DCB_ATTR_IEEE, err): -EOPNOTSUPP.
	b := append([]byte{0, CmdIEEESet, 0, 0}, attr(AttrIEEE, []byte{uint8(0x100 - 95)})...)
	r, err := ParseReply(b)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status == nil || StatusErrno(*r.Status) != 95 {
		t.Errorf("status = %v", r.Status)
	}
	ok := append([]byte{0, CmdIEEESet, 0, 0}, attr(AttrIEEE, []byte{0})...)
	if r, _ := ParseReply(ok); r.Status == nil || StatusErrno(*r.Status) != 0 {
		t.Errorf("success status = %v", r.Status)
	}
}

func TestParseMalformed(t *testing.T) {
	good := kernelGetReply()
	tests := []struct {
		name string
		b    []byte
	}{
		{"short dcbmsg", []byte{0, 21}},
		{"truncated attribute", good[:len(good)-4]},
		{"attribute length below header", append([]byte{0, 21, 0, 0}, 2, 0, 1, 0)},
		{"attribute longer than message", append([]byte{0, 21, 0, 0}, 200, 0, 1, 0, 'x')},
		{"short pfc", append([]byte{0, 21, 0, 0}, attr(AttrIEEE, attr(AttrIEEEPFC, make([]byte, 100)))...)},
		{"short app", append([]byte{0, 21, 0, 0}, attr(AttrIEEE, attr(AttrIEEEAppTable, attr(AttrIEEEApp, []byte{5, 3})))...)},
		{"empty dcbx", append([]byte{0, 22, 0, 0}, attr(AttrDCBX, nil)...)},
		{"empty set status", append([]byte{0, 20, 0, 0}, attr(AttrIEEE, nil)...)},
		{"bad nested", append([]byte{0, 21, 0, 0}, attr(AttrIEEE, []byte{9, 0, 2, 0, 1})...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := ParseReply(tt.b); !errors.Is(err, ErrMalformed) {
				t.Errorf("err = %v, want ErrMalformed", err)
			}
		})
	}
}

func TestDCBXModeNames(t *testing.T) {
	if got := DCBXModeString(DCBXHost | DCBXVerIEEE); got != "host-ieee" {
		t.Errorf("0x09 = %q", got)
	}
	if got := DCBXModeString(DCBXLLDManaged | DCBXVerCEE | DCBXVerIEEE); got != "lld-managed-ieee-cee" {
		t.Errorf("0x0e = %q", got)
	}
	for m := 0; m < 256; m++ {
		s := DCBXModeString(uint8(m))
		back, err := ParseDCBXMode(s)
		// host and lld-managed together are spelt "host": both set is not a
		// real mode, so the name loses the second bit.
		wantBack := uint8(m)
		if m&DCBXHost != 0 {
			wantBack &^= DCBXLLDManaged
		}
		if err != nil || back != wantBack {
			t.Errorf("mode %#02x: %q parses to %#02x, %v", m, s, back, err)
		}
	}
	if v, err := ParseDCBXMode("0x09"); err != nil || v != 9 {
		t.Errorf("0x09 = %d, %v", v, err)
	}
	if _, err := ParseDCBXMode("firmware"); err == nil {
		t.Error("unknown mode accepted")
	}
}

func TestTrustNames(t *testing.T) {
	for _, s := range []string{"dscp", "pcp", "dscp pcp", "none"} {
		sels, err := ParseTrust(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := TrustString(sels); got != s {
			t.Errorf("%q → %v → %q", s, sels, got)
		}
	}
	if _, err := ParseTrust("ethtype"); err == nil {
		t.Error("unknown selector accepted")
	}
}

func FuzzParseReply(f *testing.F) {
	f.Add(kernelGetReply())
	f.Add(kernelPeerReply())
	f.Add(GetIEEE("eth0"))
	f.Add(SetDCBX("eth0", 9))
	f.Add(append([]byte{0, CmdIEEESet, 0, 0}, attr(AttrIEEE, []byte{0xa1})...))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseReply(b)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error without ErrMalformed: %v", err)
			}
			return
		}
		if r.IEEE == nil || r.Ifname == "" || bytes.IndexByte([]byte(r.Ifname), 0) >= 0 {
			return
		}
		// What decodes re-encodes to a message that decodes the same.
		again, err := ParseReply(ieeeMessage(CmdIEEEGet, r.Ifname, *r.IEEE))
		if err != nil {
			t.Fatalf("re-decode: %v", err)
		}
		if len(again.IEEE.Apps) != len(r.IEEE.Apps) || (r.IEEE.PFC == nil) != (again.IEEE.PFC == nil) {
			t.Fatalf("re-encoding changed the content: %+v vs %+v", r.IEEE, again.IEEE)
		}
		if r.IEEE.PFC != nil && *r.IEEE.PFC != *again.IEEE.PFC {
			t.Fatalf("PFC changed: %+v vs %+v", r.IEEE.PFC, again.IEEE.PFC)
		}
	})
}

func BenchmarkParseReply(b *testing.B) {
	msg := kernelGetReply()
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		if _, err := ParseReply(msg); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSetIEEE(b *testing.B) {
	pfc := PFC{Enable: 0x08}
	apps := []App{{SelDSCP, 3, 26}, {SelDSCP, 6, 48}}
	for b.Loop() {
		_ = SetIEEE("ens1f0np0", IEEE{PFC: &pfc, Apps: apps})
	}
}
