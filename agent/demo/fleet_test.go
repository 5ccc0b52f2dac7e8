package demo

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// deadPid is a pid no process has.
func deadPid(t *testing.T) int {
	t.Helper()
	for pid := 4194303; pid > 1; pid-- {
		if _, err := os.Stat(filepath.Join("/proc", strconv.Itoa(pid))); errors.Is(err, os.ErrNotExist) {
			return pid
		}
	}
	t.Fatal("no free pid")
	return 0
}

// A demo killed with SIGKILL leaves its work directory (with the password
// file) behind; the next demo removes it, and nothing else.
func TestRemoveStaleWorkDirs(t *testing.T) {
	tmp := t.TempDir()
	dead := deadPid(t)
	mk := func(name string, dir bool) string {
		p := filepath.Join(tmp, name)
		var err error
		if dir {
			err = os.MkdirAll(filepath.Join(p, "runs"), 0o700)
		} else {
			err = os.WriteFile(p, nil, 0o600)
		}
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	stale := mk(fmt.Sprintf("%s%d-123", workDirPrefix, dead), true)
	keep := []string{
		mk(fmt.Sprintf("%s%d-123", workDirPrefix, os.Getpid()), true), // this process
		mk(workDirPrefix+"1-123", true),                               // a running process
		mk(fmt.Sprintf("%s%d-file", workDirPrefix, dead), false),      // not a directory
		mk("rocefab-other-1", true),
	}
	removed := removeStaleWorkDirs(tmp)
	if !slices.Equal(removed, []string{stale}) {
		t.Errorf("removed %v, want only %s", removed, stale)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s still exists", stale)
	}
	for _, p := range keep {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
}
