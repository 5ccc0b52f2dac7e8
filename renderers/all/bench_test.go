package all

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers"
)

// benchSwitches is the ai-cluster scenario (basic until it exists) scaled
// to n switches by cycling its registered switches under new names.
func benchSwitches(b *testing.B, reg *renderers.Registry, n int) []*intent.Switch {
	scenario := "ai-cluster"
	if _, err := os.Stat(filepath.Join("..", "..", "examples", scenario)); err != nil {
		b.Logf("examples/ai-cluster does not exist yet: scaling examples/basic")
		scenario = "basic"
	}
	res := loadScenario(b, scenario)
	var base []*intent.Switch
	for _, sw := range res.Switches {
		if _, err := reg.Lookup(sw.Platform); err == nil {
			base = append(base, sw)
		}
	}
	if len(base) == 0 {
		b.Skip("no switch of a registered platform")
	}
	out := make([]*intent.Switch, n)
	for i := range out {
		sw := *base[i%len(base)]
		sw.Name = fmt.Sprintf("%s-%04d", sw.Name, i)
		out[i] = &sw
	}
	return out
}

// BenchmarkRender renders 2,000 switches per iteration; switches/s is the
// figure BENCHMARKS.md records (target: 5,000 on one core).
//
//	go test ./renderers/all -run '^$' -bench Render -cpu 1
func BenchmarkRender(b *testing.B) {
	reg := Renderers()
	switches := benchSwitches(b, reg, 2000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, sw := range switches {
			if _, err := reg.Render(sw); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N*len(switches))/b.Elapsed().Seconds(), "switches/s")
}

// BenchmarkRenderEncode adds the device-native text, as `rocefab render`
// writes it.
func BenchmarkRenderEncode(b *testing.B) {
	reg := Renderers()
	switches := benchSwitches(b, reg, 2000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, sw := range switches {
			cfg, err := reg.Render(sw)
			if err != nil {
				b.Fatal(err)
			}
			e, _ := reg.Lookup(sw.Platform)
			if _, err := e.Attrs.Encode(cfg); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N*len(switches))/b.Elapsed().Seconds(), "switches/s")
}

// BenchmarkRenderPlatform renders, then renders and encodes, 2,000
// switches of each platform alone: its switch in ai-cluster, else basic.
func BenchmarkRenderPlatform(b *testing.B) {
	reg := Renderers()
	pool := benchSwitches(b, reg, 2000)
	pool = append(pool, loadScenario(b, "basic").Switches...)
	for _, name := range reg.Names() {
		var base *intent.Switch
		for _, sw := range pool {
			if sw.Platform == name {
				base = sw
				break
			}
		}
		if base == nil {
			continue
		}
		e, _ := reg.Lookup(name)
		for _, encode := range []bool{false, true} {
			label := name + "/render"
			if encode {
				label = name + "/render+encode"
			}
			b.Run(label, func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					for j := 0; j < 2000; j++ {
						cfg, err := reg.Render(base)
						if err != nil {
							b.Fatal(err)
						}
						if encode {
							if _, err := e.Attrs.Encode(cfg); err != nil {
								b.Fatal(err)
							}
						}
					}
				}
				b.ReportMetric(float64(b.N*2000)/b.Elapsed().Seconds(), "switches/s")
			})
		}
	}
}
