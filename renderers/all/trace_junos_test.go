package all

// traceJunos: which Junos statements each intent field may change. The
// basic leaf has trunk ports: classification by DSCP, PFC by IEEE 802.1p.
var traceJunos = traceExpect{
	"noDropPriority": {
		`^class-of-service forwarding-classes class ROCEFAB_NO_LOSS (queue-num = 4 no-loss|queue-num = 3 no-loss|pfc-priority = [34])$`,
		`^class-of-service congestion-notification-profile ROCEFAB_PFC_PCP(_\d+M)? input ieee-802.1 code-point (011|100) pfc = \{\}$`,
		`^class-of-service congestion-notification-profile ROCEFAB_PFC_PCP(_\d+M)? output ieee-802.1 code-point (011 flow-control-queue 3|100 flow-control-queue 4) = \{\}$`,
	},
	"roceDscp":            {`^class-of-service classifiers dscp ROCEFAB_DSCP forwarding-class (ROCEFAB_NO_LOSS|best-effort) loss-priority low code-points (011010|011000) = \{\}$`},
	"cnp.dscp":            {`^class-of-service classifiers dscp ROCEFAB_DSCP forwarding-class (ROCEFAB_CNP|best-effort) loss-priority low code-points (110000|101110) = \{\}$`},
	"cnp.priority":        {`^class-of-service forwarding-classes class ROCEFAB_CNP queue-num = [56]$`},
	"ecn.minThreshold":    {`^class-of-service drop-profiles ROCEFAB_ECN interpolate fill-level [12] = \{\}$`},
	"ecn.maxThreshold":    {`^class-of-service drop-profiles ROCEFAB_ECN interpolate fill-level (10|20) = \{\}$`},
	"ecn.markProbability": {`^class-of-service drop-profiles ROCEFAB_ECN interpolate drop-probability (50|100) = \{\}$`},
	"mtu.switch":          {`^interfaces et-0/0/\d+ mtu = (9014|9216)$`},
	"vlan":                {`^vlans ROCEFAB_LOSSLESS vlan-id = (100|200)$`},
	"profile=pfc-only": {
		`^class-of-service drop-profiles ROCEFAB_ECN `,
		`^class-of-service schedulers ROCEFAB_NO_LOSS (drop-profile-map .*|explicit-congestion-notification = \{\}|transmit-rate percent = 50)$`,
	},
	"profile=ecn-only": {
		`^class-of-service forwarding-classes class ROCEFAB_NO_LOSS (queue-num = 3 no-loss|queue-num = 5|pfc-priority = 3)$`,
		`^class-of-service congestion-notification-profile ROCEFAB_PFC_PCP(_\d+M)? `,
		`^class-of-service interfaces et-0/0/\d+ congestion-notification-profile = ROCEFAB_PFC_PCP(_\d+M)?$`,
	},
}
