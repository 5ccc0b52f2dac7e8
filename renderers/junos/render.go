package junos

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"

	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/devcfg"
)

// Names of the objects rocefab owns.
const (
	Marker         = "ROCEFAB"
	FCNoLoss       = "ROCEFAB_NO_LOSS"
	FCCNP          = "ROCEFAB_CNP"
	ClassifierDSCP = "ROCEFAB_DSCP"
	ClassifierPCP  = "ROCEFAB_PCP"
	DropProfile    = "ROCEFAB_ECN"
	CNProfileDSCP  = "ROCEFAB_PFC_DSCP"
	CNProfilePCP   = "ROCEFAB_PFC_PCP"
	SchedulerMap   = "ROCEFAB_SM"
	VLANName       = "ROCEFAB_LOSSLESS"
)

// L2Header is what Junos media MTU counts beyond the IP MTU.
const L2Header = 14

// MTUCeiling is the largest IP MTU: QFX media MTU 9216 minus the header.
const MTUCeiling = 9216 - L2Header

const cos = "class-of-service"

type renderer struct{}

// New returns the Junos renderer.
func New() renderers.Renderer { return renderer{} }

// pfcBits is the binary form of a code point, e.g. DSCP 26 = 011010.
func pfcBits(v, width int) string {
	s := strconv.FormatInt(int64(v), 2)
	for len(s) < width {
		s = "0" + s
	}
	return s
}

