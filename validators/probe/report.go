package probe

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	nic "github.com/rocefab/rocefab/validators/doctor/counters"
)

// SchemaVersion identifies the JSON report shape. Fields may be added within
// a version; renaming or removing one needs a new version.
const SchemaVersion = "rocefab.io/probe/v1"

// Report is the result of a probe run: one entry per pair, the findings,
// and the overall verdict.
type Report struct {
	SchemaVersion string       `json:"schemaVersion"`
	Verdict       Verdict      `json:"verdict"`
	Policy        ReportPolicy `json:"policy"`
	Pairs         []PairResult `json:"pairs"`
	Findings      []Finding    `json:"findings"`
	// HostCounters are the sending hosts' NIC counters around the run:
	// per-priority pause, discards and ECN marks, the RoCE hw_counters.
	HostCounters []nic.HostReport `json:"hostCounters,omitempty"`
}

// ReportPolicy is the part of the policy a reader needs to judge findings.
type ReportPolicy struct {
	Profile        Profile `json:"profile"`
	RoCEDSCP       uint8   `json:"roceDSCP"`
	CNPDSCP        uint8   `json:"cnpDSCP"`
	ECN            ECN     `json:"ecn"`
	HostMTU        int     `json:"hostMTU"`
	PKey           uint16  `json:"pKey"`
	MaxLossPercent float64 `json:"maxLossPercent"`
}

// NewReport evaluates every pair against pol and assembles the report.
func NewReport(pairs []PairResult, pol Policy) *Report {
	pol = pol.withDefaults()
	r := &Report{
		SchemaVersion: SchemaVersion, Verdict: VerdictPass,
		Policy: ReportPolicy{Profile: pol.Profile, RoCEDSCP: pol.RoCEDSCP, CNPDSCP: pol.CNPDSCP, ECN: pol.ECN,
			HostMTU: pol.HostMTU, PKey: pol.PKey, MaxLossPercent: pol.MaxLossPercent},
		Pairs: slices.Clone(pairs), Findings: []Finding{},
	}
	if r.Pairs == nil {
		r.Pairs = []PairResult{}
	}
	for i := range r.Pairs {
		p := &r.Pairs[i]
		normalize(&p.Measurements)
		fs := Evaluate(*p, pol)
		p.Verdict = VerdictPass
		for _, f := range fs {
			if f.Severity == SeverityError {
				p.Verdict, r.Verdict = VerdictFail, VerdictFail
			}
		}
		r.Findings = append(r.Findings, fs...)
	}
	return r
}

// normalize gives every map a value so the JSON shape does not depend on
// what was measured.
func normalize(m *Measurements) {
	for _, d := range []*Direction{&m.Direction, &m.Reverse} {
		if d.DSCPReceived == nil {
			d.DSCPReceived = map[uint8]int{}
		}
		if d.ECNReceived == nil {
			d.ECNReceived = map[ECN]int{}
		}
	}
}

// Pass reports whether every pair passed. The CLI exits 0 only then.
func (r *Report) Pass() bool { return r.Verdict == VerdictPass }

// FailedPairs counts pairs with a failing verdict.
func (r *Report) FailedPairs() int {
	n := 0
	for _, p := range r.Pairs {
		if p.Verdict == VerdictFail {
			n++
		}
	}
	return n
}

// WriteJSON writes the report as indented JSON (the --output json shape).
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// ReadReport decodes a JSON report and checks its schema version.
func ReadReport(rd io.Reader) (*Report, error) {
	var r Report
	if err := json.NewDecoder(rd).Decode(&r); err != nil {
		return nil, fmt.Errorf("probe report: %w", err)
	}
	if r.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("probe report schema %q, this build reads %q", r.SchemaVersion, SchemaVersion)
	}
	return &r, nil
}

