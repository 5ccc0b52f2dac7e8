package history

import (
	"time"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/finding"
	"github.com/rocefab/rocefab/validators/telemetry"
)

// RunSchema versions the JSON of a run.
const RunSchema = "rocefab.io/agent-run/v1"

// Kind is what a run did.
type Kind string

// Run kinds.
const (
	KindPlan   Kind = "plan"
	KindDrift  Kind = "drift"
	KindApply  Kind = "apply"
	KindProbe  Kind = "probe"
	KindReload Kind = "reload"
	// KindMesh is a probe mesh over every fabric link, localizing faults.
	KindMesh Kind = "mesh"
	// KindLossless is a round of the lossless counter detectors that
	// raised or cleared findings; a round that changes nothing is not
	// recorded.
	KindLossless Kind = "lossless"
)

// Kinds lists every kind, for metrics and validation.
var Kinds = []Kind{KindPlan, KindDrift, KindApply, KindProbe, KindReload, KindMesh, KindLossless}

// Trigger is why a run started.
type Trigger string

// Triggers.
const (
	TriggerSchedule Trigger = "schedule"
	TriggerCommit   Trigger = "commit"
	TriggerManual   Trigger = "manual"
)

// Result is how a run ended.
type Result string

// Results. Success: nothing to report. Changes: the plan has changes or
// devices drifted, nothing failed. Failure: a device could not be checked
// or pushed, the intent was invalid or the probe failed. Cancelled: the
// agent stopped during the run.
const (
	ResultSuccess   Result = "success"
	ResultChanges   Result = "changes"
	ResultFailure   Result = "failure"
	ResultCancelled Result = "cancelled"
	// ResultInterrupted: the agent died (killed, crashed) during the run;
	// it was recorded as running when it started.
	ResultInterrupted Result = "interrupted"
	// ResultRunning is written when a run starts and replaced when it ends.
	ResultRunning Result = "running"
)

// Results lists every result a finished run can have, for metrics.
var Results = []Result{ResultSuccess, ResultChanges, ResultFailure, ResultCancelled, ResultInterrupted}

// Run is one recorded run.
type Run struct {
	SchemaVersion string  `json:"schemaVersion"`
	ID            string  `json:"id"`
	Kind          Kind    `json:"kind"`
	Trigger       Trigger `json:"trigger"`
	Fabric        string  `json:"fabric,omitempty"`
	// Commit is the git commit of the intent (empty for a folder outside
	// git); Revision identifies the intent content in every case.
	Commit   string    `json:"commit,omitempty"`
	Revision string    `json:"revision,omitempty"`
	Shard    string    `json:"shard,omitempty"`
	Started  time.Time `json:"startedAt"`
	Finished time.Time `json:"finishedAt"`
	Result   Result    `json:"result"`
	// Error is why the run as a whole failed (invalid intent, cancelled,
	// a guardrail); device problems are in Devices.
	Error   string  `json:"error,omitempty"`
	Summary Summary `json:"summary"`

	Devices  []Device    `json:"devices,omitempty"`
	Findings []Finding   `json:"findings,omitempty"`
	Pairs    []ProbePair `json:"pairs,omitempty"`
	// Links is a mesh run's health of each fabric link direction.
	Links []LinkHealth `json:"links,omitempty"`
	// Lossless are the counter findings a lossless run raised or cleared,
	// or, in a probe run, those active while it ran.
	Lossless []LosslessFinding `json:"lossless,omitempty"`
}

// Lossless finding events.
const (
	LosslessRaised  = "raised"
	LosslessCleared = "cleared"
)

// LosslessFinding is a finding of the lossless counter detectors as a run
// records it, with the probe runs it is correlated with.
type LosslessFinding struct {
	// Event is raised or cleared in a lossless run, empty in a probe run.
	Event string `json:"event,omitempty"`
	telemetry.Finding
	// ProbeRuns (lossless runs) are the probe runs that ran while the
	// finding was active, oldest first.
	ProbeRuns []string `json:"probeRuns,omitempty"`
	// Pairs (probe runs) are the run's pairs whose path, as the cabling
	// allows it, crosses the finding's device.
	Pairs []telemetry.ProbePair `json:"pairs,omitempty"`
}

