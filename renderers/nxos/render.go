package nxos

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/iosstyle"
)

// Names of the objects rocefab owns; the ROCEFAB_ prefix marks them.
const (
	Marker       = "ROCEFAB"
	ClassRoCE    = "ROCEFAB_ROCE"
	ClassCNP     = "ROCEFAB_CNP"
	PolicyQoS    = "ROCEFAB_QOS"
	PolicyNQ     = "ROCEFAB_NQ"
	PolicyQueues = "ROCEFAB_QUEUING"
	// PolicyInput is the input queuing policy that carries the pause
	// buffer thresholds of long cables.
	PolicyInput = "ROCEFAB_INQ"
)

// LongCable is the cable length above which Cisco requires the pause
// buffer thresholds on the no-drop class; up to it the defaults hold.
const LongCable = 100

// HeadroomFacts: NX-OS sizes no-drop buffers itself for cables up to
// 100 m and takes rocefab's figures above that, or when written.
var HeadroomFacts = renderers.HeadroomFacts{
	DefaultCableLength: LongCable, DefaultCableSource: srcPauseBuffer,
	RenderedAbove: LongCable, RendersXoff: true,
}

// MTUCeiling is the Nexus 9000 jumbo maximum.
const MTUCeiling = 9216

// LAGs are the port-channel numbers NX-OS takes. port-channel 0 does not exist.
var LAGs = renderers.LAGNumbers{Platform: "NX-OS", Example: "port-channel10", Min: 1, Max: 4096, Source: srcLAGNumbers}

const systemQoS = "system qos"

type renderer struct{}

// New returns the NX-OS renderer.
func New() renderers.Renderer { return renderer{} }

// queueTemplate names the system-defined classes of one queuing template.
// Nexus 9000 uses the 8-queue templates (c-8q-nqN, c-out-8q-qN) from NX-OS
// 7.0(3)I4(1) on; earlier releases only have the 4-queue ones (c-nqN,
// c-out-qN, queues 0-3).
type queueTemplate struct {
	queues int
	nq     string // network-qos class prefix
	out    string // egress queuing class prefix
	in     string // ingress queuing class prefix
}

var (
	template8q = queueTemplate{queues: 8, nq: "c-8q-nq", out: "c-out-8q-q", in: "c-in-q"}
	template4q = queueTemplate{queues: 4, nq: "c-nq", out: "c-out-q", in: "c-in-q"}
)

func (t queueTemplate) inClass(q int) string {
	if q == 0 {
		return "class type queuing " + t.in + "-default"
	}
	return "class type queuing " + t.in + strconv.Itoa(q)
}

func (t queueTemplate) nqClass(q int) string {
	if q == 0 {
		return "class type network-qos " + t.nq + "-default"
	}
	return "class type network-qos " + t.nq + strconv.Itoa(q)
}

func (t queueTemplate) outClass(q int) string {
	if q == 0 {
		return "class type queuing " + t.out + "-default"
	}
	return "class type queuing " + t.out + strconv.Itoa(q)
}

// templateFor picks the queuing template from the OS version: releases
// before 7.0(3)I4(1) (all 6.x, and 7.0(3)I1..I3) have only 4 queues.
// An unknown or empty version gets the current 8-queue template.
func templateFor(osVersion string) queueTemplate {
	v := strings.TrimSpace(osVersion)
	majorText, rest, _ := strings.Cut(v, ".")
	major, err := strconv.Atoi(majorText)
	if err != nil {
		return template8q
	}
	if major < 7 {
		return template4q
	}
	if major == 7 {
		if _, train, ok := strings.Cut(rest, ")I"); ok {
			n := 0
			for _, c := range train {
				if c < '0' || c > '9' {
					break
				}
				n = n*10 + int(c-'0')
			}
			if n > 0 && n < 4 {
				return template4q
			}
		}
	}
	return template8q
}

