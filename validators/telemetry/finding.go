package telemetry

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rocefab/rocefab/finding"
	"github.com/rocefab/rocefab/intent"
)

// Code is a finding's stable identifier, the shared finding code. Codes
// are part of the report schema: never rename one.
type Code = finding.Code

// Finding codes.
const (
	CodePFCStorm         Code = "pfc_storm"
	CodePausePropagation Code = "pause_propagation"
	CodeLosslessDrop     Code = "lossless_drop"
	CodeCNPDrop          Code = "cnp_drop"
	CodeECNWithoutCNP    Code = "ecn_without_cnp"
	CodeCNPIgnored       Code = "cnp_ignored"
	CodeWrongQueue       Code = "wrong_queue"
	CodeRetransmits      Code = "retransmits"
)

// Codes lists every code, in the order docs/telemetry.md describes them.
var Codes = []Code{CodePFCStorm, CodePausePropagation, CodeLosslessDrop, CodeCNPDrop,
	CodeECNWithoutCNP, CodeCNPIgnored, CodeWrongQueue, CodeRetransmits}

// Severity ranks a finding, with the same words as the probe's and the
// intent's diagnostics.
type Severity string

// Severities.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

func (s Severity) rank() int {
	if s == SeverityError {
		return 2
	}
	return 1
}

// NoPriority marks a subject that is a whole port or device.
const NoPriority = -1

// Subject is what a finding is about: a switch port or host NIC (by
// netdev), at a priority, or a whole device.
type Subject struct {
	Device   string
	Port     string
	Priority int // NoPriority when the finding is about the whole port
}

func (s Subject) String() string {
	var b strings.Builder
	b.WriteString(s.Device)
	if s.Port != "" {
		b.WriteString(" " + s.Port)
	}
	if s.Priority != NoPriority {
		b.WriteString(" priority " + strconv.Itoa(s.Priority))
	}
	return b.String()
}

type subjectJSON struct {
	Device   string `json:"device"`
	Port     string `json:"port,omitempty"`
	Priority *int   `json:"priority,omitempty"`
}

// MarshalJSON leaves out an empty port and NoPriority.
func (s Subject) MarshalJSON() ([]byte, error) {
	j := subjectJSON{Device: s.Device, Port: s.Port}
	if s.Priority != NoPriority {
		p := s.Priority
		j.Priority = &p
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (s *Subject) UnmarshalJSON(b []byte) error {
	var j subjectJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*s = Subject{Device: j.Device, Port: j.Port, Priority: NoPriority}
	if j.Priority != nil {
		s.Priority = *j.Priority
	}
	return nil
}

// Evidence is one measured number a finding rests on.
type Evidence struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit,omitempty"`
}

// Finding is one lossless problem seen in the counters. It has the shape
// the project's other findings share (code, severity, subject, message,
// where), plus the evidence and when it was seen. A condition that
// persists is one finding: LastSeen and Rounds move on, FirstSeen stays.
type Finding struct {
	Code     Code     `json:"code"`
	Severity Severity `json:"severity"`
	Subject  Subject  `json:"subject"`
	// Message says what was measured, with the numbers, in words a person
	// can act on.
	Message string `json:"message"`
	// Where is the intent line that declares the subject.
	Where    intent.Loc `json:"where"`
	Evidence []Evidence `json:"evidence"`
	// Related are the other ports involved, e.g. the hops of a spreading
	// pause from the source outward.
	Related []Subject `json:"related,omitempty"`
	// FirstSeen is the start of the first interval that showed the
	// condition; LastSeen the end of the latest. Cleared is set once the
	// condition has been absent for the code's clear time.
	FirstSeen time.Time `json:"firstSeen"`
	LastSeen  time.Time `json:"lastSeen"`
	Cleared   time.Time `json:"cleared,omitzero"`
	// Rounds is how many sample rounds showed the condition.
	Rounds int `json:"rounds"`
}

// Finding maps the severity onto the shared scale (the same words).
func (s Severity) Finding() finding.Severity {
	if s == SeverityError {
		return finding.Error
	}
	return finding.Warning
}

// Finding is the subject in the shared shape.
func (s Subject) Finding() finding.Subject {
	out := finding.Subject{Device: s.Device, Port: s.Port}
	if s.Priority != NoPriority {
		out.Priority = finding.Prio(s.Priority)
	}
	return out
}

// AsFinding is the finding in the shared shape (source telemetry): the
// evidence numbers carry over, the related ports become evidence texts.
func (f Finding) AsFinding() finding.Finding {
	out := finding.Finding{Source: finding.SourceTelemetry, Code: f.Code, Severity: f.Severity.Finding(),
		Subject: f.Subject.Finding(), Message: f.Message, FirstSeen: f.FirstSeen, LastSeen: f.LastSeen}
	if f.Where.Line > 0 {
		out.Where = f.Where.String()
	}
	for _, e := range f.Evidence {
		out.Evidence = append(out.Evidence, finding.Evidence{Name: e.Name, Value: e.Value, Unit: e.Unit})
	}
	for _, r := range f.Related {
		out.Evidence = append(out.Evidence, finding.Evidence{Name: "related", Text: r.String()})
	}
	return out
}

func (f Finding) String() string {
	return fmt.Sprintf("%s [%s] %s: %s", f.Severity, f.Code, f.Subject, f.Message)
}

// Value returns the named evidence value.
func (f Finding) Value(name string) (float64, bool) {
	for _, e := range f.Evidence {
		if e.Name == name {
			return e.Value, true
		}
	}
	return 0, false
}

func sortFindings(fs []Finding) {
	sort.Slice(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Subject.Device != b.Subject.Device {
			return a.Subject.Device < b.Subject.Device
		}
		if a.Subject.Port != b.Subject.Port {
			return a.Subject.Port < b.Subject.Port
		}
		if a.Subject.Priority != b.Subject.Priority {
			return a.Subject.Priority < b.Subject.Priority
		}
		return a.Code < b.Code
	})
}

// count prints n with thousands separators: 1204 → "1,204".
func count(n uint64) string {
	s := strconv.FormatUint(n, 10)
	if len(s) <= 3 {
		return s
	}
	var b strings.Builder
	head := len(s) % 3
	b.WriteString(s[:head])
	for i := head; i < len(s); i += 3 {
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s[i : i+3])
	}
	return b.String()
}

// pct prints a fraction as a whole percentage.
func pct(f float64) string { return strconv.Itoa(int(f*100+0.5)) + "%" }

// secs prints a duration in seconds to a tenth, without a trailing ".0".
func secs(d time.Duration) string {
	return strings.TrimSuffix(strconv.FormatFloat(d.Round(100*time.Millisecond).Seconds(), 'f', 1, 64), ".0") + "s"
}
