package cumulus

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers"
)

// MTUCeiling is the Spectrum jumbo maximum (Linux MTU, no L2 header).
const MTUCeiling = 9216

// Profile is the NVUE profile rocefab configures: NVUE's own global one.
const Profile = "default-global"

// Bridge is the NVUE default VLAN-aware bridge.
const Bridge = "br_default"

// NVUE defaults rocefab never renders at their default value, so the
// normaliser may drop them when a device shows them.
const (
	defaultCableLength = 100
	defaultPortBuffer  = 25000
	defaultXoff        = 10000
	defaultXon         = 2000
)

type renderer struct{}

// New returns the Cumulus NVUE renderer.
func New() renderers.Renderer { return renderer{} }

// path joins NVUE path words: the model's keys are the words of the `nv
// set` command, which are also the keys of `nv config show -o json`.
func path(words ...string) string { return strings.Join(words, " ") }

func itoa(n int) string { return strconv.Itoa(n) }

// Render renders the complete lossless configuration of the switch.
func (renderer) Render(sw *intent.Switch) (*devcfg.Config, error) {
	p := sw.Policy
	out := make(devcfg.Paths, 110+4*len(sw.Ports))
	var notes []string
	mapping := path("qos mapping", Profile)

	// Classification: an explicit, complete map (never `nv set qos roce`,
	// a Spectrum-only shortcut that would own all of QoS).
	if p.Trust == "pcp" {
		out[path(mapping, "trust")] = devcfg.String("l2")
		for c := 0; c < 8; c++ {
			out[path(mapping, "pcp", itoa(c), "switch-priority")] = devcfg.Int(int64(c))
		}
	} else {
		out[path(mapping, "trust")] = devcfg.String("l3")
		for d, sp := range renderers.DSCPClasses(p) {
			out[path(mapping, "dscp", itoa(d), "switch-priority")] = devcfg.Int(int64(sp))
		}
	}
	// Every switch priority lands in a class the scheduler serves: RoCE,
	// CNP and other lossless priorities in their own class, the rest
	// folded into one class, as NVIDIA's RoCE profile does (SP3 to TC3,
	// SP6 to TC6, the others to TC0).
	classes, err := renderers.PlanClasses(p)
	if err != nil {
		return nil, fmt.Errorf("switch %s: %w", sw.Name, err)
	}
	for sp := 0; sp < 8; sp++ {
		out[path("qos egress-queue-mapping", Profile, "switch-priority", itoa(sp), "traffic-class")] = devcfg.Int(int64(classes.ClassOf(sp)))
	}

	if p.PFCOn() {
		pfc := path("qos pfc", Profile)
		for _, q := range classes.Lossless {
			out[path(pfc, "switch-priority", itoa(q))] = devcfg.Empty
			out[path("qos traffic-pool default-lossless switch-priority", itoa(q))] = devcfg.Empty
		}
		// A switch priority sits in one pool: NVIDIA's examples take it out
		// of default-lossy by setting that pool's priorities to the rest.
		for sp := 0; sp < 8; sp++ {
			if !slices.Contains(classes.Lossless, sp) {
				out[path("qos traffic-pool default-lossy switch-priority", itoa(sp))] = devcfg.Empty
			}
		}
		// The default profile carries the device's cable length; a port
		// whose link is another length gets a profile of its own, the same
		// but for the length, so NVUE sizes its headroom for that cable.
		base := defaultCableLength
		if p.CableLength != 0 {
			base = p.CableLength
		}
		knobs, err := bufferKnobs(sw)
		if err != nil {
			return nil, err
		}
		profile := func(name string, cable int) {
			pp := path("qos pfc", name)
			if name != Profile {
				for _, q := range classes.Lossless {
					out[path(pp, "switch-priority", itoa(q))] = devcfg.Empty
				}
			}
			out[path(pp, "tx")] = devcfg.String("enable")
			out[path(pp, "rx")] = devcfg.String("enable")
			if cable != defaultCableLength || name != Profile {
				out[path(pp, "cable-length")] = devcfg.Int(int64(cable))
			}
			for k, v := range knobs {
				out[path(pp, k)] = devcfg.Int(int64(v))
			}
		}
		profile(Profile, base)
		for _, port := range sw.Ports {
			if port.Cable == nil || port.Cable.Length == 0 || port.Cable.Length == base {
				continue
			}
			name := CableProfile(port.Cable.Length)
			if _, done := out[path("qos pfc", name, "tx")]; !done {
				profile(name, port.Cable.Length)
			}
			out[path("interface", port.Name, "qos pfc profile")] = devcfg.String(name)
		}
		// PFC needs the lossless pool sized before it takes effect.
		out["qos traffic-pool default-lossless memory-percent"] = devcfg.Int(50)
		out["qos traffic-pool default-lossy memory-percent"] = devcfg.Int(50)
	}

	if p.ECNOn() {
		tc := path("qos congestion-control", Profile, "traffic-class", itoa(p.NoDropPriority))
		out[path(tc, "min-threshold")] = devcfg.Int(int64(p.ECNMin))
		out[path(tc, "max-threshold")] = devcfg.Int(int64(p.ECNMax))
		out[path(tc, "probability")] = devcfg.Int(int64(p.MarkProbability))
		out[path(tc, "ecn")] = devcfg.String("enable")
		notes = append(notes, "cumulus: Spectrum rounds ECN thresholds to buffer cells (150000 B shows as 159744 B on Spectrum-4); the configured bytes are compared")
	}

	// Scheduling: CNP strict; every other class in use (RoCE, the other
	// lossless ones, the class the rest is folded into) shares DWRR. NVIDIA:
	// the bw-percent values add up to at most 100, and a class without one
	// gets no scheduling.
	sched := path("qos egress-scheduler", Profile, "traffic-class")
	out[path(sched, itoa(classes.CNP), "mode")] = devcfg.String("strict")
	weighted := []int{classes.RoCE}
	for _, q := range classes.Lossless {
		if q != classes.RoCE {
			weighted = append(weighted, q)
		}
	}
	weighted = append(weighted, classes.Other)
	for i, q := range weighted {
		share := 100 / len(weighted)
		if i == 0 {
			share = 100 - share*(len(weighted)-1)
		}
		out[path(sched, itoa(q), "mode")] = devcfg.String("dwrr")
		out[path(sched, itoa(q), "bw-percent")] = devcfg.Int(int64(share))
	}

	if p.VLAN != 0 && renderers.HasSwitchedPort(sw.Ports) {
		out[path("bridge domain", Bridge, "vlan", itoa(p.VLAN))] = devcfg.Empty
	}
	mtu := devcfg.Int(int64(renderers.SwitchMTU(p, MTUCeiling)))
	for _, port := range sw.Ports {
		iface := port.Name
		if port.LAG != "" {
			out[path("interface", port.LAG, "bond member", port.Name)] = devcfg.Empty
			iface = port.LAG
		}
		out[path("interface", iface, "link mtu")] = mtu
		switch port.Mode {
		case "trunk":
			out[path("interface", iface, "bridge domain", Bridge, "vlan", itoa(p.VLAN))] = devcfg.Empty
		case "access":
			out[path("interface", iface, "bridge domain", Bridge, "access")] = devcfg.Int(int64(p.VLAN))
		}
		if p.PFCOn() && p.Watchdog.Enabled {
			out[path("interface", port.Name, "qos pfc-watchdog state")] = devcfg.String("enable")
		}
	}
	if w := p.Watchdog; p.PFCOn() && w.Enabled && (w.Detection != 0 || w.Restoration != 0) {
		notes = append(notes, "cumulus: PFC watchdog timing keeps the NVUE defaults (polling-interval, robustness)")
	}
	if w := p.Watchdog; p.PFCOn() && w.Enabled && w.Action == "forward" {
		notes = append(notes, "cumulus: PFC watchdog action forward has no NVUE equivalent; NVUE makes the stormed queue lossy (drop)")
	}
	return &devcfg.Config{
		Device: sw.Name, Platform: "cumulus", Shape: devcfg.ShapePaths, Paths: out,
		Owned: ownedScope(sw), Singletons: singletons(p), Notes: notes,
	}, nil
}

