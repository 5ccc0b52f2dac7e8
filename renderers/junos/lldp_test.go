package junos

import (
	"testing"

	"github.com/rocefab/rocefab/devcfg/observe"
	"github.com/rocefab/rocefab/internal/lldptest"
)

var n = lldptest.N

func TestParseLLDP(t *testing.T) {
	lldptest.Parses(t, ParseLLDP, []lldptest.Case{
		{Name: "detail: the local interface, not the SNMP index", File: "detail.json", Device: "leaf1", Want: []observe.Neighbor{
			n("leaf1", "et-0/0/0", "spine1", "Ethernet1/1", "to-leaf1"),
			n("leaf1", "et-0/0/6", "gpu03", "b8:ce:f6:a0:1c:02", "ens1f0"),
		}},
		{Name: "brief", File: "brief.json", Device: "leaf1", Want: []observe.Neighbor{
			n("leaf1", "et-0/0/7", "gpu04", "b8:ce:f6:a0:2d:04", "ens1f0"),
		}},
	})
	lldptest.Rejects(t, ParseLLDP, map[string]string{
		`<rpc-reply/>`:                  "Junos JSON",
		`{"interface-information": []}`: "no lldp-neighbors-information",
	})
}

func FuzzParseLLDP(f *testing.F) {
	lldptest.Fuzz(f, ParseLLDP, "leaf1", []string{"detail.json", "brief.json"},
		`{"lldp-neighbors-information":{"lldp-neighbor-information":{"lldp-local-interface":[{"data":"-"}],"lldp-local-port-id":[{"data":7}]}}}`)
}
