package doctor

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"os/exec"
	"slices"
	"sort"
	"strings"

	"go.uber.org/zap"

	"github.com/rocefab/rocefab/validators/doctor/counters"
	"github.com/rocefab/rocefab/validators/doctor/rdmasys"
)

// PauseReader reads a netdev's 802.3x pause parameters (ETHTOOL_GPAUSEPARAM).
// counters.Ethtool implements it; tests use a fake.
type PauseReader interface {
	Pause(netdev string) (counters.Pause, error)
}

// Doctor runs the checklist against one host's sysfs.
type Doctor struct {
	Sys rdmasys.FS
	// Pause reads pause parameters; nil reports the pause check as not run.
	Pause PauseReader
	// LookPath finds userspace tools; default exec.LookPath.
	LookPath func(string) (string, error)
	Log      *zap.Logger
}

// port is one RDMA port under check and the NIC it stands for.
type port struct {
	dev  *rdmasys.Device
	port rdmasys.Port
	nic  NIC
}

func (p port) subject() string {
	nd := p.port.Netdev
	if nd == "" {
		nd = p.nic.Netdev
	}
	if nd == "" {
		return p.port.Name()
	}
	return fmt.Sprintf("%s (%s)", p.port.Name(), nd)
}

// Run checks the host and returns its report. It never returns a nil
// report; a sysfs that cannot be read is a failed check, not a crash.
func (d *Doctor) Run(_ context.Context, t Target) *Report {
	log := d.Log
	if log == nil {
		log = zap.NewNop()
	}
	r := NewReport(t.Host)
	devs, err := d.Sys.Devices()
	if err != nil {
		r.Add(Result{Check: CheckDevices, Status: Fail, Message: err.Error(),
			Fix: "check that sysfs is mounted at " + d.Sys.Root + " and readable"})
		return r
	}
	r.Devices = append(r.Devices, devs...)
	log.Debug("RDMA devices", zap.Int("count", len(devs)), zap.String("sysfs", d.Sys.Root))

	ports := d.selectPorts(r, devs, t)
	for _, p := range ports {
		d.checkPort(r, p, t.Expect)
	}
	seen := map[string]bool{}
	for _, p := range ports {
		if !seen[p.dev.Name] {
			seen[p.dev.Name] = true
			checkNUMA(r, p.dev, t.Expect)
			checkPCIe(r, p.dev)
		}
	}
	d.checkModules(r, devs)
	d.checkTools(r)
	return r
}

// selectPorts maps the target's NICs to RDMA ports, or takes every RoCE
// port when the target names none.
func (d *Doctor) selectPorts(r *Report, devs []rdmasys.Device, t Target) []port {
	if len(devs) == 0 {
		r.Add(Result{Check: CheckDevices, Status: Fail, Message: "no RDMA devices found",
			Fix: "load the NIC's RDMA driver (e.g. modprobe mlx5_ib for ConnectX) and rdma-core; a NIC without RoCE support, or a VM without an RDMA function, cannot run RoCE"})
		return nil
	}
	names := make([]string, 0, len(devs))
	for _, dv := range devs {
		names = append(names, dv.Name)
	}
	r.Add(Result{Check: CheckDevices, Status: Pass, Message: fmt.Sprintf("%d RDMA device(s): %s", len(devs), strings.Join(names, ", "))})

	var out []port
	if len(t.NICs) == 0 {
		for i := range devs {
			for _, p := range devs[i].Ports {
				if p.LinkLayer != "" && p.LinkLayer != "Ethernet" {
					r.Add(Result{Check: CheckLinkLayer, Subject: p.Name(), Status: Pass,
						Message: fmt.Sprintf("link layer %s, not RoCE: not checked", p.LinkLayer)})
					continue
				}
				out = append(out, port{dev: &devs[i], port: p, nic: NIC{Netdev: p.Netdev}})
			}
		}
		if len(out) == 0 {
			r.Add(Result{Check: CheckLinkLayer, Status: Fail, Message: "no RDMA port runs over Ethernet (RoCE)",
				Fix: "switch the ports to Ethernet (mlxconfig -d <pci> set LINK_TYPE_P1=2, then reboot) or use an RoCE-capable NIC"})
		}
		return out
	}
	for _, nic := range t.NICs {
		p, ok := findPort(devs, nic)
		if !ok {
			where := nic.Netdev
			if nic.RDMADevice != "" {
				where = fmt.Sprintf("%s (RDMA device %s port %d)", nic.Netdev, nic.RDMADevice, max(nic.RDMAPort, 1))
			}
			r.Add(Result{Check: CheckNIC, Subject: nic.Netdev, Status: Fail,
				Message: fmt.Sprintf("no RDMA port found for %s; RDMA devices here: %s", where, strings.Join(names, ", ")),
				Fix:     "check the netdev and rdmaDevice names in the intent against `rdma link show`, and that the NIC's RDMA driver is loaded"})
			continue
		}
		p.nic = nic
		out = append(out, p)
	}
	return out
}

