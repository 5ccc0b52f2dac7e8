package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rocefab/rocefab/agent/daemon/history"
	"github.com/rocefab/rocefab/agent/daemon/notify"
	"github.com/rocefab/rocefab/agent/daemon/shard"
	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/finding"
	"github.com/rocefab/rocefab/intent"
)

// twoSpines are the cables of a two-leaf, two-spine fabric, each in both
// directions.
func twoSpines(flows int) []MeshLink {
	var out []MeshLink
	for _, c := range [][2]history.Port{
		{{Device: "leaf1", Port: "swp51"}, {Device: "spine1", Port: "swp1"}},
		{{Device: "leaf1", Port: "swp52"}, {Device: "spine2", Port: "swp1"}},
		{{Device: "leaf2", Port: "swp51"}, {Device: "spine1", Port: "swp2"}},
		{{Device: "leaf2", Port: "swp52"}, {Device: "spine2", Port: "swp2"}},
	} {
		out = append(out, MeshLink{A: c[0], B: c[1], From: c[0], To: c[1], Flows: flows},
			MeshLink{A: c[0], B: c[1], From: c[1], To: c[0], Flows: flows})
	}
	return out
}

var (
	spine2ToLeaf1 = MeshDir{From: history.Port{Device: "spine2", Port: "swp1"}, To: history.Port{Device: "leaf1", Port: "swp52"}}
	leaf1ToSpine2 = MeshDir{From: spine2ToLeaf1.To, To: spine2ToLeaf1.From}
	leaf2ToSpine1 = MeshDir{From: history.Port{Device: "leaf2", Port: "swp51"}, To: history.Port{Device: "spine1", Port: "swp2"}}
)

const (
	link12   = "leaf1 swp52 - spine2 swp1"
	dirDown  = "spine2 -> leaf1"
	dirUp    = "leaf1 -> spine2"
	link21   = "leaf2 swp51 - spine1 swp2"
	remarked = "spine2 swp1 → leaf1 swp52: DSCP 26 arrived as 8 on 12 of 12 flows through it; 0 of 36 flows elsewhere"
)

func clean() MeshSummary {
	return MeshSummary{Verdict: VerdictPass, Localization: MeshClean, Flows: 48, Links: twoSpines(6)}
}

func faulty(fs ...MeshFinding) MeshSummary {
	s := clean()
	s.Verdict, s.Localization, s.Findings = VerdictFail, MeshLocalized, fs
	for _, f := range fs {
		if f.Status == MeshInconclusive && s.Localization == MeshClean {
			s.Localization = MeshInconclusive
		}
	}
	return s
}

func dscpOn(d ...MeshDir) MeshFinding {
	return MeshFinding{Class: "dscp_remarked", Status: MeshLocalized, Links: d, Summary: remarked}
}

func stateOf(links []history.LinkHealth, link, dir string) history.LinkHealth {
	for _, l := range links {
		if l.Link == link && l.Direction == dir {
			return l
		}
	}
	return history.LinkHealth{}
}

