package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestAgentSettingsPrecedence: flag > ROCEFAB_AGENT_* variable > agent:
// section of --config > default, for every kind of setting.
func TestAgentSettingsPrecedence(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "rocefab.yaml")
	err := os.WriteFile(cfg, []byte(`state-dir: /var/lib/rocefab-test
agent:
  git:
    url: https://git.example.com/net/fabric.git
    branch: prod
  intent:
    paths: [fabric, extra]
  drift:
    interval: 5m
    jitter: 9s
  apply:
    auto: true
    max-devices: 3
  http:
    listen: 127.0.0.1:9999
  notify:
    webhook-url: https://hooks.example.com/services/SECRET
  shard: 1/3
`), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("ROCEFAB_AGENT_DRIFT_JITTER", "7s")
	t.Setenv("ROCEFAB_AGENT_APPLY_MAX_DEVICES", "4")
	t.Setenv("ROCEFAB_AGENT_GIT_BRANCH", "staging")
	code, out, errOut := runCLI(t, "", "agent", "--config", cfg, "--print-settings", "--drift-interval", "3m", "--git-branch", "hotfix")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, tc := range []struct {
		key  string
		want any
		why  string
	}{
		{"agent.drift.interval", "3m0s", "flag over file"},
		{"agent.drift.jitter", "7s", "variable over file"},
		{"agent.git.branch", "hotfix", "flag over variable and file"},
		{"agent.apply.max-devices", float64(4), "variable over file"},
		{"agent.apply.auto", true, "file over default"},
		{"agent.git.url", "https://git.example.com/net/fabric.git", "file"},
		{"agent.http.listen", "127.0.0.1:9999", "file"},
		{"agent.shard", "1/3", "file"},
		{"agent.probe.interval", "0s", "default"},
		{"agent.history.max-runs", float64(10000), "default"},
		{"agent.notify.webhook-url", "<redacted>", "secret"},
		{"state-dir", "/var/lib/rocefab-test", "shared setting from the file"},
	} {
		if v := got[tc.key]; v != tc.want {
			t.Errorf("%s = %#v, want %#v (%s)", tc.key, v, tc.want, tc.why)
		}
	}
	if paths, _ := got["agent.intent.paths"].([]any); len(paths) != 2 || paths[0] != "fabric" {
		t.Errorf("intent paths %v", got["agent.intent.paths"])
	}
	if strings.Contains(out, "SECRET") {
		t.Fatal("the webhook URL is printed")
	}
}

func TestAgentUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"no intent", []string{"agent", "--state-dir", dir}, nil, "no intent"},
		{"bad shard", []string{"agent", "x", "--shard", "3/3", "--state-dir", dir}, nil, "--shard"},
		{"beyond localhost without a token", []string{"agent", "../../examples/basic", "--listen", "0.0.0.0:0", "--state-dir", dir}, map[string]string{"ROCEFAB_AGENT_TOKEN": ""}, "bearer token is required"},
		{"token file missing", []string{"agent", "../../examples/basic", "--token-file", filepath.Join(dir, "nope"), "--state-dir", dir}, nil, "API token"},
		{"webhook variable unset", []string{"agent", "../../examples/basic", "--webhook-url", "env:ROCEFAB_TEST_NO_SUCH_VAR", "--state-dir", dir}, nil, "ROCEFAB_TEST_NO_SUCH_VAR is not set"},
		{"git token variable unset", []string{"agent", "--git-url", "https://example.com/x.git", "--git-token-env", "ROCEFAB_TEST_NO_TOKEN", "--state-dir", dir}, nil, "ROCEFAB_TEST_NO_TOKEN"},
		{"webhook not http", []string{"agent", "../../examples/basic", "--webhook-url", "ftp://hooks.example.com/SECRETPART", "--state-dir", dir, "--listen", "127.0.0.1:0"}, nil, "not an http(s) URL"},
		{"mesh flows per link", []string{"agent", "../../examples/lab", "--mesh-flows-per-link", "0", "--state-dir", dir}, nil, "--mesh-flows-per-link 0"},
		{"mesh spread", []string{"agent", "../../examples/lab", "--mesh-spread", "0s", "--state-dir", dir}, nil, "--mesh-spread"},
		{"mesh host pps", []string{"agent", "../../examples/lab", "--mesh-host-pps", "0", "--state-dir", dir}, nil, "--mesh-host-pps"},
		{"mesh hop timeout", []string{"agent", "../../examples/lab", "--mesh-hop-timeout", "0s", "--state-dir", dir}, nil, "--mesh-hop-timeout"},
		{"mesh interval negative", []string{"agent", "../../examples/lab", "--mesh-interval", "-1s", "--state-dir", dir, "--listen", "127.0.0.1:0"}, nil, "mesh interval -1s is negative"},
		{"branch and tag", []string{"agent", "--git-url", "https://example.com/x.git", "--git-branch", "a", "--git-tag", "b", "--state-dir", dir}, nil, "not both"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			code, _, errOut := runCLI(t, "", tc.args...)
			if code != ExitUsage || !strings.Contains(errOut, tc.want) {
				t.Fatalf("exit %d, stderr %q; want %d with %q", code, errOut, ExitUsage, tc.want)
			}
		})
	}
}

