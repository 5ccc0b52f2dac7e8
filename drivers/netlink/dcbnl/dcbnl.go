package dcbnl

import (
	"errors"
	"fmt"
	"strings"

	"github.com/vishvananda/netlink/nl"
)

// Message types (rtnetlink) and struct dcbmsg commands.
const (
	RTMGetDCB = 0x4e // RTM_GETDCB
	RTMSetDCB = 0x4f // RTM_SETDCB

	CmdIEEESet = 20 // DCB_CMD_IEEE_SET
	CmdIEEEGet = 21 // DCB_CMD_IEEE_GET
	CmdGDCBX   = 22 // DCB_CMD_GDCBX
	CmdSDCBX   = 23 // DCB_CMD_SDCBX
	CmdIEEEDel = 27 // DCB_CMD_IEEE_DEL
)

// Top-level attributes (enum dcbnl_attrs).
const (
	AttrIfname = 1  // DCB_ATTR_IFNAME, NUL-terminated string
	AttrIEEE   = 13 // DCB_ATTR_IEEE, nested (u8 status in SET replies)
	AttrDCBX   = 14 // DCB_ATTR_DCBX, u8
)

// Attributes inside DCB_ATTR_IEEE (enum ieee_attrs).
const (
	AttrIEEEETS      = 1  // struct ieee_ets
	AttrIEEEPFC      = 2  // struct ieee_pfc
	AttrIEEEAppTable = 3  // nested DCB_ATTR_IEEE_APP / DCB_ATTR_DCB_APP
	AttrIEEEPeerPFC  = 5  // DCB_ATTR_IEEE_PEER_PFC: struct ieee_pfc the DCBX peer advertises (get only)
	AttrIEEEPeerApp  = 6  // DCB_ATTR_IEEE_PEER_APP: nested DCB_ATTR_IEEE_APP, the peer's APP TLV (get only)
	AttrIEEEMaxrate  = 7  // struct ieee_maxrate
	AttrDCBBuffer    = 10 // struct dcbnl_buffer
	AttrAppTrust     = 11 // DCB_ATTR_DCB_APP_TRUST_TABLE, nested u8 selectors
)

// Attributes inside the APP and trust tables (enum ieee_attrs_app).
const (
	AttrIEEEApp = 1 // DCB_ATTR_IEEE_APP: IEEE selectors 1..5
	AttrDCBApp  = 2 // DCB_ATTR_DCB_APP: non-IEEE selectors (PCP = 255)
)

// APP selectors.
const (
	SelEthertype = 1
	SelStream    = 2
	SelDgram     = 3
	SelAny       = 4
	SelDSCP      = 5   // IEEE_8021QAZ_APP_SEL_DSCP
	SelPCP       = 255 // DCB_APP_SEL_PCP
)

// DCBX capability flags (DCB_CAP_DCBX_*).
const (
	DCBXHost       = 0x01
	DCBXLLDManaged = 0x02
	DCBXVerCEE     = 0x04
	DCBXVerIEEE    = 0x08
	DCBXStatic     = 0x10
)

// Sizes of the kernel structures.
const (
	DCBMsgLen   = 4      // struct dcbmsg {u8 dcb_family; u8 cmd; u16 dcb_pad}
	IEEEPFCLen  = 136    // struct ieee_pfc
	AppLen      = 4      // struct dcb_app
	attrHdrLen  = 4      // struct nlattr
	nlaTypeMask = 0x3fff // clears NLA_F_NESTED and NLA_F_NET_BYTEORDER
)

// ErrMalformed: a reply does not follow the kernel's layout.
var ErrMalformed = errors.New("malformed DCB netlink message")

// PFC is struct ieee_pfc: pfc_cap at 0, pfc_en at 1, mbc at 2, delay (u16,
// bits of round-trip allowance) at 4, requests[8] at 8, indications[8] at 72.
type PFC struct {
	Cap         uint8
	Enable      uint8
	MBC         uint8
	Delay       uint16
	Requests    [8]uint64
	Indications [8]uint64
}

// Marshal encodes the structure in host byte order, 136 bytes.
func (p PFC) Marshal() []byte {
	b := make([]byte, IEEEPFCLen)
	ne := nl.NativeEndian()
	b[0], b[1], b[2] = p.Cap, p.Enable, p.MBC
	ne.PutUint16(b[4:], p.Delay)
	for i := 0; i < 8; i++ {
		ne.PutUint64(b[8+8*i:], p.Requests[i])
		ne.PutUint64(b[72+8*i:], p.Indications[i])
	}
	return b
}

