package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/agent/daemon"
	"github.com/rocefab/rocefab/agent/daemon/history"
	"github.com/rocefab/rocefab/agent/engine/enginetest"
	"github.com/rocefab/rocefab/drivers/sim/sshsim"
	"github.com/rocefab/rocefab/internal/githttptest"
)

// echoesPassword makes every device of the fleet reject the ECN threshold
// with an error that repeats the switch password, as a device echoing
// what it was sent (or a login banner) would.
func echoesPassword(f *enginetest.Fleet) {
	pw := enginetest.Password()
	for _, sw := range f.Switches {
		switch {
		case sw.Platform == "sonic" && sw.Transport == "gnmi":
			sw.Reject("sonic-db:/WRED_PROFILE", "% Invalid input: credential "+pw+" is not accepted here")
		case sw.Transport == "gnmi":
			sw.Reject("/qos/queue-management-profiles", "% Invalid input: credential "+pw+" is not accepted here")
		case sw.Platform == "junos":
			sw.Reject("drop-profiles", "error: credential "+pw+" is not accepted here\nsyntax error.")
		case sw.Platform == "cumulus":
			sw.Reject("min-threshold", "Error: credential "+pw+" is not accepted here")
		case sw.Platform == "sonic":
			sw.Reject("WRED_PROFILE", "Error: credential "+pw+" is not accepted here")
		default:
			sw.Reject("minimum-threshold", "% Invalid input: credential "+pw+" is not accepted here")
		}
	}
}

// outputs collects everything a test's rocefab runs printed or served.
type outputs struct {
	mu   sync.Mutex
	what []string
	text []string
}

func (o *outputs) add(what, text string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.what, o.text = append(o.what, what), append(o.text, text)
}

// check fails for every output holding the switch password or one of
// secrets, and when the runs never showed the device's message at all
// (then the test proved nothing).
func (o *outputs) check(t *testing.T, secrets ...string) {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	all := strings.Join(o.text, "\n")
	for i, text := range o.text {
		for _, s := range append(secrets, enginetest.Password()) {
			if strings.Contains(text, s) {
				t.Errorf("%s holds the secret %q:\n%s", o.what[i], s, excerpt(text, s))
			}
		}
	}
	for _, s := range []string{"credential <redacted> is not accepted here"} {
		if !strings.Contains(all, s) {
			t.Errorf("no output shows %q: the failing run did not happen as planned", s)
		}
	}
}

func excerpt(text, s string) string {
	i := strings.Index(text, s)
	return text[max(0, i-200):min(len(text), i+len(s)+200)]
}

// addStateDir adds every file below dir, whatever it is (reports,
// snapshots, the history database, the git working copy), and checks that
// none is readable by others.
func (o *outputs) addStateDir(t *testing.T, dir string) {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&fs.ModeSymlink != 0 {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		info, _ := d.Info()
		if info.Mode().Perm()&0o077 != 0 && !strings.Contains(path, string(filepath.Separator)+"git"+string(filepath.Separator)) {
			t.Errorf("%s is mode %v: state files are for the owner only", path, info.Mode().Perm())
		}
		o.add("state file "+path, string(data))
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatalf("no state files in %s", dir)
	}
}

// secretKinds is one switch of every platform and transport.
var secretKinds = []enginetest.Spec{
	{Name: "leaf-eos", Kind: enginetest.EOS},
	{Name: "leaf-nxos", Kind: enginetest.NXOS},
	{Name: "leaf-junos", Kind: enginetest.Junos},
	{Name: "leaf-nvue", Kind: enginetest.Cumulus},
	{Name: "leaf-sonic-ssh", Kind: enginetest.SONiCSSH},
	{Name: "leaf-sonic", Kind: enginetest.SONiC},
	{Name: "spine-oc", Kind: enginetest.OpenConfig},
}

