package cli

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/agent/fleet"
	"github.com/rocefab/rocefab/examples/lab"
	"github.com/rocefab/rocefab/internal/fabriclab"
	"github.com/rocefab/rocefab/internal/netnstest"
	"github.com/rocefab/rocefab/validators/probe"
	"github.com/rocefab/rocefab/validators/probe/mesh"
)

func TestProbeMeshFlagsAreChecked(t *testing.T) {
	for _, args := range [][]string{
		{"--flows-per-link", "0"}, {"--interval", "0s"}, {"--host-pps", "0"}, {"--hop-timeout", "-1s"},
	} {
		code, _, stderr := runCLI(t, "", append([]string{"probe", "--mesh", "../../examples/lab"}, args...)...)
		if code != ExitUsage || !strings.Contains(stderr, args[0]) {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
}

// buildRocefab builds the rocefab binary for tests that run it as users
// do, in separate processes.
func buildRocefab(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		netnstest.RequireTool(t, "go")
	}
	bin := filepath.Join(t.TempDir(), "rocefab")
	cmd := exec.Command(goTool, "build", "-o", bin, "github.com/rocefab/rocefab/cmd/rocefab")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestProbeMeshOnTheLabAsUsersRunIt: the two-spine lab in namespaces,
// `rocefab probe serve` in each host namespace and `rocefab probe --mesh`
// from outside, each its own process: a clean fabric passes three runs in
// a row (exit 0), `probe flows` (what the mesh runs over SSH) traces and
// measures a flow from inside h1, and a DSCP remark on spine2's link to
// leaf1 is named with that direction (exit 1), in text, Markdown and JSON.
func TestProbeMeshOnTheLabAsUsersRunIt(t *testing.T) {
	netnstest.Require(t)
	netnstest.RequireTool(t, "nft")
	bin := buildRocefab(t)
	l := fabriclab.Example(t)
	intentYAML := string(lab.Intent)
	for name, ns := range l.NS {
		intentYAML = strings.ReplaceAll(intentYAML, "rflab-"+name+"}", ns.Name+"}")
		intentYAML = strings.ReplaceAll(intentYAML, "rflab-"+name+",", ns.Name+",")
		intentYAML = strings.ReplaceAll(intentYAML, "rflab-"+name+"\n", ns.Name+"\n")
	}
	if strings.Contains(intentYAML, "rflab-") {
		t.Fatalf("lab names left in the intent:\n%s", intentYAML)
	}
	fabric := filepath.Join(t.TempDir(), "fabric.yaml")
	if err := os.WriteFile(fabric, []byte(intentYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"h1", "h2", "h3", "h4"} {
		ns := l.NS[h]
		serve := ns.Command(bin, "probe", "serve")
		var log bytes.Buffer
		serve.Stdout, serve.Stderr = &log, &log
		if err := serve.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_ = serve.Process.Kill()
			_ = serve.Wait()
			_ = os.RemoveAll(fleet.ProbeRunDir(ns.Name))
		})
		sock := filepath.Join(fleet.ProbeRunDir(ns.Name), "probe.sock")
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			if _, err := os.Stat(sock); err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("probe serve on %s did not come up: %s", h, log.String())
			}
		}
	}
	mesh := func(args ...string) (int, string) {
		t.Helper()
		cmd := exec.Command(bin, append([]string{"probe", "--mesh", "--interval", "1s", "--host-pps", "10000", fabric}, args...)...)
		var out, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		code := 0
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if stderr.Len() > 0 && code != 0 && code != ExitFailure {
			t.Logf("stderr: %s", stderr.String())
		}
		return code, out.String()
	}
	for run := range 3 {
		code, out := mesh("--output", "json")
		rep, err := readMeshReport(out)
		if err != nil {
			t.Fatalf("run %d: %v\n%s", run, err, out)
		}
		if code != ExitOK || !rep.Pass() || len(rep.Localization.Findings) != 0 || len(rep.Flows) < 16 {
			t.Fatalf("run %d of a clean lab: exit %d, verdict %s, %d findings, %d flows", run, code, rep.Verdict, len(rep.Localization.Findings), len(rep.Flows))
		}
	}

	// The host side of the mesh over SSH: `probe flows` on h1, the
	// intent on standard input, through h1's probe server.
	run := probe.FlowRun{Policy: probe.DefaultPolicy(), Flows: []probe.FlowSpec{{ID: "f", Target: probe.Target{Name: "h3", Addr: netip.MustParseAddr("198.51.100.2")},
		SrcPort: 50123, Trace: true, Measure: true}}}
	run.Policy.Count = 100
	spec, _ := json.Marshal(run)
	flows := l.NS["h1"].Command(bin, "probe", "flows", "--intent", "-", "--from", "h1", "--run", base64.StdEncoding.EncodeToString(spec))
	flows.Stdin = strings.NewReader(intentYAML)
	raw, err := flows.Output()
	var got fleet.FlowsOutput
	if err != nil || json.Unmarshal(raw, &got) != nil || got.Schema != fleet.FlowsSchema || len(got.Flows) != 1 {
		t.Fatalf("probe flows: %v\n%s", err, raw)
	}
	if r := got.Flows[0]; r.Trace == nil || !r.Trace.Reached || len(r.Trace.Hops) != 3 || r.Measured == nil || r.Measured.Received != 100 {
		t.Fatalf("probe flows result %+v", r)
	}

	defer l.Nft(t, "spine2", "postrouting", `oifname "swp1" ip dscp set cs1`)()
	code, out := mesh()
	want := regexp.MustCompile(`LOCALIZED +dscp_remarked +spine2 swp1 → leaf1 swp4: DSCP 26 arrived as 8 on (\d+) of (\d+) flows through it; 0 of \d+ flows elsewhere`)
	m := want.FindStringSubmatch(out)
	if code != ExitFailure || m == nil || m[1] != m[2] {
		t.Fatalf("exit %d, want 1 and the remark named:\n%s", code, out)
	}
	code, out = mesh("--output", "markdown")
	if code != ExitFailure || !strings.Contains(out, "| **localized** | `dscp_remarked` | `spine2 swp1 → leaf1 swp4` |") {
		t.Fatalf("markdown, exit %d:\n%s", code, out)
	}
}

func readMeshReport(s string) (*mesh.Report, error) { return mesh.ReadReport(strings.NewReader(s)) }
