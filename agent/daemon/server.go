package daemon

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/zap"

	"github.com/rocefab/rocefab/agent/daemon/history"
	"github.com/rocefab/rocefab/agent/engine"
)

// StatusSchema versions /api/v1/status.
const StatusSchema = "rocefab.io/agent-status/v1"

// Handler serves the agent's HTTP endpoints:
//
//	GET  /healthz            200 while the process serves (never needs the token)
//	GET  /readyz             200 once a valid intent is loaded, else 503 (never needs the token)
//	GET  /metrics            Prometheus text format
//	GET  /api/v1/status      intent, last reload, devices, last runs
//	GET  /api/v1/runs        runs, newest first: ?kind=&limit=&before=
//	GET  /api/v1/runs/{id}   one run with its per-device diffs
//	POST /api/v1/runs        start a run now: ?kind=plan|drift|probe|mesh (202)
//	GET  /api/v1/mesh        fabric link health from the mesh runs
//	GET  /status             read-only HTML status page (statuspage.go)
//
// With a token set, every endpoint but /healthz and /readyz needs
// "Authorization: Bearer <token>".
func (a *Agent) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /readyz", a.readyz)
	mux.Handle("GET /metrics", a.auth(promhttp.HandlerFor(a.metrics.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})))
	mux.Handle("GET /api/v1/status", a.auth(http.HandlerFunc(a.status)))
	mux.Handle("GET /api/v1/runs", a.auth(http.HandlerFunc(a.listRuns)))
	mux.Handle("GET /api/v1/runs/{id}", a.auth(http.HandlerFunc(a.getRun)))
	mux.Handle("POST /api/v1/runs", a.auth(http.HandlerFunc(a.startRun)))
	mux.Handle("GET /api/v1/mesh", a.auth(http.HandlerFunc(a.meshStatus)))
	mux.Handle("GET /status", a.auth(http.HandlerFunc(a.statusPage)))
	return mux
}

