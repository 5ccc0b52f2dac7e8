package daemon

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/gofrs/flock"
	"go.uber.org/zap"

	"github.com/rocefab/rocefab/agent/daemon/history"
	"github.com/rocefab/rocefab/agent/daemon/notify"
	"github.com/rocefab/rocefab/internal/safefile"
)

// HistoryFile is the name of the history database in the state directory.
const HistoryFile = "history.db"

// Agent is one running rocefab agent.
type Agent struct {
	cfg  Config
	deps Deps
	log  *zap.Logger
	now  func() time.Time

	lock    *flock.Flock
	db      *history.Store
	metrics *metrics
	hub     *counterHub
	streams *switchStreams
	watch   losslessWatch
	devices *deviceLocks
	// meshState is the fabric links' health from mesh runs.
	meshState *meshState

	ln  net.Listener
	srv *http.Server

	mu       sync.RWMutex
	current  *loaded      // the intent in use: the last valid one
	reload   reloadStatus // the last (re)load attempt
	fetch    fetchStatus  // the last fetch of the source
	states   map[string]history.DeviceState
	busy     map[history.Kind]int
	inflight map[string]inflightRun
	lastRuns map[history.Kind]history.Run // briefs, for the status
	stopping bool                         // no new manual runs

	runs      sync.WaitGroup // runs started by triggers
	runCtx    context.Context
	closeOnce sync.Once
	closeErr  error
}

type inflightRun struct {
	ID      string          `json:"id"`
	Kind    history.Kind    `json:"kind"`
	Trigger history.Trigger `json:"trigger"`
	Started time.Time       `json:"startedAt"`
}

// New takes the state directory's lock, opens the history and binds the
// HTTP listener. Nothing runs until Run. A second agent on the same state
// directory fails with ErrLocked, naming the lock file and its holder.
func New(cfg Config, deps Deps) (*Agent, error) {
	cfg.defaults()
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if deps.Engine == nil || deps.Renderers == nil {
		return nil, fmt.Errorf("%w: the agent needs an engine and the renderer registry", ErrConfig)
	}
	if deps.Logger == nil {
		deps.Logger = zap.NewNop()
	}
	if deps.Now == nil {
		deps.Now = time.Now
	}
	if err := os.MkdirAll(cfg.StateDir, 0o700); err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	lk, err := lockStateDir(cfg.StateDir)
	if err != nil {
		return nil, err
	}
	a := &Agent{cfg: cfg, deps: deps, log: deps.Logger, now: deps.Now, lock: lk, devices: newDeviceLocks(),
		states: map[string]history.DeviceState{}, busy: map[history.Kind]int{}, inflight: map[string]inflightRun{},
		lastRuns: map[history.Kind]history.Run{}, meshState: &meshState{links: map[string]history.LinkHealth{}}}
	fail := func(err error) (*Agent, error) {
		a.release()
		return nil, err
	}
	if a.db, err = history.Open(filepath.Join(cfg.StateDir, HistoryFile), deps.Now); err != nil {
		return fail(err)
	}
	// Runs are recorded as running when they start: any still so belong to
	// an agent that died in them.
	if lost, err := a.db.MarkInterrupted("the agent stopped before the run finished (killed, crashed or the machine went down)"); err != nil {
		return fail(fmt.Errorf("history: %w", err))
	} else if len(lost) > 0 {
		for _, r := range lost {
			a.log.Warn("a run was interrupted when the agent last stopped", zap.String("run", r.ID), zap.String("kind", string(r.Kind)))
		}
	}
	if a.states, err = a.db.States(); err != nil {
		return fail(fmt.Errorf("history: %w", err))
	}
	for _, k := range history.Kinds {
		r, err := a.db.Latest(k)
		if err != nil {
			return fail(fmt.Errorf("history: %w", err))
		}
		if r != nil {
			a.lastRuns[k] = *r
		}
	}
	a.hub = newCounterHub(cfg.CountersMaxSeries, cfg.CountersMaxHeld, a.log.Named("counters"))
	a.metrics = newMetrics(deps.Version, cfg.Shard.String(), a.hub)
	a.metrics.reg.MustRegister(losslessCollector{a}, findingsCollector{a})
	for _, st := range a.states {
		a.metrics.setDevice(st.Device, st.Platform, complianceStatus(st.State))
	}
	a.setStateCounts()
	if err := a.restoreMesh(); err != nil {
		return fail(fmt.Errorf("history: %w", err))
	}
	a.streams = newSwitchStreams(a, 16)
	if a.ln, err = net.Listen("tcp", cfg.HTTP.Listen); err != nil {
		return fail(fmt.Errorf("listen %s: %w", cfg.HTTP.Listen, err))
	}
	if deps.Notifier == nil && cfg.Webhook != nil {
		opt := *cfg.Webhook
		if opt.Logger == nil {
			opt.Logger = a.log.Named("webhook")
		}
		opt.Delivered = func(ok bool, _ int) {
			result := "delivered"
			if !ok {
				result = "failed"
			}
			a.metrics.webhooks.WithLabelValues(result).Inc()
		}
		wh, err := notify.New(opt)
		if err != nil {
			_ = a.ln.Close()
			return fail(err)
		}
		a.deps.Notifier = wh
	}
	h := cfg.HTTP
	a.srv = &http.Server{Handler: a.Handler(), ReadHeaderTimeout: h.ReadHeaderTimeout, ReadTimeout: h.ReadTimeout,
		WriteTimeout: h.WriteTimeout, IdleTimeout: h.IdleTimeout, MaxHeaderBytes: MaxHeaderBytes, ErrorLog: zap.NewStdLog(a.log)}
	return a, nil
}

