package openconfig

import (
	"context"
	"testing"
	"time"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/gnmi"
	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/internal/yangdir"
)

// TestSimulatorConverges drives each fallback through the gNMI driver and
// the simulated target (which checks OpenConfig Sets against the YANG and
// keeps cli and sonic-db as opaque origins): push the rendering to an
// empty target, change the intent, push the diff, and the target then
// shows no diff, so additions, modifications and deletions of both the
// OpenConfig and the fallback paths round-trip.
func TestSimulatorConverges(t *testing.T) {
	schema(t) // skips without the YANG folder
	change := func(p *intent.Policy) {
		p.VLAN, p.NoDropPriority, p.PFCPriorities = 200, 4, []int{4}
		p.Profile = intent.ProfilePFCOnly
		p.Watchdog.Enabled = false
		p.SwitchMTU = intent.SwitchMTU{Value: 9000}
	}
	for _, name := range []string{"eos-fallback", "nxos-fallback", "sonic-fallback", "access-lag"} {
		t.Run(name, func(t *testing.T) {
			sw := variantSwitch(t, name)
			first := mustRender(t, sw)
			sim, err := gnmisim.Start(gnmisim.Options{Name: sw.Name, NoAuth: true, Plaintext: true, YANGDir: yangdir.Optional(), Ports: []string{"Ethernet1"}})
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
				changes := devcfg.Diff(desired, running.Owned, plat.Syntax, nil)
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
				if left := devcfg.Diff(desired, after.Owned, plat.Syntax, nil); len(left) != 0 {
					t.Fatalf("%d changes remain after the push, first %+v", len(left), left[0])
				}
			}
			converge(first)
			changed := *sw
			change(&changed.Policy)
			converge(mustRender(t, &changed))
		})
	}
}
