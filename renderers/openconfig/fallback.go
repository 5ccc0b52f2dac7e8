package openconfig

import (
	"bytes"
	"embed"
	"fmt"
	"strconv"
	"strings"
	"text/template"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/intent/headroom"
	"github.com/rocefab/rocefab/renderers"
)

// Fallback origins.
const (
	OriginCLI   = "cli"
	OriginSONiC = "sonic-db"
)

//go:embed fallback/*.tmpl
var templateFS embed.FS

var templates = template.Must(template.ParseFS(templateFS, "fallback/*.tmpl"))

// fallback describes one native platform that carries PFC.
type fallback struct {
	origin string
	indent int // CLI indentation per level
	// lineKeys are single-valued CLI lines: the key stops before the value.
	lineKeys []string
}

var fallbacks = map[string]fallback{
	"eos": {origin: OriginCLI, indent: 3, lineKeys: []string{
		"priority-flow-control pause watchdog port timer ",
		"priority-flow-control pause watchdog port action ",
	}},
	"nxos": {origin: OriginCLI, indent: 2, lineKeys: []string{
		"service-policy type network-qos ",
		"mtu ",
	}},
	"sonic": {origin: OriginSONiC},
}

// FallbackPlatforms lists the platforms that can carry PFC for OpenConfig.
func FallbackPlatforms() []string { return []string{"eos", "nxos", "sonic"} }

// nxosNQPolicy is the network-qos policy of the nxos fallback.
const nxosNQPolicy = "ROCEFAB_NQ"

// SONiC watchdog range (milliseconds) and defaults.
const (
	sonicWDDefault    = 200
	sonicWDDetectMin  = 100
	sonicWDDetectMax  = 5000
	sonicWDRestoreMin = 100
	sonicWDRestoreMax = 60000
)

type nqClass struct {
	Name  string
	Pause bool
	CoS   int
}

// fallbackData is what the templates see.
type fallbackData struct {
	Ports        []string
	Priorities   []int
	PriorityList string
	TCs          []int
	PGOf         map[int]int
	PGMap        bool
	MTU          int
	CableLength  int

	Watchdog                             bool
	WatchdogTimer                        bool
	WatchdogAction                       string
	DetectionSeconds, RestorationSeconds string
	DetectionMillis, RestorationMillis   string
	NetworkQoSClasses                    []nqClass
}

