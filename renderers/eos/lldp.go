package eos

import (
	"fmt"
	"strings"

	"github.com/rocefab/rocefab/devcfg/observe"
)

// ParseLLDP reads EOS `show lldp neighbors detail | json`: lldpNeighbors
// keyed by local interface, each with lldpNeighborInfo, a list of
// neighbours with systemName and neighborInterfaceInfo (interfaceId_v2,
// or the older quoted interfaceId, and interfaceDescription).
func ParseLLDP(device string, data []byte) ([]observe.Neighbor, error) {
	v, err := observe.DecodeJSON(data)
	if err != nil {
		return nil, fmt.Errorf("EOS JSON: %w", err)
	}
	root := observe.Obj(v)
	nbs, ok := root["lldpNeighbors"]
	if !ok {
		return nil, fmt.Errorf("EOS JSON: no lldpNeighbors")
	}
	m := observe.Obj(nbs)
	var out []observe.Neighbor
	for _, port := range observe.SortedKeys(m) {
		for _, info := range observe.List(observe.Obj(m[port])["lldpNeighborInfo"]) {
			im := observe.Obj(info)
			ni := observe.Obj(im["neighborInterfaceInfo"])
			id := observe.Str(ni["interfaceId_v2"])
			if id == "" {
				id = strings.Trim(observe.Str(ni["interfaceId"]), `"`)
			}
			out = append(out, observe.Neighbor{Port: port, SysName: observe.Str(im["systemName"]), PortID: id,
				PortDescr: observe.Str(ni["interfaceDescription"])})
		}
	}
	return observe.FinishNeighbors(device, out), nil
}

// LLDP is how the cabling check reads the platform's neighbours.
var LLDP = observe.LLDP{
	Parse:   ParseLLDP,
	Show:    "show lldp neighbors detail | json",
	Command: "show lldp neighbors detail | json (eAPI)",
	Cite: "Arista EOS User Manual, LLDP: show lldp neighbors detail; aristanetworks/anta anta/tests/connectivity.py VerifyLLDPNeighbors " +
		"(lldpNeighbors/<port>/lldpNeighborInfo[] systemName, neighborInterfaceInfo.interfaceId_v2)",
	// DCBX says why the neighbour's DCBX TLVs are not read, and where that was looked up.
	DCBX:     "not read: no documented JSON of show dcbx [interface] found",
	DCBXCite: "Arista EOS User Manual, DCBX (show dcbx); public eAPI code (anta, pyeapi) reads no DCBX",
}
