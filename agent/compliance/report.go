package compliance

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/validators/cabling"
)

// DefaultMarkdownLimit keeps a Markdown plan inside a GitHub pull-request
// comment (65,536 characters), with room for the link to the full plan.
const DefaultMarkdownLimit = 65000

// View says how a plan is shown. The zero value shows paths and CLI lines
// as the plan holds them, without colour, Markdown within the default limit.
type View struct {
	// Platform gives a platform's syntax and port names; nil or false
	// shows changes in the plan's own form.
	Platform func(name string) (PlatformView, bool)
	// Color marks signs and lossless effects with ANSI colours (text only;
	// the CLI sets it on a terminal unless NO_COLOR is set).
	Color bool
	// MarkdownLimit bounds the Markdown in characters: 0 is
	// DefaultMarkdownLimit, negative is unbounded.
	MarkdownLimit int
	// FullPlan is where the whole plan is kept (a workflow artifact),
	// linked when the Markdown leaves devices out.
	FullPlan string
}

func (v View) platform(name string) PlatformView {
	if v.Platform != nil {
		if pv, ok := v.Platform(name); ok {
			return pv
		}
	}
	return PlatformView{}
}

// WriteJSON writes the plan as indented JSON. Saved plans use the same form.
func WriteJSON(w io.Writer, p *Plan) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(p)
}

// WriteText writes the plan for a terminal with the default view.
func WriteText(w io.Writer, p *Plan) error { return WriteTextView(w, p, View{}) }

// WriteMarkdown writes the plan as a pull-request comment with the
// default view.
func WriteMarkdown(w io.Writer, p *Plan) error { return WriteMarkdownView(w, p, View{}) }

