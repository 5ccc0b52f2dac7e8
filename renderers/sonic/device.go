package sonic

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers"
)

// Buffer models (DEVICE_METADATA|localhost buffer_model).
const (
	BufferModelDynamic     = "dynamic"
	BufferModelTraditional = "traditional"
)

// readTables are the tables Fit checks; a gNMI fetch reads them whole
// beside the owned paths (over ssh the whole config_db is read anyway).
var readTables = []string{"DEVICE_METADATA", "PORT", "PORTCHANNEL", "PORTCHANNEL_MEMBER", "INTERFACE",
	"PORTCHANNEL_INTERFACE", "VLAN_MEMBER", "BUFFER_PG", "BUFFER_PROFILE"}

func deviceReads() []string {
	out := make([]string, len(readTables))
	for i, t := range readTables {
		out[i] = keyPrefix + t
	}
	return out
}

// db is config_db as table → key → field → text.
type db map[string]map[string]map[string]string

func tablesOf(p devcfg.Paths) db {
	out := db{}
	for path, v := range p {
		table, key, field, ok := SplitKey(path)
		if !ok {
			continue
		}
		if out[table] == nil {
			out[table] = map[string]map[string]string{}
		}
		if out[table][key] == nil {
			out[table][key] = map[string]string{}
		}
		if field != "" {
			out[table][key][field] = v.Text()
		}
	}
	return out
}

// BufferModel is the device's buffer model. SONiC starts buffermgrd in
// the dynamic model only when buffer_model is "dynamic"; anything else,
// unset included, is the traditional model (sonic-buildimage
// dockers/docker-orchagent/buffermgrd.sh).
func BufferModel(running *devcfg.Config) (model string, set bool) {
	v := tablesOf(running.Paths)["DEVICE_METADATA"]["localhost"]["buffer_model"]
	if v == BufferModelDynamic {
		return BufferModelDynamic, true
	}
	return BufferModelTraditional, v != ""
}

