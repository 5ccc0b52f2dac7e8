package telemetry

import (
	"errors"
	"fmt"
	"math/bits"
	"time"
)

// StateVersion identifies the State shape. A state of another version is
// refused, and the detector starts fresh (its first round is a baseline).
const StateVersion = 1

// State is what a detector needs to continue after an agent restart: the
// last value of every counter and the findings being watched. Encode it
// with encoding/json or encoding/gob.
type State struct {
	Version  int            `json:"version"`
	Devices  []DeviceState  `json:"devices"`
	Findings []FindingState `json:"findings"`
}

// DeviceState is one device's counters.
type DeviceState struct {
	Device string      `json:"device"`
	Taken  time.Time   `json:"taken"`
	Ports  []PortState `json:"ports"`
}

// PortState is one port's last sample: which counters it had and their
// values, per priority in metric order, then the port counters.
type PortState struct {
	Port   string                 `json:"port"`
	At     time.Time              `json:"at"`
	Prio   [NumPriorities]PrioSet `json:"prio"`
	Has    PortSet                `json:"has"`
	Values []uint64               `json:"values"`
}

// FindingState is a watched finding and where its hysteresis stands.
type FindingState struct {
	Finding Finding   `json:"finding"`
	Active  bool      `json:"active"`
	Since   time.Time `json:"since"`
	LastHit time.Time `json:"lastHit"`
	Total   float64   `json:"total,omitempty"`
}

// State returns the detector's state.
func (d *Detector) State() *State {
	st := &State{Version: StateVersion}
	for di := range d.devs {
		ds := &d.devs[di]
		dev := &d.topo.devs[di]
		var dst DeviceState
		for pi := range ds.ports {
			ps := &ds.ports[pi]
			if !ps.seen {
				continue
			}
			p := PortState{Port: dev.ports[pi].name, At: ps.at, Prio: ps.prioHas, Has: ps.portHas}
			for prio := range NumPriorities {
				for b := uint16(ps.prioHas[prio]); b != 0; b &= b - 1 {
					p.Values = append(p.Values, ps.prio[prio][bits.TrailingZeros16(b)])
				}
			}
			for b := uint16(ps.portHas); b != 0; b &= b - 1 {
				p.Values = append(p.Values, ps.port[bits.TrailingZeros16(b)])
			}
			dst.Ports = append(dst.Ports, p)
		}
		if len(dst.Ports) > 0 {
			dst.Device, dst.Taken = dev.name, ds.at
			st.Devices = append(st.Devices, dst)
		}
	}
	for _, e := range d.findings {
		st.Findings = append(st.Findings, FindingState{Finding: e.f, Active: e.active, Since: e.since, LastHit: e.lastHit, Total: e.total})
	}
	return st
}

// ErrState is wrapped by Restore's errors.
var ErrState = errors.New("telemetry state")

// Restore loads a saved state into a detector that has seen no round.
// Devices, ports and findings the topology no longer has are dropped; the
// rest continue, so the first round after a restart gives rates against
// the saved values (a long downtime is a gap, as for any long interval).
func (d *Detector) Restore(st *State) error {
	if d.round != 0 {
		return fmt.Errorf("%w: restore into a detector that has already seen a round", ErrState)
	}
	if st.Version != StateVersion {
		return fmt.Errorf("%w: version %d, this build reads %d", ErrState, st.Version, StateVersion)
	}
	for _, ds := range st.Devices {
		di, ok := d.topo.byName[ds.Device]
		if !ok {
			continue
		}
		dev := &d.topo.devs[di]
		d.devs[di].at = ds.Taken
		for _, p := range ds.Ports {
			pi, ok := dev.byPort[p.Port]
			if !ok {
				continue
			}
			n := p.Has.Len()
			for _, s := range p.Prio {
				n += s.Len()
			}
			if n != len(p.Values) {
				return fmt.Errorf("%w: %s %s: %d values for %d counters", ErrState, ds.Device, p.Port, len(p.Values), n)
			}
			ps := &d.devs[di].ports[pi]
			*ps = portState{seen: true, at: p.At, prioHas: p.Prio, portHas: p.Has}
			v := p.Values
			for prio := range NumPriorities {
				for b := uint16(p.Prio[prio]); b != 0; b &= b - 1 {
					ps.prio[prio][bits.TrailingZeros16(b)], v = v[0], v[1:]
				}
			}
			for b := uint16(p.Has); b != 0; b &= b - 1 {
				ps.port[bits.TrailingZeros16(b)], v = v[0], v[1:]
			}
		}
	}
	for _, fs := range st.Findings {
		k, ok := d.keyOf(fs.Finding.Code, fs.Finding.Subject)
		if !ok {
			continue
		}
		e := &entry{f: fs.Finding, active: fs.Active, since: fs.Since, lastHit: fs.LastHit, total: fs.Total}
		if _, dup := d.findings[k]; !dup && k.port >= 0 {
			d.devs[k.dev].ports[k.port].tracked++
		}
		d.findings[k] = e
	}
	return nil
}

func (d *Detector) keyOf(code Code, s Subject) (key, bool) {
	di, ok := d.topo.byName[s.Device]
	if !ok || s.Priority < NoPriority || s.Priority >= NumPriorities {
		return key{}, false
	}
	k := key{code: code, dev: di, port: -1, prio: int8(s.Priority)}
	if s.Port != "" {
		pi, ok := d.topo.devs[di].byPort[s.Port]
		if !ok {
			return key{}, false
		}
		k.port = pi
	}
	return k, true
}
