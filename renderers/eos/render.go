package eos

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/iosstyle"
)

// Marker prefixes every object rocefab owns.
const (
	Marker  = "ROCEFAB"
	Profile = "ROCEFAB_LOSSLESS"
)

// MTUCeiling is the EOS hardware maximum IP MTU; EOS rejects 9216.
const MTUCeiling = 9214

// LAGs are the Port-Channel numbers EOS takes. Port-Channel 0 does not exist.
var LAGs = renderers.LAGNumbers{Platform: "EOS", Example: "Port-Channel10", Min: 1, Max: 999999, Source: srcLAGNumbers}

// routedPort makes an Ethernet port or port-channel a routed port; the
// port mode is the absence or presence of this line.
const routedPort = "no switchport"

// defaultAccessVLAN is the access VLAN of an EOS switchport until set.
const defaultAccessVLAN = 1

// WatchdogTimes: EOS takes the PFC watchdog timeout and recovery-time in
// seconds with at most two decimals (AVD schema: ^\d+(\.\d{1,2})?$).
var WatchdogTimes = renderers.WatchdogTimes{
	Detection:   renderers.TimeRange{Step: 10 * time.Millisecond, Form: "seconds with at most two decimals"},
	Restoration: renderers.TimeRange{Step: 10 * time.Millisecond, Form: "seconds with at most two decimals"},
}

type renderer struct{}

// New returns the EOS renderer.
func New() renderers.Renderer { return renderer{} }

// txQueueKeyword is "tx-queue" on the Jericho/Arad VOQ families (7280,
// 7500 and 7800, e.g. DCS-7280CR3-32P4, DCS-7500R3), which have no separate
// unicast queues, and "uc-tx-queue" on Trident/Tomahawk models (7050X,
// 7060X, 7260X, 7300X, 7358X, 7388X) and whenever the model is unknown.
func txQueueKeyword(model string) string {
	m := strings.ToUpper(strings.TrimSpace(model))
	for _, p := range []string{"DCS-", "CCS-", "DCS"} {
		m = strings.TrimPrefix(m, p)
	}
	for _, family := range []string{"7280", "7500", "7800"} {
		if strings.HasPrefix(m, family) {
			return "tx-queue"
		}
	}
	return "uc-tx-queue"
}

