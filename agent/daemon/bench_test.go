package daemon

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/agent/daemon/history"
	"github.com/rocefab/rocefab/agent/daemon/intentsrc"
	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/validators/lint"
)

// memDriver answers every switch with exactly what it should run, so a
// benchmark measures the agent and the engine, not a network.
type memDriver struct{ opt drivers.Options }

func (d memDriver) Fetch(context.Context) (*drivers.Running, error) {
	cfg := &devcfg.Config{Shape: devcfg.ShapePaths, Paths: devcfg.Paths{ecnPath: devcfg.Uint64(150000)}}
	for _, p := range []string{"Ethernet1", "Ethernet2"} {
		cfg.Paths[mtuPath(p)] = devcfg.Int(9216)
	}
	return drivers.NewRunning(cfg, d.opt.Platform, d.opt.Scope), nil
}
func (memDriver) Push(context.Context, devcfg.Patch, drivers.PushOptions) (drivers.Pending, error) {
	return nil, fmt.Errorf("read-only")
}
func (memDriver) Close() error { return nil }

func benchFleet(b *testing.B, n int) (string, *engine.Engine) {
	b.Helper()
	var sb strings.Builder
	sb.WriteString("apiVersion: rocefab.io/v1alpha1\nkind: Fabric\nmetadata: {name: big}\nspec:\n  lossless:\n    ecn: {minThreshold: 150KB, maxThreshold: 1500KB}\n    mtu: {switch: 9216, host: 9000}\n  switches:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, "    - {name: leaf%04d, platform: simoc, transport: gnmi, address: \"10.%d.%d.1:57400\", credentials: {username: u, passwordEnv: P}, ports: [{names: Ethernet1-2, mode: routed}]}\n", i, i/250, i%250)
	}
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "fabric.yaml"), []byte(sb.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	dr := drivers.NewRegistry()
	_ = dr.Register("gnmi", func(_ context.Context, opt drivers.Options) (drivers.Driver, error) { return memDriver{opt}, nil })
	eng := engine.New(simRegistry(), dr, nil, engine.Options{Parallelism: 50, Timeout: 10 * time.Second,
		Secrets: func(compliance.Connection) (drivers.Credentials, error) { return drivers.Credentials{}, nil }})
	return dir, eng
}

// BenchmarkDriftRun is one scheduled drift check of a fleet: the engine's
// check of every switch, then the agent's share (history record with the
// per-device statuses, device states, metrics). Compare with
// BenchmarkEngineDrift for the agent's overhead.
func BenchmarkDriftRun(b *testing.B) {
	for _, n := range []int{100, 2000} {
		b.Run(fmt.Sprintf("switches=%d", n), func(b *testing.B) {
			dir, eng := benchFleet(b, n)
			a, err := New(Config{StateDir: b.TempDir(), Source: intentsrc.Folder{Paths: []string{dir}},
				Drift: Schedule{Interval: time.Hour}, HTTP: HTTPConfig{Listen: "127.0.0.1:0"}},
				Deps{Engine: eng, Renderers: simRegistry()})
			if err != nil {
				b.Fatal(err)
			}
			defer a.Close()
			a.refresh(context.Background())
			if a.intent() == nil {
				b.Fatalf("intent not loaded: %+v", a.reload)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r, err := a.RunNow(context.Background(), history.KindDrift)
				if err != nil || r.Summary.ByStatus["compliant"] != n {
					b.Fatalf("%v %+v", err, r.Summary)
				}
			}
		})
	}
}

func BenchmarkEngineDrift(b *testing.B) {
	for _, n := range []int{100, 2000} {
		b.Run(fmt.Sprintf("switches=%d", n), func(b *testing.B) {
			dir, eng := benchFleet(b, n)
			snap, _ := intentsrc.Folder{Paths: []string{dir}}.Update(context.Background())
			res := resolveBench(b, snap.Paths[0])
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				p, err := eng.Drift(context.Background(), res, compliance.IntentRef{}, engine.Selection{SkipHosts: true})
				if err != nil || p.Summary.ByStatus[compliance.StatusCompliant] != n {
					b.Fatalf("%v %+v", err, p.Summary)
				}
			}
		})
	}
}

func resolveBench(b *testing.B, dir string) *intent.Resolved {
	res, diags := lint.Validate(simRegistry(), dir)
	if diags.HasErrors() {
		b.Fatal(diags.Err())
	}
	return res
}