func findPort(devs []rdmasys.Device, nic NIC) (port, bool) {
	want := max(nic.RDMAPort, 1)
	for i := range devs {
		dv := &devs[i]
		if nic.RDMADevice != "" && dv.Name != nic.RDMADevice {
			continue
		}
		for _, p := range dv.Ports {
			if nic.RDMADevice != "" {
				if p.Num == want {
					return port{dev: dv, port: p}, true
				}
				continue
			}
			if p.Netdev == nic.Netdev || (len(dv.Ports) == 1 && slices.Contains(dv.Netdevs, nic.Netdev)) {
				return port{dev: dv, port: p}, true
			}
			// A VLAN netdev on the port shows up in the GID table's ndevs.
			for _, g := range p.GIDs {
				if g.Netdev == nic.Netdev {
					return port{dev: dv, port: p}, true
				}
			}
		}
	}
	return port{}, false
}

func (d *Doctor) checkPort(r *Report, p port, exp Expect) {
	subj := p.subject()
	if p.port.Active() {
		r.Add(Result{Check: CheckPortState, Subject: subj, Status: Pass, Message: "port ACTIVE (" + p.port.PhysState + ")"})
	} else {
		nd := p.port.Netdev
		if nd == "" {
			nd = "<netdev>"
		}
		r.Add(Result{Check: CheckPortState, Subject: subj, Status: Fail,
			Message: fmt.Sprintf("port is %s (physical state %s)", orUnknown(p.port.State), orUnknown(p.port.PhysState)),
			Fix:     fmt.Sprintf("bring the link up: check the cable and the switch port, then `ip link set dev %s up`; `rdma link show` must say state ACTIVE", nd)})
	}
	if p.port.LinkLayer != "" && p.port.LinkLayer != "Ethernet" {
		r.Add(Result{Check: CheckLinkLayer, Subject: subj, Status: Fail,
			Message: fmt.Sprintf("link layer is %s, not Ethernet: this port runs InfiniBand, not RoCE", p.port.LinkLayer),
			Fix:     "switch the port to Ethernet (mlxconfig -d <pci> set LINK_TYPE_P1=2, then reboot)"})
	}
	checkGID(r, p, exp)
	d.checkMTU(r, p, exp)
	d.checkPause(r, p, exp)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// checkGID: RoCE v2 needs a GID carrying the NIC's IP, of type "RoCE v2".
func checkGID(r *Report, p port, exp Expect) {
	subj := p.subject()
	wantType, otherType := rdmasys.TypeRoCEv2, rdmasys.TypeRoCEv1
	if exp.RoCEMode == "v1" {
		wantType, otherType = rdmasys.TypeRoCEv1, rdmasys.TypeRoCEv2
	}
	var hasWanted, hasOther bool
	for _, g := range p.port.GIDs {
		hasWanted = hasWanted || g.Type == wantType
		hasOther = hasOther || g.Type == otherType
	}
	nd := p.port.Netdev
	if p.nic.Netdev != "" {
		nd = p.nic.Netdev
	}
	if !hasWanted && hasOther && wantType == rdmasys.TypeRoCEv2 {
		r.Add(Result{Check: CheckGID, Subject: subj, Status: Fail,
			Message: "the NIC offers only RoCE v1 (IB/RoCE v1) GIDs: wrong RoCE mode, RoCE v1 cannot be routed across an L3 fabric",
			Fix: "enable RoCE v2: on ConnectX-3 Pro load mlx4_core with roce_mode=2 (or update the firmware); newer NICs list both types, " +
				"so a v1-only table means an old driver or firmware. Then make v2 the rdma_cm default: cma_roce_mode -d " + p.port.Device + " -p " + fmt.Sprint(p.port.Num) + " -m 2"})
		return
	}
	if p.nic.Address == "" {
		var v2 []string
		for _, g := range p.port.GIDs {
			if g.Type == wantType && g.Routable() {
				v2 = append(v2, fmt.Sprintf("%d (%s)", g.Index, g.IP()))
			}
		}
		if len(v2) == 0 {
			r.Add(Result{Check: CheckGID, Subject: subj, Status: Fail,
				Message: fmt.Sprintf("no %s GID with an IP address: RoCE v2 is routed on the port's IP and there is none", wantType),
				Fix:     fmt.Sprintf("assign the RoCE IP address to %s (ip addr add <ip>/<len> dev %s); the kernel adds its RoCE v2 GID by itself", orUnknown(nd), orUnknown(nd))})
			return
		}
		r.Add(Result{Check: CheckGID, Subject: subj, Status: Pass, Message: fmt.Sprintf("%s GID index %s", wantType, strings.Join(v2, ", "))})
		return
	}
	ip, err := netip.ParseAddr(p.nic.Address)
	if err != nil {
		if pfx, perr := netip.ParsePrefix(p.nic.Address); perr == nil {
			ip, err = pfx.Addr(), nil
		}
	}
	if err != nil {
		r.Add(Result{Check: CheckGID, Subject: subj, Status: Fail, Message: fmt.Sprintf("NIC address %q in the intent is not an IP address", p.nic.Address),
			Fix: "write the NIC's RoCE IP as address: 10.0.1.11 in the intent"})
		return
	}
	if g, ok := rdmasys.FindGID(p.port.GIDs, ip, wantType); ok {
		msg := fmt.Sprintf("%s GID index %d carries %s", wantType, g.Index, ip)
		if g.Netdev != "" {
			msg += " on " + g.Netdev
		}
		r.Add(Result{Check: CheckGID, Subject: subj, Status: Pass, Message: msg})
		return
	}
	fix := fmt.Sprintf("assign %s to %s (ip addr add %s/<len> dev %s); the kernel then adds its RoCE v2 GID. If RoCE runs on a VLAN, the address belongs on the VLAN netdev of this port", ip, orUnknown(nd), ip, orUnknown(nd))
	if g, ok := rdmasys.FindGID(p.port.GIDs, ip, otherType); ok {
		r.Add(Result{Check: CheckGID, Subject: subj, Status: Fail,
			Message: fmt.Sprintf("%s has only a %s GID (index %d), no %s GID: wrong RoCE mode", ip, otherType, g.Index, wantType), Fix: fix})
		return
	}
	r.Add(Result{Check: CheckGID, Subject: subj, Status: Fail,
		Message: fmt.Sprintf("no %s GID for %s: the address is not on this port's netdev", wantType, ip), Fix: fix})
}

func (d *Doctor) checkMTU(r *Report, p port, exp Expect) {
	subj := p.subject()
	nd := p.port.Netdev
	if p.nic.Netdev != "" && d.Sys.NetdevExists(p.nic.Netdev) {
		nd = p.nic.Netdev
	}
	if nd == "" {
		r.Add(Result{Check: CheckMTU, Subject: subj, Status: Warn, Message: "no netdev found for the port: MTU not checked",
			Fix: "name the netdev in the intent (nics: - netdev: ...)"})
		return
	}
	mtu, err := d.Sys.NetdevMTU(nd)
	if err != nil {
		r.Add(Result{Check: CheckMTU, Subject: subj, Status: Warn, Message: err.Error()})
		return
	}
	source := "rocefab's default"
	if exp.FromIntent {
		source = "the intent"
	}
	switch {
	case exp.HostMTU > 0 && mtu < exp.HostMTU:
		r.Add(Result{Check: CheckMTU, Subject: subj, Status: Fail,
			Message: fmt.Sprintf("MTU %d on %s is below %d, which %s asks for", mtu, nd, exp.HostMTU, source),
			Fix:     fmt.Sprintf("ip link set dev %s mtu %d, and persist it in the network configuration (or run rocefab host apply)", nd, exp.HostMTU)})
	case exp.HostMTU > 0 && mtu > exp.HostMTU:
		r.Add(Result{Check: CheckMTU, Subject: subj, Status: Warn,
			Message: fmt.Sprintf("MTU %d on %s is above %d, which %s asks for: frames larger than the switches expect may be dropped", mtu, nd, exp.HostMTU, source),
			Fix:     fmt.Sprintf("ip link set dev %s mtu %d", nd, exp.HostMTU)})
	default:
		r.Add(Result{Check: CheckMTU, Subject: subj, Status: Pass, Message: fmt.Sprintf("MTU %d on %s", mtu, nd)})
	}

	allowed := rdmasys.RoCEActiveMTU(mtu)
	switch {
	case p.port.ActiveMTU != 0 && p.port.ActiveMTU < allowed:
		r.Add(Result{Check: CheckRoCEMTU, Subject: subj, Status: Warn,
			Message: fmt.Sprintf("RoCE active MTU is %d though IP MTU %d allows %d", p.port.ActiveMTU, mtu, allowed),
			Fix:     "the port's RoCE MTU lags the netdev MTU: bring the netdev down and up, or reload the RDMA driver"})
	case allowed < 4096:
		r.Add(Result{Check: CheckRoCEMTU, Subject: subj, Status: Warn,
			Message: fmt.Sprintf("IP MTU %d gives RoCE only a %d-byte MTU; 4096 needs an IP MTU of at least %d (about 4200)", mtu, allowed, rdmasys.MinMTUFor4096),
			Fix:     fmt.Sprintf("ip link set dev %s mtu 9000 (with the switch ports at 9216)", nd)})
	default:
		msg := fmt.Sprintf("RoCE MTU %d", allowed)
		if p.port.ActiveMTU != 0 {
			msg = fmt.Sprintf("RoCE active MTU %d", p.port.ActiveMTU)
		}
		r.Add(Result{Check: CheckRoCEMTU, Subject: subj, Status: Pass, Message: msg})
	}
}

func (d *Doctor) checkPause(r *Report, p port, exp Expect) {
	subj := p.subject()
	nd := p.port.Netdev
	if p.nic.Netdev != "" {
		nd = p.nic.Netdev
	}
	if !exp.PFC {
		r.Add(Result{Check: CheckPause, Subject: subj, Status: Pass, Message: "PFC is off in the policy: link pause not checked"})
		return
	}
	if nd == "" || d.Pause == nil {
		r.Add(Result{Check: CheckPause, Subject: subj, Status: Warn, Message: "802.3x pause not checked (no netdev or no ethtool access)"})
		return
	}
	pp, err := d.Pause.Pause(nd)
	switch {
	case errors.Is(err, counters.ErrUnsupported):
		r.Add(Result{Check: CheckPause, Subject: subj, Status: Warn, Message: "802.3x pause: unsupported on this device (" + nd + ")"})
	case err != nil:
		r.Add(Result{Check: CheckPause, Subject: subj, Status: Warn, Message: "802.3x pause not read: " + err.Error()})
	case pp.RX || pp.TX:
		r.Add(Result{Check: CheckPause, Subject: subj, Status: Fail,
			Message: fmt.Sprintf("802.3x link pause is on (rx %s, tx %s) while PFC is on: link pause stops every priority, not just the lossless one", onOff(pp.RX), onOff(pp.TX)),
			Fix:     fmt.Sprintf("ethtool -A %s autoneg off rx off tx off (rocefab host apply does this)", nd)})
	default:
		r.Add(Result{Check: CheckPause, Subject: subj, Status: Pass, Message: "802.3x link pause off (PFC carries the pause)"})
	}
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func checkNUMA(r *Report, dev *rdmasys.Device, exp Expect) {
	switch {
	case exp.NUMANode != nil && dev.NUMANode >= 0 && dev.NUMANode != *exp.NUMANode:
		r.Add(Result{Check: CheckNUMA, Subject: dev.Name, Status: Warn,
			Message: fmt.Sprintf("NIC is on NUMA node %d, the workload is expected on node %d: every RDMA buffer crosses the inter-socket link", dev.NUMANode, *exp.NUMANode),
			Fix:     fmt.Sprintf("run RDMA workloads on node %d (numactl --cpunodebind=%d --membind=%d), or put the NIC in a slot of node %d", dev.NUMANode, dev.NUMANode, dev.NUMANode, *exp.NUMANode)})
	case dev.NUMANode < 0:
		r.Add(Result{Check: CheckNUMA, Subject: dev.Name, Status: Pass, Message: "no NUMA affinity reported (single node)"})
	default:
		r.Add(Result{Check: CheckNUMA, Subject: dev.Name, Status: Pass, Message: fmt.Sprintf("NUMA node %d", dev.NUMANode)})
	}
}

func checkPCIe(r *Report, dev *rdmasys.Device) {
	pci := dev.PCI
	switch {
	case !pci.Reported:
		r.Add(Result{Check: CheckPCIe, Subject: dev.Name, Status: Pass, Message: "PCIe link not reported (virtual function or no PCIe): nothing to compare"})
	case pci.Unknown:
		r.Add(Result{Check: CheckPCIe, Subject: dev.Name, Status: Warn,
			Message: fmt.Sprintf("PCIe link speed unknown (%s, max %s)", pci.CurSpeed, pci.MaxSpeed),
			Fix:     "the PCIe link may be down or retraining: check dmesg for AER errors"})
	case pci.CurWidth < pci.MaxWidth || pci.CurGTs < pci.MaxGTs:
		r.Add(Result{Check: CheckPCIe, Subject: dev.Name, Status: Warn,
			Message: fmt.Sprintf("PCIe link runs x%d at %s, the NIC supports x%d at %s", pci.CurWidth, pci.CurSpeed, pci.MaxWidth, pci.MaxSpeed),
			Fix:     "move the NIC to a full-width slot of its PCIe generation, and check the slot's bifurcation and link speed in the BIOS; reseat it if the slot should already be x" + fmt.Sprint(pci.MaxWidth)})
	default:
		r.Add(Result{Check: CheckPCIe, Subject: dev.Name, Status: Pass, Message: fmt.Sprintf("PCIe x%d at %s", pci.CurWidth, pci.CurSpeed)})
	}
}

// coreModules every RoCE host needs; driverModules by NIC driver.
var (
	coreModules   = []string{"ib_core", "ib_uverbs", "rdma_cm", "rdma_ucm"}
	driverModules = map[string][]string{
		"mlx5_core": {"mlx5_core", "mlx5_ib"},
		"mlx4_core": {"mlx4_core", "mlx4_ib"},
		"bnxt_en":   {"bnxt_en", "bnxt_re"},
		"ice":       {"ice", "irdma"},
		"qede":      {"qede", "qedr"},
	}
)

func (d *Doctor) checkModules(r *Report, devs []rdmasys.Device) {
	want := slices.Clone(coreModules)
	for _, dv := range devs {
		want = append(want, driverModules[dv.Driver]...)
	}
	slices.Sort(want)
	want = slices.Compact(want)
	var missing []string
	for _, m := range want {
		if !d.Sys.Module(m) {
			missing = append(missing, m)
		}
	}
	if len(missing) == 0 {
		r.Add(Result{Check: CheckModules, Status: Pass, Message: "kernel modules loaded: " + strings.Join(want, ", ")})
		return
	}
	r.Add(Result{Check: CheckModules, Status: Warn, Message: "kernel modules not loaded: " + strings.Join(missing, ", "),
		Fix: "modprobe " + strings.Join(missing, " ") + " (and add them to /etc/modules-load.d/rdma.conf)"})
}

// tools and the Debian/RHEL packages that carry them.
var tools = []struct{ name, pkg string }{
	{"rdma", "iproute2"},
	{"ibv_devinfo", "ibverbs-utils (Debian/Ubuntu) or libibverbs-utils (RHEL)"},
	{"ib_write_bw", "perftest"},
	{"ib_send_lat", "perftest"},
}

func (d *Doctor) checkTools(r *Report) {
	look := d.LookPath
	if look == nil {
		look = exec.LookPath
	}
	var missing, found []string
	pkgs := map[string]bool{}
	for _, t := range tools {
		if _, err := look(t.name); err != nil {
			missing = append(missing, t.name)
			pkgs[t.pkg] = true
		} else {
			found = append(found, t.name)
		}
	}
	if len(missing) == 0 {
		r.Add(Result{Check: CheckTools, Status: Pass, Message: "tools in PATH: " + strings.Join(found, ", ")})
		return
	}
	var ps []string
	for p := range pkgs {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	msg := "not in PATH: " + strings.Join(missing, ", ")
	if slices.Contains(missing, "ib_write_bw") || slices.Contains(missing, "ib_send_lat") {
		msg += " (rocefab probe --engine perftest falls back to the built-in probe)"
	}
	r.Add(Result{Check: CheckTools, Status: Warn, Message: msg, Fix: "install " + strings.Join(ps, ", ")})
}
