package all

// traceEOS: which EOS lines each intent field may change.
var traceEOS = traceExpect{
	"noDropPriority": {
		`^qos map dscp \d+ to traffic-class \d$`,
		`^qos profile ROCEFAB_LOSSLESS > priority-flow-control priority \d no-drop$`,
		`^qos profile ROCEFAB_LOSSLESS > uc-tx-queue \d( > random-detect ecn .*)?$`,
	},
	"roceDscp":     {`^qos map dscp \d+ to traffic-class \d$`},
	"cnp.dscp":     {`^qos map dscp \d+ to traffic-class \d$`},
	"cnp.priority": {`^qos map dscp \d+ to traffic-class \d$`, `^qos profile ROCEFAB_LOSSLESS > uc-tx-queue [56]( > priority strict)?$`},
	"ecn.minThreshold": {
		`^qos profile ROCEFAB_LOSSLESS > uc-tx-queue 3 > random-detect ecn minimum-threshold (150|300) kbytes maximum-threshold 1500 kbytes max-mark-probability 100 weight 0$`,
	},
	"ecn.maxThreshold": {
		`^qos profile ROCEFAB_LOSSLESS > uc-tx-queue 3 > random-detect ecn minimum-threshold 150 kbytes maximum-threshold (1500|3000) kbytes max-mark-probability 100 weight 0$`,
	},
	"ecn.markProbability": {`^qos profile ROCEFAB_LOSSLESS > uc-tx-queue 3 > random-detect ecn .* max-mark-probability (50|100) weight 0$`},
	"mtu.switch":          {`^interface Ethernet\d+ > mtu (9000|9214)$`},
	"vlan":                {`^vlan (100|200)$`, `^interface Ethernet\d+ > switchport trunk allowed vlan add (100|200)$`},
	"profile=pfc-only":    {`^qos profile ROCEFAB_LOSSLESS > uc-tx-queue 3( > random-detect ecn .*)?$`},
	"profile=ecn-only": {
		`^qos profile ROCEFAB_LOSSLESS > priority-flow-control (on|priority 3 no-drop|pause watchdog|pause watchdog port action drop)$`,
	},
}
