package telemetry

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/rocefab/rocefab/intent"
)

// Policy is the part of a device's resolved lossless policy the detectors
// judge counters against.
type Policy struct {
	// Lossless is the PFC enable bitmap: bit p is set when priority p is
	// no-drop.
	Lossless uint8
	// RoCE is the priority RoCE must travel on (the intent's
	// noDropPriority); -1 when unknown.
	RoCE int
	// CNP is the priority CNPs travel on; -1 when the profile marks no
	// ECN.
	CNP int
	// ECN is set when the profile marks ECN, so NICs must answer CE marks
	// with CNPs and act on the CNPs they receive (DCQCN).
	ECN bool
}

// PolicyOf takes the detectors' view of a resolved intent policy.
func PolicyOf(p intent.Policy) Policy {
	out := Policy{Lossless: p.PFCBitmap(), RoCE: p.NoDropPriority, CNP: -1, ECN: p.ECNOn()}
	if out.ECN {
		out.CNP = p.CNPPriority
	}
	return out
}

func (p Policy) lossless(prio int) bool { return prio >= 0 && prio < 8 && p.Lossless&(1<<prio) != 0 }

// DeviceSpec describes one switch or host for NewTopology.
type DeviceSpec struct {
	Name   string
	Host   bool
	Policy Policy
	// Speed is the port speed in bits/s; 0 when the intent does not say.
	Speed float64
	Ports []PortSpec
	Where intent.Loc
}

// PortSpec is one switch port or host NIC (by netdev).
type PortSpec struct {
	Name string
	// RDMA is a host NIC's RDMA port as counters name it ("mlx5_0/1").
	RDMA  string
	Where intent.Loc
}

// Endpoint is one end of a cable.
type Endpoint struct {
	Device string `json:"device"`
	Port   string `json:"port"`
}

func (e Endpoint) String() string { return e.Device + " " + e.Port }

// Cable joins two ports.
type Cable struct {
	A, B  Endpoint
	Where intent.Loc
}

// Topology is the fabric the detectors read counters against: devices,
// their policy and ports, and which port is cabled to which. Devices and
// ports get dense indices so a sample round touches no maps beyond one
// lookup per device.
type Topology struct {
	devs     []device
	byName   map[string]int32
	hostNICs []ref // every host NIC, for the checks that pair it with its switch port
}

type device struct {
	name   string
	host   bool
	policy Policy
	speed  float64 // bits/s, 0 unknown
	where  intent.Loc
	ports  []port
	byPort map[string]int32
	byRDMA map[string]int32
}

type port struct {
	name  string
	rdma  string
	where intent.Loc
	peer  ref
}

// ref names a port by indices; dev -1 is none.
type ref struct{ dev, port int32 }

var noRef = ref{-1, -1}

// ErrTopology is wrapped by every error NewTopology returns.
var ErrTopology = errors.New("telemetry topology")

// NewTopology builds a topology. A cable may name a port the device does
// not list (an uplink outside the RoCE ports); the port is added.
func NewTopology(devs []DeviceSpec, cables []Cable) (*Topology, error) {
	t := &Topology{devs: make([]device, 0, len(devs)), byName: make(map[string]int32, len(devs))}
	for _, ds := range devs {
		if ds.Name == "" {
			return nil, fmt.Errorf("%w: a device without a name", ErrTopology)
		}
		if _, dup := t.byName[ds.Name]; dup {
			return nil, fmt.Errorf("%w: device %q twice", ErrTopology, ds.Name)
		}
		if ds.Policy.RoCE >= 8 || ds.Policy.CNP >= 8 {
			return nil, fmt.Errorf("%w: device %q: priority out of range 0-7", ErrTopology, ds.Name)
		}
		d := device{name: ds.Name, host: ds.Host, policy: ds.Policy, speed: ds.Speed, where: ds.Where,
			ports: make([]port, 0, len(ds.Ports)), byPort: make(map[string]int32, len(ds.Ports))}
		for _, ps := range ds.Ports {
			if _, dup := d.byPort[ps.Name]; dup || ps.Name == "" {
				return nil, fmt.Errorf("%w: device %q: port %q empty or listed twice", ErrTopology, ds.Name, ps.Name)
			}
			d.addPort(port{name: ps.Name, rdma: ps.RDMA, where: ps.Where, peer: noRef})
		}
		t.byName[ds.Name] = int32(len(t.devs))
		t.devs = append(t.devs, d)
	}
	for _, c := range cables {
		a, err := t.cableEnd(c.A, c.Where)
		if err != nil {
			return nil, err
		}
		b, err := t.cableEnd(c.B, c.Where)
		if err != nil {
			return nil, err
		}
		if a == b {
			return nil, fmt.Errorf("%w: cable %s – %s loops to itself", ErrTopology, c.A, c.B)
		}
		for _, end := range []ref{a, b} {
			if p := t.port(end); p.peer != noRef {
				return nil, fmt.Errorf("%w: %s %s is cabled twice (to %s and %s)", ErrTopology,
					t.devs[end.dev].name, p.name, t.endpoint(p.peer), t.endpoint(map[ref]ref{a: b, b: a}[end]))
			}
		}
		t.port(a).peer, t.port(b).peer = b, a
	}
	for di := range t.devs {
		if !t.devs[di].host {
			continue
		}
		for pi := range t.devs[di].ports {
			t.hostNICs = append(t.hostNICs, ref{int32(di), int32(pi)})
		}
	}
	return t, nil
}

