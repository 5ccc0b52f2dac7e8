package cumulus

import (
	"testing"

	"github.com/rocefab/rocefab/devcfg/observe"
	"github.com/rocefab/rocefab/internal/lldptest"
)

var n = lldptest.N

func TestParseLLDP(t *testing.T) {
	lldptest.Parses(t, ParseLLDP, []lldptest.Case{
		{Name: "interface tree", File: "interfaces.json", Device: "leaf1", Want: []observe.Neighbor{
			n("leaf1", "eth0", "oob-mgmt-switch", "swp10", ""),
			n("leaf1", "swp1", "spine1", "swp1", "swp1"),
			n("leaf1", "swp7", "gpu03", "b8:ce:f6:a0:1c:02", "ens1f0"),
			n("leaf1", "swp8", "gpu04", "b8:ce:f6:a0:2d:04", "ens1f0"),
		}},
		{Name: "one port's lldp", File: "port_lldp.json", Device: "leaf1:swp7", Want: []observe.Neighbor{
			n("leaf1", "swp7", "gpu03", "b8:ce:f6:a0:1c:02", "ens1f0"),
		}},
	})
	lldptest.Rejects(t, ParseLLDP, map[string]string{`[]`: "want an object"})
}

func FuzzParseLLDP(f *testing.F) {
	lldptest.Fuzz(f, ParseLLDP, "leaf1:swp7", []string{"interfaces.json", "port_lldp.json"},
		`{"spine1":{"chassis":{},"port":{"name":"swp1"}}}`)
}
