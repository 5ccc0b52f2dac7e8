package cabling

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// statusOrder puts what needs a person first.
var statusOrder = []Status{Miscabled, Missing, Unexpected, Unread, Verified}

func (r *Report) headline() string {
	s := r.Summary
	return fmt.Sprintf("%d miscabled, %d missing, %d unexpected, %d unread, %d verified",
		s.Miscabled, s.Missing, s.Unexpected, s.Unread, s.Verified)
}

// WriteText writes the report for a terminal: miscabled links first.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "rocefab cabling: %s (%s)\n", strings.ToUpper(string(r.Verdict)), r.headline())
	for _, st := range statusOrder {
		for _, f := range r.Findings {
			if f.Status == st {
				fmt.Fprintf(&b, "%-10s  %s: %s\n", strings.ToUpper(string(f.Status)), f.Link, f.Message)
			}
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes the report as Markdown (for tickets and PRs).
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## rocefab cabling: %s\n\n%s.\n\n", strings.ToUpper(string(r.Verdict)), r.headline())
	if len(r.Findings) == 0 {
		b.WriteString("The intent has no links.\n")
	} else {
		b.WriteString("| Link | Status | Expected | Observed | Finding |\n|---|---|---|---|---|\n")
		for _, st := range statusOrder {
			for _, f := range r.Findings {
				if f.Status != st {
					continue
				}
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
				fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", md(f.Link), status, exp, strings.Join(obs, "<br>"), md(f.Message))
			}
		}
	}
	if len(r.Notes) > 0 {
		b.WriteString("\n### Notes\n\n")
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "- %s\n", md(n))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

func md(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
