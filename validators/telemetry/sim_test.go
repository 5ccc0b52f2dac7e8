package telemetry

import (
	"testing"
	"time"
)

// sim keeps cumulative counters for a topology and hands out readings, one
// per device and round. Tests add what each interval counted.
type sim struct {
	tb   testing.TB
	topo *Topology
	now  time.Time
	devs []*simDev
	by   map[string]*simDev
}

type simDev struct {
	name   string
	host   bool
	ports  []PortCounters
	idx    map[string]int
	narrow Widths
	skip   bool          // not read in the next round
	jitter time.Duration // added to the next reading's time
	// lag stamps every reading this much before it arrives, as a device
	// stamping by its own clock, read behind a busy reader, does.
	lag time.Duration
}

var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

func newSim(tb testing.TB, topo *Topology) *sim {
	s := &sim{tb: tb, topo: topo, now: t0, by: map[string]*simDev{}}
	for i := range topo.devs {
		d := &topo.devs[i]
		sd := &simDev{name: d.name, host: d.host, idx: map[string]int{}}
		for _, p := range d.ports {
			sd.idx[p.name] = len(sd.ports)
			sd.ports = append(sd.ports, PortCounters{Name: p.name})
		}
		s.devs = append(s.devs, sd)
		s.by[d.name] = sd
	}
	return s
}

// reports makes every port of the devices read these counters (from 0).
func (s *sim) reports(prio PrioSet, port PortSet, devs ...string) {
	for _, name := range devs {
		d := s.dev(name)
		for i := range d.ports {
			for p := range NumPriorities {
				d.ports[i].Prio[p].Has |= prio
			}
			d.ports[i].Port.Has |= port
		}
	}
}

func (s *sim) dev(name string) *simDev {
	d := s.by[name]
	if d == nil {
		s.tb.Fatalf("sim: no device %q", name)
	}
	return d
}

func (s *sim) port(dev, port string) *PortCounters {
	d := s.dev(dev)
	i, ok := d.idx[port]
	if !ok {
		s.tb.Fatalf("sim: %s has no port %q", dev, port)
	}
	return &d.ports[i]
}

// add counts v more of a per-priority counter, wrapping 32-bit ones.
func (s *sim) add(dev, port string, prio int, m PrioMetric, v uint64) {
	pc := s.port(dev, port)
	pc.Prio[prio].V[m] += v
	if s.dev(dev).narrow.Prio.Has(m) {
		pc.Prio[prio].V[m] &= 1<<32 - 1
	}
}

func (s *sim) addPort(dev, port string, m PortMetric, v uint64) {
	pc := s.port(dev, port)
	pc.Port.V[m] += v
	if s.dev(dev).narrow.Port.Has(m) {
		pc.Port.V[m] &= 1<<32 - 1
	}
}

// pause makes dev's port paused for frac of an interval of el by its
// neighbour: pause time and frames on both ends (frames at one refresh per
// half of the longest pause at 400G).
func (s *sim) pause(dev, port string, prio int, frac float64, el time.Duration) {
	us := uint64(frac * float64(el.Microseconds()))
	frames := uint64(frac*el.Seconds()/(65535*512/400e9/2)) + 2
	s.add(dev, port, prio, PauseRxMicros, us)
	s.add(dev, port, prio, PauseRx, frames)
	if peer, ok := s.topo.Peer(dev, port); ok {
		s.add(peer.Device, peer.Port, prio, PauseTxMicros, us)
		s.add(peer.Device, peer.Port, prio, PauseTx, frames)
	}
}

// round advances the clock by dt and reads every device not skipped.
func (s *sim) round(dt time.Duration) []Reading {
	s.now = s.now.Add(dt)
	var out []Reading
	for _, d := range s.devs {
		if d.skip {
			d.skip = false
			continue
		}
		r := Reading{Device: d.name, Taken: s.now.Add(d.jitter - d.lag), Narrow: d.narrow,
			Ports: append([]PortCounters(nil), d.ports...)}
		if d.lag != 0 {
			r.Arrived = s.now
		}
		d.jitter = 0
		out = append(out, r)
	}
	return out
}
