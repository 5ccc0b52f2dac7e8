package cumulus

import (
	"fmt"

	"github.com/rocefab/rocefab/devcfg/observe"
)

// ParseLLDP reads NVUE's LLDP neighbours in any of the shapes `nv show
// -o json` gives them: the interface tree (`nv show interface -o json`,
// each interface's lldp/neighbor), one interface's lldp (`nv show
// interface swp1 lldp -o json`) or its neighbor map (`... lldp neighbor
// -o json`) — those two name no interface, so the caller passes it as
// "device:port" in device. A neighbour has chassis/system-name and
// port/name (the ifname or ID, by port/type) and port/description.
func ParseLLDP(device string, data []byte) ([]observe.Neighbor, error) {
	v, err := observe.DecodeJSON(data)
	if err != nil {
		return nil, fmt.Errorf("NVUE JSON: %w", err)
	}
	root := observe.Obj(v)
	if root == nil {
		return nil, fmt.Errorf("NVUE JSON: want an object")
	}
	dev, onePort := observe.SplitDevicePort(device)
	var out []observe.Neighbor
	switch {
	case root["neighbor"] != nil: // one interface's lldp
		out = nvueNeighbors(onePort, observe.Obj(root["neighbor"]))
	case looksNVUENeighbors(root): // one interface's neighbor map
		out = nvueNeighbors(onePort, root)
	default: // the interface tree
		for _, port := range observe.SortedKeys(root) {
			lldp := observe.Obj(observe.Obj(root[port])["lldp"])
			out = append(out, nvueNeighbors(port, observe.Obj(lldp["neighbor"]))...)
		}
	}
	return observe.FinishNeighbors(dev, out), nil
}

func nvueNeighbors(port string, m map[string]any) []observe.Neighbor {
	var out []observe.Neighbor
	for _, id := range observe.SortedKeys(m) {
		n := observe.Obj(m[id])
		ch, p := observe.Obj(n["chassis"]), observe.Obj(n["port"])
		sys := observe.Str(ch["system-name"])
		if sys == "" {
			sys = id // NVUE keys a neighbour by its system name
		}
		out = append(out, observe.Neighbor{Port: port, SysName: sys, PortID: observe.Str(p["name"]), PortDescr: observe.Str(p["description"])})
	}
	return out
}

func looksNVUENeighbors(m map[string]any) bool {
	for _, v := range m {
		n := observe.Obj(v)
		if n == nil || n["chassis"] == nil && n["port"] == nil {
			return false
		}
	}
	return len(m) > 0
}

// LLDP is how the cabling check reads the platform's neighbours.
var LLDP = observe.LLDP{
	Parse:   ParseLLDP,
	Show:    "nv show interface -o json",
	Command: "nv show interface -o json; nv show interface <port> lldp [neighbor] -o json",
	Cite: "NVIDIA NVUE Command Reference, Show Commands, LLDP: https://docs.nvidia.com/networking-ethernet-software/nvue-reference/Show-Commands/LLDP/ " +
		"(nv show interface <interface-id> lldp neighbor); the JSON keys lldp/neighbor/<id>/chassis/system-name and port/name, description, type " +
		"as NVUE's OpenAPI names them",
	// DCBX says why the neighbour's DCBX TLVs are not read, and where that was looked up.
	DCBX:     "not read: NVUE configures DCBX TLVs to send (lldp dcbx-pfc-tlv, application-tlv) but shows no neighbour's",
	DCBXCite: "NVIDIA NVUE Command Reference, LLDP set and show commands: https://docs.nvidia.com/networking-ethernet-software/nvue-reference/Set-and-Unset-Commands/LLDP/",
}
