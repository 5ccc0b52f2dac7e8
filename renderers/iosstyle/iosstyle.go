// Package iosstyle holds what the IOS-style CLI platforms (EOS, NX-OS)
// render alike: a trunk's allowed-VLAN membership and port-channel
// numbers. Each platform keeps its own limits as data (its LAGNumbers).
package iosstyle

import (
	"fmt"
	"strconv"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/renderers"
)

// TrunkVLANs is how the model holds a trunk's allowed VLAN list: one
// member line per VLAN (each platform's Parse expands the list), so
// rocefab owns the lossless VLAN's membership and never the list.
var TrunkVLANs = devcfg.MemberList{
	Prefix: "switchport trunk allowed vlan ",
	Member: "switchport trunk allowed vlan add ",
	All:    "switchport trunk allowed vlan all",
	None:   "switchport trunk allowed vlan none",
	Lo:     1, Hi: 4094,
}

// TrunkRemove removes one VLAN from a trunk's allowed list: it negates a
// member line (Syntax.NegateRewrite), where `no switchport trunk allowed
// vlan` would reset the whole list.
const TrunkRemove = "switchport trunk allowed vlan remove "

// TrunkMember adds the VLAN to a trunk's allowed list and keeps the rest.
func TrunkMember(vlan int) string { return TrunkVLANs.Member + strconv.Itoa(vlan) }

// MemberOwner owns the lossless VLAN's membership of an interface's
// allowed list, so rocefab adds it on a trunk and removes what it added
// when the port stops being one. On a trunk a list of every VLAN holds the
// membership; elsewhere such a list is the device default, not rocefab's,
// and is never narrowed (`add` on it changed nothing).
func MemberOwner(parents []string, vlan int, trunk bool) devcfg.LineOwner {
	o := devcfg.LineOwner{Parents: parents, Prefix: TrunkMember(vlan), Exact: true}
	if trunk {
		o.ImpliedBy = []string{TrunkVLANs.All}
	}
	return o
}

// LAGID is the port-channel number of a port's LAG as the platform writes
// it, refused (naming the switch, port and field) outside the platform's
// range.
func LAGID(device string, port string, lag string, nums renderers.LAGNumbers) (string, error) {
	n, err := nums.Number(port, lag)
	if err != nil {
		return "", fmt.Errorf("switch %s: %w", device, err)
	}
	return strconv.Itoa(n), nil
}
