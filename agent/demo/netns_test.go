package demo

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vishvananda/netns"

	"github.com/rocefab/rocefab/internal/netnstest"
)

// A demo killed with SIGKILL cannot clean up; the next demo removes its
// namespaces, and never those of a demo still running.
func TestRemoveStaleNamespaces(t *testing.T) {
	netnstest.Require(t)
	dead := deadPid(t)
	stale := fmt.Sprintf("%s%d-t%d-sw", nsPrefix, dead, os.Getpid())
	mine := fmt.Sprintf("%s%d-t-sw", nsPrefix, os.Getpid())
	for _, name := range []string{stale, mine} {
		if err := newNamedNetns(name); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = netns.DeleteNamed(name) })
	}
	removed := removeStale()
	if !slices.Contains(removed, stale) {
		t.Errorf("removed %v, want %s", removed, stale)
	}
	if slices.Contains(removed, mine) {
		t.Errorf("removed this process's own namespace %s", mine)
	}
	if _, err := os.Stat(filepath.Join(nsDir, stale)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s still exists: %v", stale, err)
	}
	if _, err := os.Stat(filepath.Join(nsDir, mine)); err != nil {
		t.Errorf("%s is gone: %v", mine, err)
	}
}
