package gnmi_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/gnmi"
	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
)

// fingerprint is what a plan made now would expect.
func fingerprint(t *testing.T, d *gnmi.Driver) string {
	t.Helper()
	r, err := d.Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return r.Fingerprint
}

// TestHeldCommitIsTheDeviceLock: on a target with the Commit extension a
// change without a confirm window waits under the target's commit timer
// until its pusher read it back. While it waits, a second runner (its own
// connection, its own state) that planned against the device before it is
// refused as stale, and one that planned against it is refused as locked,
// naming the holder's run; once the first is confirmed, the second's push
// goes through.
func TestHeldCommitIsTheDeviceLock(t *testing.T) {
	sim := startSim(t, gnmisim.Options{CommitConfirmed: true})
	if err := sim.Load(foreign); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	a := dial(t, options(t, sim, ocPlatform(), ocScope))
	b := dial(t, options(t, sim, ocPlatform(), ocScope))
	plannedBefore := fingerprint(t, b)

	p, err := a.Push(ctx, ocPatch, drivers.PushOptions{RunID: "run-a", Expect: fingerprint(t, a)})
	if err != nil {
		t.Fatal(err)
	}
	if id, ok := sim.PendingCommit(); !ok || id != "rocefab-run-a" {
		t.Fatalf("the change does not wait under the commit timer: pending %q %v", id, ok)
	}
	if sim.Leaves()["/interfaces/interface[name=Ethernet1]/config/mtu"] != "9216" {
		t.Fatalf("the held change is not in effect:\n%s", sim.Tree())
	}
	if _, err := b.Push(ctx, ocPatch, drivers.PushOptions{RunID: "run-b", Expect: plannedBefore}); !errors.Is(err, drivers.ErrStale) {
		t.Fatalf("a push planned before the held change: %v, want ErrStale", err)
	}
	plannedDuring := fingerprint(t, b)
	_, err = b.Push(ctx, ocPatch, drivers.PushOptions{RunID: "run-b", Expect: plannedDuring})
	if !errors.Is(err, drivers.ErrLocked) || !strings.Contains(err.Error(), "run-a") {
		t.Fatalf("a push while the first waits: %v, want ErrLocked naming run-a", err)
	}
	if err := p.Confirm(ctx); err != nil {
		t.Fatal(err)
	}
	if _, ok := sim.PendingCommit(); ok {
		t.Fatal("confirmed, yet the commit still waits")
	}
	q, err := b.Push(ctx, ocPatch, drivers.PushOptions{RunID: "run-b", Expect: plannedDuring})
	if err != nil {
		t.Fatalf("the second runner's push once the first was confirmed: %v", err)
	}
	if err := q.Confirm(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestHeldCommitRollsBackUnconfirmed: a rocefab that dies between the Set
// and its confirmation (no Confirm, no Close) leaves the target rolling the
// change back by itself.
func TestHeldCommitRollsBackUnconfirmed(t *testing.T) {
	defer gnmi.SetHeldFor(time.Second)()
	sim := startSim(t, gnmisim.Options{CommitConfirmed: true})
	if err := sim.Load(foreign); err != nil {
		t.Fatal(err)
	}
	before := sim.Tree()
	d, err := gnmi.Dial(context.Background(), options(t, sim, ocPlatform(), ocScope))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Push(context.Background(), ocPatch, drivers.PushOptions{RunID: "dies"}); err != nil {
		t.Fatal(err)
	}
	if sim.Tree() == before {
		t.Fatal("the change is not in effect")
	}
	deadline := time.Now().Add(30 * time.Second)
	for sim.Tree() != before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := sim.Tree(); got != before {
		t.Fatalf("the unconfirmed change stayed:\n%s", got)
	}
}

// TestCleanupCancelsADeadRunsCommit: the next run cancels what a dead run
// left waiting (the target is back at once), and leaves another run's
// commit alone.
func TestCleanupCancelsADeadRunsCommit(t *testing.T) {
	sim := startSim(t, gnmisim.Options{CommitConfirmed: true})
	if err := sim.Load(foreign); err != nil {
		t.Fatal(err)
	}
	before := sim.Tree()
	ctx := context.Background()
	dead, err := gnmi.Dial(ctx, options(t, sim, ocPlatform(), ocScope))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dead.Push(ctx, ocPatch, drivers.PushOptions{RunID: "dead-run"}); err != nil {
		t.Fatal(err)
	}
	next := dial(t, options(t, sim, ocPlatform(), ocScope))
	if err := next.Cleanup(ctx, "another-run", false); err != nil {
		t.Fatalf("cleanup of a run with nothing on the device: %v", err)
	}
	if _, ok := sim.PendingCommit(); !ok {
		t.Fatal("cleanup of another run cancelled the dead run's commit")
	}
	if err := next.Cleanup(ctx, "dead-run", false); err != nil {
		t.Fatal(err)
	}
	if _, ok := sim.PendingCommit(); ok {
		t.Fatal("the dead run's commit still waits")
	}
	if got := sim.Tree(); got != before {
		t.Fatalf("cleanup did not bring the target back:\n%s", got)
	}
}

// TestCloseKeepsAHeldChange: per the driver contract, a change neither
// confirmed nor rolled back is kept by Close (and by the next Push).
func TestCloseKeepsAHeldChange(t *testing.T) {
	sim := startSim(t, gnmisim.Options{CommitConfirmed: true})
	ctx := context.Background()
	d, err := gnmi.Dial(ctx, options(t, sim, ocPlatform(), ocScope))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Push(ctx, ocPatch, drivers.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Push(ctx, ocPatch, drivers.PushOptions{}); err != nil {
		t.Fatalf("a second push by the same driver: %v", err)
	}
	applied := sim.Tree()
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, ok := sim.PendingCommit(); ok || sim.Tree() != applied {
		t.Fatalf("Close did not keep the change (pending %v):\n%s", ok, sim.Tree())
	}
}

// TestNoCommitExtensionNoHold: a target without the Commit extension
// takes the change as one plain SetRequest; nothing waits on it.
func TestNoCommitExtensionNoHold(t *testing.T) {
	sim := startSim(t, gnmisim.Options{})
	d := dial(t, options(t, sim, ocPlatform(), ocScope))
	p, err := d.Push(context.Background(), ocPatch, drivers.PushOptions{RunID: "r"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := sim.PendingCommit(); ok {
		t.Fatal("a commit waits on a target without the extension")
	}
	if r, ok := p.(drivers.Reverting); ok && r.Reverts() {
		t.Fatal("a plain Set is reported as reverting by itself")
	}
}
