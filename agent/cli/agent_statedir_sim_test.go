package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/agent/engine/enginetest"
	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/internal/githttptest"
)

// agentUnderTest is `rocefab agent` run in-process, with its HTTP API.
type agentUnderTest struct {
	t      *testing.T
	base   string
	errOut *agentStderr
	cancel context.CancelFunc
	done   chan int
}

func startAgent(t *testing.T, args ...string) *agentUnderTest {
	t.Helper()
	args = append([]string{"agent"}, args...)
	args = append(args, "--listen", "127.0.0.1:0", "--timeout", "10s", "--retries", "0", "--drift-jitter", "0s", "--drift-interval", "1h",
		"--counters-interval", "0s", "--include-hosts=false")
	ctx, cancel := context.WithCancel(context.Background())
	a := &agentUnderTest{t: t, errOut: &agentStderr{}, cancel: cancel, done: make(chan int, 1)}
	go func() { a.done <- run(ctx, args, strings.NewReader(""), io.Discard, a.errOut) }()
	t.Cleanup(a.stop)
	addr := regexp.MustCompile(`serving on (127\.0\.0\.1:\d+)`)
	for deadline := time.Now().Add(30 * time.Second); a.base == ""; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the agent did not start:\n%s", a.errOut.String())
		}
		if m := addr.FindStringSubmatch(a.errOut.String()); m != nil {
			a.base = "http://" + m[1]
		}
	}
	// Serving comes before the first intent load (a git clone can take a
	// while); callers act once /readyz says so, as an orchestrator would.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if code, _ := a.call(http.MethodGet, "/readyz"); code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the agent never became ready:\n%s", a.errOut.String())
		}
	}
	return a
}

func (a *agentUnderTest) stop() {
	if a.cancel == nil {
		return
	}
	a.cancel()
	a.cancel = nil
	select {
	case <-a.done:
	case <-time.After(60 * time.Second):
		a.t.Error("the agent did not stop")
	}
}

func (a *agentUnderTest) call(method, path string) (int, string) {
	a.t.Helper()
	req, _ := http.NewRequest(method, a.base+path, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if strings.Contains(string(body), enginetest.Password()) {
		a.t.Fatalf("%s %s served the switch password", method, path)
	}
	return resp.StatusCode, string(body)
}

// drift starts a drift run over the API, waits for it, and returns each
// device's state from it.
func (a *agentUnderTest) drift() map[string]string {
	a.t.Helper()
	code, body := a.call(http.MethodPost, "/api/v1/runs?kind=drift")
	var started struct{ ID string }
	if code != http.StatusAccepted || json.Unmarshal([]byte(body), &started) != nil || started.ID == "" {
		a.t.Fatalf("POST drift: %d %s", code, body)
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			a.t.Fatalf("drift run %s did not finish:\n%s", started.ID, a.errOut.String())
		}
		code, body := a.call(http.MethodGet, "/api/v1/runs/"+started.ID)
		var run struct {
			Result  string
			Devices []struct{ Device, Status, Error string }
		}
		if code != http.StatusOK || json.Unmarshal([]byte(body), &run) != nil || run.Result == "" || run.Result == "running" {
			continue
		}
		states := map[string]string{}
		for _, d := range run.Devices {
			states[d.Device] = d.Status
		}
		return states
	}
}

// cliDrift runs drift -o json and returns each device's status.
func (c *simCLI) drift(wantCode int, args ...string) map[string]string {
	c.t.Helper()
	out := c.want(wantCode, "", append([]string{"drift", c.intent, "-o", "json", "--detailed-exitcode"}, args...)...)
	var p compliance.Plan
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		c.t.Fatalf("drift -o json: %v\n%s", err, out)
	}
	states := map[string]string{}
	for _, d := range p.Devices {
		states[d.Device] = string(d.Status)
	}
	return states
}

var sharedStateKinds = []enginetest.Spec{
	{Name: "leaf-eos", Kind: enginetest.EOS, Ports: 1},
	{Name: "leaf-nvue", Kind: enginetest.Cumulus, Ports: 1},
	{Name: "leaf-junos", Kind: enginetest.Junos, Ports: 1},
	{Name: "leaf-sonic", Kind: enginetest.SONiC, Ports: 1},
}