// CableProfilePrefix names the PFC profiles rocefab makes for ports whose
// cable differs from the device's: rocefab-300m.
const CableProfilePrefix = "rocefab-"

// CableProfile is the PFC profile of ports with a cable of that length.
func CableProfile(meters int) string { return CableProfilePrefix + itoa(meters) + "m" }

// bufferKnobs are the explicit lossless buffer values NVUE takes, none when
// the intent writes none (NVIDIA: leave them to Cumulus Linux, which sizes
// them from the cable length). NVUE's port-buffer is the reservation,
// xoff-threshold the part consumed before a PAUSE is sent: the intent's
// headroom and xon, with xoff the rest. Values at NVUE's defaults are not
// rendered.
func bufferKnobs(sw *intent.Switch) (map[string]uint64, error) {
	p := sw.Policy
	if p.Headroom == 0 && p.Xoff == 0 && p.Xon == 0 {
		return nil, nil
	}
	h := renderers.Headroom(sw, &HeadroomFacts, MTUCeiling)
	r, err := renderers.ExplicitReservation(sw, h, MTUCeiling)
	if err != nil {
		return nil, err
	}
	out := map[string]uint64{}
	if r.Size != defaultPortBuffer {
		out["port-buffer"] = r.Size
	}
	if r.Pause != defaultXoff {
		out["xoff-threshold"] = r.Pause
	}
	return out, nil
}