// WriteText writes the report for a terminal.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	p := r.Policy
	fmt.Fprintf(&b, "rocefab probe: %s (%d of %d pairs failed; profile %s, DSCP %d, CNP DSCP %d, %s, MTU %d)\n",
		strings.ToUpper(string(r.Verdict)), r.FailedPairs(), len(r.Pairs), p.Profile, p.RoCEDSCP, p.CNPDSCP, p.ECN, p.HostMTU)
	for _, pr := range r.Pairs {
		m := pr.Measurements
		fmt.Fprintf(&b, "\n%s  %s\n", pr.Name(), strings.ToUpper(string(pr.Verdict)))
		if !m.Reachable {
			fmt.Fprintf(&b, "  unreachable: %s\n", m.Error)
			continue
		}
		t := m.RTT
		fmt.Fprintf(&b, "  rtt µs     p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  max %.1f  (%d samples, %s clock)\n",
			t.P50, t.P90, t.P99, t.P999, t.Max, t.Samples, orDash(t.Clock))
		writeDirText(&b, "forward", m.Direction, m.StatsExchanged)
		writeDirText(&b, "reverse", m.Reverse, true)
		fmt.Fprintf(&b, "  cnp        sent %d  received %d  dscp %d -> %s\n", m.CNPsSent, m.CNPsReceived, m.CNPDSCPSent, histOrDash(m.CNPDSCPReceived))
		if m.PathMTU > 0 || m.PathMTUReverse > 0 {
			fmt.Fprintf(&b, "  path mtu   forward %d  reverse %d  (intent %d)\n", m.PathMTU, m.PathMTUReverse, m.IntentMTU)
		}
		if m.MTUError != "" {
			fmt.Fprintf(&b, "  mtu sweep  %s\n", m.MTUError)
		}
	}
	if len(r.HostCounters) > 0 {
		b.WriteString("\nhost counters during the probe\n")
		for _, hc := range r.HostCounters {
			for _, line := range hostCounterLines(hc) {
				fmt.Fprintf(&b, "  %s\n", line)
			}
		}
	}
	if len(r.Findings) > 0 {
		b.WriteString("\nfindings\n")
		for _, f := range r.Findings {
			fmt.Fprintf(&b, "  %-7s  %-15s  %s  %s\n", strings.ToUpper(string(f.Severity)), f.Code, f.Pair, f.Message)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// hostCounterLines says what one host's NIC counters did: a header naming
// what was read, then one sentence per counter that moved.
func hostCounterLines(hc nic.HostReport) []string {
	if len(hc.Counters) == 0 && hc.Unavailable != "" {
		return []string{hc.Host + ": " + hc.Unavailable}
	}
	what := strings.Join(append(slices.Clone(hc.NICs), hc.Ports...), ", ")
	head := fmt.Sprintf("%s %s:", hc.Host, what)
	moved := hc.Moved()
	switch {
	case len(moved) == 0:
		head += fmt.Sprintf(" none of %d lossless counters moved", len(hc.Counters))
	default:
		head += fmt.Sprintf(" %d of %d counters moved", len(moved), len(hc.Counters))
	}
	lines := []string{head}
	if hc.Unavailable != "" {
		lines = append(lines, "  "+hc.Unavailable)
	}
	for _, c := range moved {
		lines = append(lines, "  "+c.Message(""))
	}
	for _, e := range hc.Errors {
		lines = append(lines, "  not read: "+e)
	}
	return lines
}

func writeDirText(b *strings.Builder, name string, d Direction, known bool) {
	if !known {
		fmt.Fprintf(b, "  %-9s  sent %d  replied %d  loss %s (round trip; responder statistics unavailable)\n", name, d.Sent, d.Received, pct(d.LossPercent))
		return
	}
	fmt.Fprintf(b, "  %-9s  sent %d  received %d  loss %s  reordered %d  duplicates %d  icrc errors %d\n",
		name, d.Sent, d.Received, pct(d.LossPercent), d.Reordered, d.Duplicates, d.ICRCErrors)
	fmt.Fprintf(b, "             dscp %d -> %s  ecn %s -> %s  CE %s\n",
		d.DSCPSent, histOrDash(d.DSCPReceived), d.ECNSent, histOrDash(d.ECNReceived), pct(100*d.CEFraction))
}

func histOrDash[K ~uint8](h map[K]int) string {
	if len(h) == 0 {
		return "-"
	}
	return histString(h)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// WriteMarkdown writes the report as Markdown (for tickets and PRs).
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	p := r.Policy
	fmt.Fprintf(&b, "## rocefab probe: %s\n\n", strings.ToUpper(string(r.Verdict)))
	fmt.Fprintf(&b, "%d of %d pairs failed. Profile `%s`, RoCE DSCP %d, CNP DSCP %d, %s, host MTU %d.\n\n",
		r.FailedPairs(), len(r.Pairs), p.Profile, p.RoCEDSCP, p.CNPDSCP, p.ECN, p.HostMTU)
	b.WriteString("| Pair | Verdict | RTT p50 / p99 µs | Loss fwd / rev | DSCP fwd / rev | ECN fwd / rev | CE | CNPs | Path MTU fwd / rev |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, pr := range r.Pairs {
		m := pr.Measurements
		if !m.Reachable {
			fmt.Fprintf(&b, "| %s | **%s** | unreachable | | | | | | |\n", mdEscape(pr.Name()), pr.Verdict)
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %.1f / %.1f | %s / %s | %s / %s | %s / %s | %s | %d | %d / %d |\n",
			mdEscape(pr.Name()), verdictMD(pr.Verdict), m.RTT.P50, m.RTT.P99,
			pct(m.LossPercent), pct(m.Reverse.LossPercent),
			histOrDash(m.DSCPReceived), histOrDash(m.Reverse.DSCPReceived),
			histOrDash(m.ECNReceived), histOrDash(m.Reverse.ECNReceived),
			pct(100*max(m.CEFraction, m.Reverse.CEFraction)), m.CNPsReceived, m.PathMTU, m.PathMTUReverse)
	}
	if len(r.HostCounters) > 0 {
		b.WriteString("\n### Host counters during the probe\n\n")
		for _, hc := range r.HostCounters {
			for i, line := range hostCounterLines(hc) {
				if i == 0 {
					fmt.Fprintf(&b, "- %s\n", mdEscape(line))
				} else {
					fmt.Fprintf(&b, "  - %s\n", mdEscape(strings.TrimSpace(line)))
				}
			}
		}
	}
	if len(r.Findings) > 0 {
		b.WriteString("\n### Findings\n\n| Severity | Code | Pair | Finding | Measured | Expected |\n|---|---|---|---|---|---|\n")
		for _, f := range r.Findings {
			fmt.Fprintf(&b, "| %s | `%s` | %s | %s | %s | %s |\n", f.Severity, f.Code, mdEscape(f.Pair),
				mdEscape(f.Message), mdEscape(f.Measurement), mdEscape(f.Expected))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func verdictMD(v Verdict) string {
	if v == VerdictFail {
		return "**fail**"
	}
	return "pass"
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
