package daemon

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/drivers/gnmi"
	"github.com/rocefab/rocefab/drivers/gnmi/gnmipath"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/validators/doctor/counters"
)

// sampler is the gNMI driver's streaming subscription.
type sampler interface {
	Subscribe(ctx context.Context, paths []string, mode gnmi.Mode, interval time.Duration) (<-chan gnmi.Batch, error)
}

// errNoTelemetry: the switch's transport cannot stream counters.
var errNoTelemetry = errors.New("counters need the gnmi transport")

// switchStreams keeps one gNMI SAMPLE subscription per owned switch and
// follows intent changes: a switch whose connection settings, ports or
// priorities changed is re-subscribed, a switch that left is dropped.
type switchStreams struct {
	a       *Agent
	dialSem chan struct{}
	mu      sync.Mutex
	running map[string]*stream
}

type stream struct {
	fingerprint string
	cancel      context.CancelFunc
	done        chan struct{}
}

func newSwitchStreams(a *Agent, dialParallel int) *switchStreams {
	return &switchStreams{a: a, dialSem: make(chan struct{}, max(dialParallel, 1)), running: map[string]*stream{}}
}

// counterPriorities are the priorities whose counters matter: the no-drop
// priority, the PFC priorities and, with ECN on, the CNP priority.
func counterPriorities(p intent.Policy) []int {
	prios := []int{p.NoDropPriority}
	// The CNP queue too: a CNP dropped there is a notification the
	// sender never gets (cnp_drop), and CNPs are marked only with ECN on.
	if p.ECNOn() && p.CNPPriority != p.NoDropPriority {
		prios = append(prios, p.CNPPriority)
	}
	if p.PFCOn() {
		for _, x := range p.PFCPriorities {
			if !slices.Contains(prios, x) {
				prios = append(prios, x)
			}
		}
	}
	sort.Ints(prios)
	return prios
}

func streamFingerprint(r *intent.Resolved, sw *intent.Switch) string {
	ports := make([]string, len(sw.Ports))
	for i, p := range sw.Ports {
		ports[i] = p.Name
	}
	return fmt.Sprintf("%s|%s|%s|%+v|%+v|%s|%s|%v|%v", sw.Platform, sw.Transport, sw.Address.String(), sw.Creds, sw.TLS,
		r.Security.CABundle, r.Security.KnownHosts, ports, counterPriorities(sw.Policy))
}

// sync starts, restarts and stops subscriptions to match the intent.
func (s *switchStreams) sync(ctx context.Context, r *intent.Resolved, owns func(string) bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	want := map[string]*intent.Switch{}
	for _, sw := range r.Switches {
		if owns == nil || owns(sw.Name) {
			want[sw.Name] = sw
		}
	}
	for name, st := range s.running {
		sw, ok := want[name]
		if ok && st.fingerprint == streamFingerprint(r, sw) {
			delete(want, name) // unchanged: keep streaming
			continue
		}
		st.cancel()
		<-st.done
		delete(s.running, name)
	}
	for name, sw := range want {
		sctx, cancel := context.WithCancel(ctx)
		st := &stream{fingerprint: streamFingerprint(r, sw), cancel: cancel, done: make(chan struct{})}
		s.running[name] = st
		go func() {
			defer close(st.done)
			s.follow(sctx, r, sw)
		}()
	}
}

// stop ends every subscription and waits for them.
func (s *switchStreams) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, st := range s.running {
		st.cancel()
		<-st.done
		delete(s.running, name)
	}
}

