package all

// traceNXOS: which NX-OS lines each intent field may change.
var traceNXOS = traceExpect{
	"noDropPriority": {
		`^policy-map type qos ROCEFAB_QOS > class ROCEFAB_ROCE > set qos-group \d$`,
		`^policy-map type network-qos ROCEFAB_NQ > class type network-qos c-8q-nq\d > pause pfc-cos \d$`,
		`^policy-map type queuing ROCEFAB_QUEUING > class type queuing c-out-8q-q\d > (bandwidth remaining percent \d+|random-detect .*)$`,
		`^policy-map type queuing ROCEFAB_INQ > class type queuing c-in-q[34]( > pause buffer-size .*)?$`,
	},
	"roceDscp": {`^class-map type qos match-any ROCEFAB_ROCE > match dscp \d+$`},
	"cnp.dscp": {`^class-map type qos match-any ROCEFAB_CNP > match dscp \d+$`},
	"cnp.priority": {
		`^policy-map type qos ROCEFAB_QOS > class ROCEFAB_CNP > set qos-group \d$`,
		`^policy-map type queuing ROCEFAB_QUEUING > class type queuing c-out-8q-q\d > (priority level 1|bandwidth remaining percent 0)$`,
	},
	"ecn.minThreshold":    {`^policy-map type queuing ROCEFAB_QUEUING > class type queuing c-out-8q-q3 > random-detect minimum-threshold 300 kbytes .* ecn$`, `> random-detect minimum-threshold 150 kbytes `},
	"ecn.maxThreshold":    {`^policy-map type queuing ROCEFAB_QUEUING > class type queuing c-out-8q-q3 > random-detect .* maximum-threshold (3000|1500) kbytes .* ecn$`},
	"ecn.markProbability": {`^policy-map type queuing ROCEFAB_QUEUING > class type queuing c-out-8q-q3 > random-detect .* drop-probability (50|100) weight 0 ecn$`},
	"mtu.switch": {
		`^policy-map type network-qos ROCEFAB_NQ > class type network-qos c-8q-nq(\d|-default) > mtu (9000|9216)$`,
		`^interface Ethernet1/\d+ > mtu (9000|9216)$`,
		// The pause buffer holds the largest frames each way.
		`^policy-map type queuing ROCEFAB_INQ > class type queuing c-in-q3 > pause buffer-size \d+ pause-threshold \d+ resume-threshold \d+$`,
	},
	"vlan":             {`^vlan (100|200)$`, `^interface Ethernet1/\d+ > switchport trunk allowed vlan add (100|200)$`},
	"profile=pfc-only": {`^policy-map type queuing ROCEFAB_QUEUING > class type queuing c-out-8q-q3 > random-detect .* ecn$`},
	"profile=ecn-only": {
		`^policy-map type network-qos ROCEFAB_NQ > class type network-qos c-8q-nq3 > pause pfc-cos 3$`,
		`^priority-flow-control watch-dog-interval on$`,
		`^interface Ethernet1/\d+ > priority-flow-control mode on$`,
		`^policy-map type queuing ROCEFAB_INQ( > |$)`,
		`^system qos > service-policy type queuing input ROCEFAB_INQ$`,
	},
}
