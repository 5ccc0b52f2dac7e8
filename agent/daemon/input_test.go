package daemon

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/rocefab/rocefab/agent/daemon/history"
	"github.com/rocefab/rocefab/agent/daemon/intentsrc"
	"github.com/rocefab/rocefab/intent"
)

// folderConfig is the fixture's configuration with a local folder as the
// source instead of the git repository.
func (f *fixture) folderConfig(dir string) Config {
	cfg := f.config()
	cfg.Source = intentsrc.Folder{Paths: []string{dir}}
	return cfg
}

func statusFetch(t *testing.T, r *running) fetchStatus {
	t.Helper()
	code, body := r.get("/api/v1/status", "")
	if code != 200 {
		t.Fatalf("status %d", code)
	}
	var st struct{ Fetch fetchStatus }
	if err := json.Unmarshal([]byte(body), &st); err != nil {
		t.Fatal(err)
	}
	return st.Fetch
}

// TestFolderSourceHostileFiles: a folder-source agent whose folder gains a
// link to /dev/zero or a FIFO named *.yaml neither spins nor hangs: the
// next read refuses the file at once, readiness turns 503 and says why,
// the status names the file, checks go on from the last valid intent, and
// removing the file makes the agent ready again.
func TestFolderSourceHostileFiles(t *testing.T) {
	for _, tc := range []struct {
		name, file, want string
		make             func(path string) error
	}{
		{"link to /dev/zero", "zero.yaml", "zero.yaml links to /dev/zero, outside the intent folder", func(p string) error { return os.Symlink("/dev/zero", p) }},
		{"FIFO", "pipe.yaml", "pipe.yaml is a named pipe (FIFO), not a regular file", func(p string) error { return syscall.Mkfifo(p, 0o644) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, 1)
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "fabric.yaml"), []byte(f.intent("150KB", "9216")), 0o644); err != nil {
				t.Fatal(err)
			}
			f.converge("150KB", "9216")
			a := f.start(f.folderConfig(dir), f.deps())
			waitFor(t, "ready", func() bool { code, _ := a.get("/readyz", ""); return code == 200 })

			hostile := filepath.Join(dir, tc.file)
			if err := tc.make(hostile); err != nil {
				t.Fatal(err)
			}
			var body string
			waitFor(t, "readiness to say the source is refused", func() bool {
				var code int
				code, body = a.get("/readyz", "")
				return code == 503
			})
			if !strings.Contains(body, "the intent source holds a file that is refused") || !strings.Contains(body, "still checking revision sha256:") ||
				strings.Contains(body, dir) {
				t.Fatalf("readyz: %q", body)
			}
			if fetch := statusFetch(t, a); !fetch.Refused || !strings.Contains(fetch.Error, tc.want) || fetch.FailingSince.IsZero() {
				t.Fatalf("status fetch: %+v", fetch)
			}
			if v, _ := metricValue(t, a, "rocefab_intent_fetch_errors_total", nil); v < 1 {
				t.Fatalf("fetch errors %v", v)
			}
			if run, err := a.RunNow(t.Context(), history.KindDrift); err != nil || run.Result != history.ResultSuccess {
				t.Fatalf("drift from the last valid intent: %v %+v", err, run)
			}

			if err := os.Remove(hostile); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "ready again", func() bool { code, _ := a.get("/readyz", ""); return code == 200 })
		})
	}
}

// TestFolderSourceRefusedFromTheStart: with no valid intent yet, readiness
// names both problems.
func TestFolderSourceRefusedFromTheStart(t *testing.T) {
	f := newFixture(t, 1)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "fabric.yaml"), []byte(f.intent("150KB", "9216")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.yaml")); err != nil {
		t.Fatal(err)
	}
	a := f.start(f.folderConfig(dir), f.deps())
	var body string
	waitFor(t, "a refused read", func() bool {
		var code int
		code, body = a.get("/readyz", "")
		return code == 503 && strings.Contains(body, "refused")
	})
	if !strings.HasPrefix(body, "not ready: no valid intent loaded yet: the intent source holds a file that is refused") {
		t.Fatalf("readyz: %q", body)
	}
}

// TestHugeCommitRefused: a commit over the loader's limits (too many
// devices, a file too large) is a failed reload naming the limit (RF017);
// the agent keeps the last valid intent and never plans the commit.
func TestHugeCommitRefused(t *testing.T) {
	f := newFixture(t, 1)
	c1 := f.commit("first", f.intent("150KB", "9216"))
	cfg := f.config()
	cfg.IntentLimits = intent.Limits{Devices: 10, FileBytes: 64 << 10}
	a := f.start(cfg, f.deps())
	a.waitRun(history.KindPlan, history.TriggerCommit, c1)

	var many strings.Builder
	many.WriteString(f.intent("150KB", "9216"))
	many.WriteString("  hosts:\n")
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&many, "    - {name: gpu%02d, netns: gpu%02d}\n", i, i)
	}
	for _, tc := range []struct {
		name, content, want string
	}{
		{"too many devices", many.String(), "21 switches and hosts, more than the limit of 10 (--intent-max-devices)"},
		{"file too large", f.intent("150KB", "9216") + strings.Repeat("# generated padding\n", 4000), "more than the 64KiB an intent file may hold"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := f.commit(tc.name, tc.content)
			reload := a.waitRun(history.KindReload, history.TriggerCommit, c)
			found := false
			for _, fd := range reload.Findings {
				found = found || (fd.Code == intent.CodeLimit && strings.Contains(fd.Message, tc.want))
			}
			if reload.Result != history.ResultFailure || !found || !strings.Contains(reload.Error, "keeping the last valid intent (commit "+c1+")") {
				t.Fatalf("reload: %s %q %+v", reload.Result, reload.Error, reload.Findings)
			}
			if p := a.findRun(history.KindPlan, "", c); p != nil {
				t.Fatal("a refused commit was planned")
			}
			if st := a.CurrentStatus(); st.Intent.Commit != c1 {
				t.Fatalf("intent in use %s, want %s", st.Intent.Commit, c1)
			}
		})
	}
}