// Render renders the complete lossless configuration of the switch.
func (renderer) Render(sw *intent.Switch) (*devcfg.Config, error) {
	p := sw.Policy
	tpl := templateFor(sw.OSVersion)
	pfc := p.PFCOn()
	prios := map[string]int{"no-drop priority": p.NoDropPriority, "CNP priority": p.CNPPriority}
	if pfc {
		for _, q := range p.PFCPriorities {
			prios["PFC priority"] = max(prios["PFC priority"], q)
		}
	}
	for _, what := range []string{"no-drop priority", "CNP priority", "PFC priority"} {
		if q, ok := prios[what]; ok && (q < 0 || q >= tpl.queues) {
			return nil, fmt.Errorf("switch %s: NX-OS %q uses the %d-queue templates (queues 0-%d); %s %d does not fit", sw.Name, sw.OSVersion, tpl.queues, tpl.queues-1, what, q)
		}
	}
	// NX-OS interface and network-qos MTUs are the same number: no L2
	// header is added.
	mtu := renderers.SwitchMTU(p, MTUCeiling)
	t := &devcfg.Tree{}
	var notes []string

	// Classification: N9K has no `qos trust`; unmatched traffic stays in
	// qos-group 0, so RoCE and CNP are matched explicitly.
	roceMatch := "class-map type qos match-any " + ClassRoCE
	cnpMatch := "class-map type qos match-any " + ClassCNP
	if p.Trust == "pcp" {
		t.Add([]string{roceMatch}, "match cos "+strconv.Itoa(p.NoDropPriority))
		t.Add([]string{cnpMatch}, "match cos "+strconv.Itoa(p.CNPPriority))
	} else {
		dscps := slices.Clone(p.RoCEDSCP)
		slices.Sort(dscps)
		for _, d := range slices.Compact(dscps) {
			t.Add([]string{roceMatch}, "match dscp "+strconv.Itoa(d))
		}
		t.Add([]string{cnpMatch}, "match dscp "+strconv.Itoa(p.CNPDSCP))
	}
	qos := "policy-map type qos " + PolicyQoS
	t.Add([]string{qos, "class " + ClassRoCE}, "set qos-group "+strconv.Itoa(p.NoDropPriority))
	t.Add([]string{qos, "class " + ClassCNP}, "set qos-group "+strconv.Itoa(p.CNPPriority))

	// network-qos: jumbo MTU on every class (an omitted class falls back
	// to 1500), pause on the PFC priorities.
	nq := "policy-map type network-qos " + PolicyNQ
	for _, q := range queueOrder(tpl.queues) {
		t.Add([]string{nq, tpl.nqClass(q)}, "mtu "+strconv.Itoa(mtu))
		if pfc && slices.Contains(p.PFCPriorities, q) {
			t.Add([]string{nq, tpl.nqClass(q)}, "pause pfc-cos "+strconv.Itoa(q))
		}
	}

	// Egress queuing: CNP strict, the lossless and default queues share the
	// remaining bandwidth (it must total 100), the rest get 0.
	queuing := "policy-map type queuing " + PolicyQueues
	weighted := []int{p.NoDropPriority}
	if p.NoDropPriority != 0 {
		weighted = append(weighted, 0)
	}
	weighted = slices.DeleteFunc(weighted, func(q int) bool { return q == p.CNPPriority })
	share := 0
	if len(weighted) > 0 {
		share = 100 / len(weighted)
	}
	for _, q := range queueOrder(tpl.queues) {
		class := []string{queuing, tpl.outClass(q)}
		switch {
		case q == p.CNPPriority:
			t.Add(class, "priority level 1")
		case slices.Contains(weighted, q):
			pct := share
			if q == weighted[0] {
				pct = 100 - share*(len(weighted)-1)
			}
			t.Add(class, "bandwidth remaining percent "+strconv.Itoa(pct))
		default:
			t.Add(class, "bandwidth remaining percent 0")
		}
		if q == p.NoDropPriority && p.ECNOn() {
			t.Add(class, randomDetect(p))
		}
	}

	// Long cables: the input queuing policy, defined before system qos
	// refers to it.
	pauseBuffer := false
	if pfc {
		line, note, err := pauseBufferLine(sw)
		if err != nil {
			return nil, err
		}
		if line != "" {
			pauseBuffer = true
			inq := "policy-map type queuing " + PolicyInput
			prios := slices.Clone(p.PFCPriorities)
			slices.Sort(prios)
			for _, q := range slices.Compact(prios) {
				t.Add([]string{inq, tpl.inClass(q)}, line)
			}
			notes = append(notes, note)
		}
	}
	t.Add([]string{systemQoS}, "service-policy type network-qos "+PolicyNQ)
	t.Add([]string{systemQoS}, "service-policy type queuing output "+PolicyQueues)
	if pauseBuffer {
		t.Add([]string{systemQoS}, "service-policy type queuing input "+PolicyInput)
	}
	if pfc && p.Watchdog.Enabled {
		t.Add(nil, "priority-flow-control watch-dog-interval on")
		if p.Watchdog.Detection != 0 || p.Watchdog.Restoration != 0 {
			notes = append(notes, "nxos: PFC watchdog detection/restoration time keep the NX-OS defaults (interval and multipliers are not rendered)")
		}
		if p.Watchdog.Action == "forward" {
			notes = append(notes, "nxos: PFC watchdog action forward has no NX-OS equivalent; NX-OS shuts the stuck queue down (drop)")
		}
	}
	if p.VLAN != 0 && renderers.HasSwitchedPort(sw.Ports) {
		t.Add(nil, vlanLine(p.VLAN))
	}

	scope := ownedScope(sw)
	single := singletons()
	if pauseBuffer {
		scope.Lines = append(scope.Lines, devcfg.LineOwner{Parents: []string{systemQoS}, Prefix: "service-policy type queuing input "})
		single = append(single, devcfg.Singleton{Name: "system qos queuing input policy", Parents: []string{systemQoS},
			Prefix: "service-policy type queuing input ", Want: "service-policy type queuing input " + PolicyInput, Marker: Marker})
	}
	for _, port := range sw.Ports {
		member := t.Add(nil, "interface "+port.Name)
		l3 := member
		if port.LAG != "" {
			id, err := iosstyle.LAGID(sw.Name, port.Name, port.LAG, LAGs)
			if err != nil {
				return nil, err
			}
			member.Add("channel-group " + id + " mode active")
			l3 = t.Add(nil, "interface port-channel"+id) // repeats merge
		}
		switch port.Mode {
		case "trunk":
			l3.Add("switchport")
			l3.Add("switchport mode trunk")
			l3.Add(iosstyle.TrunkMember(p.VLAN))
		case "access":
			l3.Add("switchport")
			l3.Add("switchport mode access")
			l3.Add("switchport access vlan " + strconv.Itoa(p.VLAN))
		}
		l3.Add("mtu " + strconv.Itoa(mtu))
		l3.Add("service-policy type qos input " + PolicyQoS)
		if pfc {
			member.Add("priority-flow-control mode on")
		}
	}
	return &devcfg.Config{
		Device: sw.Name, Platform: "nxos", Shape: devcfg.ShapeTree, Tree: t,
		Owned: scope, Singletons: single, Notes: notes,
	}, nil
}

