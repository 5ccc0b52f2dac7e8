package nxos

import (
	"testing"

	"github.com/rocefab/rocefab/devcfg/observe"
	"github.com/rocefab/rocefab/internal/lldptest"
)

var n = lldptest.N

func TestParseLLDP(t *testing.T) {
	lldptest.Parses(t, ParseLLDP, []lldptest.Case{
		{Name: "rows", File: "detail.json", Device: "leaf1", Want: []observe.Neighbor{
			n("leaf1", "Eth1/49", "spine1.dc1.example.net", "Ethernet1/1", "to-leaf1"),
			n("leaf1", "Eth1/7", "gpu03", "b8ce.f6a0.1c02", "ens1f0"),
			n("leaf1", "Eth1/8", "gpu04", "b8ce.f6a0.2d04", "ens1f0"),
		}},
		{Name: "one row is an object", File: "single.json", Device: "leaf1", Want: []observe.Neighbor{
			n("leaf1", "Eth1/49", "spine1", "Ethernet1/1", ""),
		}},
	})
	lldptest.Rejects(t, ParseLLDP, map[string]string{`{"TABLE_interface": {}}`: "no TABLE_nbor_detail"})
	// NX-OS leaves the table out when there is no neighbour: that is none,
	// not an error.
	got, err := ParseLLDP("leaf1", []byte(`{"neigh_hdr": "neigh_hdr", "neigh_count": 0}`))
	if err != nil || len(got) != 0 {
		t.Errorf("no neighbours: %v, %v; want none and no error", got, err)
	}
}

func FuzzParseLLDP(f *testing.F) {
	lldptest.Fuzz(f, ParseLLDP, "leaf1", []string{"detail.json", "single.json"},
		`{"neigh_count":0}`, `{"TABLE_nbor_detail":[{"ROW_nbor_detail":{"l_port_id":"Eth1/1","sys_name":1}}]}`)
}
