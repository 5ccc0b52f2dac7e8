package gnmi_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	gnmipb "github.com/openconfig/gnmi/proto/gnmi"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/all"
	"github.com/rocefab/rocefab/drivers/gnmi"
	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
)

// foreign is configuration rocefab does not own; it must survive untouched.
var foreign = devcfg.Paths{
	"/interfaces/interface[name=Ethernet1]/config/description": devcfg.String("uplink"),
	"/interfaces/interface[name=Ethernet1]/config/mtu":         devcfg.Int(1500),
	"/qos/queues/queue[name=BE]/config/queue-id":               devcfg.Int(0),
}

func TestRegisteredInAll(t *testing.T) {
	sim := startSim(t, gnmisim.Options{})
	d, err := all.Drivers().Open(context.Background(), "gnmi", options(t, sim, ocPlatform(), ocScope))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if _, ok := d.(*gnmi.Driver); !ok {
		t.Fatalf("transport gnmi opened %T", d)
	}
}

func TestPushThenFetch(t *testing.T) {
	sim := startSim(t, gnmisim.Options{})
	if err := sim.Load(foreign); err != nil {
		t.Fatal(err)
	}
	d := dial(t, options(t, sim, ocPlatform(), ocScope))
	ctx := context.Background()

	before, err := d.Fetch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := before.Owned.Text(), "/interfaces/interface[name=Ethernet1]/config/mtu = 1500\n"; got != want {
		t.Errorf("owned before push:\n%s\nwant\n%s", got, want)
	}
	sets := sim.SetCount()
	if _, err := d.Push(ctx, ocPatch, drivers.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	if n := sim.SetCount() - sets; n != 1 {
		t.Errorf("push took %d SetRequests, want 1", n)
	}
	after, err := d.Fetch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := devcfg.Paths{}
	for _, u := range ocPatch.Updates {
		want[u.Path] = u.Value
	}
	if diff := cmp.Diff(want, after.Owned.Paths); diff != "" {
		t.Errorf("owned after push (-want +got):\n%s", diff)
	}
	leaves := sim.Leaves()
	if leaves["/interfaces/interface[name=Ethernet1]/config/description"] != devcfg.String("uplink") ||
		leaves["/qos/queues/queue[name=BE]/config/queue-id"] != "0" {
		t.Errorf("foreign config changed:\n%s", sim.Tree())
	}
	if before.Fingerprint == after.Fingerprint {
		t.Error("fingerprint did not change")
	}
}

func TestJSONFallbackWhenNoJSONIETF(t *testing.T) {
	sim := startSim(t, gnmisim.Options{Encodings: []gnmipb.Encoding{gnmipb.Encoding_JSON}})
	d := dial(t, options(t, sim, ocPlatform(), ocScope))
	if d.Encoding() != gnmipb.Encoding_JSON {
		t.Fatalf("encoding %s, want JSON", d.Encoding())
	}
	if _, err := d.Push(context.Background(), ocPatch, drivers.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	run, err := d.Fetch(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := run.Owned.Paths["/qos/queue-management-profiles/queue-management-profile[name=ROCEFAB_ECN]/wred/uniform/config/min-threshold"]; got != `"150000"` {
		t.Errorf("min-threshold = %s", got)
	}
}

func TestMissingModelRefused(t *testing.T) {
	sim := startSim(t, gnmisim.Options{Models: []*gnmipb.ModelData{{Name: "openconfig-interfaces"}}})
	before := sim.Tree()
	d := dial(t, options(t, sim, ocPlatform(), ocScope))
	_, err := d.Push(context.Background(), ocPatch, drivers.PushOptions{})
	if !errors.Is(err, drivers.ErrUnsupported) || !strings.Contains(err.Error(), "openconfig-qos") {
		t.Fatalf("err = %v, want ErrUnsupported naming openconfig-qos", err)
	}
	if sim.Tree() != before {
		t.Error("device changed")
	}
}

// Fault injection: the device stays byte-identical and the error names
// the device, the path and the device's message.
func TestFaultsLeaveDeviceUnchanged(t *testing.T) {
	rejected := "/qos/queue-management-profiles/queue-management-profile[name=ROCEFAB_ECN]/wred/uniform/config/min-threshold"
	tests := []struct {
		name     string
		faults   gnmisim.Faults
		sentinel error
		wantIn   []string
	}{
		{"rejected path", gnmisim.Faults{RejectPath: rejected, RejectMessage: "threshold exceeds queue buffer"},
			drivers.ErrRejected, []string{"leaf1", "push", rejected, "threshold exceeds queue buffer"}},
		{"connection dropped mid-Set", gnmisim.Faults{DropSets: 10},
			drivers.ErrUnreachable, []string{"leaf1", "push", "SetRequest of 6 update(s)", "/interfaces/interface[name=Ethernet1]/config/mtu"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sim := startSim(t, gnmisim.Options{})
			if err := sim.Load(foreign); err != nil {
				t.Fatal(err)
			}
			before := sim.Tree()
			opt := options(t, sim, ocPlatform(), ocScope)
			opt.Retries = 1
			d := dial(t, opt)
			sim.SetFaults(tt.faults)
			_, err := d.Push(context.Background(), ocPatch, drivers.PushOptions{})
			if !errors.Is(err, tt.sentinel) {
				t.Fatalf("err = %v, want %v", err, tt.sentinel)
			}
			var de *drivers.DeviceError
			if !errors.As(err, &de) {
				t.Fatalf("err %T is not a DeviceError", err)
			}
			for _, s := range tt.wantIn {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not name %q", err, s)
				}
			}
			if got := sim.Tree(); got != before {
				t.Errorf("device changed:\nbefore\n%s\nafter\n%s", before, got)
			}
		})
	}
}

func TestTransientDropIsRetried(t *testing.T) {
	sim := startSim(t, gnmisim.Options{})
	opt := options(t, sim, ocPlatform(), ocScope)
	opt.Retries = 2
	d := dial(t, opt)
	sim.SetFaults(gnmisim.Faults{DropSets: 1})
	if _, err := d.Push(context.Background(), ocPatch, drivers.PushOptions{}); err != nil {
		t.Fatalf("push after one dropped connection: %v", err)
	}
	if sim.Leaves()["/interfaces/interface[name=Ethernet1]/config/mtu"] != "9216" {
		t.Errorf("retry did not apply:\n%s", sim.Tree())
	}
}

func TestSlowDeviceTimesOut(t *testing.T) {
	sim := startSim(t, gnmisim.Options{})
	opt := options(t, sim, ocPlatform(), ocScope)
	d := dial(t, opt)
	// The device would answer after a minute: returning sooner, with the
	// context's deadline, shows the timeout was honoured. No tighter bound,
	// so a loaded machine cannot fail the test.
	const answerAfter = time.Minute
	sim.SetFaults(gnmisim.Faults{Delay: answerAfter})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := d.Fetch(ctx)
	if !errors.Is(err, drivers.ErrUnreachable) {
		t.Fatalf("err = %v; want the device reported unreachable (no answer in time)", err)
	}
	if took := time.Since(start); took >= answerAfter {
		t.Fatalf("Fetch waited %s for the slow answer: the deadline was not honoured", took)
	}
}

// Commit-confirmed: an unconfirmed push rolls back by itself, on the
// device (Commit extension) or from rocefab (timer fallback).
func TestUnconfirmedPushRollsBack(t *testing.T) {
	for _, ext := range []bool{true, false} {
		name := map[bool]string{true: "commit extension", false: "rocefab timer"}[ext]
		t.Run(name, func(t *testing.T) {
			sim := startSim(t, gnmisim.Options{CommitConfirmed: ext})
			if err := sim.Load(foreign); err != nil {
				t.Fatal(err)
			}
			before := sim.Tree()
			d := dial(t, options(t, sim, ocPlatform(), ocScope))
			if d.CommitConfirmed() != ext {
				t.Fatalf("driver sees commit extension = %v", d.CommitConfirmed())
			}
			// About a second: a loaded machine still sees the change pending.
			p, err := d.Push(context.Background(), ocPatch, drivers.PushOptions{ConfirmWindow: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if p.ID() == "" {
				t.Error("pending change has no id")
			}
			if _, pending := sim.PendingCommit(); pending != ext {
				t.Errorf("device-side pending commit = %v, want %v", pending, ext)
			}
			if sim.Leaves()["/interfaces/interface[name=Ethernet1]/config/mtu"] != "9216" {
				t.Fatalf("change not applied while pending:\n%s", sim.Tree())
			}
			deadline := time.Now().Add(30 * time.Second)
			for sim.Tree() != before && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			if got := sim.Tree(); got != before {
				t.Fatalf("not rolled back:\nbefore\n%s\nnow\n%s", before, got)
			}
			if err := p.Confirm(context.Background()); err == nil {
				t.Error("confirm after the window succeeded")
			}
		})
	}
}

func TestConfirmAndRollback(t *testing.T) {
	for _, ext := range []bool{true, false} {
		t.Run(map[bool]string{true: "commit extension", false: "rocefab timer"}[ext], func(t *testing.T) {
			sim := startSim(t, gnmisim.Options{CommitConfirmed: ext})
			if err := sim.Load(foreign); err != nil {
				t.Fatal(err)
			}
			before := sim.Tree()
			d := dial(t, options(t, sim, ocPlatform(), ocScope))
			ctx := context.Background()

			// About a second to confirm in, even on a loaded machine; then
			// wait past the window.
			const window = time.Second
			p, err := d.Push(ctx, ocPatch, drivers.PushOptions{ConfirmWindow: window})
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Confirm(ctx); err != nil {
				t.Fatal(err)
			}
			applied := sim.Tree()
			time.Sleep(window + 300*time.Millisecond)
			if sim.Tree() != applied || applied == before {
				t.Fatalf("confirmed change did not stay:\n%s", sim.Tree())
			}

			second := devcfg.Patch{Updates: []devcfg.PathUpdate{{Path: "/interfaces/interface[name=Ethernet1]/config/mtu", Value: devcfg.Int(9100)}},
				Deletes: []string{"/qos/queues/queue[name=ROCEFAB_Q3]"}}
			p, err = d.Push(ctx, second, drivers.PushOptions{ConfirmWindow: time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Rollback(ctx); err != nil {
				t.Fatal(err)
			}
			if got := sim.Tree(); got != applied {
				t.Fatalf("rollback did not restore:\nwant\n%s\ngot\n%s", applied, got)
			}
		})
	}
}

func TestCloseRollsBackPendingFallback(t *testing.T) {
	sim := startSim(t, gnmisim.Options{})
	before := sim.Tree()
	d, err := gnmi.Dial(context.Background(), options(t, sim, ocPlatform(), ocScope))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Push(context.Background(), ocPatch, drivers.PushOptions{ConfirmWindow: time.Hour}); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if sim.Tree() != before {
		t.Fatalf("Close left an unconfirmed change:\n%s", sim.Tree())
	}
}

func TestDeltas(t *testing.T) {
	got := gnmi.Deltas(map[string]uint64{"a": 10, "b": 5, "gone": 1}, map[string]uint64{"a": 15, "b": 2, "new": 7})
	if diff := cmp.Diff(map[string]uint64{"a": 5, "b": 2}, got); diff != "" {
		t.Error(diff)
	}
}
