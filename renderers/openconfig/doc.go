// Package openconfig renders rocefab's lossless policy as OpenConfig gNMI
// paths with RFC 7951 (JSON_IETF) values, plus a vendor-native PFC part.
//
// # Path form (devcfg.Paths keys)
//
// OpenConfig leaves carry no origin prefix: "/a/b[k=v]/c", e.g.
// "/qos/classifiers/classifier[name=ROCEFAB_ROCE]/config/name". A list
// element always names its key leaves; in key values '\' and ']' are
// backslash-escaped (the gNMI path-string rule of drivers/gnmi/gnmipath).
// Values are JSON_IETF: uint64 leaves are JSON strings ("150000"),
// uint8/16/32 JSON numbers (9216), enumerations bare strings ("IPV4",
// "STRICT", "TRUNK"), identities module-prefixed
// ("openconfig-qos-types:ONE_RATE_TWO_COLOR", "iana-if-type:ethernetCsmacd"),
// leaf-lists JSON arrays ([100]).
//
// # No PFC in OpenConfig
//
// OpenConfig has no PFC model (only 802.3x enable-flow-control, which is
// rendered false). A switch declares openconfig.pfcFallback.platform, and
// the PFC part (PFC on the lossless priorities, the PFC watchdog, lossless
// buffers where the platform has them) is rendered from an embedded
// template per fallback and carried in the same SetRequest under its own
// origin:
//
//   - eos, nxos: origin "cli". One key per CLI line:
//     "cli:/" + the line's context lines and its key joined by " > ", as one
//     escaped path element, e.g.
//     "cli:/interface Ethernet1 > priority-flow-control priority 3 no-drop"
//     or "cli:/interface Ethernet1\/1 > priority-flow-control mode on".
//     The key is the whole line, except for single-valued lines, whose key
//     stops before the value ("cli:/system qos > service-policy type
//     network-qos"), so a new value is a modification. The value is a JSON
//     string: the CLI text that sets the line, context lines first, indented
//     as the device prints them ("interface Ethernet1\n   priority-flow-control on").
//     To remove a line, send its context and "no " + the last key element.
//   - sonic: origin "sonic-db", CONFIG_DB as "sonic-db:/TABLE/key/field" =
//     JSON string, the form of renderers/sonic ("sonic-db:/PORT_QOS_MAP/Ethernet0/pfc_enable" = "3").
//
// The fallback origins are not OpenConfig and are exempt from the YANG
// checks; everything without a prefix is validated against the OpenConfig
// YANG at test time, and pushed to OpenConfig's reference gNMI server
// (lemming) through rocefab's own driver (lemming_test.go).
//
// # Which targets take the fallback
//
// A target that does not know the fallback's origin rejects the whole
// SetRequest, OpenConfig part included. Before a push, Fit (device.go)
// reads the target's Capabilities and refuses the device, saying PFC is
// not expressible there, unless the target takes that origin beside
// OpenConfig in one SetRequest: for origin cli (eos, nxos) the target must
// be the vendor's own gNMI server, shown by its models (EOS: arista-*,
// NX-OS: Cisco-NX-OS-device); the mixed-schema specification
// (openconfig/reference rpc/gnmi/mixed-schema.md) defines cli beside
// openconfig as one transaction. The sonic fallback never rides: the only
// server of origin sonic-db, sonic-gnmi, refuses mixed origins
// (gnmi_server/server.go ParseOrigin); manage SONiC with platform sonic.
// openconfig.pfcFallback.platform "none" is the explicit choice to push the
// OpenConfig part alone: nothing native is rendered or owned, and the plan
// notes that PFC is not expressible on the device.
//
// # PFC watchdog action
//
// OpenConfig has no PFC watchdog either (no watchdog leaf in the modules of
// ../shared/yang, openconfig/public v5.9.0), so the action, like PFC, comes
// from the fallback, always explicitly: eos renders `priority-flow-control
// pause watchdog port action drop` for the intent's default drop (EOS's own
// default error-disables the whole port; drop discards the stuck queue's
// frames and keeps the port up; EOS has no forward, so forward keeps EOS's
// default and the plan says so); sonic writes PFC_WD action (see
// renderers/sonic); nxos keeps NX-OS's watchdog defaults and says so.
//
// # Sources
//
// sources.go (Sources) cites the model or vendor document of every path
// form, fallbacks included, and renderers/all fails on a rendered path no
// form cites.
//
// # Parse input
//
// Parse takes the gNMI driver's Fetch output: one flat JSON object of leaf
// path → JSON_IETF value, keys in the form above (origin-prefixed for the
// fallback origins). Encode writes the same form, keys sorted.
package openconfig
