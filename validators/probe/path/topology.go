package path

import (
	"cmp"
	"net/netip"
	"slices"
	"strings"

	"github.com/rocefab/rocefab/intent"
)

// PortRef is one port of one device: a switch port or a host NIC.
type PortRef struct {
	Device string `json:"device"`
	Port   string `json:"port"`
}

func (p PortRef) String() string { return p.Device + " " + p.Port }

// DirLink is a cable in one direction: packets leave From and enter To.
type DirLink struct {
	From PortRef `json:"from"`
	To   PortRef `json:"to"`
}

func (d DirLink) String() string { return d.From.String() + " → " + d.To.String() }

// Reverse is the same cable the other way.
func (d DirLink) Reverse() DirLink { return DirLink{From: d.To, To: d.From} }

// Link is one cable and the addresses of its ends, where known.
type Link struct {
	A, B         PortRef
	AAddr, BAddr netip.Addr
	// Host is set when one end is a host NIC.
	Host bool
}

// Topology is the intent's devices and cabling, indexed for path work.
type Topology struct {
	hosts    map[string]bool
	switches map[string]bool
	links    []Link
	cable    map[PortRef]PortRef    // each end to the other
	addr     map[netip.Addr]PortRef // port and NIC addresses
	nics     map[string][]PortRef   // a host's cabled NICs, in intent order
	nicAddr  map[PortRef]netip.Addr
	adj      map[string][]DirLink // links leaving a device
	leaves   []string             // switches with hosts, sorted
	under    map[string][]string  // leaf -> hosts, sorted
}

// New indexes the resolved intent. Addresses that do not parse (lint
// reports them) are left out.
func New(r *intent.Resolved) *Topology {
	t := &Topology{
		hosts: map[string]bool{}, switches: map[string]bool{}, cable: map[PortRef]PortRef{},
		addr: map[netip.Addr]PortRef{}, nics: map[string][]PortRef{}, nicAddr: map[PortRef]netip.Addr{},
		adj: map[string][]DirLink{}, under: map[string][]string{},
	}
	for _, s := range r.Switches {
		t.switches[s.Name] = true
	}
	nicAddr := map[PortRef]netip.Addr{}
	for _, h := range r.Hosts {
		t.hosts[h.Name] = true
		for _, n := range h.NICs {
			if a, err := netip.ParseAddr(n.Address); err == nil {
				nicAddr[PortRef{h.Name, n.Netdev}] = a.Unmap()
			}
		}
	}
	parse := func(s string) netip.Addr {
		a, err := netip.ParseAddr(strings.TrimSpace(s))
		if err != nil {
			return netip.Addr{}
		}
		return a.Unmap()
	}
	for _, l := range r.Links {
		lk := Link{A: PortRef{l.A.Device, l.A.Port}, B: PortRef{l.B.Device, l.B.Port}, AAddr: parse(l.AAddress), BAddr: parse(l.BAddress)}
		lk.Host = t.hosts[lk.A.Device] || t.hosts[lk.B.Device]
		if _, dup := t.cable[lk.A]; dup {
			continue // cabled twice: lint's RF125
		}
		if _, dup := t.cable[lk.B]; dup {
			continue
		}
		t.links = append(t.links, lk)
		t.cable[lk.A], t.cable[lk.B] = lk.B, lk.A
		for _, end := range []struct {
			p PortRef
			a netip.Addr
		}{{lk.A, lk.AAddr}, {lk.B, lk.BAddr}} {
			a := end.a
			if t.hosts[end.p.Device] {
				a = nicAddr[end.p]
				t.nics[end.p.Device] = append(t.nics[end.p.Device], end.p)
				if a.IsValid() {
					t.nicAddr[end.p] = a
				}
			}
			if a.IsValid() {
				if _, taken := t.addr[a]; !taken {
					t.addr[a] = end.p
				}
			}
		}
		t.adj[lk.A.Device] = append(t.adj[lk.A.Device], DirLink{lk.A, lk.B})
		t.adj[lk.B.Device] = append(t.adj[lk.B.Device], DirLink{lk.B, lk.A})
		if lk.Host {
			host, sw := lk.A, lk.B
			if !t.hosts[host.Device] {
				host, sw = sw, host
			}
			if t.switches[sw.Device] && !slices.Contains(t.under[sw.Device], host.Device) {
				t.under[sw.Device] = append(t.under[sw.Device], host.Device)
			}
		}
	}
	for leaf, hs := range t.under {
		slices.Sort(hs)
		t.leaves = append(t.leaves, leaf)
	}
	slices.Sort(t.leaves)
	return t
}

