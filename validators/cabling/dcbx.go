package cabling

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/finding"
	"github.com/rocefab/rocefab/intent"
)

// DCBXPeer is what the DCBX neighbour of one port advertises (IEEE
// 802.1Qaz PFC and APP TLVs), as the port's device reports it.
type DCBXPeer struct {
	Device string `json:"device"`
	Port   string `json:"port"`
	// PFC is the neighbour's PFC enable bitmap (bit n: priority n); nil
	// when it sent no PFC TLV.
	PFC *uint8 `json:"pfc,omitempty"`
	// DSCP is the neighbour's APP table for the DSCP selector, DSCP to
	// priority; nil when it sent no APP TLV.
	DSCP map[int]int `json:"dscp,omitempty"`
}

// DCBXFinding is one disagreement between a neighbour's advertisement and
// the intent of the port that hears it.
type DCBXFinding struct {
	Device  string `json:"device"`
	Port    string `json:"port"`
	TLV     string `json:"tlv"` // "pfc" or "app"
	Message string `json:"message"`
}

func (f DCBXFinding) String() string { return f.Message }

// AsFinding is the disagreement in the shared shape (source cabling, code
// dcbx-pfc or dcbx-app): an error, as it fails the check.
func (f DCBXFinding) AsFinding() finding.Finding {
	return finding.Finding{Source: finding.SourceCabling, Code: finding.Code("dcbx-" + f.TLV), Severity: finding.Error,
		Subject: finding.Subject{Device: f.Device, Port: f.Port}, Message: f.Message}
}

// CheckDCBX compares each neighbour's advertised PFC priorities and DSCP
// APP entries with the policy of the device that hears it: the PFC
// priorities it enables, and the RoCE and CNP DSCPs mapped to the no-drop
// and CNP priorities. A TLV the neighbour did not send is not judged (the
// NIC may not run DCBX); DSCPs the intent does not map are its own affair.
func CheckDCBX(res *intent.Resolved, peers []DCBXPeer) []DCBXFinding {
	var out []DCBXFinding
	for _, p := range peers {
		pol, ok := policyOf(res, p.Device)
		if !ok {
			continue
		}
		where := p.Device + " " + p.Port + " neighbour"
		if p.PFC != nil {
			want := pol.PFCBitmap()
			if *p.PFC != want {
				out = append(out, DCBXFinding{p.Device, p.Port, "pfc",
					fmt.Sprintf("%s advertises PFC on %s, the intent has %s", where, prioList(*p.PFC), prioList(want))})
			}
		}
		if p.DSCP != nil {
			for _, m := range intentDSCP(pol) {
				got, mapped := p.DSCP[m.dscp]
				switch {
				case !mapped:
					out = append(out, DCBXFinding{p.Device, p.Port, "app",
						fmt.Sprintf("%s's APP table does not map DSCP %d, the intent maps it to %d", where, m.dscp, m.prio)})
				case got != m.prio:
					out = append(out, DCBXFinding{p.Device, p.Port, "app",
						fmt.Sprintf("%s's APP table maps DSCP %d to %d, the intent %d", where, m.dscp, got, m.prio)})
				}
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Device != out[j].Device {
			return out[i].Device < out[j].Device
		}
		return NormPort(out[i].Port) < NormPort(out[j].Port)
	})
	return out
}

func policyOf(res *intent.Resolved, dev string) (intent.Policy, bool) {
	if s := res.Switch(dev); s != nil {
		return s.Policy, true
	}
	if h := res.Host(dev); h != nil {
		return h.Policy, true
	}
	return intent.Policy{}, false
}

type dscpPrio struct{ dscp, prio int }

// intentDSCP is the DSCP to priority map the intent asks for, in DSCP
// order: the RoCE DSCPs to the no-drop priority, the CNP DSCP to its own.
func intentDSCP(p intent.Policy) []dscpPrio {
	var out []dscpPrio
	for _, d := range p.RoCEDSCP {
		out = append(out, dscpPrio{d, p.NoDropPriority})
	}
	if p.ECNOn() && p.CNPDSCP > 0 && !slices.Contains(p.RoCEDSCP, p.CNPDSCP) {
		out = append(out, dscpPrio{p.CNPDSCP, p.CNPPriority})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].dscp < out[j].dscp })
	return out
}

// prioList spells a PFC bitmap as its priorities: "3", "3,4", "none".
func prioList(b uint8) string {
	var ps []string
	for i := 0; i < 8; i++ {
		if b&(1<<i) != 0 {
			ps = append(ps, strconv.Itoa(i))
		}
	}
	if len(ps) == 0 {
		return "none"
	}
	return strings.Join(ps, ",")
}
