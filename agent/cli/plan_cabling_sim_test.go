package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/agent/engine/enginetest"
	"github.com/rocefab/rocefab/validators/cabling"
)

// TestPlanDriftCablingFromSimulatedSwitches: plan and drift --cabling
// read the simulated switches' LLDP through their drivers and add the
// cabling to the report. With the NX-OS leaf's host cables swapped, both
// of its links are miscabled with both ends named, in text, Markdown,
// JSON and JUnit, and the command exits 1; with clean cabling every link
// is verified and the exit status is plan's own. Without --cabling the
// report has no cabling section. Only the switches are planned (--device):
// the hosts are unread, their links judged by the switch end.
func TestPlanDriftCablingFromSimulatedSwitches(t *testing.T) {
	specs := []enginetest.Spec{{Name: "leaf-nxos", Kind: enginetest.NXOS}, {Name: "leaf-oc", Kind: enginetest.OpenConfig}}
	swapped := lldpSimFabric(t, enginetest.Start(t, specs), "leaf-nxos")
	clean := lldpSimFabric(t, enginetest.Start(t, specs))
	run := func(path string, args ...string) (int, string) {
		t.Helper()
		full := append([]string{args[0], path, "--state-dir", t.TempDir(), "--timeout", "10s", "--device", "leaf-nxos,leaf-oc"}, args[1:]...)
		code, out, errOut := runCLI(t, "", full...)
		if code == ExitUsage {
			t.Fatalf("rocefab %s: usage error\n%s", strings.Join(full, " "), errOut)
		}
		return code, out
	}
	miscabledLinks := []string{"h-nxos-0:ens1f0 – leaf-nxos:" + enginetest.Ports("nxos", 2)[0], "h-nxos-1:ens1f0 – leaf-nxos:" + enginetest.Ports("nxos", 2)[1]}

	for _, cmd := range []string{"plan", "drift"} {
		t.Run(cmd+"/swapped", func(t *testing.T) {
			code, out := run(swapped, cmd, "--cabling", "-o", "json")
			if code != ExitFailure {
				t.Errorf("exit %d, want %d for a miscabled link\n%s", code, ExitFailure, out)
			}
			var p compliance.Plan
			if err := json.Unmarshal([]byte(out), &p); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if p.Cabling == nil {
				t.Fatalf("no cabling in the JSON report:\n%s", out)
			}
			if p.Cabling.Verdict != cabling.Fail || p.Cabling.Summary.Miscabled != 2 || p.Cabling.Summary.Verified != 2 {
				t.Errorf("cabling %s %+v, want fail with 2 miscabled and 2 verified", p.Cabling.Verdict, p.Cabling.Summary)
			}
			for i, link := range miscabledLinks {
				var fd *cabling.Finding
				for j := range p.Cabling.Findings {
					if p.Cabling.Findings[j].Link == link {
						fd = &p.Cabling.Findings[j]
					}
				}
				if fd == nil || fd.Status != cabling.Miscabled {
					t.Errorf("%s is not miscabled: %+v", link, fd)
					continue
				}
				// The switch end names the host it reaches and the one the
				// intent says.
				reaches, intended := "h-nxos-"+string(rune('1'-i)), "h-nxos-"+string(rune('0'+i))
				if !strings.Contains(fd.Message, reaches) || !strings.Contains(fd.Message, intended) || !strings.Contains(fd.Message, "leaf-nxos") {
					t.Errorf("%s: %q does not name leaf-nxos, %s it reaches and %s the intent says", link, fd.Message, reaches, intended)
				}
			}

			code, text := run(swapped, cmd, "--cabling")
			if code != ExitFailure || !strings.Contains(text, "Cabling (LLDP): FAIL (2 miscabled, 0 missing, 0 unexpected, 0 unread, 2 verified)") {
				t.Errorf("exit %d; the text has no failed cabling headline:\n%s", code, text)
			}
			for _, link := range miscabledLinks {
				if !strings.Contains(text, "MISCABLED   "+link+": ") {
					t.Errorf("the text does not show %s miscabled:\n%s", link, text)
				}
			}
			_, md := run(swapped, cmd, "--cabling", "-o", "markdown")
			if !strings.Contains(md, "#### Cabling (LLDP): **FAIL**") || !strings.Contains(md, "| `"+miscabledLinks[0]+"` | **miscabled** |") {
				t.Errorf("the Markdown does not show the miscabled link:\n%s", md)
			}
			_, xml := run(swapped, cmd, "--cabling", "-o", "junit")
			if !strings.Contains(xml, `classname="`+cmd+`.cabling"`) || !strings.Contains(xml, `type="miscabled"`) {
				t.Errorf("the JUnit has no failing cabling case:\n%s", xml)
			}
		})
		t.Run(cmd+"/clean", func(t *testing.T) {
			plain, _ := run(clean, cmd)
			code, out := run(clean, cmd, "--cabling", "-o", "json")
			if code != plain {
				t.Errorf("exit %d with --cabling on a clean fabric, %d without", code, plain)
			}
			var p compliance.Plan
			if err := json.Unmarshal([]byte(out), &p); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if p.Cabling == nil || p.Cabling.Verdict != cabling.Pass || p.Cabling.Summary.Verified != 4 || len(p.Cabling.Findings) != 4 {
				t.Fatalf("want every one of the 4 links verified:\n%s", out)
			}
			for _, fd := range p.Cabling.Findings {
				if fd.Status != cabling.Verified {
					t.Errorf("%s is %s", fd.Link, fd.Status)
				}
			}
			_, text := run(clean, cmd, "--cabling")
			if !strings.Contains(text, "Cabling (LLDP): PASS (0 miscabled, 0 missing, 0 unexpected, 0 unread, 4 verified)") || strings.Count(text, "VERIFIED    ") != 4 {
				t.Errorf("the text does not show 4 verified links:\n%s", text)
			}
			_, none := run(clean, cmd, "-o", "json")
			if strings.Contains(none, `"cabling"`) {
				t.Errorf("without --cabling the report has a cabling section:\n%s", none)
			}
		})
	}
}

// TestPlanCablingFlagsNeedCabling: --lldp and --lldp-socket say how to
// read the cabling; without --cabling they are usage errors, and a saved
// plan is shown as it is.
func TestPlanCablingFlagsNeedCabling(t *testing.T) {
	for _, args := range [][]string{
		{"plan", "../../examples/basic", "--lldp", "leaf1=x.json"},
		{"drift", "../../examples/basic", "--lldp-socket", "/run/lldpd.sock"},
		{"plan", "../../examples/basic", "--cabling", "--lldp", "leaf1"},
	} {
		if code, _, errOut := runCLI(t, "", args...); code != ExitUsage {
			t.Errorf("rocefab %s: exit %d, want %d\n%s", strings.Join(args, " "), code, ExitUsage, errOut)
		}
	}
}
