package lint

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/host"
)

// validate knows what plan knows: it renders every switch and host in
// memory as plan does. A renderer's refusal is an error at the field that
// causes it (RF137); an explicit setting a platform renders no differently
// from the default is an error naming the platform (RF131), unless the
// intent accepts it in lossless.platformDefaults.

// policyField is one lossless field: its name under lossless (as in
// Policy.Written), how to put it back to the fabric default, and how to
// print its value.
type policyField struct {
	name  string
	reset func(p *intent.Policy, d intent.Policy)
	value func(p intent.Policy) string
	// tuning fields are the ones a platform may not render; the others
	// every platform with a lossless class renders.
	tuning bool
	// applies says whether the field matters under the policy (ECN fields
	// under pfc-only do not: RF122 says so).
	applies func(p intent.Policy) bool
}

func always(intent.Policy) bool       { return true }
func pfcOn(p intent.Policy) bool      { return p.PFCOn() }
func ecnOn(p intent.Policy) bool      { return p.ECNOn() }
func watchdogOn(p intent.Policy) bool { return p.PFCOn() && p.Watchdog.Enabled }

func bytesText(v uint64) string { return fmt.Sprintf("%d bytes", v) }

// policyFields are the lossless fields render checks look at.
var policyFields = []policyField{
	{"profile", func(p *intent.Policy, d intent.Policy) { p.Profile = d.Profile }, func(p intent.Policy) string { return p.Profile }, false, always},
	{"vlan", func(p *intent.Policy, d intent.Policy) { p.VLAN = d.VLAN }, func(p intent.Policy) string { return fmt.Sprint(p.VLAN) }, false, always},
	{"noDropPriority", func(p *intent.Policy, d intent.Policy) {
		p.NoDropPriority = d.NoDropPriority
		p.PFCPriorities = d.PFCPriorities
	}, func(p intent.Policy) string { return fmt.Sprint(p.NoDropPriority) }, false, always},
	{"roceDscp", func(p *intent.Policy, d intent.Policy) { p.RoCEDSCP = d.RoCEDSCP }, func(p intent.Policy) string { return fmt.Sprint(p.RoCEDSCP) }, false, always},
	{"trust", func(p *intent.Policy, d intent.Policy) { p.Trust = d.Trust }, func(p intent.Policy) string { return p.Trust }, false, always},
	// Switches that trust PCP classify CNPs by priority: their DSCP is the
	// hosts' business there.
	{"cnp.dscp", func(p *intent.Policy, d intent.Policy) { p.CNPDSCP = d.CNPDSCP }, func(p intent.Policy) string { return fmt.Sprint(p.CNPDSCP) }, true,
		func(p intent.Policy) bool { return p.ECNOn() && p.Trust != "pcp" }},
	{"cnp.priority", func(p *intent.Policy, d intent.Policy) { p.CNPPriority = d.CNPPriority }, func(p intent.Policy) string { return fmt.Sprint(p.CNPPriority) }, true, ecnOn},
	{"ecn.minThreshold", func(p *intent.Policy, d intent.Policy) { p.ECNMin = d.ECNMin }, func(p intent.Policy) string { return bytesText(p.ECNMin) }, true, ecnOn},
	{"ecn.maxThreshold", func(p *intent.Policy, d intent.Policy) { p.ECNMax = d.ECNMax }, func(p intent.Policy) string { return bytesText(p.ECNMax) }, true, ecnOn},
	{"ecn.markProbability", func(p *intent.Policy, d intent.Policy) { p.MarkProbability = d.MarkProbability }, func(p intent.Policy) string { return fmt.Sprintf("%d%%", p.MarkProbability) }, true, ecnOn},
	{"pfc.enabled", func(p *intent.Policy, d intent.Policy) { p.PFCEnabled = d.PFCEnabled }, func(p intent.Policy) string { return fmt.Sprint(p.PFCEnabled) }, false, always},
	{"pfc.priorities", func(p *intent.Policy, d intent.Policy) { p.PFCPriorities = []int{p.NoDropPriority} }, func(p intent.Policy) string { return fmt.Sprint(p.PFCPriorities) }, false, pfcOn},
	{"pfc.headroom", func(p *intent.Policy, d intent.Policy) { p.Headroom = d.Headroom }, func(p intent.Policy) string { return bytesText(p.Headroom) }, true, pfcOn},
	{"pfc.xoff", func(p *intent.Policy, d intent.Policy) { p.Xoff = d.Xoff }, func(p intent.Policy) string { return bytesText(p.Xoff) }, true, pfcOn},
	{"pfc.xon", func(p *intent.Policy, d intent.Policy) { p.Xon = d.Xon }, func(p intent.Policy) string { return bytesText(p.Xon) }, true, pfcOn},
	{"pfc.cableLength", func(p *intent.Policy, d intent.Policy) { p.CableLength = d.CableLength }, func(p intent.Policy) string { return fmt.Sprintf("%dm", p.CableLength) }, true, pfcOn},
	{"pfc.watchdog.enabled", func(p *intent.Policy, d intent.Policy) { p.Watchdog.Enabled = d.Watchdog.Enabled }, func(p intent.Policy) string { return fmt.Sprint(p.Watchdog.Enabled) }, true, pfcOn},
	{"pfc.watchdog.detectionTime", func(p *intent.Policy, d intent.Policy) { p.Watchdog.Detection = d.Watchdog.Detection }, func(p intent.Policy) string { return p.Watchdog.Detection.String() }, true, watchdogOn},
	{"pfc.watchdog.restorationTime", func(p *intent.Policy, d intent.Policy) { p.Watchdog.Restoration = d.Watchdog.Restoration }, func(p intent.Policy) string { return p.Watchdog.Restoration.String() }, true, watchdogOn},
	{"pfc.watchdog.action", func(p *intent.Policy, d intent.Policy) { p.Watchdog.Action = d.Watchdog.Action }, func(p intent.Policy) string { return p.Watchdog.Action }, true, watchdogOn},
	{"mtu.switch", func(p *intent.Policy, d intent.Policy) { p.SwitchMTU = d.SwitchMTU }, func(p intent.Policy) string { return switchMTUText(p.SwitchMTU) }, false, always},
	{"mtu.host", func(p *intent.Policy, d intent.Policy) { p.HostMTU = d.HostMTU }, func(p intent.Policy) string { return fmt.Sprint(p.HostMTU) }, false, always},
}

