package history

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	bolt "go.etcd.io/bbolt"

	"github.com/rocefab/rocefab/devcfg"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func open(t *testing.T, path string, c *clock) *Store {
	t.Helper()
	s, err := Open(path, c.now)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func run(i int, kind Kind, at time.Time) *Run {
	return &Run{ID: fmt.Sprintf("run-%03d", i), Kind: kind, Trigger: TriggerSchedule, Commit: "abc123",
		Started: at, Finished: at.Add(time.Second), Result: ResultChanges,
		Devices: []Device{{Device: "leaf1", Status: "drifted", Changes: []devcfg.Change{{Action: devcfg.Modify, Path: "/mtu", Old: "1500", New: "9216"}}}}}
}

func TestPutGetSurvivesReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.db")
	c := &clock{time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	s := open(t, path, c)
	want := run(1, KindDrift, c.t)
	if err := s.Put(want); err != nil {
		t.Fatal(err)
	}
	if err := s.PutStates(map[string]*DeviceState{"leaf1": {Device: "leaf1", State: "drifted", RunID: want.ID}}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetMeta("revision", "r1"); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = open(t, path, c)
	defer s.Close()
	got, err := s.Get(want.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("run after reopen (-want +got):\n%s", diff)
	}
	st, _ := s.States()
	if st["leaf1"].State != "drifted" {
		t.Fatalf("states %+v", st)
	}
	if v, _ := s.Meta("revision"); v != "r1" {
		t.Fatalf("meta %q", v)
	}
	if _, err := s.Get("nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown ID: %v", err)
	}
}

func TestListPagesNewestFirst(t *testing.T) {
	c := &clock{time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	s := open(t, filepath.Join(t.TempDir(), "h.db"), c)
	defer s.Close()
	for i := 0; i < 7; i++ {
		kind := KindDrift
		if i%3 == 0 {
			kind = KindPlan
		}
		if err := s.Put(run(i, kind, c.t.Add(time.Duration(i)*time.Minute))); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(p Page) []string {
		var out []string
		for _, r := range p.Runs {
			if r.Devices != nil {
				t.Errorf("list carries device details for %s", r.ID)
			}
			out = append(out, r.ID)
		}
		return out
	}
	for _, tc := range []struct {
		name     string
		q        Query
		want     []string
		wantNext string
	}{
		{"first page", Query{Limit: 3}, []string{"run-006", "run-005", "run-004"}, "run-004"},
		{"second page", Query{Limit: 3, Before: "run-004"}, []string{"run-003", "run-002", "run-001"}, "run-001"},
		{"last page", Query{Limit: 3, Before: "run-001"}, []string{"run-000"}, ""},
		{"exact fit has no next", Query{Limit: 7}, []string{"run-006", "run-005", "run-004", "run-003", "run-002", "run-001", "run-000"}, ""},
		{"by kind", Query{Kind: KindPlan}, []string{"run-006", "run-003", "run-000"}, ""},
		{"by kind paged", Query{Kind: KindPlan, Limit: 2}, []string{"run-006", "run-003"}, "run-003"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := s.List(tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, ids(p)); diff != "" || p.Next != tc.wantNext {
				t.Fatalf("ids (-want +got):\n%s next %q want %q", diff, p.Next, tc.wantNext)
			}
		})
	}
	if _, err := s.List(Query{Before: "missing"}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown cursor: %v", err)
	}
}

func TestPrune(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name        string
		keep        Retention
		wantRemoved int
	}{
		{"unlimited", Retention{}, 0},
		{"max runs", Retention{MaxRuns: 4}, 6},
		{"max age", Retention{MaxAge: 150 * time.Minute}, 3}, // now is +200m: runs at 0, 20 and 40m are older
		{"both, count wins", Retention{MaxAge: 24 * time.Hour, MaxRuns: 2}, 8},
		{"both, age wins", Retention{MaxAge: 30 * time.Minute, MaxRuns: 9}, 9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &clock{base.Add(10 * 20 * time.Minute)}
			s := open(t, filepath.Join(t.TempDir(), "h.db"), c)
			defer s.Close()
			for i := 0; i < 10; i++ {
				if err := s.Put(run(i, KindDrift, base.Add(time.Duration(i)*20*time.Minute))); err != nil {
					t.Fatal(err)
				}
			}
			removed, err := s.Prune(tc.keep)
			if err != nil {
				t.Fatal(err)
			}
			if len(removed) != tc.wantRemoved {
				t.Fatalf("removed %d, want %d", len(removed), tc.wantRemoved)
			}
			for i, r := range removed {
				if want := fmt.Sprintf("run-%03d", i); r.ID != want {
					t.Fatalf("removed[%d] = %s, want oldest first (%s)", i, r.ID, want)
				}
				if _, err := s.Get(r.ID); !errors.Is(err, ErrNotFound) {
					t.Fatalf("%s still readable after prune", r.ID)
				}
			}
			n, _ := s.Count()
			if n != 10-tc.wantRemoved {
				t.Fatalf("count %d after prune", n)
			}
			p, _ := s.List(Query{Limit: 100})
			if len(p.Runs) != n {
				t.Fatalf("list shows %d runs, count %d", len(p.Runs), n)
			}
		})
	}
}

