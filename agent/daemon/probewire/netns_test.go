package probewire

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/rocefab/rocefab/agent/daemon"
	"github.com/rocefab/rocefab/agent/daemon/history"
	"github.com/rocefab/rocefab/agent/daemon/intentsrc"
	"github.com/rocefab/rocefab/agent/daemon/notify"
	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/examples/lab"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/internal/fabriclab"
	"github.com/rocefab/rocefab/internal/netnstest"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/linux"
	"github.com/rocefab/rocefab/validators/probe"
	"github.com/rocefab/rocefab/validators/probe/mesh"
)

// labFlows runs each host's flows through its endpoint in its namespace
// of the lab.
type labFlows struct {
	l   *fabriclab.Lab
	eps map[string]*probe.Endpoint
}

func (m *labFlows) RunFlows(ctx context.Context, _ *intent.Resolved, from *intent.Host, run probe.FlowRun) ([]probe.FlowResult, error) {
	var out []probe.FlowResult
	err := m.l.Do(from.Name, func() error {
		var err error
		out, err = m.eps[from.Name].RunFlows(ctx, run)
		return err
	})
	return out, err
}

// notes records what the agent notifies.
type notes struct {
	mu  sync.Mutex
	evs []notify.Event
}

func (n *notes) Notify(ev notify.Event) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.evs = append(n.evs, ev)
}

func (*notes) Close(context.Context) {}

func (n *notes) mesh() []notify.Event {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []notify.Event
	for _, ev := range n.evs {
		if ev.RunKind == string(history.KindMesh) {
			out = append(out, ev)
		}
	}
	return out
}

// TestAgentMeshOnTheLab: the agent's mesh on the two-spine lab in
// namespaces: a clean fabric leaves every link direction good, a DSCP
// remark on spine2's port to leaf1 makes that direction (only) bad and is
// announced once, and removing it recovers the link.
func TestAgentMeshOnTheLab(t *testing.T) {
	netnstest.Require(t)
	netnstest.RequireTool(t, "nft")
	res := labIntent(t)
	l := fabriclab.Example(t)
	flows := &labFlows{l: l, eps: map[string]*probe.Endpoint{}}
	for _, h := range res.Hosts {
		err := l.Do(h.Name, func() error {
			e, err := probe.NewEndpoint(probe.EndpointConfig{Policy: mesh.PolicyFor(res, h), Name: h.Name})
			flows.eps[h.Name] = e
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { flows.eps[h.Name].Close() })
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "fabric.yaml"), lab.Intent, 0o600); err != nil {
		t.Fatal(err)
	}
	hooks := &notes{}
	reg := renderers.NewRegistry()
	if err := linux.Register(reg); err != nil {
		t.Fatal(err)
	}
	a, err := daemon.New(daemon.Config{StateDir: filepath.Join(t.TempDir(), "state"), Source: intentsrc.Folder{Paths: []string{dir}},
		Drift: daemon.Schedule{Interval: time.Hour}, HTTP: daemon.HTTPConfig{Listen: "127.0.0.1:0"}, ShutdownTimeout: 5 * time.Second},
		daemon.Deps{Engine: engine.New(reg, drivers.NewRegistry(), nil, engine.Options{Timeout: time.Second}), Renderers: reg, Notifier: hooks,
			Mesh: MeshRunner(flows, mesh.Options{Plan: mesh.PlanConfig{Interval: time.Second, HostPPS: 10000, FlowPPS: 4000}, HopTimeout: 300 * time.Millisecond})})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("agent: %v", err)
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for !a.CurrentStatus().Ready {
		if time.Now().After(deadline) {
			t.Fatalf("the agent did not load the lab's intent: %+v", a.CurrentStatus().Reload)
		}
		time.Sleep(20 * time.Millisecond)
	}
	run := func(want history.Result) *history.Run {
		t.Helper()
		r, err := a.RunNow(ctx, history.KindMesh)
		if err != nil {
			t.Fatal(err)
		}
		if r.Result != want {
			t.Fatalf("mesh run %s (%s), want %s; findings %+v", r.Result, r.Error, want, r.Findings)
		}
		return r
	}
	const link, down = "leaf1 swp4 - spine2 swp1", "spine2 -> leaf1"
	if r := run(history.ResultSuccess); r.Summary.ByStatus[history.LinkGood] != 8 {
		t.Fatalf("clean lab: %+v", r.Summary.ByStatus)
	}
	remove := l.Nft(t, "spine2", "postrouting", `oifname "swp1" ip dscp set cs1`)
	r := run(history.ResultFailure)
	if r.Summary.ByStatus[history.LinkBad] != 1 {
		t.Fatalf("remark: %+v %+v", r.Summary.ByStatus, r.Findings)
	}
	for _, lh := range r.Links {
		if (lh.State == history.LinkBad) != (lh.Link == link && lh.Direction == down) {
			t.Errorf("%s (%s) is %s", lh.Link, lh.Direction, lh.State)
		}
	}
	run(history.ResultFailure) // still remarked: no second announcement
	remove()
	run(history.ResultSuccess)
	evs := hooks.mesh()
	if len(evs) != 2 || len(evs[0].Links) != 1 || len(evs[1].Links) != 1 {
		t.Fatalf("mesh notifications %+v", evs)
	}
	bad, rec := evs[0].Links[0], evs[1].Links[0]
	if bad.Event != notify.LinkBad || bad.Link != link || bad.Direction != down || bad.Classes[0] != "dscp_remarked" || len(bad.Evidence) == 0 {
		t.Errorf("link_bad %+v", bad)
	}
	if rec.Event != notify.LinkRecovered || rec.Link != link || rec.Direction != down {
		t.Errorf("link_recovered %+v", rec)
	}
}
