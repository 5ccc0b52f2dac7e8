package all

// traceCumulus: which NVUE paths each intent field may change.
var traceCumulus = traceExpect{
	"noDropPriority": {
		`^qos mapping default-global dscp \d+ switch-priority = \d$`,
		`^qos (pfc|traffic-pool default-lossless) (default-global |rocefab-\d+m )?switch-priority [34] = \{\}$`,
		`^qos congestion-control default-global traffic-class [34] `,
		`^qos egress-scheduler default-global traffic-class [34] (mode = dwrr|bw-percent = 50)$`,
		`^qos egress-queue-mapping default-global switch-priority [34] traffic-class = [034]$`,
		`^qos traffic-pool default-lossy switch-priority [34] = \{\}$`,
	},
	"roceDscp": {`^qos mapping default-global dscp \d+ switch-priority = \d$`},
	"cnp.dscp": {`^qos mapping default-global dscp \d+ switch-priority = \d$`},
	"cnp.priority": {
		`^qos mapping default-global dscp \d+ switch-priority = \d$`,
		`^qos egress-scheduler default-global traffic-class [56] mode = strict$`,
		`^qos egress-queue-mapping default-global switch-priority [56] traffic-class = [056]$`,
	},
	"ecn.minThreshold":    {`^qos congestion-control default-global traffic-class 3 min-threshold = (150000|300000)$`},
	"ecn.maxThreshold":    {`^qos congestion-control default-global traffic-class 3 max-threshold = (1500000|3000000)$`},
	"ecn.markProbability": {`^qos congestion-control default-global traffic-class 3 probability = (50|100)$`},
	"mtu.switch":          {`^interface swp\d+ link mtu = (9000|9216)$`},
	"vlan":                {`^(interface swp\d+ )?bridge domain br_default vlan (100|200) = \{\}$`},
	"profile=pfc-only":    {`^qos congestion-control default-global traffic-class 3 `},
	"profile=ecn-only": {
		`^qos pfc (default-global|rocefab-\d+m) `,
		`^interface swp\d+ qos pfc profile = rocefab-\d+m$`,
		`^qos traffic-pool default-(lossless|lossy) `,
		`^interface swp\d+ qos pfc-watchdog state = enable$`,
	},
}
