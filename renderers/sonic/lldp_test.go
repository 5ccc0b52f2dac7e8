package sonic

import (
	"testing"

	"github.com/rocefab/rocefab/devcfg/observe"
	"github.com/rocefab/rocefab/internal/lldptest"
)

var n = lldptest.N

func TestParseLLDP(t *testing.T) {
	lldptest.Parses(t, ParseLLDP, []lldptest.Case{
		{Name: "sonic-db-dump", File: "dump.json", Device: "leaf1", Want: []observe.Neighbor{
			n("leaf1", "Ethernet0", "spine1", "Ethernet1/1", "to-leaf1"),
			n("leaf1", "Ethernet24", "gpu03", "b8:ce:f6:a0:1c:02", "ens1f0"),
			n("leaf1", "Ethernet28", "gpu04", "b8:ce:f6:a0:2d:04", "ens1f0"),
			n("leaf1", "eth0", "oob-mgmt-switch", "Gi1/0/7", ""),
		}},
		{Name: "flat hashes, a neighbour with no identity dropped", File: "flat.json", Device: "leaf1", Want: []observe.Neighbor{
			n("leaf1", "Ethernet4", "spine1", "Ethernet1/2", ""),
			n("leaf1", "Ethernet8", "", "541", ""),
		}},
		{Name: "gNMI APPL_DB", File: "gnmi.json", Device: "leaf1", Want: []observe.Neighbor{
			n("leaf1", "Ethernet0", "spine1", "Ethernet1/1", "to-leaf1"),
			n("leaf1", "Ethernet24", "gpu03", "b8:ce:f6:a0:1c:02", "ens1f0"),
		}},
	})
	lldptest.Rejects(t, ParseLLDP, map[string]string{`[1]`: "want an object"})
}

func FuzzParseLLDP(f *testing.F) {
	lldptest.Fuzz(f, ParseLLDP, "leaf1", []string{"dump.json", "gnmi.json", "flat.json"},
		`{"LLDP_ENTRY_TABLE":{"Ethernet0":{"lldp_rem_sys_name":"s"}}}`, `{"LLDP_ENTRY_TABLE:":{"type":"hash","value":{}}}`)
}
