package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/rocefab/rocefab/agent/engine/enginetest"
)

// commitIntent writes the fleet's intent with p and commits it.
func (c *simCLI) commitIntent(p enginetest.Params, msg string) {
	c.t.Helper()
	if err := os.WriteFile(c.intent, c.fleet.Intent(p), 0o600); err != nil {
		c.t.Fatal(err)
	}
	repo, err := git.PlainOpen(filepath.Dir(c.intent))
	if err != nil {
		c.t.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		c.t.Fatal(err)
	}
	if _, err := wt.Add(filepath.Base(c.intent)); err != nil {
		c.t.Fatal(err)
	}
	h, err := wt.Commit(msg, &git.CommitOptions{Author: &object.Signature{Name: "netops", Email: "netops@example.com", When: time.Now()}})
	if err != nil {
		c.t.Fatal(err)
	}
	c.commit = h.String()
}

// TestSimCLIFreshStateDirKnowsRocefabsConfig: what rocefab applied from one
// state directory is its own from any other, through the intent's git
// history. A CI runner with a fresh --state-dir changes rocefab's own EOS
// qos map and NVUE mapping (no conflict), and takes the old lossless VLAN
// off the trunks; the same intent outside git, with no history anywhere,
// is refused over rocefab's own values, as it must be when nobody can tell
// whose they are.
func TestSimCLIFreshStateDirKnowsRocefabsConfig(t *testing.T) {
	c := newSimCLI(t, []enginetest.Spec{
		{Name: "leaf-eos", Kind: enginetest.EOS, Ports: 1},
		{Name: "leaf-cumulus", Kind: enginetest.Cumulus, Ports: 1},
		{Name: "leaf-nxos", Kind: enginetest.NXOS, Ports: 1},
	})
	c.want(ExitOK, "", "apply", c.intent, "--auto-approve", "--allow-disruptive")
	c.commitIntent(enginetest.Params{VLAN: 200, NoDrop: 4}, "fabric: lossless VLAN 200, no-drop priority 4")

	// No git history, no state: rocefab cannot tell its values from others'.
	loose := filepath.Join(t.TempDir(), "fabric.yaml")
	if err := os.WriteFile(loose, c.fleet.Intent(enginetest.Params{VLAN: 200, NoDrop: 4}), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, _ := c.run("", "plan", loose, "--state-dir", filepath.Join(t.TempDir(), "empty"))
	if code != ExitFailure || !strings.Contains(out, "leaf-eos") || !strings.Contains(strings.ToUpper(out), "CONFLICT") {
		t.Fatalf("without history the EOS qos map must be a conflict: exit %d\n%s", code, out)
	}

	ci := filepath.Join(t.TempDir(), "ci-state")
	out = c.want(ExitChanges, "", "plan", c.intent, "--detailed-exitcode", "--state-dir", ci)
	if strings.Contains(strings.ToUpper(out), "CONFLICT") {
		t.Fatalf("a fresh state directory called rocefab's own configuration a conflict:\n%s", out)
	}
	c.want(ExitOK, "", "apply", c.intent, "--auto-approve", "--allow-disruptive", "--state-dir", ci)
	out = c.want(ExitOK, "", "drift", c.intent, "--detailed-exitcode", "--state-dir", filepath.Join(t.TempDir(), "another"))
	if !strings.Contains(out, "Summary: 3 device(s): 3 compliant.") {
		t.Fatalf("drift from yet another state directory:\n%s", out)
	}
	// The VLAN rocefab made for v1 is gone, v2's is there.
	if cfg := c.fleet.Switch("leaf-eos").Config(); !strings.Contains(cfg, "\nvlan 200\n") || strings.Contains(cfg, "\nvlan 100\n") {
		t.Errorf("leaf-eos should define VLAN 200 and no longer 100:\n%s", cfg)
	}
	if cfg := c.fleet.Switch("leaf-nxos").Config(); !strings.Contains(cfg, "\nvlan 1,10,200\n") {
		t.Errorf("leaf-nxos should define VLANs 1, 10 and 200, no longer 100:\n%s", cfg)
	}
}
