package cli

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/agent/engine/enginetest"
	"github.com/rocefab/rocefab/renderers/all"
)

// TestFiftySwitchPlanForReview: the first plan of 50 switches of five
// platforms, 32 ports each, as a reviewer gets it: the Markdown fits one
// pull-request comment with every device in it, the text summary fits one
// screen, and the grouped text, read back range by range, is every change
// of every device.
func TestFiftySwitchPlanForReview(t *testing.T) {
	specs := enginetest.Mixed(50, enginetest.NXOS, enginetest.EOS, enginetest.Junos, enginetest.Cumulus, enginetest.SONiC)
	for i := range specs {
		specs[i].Ports = 32
	}
	c := newSimCLI(t, specs)

	// Planned once; the other forms are of the saved plan.
	file := filepath.Join(t.TempDir(), "plan.json")
	out := c.want(ExitOK, "", "plan", c.intent, "-o", "json", "--out", file)
	var p compliance.Plan
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, d := range p.Devices {
		if d.Status != compliance.StatusChanges {
			t.Fatalf("%s: %s %s", d.Device, d.Status, d.Error)
		}
		total += len(d.Changes)
	}
	if total < 50*32 {
		t.Fatalf("only %d changes", total)
	}

	md := c.want(ExitOK, "", "plan", file, "-o", "markdown")
	if len(md) >= 65000 {
		t.Fatalf("Markdown of 50 switches: %d characters", len(md))
	}
	if strings.Contains(md, "not shown") {
		t.Fatalf("the Markdown leaves devices out though it fits")
	}
	for _, d := range p.Devices {
		if !strings.Contains(md, "<b>"+d.Device+"</b>") {
			t.Errorf("the Markdown has no section for %s", d.Device)
		}
	}
	t.Logf("%d changes on 50 switches: Markdown %d characters", total, len(md))

	text := c.want(ExitOK, "", "plan", file)
	lines := strings.Split(text, "\n")
	summary := 0
	for i, l := range lines {
		if i > 2 && l == "" {
			summary = i
			break
		}
	}
	if summary == 0 || summary > 40 {
		t.Fatalf("the summary takes %d lines:\n%s", summary, strings.Join(lines[:min(len(lines), 60)], "\n"))
	}
	for _, want := range []string{"Summary: 50 device(s): 50 changes.", "lossless effect:", "traffic-affecting:", "junos:", "sonic:"} {
		if !strings.Contains(strings.Join(lines[:summary], "\n"), want) {
			t.Errorf("summary lacks %q", want)
		}
	}

	// Read the text back: each section's lines, ranges expanded, are
	// exactly the changes of each device it names.
	v := (&app{renderers: all.Renderers()}).planView(nil)
	byName := map[string]compliance.DevicePlan{}
	for _, d := range p.Devices {
		byName[d.Device] = d
	}
	covered := map[string]bool{}
	for _, sec := range strings.Split(strings.Join(lines[summary+1:], "\n"), "\n\n") {
		sl := strings.Split(strings.TrimSpace(sec), "\n")
		head := sl[0]
		names := strings.Split(head[:strings.Index(head, " (")], ", ")
		var read []string
		for _, l := range sl[1:] {
			if len(l) < 4 || l[0:2] != "  " || !strings.Contains("+-~", l[2:3]) || l[3] != ' ' {
				continue // block lines, notes
			}
			body := l[4:]
			if i := strings.Index(body, "   ×"); i >= 0 {
				body = body[:i]
			} else if i := strings.Index(body, "   ["); i >= 0 {
				body = body[:i]
			}
			for _, x := range compliance.Expand(body) {
				read = append(read, l[2:3]+" "+x)
			}
		}
		slices.Sort(read)
		for _, n := range names {
			d, ok := byName[n]
			if !ok {
				t.Fatalf("section names %q, not a device", n)
			}
			covered[n] = true
			var want []string
			pv, _ := v.Platform(d.Platform)
			for _, l := range compliance.ReviewLines(d, pv) {
				want = append(want, l.Sign+" "+l.Text)
			}
			slices.Sort(want)
			if !slices.Equal(read, want) {
				t.Fatalf("%s: the grouped text reads back %d changes, the plan has %d", n, len(read), len(want))
			}
		}
	}
	if len(covered) != 50 {
		t.Fatalf("the text shows %d of 50 devices", len(covered))
	}
}
