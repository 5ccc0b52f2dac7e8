package history

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// ErrNotFound is returned for an unknown run ID.
var ErrNotFound = errors.New("run not found")

var (
	bucketBriefs  = []byte("runs")    // seq -> brief run JSON (lists)
	bucketDetails = []byte("details") // seq -> full run JSON, gzipped
	bucketIDs     = []byte("ids")     // run ID -> seq
	bucketDevices = []byte("devices") // device -> DeviceState JSON
	bucketMeta    = []byte("meta")    // key -> value
)

// Store is the run history in one bbolt file. It is safe for concurrent use.
type Store struct {
	db  *bolt.DB
	now func() time.Time
}

// Retention bounds the history; zero fields do not limit.
type Retention struct {
	MaxAge  time.Duration
	MaxRuns int
}

// Open opens or creates the history file. It waits at most a second for
// bbolt's own file lock, so a second process fails instead of hanging.
func Open(path string, now func() time.Time) (*Store, error) {
	if now == nil {
		now = time.Now
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		return nil, fmt.Errorf("history %s: %w", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketBriefs, bucketDetails, bucketIDs, bucketDevices, bucketMeta} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("history %s: %w", path, err)
	}
	return &Store{db: db, now: now}, nil
}

// Close closes the file.
func (s *Store) Close() error { return s.db.Close() }

// Path is the file.
func (s *Store) Path() string { return s.db.Path() }

func seqKey(n uint64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], n)
	return b[:]
}

// Put records a run. Runs are listed in the order they are put.
func (s *Store) Put(r *Run) error {
	if r.ID == "" {
		return errors.New("history: run without ID")
	}
	r.SchemaVersion = RunSchema
	full, err := zipJSON(r)
	if err != nil {
		return err
	}
	b := r.Brief()
	brief, err := json.Marshal(&b)
	if err != nil {
		return err
	}
	return s.db.Update(func(tx *bolt.Tx) error {
		ids := tx.Bucket(bucketIDs)
		var key []byte
		if old := ids.Get([]byte(r.ID)); old != nil {
			key = append([]byte(nil), old...) // re-recording a run keeps its place
		} else {
			n, err := tx.Bucket(bucketBriefs).NextSequence()
			if err != nil {
				return err
			}
			key = seqKey(n)
			if err := ids.Put([]byte(r.ID), key); err != nil {
				return err
			}
		}
		if err := tx.Bucket(bucketBriefs).Put(key, brief); err != nil {
			return err
		}
		return tx.Bucket(bucketDetails).Put(key, full)
	})
}

// Get returns a run with its devices, diffs and findings.
func (s *Store) Get(id string) (*Run, error) {
	var r *Run
	err := s.db.View(func(tx *bolt.Tx) error {
		key := tx.Bucket(bucketIDs).Get([]byte(id))
		if key == nil {
			return fmt.Errorf("%w: %s", ErrNotFound, id)
		}
		data := tx.Bucket(bucketDetails).Get(key)
		if data == nil {
			return fmt.Errorf("%w: %s", ErrNotFound, id)
		}
		r = &Run{}
		return unzipJSON(data, r)
	})
	return r, err
}

// Details are gzipped: a drift check of thousands of compliant devices is
// repetitive JSON that shrinks tenfold and more.
func zipJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if err := json.NewEncoder(zw).Encode(v); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func unzipJSON(data []byte, v any) error {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("run details: %w", err)
	}
	defer zr.Close()
	return json.NewDecoder(zr).Decode(v)
}

// Query selects runs for List.
type Query struct {
	// Kind keeps one kind; empty keeps all.
	Kind Kind
	// Before continues a listing after the run with this ID (the Next of
	// the previous page).
	Before string
	// Limit caps the page; default 50, at most 1000.
	Limit int
}

// Page is one page of runs, newest first, without device details.
type Page struct {
	Runs []Run `json:"runs"`
	// Next is the Before of the following page; empty on the last page.
	Next string `json:"next,omitempty"`
}

// List pages through runs, newest first.
func (s *Store) List(q Query) (Page, error) {
	if q.Limit <= 0 {
		q.Limit = 50
	}
	q.Limit = min(q.Limit, 1000)
	page := Page{Runs: []Run{}}
	err := s.db.View(func(tx *bolt.Tx) error {
		c := tx.Bucket(bucketBriefs).Cursor()
		var k, v []byte
		if q.Before != "" {
			key := tx.Bucket(bucketIDs).Get([]byte(q.Before))
			if key == nil {
				return fmt.Errorf("%w: %s (the page cursor)", ErrNotFound, q.Before)
			}
			c.Seek(key)
			k, v = c.Prev()
		} else {
			k, v = c.Last()
		}
		for ; k != nil; k, v = c.Prev() {
			var r Run
			if err := json.Unmarshal(v, &r); err != nil {
				return err
			}
			if q.Kind != "" && r.Kind != q.Kind {
				continue
			}
			if r.Result == ResultRunning {
				continue // in flight: the agent lists those itself
			}
			if len(page.Runs) == q.Limit {
				page.Next = page.Runs[len(page.Runs)-1].ID
				return nil
			}
			page.Runs = append(page.Runs, r)
		}
		return nil
	})
	return page, err
}

