package cabling

import "fmt"

// ParseNXOS reads NX-OS `show lldp neighbors detail | json` (or the body
// of the NX-API answer): TABLE_nbor_detail/ROW_nbor_detail, a row object
// when there is one neighbour and an array when there are more, with
// l_port_id (the short Eth1/1 name), sys_name, port_id and port_desc.
func ParseNXOS(device string, data []byte) ([]Neighbor, error) {
	v, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("NX-OS JSON: %w", err)
	}
	root := obj(v)
	if root == nil {
		return nil, fmt.Errorf("NX-OS JSON: want an object")
	}
	table, ok := root["TABLE_nbor_detail"]
	if !ok {
		if _, empty := root["neigh_count"]; empty || len(root) == 0 {
			return []Neighbor{}, nil // no neighbours: NX-OS leaves the table out
		}
		return nil, fmt.Errorf("NX-OS JSON: no TABLE_nbor_detail")
	}
	var out []Neighbor
	for _, t := range list(table) {
		for _, r := range list(obj(t)["ROW_nbor_detail"]) {
			row := obj(r)
			out = append(out, Neighbor{Port: str(row["l_port_id"]), SysName: str(row["sys_name"]),
				PortID: str(row["port_id"]), PortDescr: nxosNull(str(row["port_desc"]))})
		}
	}
	return finish(device, out), nil
}

// nxosNull drops NX-OS's placeholder for a TLV the peer did not send.
func nxosNull(s string) string {
	if s == "null" || s == "not advertised" {
		return ""
	}
	return s
}
