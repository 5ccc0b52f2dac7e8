package observe

import (
	"sort"
	"strings"
)

// Neighbor is what one local port hears over LLDP.
type Neighbor struct {
	Device    string `json:"device"`
	Port      string `json:"port"`
	SysName   string `json:"sysName"`
	PortID    string `json:"portId,omitempty"`
	PortDescr string `json:"portDescr,omitempty"`
}

// LLDPParser turns one device's LLDP neighbour output into neighbours,
// with Device set to the name the intent gives that device.
type LLDPParser func(device string, data []byte) ([]Neighbor, error)

// LLDP is how a platform's LLDP neighbours are read: a show command over
// SSH, or a gNMI Get, and the parser of the answer.
type LLDP struct {
	Parse LLDPParser
	// Show is the command printing the neighbours as Parse reads them;
	// "" when the platform is read over gNMI only.
	Show string
	// GNMITarget and GNMIPath are the gNMI Get of the neighbours; empty:
	// OpenConfig's /lldp.
	GNMITarget string
	GNMIPath   []string
	// Command and Cite document the format (the commands, the vendor
	// documentation or public code reading the same output).
	Command, Cite string
	// DCBX is what is read of the neighbour's DCBX TLVs ("not read: ..."
	// where the platform documents no structured output), DCBXCite where
	// that was looked up.
	DCBX, DCBXCite string
}

// FinishNeighbors drops neighbours without a local port or any remote
// identity and sorts the rest, so maps' order never shows.
func FinishNeighbors(device string, in []Neighbor) []Neighbor {
	out := in[:0]
	for _, n := range in {
		n.Device = device
		if n.Port == "" || n.SysName == "" && n.PortID == "" && n.PortDescr == "" {
			continue
		}
		out = append(out, n)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Port != out[j].Port {
			return out[i].Port < out[j].Port
		}
		return out[i].SysName < out[j].SysName
	})
	if out == nil {
		out = []Neighbor{}
	}
	return out
}

// SplitDevicePort splits "leaf1:swp1", the device name parsers of one
// port's output are given.
func SplitDevicePort(s string) (string, string) {
	if i := strings.LastIndexByte(s, ':'); i > 0 {
		return s[:i], s[i+1:]
	}
	return s, ""
}
