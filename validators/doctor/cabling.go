package doctor

import (
	"fmt"

	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/validators/cabling"
)

// CheckCabling is the LLDP cabling check of a host's NICs.
const CheckCabling = "link.cabling"

// CablingResults are one result per intent link of the host, from the
// cabling check of its own LLDP neighbours: pass where the NIC hears the
// switch port the intent names, fail where it hears another, warn where
// it hears nothing.
func CablingResults(links []intent.Link, rep *cabling.Report) []Result {
	var out []Result
	for _, l := range links {
		if l.HostEnd == nil {
			continue
		}
		nic, sw := *l.HostEnd, l.SwitchEnd
		res := Result{Check: CheckCabling, Subject: nic.Port}
		f := rep.Finding(l)
		switch {
		case f == nil || f.Status == cabling.Unread:
			res.Status, res.Message = Warn, "LLDP neighbours not read"
			res.Fix = "install lldpd (apt-get install lldpd) and start it"
		case f.Status == cabling.Verified:
			res.Status, res.Message = Pass, fmt.Sprintf("cabled to %s %s, as the intent says", sw.Device, sw.Port)
		case f.Status == cabling.Miscabled:
			res.Status, res.Message = Fail, f.Message
			res.Fix = "move the cable, or correct the link in the intent"
		default:
			res.Status = Warn
			res.Message = fmt.Sprintf("no LLDP neighbour on %s; the intent says %s %s", nic.Port, sw.Device, sw.Port)
			res.Fix = fmt.Sprintf("check the cable, and that %s sends LLDP on %s", sw.Device, sw.Port)
		}
		out = append(out, res)
	}
	return out
}
