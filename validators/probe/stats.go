package probe

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// The stats exchange rides in the payload of the probe's own RC SENDs: the
// sender asks (Begin at the start, Query at the end) and the responder
// answers with a SEND carrying what it saw on that QP. Layout (big-endian):
//
//	0  "RFPS"  magic
//	4  u8      version (StatsVersion)
//	5  u8      kind
//	6  u16     first flow: the page of the per-flow section a Query asks for
//	8  u32     token, echoed in the answer
//	12 ...     body (kind statsReply or statsError)
//
// A Begin may carry a body: u16, the requester's host MTU, at which the
// responder segments this QP's READ responses (as an RC QP's path MTU is
// agreed at connection setup); without it the responder uses its own.
//
// A reply body ends with an optional per-flow section (tag 'F', u16 flows
// in total, u16 first flow of this page, u8 entries, then the entries; see
// appendFlows). Responders that predate it send none and parsers that
// predate it ignore it, so it needs no new version. The section is paged
// so a stats reply stays well under 1280 bytes, the smallest IPv6 MTU: an
// MTU fault on the path must not cost the stats exchange.
//
// Data SENDs start with a zero byte, so they can never look like a stats
// message.
const (
	statsMagic = "RFPS"
	// StatsVersion is the stats exchange version this probe speaks.
	StatsVersion  = 1
	statsHdrLen   = 12
	statsFixedLen = 4*12 + 8 + 2 + 1 + 4*4 // reply body before the DSCP list
)

type statsKind uint8

const (
	statsBegin statsKind = 1 // reset the responder's state for this QP, then reply
	statsQuery statsKind = 2 // reply with the counters so far
	statsReply statsKind = 3
	statsError statsKind = 4 // the responder could not serve the request
)

// Error codes in a statsError body.
const (
	statsErrVersion uint8 = 1
	statsErrKind    uint8 = 2
)

// ErrStatsVersion is returned when a stats message uses a version this probe
// does not speak.
var ErrStatsVersion = errors.New("unsupported probe stats version")

// errNotStats marks a SEND payload that is not a stats message.
var errNotStats = errors.New("not a stats message")

// StatsVersionError says which side spoke which version.
type StatsVersionError struct {
	Got, Want uint8
	Peer      string // who sent the unsupported version
}

func (e *StatsVersionError) Error() string {
	return fmt.Sprintf("%s speaks probe stats version %d; this probe speaks %d", e.Peer, e.Got, e.Want)
}

func (e *StatsVersionError) Unwrap() error { return ErrStatsVersion }

// Reply kinds a responder counts per flow (flowReport.Sent).
const (
	sentACK  = iota // ACKs to data requests
	sentRead        // READ response packets
	sentCNP
	sentNAK
	sentKinds
)

// flowReport is what the responder saw and sent on one requester flow.
type flowReport struct {
	Port       uint16 // the requester's UDP source port
	ReplyPort  uint16 // the responder's source port for this flow's replies
	Received   uint32 // unique data packets
	ICRCErrors uint32
	ECN        [4]uint32
	DSCP       [64]uint32
	Sent       [sentKinds]uint32
}

const (
	flowsTag     = 'F'
	flowsHdrLen  = 1 + 2 + 2 + 1
	flowFixedLen = 2 + 2 + 4 + 4 + 16 + 4*sentKinds + 1
	// statsReplyMax bounds a stats reply's UDP payload so the whole packet
	// fits 1280 bytes over IPv6 (48 bytes of IPv6 and UDP headers).
	statsReplyMax = 1280 - 48
)

// encodedLen is the flow's size in the per-flow section.
func (f *flowReport) encodedLen() int {
	n := flowFixedLen
	for _, v := range f.DSCP {
		if v != 0 {
			n += 5
		}
	}
	return n
}

// responderStats is what a responder saw on one QP since the last Begin.
type responderStats struct {
	Token              uint32
	Received           uint32 // unique data packets
	Bytes              uint64 // UDP payload bytes of those packets
	Duplicates         uint32
	Reordered          uint32
	ICRCErrors         uint32
	CE                 uint32 // data packets that arrived CE-marked
	RepliesSent        uint32 // ACK, NAK and READ response packets
	RepliesRateLimited uint32
	ReplySendErrors    uint32
	CNPsSent           uint32
	CNPsRateLimited    uint32
	MaxSize            uint16 // largest UDP payload received
	ReplyTOS           uint8  // the TOS the responder puts on replies
	CNPTOS             uint8
	DSCP               [64]uint32 // received data packets by DSCP
	ECN                [4]uint32  // and by ECN codepoint

	// The per-flow section: HasFlows says the responder sent one; Flows is
	// the page from FlowsFirst of FlowsTotal flows (after paging, all).
	HasFlows   bool
	FlowsTotal uint16
	FlowsFirst uint16
	Flows      []flowReport
}

func isStatsPayload(b []byte) bool { return len(b) >= 4 && string(b[:4]) == statsMagic }