// ParsePFC decodes struct ieee_pfc.
func ParsePFC(b []byte) (PFC, error) {
	var p PFC
	if len(b) < IEEEPFCLen {
		return p, fmt.Errorf("%w: ieee_pfc is %d bytes, want %d", ErrMalformed, len(b), IEEEPFCLen)
	}
	ne := nl.NativeEndian()
	p.Cap, p.Enable, p.MBC = b[0], b[1], b[2]
	p.Delay = ne.Uint16(b[4:])
	for i := 0; i < 8; i++ {
		p.Requests[i] = ne.Uint64(b[8+8*i:])
		p.Indications[i] = ne.Uint64(b[72+8*i:])
	}
	return p, nil
}

// App is struct dcb_app {u8 selector; u8 priority; u16 protocol}.
type App struct {
	Selector uint8
	Priority uint8
	Protocol uint16
}

// Marshal encodes the 4-byte structure in host byte order.
func (a App) Marshal() []byte {
	b := make([]byte, AppLen)
	b[0], b[1] = a.Selector, a.Priority
	nl.NativeEndian().PutUint16(b[2:], a.Protocol)
	return b
}

// ParseApp decodes struct dcb_app.
func ParseApp(b []byte) (App, error) {
	if len(b) < AppLen {
		return App{}, fmt.Errorf("%w: dcb_app is %d bytes, want %d", ErrMalformed, len(b), AppLen)
	}
	return App{Selector: b[0], Priority: b[1], Protocol: nl.NativeEndian().Uint16(b[2:])}, nil
}

func (a App) String() string {
	return fmt.Sprintf("%s %d → priority %d", SelectorName(a.Selector), a.Protocol, a.Priority)
}

// SelectorName names an APP selector as dcb-app(8) does.
func SelectorName(sel uint8) string {
	switch sel {
	case SelEthertype:
		return "ethtype"
	case SelStream:
		return "stream-port"
	case SelDgram:
		return "dgram-port"
	case SelAny:
		return "port"
	case SelDSCP:
		return "dscp"
	case SelPCP:
		return "pcp"
	}
	return fmt.Sprintf("selector-%d", sel)
}

// appAttrType is the table attribute a selector travels in: IEEE selectors
// in DCB_ATTR_IEEE_APP, others (PCP) in DCB_ATTR_DCB_APP.
func appAttrType(sel uint8) int {
	if sel >= SelEthertype && sel <= SelDSCP {
		return AttrIEEEApp
	}
	return AttrDCBApp
}

// IEEE is the content of DCB_ATTR_IEEE in a request or a GET reply. Nil
// fields are absent.
type IEEE struct {
	PFC  *PFC
	Apps []App
	// AppsPresent: the reply carried an APP table (possibly empty).
	AppsPresent bool
	// Trust lists trusted selectors in order of precedence (apptrust).
	Trust []uint8
	// TrustPresent: the device reported a trust table.
	TrustPresent bool
	// PeerPFC and PeerApps are what the DCBX neighbour advertises, present
	// only when the driver runs DCBX and reports its peer (the kernel
	// fills them from ieee_peer_getpfc and peer_getapptable); they are
	// never sent.
	PeerPFC         *PFC
	PeerApps        []App
	PeerAppsPresent bool
}

// Reply is a decoded RTM_GETDCB/RTM_SETDCB answer.
type Reply struct {
	Cmd    uint8
	Ifname string
	IEEE   *IEEE
	// DCBX is the mode (GDCBX, IEEE_GET) or the setter's status (SDCBX:
	// 0 success).
	DCBX *uint8
	// Status is the u8 DCB_ATTR_IEEE of IEEE_SET/IEEE_DEL replies: the
	// kernel's negative errno truncated to u8; 0 is success.
	Status *uint8
}

// StatusErrno turns a SET reply status into the errno it carries (0 for
// success): the kernel stores -errno in a u8.
func StatusErrno(s uint8) int { return int(-int8(s)) }

func header(cmd uint8) []byte { return []byte{0 /* AF_UNSPEC */, cmd, 0, 0} }

func ifnameAttr(ifname string) []byte {
	return nl.NewRtAttr(AttrIfname, nl.ZeroTerminated(ifname)).Serialize()
}

// GetIEEE is the payload (after struct nlmsghdr) of DCB_CMD_IEEE_GET.
func GetIEEE(ifname string) []byte {
	return append(header(CmdIEEEGet), ifnameAttr(ifname)...)
}

// GetDCBX is the payload of DCB_CMD_GDCBX.
func GetDCBX(ifname string) []byte {
	return append(header(CmdGDCBX), ifnameAttr(ifname)...)
}

// SetDCBX is the payload of DCB_CMD_SDCBX.
func SetDCBX(ifname string, mode uint8) []byte {
	b := append(header(CmdSDCBX), ifnameAttr(ifname)...)
	return append(b, nl.NewRtAttr(AttrDCBX, []byte{mode}).Serialize()...)
}