// IsHost reports whether name is a host of the intent.
func (t *Topology) IsHost(name string) bool { return t.hosts[name] }

// IsSwitch reports whether name is a switch of the intent.
func (t *Topology) IsSwitch(name string) bool { return t.switches[name] }

// Lookup maps an address to the port (or host NIC) that owns it.
func (t *Topology) Lookup(a netip.Addr) (PortRef, bool) {
	p, ok := t.addr[a.Unmap()]
	return p, ok
}

// Peer is the port at the other end of p's cable.
func (t *Topology) Peer(p PortRef) (PortRef, bool) {
	q, ok := t.cable[p]
	return q, ok
}

// Links returns every cable, in intent order.
func (t *Topology) Links() []Link { return t.links }

// FabricLinks returns the switch-to-switch cables, in intent order.
func (t *Topology) FabricLinks() []Link {
	var out []Link
	for _, l := range t.links {
		if !l.Host {
			out = append(out, l)
		}
	}
	return out
}

// Out returns the links leaving device, in intent order.
func (t *Topology) Out(device string) []DirLink { return t.adj[device] }

// Between returns the links from device a to device b.
func (t *Topology) Between(a, b string) []DirLink {
	var out []DirLink
	for _, d := range t.adj[a] {
		if d.To.Device == b {
			out = append(out, d)
		}
	}
	return out
}

// Leaves returns the switches hosts are cabled to, sorted.
func (t *Topology) Leaves() []string { return t.leaves }

// HostsUnder returns the hosts cabled to leaf, sorted.
func (t *Topology) HostsUnder(leaf string) []string { return t.under[leaf] }

// NIC returns the host's cabled NIC that owns addr, else its first cabled
// NIC.
func (t *Topology) NIC(host string, addr netip.Addr) (PortRef, bool) {
	nics := t.nics[host]
	for _, n := range nics {
		if t.nicAddr[n] == addr.Unmap() {
			return n, true
		}
	}
	if len(nics) > 0 {
		return nics[0], true
	}
	return PortRef{}, false
}

// NICAddr is the address of a host's NIC from the intent.
func (t *Topology) NICAddr(p PortRef) (netip.Addr, bool) {
	a, ok := t.nicAddr[p]
	return a, ok
}

// ReturnPath is how a packet from device from travels back to host to on
// shortest paths through the cabling: per step, the links it may take (one
// when the cabling leaves no choice, several under ECMP).
func (t *Topology) ReturnPath(from, to string) [][]DirLink {
	// Distances to the host, by breadth-first search from it.
	dist := map[string]int{to: 0}
	queue := []string{to}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		for _, l := range t.adj[d] {
			if _, seen := dist[l.To.Device]; !seen {
				dist[l.To.Device] = dist[d] + 1
				queue = append(queue, l.To.Device)
			}
		}
	}
	n, ok := dist[from]
	if !ok {
		return nil
	}
	var out [][]DirLink
	level := []string{from}
	for step := n; step > 0; step-- {
		var links []DirLink
		var next []string
		for _, d := range level {
			for _, l := range t.adj[d] {
				if dd, ok := dist[l.To.Device]; ok && dd == step-1 && (l.To.Device == to || !t.hosts[l.To.Device]) {
					links = append(links, l)
					if !slices.Contains(next, l.To.Device) {
						next = append(next, l.To.Device)
					}
				}
			}
		}
		slices.SortFunc(links, func(a, b DirLink) int { return cmp.Compare(a.String(), b.String()) })
		out = append(out, links)
		level = next
	}
	return out
}
