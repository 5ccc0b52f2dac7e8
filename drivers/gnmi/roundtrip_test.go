package gnmi_test

import (
	"context"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/internal/examplestest"
	"github.com/rocefab/rocefab/renderers/devcfg"
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

// sonicPlatform is the SONiC platform as the agent hands it over, with the
// gNMI mapping renderers/sonic documents (origin sonic-db, target
// CONFIG_DB, JSON-pointer keys, config_db JSON to Parse).
func sonicPlatform() devcfg.Platform {
	p := sonic.Attributes().Platform
	if p.GNMI == (devcfg.GNMIMapping{}) {
		p.GNMI = devcfg.GNMIMapping{Origin: gnmisim.OriginSONiC, Target: "CONFIG_DB", Document: true}
	}
	return p
}

// TestRoundTripSONiC: render leaf-sonic, push to a fresh simulated SONiC
// (which generates buffer profiles and WRED defaults), fetch, and the owned
// part equals the desired config: no false drift.
func TestRoundTripSONiC(t *testing.T) {
	desired, err := sonic.Renderer{}.Render(basicSwitch(t, "leaf-sonic"))
	if err != nil {
		t.Fatal(err)
	}
	plat := sonicPlatform()
	sim := startSim(t, gnmisim.Options{Personality: gnmisim.SONiC, CommitConfirmed: true})
	d := dial(t, options(t, sim, plat, desired.Owned))
	ctx := context.Background()

	patch := addAll(desired, plat.Syntax)
	if len(patch.Updates) == 0 {
		t.Fatal("empty patch: the test would prove nothing")
	}
	p, err := d.Push(ctx, patch, drivers.PushOptions{ConfirmWindow: 0})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Confirm(ctx); err != nil {
		t.Fatal(err)
	}
	tree := sim.Tree()
	if !strings.Contains(tree, "sonic-db:/BUFFER_PROFILE/pg_lossless_") || !strings.Contains(tree, "/wred_yellow_enable = \"false\"") {
		t.Fatalf("the simulator generated nothing, so normalisation is untested:\n%s", tree)
	}
	if strings.Contains(desired.Text(), `BUFFER_PG`) && !strings.Contains(tree, `/profile = "pg_lossless_`) {
		t.Fatalf("BUFFER_PG \"NULL\" was not resolved by the simulator:\n%s", tree)
	}
	t.Logf("pushed %d updates; device holds %d lines", len(patch.Updates), strings.Count(tree, "\n"))
	running, err := d.Fetch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := desired.Filter(desired.Owned).Text()
	if got := running.Owned.Text(); got != want {
		t.Fatalf("running owned config differs from desired:\n%s", lineDiff(want, got))
	}
	if running.Fingerprint != plat.Normalise(desired.Filter(desired.Owned)).Fingerprint() {
		t.Error("fingerprint differs from the desired config's")
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