func TestRePutKeepsPlace(t *testing.T) {
	c := &clock{time.Now()}
	s := open(t, filepath.Join(t.TempDir(), "h.db"), c)
	defer s.Close()
	a, b := run(1, KindApply, c.t), run(2, KindDrift, c.t)
	_ = s.Put(a)
	_ = s.Put(b)
	a.Result = ResultFailure
	if err := s.Put(a); err != nil {
		t.Fatal(err)
	}
	p, _ := s.List(Query{})
	if len(p.Runs) != 2 || p.Runs[0].ID != b.ID || p.Runs[1].Result != ResultFailure {
		t.Fatalf("runs %+v", p.Runs)
	}
}

// TestDetailsAreCompact: a fleet-wide drift check stays small on disk.
func TestDetailsAreCompact(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.db")
	s := open(t, path, &clock{time.Now()})
	r := &Run{ID: "big", Kind: KindDrift, Started: time.Now()}
	for i := 0; i < 2000; i++ {
		r.Devices = append(r.Devices, Device{Device: fmt.Sprintf("leaf-%04d", i), Kind: "switch", Platform: "sonic", Status: "compliant"})
	}
	if err := s.Put(r); err != nil {
		t.Fatal(err)
	}
	var size int
	_ = s.db.View(func(tx *bolt.Tx) error {
		size = len(tx.Bucket(bucketDetails).Get(seqKey(1)))
		return nil
	})
	raw, _ := json.Marshal(r)
	t.Logf("2000 devices: %d bytes gzipped, %d bytes of JSON", size, len(raw))
	if size == 0 || size*8 > len(raw) {
		t.Fatalf("details take %d bytes for %d bytes of JSON", size, len(raw))
	}
	got, err := s.Get("big")
	if err != nil || len(got.Devices) != 2000 || got.Devices[1999].Device != "leaf-1999" {
		t.Fatalf("read back: %v", err)
	}
	s.Close()
}

func BenchmarkPut(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "h.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	r := run(0, KindDrift, time.Now())
	for i := 0; i < 200; i++ {
		r.Devices = append(r.Devices, r.Devices[0])
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r.ID = fmt.Sprintf("run-%d", i)
		if err := s.Put(r); err != nil {
			b.Fatal(err)
		}
	}
}

// TestMarkInterrupted: runs recorded as running when they started, and
// never finished, become interrupted when the next agent opens the
// history; finished runs are left alone, and running ones stay out of
// listings until then.
func TestMarkInterrupted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.db")
	c := &clock{time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	s := open(t, path, c)
	done := run(1, KindDrift, c.t)
	lost := run(2, KindDrift, c.t)
	lost.Result, lost.Finished = ResultRunning, time.Time{}
	for _, r := range []*Run{done, lost} {
		if err := s.Put(r); err != nil {
			t.Fatal(err)
		}
	}
	if p, _ := s.List(Query{}); len(p.Runs) != 1 || p.Runs[0].ID != done.ID {
		t.Fatalf("a running run is listed: %+v", p.Runs)
	}
	_ = s.Close()

	s = open(t, path, c)
	defer s.Close()
	marked, err := s.MarkInterrupted("killed")
	if err != nil || len(marked) != 1 || marked[0].ID != lost.ID {
		t.Fatalf("marked %+v, %v", marked, err)
	}
	got, err := s.Get(lost.ID)
	if err != nil || got.Result != ResultInterrupted || got.Error != "killed" {
		t.Fatalf("%+v %v", got, err)
	}
	if got, _ := s.Get(done.ID); got.Result != ResultChanges {
		t.Fatalf("a finished run was touched: %s", got.Result)
	}
	if again, _ := s.MarkInterrupted("killed"); len(again) != 0 {
		t.Fatalf("marked twice: %+v", again)
	}
}