// TestAgentAndCLIShareTheStateDir: the CLI applies a second revision of
// the intent (its singletons, the EOS qos map and the NVUE mapping, move
// from rocefab's first values to new ones); the agent, on the same state
// directory, then calls every device compliant, as the CLI does, never a
// conflict. After hand changes on an SSH and a gNMI device both call those
// two drifted, the rest compliant.
func TestAgentAndCLIShareTheStateDir(t *testing.T) {
	c := newSimCLI(t, sharedStateKinds)
	c.want(ExitOK, "", "apply", c.intent, "--auto-approve", "--allow-disruptive")
	c.commitIntent(enginetest.Params{VLAN: 200, NoDrop: 4}, "fabric: lossless VLAN 200, no-drop priority 4")
	c.want(ExitOK, "", "apply", c.intent, "--auto-approve", "--allow-disruptive")

	want := map[string]string{}
	for _, s := range sharedStateKinds {
		want[s.Name] = string(compliance.StatusCompliant)
	}
	if got := c.drift(ExitOK); !equalStates(got, want) {
		t.Fatalf("CLI drift after its apply: %v", got)
	}
	a := startAgent(t, c.intent, "--state-dir", c.state)
	if got := a.drift(); !equalStates(got, want) {
		t.Fatalf("agent drift on the CLI's state directory: %v, want %v", got, want)
	}

	if err := c.fleet.Switch("leaf-eos").SSH.HandChange("interface Ethernet1", "mtu 1500"); err != nil {
		t.Fatal(err)
	}
	sonic := c.fleet.Switch("leaf-sonic").GNMI
	var mtuPath string
	for p := range sonic.Leaves() {
		if strings.HasSuffix(p, "/PORT/Ethernet0/mtu") {
			mtuPath = p
		}
	}
	if mtuPath == "" {
		t.Fatalf("no port MTU on the SONiC target:\n%s", sonic.Tree())
	}
	if err := sonic.HandChange(mtuPath, devcfg.Value("1500")); err != nil {
		t.Fatal(err)
	}
	want["leaf-eos"], want["leaf-sonic"] = string(compliance.StatusDrifted), string(compliance.StatusDrifted)
	if got := a.drift(); !equalStates(got, want) {
		t.Errorf("agent drift after hand changes: %v, want %v", got, want)
	}
	if got := c.drift(ExitChanges); !equalStates(got, want) {
		t.Errorf("CLI drift after hand changes: %v, want %v", got, want)
	}
}

// TestAgentFreshStateDirKnowsRocefabsConfig: an agent on a fresh state
// directory (a new runner, a wiped volume) following the intent's git
// repository finds what the CLI applied from an earlier commit to be
// rocefab's own through the history: its plan of the newer commit shows
// changes, no conflict, and its drift says drifted, not conflict.
func TestAgentFreshStateDirKnowsRocefabsConfig(t *testing.T) {
	c := newSimCLI(t, sharedStateKinds)
	c.want(ExitOK, "", "apply", c.intent, "--auto-approve", "--allow-disruptive")
	c.commitIntent(enginetest.Params{VLAN: 200, NoDrop: 4}, "fabric: lossless VLAN 200, no-drop priority 4")
	srv := githttptest.Serve(t, filepath.Dir(c.intent), "netops", "Git-Pa55word-4-the-repo")
	a := startAgent(t, "--git-url", srv.URL, "--git-branch", "master", "--state-dir", filepath.Join(t.TempDir(), "fresh"))
	states := a.drift()
	if len(states) != len(sharedStateKinds) {
		t.Fatalf("agent drift: %v\n%s", states, a.errOut.String())
	}
	for dev, st := range states {
		if st != string(compliance.StatusDrifted) {
			t.Errorf("%s: %s on a fresh state directory, want drifted (rocefab's earlier config is its own)", dev, st)
		}
	}
	a.stop()

	// The same intent outside git: nobody can tell whose the singletons
	// are, and the agent says so.
	loose := filepath.Join(t.TempDir(), "fabric.yaml")
	if err := os.WriteFile(loose, c.fleet.Intent(enginetest.Params{VLAN: 200, NoDrop: 4}), 0o600); err != nil {
		t.Fatal(err)
	}
	b := startAgent(t, loose, "--state-dir", filepath.Join(t.TempDir(), "fresh"))
	if st := b.drift(); st["leaf-eos"] != string(compliance.StatusConflict) {
		t.Errorf("without history or state, rocefab's earlier EOS qos map is not known as its own: %v, want conflict on leaf-eos", st)
	}
}

func equalStates(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
