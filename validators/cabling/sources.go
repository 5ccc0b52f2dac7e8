package cabling

// Source is where one parser's format is documented.
type Source struct {
	Platform string
	Command  string
	Cite     string
}

// Sources cite the vendor documentation (and, where the documentation
// shows no JSON, public code that reads the same output) for every parser
// in Parsers.
var Sources = []Source{
	{"linux", "lldpcli -f json show neighbors (and -f json0)",
		"lldpcli(8), lldpd 1.0.16 (Debian 12): https://manpages.debian.org/bookworm/lldpd/lldpcli.8.en.html " +
			"(json0's structure does not change with the number of interfaces or neighbours; json's does); " +
			"testdata/lldpcli_*.json captured from lldpd 1.0.16 across veths; sonic-net/sonic-dbsyncd " +
			"src/lldp_syncd/daemon.py reads the same JSON on SONiC"},
	{"openconfig", "gNMI Get /lldp (JSON, JSON_IETF)",
		"openconfig/public release/models/lldp/openconfig-lldp.yang: " +
			"lldp/interfaces/interface[name]/neighbors/neighbor[id]/state system-name, port-id, port-description"},
	{"nxos", "show lldp neighbors detail | json (NX-API)",
		"Cisco Nexus 9000 Series NX-OS System Management Configuration Guide, Configuring LLDP (show lldp neighbors detail); " +
			"Cisco Nexus 3000 Series NX-OS Programmability Guide, NX-API CLI (JSON output, TABLE_/ROW_ with a single row as an object): " +
			"https://www.cisco.com/c/en/us/td/docs/switches/datacenter/nexus3000/sw/programmability/7_x/b_Cisco_Nexus_3000_Series_NX-OS_Programmability_Guide_7x/NX_API.html; " +
			"opennetworkinglab/onos drivers/cisco/rest/src/main/java/org/onosproject/drivers/cisco/rest/LinkDiscoveryCiscoImpl.java " +
			"(TABLE_nbor_detail/ROW_nbor_detail l_port_id, sys_name, port_id, port_desc)"},
	{"eos", "show lldp neighbors detail | json (eAPI)",
		"Arista EOS User Manual, LLDP: show lldp neighbors detail; aristanetworks/anta anta/tests/connectivity.py VerifyLLDPNeighbors " +
			"(lldpNeighbors/<port>/lldpNeighborInfo[] systemName, neighborInterfaceInfo.interfaceId_v2)"},
	{"cumulus", "nv show interface -o json; nv show interface <port> lldp [neighbor] -o json",
		"NVIDIA NVUE Command Reference, Show Commands, LLDP: https://docs.nvidia.com/networking-ethernet-software/nvue-reference/Show-Commands/LLDP/ " +
			"(nv show interface <interface-id> lldp neighbor); the JSON keys lldp/neighbor/<id>/chassis/system-name and port/name, description, type " +
			"as NVUE's OpenAPI names them"},
	{"junos", "show lldp neighbors detail | display json",
		"Juniper Junos OS show lldp neighbors (https://www.juniper.net/documentation/en_US/junos12.3/topics/reference/command-summary/show-lldp-neighbors.html: " +
			"local interface, chassis ID, port info, system name); Junos JSON leaves as [{\"data\": ...}]; netenglabs/suzieq suzieq/config/lldp.yml " +
			"(lldp-neighbor-information lldp-local-interface, lldp-local-port-id, lldp-remote-system-name, lldp-remote-port-id, lldp-remote-port-description)"},
	{"sonic", "APPL_DB LLDP_ENTRY_TABLE (sonic-db-dump, redis, gNMI APPL_DB)",
		"sonic-net/sonic-dbsyncd src/lldp_syncd/daemon.py (writes LLDP_ENTRY_TABLE:<port> with lldp_rem_sys_name, lldp_rem_port_id, " +
			"lldp_rem_port_desc) and its tests/mock_tables/LLDP_ENTRY_TABLE.json (the flat TABLE:key form)"},
}
