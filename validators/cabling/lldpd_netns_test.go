package cabling

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/internal/netnstest"
)

// lldpNode is one namespace running its own lldpd.
type lldpNode struct {
	name string // the intent's device name, and the system name lldpd sends
	ns   *netnstest.NS
	sock string
	log  string
}

// diagnose is what a failure shows of one node: its chassis as lldpd
// sends it and lldpd's log.
func (n *lldpNode) diagnose() string {
	chassis, _ := n.cli("show", "chassis")
	log, _ := os.ReadFile(n.log)
	return fmt.Sprintf("--- %s (%s)\n%s\n%s", n.name, n.ns.Name, chassis, log)
}

// startLLDPD runs lldpd in the foreground in ns with its own control
// socket, so several run on one machine, and names the system: the
// namespaces share the machine's hostname.
func startLLDPD(t *testing.T, ns *netnstest.NS, name string) *lldpNode {
	t.Helper()
	// lldpd's unprivileged half reaches the socket too: t.TempDir is
	// private to root, so the socket lives in a directory it can enter.
	dir, err := os.MkdirTemp("", "rflldpd")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	n := &lldpNode{name: name, ns: ns, sock: filepath.Join(dir, "lldpd.sock"), log: filepath.Join(dir, "lldpd.log")}
	cmd := ns.Command("lldpd", "-d", "-u", n.sock, "-p", filepath.Join(dir, "lldpd.pid"))
	logf, err := os.Create(n.log)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close() // the child holds its own copy
	cmd.Stderr = logf
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting lldpd in %s: %v", ns.Name, err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	// lldpd starts paused and reads its configuration through lldpcli
	// before it resumes; a hostname set before then is lost.
	deadline := time.Now().Add(10 * time.Second)
	for {
		log, _ := os.ReadFile(n.log)
		if strings.Contains(string(log), "resume operations") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("lldpd in %s did not resume within 10s:\n%s", ns.Name, log)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Send every second, and now: the first frames went out under the
	// machine's hostname.
	for _, args := range [][]string{{"configure", "system", "hostname", name}, {"configure", "lldp", "tx-interval", "1"}, {"update"}} {
		if out, err := n.cli(args...); err != nil {
			t.Fatalf("lldpcli %s in %s: %v: %s", strings.Join(args, " "), ns.Name, err, out)
		}
	}
	if out, _ := n.cli("-f", "json", "show", "chassis"); !strings.Contains(out, `"`+name+`"`) {
		t.Fatalf("lldpd in %s does not send the system name %s:\n%s", ns.Name, name, out)
	}
	return n
}

func (n *lldpNode) cli(args ...string) (string, error) {
	return n.ns.Try(append([]string{"lldpcli", "-u", n.sock}, args...)...)
}

// neighbours reads and parses `lldpcli -f json show neighbors`.
func (n *lldpNode) neighbours(t *testing.T) []Neighbor {
	t.Helper()
	out, err := n.ns.Command("lldpcli", "-u", n.sock, "-f", "json", "show", "neighbors").Output()
	if err != nil {
		t.Fatalf("lldpcli show neighbors in %s: %v", n.ns.Name, err)
	}
	nbs, err := ParseLLDPCLI(n.name, out)
	if err != nil {
		t.Fatalf("parsing %s's neighbours: %v\n%s", n.name, err, out)
	}
	return nbs
}

// TestLLDPDCabling runs real lldpd in three namespaces (a leaf and two
// hosts joined by veths), reads every node's neighbours with lldpcli and
// classifies them against the intent: cabled as written, every link is
// verified; with the two host cables swapped, both are miscabled and each
// finding names both ends.
func TestLLDPDCabling(t *testing.T) {
	netnstest.Require(t)
	netnstest.RequireTool(t, "lldpd")
	netnstest.RequireTool(t, "lldpcli")
	links := []intent.Link{
		hostLink("gpu03:ens1f0", "leaf1:Ethernet7"),
		hostLink("gpu04:ens1f0", "leaf1:Ethernet8"),
	}
	known := []string{"leaf1", "gpu03", "gpu04"}
	cases := []struct {
		name  string
		cable map[string]string // host NIC's device to the leaf port it is cabled to
		want  []Status
		msgs  []string
	}{
		{"cabled as the intent says", map[string]string{"gpu03": "Ethernet7", "gpu04": "Ethernet8"},
			[]Status{Verified, Verified}, nil},
		{"host cables swapped", map[string]string{"gpu03": "Ethernet8", "gpu04": "Ethernet7"},
			[]Status{Miscabled, Miscabled}, []string{
				"gpu03 ens1f0 reaches leaf1 Ethernet8; the intent says leaf1 Ethernet7. leaf1 Ethernet7 reaches gpu04 ens1f0; the intent says gpu03 ens1f0",
				"gpu04 ens1f0 reaches leaf1 Ethernet7; the intent says leaf1 Ethernet8. leaf1 Ethernet8 reaches gpu03 ens1f0; the intent says gpu04 ens1f0",
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			leafNS := netnstest.New(t, "leaf1")
			var hostNS []*netnstest.NS
			for _, h := range []string{"gpu03", "gpu04"} {
				ns := netnstest.New(t, h)
				netnstest.Veth(t, ns, "ens1f0", leafNS, tc.cable[h], 0)
				hostNS = append(hostNS, ns)
			}
			nodes := []*lldpNode{startLLDPD(t, leafNS, "leaf1"),
				startLLDPD(t, hostNS[0], "gpu03"), startLLDPD(t, hostNS[1], "gpu04")}

			// Wait, bounded, until every port hears its neighbour by the
			// name it was given.
			var obs Observed
			deadline := time.Now().Add(30 * time.Second)
			for {
				obs = Observed{Read: known}
				for _, n := range nodes {
					obs.Neighbors = append(obs.Neighbors, n.neighbours(t)...)
				}
				if named(obs.Neighbors, known) == 4 {
					break
				}
				if time.Now().After(deadline) {
					var diag []string
					for _, n := range nodes {
						diag = append(diag, n.diagnose())
					}
					t.Fatalf("lldpd neighbours not all seen by name within 30s: %+v\n%s", obs.Neighbors, strings.Join(diag, "\n"))
				}
				time.Sleep(250 * time.Millisecond)
			}
			rep := Classify(links, known, obs)
			var got []Status
			var msgs []string
			for _, f := range rep.Findings {
				got = append(got, f.Status)
				if f.Status != Verified {
					msgs = append(msgs, f.Message)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) || fmt.Sprint(msgs) != fmt.Sprint(tc.msgs) {
				var b strings.Builder
				_ = rep.WriteText(&b)
				t.Fatalf("statuses %v, want %v; messages:\n%s\nwant:\n%s\nreport:\n%s", got, tc.want,
					strings.Join(msgs, "\n"), strings.Join(tc.msgs, "\n"), b.String())
			}
		})
	}
}

// named counts neighbours that carry one of the given system names.
func named(nbs []Neighbor, names []string) int {
	c := 0
	for _, n := range nbs {
		for _, name := range names {
			if n.SysName == name {
				c++
				break
			}
		}
	}
	return c
}
