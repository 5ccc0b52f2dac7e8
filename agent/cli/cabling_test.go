package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/validators/cabling"
)

// lldpcliJSON is lldpcli -f json show neighbors for one device whose
// ports hear (sysname, their port as lldpd describes it).
func lldpcliJSON(t *testing.T, dir, dev string, ports map[string][2]string) string {
	t.Helper()
	var ifs []map[string]any
	for local, peer := range ports {
		ifs = append(ifs, map[string]any{local: map[string]any{
			"via":     "LLDP",
			"chassis": map[string]any{peer[0]: map[string]any{"id": map[string]any{"type": "mac", "value": "02:00:00:00:00:01"}}},
			"port":    map[string]any{"id": map[string]any{"type": "mac", "value": "02:00:00:00:00:01"}, "descr": peer[1], "ttl": "120"},
		}})
	}
	b, err := json.Marshal(map[string]any{"lldp": map[string]any{"interface": ifs}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, dev+".json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCablingCommand(t *testing.T) {
	dir := t.TempDir()
	// The lab's intent with namespaces nobody runs, so a lab brought up
	// on this machine is not read.
	data, err := os.ReadFile(filepath.Join(examplesDir, "lab", "fabric.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	lab := filepath.Join(dir, "fabric.yaml")
	if err := os.WriteFile(lab, []byte(strings.ReplaceAll(string(data), "netns: rflab-", "netns: rfnone-")), 0o644); err != nil {
		t.Fatal(err)
	}
	asBuilt := lldpcliJSON(t, dir, "leaf1", map[string][2]string{"swp1": {"h1", "eth0"}, "swp2": {"h2", "eth0"}})
	swapped := lldpcliJSON(t, dir, "leaf1-swapped", map[string][2]string{"swp1": {"h2", "eth0"}, "swp2": {"h1", "eth0"}})
	h1 := lldpcliJSON(t, dir, "h1", map[string][2]string{"eth0": {"leaf1", "swp2"}})

	// As built: leaf1's two host links verified, the rest not read.
	code, out, stderr := runCLI(t, "", "cabling", lab, "--lldp", "leaf1="+asBuilt, "--output", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	var rep cabling.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Summary.Verified != 2 || rep.Summary.Miscabled != 0 || rep.Verdict != cabling.Warn {
		t.Errorf("as built: %+v, want 2 verified, none miscabled, warn for the links not read", rep.Summary)
	}
	if !strings.Contains(strings.Join(rep.Notes, "\n"), "h1 not read: lldpcli in netns rfnone-h1: ") {
		t.Errorf("notes do not say h1 was not read: %v", rep.Notes)
	}
	var cons struct {
		Consistency struct {
			Checked  int
			Findings []any
			Skipped  []struct{ Link, Status string }
		}
	}
	if err := json.Unmarshal([]byte(out), &cons); err != nil {
		t.Fatal(err)
	}
	if c := cons.Consistency; c.Checked != 2 || len(c.Findings) != 0 || len(c.Skipped) != 2 ||
		c.Skipped[0].Link != "h3:eth0 – leaf2:swp1" || c.Skipped[0].Status != "unread" {
		t.Errorf("as built: consistency %+v, want leaf1's 2 host links checked, leaf2's 2 skipped as unread", c)
	}

	// Swapped: both host links miscabled, both ends named, exit 1.
	code, out, _ = runCLI(t, "", "cabling", lab, "--lldp", "leaf1="+swapped, "--lldp", "h1="+h1)
	if code != ExitFailure {
		t.Errorf("swapped: exit %d, want %d\n%s", code, ExitFailure, out)
	}
	for _, want := range []string{
		"rocefab cabling: FAIL (2 miscabled",
		"MISCABLED   h1:eth0 – leaf1:swp1: h1 eth0 reaches leaf1 swp2; the intent says leaf1 swp1. leaf1 swp1 reaches h2 eth0; the intent says h1 eth0",
		// h2 was not read: leaf1 swp1 hearing it says where its cable goes.
		"MISCABLED   h2:eth0 – leaf1:swp2: h2 eth0 reaches leaf1 swp1; the intent says leaf1 swp2. leaf1 swp2 reaches h1 eth0; the intent says h2 eth0",
		"consistency: 0 host links checked against their switch ports, 0 findings, 4 skipped",
		"consistency: skipped h1:eth0 – leaf1:swp1 (miscabled): h1 eth0 reaches leaf1 swp2;",
		"consistency: skipped h2:eth0 – leaf1:swp2 (miscabled): h2 eth0 reaches leaf1 swp1;",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("swapped: output lacks %q:\n%s", want, out)
		}
	}

	// probe --cabling: the miscabled and unread links are left out, and
	// the probe says which.
	_, out, stderr = runCLI(t, "", "probe", lab, "--cabling", "--lldp", "leaf1="+swapped, "--no-counters", "-o", "json")
	var pout struct{ Notes []string }
	if err := json.Unmarshal([]byte(out), &pout); err != nil {
		t.Fatalf("probe --cabling: %v\n%s\n%s", err, out, stderr)
	}
	notes := strings.Join(pout.Notes, "\n")
	for _, want := range []string{
		"cabling: skipped h1:eth0 – leaf1:swp1 (miscabled): h1 eth0 reaches leaf1 swp2;",
		"cabling: skipped h3:eth0 – leaf2:swp1 (unread): neither h3 nor leaf2 was read",
		"no host pairs to probe",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("probe --cabling notes lack %q:\n%s", want, notes)
		}
	}

	for _, tc := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"cabling", lab, "--lldp", "leaf1"}, ExitUsage, "want DEVICE=FILE"},
		{[]string{"cabling", lab, "--lldp", "leaf9=" + asBuilt}, ExitUsage, "no device of that name"},
		{[]string{"cabling", lab, "--lldp", "leaf1=" + filepath.Join(dir, "absent.json")}, ExitFailure, "absent.json"},
		{[]string{"cabling"}, ExitUsage, "missing intent PATH"},
	} {
		code, out, stderr := runCLI(t, "", tc.args...)
		if code != tc.code || !strings.Contains(out+stderr, tc.says) {
			t.Errorf("%v: exit %d, want %d saying %q:\n%s%s", tc.args, code, tc.code, tc.says, out, stderr)
		}
	}
}
