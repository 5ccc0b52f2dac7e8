package cabling

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// statusOrder puts what needs a person first.
var statusOrder = []Status{Miscabled, Missing, Unexpected, Unread, Verified}

// Counts is the number of links of each status, worst first.
func (r *Report) Counts() string {
	s := r.Summary
	return fmt.Sprintf("%d miscabled, %d missing, %d unexpected, %d unread, %d verified",
		s.Miscabled, s.Missing, s.Unexpected, s.Unread, s.Verified)
}

// WriteText writes the report for a terminal: miscabled links first.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "rocefab cabling: %s\n", r.Headline())
	for _, l := range r.TextLines() {
		b.WriteString(l + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Headline is the verdict and the counts by status.
func (r *Report) Headline() string {
	return fmt.Sprintf("%s (%s)", strings.ToUpper(string(r.Verdict)), r.Counts())
}

// TextLines are the report's findings, miscabled first, then its notes,
// one line each: the body of WriteText, and of plan and drift --cabling.
func (r *Report) TextLines() []string {
	var out []string
	for _, st := range statusOrder {
		for _, f := range r.Findings {
			if f.Status == st {
				out = append(out, fmt.Sprintf("%-10s  %s: %s", strings.ToUpper(string(f.Status)), f.Link, f.Message))
			}
		}
	}
	for _, n := range r.Notes {
		out = append(out, "note: "+n)
	}
	return out
}

// WriteMarkdown writes the report as Markdown (for tickets and PRs).
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## rocefab cabling: %s\n\n%s.\n\n", strings.ToUpper(string(r.Verdict)), r.Counts())
	b.WriteString(r.MarkdownBody(-1, 3))
	_, err := io.WriteString(w, b.String())
	return err
}

// MarkdownBody is the findings table (miscabled first) and the notes,
// under a heading of level notesLevel (below the caller's own). With room
// >= 0 it stays within room characters: rows past it are left out and
// counted, what needs a person kept first.
func (r *Report) MarkdownBody(room, notesLevel int) string {
	var b strings.Builder
	if len(r.Findings) == 0 {
		b.WriteString("The intent has no links.\n")
	} else {
		b.WriteString("| Link | Status | Expected | Observed | Finding |\n|---|---|---|---|---|\n")
		var rows []string
		for _, st := range statusOrder {
			for _, f := range r.Findings {
				if f.Status == st {
					rows = append(rows, markdownRow(f))
				}
			}
		}
		const tail = 80 // the line counting left-out rows
		for i, row := range rows {
			if room >= 0 && b.Len()+len(row)+tail > room {
				fmt.Fprintf(&b, "\n%d more link(s) not shown.\n", len(rows)-i)
				break
			}
			b.WriteString(row)
		}
	}
	if len(r.Notes) > 0 {
		var notes strings.Builder
		fmt.Fprintf(&notes, "\n%s Notes\n\n", strings.Repeat("#", notesLevel))
		for _, n := range r.Notes {
			fmt.Fprintf(&notes, "- %s\n", md(n))
		}
		if room < 0 || b.Len()+notes.Len() <= room {
			b.WriteString(notes.String())
		}
	}
	return b.String()
}

func markdownRow(f Finding) string {
	status := string(f.Status)
	if f.Status == Miscabled {
		status = "**" + status + "**"
	}
	var obs []string
	for _, o := range f.Observed {
		obs = append(obs, "`"+md(o)+"`")
	}
	exp := ""
	if f.Expected != "" {
		exp = "`" + md(f.Expected) + "`"
	}
	return fmt.Sprintf("| `%s` | %s | %s | %s | %s |\n", md(f.Link), status, exp, strings.Join(obs, "<br>"), md(f.Message))
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

func md(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
