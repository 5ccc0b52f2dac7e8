package rdmasys

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net/netip"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// GID types as the kernel writes them to gid_attrs/types/<i>.
const (
	TypeRoCEv2 = "RoCE v2"
	TypeRoCEv1 = "IB/RoCE v1"
)

// FS reads sysfs below Root ("/sys" on a real host).
type FS struct {
	Root string
}

// New returns an FS rooted at root; "" means /sys.
func New(root string) FS {
	if root == "" {
		root = "/sys"
	}
	return FS{Root: root}
}

// Device is one RDMA device (/sys/class/infiniband/<name>).
type Device struct {
	Name   string `json:"name"`
	Driver string `json:"driver,omitempty"`
	// Netdevs are the network devices of the same PCI function.
	Netdevs []string `json:"netdevs,omitempty"`
	Ports   []Port   `json:"ports"`
	// NUMANode is the NIC's NUMA node; -1 when the platform reports none.
	NUMANode int `json:"numaNode"`
	PCI      PCI `json:"pci"`
}

// Port is one port of an RDMA device.
type Port struct {
	Device    string `json:"device"`
	Num       int    `json:"port"`
	State     string `json:"state"`     // ACTIVE, DOWN, INIT, ARMED
	PhysState string `json:"physState"` // LinkUp, Disabled, Polling
	LinkLayer string `json:"linkLayer,omitempty"`
	Rate      string `json:"rate,omitempty"`
	// ActiveMTU is ports/<n>/active_mtu where the driver exposes it, else 0.
	ActiveMTU int    `json:"activeMtu,omitempty"`
	Netdev    string `json:"netdev,omitempty"`
	GIDs      []GID  `json:"gids,omitempty"`
}

// Name is "mlx5_0 port 1".
func (p Port) Name() string { return fmt.Sprintf("%s port %d", p.Device, p.Num) }

// Active reports whether the port state is ACTIVE.
func (p Port) Active() bool { return p.State == "ACTIVE" }

// GID is one populated GID table entry.
type GID struct {
	Index  int        `json:"index"`
	GID    netip.Addr `json:"gid"`
	Type   string     `json:"type"`
	Netdev string     `json:"netdev,omitempty"`
}

// V2 reports whether the entry is a RoCE v2 GID.
func (g GID) V2() bool { return g.Type == TypeRoCEv2 }

// IP is the address the GID carries: IPv4 for IPv4-mapped GIDs.
func (g GID) IP() netip.Addr { return g.GID.Unmap() }

// Routable reports whether the GID carries an address other than the
// link-local one derived from the MAC, which RoCE v2 cannot route.
func (g GID) Routable() bool {
	ip := g.IP()
	return ip.IsValid() && !ip.IsLinkLocalUnicast() && !ip.IsUnspecified()
}

// PCI is the PCIe link of the NIC's function.
type PCI struct {
	Address  string  `json:"address,omitempty"`
	CurSpeed string  `json:"currentSpeed,omitempty"` // "8.0 GT/s"
	CurGTs   float64 `json:"-"`
	CurWidth int     `json:"currentWidth,omitempty"`
	MaxSpeed string  `json:"maxSpeed,omitempty"`
	MaxGTs   float64 `json:"-"`
	MaxWidth int     `json:"maxWidth,omitempty"`
	Reported bool    `json:"reported"`
	Unknown  bool    `json:"-"` // the link reports "Unknown" (down or in reset)
}

func (f FS) path(elem ...string) string {
	return filepath.Join(append([]string{f.Root}, elem...)...)
}

