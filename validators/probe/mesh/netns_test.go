package mesh

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/examples/lab"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/internal/fabriclab"
	"github.com/rocefab/rocefab/internal/netnstest"
	"github.com/rocefab/rocefab/validators/localize"
	"github.com/rocefab/rocefab/validators/probe"
	"github.com/rocefab/rocefab/validators/probe/path"
)

// labMesh is the two-spine lab in namespaces with a probe endpoint on
// every host, and a runner that runs each host's flows in its namespace.
type labMesh struct {
	l     *fabriclab.Lab
	res   *intent.Resolved
	eps   map[string]*probe.Endpoint
	cache *path.Cache
}

func newLabMesh(t *testing.T) *labMesh {
	t.Helper()
	netnstest.Require(t)
	netnstest.RequireTool(t, "nft")
	fab, diags := intent.LoadBytes("fabric.yaml", lab.Intent)
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	res, diags := intent.Resolve(fab)
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	m := &labMesh{l: fabriclab.Example(t), res: res, eps: map[string]*probe.Endpoint{}, cache: path.NewCache(0)}
	for _, h := range res.Hosts {
		err := m.l.Do(h.Name, func() error {
			e, err := probe.NewEndpoint(probe.EndpointConfig{Policy: PolicyFor(res, h), Name: h.Name})
			m.eps[h.Name] = e
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { m.eps[h.Name].Close() })
	}
	return m
}

func (m *labMesh) RunFlows(ctx context.Context, _ *intent.Resolved, from *intent.Host, run probe.FlowRun) ([]probe.FlowResult, error) {
	var out []probe.FlowResult
	err := m.l.Do(from.Name, func() error {
		var err error
		out, err = m.eps[from.Name].RunFlows(ctx, run)
		return err
	})
	return out, err
}

// labOptions keep one mesh run of the lab to a second or two.
func labOptions(cache *path.Cache) Options {
	return Options{Plan: PlanConfig{Interval: time.Second, HostPPS: 10000, FlowPPS: 4000}, Cache: cache, HopTimeout: 300 * time.Millisecond}
}

func (m *labMesh) run(t *testing.T) *Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rep, err := RunMesh(ctx, m.res, m, labOptions(m.cache))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Flows {
		if f.Result.Error != "" || f.Result.TraceError != "" {
			t.Fatalf("flow %s: %s %s", f.ID, f.Result.Error, f.Result.TraceError)
		}
	}
	if len(rep.Plan.Short) != 0 {
		t.Fatalf("links short of flows: %+v", rep.Plan.Short)
	}
	return rep
}

// fabricDir is one fabric link direction of the lab and where to inject
// a fault on it: the sending router's egress port.
type fabricDir struct {
	router, port string
	want         string // the element the localizer must name
}

func labDirections(m *labMesh) []fabricDir {
	var out []fabricDir
	for _, l := range path.New(m.res).FabricLinks() {
		for _, d := range []path.DirLink{{From: l.A, To: l.B}, {From: l.B, To: l.A}} {
			out = append(out, fabricDir{router: d.From.Device, port: d.From.Port, want: elem(d).String()})
		}
	}
	return out
}

func findings(rep *Report, status localize.Status) []string {
	var out []string
	for _, f := range rep.Localization.Findings {
		if f.Status != status {
			continue
		}
		switch {
		case f.Element != nil && f.Both:
			out = append(out, fmt.Sprintf("%s %s (both)", f.Class, f.Element))
		case f.Element != nil:
			out = append(out, fmt.Sprintf("%s %s", f.Class, f.Element))
		default:
			var c []string
			for _, e := range f.Candidates {
				c = append(c, e.String())
			}
			out = append(out, fmt.Sprintf("%s %s", f.Class, strings.Join(c, " | ")))
		}
	}
	slices.Sort(out)
	return out
}

// faultRules are the nftables rules of each fault class, on a port's
// egress (the postrouting hook sees forwarded and locally made packets).
var faultRules = []struct {
	class localize.Class
	rule  string // %s: the port
}{
	{localize.DSCP, `oifname "%s" ip dscp set cs1`},
	{localize.ECN, `oifname "%s" ip ecn set not-ect`},
	{localize.CE, `oifname "%s" ip ecn set ce`},
	{localize.Loss, `oifname "%s" numgen random mod 100 < 5 drop`},
	// A hop whose MTU is 1500 and says nothing (no ICMP): an MTU black
	// hole in one direction.
	{localize.MTU, `oifname "%s" ip length > 1500 drop`},
}