// Addr is the address the HTTP server listens on.
func (a *Agent) Addr() string { return a.ln.Addr().String() }

// History is the run history (read it, do not close it).
func (a *Agent) History() *history.Store { return a.db }

// Run works until ctx ends: it loads the intent, follows the source,
// runs the schedules, collects counters and serves HTTP. On the way out it
// cancels running checks (an apply finishes the pushes it started),
// flushes notifications for up to the shutdown timeout, closes the history
// and releases the lock.
func (a *Agent) Run(ctx context.Context) error {
	defer a.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	a.mu.Lock()
	a.runCtx = ctx
	a.mu.Unlock()

	serveErr := make(chan error, 1)
	go func() {
		var err error
		if a.cfg.HTTP.TLSCert != "" {
			err = a.srv.ServeTLS(a.ln, a.cfg.HTTP.TLSCert, a.cfg.HTTP.TLSKey)
		} else {
			err = a.srv.Serve(a.ln)
		}
		if !errors.Is(err, http.ErrServerClosed) {
			serveErr <- err
		}
	}()
	a.log.Info("agent started", zap.String("listen", a.Addr()), zap.String("source", a.cfg.Source.String()),
		zap.String("shard", a.cfg.Shard.String()), zap.String("stateDir", a.cfg.StateDir))

	var loops sync.WaitGroup
	loop := func(f func(context.Context)) {
		loops.Add(1)
		go func() {
			defer loops.Done()
			f(ctx)
		}()
	}
	a.refresh(ctx)
	loop(a.sourceLoop)
	loop(func(ctx context.Context) { a.scheduleLoop(ctx, history.KindDrift, a.cfg.Drift) })
	if a.cfg.Probe.Interval > 0 && a.deps.Probe != nil {
		loop(func(ctx context.Context) { a.scheduleLoop(ctx, history.KindProbe, a.cfg.Probe) })
	}
	// The mesh covers the whole fabric whatever the shard, so of sharded
	// agents only the first runs it on schedule: N agents would send N
	// times the probe load and announce every link N times.
	if a.cfg.Mesh.Interval > 0 && a.deps.Mesh != nil && a.cfg.Shard.Index == 0 {
		loop(func(ctx context.Context) { a.scheduleLoop(ctx, history.KindMesh, a.cfg.Mesh) })
	}
	if a.cfg.CountersInterval > 0 && a.deps.HostCounters != nil {
		loop(func(ctx context.Context) { a.pollHost(ctx, a.deps.HostCounters) })
	}
	if a.cfg.CountersInterval > 0 {
		loop(a.losslessLoop)
	}
	loop(a.pruneLoop)

	var err error
	select {
	case <-ctx.Done():
	case err = <-serveErr:
		err = fmt.Errorf("HTTP server: %w", err)
		cancel()
	}
	a.log.Info("agent stopping")
	a.mu.Lock()
	a.stopping = true
	a.mu.Unlock()
	loops.Wait()
	a.streams.stop()
	a.waitRuns()
	return err
}

