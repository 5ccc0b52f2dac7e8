package probe

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// ECN is the two-bit ECN field of the IP header.
type ECN uint8

// ECN codepoints (RFC 3168).
const (
	NotECT ECN = 0
	ECT1   ECN = 1
	ECT0   ECN = 2
	CE     ECN = 3
)

var ecnNames = [4]string{"Not-ECT", "ECT(1)", "ECT(0)", "CE"}

func (e ECN) String() string { return ecnNames[e&3] }

// MarshalText makes ECN values and map keys read "ECT(0)" in JSON.
func (e ECN) MarshalText() ([]byte, error) { return []byte(e.String()), nil }

// UnmarshalText accepts the names String returns.
func (e *ECN) UnmarshalText(b []byte) error {
	for i, n := range ecnNames {
		if strings.EqualFold(string(b), n) {
			*e = ECN(i)
			return nil
		}
	}
	return fmt.Errorf("unknown ECN codepoint %q (want Not-ECT, ECT(0), ECT(1) or CE)", b)
}

// Profile is the congestion-control design of the RoCE class.
type Profile string

// Profiles: DCQCN (PFC + ECN/CNP), PFC only (ECN off), ECN only (lossy).
const (
	ProfileDCQCN   Profile = "dcqcn"
	ProfilePFCOnly Profile = "pfc-only"
	ProfileECNOnly Profile = "ecn-only"
)

// Lossless reports whether the class must not drop packets.
func (p Profile) Lossless() bool { return p == ProfileDCQCN || p == ProfilePFCOnly }

// Product defaults (rocefab intent defaults).
const (
	DefaultRoCEDSCP = 26
	DefaultCNPDSCP  = 48
	DefaultHostMTU  = 9000
	// DefaultPKey is the probe's own partition (full member, partition
	// 0x0F00): an RNIC that sees a probe packet drops it on the P_Key check
	// instead of matching one of its QPs.
	DefaultPKey = 0x8F00
	// DefaultQPMin and DefaultQPMax bound the probe's QP numbers.
	DefaultQPMin = 0xF00000
	DefaultQPMax = 0xF0FFFF
	DefaultPort  = 4791
)

// Policy is what the fabric should do to RoCE traffic and how to probe it.
// The zero value of a field means "default" (see DefaultPolicy).
type Policy struct {
	RoCEDSCP uint8   `json:"roceDSCP"`
	CNPDSCP  uint8   `json:"cnpDSCP"`
	ECN      ECN     `json:"ecn"`     // ECT(0) or ECT(1) on probe packets
	HostMTU  int     `json:"hostMTU"` // intent IP MTU of the RoCE interfaces
	Profile  Profile `json:"profile"`
	PKey     uint16  `json:"pKey"`
	QPMin    uint32  `json:"qpMin"`
	QPMax    uint32  `json:"qpMax"`

	// Sizes are IP packet sizes for the MTU sweep; empty means a ladder of
	// common MTUs up to HostMTU, refined between the last size that passed
	// and the first that failed.
	Sizes        []int `json:"sizes,omitempty"`
	SkipMTUSweep bool  `json:"skipMTUSweep,omitempty"`

	Count       int           `json:"count"`       // data packets per pair
	Duration    time.Duration `json:"duration"`    // if set, send for this long instead of Count
	RatePPS     int           `json:"ratePPS"`     // 0: as fast as the socket allows
	PayloadSize int           `json:"payloadSize"` // bytes of SEND payload in the data phase
	AckEvery    int           `json:"ackEvery"`    // AckReq on every Nth data packet
	// ReadEvery makes every Nth data packet an RDMA READ of PayloadSize
	// bytes instead of a SEND, so READ responses are measured as well as
	// ACKs (0: every 8th; negative: SENDs only).
	ReadEvery   int `json:"readEvery,omitempty"`
	Outstanding int `json:"outstanding"` // AckReq packets in flight at most; 0: no limit
	Flows       int `json:"flows"`       // UDP source ports to spread packets over

	// MaxLossPercent is the loss an ecn-only (lossy) class may show before
	// the verdict fails; lossless profiles allow none.
	MaxLossPercent float64 `json:"maxLossPercent"`
	// MaxRTTP99 fails the verdict when the 99th percentile RTT is above it
	// (0: not checked).
	MaxRTTP99 time.Duration `json:"maxRTTP99,omitempty"`

	ConnectTimeout time.Duration `json:"connectTimeout"` // for the responder's first answer
	ReplyTimeout   time.Duration `json:"replyTimeout"`   // for replies after the last packet
}

