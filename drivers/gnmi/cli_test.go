package gnmi_test

import (
	"context"
	"errors"
	"testing"

	gnmipb "github.com/openconfig/gnmi/proto/gnmi"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
)

// TestCLIOriginIsASCIIText: origin cli carries CLI text as ascii_val at the
// empty path and has no delete (openconfig/reference
// rpc/gnmi/gnmi-union_replace.md, "Native CLI Configuration" and 4.1; the
// featureprofiles tests configure EOS with Update{Path: {Origin: "cli"},
// Val: ascii_val}). A cli delete goes out as the "no" form of its line.
func TestCLIOriginIsASCIIText(t *testing.T) {
	const (
		onKey   = "cli:/interface Ethernet1 > priority-flow-control on"
		prioKey = "cli:/interface Ethernet1 > priority-flow-control priority 3 no-drop"
		oldKey  = "cli:/interface Ethernet1 > priority-flow-control priority 4 no-drop"
		timer   = "cli:/interface Ethernet1 > priority-flow-control pause watchdog port timer"
	)
	sim := startSim(t, gnmisim.Options{})
	if err := sim.Load(devcfg.Paths{
		oldKey: devcfg.String("interface Ethernet1\n   priority-flow-control priority 4 no-drop"),
		timer:  devcfg.String("interface Ethernet1\n   priority-flow-control pause watchdog port timer timeout 1 polling-interval 0.1 recovery-time 2"),
	}); err != nil {
		t.Fatal(err)
	}
	d := dial(t, options(t, sim, ocPlatform(), ocScope))
	patch := devcfg.Patch{
		Deletes: []string{oldKey, timer},
		Updates: []devcfg.PathUpdate{
			{Path: "/interfaces/interface[name=Ethernet1]/config/mtu", Value: devcfg.Int(9216)},
			{Path: onKey, Value: devcfg.String("interface Ethernet1\n   priority-flow-control on")},
			{Path: prioKey, Value: devcfg.String("interface Ethernet1\n   priority-flow-control priority 3 no-drop")},
		},
	}
	if _, err := d.Push(context.Background(), patch, drivers.PushOptions{}); err != nil {
		t.Fatal(err)
	}
	req := sim.LastSet()
	for _, p := range req.GetDelete() {
		if p.GetOrigin() == "cli" {
			t.Errorf("a delete under origin cli was sent: %v", p)
		}
	}
	var cli []*gnmipb.Update
	for _, u := range req.GetUpdate() {
		if u.GetPath().GetOrigin() == "cli" {
			cli = append(cli, u)
		}
	}
	if len(cli) != 1 {
		t.Fatalf("SetRequest has %d origin cli updates, want 1: %v", len(cli), req)
	}
	if n := len(cli[0].GetPath().GetElem()); n != 0 {
		t.Errorf("origin cli update addresses %d elements, want the empty path", n)
	}
	ascii, ok := cli[0].GetVal().GetValue().(*gnmipb.TypedValue_AsciiVal)
	if !ok {
		t.Fatalf("origin cli value is %T, want ascii_val", cli[0].GetVal().GetValue())
	}
	want := "interface Ethernet1\n   no priority-flow-control priority 4 no-drop\n" +
		"interface Ethernet1\n   no priority-flow-control pause watchdog port timer\n" +
		"interface Ethernet1\n   priority-flow-control on\n" +
		"interface Ethernet1\n   priority-flow-control priority 3 no-drop\n"
	if ascii.AsciiVal != want {
		t.Errorf("ascii_val:\n%s\nwant\n%s", ascii.AsciiVal, want)
	}
	leaves := sim.Leaves()
	for k, present := range map[string]bool{onKey: true, prioKey: true, oldKey: false, timer: false} {
		if _, ok := leaves[k]; ok != present {
			t.Errorf("%s present = %v after the push, want %v:\n%s", k, ok, present, sim.Tree())
		}
	}
}

// TestCLIOriginTakesOnlyText: a cli value that is not CLI text is refused
// before anything is sent.
func TestCLIOriginTakesOnlyText(t *testing.T) {
	sim := startSim(t, gnmisim.Options{})
	d := dial(t, options(t, sim, ocPlatform(), ocScope))
	sets := sim.SetCount()
	_, err := d.Push(context.Background(), devcfg.Patch{Updates: []devcfg.PathUpdate{{Path: "cli:/interface Ethernet1 > priority-flow-control on", Value: devcfg.Empty}}}, drivers.PushOptions{})
	if err == nil {
		t.Fatal("a JSON object under origin cli was pushed")
	}
	if sim.SetCount() != sets {
		t.Error("the refused push reached the target")
	}
}

// TestCLIRejectionNamesTheLine: a device refuses a CLI command by naming
// it and its mode, not a path; the error names the patch's line.
func TestCLIRejectionNamesTheLine(t *testing.T) {
	const (
		e1 = "cli:/interface Ethernet1 > priority-flow-control on"
		e2 = "cli:/interface Ethernet2 > priority-flow-control on"
	)
	sim := startSim(t, gnmisim.Options{})
	sim.SetFaults(gnmisim.Faults{RejectPath: e2, RejectMessage: "invalid input"})
	d := dial(t, options(t, sim, ocPlatform(), ocScope))
	before := sim.Tree()
	_, err := d.Push(context.Background(), devcfg.Patch{Updates: []devcfg.PathUpdate{
		{Path: e1, Value: devcfg.String("interface Ethernet1\n   priority-flow-control on")},
		{Path: e2, Value: devcfg.String("interface Ethernet2\n   priority-flow-control on")},
	}}, drivers.PushOptions{})
	if !errors.Is(err, drivers.ErrRejected) {
		t.Fatalf("err = %v, want rejected", err)
	}
	var de *drivers.DeviceError
	if !errors.As(err, &de) || de.Line != e2 {
		t.Errorf("rejected line = %v, want %s", err, e2)
	}
	if sim.Tree() != before {
		t.Errorf("a refused SetRequest changed the target:\n%s", sim.Tree())
	}
}
