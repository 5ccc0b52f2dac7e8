package mesh

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/rocefab/rocefab/validators/localize"
	"github.com/rocefab/rocefab/validators/probe"
	"github.com/rocefab/rocefab/validators/probe/path"
)

// SchemaVersion identifies the JSON shape of a mesh report. Fields may be
// added within a version; renaming or removing one needs a new version.
const SchemaVersion = "rocefab.io/probe-mesh/v1"

// Report is one mesh run: the plan, every flow and its path, and where the
// faults are.
type Report struct {
	SchemaVersion string        `json:"schemaVersion"`
	Verdict       probe.Verdict `json:"verdict"`
	Fabric        string        `json:"fabric"`
	Plan          PlanSummary   `json:"plan"`
	Flows         []FlowReport  `json:"flows"`
	// PartlyUnknown lists the flows whose path has hops that did not
	// answer (or answered from addresses the intent does not list).
	PartlyUnknown []string `json:"partlyUnknownPaths,omitempty"`
	// PathChanges lists flows whose path differs from the one learned
	// before (re-learned this run).
	PathChanges  []string        `json:"pathChanges,omitempty"`
	Localization localize.Result `json:"localization"`
	Notes        []string        `json:"notes"`
}

// PlanSummary is the plan as a reader needs it.
type PlanSummary struct {
	Config      PlanConfig `json:"config"`
	Flows       int        `json:"flows"`
	SameLeaf    int        `json:"sameLeaf"`
	CrossLeaf   int        `json:"crossLeaf"`
	PeakHostPPS float64    `json:"peakHostPps"`
	Coverage    []Coverage `json:"coverage"`
	Short       []Coverage `json:"short,omitempty"`
	// Traced candidate flows in TraceRounds rounds, to learn their paths.
	Traced      int `json:"traced"`
	TraceRounds int `json:"traceRounds"`
}

func (s *PlanSummary) fill(pl *Plan) {
	s.Config, s.Flows, s.PeakHostPPS, s.Coverage, s.Short = pl.Config, len(pl.Flows), pl.PeakHostPPS, pl.Coverage, pl.Short
	for _, f := range pl.Flows {
		if f.Leaf != "" {
			s.SameLeaf++
		} else {
			s.CrossLeaf++
		}
	}
}

// FlowReport is one flow: its path and what it saw.
type FlowReport struct {
	ID      string `json:"id"`
	From    string `json:"from"`
	To      string `json:"to"`
	SrcPort uint16 `json:"srcPort"`
	// Path shows the devices; Steps the hops in full.
	Path     string      `json:"path"`
	Steps    []path.Step `json:"steps"`
	Complete bool        `json:"complete"`
	// FromCache: this run's trace was missing, the path is the one learned
	// before. NewPath: the plan had not seen this path.
	FromCache bool `json:"fromCache,omitempty"`
	NewPath   bool `json:"newPath,omitempty"`
	// Symptoms are the classes this flow showed end to end.
	Symptoms []string         `json:"symptoms,omitempty"`
	Result   probe.FlowResult `json:"result"`
}

func newFlowReport(f Flow, res probe.FlowResult, p path.Path, fromCache bool) FlowReport {
	return FlowReport{ID: f.ID, From: f.From, To: f.To, SrcPort: f.SrcPort, Path: p.String(), Steps: p.Steps, Complete: p.Complete(),
		FromCache: fromCache, Result: res}
}

// finish sets the verdict and the notes.
func (r *Report) finish() {
	r.Verdict = probe.VerdictPass
	if r.Localization.Verdict != localize.VerdictClean {
		r.Verdict = probe.VerdictFail
	}
	failed := 0
	for _, f := range r.Flows {
		if f.Result.Error != "" || f.Result.Measured == nil {
			failed++
		}
	}
	if failed > 0 {
		r.Verdict = probe.VerdictFail
		r.Notes = append(r.Notes, fmt.Sprintf("%d of %d flows could not be probed (see their errors)", failed, len(r.Flows)))
	}
	for _, c := range r.Plan.Short {
		r.Notes = append(r.Notes, fmt.Sprintf("%s carries %d known probe flows, fewer than %d: its paths could not be learned, or the ECMP hash picked it for too few of the %d source ports tried",
			c.Link, c.Flows, r.Plan.Config.FlowsPerLink, r.Plan.Config.Candidates))
	}
	if len(r.Plan.Short) > 0 {
		// A link the mesh could not put flows on is not proven.
		r.Verdict = probe.VerdictFail
	}
}

// Pass reports whether the mesh found nothing.
func (r *Report) Pass() bool { return r.Verdict == probe.VerdictPass }

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// ReadReport decodes a JSON mesh report and checks its schema version.
func ReadReport(rd io.Reader) (*Report, error) {
	var r Report
	if err := json.NewDecoder(rd).Decode(&r); err != nil {
		return nil, fmt.Errorf("mesh report: %w", err)
	}
	if r.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("mesh report schema %q, this build reads %q", r.SchemaVersion, SchemaVersion)
	}
	return &r, nil
}

