package all

// traceSONiC: which config_db paths ("sonic-db:/TABLE/key/field = value") each
// intent field may change on SONiC.
var traceSONiC = traceExpect{
	"noDropPriority": {
		`^sonic-db:/DSCP_TO_TC_MAP/ROCEFAB/26 = [34]$`,
		`^sonic-db:/(TC_TO_PRIORITY_GROUP_MAP|PFC_PRIORITY_TO_PRIORITY_GROUP_MAP)/ROCEFAB/[34] = [034]$`,
		`^sonic-db:/PORT_QOS_MAP/Ethernet\d+/(pfc_enable|pfcwd_sw_enable) = [34]$`,
		`^sonic-db:/QUEUE/Ethernet\d+\|[34]/scheduler = ROCEFAB_(LOSSLESS|DEFAULT)$`,
		`^sonic-db:/QUEUE/Ethernet\d+\|[34]/wred_profile = ROCEFAB_LOSSLESS$`,
		`^sonic-db:/BUFFER_PG/Ethernet\d+\|[34]/profile = NULL$`,
	},
	"roceDscp":            {`^sonic-db:/DSCP_TO_TC_MAP/ROCEFAB/(24|26) = [03]$`},
	"cnp.dscp":            {`^sonic-db:/DSCP_TO_TC_MAP/ROCEFAB/(46|48) = [056]$`},
	"cnp.priority":        {`^sonic-db:/DSCP_TO_TC_MAP/ROCEFAB/48 = [56]$`, `^sonic-db:/QUEUE/Ethernet\d+\|[56]/scheduler = ROCEFAB_(CNP|DEFAULT)$`},
	"ecn.minThreshold":    {`^sonic-db:/WRED_PROFILE/ROCEFAB_LOSSLESS/green_min_threshold = (150000|300000)$`},
	"ecn.maxThreshold":    {`^sonic-db:/WRED_PROFILE/ROCEFAB_LOSSLESS/green_max_threshold = (1500000|3000000)$`},
	"ecn.markProbability": {`^sonic-db:/WRED_PROFILE/ROCEFAB_LOSSLESS/green_drop_probability = (50|100)$`},
	"mtu.switch":          {`^sonic-db:/PORT/Ethernet\d+/mtu = (9000|9216)$`},
	"vlan": {
		`^sonic-db:/VLAN/Vlan(100|200)/vlanid = (100|200)$`,
		`^sonic-db:/VLAN_MEMBER/Vlan(100|200)\|Ethernet\d+/tagging_mode = tagged$`,
	},
	"profile=pfc-only": {
		`^sonic-db:/WRED_PROFILE/ROCEFAB_LOSSLESS/\w+ = .*$`,
		`^sonic-db:/QUEUE/Ethernet\d+\|3/wred_profile = ROCEFAB_LOSSLESS$`,
	},
	"profile=ecn-only": {
		`^sonic-db:/(TC_TO_PRIORITY_GROUP_MAP|MAP_PFC_PRIORITY_TO_QUEUE|PFC_PRIORITY_TO_PRIORITY_GROUP_MAP)/ROCEFAB/[0-7] = [0-7]$`,
		`^sonic-db:/PORT_QOS_MAP/Ethernet\d+/(pfc_enable|pfcwd_sw_enable) = 3$`,
		`^sonic-db:/PORT_QOS_MAP/Ethernet\d+/(pfc_to_queue_map|pfc_to_pg_map|tc_to_pg_map) = ROCEFAB$`,
		`^sonic-db:/BUFFER_PG/Ethernet\d+\|3/profile = NULL$`,
		`^sonic-db:/PFC_WD/Ethernet\d+/(action|detection_time|restoration_time) = \w+$`,
		`^sonic-db:/CABLE_LENGTH/AZURE/Ethernet\d+ = \d+m$`,
	},
}
