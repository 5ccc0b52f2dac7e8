package engine

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers"
)

// A fake platform and transport: paths-shaped devices held in memory, so
// engine behaviour is tested without simulators. Simulator-backed tests
// live in the integration tests.

type fakeRenderer struct{}

func (fakeRenderer) Render(sw *intent.Switch) (*devcfg.Config, error) {
	p := devcfg.Paths{}
	for _, port := range sw.Ports {
		p["/port/"+port.Name+"/mtu"] = devcfg.Int(int64(9216))
		if !sw.Policy.SwitchMTU.Max {
			p["/port/"+port.Name+"/mtu"] = devcfg.Int(int64(sw.Policy.SwitchMTU.Value))
		}
	}
	for _, d := range sw.Policy.RoCEDSCP {
		p["/qos/dscp/"+strconv.Itoa(d)] = devcfg.Int(int64(sw.Policy.NoDropPriority))
	}
	owned := devcfg.Scope{PathPrefixes: []string{"/qos/"}}
	for _, port := range sw.Ports {
		owned.Paths = append(owned.Paths, "/port/"+port.Name+"/mtu")
	}
	return &devcfg.Config{Shape: devcfg.ShapePaths, Paths: p, Owned: owned}, nil
}

func fakeRegistry() *renderers.Registry {
	r := renderers.NewRegistry()
	err := r.Register(renderers.Entry{Name: "fakeplat", New: func() renderers.Renderer { return fakeRenderer{} },
		Attrs: renderers.Attributes{
			Platform:   devcfg.Platform{Shape: devcfg.ShapePaths, Syntax: devcfg.Syntax{Style: devcfg.StylePaths}},
			Transports: []string{"fake"}, MTUCeiling: 9216,
			Classify: renderers.ClassifyByKeywords(map[string]string{"/mtu": "MTU changes flap the link"}),
		}})
	if err != nil {
		panic(err)
	}
	return r
}

// fakeFleet is every fake device, by address.
type fakeFleet struct {
	mu      sync.Mutex
	devices map[string]*fakeDevice
}

type fakeDevice struct {
	paths       devcfg.Paths
	failPush    bool
	unreachable bool
	pushes      int
}

func newFleet() *fakeFleet { return &fakeFleet{devices: map[string]*fakeDevice{}} }

func (f *fakeFleet) device(addr string) *fakeDevice {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, ok := f.devices[addr]
	if !ok {
		d = &fakeDevice{paths: devcfg.Paths{"/port/x/description": devcfg.String("not ours")}}
		f.devices[addr] = d
	}
	return d
}

func (f *fakeFleet) registry() *drivers.Registry {
	r := drivers.NewRegistry()
	_ = r.Register("fake", func(_ context.Context, opt drivers.Options) (drivers.Driver, error) {
		d := f.device(opt.Address)
		if d.unreachable {
			return nil, &drivers.DeviceError{Device: opt.Device, Step: "connect", Err: drivers.ErrUnreachable}
		}
		return &fakeDriver{fleet: f, dev: d, opt: opt}, nil
	})
	return r
}

type fakeDriver struct {
	fleet *fakeFleet
	dev   *fakeDevice
	opt   drivers.Options
}

func (d *fakeDriver) Fetch(context.Context) (*drivers.Running, error) {
	d.fleet.mu.Lock()
	defer d.fleet.mu.Unlock()
	cfg := &devcfg.Config{Shape: devcfg.ShapePaths, Paths: d.dev.paths.Clone()}
	return drivers.NewRunning(cfg, d.opt.Platform, d.opt.Scope), nil
}

func (d *fakeDriver) Push(_ context.Context, p devcfg.Patch, opt drivers.PushOptions) (drivers.Pending, error) {
	d.fleet.mu.Lock()
	defer d.fleet.mu.Unlock()
	d.dev.pushes++
	if d.dev.failPush {
		return nil, &drivers.DeviceError{Device: d.opt.Device, Step: "push", Line: "/port/bad", Msg: "rejected by test", Err: drivers.ErrRejected}
	}
	before := d.dev.paths.Clone()
	for _, u := range p.Updates {
		d.dev.paths[u.Path] = u.Value
	}
	for _, del := range p.Deletes {
		delete(d.dev.paths, del)
	}
	return &fakePending{d: d, before: before, window: opt.ConfirmWindow}, nil
}

func (d *fakeDriver) Close() error { return nil }

type fakePending struct {
	d      *fakeDriver
	before devcfg.Paths
	window time.Duration
	done   bool
}

func (p *fakePending) ID() string { return "fake" }
func (p *fakePending) Confirm(context.Context) error {
	p.done = true
	return nil
}
func (p *fakePending) Rollback(context.Context) error {
	if p.done {
		return errors.New("already confirmed")
	}
	p.d.fleet.mu.Lock()
	defer p.d.fleet.mu.Unlock()
	p.d.dev.paths = p.before
	p.done = true
	return nil
}

// fakeIntent builds a fabric of n fake switches with two ports each.
func fakeIntent(n int, mtu string) []byte {
	s := fmt.Sprintf(`apiVersion: rocefab.io/v1alpha1
kind: Fabric
metadata: {name: fake}
spec:
  lossless:
    mtu: {switch: %s, host: 9000}
  switches:
`, mtu)
	for i := 0; i < n; i++ {
		s += fmt.Sprintf("    - {name: sw%02d, platform: fakeplat, address: \"192.0.2.%d\", ports: [{names: p1-2, mode: routed}]}\n", i, i+1)
	}
	return []byte(s)
}
