package host

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
)

// Platform is the devcfg platform name of rendered host settings.
const Platform = "linux-host"

// DCBXHostIEEE is the DCBX mode rocefab sets: the host (not lldpad or the
// NIC firmware) owns DCB, in IEEE mode.
const DCBXHostIEEE = "host-ieee"

// maxIfname is IFNAMSIZ-1: the kernel rejects longer interface names.
const maxIfname = 15

// Rendered is one host's desired NIC state and what goes with it.
type Rendered struct {
	// Config is the ShapeHost config; Config.Host is Settings.
	Config   *devcfg.Config
	Settings *devcfg.HostSettings
	// Applications are the environment settings RDMA applications should
	// use (NCCL, UCX). A hint with an empty Value is filled in on the host
	// (the GID index is only known there).
	Applications []AppSetting
}

// AppSetting is one application environment setting.
type AppSetting struct {
	Name  string
	Value string
	NIC   string // set for per-NIC hints
	Why   string
}

// Render produces the NIC settings of host h. r supplies the cabling: a NIC
// cabled to a trunk port carries RoCE on a VLAN netdev (<netdev>.<vlan>);
// on a routed or access port, or when uncabled on a routed fabric, it sends
// untagged on the netdev itself.
func Render(h *intent.Host, r *intent.Resolved) (*Rendered, error) {
	p := h.Policy
	settings := &devcfg.HostSettings{Host: h.Name}
	var notes []string
	tos := p.RoCEToS()
	for _, nic := range h.NICs {
		n := devcfg.NICSettings{Netdev: nic.Netdev, RDMADevice: nic.RDMADevice, MTU: p.HostMTU, Trust: p.Trust, DCBXMode: DCBXHostIEEE}
		if nic.RDMADevice != "" {
			n.RDMAPort = nic.RDMAPort
		}
		if vlan := tagged(h, nic, p, r); vlan != 0 {
			n.VLAN = vlan
			n.VLANNetdev = nic.Netdev + "." + strconv.Itoa(vlan)
			if len(n.VLANNetdev) > maxIfname {
				return nil, fmt.Errorf("host %s NIC %s: VLAN netdev name %s is longer than %d characters, which Linux rejects",
					h.Name, nic.Netdev, n.VLANNetdev, maxIfname)
			}
		}
		// PFC is managed in both directions: off for ecn-only, so the host
		// never pauses a switch that does not honour it.
		pfc := p.PFCBitmap()
		n.PFCEnable = &pfc
		if p.PFCOn() {
			off := false
			n.LinkPause = &off
		}
		if p.Trust == "dscp" {
			n.App = appTable(p)
		}
		if p.ECNOn() {
			n.ECNNotificationPoint = []int{p.NoDropPriority}
			n.ECNReactionPoint = []int{p.NoDropPriority}
			cnpDSCP, cnpPrio := p.CNPDSCP, p.CNPPriority
			n.CNPDSCP, n.CNPPriority = &cnpDSCP, &cnpPrio
		}
		if nic.RDMADevice != "" {
			n.RoCEMode = roceMode(p.RoCEMode)
			t := tos
			n.RoCEToS = &t
		} else {
			notes = append(notes, fmt.Sprintf("%s has no rdmaDevice in the intent: RoCE mode and ToS (rdma_cm) are not managed; set nics[].rdmaDevice, e.g. mlx5_0", nic.Netdev))
		}
		settings.NICs = append(settings.NICs, n)
	}
	switch p.Profile {
	case intent.ProfilePFCOnly:
		notes = append(notes, "profile pfc-only: DCQCN/ECN settings are left as the NIC has them")
	case intent.ProfileECNOnly:
		notes = append(notes, "profile ecn-only: PFC is set off and 802.3x pause is left as it is (lossy RoCE)")
	}
	notes = append(notes, "NIC settings are runtime-only (lost on reboot or driver reload): run `rocefab host apply --watch` from the systemd unit or the DaemonSet")
	cfg := &devcfg.Config{Device: h.Name, Platform: Platform, Shape: devcfg.ShapeHost, Host: settings, Notes: notes}
	return &Rendered{Config: cfg, Settings: settings, Applications: applications(h, p, settings)}, nil
}

