package junos

import (
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers"
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
	SchedulerBE    = "ROCEFAB_BE"
	SchedulerNC    = "ROCEFAB_NC"
	VLANName       = "ROCEFAB_LOSSLESS"
)

// Junos's own forwarding classes that RoCE-port traffic still uses: every
// other code point (best-effort) and host outbound traffic
// (network-control).
const (
	FCBestEffort     = "best-effort"
	FCNetworkControl = "network-control"
)

// defaultLossless are the queues of Junos's default lossless classes
// (fcoe on 3, no-loss on 4). A queue carries one drop attribute, so no
// lossy class may share them.
var defaultLossless = map[int]bool{3: true, 4: true}

// queues picks the output queue of the RoCE and CNP classes: their
// priority's own queue, except that a lossy class moves off the default
// lossless queues 3 and 4 to the first free of 5, 6, 2, 1.
func queues(p intent.Policy) (roce, cnp int, note string) {
	roce, cnp = p.NoDropPriority, p.CNPPriority
	used := map[int]bool{0: true, 7: true, roce: true, cnp: true}
	move := func(q int, what string) int {
		for _, alt := range []int{5, 6, 2, 1} {
			if !used[alt] {
				used[alt] = true
				note += fmt.Sprintf("junos: the lossy %s class uses queue %d: queue %d belongs to Junos's default lossless classes (one drop attribute per queue); ", what, alt, q)
				return alt
			}
		}
		return q
	}
	if !p.PFCOn() && defaultLossless[roce] {
		roce = move(roce, "RoCE")
	}
	if defaultLossless[cnp] {
		cnp = move(cnp, "CNP")
	}
	return roce, cnp, strings.TrimSuffix(note, "; ")
}

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

	// Queues: the lossless class on the no-drop priority's queue. Junos
	// takes one drop attribute per queue and keeps its default lossless
	// classes fcoe (queue 3) and no-loss (queue 4), so a lossy class never
	// lands on those queues (ecn-only, or a CNP priority of 3 or 4).
	roceQueue, cnpQueue, note := queues(p)
	if note != "" {
		notes = append(notes, note)
	}
	noLoss := strconv.Itoa(roceQueue)
	if p.PFCOn() {
		set(out, cos, "forwarding-classes", "class", FCNoLoss, "queue-num", noLoss, "no-loss")
		set(out, cos, "forwarding-classes", "class", FCNoLoss, "pfc-priority", strconv.Itoa(p.NoDropPriority))
	} else {
		set(out, cos, "forwarding-classes", "class", FCNoLoss, "queue-num", noLoss)
	}
	set(out, cos, "forwarding-classes", "class", FCCNP, "queue-num", strconv.Itoa(cnpQueue))

	// Classifiers are complete: every other code point goes to
	// best-effort explicitly, so the classes in use are the ones the
	// scheduler map covers.
	if usesDSCP {
		roce := map[int]bool{}
		for _, d := range p.RoCEDSCP {
			roce[d] = true
		}
		for d := 0; d < 64; d++ {
			fc := FCBestEffort
			switch {
			case roce[d]:
				fc = FCNoLoss
			case d == p.CNPDSCP:
				fc = FCCNP
			}
			set(out, cos, "classifiers", "dscp", ClassifierDSCP, "forwarding-class", fc, "loss-priority", "low", "code-points", pfcBits(d, 6))
		}
	}
	if usesPCP {
		for c := 0; c < 8; c++ {
			fc := FCBestEffort
			switch c {
			case p.NoDropPriority:
				fc = FCNoLoss
			case p.CNPPriority:
				fc = FCCNP
			}
			set(out, cos, "classifiers", "ieee-802.1", ClassifierPCP, "forwarding-class", fc, "loss-priority", "low", "code-points", pfcBits(c, 3))
		}
	}

	if p.PFCOn() {
		prios := slices.Clone(p.PFCPriorities)
		slices.Sort(prios)
		prios = slices.Compact(prios)
		// The pause response: each PFC priority pauses its queue. Juniper's
		// PFC watchdog watches only queues named by flow-control-queue, so
		// without this stanza the leaves have no storm protection.
		output := func(profile string) {
			for _, q := range prios {
				queue := q
				if q == p.NoDropPriority {
					queue = roceQueue
				}
				set(out, cos, "congestion-notification-profile", profile, "output", "ieee-802.1", "code-point", pfcBits(q, 3), "flow-control-queue", strconv.Itoa(queue))
			}
			if p.Watchdog.Enabled {
				set(out, cos, "congestion-notification-profile", profile, "pfc-watchdog")
			}
		}
		// Junos sizes the PFC headroom of a port from the cable length of
		// its profile (100 m by default): the device's length goes on the
		// base profiles, and ports cabled otherwise get a copy for their
		// length.
		if pfcByDSCP {
			if extra := slices.DeleteFunc(slices.Clone(p.PFCPriorities), func(q int) bool { return q == p.NoDropPriority }); len(extra) > 0 {
				notes = append(notes, fmt.Sprintf("junos: DSCP-based PFC pauses only the RoCE DSCPs; PFC priorities %v have no DSCP on untagged ports", extra))
			}
		}
		made := map[string]bool{}
		for _, port := range sw.Ports {
			name := cnProfile(port, p)
			if made[name] {
				continue
			}
			made[name] = true
			base, cable := CNProfileDSCP, cableOf(port, p)
			if pcpPFC(port, p) {
				base = CNProfilePCP
				for _, q := range prios {
					set(out, cos, "congestion-notification-profile", name, "input", "ieee-802.1", "code-point", pfcBits(q, 3), "pfc")
				}
			} else {
				for _, d := range p.RoCEDSCP {
					set(out, cos, "congestion-notification-profile", name, "input", "dscp", "code-point", pfcBits(d, 6), "pfc")
				}
			}
			if cable != defaultCableLength || name != base {
				set(out, cos, "congestion-notification-profile", name, "input", "cable-length", strconv.Itoa(cable))
			}
			output(name)
		}
		if w := p.Watchdog; w.Enabled && (w.Detection != 0 || w.Restoration != 0) {
			notes = append(notes, "junos: PFC watchdog timing keeps the Junos defaults (100 ms polls, detection after 2, 200 ms recovery)")
		}
		if w := p.Watchdog; w.Enabled && w.Action == "forward" {
			notes = append(notes, "junos: PFC watchdog action forward has no Junos equivalent; Junos disables and flushes the stuck queue (drop)")
		}
	}
	if p.PFCOn() && (p.Headroom != 0 || p.Xoff != 0 || p.Xon != 0) {
		notes = append(notes, "junos: PFC headroom, xoff and xon are not rendered: Junos sizes headroom from the cable length (shared-buffer partitions are not rendered)")
	}

	// Schedulers: every class in use gets one (Juniper: a class without a
	// scheduler may drop even short bursts), and the RoCE queue a
	// guaranteed rate. 50 + 40 + 5 + 5 = 100 percent.
	if p.ECNOn() {
		j, err := settingsOf(sw)
		if err != nil {
			return nil, err
		}
		lo, hi, err := fillLevels(sw, j)
		if err != nil {
			return nil, err
		}
		set(out, cos, "drop-profiles", DropProfile, "interpolate", "fill-level", strconv.Itoa(lo))
		set(out, cos, "drop-profiles", DropProfile, "interpolate", "fill-level", strconv.Itoa(hi))
		set(out, cos, "drop-profiles", DropProfile, "interpolate", "drop-probability", "0")
		set(out, cos, "drop-profiles", DropProfile, "interpolate", "drop-probability", strconv.Itoa(p.MarkProbability))
		set(out, cos, "schedulers", FCNoLoss, "drop-profile-map", "loss-priority", "any", "protocol", "any", "drop-profile", DropProfile)
		set(out, cos, "schedulers", FCNoLoss, "explicit-congestion-notification")
	}
	set(out, cos, "schedulers", FCNoLoss, "transmit-rate", "percent", "50")
	set(out, cos, "schedulers", FCCNP, "priority", "strict-high")
	set(out, cos, "schedulers", FCCNP, "transmit-rate", "percent", "5")
	set(out, cos, "schedulers", SchedulerBE, "transmit-rate", "percent", "40")
	set(out, cos, "schedulers", SchedulerNC, "transmit-rate", "percent", "5")
	set(out, cos, "scheduler-maps", SchedulerMap, "forwarding-class", FCNoLoss, "scheduler", FCNoLoss)
	set(out, cos, "scheduler-maps", SchedulerMap, "forwarding-class", FCCNP, "scheduler", FCCNP)
	set(out, cos, "scheduler-maps", SchedulerMap, "forwarding-class", FCBestEffort, "scheduler", SchedulerBE)
	set(out, cos, "scheduler-maps", SchedulerMap, "forwarding-class", FCNetworkControl, "scheduler", SchedulerNC)

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
			set(out, cos, "interfaces", iface, "congestion-notification-profile", cnProfile(port, p))
		}
	}
	return &devcfg.Config{
		Device: sw.Name, Platform: "junos", Shape: devcfg.ShapePaths, Paths: out,
		Owned: ownedScope(sw), Singletons: activeSingletons(out), Notes: notes,
	}, nil
}

