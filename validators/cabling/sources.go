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
			"testdata/lldpcli_*.json captured from lldpd 1.0.16 across veths"},
	{"openconfig", "gNMI Get /lldp (JSON, JSON_IETF)",
		"openconfig/public release/models/lldp/openconfig-lldp.yang: " +
			"lldp/interfaces/interface[name]/neighbors/neighbor[id]/state system-name, port-id, port-description"},
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
	{"openconfig", "not read: openconfig-lldp models no DCBX TLVs", "openconfig/public release/models/lldp/openconfig-lldp.yang"},
}
