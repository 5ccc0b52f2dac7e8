package cabling

import "fmt"

// ParseOpenConfig reads openconfig-lldp as JSON (a gNMI Get of /lldp in
// JSON or JSON_IETF): lldp/interfaces/interface[name]/neighbors/
// neighbor[id]/state with system-name, port-id and port-description.
// Module prefixes on keys are ignored; the document may start at the
// lldp container, at interfaces or at the interface list.
func ParseOpenConfig(device string, data []byte) ([]Neighbor, error) {
	v, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("openconfig-lldp JSON: %w", err)
	}
	root := obj(v)
	if root == nil {
		return nil, fmt.Errorf("openconfig-lldp JSON: want an object")
	}
	if l := field(root, "lldp"); l != nil {
		root = obj(l)
	}
	if i := field(root, "interfaces"); i != nil {
		root = obj(i)
	}
	ifs := field(root, "interface")
	if ifs == nil {
		return nil, fmt.Errorf("openconfig-lldp JSON: no lldp/interfaces/interface")
	}
	var out []Neighbor
	for _, e := range list(ifs) {
		ifm := obj(e)
		name := str(field(ifm, "name"))
		if name == "" {
			name = str(field(obj(field(ifm, "state")), "name"))
		}
		for _, nb := range list(field(obj(field(ifm, "neighbors")), "neighbor")) {
			st := obj(field(obj(nb), "state"))
			out = append(out, Neighbor{Port: name,
				SysName:   str(field(st, "system-name")),
				PortID:    str(field(st, "port-id")),
				PortDescr: str(field(st, "port-description")),
			})
		}
	}
	return finish(device, out), nil
}
