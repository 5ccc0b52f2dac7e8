// Package junos renders the lossless RoCE configuration of Juniper QFX
// switches as Junos `set` statements, and parses `show configuration | display set`.
//
// Every statement the renderer emits is cited in sources.go (Sources), and
// a test fails on one that is not. What the renderer relies on:
//   - PFC watchdog: Juniper's watchdog watches only the queues an output
//     stanza names (`output ieee-802.1 code-point N flow-control-queue Q`),
//     so each PFC profile carries one per PFC priority beside
//     `pfc-watchdog`. Junos has no action knob: a stuck queue is disabled
//     and flushed (dropped) for the recovery time. Times keep the Junos
//     defaults (100 ms polls, detection after 2, 200 ms recovery); lint
//     warns when the intent sets them (RF131).
//   - Classifiers are complete (every other code point to best-effort) and
//     every class in use has a scheduler (NO_LOSS 50 %, CNP strict-high 5 %,
//     best-effort 40 %, network-control 5 %): Juniper warns that a class
//     without one may drop even short bursts.
//   - One drop attribute per queue, and Junos keeps its lossless fcoe (3)
//     and no-loss (4) classes: a lossy class (ecn-only RoCE, a CNP on 3 or
//     4) moves to a free queue.
//   - fill-level and drop-probability pair by position: statements print
//     and push in natural order (5 before 20).
//   - A `deactivate` of a rendered statement or a node above it is a
//     conflict naming the node; rocefab never activates foreign nodes.
//   - PFC headroom: Junos sizes it from the `input cable-length` of the
//     congestion notification profile (100 m by default). The base
//     profiles carry pfc.cableLength; a port whose link is another length
//     gets a copy of its profile for that length (ROCEFAB_PFC_PCP_300M).
//     Explicit headroom, xoff and xon are not rendered.
package junos
