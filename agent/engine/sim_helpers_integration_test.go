package engine_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/agent/engine/enginetest"
	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	driversall "github.com/rocefab/rocefab/drivers/all"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/all"
)

// simHarness runs the real engine, renderers and drivers against a fleet
// of simulated switches.
type simHarness struct {
	t     *testing.T
	fleet *enginetest.Fleet
	reg   *renderers.Registry
	store engine.RunStore
	opt   engine.Options
	ctx   context.Context
}

func newSimHarness(t *testing.T, specs []enginetest.Spec) *simHarness {
	t.Helper()
	h := &simHarness{
		t: t, fleet: enginetest.Start(t, specs), reg: all.Renderers(),
		store: engine.RunStore{Dir: t.TempDir()},
		ctx:   enginetest.Ctx(t, 2*time.Minute),
	}
	h.opt = engine.Options{Timeout: 10 * time.Second, Retries: 1, Parallelism: 8}
	return h
}

// engine is built per call, as each CLI invocation builds its own, so the
// run store's last-applied index is current.
func (h *simHarness) engine() *engine.Engine {
	opt := h.opt
	opt.LastApplied = h.store.LastApplied()
	return engine.New(h.reg, driversall.Drivers(), nil, opt)
}

func (h *simHarness) intent(name string, p enginetest.Params) *intent.Resolved {
	h.t.Helper()
	return enginetest.Resolve(h.t, h.fleet.WriteIntent(h.t, name, p))
}

func (h *simHarness) plan(res *intent.Resolved) *compliance.Plan {
	h.t.Helper()
	p, err := h.engine().Plan(h.ctx, res, compliance.IntentRef{Fabric: res.Name}, engine.Selection{})
	if err != nil {
		h.t.Fatal(err)
	}
	return p
}

func (h *simHarness) drift(res *intent.Resolved) *compliance.Plan {
	h.t.Helper()
	p, err := h.engine().Drift(h.ctx, res, compliance.IntentRef{Fabric: res.Name}, engine.Selection{})
	if err != nil {
		h.t.Fatal(err)
	}
	return p
}

func (h *simHarness) apply(p *compliance.Plan, opt engine.ApplyOptions) *engine.RunReport {
	h.t.Helper()
	opt.Store = h.store
	rep, err := h.engine().Apply(h.ctx, p, opt)
	if err != nil {
		h.t.Fatal(err)
	}
	return rep
}

// converge applies the intent and fails unless every device ended applied.
func (h *simHarness) converge(res *intent.Resolved) *engine.RunReport {
	h.t.Helper()
	rep := h.apply(h.plan(res), engine.ApplyOptions{AllowDisruptive: true})
	for _, d := range rep.Devices {
		if d.Outcome != engine.OutcomeApplied {
			h.t.Fatalf("%s: %s: %s", d.Device, d.Outcome, d.Reason)
		}
	}
	return rep
}

// owned reads a switch's running config through its driver, filtered to
// the intent's scope and normalised, as the engine sees it.
func (h *simHarness) owned(res *intent.Resolved, name string) (*drivers.Running, *devcfg.Config, *renderers.Entry) {
	h.t.Helper()
	sw := res.Switch(name)
	entry, err := h.reg.Lookup(sw.Platform)
	if err != nil {
		h.t.Fatal(err)
	}
	desired, err := h.reg.Render(sw)
	if err != nil {
		h.t.Fatal(err)
	}
	d, err := driversall.Drivers().Open(h.ctx, entry.Transport(sw), drivers.Options{
		Device: name, Address: sw.Address.String(), Platform: entry.Attrs.Platform, Scope: desired.Owned,
		Creds: drivers.Credentials{Username: enginetest.Username, Password: enginetest.Password()},
		TLS:   drivers.TLSOptions{CAFile: h.fleet.CABundle}, SSH: drivers.SSHOptions{KnownHostsFile: h.fleet.KnownHosts},
		Timeout: 10 * time.Second,
	})
	if err != nil {
		h.t.Fatal(err)
	}
	defer d.Close()
	running, err := d.Fetch(h.ctx)
	if err != nil {
		h.t.Fatal(err)
	}
	return running, desired, entry
}

func outcomes(rep *engine.RunReport) map[string]engine.DeviceRun {
	out := map[string]engine.DeviceRun{}
	for _, d := range rep.Devices {
		out[d.Device] = d
	}
	return out
}

func devicePlan(t *testing.T, p *compliance.Plan, name string) *compliance.DevicePlan {
	t.Helper()
	dp, ok := p.Device(name)
	if !ok {
		t.Fatalf("plan has no device %s", name)
	}
	return dp
}

// changeList prints changes one per line, for failure messages.
func changeList(cs []devcfg.Change) string {
	var b strings.Builder
	for _, c := range cs {
		b.WriteString("\n  " + c.Action.Symbol() + " " + c.Where() + " old=" + c.Old + " new=" + c.New)
	}
	return b.String()
}

// lineDiff shows how got differs from want, line by line ("" if equal).
func lineDiff(want, got string) string {
	return cmp.Diff(strings.Split(want, "\n"), strings.Split(got, "\n"))
}

// sameLines reports whether two configurations hold the same lines, in
// any order: devices may list restored lines elsewhere than before.
func sameLines(a, b string) bool {
	x, y := strings.Split(a, "\n"), strings.Split(b, "\n")
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

func oneOfEach() []enginetest.Spec {
	var specs []enginetest.Spec
	for _, k := range enginetest.AllKinds {
		specs = append(specs, enginetest.Spec{Name: k.Platform + "-" + k.Transport, Kind: k})
	}
	return specs
}
