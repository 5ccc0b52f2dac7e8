// Package headroom computes the PFC headroom a lossless port needs: the
// bytes that still arrive after the port decides to pause its peer. It is
// pure arithmetic over plain inputs and imports nothing else of rocefab, so
// lint, the renderers and the plan share one figure.
//
// # The delay model
//
// IEEE 802.1Qbb (Annex N, "buffer requirements") sizes the headroom as the
// data a sender keeps transmitting during the PFC delay: the frame the
// pausing port is itself transmitting when it wants to send PAUSE (a PFC
// frame never preempts one), the propagation delay of the cable in both
// directions, the interface (PHY and MAC) delay, and the time the peer takes
// to act on PAUSE, bounded by IEEE 802.3 Annex 31B.3.7 in pause quanta of
// 512 bit times; plus the largest lossless frame the peer has already begun
// when it stops. Cisco's white paper "Priority Flow Control: Build Reliable
// Layer 2 Infrastructure" (c11-542809) walks the same terms.
//
// The arithmetic is SONiC's dynamic buffer calculation, the one published
// implementation of that model (sonic-net/sonic-swss
// cfgmgr/buffer_headroom_mellanox.lua by NVIDIA; buffer_headroom_barefoot.lua
// uses the same terms):
//
//	cable       = 2 × length × speed / 8 / 198,000,000 m/s   (≈ 5 ns/m each way)
//	response    = pause quanta(speed) × 512 bit / 8          (IEEE 802.3 31B.3.7)
//	propagation = port frame + cable + MAC/PHY delay + response (+ Spectrum-4/5 tile)
//	occupancy   = share of 64-byte packets and the ASIC's cell size
//	xoff        = peer frame + propagation × occupancy, rounded up to 1 KiB
//	xon         = the ASIC's pipeline latency, rounded up to 1 KiB
//	size        = xoff + xon (+ one port frame on 8-lane ports)
//
// Cell occupancy accounts for small packets that fill a whole buffer cell:
// the worst-case factor is cell/64 for cells above 128 bytes, else
// 2·cell/(1+cell), rounded up, weighted by the byte share of 64-byte packets
// in a traffic pattern of SmallPacketPercent small packets among
// PeerFrame-sized ones (SONiC's default LOSSLESS_TRAFFIC_PATTERN is 50 %).
//
// # Per-ASIC facts
//
// ASICs lists cell size, pipeline latency, MAC/PHY delay, packet buffer and
// fastest port for each chip with a published source, each cited in its
// entry: NVIDIA's and Intel's SONiC ASIC_TABLE (platform/*/asic_table.j2),
// NVIDIA's SONiC buffer templates and platform.json, and Meta's FBOSS
// switch_asics for Broadcom's Tomahawk, Trident and Jericho. A fact without
// a published source is left at zero, and the calculation falls back to the
// documented generic value (no cell overhead; the 0.8 KB MAC/PHY delay every
// published ASIC_TABLE carries; no pipeline latency), never to a guess.
package headroom
