package ssh_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/sim/sshsim"
)

// oddVLANs lists the odd VLANs below n: a list NX-OS prints on several
// lines.
func oddVLANs(n int) string {
	var ids []string
	for v := 1; v < n; v += 2 {
		ids = append(ids, strconv.Itoa(v))
	}
	return strings.Join(ids, ",")
}

// TestNXOSPushReplacesWhole: with the plan's changes, an NX-OS push copies
// the whole new configuration over SCP and replaces the running one in one
// step, typing none of the change's lines; the read-back is compliant, and
// once confirmed nothing is left on the switch. Where the switch refuses
// SCP (no `feature scp-server`), or the running configuration holds a form
// the candidate cannot write back (a long allowed-VLAN list continued on
// `add` lines), the same push types its lines and still applies.
func TestNXOSPushReplacesWhole(t *testing.T) {
	tests := []struct {
		name    string
		hand    []string // changes by hand before the push
		replace bool
	}{
		{"replaced", nil, true},
		{"no scp-server", []string{"no feature scp-server"}, false},
		{"a list on add lines", []string{"interface Ethernet1/2", "switchport mode trunk", "switchport trunk allowed vlan " + oddVLANs(401)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			desired, e := basic(t, "leaf-nxos")
			sim, kh := startReal(t, sshsim.NXOS, "leaf-nxos")
			if len(tt.hand) > 0 {
				if err := sim.HandChange(tt.hand...); err != nil {
					t.Fatal(err)
				}
			}
			d := openReal(t, sim, kh, e, desired.Owned)
			ctx := testContext(t)
			run, err := d.Fetch(ctx)
			if err != nil {
				t.Fatal(err)
			}
			syn := e.Attrs.Platform.Syntax
			changes := devcfg.Diff(desired, run.Owned, syn, nil)
			patch := devcfg.BuildPatch(changes, syn)
			sim.ResetReceived()
			p, err := d.Push(ctx, patch, drivers.PushOptions{RunID: "20261204T010000.000000Z-abcdef", Changes: changes, Expect: run.Fingerprint})
			if err != nil {
				t.Fatal(err)
			}
			got := sim.Received()
			replaced := slices.ContainsFunc(got, func(l string) bool { return strings.HasPrefix(l, "configure replace bootflash:") })
			typed := slices.ContainsFunc(got, func(l string) bool {
				return slices.Contains(patch.Lines, l) && strings.HasPrefix(l, "priority-flow-control")
			})
			if replaced != tt.replace || typed == tt.replace {
				t.Fatalf("replaced %v, typed %v; want replaced %v: %q", replaced, typed, tt.replace, got)
			}
			after, err := d.Fetch(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if left := devcfg.Diff(desired, after.Owned, syn, nil); len(left) > 0 {
				t.Fatalf("read-back differs: %d change(s), first %s %s", len(left), left[0].Action.Symbol(), left[0].Where())
			}
			if tt.replace && !slices.Contains(sim.Leftovers(), "configure replace pending") {
				t.Errorf("the replaced configuration is not under the commit timer until confirmed: %v", sim.Leftovers())
			}
			if err := p.Confirm(ctx); err != nil {
				t.Fatal(err)
			}
			if left := sim.Leftovers(); len(left) > 0 {
				t.Errorf("left on the switch after the confirmation: %v", left)
			}
		})
	}
}
