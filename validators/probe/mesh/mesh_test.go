package mesh

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers/all"
	"github.com/rocefab/rocefab/validators/doctor/counters"
	"github.com/rocefab/rocefab/validators/lint"
	"github.com/rocefab/rocefab/validators/probe"
)

func examples(name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "examples", name)
}

func load(t *testing.T, name string) *intent.Resolved {
	t.Helper()
	res, diags := lint.Validate(all.Renderers(), examples(name))
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	return res
}

func TestPairsFromCabling(t *testing.T) {
	for _, tc := range []struct {
		example             string
		sameLeaf, crossLeaf int
	}{
		// 8 leaves of 8 hosts: 28 pairs under each leaf; 28 leaf pairs with
		// a sample of 2 (the default) each.
		{"ai-cluster", 8 * 28, 28 * 2},
		// The lab: h1,h2 under leaf1 and h3,h4 under leaf2.
		{"lab", 2, 2},
	} {
		t.Run(tc.example, func(t *testing.T) {
			pairs := Pairs(load(t, tc.example))
			same, cross := 0, 0
			seen := map[string]bool{}
			for _, p := range pairs {
				key := p.From.Name + ">" + p.To.Name
				if seen[key] || p.From == p.To {
					t.Fatalf("pair %s repeated or to itself", key)
				}
				seen[key] = true
				if p.Leaf != "" {
					same++
				} else {
					cross++
				}
			}
			if same != tc.sameLeaf || cross != tc.crossLeaf {
				t.Fatalf("same-leaf %d cross-leaf %d, want %d and %d", same, cross, tc.sameLeaf, tc.crossLeaf)
			}
		})
	}
}

func TestPolicyForMapsTheIntent(t *testing.T) {
	res := load(t, "basic")
	p := PolicyFor(res, res.Hosts[0])
	if p.RoCEDSCP != 26 || p.CNPDSCP != 48 || p.HostMTU != 9000 || p.Profile != probe.ProfileDCQCN {
		t.Fatalf("policy %+v", p)
	}
	if p.PKey != uint16(res.Probe.PKey) || p.QPMin != uint32(res.Probe.QPMin) || p.Count != 200 || p.RatePPS != 2000 {
		t.Fatalf("probe settings not carried: %+v", p)
	}
	if p.PayloadSize != 64 {
		t.Fatalf("payload %d, want the smallest intent size 64", p.PayloadSize)
	}
	// 1024 and 4096 byte payloads are swept as 1068 and 4140 byte packets.
	for _, want := range []int{1068, 4140} {
		found := false
		for _, s := range p.Sizes {
			found = found || s == want
		}
		if !found {
			t.Errorf("sweep sizes %v lack %d", p.Sizes, want)
		}
	}
	if err := p.Validate(); err != nil {
		t.Fatalf("the mapped policy is not valid: %v", err)
	}
}

type fakeProber struct{ fail map[string]bool }

func (f fakeProber) Probe(_ context.Context, _ *intent.Resolved, from *intent.Host, targets []probe.Target, pol probe.Policy) (*probe.Report, error) {
	if f.fail[from.Name] {
		return nil, errors.New("ssh: connection refused")
	}
	var pairs []probe.PairResult
	for _, t := range targets {
		pairs = append(pairs, probe.PairResult{From: from.Name, To: t.Name, Measurements: probe.Measurements{Reachable: false, Error: "test"}})
	}
	rep := probe.NewReport(pairs, pol)
	rep.HostCounters = []counters.HostReport{{Host: from.Name, NICs: []string{"eth0"}, Unavailable: "unavailable on this NIC: eth0 has no RDMA device"}}
	return rep, nil
}

func TestRunNamesHostsThatCannotProbe(t *testing.T) {
	res := load(t, "lab")
	rep := Run(context.Background(), res, Pairs(res), fakeProber{fail: map[string]bool{"h1": true}}, 2)
	if rep.Pass() {
		t.Fatal("a host that cannot probe must fail the verdict")
	}
	var msgs []string
	for _, f := range rep.Findings {
		msgs = append(msgs, fmt.Sprintf("%s %s", f.Code, f.Pair))
	}
	joined := strings.Join(msgs, "\n")
	if !strings.Contains(joined, "no_responder h1 -> h2") {
		t.Fatalf("findings:\n%s", joined)
	}
	if len(rep.Pairs) != 4 {
		t.Fatalf("want every pair reported, got %d", len(rep.Pairs))
	}
	// Each host that probed brings its NIC counters into the fabric report.
	var hosts []string
	for _, hc := range rep.HostCounters {
		hosts = append(hosts, hc.Host)
	}
	if len(hosts) == 0 || slices.Contains(hosts, "h1") {
		t.Fatalf("host counters from %v: want every host that probed, not h1", hosts)
	}
}