// addFallback renders the native PFC part into cfg and claims its scope.
// The scope is claimed even with PFC off, so turning PFC off removes it.
func addFallback(cfg *devcfg.Config, sw *intent.Switch, cls renderers.TrafficClasses, l2MTU int) error {
	p := sw.Policy
	name := sw.OCFallback
	if name == "" {
		cfg.Notes = append(cfg.Notes, "OpenConfig has no PFC model and no pfcFallback is declared: no PFC rendered (profile "+p.Profile+")")
		return nil
	}
	if name == intent.PFCFallbackNone {
		if p.PFCOn() {
			cfg.Notes = append(cfg.Notes, "PFC is not expressible on this device over OpenConfig (openconfig.pfcFallback.platform: none): rocefab renders classification, ECN and scheduling only; PFC, its watchdog and lossless buffers must be configured outside rocefab for the class to be lossless")
		}
		return nil
	}
	fb, ok := fallbacks[name]
	if !ok {
		return fmt.Errorf("PFC fallback platform %q is not one of %s", name, strings.Join(FallbackPlatforms(), ", "))
	}
	var ports []string
	for _, port := range sw.Ports {
		ports = append(ports, port.Name)
	}
	claimFallbackScope(&cfg.Owned, name, ports)
	if !p.PFCOn() {
		cfg.Notes = append(cfg.Notes, fmt.Sprintf("OpenConfig has no PFC model; profile %s renders no PFC, so the %s fallback (origin %s) is empty", p.Profile, name, fb.origin))
		return nil
	}
	cfg.Notes = append(cfg.Notes, fmt.Sprintf("OpenConfig has no PFC model: PFC rendered through the %s fallback (gNMI origin %s, exempt from OpenConfig YANG validation)", name, fb.origin))

	d := fallbackData{Ports: ports, Priorities: cls.Lossless, MTU: l2MTU, PGOf: map[int]int{}, CableLength: p.CableLength,
		PGMap: headroom.Family(sw.ASIC) == "mellanox" || headroom.Family(sw.ASIC) == "barefoot"}
	var list []string
	for _, prio := range cls.Lossless {
		list = append(list, strconv.Itoa(prio))
	}
	d.PriorityList = strings.Join(list, ",")
	for tc := 0; tc < 8; tc++ {
		d.TCs = append(d.TCs, tc)
		d.PGOf[tc] = 0
		for _, l := range cls.Lossless {
			if l == tc {
				d.PGOf[tc] = tc
			}
		}
	}
	w := p.Watchdog
	d.Watchdog = w.Enabled
	if w.Enabled {
		if err := watchdogFor(name, w, &d, &cfg.Notes); err != nil {
			return err
		}
	}
	if name == "nxos" {
		for q := 0; q < 8; q++ {
			c := nqClass{Name: "c-8q-nq" + strconv.Itoa(q), CoS: q}
			if q == 0 {
				c.Name = "c-8q-nq-default"
			}
			for _, l := range cls.Lossless {
				c.Pause = c.Pause || l == q
			}
			d.NetworkQoSClasses = append(d.NetworkQoSClasses, c)
		}
		cfg.Notes = append(cfg.Notes, "nxos fallback: network-qos uses the 8-queue classes (c-8q-nq*) of Nexus 9000")
		cfg.Singletons = append(cfg.Singletons, devcfg.Singleton{
			Name:   "system qos network-qos policy (nxos fallback)",
			Path:   cliKey([]string{"system qos"}, "service-policy type network-qos"),
			Want:   cliText(fb, []string{"system qos"}, "service-policy type network-qos "+nxosNQPolicy),
			Marker: Marker,
		})
	}
	if (p.Headroom != 0 || p.Xoff != 0 || p.Xon != 0) || (p.CableLength != 0 && name != "sonic") {
		cfg.Notes = append(cfg.Notes, fmt.Sprintf("%s fallback: headroom, xoff, xon and cable length are left to the platform", name))
	}

	var text bytes.Buffer
	if err := templates.ExecuteTemplate(&text, name+".tmpl", d); err != nil {
		return fmt.Errorf("%s fallback template: %w", name, err)
	}
	if fb.origin == OriginSONiC {
		return sonicLines(cfg.Paths, text.String())
	}
	return cliLines(cfg.Paths, fb, text.String())
}

// watchdogFor sets the watchdog fields in each platform's units.
func watchdogFor(name string, w intent.Watchdog, d *fallbackData, notes *[]string) error {
	d.WatchdogAction = w.Action
	switch name {
	case "eos":
		if w.Detection > 0 && w.Restoration > 0 {
			d.WatchdogTimer = true
			d.DetectionSeconds = strconv.FormatFloat(w.Detection.Seconds(), 'f', -1, 64)
			d.RestorationSeconds = strconv.FormatFloat(w.Restoration.Seconds(), 'f', -1, 64)
		} else if w.Detection > 0 || w.Restoration > 0 {
			*notes = append(*notes, "eos fallback: the PFC watchdog timer needs both detectionTime and restorationTime; EOS defaults are used")
		}
		if w.Action == "" {
			// EOS's own default error-disables the whole port; rocefab's
			// default is drop (see doc.go).
			d.WatchdogAction = "drop"
		}
		if w.Action == "forward" {
			*notes = append(*notes, "eos fallback: PFC watchdog action forward has no EOS equivalent; the EOS default action (errdisable the port) is used")
		}
	case "nxos":
		if w.Detection != 0 || w.Restoration != 0 || w.Action == "forward" {
			*notes = append(*notes, "nxos fallback: PFC watchdog times and action keep the NX-OS defaults")
		}
	case "sonic":
		if d.WatchdogAction == "" {
			d.WatchdogAction = "drop"
		}
		var err error
		if d.DetectionMillis, err = renderers.WatchdogMillis("SONiC", "detection", w.Detection, sonicWDDefault, sonicWDDetectMin, sonicWDDetectMax); err != nil {
			return err
		}
		if d.RestorationMillis, err = renderers.WatchdogMillis("SONiC", "restoration", w.Restoration, sonicWDDefault, sonicWDRestoreMin, sonicWDRestoreMax); err != nil {
			return err
		}
	}
	return nil
}