// TestMeshOnTheLab is issue 19's proof on the two-spine lab: a clean
// fabric names nothing over repeated runs; every fault class injected on
// every fabric link in each direction is named, with that direction; two
// faults at once are both named; an MTU of 1500 set with ip is named on
// both directions of its link; and a spine that drops ICMP leaves paths
// partly unknown while what can be localized still is.
func TestMeshOnTheLab(t *testing.T) {
	m := newLabMesh(t)
	dirs := labDirections(m)
	if len(dirs) != 8 {
		t.Fatalf("%d fabric link directions, want 8", len(dirs))
	}

	t.Run("clean, repeated", func(t *testing.T) {
		for run := range 5 {
			rep := m.run(t)
			if !rep.Pass() || len(rep.Localization.Findings) != 0 {
				t.Fatalf("run %d of a clean fabric: %s", run, text(rep))
			}
			for _, f := range rep.Flows {
				if !f.Complete {
					t.Fatalf("run %d: %s has an incomplete path %s", run, f.ID, f.Path)
				}
			}
			if run > 0 && (rep.Plan.Traced != 0 || len(rep.PathChanges) != 0) {
				t.Fatalf("run %d: traced %d candidates again, path changes %v", run, rep.Plan.Traced, rep.PathChanges)
			}
		}
	})

	for _, fr := range faultRules {
		for _, d := range dirs {
			t.Run(fmt.Sprintf("%s on %s", fr.class, d.want), func(t *testing.T) {
				defer m.l.Nft(t, d.router, "postrouting", fmt.Sprintf(fr.rule, d.port))()
				rep := m.run(t)
				want := []string{fmt.Sprintf("%s %s", fr.class, d.want)}
				if got := findings(rep, localize.Localized); !slices.Equal(got, want) || len(rep.Localization.Findings) != 1 {
					t.Fatalf("localized %v, want %v; inconclusive %v\n%s", got, want, findings(rep, localize.Inconclusive), text(rep))
				}
				f := rep.Localization.Findings[0]
				ev := f.Evidence
				if ev.BadThrough < DefaultFlowsPerLink || ev.BadThrough != ev.FlowsThrough || ev.BadElsewhere != 0 || rep.Pass() {
					t.Errorf("evidence %+v: %s", ev, f.Summary)
				}
			})
		}
	}

	t.Run("mtu 1500 set with ip, both directions", func(t *testing.T) {
		m.l.Run("leaf2", "ip", "link", "set", "swp3", "mtu", "1500")
		defer m.l.Run("leaf2", "ip", "link", "set", "swp3", "mtu", "9000")
		rep := m.run(t)
		want := []string{"mtu_blackhole leaf2 swp3 → spine1 swp2 (both)"}
		if got := findings(rep, localize.Localized); !slices.Equal(got, want) || len(rep.Localization.Findings) != 1 {
			t.Fatalf("localized %v, want %v\n%s", got, want, text(rep))
		}
		if d := strings.Join(rep.Localization.Findings[0].Details, "\n"); !strings.Contains(d, "leaf2 answered fragmentation needed, next-hop MTU 1500") {
			t.Errorf("leaf2's own word is missing from the evidence:\n%s", d)
		}
	})

	t.Run("two faults at once", func(t *testing.T) {
		defer m.l.Nft(t, "leaf1", "postrouting", `oifname "swp4" ip dscp set cs1`)()
		defer m.l.Nft(t, "spine1", "postrouting", `oifname "swp2" numgen random mod 100 < 5 drop`)()
		rep := m.run(t)
		want := []string{"dscp_remarked leaf1 swp4 → spine2 swp1", "loss spine1 swp2 → leaf2 swp3"}
		if got := findings(rep, localize.Localized); !slices.Equal(got, want) || len(rep.Localization.Findings) != 2 {
			t.Fatalf("localized %v, want %v\n%s", got, want, text(rep))
		}
	})

	t.Run("paths that change are learned again", func(t *testing.T) {
		// leaf1 hashes on addresses only: flows between the same hosts
		// that took both spines now share one. No fault: the flows that
		// moved are named as path changes, with the path they had, and
		// they move back when leaf1 hashes on ports again.
		policy := func(v string) {
			t.Helper()
			if err := m.l.Do("leaf1", func() error {
				return os.WriteFile("/proc/sys/net/ipv4/fib_multipath_hash_policy", []byte(v), 0o644)
			}); err != nil {
				t.Fatal(err)
			}
		}
		runMesh := func() *Report {
			t.Helper()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			rep, err := RunMesh(ctx, m.res, m, labOptions(m.cache))
			if err != nil {
				t.Fatal(err)
			}
			return rep
		}
		policy("0")
		defer policy("1")
		moved := runMesh()
		if len(moved.PathChanges) == 0 {
			t.Fatalf("leaf1 hashes on addresses now, yet no flow's path changed:\n%s", text(moved))
		}
		for _, c := range moved.PathChanges {
			if !strings.Contains(c, ", was ") {
				t.Errorf("a path change says not what it was: %s", c)
			}
		}
		if len(moved.Localization.Findings) != 0 {
			t.Errorf("a path change is no fault, yet:\n%s", text(moved))
		}
		policy("1")
		if back := runMesh(); len(back.PathChanges) == 0 {
			t.Errorf("leaf1 hashes on ports again, yet no path moved back")
		}
	})

	t.Run("a spine that drops ICMP", func(t *testing.T) {
		defer m.l.Nft(t, "spine1", "output", "icmp type time-exceeded drop")()
		defer m.l.Nft(t, "leaf2", "postrouting", `oifname "swp4" ip ecn set not-ect`)()
		defer m.l.Nft(t, "leaf1", "postrouting", `oifname "swp3" ip dscp set cs1`)()
		rep := m.run(t)
		// The bleach through spine2 is named; the remark behind the silent
		// spine cannot be told from spine1's link onwards, and says so.
		if got := findings(rep, localize.Localized); !slices.Equal(got, []string{"ecn_bleached leaf2 swp4 → spine2 swp2"}) {
			t.Fatalf("localized %v\n%s", got, text(rep))
		}
		if got := findings(rep, localize.Inconclusive); !slices.Equal(got, []string{"dscp_remarked leaf1 swp3 → spine1 swp1 | spine1 swp2 → leaf2 swp3"}) {
			t.Fatalf("inconclusive %v\n%s", got, text(rep))
		}
		unknown := strings.Join(rep.PartlyUnknown, "\n")
		if len(rep.PartlyUnknown) < 2*DefaultFlowsPerLink || !strings.Contains(unknown, "hop 2 did not answer (spine1 by cabling)") || strings.Contains(unknown, "spine2") {
			t.Fatalf("partly unknown paths:\n%s", unknown)
		}
		if !strings.Contains(text(rep), "paths partly unknown\n") {
			t.Fatalf("the text report does not say so:\n%s", text(rep))
		}
	})
}
