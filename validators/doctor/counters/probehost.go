package counters

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"

	"github.com/rocefab/rocefab/validators/doctor/rdmasys"
)

// HostReport is what one host's NIC counters did during a probe run.
type HostReport struct {
	Host string `json:"host"`
	// NICs are the netdevs the probe sent from; Ports the RDMA ports of
	// those NICs whose hw_counters were read.
	NICs  []string `json:"nics"`
	Ports []string `json:"ports,omitempty"`
	// Unavailable says, once, which counters this host's NIC does not
	// have (a veth, a NIC without RDMA or without per-priority statistics).
	Unavailable string `json:"unavailable,omitempty"`
	// Counters are every lossless counter read (pause, discards and ECN
	// marks per priority, the RoCE congestion and retransmission
	// counters), moved or not, and any other error or congestion counter
	// that moved, with before, after and delta.
	Counters []Change `json:"counters"`
	Errors   []string `json:"errors,omitempty"`
}

// Moved returns the counters that changed during the run.
func (r HostReport) Moved() []Change {
	var out []Change
	for _, c := range r.Counters {
		if c.Delta != 0 || c.Reset {
			out = append(out, c)
		}
	}
	return out
}

// HostProbe reads one host's NIC counters around a probe run.
type HostProbe struct {
	Host        string
	NICs, Ports []string
	Unavailable string
	src         Source // nil: nothing to read
}

// NewHostProbe works out what can be read for the netdevs the probe uses:
// each one's RDMA ports (hw_counters in sysfs) and its ethtool statistics
// (stats may be nil). What a NIC lacks goes into Unavailable, once.
func NewHostProbe(host string, sys rdmasys.FS, stats StatsReader, netdevs []string) *HostProbe {
	h := &HostProbe{Host: host, NICs: slices.Clone(netdevs)}
	src := HostSource{Host: host, Sys: sys, Stats: stats}
	devs, devErr := sys.Devices()
	var missing []string
	for _, nd := range netdevs {
		var lacks []string
		ports := 0
		for _, d := range devs {
			for _, p := range d.Ports {
				if p.Netdev == nd && (p.LinkLayer == "" || p.LinkLayer == "Ethernet") {
					src.Ports = append(src.Ports, HostPort{Device: d.Name, Port: p.Num, Netdev: nd})
					h.Ports = append(h.Ports, PortName(d.Name, p.Num))
					ports++
				}
			}
		}
		if ports == 0 {
			// Ethtool statistics are still read for a netdev without RDMA.
			src.Ports = append(src.Ports, HostPort{Netdev: nd})
			what := "no RDMA device (so no hw_counters)"
			if devErr != nil {
				what = "no readable RDMA device (" + devErr.Error() + ")"
			}
			lacks = append(lacks, what)
		}
		switch names, err := ethtoolNames(stats, nd); {
		case err != nil:
			lacks = append(lacks, "no ethtool statistics ("+err.Error()+")")
		case !slices.ContainsFunc(names, func(n string) bool { return Lossless(PrefixEthtool + n) }):
			lacks = append(lacks, "no per-priority pause, discard or ECN-mark counters in its ethtool statistics")
		}
		if len(lacks) > 0 {
			missing = append(missing, nd+" has "+strings.Join(lacks, " and "))
		}
	}
	if len(missing) > 0 {
		h.Unavailable = "unavailable on this NIC: " + strings.Join(missing, "; ")
	}
	if len(src.Ports) > 0 {
		h.src = src
	}
	return h
}

func ethtoolNames(stats StatsReader, netdev string) ([]string, error) {
	if stats == nil {
		return nil, errors.New("ethtool not available")
	}
	s, err := stats.Stats(netdev)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(s))
	for n := range s {
		names = append(names, n)
	}
	return names, nil
}

// Start reads the counters before the run. The function it returns reads
// them again after the run and reports the deltas.
func (h *HostProbe) Start(ctx context.Context) func(context.Context) HostReport {
	rep := HostReport{Host: h.Host, NICs: h.NICs, Ports: h.Ports, Unavailable: h.Unavailable, Counters: []Change{}}
	if h.src == nil {
		return func(context.Context) HostReport { return rep }
	}
	s := Sampler{Sources: []Source{h.src}}
	before, err := s.Snapshot(ctx)
	return func(ctx context.Context) HostReport {
		if err != nil {
			rep.Errors = append(rep.Errors, err.Error())
			return rep
		}
		after, err := s.Snapshot(ctx)
		if err != nil {
			rep.Errors = append(rep.Errors, err.Error())
			return rep
		}
		rep.Errors = append(rep.Errors, before.Errors...)
		for k, a := range after.Values {
			b, ok := before.Values[k]
			if !ok {
				continue
			}
			c := Change{Key: k, Label: Label(k.Counter), Kind: KindOf(k.Counter), Before: b, After: a}
			if a < b {
				c.Reset, c.Delta = true, a
			} else {
				c.Delta = a - b
			}
			if Lossless(k.Counter) || (c.Kind != KindTraffic && (c.Delta != 0 || c.Reset)) {
				rep.Counters = append(rep.Counters, c)
			}
		}
		slices.SortFunc(rep.Counters, func(x, y Change) int {
			return strings.Compare(x.Port+" "+x.Counter, y.Port+" "+y.Counter)
		})
		return rep
	}
}

// NICsFor returns the netdevs holding the source address this host uses
// towards each destination: a connected UDP socket makes the kernel pick
// the route and source, and nothing is sent. Call it in the namespace the
// probe runs in.
func NICsFor(dsts []netip.Addr) ([]string, error) {
	ifs, err := net.Interfaces()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, dst := range dsts {
		c, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(netip.AddrPortFrom(dst, 9)))
		if err != nil {
			return out, fmt.Errorf("route to %s: %w", dst, err)
		}
		src := c.LocalAddr().(*net.UDPAddr).AddrPort().Addr().Unmap()
		c.Close()
		nd := netdevWith(ifs, src)
		if nd == "" {
			return out, fmt.Errorf("no interface holds %s, the source address towards %s", src, dst)
		}
		if !slices.Contains(out, nd) {
			out = append(out, nd)
		}
	}
	return out, nil
}

func netdevWith(ifs []net.Interface, a netip.Addr) string {
	for _, ifc := range ifs {
		addrs, _ := ifc.Addrs()
		for _, x := range addrs {
			if n, ok := x.(*net.IPNet); ok {
				if ip, ok := netip.AddrFromSlice(n.IP); ok && ip.Unmap() == a {
					return ifc.Name
				}
			}
		}
	}
	return ""
}