// claimFallbackScope owns the native settings the fallback renders.
func claimFallbackScope(s *devcfg.Scope, name string, ports []string) {
	switch name {
	case "eos", "nxos":
		for _, port := range ports {
			s.PathPrefixes = append(s.PathPrefixes, cliPrefix("interface "+port+" > priority-flow-control "))
		}
		if name == "nxos" {
			s.PathPrefixes = append(s.PathPrefixes,
				cliPrefix("policy-map type network-qos "+Marker+"_"),
				cliPrefix("priority-flow-control watch-dog-interval"))
			s.Paths = append(s.Paths, cliKey([]string{"system qos"}, "service-policy type network-qos"))
		}
	case "sonic":
		for _, t := range []string{"MAP_PFC_PRIORITY_TO_QUEUE", "TC_TO_PRIORITY_GROUP_MAP", "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP"} {
			s.PathPrefixes = append(s.PathPrefixes, sonicKey(t, Marker, ""))
		}
		for _, port := range ports {
			for _, f := range []string{"pfc_enable", "pfc_to_queue_map", "tc_to_pg_map", "pfc_to_pg_map", "pfcwd_sw_enable"} {
				s.Paths = append(s.Paths, sonicKey("PORT_QOS_MAP", port, f))
			}
			for pg := 1; pg < 8; pg++ {
				s.Paths = append(s.Paths, sonicKey("BUFFER_PG", port+"|"+strconv.Itoa(pg), ""))
			}
			s.Paths = append(s.Paths, sonicKey("PFC_WD", port, ""), sonicKey("CABLE_LENGTH", "AZURE", port))
		}
	}
}

// escapeElem backslash-escapes '\', '/', '[' and ']' in a path element.
func escapeElem(s string) string {
	if !strings.ContainsAny(s, `\/[]`) {
		return s
	}
	return strings.NewReplacer(`\`, `\\`, `/`, `\/`, `[`, `\[`, `]`, `\]`).Replace(s)
}

// cliPrefix is the key prefix of lines starting with text.
func cliPrefix(text string) string { return OriginCLI + ":/" + escapeElem(text) }

// cliKey is the key of a CLI line: its context and key joined by " > ".
func cliKey(context []string, key string) string {
	return cliPrefix(strings.Join(append(append([]string(nil), context...), key), " > "))
}

// cliText is the CLI that sets a line: context lines, then the line,
// indented as the device prints them.
func cliText(fb fallback, context []string, line string) string {
	var b strings.Builder
	for depth, c := range append(append([]string(nil), context...), line) {
		if depth > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strings.Repeat(" ", depth*fb.indent))
		b.WriteString(c)
	}
	return b.String()
}

// lineKey is a line's key: the single-valued prefix it starts with,
// without the trailing space, or the whole line.
func (fb fallback) lineKey(line string) string {
	for _, k := range fb.lineKeys {
		if strings.HasPrefix(line, k) {
			return strings.TrimSuffix(k, " ")
		}
	}
	return line
}

// cliLines turns template output into one path per leaf line.
func cliLines(out devcfg.Paths, fb fallback, text string) error {
	tree, err := devcfg.ParseIndented(text)
	if err != nil {
		return fmt.Errorf("fallback template output: %w", err)
	}
	var walk func(context []string, nodes []*devcfg.Node)
	walk = func(context []string, nodes []*devcfg.Node) {
		for _, n := range nodes {
			if len(n.Children) > 0 {
				walk(append(append([]string(nil), context...), n.Line), n.Children)
				continue
			}
			out[cliKey(context, fb.lineKey(n.Line))] = devcfg.String(cliText(fb, context, n.Line))
		}
	}
	walk(nil, tree.Nodes)
	return nil
}

// sonicKey is "sonic-db:/TABLE/key/field" ("sonic-db:/TABLE/key" without a field).
func sonicKey(table, key, field string) string {
	k := OriginSONiC + ":/" + escapeElem(table) + "/" + escapeElem(key)
	if field != "" {
		k += "/" + escapeElem(field)
	}
	return k
}

// sonicLines turns "TABLE\tkey\tfield\tvalue" lines into paths.
func sonicLines(out devcfg.Paths, text string) error {
	for _, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			return fmt.Errorf("sonic fallback template: %q is not TABLE, key, field, value", line)
		}
		out[sonicKey(f[0], f[1], f[2])] = devcfg.String(f[3])
	}
	return nil
}