// SetIEEE is the payload of DCB_CMD_IEEE_SET with the given parts.
func SetIEEE(ifname string, ieee IEEE) []byte {
	return ieeeMessage(CmdIEEESet, ifname, ieee)
}

// DelIEEE is the payload of DCB_CMD_IEEE_DEL removing APP entries.
func DelIEEE(ifname string, apps []App) []byte {
	return ieeeMessage(CmdIEEEDel, ifname, IEEE{Apps: apps})
}

func ieeeMessage(cmd uint8, ifname string, ieee IEEE) []byte {
	nest := nl.NewRtAttr(AttrIEEE, nil)
	if ieee.PFC != nil {
		nest.AddRtAttr(AttrIEEEPFC, ieee.PFC.Marshal())
	}
	if len(ieee.Apps) > 0 {
		table := nest.AddRtAttr(AttrIEEEAppTable, nil)
		for _, a := range ieee.Apps {
			table.AddRtAttr(appAttrType(a.Selector), a.Marshal())
		}
	}
	if ieee.Trust != nil {
		table := nest.AddRtAttr(AttrAppTrust, nil)
		for _, sel := range ieee.Trust {
			table.AddRtAttr(appAttrType(sel), []byte{sel})
		}
	}
	b := append(header(cmd), ifnameAttr(ifname)...)
	return append(b, nest.Serialize()...)
}

// Attr is one netlink attribute: its type without flag bits, and its data.
type Attr struct {
	Type uint16
	Data []byte
}

// ParseAttrs splits a buffer of netlink attributes. It never panics: every
// length is checked, and trailing bytes shorter than a header are an error.
func ParseAttrs(b []byte) ([]Attr, error) {
	var out []Attr
	ne := nl.NativeEndian()
	for len(b) > 0 {
		if len(b) < attrHdrLen {
			return nil, fmt.Errorf("%w: %d trailing bytes", ErrMalformed, len(b))
		}
		l := int(ne.Uint16(b[0:2]))
		if l < attrHdrLen || l > len(b) {
			return nil, fmt.Errorf("%w: attribute length %d with %d bytes left", ErrMalformed, l, len(b))
		}
		out = append(out, Attr{Type: ne.Uint16(b[2:4]) & nlaTypeMask, Data: b[attrHdrLen:l]})
		aligned := (l + 3) &^ 3
		if aligned >= len(b) {
			break
		}
		b = b[aligned:]
	}
	return out, nil
}

// ParseReply decodes the payload of an RTM_GETDCB/RTM_SETDCB message.
func ParseReply(b []byte) (*Reply, error) {
	if len(b) < DCBMsgLen {
		return nil, fmt.Errorf("%w: %d bytes, shorter than struct dcbmsg", ErrMalformed, len(b))
	}
	r := &Reply{Cmd: b[1]}
	attrs, err := ParseAttrs(b[DCBMsgLen:])
	if err != nil {
		return nil, err
	}
	for _, a := range attrs {
		switch a.Type {
		case AttrIfname:
			r.Ifname = strings.TrimRight(string(a.Data), "\x00")
		case AttrDCBX:
			if len(a.Data) < 1 {
				return nil, fmt.Errorf("%w: empty DCB_ATTR_DCBX", ErrMalformed)
			}
			v := a.Data[0]
			r.DCBX = &v
		case AttrIEEE:
			if r.Cmd == CmdIEEESet || r.Cmd == CmdIEEEDel {
				if len(a.Data) < 1 {
					return nil, fmt.Errorf("%w: empty IEEE status", ErrMalformed)
				}
				v := a.Data[0]
				r.Status = &v
				continue
			}
			ieee, err := parseIEEE(a.Data)
			if err != nil {
				return nil, err
			}
			r.IEEE = ieee
		}
	}
	return r, nil
}

func parseIEEE(b []byte) (*IEEE, error) {
	attrs, err := ParseAttrs(b)
	if err != nil {
		return nil, fmt.Errorf("DCB_ATTR_IEEE: %w", err)
	}
	out := &IEEE{}
	for _, a := range attrs {
		switch a.Type {
		case AttrIEEEPFC:
			p, err := ParsePFC(a.Data)
			if err != nil {
				return nil, err
			}
			out.PFC = &p
		case AttrIEEEAppTable:
			out.AppsPresent = true
			if out.Apps, err = parseAppTable(a.Data); err != nil {
				return nil, fmt.Errorf("APP table: %w", err)
			}
		case AttrIEEEPeerPFC:
			p, err := ParsePFC(a.Data)
			if err != nil {
				return nil, fmt.Errorf("peer PFC: %w", err)
			}
			out.PeerPFC = &p
		case AttrIEEEPeerApp:
			out.PeerAppsPresent = true
			if out.PeerApps, err = parseAppTable(a.Data); err != nil {
				return nil, fmt.Errorf("peer APP table: %w", err)
			}
		case AttrAppTrust:
			out.TrustPresent = true
			entries, err := ParseAttrs(a.Data)
			if err != nil {
				return nil, fmt.Errorf("trust table: %w", err)
			}
			for _, e := range entries {
				if (e.Type != AttrIEEEApp && e.Type != AttrDCBApp) || len(e.Data) < 1 {
					continue
				}
				out.Trust = append(out.Trust, e.Data[0])
			}
		}
	}
	return out, nil
}