// PlatformDefaultFields are the fields lossless.platformDefaults may list.
func PlatformDefaultFields() []string {
	var out []string
	for _, f := range policyFields {
		if f.tuning {
			out = append(out, f.name)
		}
	}
	return out
}

func fieldNamed(name string) (policyField, bool) {
	for _, f := range policyFields {
		if f.name == name {
			return f, true
		}
	}
	return policyField{}, false
}

// renderResult is what rendering one switch shape found.
type renderResult struct {
	// as is the switch rendered for its shape: its name leaves messages.
	as  string
	err error
	// culprit is the written field whose default renders, when one does.
	culprit string
	// dropped are the written tuning fields the render does not change.
	dropped []string
	// lossless: the platform renders a lossless class at all (moving the
	// no-drop priority changes its configuration); Linux routers do not.
	lossless bool
}

// renderChecks renders every switch and host. Switches of one shape (the
// same platform, attributes, ports and policy) are rendered once.
func (c *checker) renderChecks() {
	defaults := intent.DefaultPolicy()
	type job struct {
		key string
		sw  *intent.Switch
	}
	byKey := map[string][]*intent.Switch{}
	var jobs []job
	for _, sw := range c.r.Switches {
		if _, err := c.reg.Lookup(sw.Platform); err != nil {
			continue // RF114
		}
		k := switchShape(sw)
		if _, ok := byKey[k]; !ok {
			jobs = append(jobs, job{k, sw})
		}
		byKey[k] = append(byKey[k], sw)
	}
	results := make([]renderResult, len(jobs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, j := range jobs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			results[i] = c.renderSwitch(j.sw, defaults)
		}()
	}
	wg.Wait()
	for i, j := range jobs {
		res := results[i]
		for _, sw := range byKey[j.key] {
			c.reportRender(sw, res)
		}
	}
	c.hostSettings = make(map[string]*devcfg.HostSettings, len(c.r.Hosts))
	hostErrs := make([]error, len(c.r.Hosts))
	settings := make([]*devcfg.HostSettings, len(c.r.Hosts))
	for i, h := range c.r.Hosts {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			rh, err := host.Render(h, c.r)
			if err != nil {
				hostErrs[i] = err
				return
			}
			settings[i] = rh.Settings
		}()
	}
	wg.Wait()
	for i, h := range c.r.Hosts {
		if hostErrs[i] != nil {
			c.errorf(h.Spec.At("nics"), CodeRender, "%v", hostErrs[i])
			continue
		}
		c.hostSettings[h.Name] = settings[i]
	}
}