// waitRuns waits for triggered runs (manual API runs) to record
// themselves.
func (a *Agent) waitRuns() {
	done := make(chan struct{})
	go func() {
		a.runs.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(a.cfg.ShutdownTimeout):
		a.log.Warn("runs still going at the shutdown timeout")
	}
}

// Close releases everything New took. Run calls it on the way out.
func (a *Agent) Close() error {
	a.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), a.cfg.ShutdownTimeout)
		defer cancel()
		if a.srv != nil {
			_ = a.srv.Shutdown(ctx)
		}
		if a.ln != nil {
			_ = a.ln.Close()
		}
		if a.deps.Notifier != nil {
			a.deps.Notifier.Close(ctx)
		}
		a.closeErr = a.release()
	})
	return a.closeErr
}

func (a *Agent) release() error {
	var errs []error
	if a.db != nil {
		errs = append(errs, a.db.Close())
	}
	if a.lock != nil {
		errs = append(errs, a.lock.Unlock())
	}
	return errors.Join(errs...)
}

// sleep waits d, or less when ctx ends; false means ctx ended.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

func jittered(s Schedule) time.Duration {
	if s.Jitter <= 0 {
		return s.Interval
	}
	return s.Interval + rand.N(s.Jitter)
}

// sourceLoop fetches the intent every refresh interval.
func (a *Agent) sourceLoop(ctx context.Context) {
	for sleep(ctx, a.cfg.Refresh) {
		a.refresh(ctx)
	}
}

// scheduleLoop runs kind on its schedule: the first run a jitter after
// start, then every interval plus jitter. A run still going when the next
// is due makes the next one skip.
func (a *Agent) scheduleLoop(ctx context.Context, kind history.Kind, s Schedule) {
	first := time.Duration(0)
	if s.Jitter > 0 {
		first = rand.N(s.Jitter)
	}
	if !sleep(ctx, first) {
		return
	}
	for {
		if a.intent() != nil {
			if _, err := a.execute(ctx, kind, history.TriggerSchedule, ""); errors.Is(err, errBusy) {
				a.metrics.runsSkipped.WithLabelValues(string(kind)).Inc()
				a.log.Info("scheduled run skipped: the previous one is still going", zap.String("kind", string(kind)))
			}
		}
		if !sleep(ctx, jittered(s)) {
			return
		}
	}
}

// pruneLoop applies the retention hourly (and after each run).
func (a *Agent) pruneLoop(ctx context.Context) {
	a.prune()
	for sleep(ctx, time.Hour) {
		a.prune()
	}
}

func (a *Agent) prune() {
	removed, err := a.db.Prune(a.cfg.Retention)
	if err != nil {
		a.log.Error("history retention", zap.Error(err))
		return
	}
	for _, r := range removed {
		switch r.Kind {
		case history.KindApply, history.KindDrift, history.KindProbe:
			// The run store's record (and an apply's snapshots) of a run
			// this agent made.
			_ = safefile.RemoveAll(a.cfg.StateDir, filepath.Join("runs", r.ID))
		}
	}
	if len(removed) > 0 {
		a.log.Info("history pruned", zap.Int("runs", len(removed)))
	}
}
