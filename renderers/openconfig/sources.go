package openconfig

import "github.com/rocefab/rocefab/renderers"

// Vendor sources of the paths this renderer writes (Attributes.Sources;
// renderers/all tests that every rendered path matches one form). The
// OpenConfig models are openconfig/public release/models (v5.9.0, the
// copy the YANG tests validate every rendered path against). A PFC
// fallback's paths are cited by its platform (PFCFallback.Sources).
const (
	srcInterfaces = "openconfig/public openconfig-interfaces.yang (interfaces/interface/config name, type, mtu), openconfig-if-ethernet.yang (ethernet/config enable-flow-control), openconfig-vlan.yang (ethernet/switched-vlan/config interface-mode, access-vlan, trunk-vlans)"
	srcClassify   = "openconfig/public openconfig-qos-elements.yang / openconfig-qos-interfaces.yang (qos/classifiers/classifier config name, type; terms/term config id, conditions/ipv4|ipv6/config dscp, dscp-set, actions/config target-group; qos/forwarding-groups/forwarding-group config name, output-queue; qos/interfaces/interface input/classifiers/classifier)"
	srcQueues     = "openconfig/public openconfig-qos-elements.yang and openconfig-qos-mem-mgmt.yang (qos/queues/queue config name, queue-id; qos/queue-management-profiles/queue-management-profile wred/uniform/config min-threshold, max-threshold, enable-ecn, drop, max-drop-probability-percent, weight; qos/interfaces/interface output/queues/queue config name, queue-management-profile)"
	srcScheduler  = "openconfig/public openconfig-qos-elements.yang (qos/scheduler-policies/scheduler-policy config name; schedulers/scheduler config sequence, priority STRICT, type; inputs/input config id, input-type QUEUE, queue, weight; qos/interfaces/interface output/scheduler-policy/config name)"
	srcQoSIface   = "openconfig/public openconfig-qos-interfaces.yang (qos/interfaces/interface config interface-id, interface-ref/config interface)"
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
)
