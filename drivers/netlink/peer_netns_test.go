package netlink

import (
	"errors"
	"testing"

	"github.com/rocefab/rocefab/drivers"
)

// TestNetnsDCBXPeerVeth: a veth has no DCB operations, so the kernel
// refuses IEEE_GET (dcb_doit: EOPNOTSUPP without dcbnl_ops) and DCBXPeer
// says unsupported, which rocefab cabling --dcbx notes rather than judges.
func TestNetnsDCBXPeerVeth(t *testing.T) {
	ns := vethHost(t)
	h, err := OpenHost(HostOptions{Netns: ns.Name, ConfigfsRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ieee, err := h.DCBXPeer("eth0")
	if !errors.Is(err, drivers.ErrUnsupported) {
		t.Fatalf("DCBXPeer(eth0) = %+v, %v; want ErrUnsupported", ieee, err)
	}
	if _, err := h.DCBXPeer("nosuch0"); err == nil || errors.Is(err, drivers.ErrUnsupported) {
		t.Errorf("DCBXPeer(nosuch0): %v, want an error that is not ErrUnsupported", err)
	}
}
