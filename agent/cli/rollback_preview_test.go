package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/agent/engine"
	"github.com/rocefab/rocefab/agent/engine/enginetest"
)

// TestRollbackShowsDiffAndHandChangesBeforeAsking: rollback prints, before
// its question, each device's diff back to the snapshot and the changes
// made by hand since the run that it would overwrite; answered "no" it
// changes nothing.
func TestRollbackShowsDiffAndHandChangesBeforeAsking(t *testing.T) {
	c := newSimCLI(t, []enginetest.Spec{{Name: "leaf-eos", Kind: enginetest.EOS}, {Name: "leaf-sonic", Kind: enginetest.SONiC}})
	out := c.want(ExitOK, "", "apply", c.intent, "--auto-approve", "--allow-disruptive", "-o", "json")
	var rep engine.RunReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if err := c.fleet.Switch("leaf-eos").SSH.HandChange("interface Ethernet2", "mtu 1500"); err != nil {
		t.Fatal(err)
	}
	before := c.fleet.Configs()
	code, out, errOut := c.run("no\n", "rollback", rep.ID, "--allow-disruptive")
	if code != ExitFailure || !strings.Contains(errOut, "Rollback cancelled.") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, want := range []string{
		"Rollback of apply run " + rep.ID,
		"leaf-eos (eos via ssh",
		"- interface Ethernet1 > mtu 9214",
		"- interface Ethernet2 > mtu 1500",
		"! 1 change(s) made on leaf-eos since the run (by hand or by a later run) would be overwritten:",
		"~ interface Ethernet2 > mtu 1500 -> mtu 9214",
		"leaf-sonic (sonic via gnmi",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("preview lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "Roll back the devices of run "+rep.ID) {
		t.Errorf("no question after the preview:\n%s", errOut)
	}
	for name, cfg := range c.fleet.Configs() {
		if cfg != before[name] {
			t.Fatalf("a cancelled rollback changed %s", name)
		}
	}
}