// tagged returns the VLAN the NIC tags RoCE frames with, or 0.
func tagged(h *intent.Host, nic intent.NIC, p intent.Policy, r *intent.Resolved) int {
	if p.VLAN == 0 {
		return 0
	}
	if r != nil {
		for _, l := range r.HostLinksOf(h.Name) {
			if l.HostEnd.Port != nic.Netdev {
				continue
			}
			if sw := r.Switch(l.SwitchEnd.Device); sw != nil {
				if port, ok := sw.Port(l.SwitchEnd.Port); ok && port.Mode != "trunk" {
					return 0
				}
			}
		}
	}
	return p.VLAN
}

// appTable maps every RoCE DSCP to the no-drop priority and the CNP DSCP to
// the CNP priority, explicitly: NIC defaults (dscp>>3) are never relied on.
func appTable(p intent.Policy) []devcfg.AppEntry {
	seen := map[int]bool{}
	var out []devcfg.AppEntry
	add := func(dscp, prio int) {
		if seen[dscp] {
			return
		}
		seen[dscp] = true
		out = append(out, devcfg.AppEntry{Selector: 5, Priority: uint8(prio), Protocol: uint16(dscp)})
	}
	for _, d := range p.RoCEDSCP {
		add(d, p.NoDropPriority)
	}
	if p.ECNOn() {
		add(p.CNPDSCP, p.CNPPriority)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Protocol < out[j].Protocol })
	return out
}

// roceMode is the rdma_cm configfs spelling of the intent's RoCE version.
func roceMode(v string) string {
	if v == "v1" {
		return "IB/RoCE v1"
	}
	return "RoCE v2"
}

func applications(h *intent.Host, p intent.Policy, s *devcfg.HostSettings) []AppSetting {
	tos := strconv.Itoa(p.RoCEToS())
	dscp := 0
	if len(p.RoCEDSCP) > 0 {
		dscp = p.RoCEDSCP[0]
	}
	why := fmt.Sprintf("ToS %s = DSCP %d<<2 | ECT(0): RoCE lands in the lossless class (priority %d)", tos, dscp, p.NoDropPriority)
	out := []AppSetting{
		{Name: "NCCL_IB_TC", Value: tos, Why: why},
		{Name: "UCX_IB_TRAFFIC_CLASS", Value: tos, Why: why},
	}
	var hcas []string
	for _, n := range s.NICs {
		if n.RDMADevice != "" {
			hcas = append(hcas, fmt.Sprintf("%s:%d", n.RDMADevice, max(n.RDMAPort, 1)))
		}
	}
	if len(hcas) > 0 {
		out = append(out, AppSetting{Name: "NCCL_IB_HCA", Value: strings.Join(hcas, ","), Why: "the RDMA ports rocefab made lossless"})
	}
	if p.Trust == "pcp" {
		sl := strconv.Itoa(p.NoDropPriority)
		out = append(out,
			AppSetting{Name: "NCCL_IB_SL", Value: sl, Why: "trust pcp: the service level becomes the 802.1p priority of the no-drop class"},
			AppSetting{Name: "UCX_IB_SL", Value: sl, Why: "trust pcp: the service level becomes the 802.1p priority of the no-drop class"})
	}
	for _, n := range s.NICs {
		if n.RDMADevice == "" {
			continue
		}
		ndev := n.Netdev
		if n.VLANNetdev != "" {
			ndev = n.VLANNetdev
		}
		out = append(out, AppSetting{Name: "NCCL_IB_GID_INDEX", NIC: n.Netdev,
			Why: fmt.Sprintf("index of the RoCE v2 IPv4 GID of %s on %s port %d (read on the host)", ndev, n.RDMADevice, max(n.RDMAPort, 1))})
	}
	return out
}

// Text is the readable form of a rendered host, as golden files and
// `rocefab host plan` show it: settings as paths, then notes and the
// application settings.
func (r *Rendered) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# host %s (%s)\n", r.Settings.Host, Platform)
	b.WriteString(r.Config.Text())
	if len(r.Config.Notes) > 0 {
		b.WriteString("\n# notes\n")
		for _, n := range r.Config.Notes {
			fmt.Fprintf(&b, "# - %s\n", n)
		}
	}
	if len(r.Applications) > 0 {
		b.WriteString("\n# application settings\n")
		for _, a := range r.Applications {
			val := a.Value
			if val == "" {
				val = "<read on the host>"
			}
			where := ""
			if a.NIC != "" {
				where = " (" + a.NIC + ")"
			}
			fmt.Fprintf(&b, "%s=%s%s  # %s\n", a.Name, val, where, a.Why)
		}
	}
	return b.String()
}
