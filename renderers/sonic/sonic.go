package sonic

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/intent/headroom"
	"github.com/rocefab/rocefab/renderers"
)

// Name is the platform name in intent files.
const Name = "sonic"

// Object names rocefab owns. Maps are named ROCEFAB; profiles and schedulers
// carry the ROCEFAB_ prefix.
const (
	MapName           = "ROCEFAB"
	WREDProfile       = "ROCEFAB_LOSSLESS"
	BufferProfile     = "ROCEFAB_LOSSLESS_PG"
	SchedulerCNP      = "ROCEFAB_CNP"
	SchedulerLossless = "ROCEFAB_LOSSLESS"
	SchedulerDefault  = "ROCEFAB_DEFAULT"
	// CableLengthKey is the CABLE_LENGTH entry every SONiC image ships.
	CableLengthKey = "AZURE"
	// LosslessPool is the stock ingress pool of lossless profiles.
	LosslessPool = "ingress_lossless_pool"
	// Marker identifies rocefab's values in singletons.
	Marker = "ROCEFAB"
)

// SONiC limits, from sonic-yang-models.
const (
	MTUMin     = 68
	MTUCeiling = 9216 // sonic-port.yang: mtu 68..9216
	// DWRR weight of the lossless and the default class (equal shares).
	dwrrWeight = 50
	// PFC watchdog defaults and ranges (sonic-pfcwd.yang), milliseconds.
	wdDetectionDefault   = 200
	wdRestorationDefault = 200
	wdDetectionMin       = 100
	wdDetectionMax       = 5000
	wdRestorationMin     = 100
	wdRestorationMax     = 60000
)

// PortPattern matches SONiC port names in default (Ethernet0) and
// standard (Eth1/1, Eth1/1/1) naming modes.
var PortPattern = regexp.MustCompile(`^(Ethernet[0-9]+|Eth[0-9]+/[0-9]+(/[0-9]+)?)$`)

var lagPattern = regexp.MustCompile(`^PortChannel[0-9]{1,4}$`)

// Register adds the SONiC platform.
func Register(r *renderers.Registry) error {
	return r.Register(renderers.Entry{Name: Name, New: func() renderers.Renderer { return Renderer{} }, Attrs: Attributes()})
}

// Attributes are the SONiC platform facts.
func Attributes() renderers.Attributes {
	return renderers.Attributes{
		Platform: devcfg.Platform{
			Name:  Name,
			Shape: devcfg.ShapePaths,
			// No scrapligo built-in exists: the ssh driver needs a custom
			// platform definition (Linux shell prompt, no config mode).
			Scrapli:     "sonic",
			Commit:      devcfg.CommitDialect,
			Dialect:     Dialect,
			ShowRunning: "show runningconfiguration all",
			CLIErrors:   []string{"Error:", "Failed to apply patch", "Traceback (most recent call last)", "Usage:"},
			Syntax:      devcfg.Syntax{Style: devcfg.StylePaths},
			Parse:       Parse,
			Normalise:   Normalise,
			// Over gnmi, as sonic-gnmi serves CONFIG_DB (see doc.go):
			// origin sonic-db, /CONFIG_DB/localhost/TABLE/key/field, Get
			// type ALL, Set applied as a JSON patch; Fetch hands Parse
			// the origin's config_db document.
			GNMI:   devcfg.GNMIMapping{Origin: Origin, Root: GNMIRoot, Document: true, GetAll: true, JSONPatch: true},
			Models: []string{GNMIModel},
		},
		Transports:          []string{"gnmi", "ssh"},
		MTUCeiling:          MTUCeiling,
		PortPattern:         PortPattern,
		PortExample:         "Ethernet0",
		MaxNoDropPriorities: 2, // stock buffer templates reserve headroom for two lossless PGs
		Singletons:          []string{"PORT_QOS_MAP|global dscp_to_tc_map"},
		Sources:             Sources,
		Classify: renderers.ClassifyByKeywords(map[string]string{
			"mtu":          "an MTU change re-programs the port and can flap the link",
			"pfc":          "a PFC change re-programs pause on the port: in-flight lossless traffic may drop",
			"BUFFER_":      "a buffer change re-carves headroom: traffic drops while buffers are re-allocated",
			"CABLE_LENGTH": "a cable-length change re-computes headroom and re-carves buffers",
			"tc_to_pg_map": "a TC to PG change moves traffic between buffers",
		}),
		Encode:  Encode,
		FileExt: ".json",
		LLDP:    &LLDP,
		// sonic-gnmi takes one origin per SetRequest (gnmi_server/server.go
		// ParseOrigin: "Origin conflict in path"); its sonic-db model is
		// named in sonic_data_client/mixed_db_client.go supportedModels.
		SingleOriginModels: []string{Origin},
		PFCFallback:        &PFCFallback,
		NoPFCFallback:      "a SONiC switch's gNMI server (sonic-gnmi) takes one origin per SetRequest, so PFC cannot ride with the OpenConfig paths and the plan refuses the device there",
		CounterPaths:       CounterPaths,
		// pfcwd takes whole milliseconds within these bounds.
		Watchdog: &renderers.WatchdogTimes{
			Detection:   renderers.TimeRange{Step: time.Millisecond, Min: wdDetectionMin * time.Millisecond, Max: wdDetectionMax * time.Millisecond, Form: "whole milliseconds"},
			Restoration: renderers.TimeRange{Step: time.Millisecond, Min: wdRestorationMin * time.Millisecond, Max: wdRestorationMax * time.Millisecond, Form: "whole milliseconds"},
		},
		Fit:      Fit,
		Headroom: &HeadroomFacts,
	}
}