// WriteTextView writes the plan for a terminal: the summary first, then
// each device (devices with identical changes together) with its grouped
// changes, breaking ones first in a drift report.
func WriteTextView(w io.Writer, p *Plan, v View) error {
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
	for _, l := range SummaryLines(p) {
		b.WriteString(l + "\n")
	}
	if p.Cabling != nil {
		fmt.Fprintf(b, "\nCabling (LLDP): %s\n", p.Cabling.Headline())
		for _, l := range p.Cabling.TextLines() {
			b.WriteString("  " + l + "\n")
		}
	}
	sections := Sections(p, v)
	for _, s := range sections {
		b.WriteByte('\n')
		fmt.Fprintf(b, "%s (%s): %s\n", s.Names(), s.What(), s.Headline)
		for _, c := range s.Conflicts {
			fmt.Fprintf(b, "  ! %s\n", c)
		}
		for _, w := range s.Warnings {
			fmt.Fprintf(b, "  warning: %s\n", w)
		}
		for _, g := range s.Groups {
			writeTextGroup(b, g, v.Color)
		}
		if len(s.Groups) > 0 || len(s.Conflicts) > 0 {
			for _, n := range s.Notes {
				fmt.Fprintf(b, "  note: %s\n", n)
			}
		}
	}
	if quiet := quietDevices(p); quiet != "" {
		b.WriteByte('\n')
		b.WriteString(quiet + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// SummaryLines is what the plan says first, in at most a dozen lines
// whatever the fleet: devices by status and changes by action, then what
// the changes do to the lossless class and to traffic, then one line per
// platform.
func SummaryLines(p *Plan) []string {
	facts, platforms := summaryFacts(p)
	out := []string{summaryLine(p)}
	for _, f := range facts {
		out = append(out, "  "+f)
	}
	quiet := true
	for _, pl := range platforms {
		quiet = quiet && pl.changes == 0 && pl.problems == 0
	}
	if quiet {
		return out // nothing to tell platform by platform
	}
	for _, pl := range platforms {
		line := fmt.Sprintf("  %-11s %4d device(s), %d with changes, %d change(s)", orDash(pl.name)+":", pl.devices, pl.changed, pl.changes)
		if pl.breaks > 0 {
			line += fmt.Sprintf(", %d breaking", pl.breaks)
		}
		out = append(out, line)
	}
	return out
}

type platformCounts struct {
	name                                                              string
	devices, changed, changes, breaks, degrades, disruptive, problems int
}

// summaryFacts is the summary's lines on lossless effect and disruption,
// and the counts per platform (hosts as one platform), sorted by name.
func summaryFacts(p *Plan) ([]string, []platformCounts) {
	byName := map[string]*platformCounts{}
	for _, d := range p.Devices {
		name := d.Platform
		if d.Kind == "host" {
			name = "host"
		}
		pl := byName[name]
		if pl == nil {
			pl = &platformCounts{name: name}
			byName[name] = pl
		}
		pl.devices++
		if len(d.Changes) > 0 {
			pl.changed++
		}
		pl.changes += len(d.Changes)
		for _, c := range d.Changes {
			switch c.Effect {
			case devcfg.EffectBreaks:
				pl.breaks++
			case devcfg.EffectDegrades:
				pl.degrades++
			}
			if c.Disruption == devcfg.TrafficAffecting {
				pl.disruptive++
			}
		}
		switch d.Status {
		case StatusError, StatusUnreachable, StatusConflict:
			pl.problems++
		}
	}
	platforms := make([]platformCounts, 0, len(byName))
	for _, pl := range byName {
		platforms = append(platforms, *pl)
	}
	sort.Slice(platforms, func(i, j int) bool { return platforms[i].name < platforms[j].name })
	s := p.Summary
	if s.Add+s.Modify+s.Remove == 0 {
		return nil, platforms
	}
	var facts []string
	if p.Kind == "drift" {
		facts = append(facts, fmt.Sprintf("differences: %d missing, %d changed, %d unexpected", s.Add, s.Modify, s.Remove))
	}
	eff := effectCounts(p)
	if len(eff) > 0 {
		facts = append(facts, fmt.Sprintf("lossless effect: %d break it, %d degrade it, %d neutral",
			eff[devcfg.EffectBreaks], eff[devcfg.EffectDegrades], eff[devcfg.EffectNeutral]))
	}
	if s.TrafficAffecting > 0 {
		n := 0
		for _, d := range p.Devices {
			if d.Disruptive() {
				n++
			}
		}
		facts = append(facts, fmt.Sprintf("traffic-affecting: %d change(s) on %d device(s)", s.TrafficAffecting, n))
	}
	return facts, platforms
}

func effectCounts(p *Plan) map[devcfg.Effect]int {
	out := map[devcfg.Effect]int{}
	for _, d := range p.Devices {
		for _, c := range d.Changes {
			if c.Effect != "" {
				out[c.Effect]++
			}
		}
	}
	return out
}

// quietDevices names the devices with nothing to show, in one line.
func quietDevices(p *Plan) string {
	var names []string
	for _, d := range p.Devices {
		if !shown(d) {
			names = append(names, d.Device)
		}
	}
	if len(names) == 0 {
		return ""
	}
	what := "no changes"
	if p.Kind == "drift" {
		what = "compliant"
	}
	return fmt.Sprintf("%s (%d): %s", what, len(names), strings.Join(names, ", "))
}

// shown: a device with something to read (changes, problems, warnings).
func shown(d DevicePlan) bool {
	return len(d.Changes) > 0 || len(d.Conflicts) > 0 || len(d.Warnings) > 0 || d.Error != "" ||
		(d.Status != StatusNoChanges && d.Status != StatusCompliant)
}

// Section is one device, or several devices with identical changes, as
// the report shows them.
type Section struct {
	Devices   []DevicePlan
	Headline  string
	Conflicts []devcfg.Conflict
	Warnings  []string
	Notes     []string
	Error     string
	Groups    []Group
	// Worst is the worst lossless effect of the changes.
	Worst devcfg.Effect
}

// Names lists the section's devices.
func (s Section) Names() string {
	names := make([]string, len(s.Devices))
	for i, d := range s.Devices {
		names[i] = d.Device
	}
	return strings.Join(names, ", ")
}

// What is the platform and transport, and the address of a single device.
func (s Section) What() string {
	if len(s.Devices) == 1 {
		return deviceWhat(s.Devices[0])
	}
	d := s.Devices[0]
	d.Address = ""
	return fmt.Sprintf("%d devices, %s", len(s.Devices), deviceWhat(d))
}

// Changes is how many changes one device of the section has.
func (s Section) Changes() int { return len(s.Devices[0].Changes) }

// Sections groups a plan's devices for reading: devices whose changes,
// problems and notes read the same form one section; sections that break
// the lossless class come first, then those that degrade it, then the
// rest, each in the plan's order.
func Sections(p *Plan, v View) []Section {
	var out []Section
	byKey := map[string]int{}
	for _, d := range p.Devices {
		if !shown(d) {
			continue
		}
		pv := v.platform(d.Platform)
		lines := ReviewLines(d, pv)
		if p.Kind == "drift" {
			sort.SliceStable(lines, func(i, j int) bool { return lines[i].Effect.Rank() > lines[j].Effect.Rank() })
		}
		groups := GroupLines(lines, pv.Port)
		s := Section{Devices: []DevicePlan{d}, Headline: deviceHeadline(d), Conflicts: d.Conflicts,
			Warnings: d.Warnings, Notes: d.Notes, Error: d.Error, Groups: groups}
		for _, c := range d.Changes {
			if c.Effect.Rank() > s.Worst.Rank() {
				s.Worst = c.Effect
			}
		}
		key := sectionKey(d, s)
		if i, ok := byKey[key]; ok {
			out[i].Devices = append(out[i].Devices, d)
			continue
		}
		byKey[key] = len(out)
		out = append(out, s)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Worst.Rank() > out[j].Worst.Rank() })
	return out
}

// sectionKey is what must be equal for devices to share a section.
func sectionKey(d DevicePlan, s Section) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\x00%s\x00%s\x00%s\x00%s\x00", d.Kind, d.Platform, d.Transport, s.Headline, d.Error)
	for _, c := range s.Conflicts {
		b.WriteString(c.String() + "\x00")
	}
	for _, x := range append(append([]string(nil), s.Warnings...), s.Notes...) {
		b.WriteString(x + "\x00")
	}
	for _, g := range s.Groups {
		fmt.Fprintf(&b, "%s %s %s %d %s %s %s\x00", g.Sign, g.Text, strings.Join(g.Block, "\n"), g.Count(), g.Effect, g.Disruption, g.Reason)
	}
	return b.String()
}

const (
	ansiReset  = "\x1b[0m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiBold   = "\x1b[1m"
)

func paint(on bool, code, s string) string {
	if !on || s == "" {
		return s
	}
	return code + s + ansiReset
}

func writeTextGroup(b *strings.Builder, g Group, color bool) {
	sign := g.Sign
	switch sign {
	case "+":
		sign = paint(color, ansiGreen, sign)
	case "-":
		sign = paint(color, ansiRed, sign)
	case "~":
		sign = paint(color, ansiYellow, sign)
	}
	line := "  " + sign + " " + valueLine(g.Text)
	if g.Count() > 1 {
		line += fmt.Sprintf("   ×%d", g.Count())
	}
	if tag := tags(g.Line, color); tag != "" {
		line += "   " + tag
	}
	b.WriteString(line + "\n")
	for _, l := range g.Block {
		b.WriteString("      " + l + "\n")
	}
}

// tags are the bracketed notes after a change: its lossless effect (when
// it breaks or degrades the class) and its disruption.
func tags(l Line, color bool) string {
	var parts []string
	switch l.Effect {
	case devcfg.EffectBreaks:
		parts = append(parts, paint(color, ansiBold+ansiRed, "breaks lossless"))
	case devcfg.EffectDegrades:
		parts = append(parts, paint(color, ansiYellow, "degrades lossless"))
	}
	if l.Disruption == devcfg.TrafficAffecting {
		t := "traffic-affecting"
		if l.Reason != "" {
			t += ": " + l.Reason
		}
		parts = append(parts, t)
	}
	if len(parts) == 0 {
		return ""
	}
	return "[" + strings.Join(parts, "; ") + "]"
}

// valueLine keeps a multi-line value (a CLI fallback block) on its
// change's line.
func valueLine(s string) string {
	if strings.ContainsAny(s, "\n\r") {
		return strconv.Quote(s)
	}
	return s
}

// WriteMarkdownView writes the plan as a pull-request comment: the
// summary and a table by platform, then one collapsed section per group of
// devices with identical changes. It stays within v's limit whatever the
// fleet: sections that do not fit are left out and the comment says how
// many, linking the full plan (v.FullPlan) when given.
func WriteMarkdownView(w io.Writer, p *Plan, v View) error {
	limit := v.MarkdownLimit
	if limit == 0 {
		limit = DefaultMarkdownLimit
	}
	b := &strings.Builder{}
	title := "rocefab plan"
	if p.Kind == "drift" {
		title = "rocefab drift"
	}
	fmt.Fprintf(b, "### %s: `%s`%s\n\n", title, orDash(p.Intent.Fabric), commitNote(p.Intent))
	fmt.Fprintf(b, "%s\n\n", summaryLine(p))
	facts, platforms := summaryFacts(p)
	for _, f := range facts {
		fmt.Fprintf(b, "- %s\n", f)
	}
	if len(facts) > 0 {
		b.WriteByte('\n')
	}
	writePlatformTable(b, p.Kind, platforms)
	if len(p.Devices) <= deviceTableMax {
		b.WriteByte('\n')
		writeDeviceTable(b, p)
	}
	if p.Cabling != nil {
		// Before the device sections, so a long plan cannot push a
		// miscabled link out of the comment; its table takes at most a
		// quarter of the limit.
		verdict := strings.ToUpper(string(p.Cabling.Verdict))
		if p.Cabling.Verdict == cabling.Fail {
			verdict = "**" + verdict + "**"
		}
		room := -1
		if limit > 0 {
			room = limit / 4
		}
		fmt.Fprintf(b, "\n#### Cabling (LLDP): %s\n\n%s\n", verdict, p.Cabling.Counts()+".")
		b.WriteString("\n" + p.Cabling.MarkdownBody(room, 5))
	}
	sections := Sections(p, v)
	footer := func(left, leftDevices int) string {
		s := fmt.Sprintf("\n> **%d more section(s) (%d device(s)) not shown**: this comment stays under %d characters.", left, leftDevices, limit)
		if v.FullPlan != "" {
			s += fmt.Sprintf(" The full plan: [%s](%s)", v.FullPlan, v.FullPlan)
		} else {
			s += " Run `rocefab plan` for the full plan."
		}
		return s + "\n"
	}
	const reserve = 600 // the footer, with a long link
	for i, s := range sections {
		sec := markdownSection(s, -1)
		if limit > 0 && b.Len()+len(sec)+reserve > limit {
			// What fits of this section, then the footer.
			room := limit - reserve - b.Len()
			if cut := markdownSection(s, room); cut != "" && b.Len()+len(cut)+reserve <= limit {
				b.WriteString(cut)
				i++
			}
			left, leftDevices := len(sections)-i, 0
			for _, r := range sections[i:] {
				leftDevices += len(r.Devices)
			}
			if left > 0 {
				b.WriteString(footer(left, leftDevices))
			} else if v.FullPlan != "" {
				fmt.Fprintf(b, "\n> Some changes were cut to keep this comment short. The full plan: [%s](%s)\n", v.FullPlan, v.FullPlan)
			}
			_, err := io.WriteString(w, b.String())
			return err
		}
		b.WriteString(sec)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writePlatformTable(b *strings.Builder, kind string, platforms []platformCounts) {
	if len(platforms) == 0 {
		return
	}
	changed := "with changes"
	if kind == "drift" {
		changed = "drifted"
	}
	fmt.Fprintf(b, "| platform | devices | %s | changes | break lossless | degrade lossless | traffic-affecting | problems |\n", changed)
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range platforms {
		fmt.Fprintf(b, "| %s | %d | %d | %d | %d | %d | %d | %d |\n", orDash(r.name), r.devices, r.changed, r.changes, r.breaks, r.degrades, r.disruptive, r.problems)
	}
}

// deviceTableMax is the largest fleet whose Markdown has a row per device;
// larger ones have the table by platform only.
const deviceTableMax = 50

func writeDeviceTable(b *strings.Builder, p *Plan) {
	b.WriteString("| device | platform | status | add | change | remove | break lossless | traffic-affecting |\n")
	b.WriteString("|---|---|---|---:|---:|---:|---:|---:|\n")
	for _, d := range p.Devices {
		add, mod, rem, dis := counts(d.Changes)
		fmt.Fprintf(b, "| %s | %s | %s | %d | %d | %d | %d | %d |\n", d.Device, orDash(d.Platform), statusLabel(d), add, mod, rem, countEffect(d.Changes, devcfg.EffectBreaks), dis)
	}
}

func statusLabel(d DevicePlan) string {
	if d.Status == StatusChanges && d.Disruptive() {
		return "changes (traffic-affecting)"
	}
	return string(d.Status)
}

// markdownSection is one collapsed section; with room >= 0 it keeps only
// the lines that fit in room characters (and "" when not even its
// heading does).
func markdownSection(s Section, room int) string {
	var head strings.Builder
	names := make([]string, len(s.Devices))
	for i, d := range s.Devices {
		names[i] = "<b>" + d.Device + "</b>"
	}
	fmt.Fprintf(&head, "\n<details><summary>%s (%s): %s</summary>\n\n", strings.Join(names, ", "), mdEscape(s.What()), mdEscape(s.Headline))
	if s.Error != "" {
		fmt.Fprintf(&head, "> %s\n\n", mdEscape(s.Error))
	}
	for _, c := range s.Conflicts {
		fmt.Fprintf(&head, "- :warning: %s\n", mdEscape(c.String()))
	}
	for _, w := range s.Warnings {
		fmt.Fprintf(&head, "- warning: %s\n", mdEscape(w))
	}
	var body []string
	reasons := map[string]int{}
	var reasonOrder []string
	if len(s.Groups) > 0 {
		for _, g := range s.Groups {
			sign := g.Sign
			if sign == "~" {
				sign = "!"
			}
			line := sign + " " + valueLine(g.Text)
			var notes []string
			if g.Count() > 1 {
				notes = append(notes, fmt.Sprintf("×%d", g.Count()))
			}
			switch g.Effect {
			case devcfg.EffectBreaks:
				notes = append(notes, "breaks lossless")
			case devcfg.EffectDegrades:
				notes = append(notes, "degrades lossless")
			}
			if g.Disruption == devcfg.TrafficAffecting {
				notes = append(notes, "traffic-affecting")
				if _, ok := reasons[g.Reason]; !ok {
					reasonOrder = append(reasonOrder, g.Reason)
				}
				reasons[g.Reason] += g.Count()
			}
			if len(notes) > 0 {
				line += "   # " + strings.Join(notes, ", ")
			}
			body = append(body, line)
			for _, l := range g.Block {
				body = append(body, sign+"     "+l)
			}
		}
	}
	var tail strings.Builder
	for _, r := range reasonOrder {
		if r == "" {
			fmt.Fprintf(&tail, "- traffic-affecting (%d)\n", reasons[r])
			continue
		}
		fmt.Fprintf(&tail, "- traffic-affecting (%d): %s\n", reasons[r], mdEscape(r))
	}
	for _, n := range s.Notes {
		fmt.Fprintf(&tail, "\n_note: %s_\n", mdEscape(n))
	}
	const closing = "\n</details>\n"
	full := func(lines []string, cut int) string {
		var out strings.Builder
		out.WriteString(head.String())
		if len(lines) > 0 {
			out.WriteString("```diff\n")
			for _, l := range lines {
				out.WriteString(l + "\n")
			}
			if cut > 0 {
				fmt.Fprintf(&out, "# ... %d more line(s) in the full plan\n", cut)
			}
			out.WriteString("```\n")
		}
		out.WriteString(tail.String())
		out.WriteString(closing)
		return out.String()
	}
	whole := full(body, 0)
	if room < 0 || len(whole) <= room {
		return whole
	}
	// Keep as many lines as fit.
	size := len(full(nil, 1)) + len("```diff\n```\n") + 40
	if size > room {
		return ""
	}
	n := 0
	for n < len(body) && size+len(body[n])+1 <= room {
		size += len(body[n]) + 1
		n++
	}
	return full(body[:n], len(body)-n)
}

// mdEscape keeps text from opening HTML or Markdown structure.
func mdEscape(s string) string {
	return strings.NewReplacer("<", "&lt;", ">", "&gt;", "|", "\\|").Replace(s)
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
	var extra []string
	if n := countEffect(d.Changes, devcfg.EffectBreaks); n > 0 {
		extra = append(extra, fmt.Sprintf("%d break lossless", n))
	}
	if dis > 0 {
		extra = append(extra, fmt.Sprintf("%d traffic-affecting", dis))
	}
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, ", ") + ")"
	}
	return s
}

func countEffect(cs []devcfg.Change, e devcfg.Effect) int {
	n := 0
	for _, c := range cs {
		if c.Effect == e {
			n++
		}
	}
	return n
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

// ChangeLines are a device's changes as the text report prints them
// (grouped, in the platform's form, breaking ones first in a drift), one
// string per line, without colour: for reports in other formats (JUnit).
func ChangeLines(kind string, d DevicePlan, v View) []string {
	pv := v.platform(d.Platform)
	lines := ReviewLines(d, pv)
	if kind == "drift" {
		sort.SliceStable(lines, func(i, j int) bool { return lines[i].Effect.Rank() > lines[j].Effect.Rank() })
	}
	var b strings.Builder
	for _, g := range GroupLines(lines, pv.Port) {
		writeTextGroup(&b, g, false)
	}
	text := strings.TrimRight(b.String(), "\n")
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}

// Headline is a device's one-line state, as the text report heads it.
func Headline(d DevicePlan) string { return deviceHeadline(d) }
