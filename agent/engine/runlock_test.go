package engine

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/drivers"
)

// TestRunIsInterruptedWhenItsProcessDies: a report written ahead says
// running while its process holds the run's lock, and interrupted once the
// process is gone, however it went (the lock is dropped by the kernel: here
// the lock of a child process killed with SIGKILL).
func TestRunIsInterruptedWhenItsProcessDies(t *testing.T) {
	store := RunStore{Dir: t.TempDir()}
	rep := &RunReport{ID: NewRunID(time.Now()), Kind: KindApply, StartedAt: time.Now()}
	run, err := store.Begin(rep)
	if err != nil {
		t.Fatal(err)
	}
	got, err := store.LoadReport(rep.ID)
	if err != nil || got.Status != StatusRunning || !store.Alive(rep.ID) {
		t.Fatalf("a run under way: %+v %v", got, err)
	}
	if err := run.End(); err != nil {
		t.Fatal(err)
	}
	if got, _ := store.LoadReport(rep.ID); got.Status != StatusInterrupted {
		t.Fatalf("a report still saying running once its lock is gone is interrupted, got %s", got.Status)
	}

	// The lock taken over by another process, which is then killed.
	flockTool, err := exec.LookPath("flock")
	if err != nil {
		if os.Getenv("ROCEFAB_REQUIRE_NETNS") == "1" {
			t.Fatal("flock(1) (util-linux) is not installed")
		}
		t.Skip("flock(1) (util-linux) is not installed; the in-process half ran")
	}
	// -o: the lock stays with flock itself, not with the command it runs.
	child := exec.Command(flockTool, "-n", "-o", filepath.Join(store.runDir(rep.ID), "lock"), "sleep", "60")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !store.Alive(rep.ID) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got, _ := store.LoadReport(rep.ID); got.Status != StatusRunning {
		t.Fatalf("held by another process: %s", got.Status)
	}
	_ = child.Process.Kill()
	_ = child.Wait()
	// flock forks sleep, which holds the lock's file for an instant until
	// it closes it (-o) on exec: the lock goes once both have let go.
	deadline = time.Now().Add(10 * time.Second)
	for store.Alive(rep.ID) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got, _ := store.LoadReport(rep.ID); got.Status != StatusInterrupted {
		t.Fatalf("its process killed: %s", got.Status)
	}
}

// TestDeviceLockNamesItsHolder: a device held by one run is refused to a
// second after the bounded wait, naming the first run; released, it is
// taken at once.
func TestDeviceLockNamesItsHolder(t *testing.T) {
	store := RunStore{Dir: t.TempDir()}
	first := store.NewDeviceLocks("run-one")
	if err := first.Lock(context.Background(), KindApply, 0, "leaf1", "leaf2"); err != nil {
		t.Fatal(err)
	}
	second := store.NewDeviceLocks("run-two")
	err := second.Lock(context.Background(), KindApply, 50*time.Millisecond, "leaf2")
	if !errors.Is(err, drivers.ErrLocked) || !strings.Contains(err.Error(), "run run-one") || !strings.Contains(err.Error(), "leaf2") {
		t.Fatalf("want ErrLocked naming run-one, got %v", err)
	}
	first.Unlock("leaf2")
	if err := second.Lock(context.Background(), KindApply, 0, "leaf2"); err != nil {
		t.Fatalf("a released device: %v", err)
	}
	if !second.Holds("leaf2") || second.Holds("leaf1") {
		t.Fatal("Holds")
	}
	second.Release()
	first.Release()
	if _, err := os.Stat(filepath.Join(store.Dir, "locks", "leaf1.lock.holder")); err != nil {
		t.Fatal(err)
	}
}
