package sonic

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/devcfg"
)

// checkYANGConstraints checks a rendered config against the sonic-yang-models
// constraints of the tables rocefab writes. They are rocefab's own checks,
// written from the YANG modules' must/pattern/range/leafref statements
// (nothing is copied from them):
//
//   - sonic-wred-profile: each colour's *_max_threshold >= *_min_threshold;
//     thresholds are uint64; *_drop_probability is 0..100; ecn is one of
//     the ecn_* enum values; wred_*_enable is "true"/"false".
//   - sonic-port-qos-map: pfc_enable and pfcwd_sw_enable are comma-separated
//     priorities 0..7 (pattern "[0-7](,[0-7])*"); every *_map field is a
//     leafref to an existing entry of its map table; the "global" key binds
//     only dscp_to_tc_map.
//   - map tables: DSCP keys 0..63, TC/PCP/priority keys 0..7, values 0..7
//     (priority groups and queues 0..7 as well).
//   - sonic-port: mtu is 68..9216.
//   - sonic-queue: the key is "port|qindex" with qindex 0..7 and an existing
//     port; scheduler and wred_profile are leafrefs to existing SCHEDULER and
//     WRED_PROFILE entries.
//   - sonic-scheduler: type is DWRR, WRR or STRICT; DWRR/WRR carry a weight
//     1..100.
//   - sonic-buffer-pg: the key is "port|pg" with an existing port; profile is
//     "NULL" or an existing BUFFER_PROFILE; a BUFFER_PROFILE has a pool and
//     numeric size/xon/xoff and dynamic_th -8..7.
//   - sonic-pfcwd: action drop/forward/alert, detection_time 100..5000,
//     restoration_time 100..60000, for an existing port.
//   - sonic-cable-length: values are "<n>m" for existing ports.
//   - sonic-vlan: VLAN key "Vlan<id>" with vlanid = id in 1..4094;
//     VLAN_MEMBER "Vlan<id>|<member>" references an existing VLAN and an
//     existing PORT or PORTCHANNEL; tagging_mode is tagged or untagged.
//   - sonic-portchannel: PORTCHANNEL_MEMBER references an existing
//     PORTCHANNEL and PORT.
func checkYANGConstraints(p devcfg.Paths) []error {
	db := map[string]map[string]map[string]string{} // table → key → field → value
	for path, v := range p {
		table, key, field, ok := SplitKey(path)
		if !ok {
			continue
		}
		if db[table] == nil {
			db[table] = map[string]map[string]string{}
		}
		if db[table][key] == nil {
			db[table][key] = map[string]string{}
		}
		if field != "" {
			db[table][key][field] = v.Text()
		}
	}
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	exists := func(table, key string) bool { _, ok := db[table][key]; return ok }
	inRange := func(s string, lo, hi int64) bool {
		n, err := strconv.ParseInt(s, 10, 64)
		return err == nil && n >= lo && n <= hi
	}
	isUint64 := func(s string) bool { _, err := strconv.ParseUint(s, 10, 64); return err == nil }

	for name, f := range db["WRED_PROFILE"] {
		for _, colour := range []string{"green", "yellow", "red"} {
			lo, hasLo := f[colour+"_min_threshold"]
			hi, hasHi := f[colour+"_max_threshold"]
			for _, t := range []string{lo, hi} {
				if t != "" && !isUint64(t) {
					fail("WRED_PROFILE|%s: %s threshold %q is not a uint64", name, colour, t)
				}
			}
			if hasLo && hasHi {
				l, _ := strconv.ParseUint(lo, 10, 64)
				h, _ := strconv.ParseUint(hi, 10, 64)
				if h < l {
					fail("WRED_PROFILE|%s: %s_max_threshold %s < %s_min_threshold %s", name, colour, hi, colour, lo)
				}
			}
			if d, ok := f[colour+"_drop_probability"]; ok && !inRange(d, 0, 100) {
				fail("WRED_PROFILE|%s: %s_drop_probability %q is not 0..100", name, colour, d)
			}
			if e, ok := f["wred_"+colour+"_enable"]; ok && e != "true" && e != "false" {
				fail("WRED_PROFILE|%s: wred_%s_enable %q is not a boolean", name, colour, e)
			}
		}
		if e, ok := f["ecn"]; ok && !regexp.MustCompile(`^ecn_(none|all|green|yellow|red|green_yellow|green_red|yellow_red)$`).MatchString(e) {
			fail("WRED_PROFILE|%s: ecn %q is not an ecn_* mode", name, e)
		}
	}

	priorities := regexp.MustCompile(`^[0-7](,[0-7])*$`)
	mapRefs := map[string]string{
		"dscp_to_tc_map":   "DSCP_TO_TC_MAP",
		"dot1p_to_tc_map":  "DOT1P_TO_TC_MAP",
		"tc_to_queue_map":  "TC_TO_QUEUE_MAP",
		"tc_to_pg_map":     "TC_TO_PRIORITY_GROUP_MAP",
		"pfc_to_queue_map": "MAP_PFC_PRIORITY_TO_QUEUE",
		"pfc_to_pg_map":    "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP",
	}
	for port, f := range db["PORT_QOS_MAP"] {
		if port != "global" && !exists("PORT", port) {
			fail("PORT_QOS_MAP|%s: no such PORT", port)
		}
		for field, v := range f {
			switch {
			case field == "pfc_enable" || field == "pfcwd_sw_enable":
				if !priorities.MatchString(v) {
					fail("PORT_QOS_MAP|%s: %s %q is not a comma-separated list of priorities 0..7", port, field, v)
				}
			case mapRefs[field] != "":
				if !exists(mapRefs[field], v) {
					fail("PORT_QOS_MAP|%s: %s references missing %s|%s", port, field, mapRefs[field], v)
				}
				if port == "global" && field != "dscp_to_tc_map" {
					fail("PORT_QOS_MAP|global binds %s; only dscp_to_tc_map is allowed", field)
				}
			default:
				fail("PORT_QOS_MAP|%s: unknown field %s", port, field)
			}
		}
	}

	for table, keyMax := range map[string]int64{
		"DSCP_TO_TC_MAP": 63, "DOT1P_TO_TC_MAP": 7, "TC_TO_QUEUE_MAP": 7, "TC_TO_PRIORITY_GROUP_MAP": 7,
		"MAP_PFC_PRIORITY_TO_QUEUE": 7, "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP": 7,
	} {
		for name, f := range db[table] {
			for k, v := range f {
				if !inRange(k, 0, keyMax) || !inRange(v, 0, 7) {
					fail("%s|%s: %s → %s is outside 0..%d → 0..7", table, name, k, v, keyMax)
				}
			}
		}
	}

	for port, f := range db["PORT"] {
		if m, ok := f["mtu"]; ok && !inRange(m, 68, 9216) {
			fail("PORT|%s: mtu %q is not 68..9216", port, m)
		}
	}

	pgNum := regexp.MustCompile(`^[0-7](-[0-7])?$`) // sonic-buffer-pg.yang pg_num
	portKey := func(table, key string) (string, string, bool) {
		port, idx, ok := strings.Cut(key, "|")
		if !ok || !exists("PORT", port) || !(inRange(idx, 0, 7) || table == "BUFFER_PG" && pgNum.MatchString(idx)) {
			fail("%s|%s: key is not <existing port>|<0..7>", table, key)
			return "", "", false
		}
		return port, idx, true
	}
	for key, f := range db["QUEUE"] {
		portKey("QUEUE", key)
		if s, ok := f["scheduler"]; ok && !exists("SCHEDULER", s) {
			fail("QUEUE|%s: scheduler %s does not exist", key, s)
		}
		if w, ok := f["wred_profile"]; ok && !exists("WRED_PROFILE", w) {
			fail("QUEUE|%s: wred_profile %s does not exist", key, w)
		}
	}
	for name, f := range db["SCHEDULER"] {
		switch f["type"] {
		case "STRICT":
		case "DWRR", "WRR":
			if !inRange(f["weight"], 1, 100) {
				fail("SCHEDULER|%s: %s weight %q is not 1..100", name, f["type"], f["weight"])
			}
		default:
			fail("SCHEDULER|%s: type %q is not DWRR, WRR or STRICT", name, f["type"])
		}
	}
	for key, f := range db["BUFFER_PG"] {
		portKey("BUFFER_PG", key)
		if prof := f["profile"]; prof != "NULL" && !exists("BUFFER_PROFILE", prof) {
			fail("BUFFER_PG|%s: profile %s does not exist", key, prof)
		}
	}
	for name, f := range db["BUFFER_PROFILE"] {
		if f["pool"] == "" {
			fail("BUFFER_PROFILE|%s: no pool", name)
		}
		for _, field := range []string{"size", "xon", "xoff"} {
			if v, ok := f[field]; ok && !isUint64(v) {
				fail("BUFFER_PROFILE|%s: %s %q is not a byte count", name, field, v)
			}
		}
		if th, ok := f["dynamic_th"]; ok && !inRange(th, -8, 7) {
			fail("BUFFER_PROFILE|%s: dynamic_th %q is not -8..7", name, th)
		}
	}
	for port, f := range db["PFC_WD"] {
		if !exists("PORT", port) {
			fail("PFC_WD|%s: no such PORT", port)
		}
		if a := f["action"]; a != "drop" && a != "forward" && a != "alert" {
			fail("PFC_WD|%s: action %q", port, a)
		}
		if !inRange(f["detection_time"], 100, 5000) || !inRange(f["restoration_time"], 100, 60000) {
			fail("PFC_WD|%s: detection_time %q / restoration_time %q out of range", port, f["detection_time"], f["restoration_time"])
		}
	}
	for name, f := range db["CABLE_LENGTH"] {
		for port, v := range f {
			if !exists("PORT", port) || !regexp.MustCompile(`^[0-9]+m$`).MatchString(v) {
				fail("CABLE_LENGTH|%s: %s = %q", name, port, v)
			}
		}
	}
	for name, f := range db["VLAN"] {
		id := strings.TrimPrefix(name, "Vlan")
		if !strings.HasPrefix(name, "Vlan") || !inRange(id, 1, 4094) || f["vlanid"] != id {
			fail("VLAN|%s: vlanid %q does not match a key Vlan<1..4094>", name, f["vlanid"])
		}
	}
	for key, f := range db["VLAN_MEMBER"] {
		vlan, member, ok := strings.Cut(key, "|")
		if !ok || !exists("VLAN", vlan) {
			fail("VLAN_MEMBER|%s: VLAN %s does not exist", key, vlan)
		}
		if !exists("PORT", member) && !exists("PORTCHANNEL", member) {
			fail("VLAN_MEMBER|%s: port %s does not exist", key, member)
		}
		if m := f["tagging_mode"]; m != "tagged" && m != "untagged" {
			fail("VLAN_MEMBER|%s: tagging_mode %q", key, m)
		}
	}
	for key := range db["PORTCHANNEL_MEMBER"] {
		lag, port, _ := strings.Cut(key, "|")
		if !exists("PORTCHANNEL", lag) || !exists("PORT", port) {
			fail("PORTCHANNEL_MEMBER|%s: references a missing PORTCHANNEL or PORT", key)
		}
	}
	sort.Slice(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
	return errs
}

// TestYANGConstraints: every rendered variant meets the constraints.
func TestYANGConstraints(t *testing.T) {
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			cfg := mustRender(t, variantSwitch(t, v.name))
			for _, err := range checkYANGConstraints(cfg.Paths) {
				t.Error(err)
			}
		})
	}
}

