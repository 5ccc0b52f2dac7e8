package lint

import (
	"net/netip"
	"strings"

	"github.com/rocefab/rocefab/intent"
)

// linkAddresses checks the addresses written on link ends: each is a plain
// IP address on a switch end, and no two ends or NICs share one, since path
// discovery maps a router's answer to a port by its address.
func (c *checker) linkAddresses() {
	type owner struct {
		what string
		at   intent.Loc
	}
	seen := map[netip.Addr]owner{}
	for _, h := range c.r.Hosts {
		for _, n := range h.NICs {
			if a, err := netip.ParseAddr(n.Address); err == nil {
				if _, dup := seen[a.Unmap()]; !dup {
					seen[a.Unmap()] = owner{"host " + h.Name + " NIC " + n.Netdev, n.At}
				}
			}
		}
	}
	for _, l := range c.r.Links {
		if l.Spec == nil {
			continue
		}
		for _, end := range []struct {
			field, text string
			ep          intent.Endpoint
		}{{"aAddress", l.AAddress, l.A}, {"bAddress", l.BAddress, l.B}} {
			if end.text == "" {
				continue
			}
			at := l.Spec.At(end.field)
			if c.r.Switch(end.ep.Device) == nil {
				c.errorf(at, CodeLinkAddress, "%s is a host NIC: its address is nics[].address, not the link's %s", end.ep, end.field)
				continue
			}
			a, err := netip.ParseAddr(strings.TrimSpace(end.text))
			if err != nil {
				hint := ""
				if strings.Contains(end.text, "/") {
					hint = " without the prefix length"
				}
				c.errorf(at, CodeLinkAddress, "%s %q of %s is not an IP address (write it as 192.0.2.1 or 2001:db8::1%s)", end.field, end.text, end.ep, hint)
				continue
			}
			a = a.Unmap()
			if prev, dup := seen[a]; dup {
				c.errorf(at, CodeLinkAddress, "%s address %s is already %s's (%s)", end.ep, a, prev.what, prev.at)
				continue
			}
			seen[a] = owner{end.ep.String(), at}
		}
	}
}