// agentStderr is a bytes.Buffer safe to read while the agent writes.
type agentStderr struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *agentStderr) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *agentStderr) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestAgentRunsAndStops: `rocefab agent PATH` serves, becomes ready on a
// valid folder, refuses a second instance on its state directory, and
// exits 0 when its context ends (SIGTERM).
func TestAgentRunsAndStops(t *testing.T) {
	state := t.TempDir()
	args := []string{"agent", "../../examples/basic", "--state-dir", state, "--listen", "127.0.0.1:0",
		"--timeout", "300ms", "--retries", "0", "--drift-jitter", "0s", "--counters-interval", "0s"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var errOut agentStderr
	done := make(chan int, 1)
	go func() { done <- run(ctx, args, strings.NewReader(""), io.Discard, &errOut) }()
	addr := regexp.MustCompile(`serving on (127\.0\.0\.1:\d+)`)
	var base string
	deadline := time.Now().Add(15 * time.Second)
	for base == "" {
		if m := addr.FindStringSubmatch(errOut.String()); m != nil {
			base = "http://" + m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("no serving line: %s", errOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	for {
		resp, err := http.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("never ready: %s", errOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	resp, err := http.Get(base + "/api/v1/status")
	if err != nil {
		t.Fatal(err)
	}
	var st struct {
		Intent struct{ Fabric string }
		Source string
	}
	_ = json.NewDecoder(resp.Body).Decode(&st)
	resp.Body.Close()
	if st.Intent.Fabric != "basic" || !strings.HasPrefix(st.Source, "folder ") {
		t.Fatalf("status %+v", st)
	}

	code, _, second := runCLI(t, "", append(args[:len(args):len(args)], "--listen", "127.0.0.1:0")...)
	if code != ExitFailure || !strings.Contains(second, filepath.Join(state, "agent.lock")) || !strings.Contains(second, "PID") {
		t.Fatalf("second agent: exit %d %q", code, second)
	}

	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d after stop: %s", code, errOut.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("agent did not stop")
	}
}

// TestAgentSettingsDocumented: docs/agent.md names every setting's key,
// flag and variable.
func TestAgentSettingsDocumented(t *testing.T) {
	data, err := os.ReadFile("../../docs/agent.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	for _, s := range agentSettings {
		if slices.Contains(unsafeFlags, s.flag) {
			continue // flag only: TestAgentDocSecurityStatements checks their rows
		}
		for _, want := range []string{"`agent." + s.key + "`", "`--" + s.flag + "`", "`" + s.Env() + "`"} {
			if !strings.Contains(doc, want) {
				t.Errorf("docs/agent.md does not mention %s", want)
			}
		}
	}
}
