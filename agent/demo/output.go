package demo

import (
	"fmt"
	"strings"
)

// condensePlan shortens compliance.WriteText output for the story: each
// device keeps its headline (with the full counts), its first few changes
// and every MTU change (the setting the story follows), its notes, and
// one line saying how many changes were left out. A first plan of a fresh
// fabric runs to hundreds of lines; `rocefab plan` prints them all.
func condensePlan(text string, perDevice int) string {
	var out []string
	shown, hidden := 0, 0
	keep := true
	flush := func() {
		if hidden > 0 {
			out = append(out, fmt.Sprintf("  ... and %d more change(s), not shown here (rocefab plan prints them all)", hidden))
		}
		shown, hidden = 0, 0
	}
	for _, line := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		switch {
		case line == "" || !strings.HasPrefix(line, " "):
			// A device headline, the summary or a blank line.
			flush()
			keep = true
			out = append(out, line)
		case isChange(line):
			keep = shown < perDevice || strings.Contains(strings.ToLower(line), "mtu")
			if keep {
				shown++
				out = append(out, line)
			} else {
				hidden++
			}
		case strings.HasPrefix(line, "  note: "), strings.HasPrefix(line, "  warning: "), strings.HasPrefix(line, "  ! "):
			flush()
			keep = true
			out = append(out, line)
		default:
			// A continuation of the change above (a block, a multi-line value).
			if keep {
				out = append(out, line)
			}
		}
	}
	flush()
	return strings.Join(out, "\n") + "\n"
}

func isChange(line string) bool {
	return strings.HasPrefix(line, "  + ") || strings.HasPrefix(line, "  ~ ") || strings.HasPrefix(line, "  - ")
}
