package hostcontract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/devcfg"
)

// SchemaVersion is written into every answer. The major version changes only
// when a field is removed or changes meaning; fields are added freely, and a
// reader ignores fields it does not know. A minor suffix ("v1.2") may mark
// additive revisions and is accepted by every v1 reader.
const (
	SchemaPrefix  = "rocefab.io/host/"
	SchemaMajor   = 1
	SchemaVersion = "rocefab.io/host/v1"
)

// Kind says what an answer carries.
type Kind string

const (
	KindHostPlan  Kind = "host-plan"  // rocefab host plan --output json
	KindHostApply Kind = "host-apply" // rocefab host apply --output json
	KindDoctor    Kind = "doctor"     // rocefab doctor --host NAME --output json
	KindProbe     Kind = "probe"      // rocefab probe run ... --output json
)

// Errors a decoder returns; wrapped with the detail.
var (
	// ErrNotAnswer: the bytes are not a rocefab host answer at all.
	ErrNotAnswer = errors.New("not a rocefab host answer")
	// ErrSchemaVersion: the answer uses a major version this rocefab does not read.
	ErrSchemaVersion = errors.New("unsupported host answer schema version")
	// ErrKind: the answer is of another kind than expected.
	ErrKind = errors.New("unexpected host answer kind")
)

// Envelope starts every answer. Other answer types embed it.
type Envelope struct {
	SchemaVersion string `json:"schemaVersion"`
	Kind          Kind   `json:"kind"`
	// Host is the intent name of the host that answered.
	Host string `json:"host"`
	// RocefabVersion is the version of the rocefab binary on the host.
	RocefabVersion string `json:"rocefabVersion,omitempty"`
	// Error is set when the command failed before producing its body (bad
	// intent, unknown host); the body may then be empty.
	Error string `json:"error,omitempty"`
}

// NewEnvelope starts an answer of the current schema version.
func NewEnvelope(kind Kind, host string) Envelope {
	return Envelope{SchemaVersion: SchemaVersion, Kind: kind, Host: host}
}

// Status is the outcome of one host setting.
type Status string

const (
	// StatusOK: the setting already had the wanted value.
	StatusOK Status = "ok"
	// StatusChanged: apply changed the setting and read it back.
	StatusChanged Status = "changed"
	// StatusPending: plan found a difference that apply would change.
	StatusPending Status = "pending"
	// StatusUnsupported: the device, driver or kernel has no such setting
	// (EOPNOTSUPP, a missing sysfs node). Never counted as ok.
	StatusUnsupported Status = "unsupported on this device"
	// StatusFailed: reading or writing the setting failed.
	StatusFailed Status = "failed"
	// StatusRolledBack: apply changed it, then restored the earlier value
	// because a later setting failed.
	StatusRolledBack Status = "rolled back"
	// StatusSkipped: apply stopped before reaching this setting.
	StatusSkipped Status = "skipped"
)

// Setting is one managed value on one NIC.
type Setting struct {
	// NIC is the netdev the setting belongs to.
	NIC string `json:"nic"`
	// Path is the setting's key in devcfg.HostSettings.Paths, e.g.
	// "nic/ens1f0np0/pfc/enable".
	Path string `json:"path"`
	// Name is a short human name, e.g. "PFC enable".
	Name string `json:"name"`
	// Mechanism is how it is set: netlink, dcbnl, sysfs, configfs, ethtool.
	Mechanism string `json:"mechanism"`
	Want      string `json:"want"`
	// Current is the value before apply (or now, for plan); empty when it
	// could not be read.
	Current string `json:"current,omitempty"`
	Status  Status `json:"status"`
	// Message explains unsupported, failed and rolled-back settings, with
	// the device's or kernel's own words.
	Message string `json:"message,omitempty"`
}

// Summary counts settings by status.
type Summary struct {
	OK          int `json:"ok"`
	Changed     int `json:"changed"`
	Pending     int `json:"pending"`
	Unsupported int `json:"unsupported"`
	Failed      int `json:"failed"`
	RolledBack  int `json:"rolledBack"`
	Skipped     int `json:"skipped"`
}

// Summarise counts the statuses.
func Summarise(settings []Setting) Summary {
	var s Summary
	for _, st := range settings {
		switch st.Status {
		case StatusOK:
			s.OK++
		case StatusChanged:
			s.Changed++
		case StatusPending:
			s.Pending++
		case StatusUnsupported:
			s.Unsupported++
		case StatusFailed:
			s.Failed++
		case StatusRolledBack:
			s.RolledBack++
		case StatusSkipped:
			s.Skipped++
		}
	}
	return s
}

// AppHint is an environment setting RDMA applications should use so their
// traffic lands in the lossless class, e.g. NCCL_IB_TC=106.
type AppHint struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	// NIC is set when the hint is per NIC (GID index).
	NIC string `json:"nic,omitempty"`
	Why string `json:"why"`
}

