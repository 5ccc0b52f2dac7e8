// Package nxos renders the lossless RoCE configuration of Cisco Nexus 9000
// switches as an NX-OS CLI tree, and parses `show running-config` back.
//
// Every statement the renderer emits is cited in sources.go (Sources),
// and a test fails on one that is not. PFC watchdog: NX-OS has no action
// knob; `priority-flow-control watch-dog-interval on` shuts a stuck
// no-drop queue down (its traffic is dropped) and restores it by itself.
// rocefab renders no watchdog times (NX-OS counts them as multipliers of
// its poll interval); lint warns when the intent sets them (RF131). A
// running config wrapped by a narrow terminal is refused (ErrWrapped).
//
// PFC headroom: Cisco's defaults hold for cables up to 100 m and the pause
// buffer thresholds are mandatory above. For a cable over 100 m (or a
// written pfc.xoff, xon or headroom) rocefab renders an input queuing
// policy, ROCEFAB_INQ, with `pause buffer-size B pause-threshold X
// resume-threshold X` on the c-in-qN class of each PFC priority, sized for
// the port that needs the most (intent/headroom), and attaches it under
// system qos.
//
// Trunk VLANs: rocefab owns membership of the lossless VLAN in a RoCE
// trunk's allowed list, never the list, so a team's storage or management
// VLANs on a GPU port are neither drift nor removed. It adds the VLAN with
// `switchport trunk allowed vlan add N` and, when a port stops being a RoCE
// trunk, removes it with `switchport trunk allowed vlan remove N`; it never
// sends `switchport trunk allowed vlan <list>` (replaces the list) or
// `no switchport trunk allowed vlan` (resets it to every VLAN). What NX-OS
// does, and what Parse relies on:
//   - A port's allowed list is every VLAN (1-4094) by default, whatever its
//     mode, and the running config then prints no allowed-vlan line; `add`
//     on such a port keeps every VLAN (add extends the current list). Parse
//     models the missing line on Ethernet ports and port-channels as
//     "switchport trunk allowed vlan all", which on a RoCE trunk implies the
//     lossless membership: rocefab sends no `add` there and never narrows
//     the list, also not when the port stops being a trunk (`remove N` would
//     leave the explicit list 1-(N-1),(N+1)-4094). An empty list prints as
//     `switchport trunk allowed vlan none`.
//   - The running config prints the whole list on one line
//     (`switchport trunk allowed vlan 10,100,200-210`); long lists continue
//     on `switchport trunk allowed vlan add ...` lines. Parse reads them all
//     and keeps one `switchport trunk allowed vlan add N` line per VLAN.
//
// Sources: Cisco Nexus 9000 NX-OS Interfaces Configuration Guide,
// "Configuring Layer 2 Interfaces" (allowed VLANs default to all; add,
// remove, except, all, none); cisco/cisco-network-node-utils PR #423 (N7K
// and N9K 7.0(3)I3 print long lists as `add` continuation lines);
// CCI-MOC/hil issue #878 (a trunk allowing all VLANs shows no list line);
// ansible-collections/cisco.nxos issue #195 (`switchport trunk allowed vlan
// none` in running configs).
package nxos