// TestYANGConstraintsExamples checks every SONiC switch of the examples.
func TestYANGConstraintsExamples(t *testing.T) {
	for _, scenario := range []string{"basic", "ai-cluster"} {
		t.Run(scenario, func(t *testing.T) {
			n := 0
			for _, sw := range exampleSwitches(t, scenario) {
				if sw.Platform != Name {
					continue
				}
				n++
				for _, err := range checkYANGConstraints(mustRender(t, sw).Paths) {
					t.Errorf("%s: %v", sw.Name, err)
				}
			}
			if n == 0 {
				t.Fatalf("examples/%s has no SONiC switch", scenario)
			}
		})
	}
}

// TestYANGConstraintsCatch proves each check fails on a broken config, so
// the test above cannot pass vacuously.
func TestYANGConstraintsCatch(t *testing.T) {
	s := func(v string) devcfg.Value { return devcfg.String(v) }
	cases := []struct {
		name string
		edit func(p devcfg.Paths)
		want string
	}{
		{"max below min", func(p devcfg.Paths) { p[Key("WRED_PROFILE", WREDProfile, "green_max_threshold")] = s("1000") }, "green_max_threshold 1000 < green_min_threshold 150000"},
		{"pfc_enable format", func(p devcfg.Paths) { p[Key("PORT_QOS_MAP", "Ethernet0", "pfc_enable")] = s("3;4") }, "pfc_enable \"3;4\""},
		{"pfc_enable priority 8", func(p devcfg.Paths) { p[Key("PORT_QOS_MAP", "Ethernet0", "pfc_enable")] = s("8") }, "pfc_enable \"8\""},
		{"mtu too big", func(p devcfg.Paths) { p[Key("PORT", "Ethernet0", "mtu")] = s("9217") }, "mtu \"9217\""},
		{"mtu too small", func(p devcfg.Paths) { p[Key("PORT", "Ethernet0", "mtu")] = s("67") }, "mtu \"67\""},
		{"dangling map", func(p devcfg.Paths) { p[Key("PORT_QOS_MAP", "Ethernet0", "tc_to_queue_map")] = s("AZURE") }, "tc_to_queue_map references missing TC_TO_QUEUE_MAP|AZURE"},
		{"dangling global", func(p devcfg.Paths) {
			for k := range p {
				if strings.HasPrefix(k, "sonic-db:/DSCP_TO_TC_MAP/") {
					delete(p, k)
				}
			}
		}, "PORT_QOS_MAP|global: dscp_to_tc_map references missing"},
		{"dangling wred", func(p devcfg.Paths) { p[Key("QUEUE", "Ethernet0|3", "wred_profile")] = s("AZURE_LOSSLESS") }, "wred_profile AZURE_LOSSLESS does not exist"},
		{"dangling scheduler", func(p devcfg.Paths) { p[Key("QUEUE", "Ethernet0|6", "scheduler")] = s("scheduler.0") }, "scheduler scheduler.0 does not exist"},
		{"vlan member without vlan", func(p devcfg.Paths) { delete(p, Key("VLAN", "Vlan100", "vlanid")) }, "VLAN Vlan100 does not exist"},
		{"vlan member without port", func(p devcfg.Paths) { p[Key("VLAN_MEMBER", "Vlan100|Ethernet999", "tagging_mode")] = s("tagged") }, "port Ethernet999 does not exist"},
		{"queue index", func(p devcfg.Paths) { p[Key("QUEUE", "Ethernet0|9", "scheduler")] = s(SchedulerCNP) }, "QUEUE|Ethernet0|9: key is not"},
		{"dscp out of range", func(p devcfg.Paths) { p[Key("DSCP_TO_TC_MAP", MapName, "64")] = s("0") }, "DSCP_TO_TC_MAP|ROCEFAB: 64"},
		{"scheduler weight", func(p devcfg.Paths) { p[Key("SCHEDULER", SchedulerDefault, "weight")] = s("0") }, "weight \"0\""},
		{"buffer profile", func(p devcfg.Paths) { p[Key("BUFFER_PG", "Ethernet0|3", "profile")] = s("pg_lossless_x") }, "profile pg_lossless_x does not exist"},
		{"watchdog range", func(p devcfg.Paths) { p[Key("PFC_WD", "Ethernet0", "detection_time")] = s("50") }, "PFC_WD|Ethernet0: detection_time \"50\""},
		{"ecn mode", func(p devcfg.Paths) { p[Key("WRED_PROFILE", WREDProfile, "ecn")] = s("on") }, "ecn \"on\""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := mustRender(t, basicSwitch(t))
			tc.edit(cfg.Paths)
			errs := checkYANGConstraints(cfg.Paths)
			for _, err := range errs {
				if strings.Contains(err.Error(), tc.want) {
					return
				}
			}
			t.Fatalf("no error contains %q; got %v", tc.want, errs)
		})
	}
}
