package cabling

import "fmt"

// ParseNVUE reads NVUE's LLDP neighbours in any of the shapes `nv show
// -o json` gives them: the interface tree (`nv show interface -o json`,
// each interface's lldp/neighbor), one interface's lldp (`nv show
// interface swp1 lldp -o json`) or its neighbor map (`... lldp neighbor
// -o json`) — those two name no interface, so the caller passes it as
// "device:port" in device. A neighbour has chassis/system-name and
// port/name (the ifname or ID, by port/type) and port/description.
func ParseNVUE(device string, data []byte) ([]Neighbor, error) {
	v, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("NVUE JSON: %w", err)
	}
	root := obj(v)
	if root == nil {
		return nil, fmt.Errorf("NVUE JSON: want an object")
	}
	dev, onePort := splitDevicePort(device)
	var out []Neighbor
	switch {
	case root["neighbor"] != nil: // one interface's lldp
		out = nvueNeighbors(onePort, obj(root["neighbor"]))
	case looksNVUENeighbors(root): // one interface's neighbor map
		out = nvueNeighbors(onePort, root)
	default: // the interface tree
		for _, port := range sortedKeys(root) {
			lldp := obj(obj(root[port])["lldp"])
			out = append(out, nvueNeighbors(port, obj(lldp["neighbor"]))...)
		}
	}
	return finish(dev, out), nil
}

func nvueNeighbors(port string, m map[string]any) []Neighbor {
	var out []Neighbor
	for _, id := range sortedKeys(m) {
		n := obj(m[id])
		ch, p := obj(n["chassis"]), obj(n["port"])
		sys := str(ch["system-name"])
		if sys == "" {
			sys = id // NVUE keys a neighbour by its system name
		}
		out = append(out, Neighbor{Port: port, SysName: sys, PortID: str(p["name"]), PortDescr: str(p["description"])})
	}
	return out
}

func looksNVUENeighbors(m map[string]any) bool {
	for _, v := range m {
		n := obj(v)
		if n == nil || n["chassis"] == nil && n["port"] == nil {
			return false
		}
	}
	return len(m) > 0
}

// splitDevicePort splits "leaf1:swp1" for outputs of one port.
func splitDevicePort(s string) (string, string) {
	for i := len(s) - 1; i > 0; i-- {
		if s[i] == ':' {
			return s[:i], s[i+1:]
		}
	}
	return s, ""
}
