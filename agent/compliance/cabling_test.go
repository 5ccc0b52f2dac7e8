package compliance

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/validators/cabling"
)

// TestCablingSection: plan --cabling's section comes after the summary in
// text and Markdown; in Markdown it stays within a quarter of the limit
// whatever the fabric, the miscabled link first; without a cabling report
// neither form has the section.
func TestCablingSection(t *testing.T) {
	rep := &cabling.Report{Verdict: cabling.Fail, Summary: cabling.Summary{Miscabled: 1, Verified: 3000}}
	for i := 0; i < 3000; i++ {
		rep.Findings = append(rep.Findings, cabling.Finding{Link: fmt.Sprintf("gpu%04d:ens1f0 – leaf1:Ethernet%d", i, i), Status: cabling.Verified, Message: "they see each other"})
	}
	rep.Findings = append(rep.Findings, cabling.Finding{Link: "gpu9999:ens1f0 – leaf2:Ethernet7", Status: cabling.Miscabled, Message: "gpu9999 ens1f0 reaches leaf1 Ethernet7; the intent says leaf2 Ethernet7"})
	p := &Plan{Kind: "plan", Intent: IntentRef{Fabric: "f"}}
	p.Summarise()
	for _, tc := range []struct {
		name    string
		cabling *cabling.Report
	}{{"with", rep}, {"without", nil}} {
		t.Run(tc.name, func(t *testing.T) {
			p.Cabling = tc.cabling
			var text, md bytes.Buffer
			if err := WriteTextView(&text, p, View{}); err != nil {
				t.Fatal(err)
			}
			if err := WriteMarkdownView(&md, p, View{MarkdownLimit: 20000}); err != nil {
				t.Fatal(err)
			}
			if tc.cabling == nil {
				if strings.Contains(text.String()+md.String(), "Cabling") {
					t.Errorf("a cabling section without a report:\n%s\n%s", text.String(), md.String())
				}
				return
			}
			if !strings.Contains(text.String(), "Cabling (LLDP): FAIL (1 miscabled, 0 missing, 0 unexpected, 0 unread, 3000 verified)\n  MISCABLED   gpu9999:ens1f0 – leaf2:Ethernet7: ") {
				t.Errorf("the text does not lead with the miscabled link:\n%.600s", text.String())
			}
			if md.Len() > 20000 {
				t.Errorf("Markdown %d characters, over the 20000 limit", md.Len())
			}
			section := md.String()[strings.Index(md.String(), "#### Cabling (LLDP): **FAIL**"):]
			if strings.Index(section, "**miscabled**") < 0 || strings.Index(section, "**miscabled**") > strings.Index(section, "| verified |") {
				t.Errorf("the miscabled link is not first:\n%.1000s", section)
			}
			if len(section) > 20000/4+200 || !strings.Contains(section, "more link(s) not shown") {
				t.Errorf("the section is %d characters or does not count what it left out", len(section))
			}
		})
	}
}