// Fit checks the device before a push and fits the render to its buffer
// model (renderers.Attributes.Fit). It refuses the device when
//   - a port or port channel of the intent is not in its PORT or
//     PORTCHANNEL table (SONiC rejects a PORT entry without lanes and
//     speed, sonic-port.yang; a PORTCHANNEL without admin_status,
//     sonic-portchannel.yang; and QUEUE, PORT_QOS_MAP, PFC_WD, BUFFER_PG
//     entries of a missing port break their leafrefs);
//   - a port the intent puts in the lossless VLAN is a port channel member,
//     a router interface (INTERFACE or PORTCHANNEL_INTERFACE) or, in
//     access mode, untagged in another VLAN (sonic-vlan.yang VLAN_MEMBER
//     must statements; sonic-utilities config/vlan.py add_vlan_member);
//   - a lossy BUFFER_PG range overlaps a lossless PG;
//   - the intent sets a static lossless profile (pfc.headroom, xoff, xon)
//     on the traditional model, where buffermgrd rewrites that PG.
//
// Under the dynamic model rocefab writes BUFFER_PG|<port>|<run> profile
// "NULL" (buffermgrdyn sizes the headroom). Under the traditional model
// buffermgrd writes BUFFER_PG|<port>|<run> = pg_lossless_<speed>_<cable>_profile
// itself when pfc_enable, speed or cable length change, and cannot resolve
// "NULL" (bufferorch takes a profile reference), so rocefab leaves those
// entries to it and owns pfc_enable and CABLE_LENGTH. In both models any
// other lossless BUFFER_PG entry of a RoCE port (the stock "3-4" when only
// PG 3 is lossless, a PG rocefab no longer uses) is removed, so PGs never
// overlap. The plan notes say which model the device runs.
func Fit(sw *intent.Switch, desired, running *devcfg.Config) error {
	if desired == nil || running == nil || desired.Shape != devcfg.ShapePaths {
		return nil
	}
	dev := tablesOf(running.Paths)
	var errs []error
	if len(dev["PORT"]) == 0 {
		return fmt.Errorf("the device's CONFIG_DB shows no PORT table, so its ports cannot be checked: nothing is pushed")
	}

	var missing []string
	lags := map[string]bool{}
	for _, port := range sw.Ports {
		if _, ok := dev["PORT"][port.Name]; !ok {
			missing = append(missing, port.Name)
		}
		if port.LAG != "" {
			lags[port.LAG] = true
		}
	}
	if len(missing) > 0 {
		errs = append(errs, fmt.Errorf("%d port(s) of the intent are not in the device's PORT table: %s (the device has %s); SONiC rejects a PORT entry without lanes and speed, and QUEUE, PORT_QOS_MAP, PFC_WD and BUFFER_PG entries need the port",
			len(missing), strings.Join(missing, ", "), portSummary(dev["PORT"])))
	}
	for _, lag := range slices.Sorted(maps.Keys(lags)) {
		if _, ok := dev["PORTCHANNEL"][lag]; !ok {
			errs = append(errs, fmt.Errorf("port channel %s is not in the device's PORTCHANNEL table: create it first (a PORTCHANNEL entry needs admin_status, which rocefab does not own)", lag))
		}
	}
	errs = append(errs, vlanConflicts(sw, dev, desired.Owned)...)

	model, set := BufferModel(running)
	desired.Notes = slices.DeleteFunc(desired.Notes, func(n string) bool { return n == noteNULL })
	p := sw.Policy
	static := desired.Paths[Key("BUFFER_PROFILE", BufferProfile, "pool")] != ""
	var lossless []int
	if p.PFCOn() {
		cls, err := renderers.PlanClasses(p)
		if err != nil {
			return err
		}
		lossless = cls.Lossless
	}
	runs := PGRuns(lossless)
	switch {
	case model == BufferModelDynamic:
		if p.PFCOn() {
			desired.Notes = append(desired.Notes, "buffer model dynamic (DEVICE_METADATA|localhost buffer_model): rocefab writes BUFFER_PG|<port>|"+strings.Join(runs, ",")+" with profile "+
				map[bool]string{true: BufferProfile + " (static headroom)", false: "NULL; buffermgrd sizes the headroom from speed, cable length and MTU"}[static])
		}
	case static:
		errs = append(errs, fmt.Errorf("the device runs the traditional buffer model%s, where buffermgrd rewrites BUFFER_PG|<port>|%s to pg_lossless_<speed>_<cable>_profile on every speed, cable-length or pfc_enable change, so the static profile of pfc.headroom/xoff/xon cannot hold; drop them (buffermgrd sizes headroom from the SKU's pg_profile_lookup.ini by cable length) or move the device to the dynamic model",
			modelWhy(set), strings.Join(runs, ",")))
	default:
		// buffermgrd's entries: neither written nor owned.
		left := map[string]bool{}
		for _, port := range sw.Ports {
			for _, run := range runs {
				delete(desired.Paths, Key("BUFFER_PG", port.Name+"|"+run, "profile"))
				left[EntryKey("BUFFER_PG", port.Name+"|"+run)] = true
			}
		}
		// A new slice: DeleteFunc would zero the tail of an array that a
		// driver opened with this scope may still share.
		desired.Owned.Paths = slices.DeleteFunc(slices.Clone(desired.Owned.Paths), func(s string) bool { return left[s] })
		if p.PFCOn() {
			desired.Notes = append(desired.Notes, "buffer model traditional"+modelWhy(set)+": buffermgrd writes BUFFER_PG|<port>|"+strings.Join(runs, ",")+
				" = pg_lossless_<speed>_<cable>_profile itself when pfc_enable changes; rocefab sets pfc_enable and CABLE_LENGTH and leaves those entries to it")
			desired.Notes = append(desired.Notes, fitCableLengths(sw, desired, dev)...)
		}
	}

	// Other BUFFER_PG entries of the RoCE ports in PGs 1-7.
	var removed []string
	for _, port := range sw.Ports {
		for _, key := range slices.Sorted(maps.Keys(dev["BUFFER_PG"])) {
			name, pgs, ok := strings.Cut(key, "|")
			if !ok || name != port.Name || slices.Contains(runs, pgs) {
				continue
			}
			lo, hi, ok := pgRange(pgs)
			if !ok || hi < 1 {
				continue
			}
			overlaps := false
			for _, l := range lossless {
				overlaps = overlaps || (l >= lo && l <= hi)
			}
			profile := profileName(dev["BUFFER_PG"][key]["profile"])
			if isLossless(dev, profile) {
				desired.Owned.Paths = append(desired.Owned.Paths, EntryKey("BUFFER_PG", key))
				delete(desired.Paths, Key("BUFFER_PG", key, "profile"))
				removed = append(removed, key)
			} else if overlaps {
				errs = append(errs, fmt.Errorf("BUFFER_PG|%s holds the lossy profile %s over lossless PG(s) %s: split that range by hand first", key, profile, strings.Join(runs, ",")))
			}
		}
	}
	if len(removed) > 0 {
		desired.Notes = append(desired.Notes, fmt.Sprintf("removes %d lossless BUFFER_PG entr%s that rocefab's PGs %s replace (e.g. BUFFER_PG|%s), so priority groups never overlap",
			len(removed), map[bool]string{true: "y", false: "ies"}[len(removed) == 1], strings.Join(runs, ","), removed[0]))
	}
	if len(errs) > 0 {
		return fmt.Errorf("the device cannot take this intent, so nothing is pushed to it: %w", errors.Join(errs...))
	}
	return nil
}

