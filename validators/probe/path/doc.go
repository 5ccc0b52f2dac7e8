// Package path maps what path discovery saw to the intent: a router's
// answer names an address, the address a device and port, consecutive hops
// the directed link between them. It also caches each flow's path, so a
// change is noticed and re-learned.
//
// A hop that did not answer stays unknown. Where the cabling leaves only
// one device it can be (a silent spine between two leaves whose ports are
// known), the hop is marked inferred, never answered.
package path
