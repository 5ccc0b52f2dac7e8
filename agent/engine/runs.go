package engine

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/internal/safefile"
)

// RunSchema versions run reports.
const RunSchema = "rocefab.io/run/v1"

// Outcome of one device in an apply or rollback.
type Outcome string

const (
	OutcomeApplied    Outcome = "applied"
	OutcomeNoChanges  Outcome = "no-changes"
	OutcomeRefused    Outcome = "refused"     // conflict, stale plan, disruptive without the flag, locked
	OutcomeFailed     Outcome = "failed"      // push failed; the device is unchanged
	OutcomeRolledBack Outcome = "rolled-back" // pushed, then undone (read-back or verify failed)
	OutcomeSkipped    Outcome = "skipped"     // not attempted (stop on failure, canary failed)
	// OutcomeUnknown: the commit was sent, its answer lost, and the device
	// could not be read back: nobody knows what it runs until it is read
	// again.
	OutcomeUnknown Outcome = "unknown"
	// OutcomePending and OutcomeInProgress are written ahead while a run is
	// under way; a run found interrupted keeps them until recovered.
	OutcomePending    Outcome = "pending"
	OutcomeInProgress Outcome = "in-progress"
)

// Run kinds.
const (
	KindApply    = "apply"
	KindRollback = "rollback"
	KindDrift    = "drift"
	KindProbe    = "probe"
	// KindMesh is the agent's probe mesh over every fabric link.
	KindMesh = "mesh"
)

// Run statuses. A report says running from before its first push until it
// finishes; a running report whose process is gone is interrupted.
const (
	StatusRunning     = "running"
	StatusDone        = "done"
	StatusInterrupted = "interrupted"
)

// Device phases of a run under way.
const (
	PhasePending    = "pending"    // not started
	PhasePushing    = "pushing"    // push sent, outcome not yet known
	PhaseConfirming = "confirming" // committed, waiting for verify and confirm
	PhaseDone       = "done"       // settled; Outcome says how
)

// RunReport is the audit record of one apply, rollback, drift or probe run.
type RunReport struct {
	SchemaVersion string               `json:"schemaVersion"`
	ID            string               `json:"id"`
	Kind          string               `json:"kind"` // apply, rollback, drift or probe
	RollbackOf    string               `json:"rollbackOf,omitempty"`
	Status        string               `json:"status,omitempty"`
	StartedAt     time.Time            `json:"startedAt"`
	FinishedAt    time.Time            `json:"finishedAt"`
	Intent        compliance.IntentRef `json:"intent"`
	User          string               `json:"user"`
	Hostname      string               `json:"hostname"`
	PID           int                  `json:"pid,omitempty"`
	Options       map[string]string    `json:"options,omitempty"`
	Devices       []DeviceRun          `json:"devices"`
	Verify        *VerifyResult        `json:"verify,omitempty"`
	// Summary is a one-line account for runs without device outcomes (a
	// probe verdict).
	Summary string `json:"summary,omitempty"`
	Result  string `json:"result"` // success, changes (drift found) or failure
	// Recovered says when and by which run an interrupted run's devices
	// were read back and settled.
	Recovered []Recovery `json:"recovered,omitempty"`
}

// Recovery is one later run settling devices an interrupted run left.
type Recovery struct {
	By      string    `json:"by"`
	At      time.Time `json:"at"`
	Devices []string  `json:"devices"`
}

// DeviceRun is one device's outcome and timings.
type DeviceRun struct {
	Device     string                `json:"device"`
	Kind       string                `json:"kind"`
	Platform   string                `json:"platform"`
	Transport  string                `json:"transport"`
	Address    string                `json:"address,omitempty"`
	Connection compliance.Connection `json:"connection"`
	Outcome    Outcome               `json:"outcome"`
	Reason     string                `json:"reason,omitempty"`
	Changes    int                   `json:"changes"`
	StartedAt  time.Time             `json:"startedAt"`
	DurationMS int64                 `json:"durationMs"`
	// Phase is how far the device got while the run was under way.
	Phase string `json:"phase,omitempty"`
	// Status is a drift run's compliance status of the device.
	Status string `json:"status,omitempty"`
	// Snapshot is the file holding the owned config before the push.
	Snapshot string `json:"snapshot,omitempty"`
	// Desired is the file holding the owned config the push was to make,
	// so an interrupted run can be told apart later: old, new or neither.
	Desired string `json:"desired,omitempty"`
	// Applied is the file holding the owned config read back after it.
	Applied string `json:"applied,omitempty"`
	// Found is what a later run read back on a device this run left
	// interrupted: new (the change is in effect), old (it is not) or
	// partial (restored to the snapshot), with Outcome settled to match.
	Found string `json:"found,omitempty"`
}

// VerifyResult records the probe verdict that confirmed or rolled back.
type VerifyResult struct {
	Passed  bool   `json:"passed"`
	Summary string `json:"summary"`
}

// Failed reports whether any device failed, was refused, rolled back or
// ended unknown.
func (r *RunReport) Failed() bool {
	for _, d := range r.Devices {
		switch d.Outcome {
		case OutcomeFailed, OutcomeRefused, OutcomeRolledBack, OutcomeUnknown, OutcomePending, OutcomeInProgress:
			return true
		}
	}
	return false
}

// Device returns the run's entry for a device, or nil.
func (r *RunReport) Device(name string) *DeviceRun {
	for i := range r.Devices {
		if r.Devices[i].Device == name {
			return &r.Devices[i]
		}
	}
	return nil
}

