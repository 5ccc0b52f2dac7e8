// Package cumulus renders the lossless RoCE configuration of NVIDIA Cumulus
// Linux switches as NVUE's object tree, and parses `nv config show -o json`.
//
// Every command the renderer emits is cited in sources.go (Sources), and a
// test fails on one that is not. Every switch priority maps to a scheduled
// traffic class (RoCE and CNP their own, the rest folded into one, as
// NVIDIA's RoCE profile does) with bw-percent adding up to 100; the
// lossless priorities leave default-lossy by setting that pool's
// priorities to the rest. PFC watchdog: NVUE has no action knob (a stormed
// queue is made lossy, so dropped, until the storm ends); rocefab enables
// it per port and renders no times (RF131 warns). Command listings expand
// ranged keys (`interface swp1-2,32`) and keep set members named by the
// last word (`... trigger l2`, `... trigger l3`) apart.
//
// PFC headroom: NVUE sizes it from the cable length of a port's PFC
// profile. default-global carries the device's length (pfc.cableLength,
// else 100 m); a port whose link is another length gets a profile of its
// own (rocefab-300m), attached with `interface X qos pfc profile`. Written
// buffer values keep NVUE's meaning: port-buffer is pfc.headroom and
// xoff-threshold, the buffer consumed before PAUSE, is pfc.xon; pfc.xoff is
// what remains above it.
//
// Trunk VLANs: rocefab owns membership of the lossless VLAN in a RoCE
// port's VLAN set on br_default, never the set, so a team's storage or
// management VLANs on a GPU port are neither drift nor unset. What NVUE
// does, and what the model relies on:
//   - A port's VLANs are a set keyed by VLAN ID: `nv set interface swp1
//     bridge domain br_default vlan 100` adds VLAN 100 to it, `nv unset ...
//     vlan 100` removes that one, and `nv set ... vlan 10,20` stores one key
//     per VLAN ('10', '20'). Parse keeps one path per VLAN, splitting a key
//     that lists several. Unsetting a port's last VLAN makes it inherit the
//     bridge's VLANs again.
//   - A bridge port that sets no VLANs of its own inherits every VLAN of
//     the bridge; setting one prunes it to the VLANs it sets. So rocefab
//     never sets a VLAN on an inheriting port: Parse marks it
//     "interface X bridge domain D vlan all" (InheritsAll), which implies
//     the lossless membership, and the lossless VLAN on the bridge (owned
//     separately) is what the port needs.
//   - Ownership follows the current intent: when the lossless VLAN changes
//     or a port leaves the intent, the old membership is left in place,
//     since rocefab cannot tell it from another team's VLAN.
//
// Sources: Cumulus Linux user guide, "VLAN-aware Bridge Mode", section VLAN
// Pruning ("By default, the bridge port inherits the bridge VIDs, however,
// you can configure a port to override the bridge VIDs", with
// `nv set interface swp3 bridge domain br_default vlan 20`); Cumulus Linux
// "EVPN Multihoming" startup.yaml example (`nv set bridge domain br_default
// vlan 10,20,30` stored as keys '10', '20', '30'); NVUE command reference,
// Bridge (nv unset removes what the matching nv set configured).
package cumulus
