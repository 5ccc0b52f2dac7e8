package fabriclab

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rocefab/rocefab/examples/lab"
	"github.com/rocefab/rocefab/internal/netnstest"
)

// Lab is a built topology: one namespace per node.
type Lab struct {
	Topology *Topology
	NS       map[string]*netnstest.NS
	t        testing.TB
}

var tables atomic.Uint64

// Example builds examples/lab/topology, the lab up.sh builds.
func Example(t testing.TB) *Lab {
	t.Helper()
	topo, err := Parse(lab.Topology)
	if err != nil {
		t.Fatalf("examples/lab/topology: %v", err)
	}
	return Build(t, topo)
}

// Build creates every node and runs every step; the namespaces are removed
// when the test ends. It fails the test on the first step that fails.
func Build(t testing.TB, topo *Topology) *Lab {
	t.Helper()
	netnstest.Require(t)
	l := &Lab{Topology: topo, NS: map[string]*netnstest.NS{}, t: t}
	for _, s := range topo.Steps {
		switch s.Kind {
		case "node":
			for _, n := range s.Nodes {
				l.NS[n] = netnstest.New(t, n)
			}
		case "link":
			netnstest.Veth(t, l.NS[s.A.Node], s.A.Iface, l.NS[s.B.Node], s.B.Iface, s.MTU)
		case "run":
			if kv, ok := sysctlWrites(s.Args); ok {
				// Written from Go, as up.sh's sysctl would: the tests need
				// no sysctl binary (procps) on the machine.
				for _, n := range s.Nodes {
					for _, w := range kv {
						l.NS[n].Sysctl(t, w[0], w[1])
					}
				}
				continue
			}
			for _, n := range s.Nodes {
				if out, err := l.NS[n].Try(s.Args...); err != nil {
					t.Fatalf("topology line %d on %s: %s: %v\n%s", s.Line, n, strings.Join(s.Args, " "), err, out)
				}
			}
		}
	}
	return l
}

// Run runs a command in node and fails the test if it fails.
func (l *Lab) Run(node string, args ...string) string {
	l.t.Helper()
	return l.node(node).Run(args...)
}

// Do runs fn on a thread inside node's namespace (see netnstest.NS.Do).
func (l *Lab) Do(node string, fn func() error) error { return l.node(node).Do(fn) }

func (l *Lab) node(name string) *netnstest.NS {
	l.t.Helper()
	ns := l.NS[name]
	if ns == nil {
		l.t.Fatalf("fabriclab: no node %q", name)
	}
	return ns
}

// Nft loads rules into a table of their own in node, as one chain on hook
// (postrouting sees forwarded and locally made packets alike, as a port's
// egress does; output only the node's own). The returned func removes the
// table again; so does the end of the test, with the namespace.
//
//	l.Nft(t, "leaf1", "postrouting", `oifname "swp3" ip dscp set cs1`)
func (l *Lab) Nft(t testing.TB, node, hook string, rules ...string) (remove func()) {
	t.Helper()
	netnstest.RequireTool(t, "nft")
	ns := l.node(node)
	table := fmt.Sprintf("rocefab_fault_%d", tables.Add(1))
	var b strings.Builder
	fmt.Fprintf(&b, "table inet %s {\n chain c {\n  type filter hook %s priority 0; policy accept;\n", table, hook)
	for _, r := range rules {
		fmt.Fprintf(&b, "  %s\n", r)
	}
	b.WriteString(" }\n}\n")
	cmd := ns.Command("nft", "-f", "-")
	cmd.Stdin = strings.NewReader(b.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nft on %s: %v\n%s\n%s", node, err, out, b.String())
	}
	return func() {
		if out, err := ns.Try("nft", "delete", "table", "inet", table); err != nil {
			t.Errorf("removing nft table %s on %s: %v %s", table, node, err, out)
		}
	}
}

// WaitReachable waits until from reaches every dst: a UDP datagram to the
// discard port draws ICMP port unreachable back, which proves the route
// both ways and settles neighbour discovery without ping.
func (l *Lab) WaitReachable(t testing.TB, from string, dsts ...netip.Addr) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for _, dst := range dsts {
		for {
			err := l.Do(from, func() error { return portUnreachable(dst) })
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("fabriclab: %s does not reach %s: %v", from, dst, err)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
}

func portUnreachable(dst netip.Addr) error {
	c, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(netip.AddrPortFrom(dst, 9)))
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := c.Write([]byte("rocefab")); err != nil {
		return err
	}
	_ = c.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
	_, err = c.Read(make([]byte, 16))
	if errors.Is(err, syscall.ECONNREFUSED) {
		return nil
	}
	if err == nil {
		return errors.New("something answers on the discard port")
	}
	return err
}

// sysctlWrites reads a "sysctl [-q] [-w] key=value..." step into its
// writes; ok is false for any other command or a sysctl that reads.
func sysctlWrites(args []string) (kv [][2]string, ok bool) {
	if len(args) < 2 || args[0] != "sysctl" {
		return nil, false
	}
	for _, a := range args[1:] {
		if strings.HasPrefix(a, "-") {
			if strings.Trim(a, "-qw") != "" {
				return nil, false
			}
			continue
		}
		k, v, found := strings.Cut(a, "=")
		if !found {
			return nil, false
		}
		kv = append(kv, [2]string{k, v})
	}
	return kv, len(kv) > 0
}
