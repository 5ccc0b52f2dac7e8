package doctor

import (
	"slices"

	"github.com/rocefab/rocefab/intent"
)

// NIC is one RoCE NIC port the doctor checks.
type NIC struct {
	Netdev     string `json:"netdev"`
	RDMADevice string `json:"rdmaDevice,omitempty"`
	RDMAPort   int    `json:"rdmaPort,omitempty"`
	// Address is the NIC's RoCE IP; a RoCE v2 GID must carry it.
	Address string `json:"address,omitempty"`
}

// Expect is what the host should look like.
type Expect struct {
	// FromIntent is false when the built-in defaults stand in for an intent.
	FromIntent bool   `json:"fromIntent"`
	HostMTU    int    `json:"hostMtu"`
	PFC        bool   `json:"pfc"`
	PFCPrios   []int  `json:"pfcPriorities,omitempty"`
	RoCEMode   string `json:"roceMode"` // "v2" or "v1"
	RoCEToS    int    `json:"roceTos"`
	// NUMANode is the node RDMA workloads run on, when the operator says.
	NUMANode *int `json:"numaNode,omitempty"`
}

// Target is what to check on one host.
type Target struct {
	Host string `json:"host"`
	// NICs from the intent; empty checks every RDMA port found.
	NICs   []NIC  `json:"nics,omitempty"`
	Expect Expect `json:"expect"`
}

// TargetForHost builds the target from a resolved intent host.
func TargetForHost(h *intent.Host) Target {
	t := Target{Host: h.Name, Expect: expectFrom(h.Policy, true)}
	for _, n := range h.NICs {
		t.NICs = append(t.NICs, NIC{Netdev: n.Netdev, RDMADevice: n.RDMADevice, RDMAPort: n.RDMAPort, Address: n.Address})
	}
	return t
}

// DefaultTarget checks whatever RDMA ports exist against rocefab's built-in
// defaults (MTU 9000, PFC on priority 3, RoCE v2, ToS 106).
func DefaultTarget(host string) Target {
	res, _ := intent.Resolve(&intent.Fabric{Name: "defaults"})
	return Target{Host: host, Expect: expectFrom(res.Policy, false)}
}

func expectFrom(p intent.Policy, fromIntent bool) Expect {
	return Expect{FromIntent: fromIntent, HostMTU: p.HostMTU, PFC: p.PFCOn(), PFCPrios: slices.Clone(p.PFCPriorities),
		RoCEMode: p.RoCEMode, RoCEToS: p.RoCEToS()}
}
