package all

// traceSONiC: which config_db paths ("/TABLE/key/field = value") each
// intent field may change on SONiC.
var traceSONiC = traceExpect{
	"noDropPriority": {
		`^/DSCP_TO_TC_MAP/ROCEFAB/26 = [34]$`,
		`^/(TC_TO_PRIORITY_GROUP_MAP|PFC_PRIORITY_TO_PRIORITY_GROUP_MAP)/ROCEFAB/[34] = [034]$`,
		`^/PORT_QOS_MAP/Ethernet\d+/(pfc_enable|pfcwd_sw_enable) = [34]$`,
		`^/QUEUE/Ethernet\d+\|[34]/scheduler = ROCEFAB_(LOSSLESS|DEFAULT)$`,
		`^/QUEUE/Ethernet\d+\|[34]/wred_profile = ROCEFAB_LOSSLESS$`,
		`^/BUFFER_PG/Ethernet\d+\|[34]/profile = NULL$`,
	},
	"roceDscp":            {`^/DSCP_TO_TC_MAP/ROCEFAB/(24|26) = [03]$`},
	"cnp.dscp":            {`^/DSCP_TO_TC_MAP/ROCEFAB/(46|48) = [056]$`},
	"cnp.priority":        {`^/DSCP_TO_TC_MAP/ROCEFAB/48 = [56]$`, `^/QUEUE/Ethernet\d+\|[56]/scheduler = ROCEFAB_(CNP|DEFAULT)$`},
	"ecn.minThreshold":    {`^/WRED_PROFILE/ROCEFAB_LOSSLESS/green_min_threshold = (150000|300000)$`},
	"ecn.maxThreshold":    {`^/WRED_PROFILE/ROCEFAB_LOSSLESS/green_max_threshold = (1500000|3000000)$`},
	"ecn.markProbability": {`^/WRED_PROFILE/ROCEFAB_LOSSLESS/green_drop_probability = (50|100)$`},
	"mtu.switch":          {`^/PORT/Ethernet\d+/mtu = (9000|9216)$`},
	"vlan": {
		`^/VLAN/Vlan(100|200)/vlanid = (100|200)$`,
		`^/VLAN_MEMBER/Vlan(100|200)\|Ethernet\d+/tagging_mode = tagged$`,
	},
	"profile=pfc-only": {
		`^/WRED_PROFILE/ROCEFAB_LOSSLESS/\w+ = .*$`,
		`^/QUEUE/Ethernet\d+\|3/wred_profile = ROCEFAB_LOSSLESS$`,
	},
	"profile=ecn-only": {
		`^/(TC_TO_PRIORITY_GROUP_MAP|MAP_PFC_PRIORITY_TO_QUEUE|PFC_PRIORITY_TO_PRIORITY_GROUP_MAP)/ROCEFAB/[0-7] = [0-7]$`,
		`^/PORT_QOS_MAP/Ethernet\d+/(pfc_enable|pfcwd_sw_enable) = 3$`,
		`^/PORT_QOS_MAP/Ethernet\d+/(pfc_to_queue_map|pfc_to_pg_map|tc_to_pg_map) = ROCEFAB$`,
		`^/BUFFER_PG/Ethernet\d+\|3/profile = NULL$`,
		`^/PFC_WD/Ethernet\d+/(action|detection_time|restoration_time) = \w+$`,
	},
}