// DefaultCableLength is the cable length SONiC's SKU templates give a
// server-facing port (buffers_defaults_t0.j2 default_cable "5m" on
// NVIDIA's ACS SKUs; buffers_config.j2 torrouter_server 5m).
const DefaultCableLength = 5

// HeadroomFacts: SONiC's buffer managers size headroom from CABLE_LENGTH;
// an explicit pfc.xoff is rendered in the static BUFFER_PROFILE.
var HeadroomFacts = renderers.HeadroomFacts{DefaultCableLength: DefaultCableLength, RendersXoff: true,
	DefaultCableSource: "sonic-buildimage device/mellanox/*/ACS-*/buffers_defaults_t0.j2 default_cable; files/build_templates/buffers_config.j2 ports2cable"}

// cableLength is a port's CABLE_LENGTH in meters: its link's length, else
// pfc.cableLength, 0 when neither is written.
func cableLength(port intent.Port, p intent.Policy) int {
	if port.Cable != nil && port.Cable.Length > 0 {
		return port.Cable.Length
	}
	return p.CableLength
}

// noteNULL is the render's buffer note; the plan replaces it with the
// device's buffer model (Fit).
const noteNULL = "BUFFER_PG profile NULL: the dynamic buffer model sizes lossless headroom from port speed, cable length and MTU (the plan reads the device's model)"

// Renderer renders SONiC CONFIG_DB entries.
type Renderer struct{}

// Origin is the gNMI origin of CONFIG_DB paths, as sonic-gnmi names it.
const Origin = "sonic-db"

// GNMIRoot are the elements sonic-gnmi puts before TABLE/key/field:
// the database and the namespace ("localhost" on a single-ASIC switch).
const GNMIRoot = "/CONFIG_DB/localhost"

// GNMIModel is the model sonic-gnmi advertises for origin sonic-db; a
// target without it has no writable CONFIG_DB over gNMI.
const GNMIModel = "sonic-db"

const keyPrefix = Origin + ":/"

// Key builds a "sonic-db:/TABLE/key/field" path, escaping each element.
func Key(table, key, field string) string {
	return keyPrefix + escape(table) + "/" + escape(key) + "/" + escape(field)
}

// EntryKey builds the "sonic-db:/TABLE/key" path of a field-less entry.
func EntryKey(table, key string) string { return keyPrefix + escape(table) + "/" + escape(key) }

