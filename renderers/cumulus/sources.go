package cumulus

import "github.com/rocefab/rocefab/renderers"

// Vendor sources of the statements this renderer emits (Attributes.Sources;
// renderers/all tests that every rendered command matches one form). The
// NVIDIA pages are docs.nvidia.com/networking-ethernet-software/: the NVUE
// command reference (nvue-reference, Set and Unset Commands) and the
// Cumulus Linux 5.x user guide.
const (
	srcMapping   = "NVUE reference, QoS: nv set qos mapping <profile> trust l2|l3, dscp|pcp <id> switch-priority <sp>; Cumulus Linux QoS guide, Classification"
	srcEgressMap = "NVUE reference, QoS: nv set qos egress-queue-mapping <profile> switch-priority <sp> traffic-class <tc>; Cumulus Linux RoCE guide (RoCE profile: SP3 to TC3, SP6 to TC6, the others to TC0)"
	srcPFC       = "NVUE reference, QoS: nv set qos pfc <profile> switch-priority, tx, rx, cable-length, port-buffer, xoff-threshold, xon-threshold; Cumulus Linux QoS guide, Priority Flow Control (port-buffer: the reserved buffer; xoff-threshold: the reserved buffer consumed before PAUSE is sent; cable-length sizes the delay between PAUSE and its effect, and a wrong one wastes buffer or drops packets)"
	srcPFCPorts  = "Cumulus Linux QoS guide, Port Groups, PFC: a PFC profile of its own for some ports (nv set qos pfc <profile> switch-priority, cable-length, ...; nv set interface <id> qos pfc profile <profile>)"
	srcPools     = "Cumulus Linux QoS guide, Lossy and Lossless Traffic Pools (nv set qos traffic-pool default-lossless|default-lossy memory-percent, switch-priority; a lossless priority is moved out of default-lossy by setting that pool's priorities to the rest)"
	srcECN       = "NVUE reference, QoS: nv set qos congestion-control <profile> traffic-class <tc> min-threshold, max-threshold, probability, ecn enable; Cumulus Linux QoS guide, ECN"
	srcScheduler = "NVUE reference, QoS: nv set qos egress-scheduler <profile> traffic-class <tc> mode strict|dwrr, bw-percent; Cumulus Linux QoS guide, Egress Scheduling (bw-percent adds up to at most 100; a class without one gets no scheduling)"
	srcWatchdog  = "NVUE reference, QoS: nv set interface <id> qos pfc-watchdog state enable (no action knob: a stormed queue is made lossy until the storm ends; polling-interval and robustness are global)"
	srcPorts     = "Cumulus Linux guide, VLAN-aware Bridge Mode (nv set bridge domain br_default vlan <id>; interface <id> bridge domain br_default vlan <id> | access <id>), Interface Configuration (link mtu), Bonding (bond member)"
)

// Sources are the vendor sources of every NVUE command form.
var Sources = renderers.Sourced(
	`qos mapping default-global (trust l[23]|(dscp|pcp) \d+ switch-priority \d)`, srcMapping,
	`qos egress-queue-mapping default-global switch-priority \d traffic-class \d`, srcEgressMap,
	`qos pfc default-global (switch-priority \d|tx enable|rx enable|cable-length \d+|port-buffer \d+|xoff-threshold \d+)`, srcPFC,
	`qos pfc rocefab-\d+m (switch-priority \d|tx enable|rx enable|cable-length \d+|port-buffer \d+|xoff-threshold \d+)|interface \S+ qos pfc profile rocefab-\d+m`, srcPFCPorts,
	`qos traffic-pool default-loss(less|y) (memory-percent \d+|switch-priority \d)`, srcPools,
	`qos congestion-control default-global traffic-class \d (min-threshold \d+|max-threshold \d+|probability \d+|ecn enable)`, srcECN,
	`qos egress-scheduler default-global traffic-class \d (mode (strict|dwrr)|bw-percent \d+)`, srcScheduler,
	`interface \S+ qos pfc-watchdog state enable`, srcWatchdog,
	`bridge domain br_default vlan \d+|interface \S+ (link mtu \d+|bridge domain br_default (vlan|access) \d+|bond member \S+)`, srcPorts,
)
