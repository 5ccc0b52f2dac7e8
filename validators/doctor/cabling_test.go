package doctor

import (
	"testing"

	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/validators/cabling"
)

func TestCablingResults(t *testing.T) {
	h0 := intent.Endpoint{Device: "gpu01", Port: "ens1f0np0"}
	h1 := intent.Endpoint{Device: "gpu01", Port: "ens1f1np1"}
	links := []intent.Link{
		{A: h0, B: intent.Endpoint{Device: "leaf1", Port: "Ethernet1/1"}, HostEnd: &h0, SwitchEnd: intent.Endpoint{Device: "leaf1", Port: "Ethernet1/1"}},
		{A: h1, B: intent.Endpoint{Device: "leaf2", Port: "Ethernet1/1"}, HostEnd: &h1, SwitchEnd: intent.Endpoint{Device: "leaf2", Port: "Ethernet1/1"}},
	}
	known := []string{"gpu01", "leaf1", "leaf2"}
	nb := func(port, sys, descr string) cabling.Neighbor {
		return cabling.Neighbor{Device: "gpu01", Port: port, SysName: sys, PortID: "02:00:00:00:00:01", PortDescr: descr}
	}
	cases := []struct {
		name string
		obs  cabling.Observed
		want []Status
		msg  string // the second result's message
	}{
		{"both verified", cabling.Observed{Read: []string{"gpu01"}, Neighbors: []cabling.Neighbor{
			nb("ens1f0np0", "leaf1", "Ethernet1/1"), nb("ens1f1np1", "leaf2", "Ethernet1/1")}},
			[]Status{Pass, Pass}, "cabled to leaf2 Ethernet1/1, as the intent says"},
		{"second NIC on the wrong leaf", cabling.Observed{Read: []string{"gpu01"}, Neighbors: []cabling.Neighbor{
			nb("ens1f0np0", "leaf1", "Ethernet1/1"), nb("ens1f1np1", "leaf1", "Ethernet1/2")}},
			[]Status{Pass, Fail}, "gpu01 ens1f1np1 reaches leaf1 Ethernet1/2; the intent says leaf2 Ethernet1/1"},
		{"second NIC hears nothing", cabling.Observed{Read: []string{"gpu01"}, Neighbors: []cabling.Neighbor{
			nb("ens1f0np0", "leaf1", "Ethernet1/1")}},
			[]Status{Pass, Warn}, "no LLDP neighbour on ens1f1np1; the intent says leaf2 Ethernet1/1"},
		{"not read", cabling.Observed{}, []Status{Warn, Warn}, "LLDP neighbours not read"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := CablingResults(links, cabling.Classify(links, known, tc.obs))
			if len(got) != 2 {
				t.Fatalf("%d results, want 2: %+v", len(got), got)
			}
			for i, r := range got {
				if r.Check != CheckCabling || r.Status != tc.want[i] || r.Subject != links[i].HostEnd.Port {
					t.Errorf("result %d: %+v, want %s on %s", i, r, tc.want[i], links[i].HostEnd.Port)
				}
				if r.Status != Pass && r.Fix == "" {
					t.Errorf("result %d: %s without a fix", i, r.Status)
				}
			}
			if got[1].Message != tc.msg {
				t.Errorf("message %q, want %q", got[1].Message, tc.msg)
			}
		})
	}
}
