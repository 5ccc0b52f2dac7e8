package daemon

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/agent/daemon/history"
	"github.com/rocefab/rocefab/finding"
)

// The status page is one server-rendered HTML document with its style
// inline: no scripts, fonts or images from anywhere, so it works on an
// air-gapped management network and under a strict CSP.

//go:embed statuspage/status.html
var statusPageFS embed.FS

var statusPageTmpl = template.Must(template.New("status.html").Funcs(template.FuncMap{
	"when": func(t time.Time) string {
		if t.IsZero() {
			return "—"
		}
		return t.UTC().Format("2006-01-02 15:04:05Z")
	},
	"took": func(r history.Run) string {
		if r.Finished.IsZero() || r.Started.IsZero() {
			return "—"
		}
		return r.Finished.Sub(r.Started).Round(time.Millisecond).String()
	},
	"resultClass": resultClass,
}).ParseFS(statusPageFS, "statuspage/status.html"))

// Limits keep the page small on a large fabric; the API has the rest.
const (
	pageRuns           = 20
	pageChangesPerDev  = 50
	pageProbeHostsMost = 64
)

// statusCSP allows only the inline style block: the page needs nothing
// else, and a device name that slipped past escaping could not run.
const statusCSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

type pageData struct {
	Generated time.Time
	Status    Status
	Devices   []pageDevice
	Probe     *pageProbe
	Findings  []pageFinding
	Runs      []history.Run
	// Problems are reads of the history that failed: the page says so
	// rather than showing a partial picture as whole.
	Problems []string
}

type pageDevice struct {
	history.DeviceState
	Class   string // CSS class of the state, from a fixed set
	Changes []pageChange
	More    int // changes not shown
}

type pageChange struct {
	Symbol, Where, Old, New, Effect, Class string
}

type pageProbe struct {
	Run   history.Run
	Hosts []string
	Rows  []pageRow
	More  int // hosts beyond the matrix's size
	// Lossless are the counter findings active while it ran (Source is
	// the pairs whose path crosses the finding's device).
	Lossless []pageFinding
}

type pageRow struct {
	From  string
	Cells []pageCell
}

type pageCell struct {
	Class, Text, Title string
}

type pageFinding struct {
	Source, Code, Severity, Where, Message, Class string
}

// stateClass maps a compliance state to its colour; an unknown state is
// shown as unknown.
func stateClass(s string) string {
	switch compliance.Status(s) {
	case compliance.StatusCompliant:
		return "ok"
	case compliance.StatusDrifted:
		return "warn"
	case compliance.StatusUnreachable, compliance.StatusError, compliance.StatusConflict:
		return "bad"
	}
	return "unknown"
}

func resultClass(r history.Result) string {
	switch r {
	case history.ResultSuccess:
		return "ok"
	case history.ResultChanges:
		return "warn"
	case history.ResultFailure, history.ResultInterrupted:
		return "bad"
	}
	return "unknown"
}

// pageFindingOf is the one way a finding of any source reaches the page.
func pageFindingOf(source string, f finding.Finding) pageFinding {
	where := f.Subject.String()
	if where == "" || f.Source == finding.SourceProbe || f.Source == finding.SourceLocalize {
		where = f.Where
	}
	return pageFinding{Source: source, Code: string(f.Code), Severity: f.Severity.String(), Where: where,
		Message: f.Message, Class: severityClass(f.Severity.String())}
}

func severityClass(s string) string {
	switch s {
	case "error", "critical":
		return "bad"
	case "warning":
		return "warn"
	}
	return "unknown"
}

