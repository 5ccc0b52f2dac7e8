package path

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/examples/lab"
	"github.com/rocefab/rocefab/intent"
)

func labTopology(t testing.TB) *Topology {
	t.Helper()
	fab, diags := intent.LoadBytes("fabric.yaml", lab.Intent)
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	res, diags := intent.Resolve(fab)
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	return New(res)
}

var (
	h1 = netip.MustParseAddr("192.0.2.2")
	h3 = netip.MustParseAddr("198.51.100.2")
)

func hops(addrs ...string) []Hop {
	var out []Hop
	for i, a := range addrs {
		h := Hop{TTL: i + 1}
		if a != "" {
			h.From = netip.MustParseAddr(a)
		}
		out = append(out, h)
	}
	return out
}

func links(p Path) string {
	var parts []string
	for _, s := range p.Steps {
		var in []string
		for _, l := range s.In {
			in = append(in, l.String())
		}
		parts = append(parts, strings.Join(in, " | "))
	}
	return strings.Join(parts, "; ")
}

func TestTopologyFromTheLab(t *testing.T) {
	topo := labTopology(t)
	if got := topo.Leaves(); strings.Join(got, ",") != "leaf1,leaf2" {
		t.Errorf("leaves %v", got)
	}
	if got := topo.HostsUnder("leaf2"); strings.Join(got, ",") != "h3,h4" {
		t.Errorf("hosts under leaf2 %v", got)
	}
	if n := len(topo.FabricLinks()); n != 4 {
		t.Errorf("%d fabric links", n)
	}
	for addr, want := range map[string]string{
		"192.0.2.130": "spine1 swp1", "198.51.100.133": "leaf2 swp4", "192.0.2.6": "h2 eth0",
	} {
		if p, ok := topo.Lookup(netip.MustParseAddr(addr)); !ok || p.String() != want {
			t.Errorf("Lookup(%s) = %v %v, want %s", addr, p, ok, want)
		}
	}
	if _, ok := topo.Lookup(netip.MustParseAddr("203.0.113.1")); ok {
		t.Error("an address the intent does not list must not map")
	}
	// From spine1 back to h1 the cabling leaves one way; from leaf2 either
	// spine.
	rp := topo.ReturnPath("spine1", "h1")
	if len(rp) != 2 || len(rp[0]) != 1 || rp[0][0].String() != "spine1 swp1 → leaf1 swp3" || rp[1][0].String() != "leaf1 swp1 → h1 eth0" {
		t.Errorf("return path from spine1: %v", rp)
	}
	rp = topo.ReturnPath("leaf2", "h1")
	if len(rp) != 3 || len(rp[0]) != 2 || len(rp[1]) != 2 || len(rp[2]) != 1 {
		t.Errorf("return path from leaf2: %v", rp)
	}
}

