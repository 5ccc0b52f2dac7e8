package junos

import (
	"fmt"

	"github.com/rocefab/rocefab/devcfg/observe"
)

// ParseLLDP reads Junos `show lldp neighbors detail | display json` (or
// the brief form): lldp-neighbors-information/lldp-neighbor-information,
// each leaf a one-element array of {"data": ...} as Junos writes JSON. The
// local port is lldp-local-interface where given: in the detail form
// lldp-local-port-id is the port's SNMP index on some platforms.
func ParseLLDP(device string, data []byte) ([]observe.Neighbor, error) {
	v, err := observe.DecodeJSON(data)
	if err != nil {
		return nil, fmt.Errorf("Junos JSON: %w", err)
	}
	root := observe.Obj(v)
	info, ok := root["lldp-neighbors-information"]
	if !ok {
		return nil, fmt.Errorf("Junos JSON: no lldp-neighbors-information")
	}
	var out []observe.Neighbor
	for _, i := range observe.List(info) {
		for _, e := range observe.List(observe.Obj(i)["lldp-neighbor-information"]) {
			m := observe.Obj(e)
			port := junosData(m["lldp-local-interface"])
			if port == "" || port == "-" {
				port = junosData(m["lldp-local-port-id"])
			}
			descr := junosData(m["lldp-remote-port-description"])
			if descr == "" { // the brief form's port info: the description, or the ID
				descr = junosData(m["lldp-remote-port-info"])
			}
			out = append(out, observe.Neighbor{Port: port, SysName: junosData(m["lldp-remote-system-name"]),
				PortID: junosData(m["lldp-remote-port-id"]), PortDescr: descr})
		}
	}
	return observe.FinishNeighbors(device, out), nil
}

// junosData is a Junos JSON leaf: [{"data": "x"}].
func junosData(v any) string {
	for _, e := range observe.List(v) {
		if s := observe.Str(observe.Obj(e)["data"]); s != "" {
			return s
		}
	}
	return ""
}

// LLDP is how the cabling check reads the platform's neighbours.
var LLDP = observe.LLDP{
	Parse:   ParseLLDP,
	Show:    "show lldp neighbors detail | display json | no-more",
	Command: "show lldp neighbors detail | display json",
	Cite: "Juniper Junos OS show lldp neighbors (https://www.juniper.net/documentation/en_US/junos12.3/topics/reference/command-summary/show-lldp-neighbors.html: " +
		"local interface, chassis ID, port info, system name); Junos JSON leaves as [{\"data\": ...}]; netenglabs/suzieq suzieq/config/lldp.yml " +
		"(lldp-neighbor-information lldp-local-interface, lldp-local-port-id, lldp-remote-system-name, lldp-remote-port-id, lldp-remote-port-description)",
	// DCBX says why the neighbour's DCBX TLVs are not read, and where that was looked up.
	DCBX:     "not read: show dcbx neighbors documents text; the RPC get-dcbx-neighbor-information's XML is not documented",
	DCBXCite: "https://www.juniper.net/documentation/us/en/software/junos/storage/traffic-mgmt-qfx/topics/ref/command/show-dcbx-neighbors.html",
}
