// Package sonic renders rocefab's lossless policy as SONiC CONFIG_DB entries
// (devcfg.Paths) and parses config_db JSON, or gNMI leaves, back.
//
// # Path form
//
// A key is "sonic-db:/TABLE/key/field", e.g.
// "sonic-db:/QUEUE/Ethernet0|3/wred_profile": the gNMI origin "sonic-db",
// then the config_db table, key and field as three path elements. A
// config_db key is one element and keeps its "|" separators verbatim; a
// '\', '/', '[' or ']' inside an element is escaped with a backslash, the
// rule of gNMI path strings (drivers/gnmi/gnmipath), so "Vlan100|Eth1/1"
// is "sonic-db:/VLAN_MEMBER/Vlan100|Eth1\/1/tagging_mode". An entry
// without fields (PORTCHANNEL_MEMBER) is "sonic-db:/TABLE/key" = {}.
// Values are JSON strings, as config_db holds them.
//
// # Transports
//
// Over gnmi (the default) the driver speaks CONFIG_DB the way a SONiC
// switch's gNMI server, sonic-net/sonic-gnmi, serves it (read at commit
// 5ec1c20b, 2026-08-19):
//
//   - Paths carry origin "sonic-db" and start with the database and the
//     namespace: /CONFIG_DB/localhost/TABLE/key/field
//     (sonic_data_client/mixed_db_client.go: ParseDatabase takes the first
//     element as the database and the second as the namespace,
//     gnmiFullPath drops both; the project's own tests use
//     "/sonic-db:CONFIG_DB/localhost/PORT/Ethernet4/admin_status"). A Get
//     whose prefix target names a database ("CONFIG_DB") goes to the
//     read-only DbClient instead; Set never does, so rocefab uses the
//     origin form for both (Platform.GNMI: Origin, Root).
//   - Get must be type ALL: gnmi_server/server.go answers any other type
//     with Unimplemented "unsupported request type" (GNMIMapping.GetAll).
//     The sonic-db client encodes JSON_IETF (and PROTO) only
//     (msi2TypedValue), and Set takes JSON_IETF values only
//     (ConvertToJsonPatch: "Value encoding is not IETF JSON"); Capabilities
//     advertise JSON, JSON_IETF and PROTO, so the driver picks JSON_IETF and
//     refuses a target without it.
//   - A SetRequest takes one origin: ParseOrigin answers "Origin conflict
//     in path" to mixed origins, so OpenConfig and sonic-db paths never
//     share a request (see renderers/openconfig for the fallback).
//   - Set builds one JSON patch (update = add, replace = replace, delete =
//     remove; a remove of a missing path is skipped) and applies it with
//     config apply-patch through the host service (SetIncrementalConfig),
//     which validates the whole result against the SONiC YANG and refuses
//     a patch that leaves an empty table (sonic-utilities
//     generic_config_updater). An add needs its parent (RFC 6902), so the
//     driver reads the touched tables and writes a new entry or table whole
//     (GNMIMapping.JSONPatch); '/' in a key is sent as "~1"
//     (json_client.go FixPath), while Get names the key raw (the Redis key
//     is TABLE|key).
//   - Capabilities list the model "sonic-db" for this origin
//     (mixed_db_client.go supportedModels); Platform.Models requires it, so
//     a target without native write is refused before a push.
//
// Fetch hands Parse the origin's config_db document. Over ssh the driver
// turns each path into the RFC 6901 JSON Pointer "/TABLE/key/field" ("~1"
// for '/', "~0" for '~') of a JSON patch for `sudo config apply-patch`,
// inside `config checkpoint` / `config rollback`, and Parse reads `show
// runningconfiguration all`. Parse also takes the flat gNMI leaf form
// {"sonic-db:/TABLE/key/field": "value"}.
//
// # Before a push: Fit
//
// The plan checks the device (Fit, device.go) and refuses it, naming what
// is wrong, when a port or port channel of the intent is not in its PORT
// or PORTCHANNEL table, when a port the intent puts in the lossless VLAN is
// a port channel member, a router interface or untagged elsewhere, or when
// a static lossless profile meets the traditional buffer model. It reads
// DEVICE_METADATA|localhost buffer_model and writes what that model
// expects; the plan notes name the model.
//
// # Ownership
//
// rocefab owns its ROCEFAB maps, ROCEFAB_* profiles and schedulers, the
// PORT_QOS_MAP|global dscp_to_tc_map binding (a singleton), and on each
// RoCE port: PORT mtu, the whole PORT_QOS_MAP entry, QUEUE|port|0..7,
// BUFFER_PG|port|1..7 and |<run> of its lossless PGs (PG 0 keeps the
// platform's lossy profile), PFC_WD, CABLE_LENGTH (when a link or
// pfc.cableLength sets it), VLAN_MEMBER
// and PORTCHANNEL_MEMBER. Fit adds any other lossless BUFFER_PG entry of a
// RoCE port (the stock "3-4" when only PG 3 is lossless), which the plan
// then removes, and under the traditional model leaves buffermgrd's own
// lossless entries out.
//
// # Sources of every statement
//
// sources.go (Sources) cites a source for every field form the renderer
// writes, and renderers/all fails on a rendered path no form cites.
// The tables and fields are those of the SONiC YANG models
// (sonic-net/sonic-buildimage src/sonic-yang-models/yang-models, module in
// brackets), which config apply-patch validates against; the tests check
// every render with yanglint over a realistic device base
// (yangoracle_test.go). The values follow the stock QoS template
// files/build_templates/qos_config.j2 unless noted.
//
//	statement                                   source
//	DSCP_TO_TC_MAP|ROCEFAB 0..63                [sonic-dscp-tc-map]; qos_config.j2 maps every DSCP too
//	DOT1P_TO_TC_MAP|ROCEFAB 0..7 (trust pcp)    [sonic-dot1p-tc-map]
//	TC_TO_QUEUE_MAP|ROCEFAB tc -> tc            [sonic-tc-queue-map]; qos_config.j2 AZURE is identity
//	TC_TO_PRIORITY_GROUP_MAP|ROCEFAB            [sonic-tc-priority-group-map]; lossless TCs to their own PG, others to PG 0
//	MAP_PFC_PRIORITY_TO_QUEUE|ROCEFAB           [sonic-pfc-priority-queue-map]
//	PFC_PRIORITY_TO_PRIORITY_GROUP_MAP|ROCEFAB  [sonic-pfc-priority-priority-group-map]; mellanox and barefoot templates only
//	PORT_QOS_MAP|global dscp_to_tc_map          [sonic-port-qos-map]; qos_config.j2 binds the global DSCP map
//	PORT_QOS_MAP|<port> *_map, pfc_enable       [sonic-port-qos-map]; qos_config.j2 sets pfc_enable on lossless ports
//	PORT_QOS_MAP|<port> pfcwd_sw_enable         [sonic-port-qos-map]; qos_config.j2, the PFC watchdog's lossless priorities
//	WRED_PROFILE|ROCEFAB_LOSSLESS ecn ecn_all,  [sonic-wred-profile]; qos_config.j2 AZURE_LOSSLESS (ecn_all,
//	  wred_green_enable, green_* thresholds       wred_green_enable true, green_min/max_threshold, drop_probability)
//	SCHEDULER|ROCEFAB_* STRICT / DWRR weight     [sonic-scheduler]; qos_config.j2 scheduler.0/1 are DWRR with weights
//	QUEUE|<port>|<q> scheduler, wred_profile    [sonic-queue]; qos_config.j2 binds queue 3 and 4 to the WRED profile
//	BUFFER_PG|<port>|<run> profile NULL         [sonic-buffer-pg] (pg_num "[0-7]((-)[0-7])?"); dynamic model:
//	                                              sonic-swss cfgmgr/buffermgrdyn.cpp handleSingleBufferPgEntry treats
//	                                              "NULL" as a dynamically sized lossless PG; runs as buffermgrd keys
//	                                              them (orchagent/orch.cpp generateIdListFromMap: "3", "3-4")
//	BUFFER_PROFILE|ROCEFAB_LOSSLESS_PG          [sonic-buffer-profile] (pool and size mandatory); a static headroom
//	                                              override on the dynamic model (buffermgrdyn.cpp: "Headroom override")
//	traditional model: no lossless BUFFER_PG    buffermgr.cpp doSpeedUpdateTask writes BUFFER_PG|<port>|<runs of
//	                                              pfc_enable> = pg_lossless_<speed>_<cable>_profile itself;
//	                                              sonic-buildimage dockers/docker-orchagent/buffermgrd.sh starts
//	                                              the dynamic model only for buffer_model "dynamic"
//	CABLE_LENGTH|AZURE <port> "<n>m"            [sonic-cable-length]; both buffer managers size headroom from it;
//	                                              the link's length, else pfc.cableLength; traditional model: rounded
//	                                              up to a length of pg_profile_lookup.ini (stock 5m, 40m, 300m, and
//	                                              those of the device's pg_lossless_<speed>_<cable>_profile entries):
//	                                              buffermgr.cpp refuses a length the file lacks
//	PFC_WD|<port> action, detection_time,       [sonic-pfcwd] (action drop|forward|alert, detection 100..5000 ms,
//	  restoration_time                            restoration 100..60000 ms); sonic-utilities `config pfcwd start
//	                                              --action`; action semantics below
//	PORT|<port> mtu (68..9216)                  [sonic-port]
//	PORTCHANNEL|<lag> mtu, PORTCHANNEL_MEMBER    [sonic-portchannel] (the PORTCHANNEL entry must exist: admin_status
//	                                              is mandatory and not rocefab's)
//	VLAN|Vlan<id> vlanid, VLAN_MEMBER            [sonic-vlan]; a member must not be a port channel member or a
//	  tagging_mode tagged/untagged                router interface, and is untagged in one VLAN at most (must
//	                                              statements; sonic-utilities config/vlan.py add_vlan_member)
//
// # PFC watchdog action
//
// rocefab always writes PFC_WD|<port> action; the intent's default is
// drop. What each does (sonic-swss orchagent/pfcwdorch.cpp and
// pfcactionhandler.h; SONiC's own default is drop, pfcwdorch.cpp):
//
//   - drop: while the storm lasts the stormed queue stops honouring PFC and
//     its packets are dropped (PfcWdZeroBufferHandler drains it through a
//     zero-size buffer profile; some SAIs use the DLR attribute); other
//     queues and the port stay up; restored after restoration_time.
//   - forward: the queue stops honouring PFC and keeps forwarding
//     (PfcWdLossyHandler), so the stuck priority becomes lossy.
//   - alert: detection and counters only; the queue keeps pausing.
package sonic