func (d *device) addPort(p port) int32 {
	i := int32(len(d.ports))
	d.ports = append(d.ports, p)
	d.byPort[p.name] = i
	if p.rdma != "" {
		if d.byRDMA == nil {
			d.byRDMA = map[string]int32{}
		}
		d.byRDMA[p.rdma] = i
	}
	return i
}

func (t *Topology) cableEnd(e Endpoint, where intent.Loc) (ref, error) {
	di, ok := t.byName[e.Device]
	if !ok {
		return noRef, fmt.Errorf("%w: cable end %s: no device %q", ErrTopology, e, e.Device)
	}
	d := &t.devs[di]
	pi, ok := d.byPort[e.Port]
	if !ok {
		if d.host {
			return noRef, fmt.Errorf("%w: cable end %s: host %q has no NIC %q", ErrTopology, e, e.Device, e.Port)
		}
		pi = d.addPort(port{name: e.Port, where: where, peer: noRef})
	}
	return ref{di, pi}, nil
}

func (t *Topology) port(r ref) *port      { return &t.devs[r.dev].ports[r.port] }
func (t *Topology) endpoint(r ref) string { return t.devs[r.dev].name + " " + t.port(r).name }

// subject names a port (or a device, port -1) at a priority (-1 none).
func (t *Topology) subject(r ref, prio int) Subject {
	s := Subject{Device: t.devs[r.dev].name, Priority: prio}
	if r.port >= 0 {
		s.Port = t.port(r).name
	}
	return s
}

// where is the intent location of a port, or of its device.
func (t *Topology) where(r ref) intent.Loc {
	if r.port >= 0 {
		if l := t.port(r).where; l.File != "" {
			return l
		}
	}
	return t.devs[r.dev].where
}

// Peer is the port cabled to device's port.
func (t *Topology) Peer(device, port string) (Endpoint, bool) {
	di, ok := t.byName[device]
	if !ok {
		return Endpoint{}, false
	}
	pi, ok := t.devs[di].byPort[port]
	if !ok {
		return Endpoint{}, false
	}
	p := t.devs[di].ports[pi].peer
	if p == noRef {
		return Endpoint{}, false
	}
	return Endpoint{t.devs[p.dev].name, t.port(p).name}, true
}

// Devices is the number of devices; Ports the number of ports.
func (t *Topology) Devices() int { return len(t.devs) }

// Ports is the number of ports of every device.
func (t *Topology) Ports() int {
	n := 0
	for i := range t.devs {
		n += len(t.devs[i].ports)
	}
	return n
}

// FromIntent builds the topology of a resolved intent: every switch with
// its RoCE ports, every host with its NICs, every link, each device with
// its own resolved policy.
func FromIntent(r *intent.Resolved) (*Topology, error) {
	devs := make([]DeviceSpec, 0, len(r.Switches)+len(r.Hosts))
	for _, sw := range r.Switches {
		ds := DeviceSpec{Name: sw.Name, Policy: PolicyOf(sw.Policy), Speed: float64(sw.PortSpeed.Mbps) * 1e6}
		if sw.Spec != nil {
			ds.Where = sw.Spec.Loc()
		}
		for _, p := range sw.Ports {
			ds.Ports = append(ds.Ports, PortSpec{Name: p.Name, Where: p.At})
		}
		devs = append(devs, ds)
	}
	for _, h := range r.Hosts {
		ds := DeviceSpec{Name: h.Name, Host: true, Policy: PolicyOf(h.Policy)}
		if h.Spec != nil {
			ds.Where = h.Spec.Loc()
		}
		for _, n := range h.NICs {
			ps := PortSpec{Name: n.Netdev, Where: n.At}
			if n.RDMADevice != "" {
				ps.RDMA = n.RDMADevice + "/" + strconv.Itoa(max(n.RDMAPort, 1))
			}
			ds.Ports = append(ds.Ports, ps)
		}
		devs = append(devs, ds)
	}
	cables := make([]Cable, 0, len(r.Links))
	for _, l := range r.Links {
		cables = append(cables, Cable{A: Endpoint{l.A.Device, l.A.Port}, B: Endpoint{l.B.Device, l.B.Port}, Where: l.At})
	}
	return NewTopology(devs, cables)
}