// TestLinkTransitions: a link announces when its last known state
// changes, never on a run that repeats it, and an unknown run in between
// neither recovers it nor announces it again.
func TestLinkTransitions(t *testing.T) {
	type want struct {
		event, link, dir, severity string
	}
	ce := MeshFinding{Class: "ce_marked", Status: MeshLocalized, Links: []MeshDir{leaf2ToSpine1}, Summary: "CE marks"}
	unsure := MeshFinding{Class: "loss", Status: MeshInconclusive, Candidates: []MeshDir{spine2ToLeaf1, leaf2ToSpine1}, Summary: "loss on 2 candidates"}
	noFlows := clean()
	noFlows.Links[2].Flows = 0 // leaf1 swp52 -> spine2 swp1
	for _, tc := range []struct {
		name  string
		runs  []MeshSummary
		want  []want // the changes of the last run
		state map[[2]string]string
	}{
		{"clean from the start announces nothing", []MeshSummary{clean()}, nil,
			map[[2]string]string{{link12, dirDown}: history.LinkGood}},
		{"first seen bad announces", []MeshSummary{faulty(dscpOn(spine2ToLeaf1))},
			[]want{{notify.LinkBad, link12, dirDown, notify.SeverityCritical}},
			map[[2]string]string{{link12, dirDown}: history.LinkBad, {link12, dirUp}: history.LinkGood}},
		{"good to bad", []MeshSummary{clean(), faulty(dscpOn(spine2ToLeaf1))},
			[]want{{notify.LinkBad, link12, dirDown, notify.SeverityCritical}}, nil},
		{"bad stays bad: nothing", []MeshSummary{clean(), faulty(dscpOn(spine2ToLeaf1)), faulty(dscpOn(spine2ToLeaf1))}, nil,
			map[[2]string]string{{link12, dirDown}: history.LinkBad}},
		{"bad to good recovers", []MeshSummary{faulty(dscpOn(spine2ToLeaf1)), clean()},
			[]want{{notify.LinkRecovered, link12, dirDown, notify.SeverityInfo}},
			map[[2]string]string{{link12, dirDown}: history.LinkGood}},
		{"both directions", []MeshSummary{clean(), faulty(dscpOn(spine2ToLeaf1, leaf1ToSpine2))},
			[]want{{notify.LinkBad, link12, dirUp, notify.SeverityCritical}, {notify.LinkBad, link12, dirDown, notify.SeverityCritical}}, nil},
		{"CE marks are a warning", []MeshSummary{clean(), faulty(ce)},
			[]want{{notify.LinkBad, link21, "leaf2 -> spine1", notify.SeverityWarning}}, nil},
		{"inconclusive candidates are unknown, not announced", []MeshSummary{clean(), faulty(unsure)}, nil,
			map[[2]string]string{{link12, dirDown}: history.LinkUnknown, {link21, "leaf2 -> spine1"}: history.LinkUnknown, {link12, dirUp}: history.LinkGood}},
		{"bad, unknown, bad: announced once", []MeshSummary{faulty(dscpOn(spine2ToLeaf1)), faulty(unsure), faulty(dscpOn(spine2ToLeaf1))}, nil,
			map[[2]string]string{{link12, dirDown}: history.LinkBad}},
		{"bad, unknown, good: recovers", []MeshSummary{faulty(dscpOn(spine2ToLeaf1)), faulty(unsure), clean()},
			[]want{{notify.LinkRecovered, link12, dirDown, notify.SeverityInfo}}, nil},
		{"good, unknown, good: nothing", []MeshSummary{clean(), faulty(unsure), clean()}, nil, nil},
		{"no flows is unknown", []MeshSummary{clean(), noFlows}, nil,
			map[[2]string]string{{link12, dirUp}: history.LinkUnknown}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prev := map[string]history.LinkHealth{}
			var links []history.LinkHealth
			var changes []notify.LinkChange
			at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			for i, s := range tc.runs {
				links, changes = nextLinks(prev, s, at.Add(time.Duration(i)*time.Minute))
				prev = map[string]history.LinkHealth{}
				for _, l := range links {
					prev[linkKey(l)] = l
				}
			}
			if len(links) != 8 {
				t.Fatalf("%d link directions, want 8", len(links))
			}
			var got []want
			for _, c := range changes {
				got = append(got, want{c.Event, c.Link, c.Direction, c.Severity})
				if c.Event == notify.LinkBad && (len(c.Evidence) == 0 || len(c.Classes) == 0) {
					t.Errorf("link_bad without evidence: %+v", c)
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("changes %+v, want %+v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("change %d: %+v, want %+v", i, got[i], tc.want[i])
				}
			}
			for k, st := range tc.state {
				if l := stateOf(links, k[0], k[1]); l.State != st {
					t.Errorf("%s (%s) is %q, want %q", k[0], k[1], l.State, st)
				}
			}
		})
	}
}

// TestLinkSince: Since moves only when the state changes.
func TestLinkSince(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	step := func(prev []history.LinkHealth, s MeshSummary, at time.Time) []history.LinkHealth {
		m := map[string]history.LinkHealth{}
		for _, l := range prev {
			m[linkKey(l)] = l
		}
		out, _ := nextLinks(m, s, at)
		return out
	}
	l := step(nil, clean(), t0)
	l = step(l, clean(), t0.Add(time.Minute))
	if got := stateOf(l, link12, dirDown).Since; !got.Equal(t0) {
		t.Fatalf("since %s after two good runs, want %s", got, t0)
	}
	l = step(l, faulty(dscpOn(spine2ToLeaf1)), t0.Add(2*time.Minute))
	if got := stateOf(l, link12, dirDown); !got.Since.Equal(t0.Add(2*time.Minute)) || got.Evidence[0] != remarked {
		t.Fatalf("bad link %+v", got)
	}
}

