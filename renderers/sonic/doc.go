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
// Transports: over gnmi (the default) Platform.GNMI says origin
// "sonic-db", target "CONFIG_DB", document form: the driver sends each path
// as those three elements under that origin and target, and Fetch hands
// Parse the origin's config_db document. Over ssh the driver turns each
// path into the RFC 6901 JSON Pointer "/TABLE/key/field" ("~1" for '/',
// "~0" for '~') of a JSON patch for `sudo config apply-patch`, inside
// `config checkpoint` / `config rollback`, and Parse reads `show
// runningconfiguration all`. Parse also takes the flat gNMI leaf form
// {"sonic-db:/TABLE/key/field": "value"}.
//
// # Ownership
//
// rocefab owns its ROCEFAB maps, ROCEFAB_* profiles and schedulers, the
// PORT_QOS_MAP|global dscp_to_tc_map binding (a singleton), and on each
// RoCE port: PORT mtu, the whole PORT_QOS_MAP entry, QUEUE|port|0..7,
// BUFFER_PG|port|1..7 (PG 0 keeps the platform's lossy profile), PFC_WD,
// CABLE_LENGTH (when set), VLAN_MEMBER and PORTCHANNEL_MEMBER. Stock images
// key QUEUE and BUFFER_PG by ranges ("Ethernet0|3-4"); those keys are not
// rocefab's and overlap its single-index keys, so remove them before the
// first apply.
package sonic
