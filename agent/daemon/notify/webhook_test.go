package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/rocefab/rocefab/internal/golden"
)

var event = Event{Fabric: "basic", RunID: "r1", RunKind: "drift", Commit: "0123456789abcdef0123",
	Time:    time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
	Changes: []DeviceChange{{Device: "leaf1", Platform: "sonic", From: "compliant", To: "drifted", Changes: 2}}}

type sink struct {
	mu     sync.Mutex
	bodies []string
	codes  []int // answered in turn; 200 after the list
	calls  atomic.Int32
	srv    *httptest.Server
}

func newSink(t *testing.T, codes ...int) *sink {
	s := &sink{codes: codes}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(s.calls.Add(1))
		data, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.bodies = append(s.bodies, string(data))
		s.mu.Unlock()
		code := 200
		if n <= len(s.codes) {
			code = s.codes[n-1]
		}
		if code == 429 {
			w.Header().Set("Retry-After", "0")
		}
		w.WriteHeader(code)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func deliverOne(t *testing.T, opt Options) (ok bool, attempts int) {
	t.Helper()
	done := make(chan struct{})
	opt.Delivered = func(o bool, a int) { ok, attempts = o, a; close(done) }
	w, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	w.Notify(event)
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("no delivery result")
	}
	w.Close(context.Background())
	return ok, attempts
}

func TestFormats(t *testing.T) {
	for _, tc := range []struct {
		format Format
		check  func(t *testing.T, m map[string]any)
	}{
		{Generic, func(t *testing.T, m map[string]any) {
			if m["schemaVersion"] != Schema || m["fabric"] != "basic" || m["runId"] != "r1" {
				t.Fatalf("generic body %v", m)
			}
			ch := m["changes"].([]any)[0].(map[string]any)
			if ch["device"] != "leaf1" || ch["from"] != "compliant" || ch["to"] != "drifted" {
				t.Fatalf("change %v", ch)
			}
		}},
		{Slack, func(t *testing.T, m map[string]any) {
			if len(m) != 1 {
				t.Fatalf("slack body has extra keys: %v", m)
			}
			text := m["text"].(string)
			for _, want := range []string{"rocefab basic", "leaf1: compliant → drifted (2 difference(s))", "drift run r1 at commit 0123456789ab"} {
				if !strings.Contains(text, want) {
					t.Fatalf("text %q lacks %q", text, want)
				}
			}
		}},
	} {
		t.Run(string(tc.format), func(t *testing.T) {
			s := newSink(t)
			if ok, n := deliverOne(t, Options{URL: s.srv.URL, Format: tc.format}); !ok || n != 1 {
				t.Fatalf("delivered %v after %d attempts", ok, n)
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(s.bodies[0]), &m); err != nil {
				t.Fatal(err)
			}
			tc.check(t, m)
		})
	}
}

// TestBodiesGolden pins both wire formats (receivers parse them): a
// drift that breaks the lossless class makes the event critical and leads
// it.
func TestBodiesGolden(t *testing.T) {
	ev := event
	ev.Shard = "1/3"
	ev.Changes = append(ev.Changes, DeviceChange{Device: "spine1", Platform: "eos", To: "unreachable", Severity: SeverityWarning, Error: "connect: connection refused"},
		DeviceChange{Device: "leaf9", Platform: "sonic", From: "compliant", To: "drifted", Changes: 2, Breaking: 1, Severity: SeverityCritical,
			Worst: "sonic-db:/DSCP_TO_TC_MAP/ROCEFAB/26: \"3\" -> \"0\""})
	ev.Finish()
	for _, f := range []Format{Generic, Slack} {
		t.Run(string(f), func(t *testing.T) {
			w := &Webhook{opt: Options{Format: f}}
			body, err := w.body(ev)
			if err != nil {
				t.Fatal(err)
			}
			var pretty bytes.Buffer
			if err := json.Indent(&pretty, body, "", "  "); err != nil {
				t.Fatal(err)
			}
			pretty.WriteByte('\n')
			golden.Check(t, filepath.Join("testdata", string(f)+".golden.json"), pretty.Bytes())
		})
	}
}

func TestTextIsCapped(t *testing.T) {
	ev := event
	ev.Changes = nil
	for i := 0; i < 100; i++ {
		ev.Changes = append(ev.Changes, DeviceChange{Device: fmt.Sprintf("leaf%03d", i), From: "compliant", To: "unreachable"})
	}
	text := ev.Text()
	if strings.Count(text, "→") != maxTextDevices || !strings.Contains(text, "and 75 more") || !strings.Contains(text, "100 device(s)") {
		t.Fatalf("text:\n%s", text)
	}
}