// fakeMesh serves the summaries it is given, in turn (the last one again
// once they run out), or an error.
type fakeMesh struct {
	mu   sync.Mutex
	next []MeshSummary
	err  error
	runs int
}

func (f *fakeMesh) set(s ...MeshSummary) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.next, f.err = s, nil
}

func (f *fakeMesh) fail(err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.err = err
}

func (f *fakeMesh) run(context.Context, *intent.Resolved) (MeshSummary, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.runs++
	if f.err != nil {
		return MeshSummary{}, f.err
	}
	s := f.next[0]
	if len(f.next) > 1 {
		f.next = f.next[1:]
	}
	return s, nil
}

// meshHooks are the webhook bodies of mesh runs, decoded.
func meshHooks(t *testing.T, h *hookSink) []notify.Event {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []notify.Event
	for _, b := range h.bodies {
		var ev notify.Event
		if err := json.Unmarshal([]byte(b), &ev); err != nil {
			t.Fatalf("webhook body %q: %v", b, err)
		}
		if ev.RunKind == string(history.KindMesh) {
			out = append(out, ev)
		}
	}
	return out
}

func waitHooks(t *testing.T, h *hookSink, n int) []notify.Event {
	t.Helper()
	var evs []notify.Event
	waitFor(t, "mesh notifications", func() bool {
		evs = meshHooks(t, h)
		return len(evs) >= n
	})
	return evs
}

