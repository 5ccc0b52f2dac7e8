// Package sonic renders rocefab's lossless policy as SONiC CONFIG_DB entries
// (devcfg.Paths keyed "/TABLE/key/field") and parses config_db JSON back.
//
// # Path form
//
// A key is the RFC 6901 JSON Pointer of the field inside config_db JSON:
// "/TABLE/key/field", e.g. "/QUEUE/Ethernet0|3/wred_profile". A config_db
// key is one path element and keeps its "|" separators verbatim; a "~" or
// "/" inside a table, key or field is escaped "~0" / "~1" (RFC 6901), so a
// key such as "Vlan100|Eth1/1" becomes "/VLAN_MEMBER/Vlan100|Eth1~11/...".
// An entry without fields (PORTCHANNEL_MEMBER) is "/TABLE/key" = {}.
// Values are JSON strings, as config_db holds them.
//
// Transports: over ssh the key is used verbatim as the JSON-patch path of
// `sudo config apply-patch` (inside `config checkpoint` / `config rollback`);
// over gnmi it maps to origin "sonic-db", target "CONFIG_DB", elements
// TABLE, key, field (sonic-gnmi's mixed form /sonic-db:CONFIG_DB/localhost/
// TABLE/key/field on multi-ASIC images), with "~1"/"~0" unescaped.
package sonic
