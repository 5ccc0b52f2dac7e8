package sysfstest

import (
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// Tree is a fake /sys rooted at Root.
type Tree struct {
	Root string
	t    testing.TB
}

// New returns an empty tree in t.TempDir().
func New(t testing.TB) *Tree {
	t.Helper()
	return &Tree{Root: t.TempDir(), t: t}
}

// Write creates a file below the root, with its parent directories.
func (tr *Tree) Write(rel, content string) {
	tr.t.Helper()
	p := filepath.Join(tr.Root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tr.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		tr.t.Fatal(err)
	}
}

// Remove deletes a file or directory below the root.
func (tr *Tree) Remove(rel string) {
	tr.t.Helper()
	if err := os.RemoveAll(filepath.Join(tr.Root, rel)); err != nil {
		tr.t.Fatal(err)
	}
}

func (tr *Tree) mkdir(rel string) {
	tr.t.Helper()
	if err := os.MkdirAll(filepath.Join(tr.Root, rel), 0o755); err != nil {
		tr.t.Fatal(err)
	}
}

func (tr *Tree) symlink(target, rel string) {
	tr.t.Helper()
	p := filepath.Join(tr.Root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tr.t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		tr.t.Fatal(err)
	}
}

// GID is one GID table entry.
type GID struct {
	Index  int
	GID    string // sysfs form or any IPv6 text form
	Type   string // "RoCE v2" or "IB/RoCE v1"
	Netdev string
}

// NIC is one RDMA-capable PCI function with a single port and netdev.
type NIC struct {
	Device    string // mlx5_0
	Port      int    // 1
	Netdev    string // ens1f0np0
	PCI       string // 0000:3b:00.0
	Driver    string // mlx5_core
	State     string // "4: ACTIVE"
	PhysState string // "5: LinkUp"
	LinkLayer string // Ethernet
	Rate      string
	MTU       int
	// ActiveMTU writes ports/<n>/active_mtu when non-zero.
	ActiveMTU int
	NUMANode  int
	CurSpeed  string // "16.0 GT/s PCIe"; empty writes no PCIe link files
	CurWidth  int
	MaxSpeed  string
	MaxWidth  int
	GIDs      []GID
	// UnusedGIDs adds empty table entries after the populated ones, as a
	// real table has (zero GID, unreadable type).
	UnusedGIDs int
	HWCounters map[string]uint64
	Counters   map[string]uint64
}

// ConnectX is a healthy ConnectX-6 Dx port: ACTIVE, MTU 9000, PCIe x16 at
// 16 GT/s on NUMA node 0, with the kernel's usual GID table for ip
// (0/1: link-local v1/v2, 2/3: the address as v1/v2).
func ConnectX(device, netdev, ip string) NIC {
	n := NIC{
		Device: device, Port: 1, Netdev: netdev, PCI: "0000:3b:00.0", Driver: "mlx5_core",
		State: "4: ACTIVE", PhysState: "5: LinkUp", LinkLayer: "Ethernet", Rate: "100 Gb/sec (4X EDR)",
		MTU: 9000, NUMANode: 0,
		CurSpeed: "16.0 GT/s PCIe", CurWidth: 16, MaxSpeed: "16.0 GT/s PCIe", MaxWidth: 16,
		UnusedGIDs: 2,
		HWCounters: map[string]uint64{
			"np_cnp_sent": 0, "rp_cnp_handled": 0, "rp_cnp_ignored": 0, "np_ecn_marked_roce_packets": 0,
			"out_of_sequence": 0, "packet_seq_err": 0, "local_ack_timeout_err": 0, "roce_adp_retrans": 0,
			"out_of_buffer": 0, "rx_icrc_encapsulated": 0, "duplicate_request": 0, "implied_nak_seq_err": 0,
		},
		Counters: map[string]uint64{"port_xmit_data": 0, "port_rcv_data": 0, "port_xmit_packets": 0, "port_rcv_packets": 0},
	}
	n.GIDs = []GID{
		{Index: 0, GID: "fe80:0000:0000:0000:0a1b:2cff:fe3d:4e5f", Type: "IB/RoCE v1", Netdev: netdev},
		{Index: 1, GID: "fe80:0000:0000:0000:0a1b:2cff:fe3d:4e5f", Type: "RoCE v2", Netdev: netdev},
	}
	if ip != "" {
		g := SysfsGID(ip)
		n.GIDs = append(n.GIDs,
			GID{Index: 2, GID: g, Type: "IB/RoCE v1", Netdev: netdev},
			GID{Index: 3, GID: g, Type: "RoCE v2", Netdev: netdev})
	}
	return n
}

// SysfsGID prints an IP address as sysfs prints its GID: IPv4 mapped into
// ::ffff:0:0/96, eight groups of four hex digits.
func SysfsGID(ip string) string {
	a := netip.MustParseAddr(ip)
	if a.Is4() {
		a = netip.AddrFrom16(a.As16())
	}
	b := a.As16()
	s := ""
	for i := 0; i < 16; i += 2 {
		if i > 0 {
			s += ":"
		}
		s += fmt.Sprintf("%02x%02x", b[i], b[i+1])
	}
	return s
}

// AddNIC lays out the NIC as the kernel does: the PCI device under
// devices/, class/infiniband and class/net symlinks into it, and the
// device/driver/numa_node/link attributes.
func (tr *Tree) AddNIC(n NIC) {
	tr.t.Helper()
	if n.Port == 0 {
		n.Port = 1
	}
	pciDir := filepath.Join("devices", "pci0000:3a", n.PCI)
	tr.mkdir(filepath.Join("bus", "pci", "drivers", n.Driver))
	tr.symlink(filepath.Join("..", "..", "..", "bus", "pci", "drivers", n.Driver), filepath.Join(pciDir, "driver"))
	tr.Write(filepath.Join(pciDir, "uevent"), fmt.Sprintf("DRIVER=%s\nPCI_SLOT_NAME=%s\n", n.Driver, n.PCI))
	tr.Write(filepath.Join(pciDir, "numa_node"), fmt.Sprintf("%d\n", n.NUMANode))
	if n.CurSpeed != "" {
		tr.Write(filepath.Join(pciDir, "current_link_speed"), n.CurSpeed+"\n")
		tr.Write(filepath.Join(pciDir, "current_link_width"), fmt.Sprintf("%d\n", n.CurWidth))
		tr.Write(filepath.Join(pciDir, "max_link_speed"), n.MaxSpeed+"\n")
		tr.Write(filepath.Join(pciDir, "max_link_width"), fmt.Sprintf("%d\n", n.MaxWidth))
	}

	// RDMA device.
	ib := filepath.Join(pciDir, "infiniband", n.Device)
	tr.symlink(filepath.Join("..", "..", "..", n.PCI), filepath.Join(ib, "device"))
	tr.symlink(filepath.Join("..", "..", ib), filepath.Join("class", "infiniband", n.Device))
	port := filepath.Join(ib, "ports", strconv.Itoa(n.Port))
	tr.Write(filepath.Join(port, "state"), n.State+"\n")
	tr.Write(filepath.Join(port, "phys_state"), n.PhysState+"\n")
	tr.Write(filepath.Join(port, "link_layer"), n.LinkLayer+"\n")
	tr.Write(filepath.Join(port, "rate"), n.Rate+"\n")
	if n.ActiveMTU != 0 {
		tr.Write(filepath.Join(port, "active_mtu"), fmt.Sprintf("%d\n", n.ActiveMTU))
	}
	last := -1
	for _, g := range n.GIDs {
		tr.Write(filepath.Join(port, "gids", strconv.Itoa(g.Index)), g.GID+"\n")
		tr.Write(filepath.Join(port, "gid_attrs", "types", strconv.Itoa(g.Index)), g.Type+"\n")
		tr.Write(filepath.Join(port, "gid_attrs", "ndevs", strconv.Itoa(g.Index)), g.Netdev+"\n")
		last = max(last, g.Index)
	}
	for i := 1; i <= n.UnusedGIDs; i++ {
		// Unused entries: the zero GID, and no readable type or netdev.
		tr.Write(filepath.Join(port, "gids", strconv.Itoa(last+i)), "0000:0000:0000:0000:0000:0000:0000:0000\n")
	}
	for name, v := range n.HWCounters {
		tr.Write(filepath.Join(port, "hw_counters", name), fmt.Sprintf("%d\n", v))
	}
	if n.HWCounters != nil {
		tr.Write(filepath.Join(port, "hw_counters", "lifespan"), "10\n")
	}
	for name, v := range n.Counters {
		tr.Write(filepath.Join(port, "counters", name), fmt.Sprintf("%d\n", v))
	}

	// Netdev.
	if n.Netdev != "" {
		nd := filepath.Join(pciDir, "net", n.Netdev)
		tr.Write(filepath.Join(nd, "mtu"), fmt.Sprintf("%d\n", n.MTU))
		tr.Write(filepath.Join(nd, "operstate"), "up\n")
		tr.Write(filepath.Join(nd, "dev_port"), fmt.Sprintf("%d\n", n.Port-1))
		tr.symlink(filepath.Join("..", "..", nd), filepath.Join("class", "net", n.Netdev))
	}
}

// SetCounter rewrites one port counter, e.g. "hw_counters/np_cnp_sent".
func (tr *Tree) SetCounter(device string, port int, name string, v uint64) {
	tr.t.Helper()
	tr.Write(filepath.Join("class", "infiniband", device, "ports", strconv.Itoa(port), name), fmt.Sprintf("%d\n", v))
}

// SetPort rewrites a port attribute ("state", "phys_state", "active_mtu").
func (tr *Tree) SetPort(device string, port int, attr, value string) {
	tr.t.Helper()
	tr.Write(filepath.Join("class", "infiniband", device, "ports", strconv.Itoa(port), attr), value+"\n")
}

// SetNetdev rewrites a netdev attribute ("mtu", "operstate").
func (tr *Tree) SetNetdev(netdev, attr, value string) {
	tr.t.Helper()
	tr.Write(filepath.Join("class", "net", netdev, attr), value+"\n")
}

// SetDevice rewrites an attribute of the NIC's PCI function ("numa_node",
// "current_link_width", ...).
func (tr *Tree) SetDevice(device, attr, value string) {
	tr.t.Helper()
	tr.Write(filepath.Join("class", "infiniband", device, "device", attr), value+"\n")
}

// Modules are the kernel modules a ConnectX RoCE host has loaded.
var Modules = []string{"ib_core", "ib_uverbs", "rdma_cm", "rdma_ucm", "ib_cm", "iw_cm", "mlx5_core", "mlx5_ib"}

// AddModules marks modules as loaded (/sys/module/<name>).
func (tr *Tree) AddModules(names ...string) {
	tr.t.Helper()
	for _, m := range names {
		tr.Write(filepath.Join("module", m, "refcnt"), "1\n")
	}
}
