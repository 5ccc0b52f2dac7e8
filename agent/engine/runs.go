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

	"github.com/rocefab/rocefab/internal/safefile"
	"github.com/rocefab/rocefab/renderers/devcfg"
	"github.com/rocefab/rocefab/validators/compliance"
)

// RunSchema versions run reports.
const RunSchema = "rocefab.io/run/v1"

// Outcome of one device in an apply or rollback.
type Outcome string

const (
	OutcomeApplied    Outcome = "applied"
	OutcomeNoChanges  Outcome = "no-changes"
	OutcomeRefused    Outcome = "refused"     // conflict, stale plan, disruptive without the flag
	OutcomeFailed     Outcome = "failed"      // push failed; the device is unchanged
	OutcomeRolledBack Outcome = "rolled-back" // pushed, then undone (read-back or verify failed)
	OutcomeSkipped    Outcome = "skipped"     // not attempted (stop on failure, canary failed)
)

// RunReport is the audit record of one apply or rollback.
type RunReport struct {
	SchemaVersion string               `json:"schemaVersion"`
	ID            string               `json:"id"`
	Kind          string               `json:"kind"` // apply or rollback
	RollbackOf    string               `json:"rollbackOf,omitempty"`
	StartedAt     time.Time            `json:"startedAt"`
	FinishedAt    time.Time            `json:"finishedAt"`
	Intent        compliance.IntentRef `json:"intent"`
	User          string               `json:"user"`
	Hostname      string               `json:"hostname"`
	Options       map[string]string    `json:"options,omitempty"`
	Devices       []DeviceRun          `json:"devices"`
	Verify        *VerifyResult        `json:"verify,omitempty"`
	Result        string               `json:"result"` // success or failure
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
	// Snapshot is the file holding the owned config before the push.
	Snapshot string `json:"snapshot,omitempty"`
	// Applied is the file holding the owned config read back after it.
	Applied string `json:"applied,omitempty"`
}

// VerifyResult records the probe verdict that confirmed or rolled back.
type VerifyResult struct {
	Passed  bool   `json:"passed"`
	Summary string `json:"summary"`
}

// Failed reports whether any device failed, was refused or rolled back.
func (r *RunReport) Failed() bool {
	for _, d := range r.Devices {
		switch d.Outcome {
		case OutcomeFailed, OutcomeRefused, OutcomeRolledBack:
			return true
		}
	}
	return false
}

// finish records the end of the run and its result.
func (r *RunReport) finish(at time.Time) {
	r.FinishedAt = at.UTC()
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

// LastApplied indexes, per device, the config of its newest successful
// apply, read lazily.
func (s RunStore) LastApplied() func(device string) *devcfg.Config {
	// The history is read on the first lookup, not when the engine is made:
	// commands that never plan a switch (probe, rollback) never read it.
	var (
		once   sync.Once
		latest map[string]string
	)
	return func(device string) *devcfg.Config {
		once.Do(func() { latest = s.lastAppliedPaths() })
		p, ok := latest[device]
		if !ok {
			return nil
		}
		cfg, err := s.LoadSnapshot(p)
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
		if e.IsDir() {
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