// statusPageData gathers the page from the status, the history and the
// last probe run.
func (a *Agent) statusPageData() pageData {
	d := pageData{Generated: a.now().UTC(), Status: a.CurrentStatus()}
	runs := map[string]*history.Run{} // drift runs read once for all their devices
	getRun := func(id string) (*history.Run, error) {
		if r, ok := runs[id]; ok {
			return r, nil
		}
		r, err := a.db.Get(id)
		if err == nil {
			runs[id] = r
		}
		return r, err
	}
	for _, st := range d.Status.Devices {
		pd := pageDevice{DeviceState: st, Class: stateClass(st.State)}
		if compliance.Status(st.State) == compliance.StatusDrifted && st.RunID != "" {
			run, err := getRun(st.RunID)
			if err != nil {
				d.Problems = append(d.Problems, fmt.Sprintf("drift run %s of %s: %v", st.RunID, st.Device, err))
			} else {
				pd.Changes, pd.More = deviceChanges(run, st.Device)
			}
		}
		d.Devices = append(d.Devices, pd)
	}
	for _, f := range a.activeLossless() {
		d.Findings = append(d.Findings, pageFindingOf("counters since "+f.FirstSeen.UTC().Format("2006-01-02 15:04:05Z"), f.AsFinding()))
	}
	if brief, ok := d.Status.LastRuns[history.KindProbe]; ok && brief != nil {
		run, err := getRun(brief.ID)
		if err != nil {
			d.Problems = append(d.Problems, fmt.Sprintf("probe run %s: %v", brief.ID, err))
		} else {
			d.Probe = probeMatrix(run)
			for _, lf := range run.Lossless {
				var pairs []string
				for _, p := range lf.Pairs {
					pairs = append(pairs, p.From+" → "+p.To)
				}
				d.Probe.Lossless = append(d.Probe.Lossless, pageFindingOf(strings.Join(pairs, ", "), lf.AsFinding()))
			}
			for _, f := range run.Findings {
				d.Findings = append(d.Findings, pageFindingOf("probe "+run.ID, f))
			}
		}
	}
	page, err := a.db.List(history.Query{Limit: pageRuns})
	if err != nil {
		d.Problems = append(d.Problems, "recent runs: "+err.Error())
	}
	d.Runs = page.Runs
	return d
}

// deviceChanges are a device's differences in a drift run.
func deviceChanges(run *history.Run, device string) ([]pageChange, int) {
	for _, dev := range run.Devices {
		if dev.Device != device {
			continue
		}
		var out []pageChange
		for i, c := range dev.Changes {
			if i == pageChangesPerDev {
				return out, len(dev.Changes) - i
			}
			out = append(out, pageChange{Symbol: c.Action.Symbol(), Where: c.Where(), Old: c.Old, New: c.New,
				Effect: string(c.Effect), Class: effectClass(string(c.Effect))})
		}
		return out, 0
	}
	return nil, 0
}

func effectClass(e string) string {
	switch e {
	case "breaks":
		return "bad"
	case "degrades":
		return "warn"
	}
	return ""
}

// probeMatrix lays a probe run's pairs out as a from × to grid.
func probeMatrix(run *history.Run) *pageProbe {
	p := &pageProbe{Run: run.Brief()}
	seen := map[string]bool{}
	cell := map[[2]string]history.ProbePair{}
	for _, pr := range run.Pairs {
		seen[pr.From], seen[pr.To] = true, true
		cell[[2]string{pr.From, pr.To}] = pr
	}
	for h := range seen {
		p.Hosts = append(p.Hosts, h)
	}
	sort.Strings(p.Hosts)
	if len(p.Hosts) > pageProbeHostsMost {
		p.More = len(p.Hosts) - pageProbeHostsMost
		p.Hosts = p.Hosts[:pageProbeHostsMost]
	}
	for _, from := range p.Hosts {
		row := pageRow{From: from}
		for _, to := range p.Hosts {
			pr, ok := cell[[2]string{from, to}]
			switch {
			case from == to:
				row.Cells = append(row.Cells, pageCell{Class: "self"})
			case !ok:
				row.Cells = append(row.Cells, pageCell{Class: "none", Text: "·", Title: from + " → " + to + ": not probed"})
			case !pr.Reachable:
				row.Cells = append(row.Cells, pageCell{Class: "bad", Text: "✗", Title: from + " → " + to + ": unreachable"})
			default:
				class := "ok"
				if pr.Verdict != VerdictPass {
					class = "bad"
				} else if pr.LossPercent > 0 {
					class = "warn"
				}
				text := strconv.FormatFloat(pr.RTTP99Micros, 'f', 0, 64) + "µs"
				if pr.LossPercent > 0 {
					text = strconv.FormatFloat(pr.LossPercent, 'g', 3, 64) + "% loss"
				}
				row.Cells = append(row.Cells, pageCell{Class: class, Text: text,
					Title: fmt.Sprintf("%s → %s: %s, loss %g %%, RTT mean %.1f µs, p99 %.1f µs", from, to, pr.Verdict,
						pr.LossPercent, pr.RTTMeanMicros, pr.RTTP99Micros)})
			}
		}
		p.Rows = append(p.Rows, row)
	}
	return p
}

// statusPage serves GET /status. It renders into a buffer first, so a
// template error is a 500 and not half a page.
func (a *Agent) statusPage(w http.ResponseWriter, _ *http.Request) {
	var b bytes.Buffer
	if err := statusPageTmpl.Execute(&b, a.statusPageData()); err != nil {
		writeError(w, http.StatusInternalServerError, "status page: "+err.Error())
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", statusCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	_, _ = w.Write(b.Bytes())
}
