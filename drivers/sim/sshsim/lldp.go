package sshsim

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
)

// LLDPNeighbor is one neighbour the simulated switch has heard: on
// LocalPort (the device's full name, Ethernet1/7) it hears SysName, whose
// port is PortID (and PortDescr).
type LLDPNeighbor struct {
	LocalPort, SysName, PortID, PortDescr string
}

// SetLLDP replaces the neighbours the device has heard: a test recables
// the fabric with it.
func (s *Sim) SetLLDP(nbs []LLDPNeighbor) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lldp = append([]LLDPNeighbor(nil), nbs...)
	sort.SliceStable(s.lldp, func(i, j int) bool { return s.lldp[i].LocalPort < s.lldp[j].LocalPort })
}

// showLLDPJSON is `show lldp neighbors detail | json`, in the shapes
// NX-API and eAPI document: NX-OS's TABLE_nbor_detail/ROW_nbor_detail (one
// row an object, several an array; the local port in its short Eth1/7
// form), EOS's lldpNeighbors by local port (interfaceId quoted, as EOS
// prints it, and interfaceId_v2 plain).
func (d *iosDevice) showLLDPJSON() string {
	var v any
	if d.nxos {
		var rows []any
		for _, n := range d.sim.lldp {
			rows = append(rows, map[string]any{
				"chassis_type": "Mac Address", "chassis_id": "0200.0000.0001",
				"l_port_id": strings.Replace(n.LocalPort, "Ethernet", "Eth", 1),
				"port_type": "Interface Name", "port_id": n.PortID, "port_desc": orNull(n.PortDescr),
				"sys_name": n.SysName, "ttl": "120", "vlan_id": "not advertised",
			})
		}
		out := map[string]any{"neigh_hdr": "neigh_hdr", "neigh_count": len(rows)}
		switch len(rows) {
		case 0:
		case 1:
			out["TABLE_nbor_detail"] = map[string]any{"ROW_nbor_detail": rows[0]}
		default:
			out["TABLE_nbor_detail"] = map[string]any{"ROW_nbor_detail": rows}
		}
		v = out
	} else {
		ports := map[string]any{}
		for _, n := range d.sim.lldp {
			info, _ := ports[n.LocalPort].(map[string]any)
			if info == nil {
				info = map[string]any{"lldpNeighborInfo": []any{}}
				ports[n.LocalPort] = info
			}
			info["lldpNeighborInfo"] = append(info["lldpNeighborInfo"].([]any), map[string]any{
				"chassisIdType": "macAddress", "chassisId": "0200.0000.0001", "systemName": n.SysName, "ttl": 120,
				"neighborInterfaceInfo": map[string]any{"interfaceIdType": "interfaceName",
					"interfaceId": `"` + n.PortID + `"`, "interfaceId_v2": n.PortID, "interfaceDescription": n.PortDescr},
			})
		}
		v = map[string]any{"lldpNeighbors": ports}
	}
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

func orNull(s string) string {
	if s == "" {
		return "null"
	}
	return s
}

// nvueLLDP is NVUE's operational LLDP as `nv show -o json` prints it (the
// NVUE reference's lldp neighbor keys): the interface tree with each
// port's lldp/neighbor keyed by the neighbour's system name, or one
// port's lldp object.
func (s *Sim) nvueLLDP(port string, tree bool) string {
	byPort := map[string]map[string]any{}
	for _, n := range s.lldp {
		typ := "ifname"
		if strings.Count(n.PortID, ":") == 5 {
			typ = "mac"
		}
		if byPort[n.LocalPort] == nil {
			byPort[n.LocalPort] = map[string]any{}
		}
		byPort[n.LocalPort][n.SysName] = map[string]any{
			"age":     30,
			"chassis": map[string]any{"chassis-id": "02:00:00:00:00:01", "system-name": n.SysName},
			"port":    map[string]any{"name": n.PortID, "description": n.PortDescr, "type": typ, "ttl": 120},
		}
	}
	lldp := func(p string) map[string]any {
		out := map[string]any{"dcbx-ets-config-tlv": "off", "dcbx-ets-recomm-tlv": "off", "dcbx-pfc-tlv": "off"}
		if nb := byPort[p]; nb != nil {
			out["neighbor"] = nb
		}
		return out
	}
	var v any
	if tree {
		ifs := map[string]any{}
		for p := range byPort {
			ifs[p] = map[string]any{"type": "swp", "lldp": lldp(p)}
		}
		v = ifs
	} else {
		v = lldp(port)
	}
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

// junosLLDP is Junos's `show lldp neighbors detail | display json`: every
// leaf a one-element array of {"data": ...}, the local port both as
// lldp-local-interface and, as the SNMP index, lldp-local-port-id.
func (s *Sim) junosLLDP() string {
	data := func(v string) []any { return []any{map[string]any{"data": v}} }
	var nbs []any
	for i, n := range s.lldp {
		nbs = append(nbs, map[string]any{
			"lldp-index": data(strconv.Itoa(i + 1)), "lldp-local-interface": data(n.LocalPort),
			"lldp-local-port-id": data(strconv.Itoa(513 + i)), "lldp-remote-system-name": data(n.SysName),
			"lldp-remote-port-id": data(n.PortID), "lldp-remote-port-description": data(n.PortDescr),
		})
	}
	b, _ := json.MarshalIndent(map[string]any{"lldp-neighbors-information": []any{map[string]any{
		"attributes": map[string]any{"junos:style": "detail"}, "lldp-neighbor-information": nbs}}}, "", "    ")
	return string(b)
}