// parseAppTable decodes a nest of DCB_ATTR_IEEE_APP / DCB_ATTR_DCB_APP
// entries; the peer table may also carry a DCB_ATTR_IEEE_APP_UNSPEC info
// block, skipped.
func parseAppTable(b []byte) ([]App, error) {
	entries, err := ParseAttrs(b)
	if err != nil {
		return nil, err
	}
	var out []App
	for _, e := range entries {
		if e.Type != AttrIEEEApp && e.Type != AttrDCBApp {
			continue
		}
		app, err := ParseApp(e.Data)
		if err != nil {
			return nil, err
		}
		out = append(out, app)
	}
	return out, nil
}

// DCBXModeString names a DCBX mode: "host-ieee" for HOST|VER_IEEE, the
// mode rocefab sets; other combinations are spelt out.
func DCBXModeString(m uint8) string {
	var parts []string
	switch {
	case m&DCBXHost != 0:
		parts = append(parts, "host")
	case m&DCBXLLDManaged != 0:
		parts = append(parts, "lld-managed")
	default:
		parts = append(parts, "none")
	}
	if m&DCBXVerIEEE != 0 {
		parts = append(parts, "ieee")
	}
	if m&DCBXVerCEE != 0 {
		parts = append(parts, "cee")
	}
	if m&DCBXStatic != 0 {
		parts = append(parts, "static")
	}
	s := strings.Join(parts, "-")
	if rest := m &^ (DCBXHost | DCBXLLDManaged | DCBXVerIEEE | DCBXVerCEE | DCBXStatic); rest != 0 {
		s += fmt.Sprintf("+0x%02x", rest)
	}
	return s
}

// ParseDCBXMode is the inverse of DCBXModeString; it also takes "0x09".
func ParseDCBXMode(s string) (uint8, error) {
	if strings.HasPrefix(s, "0x") {
		var v uint8
		if _, err := fmt.Sscanf(s, "0x%x", &v); err != nil {
			return 0, fmt.Errorf("DCBX mode %q: %v", s, err)
		}
		return v, nil
	}
	base, extra, _ := strings.Cut(s, "+")
	var m uint8
	if extra != "" {
		var v uint8
		if _, err := fmt.Sscanf(extra, "0x%x", &v); err != nil {
			return 0, fmt.Errorf("DCBX mode %q: %v", s, err)
		}
		m |= v
	}
	rest := base
	switch {
	case strings.HasPrefix(rest, "lld-managed"):
		m |= DCBXLLDManaged
		rest = strings.TrimPrefix(rest, "lld-managed")
	case strings.HasPrefix(rest, "host"):
		m |= DCBXHost
		rest = strings.TrimPrefix(rest, "host")
	case strings.HasPrefix(rest, "none"):
		rest = strings.TrimPrefix(rest, "none")
	default:
		return 0, fmt.Errorf("DCBX mode %q: want host-ieee, lld-managed-ieee, ... or 0xNN", s)
	}
	for _, p := range strings.Split(strings.TrimPrefix(rest, "-"), "-") {
		switch p {
		case "":
		case "ieee":
			m |= DCBXVerIEEE
		case "cee":
			m |= DCBXVerCEE
		case "static":
			m |= DCBXStatic
		default:
			return 0, fmt.Errorf("DCBX mode %q: unknown part %q", s, p)
		}
	}
	return m, nil
}

// TrustString names a trust table as dcb-apptrust(8) does: "dscp pcp".
func TrustString(sels []uint8) string {
	if len(sels) == 0 {
		return "none"
	}
	names := make([]string, len(sels))
	for i, s := range sels {
		names[i] = SelectorName(s)
	}
	return strings.Join(names, " ")
}

// ParseTrust is the inverse of TrustString for dscp and pcp.
func ParseTrust(s string) ([]uint8, error) {
	if s == "none" {
		return []uint8{}, nil
	}
	var out []uint8
	for _, f := range strings.Fields(s) {
		switch f {
		case "dscp":
			out = append(out, SelDSCP)
		case "pcp":
			out = append(out, SelPCP)
		default:
			return nil, fmt.Errorf("trust %q: unknown selector %q", s, f)
		}
	}
	return out, nil
}
