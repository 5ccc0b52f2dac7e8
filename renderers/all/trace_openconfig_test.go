package all

// traceOpenConfig: which OpenConfig paths (and eos-fallback CLI lines of
// examples/basic's spine-oc) each intent field may change.
var traceOpenConfig = traceExpect{
	"noDropPriority": {
		`^/qos/queues/queue\[name=ROCEFAB_Q[34]\]/config/(name = ROCEFAB_Q[34]|queue-id = [34])$`,
		`^/qos/forwarding-groups/forwarding-group\[name=ROCEFAB_ROCE\]/config/output-queue = ROCEFAB_Q[34]$`,
		`^/qos/scheduler-policies/scheduler-policy\[name=ROCEFAB_SCHED\]/schedulers/scheduler\[sequence=1\]/inputs/input\[id=ROCEFAB_ROCE\]/config/queue = ROCEFAB_Q[34]$`,
		`^/qos/interfaces/interface\[interface-id=Ethernet\d+\]/output/queues/queue\[name=ROCEFAB_Q[34]\]/config/(name = ROCEFAB_Q[34]|queue-management-profile = ROCEFAB_ECN)$`,
		`(?s)^cli:/interface Ethernet\d+ > priority-flow-control priority [34] no-drop = interface Ethernet\d+\n   priority-flow-control priority [34] no-drop$`,
	},
	"roceDscp": {
		`^/qos/classifiers/classifier\[name=ROCEFAB_ROCE\]/terms/term\[id=ROCE_(24|26)\]/(config/id = ROCE_(24|26)|conditions/ipv4/config/dscp = (24|26)|actions/config/target-group = ROCEFAB_ROCE)$`,
		`^/qos/classifiers/classifier\[name=ROCEFAB_ROCE\]/terms/term\[id=OTHER\]/conditions/ipv4/config/dscp-set = \[[0-9,]+\]$`,
	},
	"cnp.dscp": {
		`^/qos/classifiers/classifier\[name=ROCEFAB_ROCE\]/terms/term\[id=CNP_(46|48)\]/(config/id = CNP_(46|48)|conditions/ipv4/config/dscp = (46|48)|actions/config/target-group = ROCEFAB_CNP)$`,
		`^/qos/classifiers/classifier\[name=ROCEFAB_ROCE\]/terms/term\[id=OTHER\]/conditions/ipv4/config/dscp-set = \[[0-9,]+\]$`,
	},
	"cnp.priority": {
		`^/qos/queues/queue\[name=ROCEFAB_Q[56]\]/config/(name = ROCEFAB_Q[56]|queue-id = [56])$`,
		`^/qos/forwarding-groups/forwarding-group\[name=ROCEFAB_CNP\]/config/output-queue = ROCEFAB_Q[56]$`,
		`^/qos/scheduler-policies/scheduler-policy\[name=ROCEFAB_SCHED\]/schedulers/scheduler\[sequence=0\]/inputs/input\[id=ROCEFAB_CNP\]/config/queue = ROCEFAB_Q[56]$`,
	},
	"ecn.minThreshold":    {`^/qos/queue-management-profiles/queue-management-profile\[name=ROCEFAB_ECN\]/wred/uniform/config/min-threshold = (150000|300000)$`},
	"ecn.maxThreshold":    {`^/qos/queue-management-profiles/queue-management-profile\[name=ROCEFAB_ECN\]/wred/uniform/config/max-threshold = (1500000|3000000)$`},
	"ecn.markProbability": {`^/qos/queue-management-profiles/queue-management-profile\[name=ROCEFAB_ECN\]/wred/uniform/config/max-drop-probability-percent = (50|100)$`},
	"mtu.switch":          {`^/interfaces/interface\[name=Ethernet\d+\]/config/mtu = (9014|9216)$`},
	"vlan":                {`^/interfaces/interface\[name=Ethernet\d+\]/ethernet/switched-vlan/config/trunk-vlans = \[(100|200)\]$`},
	"profile=pfc-only": {
		`^/qos/queue-management-profiles/queue-management-profile\[name=ROCEFAB_ECN\]/(config/name|wred/uniform/config/[a-z-]+) = .+$`,
		`^/qos/interfaces/interface\[interface-id=Ethernet\d+\]/output/queues/queue\[name=ROCEFAB_Q3\]/config/(name = ROCEFAB_Q3|queue-management-profile = ROCEFAB_ECN)$`,
	},
	"profile=ecn-only": {
		`(?s)^cli:/interface Ethernet\d+ > priority-flow-control (on|priority 3 no-drop|pause watchdog|pause watchdog port action) = interface Ethernet\d+\n   priority-flow-control .+$`,
	},
}