// activeSingletons claim that every statement rocefab renders, and every
// node above it, is active: a `deactivate` of any of them (Parse keeps it
// as the path "deactivate X" with the value "deactivate X") leaves
// rocefab's statements configured but not running, so the plan reports it
// as a conflict naming the inactive node, instead of planning the same
// `set` lines forever. rocefab never activates a node itself: other
// configuration below it would run too.
func activeSingletons(stmts devcfg.Paths) []devcfg.Singleton {
	nodes := make([]string, 0, len(stmts))
	for _, k := range stmts.Keys() {
		nodes = append(nodes, statement(k, stmts[k]))
	}
	return []devcfg.Singleton{{
		Name:  "active statements (a deactivated node stops rocefab's statements below it from running; activate it)",
		Path:  Inactive,
		Nodes: nodes,
		Want:  "active",
	}}
}

// fillLevels are the ECN thresholds as whole percentages of the queue
// buffer: junos.fillLevelMin/Max when given, else computed exactly from
// junos.queueBufferSize. A fraction of a percent is an error, never rounded.
func fillLevels(sw *intent.Switch, j Settings) (int, int, error) {
	p := sw.Policy
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

// defaultCableLength is the cable length Junos sizes PFC headroom for when
// a congestion notification profile sets none.
const defaultCableLength = 100

// HeadroomFacts: Junos sizes PFC headroom itself from the cable length of
// the congestion notification profile (100 m by default); explicit buffer
// values are not rendered.
var HeadroomFacts = renderers.HeadroomFacts{DefaultCableLength: defaultCableLength, DefaultCableSource: srcCableLength}

// cableOf is the cable length a port's profile carries: its link's, else
// pfc.cableLength, else the Junos default.
func cableOf(port intent.Port, p intent.Policy) int {
	switch {
	case port.Cable != nil && port.Cable.Length > 0:
		return port.Cable.Length
	case p.CableLength > 0:
		return p.CableLength
	}
	return defaultCableLength
}

// cnProfile is the congestion notification profile of a port: DSCP- or
// PCP-based, with a _<N>M suffix when its cable differs from the device's
// length (ROCEFAB_PFC_DSCP_300M).
func cnProfile(port intent.Port, p intent.Policy) string {
	name := CNProfileDSCP
	if pcpPFC(port, p) {
		name = CNProfilePCP
	}
	device := defaultCableLength
	if p.CableLength > 0 {
		device = p.CableLength
	}
	if c := cableOf(port, p); c != device {
		name += "_" + strconv.Itoa(c) + "M"
	}
	return name
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
