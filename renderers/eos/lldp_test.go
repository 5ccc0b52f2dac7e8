package eos

import (
	"testing"

	"github.com/rocefab/rocefab/devcfg/observe"
	"github.com/rocefab/rocefab/internal/lldptest"
)

var n = lldptest.N

func TestParseLLDP(t *testing.T) {
	lldptest.Parses(t, ParseLLDP, []lldptest.Case{
		{Name: "detail", File: "detail.json", Device: "leaf1", Want: []observe.Neighbor{
			n("leaf1", "Ethernet49/1", "spine1", "Ethernet1/1", "P2P_LINK_TO_LEAF1_Ethernet49/1"),
			n("leaf1", "Ethernet7/1", "gpu03", "b8ce.f6a0.1c02", "ens1f0"),
			n("leaf1", "Ethernet8/1", "gpu04", "b8ce.f6a0.2d04", "ens1f0"),
		}},
	})
	lldptest.Rejects(t, ParseLLDP, map[string]string{`{"interfaces": {}}`: "no lldpNeighbors"})
}

func FuzzParseLLDP(f *testing.F) {
	lldptest.Fuzz(f, ParseLLDP, "leaf1", []string{"detail.json"},
		`{"lldpNeighbors":{"Ethernet1":{"lldpNeighborInfo":{"systemName":"x"}}}}`)
}