// DefaultPolicy returns the product defaults.
func DefaultPolicy() Policy {
	return Policy{
		RoCEDSCP: DefaultRoCEDSCP, CNPDSCP: DefaultCNPDSCP, ECN: ECT0, HostMTU: DefaultHostMTU,
		Profile: ProfileDCQCN, PKey: DefaultPKey, QPMin: DefaultQPMin, QPMax: DefaultQPMax,
		Count: 1000, RatePPS: 1000, PayloadSize: 64, AckEvery: 1, ReadEvery: 8, Flows: 8,
		MaxLossPercent: 0.1, ConnectTimeout: 2 * time.Second, ReplyTimeout: 500 * time.Millisecond,
	}
}

// withDefaults fills zero fields from DefaultPolicy. Zero DSCP is a valid
// DSCP, so DSCPs are never defaulted here: callers start from DefaultPolicy.
func (p Policy) withDefaults() Policy {
	d := DefaultPolicy()
	if p.ECN == NotECT {
		p.ECN = d.ECN
	}
	if p.HostMTU == 0 {
		p.HostMTU = d.HostMTU
	}
	if p.Profile == "" {
		p.Profile = d.Profile
	}
	if p.PKey == 0 {
		p.PKey = d.PKey
	}
	if p.QPMin == 0 && p.QPMax == 0 {
		p.QPMin, p.QPMax = d.QPMin, d.QPMax
	}
	if p.Count == 0 && p.Duration == 0 {
		p.Count = d.Count
	}
	if p.PayloadSize == 0 {
		p.PayloadSize = d.PayloadSize
	}
	if p.AckEvery == 0 {
		p.AckEvery = d.AckEvery
	}
	if p.ReadEvery == 0 {
		p.ReadEvery = d.ReadEvery
	}
	if p.Flows == 0 {
		p.Flows = d.Flows
	}
	if p.ConnectTimeout == 0 {
		p.ConnectTimeout = d.ConnectTimeout
	}
	if p.ReplyTimeout == 0 {
		p.ReplyTimeout = d.ReplyTimeout
	}
	return p
}

// ErrInvalidPolicy is wrapped by Validate's errors.
var ErrInvalidPolicy = errors.New("invalid probe policy")

// Validate checks the policy after defaults are applied.
func (p Policy) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%w: "+format, append([]any{ErrInvalidPolicy}, args...)...))
	}
	if p.RoCEDSCP > 63 || p.CNPDSCP > 63 {
		bad("DSCP must be 0-63 (RoCE %d, CNP %d)", p.RoCEDSCP, p.CNPDSCP)
	}
	if p.ECN != ECT0 && p.ECN != ECT1 {
		bad("probe packets must be ECN-capable: ECT(0) or ECT(1), not %s", p.ECN)
	}
	switch p.Profile {
	case ProfileDCQCN, ProfilePFCOnly, ProfileECNOnly:
	default:
		bad("profile %q is not dcqcn, pfc-only or ecn-only", p.Profile)
	}
	if p.HostMTU < 576 || p.HostMTU > 65535 {
		bad("host MTU %d is outside 576-65535", p.HostMTU)
	}
	if p.QPMin%2 != 0 || p.QPMax <= p.QPMin || p.QPMax > 0xFFFFFE {
		bad("QP range 0x%x-0x%x must start even, hold at least one pair and stay below 0xFFFFFF", p.QPMin, p.QPMax)
	}
	if p.Count < 0 || p.Duration < 0 || p.RatePPS < 0 || p.Outstanding < 0 {
		bad("count, duration, rate and outstanding must not be negative")
	}
	if p.PayloadSize < 1 || p.PayloadSize > p.HostMTU-100 {
		bad("payload size %d must be 1..%d", p.PayloadSize, p.HostMTU-100)
	}
	if p.AckEvery < 1 || p.Flows < 1 || p.Flows > 256 {
		bad("ackEvery must be ≥ 1 and flows 1-256")
	}
	for _, s := range p.Sizes {
		if s < 128 || s > p.HostMTU {
			bad("sweep size %d must be 128..host MTU %d", s, p.HostMTU)
		}
	}
	if p.MaxLossPercent < 0 || p.MaxLossPercent > 100 {
		bad("maxLossPercent %.2f must be 0-100", p.MaxLossPercent)
	}
	return errors.Join(errs...)
}
