// Package counters snapshots RDMA, NIC and switch counters around a probe
// run and reports their deltas in plain language ("priority 3 pause frames
// received rose by 1,204 on leaf2 Ethernet1/5 during the probe").
package counters
