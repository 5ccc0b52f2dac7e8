package cabling

import "fmt"

// ParseLLDPCLI reads lldpd's `lldpcli -f json show neighbors` and
// `-f json0`. In json, "interface" is one object keyed by the interface
// name when one interface has neighbours and an array of such objects when
// several do (one entry per neighbour); "chassis" is keyed by the system
// name when the neighbour sent one. json0 always uses arrays of objects
// with "name" and {"value": ...} leaves.
func ParseLLDPCLI(device string, data []byte) ([]Neighbor, error) {
	v, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("lldpcli JSON: %w", err)
	}
	root := obj(v)
	if root == nil {
		return nil, fmt.Errorf("lldpcli JSON: want an object with \"lldp\"")
	}
	lldp, ok := root["lldp"]
	if !ok {
		return nil, fmt.Errorf("lldpcli JSON: no \"lldp\" key")
	}
	var out []Neighbor
	for _, l := range list(lldp) {
		for _, entry := range list(obj(l)["interface"]) {
			m := obj(entry)
			if m == nil {
				continue
			}
			if name, ok := m["name"]; ok && str(name) != "" { // json0
				out = append(out, lldpcliNeighbor(str(name), m))
				continue
			}
			for _, name := range sortedKeys(m) {
				if body := obj(m[name]); body != nil {
					out = append(out, lldpcliNeighbor(name, body))
				}
			}
		}
	}
	return finish(device, out), nil
}

func lldpcliNeighbor(port string, body map[string]any) Neighbor {
	n := Neighbor{Port: port}
	for _, c := range list(body["chassis"]) {
		ch := obj(c)
		if ch == nil {
			continue
		}
		if name := value(ch["name"]); name != "" { // json0
			n.SysName = name
			continue
		}
		if isTyped(ch["id"]) { // json, no system name sent
			continue
		}
		for _, k := range sortedKeys(ch) {
			if obj(ch[k]) != nil {
				n.SysName = k
				break
			}
		}
	}
	for _, p := range list(body["port"]) {
		pm := obj(p)
		if pm == nil {
			continue
		}
		n.PortID = value(pm["id"])
		n.PortDescr = value(pm["descr"])
	}
	return n
}

// isTyped is lldpd's {"type": ..., "value": ...} leaf.
func isTyped(v any) bool {
	m := obj(v)
	if m == nil {
		return false
	}
	_, t := m["type"]
	_, val := m["value"]
	return t && val
}

// value reads a leaf in any of lldpd's shapes: "x", {"value": "x"},
// {"type": t, "value": "x"} or a one-element array of those.
func value(v any) string {
	for _, e := range list(v) {
		switch x := e.(type) {
		case map[string]any:
			if s := str(x["value"]); s != "" {
				return s
			}
		default:
			if s := str(x); s != "" {
				return s
			}
		}
	}
	return ""
}
