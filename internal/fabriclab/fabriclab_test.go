package fabriclab

import (
	"fmt"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/examples/lab"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/internal/netnstest"
)

func TestParseErrorsNameTheLine(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"node a b\nlink a:eth0 c:eth0 9000\n", "line 2: link end c:eth0 names an undeclared node"},
		{"node a\nnode a\n", "line 2: node a declared twice"},
		{"node a b\nlink a:eth0 b:eth0 big\n", `line 2: MTU "big" is not 68..65535`},
		{"node a\na,b ip link\n", `line 2: "b" is not a declared node`},
		{"node a\n\n# c\na\n", "line 4: no command for a"},
		{"# only comments\n", "declares no node"},
	} {
		_, err := Parse(tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want %q", tc.text, err, tc.want)
		}
	}
}

// TestExampleAgreesWithItsIntent: examples/lab/topology and fabric.yaml
// describe one fabric: the same cables, and the intent's fabric-link
// addresses are the ones the topology puts on those ports.
func TestExampleAgreesWithItsIntent(t *testing.T) {
	topo, err := Parse(lab.Topology)
	if err != nil {
		t.Fatal(err)
	}
	fab, diags := intent.LoadBytes("fabric.yaml", lab.Intent)
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	res, diags := intent.Resolve(fab)
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	addrs := map[string]string{} // node:iface -> address
	for _, s := range topo.Steps {
		if s.Kind == "run" && len(s.Args) == 6 && strings.Join(s.Args[:3], " ") == "ip addr add" && s.Args[4] == "dev" {
			p, err := netip.ParsePrefix(s.Args[3])
			if err != nil {
				t.Fatalf("line %d: %v", s.Line, err)
			}
			addrs[s.Nodes[0]+":"+s.Args[5]] = p.Addr().String()
		}
	}
	cables := map[string]bool{}
	for _, s := range topo.Links() {
		cables[s.A.String()+" "+s.B.String()] = true
	}
	if len(res.Links) != len(cables) {
		t.Errorf("intent has %d links, topology %d", len(res.Links), len(cables))
	}
	fabricLinks := 0
	for _, l := range res.Links {
		key := l.A.String() + " " + l.B.String()
		if !cables[key] {
			t.Errorf("intent link %s is not cabled in the topology", key)
		}
		for _, end := range []struct {
			ep   intent.Endpoint
			addr string
		}{{l.A, l.AAddress}, {l.B, l.BAddress}} {
			if h := res.Host(end.ep.Device); h != nil {
				if got := addrs[end.ep.String()]; got != h.NICs[0].Address {
					t.Errorf("%s: topology address %s, intent NIC address %s", end.ep, got, h.NICs[0].Address)
				}
				continue
			}
			if end.addr == "" {
				t.Errorf("link %s: the intent gives %s no address", key, end.ep)
			}
			if end.addr != "" && addrs[end.ep.String()] != end.addr {
				t.Errorf("%s: intent address %s, topology %q", end.ep, end.addr, addrs[end.ep.String()])
			}
		}
		if l.HostEnd == nil {
			fabricLinks++
		}
	}
	if fabricLinks != 4 {
		t.Errorf("%d fabric links, want every leaf cabled to both spines (4)", fabricLinks)
	}
}

// TestExampleBuildsAndCleansUp: the lab comes up, every host reaches
// every other, and no namespace outlives the test.
func TestExampleBuildsAndCleansUp(t *testing.T) {
	var names []string
	t.Run("build", func(t *testing.T) {
		l := Example(t)
		for _, ns := range l.NS {
			names = append(names, ns.Name)
		}
		hosts := map[string]netip.Addr{
			"h1": netip.MustParseAddr("192.0.2.2"), "h2": netip.MustParseAddr("192.0.2.6"),
			"h3": netip.MustParseAddr("198.51.100.2"), "h4": netip.MustParseAddr("198.51.100.6"),
		}
		for from := range hosts {
			var dsts []netip.Addr
			for to, a := range hosts {
				if to != from {
					dsts = append(dsts, a)
				}
			}
			l.WaitReachable(t, from, dsts...)
		}
		if out := l.Run("leaf1", "ip", "route", "show", "198.51.100.0/24"); !strings.Contains(out, "nhid 10") {
			t.Errorf("leaf1 should reach leaf2's hosts over the nexthop group: %s", out)
		}
		if out := l.Run("leaf2", "cat", "/proc/sys/net/ipv4/fib_multipath_hash_policy"); strings.TrimSpace(out) != "1" {
			t.Errorf("leaf2 hashes on %s, want L4 (1)", out)
		}
	})
	out, _ := exec.Command("ip", "netns", "list").Output()
	for _, n := range names {
		if strings.Contains(string(out), n) {
			t.Errorf("namespace %s leaked", n)
		}
	}
	if len(names) != 8 {
		t.Errorf("%d namespaces, want 8", len(names))
	}
}

// TestLabScripts runs examples/lab/up.sh and down.sh as written, under a
// prefix of this test's own so a lab someone runs by hand is left alone:
// every node comes up (up.sh itself checks h1 reaches h4 where ping is
// installed), leaf1 reaches leaf2's hosts over the nexthop group, and
// down.sh leaves nothing behind.
func TestLabScripts(t *testing.T) {
	netnstest.Require(t)
	// The scripts as users run them: the topology's sysctl steps and
	// up.sh's awk need procps and awk, which a Go-only machine lacks.
	for _, tool := range []string{"bash", "sysctl", "awk"} {
		netnstest.RequireTool(t, tool)
	}
	topo, err := Parse(lab.Topology)
	if err != nil {
		t.Fatal(err)
	}
	prefix := fmt.Sprintf("rfs%d-", os.Getpid()%100000)
	script := func(name string) string {
		t.Helper()
		cmd := exec.Command("bash", filepath.Join(labDir(t), name))
		cmd.Env = append(os.Environ(), "RFLAB_PREFIX="+prefix)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		return string(out)
	}
	t.Cleanup(func() {
		cmd := exec.Command("bash", filepath.Join(labDir(t), "down.sh"))
		cmd.Env = append(os.Environ(), "RFLAB_PREFIX="+prefix)
		_ = cmd.Run()
	})
	out := script("up.sh")
	list, _ := exec.Command("ip", "netns", "list").Output()
	for _, n := range topo.Nodes {
		if !strings.Contains(string(list), prefix+n) {
			t.Errorf("up.sh made no namespace %s%s:\n%s", prefix, n, out)
		}
	}
	if r, err := exec.Command("ip", "-n", prefix+"leaf1", "route", "show", "198.51.100.0/24").CombinedOutput(); err != nil || !strings.Contains(string(r), "nhid 10") {
		t.Errorf("leaf1's route to leaf2's hosts: %v %s", err, r)
	}
	script("down.sh")
	list, _ = exec.Command("ip", "netns", "list").Output()
	if strings.Contains(string(list), prefix) {
		t.Fatalf("down.sh left namespaces:\n%s", list)
	}
}

func labDir(t *testing.T) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "examples", "lab")
}