// TestNoSecretInAnyOutputCLI: devices that echo the password in their
// errors, over SSH (EOS, NX-OS, Junos, NVUE, SONiC) and gNMI (SONiC,
// OpenConfig), make plan, apply, drift and rollback fail; every device's
// failure shows its message, redacted, and no output, log line (console
// or JSON, debug level), report or state file holds the password; state
// files are the owner's alone. A running-config read answered with an
// error is an error on every SSH platform (exit 1), never an empty
// configuration. (Hosts: TestHostContractNeverShowsThePassword in
// drivers/ssh.)
func TestNoSecretInAnyOutputCLI(t *testing.T) {
	fleet := enginetest.Start(t, secretKinds)
	dir := t.TempDir()
	intentFile := writeIntent(t, dir, "fabric.yaml", string(fleet.Intent(enginetest.Params{})))
	state := filepath.Join(t.TempDir(), "state")
	var o outputs
	rocefab := func(wantCode int, args ...string) string {
		t.Helper()
		return runRecorded(t, &o, state, []int{wantCode}, args...)
	}
	rocefab(ExitOK, "plan", intentFile)
	echoesPassword(fleet)
	rocefab(ExitFailure, "apply", intentFile, "--auto-approve", "--allow-disruptive")
	out := rocefab(ExitFailure, "apply", intentFile, "--auto-approve", "--allow-disruptive", "-o", "json", "--log-format", "json")
	refusedEverywhere(t, out, len(secretKinds))
	rocefab(ExitFailure, "apply", intentFile, "--auto-approve", "--allow-disruptive", "--on-failure", "continue", "--log-format", "console")
	rocefab(ExitChanges, "plan", intentFile, "-o", "markdown", "--detailed-exitcode")

	// Applied cleanly, then a change the devices refuse, and a rollback.
	for _, sw := range fleet.Switches {
		sw.ClearFaults()
	}
	out = rocefab(ExitOK, "apply", intentFile, "--auto-approve", "--allow-disruptive", "-o", "json")
	var rep struct{ ID string }
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.ID == "" {
		t.Fatalf("apply -o json: %v\n%s", err, out)
	}
	echoesPassword(fleet)
	newer := writeIntent(t, dir, "newer.yaml", string(fleet.Intent(enginetest.Params{ECNMin: "300KB"})))
	refusedEverywhere(t, rocefab(ExitFailure, "apply", newer, "--auto-approve", "-o", "json", "--log-format", "json"), len(secretKinds))
	rocefab(ExitFailure, "rollback", rep.ID, "--auto-approve", "--allow-disruptive")

	// Devices that answer the running-config read with an error echoing
	// the password: an error (exit 1), never an empty configuration.
	reads := map[string]string{"eos": "show running-config", "nxos": "show running-config", "junos": "show configuration | display set",
		"cumulus": "nv config show", "sonic": "show runningconfiguration all"}
	for _, sw := range fleet.Switches {
		if sw.SSH != nil {
			sw.SSH.SetFaults(sshsim.Faults{Answers: map[string]string{reads[sw.Platform]: "% Login failed for password " + enginetest.Password()}})
		}
	}
	runRecorded(t, &o, state, []int{ExitFailure}, "drift", intentFile, "--detailed-exitcode")
	out = runRecorded(t, &o, state, []int{ExitFailure}, "drift", intentFile, "--detailed-exitcode", "-o", "json", "--log-format", "json")
	var p compliance.Plan
	if err := json.Unmarshal([]byte(out), &p); err != nil {
		t.Fatal(err)
	}
	for _, d := range p.Devices {
		if sw := fleet.Switch(d.Device); sw.SSH != nil && (d.Status != compliance.StatusError || !strings.Contains(d.Error, "Login failed for password <redacted>")) {
			t.Errorf("drift %s: %s (%s), want an error with the redacted echo", d.Device, d.Status, d.Error)
		}
	}

	o.addStateDir(t, state)
	o.check(t)
}

