package eos

import "github.com/rocefab/rocefab/renderers"

// Vendor sources of the statements this renderer emits (Attributes.Sources;
// renderers/all tests that every rendered line matches one form). AVD is
// Arista's own configuration generator: aristanetworks/avd
// python-avd/pyavd/_eos_cli_config_gen/j2templates/eos/*.j2 and its
// schema fragments.
const (
	srcMaps      = "AVD templates qos.j2 (qos map dscp|cos ... to traffic-class) and molecule eos_cli_config_gen qos.cfg; Arista EOS User Manual, Quality of Service (global DSCP/CoS to traffic-class maps, trust)"
	srcProfile   = "AVD templates qos-profiles.j2 (qos profile, qos trust, priority-flow-control on, priority-flow-control priority N no-drop, priority-flow-control pause watchdog, ... port action drop, ... port timer timeout T polling-interval auto recovery-time R); AVD schema qos_profiles.schema.yml (timers ^\\d+(\\.\\d{1,2})?$; per-port action drop or notify-only overrides the default error-disable, which has no keyword; the global priority-flow-control.j2 action drop|no-drop is switch-wide and not rendered)"
	srcTxQueue   = "AVD templates ethernet-interface-uc-tx-queues.j2 and ethernet-interface-tx-queues.j2 (uc-tx-queue/tx-queue N, random-detect ecn minimum-threshold ... maximum-threshold ... max-mark-probability ... weight ..., priority strict); AMD ROCm roce-network-config.rst (Arista 7388)"
	srcInterface = "AVD templates ethernet-interfaces.j2 and port-channel-interfaces.j2 (mtu, no switchport for routed ports, switchport mode trunk, switchport access vlan, channel-group N mode active, service-profile); Arista EOS User Manual, Virtual LANs (vlan, switchport trunk allowed vlan add|remove); AVD issue #3619 (9214 maximum MTU)"
	// LAGs: the range of Port-Channel numbers.
	srcLAGNumbers = "AVD schema python-avd/pyavd/_eos_designs/schema/schema_fragments/defs_node_type.schema.yml (mlag_port_channel_id, uplink_port_channel_id: valid port-channel ids are 1-999999 from EOS 4.25.0F, 1-2000 before it and for MLAG port-channels)"
)

// Sources are the vendor sources of every EOS statement form.
var Sources = renderers.Sourced(
	`qos map (dscp \d+|cos \d) to traffic-class \d`, srcMaps,
	`qos profile ROCEFAB_LOSSLESS|qos trust (dscp|cos)`, srcProfile,
	`priority-flow-control on|priority-flow-control priority \d no-drop|priority-flow-control pause watchdog|priority-flow-control pause watchdog port action drop`, srcProfile,
	`priority-flow-control pause watchdog port timer timeout \d+(\.\d{1,2})? polling-interval auto recovery-time \d+(\.\d{1,2})?`, srcProfile,
	`(uc-)?tx-queue \d|priority strict`, srcTxQueue,
	`random-detect ecn minimum-threshold \d+ (bytes|kbytes|mbytes) maximum-threshold \d+ (bytes|kbytes|mbytes) max-mark-probability \d+ weight 0`, srcTxQueue,
	`vlan \d+|interface (Ethernet\S+|Port-Channel\d+)|mtu \d+|no switchport|switchport mode trunk|switchport trunk allowed vlan add \d+|switchport access vlan \d+|channel-group \d+ mode active|service-profile ROCEFAB_LOSSLESS`, srcInterface,
)
