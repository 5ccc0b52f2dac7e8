package fleet

import (
	"errors"
	"fmt"
	"sort"

	"github.com/rocefab/rocefab/drivers"
	"github.com/rocefab/rocefab/drivers/netlink"
	"github.com/rocefab/rocefab/drivers/netlink/dcbnl"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/validators/cabling"
)

// DCBXReport is the neighbours' DCBX advertisements against the intent
// (what `rocefab cabling --dcbx` adds).
type DCBXReport struct {
	Read     int                   `json:"read"`
	Peers    []cabling.DCBXPeer    `json:"peers"`
	Findings []cabling.DCBXFinding `json:"findings"`
	Notes    []string              `json:"notes,omitempty"`
}

// DCBXPeerReader answers the kernel's IEEE_GET for one netdev in a
// namespace; tests substitute a simulated kernel answer.
type DCBXPeerReader func(netns, netdev string) (*dcbnl.IEEE, error)

// ReadDCBXPeer asks the kernel through DCB netlink in the namespace. Only
// drivers that run DCBX themselves report a peer (DCB_ATTR_IEEE_PEER_*).
func ReadDCBXPeer(netns, netdev string) (*dcbnl.IEEE, error) {
	h, err := netlink.OpenHost(netlink.HostOptions{Netns: netns})
	if err != nil {
		return nil, err
	}
	defer h.Close()
	return h.DCBXPeer(netdev)
}

// ReadDCBX reads the DCBX neighbour of every cabled port of the devices
// in a network namespace (hosts and Linux switches, as lldpcli is run)
// and compares it with the intent. A port whose driver reports no peer
// is noted, not judged.
func ReadDCBX(res *intent.Resolved, read DCBXPeerReader) *DCBXReport {
	out := &DCBXReport{Peers: []cabling.DCBXPeer{}, Findings: []cabling.DCBXFinding{}}
	netnsOf := map[string]string{}
	for _, s := range res.Switches {
		netnsOf[s.Name] = s.Netns
	}
	for _, h := range res.Hosts {
		netnsOf[h.Name] = h.Netns
	}
	var remote []string
	seen := map[string]bool{}
	for _, l := range res.Links {
		for _, e := range []intent.Endpoint{l.A, l.B} {
			ns, known := netnsOf[e.Device]
			if !known || seen[e.String()] {
				continue
			}
			seen[e.String()] = true
			if ns == "" {
				if !seen["remote "+e.Device] {
					seen["remote "+e.Device] = true
					remote = append(remote, e.Device)
				}
				continue
			}
			ieee, err := read(ns, e.Port)
			switch {
			case errors.Is(err, drivers.ErrUnsupported):
				out.Notes = append(out.Notes, fmt.Sprintf("%s %s: its driver does no DCB", e.Device, e.Port))
				continue
			case err != nil:
				out.Notes = append(out.Notes, fmt.Sprintf("%s %s not read: %v", e.Device, e.Port, err))
				continue
			}
			p := peerOf(e, ieee)
			if p.PFC == nil && p.DSCP == nil {
				out.Notes = append(out.Notes, fmt.Sprintf("%s %s: the driver reports no DCBX neighbour", e.Device, e.Port))
				continue
			}
			out.Read++
			out.Peers = append(out.Peers, p)
		}
	}
	if len(remote) > 0 {
		sort.Strings(remote)
		out.Notes = append(out.Notes, fmt.Sprintf("not read (no netns; DCBX is read on the machine itself): %v", remote))
	}
	out.Findings = append(out.Findings, cabling.CheckDCBX(res, out.Peers)...)
	return out
}

// peerOf turns the kernel's peer attributes into what the check compares:
// the PFC enable bitmap and the APP table's DSCP entries.
func peerOf(e intent.Endpoint, ieee *dcbnl.IEEE) cabling.DCBXPeer {
	p := cabling.DCBXPeer{Device: e.Device, Port: e.Port}
	if ieee == nil {
		return p
	}
	if ieee.PeerPFC != nil {
		en := ieee.PeerPFC.Enable
		p.PFC = &en
	}
	if ieee.PeerAppsPresent {
		p.DSCP = map[int]int{}
		for _, a := range ieee.PeerApps {
			if a.Selector == dcbnl.SelDSCP {
				p.DSCP[int(a.Protocol)] = int(a.Priority)
			}
		}
	}
	return p
}
