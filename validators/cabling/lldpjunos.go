package cabling

import "fmt"

// ParseJunos reads Junos `show lldp neighbors detail | display json` (or
// the brief form): lldp-neighbors-information/lldp-neighbor-information,
// each leaf a one-element array of {"data": ...} as Junos writes JSON. The
// local port is lldp-local-interface where given: in the detail form
// lldp-local-port-id is the port's SNMP index on some platforms.
func ParseJunos(device string, data []byte) ([]Neighbor, error) {
	v, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("Junos JSON: %w", err)
	}
	root := obj(v)
	info, ok := root["lldp-neighbors-information"]
	if !ok {
		return nil, fmt.Errorf("Junos JSON: no lldp-neighbors-information")
	}
	var out []Neighbor
	for _, i := range list(info) {
		for _, e := range list(obj(i)["lldp-neighbor-information"]) {
			m := obj(e)
			port := junosData(m["lldp-local-interface"])
			if port == "" || port == "-" {
				port = junosData(m["lldp-local-port-id"])
			}
			descr := junosData(m["lldp-remote-port-description"])
			if descr == "" { // the brief form's port info: the description, or the ID
				descr = junosData(m["lldp-remote-port-info"])
			}
			out = append(out, Neighbor{Port: port, SysName: junosData(m["lldp-remote-system-name"]),
				PortID: junosData(m["lldp-remote-port-id"]), PortDescr: descr})
		}
	}
	return finish(device, out), nil
}

// junosData is a Junos JSON leaf: [{"data": "x"}].
func junosData(v any) string {
	for _, e := range list(v) {
		if s := str(obj(e)["data"]); s != "" {
			return s
		}
	}
	return ""
}