// pauseBufferLine is the pause buffer statement of the no-drop input
// queues, "" when NX-OS keeps its defaults: Cisco makes it mandatory for
// cables over 100 m, and rocefab renders it too when pfc.xoff, xon or
// headroom is written. One input policy serves every port, so it is sized
// for the port that needs the most. NX-OS pauses when the class holds
// pause-threshold bytes and resumes below resume-threshold; buffer-size
// less pause-threshold is the headroom for what still arrives (xoff).
func pauseBufferLine(sw *intent.Switch) (line, note string, err error) {
	p := sw.Policy
	h := renderers.Headroom(sw, &HeadroomFacts, MTUCeiling)
	var long []string
	for _, ph := range h.Ports {
		if ph.LengthAssumed == "" && ph.Length > LongCable {
			long = append(long, ph.Port)
		}
	}
	explicit := p.Xoff != 0 || p.Xon != 0 || p.Headroom != 0
	if len(long) == 0 && !explicit {
		return "", "", nil
	}
	r, err := renderers.ExplicitReservation(sw, h, MTUCeiling)
	if err != nil {
		if len(long) > 0 && !explicit {
			err = fmt.Errorf("NX-OS needs pause buffer thresholds for the cables over %d m of %s: %w", LongCable, renderers.CompactPortNames(long), err)
		}
		return "", "", err
	}
	size, pause := r.Size, r.Pause
	worst, ok := h.Worst()
	line = fmt.Sprintf("pause buffer-size %d pause-threshold %d resume-threshold %d", size, pause, pause)
	why := "as pfc.xoff, xon and headroom write"
	if len(long) > 0 {
		why = fmt.Sprintf("Cisco requires it for cables over %d m (%s)", LongCable, renderers.CompactPortNames(long))
	}
	sized := "the written values"
	if p.Xoff == 0 && ok {
		sized = fmt.Sprintf("the %d B xoff %s needs (%s)", worst.Result.Xoff, worst.Port, worst.Inputs(h.ASIC))
	}
	note = fmt.Sprintf("nxos: %s on the no-drop input queues of every port, from %s: %s", line, sized, why)
	return line, note, nil
}