// follow keeps a switch subscribed, reconnecting with backoff, until ctx
// ends; its series are dropped then.
func (s *switchStreams) follow(ctx context.Context, r *intent.Resolved, sw *intent.Switch) {
	hub, log := s.a.hub, s.a.log.With(zap.String("device", sw.Name))
	defer hub.drop(sw.Name)
	hub.setKeyPriorities(sw.Name, keyPriorities(counterPriorities(sw.Policy), sw.Policy.CNPPriority))
	interval := s.a.cfg.CountersInterval
	backoff := max(interval, time.Second)
	for {
		got, err := s.subscribe(ctx, r, sw)
		if ctx.Err() != nil {
			return
		}
		hub.setUp(roleSwitch, sw.Name, false)
		if errors.Is(err, errNoTelemetry) {
			log.Info("switch counters not collected", zap.Error(err))
			return
		}
		log.Warn("switch counter subscription ended; reconnecting", zap.Duration("in", backoff), zap.Error(err))
		if got {
			backoff = max(interval, time.Second)
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		backoff = min(backoff*2, 5*time.Minute)
	}
}

// subscribe runs one SAMPLE subscription until it fails or ctx ends, and
// reports whether any counter arrived.
func (s *switchStreams) subscribe(ctx context.Context, r *intent.Resolved, sw *intent.Switch) (bool, error) {
	select {
	case s.dialSem <- struct{}{}:
	case <-ctx.Done():
		return false, ctx.Err()
	}
	drv, transport, err := s.a.deps.Engine.OpenSwitch(ctx, r, sw)
	if err != nil {
		<-s.dialSem
		return false, err
	}
	defer drv.Close()
	sub, ok := drv.(sampler)
	if !ok {
		<-s.dialSem
		if transport == "ssh" {
			return s.pollSSH(ctx, sw, drv)
		}
		return false, fmt.Errorf("%w; %s uses %s", errNoTelemetry, sw.Name, transport)
	}
	ports := make([]string, len(sw.Ports))
	for i, p := range sw.Ports {
		ports[i] = p.Name
	}
	byPath := map[string]counters.CounterPath{}
	cps := counters.PathsWith(s.a.deps.Renderers, sw.Platform, ports, counterPriorities(sw.Policy))
	for _, cp := range cps {
		canon, err := gnmipath.Canonical(cp.Path)
		if err != nil {
			<-s.dialSem
			return false, fmt.Errorf("counter path %s: %w", cp.Path, err)
		}
		byPath[canon] = cp
	}
	// One stream: a platform's counters live under one gNMI target.
	targets, byTarget := counters.Requests(cps)
	if len(targets) != 1 {
		<-s.dialSem
		return false, fmt.Errorf("%s: counter paths under %d gNMI targets; one stream takes one", sw.Name, len(targets))
	}
	ch, err := sub.Subscribe(ctx, byTarget[targets[0]], gnmi.Sample, s.a.cfg.CountersInterval)
	<-s.dialSem
	if err != nil {
		return false, err
	}
	got := false
	clock := sampleClock{maxLag: 3 * s.a.cfg.CountersInterval}
	var stamps []time.Time
	for b := range ch {
		if b.Err != nil {
			return got, b.Err
		}
		if b.Sync {
			s.a.hub.endCycle(sw.Name)
			continue
		}
		var samples []counters.Sample
		stamps = stamps[:0]
		for _, c := range b.Counters {
			stamps = append(stamps, c.Time)
			canon, err := gnmipath.Canonical(c.Path)
			if err != nil {
				continue
			}
			if cp, ok := byPath[canon]; ok {
				samples = append(samples, counters.Sample{Key: counters.Key{Device: sw.Name, Port: cp.Port, Counter: cp.Counter}, Value: c.Value})
			}
		}
		if len(samples) > 0 {
			got = true
			arrived := s.a.now()
			s.a.hub.setSampled(roleSwitch, samples, clock.at(batchTime(stamps), arrived), arrived)
		}
	}
	return got, ctx.Err()
}

// pollHost reads this host's NIC counters every interval until ctx ends.
func (a *Agent) pollHost(ctx context.Context, src counters.Source) {
	defer a.hub.drop(src.Name())
	t := time.NewTicker(a.cfg.CountersInterval)
	defer t.Stop()
	for {
		samples, err := src.Read(ctx)
		if len(samples) > 0 {
			a.hub.set(roleHost, samples, a.now())
		}
		if err != nil {
			a.log.Warn("host counters", zap.String("host", src.Name()), zap.Error(err))
			if len(samples) == 0 {
				a.hub.setUp(roleHost, src.Name(), false)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
