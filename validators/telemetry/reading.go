package telemetry

import "time"

// Reading is one read of a device's counters: every port the source
// answered for, at one moment unless a port says its own.
type Reading struct {
	Device string
	// Taken is when the device sampled the counters: rates use it.
	Taken time.Time
	// Arrived is when the sample reached the reader, on the reader's one
	// clock (zero: Taken). Which samples are current across devices is
	// judged by it: devices stamped by their own clocks, or read late
	// behind a busy reader, are not behind the fabric.
	Arrived time.Time
	Ports   []PortCounters
	// Narrow are the counters this source reads as 32-bit (SNMP Counter32,
	// some ASIC registers); all others are 64-bit.
	Narrow Widths
}

// Widths selects counters by metric.
type Widths struct {
	Prio PrioSet
	Port PortSet
}

// PortCounters are one port's (or host NIC's) counters. A counter that is
// not set was not read; it is neither zero nor a reset.
type PortCounters struct {
	Name string
	// Taken is when the device sampled this port's counters, where it
	// stamps ports apart (gNMI subscriptions are sampled one by one, each
	// on its own timer); zero: the reading's Taken.
	Taken time.Time
	Prio  [NumPriorities]PrioValues
	Port  PortValues
}

// PrioValues are the counters of one priority.
type PrioValues struct {
	Has PrioSet
	V   [NumPrioMetrics]uint64
}

// PortValues are the per-port counters.
type PortValues struct {
	Has PortSet
	V   [NumPortMetrics]uint64
}

// Set records a per-priority counter.
func (pc *PortCounters) Set(prio int, m PrioMetric, v uint64) {
	pc.Prio[prio].V[m] = v
	pc.Prio[prio].Has |= 1 << m
}

// SetPort records a per-port counter.
func (pc *PortCounters) SetPort(m PortMetric, v uint64) {
	pc.Port.V[m] = v
	pc.Port.Has |= 1 << m
}

// Add adds to a per-priority counter, setting it when absent.
func (pc *PortCounters) Add(prio int, m PrioMetric, v uint64) {
	pc.Prio[prio].V[m] += v
	pc.Prio[prio].Has |= 1 << m
}

// AddPort adds to a per-port counter.
func (pc *PortCounters) AddPort(m PortMetric, v uint64) {
	pc.Port.V[m] += v
	pc.Port.Has |= 1 << m
}

// arrival is when the reading arrived, Taken if unknown.
func (r *Reading) arrival() time.Time {
	if r.Arrived.IsZero() {
		return r.Taken
	}
	return r.Arrived
}
