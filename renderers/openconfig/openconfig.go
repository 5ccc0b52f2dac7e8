package openconfig

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers"
)

// Name is the platform name in intent files.
const Name = "openconfig"

// Object names rocefab owns.
const (
	Classifier      = "ROCEFAB_ROCE"
	GroupRoCE       = "ROCEFAB_ROCE"
	GroupCNP        = "ROCEFAB_CNP"
	GroupOther      = "ROCEFAB_OTHER"
	QueuePrefix     = "ROCEFAB_Q"
	ECNProfile      = "ROCEFAB_ECN"
	SchedulerPolicy = "ROCEFAB_SCHED"
	Marker          = "ROCEFAB"
)

// Identities and enumerations, in JSON_IETF form.
const (
	identOneRateTwoColor = "openconfig-qos-types:ONE_RATE_TWO_COLOR"
	identEthernet        = "iana-if-type:ethernetCsmacd"
	identLAG             = "iana-if-type:ieee8023adLag"
)

// L2Header is what OpenConfig's interface MTU counts on top of the IP MTU.
const L2Header = 14

// MTUCeiling is the IP MTU "max" renders: 9202 + 14 = an L2 MTU of 9216,
// the common jumbo maximum.
const MTUCeiling = 9216 - L2Header

// dwrrWeight is the share of the RoCE and the other queue.
const dwrrWeight = 50

