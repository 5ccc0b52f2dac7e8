// Package finding is the one shape of a problem rocefab reports, whatever
// found it: intent lint, host/switch consistency, the doctor, the cabling
// check, probe verdicts, mesh localization, the lossless counter detectors
// and plans. Reports, the API, run history, webhooks, the status page and
// metrics read this type, so they treat every source alike.
//
// The package sits at the bottom of the house: it imports nothing else of
// rocefab, so every producer can use it.
package finding

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Code is a finding's stable identifier, e.g. "pfc_storm" or "R012".
// Codes are part of the report schema: never rename one.
type Code string

// Source names the producer of a finding; with Code it is unique.
type Source string

// Sources.
const (
	SourceLint        Source = "lint"
	SourceConsistency Source = "consistency"
	SourceDoctor      Source = "doctor"
	SourceCabling     Source = "cabling"
	SourceProbe       Source = "probe"
	SourceLocalize    Source = "localize"
	SourceTelemetry   Source = "telemetry"
	SourcePlan        Source = "plan"
)

// Severity is one ordered scale for every source. The zero value is not a
// severity: a producer must say which it means.
//
// How each source's own scale maps onto it:
//   - lint and the loader (intent.Severity): error → Error, warning → Warning
//   - consistency, probe, telemetry: the same words, info → Info
//   - doctor and plan statuses: fail → Error, warn → Warning, pass → Info
//   - cabling: miscabled → Error; missing, unexpected, unread → Warning;
//     verified → Info
//   - webhooks and mesh classes: critical (the lossless class is broken)
//     → Critical
type Severity uint8

// Severities, least first.
const (
	Info Severity = iota + 1
	Warning
	Error
	Critical
)

var severityNames = [...]string{Info: "info", Warning: "warning", Error: "error", Critical: "critical"}

// Severities lists every valid severity, least first.
var Severities = []Severity{Info, Warning, Error, Critical}

// Valid reports whether s is one of the severities.
func (s Severity) Valid() bool { return s >= Info && s <= Critical }

func (s Severity) String() string {
	if !s.Valid() {
		return "severity(" + strconv.Itoa(int(s)) + ")"
	}
	return severityNames[s]
}

// ParseSeverity reads a severity's name.
func ParseSeverity(name string) (Severity, error) {
	for _, s := range Severities {
		if severityNames[s] == name {
			return s, nil
		}
	}
	return 0, fmt.Errorf("unknown severity %q (want info, warning, error or critical)", name)
}

// MarshalText writes the severity's name; the zero value writes "" so an
// old record without one still round-trips.
func (s Severity) MarshalText() ([]byte, error) {
	if s == 0 {
		return []byte{}, nil
	}
	if !s.Valid() {
		return nil, fmt.Errorf("invalid severity %d", s)
	}
	return []byte(severityNames[s]), nil
}

// UnmarshalText reads what MarshalText writes.
func (s *Severity) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*s = 0
		return nil
	}
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Subject is what a finding is about. Only the fields that apply are set:
// a device and port (a host's NIC or RDMA device), at a priority; the
// device's peer across a cable; a probe pair and direction; a fabric
// link. The fields are plain strings so metrics can use them as labels.
type Subject struct {
	Device string `json:"device,omitempty"`
	Port   string `json:"port,omitempty"`
	// Priority is nil when the finding is about the whole port or device.
	Priority *int `json:"priority,omitempty"`
	// Peer and PeerPort are the other end of the cable (the switch port of
	// a host NIC).
	Peer     string `json:"peer,omitempty"`
	PeerPort string `json:"peerPort,omitempty"`
	// Pair is a probe pair, "from -> to"; Direction forward, reverse or
	// round trip.
	Pair      string `json:"pair,omitempty"`
	Direction string `json:"direction,omitempty"`
	// Link is a fabric link, "a:port -> b:port".
	Link string `json:"link,omitempty"`
}

// Prio returns a pointer to p, for Subject.Priority.
func Prio(p int) *int { return &p }

// IsZero reports whether the subject names nothing.
func (s Subject) IsZero() bool {
	return s.Device == "" && s.Port == "" && s.Priority == nil && s.Peer == "" && s.PeerPort == "" &&
		s.Pair == "" && s.Direction == "" && s.Link == ""
}

// PriorityLabel is the priority as a metric label: empty for none.
func (s Subject) PriorityLabel() string {
	if s.Priority == nil {
		return ""
	}
	return strconv.Itoa(*s.Priority)
}