// HostReport is the answer of host plan and host apply.
type HostReport struct {
	Envelope
	// Desired is what the intent asks for on this host.
	Desired *devcfg.HostSettings `json:"desired,omitempty"`
	// Observed is what the host reported, read back after apply (or before,
	// for plan). Settings that could not be read are left out.
	Observed *devcfg.HostSettings `json:"observed,omitempty"`
	Settings []Setting            `json:"settings"`
	Summary  Summary              `json:"summary"`
	// Applications are the NCCL/UCX settings for RDMA applications.
	Applications []AppHint `json:"applications,omitempty"`
	// RolledBack is set when apply failed and restored the earlier values.
	RolledBack bool     `json:"rolledBack,omitempty"`
	Notes      []string `json:"notes,omitempty"`
}

// Changes lists what a plan would change (pending settings) or an apply
// changed, as devcfg changes for the fleet plan. MTU, PFC, pause, trust and
// DCBX changes are traffic-affecting: the NIC relinks or reprograms its
// queues.
func (r *HostReport) Changes() []devcfg.Change {
	var out []devcfg.Change
	for _, s := range r.Settings {
		if s.Status != StatusPending && s.Status != StatusChanged {
			continue
		}
		c := devcfg.Change{Action: devcfg.Modify, Path: s.Path, Old: s.Current, New: s.Want}
		if s.Current == "" || s.Current == "absent" || strings.HasPrefix(s.Current, "not set") {
			c.Action, c.Old = devcfg.Add, ""
		}
		for _, k := range []struct{ key, why string }{
			{"/mtu", "an MTU change relinks the NIC and drops frames in flight"},
			{"/pfc/", "a PFC change reprograms the NIC's priority queues"},
			{"/pause", "changing 802.3x pause renegotiates flow control on the link"},
			{"/trust", "a trust change reclassifies all traffic of the NIC"},
			{"/dcbx", "a DCBX mode change hands DCB to another agent"},
		} {
			if strings.Contains(s.Path, k.key) {
				c.Disruption, c.Reason = devcfg.TrafficAffecting, k.why
				break
			}
		}
		out = append(out, c)
	}
	return out
}

// Failed reports whether any setting failed or was rolled back, or the
// command itself failed.
func (r *HostReport) Failed() bool {
	return r.Error != "" || r.Summary.Failed > 0 || r.Summary.RolledBack > 0 || r.RolledBack
}

// Encode writes an answer as indented JSON with a final newline. It fills
// the schema version if the caller left it empty.
func Encode(v any) ([]byte, error) {
	if e := envelopeOf(v); e != nil && e.SchemaVersion == "" {
		e.SchemaVersion = SchemaVersion
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Header returns the envelope; answer types that embed Envelope get it too,
// so Encode can fill their schema version.
func (e *Envelope) Header() *Envelope { return e }

func envelopeOf(v any) *Envelope {
	if h, ok := v.(interface{ Header() *Envelope }); ok {
		return h.Header()
	}
	return nil
}

// Peek reads only the envelope and checks the schema version, so a caller
// can dispatch on Kind.
func Peek(data []byte) (Envelope, error) {
	var e Envelope
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return e, fmt.Errorf("%w: output does not start with a JSON object: %q", ErrNotAnswer, excerpt(trimmed))
	}
	if err := json.Unmarshal(trimmed, &e); err != nil {
		return e, fmt.Errorf("%w: %v", ErrNotAnswer, err)
	}
	if e.SchemaVersion == "" {
		return e, fmt.Errorf("%w: no schemaVersion field", ErrNotAnswer)
	}
	major, err := parseMajor(e.SchemaVersion)
	if err != nil {
		return e, err
	}
	if major != SchemaMajor {
		return e, fmt.Errorf("%w: host answered %s, this rocefab reads v%d: install the same rocefab release on the host and here",
			ErrSchemaVersion, e.SchemaVersion, SchemaMajor)
	}
	return e, nil
}

// Decode checks the envelope (version, and kind when want is not empty)
// and decodes the whole answer into v.
func Decode(data []byte, want Kind, v any) error {
	e, err := Peek(data)
	if err != nil {
		return err
	}
	if want != "" && e.Kind != want {
		return fmt.Errorf("%w: got %q, want %q", ErrKind, e.Kind, want)
	}
	if err := json.Unmarshal(bytes.TrimSpace(data), v); err != nil {
		return fmt.Errorf("%w: %s answer: %v", ErrNotAnswer, e.Kind, err)
	}
	return nil
}

// DecodeHostReport decodes a host plan or host apply answer.
func DecodeHostReport(data []byte, want Kind) (*HostReport, error) {
	var r HostReport
	if err := Decode(data, want, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// parseMajor reads the major version of "rocefab.io/host/v1" or "…/v1.3".
func parseMajor(v string) (int, error) {
	rest, ok := strings.CutPrefix(v, SchemaPrefix)
	if !ok || !strings.HasPrefix(rest, "v") {
		return 0, fmt.Errorf("%w: schemaVersion %q is not %sv<major>", ErrSchemaVersion, v, SchemaPrefix)
	}
	num, _, _ := strings.Cut(rest[1:], ".")
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%w: schemaVersion %q has no major number", ErrSchemaVersion, v)
	}
	return n, nil
}

func excerpt(b []byte) string {
	const max = 120
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}
