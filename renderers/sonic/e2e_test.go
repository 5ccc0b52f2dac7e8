package sonic

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/gnmi"
	"github.com/rocefab/rocefab/drivers/sim/factory"
	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
	"github.com/rocefab/rocefab/intent"
)

// simDevice is a simulated SONiC switch with a factory CONFIG_DB of 32
// ports (Ethernet0-124) under the buffer model, plus PortChannel10 and a
// standard-named port Eth1/1 for the access-lag variant.
func simDevice(t *testing.T, name, model string) *gnmisim.Target {
	t.Helper()
	sim, err := gnmisim.Start(gnmisim.Options{Name: name, Personality: gnmisim.SONiC, NoAuth: true, Plaintext: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sim.Stop)
	base := gnmisim.SONiCFactory(factory.SONiCOptions{Hostname: name, Ports: 32, BufferModel: model})
	base[Key("PORTCHANNEL", "PortChannel10", "admin_status")] = devcfg.String("up")
	for f, v := range map[string]string{"lanes": "200,201,202,203", "speed": "100000", "admin_status": "up", "alias": "etp51"} {
		base[Key("PORT", "Eth1/1", f)] = devcfg.String(v)
	}
	if err := sim.Load(base); err != nil {
		t.Fatal(err)
	}
	return sim
}

// plan is what the engine does for a SONiC switch: render, fetch with the
// owned scope and its reads, Fit to the device, diff.
func plan(t *testing.T, ctx context.Context, sim *gnmisim.Target, sw *intent.Switch, last devcfg.Scope) (*gnmi.Driver, *devcfg.Config, []devcfg.Change, error) {
	t.Helper()
	plat := Attributes().Platform
	desired := mustRender(t, sw)
	desired.Owned.Merge(last) // what rocefab applied before stays its own
	d, err := gnmi.Dial(ctx, drivers.Options{Device: sw.Name, Address: sim.Addr(), Platform: plat, Scope: desired.Owned,
		TLS: drivers.TLSOptions{Plaintext: true}, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	running, err := d.Fetch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := Fit(sw, desired, running.Config); err != nil {
		return d, desired, nil, err
	}
	running = drivers.NewRunning(running.Config, plat, desired.Owned)
	return d, desired, devcfg.Diff(desired, running.Owned, plat.Syntax, nil), nil
}

// TestSimulatorConverges drives leaf-sonic through the gNMI driver and the
// simulated SONiC, which serves CONFIG_DB as sonic-gnmi does and runs
// buffermgrd's traditional-model writes: under each buffer model, push to a
// factory device, change the intent (VLAN, lossless priority, profile,
// MTU), push the diff; after each push a new plan shows no change.
func TestSimulatorConverges(t *testing.T) {
	for _, model := range []string{BufferModelDynamic, BufferModelTraditional} {
		for _, name := range []string{"basic", "access-lag", "static-buffers"} {
			t.Run(model+"/"+name, func(t *testing.T) {
				sw := variantSwitch(t, name)
				sim := simDevice(t, sw.Name, model)
				ctx := context.Background()
				plat := Attributes().Platform
				var last devcfg.Scope
				converge := func(sw *intent.Switch) {
					t.Helper()
					d, desired, changes, err := plan(t, ctx, sim, sw, last)
					if err != nil {
						if model == BufferModelTraditional && name == "static-buffers" && strings.Contains(err.Error(), "traditional buffer model") {
							return // refused at plan time, as it must be
						}
						t.Fatal(err)
					}
					if len(changes) == 0 {
						t.Fatal("nothing to push: the step proves nothing")
					}
					if _, err := d.Push(ctx, devcfg.BuildPatch(changes, plat.Syntax), drivers.PushOptions{}); err != nil {
						t.Fatalf("push %d changes: %v", len(changes), err)
					}
					last = mustRender(t, sw).Owned
					if _, _, left, err := plan(t, ctx, sim, sw, last); err != nil || len(left) != 0 {
						t.Fatalf("after the push: %v, %d changes remain %+v", err, len(left), left)
					}
					tree := sim.Tree()
					if strings.Contains(tree, "sonic-db:/BUFFER_PG/Ethernet0|3-4/") && !strings.Contains(desired.Text(), "Ethernet0|3-4") {
						t.Errorf("the stock BUFFER_PG|Ethernet0|3-4 still overlaps rocefab's PGs:\n%s", tree)
					}
				}
				converge(sw)
				if model == BufferModelTraditional && sw.Policy.PFCOn() && name != "static-buffers" && !strings.Contains(sim.Tree(), `sonic-db:/BUFFER_PG/Ethernet0|3/profile = "pg_lossless_100000_5m_profile"`) {
					t.Fatalf("buffermgrd (simulated) did not take PG 3: the traditional path is untested:\n%s", sim.Tree())
				}
				changed := *sw
				changed.Policy.VLAN, changed.Policy.NoDropPriority, changed.Policy.PFCPriorities = 200, 4, []int{4}
				changed.Policy.Profile = intent.ProfilePFCOnly
				changed.Policy.SwitchMTU = intent.SwitchMTU{Value: 9000}
				converge(&changed)
			})
		}
	}
}
