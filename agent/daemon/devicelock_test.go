package daemon

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/agent/daemon/history"
	"github.com/rocefab/rocefab/agent/daemon/shard"
	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/gnmi"
	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
)

func TestDeviceLocksExclusive(t *testing.T) {
	l := newDeviceLocks()
	ctx := context.Background()
	rel1, err := l.acquire(ctx, "r1", []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	// A disjoint run goes ahead.
	rel2, err := l.acquire(ctx, "r2", []string{"c"})
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		rel, err := l.acquire(ctx, "r3", []string{"b", "c"})
		if err == nil {
			got <- l.holder("b")
			rel()
		}
	}()
	select {
	case <-got:
		t.Fatal("r3 took b while r1 held it")
	case <-time.After(20 * time.Millisecond):
	}
	rel1()
	select {
	case <-got:
		t.Fatal("r3 took c while r2 held it")
	case <-time.After(20 * time.Millisecond):
	}
	rel2()
	if h := <-got; h != "r3" {
		t.Fatalf("b held by %q", h)
	}
}

// TestDeviceLocksArrivalOrder: a waiting fleet-wide run is not overtaken
// by later runs on its devices.
func TestDeviceLocksArrivalOrder(t *testing.T) {
	l := newDeviceLocks()
	ctx := context.Background()
	rel, _ := l.acquire(ctx, "small1", []string{"a"})
	order := make(chan string, 2)
	go func() {
		r, _ := l.acquire(ctx, "fleet", []string{"a", "b"})
		order <- "fleet"
		r()
	}()
	waitFor(t, "the fleet run to queue", func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		return len(l.waiting) == 1
	})
	go func() {
		r, _ := l.acquire(ctx, "small2", []string{"b"})
		order <- "small2"
		r()
	}()
	time.Sleep(20 * time.Millisecond) // small2 must keep waiting: b is wanted by the fleet run first
	rel()
	if first := <-order; first != "fleet" {
		t.Fatalf("%s went first", first)
	}
	<-order
}

func TestDeviceLocksCancel(t *testing.T) {
	l := newDeviceLocks()
	rel, _ := l.acquire(context.Background(), "r1", []string{"a"})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := l.acquire(ctx, "r2", []string{"a", "b"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v", err)
	}
	// The cancelled waiter no longer holds up b.
	r3, err := l.acquire(context.Background(), "r3", []string{"b"})
	if err != nil {
		t.Fatal(err)
	}
	r3()
	rel()
}

// overlapWatch counts driver sessions per device.
type overlapWatch struct {
	mu      sync.Mutex
	open    map[string]int
	maxOpen map[string]int
}

type watchedDriver struct {
	drivers.Driver
	w      *overlapWatch
	device string
	once   sync.Once
}

func (d *watchedDriver) Close() error {
	d.once.Do(func() {
		d.w.mu.Lock()
		d.w.open[d.device]--
		d.w.mu.Unlock()
	})
	return d.Driver.Close()
}

// TestRunsNeverOverlapOnADevice: concurrent plan and drift runs take
// turns on each device.
func TestRunsNeverOverlapOnADevice(t *testing.T) {
	f := newFixture(t, 2, func(o *gnmisim.Options) {})
	for _, s := range f.sims {
		s.SetFaults(gnmisim.Faults{Delay: 5 * time.Millisecond})
	}
	c1 := f.commit("first", f.intent("150KB", "9216"))
	f.converge("150KB", "9216")
	w := &overlapWatch{open: map[string]int{}, maxOpen: map[string]int{}}
	dr := drivers.NewRegistry()
	_ = dr.Register("gnmi", func(ctx context.Context, opt drivers.Options) (drivers.Driver, error) {
		d, err := gnmi.Dial(ctx, opt)
		if err != nil {
			return nil, err
		}
		w.mu.Lock()
		w.open[opt.Device]++
		w.maxOpen[opt.Device] = max(w.maxOpen[opt.Device], w.open[opt.Device])
		w.mu.Unlock()
		return &watchedDriver{Driver: d, w: w, device: opt.Device}, nil
	})
	deps := f.deps()
	deps.Engine = engine.New(simRegistry(), dr, nil, engine.Options{Timeout: 5 * time.Second, Parallelism: 4,
		Secrets: func(compliance.Connection) (drivers.Credentials, error) {
			return drivers.Credentials{Username: simUser, Password: simPass}, nil
		}})
	a := f.start(f.config(), deps)
	a.waitRun(history.KindPlan, history.TriggerCommit, c1)
	var wg sync.WaitGroup
	for i := 0; i < 6; i++ {
		kind := history.KindDrift
		if i%2 == 0 {
			kind = history.KindPlan
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := a.RunNow(context.Background(), kind)
			if err != nil || r.Result == history.ResultFailure {
				t.Errorf("%s run: %v %+v", kind, err, r)
			}
		}()
	}
	wg.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	for dev, n := range w.maxOpen {
		if n != 1 {
			t.Errorf("%s had %d runs at once", dev, n)
		}
	}
	if len(w.maxOpen) != 2 {
		t.Fatalf("sessions seen for %v", w.maxOpen)
	}
}

// TestShardedAgents: two agents with --shard 0/2 and 1/2 split the fleet
// by rendezvous hash, each checking only its own devices.
func TestShardedAgents(t *testing.T) {
	f := newFixture(t, 4)
	c1 := f.commit("first", f.intent("150KB", "9216"))
	f.converge("150KB", "9216")
	seen := map[string]int{}
	for i := 0; i < 2; i++ {
		cfg := f.config()
		cfg.StateDir = filepath.Join(t.TempDir(), fmt.Sprintf("shard%d", i))
		cfg.Source = gitSource(t, f, cfg.StateDir)
		cfg.Shard = shard.Spec{Index: i, Count: 2}
		a := f.start(cfg, f.deps())
		p := a.waitRun(history.KindPlan, history.TriggerCommit, c1)
		if p.Shard != fmt.Sprintf("%d/2", i) {
			t.Fatalf("run shard %q", p.Shard)
		}
		var names []string
		for _, d := range p.Devices {
			names = append(names, d.Device)
			seen[d.Device]++
			if shard.Owner(d.Device, 2) != i {
				t.Errorf("shard %d planned %s, owned by shard %d", i, d.Device, shard.Owner(d.Device, 2))
			}
		}
		sort.Strings(names)
		t.Logf("shard %d/2 owns %v", i, names)
	}
	if len(seen) != 4 {
		t.Fatalf("devices planned across shards: %v", seen)
	}
	for d, n := range seen {
		if n != 1 {
			t.Errorf("%s planned by %d shards", d, n)
		}
	}
}
