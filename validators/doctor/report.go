package doctor

import (
	"fmt"
	"io"
	"strings"

	"github.com/rocefab/rocefab/drivers/hostcontract"
	"github.com/rocefab/rocefab/finding"
	"github.com/rocefab/rocefab/validators/doctor/counters"
	"github.com/rocefab/rocefab/validators/doctor/rdmasys"
)

// Status is the outcome of one check.
type Status string

const (
	Pass Status = "pass"
	Warn Status = "warn"
	Fail Status = "fail"
)

func (s Status) rank() int {
	switch s {
	case Fail:
		return 2
	case Warn:
		return 1
	}
	return 0
}

// Check IDs, stable for JSON consumers.
const (
	CheckDevices   = "rdma.devices"
	CheckNIC       = "rdma.nic"
	CheckPortState = "rdma.port-state"
	CheckLinkLayer = "rdma.link-layer"
	CheckGID       = "rdma.gid"
	CheckMTU       = "link.mtu"
	CheckRoCEMTU   = "link.roce-mtu"
	CheckPause     = "link.pause"
	CheckNUMA      = "pci.numa"
	CheckPCIe      = "pci.link"
	CheckModules   = "kernel.modules"
	CheckTools     = "userspace.tools"
	CheckCounters  = "counters"
)

// Result is one check on one subject (a port, a device, the host).
type Result struct {
	Check   string `json:"check"`
	Subject string `json:"subject,omitempty"`
	Status  Status `json:"status"`
	Message string `json:"message"`
	Fix     string `json:"fix,omitempty"`
}

// Finding maps a status onto the shared scale: fail is an error, warn a
// warning, pass info.
func (s Status) Finding() finding.Severity {
	switch s {
	case Fail:
		return finding.Error
	case Warn:
		return finding.Warning
	}
	return finding.Info
}

// AsFinding is the result in the shared shape (source doctor), on host:
// the check is the code, its subject (a port or RDMA device) the port,
// the fix evidence.
func (r Result) AsFinding(host string) finding.Finding {
	out := finding.Finding{Source: finding.SourceDoctor, Code: finding.Code(r.Check), Severity: r.Status.Finding(),
		Subject: finding.Subject{Device: host, Port: r.Subject}, Message: r.Message}
	if r.Fix != "" {
		out.Evidence = []finding.Evidence{{Name: "fix", Text: r.Fix}}
	}
	return out
}

// Findings are the report's failed and warned checks in the shared shape;
// passes are left out, as they are no problem.
func (r *Report) Findings() []finding.Finding {
	var out []finding.Finding
	for _, c := range r.Checks {
		if c.Status != Pass {
			out = append(out, c.AsFinding(r.Host))
		}
	}
	return out
}

// Summary counts results.
type Summary struct {
	Pass int `json:"pass"`
	Warn int `json:"warn"`
	Fail int `json:"fail"`
}

// Report is one host's doctor answer. It embeds the host contract envelope
// (schemaVersion rocefab.io/host/v1, kind "doctor"), so `doctor --output
// json` on a host is what the central rocefab decodes with
// hostcontract.Decode(data, hostcontract.KindDoctor, &report).
type Report struct {
	hostcontract.Envelope
	Verdict Status           `json:"verdict"`
	Summary Summary          `json:"summary"`
	Checks  []Result         `json:"checks"`
	Devices []rdmasys.Device `json:"devices"`
	// Counters are the deltas over --counters-for, when asked.
	Counters *counters.Delta `json:"counters,omitempty"`
}

// NewReport starts an empty report for host.
func NewReport(host string) *Report {
	return &Report{Envelope: hostcontract.NewEnvelope(hostcontract.KindDoctor, host), Verdict: Pass,
		Checks: []Result{}, Devices: []rdmasys.Device{}}
}

// Add records a result and updates the verdict.
func (r *Report) Add(res Result) {
	r.Checks = append(r.Checks, res)
	switch res.Status {
	case Pass:
		r.Summary.Pass++
	case Warn:
		r.Summary.Warn++
	case Fail:
		r.Summary.Fail++
	}
	if res.Status.rank() > r.Verdict.rank() {
		r.Verdict = res.Status
	}
}

// Failed reports whether any check failed or the doctor itself could not run.
func (r *Report) Failed() bool { return r.Verdict == Fail || r.Error != "" }

// Find returns the results of one check.
func (r *Report) Find(check string) []Result {
	var out []Result
	for _, c := range r.Checks {
		if c.Check == check {
			out = append(out, c)
		}
	}
	return out
}

// WriteText prints the report for a person: failures first, then
// warnings, then passes, each failure and warning with its fix.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "rocefab doctor: %s: %s (%d failed, %d warnings, %d passed)\n",
		r.Host, strings.ToUpper(string(r.Verdict)), r.Summary.Fail, r.Summary.Warn, r.Summary.Pass)
	if r.Error != "" {
		fmt.Fprintf(&b, "error: %s\n", r.Error)
	}
	for _, st := range []Status{Fail, Warn, Pass} {
		for _, c := range r.Checks {
			if c.Status != st {
				continue
			}
			subject := ""
			if c.Subject != "" {
				subject = c.Subject + ": "
			}
			fmt.Fprintf(&b, "%-4s  %-16s %s%s\n", strings.ToUpper(string(c.Status)), c.Check, subject, c.Message)
			if c.Fix != "" && c.Status != Pass {
				fmt.Fprintf(&b, "      %-16s fix: %s\n", "", c.Fix)
			}
		}
	}
	if r.Counters != nil {
		msgs := r.Counters.Messages("")
		if len(msgs) == 0 {
			fmt.Fprintf(&b, "counters: no pause, ECN, CNP or error counter moved in %s\n", r.Counters.To.Sub(r.Counters.From).Round(1e6))
		}
		for _, m := range msgs {
			fmt.Fprintf(&b, "counter   %s\n", m)
		}
		for _, e := range r.Counters.Errors {
			fmt.Fprintf(&b, "counter   not read: %s\n", e)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
