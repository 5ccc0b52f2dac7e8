package openconfig

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/intent/headroom"
	"github.com/rocefab/rocefab/renderers"
)

// OriginCLI is the fallback origin of CLI text.
const OriginCLI = renderers.OriginCLI

// fallbackOf is the PFC fallback platform name registers, or nil.
func fallbackOf(reg *renderers.Registry, name string) *renderers.PFCFallback {
	if reg == nil {
		return nil
	}
	e, err := reg.Lookup(name)
	if err != nil {
		return nil
	}
	return e.Attrs.PFCFallback
}

// FallbackPlatforms lists the platforms that can carry PFC for OpenConfig.
func FallbackPlatforms(reg *renderers.Registry) []string {
	var out []string
	if reg == nil {
		return out
	}
	for _, n := range reg.Names() {
		if fallbackOf(reg, n) != nil {
			out = append(out, n)
		}
	}
	return out
}

// fallbackCarriers names the platforms whose fallback a target can take
// beside OpenConfig: "a or b".
func fallbackCarriers(reg *renderers.Registry) string {
	var out []string
	for _, n := range FallbackPlatforms(reg) {
		if e, _ := reg.Lookup(n); e.Attrs.NoPFCFallback == "" {
			out = append(out, n)
		}
	}
	return strings.Join(out, " or ")
}

// addFallback renders the native PFC part into cfg and claims its scope.
// The scope is claimed even with PFC off, so turning PFC off removes it.
func addFallback(reg *renderers.Registry, cfg *devcfg.Config, sw *intent.Switch, cls renderers.TrafficClasses, l2MTU int) error {
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
	fb := fallbackOf(reg, name)
	if fb == nil {
		return fmt.Errorf("PFC fallback platform %q is not one of %s", name, strings.Join(FallbackPlatforms(reg), ", "))
	}
	var ports []string
	for _, port := range sw.Ports {
		ports = append(ports, port.Name)
	}
	fb.Scope(&cfg.Owned, ports, Marker)
	if !p.PFCOn() {
		cfg.Notes = append(cfg.Notes, fmt.Sprintf("OpenConfig has no PFC model; profile %s renders no PFC, so the %s fallback (origin %s) is empty", p.Profile, name, fb.Origin))
		return nil
	}
	cfg.Notes = append(cfg.Notes, fmt.Sprintf("OpenConfig has no PFC model: PFC rendered through the %s fallback (gNMI origin %s, exempt from OpenConfig YANG validation)", name, fb.Origin))

	d := renderers.FallbackData{Marker: Marker, Ports: ports, Priorities: cls.Lossless, MTU: l2MTU, PGOf: map[int]int{}, CableLength: p.CableLength,
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
	d.Watchdog = p.Watchdog.Enabled
	if fb.Prepare != nil {
		if err := fb.Prepare(sw, &d, cfg); err != nil {
			return err
		}
	}
	if (p.Headroom != 0 || p.Xoff != 0 || p.Xon != 0) || (p.CableLength != 0 && !fb.RendersCableLength) {
		cfg.Notes = append(cfg.Notes, fmt.Sprintf("%s fallback: headroom, xoff, xon and cable length are left to the platform", name))
	}

	var text bytes.Buffer
	if err := fb.Template.Execute(&text, d); err != nil {
		return fmt.Errorf("%s fallback template: %w", name, err)
	}
	if fb.Indent == 0 {
		return tableLines(cfg.Paths, name, fb.Origin, text.String())
	}
	return cliLines(cfg.Paths, fb, text.String())
}

// lineKey is a line's key: the single-valued prefix it starts with,
// without the trailing space, or the whole line.
func lineKey(fb *renderers.PFCFallback, line string) string {
	for _, k := range fb.LineKeys {
		if strings.HasPrefix(line, k) {
			return strings.TrimSuffix(k, " ")
		}
	}
	return line
}

// cliLines turns template output into one path per leaf line.
func cliLines(out devcfg.Paths, fb *renderers.PFCFallback, text string) error {
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
			out[renderers.CLIKey(context, lineKey(fb, n.Line))] = devcfg.String(renderers.CLIText(fb.Indent, context, n.Line))
		}
	}
	walk(nil, tree.Nodes)
	return nil
}

// tableLines turns "TABLE\tkey\tfield\tvalue" lines into paths.
func tableLines(out devcfg.Paths, name, origin, text string) error {
	for _, line := range strings.Split(text, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			return fmt.Errorf("%s fallback template: %q is not TABLE, key, field, value", name, line)
		}
		elems := f[:2]
		if f[2] != "" {
			elems = f[:3]
		}
		out[renderers.OriginPath(origin, elems...)] = devcfg.String(f[3])
	}
	return nil
}
