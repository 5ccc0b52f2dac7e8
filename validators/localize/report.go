package localize

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// WriteText writes the findings for a terminal.
func (r Result) WriteText(w io.Writer) error {
	var b strings.Builder
	switch r.Verdict {
	case VerdictClean:
		b.WriteString("localization: clean (no flow showed a symptom)\n")
	default:
		fmt.Fprintf(&b, "localization: %s\n", strings.ToUpper(string(r.Verdict)))
	}
	for _, f := range r.Findings {
		fmt.Fprintf(&b, "  %-12s  %-13s  %s\n", strings.ToUpper(string(f.Status)), f.Class, f.Summary)
		for _, d := range f.Details {
			fmt.Fprintf(&b, "  %-12s  %-13s    %s\n", "", "", d)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes the findings as a Markdown section.
func (r Result) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### Localization: %s\n\n", r.Verdict)
	if len(r.Findings) == 0 {
		b.WriteString("No flow showed a symptom.\n")
	} else {
		b.WriteString("| Status | Class | Element | Finding | Evidence |\n|---|---|---|---|---|\n")
		for _, f := range r.Findings {
			el := ""
			switch {
			case f.Element != nil && f.Both:
				el = "`" + bothName(*f.Element) + "`"
			case f.Element != nil:
				el = "`" + f.Element.String() + "`"
			default:
				var names []string
				for _, c := range f.Candidates {
					names = append(names, "`"+c.String()+"`")
				}
				el = strings.Join(names, " or ")
			}
			status := string(f.Status)
			if f.Status == Localized {
				status = "**" + status + "**"
			}
			fmt.Fprintf(&b, "| %s | `%s` | %s | %s | %s |\n", status, f.Class, md(el), md(f.Summary), md(strings.Join(f.Details, "; ")))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes the result as indented JSON.
func (r Result) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

func md(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