func (c *checker) reportRender(sw *intent.Switch, res renderResult) {
	p := sw.Policy
	if res.err != nil {
		msg := strings.TrimPrefix(strings.TrimPrefix(res.err.Error(), res.as+": "), "switch "+res.as+": ")
		// A refusal of one port's field (a LAG number the platform does
		// not take) is reported where that field is written.
		var pe *renderers.PortError
		if errors.As(res.err, &pe) {
			if port, ok := sw.Port(pe.Port); ok && pe.Field == "lag" && port.LAGAt.Field != "" {
				c.perSwitch(port.LAGAt, CodeRender, sw.Name, "%s cannot render lag %s of port %s: %v", sw.Platform, port.LAG, port.Name, pe.Err)
				return
			}
		}
		if res.culprit != "" {
			f, _ := fieldNamed(res.culprit)
			c.perSwitch(p.Origin(res.culprit), CodeRender, sw.Name, "%s cannot render %s %s: %s", sw.Platform, res.culprit, f.value(p), msg)
			return
		}
		c.perSwitch(sw.Spec.At("platform"), CodeRender, sw.Name, "%s cannot render this switch: %s", sw.Platform, msg)
		return
	}
	for _, name := range res.dropped {
		if slices.Contains(p.PlatformDefaults, name) {
			continue
		}
		f, _ := fieldNamed(name)
		c.perSwitch(p.Origin(name), CodeWatchdogDefault, sw.Name,
			"%s does not render %s %s: its configuration is the same as with the default, so the setting would be dropped; remove it for these switches, or accept the platform's own behaviour with lossless.platformDefaults: [%s]",
			sw.Platform, name, f.value(p), name)
	}
}

// renderSwitch renders one switch, and on failure finds the written field
// whose default renders; on success lists the written tuning fields the
// platform does not render.
func (c *checker) renderSwitch(sw *intent.Switch, defaults intent.Policy) renderResult {
	render := func(p intent.Policy) (*devcfg.Config, error) {
		s := *sw
		s.Policy = p
		e, err := c.reg.Lookup(s.Platform)
		if err != nil {
			return nil, err
		}
		return e.New().Render(&s)
	}
	base, err := render(sw.Policy)
	if err != nil {
		res := renderResult{as: sw.Name, err: err}
		for _, f := range policyFields {
			if _, written := sw.Policy.Written(f.name); !written {
				continue
			}
			p := clonePolicy(sw.Policy)
			f.reset(&p, defaults)
			if _, err := render(p); err == nil {
				res.culprit = f.name
				break
			}
		}
		return res
	}
	res := renderResult{as: sw.Name}
	text := base.Text()
	moved := clonePolicy(sw.Policy)
	moved.NoDropPriority = (moved.NoDropPriority + 1) % 8
	if moved.NoDropPriority == moved.CNPPriority {
		moved.NoDropPriority = (moved.NoDropPriority + 1) % 8
	}
	moved.PFCPriorities = []int{moved.NoDropPriority}
	if cfg, err := render(moved); err == nil && cfg.Text() != text {
		res.lossless = true
	}
	if !res.lossless {
		return res // no lossless class to drop a setting from (Linux)
	}
	for _, f := range policyFields {
		if !f.tuning || !f.applies(sw.Policy) {
			continue
		}
		if _, written := sw.Policy.Written(f.name); !written {
			continue
		}
		p := clonePolicy(sw.Policy)
		f.reset(&p, defaults)
		if f.value(p) == f.value(sw.Policy) {
			continue // written as the default
		}
		if cfg, err := render(p); err != nil || cfg.Text() != text {
			continue
		}
		if f.name == "pfc.cableLength" && c.rendersCableFallback(sw, defaults) {
			// pfc.cableLength is the length of links that write none; here
			// every link writes its own, and the platform takes the
			// fallback where one does not.
			continue
		}
		res.dropped = append(res.dropped, f.name)
	}
	return res
}

