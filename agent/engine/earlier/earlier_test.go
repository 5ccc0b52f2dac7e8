package earlier

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/rocefab/rocefab/renderers/all"
)

const fabric = `apiVersion: rocefab.io/v1alpha1
kind: Fabric
metadata: {name: hist}
spec:
  lossless:
    profile: dcqcn
    vlan: %VLAN%
    noDropPriority: 3
    roceDscp: [26]
    trust: dscp
    cnp: {dscp: 48, priority: 6}
    ecn: {minThreshold: 150KB, maxThreshold: 1500KB, markProbability: 100}
    pfc: {enabled: true, priorities: [3], watchdog: {enabled: true}}
    mtu: {switch: max, host: 9000}
    roceMode: v2
  switches:
    - name: leaf1
      platform: eos
      model: DCS-7060X5-64S
      osVersion: "4.31.2F"
      address: "192.0.2.10"
      credentials: {username: rocefab, passwordEnv: ROCEFAB_HIST_PW}
      ports: [{names: Ethernet1, mode: trunk}]
`

func commit(t *testing.T, repo *git.Repository, dir, vlan, msg string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "intent"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "intent", "fabric.yaml"), []byte(strings.ReplaceAll(fabric, "%VLAN%", vlan)), 0o600); err != nil {
		t.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Add("intent/fabric.yaml"); err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Commit(msg, &git.CommitOptions{Author: &object.Signature{Name: "t", Email: "t@example.com", When: time.Now()}}); err != nil {
		t.Fatal(err)
	}
}

// TestEarlierRevisionsNewestFirst: every commit that changed the intent
// is rendered for the device, newest first; a device no revision held,
// and a folder outside git, have no history.
func TestEarlierRevisionsNewestFirst(t *testing.T) {
	dir := t.TempDir()
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	commit(t, repo, dir, "100", "vlan 100")
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("not intent"), 0o600); err != nil {
		t.Fatal(err)
	}
	commit(t, repo, dir, "200", "vlan 200")
	src, err := Open([]string{filepath.Join(dir, "intent")}, all.Renderers(), 0, nil)
	if err != nil || src == nil {
		t.Fatalf("open: %v", err)
	}
	revs := src.Earlier("leaf1")
	if len(revs) != 2 {
		t.Fatalf("want 2 revisions, got %d", len(revs))
	}
	if !strings.Contains(revs[0].Text(), "vlan 200") || !strings.Contains(revs[1].Text(), "vlan 100") {
		t.Fatalf("revisions not newest first:\n%s\n---\n%s", revs[0].Text(), revs[1].Text())
	}
	if len(revs[1].Singletons) == 0 {
		t.Error("an earlier render lost its singletons: conflicts could not be told from rocefab's own values")
	}
	if got := src.Earlier("spine9"); len(got) != 0 {
		t.Errorf("a device no revision held: %d revisions", len(got))
	}
	// A new commit is seen without reopening.
	commit(t, repo, dir, "300", "vlan 300")
	if revs := src.Earlier("leaf1"); len(revs) != 3 || !strings.Contains(revs[0].Text(), "vlan 300") {
		t.Fatalf("after a new commit: %d revisions", len(revs))
	}

	loose := t.TempDir()
	if err := os.WriteFile(filepath.Join(loose, "fabric.yaml"), []byte(strings.ReplaceAll(fabric, "%VLAN%", "100")), 0o600); err != nil {
		t.Fatal(err)
	}
	if src, err := Open([]string{loose}, all.Renderers(), 0, nil); err != nil || src != nil {
		t.Fatalf("a folder outside git: %v %v", src, err)
	}
}