// refusedEverywhere fails unless every device of an apply report failed
// with the device's echo, redacted: each platform then took the path the
// grep is about.
func refusedEverywhere(t *testing.T, report string, devices int) {
	t.Helper()
	var rep struct {
		Devices []struct{ Device, Outcome, Reason string }
	}
	if err := json.Unmarshal([]byte(report), &rep); err != nil {
		t.Fatalf("apply -o json: %v\n%s", err, report)
	}
	if len(rep.Devices) != devices {
		t.Fatalf("the report has %d devices, want %d", len(rep.Devices), devices)
	}
	for _, d := range rep.Devices {
		if d.Outcome == "applied" || !strings.Contains(d.Reason, "credential <redacted> is not accepted here") {
			t.Errorf("%s: %s without the redacted echo: %s", d.Device, d.Outcome, d.Reason)
		}
	}
}

// addHistory adds every run and device state of the agent's history,
// decoded: the database keeps run details gzipped, where a grep of the
// file would not see them.
func (o *outputs) addHistory(t *testing.T, path string) {
	t.Helper()
	db, err := history.Open(path, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	runs := 0
	for q := (history.Query{Limit: 1000}); ; {
		page, err := db.List(q)
		if err != nil {
			t.Fatal(err)
		}
		for _, brief := range page.Runs {
			run, err := db.Get(brief.ID)
			if err != nil {
				t.Fatal(err)
			}
			data, _ := json.Marshal(run)
			o.add("history run "+run.ID, string(data))
			runs++
		}
		if page.Next == "" {
			break
		}
		q.Before = page.Next
	}
	states, err := db.States()
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(states)
	o.add("history device states", string(data))
	if runs == 0 {
		t.Fatal("the history holds no run")
	}
}

// runRecorded runs rocefab with the state directory and debug logs,
// records what it printed, and fails unless it exits with one of codes.
func runRecorded(t *testing.T, o *outputs, state string, codes []int, args ...string) string {
	t.Helper()
	args = append(args, "--state-dir", state, "--timeout", "10s", "--retries", "0", "--log-level", "debug")
	code, out, errOut := runCLI(t, "", args...)
	o.add("stdout of rocefab "+strings.Join(args, " "), out)
	o.add("stderr of rocefab "+strings.Join(args, " "), errOut)
	if !slices.Contains(codes, code) {
		t.Fatalf("rocefab %s: exit %d, want %v\n%s", strings.Join(args, " "), code, codes, out)
	}
	return out
}

// TestNoSecretInAnyOutputAgent: the agent auto-applies a commit the devices
// refuse with the password in their errors; neither its logs, its API,
// its metrics, its webhooks nor any file of its state directory (history,
// reports, snapshots, the copy of the intent) holds the password.
func TestNoSecretInAnyOutputAgent(t *testing.T) {
	fleet := enginetest.Start(t, secretKinds)
	dir := t.TempDir()
	first := writeIntent(t, t.TempDir(), "fabric.yaml", string(fleet.Intent(enginetest.Params{})))
	if code, out, errOut := runCLI(t, "", "apply", first, "--auto-approve", "--allow-disruptive", "--state-dir", t.TempDir()); code != ExitOK {
		t.Fatalf("converging the fleet: exit %d\n%s%s", code, out, errOut)
	}
	// The commit the agent follows, from a repository served over HTTP
	// behind a password written in the URL: a hitless ECN change, refused.
	writeIntent(t, dir, "fabric.yaml", string(fleet.Intent(enginetest.Params{ECNMin: "300KB"})))
	commitAll(t, dir)
	const gitPassword = "Git-Pa55word-4-the-repo"
	gitSrv := githttptest.Serve(t, dir, "netops", gitPassword)
	echoesPassword(fleet)

	var o outputs
	var hookMu sync.Mutex
	var hooks []string
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		hookMu.Lock()
		hooks = append(hooks, string(body))
		hookMu.Unlock()
	}))
	defer hook.Close()
	const token = "agent-token-4d1c8e2f9b7a6035"
	t.Setenv("ROCEFAB_SECRET_GREP_TOKEN", token)
	state := filepath.Join(t.TempDir(), "state")
	args := []string{"agent", "--git-url", gitSrv.URL, "--state-dir", state, "--listen", "127.0.0.1:0", "--token-env", "ROCEFAB_SECRET_GREP_TOKEN",
		"--auto-apply", "--max-devices", "10", "--webhook-url", hook.URL, "--webhook-backoff", "10ms",
		"--timeout", "10s", "--retries", "0", "--drift-jitter", "0s", "--counters-interval", "0s", "--include-hosts=false",
		"--log-level", "debug", "--log-format", "json"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var errOut agentStderr
	done := make(chan int, 1)
	go func() { done <- run(ctx, args, strings.NewReader(""), io.Discard, &errOut) }()
	base := ""
	addr := regexp.MustCompile(`serving on (127\.0\.0\.1:\d+)`)
	get := func(path string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, base+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	deadline := time.Now().Add(60 * time.Second)
	var applyID string
	for applyID == "" {
		if time.Now().After(deadline) {
			t.Fatalf("no failed apply run recorded:\n%s", errOut.String())
		}
		time.Sleep(50 * time.Millisecond)
		if base == "" {
			if m := addr.FindStringSubmatch(errOut.String()); m != nil {
				base = "http://" + m[1]
			}
			continue
		}
		code, body := get("/api/v1/runs?kind=apply")
		var page struct{ Runs []struct{ ID, Result string } }
		if code == 200 && json.Unmarshal([]byte(body), &page) == nil && len(page.Runs) > 0 && page.Runs[0].Result == "failure" {
			applyID = page.Runs[0].ID
		}
	}
	// A drift check too, and wait for the webhook of the changed states.
	if code, body := get("/api/v1/status"); code != 200 {
		t.Fatalf("status %d %s", code, body)
	}
	for _, path := range []string{"/api/v1/status", "/api/v1/runs", "/api/v1/runs?kind=apply", "/api/v1/runs/" + applyID, "/metrics", "/readyz", "/healthz"} {
		code, body := get(path)
		o.add(fmt.Sprintf("GET %s (%d)", path, code), body)
		if path == "/api/v1/runs/"+applyID {
			var run struct {
				Devices []struct{ Device, Status, Error string }
			}
			if err := json.Unmarshal([]byte(body), &run); err != nil || len(run.Devices) != len(secretKinds) {
				t.Fatalf("run %s: %v, %d devices\n%s", applyID, err, len(run.Devices), body)
			}
			for _, d := range run.Devices {
				if d.Status != "failed" || !strings.Contains(d.Error, "credential <redacted> is not accepted here") {
					t.Errorf("agent run %s: %s %s without the redacted echo: %s", applyID, d.Device, d.Status, d.Error)
				}
			}
		}
	}
	cancel()
	select {
	case code := <-done:
		if code != ExitOK {
			t.Errorf("agent exit %d", code)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("agent did not stop")
	}
	o.add("agent logs", errOut.String())
	hookMu.Lock()
	t.Logf("%d webhook notifications", len(hooks))
	for i, h := range hooks {
		o.add(fmt.Sprintf("webhook %d", i), h)
	}
	hookMu.Unlock()
	o.addStateDir(t, state)
	o.addHistory(t, filepath.Join(state, daemon.HistoryFile))
	o.check(t, gitPassword)
	if gitSrv.Authorized.Load() == 0 {
		t.Fatal("the agent never fetched from the git server")
	}
	if cfg, err := os.ReadFile(filepath.Join(state, "git", ".git", "config")); err != nil || !strings.Contains(string(cfg), "netops@") {
		t.Fatalf("the working copy's config (%v):\n%s", err, cfg)
	}
}

// commitAll commits dir/fabric.yaml to branch main of a new repository.
func commitAll(t *testing.T, dir string) {
	t.Helper()
	repo, err := git.PlainInitWithOptions(dir, &git.PlainInitOptions{InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName("main")}})
	if err != nil {
		t.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Add("fabric.yaml"); err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Commit("fabric", &git.CommitOptions{Author: &object.Signature{Name: "netops", Email: "netops@example.com", When: time.Now()}}); err != nil {
		t.Fatal(err)
	}
}
