package openconfig

import "github.com/rocefab/rocefab/renderers"

// Vendor sources of the paths this renderer writes (Attributes.Sources;
// renderers/all tests that every rendered path matches one form). The
// OpenConfig models are openconfig/public release/models (v5.9.0, the
// copy the YANG tests validate every rendered path against); the fallback
// origins cite the vendor's own documentation, as renderers/eos, nxos and
// sonic do for the same statements.
const (
	srcInterfaces = "openconfig/public openconfig-interfaces.yang (interfaces/interface/config name, type, mtu), openconfig-if-ethernet.yang (ethernet/config enable-flow-control), openconfig-vlan.yang (ethernet/switched-vlan/config interface-mode, access-vlan, trunk-vlans)"
	srcClassify   = "openconfig/public openconfig-qos-elements.yang / openconfig-qos-interfaces.yang (qos/classifiers/classifier config name, type; terms/term config id, conditions/ipv4|ipv6/config dscp, dscp-set, actions/config target-group; qos/forwarding-groups/forwarding-group config name, output-queue; qos/interfaces/interface input/classifiers/classifier)"
	srcQueues     = "openconfig/public openconfig-qos-elements.yang and openconfig-qos-mem-mgmt.yang (qos/queues/queue config name, queue-id; qos/queue-management-profiles/queue-management-profile wred/uniform/config min-threshold, max-threshold, enable-ecn, drop, max-drop-probability-percent, weight; qos/interfaces/interface output/queues/queue config name, queue-management-profile)"
	srcScheduler  = "openconfig/public openconfig-qos-elements.yang (qos/scheduler-policies/scheduler-policy config name; schedulers/scheduler config sequence, priority STRICT, type; inputs/input config id, input-type QUEUE, queue, weight; qos/interfaces/interface output/scheduler-policy/config name)"
	srcQoSIface   = "openconfig/public openconfig-qos-interfaces.yang (qos/interfaces/interface config interface-id, interface-ref/config interface)"
	srcCLIOrigin  = "openconfig/reference rpc/gnmi/gnmi-union_replace.md (origin cli carries CLI text) and mixed-schema.md (cli beside openconfig in one SetRequest)"
	srcEOS        = "eos fallback, " + srcCLIOrigin + "; AVD templates qos-profiles.j2 and ethernet-interfaces.j2 (priority-flow-control on, priority-flow-control priority N no-drop, priority-flow-control pause watchdog, ... port action drop, ... port timer timeout T polling-interval auto recovery-time R); AVD schema qos_profiles.schema.yml (timers with at most two decimals; per-port action drop overrides the default error-disable)"
	srcNXOS       = "nxos fallback, " + srcCLIOrigin + "; Cisco Nexus 9000 NX-OS QoS Configuration Guide, Configuring Priority Flow Control (policy-map type network-qos with c-8q-nqN classes: mtu, pause pfc-cos N; system qos service-policy type network-qos; interface priority-flow-control mode on; priority-flow-control watch-dog-interval on, global and per interface)"
	srcSONiC      = "sonic fallback, origin sonic-db as sonic-net/sonic-gnmi serves CONFIG_DB; sonic-yang-models sonic-pfc-priority-queue-map.yang, sonic-tc-priority-group-map.yang, sonic-pfc-priority-priority-group-map.yang, sonic-port-qos-map.yang (pfc_enable, pfc_to_queue_map, tc_to_pg_map, pfc_to_pg_map, pfcwd_sw_enable), sonic-buffer-pg.yang (profile NULL: buffermgrd's dynamic model computes the lossless profile), sonic-cable-length.yang, sonic-pfcwd.yang (action, detection_time 100..5000, restoration_time 100..60000)"
)

// Sources are the vendor sources of every path form.
var Sources = renderers.Sourced(
	`/interfaces/interface\[name=[^\]]+\]/(config/(name|type|mtu)|ethernet/config/enable-flow-control|ethernet/switched-vlan/config/(interface-mode|access-vlan|trunk-vlans))`, srcInterfaces,
	`/qos/classifiers/classifier\[name=ROCEFAB_\w+\]/(config/(name|type)|terms/term\[id=\w+\]/(config/id|conditions/ipv[46]/config/(dscp|dscp-set)|actions/config/target-group))`, srcClassify,
	`/qos/forwarding-groups/forwarding-group\[name=ROCEFAB_\w+\]/config/(name|output-queue)`, srcClassify,
	`/qos/interfaces/interface\[interface-id=[^\]]+\]/input/classifiers/classifier\[type=IPV[46]\]/config/(name|type)`, srcClassify,
	`/qos/queues/queue\[name=ROCEFAB_\w+\]/config/(name|queue-id)`, srcQueues,
	`/qos/queue-management-profiles/queue-management-profile\[name=ROCEFAB_\w+\]/(config/name|wred/uniform/config/(min-threshold|max-threshold|enable-ecn|drop|max-drop-probability-percent|weight))`, srcQueues,
	`/qos/interfaces/interface\[interface-id=[^\]]+\]/output/queues/queue\[name=ROCEFAB_\w+\]/config/(name|queue-management-profile)`, srcQueues,
	`/qos/scheduler-policies/scheduler-policy\[name=ROCEFAB_\w+\]/(config/name|schedulers/scheduler\[sequence=\d+\]/(config/(priority|sequence|type)|inputs/input\[id=ROCEFAB_\w+\]/config/(id|input-type|queue|weight)))`, srcScheduler,
	`/qos/interfaces/interface\[interface-id=[^\]]+\]/output/scheduler-policy/config/name`, srcScheduler,
	`/qos/interfaces/interface\[interface-id=[^\]]+\]/(config/interface-id|interface-ref/config/interface)`, srcQoSIface,
	`cli:/interface \S+ > priority-flow-control (on|priority \d no-drop|pause watchdog|pause watchdog port action|pause watchdog port timer)`, srcEOS,
	`cli:/interface \S+ > priority-flow-control (mode on|watch-dog-interval on)|cli:/priority-flow-control watch-dog-interval on|cli:/system qos > service-policy type network-qos`, srcNXOS,
	`cli:/policy-map type network-qos ROCEFAB_NQ > class type network-qos c-8q-nq(\d|-default) > (mtu|pause pfc-cos \d)`, srcNXOS,
	`sonic-db:/(MAP_PFC_PRIORITY_TO_QUEUE|TC_TO_PRIORITY_GROUP_MAP|PFC_PRIORITY_TO_PRIORITY_GROUP_MAP)/ROCEFAB/\d`, srcSONiC,
	`sonic-db:/PORT_QOS_MAP/\S+/(pfc_enable|pfc_to_queue_map|tc_to_pg_map|pfc_to_pg_map|pfcwd_sw_enable)|sonic-db:/BUFFER_PG/\S+\|\d/profile|sonic-db:/CABLE_LENGTH/AZURE/\S+|sonic-db:/PFC_WD/\S+/(action|detection_time|restoration_time)`, srcSONiC,
)