// auth requires the bearer token when one is set. Digests are compared so
// the comparison takes the same time whatever the length of the guess.
func (a *Agent) auth(next http.Handler) http.Handler {
	if a.cfg.HTTP.Token == "" {
		return next
	}
	want := sha256.Sum256([]byte(a.cfg.HTTP.Token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		sum := sha256.Sum256([]byte(got))
		if !ok || subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="rocefab-agent"`)
			writeError(w, http.StatusUnauthorized, "a valid bearer token is required")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]string{"error": msg})
}

// readyz is 200 while the agent follows a valid intent. It is 503 with no
// valid intent yet, and while its source holds an intent file that is
// refused (a link to /dev/zero, a FIFO, a file over a limit): the agent
// cannot follow the source until someone fixes it. It says which, without
// details (it needs no token): /api/v1/status has the error.
func (a *Agent) readyz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	a.mu.RLock()
	cur, fetch := a.current, a.fetch
	a.mu.RUnlock()
	refused := ""
	if fetch.Refused {
		refused = "the intent source holds a file that is refused (not a regular file, a link out of its folder, or over a size limit) since " +
			fetch.FailingSince.Format(time.RFC3339) + "; see /api/v1/status"
	}
	switch {
	case cur == nil && refused != "":
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte("not ready: no valid intent loaded yet: " + refused + "\n"))
	case cur == nil:
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte("not ready: no valid intent loaded yet\n"))
	case refused != "":
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte("not ready: " + refused + " (still checking " + cur.describe() + ")\n"))
	default:
		_, _ = w.Write([]byte("ready\n"))
	}
}

// Status is the body of /api/v1/status.
type Status struct {
	SchemaVersion string                        `json:"schemaVersion"`
	Version       string                        `json:"version,omitempty"`
	Ready         bool                          `json:"ready"`
	Shard         string                        `json:"shard"`
	Source        string                        `json:"source"`
	Intent        *IntentStatus                 `json:"intent,omitempty"`
	Reload        reloadStatus                  `json:"reload"`
	Fetch         fetchStatus                   `json:"fetch"`
	Devices       []history.DeviceState         `json:"devices"`
	ByState       map[string]int                `json:"byState"`
	LastRuns      map[history.Kind]*history.Run `json:"lastRuns"`
	Running       []inflightRun                 `json:"running"`
	Settings      map[string]string             `json:"settings"`
}

// IntentStatus is the intent in use.
type IntentStatus struct {
	Fabric   string    `json:"fabric"`
	Commit   string    `json:"commit,omitempty"`
	Revision string    `json:"revision"`
	Paths    []string  `json:"paths"`
	LoadedAt time.Time `json:"loadedAt"`
	// FromCopy: the source is invalid or unreachable since a restart; the
	// agent works from its copy of the last valid intent.
	FromCopy bool `json:"fromCopy,omitempty"`
	Switches int  `json:"switches"`
	Hosts    int  `json:"hosts"`
}

// CurrentStatus is what /api/v1/status serves.
func (a *Agent) CurrentStatus() Status {
	st := Status{SchemaVersion: StatusSchema, Version: a.deps.Version, Shard: a.cfg.Shard.String(), Source: a.cfg.Source.String(),
		ByState: map[string]int{}, LastRuns: map[history.Kind]*history.Run{}, Devices: []history.DeviceState{}, Running: []inflightRun{},
		Settings: map[string]string{
			"driftInterval":    a.cfg.Drift.Interval.String(),
			"probeInterval":    a.cfg.Probe.Interval.String(),
			"refresh":          a.cfg.Refresh.String(),
			"autoApply":        strconv.FormatBool(a.cfg.Apply.Auto),
			"maxDevices":       strconv.Itoa(a.cfg.Apply.MaxDevices),
			"countersInterval": a.cfg.CountersInterval.String(),
		}}
	a.mu.RLock()
	if cur := a.current; cur != nil {
		st.Ready = true
		st.Intent = &IntentStatus{Fabric: cur.res.Name, Commit: cur.snap.Commit, Revision: cur.snap.Revision, Paths: cur.snap.Paths,
			LoadedAt: cur.loadedAt, FromCopy: cur.fromCopy, Switches: len(cur.res.Switches), Hosts: len(cur.res.Hosts)}
	}
	st.Reload, st.Fetch = a.reload, a.fetch
	for _, d := range a.states {
		st.Devices = append(st.Devices, d)
		st.ByState[d.State]++
	}
	for _, r := range a.inflight {
		st.Running = append(st.Running, r)
	}
	for k, r := range a.lastRuns {
		st.LastRuns[k] = &r
	}
	a.mu.RUnlock()
	sort.Slice(st.Devices, func(i, j int) bool { return st.Devices[i].Device < st.Devices[j].Device })
	sort.Slice(st.Running, func(i, j int) bool { return st.Running[i].Started.Before(st.Running[j].Started) })
	return st
}

func (a *Agent) status(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, a.CurrentStatus())
}

func (a *Agent) listRuns(w http.ResponseWriter, r *http.Request) {
	q := history.Query{Kind: history.Kind(r.URL.Query().Get("kind")), Before: r.URL.Query().Get("before")}
	if q.Kind != "" && !knownKind(q.Kind) {
		writeError(w, http.StatusBadRequest, "kind must be one of plan, drift, apply, probe, reload, mesh")
		return
	}
	if s := r.URL.Query().Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 1000 {
			writeError(w, http.StatusBadRequest, "limit must be between 1 and 1000")
			return
		}
		q.Limit = n
	}
	page, err := a.db.List(q)
	if errors.Is(err, history.ErrNotFound) {
		writeError(w, http.StatusBadRequest, "before: "+err.Error())
		return
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, page)
}

func knownKind(k history.Kind) bool {
	for _, x := range history.Kinds {
		if x == k {
			return true
		}
	}
	return false
}

func (a *Agent) getRun(w http.ResponseWriter, r *http.Request) {
	run, err := a.db.Get(r.PathValue("id"))
	if errors.Is(err, history.ErrNotFound) {
		writeError(w, http.StatusNotFound, err.Error())
		return
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, run)
}

// startRun starts a manual plan, drift or probe run in the background and
// answers with its ID; apply is only ever automatic (on a commit) or by
// hand with `rocefab apply`.
func (a *Agent) startRun(w http.ResponseWriter, r *http.Request) {
	kind := history.Kind(r.URL.Query().Get("kind"))
	switch kind {
	case history.KindPlan, history.KindDrift, history.KindProbe, history.KindMesh:
	default:
		writeError(w, http.StatusBadRequest, "kind must be plan, drift, probe or mesh")
		return
	}
	if a.intent() == nil {
		writeError(w, http.StatusServiceUnavailable, errNoIntent.Error())
		return
	}
	a.mu.Lock()
	ctx := a.runCtx
	if ctx == nil || ctx.Err() != nil || a.stopping {
		a.mu.Unlock()
		writeError(w, http.StatusServiceUnavailable, "the agent is not running")
		return
	}
	a.runs.Add(1) // under the lock: Run waits for runs only after stopping is set
	a.mu.Unlock()
	id := engine.NewRunID(a.now())
	go func() {
		defer a.runs.Done()
		if _, err := a.execute(ctx, kind, history.TriggerManual, id); err != nil {
			a.log.Warn("manual run", zap.String("kind", string(kind)), zap.Error(err))
		}
	}()
	writeJSON(w, http.StatusAccepted, map[string]string{"id": id, "kind": string(kind), "run": "/api/v1/runs/" + id})
}