func TestRetries(t *testing.T) {
	for _, tc := range []struct {
		name         string
		codes        []int
		wantOK       bool
		wantAttempts int
	}{
		{"server error then success", []int{500, 503}, true, 3},
		{"rate limited then success", []int{429}, true, 2},
		{"client error is final", []int{404}, false, 1},
		{"gives up after the attempts", []int{500, 500, 500, 500}, false, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSink(t, tc.codes...)
			ok, n := deliverOne(t, Options{URL: s.srv.URL, Attempts: 3, Backoff: time.Millisecond})
			if ok != tc.wantOK || n != tc.wantAttempts || int(s.calls.Load()) != tc.wantAttempts {
				t.Fatalf("ok=%v attempts=%d calls=%d; want ok=%v attempts=%d", ok, n, s.calls.Load(), tc.wantOK, tc.wantAttempts)
			}
		})
	}
}

func TestURLIsNeverLogged(t *testing.T) {
	core, logs := observer.New(zap.DebugLevel)
	secret := "http://127.0.0.1:1/services/T000/B000/SECRETPART"
	ok, _ := deliverOne(t, Options{URL: secret, Attempts: 2, Backoff: time.Millisecond, Logger: zap.New(core)})
	if ok {
		t.Fatal("delivered to a closed port")
	}
	if logs.Len() == 0 {
		t.Fatal("no log lines: the test checks nothing")
	}
	for _, e := range logs.All() {
		line := e.Message
		for _, f := range e.Context {
			if f.Interface != nil {
				if err, isErr := f.Interface.(error); isErr {
					line += " " + err.Error()
				}
			}
			line += " " + f.String
		}
		if strings.Contains(line, "SECRETPART") {
			t.Fatalf("URL logged: %s", line)
		}
	}
	if _, err := New(Options{URL: "ftp://x/SECRETPART"}); err == nil || strings.Contains(err.Error(), "SECRETPART") {
		t.Fatalf("bad URL error %v", err)
	}
}