// Summary counts devices by status (plan/drift) or outcome (apply), and
// changes.
type Summary struct {
	Devices  int            `json:"devices"`
	ByStatus map[string]int `json:"byStatus,omitempty"`
	Changes  int            `json:"changes"`
	Findings int            `json:"findings,omitempty"`
}

// Device is one device's part of a run.
type Device struct {
	Device   string `json:"device"`
	Kind     string `json:"kind,omitempty"` // switch or host
	Platform string `json:"platform,omitempty"`
	// Status is the compliance status (plan/drift) or the apply outcome.
	Status    string            `json:"status"`
	Error     string            `json:"error,omitempty"`
	Changes   []devcfg.Change   `json:"changes,omitempty"`
	Conflicts []devcfg.Conflict `json:"conflicts,omitempty"`
}

// Finding is one validation diagnostic, probe or mesh finding: the shared
// finding shape, so runs, the API, webhooks, the status page and metrics
// read every source alike. Where is file:line:col and field for intent,
// the pair for the probe.
type Finding = finding.Finding

// ProbePair is one probed pair.
type ProbePair struct {
	From        string  `json:"from"`
	To          string  `json:"to"`
	Verdict     string  `json:"verdict"`
	Reachable   bool    `json:"reachable"`
	LossPercent float64 `json:"lossPercent"`
	// RTT in microseconds.
	RTTMeanMicros float64 `json:"rttMeanMicros"`
	RTTP99Micros  float64 `json:"rttP99Micros"`
	// RTTSamplesMicros, when the runner has them, feed the RTT histogram;
	// they are not stored.
	RTTSamplesMicros []float64 `json:"-"`
}

// Failed reports whether the run failed.
func (r *Run) Failed() bool { return r.Result == ResultFailure }

// Brief is the run without per-device details, as lists show it.
func (r *Run) Brief() Run {
	b := *r
	b.Devices, b.Findings, b.Pairs, b.Links, b.Lossless = nil, nil, nil, nil, nil
	return b
}

// DeviceState is the last known compliance state of a device.
type DeviceState struct {
	Device   string    `json:"device"`
	Platform string    `json:"platform,omitempty"`
	State    string    `json:"state"`
	Since    time.Time `json:"since"`
	Checked  time.Time `json:"checked"`
	RunID    string    `json:"runId"`
	Error    string    `json:"error,omitempty"`
	// Effect is the worst lossless effect of a drifted device's
	// differences (breaks, degrades, neutral), so a drift that turns
	// breaking is announced though the state stays "drifted".
	Effect string `json:"effect,omitempty"`
}

// Link health states.
const (
	LinkGood    = "good"
	LinkBad     = "bad"
	LinkUnknown = "unknown"
)

// LinkHealth is one fabric link in one direction, as a mesh run left it.
type LinkHealth struct {
	// Link names the cable by its ends as the intent lists them
	// ("leaf1 swp51 - spine1 swp1"); Direction is the way packets go
	// ("spine1 -> leaf1"). From and To are the ports, in that direction.
	Link      string `json:"link"`
	Direction string `json:"direction"`
	From      Port   `json:"from"`
	To        Port   `json:"to"`
	// State is good, bad (a fault was localized here) or unknown (no flow
	// crossed it, or the evidence could not tell it from others).
	State string `json:"state"`
	// Last is the last known state, good or bad ("" if never known): an
	// unknown run in between neither recovers nor re-announces a link.
	Last string `json:"last,omitempty"`
	// Since is when State last changed; Flows how many probe flows crossed
	// the link this way in the run.
	Since time.Time `json:"since"`
	Flows int       `json:"flows"`
	// Classes are the symptoms localized here (dscp_remarked, loss, ...);
	// Evidence is each finding's summary; Severity the worst of theirs.
	Classes  []string `json:"classes,omitempty"`
	Evidence []string `json:"evidence,omitempty"`
	Severity string   `json:"severity,omitempty"`
}

// Port is a device's port.
type Port struct {
	Device string `json:"device"`
	Port   string `json:"port"`
}
