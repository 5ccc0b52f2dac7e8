package gnmisim

import (
	"sort"
	"strings"

	"github.com/rocefab/rocefab/renderers/devcfg"
)

// SONiC origin and config_db behaviour.
const (
	OriginSONiC         = "sonic-db"
	OriginSONiCCounters = "sonic-counters"
	OriginCLI           = "cli"

	sonicPrefix = OriginSONiC + ":/"
	// generatedMark tags profiles the simulated buffer manager made itself.
	generatedProfile = "pg_lossless_"
)

// sonicAfterSet applies what SONiC's daemons do after config_db changes:
// lossless buffer profiles for PFC-enabled ports, BUFFER_PG "NULL"
// resolved to them, and WRED_PROFILE defaults. Profiles it generated and
// nothing uses any more are removed again, as buffermgrd does.
func sonicAfterSet(t tree, rewriteNullPG bool) {
	fields := func(table, key string) map[string]string {
		out := map[string]string{}
		pre := sonicPrefix + table + "/" + escapeElem(key) + "/"
		for k, v := range t {
			if strings.HasPrefix(k, pre) {
				out[k[len(pre):]] = v.Text()
			}
		}
		return out
	}
	keys := func(table string) []string {
		seen := map[string]bool{}
		pre := sonicPrefix + table + "/"
		for k := range t {
			if rest, ok := strings.CutPrefix(k, pre); ok {
				if i := indexUnescaped(rest, '/'); i > 0 {
					seen[unescapeElem(rest[:i])] = true
				}
			}
		}
		out := make([]string, 0, len(seen))
		for k := range seen {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	set := func(table, key, field, value string) {
		t[sonicPrefix+table+"/"+escapeElem(key)+"/"+field] = devcfg.String(value)
	}

	// Which profile each PFC port needs.
	needed := map[string]bool{}
	portProfile := map[string]string{}
	for _, port := range keys("PORT_QOS_MAP") {
		if fields("PORT_QOS_MAP", port)["pfc_enable"] == "" {
			continue
		}
		speed := fields("PORT", port)["speed"]
		if speed == "" {
			speed = "100000"
		}
		cable := "5m"
		for _, c := range keys("CABLE_LENGTH") {
			if v := fields("CABLE_LENGTH", c)[port]; v != "" {
				cable = v
			}
		}
		name := generatedProfile + speed + "_" + cable + "_profile"
		portProfile[port] = name
		if !needed[name] {
			needed[name] = true
			if len(fields("BUFFER_PROFILE", name)) == 0 {
				set("BUFFER_PROFILE", name, "pool", "ingress_lossless_pool")
				set("BUFFER_PROFILE", name, "size", "1248")
				set("BUFFER_PROFILE", name, "xon", "2288")
				set("BUFFER_PROFILE", name, "xoff", headroomFor(speed, cable))
				set("BUFFER_PROFILE", name, "xon_offset", "2288")
				set("BUFFER_PROFILE", name, "dynamic_th", "-3")
			}
		}
	}
	if rewriteNullPG {
		for _, pg := range keys("BUFFER_PG") {
			port, _, _ := strings.Cut(pg, "|")
			if fields("BUFFER_PG", pg)["profile"] == "NULL" && portProfile[port] != "" {
				set("BUFFER_PG", pg, "profile", portProfile[port])
			}
		}
	}
	// Garbage-collect generated profiles nobody needs or references.
	referenced := map[string]bool{}
	for _, pg := range keys("BUFFER_PG") {
		referenced[fields("BUFFER_PG", pg)["profile"]] = true
	}
	for _, name := range keys("BUFFER_PROFILE") {
		if strings.HasPrefix(name, generatedProfile) && !needed[name] && !referenced[name] {
			pre := sonicPrefix + "BUFFER_PROFILE/" + escapeElem(name) + "/"
			for k := range t {
				if strings.HasPrefix(k, pre) {
					delete(t, k)
				}
			}
		}
	}
	for _, name := range keys("WRED_PROFILE") {
		f := fields("WRED_PROFILE", name)
		for _, d := range []string{"wred_yellow_enable", "wred_red_enable"} {
			if _, ok := f[d]; !ok {
				set("WRED_PROFILE", name, d, "false")
			}
		}
	}
}

// headroomFor is a plausible xoff in bytes: more for faster and longer links.
func headroomFor(speed, cable string) string {
	switch {
	case strings.HasPrefix(speed, "400"):
		return "154112"
	case strings.HasPrefix(speed, "200"):
		return "87040"
	case strings.HasPrefix(speed, "100"):
		if cable == "5m" {
			return "50176"
		}
		return "62464"
	}
	return "38912"
}

func escapeElem(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `/`, `\/`, `[`, `\[`, `]`, `\]`)
	return r.Replace(s)
}

func unescapeElem(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func indexUnescaped(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i++
			continue
		}
		if s[i] == c {
			return i
		}
	}
	return -1
}