func TestCloseDrainsThenStops(t *testing.T) {
	s := newSink(t)
	var delivered atomic.Int32
	w, err := New(Options{URL: s.srv.URL, Delivered: func(ok bool, _ int) {
		if ok {
			delivered.Add(1)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		w.Notify(event)
	}
	w.Notify(Event{RunID: "empty"}) // no changes: nothing to send
	w.Close(context.Background())
	if delivered.Load() != 5 || s.calls.Load() != 5 {
		t.Fatalf("delivered %d, calls %d; want 5", delivered.Load(), s.calls.Load())
	}
	w.Notify(event) // after Close: ignored
	time.Sleep(10 * time.Millisecond)
	if s.calls.Load() != 5 {
		t.Fatal("delivered after Close")
	}
}

func TestCloseGivesUpAtDeadline(t *testing.T) {
	s := newSink(t, 500, 500, 500, 500, 500, 500)
	w, err := New(Options{URL: s.srv.URL, Attempts: 100, Backoff: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	w.Notify(event)
	for s.calls.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	// The retry waits an hour; Close must return once ctx ends. The minute
	// here only keeps a broken Close from hanging the test.
	closed := make(chan struct{})
	go func() { w.Close(ctx); close(closed) }()
	select {
	case <-closed:
	case <-time.After(time.Minute):
		t.Fatal("Close waited out the backoff instead of giving up at its deadline")
	}
	if n := s.calls.Load(); n != 1 {
		t.Fatalf("%d deliveries; want the one before Close", n)
	}
}

// TestLinkBodiesGolden pins a mesh run's link events in both formats: a
// remark that breaks the lossless class makes the event critical and
// leads it, a recovery follows.
func TestLinkBodiesGolden(t *testing.T) {
	ev := Event{Fabric: "lab", RunID: "r2", RunKind: "mesh", Commit: "0123456789abcdef0123",
		Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Changes: []DeviceChange{},
		Links: []LinkChange{
			{Event: LinkRecovered, Link: "leaf1 swp51 - spine1 swp1", Direction: "leaf1 -> spine1", From: "bad", To: "good",
				Classes: []string{"loss"}, Evidence: []string{"no fault localized on 6 flow(s) through it"}, Severity: SeverityInfo},
			{Event: LinkBad, Link: "leaf1 swp52 - spine2 swp1", Direction: "spine2 -> leaf1", From: "good", To: "bad",
				Classes:  []string{"dscp_remarked"},
				Evidence: []string{"spine2 swp1 → leaf1 swp52: DSCP 26 arrived as 8 on 12 of 12 flows through it; 0 of 36 flows elsewhere"},
				Severity: SeverityCritical},
		}}
	ev.Finish()
	if ev.Severity != SeverityCritical || ev.Links[0].Event != LinkBad {
		t.Fatalf("severity %s, first %s", ev.Severity, ev.Links[0].Event)
	}
	for _, f := range []Format{Generic, Slack} {
		t.Run(string(f), func(t *testing.T) {
			w := &Webhook{opt: Options{Format: f}}
			body, err := w.body(ev)
			if err != nil {
				t.Fatal(err)
			}
			var pretty bytes.Buffer
			if err := json.Indent(&pretty, body, "", "  "); err != nil {
				t.Fatal(err)
			}
			pretty.WriteByte('\n')
			golden.Check(t, filepath.Join("testdata", "links-"+string(f)+".golden.json"), pretty.Bytes())
		})
	}
}

// TestLinkEventIsDelivered: an event with link changes only is sent (one
// with nothing is not).
func TestLinkEventIsDelivered(t *testing.T) {
	s := newSink(t)
	w, err := New(Options{URL: s.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	w.Notify(Event{RunID: "empty", RunKind: "mesh"})
	w.Notify(Event{RunID: "r3", RunKind: "mesh", Links: []LinkChange{{Event: LinkBad, Link: "a - b", Direction: "a -> b", To: "bad", Severity: SeverityCritical}}})
	w.Close(context.Background())
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := s.calls.Load(); n != 1 || !strings.Contains(s.bodies[0], `"event":"link_bad"`) || !strings.Contains(s.bodies[0], `"runId":"r3"`) {
		t.Fatalf("%d calls: %v", n, s.bodies)
	}
}

// TestFindingBodiesGolden pins a detector round's finding events in both
// formats: a raised storm (critical) leads, a cleared drop (info) follows.
func TestFindingBodiesGolden(t *testing.T) {
	prio := 3
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ev := Event{Fabric: "lab", RunID: "r4", RunKind: "lossless", Commit: "0123456789abcdef0123", Time: at, Changes: []DeviceChange{},
		Findings: []FindingChange{
			{Event: FindingCleared, Code: "lossless_drop", Severity: SeverityInfo, Device: "leaf2", Port: "Ethernet7", Priority: &prio,
				Message: "12 packets dropped in the no-drop queue in the last 10s", Where: "fabric.yaml:14:5",
				FirstSeen: at.Add(-10 * time.Minute), LastSeen: at.Add(-9 * time.Minute)},
			{Event: FindingRaised, Code: "pfc_storm", Severity: SeverityCritical, Device: "leaf1", Port: "Ethernet2", Priority: &prio,
				Message: "the PFC watchdog detected 3 storm(s) in the last 10s", Where: "fabric.yaml:9:5",
				FirstSeen: at.Add(-10 * time.Second), LastSeen: at, ProbeRuns: []string{"20260101T000000Z-a1b2c3"}},
		}}
	ev.Finish()
	if ev.Severity != SeverityCritical || ev.Findings[0].Event != FindingRaised {
		t.Fatalf("severity %s, first %s", ev.Severity, ev.Findings[0].Event)
	}
	for _, f := range []Format{Generic, Slack} {
		t.Run(string(f), func(t *testing.T) {
			w := &Webhook{opt: Options{Format: f}}
			body, err := w.body(ev)
			if err != nil {
				t.Fatal(err)
			}
			var pretty bytes.Buffer
			if err := json.Indent(&pretty, body, "", "  "); err != nil {
				t.Fatal(err)
			}
			pretty.WriteByte('\n')
			golden.Check(t, filepath.Join("testdata", "findings-"+string(f)+".golden.json"), pretty.Bytes())
		})
	}
}

// TestFindingEventIsDelivered: an event with findings only is sent.
func TestFindingEventIsDelivered(t *testing.T) {
	s := newSink(t)
	w, err := New(Options{URL: s.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	w.Notify(Event{RunID: "r5", RunKind: "lossless", Findings: []FindingChange{{Event: FindingRaised, Code: "pfc_storm", Device: "leaf1", Severity: SeverityCritical}}})
	w.Close(context.Background())
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := s.calls.Load(); n != 1 || !strings.Contains(s.bodies[0], `"event":"finding_raised"`) {
		t.Fatalf("%d calls: %v", n, s.bodies)
	}
}
