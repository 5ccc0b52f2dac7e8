package engine_test

import (
	"context"
	"flag"
	"runtime"
	"testing"
	"time"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/agent/engine/enginetest"
	driversall "github.com/rocefab/rocefab/drivers/all"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers/all"
)

var (
	fleetSize        = flag.Int("fleet", 1000, "switches in BenchmarkPlan1000 and BenchmarkDrift1000")
	fleetParallelism = flag.Int("fleet-parallelism", 10, "devices handled at once in the fleet benchmarks (the CLI's --parallelism)")
	fleetDelay       = flag.Duration("fleet-delay", 0, "every simulated device answers each request this much later (device latency)")
)

// benchFleet starts the simulated fleet once per benchmark: every platform
// in turn, gNMI and SSH mixed, two RoCE ports each, verification on. With
// converge, the intent is applied first (not timed).
func benchFleet(b *testing.B, converge bool) (*engine.Engine, *intent.Resolved, int) {
	b.Helper()
	if testing.Short() {
		b.Skip("starts a simulated fleet of -fleet switches; not under -short")
	}
	start := time.Now()
	f := enginetest.Start(b, enginetest.Mixed(*fleetSize, enginetest.AllKinds...))
	res := enginetest.Resolve(b, f.WriteIntent(b, "fabric.yaml", enginetest.Params{}))
	eng := engine.New(all.Renderers(), driversall.Drivers(), nil, engine.Options{
		Timeout: 60 * time.Second, Retries: 2, Parallelism: *fleetParallelism,
	})
	b.Logf("%d simulated switches started in %s", len(res.Switches), time.Since(start).Round(time.Millisecond))
	defer func() {
		if *fleetDelay > 0 {
			for _, sw := range f.Switches {
				sw.Slow(*fleetDelay)
			}
		}
	}()
	if converge {
		start = time.Now()
		setup := engine.New(all.Renderers(), driversall.Drivers(), nil, engine.Options{Timeout: 60 * time.Second, Retries: 2, Parallelism: 100})
		p, err := setup.Plan(context.Background(), res, compliance.IntentRef{}, engine.Selection{})
		if err != nil {
			b.Fatal(err)
		}
		rep, err := setup.Apply(context.Background(), p, engine.ApplyOptions{AllowDisruptive: true})
		if err != nil || rep.Failed() {
			b.Fatalf("converging the fleet: %v %s", err, rep.Result)
		}
		b.Logf("intent applied to %d switches in %s", len(rep.Devices), time.Since(start).Round(time.Millisecond))
	}
	return eng, res, len(res.Switches)
}

func benchCheck(b *testing.B, check func(context.Context, *intent.Resolved, compliance.IntentRef, engine.Selection) (*compliance.Plan, error), res *intent.Resolved, n int, want compliance.Status) {
	b.Helper()
	ctx := context.Background()
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	heapBefore := ms.HeapAlloc
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p, err := check(ctx, res, compliance.IntentRef{Fabric: res.Name}, engine.Selection{})
		if err != nil {
			b.Fatal(err)
		}
		if got := p.Summary.ByStatus[want]; got != n {
			for _, d := range p.Devices {
				if d.Status != want {
					b.Logf("%s: %s %s", d.Device, d.Status, d.Error)
					break
				}
			}
			b.Fatalf("%d of %d devices %s: %+v", got, n, want, p.Summary.ByStatus)
		}
	}
	b.StopTimer()
	elapsed := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(elapsed, "s/op")
	b.ReportMetric(float64(n)/elapsed, "devices/s")
	// What the checks keep after a collection (a leak would grow it with
	// b.N), and what the process holds from the OS, simulators included.
	runtime.GC()
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(int64(ms.HeapAlloc)-int64(heapBefore))/(1<<20), "MiB-retained")
	b.ReportMetric(float64(ms.Sys)/(1<<20), "MiB-sys")
}

// BenchmarkPlan1000 plans a fresh fleet: every device has the full change.
func BenchmarkPlan1000(b *testing.B) {
	eng, res, n := benchFleet(b, false)
	benchCheck(b, eng.Plan, res, n, compliance.StatusChanges)
}

// BenchmarkDrift1000 checks drift on a converged fleet, the agent's
// scheduled job: every device is read in full and found compliant.
func BenchmarkDrift1000(b *testing.B) {
	eng, res, n := benchFleet(b, true)
	benchCheck(b, eng.Drift, res, n, compliance.StatusCompliant)
}
