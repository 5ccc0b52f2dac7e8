package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/gofrs/flock"

	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/internal/safefile"
)

// A run under way holds runs/<id>/lock with flock(2) for as long as its
// process lives. The kernel drops the lock when the process exits, however
// it exits, so a report that still says running while nobody holds its
// lock belongs to a run that was killed: interrupted.

// ActiveRun is a run under way: its report is written ahead to the store
// and rewritten as devices progress, and its lock says it is alive.
type ActiveRun struct {
	store RunStore
	lock  *flock.Flock

	mu  sync.Mutex
	rep *RunReport
}

// Begin writes the report of a run that is starting (status running) and
// takes the run's lock.
func (s RunStore) Begin(rep *RunReport) (*ActiveRun, error) {
	dir := s.runDir(rep.ID)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	fl := flock.New(filepath.Join(dir, "lock"), flock.SetPermissions(0o600))
	ok, err := fl.TryLock()
	if err != nil {
		return nil, fmt.Errorf("run %s: lock: %w", rep.ID, err)
	}
	if !ok {
		return nil, fmt.Errorf("run %s is already under way in another process", rep.ID)
	}
	rep.SchemaVersion, rep.Status, rep.PID = RunSchema, StatusRunning, os.Getpid()
	a := &ActiveRun{store: s, lock: fl, rep: rep}
	if err := a.Save(); err != nil {
		_ = fl.Unlock()
		return nil, err
	}
	return a, nil
}

// ID is the run's ID.
func (a *ActiveRun) ID() string { return a.rep.ID }

// Update changes the report under the run's lock and writes it (without a
// state directory, only in memory).
func (a *ActiveRun) Update(fn func(r *RunReport)) error {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	fn(a.rep)
	if a.store.Dir == "" {
		return nil
	}
	_, err := a.store.SaveReport(a.rep)
	return err
}

// Save writes the report as it is.
func (a *ActiveRun) Save() error { return a.Update(func(*RunReport) {}) }

// Read runs fn with the report held still.
func (a *ActiveRun) Read(fn func(r *RunReport)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	fn(a.rep)
}

// End writes the finished report and releases the run's lock.
func (a *ActiveRun) End() error {
	if a == nil {
		return nil
	}
	err := a.Save()
	if a.lock == nil {
		return err
	}
	return errors.Join(err, a.lock.Unlock())
}

// Alive reports whether run id is under way in some process.
func (s RunStore) Alive(id string) bool {
	path := filepath.Join(s.runDir(id), "lock")
	if _, err := os.Stat(path); err != nil {
		return false
	}
	fl := flock.New(path)
	ok, err := fl.TryRLock()
	if err != nil {
		return false
	}
	if ok {
		_ = fl.Unlock()
		return false
	}
	return true
}

// DeviceLocks are the device locks a run holds.
type DeviceLocks struct {
	store RunStore
	run   string
	mu    sync.Mutex
	held  map[string]*flock.Flock
}

// Holder describes who holds a device lock.
type Holder struct {
	Run      string    `json:"run"`
	Kind     string    `json:"kind,omitempty"`
	PID      int       `json:"pid"`
	Hostname string    `json:"hostname,omitempty"`
	Since    time.Time `json:"since"`
}

func (h Holder) String() string {
	s := "run " + h.Run
	if h.Kind != "" {
		s = h.Kind + " " + s
	}
	if h.Hostname != "" {
		s += " on " + h.Hostname
	}
	if h.PID > 0 {
		s += " (pid " + strconv.Itoa(h.PID) + ")"
	}
	if !h.Since.IsZero() {
		s += " since " + h.Since.UTC().Format(time.RFC3339)
	}
	return s
}

// NewDeviceLocks starts an empty set of device locks for run.
func (s RunStore) NewDeviceLocks(run string) *DeviceLocks {
	return &DeviceLocks{store: s, run: run, held: map[string]*flock.Flock{}}
}

func (s RunStore) lockPath(device string) string {
	return filepath.Join(s.Dir, "locks", safeName(device)+".lock")
}

// Lock takes the devices' locks in name order, waiting at most wait for
// each one held by another process, and fails with drivers.ErrLocked
// naming the holder. Locks already held are kept.
func (l *DeviceLocks) Lock(ctx context.Context, kind string, wait time.Duration, devices ...string) error {
	if l == nil || l.store.Dir == "" {
		return nil
	}
	names := append([]string(nil), devices...)
	sort.Strings(names)
	if err := os.MkdirAll(filepath.Join(l.store.Dir, "locks"), 0o700); err != nil {
		return err
	}
	for _, dev := range names {
		l.mu.Lock()
		_, have := l.held[dev]
		l.mu.Unlock()
		if have {
			continue
		}
		if err := l.lockOne(ctx, kind, wait, dev); err != nil {
			return err
		}
	}
	return nil
}

func (l *DeviceLocks) lockOne(ctx context.Context, kind string, wait time.Duration, dev string) error {
	path := l.store.lockPath(dev)
	fl := flock.New(path, flock.SetPermissions(0o600))
	deadline := time.Now().Add(wait)
	for delay := 20 * time.Millisecond; ; delay = min(2*delay, time.Second) {
		ok, err := fl.TryLock()
		if err != nil {
			return fmt.Errorf("lock %s: %w", path, err)
		}
		if ok {
			break
		}
		if !time.Now().Before(deadline) {
			return &drivers.DeviceError{Device: dev, Step: "lock", Err: fmt.Errorf("%w: %s holds it (%s); waited %s", drivers.ErrLocked, l.store.holder(dev), path, wait)}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(min(delay, time.Until(deadline)+time.Millisecond)):
		}
	}
	host, _ := os.Hostname()
	h := Holder{Run: l.run, Kind: kind, PID: os.Getpid(), Hostname: host, Since: time.Now().UTC()}
	data, _ := json.Marshal(h)
	// flock(2) locks belong to the open file description: writing the
	// holder through another descriptor keeps the lock.
	if err := safefile.WriteFile(filepath.Dir(path), filepath.Base(path)+".holder", append(data, '\n'), 0o600); err != nil {
		_ = fl.Unlock()
		return err
	}
	l.mu.Lock()
	l.held[dev] = fl
	l.mu.Unlock()
	return nil
}

