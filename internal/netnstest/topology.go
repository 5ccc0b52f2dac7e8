package netnstest

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// Line is host A — router — host B, the smallest fabric that crosses a
// forwarding hop. Documentation prefixes only: A sits in 192.0.2.0/24 and
// 2001:db8:a::/64, B in 198.51.100.0/24 and 2001:db8:b::/64.
type Line struct {
	A, Router, B *NS
	// Interface names: A's uplink, the router's two legs, B's uplink.
	AIf, RouterAIf, RouterBIf, BIf string
	AAddr, BAddr                   netip.Addr // IPv4
	AAddr6, BAddr6                 netip.Addr // IPv6
}

// LineOptions sets the MTU of each hop; zero means 9000.
type LineOptions struct {
	MTUA, MTUB int // A–router and router–B links
}

// NewLine builds the topology and waits until IPv6 addresses are usable.
func NewLine(t testing.TB, opt LineOptions) *Line {
	t.Helper()
	if opt.MTUA == 0 {
		opt.MTUA = 9000
	}
	if opt.MTUB == 0 {
		opt.MTUB = 9000
	}
	l := &Line{
		A: New(t, "ha"), Router: New(t, "sw"), B: New(t, "hb"),
		AIf: "eth0", RouterAIf: "swp1", RouterBIf: "swp2", BIf: "eth0",
		AAddr: netip.MustParseAddr("192.0.2.1"), BAddr: netip.MustParseAddr("198.51.100.1"),
		AAddr6: netip.MustParseAddr("2001:db8:a::1"), BAddr6: netip.MustParseAddr("2001:db8:b::1"),
	}
	Veth(t, l.A, l.AIf, l.Router, l.RouterAIf, opt.MTUA)
	Veth(t, l.Router, l.RouterBIf, l.B, l.BIf, opt.MTUB)
	l.Router.Sysctl(t, "net.ipv4.ip_forward", "1")
	l.Router.Sysctl(t, "net.ipv6.conf.all.forwarding", "1")
	for _, cmd := range [][]string{
		{"ip", "addr", "add", "192.0.2.254/24", "dev", l.RouterAIf},
		{"ip", "addr", "add", "198.51.100.254/24", "dev", l.RouterBIf},
		{"ip", "-6", "addr", "add", "2001:db8:a::fe/64", "dev", l.RouterAIf, "nodad"},
		{"ip", "-6", "addr", "add", "2001:db8:b::fe/64", "dev", l.RouterBIf, "nodad"},
	} {
		l.Router.Run(cmd...)
	}
	for _, h := range []struct {
		ns          *NS
		ifc, a4, a6 string
		gw4, gw6    string
	}{
		{l.A, l.AIf, "192.0.2.1/24", "2001:db8:a::1/64", "192.0.2.254", "2001:db8:a::fe"},
		{l.B, l.BIf, "198.51.100.1/24", "2001:db8:b::1/64", "198.51.100.254", "2001:db8:b::fe"},
	} {
		h.ns.Run("ip", "addr", "add", h.a4, "dev", h.ifc)
		h.ns.Run("ip", "-6", "addr", "add", h.a6, "dev", h.ifc, "nodad")
		h.ns.Run("ip", "route", "add", "default", "via", h.gw4)
		h.ns.Run("ip", "-6", "route", "add", "default", "via", h.gw6)
	}
	l.waitReachable(t)
	return l
}

// waitReachable pings across the router until neighbour discovery settles.
func (l *Line) waitReachable(t testing.TB) {
	t.Helper()
	if err := l.A.WaitReachable(10*time.Second, l.BAddr, l.BAddr6); err != nil {
		t.Fatalf("topology: %v", err)
	}
}

// Nft loads an nftables ruleset into the router's forward path, for fault
// injection. Rules are nft statements, e.g. "udp dport 4791 ip dscp set cs1".
func (l *Line) Nft(t testing.TB, rules ...string) {
	t.Helper()
	RequireTool(t, "nft")
	var b strings.Builder
	b.WriteString("table inet rocefab_fault {\n chain forward {\n  type filter hook forward priority 0; policy accept;\n")
	for _, r := range rules {
		fmt.Fprintf(&b, "  %s\n", r)
	}
	b.WriteString(" }\n}\n")
	cmd := l.Router.Command("nft", "-f", "-")
	cmd.Stdin = strings.NewReader(b.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nft: %v\n%s\n%s", err, out, b.String())
	}
}

// ClearNft removes any fault ruleset loaded with Nft.
func (l *Line) ClearNft(t testing.TB) {
	t.Helper()
	_, _ = l.Router.Try("nft", "delete", "table", "inet", "rocefab_fault")
}
