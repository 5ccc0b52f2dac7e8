package probe

import (
	"fmt"
	"io"
	"net/netip"
	"os"
	"time"

	"go.uber.org/zap"

	nic "github.com/rocefab/rocefab/validators/doctor/counters"

	"github.com/rocefab/rocefab/validators/probe/transport"
)

// DefaultRunDir holds the control socket of a running probe server.
const DefaultRunDir = "/run/rocefab"

// ControlSocketName is the control socket's file name inside RunDir.
const ControlSocketName = "probe.sock"

// EndpointConfig configures the one probe endpoint of a host: it answers
// other hosts' probes and sends this host's.
type EndpointConfig struct {
	// Policy supplies the P_Key and QP range the endpoint answers, the DSCP
	// and ECN it puts on replies and CNPs, and HostMTU (the largest packet
	// it expects and the size of its READ response segments).
	Policy Policy
	// Port is the RoCEv2 UDP port every probe packet is sent to (4791).
	Port uint16
	// Listen lists the local addresses to bind; empty means 0.0.0.0 and ::.
	Listen []netip.Addr
	// RunDir holds the control socket: Serve creates it so that Run on the
	// same host goes through the server instead of binding the port again.
	// Empty disables it.
	RunDir string

	// Rate limits on what the responder sends back (0: default, <0: none).
	ReplyPPS         int // ACK, NAK, READ response and stats packets per second
	ReplyBytesPerSec int
	CNPPPS           int
	// MaxReadBytes caps the DMA length of a READ the responder serves.
	MaxReadBytes int
	// MaxPeers caps the responder's per-(peer, QP) state.
	MaxPeers int

	// Name labels this host in reports (default: the hostname).
	Name string
	// Network opens the sockets; nil means real UDP sockets, created by
	// NewEndpoint in the calling thread's network namespace.
	Network transport.Network
	Logger  *zap.Logger

	now func() time.Time // test clock for the rate limiters
}

// Defaults for EndpointConfig's zero fields. Replies and CNPs are capped so
// a spoofed flood can reflect at most about 70 Mbit/s off a responder;
// replies the caps suppress are counted and reported, never read as loss.
const (
	defaultReplyPPS         = 20_000
	defaultReplyBytesPerSec = 8 << 20
	defaultCNPPPS           = 20_000
	defaultMaxReadBytes     = 64 << 10
	defaultMaxPeers         = 4096
)

// DefaultEndpointConfig returns the product defaults.
func DefaultEndpointConfig() EndpointConfig {
	return EndpointConfig{Policy: DefaultPolicy(), Port: DefaultPort, RunDir: DefaultRunDir}
}

func (c EndpointConfig) withDefaults() EndpointConfig {
	c.Policy = c.Policy.withDefaults()
	if c.Port == 0 {
		c.Port = DefaultPort
	}
	if len(c.Listen) == 0 {
		c.Listen = []netip.Addr{netip.IPv4Unspecified(), netip.IPv6Unspecified()}
	}
	if c.ReplyPPS == 0 {
		c.ReplyPPS = defaultReplyPPS
	}
	if c.ReplyBytesPerSec == 0 {
		c.ReplyBytesPerSec = defaultReplyBytesPerSec
	}
	if c.CNPPPS == 0 {
		c.CNPPPS = defaultCNPPPS
	}
	if c.MaxReadBytes == 0 {
		c.MaxReadBytes = defaultMaxReadBytes
	}
	if c.MaxPeers == 0 {
		c.MaxPeers = defaultMaxPeers
	}
	if c.Name == "" {
		c.Name, _ = os.Hostname()
	}
	if c.Logger == nil {
		c.Logger = zap.NewNop()
	}
	return c
}

// Target is one responder to probe.
type Target struct {
	Name string     `json:"name,omitempty"` // shown in the report; default the address
	Addr netip.Addr `json:"addr"`
}

func (t Target) label() string {
	if t.Name != "" {
		return t.Name
	}
	return t.Addr.String()
}

// ParseTarget accepts an IP address, optionally as NAME=ADDR.
func ParseTarget(s string) (Target, error) {
	name, addr := "", s
	for i := range len(s) {
		if s[i] == '=' {
			name, addr = s[:i], s[i+1:]
			break
		}
	}
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return Target{}, fmt.Errorf("probe target %q: %w", s, err)
	}
	return Target{Name: name, Addr: a.Unmap()}, nil
}

// RunConfig is one probe run from this host to one or more targets.
type RunConfig struct {
	Targets []Target
	Policy  Policy
	// From labels this host in the report (default: the endpoint's Name).
	From string
	// Parallel is how many pairs are probed at once (default 4).
	Parallel int
	// Pcap, if set, receives a pcap of every probe packet this host sent
	// and received for the run.
	Pcap io.Writer
	// Endpoint configures the endpoint Run opens when no server is running;
	// its RunDir is where Run looks for one.
	Endpoint EndpointConfig
	Logger   *zap.Logger
	// HostCounters, if set, reads this host's NIC counters before and
	// after the run; the report carries the deltas.
	HostCounters *nic.HostProbe
}
