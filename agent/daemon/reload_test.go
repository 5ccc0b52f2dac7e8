package daemon

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/agent/daemon/history"
	"github.com/rocefab/rocefab/finding"
)

// TestInvalidCommitKeepsLastValid: an invalid commit is a failed reload
// with the validation findings; checks go on from the last valid intent
// (also across a restart), and the next valid commit is taken.
func TestInvalidCommitKeepsLastValid(t *testing.T) {
	f := newFixture(t, 1)
	c1 := f.commit("first", f.intent("150KB", "9216"))
	f.converge("150KB", "9216")
	a := f.start(f.config(), f.deps())
	a.waitRun(history.KindPlan, history.TriggerCommit, c1)
	if v, _ := metricValue(t, a, "rocefab_intent_reload_success", nil); v != 1 {
		t.Fatalf("reload gauge %v after a valid commit", v)
	}

	// The ECN maximum below the minimum, and an unknown platform.
	bad := strings.Replace(f.intent("150KB", "9216"), "maxThreshold: 1500KB", "maxThreshold: 100KB", 1)
	bad = strings.Replace(bad, "platform: simoc", "platform: nosuchos", 1)
	c2 := f.commit("broken", bad)
	reload := a.waitRun(history.KindReload, history.TriggerCommit, c2)
	if reload.Result != history.ResultFailure || !strings.Contains(reload.Error, "intent at commit "+c2+" is invalid") ||
		!strings.Contains(reload.Error, "keeping the last valid intent (commit "+c1+")") {
		t.Fatalf("reload of an invalid commit: %s %q", reload.Result, reload.Error)
	}
	codes := map[finding.Code]history.Finding{}
	for _, fd := range reload.Findings {
		codes[fd.Code] = fd
	}
	if len(codes) < 2 {
		t.Fatalf("findings %+v: want the ECN and the platform problems", reload.Findings)
	}
	for _, fd := range reload.Findings {
		if fd.Severity == finding.Error && (!strings.HasPrefix(fd.Where, "fabric/fabric.yaml:") || fd.Message == "") {
			t.Fatalf("finding without a position or message: %+v", fd)
		}
	}
	if v, _ := metricValue(t, a, "rocefab_intent_reload_success", nil); v != 0 {
		t.Fatalf("reload gauge %v after an invalid commit", v)
	}
	if _, ok := metricValue(t, a, "rocefab_intent_info", map[string]string{"commit": c1}); !ok {
		t.Fatal("rocefab_intent_info no longer names the last valid commit")
	}
	st := a.CurrentStatus()
	if !st.Ready || st.Intent.Commit != c1 || st.Reload.OK || st.Reload.Commit != c2 || len(st.Reload.Findings) == 0 {
		t.Fatalf("status after the invalid commit: ready %v intent %+v reload %+v", st.Ready, st.Intent, st.Reload)
	}
	if code, _ := a.get("/readyz", ""); code != 200 {
		t.Fatalf("readyz %d: the agent still has a valid intent", code)
	}
	if p := a.findRun(history.KindPlan, "", c2); p != nil {
		t.Fatal("an invalid commit was planned")
	}
	drift, err := a.RunNow(context.Background(), history.KindDrift)
	if err != nil {
		t.Fatal(err)
	}
	if drift.Commit != c1 || drift.Result != history.ResultSuccess {
		t.Fatalf("drift after the invalid commit ran from %s: %s %s", drift.Commit, drift.Result, drift.Error)
	}

	// Restarted while the branch is still invalid: the copy of c1 is used.
	a.stop()
	b := f.start(f.config(), f.deps())
	waitFor(t, "the copy of the last valid intent", func() bool { return b.intent() != nil })
	if st := b.CurrentStatus(); st.Intent.Commit != c1 || !st.Intent.FromCopy {
		t.Fatalf("after a restart on an invalid branch: %+v", st.Intent)
	}
	if n := len(mustList(t, b, history.KindReload)); n != 2 {
		t.Fatalf("%d reload runs: the refused commit was recorded again", n)
	}

	c3 := f.commit("fixed", f.intent("200KB", "9216"))
	plan := b.waitRun(history.KindPlan, history.TriggerCommit, c3)
	if plan.Result != history.ResultChanges {
		t.Fatalf("plan of the fixed commit: %s %s", plan.Result, plan.Error)
	}
	if v, _ := metricValue(t, b, "rocefab_intent_reload_success", nil); v != 1 {
		t.Fatalf("reload gauge %v after the fix", v)
	}
	if st := b.CurrentStatus(); st.Intent.Commit != c3 || st.Intent.FromCopy {
		t.Fatalf("after the fix: %+v", st.Intent)
	}
}