// holder reads who holds a device's lock.
func (s RunStore) holder(dev string) string {
	data, err := os.ReadFile(s.lockPath(dev) + ".holder")
	if err != nil {
		return "another rocefab process"
	}
	var h Holder
	if json.Unmarshal(data, &h) != nil || h.Run == "" {
		return "another rocefab process"
	}
	return h.String()
}

// Unlock releases one device.
func (l *DeviceLocks) Unlock(dev string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	fl := l.held[dev]
	delete(l.held, dev)
	l.mu.Unlock()
	if fl != nil {
		_ = fl.Unlock()
	}
}

// Release releases every device.
func (l *DeviceLocks) Release() {
	if l == nil {
		return
	}
	l.mu.Lock()
	held := l.held
	l.held = map[string]*flock.Flock{}
	l.mu.Unlock()
	for _, fl := range held {
		_ = fl.Unlock()
	}
}

// Holds reports whether the set holds dev.
func (l *DeviceLocks) Holds(dev string) bool {
	if l == nil {
		return false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	_, ok := l.held[dev]
	return ok
}

// DeviceRecord is what the state directory knows of one device across
// runs: the config rocefab last applied, a run under way on it (written
// before its push, removed once the device settled: left behind, it marks
// an interrupted run), and whether the last outcome was unknown.
type DeviceRecord struct {
	Device      string      `json:"device"`
	LastApplied *AppliedRef `json:"lastApplied,omitempty"`
	Active      *ActiveRef  `json:"active,omitempty"`
	Unknown     *UnknownRef `json:"unknown,omitempty"`
}

// AppliedRef points at the owned config a run read back after applying.
type AppliedRef struct {
	Run  string    `json:"run"`
	At   time.Time `json:"at"`
	Path string    `json:"path"`
}

// ActiveRef is a run's push under way on the device.
type ActiveRef struct {
	Run   string    `json:"run"`
	Kind  string    `json:"kind"`
	Phase string    `json:"phase"`
	At    time.Time `json:"at"`
}

// UnknownRef is an outcome nobody could read back.
type UnknownRef struct {
	Run    string    `json:"run"`
	At     time.Time `json:"at"`
	Reason string    `json:"reason"`
}

func (s RunStore) recordPath(device string) string {
	return filepath.Join(s.Dir, "devices", safeName(device)+".json")
}

// DeviceRecord reads a device's record; nil without one.
func (s RunStore) DeviceRecord(device string) (*DeviceRecord, error) {
	data, err := os.ReadFile(s.recordPath(device))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var r DeviceRecord
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("device record %s: %w", s.recordPath(device), err)
	}
	return &r, nil
}

// UpdateDevice changes a device's record under a short lock of its own,
// so processes that do not hold the device (a drift clearing an unknown
// mark) can write it too.
func (s RunStore) UpdateDevice(device string, fn func(r *DeviceRecord)) error {
	if s.Dir == "" {
		return nil
	}
	dir := filepath.Join(s.Dir, "devices")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	fl := flock.New(s.recordPath(device)+".lock", flock.SetPermissions(0o600))
	if err := fl.Lock(); err != nil {
		return err
	}
	defer fl.Unlock()
	r, err := s.DeviceRecord(device)
	if err != nil {
		return err
	}
	if r == nil {
		r = &DeviceRecord{Device: device}
	}
	fn(r)
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return safefile.WriteFile(filepath.Dir(s.recordPath(device)), filepath.Base(s.recordPath(device)), append(data, '\n'), 0o600)
}

// Interrupted returns the run an interrupted push left on the device, if
// any: the record's active run whose process is gone.
func (s RunStore) Interrupted(device string) *ActiveRef {
	r, err := s.DeviceRecord(device)
	if err != nil || r == nil || r.Active == nil || s.Alive(r.Active.Run) {
		return nil
	}
	return r.Active
}

// leftNote says what run a left on a device: interrupted, or ended with
// an outcome nobody could read back (both are settled the same way).
func (s RunStore) leftNote(device string, a *ActiveRef) string {
	if r, err := s.DeviceRecord(device); err == nil && r != nil && r.Unknown != nil && r.Unknown.Run == a.Run {
		return fmt.Sprintf("what the device ran after %s run %s was unknown (%s); the next apply, or rollback %s, reads it back and settles it first",
			a.Kind, a.Run, r.Unknown.Reason, a.Run)
	}
	return interruptedNote(a)
}

// interruptedNote says what an interrupted run left on a device.
func interruptedNote(a *ActiveRef) string {
	what := "while pushing: the device may hold the change, not hold it, or (where lines apply as they are typed) part of it"
	if a.Phase == PhaseConfirming {
		what = "while its change waited for confirmation: the device rolls it back by its own timer where the platform has one, else apply or rollback does"
	}
	return fmt.Sprintf("an earlier %s run %s was interrupted on this device at %s %s; the next apply, or rollback %s, reads it back and settles it first",
		a.Kind, a.Run, a.At.UTC().Format(time.RFC3339), what, a.Run)
}