// Render renders the complete lossless configuration of the switch.
func (renderer) Render(sw *intent.Switch) (*devcfg.Config, error) {
	p := sw.Policy
	out := make(devcfg.Paths, 24+8*len(sw.Ports))
	var notes []string

	// Classification follows the trusted field. PFC on tagged (trunk)
	// ports pauses by IEEE 802.1p: Junos DSCP-based PFC works only for
	// untagged traffic.
	usesDSCP := p.Trust != "pcp"
	usesPCP := !usesDSCP
	pfcByPCP, pfcByDSCP := false, false
	for _, port := range sw.Ports {
		if pcpPFC(port, p) {
			pfcByPCP = true
		} else {
			pfcByDSCP = true
		}
	}
	if pfcByPCP && usesDSCP && p.PFCOn() {
		notes = append(notes, "junos: trunk ports pause by IEEE 802.1p (PCP "+strconv.Itoa(p.NoDropPriority)+
			"): Junos DSCP-based PFC works only on untagged traffic, so hosts must tag RoCE with that PCP")
	}

	noLoss := strconv.Itoa(p.NoDropPriority)
	if p.PFCOn() {
		set(out, cos, "forwarding-classes", "class", FCNoLoss, "queue-num", noLoss, "no-loss")
		set(out, cos, "forwarding-classes", "class", FCNoLoss, "pfc-priority", noLoss)
	} else {
		set(out, cos, "forwarding-classes", "class", FCNoLoss, "queue-num", noLoss)
	}
	set(out, cos, "forwarding-classes", "class", FCCNP, "queue-num", strconv.Itoa(p.CNPPriority))

	if usesDSCP {
		dscps := slices.Clone(p.RoCEDSCP)
		slices.Sort(dscps)
		for _, d := range slices.Compact(dscps) {
			set(out, cos, "classifiers", "dscp", ClassifierDSCP, "forwarding-class", FCNoLoss, "loss-priority", "low", "code-points", pfcBits(d, 6))
		}
		set(out, cos, "classifiers", "dscp", ClassifierDSCP, "forwarding-class", FCCNP, "loss-priority", "low", "code-points", pfcBits(p.CNPDSCP, 6))
	}
	if usesPCP {
		set(out, cos, "classifiers", "ieee-802.1", ClassifierPCP, "forwarding-class", FCNoLoss, "loss-priority", "low", "code-points", pfcBits(p.NoDropPriority, 3))
		set(out, cos, "classifiers", "ieee-802.1", ClassifierPCP, "forwarding-class", FCCNP, "loss-priority", "low", "code-points", pfcBits(p.CNPPriority, 3))
	}

	if p.PFCOn() {
		if pfcByDSCP {
			for _, d := range p.RoCEDSCP {
				set(out, cos, "congestion-notification-profile", CNProfileDSCP, "input", "dscp", "code-point", pfcBits(d, 6), "pfc")
			}
			if extra := slices.DeleteFunc(slices.Clone(p.PFCPriorities), func(q int) bool { return q == p.NoDropPriority }); len(extra) > 0 {
				notes = append(notes, fmt.Sprintf("junos: DSCP-based PFC pauses only the RoCE DSCPs; PFC priorities %v have no DSCP on untagged ports", extra))
			}
			if p.Watchdog.Enabled {
				set(out, cos, "congestion-notification-profile", CNProfileDSCP, "pfc-watchdog")
			}
		}
		if pfcByPCP {
			prios := slices.Clone(p.PFCPriorities)
			slices.Sort(prios)
			for _, q := range slices.Compact(prios) {
				set(out, cos, "congestion-notification-profile", CNProfilePCP, "input", "ieee-802.1", "code-point", pfcBits(q, 3), "pfc")
			}
			if p.Watchdog.Enabled {
				set(out, cos, "congestion-notification-profile", CNProfilePCP, "pfc-watchdog")
			}
		}
		if w := p.Watchdog; w.Enabled && (w.Detection != 0 || w.Restoration != 0 || w.Action != "") {
			notes = append(notes, "junos: PFC watchdog timing and action keep the Junos defaults")
		}
	}
	if p.CableLength != 0 || p.Headroom != 0 || p.Xoff != 0 || p.Xon != 0 {
		notes = append(notes, "junos: PFC headroom, xoff, xon and cable length keep the Junos defaults (shared-buffer partitions are not rendered)")
	}

	if p.ECNOn() {
		lo, hi, err := fillLevels(sw)
		if err != nil {
			return nil, err
		}
		set(out, cos, "drop-profiles", DropProfile, "interpolate", "fill-level", strconv.Itoa(lo))
		set(out, cos, "drop-profiles", DropProfile, "interpolate", "fill-level", strconv.Itoa(hi))
		set(out, cos, "drop-profiles", DropProfile, "interpolate", "drop-probability", "0")
		set(out, cos, "drop-profiles", DropProfile, "interpolate", "drop-probability", strconv.Itoa(p.MarkProbability))
		set(out, cos, "schedulers", FCNoLoss, "drop-profile-map", "loss-priority", "any", "protocol", "any", "drop-profile", DropProfile)
		set(out, cos, "schedulers", FCNoLoss, "explicit-congestion-notification")
	} else {
		set(out, cos, "schedulers", FCNoLoss, "transmit-rate", "percent", "50")
	}
	set(out, cos, "schedulers", FCCNP, "priority", "strict-high")
	set(out, cos, "schedulers", FCCNP, "transmit-rate", "percent", "5")
	set(out, cos, "scheduler-maps", SchedulerMap, "forwarding-class", FCNoLoss, "scheduler", FCNoLoss)
	set(out, cos, "scheduler-maps", SchedulerMap, "forwarding-class", FCCNP, "scheduler", FCCNP)

	if p.VLAN != 0 && renderers.HasSwitchedPort(sw.Ports) {
		set(out, "vlans", VLANName, "vlan-id", strconv.Itoa(p.VLAN))
	}
	mtu := strconv.Itoa(renderers.SwitchMTU(p, MTUCeiling) + L2Header)
	for _, port := range sw.Ports {
		iface := port.Name
		if port.LAG != "" {
			set(out, "interfaces", port.Name, "ether-options", "802.3ad", port.LAG)
			iface = port.LAG
		}
		set(out, "interfaces", iface, "mtu", mtu)
		if port.Mode == "trunk" || port.Mode == "access" {
			set(out, "interfaces", iface, "unit", "0", "family", "ethernet-switching", "interface-mode", port.Mode)
			set(out, "interfaces", iface, "unit", "0", "family", "ethernet-switching", "vlan", "members", VLANName)
		}
		set(out, cos, "interfaces", iface, "scheduler-map", SchedulerMap)
		if usesPCP {
			set(out, cos, "interfaces", iface, "unit", "0", "classifiers", "ieee-802.1", ClassifierPCP)
		} else {
			set(out, cos, "interfaces", iface, "unit", "0", "classifiers", "dscp", ClassifierDSCP)
		}
		if p.PFCOn() {
			profile := CNProfileDSCP
			if pcpPFC(port, p) {
				profile = CNProfilePCP
			}
			set(out, cos, "interfaces", iface, "congestion-notification-profile", profile)
		}
	}
	return &devcfg.Config{
		Device: sw.Name, Platform: "junos", Shape: devcfg.ShapePaths, Paths: out,
		Owned: ownedScope(sw), Notes: notes,
	}, nil
}