// TestMeshInTheAgent: mesh runs, manual and from the API, keep the link
// health in the history, /metrics and /api/v1/mesh (behind the token);
// the webhook hears a link turn bad once, not again while it stays bad,
// and hears it recover; a restarted agent keeps the states and does not
// announce the bad link again.
func TestMeshInTheAgent(t *testing.T) {
	f := newFixture(t, 1)
	c1 := f.commit("first", f.intent("150KB", "9216"))
	cfg := f.config()
	cfg.HTTP.Token = "mesh-test-token-0123456789abcdef"
	fm := &fakeMesh{}
	fm.set(clean())
	deps := f.deps()
	deps.Mesh = fm.run
	a := f.start(cfg, deps)
	a.waitRun(history.KindPlan, history.TriggerCommit, c1)
	tok := cfg.HTTP.Token

	run := func() *history.Run {
		t.Helper()
		r, err := a.RunNow(context.Background(), history.KindMesh)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	first := run()
	if first.Result != history.ResultSuccess || len(first.Links) != 8 || first.Summary.ByStatus[history.LinkGood] != 8 {
		t.Fatalf("clean mesh run %s %+v", first.Result, first.Summary)
	}
	// The run store lists it with the CLI's runs (rocefab runs).
	if rep, err := (engine.RunStore{Dir: cfg.StateDir}).LoadReport(first.ID); err != nil || rep.Kind != engine.KindMesh ||
		rep.Status != engine.StatusDone || rep.Result != "success" {
		t.Fatalf("the mesh run in the run store: %+v %v", rep, err)
	}
	fm.set(faulty(dscpOn(spine2ToLeaf1)))
	bad := run()
	if bad.Result != history.ResultFailure || bad.Summary.ByStatus[history.LinkBad] != 1 || len(bad.Findings) != 1 ||
		bad.Findings[0].Where != "spine2 swp1 -> leaf1 swp52" || bad.Findings[0].Severity != finding.Critical {
		t.Fatalf("faulty mesh run %s %+v %+v", bad.Result, bad.Summary, bad.Findings)
	}
	evs := waitHooks(t, f.hooks, 1)
	if l := evs[0].Links; len(l) != 1 || l[0].Event != notify.LinkBad || l[0].Link != link12 || l[0].Direction != dirDown ||
		l[0].Evidence[0] != remarked || evs[0].Severity != notify.SeverityCritical || evs[0].RunID != bad.ID {
		t.Fatalf("link_bad notification %+v", evs[0])
	}
	run() // still bad
	fams := scrape(t, a.base, tok)
	for _, tc := range []struct {
		family string
		labels map[string]string
		want   float64
	}{
		{"rocefab_mesh_link_healthy", map[string]string{"link": link12, "direction": dirDown}, 0},
		{"rocefab_mesh_link_healthy", map[string]string{"link": link12, "direction": dirUp}, 1},
		{"rocefab_mesh_link_state", map[string]string{"link": link12, "direction": dirDown, "state": "bad"}, 1},
		{"rocefab_mesh_link_state", map[string]string{"link": link12, "direction": dirDown, "state": "good"}, 0},
		{"rocefab_mesh_link_flows", map[string]string{"link": link12, "direction": dirDown}, 6},
		{"rocefab_mesh_bad_links", nil, 1},
		{"rocefab_mesh_findings", map[string]string{"class": "dscp_remarked", "status": "localized"}, 1},
		{"rocefab_mesh_runs_total", map[string]string{"result": "clean"}, 1},
		{"rocefab_mesh_runs_total", map[string]string{"result": "localized"}, 2},
		{"rocefab_last_run_result", map[string]string{"kind": "mesh", "result": "failure"}, 1},
	} {
		if v, ok := valueIn(fams, tc.family, tc.labels); !ok || v != tc.want {
			t.Errorf("%s%v = %v (present %v), want %v", tc.family, tc.labels, v, ok, tc.want)
		}
	}
	if n := len(fams["rocefab_mesh_link_healthy"].GetMetric()); n != 8 {
		t.Errorf("%d rocefab_mesh_link_healthy series, want 8 (4 links x 2 directions)", n)
	}

	// The API: behind the token, the states and the last findings.
	if code, _ := a.get("/api/v1/mesh", ""); code != 401 {
		t.Fatalf("/api/v1/mesh without the token: %d", code)
	}
	code, body := a.get("/api/v1/mesh", tok)
	if code != 200 {
		t.Fatalf("/api/v1/mesh: %d %s", code, body)
	}
	var st MeshStatus
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatal(err)
	}
	if st.SchemaVersion != MeshSchema || st.Enabled || len(st.Links) != 8 || st.ByState["bad"] != 1 || st.LastRun == nil ||
		st.LastRun.Kind != history.KindMesh || st.Summary == nil || len(st.Summary.Findings) != 1 {
		t.Fatalf("/api/v1/mesh: %s", body)
	}
	if l := stateOf(st.Links, link12, dirDown); l.State != history.LinkBad || l.Evidence[0] != remarked || l.Classes[0] != "dscp_remarked" {
		t.Fatalf("bad link in the API: %+v", l)
	}

	// A run that fails leaves the states and announces nothing.
	fm.fail(errors.New("no host answered"))
	if r := run(); r.Result != history.ResultFailure || !strings.Contains(r.Error, "no host answered") {
		t.Fatalf("failed mesh run %s %q", r.Result, r.Error)
	}
	if st := a.CurrentMesh(); st.ByState["bad"] != 1 || st.LastRun.Result != history.ResultFailure {
		t.Fatalf("after a failed run: %+v", st.ByState)
	}

	// Recovery, started over HTTP as a person would.
	fm.set(clean())
	code, body = httpPost(t, a.base+"/api/v1/runs?kind=mesh", tok)
	if code != 202 {
		t.Fatalf("POST mesh run: %d %s", code, body)
	}
	evs = waitHooks(t, f.hooks, 2)
	if l := evs[1].Links; len(l) != 1 || l[0].Event != notify.LinkRecovered || l[0].Link != link12 || evs[1].Severity != notify.SeverityInfo {
		t.Fatalf("link_recovered notification %+v", evs[1])
	}
	waitFor(t, "the recovered state", func() bool { return a.CurrentMesh().ByState["good"] == 8 })
	runs := mustList(t, a, history.KindMesh)
	if len(runs) != 5 {
		t.Fatalf("%d mesh runs in the history, want 5", len(runs))
	}

	// A restart keeps the states: the link that turns bad again after it
	// is announced once, and one that was bad before the restart is not.
	fm.set(faulty(dscpOn(spine2ToLeaf1)))
	run()
	waitHooks(t, f.hooks, 3)
	a.stop()
	b := f.start(cfg, deps)
	waitFor(t, "the restarted agent's intent", func() bool { return b.intent() != nil })
	if st := b.CurrentMesh(); st.ByState["bad"] != 1 || len(st.Links) != 8 {
		t.Fatalf("restored states %+v", st.ByState)
	}
	fams = scrape(t, b.base, tok)
	if v, ok := valueIn(fams, "rocefab_mesh_link_healthy", map[string]string{"link": link12, "direction": dirDown}); !ok || v != 0 {
		t.Fatalf("restored gauge %v %v", v, ok)
	}
	fm.set(faulty(dscpOn(spine2ToLeaf1)), clean())
	for range 2 {
		if _, err := b.RunNow(context.Background(), history.KindMesh); err != nil {
			t.Fatal(err)
		}
	}
	// Delivered in order: the recovery comes right after the link_bad
	// from before the restart, with nothing between.
	evs = waitHooks(t, f.hooks, 4)
	if len(evs) != 4 || evs[2].Links[0].Event != notify.LinkBad || evs[3].Links[0].Event != notify.LinkRecovered {
		t.Fatalf("mesh notifications around the restart: %+v", evs[2:])
	}
}

