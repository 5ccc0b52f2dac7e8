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

// DCBXSources cite where the DCBX neighbour state rocefab reads is
// documented, and the platforms it looked at and does not read (no
// documented structured output of the peer's TLVs).
var DCBXSources = []Source{
	{"linux", "DCB netlink RTM_GETDCB DCB_CMD_IEEE_GET: DCB_ATTR_IEEE_PEER_PFC (struct ieee_pfc), DCB_ATTR_IEEE_PEER_APP (DCB_ATTR_IEEE_APP entries, struct dcb_app)",
		"torvalds/linux include/uapi/linux/dcbnl.h (enum ieee_attrs: PEER_PFC and PEER_APP \"get only\"; struct ieee_pfc, struct dcb_app, " +
			"IEEE_8021QAZ_APP_SEL_DSCP) and net/dcb/dcbnl.c dcbnl_ieee_fill and dcbnl_build_peer_app (filled from the driver's " +
			"ieee_peer_getpfc and peer_getappinfo/peer_getapptable, only when it implements them)"},
	{"linux (lldpd)", "not read: lldpcli decodes no DCBX TLVs",
		"lldpd/lldpd, the open request \"DCB[X] support\": https://github.com/lldpd/lldpd/issues/718; lldpad's lldptool -V PFC/APP prints text"},
	{"nxos", "not read: show lldp dcbx interface has no documented JSON",
		"Cisco Nexus 9000 NX-API CLI Reference, LLDP commands (show lldp all | json gives only lldp_dcbx Y/N per port): " +
			"https://developer.cisco.com/docs/cisco-nexus-9000-series-nx-api-cli-reference-release-9-3x/lldp-commands"},
	{"eos", "not read: no documented JSON of show dcbx [interface] found", "Arista EOS User Manual, DCBX (show dcbx); public eAPI code (anta, pyeapi) reads no DCBX"},
	{"junos", "not read: show dcbx neighbors documents text; the RPC get-dcbx-neighbor-information's XML is not documented",
		"https://www.juniper.net/documentation/us/en/software/junos/storage/traffic-mgmt-qfx/topics/ref/command/show-dcbx-neighbors.html"},
	{"cumulus", "not read: NVUE configures DCBX TLVs to send (lldp dcbx-pfc-tlv, application-tlv) but shows no neighbour's",
		"NVIDIA NVUE Command Reference, LLDP set and show commands: https://docs.nvidia.com/networking-ethernet-software/nvue-reference/Set-and-Unset-Commands/LLDP/"},
	{"openconfig", "not read: openconfig-lldp models no DCBX TLVs", "openconfig/public release/models/lldp/openconfig-lldp.yang"},
	{"sonic", "not read: SONiC runs lldpd, which decodes no DCBX", "as linux (lldpd)"},
}
