package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/internal/netnstest"
	"github.com/rocefab/rocefab/validators/cabling"
	"github.com/rocefab/rocefab/validators/probe"
)

// TestLabAsTheREADMESays: examples/lab brought up as its README says
// (up.sh, as root, with its own RFLAB_PREFIX so it never touches a lab
// someone runs by hand), then the built binary's `rocefab probe` from
// outside: it passes on the first try, because up.sh started a responder
// in every host namespace. Then, as an operator would meet them: a host
// whose responder stopped is no_responder, a leaf with forwarding off is
// no_path. down.sh stops the responders and removes every namespace.
func TestLabAsTheREADMESays(t *testing.T) {
	netnstest.Require(t)
	for _, tool := range []string{"bash", "ip", "awk", "setsid", "seq"} {
		netnstest.RequireTool(t, tool)
	}
	bin := buildRocefab(t)
	prefix := fmt.Sprintf("rf18%04d-", os.Getpid()%10000)
	logs := t.TempDir()
	env := append(os.Environ(), "RFLAB_PREFIX="+prefix, "RFLAB_LOG_DIR="+logs, "PATH="+filepath.Dir(bin)+":"+os.Getenv("PATH"))
	script := func(name string) (string, error) {
		cmd := exec.Command("bash", filepath.Join(examplesDir, "lab", name))
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	t.Cleanup(func() {
		if out, err := script("down.sh"); err != nil {
			t.Errorf("down.sh: %v\n%s", err, out)
		}
	})
	out, err := script("up.sh")
	if err != nil {
		t.Fatalf("up.sh: %v\n%s", err, out)
	}
	if !strings.Contains(out, "probe responders: 'rocefab probe serve' runs in "+prefix+"h1 "+prefix+"h2 "+prefix+"h3 "+prefix+"h4") {
		t.Fatalf("up.sh does not say it started the responders:\n%s", out)
	}
	data, err := os.ReadFile(filepath.Join(examplesDir, "lab", "fabric.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	fabric := filepath.Join(t.TempDir(), "fabric.yaml")
	if err := os.WriteFile(fabric, []byte(strings.ReplaceAll(string(data), "netns: rflab-", "netns: "+prefix)), 0o644); err != nil {
		t.Fatal(err)
	}
	probeRun := func() (int, *probe.Report, string) {
		t.Helper()
		cmd := exec.Command(bin, "probe", fabric, "--output", "json", "--no-counters")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		stdout, err := cmd.Output()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		var rep probe.Report
		if err := json.Unmarshal(stdout, &rep); err != nil {
			t.Fatalf("probe -o json (exit %d): %v\n%s\n%s", code, err, stdout, stderr.String())
		}
		return code, &rep, stderr.String()
	}

	// The first try, as the README says to run it.
	code, rep, stderr := probeRun()
	if code != 0 || !rep.Pass() || len(rep.Pairs) < 4 {
		t.Fatalf("the lab does not probe clean on the first try: exit %d, %d pairs, findings %+v\n%s", code, len(rep.Pairs), rep.Findings, stderr)
	}

	// up.sh runs lldpd in every namespace where it is installed (CI
	// installs it): rocefab cabling, reading each through its own socket,
	// verifies every link of the lab as built.
	if strings.Contains(out, "lldpd: runs in every namespace") {
		sock := "/run/" + prefix + "lldpd/{name}.sock"
		deadline := time.Now().Add(30 * time.Second)
		for {
			stdout, err := exec.Command(bin, "cabling", fabric, "--lldp-socket", sock, "--output", "json").Output()
			var crep cabling.Report
			jerr := json.Unmarshal(stdout, &crep)
			if err == nil && jerr == nil && crep.Verdict == cabling.Pass && crep.Summary.Verified == 8 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("rocefab cabling does not verify the lab's 8 links within 30s: %v\n%s", err, stdout)
			}
			time.Sleep(time.Second)
		}
	} else if os.Getenv("ROCEFAB_REQUIRE_NETNS") == "1" {
		t.Fatalf("up.sh ran no lldpd (lldpd required under ROCEFAB_REQUIRE_NETNS=1):\n%s", out)
	}

	// h4's responder stops: its pairs are no_responder, and say why.
	ns := func(node string, args ...string) string {
		t.Helper()
		out, err := exec.Command("ip", append([]string{"netns", "exec", prefix + node}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", node, args, err, out)
		}
		return string(out)
	}
	pids, err := exec.Command("ip", "netns", "pids", prefix+"h4").Output()
	if err != nil || len(strings.Fields(string(pids))) == 0 {
		t.Fatalf("no responder runs in %sh4 (%v)", prefix, err)
	}
	for _, pid := range strings.Fields(string(pids)) {
		_ = exec.Command("kill", pid).Run()
	}
	code, rep, _ = probeRun()
	if code != ExitFailure {
		t.Fatalf("h4 without a responder: exit %d", code)
	}
	sawNoResponder := false
	for _, f := range rep.Findings {
		if strings.HasSuffix(f.Pair, "-> h4") {
			if f.Code != probe.CodeNoResponder || !strings.Contains(f.Message, "answered ICMP port unreachable") {
				t.Errorf("to h4 without a responder: %s %s", f.Code, f.Message)
			}
			sawNoResponder = true
		} else if f.Severity == probe.SeverityError {
			t.Errorf("a pair not to h4 failed: %+v", f)
		}
	}
	if !sawNoResponder {
		t.Fatalf("no finding for h4: %+v", rep.Findings)
	}

	// leaf2 stops forwarding: pairs into its hosts from leaf1's are
	// no_path, naming the path as far as it went.
	ns("leaf2", "sysctl", "-qw", "net.ipv4.ip_forward=0")
	code, rep, _ = probeRun()
	if code != ExitFailure {
		t.Fatalf("leaf2 not forwarding: exit %d", code)
	}
	sawNoPath := false
	for _, f := range rep.Findings {
		if f.Code == probe.CodeNoPath {
			// From leaf1's hosts the path goes as far as a spine; from
			// leaf2's own, not even to leaf2.
			if strings.HasPrefix(f.Pair, "h1 ") || strings.HasPrefix(f.Pair, "h2 ") {
				sawNoPath = true
				if !strings.Contains(f.Message, "stops after hop 2 (") {
					t.Errorf("no_path across the spines does not say where it stops: %s", f.Message)
				}
			} else if !strings.Contains(f.Message, "not even the first") {
				t.Errorf("no_path behind leaf2 itself: %s", f.Message)
			}
		}
		if f.Code == probe.CodeNoResponder && !strings.HasSuffix(f.Pair, "-> h4") {
			t.Errorf("a broken path read as a missing responder: %+v", f)
		}
	}
	if !sawNoPath {
		t.Fatalf("leaf2 not forwarding gave no no_path: %+v", rep.Findings)
	}
	ns("leaf2", "sysctl", "-qw", "net.ipv4.ip_forward=1")

	out, err = script("down.sh")
	if err != nil {
		t.Fatalf("down.sh: %v\n%s", err, out)
	}
	list, _ := exec.Command("ip", "netns", "list").Output()
	if strings.Contains(string(list), prefix) {
		t.Fatalf("down.sh left namespaces:\n%s", list)
	}
}