// TestLinkSeriesFollowTheIntent: a link that leaves the intent leaves
// /metrics; the series stay links times two.
func TestLinkSeriesFollowTheIntent(t *testing.T) {
	m := newMetrics("test", "0/1", newCounterHub(0, 0, nil))
	count := func() int {
		fams, err := m.reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range fams {
			if f.GetName() == "rocefab_mesh_link_state" {
				return len(f.GetMetric())
			}
		}
		return 0
	}
	links, _ := nextLinks(nil, clean(), time.Now())
	m.mesh.setLinks(links)
	if n := count(); n != 8*3 {
		t.Fatalf("%d state series for 8 link directions, want 24", n)
	}
	fewer := clean()
	fewer.Links = fewer.Links[:6]
	links, _ = nextLinks(nil, fewer, time.Now())
	m.mesh.setLinks(links)
	if n := count(); n != 6*3 {
		t.Fatalf("%d state series after a link left, want 18", n)
	}
}

func httpPost(t *testing.T, url, token string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, nil)
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

// TestMeshDocumented: docs/agent.md names every mesh metric the agent
// registers, the endpoint and the webhook events.
func TestMeshDocumented(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "agent.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	m := newMetrics("test", "0/1", newCounterHub(0, 0, nil))
	m.mesh.runs.WithLabelValues("clean")
	m.mesh.setLinks([]history.LinkHealth{{Link: "a 1 - b 1", Direction: "a -> b", State: history.LinkGood}})
	m.mesh.findings.WithLabelValues("loss", "localized")
	fams, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range fams {
		if strings.HasPrefix(f.GetName(), "rocefab_mesh_") {
			n++
			if !strings.Contains(doc, "`"+f.GetName()+"`") {
				t.Errorf("docs/agent.md does not list %s", f.GetName())
			}
		}
	}
	if n != 6 {
		t.Errorf("%d mesh metric families, want 6", n)
	}
	for _, want := range []string{"`GET /api/v1/mesh`", "`agent.mesh.interval`", `"event": "link_bad"`, `"event": "link_recovered"`, MeshSchema} {
		if !strings.Contains(doc, want) {
			t.Errorf("docs/agent.md does not mention %s", want)
		}
	}
}

// TestMeshRunsOnShardZeroOnly: the mesh covers the whole fabric, so of
// two sharded agents on its schedule only shard 0 runs it; shard 1 still
// runs one when asked.
func TestMeshRunsOnShardZeroOnly(t *testing.T) {
	f := newFixture(t, 2)
	f.commit("first", f.intent("150KB", "9216"))
	var meshes [2]*fakeMesh
	var agents [2]*running
	for i := range 2 {
		cfg := f.config()
		cfg.StateDir = filepath.Join(t.TempDir(), fmt.Sprintf("shard%d", i))
		cfg.Source = gitSource(t, f, cfg.StateDir)
		cfg.Shard = shard.Spec{Index: i, Count: 2}
		cfg.Mesh = Schedule{Interval: 20 * time.Millisecond}
		meshes[i] = &fakeMesh{}
		meshes[i].set(clean())
		deps := f.deps()
		deps.Mesh = meshes[i].run
		agents[i] = f.start(cfg, deps)
	}
	runs := func(i int) int {
		meshes[i].mu.Lock()
		defer meshes[i].mu.Unlock()
		return meshes[i].runs
	}
	waitFor(t, "scheduled mesh runs on shard 0", func() bool { return runs(0) >= 3 })
	if n := runs(1); n != 0 {
		t.Fatalf("shard 1 ran the mesh %d times on its schedule", n)
	}
	if _, err := agents[1].RunNow(context.Background(), history.KindMesh); err != nil || runs(1) != 1 {
		t.Fatalf("a manual mesh run on shard 1: %v, %d runs", err, runs(1))
	}
}