// Latest returns the newest run of a kind, or nil.
func (s *Store) Latest(kind Kind) (*Run, error) {
	p, err := s.List(Query{Kind: kind, Limit: 1})
	if err != nil || len(p.Runs) == 0 {
		return nil, err
	}
	return &p.Runs[0], nil
}

// MarkInterrupted turns every run still recorded as running into an
// interrupted one: called when an agent opens the history, before it
// starts runs of its own, so it finds the runs its predecessor was killed
// in. It returns them.
func (s *Store) MarkInterrupted(reason string) ([]Run, error) {
	var ids []string
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketBriefs).ForEach(func(_, v []byte) error {
			var r Run
			if err := json.Unmarshal(v, &r); err != nil {
				return err
			}
			if r.Result == ResultRunning {
				ids = append(ids, r.ID)
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	var out []Run
	for _, id := range ids {
		r, err := s.Get(id)
		if err != nil {
			return out, err
		}
		r.Result, r.Error = ResultInterrupted, reason
		if err := s.Put(r); err != nil {
			return out, err
		}
		out = append(out, r.Brief())
	}
	return out, nil
}

// Count is the number of runs kept.
func (s *Store) Count() (int, error) {
	n := 0
	err := s.db.View(func(tx *bolt.Tx) error {
		n = tx.Bucket(bucketIDs).Stats().KeyN
		return nil
	})
	return n, err
}

// Prune deletes the oldest runs beyond the retention and returns them
// (without details), so the caller can drop files they refer to.
func (s *Store) Prune(keep Retention) ([]Run, error) {
	if keep.MaxAge <= 0 && keep.MaxRuns <= 0 {
		return nil, nil
	}
	cutoff := s.now().Add(-keep.MaxAge)
	var removed []Run
	err := s.db.Update(func(tx *bolt.Tx) error {
		briefs, details, ids := tx.Bucket(bucketBriefs), tx.Bucket(bucketDetails), tx.Bucket(bucketIDs)
		total := ids.Stats().KeyN
		var keys [][]byte
		c := briefs.Cursor()
		for k, v := c.First(); k != nil; k, v = c.Next() {
			var r Run
			if err := json.Unmarshal(v, &r); err != nil {
				return err
			}
			tooMany := keep.MaxRuns > 0 && total-len(keys) > keep.MaxRuns
			tooOld := keep.MaxAge > 0 && r.Started.Before(cutoff)
			if !tooMany && !tooOld {
				break // oldest first: everything after is newer
			}
			keys = append(keys, append([]byte(nil), k...))
			removed = append(removed, r)
		}
		// Deleted after the walk: deleting under a live cursor skips items.
		for i, k := range keys {
			if err := briefs.Delete(k); err != nil {
				return err
			}
			if err := details.Delete(k); err != nil {
				return err
			}
			if err := ids.Delete([]byte(removed[i].ID)); err != nil {
				return err
			}
		}
		return nil
	})
	return removed, err
}

// PutStates records device states; a nil state deletes the device.
func (s *Store) PutStates(states map[string]*DeviceState) error {
	return s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketDevices)
		for name, st := range states {
			if st == nil {
				if err := b.Delete([]byte(name)); err != nil {
					return err
				}
				continue
			}
			data, err := json.Marshal(st)
			if err != nil {
				return err
			}
			if err := b.Put([]byte(name), data); err != nil {
				return err
			}
		}
		return nil
	})
}

// States returns every recorded device state.
func (s *Store) States() (map[string]DeviceState, error) {
	out := map[string]DeviceState{}
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketDevices).ForEach(func(k, v []byte) error {
			var st DeviceState
			if err := json.Unmarshal(v, &st); err != nil {
				return err
			}
			out[string(k)] = st
			return nil
		})
	})
	return out, err
}

// SetMeta records a small value, e.g. the last intent revision planned.
func (s *Store) SetMeta(key, value string) error {
	return s.db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketMeta).Put([]byte(key), []byte(value))
	})
}

// Meta reads a value SetMeta recorded; "" when absent.
func (s *Store) Meta(key string) (string, error) {
	var v string
	err := s.db.View(func(tx *bolt.Tx) error {
		v = string(tx.Bucket(bucketMeta).Get([]byte(key)))
		return nil
	})
	return v, err
}
