package sonic

import "github.com/rocefab/rocefab/renderers"

// Vendor sources of the CONFIG_DB fields this renderer writes
// (Attributes.Sources; renderers/all tests that every rendered path
// matches one form). The SONiC YANG models are
// sonic-net/sonic-buildimage src/sonic-yang-models/yang-models/*.yang, the
// schema config apply-patch validates a change against; the stock QoS and
// buffer templates are files/build_templates/qos_config.j2 and
// buffers_config.j2, what a SONiC switch writes for itself at boot.
const (
	srcMaps     = "sonic-yang-models sonic-dscp-tc-map.yang, sonic-dot1p-tc-map.yang, sonic-tc-queue-map.yang, sonic-pfc-priority-queue-map.yang, sonic-tc-priority-group-map.yang, sonic-pfc-priority-priority-group-map.yang (TABLE|name, field = code point or class, value = class, queue or PG); qos_config.j2 (the AZURE maps it writes)"
	srcPortQoS  = "sonic-yang-models sonic-port-qos-map.yang (PORT_QOS_MAP|port dscp_to_tc_map, dot1p_to_tc_map, tc_to_queue_map, tc_to_pg_map, pfc_to_queue_map, pfc_to_pg_map, pfc_enable, pfcwd_sw_enable; PORT_QOS_MAP|global dscp_to_tc_map); qos_config.j2"
	srcQueue    = "sonic-yang-models sonic-queue.yang (QUEUE|port|q scheduler, wred_profile), sonic-scheduler.yang (SCHEDULER type DWRR|STRICT, weight), sonic-wred-profile.yang (ecn, wred_green_enable, green_min_threshold, green_max_threshold, green_drop_probability); qos_config.j2"
	srcBuffer   = "sonic-yang-models sonic-buffer-profile.yang (BUFFER_PROFILE pool, size, xon, xoff, dynamic_th), sonic-buffer-pg.yang (BUFFER_PG|port|pg[-pg] profile; NULL under the dynamic model, buffermgrd's own profile under the traditional one), sonic-cable-length.yang (CABLE_LENGTH|AZURE port = Nm); buffers_config.j2; sonic-net/SONiC doc/qos/buffer-docs (dynamic buffer calculation)"
	srcWatchdog = "sonic-yang-models sonic-pfcwd.yang (PFC_WD|port action drop|forward|alert, detection_time 100..5000 ms, restoration_time 100..60000 ms); sonic-utilities pfcwd (config pfcwd start writes these fields)"
	srcPort     = "sonic-yang-models sonic-port.yang (PORT|port mtu), sonic-portchannel.yang (PORTCHANNEL|name mtu, PORTCHANNEL_MEMBER|name|port), sonic-vlan.yang (VLAN|VlanN vlanid, VLAN_MEMBER|VlanN|port tagging_mode tagged|untagged)"
)

// Sources are the vendor sources of every CONFIG_DB field form.
var Sources = renderers.Sourced(
	`sonic-db:/(DSCP_TO_TC_MAP|DOT1P_TO_TC_MAP|TC_TO_QUEUE_MAP|MAP_PFC_PRIORITY_TO_QUEUE|TC_TO_PRIORITY_GROUP_MAP|PFC_PRIORITY_TO_PRIORITY_GROUP_MAP)/ROCEFAB/\d+`, srcMaps,
	`sonic-db:/PORT_QOS_MAP/\S+/(dscp_to_tc_map|dot1p_to_tc_map|tc_to_queue_map|tc_to_pg_map|pfc_to_queue_map|pfc_to_pg_map|pfc_enable|pfcwd_sw_enable)`, srcPortQoS,
	`sonic-db:/QUEUE/\S+\|\d/(scheduler|wred_profile)`, srcQueue,
	`sonic-db:/SCHEDULER/ROCEFAB_\w+/(type|weight)`, srcQueue,
	`sonic-db:/WRED_PROFILE/ROCEFAB_\w+/(ecn|wred_green_enable|green_min_threshold|green_max_threshold|green_drop_probability)`, srcQueue,
	`sonic-db:/BUFFER_PROFILE/ROCEFAB_\w+/(pool|size|xon|xoff|dynamic_th)`, srcBuffer,
	`sonic-db:/BUFFER_PG/\S+\|\d(-\d)?/profile`, srcBuffer,
	`sonic-db:/CABLE_LENGTH/AZURE/\S+`, srcBuffer,
	`sonic-db:/PFC_WD/\S+/(action|detection_time|restoration_time)`, srcWatchdog,
	`sonic-db:/PORT/\S+/mtu|sonic-db:/PORTCHANNEL/\S+/mtu|sonic-db:/PORTCHANNEL_MEMBER/\S+\|\S+`, srcPort,
	`sonic-db:/VLAN/Vlan\d+/vlanid|sonic-db:/VLAN_MEMBER/Vlan\d+\|\S+/tagging_mode`, srcPort,
)