// escape backslash-escapes '\', '/', '[' and ']' in an element, as gNMI
// path strings do (drivers/gnmi/gnmipath).
func escape(s string) string {
	clean := true
	for i := 0; i < len(s) && clean; i++ {
		clean = !isSpecial(s[i])
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if isSpecial(s[i]) {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isSpecial(c byte) bool { return c == '\\' || c == '/' || c == '[' || c == ']' }

// SplitKey splits a path into its unescaped table, key and field (field is
// "" for an entry path). ok is false for anything else.
func SplitKey(p string) (table, key, field string, ok bool) {
	rest, found := strings.CutPrefix(p, keyPrefix)
	if !found {
		return "", "", "", false
	}
	var parts []string
	if !strings.ContainsAny(rest, `\[]`) {
		parts = strings.Split(rest, "/")
	} else {
		var err bool
		if parts, err = splitEscaped(rest); err {
			return "", "", "", false
		}
	}
	for _, part := range parts {
		if part == "" {
			return "", "", "", false
		}
	}
	switch len(parts) {
	case 2:
		return parts[0], parts[1], "", true
	case 3:
		return parts[0], parts[1], parts[2], true
	}
	return "", "", "", false
}

// splitEscaped splits on unescaped '/'; bad is true for a dangling '\'
// or an unescaped bracket.
func splitEscaped(rest string) (parts []string, bad bool) {
	var cur strings.Builder
	for i := 0; i < len(rest); i++ {
		switch c := rest[i]; {
		case c == '\\':
			if i+1 == len(rest) {
				return nil, true
			}
			i++
			cur.WriteByte(rest[i])
		case c == '/':
			parts = append(parts, cur.String())
			cur.Reset()
		case c == '[' || c == ']':
			return nil, true
		default:
			cur.WriteByte(c)
		}
	}
	return append(parts, cur.String()), false
}

// PGRuns groups priority groups into runs of consecutive numbers, the way
// buffermgrd keys BUFFER_PG: [3] is "3", [3 4] is "3-4", [2 3 4 6] is
// "2-4" and "6" (sonic-swss orchagent/orch.cpp generateIdListFromMap).
func PGRuns(pgs []int) []string {
	sorted := slices.Clone(pgs)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	var out []string
	for i := 0; i < len(sorted); {
		j := i
		for j+1 < len(sorted) && sorted[j+1] == sorted[j]+1 {
			j++
		}
		if i == j {
			out = append(out, strconv.Itoa(sorted[i]))
		} else {
			out = append(out, strconv.Itoa(sorted[i])+"-"+strconv.Itoa(sorted[j]))
		}
		i = j + 1
	}
	return out
}

// priorityList is the config_db form of a priority set: "3" or "3,4".
func priorityList(prios []int) string {
	s := make([]string, len(prios))
	for i, p := range prios {
		s[i] = strconv.Itoa(p)
	}
	return strings.Join(s, ",")
}

// Render renders the complete lossless configuration of sw's RoCE ports.
func (Renderer) Render(sw *intent.Switch) (*devcfg.Config, error) {
	cfg, err := render(sw)
	if err != nil {
		return nil, fmt.Errorf("switch %s: %w", sw.Name, err)
	}
	return cfg, nil
}

func render(sw *intent.Switch) (*devcfg.Config, error) {
	p := sw.Policy
	cls, err := renderers.PlanClasses(sw.Policy)
	if err != nil {
		return nil, err
	}
	mtu := renderers.SwitchMTU(p, MTUCeiling)
	if mtu < MTUMin || mtu > MTUCeiling {
		return nil, fmt.Errorf("MTU %d is outside SONiC's %d..%d", mtu, MTUMin, MTUCeiling)
	}
	if p.Trust != "dscp" && p.Trust != "pcp" {
		return nil, fmt.Errorf("trust %q is neither dscp nor pcp", p.Trust)
	}

	out := make(devcfg.Paths, 128+40*len(sw.Ports))
	set := func(table, key, field, value string) { out[Key(table, key, field)] = devcfg.String(value) }
	scope := devcfg.Scope{}
	var notes []string

	// Named objects: rocefab's whole.
	for _, t := range []string{"DSCP_TO_TC_MAP", "DOT1P_TO_TC_MAP", "TC_TO_QUEUE_MAP", "TC_TO_PRIORITY_GROUP_MAP",
		"MAP_PFC_PRIORITY_TO_QUEUE", "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"} {
		scope.PathPrefixes = append(scope.PathPrefixes, keyPrefix+t+"/"+MapName)
	}
	scope.PathPrefixes = append(scope.PathPrefixes,
		keyPrefix+"WRED_PROFILE/ROCEFAB_", keyPrefix+"SCHEDULER/ROCEFAB_", keyPrefix+"BUFFER_PROFILE/ROCEFAB_")

	// Classification: every code point explicit; stock SONiC sends DSCP 26
	// to a lossy class, so defaults are never relied on.
	var singletons []devcfg.Singleton
	if p.Trust == "dscp" {
		if err := renderers.CheckDSCPs(p); err != nil {
			return nil, err
		}
		tcByDSCP := map[int]int{}
		for _, d := range p.RoCEDSCP {
			tcByDSCP[d] = cls.RoCE
		}
		tcByDSCP[p.CNPDSCP] = cls.CNP
		for d := 0; d < 64; d++ {
			tc, ok := tcByDSCP[d]
			if !ok {
				tc = cls.Other
			}
			set("DSCP_TO_TC_MAP", MapName, strconv.Itoa(d), strconv.Itoa(tc))
		}
		set("PORT_QOS_MAP", "global", "dscp_to_tc_map", MapName)
		scope.Paths = append(scope.Paths, Key("PORT_QOS_MAP", "global", "dscp_to_tc_map"))
		singletons = append(singletons, devcfg.Singleton{
			Name: "PORT_QOS_MAP|global dscp_to_tc_map", Path: Key("PORT_QOS_MAP", "global", "dscp_to_tc_map"),
			Want: MapName, Marker: Marker,
		})
	} else {
		for pcp := 0; pcp < 8; pcp++ {
			set("DOT1P_TO_TC_MAP", MapName, strconv.Itoa(pcp), strconv.Itoa(cls.ClassOf(pcp)))
		}
		notes = append(notes, "trust pcp: ports classify by 802.1p (DOT1P_TO_TC_MAP ROCEFAB); the global DSCP binding is left alone")
	}
	for tc := 0; tc < 8; tc++ {
		set("TC_TO_QUEUE_MAP", MapName, strconv.Itoa(tc), strconv.Itoa(tc))
	}

	pfc := p.PFCOn()
	// asic is SONiC's asic_type, or a chip of that family (spectrum-3).
	family := headroom.Family(sw.ASIC)
	pgMap := pfc && (family == "mellanox" || family == "barefoot")
	if pfc {
		for tc := 0; tc < 8; tc++ {
			pg := 0
			if slices.Contains(cls.Lossless, tc) {
				pg = tc
			}
			set("TC_TO_PRIORITY_GROUP_MAP", MapName, strconv.Itoa(tc), strconv.Itoa(pg))
			set("MAP_PFC_PRIORITY_TO_QUEUE", MapName, strconv.Itoa(tc), strconv.Itoa(tc))
		}
		if pgMap {
			for _, prio := range cls.Lossless {
				set("PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", MapName, strconv.Itoa(prio), strconv.Itoa(prio))
			}
		} else {
			notes = append(notes, fmt.Sprintf("asic %q: PFC_PRIORITY_TO_PRIORITY_GROUP_MAP is rendered only for mellanox and barefoot", sw.ASIC))
		}
	}

	ecn := p.ECNOn()
	if ecn {
		if p.ECNMax < p.ECNMin {
			return nil, fmt.Errorf("ECN max threshold %d bytes is below the min threshold %d bytes", p.ECNMax, p.ECNMin)
		}
		if p.MarkProbability < 0 || p.MarkProbability > 100 {
			return nil, fmt.Errorf("mark probability %d%% is outside 0..100", p.MarkProbability)
		}
		set("WRED_PROFILE", WREDProfile, "wred_green_enable", "true")
		set("WRED_PROFILE", WREDProfile, "ecn", "ecn_all")
		set("WRED_PROFILE", WREDProfile, "green_min_threshold", strconv.FormatUint(p.ECNMin, 10))
		set("WRED_PROFILE", WREDProfile, "green_max_threshold", strconv.FormatUint(p.ECNMax, 10))
		set("WRED_PROFILE", WREDProfile, "green_drop_probability", strconv.Itoa(p.MarkProbability))
	}

	set("SCHEDULER", SchedulerCNP, "type", "STRICT")
	set("SCHEDULER", SchedulerLossless, "type", "DWRR")
	set("SCHEDULER", SchedulerLossless, "weight", strconv.Itoa(dwrrWeight))
	set("SCHEDULER", SchedulerDefault, "type", "DWRR")
	set("SCHEDULER", SchedulerDefault, "weight", strconv.Itoa(dwrrWeight))

	// Buffers: the dynamic model sizes headroom itself ("NULL"); explicit
	// values become a static lossless profile.
	pgProfile := "NULL"
	if pfc && (p.Headroom != 0 || p.Xoff != 0 || p.Xon != 0) {
		var missing []string
		for _, f := range []struct {
			name string
			v    uint64
		}{{"headroom", p.Headroom}, {"xoff", p.Xoff}, {"xon", p.Xon}} {
			if f.v == 0 {
				missing = append(missing, "pfc."+f.name)
			}
		}
		if len(missing) > 0 {
			return nil, fmt.Errorf("a static SONiC lossless buffer profile needs headroom, xoff and xon together; %s missing", strings.Join(missing, ", "))
		}
		pgProfile = BufferProfile
		set("BUFFER_PROFILE", BufferProfile, "pool", LosslessPool)
		set("BUFFER_PROFILE", BufferProfile, "size", strconv.FormatUint(p.Headroom, 10))
		set("BUFFER_PROFILE", BufferProfile, "xoff", strconv.FormatUint(p.Xoff, 10))
		set("BUFFER_PROFILE", BufferProfile, "xon", strconv.FormatUint(p.Xon, 10))
		set("BUFFER_PROFILE", BufferProfile, "dynamic_th", "0")
		notes = append(notes, "static lossless buffer profile ROCEFAB_LOSSLESS_PG (size = headroom, dynamic_th 0) replaces the dynamic model on RoCE PGs")
	} else if pfc {
		notes = append(notes, noteNULL)
	}

	var wd struct{ action, detection, restoration string }
	watchdog := pfc && p.Watchdog.Enabled
	if watchdog {
		det, err := renderers.WatchdogMillis("SONiC", "detection", p.Watchdog.Detection, wdDetectionDefault, wdDetectionMin, wdDetectionMax)
		if err != nil {
			return nil, err
		}
		rest, err := renderers.WatchdogMillis("SONiC", "restoration", p.Watchdog.Restoration, wdRestorationDefault, wdRestorationMin, wdRestorationMax)
		if err != nil {
			return nil, err
		}
		wd.detection, wd.restoration, wd.action = det, rest, p.Watchdog.Action
		if wd.action == "" {
			wd.action = "drop"
		}
	}

	vlanName := ""
	if p.VLAN != 0 {
		if p.VLAN < 1 || p.VLAN > 4094 {
			return nil, fmt.Errorf("VLAN %d is outside 1..4094", p.VLAN)
		}
		vlanName = "Vlan" + strconv.Itoa(p.VLAN)
	}
	lagMode := map[string]string{}
	switched := false
	for _, port := range sw.Ports {
		if !PortPattern.MatchString(port.Name) {
			return nil, fmt.Errorf("port %q is not a SONiC port name (e.g. Ethernet0)", port.Name)
		}
		name := port.Name
		set("PORT", name, "mtu", strconv.Itoa(mtu))
		scope.Paths = append(scope.Paths, Key("PORT", name, "mtu"))

		qos := func(field, value string) { set("PORT_QOS_MAP", name, field, value) }
		if p.Trust == "dscp" {
			qos("dscp_to_tc_map", MapName)
		} else {
			qos("dot1p_to_tc_map", MapName)
		}
		qos("tc_to_queue_map", MapName)
		if pfc {
			qos("tc_to_pg_map", MapName)
			qos("pfc_to_queue_map", MapName)
			qos("pfc_enable", priorityList(cls.Lossless))
			if pgMap {
				qos("pfc_to_pg_map", MapName)
			}
			if watchdog {
				qos("pfcwd_sw_enable", priorityList(cls.Lossless))
			}
		}
		scope.Paths = append(scope.Paths, EntryKey("PORT_QOS_MAP", name))

		for q := 0; q < 8; q++ {
			qkey := name + "|" + strconv.Itoa(q)
			switch {
			case q == cls.CNP:
				set("QUEUE", qkey, "scheduler", SchedulerCNP)
			case q == cls.RoCE || slices.Contains(cls.Lossless, q):
				set("QUEUE", qkey, "scheduler", SchedulerLossless)
			default:
				set("QUEUE", qkey, "scheduler", SchedulerDefault)
			}
			if q == cls.RoCE && ecn {
				set("QUEUE", qkey, "wred_profile", WREDProfile)
			}
			scope.Paths = append(scope.Paths, EntryKey("QUEUE", qkey))
			// PG 0 keeps the platform's lossy profile; any other PG may be
			// a (former) lossless PG of rocefab's.
			if q > 0 {
				scope.Paths = append(scope.Paths, EntryKey("BUFFER_PG", name+"|"+strconv.Itoa(q)))
			}
		}
		// One entry per run of consecutive lossless PGs ("3", "3-4"), the
		// keys buffermgrd itself uses (see doc.go), so a stock "3-4" entry
		// is rocefab's own when PGs 3 and 4 are lossless.
		if pfc {
			for _, run := range PGRuns(cls.Lossless) {
				key := name + "|" + run
				set("BUFFER_PG", key, "profile", pgProfile)
				scope.Paths = append(scope.Paths, EntryKey("BUFFER_PG", key))
			}
		}
		// Both buffer managers size a port's headroom from its cable length:
		// the link's, else pfc.cableLength; else the device keeps its own.
		if cable := cableLength(port, p); pfc && cable > 0 {
			set("CABLE_LENGTH", CableLengthKey, name, strconv.Itoa(cable)+"m")
			scope.Paths = append(scope.Paths, Key("CABLE_LENGTH", CableLengthKey, name))
		}
		if watchdog {
			set("PFC_WD", name, "action", wd.action)
			set("PFC_WD", name, "detection_time", wd.detection)
			set("PFC_WD", name, "restoration_time", wd.restoration)
		}
		scope.Paths = append(scope.Paths, EntryKey("PFC_WD", name))

		member := name
		if port.LAG != "" {
			if !lagPattern.MatchString(port.LAG) {
				return nil, fmt.Errorf("port %s: LAG %q is not a SONiC port-channel name (PortChannel1..PortChannel9999)", name, port.LAG)
			}
			member = port.LAG
			out[EntryKey("PORTCHANNEL_MEMBER", port.LAG+"|"+name)] = devcfg.Empty
			scope.Paths = append(scope.Paths, EntryKey("PORTCHANNEL_MEMBER", port.LAG+"|"+name))
			if _, seen := lagMode[port.LAG]; !seen {
				set("PORTCHANNEL", port.LAG, "mtu", strconv.Itoa(mtu))
				scope.Paths = append(scope.Paths, Key("PORTCHANNEL", port.LAG, "mtu"))
			}
			if m, seen := lagMode[port.LAG]; seen && m != port.Mode {
				return nil, fmt.Errorf("LAG %s has members in modes %s and %s", port.LAG, m, port.Mode)
			}
			lagMode[port.LAG] = port.Mode
		}
		switch port.Mode {
		case "routed", "":
		case "trunk", "access":
			if vlanName == "" {
				return nil, fmt.Errorf("port %s is %s but the policy has no lossless VLAN", name, port.Mode)
			}
			mode := "tagged"
			if port.Mode == "access" {
				mode = "untagged"
			}
			set("VLAN_MEMBER", vlanName+"|"+member, "tagging_mode", mode)
			scope.Paths = append(scope.Paths, EntryKey("VLAN_MEMBER", vlanName+"|"+member))
			switched = true
		default:
			return nil, fmt.Errorf("port %s: mode %q is not routed, trunk or access", name, port.Mode)
		}
	}
	if switched {
		set("VLAN", vlanName, "vlanid", strconv.Itoa(p.VLAN))
		scope.Paths = append(scope.Paths, Key("VLAN", vlanName, "vlanid"))
	}
	if !pfc {
		notes = append(notes, "profile "+p.Profile+": no PFC rendered (lossy RoCE); ECN marking carries congestion control")
	}
	if !ecn {
		notes = append(notes, "profile pfc-only: no WRED/ECN profile on the lossless queue")
	}
	scope.Paths = dedupe(scope.Paths)
	scope.Reads = deviceReads()
	return &devcfg.Config{Shape: devcfg.ShapePaths, Paths: out, Owned: scope, Singletons: singletons, Notes: notes}, nil
}

func dedupe(s []string) []string {
	seen := make(map[string]bool, len(s))
	out := s[:0]
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
