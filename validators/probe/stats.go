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
//	6  u16     reserved, 0
//	8  u32     token, echoed in the answer
//	12 ...     body (kind statsReply or statsError)
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
}

func isStatsPayload(b []byte) bool { return len(b) >= 4 && string(b[:4]) == statsMagic }

func appendStatsHeader(b []byte, version uint8, kind statsKind, token uint32) []byte {
	b = append(b, statsMagic...)
	b = append(b, version, uint8(kind), 0, 0)
	return binary.BigEndian.AppendUint32(b, token)
}

func appendStatsRequest(b []byte, kind statsKind, token uint32) []byte {
	return appendStatsHeader(b, StatsVersion, kind, token)
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
	n := 0
	for _, v := range s.DSCP {
		if v != 0 {
			n++
		}
	}
	b = append(b, uint8(n))
	for d, v := range s.DSCP {
		if v != 0 {
			b = append(b, uint8(d))
			b = binary.BigEndian.AppendUint32(b, v)
		}
	}
	return b
}

func appendStatsError(b []byte, token uint32, code, detail uint8) []byte {
	b = appendStatsHeader(b, StatsVersion, statsError, token)
	return append(b, code, detail)
}

// statsMessage is a decoded stats SEND payload.
type statsMessage struct {
	Kind    statsKind
	Version uint8
	Token   uint32
	Stats   responderStats // kind statsReply
	ErrCode uint8          // kind statsError
	ErrArg  uint8
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
	if m.Version != StatsVersion {
		return m, &StatsVersionError{Got: m.Version, Want: StatsVersion, Peer: peer}
	}
	body := b[statsHdrLen:]
	switch m.Kind {
	case statsBegin, statsQuery:
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
	return m, nil
}
