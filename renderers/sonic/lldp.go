package sonic

import (
	"fmt"
	"strings"

	"github.com/rocefab/rocefab/devcfg/observe"
)

// sonicTable is the APPL_DB table lldp_syncd fills from lldpd.
const sonicTable = "LLDP_ENTRY_TABLE"

// ParseLLDP reads SONiC's APPL_DB LLDP_ENTRY_TABLE, keyed by local port,
// with lldp_rem_sys_name, lldp_rem_port_id and lldp_rem_port_desc. It
// takes the table as sonic-db-dump writes it ("LLDP_ENTRY_TABLE:Ethernet0"
// keys, each {"type": "hash", "value": {...}} or the hash itself), as a
// table object {"LLDP_ENTRY_TABLE": {"Ethernet0": {...}}}, or as SONiC's
// gNMI answer for APPL_DB/LLDP_ENTRY_TABLE ({"Ethernet0": {...}}).
func ParseLLDP(device string, data []byte) ([]observe.Neighbor, error) {
	v, err := observe.DecodeJSON(data)
	if err != nil {
		return nil, fmt.Errorf("SONiC APPL_DB JSON: %w", err)
	}
	root := observe.Obj(v)
	if root == nil {
		return nil, fmt.Errorf("SONiC APPL_DB JSON: want an object")
	}
	if t := observe.Obj(root[sonicTable]); t != nil {
		root = t
	}
	dump := false // keys are TABLE:key, with other tables beside
	for k := range root {
		dump = dump || strings.HasPrefix(k, sonicTable+":")
	}
	var out []observe.Neighbor
	for _, key := range observe.SortedKeys(root) {
		port := key
		if dump {
			p, ok := strings.CutPrefix(key, sonicTable+":")
			if !ok {
				continue
			}
			port = p
		}
		h := observe.Obj(root[key])
		if inner := observe.Obj(h["value"]); inner != nil && h["type"] != nil {
			h = inner
		}
		if h == nil {
			continue
		}
		out = append(out, observe.Neighbor{Port: port, SysName: observe.Str(h["lldp_rem_sys_name"]),
			PortID: observe.Str(h["lldp_rem_port_id"]), PortDescr: observe.Str(h["lldp_rem_port_desc"])})
	}
	return observe.FinishNeighbors(device, out), nil
}

// LLDP is how the cabling check reads the platform's neighbours.
var LLDP = observe.LLDP{
	Parse: ParseLLDP,
	// sonic-gnmi serves APPL_DB's table, as lldp_syncd fills it.
	GNMITarget: "APPL_DB",
	GNMIPath:   []string{sonicTable},
	Command:    "APPL_DB LLDP_ENTRY_TABLE (sonic-db-dump, redis, gNMI APPL_DB)",
	Cite: "sonic-net/sonic-dbsyncd src/lldp_syncd/daemon.py (writes LLDP_ENTRY_TABLE:<port> with lldp_rem_sys_name, lldp_rem_port_id, " +
		"lldp_rem_port_desc) and its tests/mock_tables/LLDP_ENTRY_TABLE.json (the flat TABLE:key form)",
	// DCBX says why the neighbour's DCBX TLVs are not read.
	DCBX:     "not read: SONiC runs lldpd, which decodes no DCBX",
	DCBXCite: "as linux (lldpd)",
}
