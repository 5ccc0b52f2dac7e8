package cabling

import (
	"fmt"
	"strings"
)

// ParseEOS reads EOS `show lldp neighbors detail | json`: lldpNeighbors
// keyed by local interface, each with lldpNeighborInfo, a list of
// neighbours with systemName and neighborInterfaceInfo (interfaceId_v2,
// or the older quoted interfaceId, and interfaceDescription).
func ParseEOS(device string, data []byte) ([]Neighbor, error) {
	v, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("EOS JSON: %w", err)
	}
	root := obj(v)
	nbs, ok := root["lldpNeighbors"]
	if !ok {
		return nil, fmt.Errorf("EOS JSON: no lldpNeighbors")
	}
	m := obj(nbs)
	var out []Neighbor
	for _, port := range sortedKeys(m) {
		for _, info := range list(obj(m[port])["lldpNeighborInfo"]) {
			im := obj(info)
			ni := obj(im["neighborInterfaceInfo"])
			id := str(ni["interfaceId_v2"])
			if id == "" {
				id = strings.Trim(str(ni["interfaceId"]), `"`)
			}
			out = append(out, Neighbor{Port: port, SysName: str(im["systemName"]), PortID: id,
				PortDescr: str(ni["interfaceDescription"])})
		}
	}
	return finish(device, out), nil
}