// stockCableLengths are the cable lengths of the stock pg_profile_lookup.ini
// files (sonic-buildimage device/common/profiles/*/gen/BALANCED and
// device/mellanox/*/ACS-*: 5m, 40m, 300m).
var stockCableLengths = []int{5, 40, 300}

var losslessProfileName = regexp.MustCompile(`^pg_lossless_\d+_(\d+)m_profile$`)

// fitCableLengths: the traditional model looks a port's headroom up in the
// SKU's pg_profile_lookup.ini by speed and cable length, and buffermgrd
// refuses a length the file lacks ("No PG profile configured for speed
// ... and cable length ...", sonic-swss cfgmgr/buffermgr.cpp), leaving
// the port without a lossless profile. So each CABLE_LENGTH is rounded up
// to the next length the device is known to have: the stock lengths and
// those of its pg_lossless_<speed>_<cable>_profile entries. More headroom
// than the cable needs is safe; a cable longer than every known length is
// written as it is, and the note says the SKU's file must define it.
func fitCableLengths(sw *intent.Switch, desired *devcfg.Config, dev db) []string {
	known := slices.Clone(stockCableLengths)
	for name := range dev["BUFFER_PROFILE"] {
		if m := losslessProfileName.FindStringSubmatch(name); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil && n > 0 {
				known = append(known, n)
			}
		}
	}
	slices.Sort(known)
	known = slices.Compact(known)
	var rounded, beyond []string
	for _, port := range sw.Ports {
		k := Key("CABLE_LENGTH", CableLengthKey, port.Name)
		v, ok := desired.Paths[k]
		if !ok {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSuffix(v.Text(), "m"))
		if err != nil {
			continue
		}
		i, _ := slices.BinarySearch(known, n)
		switch {
		case i == len(known):
			beyond = append(beyond, fmt.Sprintf("%s %dm", port.Name, n))
		case known[i] != n:
			desired.Paths[k] = devcfg.String(strconv.Itoa(known[i]) + "m")
			rounded = append(rounded, fmt.Sprintf("%s %dm to %dm", port.Name, n, known[i]))
		}
	}
	lengths := make([]string, len(known))
	for i, n := range known {
		lengths[i] = strconv.Itoa(n) + "m"
	}
	var notes []string
	if len(rounded) > 0 {
		notes = append(notes, fmt.Sprintf("CABLE_LENGTH rounded up to a length the device's pg_profile_lookup.ini has (%s): %s; buffermgrd looks headroom up by speed and cable length and refuses any other",
			strings.Join(lengths, ", "), summary(rounded)))
	}
	if len(beyond) > 0 {
		notes = append(notes, fmt.Sprintf("CABLE_LENGTH longer than every length the device is known to have (%s): %s; buffermgrd leaves those ports without a lossless profile unless the SKU's pg_profile_lookup.ini defines the length",
			strings.Join(lengths, ", "), summary(beyond)))
	}
	return notes
}

// summary lists a few items and counts the rest.
func summary(items []string) string {
	if len(items) <= 3 {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:3], ", "), len(items)-3)
}

