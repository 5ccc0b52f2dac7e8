package cabling

import (
	"fmt"
	"strings"
)

// sonicTable is the APPL_DB table lldp_syncd fills from lldpd.
const sonicTable = "LLDP_ENTRY_TABLE"

// ParseSONiC reads SONiC's APPL_DB LLDP_ENTRY_TABLE, keyed by local port,
// with lldp_rem_sys_name, lldp_rem_port_id and lldp_rem_port_desc. It
// takes the table as sonic-db-dump writes it ("LLDP_ENTRY_TABLE:Ethernet0"
// keys, each {"type": "hash", "value": {...}} or the hash itself), as a
// table object {"LLDP_ENTRY_TABLE": {"Ethernet0": {...}}}, or as SONiC's
// gNMI answer for APPL_DB/LLDP_ENTRY_TABLE ({"Ethernet0": {...}}).
func ParseSONiC(device string, data []byte) ([]Neighbor, error) {
	v, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("SONiC APPL_DB JSON: %w", err)
	}
	root := obj(v)
	if root == nil {
		return nil, fmt.Errorf("SONiC APPL_DB JSON: want an object")
	}
	if t := obj(root[sonicTable]); t != nil {
		root = t
	}
	dump := false // keys are TABLE:key, with other tables beside
	for k := range root {
		dump = dump || strings.HasPrefix(k, sonicTable+":")
	}
	var out []Neighbor
	for _, key := range sortedKeys(root) {
		port := key
		if dump {
			p, ok := strings.CutPrefix(key, sonicTable+":")
			if !ok {
				continue
			}
			port = p
		}
		h := obj(root[key])
		if inner := obj(h["value"]); inner != nil && h["type"] != nil {
			h = inner
		}
		if h == nil {
			continue
		}
		out = append(out, Neighbor{Port: port, SysName: str(h["lldp_rem_sys_name"]),
			PortID: str(h["lldp_rem_port_id"]), PortDescr: str(h["lldp_rem_port_desc"])})
	}
	return finish(device, out), nil
}