// PortPattern accepts the interface names OpenConfig targets use: Ethernet1,
// Ethernet1/1, Ethernet0 (SONiC), Eth1/1, et-0/0/0, swp1 and the like.
var PortPattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.:/-]*[0-9]$`)

// Register adds the OpenConfig platform.
func Register(r *renderers.Registry) error {
	attrs := Attributes()
	// The fallbacks are the registry's, found when a switch renders.
	attrs.Fit = fitWith(r)
	return r.Register(renderers.Entry{Name: Name, New: func() renderers.Renderer { return Renderer{Fallbacks: r} }, Attrs: attrs})
}

// Attributes are the OpenConfig platform facts.
func Attributes() renderers.Attributes {
	return renderers.Attributes{
		Platform: devcfg.Platform{
			Name:        Name,
			Shape:       devcfg.ShapePaths,
			Commit:      devcfg.CommitGNMI,
			ShowRunning: "gNMI Get (CONFIG, JSON_IETF) of the owned paths",
			Syntax:      devcfg.Syntax{Style: devcfg.StylePaths},
			Parse:       Parse,
			Normalise:   Normalise,
			Models:      []string{"openconfig-interfaces", "openconfig-if-ethernet", "openconfig-vlan", "openconfig-qos"},
		},
		Transports:       []string{"gnmi"},
		MTUCeiling:       MTUCeiling,
		PortPattern:      PortPattern,
		PortExample:      "Ethernet1",
		NeedsPFCFallback: true,
		// A PFC fallback's device-wide settings are its platform's: the
		// fallback claims them in the rendered config.
		Sources: Sources,
		Classify: renderers.ClassifyByKeywords(map[string]string{
			"/config/mtu":           "an MTU change re-programs the port and can flap the link",
			"network-qos":           "a network-qos change re-carves buffers and briefly pauses traffic",
			"priority-flow-control": "a PFC change re-programs pause on the port: in-flight lossless traffic may drop",
			"pfc":                   "a PFC change re-programs pause on the port: in-flight lossless traffic may drop",
			"BUFFER_":               "a buffer change re-carves headroom: traffic drops while buffers are re-allocated",
			"enable-flow-control":   "an 802.3x pause change renegotiates flow control on the link",
		}),
		Encode:  Encode,
		FileExt: ".json",
		Fit:     Fit,
	}
}

// Renderer renders OpenConfig paths plus the native PFC fallback.
type Renderer struct {
	// Fallbacks is the registry whose platforms carry PFC
	// (Attributes.PFCFallback); nil: none.
	Fallbacks *renderers.Registry
}

// keyValue escapes a list key value for a path string.
func keyValue(s string) string {
	if !strings.ContainsAny(s, `\]`) {
		return s
	}
	return strings.NewReplacer(`\`, `\\`, `]`, `\]`).Replace(s)
}

// list is "name[key=value]".
func list(name, key, value string) string { return name + "[" + key + "=" + keyValue(value) + "]" }

func queueName(q int) string { return QueuePrefix + strconv.Itoa(q) }

// Render renders the complete lossless configuration of sw's RoCE ports.
func (r Renderer) Render(sw *intent.Switch) (*devcfg.Config, error) {
	cfg, err := r.render(sw)
	if err != nil {
		return nil, fmt.Errorf("switch %s: %w", sw.Name, err)
	}
	return cfg, nil
}

func (r Renderer) render(sw *intent.Switch) (*devcfg.Config, error) {
	p := sw.Policy
	if p.Trust != "dscp" {
		return nil, fmt.Errorf("trust %s: OpenConfig classifiers match DSCP but not 802.1p (PCP); use trust dscp", p.Trust)
	}
	cls, err := renderers.PlanClasses(p)
	if err != nil {
		return nil, err
	}
	if err := renderers.CheckDSCPs(p); err != nil {
		return nil, err
	}
	l3 := renderers.SwitchMTU(p, MTUCeiling)
	l2 := l3 + L2Header
	if l3 < 68 || l2 > 65535 {
		return nil, fmt.Errorf("MTU %d does not fit OpenConfig's uint16 L2 MTU", l3)
	}
	if p.PFCOn() && sw.OCFallback == "" {
		return nil, fmt.Errorf("OpenConfig has no PFC model: declare openconfig.pfcFallback.platform (%s to carry PFC, or none), or use profile ecn-only", fallbackCarriers(r.Fallbacks))
	}

	out := make(devcfg.Paths, 200+24*len(sw.Ports))
	scope := devcfg.Scope{PathPrefixes: []string{
		"/qos/classifiers/classifier[name=" + Marker + "_",
		"/qos/forwarding-groups/forwarding-group[name=" + Marker + "_",
		"/qos/queues/queue[name=" + Marker + "_",
		"/qos/queue-management-profiles/queue-management-profile[name=" + Marker + "_",
		"/qos/scheduler-policies/scheduler-policy[name=" + Marker + "_",
	}}
	var notes []string

	// Queues and forwarding groups: RoCE, CNP and everything else.
	groups := []struct {
		name  string
		queue int
	}{{GroupRoCE, cls.RoCE}, {GroupCNP, cls.CNP}, {GroupOther, cls.Other}}
	for _, g := range groups {
		q := "/qos/queues/" + list("queue", "name", queueName(g.queue))
		out[q+"/config/name"] = devcfg.String(queueName(g.queue))
		out[q+"/config/queue-id"] = devcfg.Int(int64(g.queue))
		fg := "/qos/forwarding-groups/" + list("forwarding-group", "name", g.name)
		out[fg+"/config/name"] = devcfg.String(g.name)
		out[fg+"/config/output-queue"] = devcfg.String(queueName(g.queue))
	}

	// Classifier: every DSCP explicit.
	c := "/qos/classifiers/" + list("classifier", "name", Classifier)
	out[c+"/config/name"] = devcfg.String(Classifier)
	out[c+"/config/type"] = devcfg.String("IPV4")
	term := func(id string, group string, dscp ...int) {
		t := c + "/terms/" + list("term", "id", id)
		out[t+"/config/id"] = devcfg.String(id)
		if len(dscp) == 1 {
			out[t+"/conditions/ipv4/config/dscp"] = devcfg.Int(int64(dscp[0]))
		} else {
			out[t+"/conditions/ipv4/config/dscp-set"] = devcfg.JSON(dscp)
		}
		out[t+"/actions/config/target-group"] = devcfg.String(group)
	}
	roce := slices.Clone(p.RoCEDSCP)
	slices.Sort(roce)
	roce = slices.Compact(roce)
	for _, d := range roce {
		term("ROCE_"+strconv.Itoa(d), GroupRoCE, d)
	}
	term("CNP_"+strconv.Itoa(p.CNPDSCP), GroupCNP, p.CNPDSCP)
	var rest []int
	for d := 0; d < 64; d++ {
		if d != p.CNPDSCP && !slices.Contains(roce, d) {
			rest = append(rest, d)
		}
	}
	term("OTHER", GroupOther, rest...)

	// ECN on the RoCE queue.
	ecn := p.ECNOn()
	if ecn {
		if p.ECNMax < p.ECNMin {
			return nil, fmt.Errorf("ECN max threshold %d bytes is below the min threshold %d bytes", p.ECNMax, p.ECNMin)
		}
		if p.MarkProbability < 0 || p.MarkProbability > 100 {
			return nil, fmt.Errorf("mark probability %d%% is outside 0..100", p.MarkProbability)
		}
		m := "/qos/queue-management-profiles/" + list("queue-management-profile", "name", ECNProfile)
		out[m+"/config/name"] = devcfg.String(ECNProfile)
		w := m + "/wred/uniform/config/"
		out[w+"min-threshold"] = devcfg.Uint64(p.ECNMin)
		out[w+"max-threshold"] = devcfg.Uint64(p.ECNMax)
		out[w+"enable-ecn"] = devcfg.Bool(true)
		out[w+"drop"] = devcfg.Bool(false)
		out[w+"max-drop-probability-percent"] = devcfg.Int(int64(p.MarkProbability))
		out[w+"weight"] = devcfg.Int(0)
	}

	// Scheduling: CNP strict first, then RoCE and the rest weighted.
	sp := "/qos/scheduler-policies/" + list("scheduler-policy", "name", SchedulerPolicy)
	out[sp+"/config/name"] = devcfg.String(SchedulerPolicy)
	sched := func(seq int, strict bool, inputs ...struct {
		group string
		queue int
	}) {
		s := sp + "/schedulers/" + list("scheduler", "sequence", strconv.Itoa(seq))
		out[s+"/config/sequence"] = devcfg.Int(int64(seq))
		out[s+"/config/type"] = devcfg.String(identOneRateTwoColor)
		if strict {
			out[s+"/config/priority"] = devcfg.String("STRICT")
		}
		for _, in := range inputs {
			i := s + "/inputs/" + list("input", "id", in.group)
			out[i+"/config/id"] = devcfg.String(in.group)
			out[i+"/config/input-type"] = devcfg.String("QUEUE")
			out[i+"/config/queue"] = devcfg.String(queueName(in.queue))
			if !strict {
				out[i+"/config/weight"] = devcfg.Uint64(dwrrWeight)
			}
		}
	}
	type input = struct {
		group string
		queue int
	}
	sched(0, true, input{GroupCNP, cls.CNP})
	sched(1, false, input{GroupRoCE, cls.RoCE}, input{GroupOther, cls.Other})

	// Ports.
	vlan := p.VLAN
	if vlan != 0 && (vlan < 1 || vlan > 4094) {
		return nil, fmt.Errorf("VLAN %d is outside 1..4094", vlan)
	}
	lagMode := map[string]string{}
	var lags []string
	var trunks []string // interfaces whose trunk-vlans rocefab sets
	isTrunk := map[string]bool{}
	switched := false
	for _, port := range sw.Ports {
		if !PortPattern.MatchString(port.Name) {
			return nil, fmt.Errorf("port %q is not an interface name (e.g. Ethernet1)", port.Name)
		}
		i := "/interfaces/" + list("interface", "name", port.Name)
		owned := []string{i + "/config/name", i + "/config/type", i + "/config/mtu", i + "/ethernet/config/enable-flow-control"}
		out[i+"/config/name"] = devcfg.String(port.Name)
		out[i+"/config/type"] = devcfg.String(identEthernet)
		out[i+"/config/mtu"] = devcfg.Int(int64(l2))
		// 802.3x pause pauses every class and cannot coexist with PFC.
		out[i+"/ethernet/config/enable-flow-control"] = devcfg.Bool(false)

		vlanParent := i + "/ethernet"
		if port.LAG != "" {
			if !PortPattern.MatchString(port.LAG) {
				return nil, fmt.Errorf("port %s: LAG %q is not an interface name", port.Name, port.LAG)
			}
			out[i+"/ethernet/config/aggregate-id"] = devcfg.String(port.LAG)
			owned = append(owned, i+"/ethernet/config/aggregate-id")
			if m, seen := lagMode[port.LAG]; seen && m != port.Mode {
				return nil, fmt.Errorf("LAG %s has members in modes %s and %s", port.LAG, m, port.Mode)
			} else if !seen {
				lags = append(lags, port.LAG)
			}
			lagMode[port.LAG] = port.Mode
			vlanParent = "/interfaces/" + list("interface", "name", port.LAG) + "/aggregation"
		}
		switch port.Mode {
		case "routed", "":
		case "trunk", "access":
			if vlan == 0 {
				return nil, fmt.Errorf("port %s is %s but the policy has no lossless VLAN", port.Name, port.Mode)
			}
			sv := vlanParent + "/switched-vlan"
			if port.Mode == "trunk" {
				out[sv+"/config/interface-mode"] = devcfg.String("TRUNK")
				out[sv+"/config/trunk-vlans"] = devcfg.JSON([]int{vlan})
				if t := cmp.Or(port.LAG, port.Name); !isTrunk[t] { // a set: a scan per port was quadratic
					isTrunk[t] = true
					trunks = append(trunks, t)
				}
			} else {
				out[sv+"/config/interface-mode"] = devcfg.String("ACCESS")
				out[sv+"/config/access-vlan"] = devcfg.Int(int64(vlan))
			}
			if port.LAG == "" {
				owned = append(owned, sv)
			}
			switched = true
		default:
			return nil, fmt.Errorf("port %s: mode %q is not routed, trunk or access", port.Name, port.Mode)
		}

		q := "/qos/interfaces/" + list("interface", "interface-id", port.Name)
		out[q+"/config/interface-id"] = devcfg.String(port.Name)
		out[q+"/interface-ref/config/interface"] = devcfg.String(port.Name)
		ic := q + "/input/classifiers/" + list("classifier", "type", "IPV4")
		out[ic+"/config/type"] = devcfg.String("IPV4")
		out[ic+"/config/name"] = devcfg.String(Classifier)
		out[q+"/output/scheduler-policy/config/name"] = devcfg.String(SchedulerPolicy)
		if ecn {
			oq := q + "/output/queues/" + list("queue", "name", queueName(cls.RoCE))
			out[oq+"/config/name"] = devcfg.String(queueName(cls.RoCE))
			out[oq+"/config/queue-management-profile"] = devcfg.String(ECNProfile)
		}
		owned = append(owned, q+"/config/interface-id", q+"/interface-ref", ic, q+"/output/scheduler-policy")
		scope.Paths = append(scope.Paths, owned...)
		scope.PathPrefixes = append(scope.PathPrefixes, q+"/output/queues/queue[name="+Marker+"_")
	}
	for _, lag := range lags {
		i := "/interfaces/" + list("interface", "name", lag)
		out[i+"/config/name"] = devcfg.String(lag)
		out[i+"/config/type"] = devcfg.String(identLAG)
		out[i+"/config/mtu"] = devcfg.Int(int64(l2))
		scope.Paths = append(scope.Paths, i+"/config/name", i+"/config/type", i+"/config/mtu")
		if lagMode[lag] == "trunk" || lagMode[lag] == "access" {
			scope.Paths = append(scope.Paths, i+"/aggregation/switched-vlan")
		}
	}
	if switched {
		notes = append(notes, fmt.Sprintf("VLAN %d must exist on the device: OpenConfig keeps VLANs under network-instances, which rocefab does not render", vlan))
	}
	if len(trunks) > 0 {
		notes = append(notes, trunkVLANsNote(trunks, vlan))
	}
	notes = append(notes, fmt.Sprintf("interface MTU %d is the L2 MTU: IP MTU %d plus the %d-byte Ethernet header", l2, l3, L2Header))

	cfg := &devcfg.Config{Shape: devcfg.ShapePaths, Paths: out, Owned: scope}
	if err := addFallback(r.Fallbacks, cfg, sw, cls, l2); err != nil {
		return nil, err
	}
	cfg.Notes = append(notes, cfg.Notes...)
	return cfg, nil
}

// trunkVLANsNote warns that the trunk VLAN list is rocefab's whole: OpenConfig
// keeps a trunk's VLANs in one leaf-list (switched-vlan/config/trunk-vlans),
// the gNMI driver sets a leaf-list with a replace, and a patch carries no
// running value to merge with, so rocefab cannot add one VLAN to the list
// as it does on NX-OS, EOS and Cumulus.
func trunkVLANsNote(trunks []string, vlan int) string {
	shown := trunks
	more := ""
	if len(shown) > 4 {
		shown, more = shown[:4], fmt.Sprintf(" and %d more", len(trunks)-4)
	}
	return fmt.Sprintf("trunk VLANs of %s%s are set to exactly VLAN %d: OpenConfig trunk-vlans is one leaf-list that a gNMI set replaces, "+
		"so any other VLAN those ports carry (storage, management) is removed; to keep them, manage the switch with its native platform, whose renderer adds only the lossless VLAN to a trunk",
		strings.Join(shown, ", "), more, vlan)
}
