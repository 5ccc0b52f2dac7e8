package daemon

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"text/template"
	"time"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/agent/daemon/history"
	"github.com/rocefab/rocefab/agent/daemon/intentsrc"
	"github.com/rocefab/rocefab/agent/daemon/internal/gittest"
	"github.com/rocefab/rocefab/agent/daemon/notify"
	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/gnmi"
	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/sonic"
	"github.com/rocefab/rocefab/validators/doctor/counters"
)

// The simulated fabric: switches of platform "simoc", an OpenConfig
// platform defined here (two owned leaves per port plus one ECN profile
// leaf) and pushed by the real gNMI driver to gnmisim targets.

const (
	simUser = "rocefab"
	simPass = "sim-Pa55word"
)

func mtuPath(port string) string { return "/interfaces/interface[name=" + port + "]/config/mtu" }

const ecnPath = "/qos/queue-management-profiles/queue-management-profile[name=ROCEFAB_ECN]/wred/uniform/config/min-threshold"

type simRenderer struct{}

func (simRenderer) Render(sw *intent.Switch) (*devcfg.Config, error) {
	p := devcfg.Paths{}
	owned := devcfg.Scope{PathPrefixes: []string{"/qos/queue-management-profiles/queue-management-profile[name=ROCEFAB_"}}
	mtu := 9216
	if !sw.Policy.SwitchMTU.Max {
		mtu = sw.Policy.SwitchMTU.Value
	}
	for _, port := range sw.Ports {
		p[mtuPath(port.Name)] = devcfg.Int(int64(mtu))
		owned.Paths = append(owned.Paths, mtuPath(port.Name))
	}
	p[ecnPath] = devcfg.Uint64(sw.Policy.ECNMin)
	return &devcfg.Config{Shape: devcfg.ShapePaths, Paths: p, Owned: owned}, nil
}

func init() {
	if err := counters.RegisterPaths("simoc", sonic.CounterPaths); err != nil {
		panic(err)
	}
}

func simRegistry() *renderers.Registry {
	r := renderers.NewRegistry()
	err := r.Register(renderers.Entry{Name: "simoc", New: func() renderers.Renderer { return simRenderer{} },
		Attrs: renderers.Attributes{
			Platform: devcfg.Platform{Name: "simoc", Shape: devcfg.ShapePaths, Commit: devcfg.CommitGNMI,
				Syntax: devcfg.Syntax{Style: devcfg.StylePaths}},
			Transports: []string{"gnmi"}, MTUCeiling: 9216, MaxNoDropPriorities: 2,
			Classify: renderers.ClassifyByKeywords(map[string]string{"/mtu": "an MTU change flaps the link"}),
		}})
	if err != nil {
		panic(err)
	}
	return r
}

// fabricYAML is the intent; each switch is one simulator.
var fabricYAML = template.Must(template.New("fabric").Parse(`apiVersion: rocefab.io/v1alpha1
kind: Fabric
metadata: {name: lab}
spec:
  lossless:
    noDropPriority: 3
    ecn: {minThreshold: {{.ECNMin}}, maxThreshold: 1500KB}
    mtu: {switch: {{.MTU}}, host: 9000}
  security:
    caBundle: {{.CA}}
  switches:
{{- range .Switches}}
    - name: {{.Name}}
      platform: simoc
      transport: gnmi
      address: "{{.Addr}}"
      credentials: {username: rocefab, passwordEnv: ROCEFAB_TEST_SIM_PASSWORD}
      ports: [{names: Ethernet1-2, mode: routed}]
{{- if .Overrides}}
      overrides: {{.Overrides}}
{{- end}}
{{- end}}
`))

type fabricParams struct {
	ECNMin   string
	MTU      string
	CA       string
	Switches []switchParams
}

type switchParams struct{ Name, Addr, Overrides string }

type fixture struct {
	t        *testing.T
	sims     map[string]*gnmisim.Target
	names    []string
	ca       string
	repo     *gittest.Repo
	stateDir string
	hooks    *hookSink
}

