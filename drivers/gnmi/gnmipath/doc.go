// Package gnmipath converts between rocefab's gNMI path strings
// ("origin:/a/b[k=v]/c"), gNMI Path messages and flat leaf maps.
//
// Path strings: an optional "origin:" prefix (none for openconfig), then
// "/"-separated elements; keys as "[name=value]" sorted by name. A
// backslash escapes '\', '/', '[' and ']' in element names, '\', '=' and
// ']' in key names, and '\' and ']' in key values.
//
// Flattening turns a JSON or JSON_IETF subtree into leaf path → canonical
// JSON value, without a schema:
//   - openconfig origin: a JSON array of objects is a YANG list, and a list
//     entry's key leaves are its direct scalar members (OpenConfig puts all
//     other leaves in config/state containers). Keys go into the element's
//     predicate and are not leaves of their own. An array of scalars, or of
//     objects without scalar members, is one leaf-list value. Module
//     prefixes on member names ("openconfig-qos:qos") are stripped.
//   - any other origin (sonic-db, cli, ...): objects are maps whose member
//     names become elements verbatim; arrays are leaf values.
//   - an empty object is a leaf with value {} (a presence container).
//
// Values are re-encoded canonically (encoding/json, numbers kept verbatim),
// so "9216" stays a string and 9216 a number, as RFC 7951 demands.
package gnmipath
