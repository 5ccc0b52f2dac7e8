package ssh_test

import (
	"testing"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/sim/sshsim"
)

// BenchmarkPushBasic pushes the examples/basic change to a fresh simulated
// device per iteration (set-up excluded) and reports typed lines per second.
func BenchmarkPushBasic(b *testing.B) {
	for _, rt := range roundTrips {
		b.Run(rt.switchName, func(b *testing.B) {
			desired, e := basic(b, rt.switchName)
			syn := e.Attrs.Platform.Syntax
			lines := 0
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				sim, kh := startReal(b, rt.personality, rt.switchName)
				d := openReal(b, sim, kh, e, desired.Owned)
				ctx := testContext(b)
				run, err := d.Fetch(ctx)
				if err != nil {
					b.Fatal(err)
				}
				patch := devcfg.BuildPatch(devcfg.Diff(desired, run.Owned, syn, nil), syn)
				sim.ResetReceived()
				b.StartTimer()
				if _, err := d.Push(ctx, patch, drivers.PushOptions{}); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				lines += len(sim.Received())
				_ = d.Close()
				_ = sim.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(lines)/b.Elapsed().Seconds(), "lines/s")
		})
	}
}

// BenchmarkFetch reads and parses the running configuration.
func BenchmarkFetch(b *testing.B) {
	for _, rt := range roundTrips {
		b.Run(rt.switchName, func(b *testing.B) {
			desired, e := basic(b, rt.switchName)
			sim, kh := startRealWith(b, sshsim.Options{Personality: rt.personality, Hostname: rt.switchName})
			d := openReal(b, sim, kh, e, desired.Owned)
			ctx := testContext(b)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := d.Fetch(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkPushNXOSReplace pushes the examples/basic NX-OS change as a push
// from the engine does, with its changes: the whole configuration copied
// over SCP and replaced in one step (typed: the same push without them).
func BenchmarkPushNXOSReplace(b *testing.B) {
	for _, replace := range []bool{true, false} {
		name := map[bool]string{true: "replaced", false: "typed"}[replace]
		b.Run(name, func(b *testing.B) {
			desired, e := basic(b, "leaf-nxos")
			syn := e.Attrs.Platform.Syntax
			for b.Loop() {
				b.StopTimer()
				sim, kh := startReal(b, sshsim.NXOS, "leaf-nxos")
				d := openReal(b, sim, kh, e, desired.Owned)
				ctx := testContext(b)
				run, err := d.Fetch(ctx)
				if err != nil {
					b.Fatal(err)
				}
				changes := devcfg.Diff(desired, run.Owned, syn, nil)
				opt := drivers.PushOptions{}
				if replace {
					opt.Changes = changes
				}
				b.StartTimer()
				p, err := d.Push(ctx, devcfg.BuildPatch(changes, syn), opt)
				if err == nil {
					err = p.Confirm(ctx)
				}
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				_ = d.Close()
				_ = sim.Close()
				b.StartTimer()
			}
		})
	}
}
