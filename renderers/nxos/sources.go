package nxos

import "github.com/rocefab/rocefab/renderers"

// Vendor sources of the statements this renderer emits (Attributes.Sources;
// renderers/all tests that every rendered line matches one form).
const (
	srcQoSGuide    = "Cisco Nexus 9000 Series NX-OS Quality of Service Configuration Guide (10.5(x)): Configuring Classification, Configuring Queuing and Scheduling, Configuring Priority Flow Control; Cisco TME paregupt/nx-os utils/roce_enable.py; AMD ROCm gpu-cluster-networking roce-network-config.rst (Cisco N9364E-SG2-O DCQCN)"
	srcNQ          = "Cisco Nexus 9000 NX-OS QoS Configuration Guide, Configuring Priority Flow Control (network-qos: mtu and pause pfc-cos per c-8q-nqN class); Microsoft Azure/AzureLocal-Supportability Reference-TOR-QOS-Policy-Configuration.md"
	srcQueuing     = "Cisco Nexus 9000 NX-OS QoS Configuration Guide, Configuring Queuing and Scheduling (c-out-8q-qN classes, bandwidth remaining percent totalling 100, priority level 1, random-detect ... ecn with one unit keyword); AMD roce-network-config.rst"
	srcSystemQoS   = "Cisco Nexus 9000 NX-OS QoS Configuration Guide, system qos service-policy type network-qos / type queuing output"
	srcWatchdog    = "Cisco Nexus 9000 NX-OS QoS Configuration Guide, Configuring Priority Flow Control: PFC watchdog (priority-flow-control watch-dog-interval on; a stuck no-drop queue is shut down and restored automatically, no action knob); Cisco NX-API REST PFC watchdog (fixed/auto-restore multipliers)"
	srcPauseBuffer = "Cisco Nexus 9000 NX-OS QoS Configuration Guide (10.5(x)), Configuring Priority Flow Control: guidelines (the pause buffer size threshold is optional below 100 m and mandatory for cables over 100 m, part of the QoS policy; an input queuing policy map cannot carry pause buffer and priority/bandwidth together) and the input queuing form policy-map type queuing / class type queuing c-in-qN / pause buffer-size B pause-threshold X resume-threshold Y, attached with system qos service-policy type queuing input"
	srcInterfaces  = "Cisco Nexus 9000 NX-OS Interfaces Configuration Guide, Configuring Layer 2 Interfaces (switchport, switchport mode, allowed VLANs add/remove, access VLAN, mtu) and Configuring Port Channels (channel-group N mode active); QoS guide (service-policy type qos input, priority-flow-control mode on)"
	// LAGs: the range of port-channel numbers.
	srcLAGNumbers = "Cisco Nexus 9000 Series NX-OS Interfaces Configuration Guide, Configuring Port Channels (interface port-channel N, channel-group N); Cisco Nexus-as-Code NX-OS data model, interface port_channel (id: min 1, max 4096), https://netascode.cisco.com/docs/data_models/nxos/interface/port_channel"
)

// Sources are the vendor sources of every NX-OS statement form.
var Sources = renderers.Sourced(
	`class-map type qos match-any ROCEFAB_\w+`, srcQoSGuide,
	`match (dscp|cos) \d+`, srcQoSGuide,
	`policy-map type qos ROCEFAB_QOS|class ROCEFAB_\w+|set qos-group \d`, srcQoSGuide,
	`policy-map type network-qos ROCEFAB_NQ|class type network-qos c-(8q-)?nq(\d|-default)|mtu \d+|pause pfc-cos \d`, srcNQ,
	`policy-map type queuing ROCEFAB_QUEUING|class type queuing c-out-(8q-)?q(\d|-default)|bandwidth remaining percent \d+|priority level 1`, srcQueuing,
	`random-detect minimum-threshold \d+ (bytes|kbytes|mbytes) maximum-threshold \d+ (bytes|kbytes|mbytes) drop-probability \d+ weight 0 ecn`, srcQueuing,
	`system qos|service-policy type network-qos ROCEFAB_NQ|service-policy type queuing output ROCEFAB_QUEUING`, srcSystemQoS,
	`policy-map type queuing ROCEFAB_INQ|class type queuing c-in-q(\d|-default)|pause buffer-size \d+ pause-threshold \d+ resume-threshold \d+|service-policy type queuing input ROCEFAB_INQ`, srcPauseBuffer,
	`priority-flow-control watch-dog-interval on`, srcWatchdog,
	`vlan \d+|interface (Ethernet\S+|port-channel\d+)|switchport|switchport mode (trunk|access)|switchport trunk allowed vlan add \d+|switchport access vlan \d+|channel-group \d+ mode active`, srcInterfaces,
	`service-policy type qos input ROCEFAB_QOS|priority-flow-control mode on`, srcInterfaces,
)
