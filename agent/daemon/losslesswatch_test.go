package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/agent/daemon/history"
	"github.com/rocefab/rocefab/agent/daemon/notify"
	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/validators/doctor/counters"
	"github.com/rocefab/rocefab/validators/telemetry"
)

// TestLosslessStateAcrossRestart: the detectors' counters survive an
// agent restart, so watchdog storms that happened while the agent was
// down are seen in its first round; a fresh detector would take the new
// values as its baseline and never see them.
func TestLosslessStateAcrossRestart(t *testing.T) {
	f := newFixture(t, 1)
	c1 := f.commit("first", f.intent("150KB", "9216"))
	f.converge("150KB", "9216")
	cfg := f.config()
	cfg.CountersInterval = 20 * time.Millisecond
	a := f.start(cfg, f.deps())
	a.waitRun(history.KindPlan, history.TriggerCommit, c1)
	key := counters.Key{Device: "leaf1", Port: "Ethernet2", Counter: "pfc3/watchdog-storms"}
	waitFor(t, "leaf1's counters", func() bool { _, ok := a.hub.value(key); return ok })
	waitFor(t, "a detector round with leaf1", func() bool {
		a.watch.mu.Lock()
		defer a.watch.mu.Unlock()
		if a.watch.det == nil {
			return false
		}
		for _, d := range a.watch.det.State().Devices {
			if d.Device == "leaf1" {
				return true
			}
		}
		return false
	})
	a.stop()

	db, err := history.Open(filepath.Join(f.stateDir, HistoryFile), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := db.Meta(losslessStateKey)
	db.Close()
	if err != nil || raw == "" {
		t.Fatalf("no detector state saved: %v", err)
	}
	var st telemetry.State
	if err := json.Unmarshal([]byte(raw), &st); err != nil || len(st.Devices) != 1 || st.Devices[0].Device != "leaf1" {
		t.Fatalf("saved state %v %s", err, raw)
	}

	f.sims["leaf1"].Jump("Ethernet2", 3, gnmisim.WatchdogStorms, 3) // while no agent runs
	b := f.start(f.config2(cfg), f.deps())
	waitFor(t, "the storm seen after the restart", func() bool {
		for _, x := range b.activeLossless() {
			if x.Code == telemetry.CodePFCStorm && x.Subject == (telemetry.Subject{Device: "leaf1", Port: "Ethernet2", Priority: 3}) {
				return true
			}
		}
		return false
	})
}

// config2 is cfg with a fresh intent source on the same state directory,
// as a restarted agent builds it.
func (f *fixture) config2(cfg Config) Config {
	cfg.Source = gitSource(f.t, f, f.stateDir)
	return cfg
}

// TestLosslessStateAcrossIntentChange: a new intent rebuilds the
// detectors without forgetting an active finding of a device still in it.
func TestLosslessStateAcrossIntentChange(t *testing.T) {
	f := newFixture(t, 1)
	c1 := f.commit("first", f.intent("150KB", "9216"))
	f.converge("150KB", "9216")
	cfg := f.config()
	cfg.CountersInterval = 20 * time.Millisecond
	a := f.start(cfg, f.deps())
	a.waitRun(history.KindPlan, history.TriggerCommit, c1)
	storm := func() bool {
		for _, x := range a.activeLossless() {
			if x.Code == telemetry.CodePFCStorm && x.Subject.Device == "leaf1" {
				return true
			}
		}
		return false
	}
	waitFor(t, "leaf1's counters", func() bool {
		_, ok := a.hub.value(counters.Key{Device: "leaf1", Port: "Ethernet2", Counter: "pfc3/watchdog-storms"})
		return ok
	})
	time.Sleep(5 * cfg.CountersInterval)
	f.sims["leaf1"].Jump("Ethernet2", 3, gnmisim.WatchdogStorms, 1)
	waitFor(t, "a pfc_storm finding", storm)
	a.watch.mu.Lock()
	before := a.watch.revision
	a.watch.mu.Unlock()

	c2 := f.commit("second", f.intent("200KB", "9216"))
	a.waitRun(history.KindPlan, history.TriggerCommit, c2)
	waitFor(t, "the detectors on the new intent", func() bool {
		a.watch.mu.Lock()
		defer a.watch.mu.Unlock()
		return a.watch.revision != before && a.watch.det != nil
	})
	time.Sleep(3 * cfg.CountersInterval)
	if !storm() {
		t.Fatalf("the active finding was forgotten with the new intent: %v", a.activeLossless())
	}
}

// losslessHooks are the webhook bodies of lossless runs, decoded.
func losslessHooks(t *testing.T, h *hookSink) []notify.Event {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []notify.Event
	for _, b := range h.bodies {
		var ev notify.Event
		if err := json.Unmarshal([]byte(b), &ev); err != nil {
			t.Fatalf("webhook body %q: %v", b, err)
		}
		if ev.RunKind == string(history.KindLossless) {
			out = append(out, ev)
		}
	}
	return out
}

// losslessRuns are the recorded lossless runs, oldest first, in full.
func losslessRuns(t *testing.T, a *running) []*history.Run {
	t.Helper()
	page, err := a.db.List(history.Query{Kind: history.KindLossless, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var out []*history.Run
	for i := len(page.Runs) - 1; i >= 0; i-- {
		r, err := a.db.Get(page.Runs[i].ID)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// slowProbe is a probe run that lasts d, so counters change during it.
func slowProbe(d time.Duration) ProbeRunner {
	return func(ctx context.Context, r *intent.Resolved, owns func(string) bool) (ProbeSummary, error) {
		time.Sleep(d)
		return ProbeSummary{Verdict: VerdictPass, Pairs: []history.ProbePair{
			{From: "gpu01", To: "gpu02", Verdict: VerdictPass, Reachable: true, RTTMeanMicros: 11, RTTP99Micros: 25}}}, nil
	}
}

// TestLosslessFindingsHistoryAndWebhook: a watchdog storm on a switch
// queue is one lossless run in the history and one finding_raised
// webhook, however many rounds it stays active; a probe run while it is
// active lists it, and its clearing is one more run and one
// finding_cleared webhook that names that probe run. Quiet rounds after
// it record and send nothing.
func TestLosslessFindingsHistoryAndWebhook(t *testing.T) {
	f := newFixture(t, 1)
	c1 := f.commit("first", f.intent("150KB", "9216"))
	f.converge("150KB", "9216")
	cfg := f.config()
	cfg.CountersInterval = 20 * time.Millisecond
	cfg.LosslessTune = func(c *telemetry.Config) { c.Storm.Clear = 600 * time.Millisecond }
	deps := f.deps()
	deps.Probe = slowProbe(100 * time.Millisecond)
	a := f.start(cfg, deps)
	a.waitRun(history.KindPlan, history.TriggerCommit, c1)
	waitFor(t, "leaf1's counters", func() bool {
		_, ok := a.hub.value(counters.Key{Device: "leaf1", Port: "Ethernet2", Counter: "pfc3/watchdog-storms"})
		return ok
	})
	time.Sleep(5 * cfg.CountersInterval)
	if runs := losslessRuns(t, a); len(runs) != 0 {
		t.Fatalf("lossless runs before the storm: %+v", runs[0].Lossless)
	}
	f.sims["leaf1"].Jump("Ethernet2", 3, gnmisim.WatchdogStorms, 3)
	subject := telemetry.Subject{Device: "leaf1", Port: "Ethernet2", Priority: 3}
	waitFor(t, "the storm recorded", func() bool { return len(losslessRuns(t, a)) == 1 })

	probe, err := a.RunNow(context.Background(), history.KindProbe)
	if err != nil {
		t.Fatal(err)
	}
	full, err := a.db.Get(probe.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(full.Lossless) != 1 || full.Lossless[0].Code != telemetry.CodePFCStorm || full.Lossless[0].Subject != subject || full.Lossless[0].Event != "" {
		t.Fatalf("probe run during the storm lists %+v", full.Lossless)
	}

	if code, body := a.get("/status", ""); code != http.StatusOK || !strings.Contains(body, "Counter findings active while it ran") ||
		!strings.Contains(body, "<code>pfc_storm</code> <span class=\"mono\">leaf1 Ethernet2 priority 3</span>") {
		t.Errorf("/status (%d) does not show the storm under the probe run:\n%s", code, body)
	}

	waitFor(t, "the storm cleared", func() bool { return len(losslessRuns(t, a)) == 2 })
	time.Sleep(10 * cfg.CountersInterval) // quiet rounds: nothing more
	runs := losslessRuns(t, a)
	if len(runs) != 2 {
		t.Fatalf("%d lossless runs, want 2 (raised, cleared)", len(runs))
	}
	for i, want := range []string{history.LosslessRaised, history.LosslessCleared} {
		r := runs[i]
		if len(r.Lossless) != 1 || r.Lossless[0].Event != want || r.Lossless[0].Code != telemetry.CodePFCStorm || r.Lossless[0].Subject != subject {
			t.Fatalf("run %d: %+v, want one %s pfc_storm on %s", i, r.Lossless, want, subject)
		}
		if r.Trigger != history.TriggerSchedule || r.Commit != c1 {
			t.Errorf("run %d: trigger %s commit %s", i, r.Trigger, r.Commit)
		}
	}
	var page history.Page
	if code, body := a.get("/api/v1/runs?kind=lossless", ""); code != http.StatusOK || json.Unmarshal([]byte(body), &page) != nil || len(page.Runs) != 2 {
		t.Errorf("/api/v1/runs?kind=lossless (%d): %s", code, body)
	}
	var api history.Run
	if code, body := a.get("/api/v1/runs/"+runs[1].ID, ""); code != http.StatusOK || json.Unmarshal([]byte(body), &api) != nil ||
		len(api.Lossless) != 1 || api.Lossless[0].Event != history.LosslessCleared || !slices.Equal(api.Lossless[0].ProbeRuns, []string{probe.ID}) {
		t.Errorf("/api/v1/runs/%s (%d): %s", runs[1].ID, code, body)
	}
	if runs[0].Result != history.ResultFailure || runs[1].Result != history.ResultSuccess {
		t.Errorf("results %s, %s; want failure (an error raised), success (cleared)", runs[0].Result, runs[1].Result)
	}
	if got := runs[0].Lossless[0].ProbeRuns; len(got) != 0 {
		t.Errorf("the raised storm names probe runs %v; none ran before it", got)
	}
	if got := runs[1].Lossless[0].ProbeRuns; len(got) != 1 || got[0] != probe.ID {
		t.Errorf("the cleared storm names probe runs %v, want [%s]", got, probe.ID)
	}

	var hooks []notify.Event
	waitFor(t, "two lossless webhooks", func() bool { hooks = losslessHooks(t, f.hooks); return len(hooks) >= 2 })
	time.Sleep(5 * cfg.CountersInterval)
	if hooks = losslessHooks(t, f.hooks); len(hooks) != 2 {
		t.Fatalf("%d lossless webhooks, want 2", len(hooks))
	}
	for i, c := range []struct{ event, severity string }{{notify.FindingRaised, notify.SeverityCritical}, {notify.FindingCleared, notify.SeverityInfo}} {
		ev := hooks[i]
		if ev.RunID != runs[i].ID || ev.Severity != c.severity || len(ev.Findings) != 1 {
			t.Fatalf("webhook %d: %+v", i, ev)
		}
		fc := ev.Findings[0]
		if fc.Event != c.event || fc.Code != "pfc_storm" || fc.Device != "leaf1" || fc.Port != "Ethernet2" || fc.Priority == nil || *fc.Priority != 3 {
			t.Errorf("webhook %d finding %+v", i, fc)
		}
	}
	if got := hooks[1].Findings[0].ProbeRuns; len(got) != 1 || got[0] != probe.ID {
		t.Errorf("cleared webhook names probe runs %v", got)
	}
}

// TestLosslessQuietStream: a healthy stream with steady pause, ECN marks
// and no drops records and announces nothing over many rounds.
func TestLosslessQuietStream(t *testing.T) {
	f := newFixture(t, 2, func(o *gnmisim.Options) {
		o.Counters.Tick = 5 * time.Millisecond
		o.Counters.PerTick = gnmisim.PerTick{gnmisim.PFCRx: 2, gnmisim.PFCTx: 1, gnmisim.ECNMarked: 5}
	})
	c1 := f.commit("first", f.intent("150KB", "9216"))
	f.converge("150KB", "9216")
	cfg := f.config()
	cfg.CountersInterval = 20 * time.Millisecond
	a := f.start(cfg, f.deps())
	a.waitRun(history.KindPlan, history.TriggerCommit, c1)
	waitFor(t, "both switches' counters", func() bool {
		for _, dev := range []string{"leaf1", "leaf2"} {
			if v, ok := a.hub.value(counters.Key{Device: dev, Port: "Ethernet1", Counter: "pfc3/rx-pause"}); !ok || v == 0 {
				return false
			}
		}
		return true
	})
	observed := func() int {
		a.watch.mu.Lock()
		defer a.watch.mu.Unlock()
		return a.watch.rounds
	}
	// Many rounds, counted where the detector observes them.
	start := observed()
	waitFor(t, "100 detector rounds", func() bool { return observed()-start >= 100 })
	if got := a.activeLossless(); len(got) != 0 {
		t.Fatalf("findings on a healthy stream: %v", got)
	}
	if runs := losslessRuns(t, a); len(runs) != 0 {
		t.Fatalf("%d lossless runs on a healthy stream: %+v", len(runs), runs[0].Lossless)
	}
	if hooks := losslessHooks(t, f.hooks); len(hooks) != 0 {
		t.Fatalf("%d lossless webhooks on a healthy stream: %+v", len(hooks), hooks)
	}
}

// TestLosslessDuring: a probe run lists the findings active at some
// moment of it, still active or cleared since, each with the pairs whose
// cabled path crosses its device; findings over before it started, or
// raised after it ended, are not listed.
func TestLosslessDuring(t *testing.T) {
	pol := telemetry.Policy{Lossless: 1 << 3, RoCE: 3, CNP: 6, ECN: true}
	host := func(name string) telemetry.DeviceSpec {
		return telemetry.DeviceSpec{Name: name, Host: true, Policy: pol, Ports: []telemetry.PortSpec{{Name: "ens1f0np0"}}}
	}
	sw := func(name string, ports ...string) telemetry.DeviceSpec {
		d := telemetry.DeviceSpec{Name: name, Policy: pol}
		for _, p := range ports {
			d.Ports = append(d.Ports, telemetry.PortSpec{Name: p})
		}
		return d
	}
	c := func(a, ap, b, bp string) telemetry.Cable {
		return telemetry.Cable{A: telemetry.Endpoint{Device: a, Port: ap}, B: telemetry.Endpoint{Device: b, Port: bp}}
	}
	topo, err := telemetry.NewTopology([]telemetry.DeviceSpec{sw("leaf1", "Ethernet1", "Ethernet2", "Ethernet49"), sw("leaf2", "Ethernet1", "Ethernet49"),
		sw("spine1", "Ethernet1", "Ethernet2"), host("gpu01"), host("gpu02"), host("gpu03")},
		[]telemetry.Cable{c("gpu01", "ens1f0np0", "leaf1", "Ethernet1"), c("gpu02", "ens1f0np0", "leaf1", "Ethernet2"),
			c("gpu03", "ens1f0np0", "leaf2", "Ethernet1"), c("leaf1", "Ethernet49", "spine1", "Ethernet1"), c("leaf2", "Ethernet49", "spine1", "Ethernet2")})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Unix(1_800_000_000, 0).UTC()
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	f := func(code telemetry.Code, dev string, first, last, cleared int) telemetry.Finding {
		x := telemetry.Finding{Code: code, Severity: telemetry.SeverityError, Subject: telemetry.Subject{Device: dev, Port: "Ethernet1", Priority: 3},
			FirstSeen: at(first), LastSeen: at(last)}
		if cleared > 0 {
			x.Cleared = at(cleared)
		}
		return x
	}
	a := &Agent{}
	a.watch.topo = topo
	a.watch.active = []telemetry.Finding{
		f(telemetry.CodePFCStorm, "spine1", 10, 20, 0),      // seen before the run, still active: during it
		f(telemetry.CodeLosslessDrop, "leaf1", 500, 510, 0), // raised after the run
	}
	a.watch.recent = []telemetry.Finding{
		f(telemetry.CodeRetransmits, "leaf1", 50, 60, 120), // cleared during the run
		f(telemetry.CodeWrongQueue, "leaf2", 10, 20, 80),   // cleared before the run
	}
	pairs := []history.ProbePair{{From: "gpu01", To: "gpu02"}, {From: "gpu01", To: "gpu03"}}
	got := a.losslessDuring(at(100), at(200), pairs)
	type row struct {
		code  telemetry.Code
		pairs []telemetry.ProbePair
	}
	var rows []row
	for _, lf := range got {
		rows = append(rows, row{lf.Code, lf.Pairs})
	}
	want := []row{
		{telemetry.CodePFCStorm, []telemetry.ProbePair{{From: "gpu01", To: "gpu03"}}}, // the spine is on the cross-leaf path only
		{telemetry.CodeRetransmits, []telemetry.ProbePair{{From: "gpu01", To: "gpu02"}, {From: "gpu01", To: "gpu03"}}},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Fatalf("findings during the run\n got %+v\nwant %+v", rows, want)
	}
	if got[0].LastSeen != at(20) || got[1].Cleared != at(120) {
		t.Errorf("the recorded findings were altered: %+v", got)
	}
	if got := a.losslessDuring(at(300), at(400), pairs); len(got) != 1 || got[0].Code != telemetry.CodePFCStorm {
		t.Errorf("a later run lists %+v, want the storm still active", got)
	}
}

// TestLosslessRaisedOnceAcrossRestart: a finding active when the agent
// stops is restored with the detectors' state, so the next agent neither
// records nor announces it again.
func TestLosslessRaisedOnceAcrossRestart(t *testing.T) {
	f := newFixture(t, 1)
	c1 := f.commit("first", f.intent("150KB", "9216"))
	f.converge("150KB", "9216")
	cfg := f.config()
	cfg.CountersInterval = 20 * time.Millisecond
	cfg.LosslessTune = func(c *telemetry.Config) { c.Storm.Clear = time.Hour }
	a := f.start(cfg, f.deps())
	a.waitRun(history.KindPlan, history.TriggerCommit, c1)
	waitFor(t, "leaf1's counters", func() bool {
		_, ok := a.hub.value(counters.Key{Device: "leaf1", Port: "Ethernet2", Counter: "pfc3/watchdog-storms"})
		return ok
	})
	time.Sleep(5 * cfg.CountersInterval)
	f.sims["leaf1"].Jump("Ethernet2", 3, gnmisim.WatchdogStorms, 1)
	waitFor(t, "the storm announced", func() bool { return len(losslessHooks(t, f.hooks)) == 1 })
	a.stop()

	b := f.start(f.config2(cfg), f.deps())
	waitFor(t, "the storm restored", func() bool {
		for _, x := range b.activeLossless() {
			if x.Code == telemetry.CodePFCStorm {
				return true
			}
		}
		return false
	})
	waitFor(t, "detector rounds after the restart", func() bool {
		b.watch.mu.Lock()
		defer b.watch.mu.Unlock()
		for _, d := range b.watch.det.State().Devices {
			if d.Device == "leaf1" && d.Taken.After(time.Now().Add(-cfg.CountersInterval)) {
				return true
			}
		}
		return false
	})
	time.Sleep(10 * cfg.CountersInterval)
	if hooks := losslessHooks(t, f.hooks); len(hooks) != 1 {
		t.Fatalf("%d lossless webhooks over the restart, want the one before it", len(hooks))
	}
	if runs := losslessRuns(t, b); len(runs) != 1 {
		t.Fatalf("%d lossless runs over the restart, want 1", len(runs))
	}
}

// TestLosslessDetectorsThroughTheAgent: each anomaly the simulated switch
// plays, streamed by gNMI into the agent, raises its own finding on its
// own port and priority, and nothing else: drops in the lossless queue,
// drops in the CNP queue and a watchdog storm.
func TestLosslessDetectorsThroughTheAgent(t *testing.T) {
	for _, tc := range []struct {
		name    string
		counter gnmisim.Counter
		prio    int
		n       uint64
		code    telemetry.Code
	}{
		{"lossless drop", gnmisim.QueueDrops, 3, 40, telemetry.CodeLosslessDrop},
		{"cnp drop", gnmisim.QueueDrops, 6, 40, telemetry.CodeCNPDrop},
		{"watchdog storm", gnmisim.WatchdogStorms, 3, 2, telemetry.CodePFCStorm},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, 1, func(o *gnmisim.Options) { o.Counters.Priorities = []int{3, 6} })
			c1 := f.commit("first", f.intent("150KB", "9216"))
			f.converge("150KB", "9216")
			cfg := f.config()
			cfg.CountersInterval = 20 * time.Millisecond
			a := f.start(cfg, f.deps())
			a.waitRun(history.KindPlan, history.TriggerCommit, c1)
			key := counters.Key{Device: "leaf1", Port: "Ethernet2", Counter: fmt.Sprintf("queue%d/drops", tc.prio)}
			waitFor(t, "leaf1's counters", func() bool { _, ok := a.hub.value(key); return ok })
			start := func() int { a.watch.mu.Lock(); defer a.watch.mu.Unlock(); return a.watch.rounds }()
			waitFor(t, "a few quiet rounds", func() bool {
				a.watch.mu.Lock()
				defer a.watch.mu.Unlock()
				return a.watch.rounds-start >= 5
			})
			if got := a.activeLossless(); len(got) != 0 {
				t.Fatalf("findings before the anomaly: %v", got)
			}
			f.sims["leaf1"].Jump("Ethernet2", tc.prio, tc.counter, tc.n)
			want := telemetry.Subject{Device: "leaf1", Port: "Ethernet2", Priority: tc.prio}
			waitFor(t, string(tc.code)+" on leaf1 Ethernet2", func() bool {
				for _, x := range a.activeLossless() {
					if x.Code == tc.code && x.Subject == want {
						return true
					}
				}
				return false
			})
			for _, x := range a.activeLossless() {
				if x.Code != tc.code || x.Subject != want {
					t.Errorf("also raised: %s on %s", x.Code, x.Subject)
				}
			}
		})
	}
}