// fillLevels are the ECN thresholds as whole percentages of the queue
// buffer: junos.fillLevelMin/Max when given, else computed exactly from
// junos.queueBufferSize. A fraction of a percent is an error, never rounded.
func fillLevels(sw *intent.Switch) (int, int, error) {
	j, p := sw.Junos, sw.Policy
	if j.FillLevelMin != nil && j.FillLevelMax != nil {
		lo, hi := j.FillLevelMin.N, j.FillLevelMax.N
		if lo < 0 || hi > 100 || lo >= hi {
			return 0, 0, fmt.Errorf("switch %s: junos fill levels %d..%d %% must satisfy 0 <= min < max <= 100", sw.Name, lo, hi)
		}
		return lo, hi, nil
	}
	if j.QueueBufferSize == nil || j.QueueBufferSize.N == 0 {
		return 0, 0, fmt.Errorf("switch %s: Junos takes ECN thresholds only as a percentage of the queue buffer; set junos.queueBufferSize or junos.fillLevelMin/fillLevelMax", sw.Name)
	}
	buf := j.QueueBufferSize.N
	pct := func(what string, n uint64) (int, error) {
		r := new(big.Rat).SetFrac(new(big.Int).SetUint64(n*100), new(big.Int).SetUint64(buf))
		if !r.IsInt() {
			f, _ := r.Float64()
			return 0, fmt.Errorf("switch %s: ECN %s %d bytes is %.4g %% of the %d-byte queue buffer, not a whole percentage (Junos fill levels are whole percent); adjust the threshold or set junos.fillLevelMin/fillLevelMax", sw.Name, what, n, f, buf)
		}
		v := r.Num().Int64()
		if v > 100 {
			return 0, fmt.Errorf("switch %s: ECN %s %d bytes exceeds the %d-byte queue buffer (%d %%)", sw.Name, what, n, buf, v)
		}
		return int(v), nil
	}
	lo, err := pct("minimum", p.ECNMin)
	if err != nil {
		return 0, 0, err
	}
	hi, err := pct("maximum", p.ECNMax)
	if err != nil {
		return 0, 0, err
	}
	if lo >= hi {
		return 0, 0, fmt.Errorf("switch %s: ECN fill levels %d..%d %% are not increasing", sw.Name, lo, hi)
	}
	return lo, hi, nil
}

// pcpPFC: the port pauses by IEEE 802.1p, because its RoCE traffic is
// VLAN-tagged or classified by PCP.
func pcpPFC(port intent.Port, p intent.Policy) bool { return port.Mode == "trunk" || p.Trust == "pcp" }

// ownedScope: every ROCEFAB_ object under class-of-service and vlans, and
// only the listed settings of the listed interfaces.
func ownedScope(sw *intent.Switch) devcfg.Scope {
	s := devcfg.Scope{PathPrefixes: []string{
		cos + " classifiers dscp " + Marker + "_",
		cos + " classifiers ieee-802.1 " + Marker + "_",
		cos + " forwarding-classes class " + Marker + "_",
		cos + " drop-profiles " + Marker + "_",
		cos + " congestion-notification-profile " + Marker + "_",
		cos + " schedulers " + Marker + "_",
		cos + " scheduler-maps " + Marker + "_",
		"vlans " + Marker + "_",
	}}
	s.Paths = make([]string, 0, 7*len(sw.Ports))
	seen := make(map[string]bool, len(sw.Ports))
	for _, port := range sw.Ports {
		iface := port.Name
		if port.LAG != "" {
			s.Paths = append(s.Paths, "interfaces "+port.Name+" ether-options 802.3ad")
			iface = port.LAG
		}
		if seen[iface] {
			continue
		}
		seen[iface] = true
		s.Paths = append(s.Paths,
			"interfaces "+iface+" mtu",
			"interfaces "+iface+" unit 0 family ethernet-switching interface-mode",
			// Membership of the lossless VLAN only: other VLANs on the port
			// belong to other configuration and are never removed.
			"interfaces "+iface+" unit 0 family ethernet-switching vlan members "+VLANName,
			cos+" interfaces "+iface+" scheduler-map",
			cos+" interfaces "+iface+" congestion-notification-profile",
			cos+" interfaces "+iface+" unit 0 classifiers",
		)
	}
	return s
}