func modelWhy(set bool) string {
	if set {
		return ""
	}
	return " (DEVICE_METADATA|localhost has no buffer_model, which SONiC runs as traditional)"
}

// vlanConflicts finds lossless-VLAN members SONiC would refuse. Entries
// rocefab owns are changed by the same push, so they are no conflict.
func vlanConflicts(sw *intent.Switch, dev db, owned devcfg.Scope) []error {
	vlan := "Vlan" + strconv.Itoa(sw.Policy.VLAN)
	inLAG := map[string]string{}
	for key := range dev["PORTCHANNEL_MEMBER"] {
		if lag, port, ok := strings.Cut(key, "|"); ok {
			inLAG[port] = lag
		}
	}
	router := map[string]bool{}
	for _, table := range []string{"INTERFACE", "PORTCHANNEL_INTERFACE"} {
		for key := range dev[table] {
			name, _, _ := strings.Cut(key, "|")
			router[name] = true
		}
	}
	var errs []error
	seen := map[string]bool{}
	for _, port := range sw.Ports {
		if l := inLAG[port.Name]; l != "" && l != port.LAG {
			if port.LAG != "" {
				errs = append(errs, fmt.Errorf("%s is a member of %s on the device (PORTCHANNEL_MEMBER|%s|%s), not of %s: a port is in one port channel", port.Name, l, l, port.Name, port.LAG))
			} else if port.Mode == "trunk" || port.Mode == "access" {
				errs = append(errs, fmt.Errorf("%s is a member of %s (PORTCHANNEL_MEMBER|%s|%s): SONiC refuses it as a member of %s (\"Port is a member of a port channel\")", port.Name, l, l, port.Name, vlan))
			}
		}
		if port.Mode != "trunk" && port.Mode != "access" {
			continue
		}
		member := port.Name
		if port.LAG != "" {
			member = port.LAG
		}
		if seen[member] {
			continue
		}
		seen[member] = true
		if router[member] {
			errs = append(errs, fmt.Errorf("%s is a router interface (INTERFACE or PORTCHANNEL_INTERFACE|%s): SONiC refuses it as a member of %s; remove its IP configuration first", member, member, vlan))
		}
		if port.Mode == "access" {
			for key, f := range dev["VLAN_MEMBER"] {
				v, m, _ := strings.Cut(key, "|")
				if m == member && v != vlan && f["tagging_mode"] == "untagged" && !owned.OwnsPath(EntryKey("VLAN_MEMBER", key)) {
					errs = append(errs, fmt.Errorf("%s is already untagged in %s (VLAN_MEMBER|%s): SONiC lets a port be untagged in one VLAN only", member, v, key))
				}
			}
		}
	}
	slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return errs
}

// pgRange reads "3" or "3-4".
func pgRange(s string) (lo, hi int, ok bool) {
	a, b, isRange := strings.Cut(s, "-")
	lo, err := strconv.Atoi(a)
	if err != nil {
		return 0, 0, false
	}
	hi = lo
	if isRange {
		if hi, err = strconv.Atoi(b); err != nil {
			return 0, 0, false
		}
	}
	return lo, hi, lo <= hi
}

// profileName drops the "[BUFFER_PROFILE|...]" reference form older images print.
func profileName(v string) string {
	return strings.TrimSuffix(strings.TrimPrefix(v, "[BUFFER_PROFILE|"), "]")
}

// isLossless: a PG profile of the lossless pool ("NULL" is the dynamic
// model's lossless PG).
func isLossless(dev db, profile string) bool {
	return profile == "NULL" || generatedProfile.MatchString(profile) || strings.HasPrefix(profile, "ROCEFAB_") ||
		dev["BUFFER_PROFILE"][profile]["pool"] == LosslessPool
}

func portSummary(ports map[string]map[string]string) string {
	names := slices.SortedFunc(maps.Keys(ports), func(a, b string) int {
		if n := portNumber(a) - portNumber(b); n != 0 {
			return n
		}
		return strings.Compare(a, b)
	})
	if len(names) <= 4 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%d ports, %s … %s", len(names), names[0], names[len(names)-1])
}

func portNumber(s string) int {
	n, _ := strconv.Atoi(strings.TrimLeft(s, "EthernetEth/"))
	return n
}
