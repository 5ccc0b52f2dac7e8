package probe

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"go.uber.org/zap"
)

// The control socket lets `probe run` use the endpoint of a running `probe
// serve` instead of binding the RoCEv2 port a second time: the client sends
// one JSON request line; the server streams back JSON events (pcap chunks,
// then the report or an error).
const controlVersion = 1

type controlRequest struct {
	Version int        `json:"version"`
	Op      string     `json:"op"` // "run" or "flows"
	Run     controlRun `json:"run"`
	Flows   *FlowRun   `json:"flows,omitempty"`
}

type controlRun struct {
	Targets  []Target `json:"targets"`
	Policy   Policy   `json:"policy"`
	From     string   `json:"from,omitempty"`
	Parallel int      `json:"parallel,omitempty"`
	Pcap     bool     `json:"pcap,omitempty"`
}

type controlEvent struct {
	Type   string  `json:"type"` // "pcap", "report", "flows" or "error"
	Data   []byte  `json:"data,omitempty"`
	Report *Report `json:"report,omitempty"`
	Flows  flowRes `json:"flows,omitempty"`
	Error  string  `json:"error,omitempty"`
}

// errNoServer means no probe server answers on the control socket.
var errNoServer = errors.New("no probe server")

func controlPath(dir string) string { return filepath.Join(dir, ControlSocketName) }

// controlAlive reports whether a server answers on dir's control socket.
func controlAlive(dir string) bool {
	c, err := net.DialTimeout("unix", controlPath(dir), time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// startControl listens on the control socket; stop closes it (and removes
// the socket file).
func (e *Endpoint) startControl(ctx context.Context) (stop func(), err error) {
	dir := e.cfg.RunDir
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("probe run dir: %w", err)
	}
	path := controlPath(dir)
	if controlAlive(dir) {
		return nil, fmt.Errorf("%w (control socket %s)", ErrServerRunning, path)
	}
	_ = os.Remove(path) // stale socket of a server that died
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("probe control socket: %w", err)
	}
	// Only the owner (root for the daemon) may start probe runs.
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				e.serveControl(ctx, c)
			}()
		}
	}()
	e.log.Info("probe control socket up", zap.String("path", path))
	return func() {
		cancel()
		ln.Close()
		wg.Wait()
	}, nil
}

// eventWriter serialises events on one connection.
type eventWriter struct {
	mu  sync.Mutex
	enc *json.Encoder
}

func (w *eventWriter) send(ev controlEvent) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.enc.Encode(ev)
}

// pcapStream forwards pcap bytes to the client as events.
type pcapStream struct{ w *eventWriter }

func (p pcapStream) Write(b []byte) (int, error) {
	if err := p.w.send(controlEvent{Type: "pcap", Data: b}); err != nil {
		return 0, err
	}
	return len(b), nil
}

func (e *Endpoint) serveControl(ctx context.Context, c net.Conn) {
	defer c.Close()
	out := &eventWriter{enc: json.NewEncoder(c)}
	var req controlRequest
	if err := json.NewDecoder(c).Decode(&req); err != nil {
		_ = out.send(controlEvent{Type: "error", Error: "bad control request: " + err.Error()})
		return
	}
	if req.Version != controlVersion {
		_ = out.send(controlEvent{Type: "error", Error: fmt.Sprintf("control protocol version %d not supported (server speaks %d)", req.Version, controlVersion)})
		return
	}
	if req.Op == "flows" {
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		go func() { _, _ = io.Copy(io.Discard, c); cancel() }()
		e.serveFlows(ctx, out, req.Flows)
		return
	}
	if req.Op != "run" {
		_ = out.send(controlEvent{Type: "error", Error: fmt.Sprintf("unknown control operation %q", req.Op)})
		return
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		// The client hanging up cancels its run.
		_, _ = io.Copy(io.Discard, c)
		cancel()
	}()
	cfg := RunConfig{Targets: req.Run.Targets, Policy: req.Run.Policy, From: req.Run.From, Parallel: req.Run.Parallel}
	var buf *bufio.Writer
	if req.Run.Pcap {
		buf = bufio.NewWriterSize(pcapStream{out}, 64<<10)
		cfg.Pcap = buf
	}
	e.log.Info("probe run via control socket", zap.Int("targets", len(cfg.Targets)))
	rep, err := e.Run(ctx, cfg)
	if buf != nil {
		_ = buf.Flush()
	}
	if rep == nil {
		_ = out.send(controlEvent{Type: "error", Error: err.Error()})
		return
	}
	_ = out.send(controlEvent{Type: "report", Report: rep})
}

// runViaServer asks the server on dir's control socket to run cfg.
func runViaServer(ctx context.Context, dir string, cfg RunConfig) (*Report, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", controlPath(dir))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errNoServer, err)
	}
	defer c.Close()
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			c.Close()
		case <-done:
		}
	}()
	req := controlRequest{Version: controlVersion, Op: "run", Run: controlRun{
		Targets: cfg.Targets, Policy: cfg.Policy, From: cfg.From, Parallel: cfg.Parallel, Pcap: cfg.Pcap != nil}}
	if err := json.NewEncoder(c).Encode(req); err != nil {
		return nil, fmt.Errorf("probe server: %w", err)
	}
	dec := json.NewDecoder(c)
	for {
		var ev controlEvent
		if err := dec.Decode(&ev); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("probe server closed the connection: %w", err)
		}
		switch ev.Type {
		case "pcap":
			if cfg.Pcap != nil {
				if _, err := cfg.Pcap.Write(ev.Data); err != nil {
					return nil, fmt.Errorf("pcap: %w", err)
				}
			}
		case "report":
			if ev.Report == nil || ev.Report.SchemaVersion != SchemaVersion {
				return nil, fmt.Errorf("probe server sent a report this build cannot read")
			}
			return ev.Report, nil
		case "error":
			return nil, fmt.Errorf("probe server: %s", ev.Error)
		default:
			return nil, fmt.Errorf("probe server sent unknown event %q", ev.Type)
		}
	}
}

// Run probes cfg.Targets from this host. If a probe server runs here (its
// control socket answers in cfg.Endpoint.RunDir), the server's endpoint does
// the work and streams back the report; otherwise Run opens an endpoint of
// its own for the run.
func Run(ctx context.Context, cfg RunConfig) (*Report, error) {
	if len(cfg.Targets) == 0 {
		return nil, ErrNoTargets
	}
	dir := cfg.Endpoint.RunDir
	if dir != "" {
		rep, err := runViaServer(ctx, dir, cfg)
		if !errors.Is(err, errNoServer) {
			return rep, err
		}
	}
	ecfg := cfg.Endpoint
	ecfg.Policy = cfg.Policy // this process is the endpoint: answer the run's P_Key and QPs
	if ecfg.Logger == nil {
		ecfg.Logger = cfg.Logger
	}
	ep, err := NewEndpoint(ecfg)
	if errors.Is(err, ErrPortInUse) && dir != "" {
		// A server binds the port before it opens its control socket; give
		// one that is starting a moment.
		for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); {
			time.Sleep(100 * time.Millisecond)
			rep, err := runViaServer(ctx, dir, cfg)
			if !errors.Is(err, errNoServer) {
				return rep, err
			}
		}
		return nil, fmt.Errorf("%w and no probe server answers on %s", err, controlPath(dir))
	}
	if err != nil {
		return nil, err
	}
	defer ep.Close()
	return ep.Run(ctx, cfg)
}
