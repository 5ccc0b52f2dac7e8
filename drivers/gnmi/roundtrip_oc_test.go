package gnmi_test

import (
	"context"
	"testing"

	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
	"github.com/rocefab/rocefab/internal/yangdir"
	"github.com/rocefab/rocefab/renderers/all"
	"github.com/rocefab/rocefab/renderers/openconfig"
)

func TestRoundTripOpenConfig(t *testing.T) {
	oc, err := all.Renderers().Lookup(openconfig.Name)
	if err != nil {
		t.Fatal(err)
	}
	desired, err := oc.New().Render(basicSwitch(t, "spine-oc"))
	if err != nil {
		t.Fatal(err)
	}
	plat := openconfig.Attributes().Platform
	sim := startSim(t, gnmisim.Options{CommitConfirmed: true, YANGDir: yangdir.Require(t)})
	d := dial(t, options(t, sim, plat, desired.Owned))
	ctx := context.Background()
	patch := addAll(desired, plat.Syntax)
	if _, err := d.Push(ctx, patch, drivers.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	running, err := d.Fetch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := desired.Filter(desired.Owned).Text()
	if got := running.Owned.Text(); got != want {
		t.Fatalf("running owned config differs from desired:\n%s", lineDiff(want, got))
	}
	t.Logf("pushed %d updates", len(patch.Updates))
}