// Render renders the complete lossless configuration of the switch.
func (renderer) Render(sw *intent.Switch) (*devcfg.Config, error) {
	p := sw.Policy
	if mtu := renderers.SwitchMTU(p, MTUCeiling); mtu > MTUCeiling {
		return nil, fmt.Errorf("switch %s: MTU %d exceeds the EOS maximum %d", sw.Name, mtu, MTUCeiling)
	}
	t := &devcfg.Tree{}
	var notes []string

	// The global map is explicit and complete: RoCE and CNP DSCPs to their
	// classes, and no other DSCP into those classes (the EOS default
	// dscp>>3 would put DSCP 24-31 into TC 3 beside RoCE).
	if p.Trust == "pcp" {
		for _, line := range cosMapLines(p) {
			t.Add(nil, line)
		}
	} else {
		for _, line := range dscpMapLines(p) {
			t.Add(nil, line)
		}
	}

	prof := []string{"qos profile " + Profile}
	trust := "qos trust dscp"
	if p.Trust == "pcp" {
		trust = "qos trust cos"
	}
	t.Add(prof, trust)
	if p.PFCOn() {
		t.Add(prof, "priority-flow-control on")
		prios := slices.Clone(p.PFCPriorities)
		slices.Sort(prios)
		for _, q := range slices.Compact(prios) {
			t.Add(prof, "priority-flow-control priority "+strconv.Itoa(q)+" no-drop")
		}
		if p.Watchdog.Enabled {
			t.Add(prof, "priority-flow-control pause watchdog")
			if w := p.Watchdog; w.Detection > 0 && w.Restoration > 0 {
				for _, c := range []struct {
					what string
					d    time.Duration
					r    renderers.TimeRange
				}{{"detection", w.Detection, WatchdogTimes.Detection}, {"restoration", w.Restoration, WatchdogTimes.Restoration}} {
					if err := c.r.Check("eos", c.what, c.d); err != nil {
						return nil, fmt.Errorf("switch %s: %w", sw.Name, err)
					}
				}
				t.Add(prof, "priority-flow-control pause watchdog port timer timeout "+renderers.DecimalSeconds(w.Detection)+
					" polling-interval auto recovery-time "+renderers.DecimalSeconds(w.Restoration))
			} else if w.Detection > 0 || w.Restoration > 0 {
				notes = append(notes, "eos: the PFC watchdog timer needs both detectionTime and restorationTime; EOS defaults are used")
			}
			// EOS's own default error-disables the whole port on a storm;
			// drop (the intent's default) only drops the stuck queue.
			switch p.Watchdog.Action {
			case "drop":
				t.Add(prof, "priority-flow-control pause watchdog port action drop")
			case "forward":
				notes = append(notes, "eos: PFC watchdog action forward has no EOS equivalent; the EOS default action (errdisable the port) is used")
			}
		}
	}
	queue := txQueueKeyword(sw.Model)
	if p.ECNOn() {
		// Thresholds in bytes: EOS `segments` are ASIC cells.
		lo, hi := renderers.CLIBytesPair(p.ECNMin, p.ECNMax)
		t.Add(append(prof, queue+" "+strconv.Itoa(p.NoDropPriority)),
			"random-detect ecn minimum-threshold "+lo+" maximum-threshold "+hi+
				" max-mark-probability "+strconv.Itoa(p.MarkProbability)+" weight 0")
	}
	t.Add(append(prof, queue+" "+strconv.Itoa(p.CNPPriority)), "priority strict")
	if p.PFCOn() && (p.CableLength != 0 || p.Headroom != 0 || p.Xoff != 0 || p.Xon != 0 || cabledWithLength(sw.Ports)) {
		notes = append(notes, "eos: PFC headroom is platform-managed on EOS: no cable length, headroom, xoff or xon is rendered")
	}

	if p.VLAN != 0 && renderers.HasSwitchedPort(sw.Ports) {
		t.Add(nil, "vlan "+strconv.Itoa(p.VLAN))
	}
	mtu := "mtu " + strconv.Itoa(renderers.SwitchMTU(p, MTUCeiling))
	for _, port := range sw.Ports {
		member := t.Add(nil, "interface "+port.Name)
		l3 := member
		if port.LAG != "" {
			id, err := iosstyle.LAGID(sw.Name, port.Name, port.LAG, LAGs)
			if err != nil {
				return nil, err
			}
			member.Add("channel-group " + id + " mode active")
			l3 = t.Add(nil, "interface Port-Channel"+id)
		}
		l3.Add(mtu)
		switch port.Mode {
		case "trunk":
			l3.Add("switchport mode trunk")
			l3.Add(iosstyle.TrunkMember(p.VLAN))
		case "access":
			// access is the EOS default mode, and VLAN 1 its default
			// access VLAN: neither is printed.
			if p.VLAN != defaultAccessVLAN {
				l3.Add("switchport access vlan " + strconv.Itoa(p.VLAN))
			}
		case "routed":
			// EOS ports are switched by default and ignore IP
			// configuration until `no switchport` makes them routed.
			l3.Add(routedPort)
		}
		member.Add("service-profile " + Profile)
	}
	return &devcfg.Config{
		Device: sw.Name, Platform: "eos", Shape: devcfg.ShapeTree, Tree: t,
		Owned: ownedScope(sw), Singletons: singletons(p), Notes: notes,
	}, nil
}

func dscpMapLine(d, tc int) string {
	return "qos map dscp " + strconv.Itoa(d) + " to traffic-class " + strconv.Itoa(tc)
}

func dscpMapLines(p intent.Policy) []string {
	tc := renderers.DSCPClasses(p)
	out := make([]string, 0, 64)
	for d, c := range tc {
		out = append(out, dscpMapLine(d, c))
	}
	return out
}

// eosDefaultCosTC is the EOS default CoS map: 0 and 1 swap, the rest are 1:1.
func eosDefaultCosTC(cos int) int {
	switch cos {
	case 0:
		return 1
	case 1:
		return 0
	}
	return cos
}

// cosMapLines maps the no-drop and CNP PCPs to their classes, and any
// other PCP whose default class is one of those to its own number.
func cosMapLines(p intent.Policy) []string {
	var out []string
	for c := 0; c < 8; c++ {
		tc := -1
		switch {
		case c == p.NoDropPriority:
			tc = p.NoDropPriority
		case c == p.CNPPriority:
			tc = p.CNPPriority
		case eosDefaultCosTC(c) == p.NoDropPriority || eosDefaultCosTC(c) == p.CNPPriority:
			tc = c
		}
		if tc >= 0 {
			out = append(out, "qos map cos "+strconv.Itoa(c)+" to traffic-class "+strconv.Itoa(tc))
		}
	}
	return out
}