// finish records the end of the run and its result.
func (r *RunReport) finish(at time.Time) {
	r.FinishedAt = at.UTC()
	r.Status = StatusDone
	r.Result = "success"
	if r.Failed() {
		r.Result = "failure"
	}
}

// RunStore keeps run reports and snapshots under a state directory:
// runs/<id>/report.json and runs/<id>/snapshots/<device>.json.
type RunStore struct {
	Dir string
}

func (s RunStore) runDir(id string) string { return filepath.Join(s.Dir, "runs", id) }

// NewRunID is sortable by time and unique.
func NewRunID(now time.Time) string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	// Microseconds keep runs started within one second in order.
	return now.UTC().Format("20060102T150405.000000Z") + "-" + hex.EncodeToString(b[:])
}

// SaveSnapshot writes a device's owned config before a push.
func (s RunStore) SaveSnapshot(id, device string, cfg *devcfg.Config) (string, error) {
	return s.saveConfig(id, "snapshots", device, cfg)
}

// SaveApplied writes a device's owned config as read back after a push.
func (s RunStore) SaveApplied(id, device string, cfg *devcfg.Config) (string, error) {
	return s.saveConfig(id, "applied", device, cfg)
}

// LastApplied returns, per device, the owned config of its newest
// successful apply or rollback. The device's record in the state
// directory says which it is, read on every lookup, so a long-running
// agent sees runs other processes finished; a state directory from before
// device records is indexed from its reports once, on the first lookup.
func (s RunStore) LastApplied() func(device string) *devcfg.Config {
	var (
		once   sync.Once
		latest map[string]string
	)
	return func(device string) *devcfg.Config {
		if s.Dir == "" {
			return nil
		}
		if rec, err := s.DeviceRecord(device); err == nil && rec != nil {
			if rec.LastApplied == nil {
				return nil
			}
			if cfg, err := s.LoadSnapshot(rec.LastApplied.Path); err == nil {
				return cfg
			}
			// Its run was pruned: the newest run still kept tells.
		}
		// The history is read on the first lookup, not when the engine is
		// made: commands that never plan a switch never read it.
		once.Do(func() { latest = s.lastAppliedPaths() })
		path, ok := latest[device]
		if !ok {
			return nil
		}
		cfg, err := s.LoadSnapshot(path)
		if err != nil {
			return nil
		}
		return cfg
	}
}

// lastAppliedPaths maps each device to the config file of its newest
// successful apply or rollback.
func (s RunStore) lastAppliedPaths() map[string]string {
	type last struct {
		path string
		at   time.Time
	}
	latest := map[string]last{}
	ids, _ := s.List()
	for _, id := range ids {
		rep, err := s.LoadReport(id)
		if err != nil {
			continue
		}
		for _, d := range rep.Devices {
			if d.Outcome != OutcomeApplied || d.Applied == "" {
				continue
			}
			// The newest by time, not by ID: IDs only order runs to the
			// microsecond, and a clock may be pinned in tests.
			if cur, ok := latest[d.Device]; !ok || rep.FinishedAt.After(cur.at) {
				latest[d.Device] = last{d.Applied, rep.FinishedAt}
			}
		}
	}
	out := make(map[string]string, len(latest))
	for dev, l := range latest {
		out[dev] = l.path
	}
	return out
}

func (s RunStore) saveConfig(id, kind, device string, cfg *devcfg.Config) (string, error) {
	rel := filepath.Join("runs", id, kind, safeName(device)+".json")
	data, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return "", err
	}
	return filepath.Join(s.Dir, rel), safefile.WriteFile(s.Dir, rel, data, 0o600)
}

// SaveDesired writes the owned config a push is to make, before it starts.
func (s RunStore) SaveDesired(id, device string, cfg *devcfg.Config) (string, error) {
	return s.saveConfig(id, "desired", device, cfg)
}

// LoadSnapshot reads a snapshot back.
func (s RunStore) LoadSnapshot(path string) (*devcfg.Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var cfg devcfg.Config
	if err := json.Unmarshal(data, &cfg); err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", path, err)
	}
	return &cfg, nil
}

// SaveReport writes the run report.
func (s RunStore) SaveReport(r *RunReport) (string, error) {
	rel := filepath.Join("runs", r.ID, "report.json")
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return "", err
	}
	return filepath.Join(s.Dir, rel), safefile.WriteFile(s.Dir, rel, append(data, '\n'), 0o600)
}

// LoadReport reads a run report by ID.
func (s RunStore) LoadReport(id string) (*RunReport, error) {
	if strings.ContainsAny(id, `/\`) || id == "" || id == "." || id == ".." {
		return nil, fmt.Errorf("run ID %q is not valid", id)
	}
	data, err := os.ReadFile(filepath.Join(s.runDir(id), "report.json"))
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("run %s not found in %s", id, filepath.Join(s.Dir, "runs"))
		}
		return nil, err
	}
	var r RunReport
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	if r.SchemaVersion != RunSchema {
		return nil, fmt.Errorf("run %s: schema %q is not supported", id, r.SchemaVersion)
	}
	if r.Status == StatusRunning && !s.Alive(id) {
		r.Status = StatusInterrupted
	}
	return &r, nil
}

// List returns run IDs, newest first.
func (s RunStore) List() ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(s.Dir, "runs"))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			ids = append(ids, e.Name())
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(ids)))
	return ids, nil
}

func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ':' || r == 0 {
			return '_'
		}
		return r
	}, s)
}

// Actor is who runs rocefab, for the audit trail.
func Actor() (userName, host string) {
	if u, err := user.Current(); err == nil {
		userName = u.Username
	}
	if userName == "" {
		userName = os.Getenv("USER")
	}
	host, _ = os.Hostname()
	return userName, host
}
