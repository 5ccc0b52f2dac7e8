package cabling

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rocefab/rocefab/intent"
)

func basicFabric(t *testing.T) *intent.Resolved {
	t.Helper()
	fab, diags := intent.Load(filepath.Join("..", "..", "examples", "basic", "fabric.yaml"))
	if fab == nil || diags.HasErrors() {
		t.Fatal(diags)
	}
	res, diags := intent.Resolve(fab)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return res
}

func bitmap(b uint8) *uint8 { return &b }

// TestCheckDCBX: examples/basic has PFC on priority 3, RoCE DSCP 26 to 3
// and CNP DSCP 48 to 6; each neighbour advertisement is judged against the
// policy of the device that hears it.
func TestCheckDCBX(t *testing.T) {
	res := basicFabric(t)
	for _, tc := range []struct {
		name string
		peer DCBXPeer
		want []string
	}{
		{"agrees", DCBXPeer{Device: "leaf-nxos", Port: "Ethernet1/1", PFC: bitmap(0x08), DSCP: map[int]int{26: 3, 48: 6, 10: 1}}, nil},
		{"PFC on another priority", DCBXPeer{Device: "leaf-nxos", Port: "Ethernet1/1", PFC: bitmap(0x10)},
			[]string{"leaf-nxos Ethernet1/1 neighbour advertises PFC on 4, the intent has 3"}},
		{"PFC off", DCBXPeer{Device: "gpu01", Port: "ens1f0np0", PFC: bitmap(0)},
			[]string{"gpu01 ens1f0np0 neighbour advertises PFC on none, the intent has 3"}},
		{"PFC on two", DCBXPeer{Device: "gpu01", Port: "ens1f0np0", PFC: bitmap(0x18)},
			[]string{"gpu01 ens1f0np0 neighbour advertises PFC on 3,4, the intent has 3"}},
		{"RoCE DSCP to the wrong priority", DCBXPeer{Device: "leaf-eos", Port: "Ethernet1", DSCP: map[int]int{26: 0, 48: 6}},
			[]string{"leaf-eos Ethernet1 neighbour's APP table maps DSCP 26 to 0, the intent 3"}},
		{"CNP DSCP unmapped", DCBXPeer{Device: "leaf-eos", Port: "Ethernet1", DSCP: map[int]int{26: 3}},
			[]string{"leaf-eos Ethernet1 neighbour's APP table does not map DSCP 48, the intent maps it to 6"}},
		{"both TLVs wrong", DCBXPeer{Device: "gpu02", Port: "ens1f0np0", PFC: bitmap(0x10), DSCP: map[int]int{26: 4, 48: 6}},
			[]string{"gpu02 ens1f0np0 neighbour advertises PFC on 4, the intent has 3", "gpu02 ens1f0np0 neighbour's APP table maps DSCP 26 to 4, the intent 3"}},
		{"no TLVs: not judged", DCBXPeer{Device: "gpu02", Port: "ens1f0np0"}, nil},
		{"a device the intent does not have", DCBXPeer{Device: "gpu99", Port: "ens1f0np0", PFC: bitmap(0x10)}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, f := range CheckDCBX(res, []DCBXPeer{tc.peer}) {
				got = append(got, f.Message)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("findings (-want +got):\n%s", d)
			}
		})
	}
}
