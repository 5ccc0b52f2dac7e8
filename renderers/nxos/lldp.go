package nxos

import (
	"fmt"

	"github.com/rocefab/rocefab/devcfg/observe"
)

// ParseLLDP reads NX-OS `show lldp neighbors detail | json` (or the body
// of the NX-API answer): TABLE_nbor_detail/ROW_nbor_detail, a row object
// when there is one neighbour and an array when there are more, with
// l_port_id (the short Eth1/1 name), sys_name, port_id and port_desc.
func ParseLLDP(device string, data []byte) ([]observe.Neighbor, error) {
	v, err := observe.DecodeJSON(data)
	if err != nil {
		return nil, fmt.Errorf("NX-OS JSON: %w", err)
	}
	root := observe.Obj(v)
	if root == nil {
		return nil, fmt.Errorf("NX-OS JSON: want an object")
	}
	table, ok := root["TABLE_nbor_detail"]
	if !ok {
		if _, empty := root["neigh_count"]; empty || len(root) == 0 {
			return []observe.Neighbor{}, nil // no neighbours: NX-OS leaves the table out
		}
		return nil, fmt.Errorf("NX-OS JSON: no TABLE_nbor_detail")
	}
	var out []observe.Neighbor
	for _, t := range observe.List(table) {
		for _, r := range observe.List(observe.Obj(t)["ROW_nbor_detail"]) {
			row := observe.Obj(r)
			out = append(out, observe.Neighbor{Port: observe.Str(row["l_port_id"]), SysName: observe.Str(row["sys_name"]),
				PortID: observe.Str(row["port_id"]), PortDescr: nxosNull(observe.Str(row["port_desc"]))})
		}
	}
	return observe.FinishNeighbors(device, out), nil
}

// nxosNull drops NX-OS's placeholder for a TLV the peer did not send.
func nxosNull(s string) string {
	if s == "null" || s == "not advertised" {
		return ""
	}
	return s
}

// LLDP is how the cabling check reads the platform's neighbours.
var LLDP = observe.LLDP{
	Parse:   ParseLLDP,
	Show:    "show lldp neighbors detail | json",
	Command: "show lldp neighbors detail | json (NX-API)",
	Cite: "Cisco Nexus 9000 Series NX-OS System Management Configuration Guide, Configuring LLDP (show lldp neighbors detail); " +
		"Cisco Nexus 3000 Series NX-OS Programmability Guide, NX-API CLI (JSON output, TABLE_/ROW_ with a single row as an object): " +
		"https://www.cisco.com/c/en/us/td/docs/switches/datacenter/nexus3000/sw/programmability/7_x/b_Cisco_Nexus_3000_Series_NX-OS_Programmability_Guide_7x/NX_API.html; " +
		"opennetworkinglab/onos drivers/cisco/rest/src/main/java/org/onosproject/drivers/cisco/rest/LinkDiscoveryCiscoImpl.java " +
		"(TABLE_nbor_detail/ROW_nbor_detail l_port_id, sys_name, port_id, port_desc)",
	// DCBX says why the neighbour's DCBX TLVs are not read, and where that was looked up.
	DCBX: "not read: show lldp dcbx interface has no documented JSON",
	DCBXCite: "Cisco Nexus 9000 NX-API CLI Reference, LLDP commands (show lldp all | json gives only lldp_dcbx Y/N per port): " +
		"https://developer.cisco.com/docs/cisco-nexus-9000-series-nx-api-cli-reference-release-9-3x/lldp-commands",
}