// TestNoValidIntentYet: without any valid intent the agent serves health
// but is not ready, and records the refusal once.
func TestNoValidIntentYet(t *testing.T) {
	f := newFixture(t, 1)
	c1 := f.commit("broken from the start", "apiVersion: rocefab.io/v1alpha1\nkind: Fabric\nspec: {switches: [{name: x}]}\n")
	a := f.start(f.config(), f.deps())
	r := a.waitRun(history.KindReload, history.TriggerCommit, c1)
	if r.Result != history.ResultFailure || !strings.Contains(r.Error, "no valid intent yet") {
		t.Fatalf("reload: %s %q", r.Result, r.Error)
	}
	if code, body := a.get("/readyz", ""); code != 503 || !strings.Contains(body, "no valid intent") {
		t.Fatalf("readyz %d %q", code, body)
	}
	if code, _ := a.get("/healthz", ""); code != 200 {
		t.Fatalf("healthz %d", code)
	}
	if _, err := a.RunNow(context.Background(), history.KindDrift); err == nil {
		t.Fatal("a drift check ran without an intent")
	}
}

// TestRevertToKnownGoodRecovers: after a bad commit, going back to the
// known-good intent puts the reload state back to good at once
// (rocefab_intent_reload_success 1, the status naming what brought it
// back), whether the branch is reset to the good commit or a folder's
// files are restored; the bad intent coming back is refused and recorded
// again.
func TestRevertToKnownGoodRecovers(t *testing.T) {
	check := func(t *testing.T, a *running, commit string) {
		t.Helper()
		waitFor(t, "the reload state back to good", func() bool {
			v, _ := metricValue(t, a, "rocefab_intent_reload_success", nil)
			return v == 1
		})
		st := a.CurrentStatus()
		if !st.Reload.OK || st.Reload.Commit != commit || st.Intent.Commit != commit {
			t.Fatalf("status after the revert: reload %+v intent %+v", st.Reload, st.Intent)
		}
	}
	t.Run("git branch reset to the good commit", func(t *testing.T) {
		f := newFixture(t, 1)
		good := f.intent("150KB", "9216")
		c1 := f.commit("first", good)
		f.converge("150KB", "9216")
		a := f.start(f.config(), f.deps())
		a.waitRun(history.KindPlan, history.TriggerCommit, c1)
		bad := strings.Replace(good, "maxThreshold: 1500KB", "maxThreshold: 100KB", 1)
		c2 := f.commit("broken", bad)
		a.waitRun(history.KindReload, history.TriggerCommit, c2)
		if v, _ := metricValue(t, a, "rocefab_intent_reload_success", nil); v != 0 {
			t.Fatalf("reload gauge %v after the bad commit", v)
		}
		f.repo.ResetTo(c1)
		check(t, a, c1)
		if n := len(mustList(t, a, history.KindPlan)); n != 1 {
			t.Fatalf("%d plans: the known-good commit was planned again", n)
		}
		c3 := f.commit("broken again", bad)
		if again := a.waitRun(history.KindReload, history.TriggerCommit, c3); again.Result != history.ResultFailure {
			t.Fatalf("the bad intent back: %s", again.Result)
		}
		if v, _ := metricValue(t, a, "rocefab_intent_reload_success", nil); v != 0 {
			t.Fatalf("reload gauge %v after the bad intent came back", v)
		}
	})
	t.Run("folder restored", func(t *testing.T) {
		f := newFixture(t, 1)
		dir := t.TempDir()
		file := filepath.Join(dir, "fabric.yaml")
		good := f.intent("150KB", "9216")
		if err := os.WriteFile(file, []byte(good), 0o644); err != nil {
			t.Fatal(err)
		}
		f.converge("150KB", "9216")
		a := f.start(f.folderConfig(dir), f.deps())
		waitFor(t, "the first intent", func() bool { return a.intent() != nil })
		bad := strings.Replace(good, "maxThreshold: 1500KB", "maxThreshold: 100KB", 1)
		if err := os.WriteFile(file, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the bad intent refused", func() bool {
			v, _ := metricValue(t, a, "rocefab_intent_reload_success", nil)
			return v == 0
		})
		if err := os.WriteFile(file, []byte(good), 0o644); err != nil {
			t.Fatal(err)
		}
		check(t, a, a.CurrentStatus().Intent.Commit)
		if err := os.WriteFile(file, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the bad intent refused again", func() bool {
			v, _ := metricValue(t, a, "rocefab_intent_reload_success", nil)
			return v == 0
		})
	})
}
