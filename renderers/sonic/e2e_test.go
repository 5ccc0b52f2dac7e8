package sonic

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/gnmi"
	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers/devcfg"
	"github.com/rocefab/rocefab/validators/compliance"
)

// TestSimulatorConverges drives leaf-sonic through the gNMI driver and the
// simulated SONiC (which generates pg_lossless_* buffer profiles, resolves
// BUFFER_PG "NULL" to them and fills WRED defaults): push to an empty
// target, change the intent, push the diff; after each push the normalised
// running config shows no diff.
func TestSimulatorConverges(t *testing.T) {
	for _, name := range []string{"basic", "access-lag", "static-buffers"} {
		t.Run(name, func(t *testing.T) {
			sw := variantSwitch(t, name)
			sim, err := gnmisim.Start(gnmisim.Options{Name: sw.Name, Personality: gnmisim.SONiC, NoAuth: true, Plaintext: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(sim.Stop)
			plat := Attributes().Platform
			ctx := context.Background()
			converge := func(desired *devcfg.Config) {
				t.Helper()
				d, err := gnmi.Dial(ctx, drivers.Options{Device: sw.Name, Address: sim.Addr(), Platform: plat, Scope: desired.Owned,
					TLS: drivers.TLSOptions{Plaintext: true}, Timeout: 5 * time.Second})
				if err != nil {
					t.Fatal(err)
				}
				defer d.Close()
				running, err := d.Fetch(ctx)
				if err != nil {
					t.Fatal(err)
				}
				changes := compliance.Diff(desired, running.Owned, plat.Syntax, nil)
				if len(changes) == 0 {
					t.Fatal("nothing to push: the step proves nothing")
				}
				if _, err := d.Push(ctx, devcfg.BuildPatch(changes, plat.Syntax), drivers.PushOptions{}); err != nil {
					t.Fatalf("push %d changes: %v", len(changes), err)
				}
				after, err := d.Fetch(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if left := compliance.Diff(desired, after.Owned, plat.Syntax, nil); len(left) != 0 {
					t.Fatalf("%d changes remain after the push, first %+v", len(left), left[0])
				}
			}
			converge(mustRender(t, sw))
			if name == "basic" && !strings.Contains(sim.Tree(), "pg_lossless_") {
				t.Fatal("the simulator generated no buffer profile: normalisation is untested")
			}
			changed := *sw
			changed.Policy.VLAN, changed.Policy.NoDropPriority, changed.Policy.PFCPriorities = 200, 4, []int{4}
			changed.Policy.Profile = intent.ProfilePFCOnly
			changed.Policy.SwitchMTU = intent.SwitchMTU{Value: 9000}
			converge(mustRender(t, &changed))
		})
	}
}
