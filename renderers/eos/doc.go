// Package eos renders the lossless RoCE configuration of Arista EOS switches
// as a CLI tree (three-space indentation), and parses `show running-config`.
//
// Every statement the renderer emits is cited in sources.go (Sources,
// mostly Arista's own AVD templates), and a test fails on one that is not.
// PFC watchdog: EOS's own default error-disables the whole port on a
// storm; rocefab renders `priority-flow-control pause watchdog port action
// drop` (the intent's default action), which drops only the stuck queue.
// Timers take seconds with at most two decimals (AVD's schema), both or
// neither (WatchdogTimes; lint RF130). Ports are switched by default:
// routed ports render `no switchport`, and the port mode of a listed port
// is rocefab's. Grouped map lines, also with a drop-precedence suffix,
// parse one line per code point; `show running-config all` defaults are
// no drift.
//
// Trunk VLANs: rocefab owns membership of the lossless VLAN in a RoCE
// trunk's allowed list, never the list, so a team's storage or management
// VLANs on a GPU port are neither drift nor removed. It adds the VLAN with
// `switchport trunk allowed vlan add N` and, when a port stops being a RoCE
// trunk, removes it with `switchport trunk allowed vlan remove N`; it never
// sends `switchport trunk allowed vlan <list>` (replaces the list) or
// `no switchport trunk allowed vlan` (resets it to every VLAN). Ownership
// follows the current intent: when the lossless VLAN changes or a port
// leaves the intent, the old membership is left in place, since rocefab
// cannot tell it from another team's VLAN. What EOS does, and what Parse
// relies on:
//   - A port's allowed list is every VLAN by default, whatever its mode, and
//     the running config then prints no allowed-vlan line; `add` on such a
//     port changes nothing (the list stays "all"). Parse models the missing
//     line on Ethernet ports and port-channels as "switchport trunk allowed
//     vlan all", which on a RoCE trunk implies the lossless membership:
//     rocefab sends no `add` there and never narrows the list, also not when
//     the port stops being a trunk (`remove 100` on it would print
//     `switchport trunk allowed vlan 1-99,101-4094`). An empty list prints
//     `switchport trunk allowed vlan none`.
//   - The list prints on one line with ranges folded
//     (`switchport trunk allowed vlan 123-124,126-128`). Parse keeps one
//     `switchport trunk allowed vlan add N` line per VLAN.
//
// Sources: Arista EOS User Manual, "Virtual LANs (VLANs)" (switchport trunk
// allowed vlan with add, remove, except, all, none; all VLANs by default);
// internap/fake-switches tests/arista/test_arista_switchport.py, an EOS
// emulation tested against the device (add on an all-VLAN trunk prints
// nothing, remove from all prints the explicit rest, none and folded
// ranges as above).
package eos