func appendStatsHeader(b []byte, version uint8, kind statsKind, token uint32) []byte {
	return appendStatsHeaderFlow(b, version, kind, token, 0)
}

func appendStatsHeaderFlow(b []byte, version uint8, kind statsKind, token uint32, firstFlow uint16) []byte {
	b = append(b, statsMagic...)
	b = append(b, version, uint8(kind))
	b = binary.BigEndian.AppendUint16(b, firstFlow)
	return binary.BigEndian.AppendUint32(b, token)
}

func appendStatsRequest(b []byte, kind statsKind, token uint32) []byte {
	return appendStatsHeader(b, StatsVersion, kind, token)
}

// appendStatsBegin starts a session whose READ responses are segmented at
// hostMTU.
func appendStatsBegin(b []byte, token uint32, hostMTU uint16) []byte {
	b = appendStatsHeader(b, StatsVersion, statsBegin, token)
	return binary.BigEndian.AppendUint16(b, hostMTU)
}

// appendStatsQuery asks for the counters and the per-flow page that
// starts at firstFlow.
func appendStatsQuery(b []byte, token uint32, firstFlow uint16) []byte {
	return appendStatsHeaderFlow(b, StatsVersion, statsQuery, token, firstFlow)
}

func appendStatsReply(b []byte, s *responderStats) []byte {
	b = appendStatsHeader(b, StatsVersion, statsReply, s.Token)
	for _, v := range []uint32{s.Received, s.Duplicates, s.Reordered, s.ICRCErrors, s.CE,
		s.RepliesSent, s.RepliesRateLimited, s.ReplySendErrors, s.CNPsSent, s.CNPsRateLimited, 0, 0} {
		b = binary.BigEndian.AppendUint32(b, v)
	}
	b = binary.BigEndian.AppendUint64(b, s.Bytes)
	b = binary.BigEndian.AppendUint16(b, s.MaxSize)
	b = append(b, s.ReplyTOS)
	for _, v := range s.ECN {
		b = binary.BigEndian.AppendUint32(b, v)
	}
	// CNP TOS, then the non-zero DSCP counters as (dscp, count) pairs.
	b = append(b, s.CNPTOS)
	b = appendDSCPs(b, s.DSCP[:])
	if s.HasFlows {
		b = appendFlows(b, s)
	}
	return b
}

// appendDSCPs writes the non-zero counters as a count and (dscp, count)
// pairs; the caller has written nothing of them yet.
func appendDSCPs(b []byte, dscp []uint32) []byte {
	n := 0
	for _, v := range dscp {
		if v != 0 {
			n++
		}
	}
	b = append(b, uint8(n))
	for d, v := range dscp {
		if v != 0 {
			b = append(b, uint8(d))
			b = binary.BigEndian.AppendUint32(b, v)
		}
	}
	return b
}

// appendFlows writes the per-flow section:
//
//	u8 'F', u16 flows in total, u16 first flow, u8 entries, then per entry:
//	u16 requester port, u16 reply port, u32 received, u32 ICRC errors,
//	4×u32 ECN, 4×u32 sent (ACK, READ response, CNP, NAK),
//	u8 n, n×(u8 dscp, u32 count)
func appendFlows(b []byte, s *responderStats) []byte {
	b = append(b, flowsTag)
	b = binary.BigEndian.AppendUint16(b, s.FlowsTotal)
	b = binary.BigEndian.AppendUint16(b, s.FlowsFirst)
	b = append(b, uint8(len(s.Flows)))
	for i := range s.Flows {
		f := &s.Flows[i]
		b = binary.BigEndian.AppendUint16(b, f.Port)
		b = binary.BigEndian.AppendUint16(b, f.ReplyPort)
		b = binary.BigEndian.AppendUint32(b, f.Received)
		b = binary.BigEndian.AppendUint32(b, f.ICRCErrors)
		for _, v := range f.ECN {
			b = binary.BigEndian.AppendUint32(b, v)
		}
		for _, v := range f.Sent {
			b = binary.BigEndian.AppendUint32(b, v)
		}
		b = appendDSCPs(b, f.DSCP[:])
	}
	return b
}

