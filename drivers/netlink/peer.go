package netlink

import "github.com/rocefab/rocefab/drivers/netlink/dcbnl"

// DCBXPeer reads what netdev's DCBX neighbour advertises: the peer PFC and
// APP attributes of the kernel's IEEE_GET answer. Their fields are nil when
// the driver does not run DCBX or does not report its peer (a NIC in
// host-managed mode leaves DCBX to software that is not there).
func (h *Host) DCBXPeer(netdev string) (*dcbnl.IEEE, error) {
	ieee, err := h.dcb.getIEEE(netdev)
	if err != nil {
		return nil, kernelErr(err)
	}
	return ieee, nil
}
