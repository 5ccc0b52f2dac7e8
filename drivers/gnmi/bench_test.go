package gnmi_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/gnmi"
	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
)

const fleetSize = 500

// BenchmarkFleet drives 500 simulated gNMI devices on loopback at once
// (TLS, password auth): one op is every device doing a Fetch (Get) and a
// Push (one Set). Connections are opened before the timer starts.
func BenchmarkFleet(b *testing.B) {
	ctx := context.Background()
	devs := make([]*gnmi.Driver, fleetSize)
	for i := range devs {
		sim := startSim(b, gnmisim.Options{Name: fmt.Sprintf("leaf%03d", i)})
		opt := options(b, sim, ocPlatform(), ocScope)
		opt.Device = sim.Name()
		opt.Timeout = 30 * time.Second
		devs[i] = dial(b, opt)
	}
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		var wg sync.WaitGroup
		errs := make(chan error, fleetSize)
		for i, d := range devs {
			wg.Add(1)
			go func(i int, d *gnmi.Driver) {
				defer wg.Done()
				if _, err := d.Fetch(ctx); err != nil {
					errs <- err
					return
				}
				patch := devcfg.Patch{Updates: []devcfg.PathUpdate{
					{Path: "/interfaces/interface[name=Ethernet1]/config/mtu", Value: devcfg.Int(int64(9000 + (n+i)%216))},
					{Path: "/qos/queue-management-profiles/queue-management-profile[name=ROCEFAB_ECN]/wred/uniform/config/min-threshold", Value: devcfg.Uint64(150000)},
				}}
				if _, err := d.Push(ctx, patch, drivers.PushOptions{}); err != nil {
					errs <- err
				}
			}(i, d)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(fleetSize*b.N)/b.Elapsed().Seconds(), "devices/s")
}