func TestResolve(t *testing.T) {
	topo := labTopology(t)
	for _, tc := range []struct {
		name     string
		trace    Trace
		path     string
		links    string
		complete bool
		unknown  int
	}{
		{
			name:     "every hop answers from its ingress port",
			trace:    Trace{Hops: hops("192.0.2.1", "192.0.2.130", "198.51.100.129"), Reached: true},
			path:     "h1 → leaf1 → spine1 → leaf2 → h3",
			links:    "h1 eth0 → leaf1 swp1; leaf1 swp3 → spine1 swp1; spine1 swp2 → leaf2 swp3; leaf2 swp1 → h3 eth0",
			complete: true,
		},
		{
			name:  "a spine that drops ICMP is inferred between two known ports",
			trace: Trace{Hops: hops("192.0.2.1", "", "198.51.100.133"), Reached: true},
			path:  "h1 → leaf1 → (spine2?) → leaf2 → h3",
			links: "h1 eth0 → leaf1 swp1; leaf1 swp4 → spine2 swp1; spine2 swp2 → leaf2 swp4; leaf2 swp1 → h3 eth0",
			// Inferred is not answered.
			unknown: 1,
		},
		{
			name:    "a silent destination leaf is the one the host is cabled to",
			trace:   Trace{Hops: hops("192.0.2.1", "192.0.2.130", ""), Reached: true},
			path:    "h1 → leaf1 → spine1 → (leaf2?) → h3",
			links:   "h1 eth0 → leaf1 swp1; leaf1 swp3 → spine1 swp1; spine1 swp2 → leaf2 swp3; leaf2 swp1 → h3 eth0",
			unknown: 1,
		},
		{
			name:  "two silent hops stay unknown",
			trace: Trace{Hops: hops("192.0.2.1", "", ""), Reached: true},
			path:  "h1 → leaf1 → ? → ? → h3",
			// Out of leaf1: either uplink (never to another host); into h3: its cable.
			links:   "h1 eth0 → leaf1 swp1; leaf1 swp3 → spine1 swp1 | leaf1 swp4 → spine2 swp1; ; leaf2 swp1 → h3 eth0",
			unknown: 2,
		},
		{
			name:    "an address the intent does not list",
			trace:   Trace{Hops: hops("192.0.2.1", "203.0.113.9", "198.51.100.129"), Reached: true},
			path:    "h1 → leaf1 → 203.0.113.9 (spine1?) → leaf2 → h3",
			links:   "h1 eth0 → leaf1 swp1; leaf1 swp3 → spine1 swp1; spine1 swp2 → leaf2 swp3; leaf2 swp1 → h3 eth0",
			unknown: 1,
		},
		{
			name:    "a first hop from an unlisted address is the switch the NIC is cabled to",
			trace:   Trace{Hops: hops("203.0.113.1", "192.0.2.134", "198.51.100.133"), Reached: true},
			path:    "h1 → 203.0.113.1 (leaf1?) → spine2 → leaf2 → h3",
			links:   "h1 eth0 → leaf1 swp1; leaf1 swp4 → spine2 swp1; spine2 swp2 → leaf2 swp4; leaf2 swp1 → h3 eth0",
			unknown: 1,
		},
		{
			name:    "not reached: trailing silence is a gap, not hops",
			trace:   Trace{Hops: hops("192.0.2.1", "192.0.2.134", "", "", ""), Reached: false},
			path:    "h1 → leaf1 → spine2 → … → h3",
			links:   "h1 eth0 → leaf1 swp1; leaf1 swp4 → spine2 swp1; leaf2 swp1 → h3 eth0",
			unknown: 1,
		},
		{
			name:    "nothing answered: the source's switch by cabling, then a gap",
			trace:   Trace{Hops: hops("", "", ""), Reached: false},
			path:    "h1 → (leaf1?) → … → h3",
			links:   "h1 eth0 → leaf1 swp1; leaf2 swp1 → h3 eth0",
			unknown: 2,
		},
		{
			name: "a router answering from its egress port still maps the single link",
			// leaf2 answers from swp4 although the packet came from spine1.
			trace:    Trace{Hops: hops("192.0.2.1", "192.0.2.130", "198.51.100.133"), Reached: true},
			path:     "h1 → leaf1 → spine1 → leaf2 → h3",
			links:    "h1 eth0 → leaf1 swp1; leaf1 swp3 → spine1 swp1; spine1 swp2 → leaf2 swp3; leaf2 swp1 → h3 eth0",
			complete: true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := tc.trace
			tr.SrcHost, tr.DstHost, tr.Src, tr.Dst = "h1", "h3", h1, h3
			p := topo.Resolve(tr)
			if got := p.String(); got != tc.path {
				t.Errorf("path %q, want %q", got, tc.path)
			}
			if got := links(p); got != tc.links {
				t.Errorf("links\n got %s\nwant %s", got, tc.links)
			}
			if p.Complete() != tc.complete || len(p.Unknown()) != tc.unknown {
				t.Errorf("complete %v unknown %v, want %v and %d", p.Complete(), p.Unknown(), tc.complete, tc.unknown)
			}
		})
	}
}

func TestCacheLearnsChanges(t *testing.T) {
	topo := labTopology(t)
	now := time.Unix(1000, 0)
	c := NewCache(time.Hour)
	c.Now = func() time.Time { return now }
	k := Key{Src: h1, Dst: h3, SrcPort: 50000, DstPort: 4791}
	trace := func(addrs ...string) Path {
		return topo.Resolve(Trace{SrcHost: "h1", DstHost: "h3", Src: h1, Dst: h3, Hops: hops(addrs...), Reached: true})
	}
	viaSpine1 := trace("192.0.2.1", "192.0.2.130", "198.51.100.129")
	if _, changed := c.Learn(k, viaSpine1); changed {
		t.Fatal("a first path is not a change")
	}
	if _, changed := c.Learn(k, viaSpine1); changed {
		t.Fatal("the same path again is not a change")
	}
	// spine1 stays silent this time: a gap in the evidence, not a new path.
	if _, changed := c.Learn(k, trace("192.0.2.1", "", "198.51.100.129")); changed {
		t.Fatal("a silent hop on the same path is not a change")
	}
	if e, _ := c.Get(k); e.Path.Signature() != viaSpine1.Signature() {
		t.Fatal("the complete path must stay cached")
	}
	prev, changed := c.Learn(k, trace("192.0.2.1", "192.0.2.134", "198.51.100.133"))
	if !changed || prev.Signature() != viaSpine1.Signature() {
		t.Fatalf("rehashed onto spine2: changed %v, previous %s", changed, prev)
	}
	if e, ok := c.Get(k); !ok || e.Changed != 1 || e.Path.Steps[1].Device != "spine2" {
		t.Fatalf("entry %+v", e)
	}
	now = now.Add(2 * time.Hour)
	if _, ok := c.Get(k); ok {
		t.Fatal("a path older than MaxAge must be re-learned")
	}
}