// rendersCableFallback: with its links' lengths taken away, the switch
// renders pfc.cableLength.
func (c *checker) rendersCableFallback(sw *intent.Switch, defaults intent.Policy) bool {
	s := *sw
	s.Ports = slices.Clone(sw.Ports)
	cabled := false
	for i := range s.Ports {
		if s.Ports[i].Cable != nil && s.Ports[i].Cable.Length != 0 {
			cable := *s.Ports[i].Cable
			cable.Length = 0
			s.Ports[i].Cable = &cable
			cabled = true
		}
	}
	if !cabled {
		return false
	}
	e, err := c.reg.Lookup(s.Platform)
	if err != nil {
		return false
	}
	with, err1 := e.New().Render(&s)
	s.Policy = clonePolicy(sw.Policy)
	s.Policy.CableLength = defaults.CableLength
	without, err2 := e.New().Render(&s)
	return err1 == nil && err2 == nil && with.Text() != without.Text()
}

func clonePolicy(p intent.Policy) intent.Policy {
	p.RoCEDSCP = slices.Clone(p.RoCEDSCP)
	p.PFCPriorities = slices.Clone(p.PFCPriorities)
	return p
}

// switchShape is everything a switch's render depends on but its name,
// address and credentials, and which fields are written (only those are
// checked). It is built by hand: a fabric has thousands of switches.
func switchShape(sw *intent.Switch) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s|%s|%s|%s|%v|%s|%s|%s|%v|", sw.Platform, sw.Transport, sw.Model, sw.OSVersion, sw.PortSpeed, sw.ASIC, sw.Netns, sw.OCFallback, sw.SectionKey())
	p := sw.Policy
	fmt.Fprintf(&b, "%s|%d|%d|%v|%s|%d|%d|%d|%d|%d|%t|%v|%d|%d|%d|%d|%v|%v|%d|%s|%v|",
		p.Profile, p.VLAN, p.NoDropPriority, p.RoCEDSCP, p.Trust, p.CNPDSCP, p.CNPPriority, p.ECNMin, p.ECNMax, p.MarkProbability,
		p.PFCEnabled, p.PFCPriorities, p.Headroom, p.Xoff, p.Xon, p.CableLength, p.Watchdog, p.SwitchMTU, p.HostMTU, p.RoCEMode, p.PlatformDefaults)
	for _, f := range policyFields {
		if _, ok := p.Written(f.name); ok {
			b.WriteString(f.name + ",")
		}
	}
	b.WriteByte('|')
	for _, port := range sw.Ports {
		cable := -1
		if port.Cable != nil {
			cable = port.Cable.Length
		}
		fmt.Fprintf(&b, "%s:%s:%s:%v:%d,", port.Name, port.Mode, port.LAG, port.Speed, cable)
	}
	return b.String()
}

// checkPlatformDefaults refuses names in lossless.platformDefaults that are
// not fields a platform may leave at its default.
func (c *checker) checkPlatformDefaults(p intent.Policy) {
	at, written := p.Written("platformDefaults")
	if !written {
		return
	}
	known := PlatformDefaultFields()
	for _, name := range p.PlatformDefaults {
		if slices.Contains(known, name) {
			continue
		}
		key := fmt.Sprintf("pd|%s|%s", at, name)
		if c.seen[key] {
			continue
		}
		c.seen[key] = true
		c.errorf(at, CodePlatformDefaults, "%q is not a field a platform may keep at its default%s; the fields are %s", name, suggest(name, known), strings.Join(known, ", "))
	}
}

// suggest names the closest known name, if any is close.
func suggest(name string, known []string) string {
	if best := Closest(name, known); best != "" {
		return fmt.Sprintf(" (did you mean %s?)", best)
	}
	return ""
}

// Closest returns the known name nearest to name by edit distance, or ""
// when none is near (at most a third of the name's length away, ignoring
// case).
func Closest(name string, known []string) string {
	limit := len(name)/3 + 1
	best, bestD := "", limit+1
	for _, k := range known {
		d := editDistance(strings.ToLower(name), strings.ToLower(k))
		if d < bestD || (d == bestD && k < best) {
			best, bestD = k, d
		}
	}
	if bestD > limit {
		return ""
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func switchMTUText(m intent.SwitchMTU) string {
	if m.Max {
		return "max"
	}
	return fmt.Sprint(m.Value)
}