// queueOrder lists the queues 0..n-1; queue 0 is the default class.
func queueOrder(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func vlanLine(vlan int) string { return "vlan " + strconv.Itoa(vlan) }

// randomDetect is the WRED/ECN line with exact unit keywords, one unit for
// both thresholds.
func randomDetect(p intent.Policy) string {
	lo, hi := renderers.CLIBytesPair(p.ECNMin, p.ECNMax)
	return "random-detect minimum-threshold " + lo + " maximum-threshold " + hi +
		" drop-probability " + strconv.Itoa(p.MarkProbability) + " weight 0 ecn"
}

func singletons() []devcfg.Singleton {
	return []devcfg.Singleton{
		{Name: "system qos network-qos policy", Parents: []string{systemQoS}, Prefix: "service-policy type network-qos ",
			Want: "service-policy type network-qos " + PolicyNQ, Marker: Marker},
		{Name: "system qos queuing output policy", Parents: []string{systemQoS}, Prefix: "service-policy type queuing output ",
			Want: "service-policy type queuing output " + PolicyQueues, Marker: Marker},
	}
}

// ownedScope is what rocefab owns: its ROCEFAB_ objects whole, the system
// qos service-policies, the watchdog switch, the lossless VLAN, and only
// the listed settings on the listed ports: membership of the lossless VLAN
// in a port's allowed list (see iosstyle.MemberOwner), never the rest of the list.
// It does not depend on the profile, so settings the profile drops are
// removed from the device.
func ownedScope(sw *intent.Switch) devcfg.Scope {
	s := devcfg.Scope{Lines: []devcfg.LineOwner{
		{Prefix: "class-map type qos match-any " + Marker + "_", Subtree: true},
		{Prefix: "class-map type qos match-all " + Marker + "_", Subtree: true},
		{Prefix: "policy-map type qos " + Marker + "_", Subtree: true},
		{Prefix: "policy-map type network-qos " + Marker + "_", Subtree: true},
		{Prefix: "policy-map type queuing " + Marker + "_", Subtree: true},
		{Parents: []string{systemQoS}, Prefix: "service-policy type network-qos "},
		{Parents: []string{systemQoS}, Prefix: "service-policy type queuing output "},
		{Prefix: "priority-flow-control watch-dog-interval "},
	}}
	if sw.Policy.VLAN != 0 && renderers.HasSwitchedPort(sw.Ports) {
		s.Lines = append(s.Lines, devcfg.LineOwner{Prefix: vlanLine(sw.Policy.VLAN), Exact: true})
	}
	seen := map[string]bool{}
	own := func(iface string, l3, trunk bool) {
		if seen[iface] {
			return
		}
		seen[iface] = true
		parents := []string{iface}
		s.Lines = append(s.Lines, devcfg.LineOwner{Parents: parents, Prefix: "priority-flow-control mode "})
		if !l3 {
			s.Lines = append(s.Lines, devcfg.LineOwner{Parents: parents, Prefix: "channel-group "})
			return
		}
		s.Lines = append(s.Lines,
			devcfg.LineOwner{Parents: parents, Prefix: "switchport", Exact: true},
			devcfg.LineOwner{Parents: parents, Prefix: "switchport mode "},
			devcfg.LineOwner{Parents: parents, Prefix: "switchport access vlan "},
			devcfg.LineOwner{Parents: parents, Prefix: "mtu "},
			devcfg.LineOwner{Parents: parents, Prefix: "service-policy type qos input "},
		)
		if sw.Policy.VLAN != 0 {
			s.Lines = append(s.Lines, iosstyle.MemberOwner(parents, sw.Policy.VLAN, trunk))
		}
	}
	for _, port := range sw.Ports {
		trunk := port.Mode == "trunk"
		if port.LAG == "" {
			own("interface "+port.Name, true, trunk)
			continue
		}
		own("interface "+port.Name, false, trunk)
		if id, err := iosstyle.LAGID(sw.Name, port.Name, port.LAG, LAGs); err == nil {
			own("interface port-channel"+id, true, trunk)
		}
	}
	return s
}
