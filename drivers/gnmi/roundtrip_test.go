package gnmi_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/sim/factory"
	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/internal/examplestest"
	"github.com/rocefab/rocefab/renderers/sonic"
)

// basicSwitch resolves one switch of examples/basic.
func basicSwitch(t testing.TB, name string) *intent.Switch {
	return examplestest.Switch(t, "basic", name)
}

// addAll is the plan against an empty device: every owned path added.
func addAll(desired *devcfg.Config, syn devcfg.Syntax) devcfg.Patch {
	owned := desired.Filter(desired.Owned)
	var changes []devcfg.Change
	for _, k := range owned.Paths.Keys() {
		changes = append(changes, devcfg.Change{Action: devcfg.Add, Path: k, New: string(owned.Paths[k])})
	}
	return devcfg.BuildPatch(changes, syn)
}

// sonicPlatform is the SONiC platform as the agent hands it over.
func sonicPlatform() devcfg.Platform { return sonic.Attributes().Platform }

// TestRoundTripSONiC: render leaf-sonic, fit it to a factory SONiC (32
// ports, dynamic buffer model), push with a rocefab-side confirm window
// (sonic-gnmi advertises no Commit extension), fetch: the owned part equals
// the desired config, so there is no false drift.
func TestRoundTripSONiC(t *testing.T) {
	sw := basicSwitch(t, "leaf-sonic")
	desired, err := sonic.Renderer{}.Render(sw)
	if err != nil {
		t.Fatal(err)
	}
	plat := sonicPlatform()
	sim := startSim(t, gnmisim.Options{Personality: gnmisim.SONiC})
	if err := sim.Load(gnmisim.SONiCFactory(factory.SONiCOptions{Hostname: "leaf1", Ports: 32, BufferModel: "dynamic"})); err != nil {
		t.Fatal(err)
	}
	d := dial(t, options(t, sim, plat, desired.Owned))
	ctx := context.Background()
	running, err := d.Fetch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := sonic.Fit(sw, desired, running.Config); err != nil {
		t.Fatal(err)
	}
	running = drivers.NewRunning(running.Config, plat, desired.Owned)
	changes := devcfg.Diff(desired, running.Owned, plat.Syntax, nil)
	patch := devcfg.BuildPatch(changes, plat.Syntax)
	if len(patch.Updates) == 0 || len(patch.Deletes) == 0 {
		t.Fatalf("want updates and the deletes of the stock PGs 3-4, got %d/%d: the test would prove little", len(patch.Updates), len(patch.Deletes))
	}
	p, err := d.Push(ctx, patch, drivers.PushOptions{ConfirmWindow: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Confirm(ctx); err != nil {
		t.Fatal(err)
	}
	tree := sim.Tree()
	if !strings.Contains(tree, `sonic-db:/BUFFER_PG/Ethernet0|3/profile = "NULL"`) || strings.Contains(tree, "Ethernet0|3-4") {
		t.Fatalf("PG 3 is not rocefab's lossless PG alone:\n%s", tree)
	}
	t.Logf("pushed %d updates and %d deletes; device holds %d lines", len(patch.Updates), len(patch.Deletes), strings.Count(tree, "\n"))
	d2 := dial(t, options(t, sim, plat, desired.Owned))
	after, err := d2.Fetch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := plat.Normalise(desired.Filter(desired.Owned))
	if got := after.Owned.Text(); got != want.Text() {
		t.Fatalf("running owned config differs from desired:\n%s", lineDiff(want.Text(), got))
	}
	if after.Fingerprint != want.Fingerprint() {
		t.Error("fingerprint differs from the desired config's")
	}
	if after.Config.Facts[devcfg.FactGNMIModels] == "" || !strings.Contains(after.Config.Facts[devcfg.FactGNMIModels], "sonic-db") {
		t.Errorf("facts = %v, want the advertised models", after.Config.Facts)
	}
}

// lineDiff lists lines only in want (-) or only in got (+).
func lineDiff(want, got string) string {
	w, g := map[string]bool{}, map[string]bool{}
	for _, l := range strings.Split(want, "\n") {
		w[l] = true
	}
	for _, l := range strings.Split(got, "\n") {
		g[l] = true
	}
	var b strings.Builder
	for _, l := range strings.Split(want, "\n") {
		if !g[l] {
			b.WriteString("- " + l + "\n")
		}
	}
	for _, l := range strings.Split(got, "\n") {
		if !w[l] {
			b.WriteString("+ " + l + "\n")
		}
	}
	return b.String()
}