// parseFlows reads the per-flow section at the start of b.
func parseFlows(b []byte, s *responderStats) error {
	if b[0] != flowsTag {
		return nil // a section from a later release: not ours to read
	}
	if len(b) < flowsHdrLen {
		return fmt.Errorf("stats reply per-flow section is truncated")
	}
	s.HasFlows = true
	s.FlowsTotal, s.FlowsFirst = binary.BigEndian.Uint16(b[1:]), binary.BigEndian.Uint16(b[3:])
	n := int(b[5])
	b = b[flowsHdrLen:]
	if int(s.FlowsFirst)+n > int(s.FlowsTotal) {
		return fmt.Errorf("stats reply lists flows %d-%d of %d", s.FlowsFirst, int(s.FlowsFirst)+n-1, s.FlowsTotal)
	}
	s.Flows = make([]flowReport, n)
	for i := range s.Flows {
		if len(b) < flowFixedLen {
			return fmt.Errorf("stats reply flow %d is truncated", i)
		}
		f := &s.Flows[i]
		f.Port, f.ReplyPort = binary.BigEndian.Uint16(b), binary.BigEndian.Uint16(b[2:])
		f.Received, f.ICRCErrors = binary.BigEndian.Uint32(b[4:]), binary.BigEndian.Uint32(b[8:])
		for j := range f.ECN {
			f.ECN[j] = binary.BigEndian.Uint32(b[12+4*j:])
		}
		for j := range f.Sent {
			f.Sent[j] = binary.BigEndian.Uint32(b[28+4*j:])
		}
		nd := int(b[flowFixedLen-1])
		b = b[flowFixedLen:]
		if len(b) < 5*nd {
			return fmt.Errorf("stats reply flow %d lists %d DSCP counters but is truncated", i, nd)
		}
		for j := range nd {
			d := b[5*j]
			if d > 63 {
				return fmt.Errorf("stats reply carries DSCP %d", d)
			}
			f.DSCP[d] = binary.BigEndian.Uint32(b[5*j+1:])
		}
		b = b[5*nd:]
	}
	return nil
}

func appendStatsError(b []byte, token uint32, code, detail uint8) []byte {
	b = appendStatsHeader(b, StatsVersion, statsError, token)
	return append(b, code, detail)
}

// statsMessage is a decoded stats SEND payload.
type statsMessage struct {
	Kind      statsKind
	Version   uint8
	Token     uint32
	FirstFlow uint16         // kind statsQuery: the per-flow page asked for
	HostMTU   uint16         // kind statsBegin: the requester's host MTU (0: not sent)
	Stats     responderStats // kind statsReply
	ErrCode   uint8          // kind statsError
	ErrArg    uint8
}

// parseStats decodes a stats payload. A version other than StatsVersion is
// a *StatsVersionError, with Version and Token still filled in so the
// responder can answer.
func parseStats(b []byte, peer string) (statsMessage, error) {
	var m statsMessage
	if !isStatsPayload(b) {
		return m, errNotStats
	}
	if len(b) < statsHdrLen {
		return m, fmt.Errorf("stats message of %d bytes is shorter than its %d-byte header", len(b), statsHdrLen)
	}
	m.Version, m.Kind, m.Token = b[4], statsKind(b[5]), binary.BigEndian.Uint32(b[8:])
	if m.Kind == statsQuery {
		m.FirstFlow = binary.BigEndian.Uint16(b[6:])
	}
	if m.Version != StatsVersion {
		return m, &StatsVersionError{Got: m.Version, Want: StatsVersion, Peer: peer}
	}
	body := b[statsHdrLen:]
	switch m.Kind {
	case statsBegin:
		if len(body) >= 2 {
			m.HostMTU = binary.BigEndian.Uint16(body)
		}
		return m, nil
	case statsQuery:
		return m, nil
	case statsError:
		if len(body) < 2 {
			return m, fmt.Errorf("stats error message truncated")
		}
		m.ErrCode, m.ErrArg = body[0], body[1]
		return m, nil
	case statsReply:
	default:
		return m, fmt.Errorf("unknown stats message kind %d", m.Kind)
	}
	if len(body) < statsFixedLen+2 {
		return m, fmt.Errorf("stats reply of %d bytes is truncated", len(b))
	}
	s := &m.Stats
	s.Token = m.Token
	u := func(i int) uint32 { return binary.BigEndian.Uint32(body[4*i:]) }
	s.Received, s.Duplicates, s.Reordered, s.ICRCErrors, s.CE = u(0), u(1), u(2), u(3), u(4)
	s.RepliesSent, s.RepliesRateLimited, s.ReplySendErrors, s.CNPsSent, s.CNPsRateLimited = u(5), u(6), u(7), u(8), u(9)
	off := 48
	s.Bytes = binary.BigEndian.Uint64(body[off:])
	s.MaxSize = binary.BigEndian.Uint16(body[off+8:])
	s.ReplyTOS = body[off+10]
	off += 11
	for i := range s.ECN {
		s.ECN[i] = binary.BigEndian.Uint32(body[off+4*i:])
	}
	off += 16
	s.CNPTOS = body[off]
	n := int(body[off+1])
	off += 2
	if len(body) < off+5*n {
		return m, fmt.Errorf("stats reply lists %d DSCP counters but is truncated", n)
	}
	for i := range n {
		d := body[off+5*i]
		if d > 63 {
			return m, fmt.Errorf("stats reply carries DSCP %d", d)
		}
		s.DSCP[d] = binary.BigEndian.Uint32(body[off+5*i+1:])
	}
	if rest := body[off+5*n:]; len(rest) > 0 {
		if err := parseFlows(rest, s); err != nil {
			return m, err
		}
	}
	return m, nil
}