// String names the subject for a person: "leaf1 Ethernet8 priority 3",
// "gpu01 mlx5_0 ↔ leaf1 Ethernet8", "gpu01 -> gpu02 forward".
func (s Subject) String() string {
	var parts []string
	add := func(v string) {
		if v != "" {
			parts = append(parts, v)
		}
	}
	add(s.Device)
	add(s.Port)
	if s.Priority != nil {
		parts = append(parts, "priority "+strconv.Itoa(*s.Priority))
	}
	if s.Peer != "" || s.PeerPort != "" {
		parts = append(parts, "↔")
		add(s.Peer)
		add(s.PeerPort)
	}
	add(s.Pair)
	add(s.Link)
	add(s.Direction)
	return strings.Join(parts, " ")
}

// Evidence is one thing a finding rests on: a measured number with its
// unit, or a text (what was measured, what was expected).
type Evidence struct {
	Name  string  `json:"name"`
	Value float64 `json:"value,omitempty"`
	Unit  string  `json:"unit,omitempty"`
	Text  string  `json:"text,omitempty"`
}

// Finding is one problem, in words a person can act on.
type Finding struct {
	Source   Source   `json:"source,omitempty"`
	Code     Code     `json:"code"`
	Severity Severity `json:"severity"`
	Subject  Subject  `json:"subject,omitzero"`
	Message  string   `json:"message"`
	// Where points at the cause: file:line:col and field for the intent,
	// device/step for a plan, the pair for the probe.
	Where    string     `json:"where,omitempty"`
	Evidence []Evidence `json:"evidence,omitempty"`
	// FirstSeen and LastSeen bound a condition that persists (counters).
	FirstSeen time.Time `json:"firstSeen,omitzero"`
	LastSeen  time.Time `json:"lastSeen,omitzero"`
}

// String is the one text form: "error [pfc_storm] leaf1 Ethernet8 priority
// 3: message".
func (f Finding) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s [%s]", f.Severity, f.Code)
	if s := f.Subject.String(); s != "" {
		b.WriteString(" " + s)
	} else if f.Where != "" {
		b.WriteString(" " + f.Where)
	}
	b.WriteString(": " + f.Message)
	return b.String()
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

// Labels are the finding's metric labels, the same for every source, in
// the order of LabelNames.
func (f Finding) Labels() []string {
	return []string{string(f.Source), string(f.Code), f.Severity.String(), f.Subject.Device, f.Subject.Port,
		f.Subject.PriorityLabel()}
}

// LabelNames name Labels.
var LabelNames = []string{"source", "code", "severity", "device", "port", "priority"}

// Compare orders findings worst first, then by source, subject, code and
// message, so reports list them the same way every time.
func Compare(a, b Finding) int {
	if c := cmp.Compare(b.Severity, a.Severity); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Source, b.Source); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Subject.String(), b.Subject.String()); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Where, b.Where); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Code, b.Code); c != 0 {
		return c
	}
	return cmp.Compare(a.Message, b.Message)
}

// Sort orders findings with Compare, stably.
func Sort(fs []Finding) { slices.SortStableFunc(fs, Compare) }

// AtLeast returns the findings of severity min or worse, in order.
func AtLeast(fs []Finding, min Severity) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Severity >= min {
			out = append(out, f)
		}
	}
	return out
}

// Max returns the worst severity of fs, zero when there are none.
func Max(fs []Finding) Severity {
	var m Severity
	for _, f := range fs {
		m = max(m, f.Severity)
	}
	return m
}

// Count returns how many findings there are of each severity.
func Count(fs []Finding) map[Severity]int {
	out := map[Severity]int{}
	for _, f := range fs {
		out[f.Severity]++
	}
	return out
}

// Check returns an error naming the first finding without a code or with
// an invalid severity: every producer's findings must pass it.
func Check(fs []Finding) error {
	for i, f := range fs {
		if f.Code == "" {
			return fmt.Errorf("finding %d (%s): no code", i, f.Message)
		}
		if !f.Severity.Valid() {
			return fmt.Errorf("finding %d [%s]: %s", i, f.Code, f.Severity)
		}
		if f.Message == "" {
			return fmt.Errorf("finding %d [%s]: no message", i, f.Code)
		}
	}
	return nil
}

// Finder is a producer's finding that can say itself in the one shape.
type Finder interface{ AsFinding() Finding }

// All converts a producer's findings to the one shape.
func All[T Finder](fs []T) []Finding {
	out := make([]Finding, 0, len(fs))
	for _, f := range fs {
		out = append(out, f.AsFinding())
	}
	return out
}