func seconds(s float64) string { return strconv.FormatFloat(s, 'f', -1, 64) }

// singletons claim the global map entries of the RoCE and CNP code points:
// another mapping of those DSCPs (or PCPs) is a conflict.
func singletons(p intent.Policy) []devcfg.Singleton {
	var out []devcfg.Singleton
	if p.Trust == "pcp" {
		for _, c := range []int{p.NoDropPriority, p.CNPPriority} {
			pre := "qos map cos " + strconv.Itoa(c) + " to traffic-class "
			out = append(out, devcfg.Singleton{Name: "global qos map cos " + strconv.Itoa(c), Prefix: pre, Want: pre + strconv.Itoa(c), Marker: Marker})
		}
		return out
	}
	tc := renderers.DSCPClasses(p)
	ds := append(slices.Clone(p.RoCEDSCP), p.CNPDSCP)
	slices.Sort(ds)
	for _, d := range slices.Compact(ds) {
		if d < 0 || d > 63 {
			continue
		}
		line := dscpMapLine(d, tc[d])
		out = append(out, devcfg.Singleton{Name: "global qos map dscp " + strconv.Itoa(d),
			Prefix: "qos map dscp " + strconv.Itoa(d) + " to traffic-class ", Want: line, Marker: Marker})
	}
	return out
}

// ownedScope: the global map of the trusted field, the ROCEFAB_ profile,
// the lossless VLAN, and only the listed settings on the listed ports:
// membership of the lossless VLAN in a port's allowed list (see
// iosstyle.MemberOwner), never the rest of the list.
func ownedScope(sw *intent.Switch) devcfg.Scope {
	s := devcfg.Scope{Lines: []devcfg.LineOwner{
		{Prefix: "qos profile " + Marker + "_", Subtree: true},
	}}
	if sw.Policy.Trust == "pcp" {
		s.Lines = append(s.Lines, devcfg.LineOwner{Prefix: "qos map cos "})
	} else {
		s.Lines = append(s.Lines, devcfg.LineOwner{Prefix: "qos map dscp "})
	}
	if sw.Policy.VLAN != 0 && renderers.HasSwitchedPort(sw.Ports) {
		s.Lines = append(s.Lines, devcfg.LineOwner{Prefix: "vlan " + strconv.Itoa(sw.Policy.VLAN), Exact: true})
	}
	seen := make(map[string]bool, len(sw.Ports))
	own := func(iface string, prefixes ...string) {
		for _, pre := range prefixes {
			s.Lines = append(s.Lines, devcfg.LineOwner{Parents: []string{iface}, Prefix: pre})
		}
	}
	ownMember := func(iface string, trunk bool) {
		if sw.Policy.VLAN != 0 {
			s.Lines = append(s.Lines, iosstyle.MemberOwner([]string{iface}, sw.Policy.VLAN, trunk))
		}
	}
	l3 := []string{"mtu ", "switchport mode ", "switchport access vlan "}
	ownMode := func(iface string) {
		// The port mode of a listed port is rocefab's: `no switchport` on a
		// port the intent wants switched is removed, and added where it
		// wants it routed.
		s.Lines = append(s.Lines, devcfg.LineOwner{Parents: []string{iface}, Prefix: routedPort, Exact: true})
	}
	for _, port := range sw.Ports {
		iface := "interface " + port.Name
		trunk := port.Mode == "trunk"
		own(iface, "service-profile ")
		if port.LAG == "" {
			own(iface, l3...)
			ownMode(iface)
			ownMember(iface, trunk)
			continue
		}
		own(iface, "channel-group ")
		if id, err := iosstyle.LAGID(sw.Name, port.Name, port.LAG, LAGs); err == nil && !seen[id] {
			seen[id] = true
			own("interface Port-Channel"+id, l3...)
			ownMode("interface Port-Channel" + id)
			ownMember("interface Port-Channel"+id, trunk)
		}
	}
	return s
}

// cabledWithLength reports whether a port's link has a length.
func cabledWithLength(ports []intent.Port) bool {
	for _, p := range ports {
		if p.Cable != nil && p.Cable.Length > 0 {
			return true
		}
	}
	return false
}
