package compliance

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/renderers/devcfg"
)

// WriteJSON writes the plan as indented JSON. Saved plans use the same form.
func WriteJSON(w io.Writer, p *Plan) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(p)
}

// WriteText writes the plan for a terminal: +/-/~ per device and a summary.
func WriteText(w io.Writer, p *Plan) error {
	b := &strings.Builder{}
	title := "Plan"
	if p.Kind == "drift" {
		title = "Drift"
	}
	fmt.Fprintf(b, "%s for fabric %s%s\n", title, orDash(p.Intent.Fabric), commitNote(p.Intent))
	if p.Kind == "drift" {
		b.WriteString("Changes read as running -> intent.\n")
	}
	b.WriteByte('\n')
	endsBlank := true // one blank line before the summary, never two
	for _, d := range p.Devices {
		fmt.Fprintf(b, "%s (%s): %s\n", d.Device, deviceWhat(d), deviceHeadline(d))
		endsBlank = false
		for _, c := range d.Conflicts {
			fmt.Fprintf(b, "  ! %s\n", c)
		}
		for _, w := range d.Warnings {
			fmt.Fprintf(b, "  warning: %s\n", w)
		}
		for _, c := range d.Changes {
			writeChange(b, "  ", c)
		}
		if len(d.Changes) > 0 || len(d.Conflicts) > 0 {
			// Notes explain changes; on a clean device they are noise.
			for _, n := range d.Notes {
				fmt.Fprintf(b, "  note: %s\n", n)
			}
			b.WriteByte('\n')
			endsBlank = true
		}
	}
	if !endsBlank {
		b.WriteByte('\n')
	}
	fmt.Fprintf(b, "%s\n", summaryLine(p))
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes the plan as a pull-request comment, one collapsible
// section per device with changes.
func WriteMarkdown(w io.Writer, p *Plan) error {
	b := &strings.Builder{}
	title := "rocefab plan"
	if p.Kind == "drift" {
		title = "rocefab drift"
	}
	fmt.Fprintf(b, "### %s: `%s`%s\n\n", title, orDash(p.Intent.Fabric), commitNote(p.Intent))
	fmt.Fprintf(b, "%s\n\n", summaryLine(p))
	b.WriteString("| device | platform | status | add | change | remove | traffic-affecting |\n")
	b.WriteString("|---|---|---|---:|---:|---:|---:|\n")
	for _, d := range p.Devices {
		add, mod, rem, dis := counts(d.Changes)
		fmt.Fprintf(b, "| %s | %s | %s | %d | %d | %d | %d |\n", d.Device, d.Platform, statusLabel(d), add, mod, rem, dis)
	}
	for _, d := range p.Devices {
		if len(d.Changes) == 0 && len(d.Conflicts) == 0 && len(d.Warnings) == 0 && d.Error == "" {
			continue
		}
		fmt.Fprintf(b, "\n<details><summary><b>%s</b> (%s): %s</summary>\n\n", d.Device, deviceWhat(d), deviceHeadline(d))
		if d.Error != "" {
			fmt.Fprintf(b, "> %s\n\n", d.Error)
		}
		for _, c := range d.Conflicts {
			fmt.Fprintf(b, "- :warning: %s\n", c)
		}
		for _, w := range d.Warnings {
			fmt.Fprintf(b, "- warning: %s\n", w)
		}
		if len(d.Changes) > 0 {
			b.WriteString("```diff\n")
			for _, c := range d.Changes {
				writeDiffLines(b, c)
			}
			b.WriteString("```\n")
			for _, c := range d.Changes {
				if c.Disruption == devcfg.TrafficAffecting {
					fmt.Fprintf(b, "- traffic-affecting: `%s`", c.Where())
					if c.Reason != "" {
						fmt.Fprintf(b, " (%s)", c.Reason)
					}
					b.WriteByte('\n')
				}
			}
		}
		for _, n := range d.Notes {
			fmt.Fprintf(b, "\n_note: %s_\n", n)
		}
		b.WriteString("\n</details>\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeChange(b *strings.Builder, indent string, c devcfg.Change) {
	where := c.Where()
	tag := ""
	if c.Disruption == devcfg.TrafficAffecting {
		tag = "   [traffic-affecting"
		if c.Reason != "" {
			tag += ": " + c.Reason
		}
		tag += "]"
	}
	switch c.Action {
	case devcfg.Modify:
		if len(c.Parents) > 0 {
			// Tree lines carry their own key: "mtu 1500 -> mtu 9216".
			fmt.Fprintf(b, "%s~ %s > %s -> %s%s\n", indent, strings.Join(c.Parents, " > "), c.Old, c.New, tag)
		} else if c.Old == c.Path || strings.HasPrefix(c.Old, c.Path) {
			fmt.Fprintf(b, "%s~ %s -> %s%s\n", indent, c.Old, c.New, tag)
		} else {
			fmt.Fprintf(b, "%s~ %s: %s -> %s%s\n", indent, c.Path, valueText(c.Old), valueText(c.New), tag)
		}
	case devcfg.Add:
		fmt.Fprintf(b, "%s+ %s%s%s\n", indent, where, pathValue(c, c.New), tag)
		writeBlock(b, indent+"    ", c.Block)
	case devcfg.Remove:
		fmt.Fprintf(b, "%s- %s%s%s\n", indent, where, pathValue(c, c.Old), tag)
		writeBlock(b, indent+"    ", c.Block)
	}
}

// pathValue shows " = value" for path changes; tree lines carry their value.
func pathValue(c devcfg.Change, v string) string {
	if v == "" || v == c.Path || len(c.Parents) > 0 {
		return ""
	}
	return " = " + valueText(v)
}

func valueText(v string) string {
	if strings.HasPrefix(v, `"`) || strings.HasPrefix(v, "{") || strings.HasPrefix(v, "[") {
		v = devcfg.Value(v).Text()
	}
	if strings.ContainsAny(v, "\n\r") {
		// A multi-line value (a CLI fallback block) stays on its change's
		// line, so +/-/~ lines and diff blocks keep one change per line.
		return strconv.Quote(v)
	}
	return v
}

func writeBlock(b *strings.Builder, indent string, nodes []*devcfg.Node) {
	for _, n := range nodes {
		fmt.Fprintf(b, "%s%s\n", indent, n.Line)
		writeBlock(b, indent+"  ", n.Children)
	}
}

func writeDiffLines(b *strings.Builder, c devcfg.Change) {
	switch c.Action {
	case devcfg.Modify:
		fmt.Fprintf(b, "- %s\n+ %s\n", locate(c, c.Old), locate(c, c.New))
	case devcfg.Add:
		fmt.Fprintf(b, "+ %s\n", locate(c, c.New))
		writeBlockDiff(b, "+ ", "    ", c.Block)
	case devcfg.Remove:
		fmt.Fprintf(b, "- %s\n", locate(c, c.Old))
		writeBlockDiff(b, "- ", "    ", c.Block)
	}
}

func locate(c devcfg.Change, v string) string {
	if len(c.Parents) > 0 {
		return strings.Join(c.Parents, " > ") + " > " + valueText(v)
	}
	if v == c.Path || v == "" {
		return c.Path
	}
	return c.Path + " = " + valueText(v)
}

func writeBlockDiff(b *strings.Builder, sign, indent string, nodes []*devcfg.Node) {
	for _, n := range nodes {
		fmt.Fprintf(b, "%s%s%s\n", sign, indent, n.Line)
		writeBlockDiff(b, sign, indent+"  ", n.Children)
	}
}

func deviceWhat(d DevicePlan) string {
	parts := []string{}
	if d.Kind == "host" {
		parts = append(parts, "host")
	} else if d.Platform != "" {
		parts = append(parts, d.Platform)
	}
	if d.Transport != "" {
		parts = append(parts, "via "+d.Transport)
	}
	if d.Address != "" {
		parts = append(parts, d.Address)
	}
	return strings.Join(parts, " ")
}

func deviceHeadline(d DevicePlan) string {
	add, mod, rem, dis := counts(d.Changes)
	switch d.Status {
	case StatusNoChanges:
		return "no changes"
	case StatusCompliant:
		return "compliant"
	case StatusConflict:
		return "CONFLICT: owned by other config; apply refuses this device until it is resolved"
	case StatusUnreachable:
		return "UNREACHABLE: " + d.Error
	case StatusError:
		return "ERROR: " + d.Error
	}
	s := fmt.Sprintf("%d to add, %d to change, %d to remove", add, mod, rem)
	if d.Status == StatusDrifted {
		s = fmt.Sprintf("DRIFTED: %d missing, %d changed, %d unexpected", add, mod, rem)
	}
	if dis > 0 {
		s += fmt.Sprintf(" (%d traffic-affecting)", dis)
	}
	return s
}

func statusLabel(d DevicePlan) string {
	if d.Status == StatusChanges && d.Disruptive() {
		return "changes (traffic-affecting)"
	}
	return string(d.Status)
}

func counts(cs []devcfg.Change) (add, mod, rem, dis int) {
	for _, c := range cs {
		switch c.Action {
		case devcfg.Add:
			add++
		case devcfg.Modify:
			mod++
		case devcfg.Remove:
			rem++
		}
		if c.Disruption == devcfg.TrafficAffecting {
			dis++
		}
	}
	return
}

func summaryLine(p *Plan) string {
	s := p.Summary
	var parts []string
	var statuses []string
	for st := range s.ByStatus {
		statuses = append(statuses, string(st))
	}
	sort.Strings(statuses)
	for _, st := range statuses {
		parts = append(parts, fmt.Sprintf("%d %s", s.ByStatus[Status(st)], st))
	}
	line := fmt.Sprintf("Summary: %d device(s): %s.", s.Devices, strings.Join(parts, ", "))
	if p.Kind != "drift" {
		line += fmt.Sprintf(" %d to add, %d to change, %d to remove", s.Add, s.Modify, s.Remove)
		if s.TrafficAffecting > 0 {
			line += fmt.Sprintf("; %d traffic-affecting (apply needs --allow-disruptive)", s.TrafficAffecting)
		}
		line += "."
	}
	return line
}

func commitNote(r IntentRef) string {
	if r.Commit == "" {
		return ""
	}
	c := r.Commit
	if len(c) > 12 {
		c = c[:12]
	}
	if r.Dirty {
		c += ", with uncommitted changes"
	}
	return " (commit " + c + ")"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