func (r *Report) headline() string {
	p := r.Plan
	return fmt.Sprintf("%d flows (%d within leaves, %d across), at least %d per fabric link and direction, %s interval, peak %.0f of %d pps per host",
		p.Flows, p.SameLeaf, p.CrossLeaf, p.Config.FlowsPerLink, p.Config.Interval, p.PeakHostPPS, p.Config.HostPPS)
}

// WriteText writes the report for a terminal: the plan, the localization,
// and the flows that showed something or could not be probed.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "rocefab probe mesh: %s (%s)\n", strings.ToUpper(string(r.Verdict)), r.headline())
	b.WriteString("\nfabric links (flows each way)\n")
	for _, c := range r.Plan.Coverage {
		fmt.Fprintf(&b, "  %-40s %d\n", c.Link, c.Flows)
	}
	b.WriteString("\n")
	if err := r.Localization.WriteText(&b); err != nil {
		return err
	}
	var odd []FlowReport
	for _, f := range r.Flows {
		if len(f.Symptoms) > 0 || f.Result.Error != "" || f.Result.Measured == nil || !f.Complete {
			odd = append(odd, f)
		}
	}
	if len(odd) > 0 {
		b.WriteString("\nflows with symptoms, errors or unknown hops\n")
		for _, f := range odd {
			fmt.Fprintf(&b, "  %-28s %s\n", f.ID, f.Path)
			if s := flowLine(f); s != "" {
				fmt.Fprintf(&b, "  %-28s %s\n", "", s)
			}
		}
	}
	if len(r.PartlyUnknown) > 0 {
		b.WriteString("\npaths partly unknown\n")
		for _, s := range r.PartlyUnknown {
			fmt.Fprintf(&b, "  %s\n", s)
		}
	}
	if len(r.PathChanges) > 0 {
		b.WriteString("\npaths changed since last learned\n")
		for _, s := range r.PathChanges {
			fmt.Fprintf(&b, "  %s\n", s)
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// flowLine sums up what a flow measured.
func flowLine(f FlowReport) string {
	res := f.Result
	if res.Error != "" {
		return "error: " + res.Error
	}
	m := res.Measured
	if m == nil {
		return "not measured"
	}
	if !m.Reachable {
		return "unreachable: " + m.Error
	}
	parts := []string{fmt.Sprintf("sent %d received %d", m.Sent, m.Received),
		"dscp " + hist(m.DSCPReceived), "ecn " + hist(m.ECNReceived)}
	if m.CEMarked > 0 {
		parts = append(parts, fmt.Sprintf("CE %d", m.CEMarked))
	}
	if res.MTU != nil {
		parts = append(parts, fmt.Sprintf("%d-byte packets %d of %d", res.MTU.Size, res.MTU.Received, res.MTU.Sent))
	}
	if len(f.Symptoms) > 0 {
		parts = append(parts, "symptoms "+strings.Join(f.Symptoms, ","))
	}
	return strings.Join(parts, "  ")
}

func hist[K ~uint8](h map[K]int) string {
	if len(h) == 0 {
		return "-"
	}
	var parts []string
	for k := range 256 {
		if n, ok := h[K(k)]; ok {
			if s, isStr := any(K(k)).(fmt.Stringer); isStr {
				parts = append(parts, fmt.Sprintf("%s×%d", s, n))
			} else {
				parts = append(parts, fmt.Sprintf("%d×%d", k, n))
			}
		}
	}
	return strings.Join(parts, " ")
}

// WriteMarkdown writes the report as Markdown (for tickets and PRs).
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## rocefab probe mesh: %s\n\n%s.\n\n", strings.ToUpper(string(r.Verdict)), r.headline())
	if err := r.Localization.WriteMarkdown(&b); err != nil {
		return err
	}
	b.WriteString("\n### Fabric links\n\n| Link | Flows |\n|---|---|\n")
	for _, c := range r.Plan.Coverage {
		fmt.Fprintf(&b, "| `%s` | %d |\n", c.Link, c.Flows)
	}
	var odd []FlowReport
	for _, f := range r.Flows {
		if len(f.Symptoms) > 0 || f.Result.Error != "" || f.Result.Measured == nil || !f.Complete {
			odd = append(odd, f)
		}
	}
	if len(odd) > 0 {
		b.WriteString("\n### Flows with symptoms, errors or unknown hops\n\n| Flow | Path | Measured |\n|---|---|---|\n")
		for _, f := range odd {
			fmt.Fprintf(&b, "| `%s` | %s | %s |\n", f.ID, mdEscape(f.Path), mdEscape(flowLine(f)))
		}
	}
	for _, sec := range []struct {
		title string
		lines []string
	}{{"Paths partly unknown", r.PartlyUnknown}, {"Paths changed since last learned", r.PathChanges}, {"Notes", r.Notes}} {
		if len(sec.lines) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n### %s\n\n", sec.title)
		for _, l := range sec.lines {
			fmt.Fprintf(&b, "- %s\n", mdEscape(l))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