// readString returns a sysfs attribute without the trailing newline.
func (f FS) readString(elem ...string) (string, error) {
	b, err := os.ReadFile(f.path(elem...))
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

func (f FS) readInt(elem ...string) (int, error) {
	s, err := f.readString(elem...)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(s)
}

// Devices lists every RDMA device. No class directory means no devices and
// no error: that is what a host without the RDMA stack looks like.
func (f FS) Devices() ([]Device, error) {
	entries, err := os.ReadDir(f.path("class", "infiniband"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list RDMA devices: %w", err)
	}
	var out []Device
	for _, e := range entries {
		d, err := f.Device(e.Name())
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// Device reads one RDMA device.
func (f FS) Device(name string) (Device, error) {
	base := []string{"class", "infiniband", name}
	if _, err := os.Stat(f.path(base...)); err != nil {
		return Device{}, fmt.Errorf("RDMA device %s: %w", name, err)
	}
	d := Device{Name: name, NUMANode: -1}
	d.Driver = f.driver(base)
	if n, err := f.readInt(append(base, "device", "numa_node")...); err == nil {
		d.NUMANode = n
	}
	d.PCI = f.pci(base)
	if nets, err := os.ReadDir(f.path(append(base, "device", "net")...)); err == nil {
		for _, n := range nets {
			d.Netdevs = append(d.Netdevs, n.Name())
		}
	}
	ports, err := os.ReadDir(f.path(append(base, "ports")...))
	if err != nil {
		return Device{}, fmt.Errorf("RDMA device %s: list ports: %w", name, err)
	}
	for _, pe := range ports {
		num, err := strconv.Atoi(pe.Name())
		if err != nil {
			continue
		}
		d.Ports = append(d.Ports, f.port(d, num))
	}
	sort.Slice(d.Ports, func(i, j int) bool { return d.Ports[i].Num < d.Ports[j].Num })
	return d, nil
}

// driver is the kernel driver bound to the NIC's PCI function.
func (f FS) driver(base []string) string {
	if uevent, err := f.readString(append(base, "device", "uevent")...); err == nil {
		for _, line := range strings.Split(uevent, "\n") {
			if v, ok := strings.CutPrefix(line, "DRIVER="); ok {
				return v
			}
		}
	}
	if target, err := os.Readlink(f.path(append(base, "device", "driver")...)); err == nil {
		return filepath.Base(target)
	}
	return ""
}

func (f FS) pci(base []string) PCI {
	dev := append(base, "device")
	var p PCI
	if target, err := os.Readlink(f.path(dev...)); err == nil {
		p.Address = filepath.Base(target)
	}
	cur, errC := f.readString(append(dev, "current_link_speed")...)
	maxS, errM := f.readString(append(dev, "max_link_speed")...)
	cw, errCW := f.readInt(append(dev, "current_link_width")...)
	mw, errMW := f.readInt(append(dev, "max_link_width")...)
	if errC != nil || errM != nil || errCW != nil || errMW != nil {
		return p
	}
	p.Reported = true
	p.CurSpeed, p.MaxSpeed = trimPCIe(cur), trimPCIe(maxS)
	p.CurWidth, p.MaxWidth = cw, mw
	var okC, okM bool
	p.CurGTs, okC = ParseGTs(cur)
	p.MaxGTs, okM = ParseGTs(maxS)
	p.Unknown = !okC || !okM
	return p
}

// trimPCIe drops the " PCIe" suffix newer kernels append ("16.0 GT/s PCIe").
func trimPCIe(s string) string { return strings.TrimSpace(strings.TrimSuffix(s, "PCIe")) }

// ParseGTs reads a PCIe link speed such as "8.0 GT/s", "16.0 GT/s PCIe" or
// the old "2.5 GT/s" forms; "Unknown" and garbage give false.
func ParseGTs(s string) (float64, bool) {
	f := strings.Fields(s)
	if len(f) < 2 || f[1] != "GT/s" {
		return 0, false
	}
	v, err := strconv.ParseFloat(f[0], 64)
	// !(v > 0) also rejects NaN, which compares false with every speed.
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

func (f FS) port(d Device, num int) Port {
	base := []string{"class", "infiniband", d.Name, "ports", strconv.Itoa(num)}
	p := Port{Device: d.Name, Num: num}
	p.State = stateName(f.readOr(append(base, "state")...))
	p.PhysState = stateName(f.readOr(append(base, "phys_state")...))
	p.LinkLayer = f.readOr(append(base, "link_layer")...)
	p.Rate = f.readOr(append(base, "rate")...)
	if m, err := f.readInt(append(base, "active_mtu")...); err == nil {
		p.ActiveMTU = m
	}
	p.GIDs = f.gids(base)
	p.Netdev = f.portNetdev(d, num, p.GIDs)
	return p
}

func (f FS) readOr(elem ...string) string {
	s, _ := f.readString(elem...)
	return s
}

// stateName turns "4: ACTIVE" into "ACTIVE".
func stateName(s string) string {
	if _, name, ok := strings.Cut(s, ":"); ok {
		return strings.TrimSpace(name)
	}
	return strings.TrimSpace(s)
}

// gids reads the populated GID entries. Unused entries read as the zero GID,
// and their type file fails to read; both are skipped.
func (f FS) gids(base []string) []GID {
	entries, err := os.ReadDir(f.path(append(base, "gids")...))
	if err != nil {
		return nil
	}
	var out []GID
	for _, e := range entries {
		idx, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, err := f.readString(append(base, "gids", e.Name())...)
		if err != nil {
			continue
		}
		addr, err := ParseGID(raw)
		if err != nil || addr.IsUnspecified() {
			continue
		}
		typ, err := f.readString(append(base, "gid_attrs", "types", e.Name())...)
		if err != nil {
			continue
		}
		ndev, _ := f.readString(append(base, "gid_attrs", "ndevs", e.Name())...)
		out = append(out, GID{Index: idx, GID: addr, Type: typ, Netdev: ndev})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Index < out[j].Index })
	return out
}

// portNetdev finds the netdev of a port: the only netdev of the function,
// else the one whose dev_port matches, else the netdev of GID 0.
func (f FS) portNetdev(d Device, num int, gids []GID) string {
	if len(d.Netdevs) == 1 {
		return d.Netdevs[0]
	}
	for _, n := range d.Netdevs {
		if dp, err := f.readInt("class", "net", n, "dev_port"); err == nil && dp == num-1 {
			return n
		}
	}
	for _, g := range gids {
		if g.Index == 0 && g.Netdev != "" {
			return g.Netdev
		}
	}
	return ""
}

// ParseGID reads a GID as sysfs prints it
// ("0000:0000:0000:0000:0000:ffff:0a00:010b") or in any IPv6 text form.
func ParseGID(s string) (netip.Addr, error) {
	a, err := netip.ParseAddr(strings.TrimSpace(s))
	if err != nil {
		return netip.Addr{}, fmt.Errorf("GID %q: %w", s, err)
	}
	if !a.Is6() {
		return netip.Addr{}, fmt.Errorf("GID %q is not 128 bits", s)
	}
	if a.Zone() != "" {
		return netip.Addr{}, fmt.Errorf("GID %q carries an IPv6 zone; a GID has none", s)
	}
	return a, nil
}

// FindGID returns the GID entry of type typ carrying ip. IPv4 addresses
// match their IPv4-mapped GID (::ffff:a.b.c.d).
func FindGID(gids []GID, ip netip.Addr, typ string) (GID, bool) {
	ip = ip.Unmap()
	for _, g := range gids {
		if g.Type == typ && g.IP() == ip {
			return g, true
		}
	}
	return GID{}, false
}

// NetdevMTU is /sys/class/net/<netdev>/mtu.
func (f FS) NetdevMTU(netdev string) (int, error) {
	m, err := f.readInt("class", "net", netdev, "mtu")
	if err != nil {
		return 0, fmt.Errorf("netdev %s: read MTU: %w", netdev, err)
	}
	return m, nil
}

// NetdevExists reports whether /sys/class/net/<netdev> exists.
func (f FS) NetdevExists(netdev string) bool {
	_, err := os.Stat(f.path("class", "net", netdev))
	return err == nil
}

// Module reports whether a kernel module is loaded or built in
// (/sys/module/<name>).
func (f FS) Module(name string) bool {
	_, err := os.Stat(f.path("module", name))
	return err == nil
}

// PortCounters reads every numeric file under ports/<n>/hw_counters and
// ports/<n>/counters, keyed "hw_counters/<name>" and "counters/<name>".
func (f FS) PortCounters(dev string, port int) (map[string]uint64, error) {
	base := []string{"class", "infiniband", dev, "ports", strconv.Itoa(port)}
	out := map[string]uint64{}
	found := false
	for _, dir := range []string{"hw_counters", "counters"} {
		entries, err := os.ReadDir(f.path(append(base, dir)...))
		if err != nil {
			continue
		}
		found = true
		for _, e := range entries {
			if e.IsDir() || e.Name() == "lifespan" {
				continue
			}
			s, err := f.readString(append(base, dir, e.Name())...)
			if err != nil {
				continue // some counters are not readable on every firmware
			}
			v, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				continue
			}
			out[dir+"/"+e.Name()] = v
		}
	}
	if !found {
		return nil, fmt.Errorf("%s port %d: no hw_counters or counters directory", dev, port)
	}
	return out, nil
}

// RoCEActiveMTU is the RoCE MTU (256…4096) a netdev MTU allows. The kernel
// (iboe_get_mtu) subtracts the GRH, UDP, BTH, extension headers and ICRC
// (96 bytes) and takes the largest IB MTU that fits, so 4096 needs an IP
// MTU of 4192 or more; 4200 is the usual round figure.
func RoCEActiveMTU(netMTU int) int {
	const overhead = 40 + 8 + 12 + 4 + 28 + 4
	avail := netMTU - overhead
	for _, m := range []int{4096, 2048, 1024, 512, 256} {
		if avail >= m {
			return m
		}
	}
	return 0
}

// MinMTUFor4096 is the smallest netdev MTU with a 4096-byte RoCE MTU.
const MinMTUFor4096 = 4096 + 96
