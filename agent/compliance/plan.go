package compliance

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/validators/cabling"
)

// PlanSchema versions saved and JSON plans.
const PlanSchema = "rocefab.io/plan/v1"

// Status of one device in a plan or drift report.
type Status string

const (
	StatusNoChanges   Status = "no-changes" // plan: nothing to do
	StatusChanges     Status = "changes"    // plan: changes to apply
	StatusCompliant   Status = "compliant"  // drift: matches the intent
	StatusDrifted     Status = "drifted"    // drift: differs from the intent
	StatusConflict    Status = "conflict"   // another owner holds a singleton rocefab claims
	StatusUnreachable Status = "unreachable"
	StatusError       Status = "error"
)

// Plan is data only: what would change on each device, and the running
// state it was computed from, so apply can refuse a stale plan.
type Plan struct {
	SchemaVersion string       `json:"schemaVersion"`
	Kind          string       `json:"kind"` // "plan" or "drift"
	CreatedAt     time.Time    `json:"createdAt"`
	Intent        IntentRef    `json:"intent"`
	Devices       []DevicePlan `json:"devices"`
	Summary       Summary      `json:"summary"`
	// Cabling is the LLDP cabling check of the intent's links, when it
	// was asked for (plan and drift --cabling).
	Cabling *cabling.Report `json:"cabling,omitempty"`
}

// IntentRef says which intent a plan was made from.
type IntentRef struct {
	Fabric string   `json:"fabric"`
	Paths  []string `json:"paths"`
	// Commit is the git commit of the intent, when it lives in a repository.
	Commit string `json:"commit,omitempty"`
	Dirty  bool   `json:"dirty,omitempty"`
}

// DevicePlan is one device's part of a plan.
type DevicePlan struct {
	Device    string `json:"device"`
	Kind      string `json:"kind"` // "switch" or "host"
	Platform  string `json:"platform"`
	Transport string `json:"transport"`
	Address   string `json:"address,omitempty"`
	// Connection holds what apply needs to reach the device again without
	// the intent: credential references (never secrets), TLS paths, netns.
	Connection Connection `json:"connection"`

	Status    Status            `json:"status"`
	Changes   []devcfg.Change   `json:"changes,omitempty"`
	Conflicts []devcfg.Conflict `json:"conflicts,omitempty"`
	Notes     []string          `json:"notes,omitempty"`
	// Warnings are never hidden, even on a clean device: settings the
	// device cannot do, for example.
	Warnings []string `json:"warnings,omitempty"`
	Error    string   `json:"error,omitempty"`

	// Desired is the rendered owned configuration; apply verifies the
	// read-back against it. Its scope also covers what rocefab applied last
	// time and no longer renders, so that is removed, not orphaned.
	// Patch is exactly what apply pushes.
	Desired *devcfg.Config `json:"desired,omitempty"`
	// Rendered is the scope of the current intent alone: what apply records
	// as rocefab's for the next plan.
	Rendered *devcfg.Scope `json:"rendered,omitempty"`
	Patch    devcfg.Patch  `json:"patch"`
	// Fingerprint is the running owned config the plan was computed from.
	Fingerprint string `json:"fingerprint,omitempty"`
}

// Connection is how to reach a device, by reference.
type Connection struct {
	Username     string `json:"username,omitempty"`
	UsernameEnv  string `json:"usernameEnv,omitempty"`
	PasswordEnv  string `json:"passwordEnv,omitempty"`
	PasswordFile string `json:"passwordFile,omitempty"`
	CABundle     string `json:"caBundle,omitempty"`
	ClientCert   string `json:"clientCert,omitempty"`
	ClientKey    string `json:"clientKey,omitempty"`
	ServerName   string `json:"serverName,omitempty"`
	KnownHosts   string `json:"knownHosts,omitempty"`
	Netns        string `json:"netns,omitempty"`
}

// Disruptive reports whether any change is traffic-affecting.
func (d DevicePlan) Disruptive() bool {
	for _, c := range d.Changes {
		if c.Disruption == devcfg.TrafficAffecting {
			return true
		}
	}
	return false
}

// Summary counts devices and changes.
type Summary struct {
	Devices          int            `json:"devices"`
	ByStatus         map[Status]int `json:"byStatus"`
	Add              int            `json:"add"`
	Modify           int            `json:"modify"`
	Remove           int            `json:"remove"`
	TrafficAffecting int            `json:"trafficAffecting"`
}

// Summarise recomputes the summary from the devices.
func (p *Plan) Summarise() {
	s := Summary{Devices: len(p.Devices), ByStatus: map[Status]int{}}
	for _, d := range p.Devices {
		s.ByStatus[d.Status]++
		for _, c := range d.Changes {
			switch c.Action {
			case devcfg.Add:
				s.Add++
			case devcfg.Modify:
				s.Modify++
			case devcfg.Remove:
				s.Remove++
			}
			if c.Disruption == devcfg.TrafficAffecting {
				s.TrafficAffecting++
			}
		}
	}
	p.Summary = s
}

// HasChanges reports whether any device has changes or drift.
func (p *Plan) HasChanges() bool {
	return p.Summary.ByStatus[StatusChanges]+p.Summary.ByStatus[StatusDrifted] > 0
}

// HasFailures reports whether any device could not be planned or checked.
func (p *Plan) HasFailures() bool {
	return p.Summary.ByStatus[StatusError]+p.Summary.ByStatus[StatusUnreachable]+p.Summary.ByStatus[StatusConflict] > 0
}

// Miscabled reports whether the cabling check found a miscabled link:
// the settings planned for a port are for another peer than it has.
func (p *Plan) Miscabled() bool {
	return p.Cabling != nil && p.Cabling.Verdict == cabling.Fail
}

// Device returns the named device's plan.
func (p *Plan) Device(name string) (*DevicePlan, bool) {
	for i := range p.Devices {
		if p.Devices[i].Device == name {
			return &p.Devices[i], true
		}
	}
	return nil, false
}

// Save writes the plan as indented JSON (stable key order).
func (p *Plan) Save(path string) error {
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o600)
}

// LoadPlan reads a saved plan and checks its schema version.
func LoadPlan(path string) (*Plan, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var p Plan
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("%s: not a rocefab plan: %w", path, err)
	}
	if p.SchemaVersion != PlanSchema {
		return nil, fmt.Errorf("%s: plan schema %q is not supported (want %s)", path, p.SchemaVersion, PlanSchema)
	}
	return &p, nil
}

// IsPlanFile reports whether path holds a saved plan rather than intent.
func IsPlanFile(path string) bool {
	data, err := os.ReadFile(path)
	if err != nil || len(data) == 0 || data[0] != '{' {
		return false
	}
	var probe struct {
		SchemaVersion string `json:"schemaVersion"`
	}
	return json.Unmarshal(data, &probe) == nil && probe.SchemaVersion == PlanSchema
}
