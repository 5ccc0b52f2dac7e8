package devcfg

import (
	"fmt"
	"sort"
	"strconv"
)

// HostSettings is the desired or observed NIC state of one host.
type HostSettings struct {
	Host string        `json:"host"`
	NICs []NICSettings `json:"nics"`
}

// NICSettings is what rocefab manages on one RDMA-capable netdev. Nil or
// empty fields are not managed.
type NICSettings struct {
	Netdev     string `json:"netdev"`
	RDMADevice string `json:"rdmaDevice,omitempty"`
	RDMAPort   int    `json:"rdmaPort,omitempty"`
	// VLANNetdev is the VLAN sub-interface carrying RoCE, when one is used.
	VLANNetdev string `json:"vlanNetdev,omitempty"`
	VLAN       int    `json:"vlan,omitempty"`

	MTU int `json:"mtu,omitempty"`
	// PFCEnable is the IEEE PFC bitmap: bit n enables priority n.
	PFCEnable *uint8 `json:"pfcEnable,omitempty"`
	// Trust is "dscp" or "pcp".
	Trust string `json:"trust,omitempty"`
	// App is the DCB APP table (selector 5 = DSCP).
	App []AppEntry `json:"app,omitempty"`
	// ECN enables per priority for the notification point (np) and the
	// reaction point (rp).
	ECNNotificationPoint []int  `json:"ecnNP,omitempty"`
	ECNReactionPoint     []int  `json:"ecnRP,omitempty"`
	CNPDSCP              *int   `json:"cnpDscp,omitempty"`
	CNPPriority          *int   `json:"cnpPriority,omitempty"`
	RoCEMode             string `json:"roceMode,omitempty"` // "RoCE v2"
	RoCEToS              *int   `json:"roceTos,omitempty"`
	// LinkPause is 802.3x pause (rx and tx); PFC needs it off.
	LinkPause *bool `json:"linkPause,omitempty"`
	// DCBXMode is "host-ieee" when rocefab, not lldpad or firmware, owns DCB.
	DCBXMode string `json:"dcbxMode,omitempty"`
}

// AppEntry is one struct dcb_app.
type AppEntry struct {
	Selector uint8  `json:"selector"`
	Priority uint8  `json:"priority"`
	Protocol uint16 `json:"protocol"`
}

// Clone returns a deep copy.
func (h HostSettings) Clone() HostSettings {
	out := HostSettings{Host: h.Host}
	for _, n := range h.NICs {
		out.NICs = append(out.NICs, n.Clone())
	}
	return out
}

// Clone returns a deep copy.
func (n NICSettings) Clone() NICSettings {
	out := n
	out.App = append([]AppEntry(nil), n.App...)
	out.ECNNotificationPoint = append([]int(nil), n.ECNNotificationPoint...)
	out.ECNReactionPoint = append([]int(nil), n.ECNReactionPoint...)
	out.PFCEnable = clonePtr(n.PFCEnable)
	out.CNPDSCP = clonePtr(n.CNPDSCP)
	out.CNPPriority = clonePtr(n.CNPPriority)
	out.RoCEToS = clonePtr(n.RoCEToS)
	out.LinkPause = clonePtr(n.LinkPause)
	return out
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// Paths flattens the settings to "nic/<netdev>/<setting>" paths so hosts are
// diffed like every other device.
func (h HostSettings) Paths() Paths {
	p := Paths{}
	for _, n := range h.NICs {
		pre := "nic/" + n.Netdev + "/"
		if n.MTU != 0 {
			p[pre+"mtu"] = Int(int64(n.MTU))
		}
		if n.VLANNetdev != "" {
			p["nic/"+n.VLANNetdev+"/mtu"] = Int(int64(n.MTU))
		}
		if n.PFCEnable != nil {
			p[pre+"pfc/enable"] = String(fmt.Sprintf("0x%02x", *n.PFCEnable))
		}
		if n.Trust != "" {
			p[pre+"trust"] = String(n.Trust)
		}
		apps := append([]AppEntry(nil), n.App...)
		sort.Slice(apps, func(i, j int) bool {
			if apps[i].Selector != apps[j].Selector {
				return apps[i].Selector < apps[j].Selector
			}
			return apps[i].Protocol < apps[j].Protocol
		})
		for _, a := range apps {
			p[fmt.Sprintf("%sapp/sel%d/%d", pre, a.Selector, a.Protocol)] = Int(int64(a.Priority))
		}
		for _, prio := range n.ECNNotificationPoint {
			p[pre+"ecn/roce_np/enable/"+strconv.Itoa(prio)] = Bool(true)
		}
		for _, prio := range n.ECNReactionPoint {
			p[pre+"ecn/roce_rp/enable/"+strconv.Itoa(prio)] = Bool(true)
		}
		if n.CNPDSCP != nil {
			p[pre+"ecn/roce_np/cnp_dscp"] = Int(int64(*n.CNPDSCP))
		}
		if n.CNPPriority != nil {
			p[pre+"ecn/roce_np/cnp_802p_prio"] = Int(int64(*n.CNPPriority))
		}
		if n.RDMADevice != "" {
			rp := fmt.Sprintf("rdma/%s/%d/", n.RDMADevice, max(n.RDMAPort, 1))
			if n.RoCEMode != "" {
				p[rp+"default_roce_mode"] = String(n.RoCEMode)
			}
			if n.RoCEToS != nil {
				p[rp+"default_roce_tos"] = Int(int64(*n.RoCEToS))
			}
		}
		if n.LinkPause != nil {
			p[pre+"pause"] = Bool(*n.LinkPause)
		}
		if n.DCBXMode != "" {
			p[pre+"dcbx"] = String(n.DCBXMode)
		}
	}
	return p
}