// newFixture starts n simulated switches (leaf1..leafN) and an intent
// repository with a first valid commit.
func newFixture(t *testing.T, n int, tune ...func(*gnmisim.Options)) *fixture {
	t.Helper()
	f := &fixture{t: t, sims: map[string]*gnmisim.Target{}, repo: gittest.New(t), stateDir: filepath.Join(t.TempDir(), "state")}
	var pem bytes.Buffer
	for i := 1; i <= n; i++ {
		name := fmt.Sprintf("leaf%d", i)
		// OpenConfig for simoc's configuration, and SONiC's COUNTERS_DB for
		// its counters: per-priority PFC and watchdog counters, which
		// OpenConfig does not model (simoc's counter paths are SONiC's).
		opt := gnmisim.Options{Name: name, Username: simUser, Password: simPass, CountersDB: true,
			Ports: []string{"Ethernet1", "Ethernet2"}, Counters: gnmisim.CounterOptions{Priorities: []int{3}}}
		for _, fn := range tune {
			fn(&opt)
		}
		sim, err := gnmisim.Start(opt)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(sim.Stop)
		f.sims[name] = sim
		f.names = append(f.names, name)
		pem.Write(sim.CAPEM())
	}
	f.ca = filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(f.ca, pem.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	f.hooks = newHookSink(t)
	return f
}

// intent renders the fabric with an ECN minimum and a switch MTU.
func (f *fixture) intent(ecnMin, mtu string) string { return f.intentWith(ecnMin, mtu, nil) }

// intentWith adds per-switch lossless overrides (flow YAML).
func (f *fixture) intentWith(ecnMin, mtu string, overrides map[string]string) string {
	p := fabricParams{ECNMin: ecnMin, MTU: mtu, CA: f.ca}
	for _, name := range f.names {
		p.Switches = append(p.Switches, switchParams{name, f.sims[name].Addr(), overrides[name]})
	}
	var b strings.Builder
	if err := fabricYAML.Execute(&b, p); err != nil {
		f.t.Fatal(err)
	}
	return b.String()
}

// commit commits the fabric file and returns the SHA.
func (f *fixture) commit(msg, content string) string {
	return f.repo.Commit(msg, map[string]string{"fabric/fabric.yaml": content})
}

// converge loads every simulator with what the intent renders, as if it
// had been applied.
func (f *fixture) converge(ecnMin, mtu string) {
	f.t.Helper()
	res := resolve(f.t, f.intent(ecnMin, mtu))
	for _, sw := range res.Switches {
		cfg, err := simRenderer{}.Render(sw)
		if err != nil {
			f.t.Fatal(err)
		}
		if err := f.sims[sw.Name].Load(cfg.Paths); err != nil {
			f.t.Fatal(err)
		}
	}
}

func resolve(t *testing.T, yaml string) *intent.Resolved {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, "fabric.yaml")
	if err := os.WriteFile(p, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	fab, diags := intent.Load(p)
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	res, diags := intent.Resolve(fab)
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	return res
}

func (f *fixture) engine() *engine.Engine {
	dr := drivers.NewRegistry()
	if err := gnmi.Register(dr); err != nil {
		f.t.Fatal(err)
	}
	return engine.New(simRegistry(), dr, nil, engine.Options{Timeout: 5 * time.Second, Retries: 0, Parallelism: 4,
		Secrets: func(compliance.Connection) (drivers.Credentials, error) {
			return drivers.Credentials{Username: simUser, Password: simPass}, nil
		}})
}

// config is a fast configuration: refresh every 50ms, no scheduled drift
// within a test (the first check runs at start), no counters.
func (f *fixture) config() Config {
	return Config{StateDir: f.stateDir, Source: gitSource(f.t, f, f.stateDir), Refresh: 50 * time.Millisecond,
		Drift:           Schedule{Interval: time.Hour},
		HTTP:            HTTPConfig{Listen: "127.0.0.1:0"},
		Webhook:         &notify.Options{URL: f.hooks.srv.URL, Backoff: time.Millisecond},
		ShutdownTimeout: 5 * time.Second}
}

// gitSource follows the fixture's repository with a working copy in
// stateDir, as the CLI sets it up.
func gitSource(t *testing.T, f *fixture, stateDir string) intentsrc.Source {
	g, err := intentsrc.NewGit(intentsrc.GitOptions{URL: f.repo.Dir, Dir: filepath.Join(stateDir, "git"), Paths: []string{"fabric"}})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func (f *fixture) deps() Deps {
	return Deps{Engine: f.engine(), Renderers: simRegistry(), Version: "test"}
}

// running is an agent running in the background.
type running struct {
	*Agent
	t      *testing.T
	cancel context.CancelFunc
	done   chan error
	base   string
}

func (f *fixture) start(cfg Config, deps Deps) *running {
	f.t.Helper()
	a, err := New(cfg, deps)
	if err != nil {
		f.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{Agent: a, t: f.t, cancel: cancel, done: make(chan error, 1), base: "http://" + a.Addr()}
	go func() { r.done <- a.Run(ctx) }()
	f.t.Cleanup(r.stop)
	return r
}

// stop ends the agent and waits for Run to return.
func (r *running) stop() {
	r.cancel()
	select {
	case err := <-r.done:
		if err != nil {
			r.t.Errorf("agent Run: %v", err)
		}
		r.done <- nil // a second stop returns at once
	case <-time.After(20 * time.Second):
		r.t.Fatal("agent did not stop")
	}
}

// waitFor polls cond until it holds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// findRun is the newest run matching kind, trigger and commit ("" matches any).
func (r *running) findRun(kind history.Kind, trigger history.Trigger, commit string) *history.Run {
	p, err := r.db.List(history.Query{Kind: kind, Limit: 1000})
	if err != nil {
		r.t.Fatal(err)
	}
	for _, b := range p.Runs {
		if (trigger == "" || b.Trigger == trigger) && (commit == "" || b.Commit == commit) {
			full, err := r.db.Get(b.ID)
			if err != nil {
				r.t.Fatal(err)
			}
			return full
		}
	}
	return nil
}

func (r *running) waitRun(kind history.Kind, trigger history.Trigger, commit string) *history.Run {
	r.t.Helper()
	var got *history.Run
	waitFor(r.t, fmt.Sprintf("a %s run (%s) at commit %s", kind, trigger, commit), func() bool {
		got = r.findRun(kind, trigger, commit)
		return got != nil
	})
	return got
}

func (r *running) get(path, token string) (int, string) {
	r.t.Helper()
	return httpGet(r.t, r.base+path, token)
}

func httpGet(t *testing.T, url, token string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func device(run *history.Run, name string) history.Device {
	for _, d := range run.Devices {
		if d.Device == name {
			return d
		}
	}
	return history.Device{}
}

// hookSink counts webhook calls.
type hookSink struct {
	srv    *httptest.Server
	calls  atomic.Int32
	mu     sync.Mutex
	bodies []string
}

func newHookSink(t *testing.T) *hookSink {
	h := &hookSink{}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.bodies = append(h.bodies, string(data))
		h.mu.Unlock()
		h.calls.Add(1)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hookSink) body(i int) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.bodies[i]
}