// HeadroomFacts: NVUE sizes lossless headroom from the cable length (100 m
// by default, as NVIDIA's RoCE profile sets it) and takes explicit buffer
// values.
var HeadroomFacts = renderers.HeadroomFacts{
	DefaultCableLength: defaultCableLength, DefaultCableSource: srcPFC, RendersXoff: true,
}

// notUsed is the Want of a singleton that must be absent.
const notUsed = "(not set: rocefab configures QoS explicitly)"

// singletons: the global trust mode, and `qos roce`, NVUE's one-command
// RoCE mode, which owns all of QoS: if it is on, other configuration holds
// the QoS singleton and the plan reports a conflict.
func singletons(p intent.Policy) []devcfg.Singleton {
	trust := "l3"
	if p.Trust == "pcp" {
		trust = "l2"
	}
	return []devcfg.Singleton{
		{Name: "qos mapping default-global trust", Path: path("qos mapping", Profile, "trust"), Want: trust, Marker: "ROCEFAB"},
		{Name: "qos roce", Path: "qos roce", Want: notUsed, Marker: "ROCEFAB"},
		{Name: "qos roce state", Path: "qos roce state", Want: "disabled", Marker: "ROCEFAB"},
		{Name: "qos roce enable", Path: "qos roce enable", Want: "off", Marker: "ROCEFAB"},
		{Name: "qos roce mode", Path: "qos roce mode", Want: notUsed, Marker: "ROCEFAB"},
	}
}

// ownedScope: NVUE's default-global QoS profiles (claimed whole), the
// lossless traffic pool, the lossy pool's size and switch priorities, the
// lossless VLAN on br_default, and only the
// listed settings of the listed ports. A port's link-pause is owned so
// that 802.3x pause, which excludes PFC, is removed from RoCE ports. On a
// trunk rocefab owns the lossless VLAN's membership, never the port's other
// VLANs; a port that inherits every VLAN of the bridge holds it already.
func ownedScope(sw *intent.Switch) devcfg.Scope {
	s := devcfg.Scope{Paths: []string{
		path("qos mapping", Profile),
		path("qos egress-queue-mapping", Profile),
		path("qos pfc", Profile),
		path("qos congestion-control", Profile),
		path("qos egress-scheduler", Profile),
		"qos traffic-pool default-lossless",
		"qos traffic-pool default-lossy memory-percent",
		"qos traffic-pool default-lossy switch-priority",
	}}
	if sw.Policy.VLAN != 0 && renderers.HasSwitchedPort(sw.Ports) {
		s.Paths = append(s.Paths, path("bridge domain", Bridge, "vlan", itoa(sw.Policy.VLAN)))
	}
	seen := make(map[string]bool, len(sw.Ports))
	s.PathPrefixes = append(s.PathPrefixes, "qos pfc "+CableProfilePrefix)
	for _, port := range sw.Ports {
		s.Paths = append(s.Paths, path("interface", port.Name, "qos pfc-watchdog"), path("interface", port.Name, "qos link-pause"),
			path("interface", port.Name, "qos pfc profile"))
		iface := port.Name
		if port.LAG != "" {
			s.Paths = append(s.Paths, path("interface", port.LAG, "bond member", port.Name))
			iface = port.LAG
		}
		if seen[iface] {
			continue
		}
		seen[iface] = true
		s.Paths = append(s.Paths, path("interface", iface, "link mtu"),
			path("interface", iface, "bridge domain", Bridge, "access"))
		if sw.Policy.VLAN != 0 {
			member := path("interface", iface, "bridge domain", Bridge, "vlan", itoa(sw.Policy.VLAN))
			s.Paths = append(s.Paths, member)
			s.Implied = append(s.Implied, devcfg.ImpliedPath{Path: member, By: path("interface", iface, "bridge domain", Bridge, "vlan", InheritsAll)})
		}
	}
	return s
}
