package lint

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/intent/headroom"
	"github.com/rocefab/rocefab/renderers"
)

// minMTUForActive4096 is the IP MTU at which RoCE picks a 4096-byte active
// MTU: 4096 payload + IPv6 40 + UDP 8 + BTH 12 + RETH 16 + ICRC 4, rounded.
const minMTUForActive4096 = 4200

// Validate loads, resolves and lints intent files in one go. The resolved
// fabric is nil only when nothing could be read.
func Validate(reg *renderers.Registry, paths ...string) (*intent.Resolved, intent.Diagnostics) {
	return ValidateWith(reg, intent.DefaultLimits(), paths...)
}

// ValidateWith is Validate within the loader's limits lim.
func ValidateWith(reg *renderers.Registry, lim intent.Limits, paths ...string) (*intent.Resolved, intent.Diagnostics) {
	fab, diags := intent.LoadWith(lim, paths...)
	if fab == nil {
		return nil, diags
	}
	return finish(reg, fab, diags)
}

// ValidateBytes is Validate for an intent held in memory.
func ValidateBytes(reg *renderers.Registry, name string, data []byte) (*intent.Resolved, intent.Diagnostics) {
	return ValidateBytesWith(reg, intent.DefaultLimits(), name, data)
}

// ValidateBytesWith is ValidateBytes within lim.
func ValidateBytesWith(reg *renderers.Registry, lim intent.Limits, name string, data []byte) (*intent.Resolved, intent.Diagnostics) {
	fab, diags := intent.LoadBytesWith(lim, name, data)
	return finish(reg, fab, diags)
}

func finish(reg *renderers.Registry, fab *intent.Fabric, diags intent.Diagnostics) (*intent.Resolved, intent.Diagnostics) {
	res, rdiags := intent.Resolve(fab)
	diags = append(diags, rdiags...)
	diags = append(diags, Check(res, reg)...)
	if !diags.HasErrors() {
		// Renderers see a valid intent only, as plan does.
		diags = append(diags, CheckRenders(res, reg)...)
	}
	diags = dedupe(diags)
	diags.Sort()
	return res, diags
}

// Check runs every lint rule.
func Check(r *intent.Resolved, reg *renderers.Registry) intent.Diagnostics {
	c := &checker{r: r, reg: reg, seen: map[string]bool{}, shared: map[sharedKey][]string{}}
	// The platforms' own sections, which the loader keeps as written.
	c.diags = append(c.diags, intent.CheckSections(r, reg.SectionDecoders())...)
	c.policy(r.Policy, "")
	for _, sw := range r.Switches {
		c.policy(sw.Policy, sw.Name)
		c.switchRules(sw)
	}
	for _, h := range r.Hosts {
		c.policy(h.Policy, h.Name)
		c.hostRules(h)
	}
	c.hostMTUFit()
	c.addresses()
	c.cabling()
	c.linkAddresses()
	c.probe()
	c.flushShared()
	return c.diags
}

// CheckRenders renders every switch and host as plan would (see
// renderChecks) and compares both ends of every cable (linkEnds). It
// expects an intent Check found no errors in, so a problem lint already
// names is not reported again from another side.
func CheckRenders(r *intent.Resolved, reg *renderers.Registry) intent.Diagnostics {
	c := &checker{r: r, reg: reg, seen: map[string]bool{}, shared: map[sharedKey][]string{}}
	c.renderChecks()
	c.linkEnds()
	c.flushShared()
	return c.diags
}

type checker struct {
	r     *intent.Resolved
	reg   *renderers.Registry
	diags intent.Diagnostics
	seen  map[string]bool
	// shared gathers per-switch findings about one written value (a group's
	// platform, a fabric-wide MTU) so each is reported once, naming the
	// switches it affects, instead of once per switch.
	shared      map[sharedKey][]string // switch names
	sharedOrder []sharedKey
	// hostSettings are the hosts' rendered NIC settings (renderChecks), for
	// the link checks.
	hostSettings map[string]*devcfg.HostSettings
}

type sharedKey struct {
	at   intent.Loc
	code string
	msg  string
	warn bool
}

// perSwitch records an error about switch name at at; the message must not
// name the switch: flushShared prefixes the switch or switches.
func (c *checker) perSwitch(at intent.Loc, code, name, format string, args ...any) {
	k := sharedKey{at: at, code: code, msg: fmt.Sprintf(format, args...)}
	if _, ok := c.shared[k]; !ok {
		c.sharedOrder = append(c.sharedOrder, k)
	}
	c.shared[k] = append(c.shared[k], name)
}

// perSwitchWarn is perSwitch for a warning.
func (c *checker) perSwitchWarn(at intent.Loc, code, name, format string, args ...any) {
	k := sharedKey{at: at, code: code, msg: fmt.Sprintf(format, args...), warn: true}
	if _, ok := c.shared[k]; !ok {
		c.sharedOrder = append(c.sharedOrder, k)
	}
	c.shared[k] = append(c.shared[k], name)
}

func (c *checker) flushShared() {
	for _, k := range c.sharedOrder {
		if k.warn {
			c.warnf(k.at, k.code, "%s: %s", devicesPhrase("switch", "switches", c.shared[k]), k.msg)
			continue
		}
		c.errorf(k.at, k.code, "%s: %s", devicesPhrase("switch", "switches", c.shared[k]), k.msg)
	}
}

// devicesPhrase names one device, or counts many and names the first.
func devicesPhrase(one, many string, names []string) string {
	switch len(names) {
	case 1:
		return one + " " + names[0]
	case 2:
		return many + " " + names[0] + " and " + names[1]
	default:
		return fmt.Sprintf("%d %s (%s, %s, ...)", len(names), many, names[0], names[1])
	}
}

func (c *checker) errorf(at intent.Loc, code, format string, args ...any) {
	c.diags.Errorf(at, code, format, args...)
}

func (c *checker) warnf(at intent.Loc, code, format string, args ...any) {
	c.diags.Warnf(at, code, format, args...)
}

// policy checks one effective policy. Problems are reported where the value
// was written, so a bad fabric-wide value is reported once, not per device.
func (c *checker) policy(p intent.Policy, device string) {
	c.checkPlatformDefaults(p)
	if _, set := originSet(p, "vlan"); set && (p.VLAN < 1 || p.VLAN > 4094) {
		c.errorf(p.Origin("vlan"), CodeVLANRange, "VLAN %d is outside 1..4094", p.VLAN)
	}
	prio := func(field string, v int) {
		if v < 0 || v > 7 {
			c.errorf(p.Origin(field), CodePriorityRange, "priority %d is outside 0..7", v)
		}
	}
	prio("noDropPriority", p.NoDropPriority)
	prio("cnp.priority", p.CNPPriority)
	for _, v := range p.PFCPriorities {
		prio("pfc.priorities", v)
	}
	if len(p.RoCEDSCP) == 0 {
		c.errorf(p.Origin("roceDscp"), CodeDSCPRange, "the RoCE DSCP set is empty")
	}
	for _, d := range p.RoCEDSCP {
		if d < 0 || d > 63 {
			c.errorf(p.Origin("roceDscp"), CodeDSCPRange, "DSCP %d is outside 0..63", d)
		}
	}
	if p.CNPDSCP < 0 || p.CNPDSCP > 63 {
		c.errorf(p.Origin("cnp.dscp"), CodeDSCPRange, "DSCP %d is outside 0..63", p.CNPDSCP)
	}
	if p.ECNOn() && p.ECNMin >= p.ECNMax {
		c.errorf(p.Origin("ecn.minThreshold"), CodeECNOrder, "ECN minimum threshold %d bytes is not below the maximum %d bytes", p.ECNMin, p.ECNMax)
	}
	if p.ECNOn() && p.PFCOn() && p.Xoff > 0 && p.ECNMin*2 > p.Xoff {
		c.warnf(p.Origin("ecn.minThreshold"), CodeECNNearXoff, "ECN minimum %d bytes is not well below PFC xoff %d bytes: PFC may pause before DCQCN slows senders (keep it under half)", p.ECNMin, p.Xoff)
	}
	if p.MarkProbability < 1 || p.MarkProbability > 100 {
		c.errorf(p.Origin("ecn.markProbability"), CodeMarkProbability, "mark probability %d%% is outside 1..100", p.MarkProbability)
	}
	if p.CNPPriority == p.NoDropPriority {
		c.errorf(p.Origin("cnp.priority"), CodeCNPIsNoDrop, "CNP priority %d is the no-drop priority: CNPs belong in a strict-priority lossy class", p.CNPPriority)
	}
	if p.PFCOn() && slices.Contains(p.PFCPriorities, p.CNPPriority) {
		c.errorf(p.Origin("pfc.priorities"), CodeCNPPFC, "PFC is enabled on the CNP priority %d: CNPs must not be paused", p.CNPPriority)
	}
	if slices.Contains(p.RoCEDSCP, p.CNPDSCP) {
		c.errorf(p.Origin("cnp.dscp"), CodeDSCPOverlap, "CNP DSCP %d is also a RoCE DSCP", p.CNPDSCP)
	}
	if p.PFCOn() && !slices.Contains(p.PFCPriorities, p.NoDropPriority) {
		c.errorf(p.Origin("pfc.priorities"), CodeNoDropWithoutPFC, "PFC priorities %v do not include the no-drop priority %d", p.PFCPriorities, p.NoDropPriority)
	}
	if p.Profile == intent.ProfileECNOnly {
		if at, set := originSet(p, "pfc.enabled"); set && p.PFCEnabled {
			c.warnf(at, CodeProfileMismatch, "profile ecn-only renders no PFC; pfc.enabled is ignored")
		}
	}
	if p.Profile == intent.ProfilePFCOnly {
		for _, f := range []string{"ecn.minThreshold", "ecn.maxThreshold", "ecn.markProbability"} {
			if at, set := originSet(p, f); set {
				c.warnf(at, CodeProfileMismatch, "profile pfc-only renders no ECN marking; %s is ignored", f)
			}
		}
	}
	if p.Profile != intent.ProfileECNOnly && !p.PFCEnabled {
		c.warnf(p.Origin("pfc.enabled"), CodeProfileMismatch, "PFC is off but profile %s expects it: the fabric is lossy (use profile ecn-only to say so)", p.Profile)
	}
	if p.RoCEMode == "v1" {
		c.errorf(p.Origin("roceMode"), CodeRoCEv1, "RoCE v1 is not routable and breaks across an L3 fabric; use v2")
	}
	if p.Trust == "pcp" && p.VLAN == 0 {
		c.errorf(p.Origin("trust"), CodePCPNeedsVLAN, "trust pcp needs a lossless VLAN: untagged frames carry no PCP (set vlan, or trust dscp)")
	}
	if p.HostMTU < 1280 || p.HostMTU > 9216 {
		c.errorf(p.Origin("mtu.host"), CodeHostMTUFit, "host MTU %d is outside 1280..9216", p.HostMTU)
	} else if p.HostMTU < minMTUForActive4096 && device != "" {
		c.warnf(p.Origin("mtu.host"), CodeRoCEActiveMTU, "host MTU %d limits RoCE to an active MTU below 4096 (needs about %d)", p.HostMTU, minMTUForActive4096)
	}
}

func originSet(p intent.Policy, field string) (intent.Loc, bool) { return p.Written(field) }

func (c *checker) switchRules(sw *intent.Switch) {
	if sw.Platform == "" {
		c.errorf(sw.Spec.At("platform"), CodeUnknownPlatform, "switch %s has no platform (known: %s)", sw.Name, strings.Join(c.reg.Names(), ", "))
		return
	}
	e, err := c.reg.Lookup(sw.Platform)
	if err != nil {
		c.perSwitch(sw.AttrAt(c.r, "platform"), CodeUnknownPlatform, sw.Name, "%v", err)
		return
	}
	transport := e.Transport(sw)
	if !e.SupportsTransport(transport) {
		c.perSwitch(sw.AttrAt(c.r, "transport"), CodeTransport, sw.Name, "platform %s does not support transport %s (supported: %s)", e.Name, transport, strings.Join(e.Attrs.Transports, ", "))
	}
	// A written but invalid address was already reported by the loader.
	if transport != "netlink" && sw.Address.Host == "" && !sw.Spec.Has("address") {
		c.errorf(sw.Spec.At("address"), CodeMissingAddress, "switch %s has no management address (address: host or host:port)", sw.Name)
	}
	p := sw.Policy
	if !p.SwitchMTU.Max && e.Attrs.MTUCeiling > 0 && p.SwitchMTU.Value > e.Attrs.MTUCeiling {
		c.perSwitch(p.Origin("mtu.switch"), CodeMTUCeiling, sw.Name, "MTU %d exceeds the %s ceiling %d (use %d, or \"max\")", p.SwitchMTU.Value, e.Name, e.Attrs.MTUCeiling, e.Attrs.MTUCeiling)
	}
	if !p.SwitchMTU.Max && p.SwitchMTU.Value < 1280 {
		c.perSwitch(p.Origin("mtu.switch"), CodeMTUCeiling, sw.Name, "MTU %d is below 1280", p.SwitchMTU.Value)
	}
	if max := e.Attrs.MaxNoDropPriorities; max > 0 && p.PFCOn() && len(p.PFCPriorities) > max {
		c.perSwitch(p.Origin("pfc.priorities"), CodeTooManyNoDrop, sw.Name, "%d no-drop priorities, but %s supports %d", len(p.PFCPriorities), e.Name, max)
	}
	if e.Attrs.NeedsQueueBuffer != nil && p.ECNOn() && e.Attrs.NeedsQueueBuffer(sw) {
		// The platform's own section of the switch gives the buffer.
		c.perSwitch(sw.AttrAt(c.r, e.Name), CodeQueueBuffer, sw.Name, "%s", e.Attrs.QueueBufferHint)
	}
	if e.Attrs.NeedsPFCFallback && p.PFCOn() {
		switch fb := sw.OCFallback; {
		case fb == "":
			c.perSwitch(sw.AttrAt(c.r, "openconfig"), CodeOpenConfigPFC, sw.Name, "OpenConfig has no PFC model; declare openconfig.pfcFallback.platform (%s, whose CLI carries PFC, or none)", c.fallbackCarriers())
		case fb == intent.PFCFallbackNone:
			c.warnf(sw.AttrAt(c.r, "openconfig"), CodeOpenConfigNoPFC, "switch %s: pfcFallback none: PFC is not expressible on it over OpenConfig, so rocefab renders no PFC, watchdog or lossless buffers there; the class is lossless only if they are configured outside rocefab", sw.Name)
		case c.fallbackRefused(fb) != "":
			c.warnf(sw.AttrAt(c.r, "openconfig"), CodeOpenConfigNoPFC, "switch %s: pfcFallback %s: %s; manage it with platform %s", sw.Name, fb, c.fallbackRefused(fb), fb)
		case fb == e.Name:
			c.perSwitch(sw.AttrAt(c.r, "openconfig"), CodeOpenConfigPFC, sw.Name, "the PFC fallback must be a vendor-native platform, not %s", fb)
		default:
			if _, err := c.reg.Lookup(fb); err != nil {
				c.perSwitch(sw.AttrAt(c.r, "openconfig"), CodeOpenConfigPFC, sw.Name, "PFC fallback: %v", err)
			}
		}
	}
	c.watchdogTimes(sw, e)
	c.headroom(sw, e)
	for _, port := range sw.Ports {
		if pat := e.Attrs.PortPattern; pat != nil && !pat.MatchString(port.Name) {
			key := fmt.Sprintf("%s|%s", port.At, sw.Platform)
			if !c.seen[key] {
				c.seen[key] = true
				c.errorf(port.At, CodePortName, "switch %s: %q is not a valid %s port name (e.g. %s)", sw.Name, port.Name, e.Name, e.Attrs.PortExample)
			}
		}
		if port.Mode != "routed" && p.VLAN == 0 {
			key := fmt.Sprintf("vlan|%s", port.At)
			if !c.seen[key] {
				c.seen[key] = true
				c.errorf(port.At, CodeSwitchedNeedsVLAN, "switch %s: %s ports need the lossless VLAN (set spec.lossless.vlan, or mode routed)", sw.Name, port.Mode)
			}
		}
	}
}

// watchdogTimes checks the watchdog times against what the platform
// declares it can express (renderers.Attributes.Watchdog): a time it cannot
// write exactly is an error here, never a rounding or a device error.
func (c *checker) watchdogTimes(sw *intent.Switch, e *renderers.Entry) {
	if e.Attrs.NeedsPFCFallback {
		// The watchdog rides in the vendor-native fallback.
		fb, err := c.reg.Lookup(sw.OCFallback)
		if err != nil || fb.Attrs.NeedsPFCFallback {
			return
		}
		e = fb
	}
	w, p := e.Attrs.Watchdog, sw.Policy
	if w == nil || !p.PFCOn() || !p.Watchdog.Enabled {
		return
	}
	for _, t := range []struct {
		field, what string
		d           time.Duration
		r           renderers.TimeRange
	}{
		{"pfc.watchdog.detectionTime", "detection", p.Watchdog.Detection, w.Detection},
		{"pfc.watchdog.restorationTime", "restoration", p.Watchdog.Restoration, w.Restoration},
	} {
		if t.d == 0 || !t.r.Rendered() {
			continue // a time not rendered at all is RF131, found by rendering
		}
		if err := t.r.Check(e.Name, t.what, t.d); err != nil {
			c.perSwitch(p.Origin(t.field), CodeWatchdogTime, sw.Name, "%v", err)
		}
	}
}

// headroom checks PFC headroom against the delay model (intent/headroom):
// an explicit xoff a platform renders must hold what every lossless port
// still receives after it pauses (RF134); all lossless ports together must
// fit the ASIC's buffer (RF135); where rocefab computes headroom for a
// check or a render, a speed or length it had to assume is a warning that
// names the assumption (RF136).
func (c *checker) headroom(sw *intent.Switch, e *renderers.Entry) {
	p := sw.Policy
	if !p.PFCOn() {
		return
	}
	h := e.Headroom(sw)
	facts := e.Attrs.Headroom
	if facts == nil {
		facts = &renderers.HeadroomFacts{}
	}
	checkXoff := facts.RendersXoff && p.Xoff > 0
	needed := func(ph renderers.PortHeadroom) bool {
		return checkXoff || (facts.RenderedAbove > 0 && ph.Length > facts.RenderedAbove && ph.LengthAssumed == "")
	}
	c.headroomAssumptions(sw, e, h, needed)
	if checkXoff {
		var short []renderers.PortHeadroom
		for _, ph := range h.Ports {
			if ph.Err == nil && ph.Result.Xoff > p.Xoff {
				short = append(short, ph)
			}
		}
		if len(short) > 0 {
			w, _ := h.Worst()
			more := ""
			if len(short) > 1 {
				more = fmt.Sprintf(" (%d ports are short: %s)", len(short), renderers.CompactPortNames(portNames(short)))
			}
			c.perSwitch(p.Origin("pfc.xoff"), CodeXoffBelowHeadroom, sw.Name,
				"pfc.xoff %d B is below the %d B port %s still receives after it pauses%s: %s; %s (raise pfc.xoff, or drop it and let the platform size headroom)",
				p.Xoff, w.Result.Xoff, w.Port, more, w.Inputs(h.ASIC), w.Terms())
		}
	}
	if buf := h.ASIC.Buffer; buf > 0 {
		if total := h.Total(p); total > buf {
			assumed := 0
			for _, ph := range h.Ports {
				if ph.Assumed() {
					assumed++
				}
			}
			note := ""
			if assumed > 0 {
				note = fmt.Sprintf("; %d of them with an assumed speed or length", assumed)
			}
			at := sw.AttrAt(c.r, "asic")
			if h.ASICFrom == "model" {
				at = sw.AttrAt(c.r, "model")
			}
			prio := "priorities"
			if h.Priorities == 1 {
				prio = "priority"
			}
			c.perSwitch(at, CodeHeadroomOverBuffer, sw.Name,
				"%d lossless ports × %d %s need %d B of headroom, more than %s's %d B packet buffer%s (fewer lossless ports or priorities, shorter cables, or a lower speed)",
				len(h.Ports), h.Priorities, prio, total, h.ASIC.Name, buf, note)
		}
	}
}

// headroomAssumptions warns, once per place to write it, about each speed
// or length rocefab had to assume for a port whose headroom it computes:
// a speed not written (or unknown), a link without a length.
func (c *checker) headroomAssumptions(sw *intent.Switch, e *renderers.Entry, h renderers.SwitchHeadroom, needed func(renderers.PortHeadroom) bool) {
	type group struct {
		at    intent.Loc
		msg   string
		ports []string
	}
	var groups []*group
	byKey := map[string]*group{}
	add := func(at intent.Loc, msg, port string) {
		key := at.String() + "|" + msg
		g := byKey[key]
		if g == nil {
			g = &group{at: at, msg: msg}
			byKey[key] = g
			groups = append(groups, g)
		}
		g.ports = append(g.ports, port)
	}
	for _, ph := range h.Ports {
		if !needed(ph) {
			continue
		}
		if ph.Err != nil {
			add(ph.SpeedAt, fmt.Sprintf("headroom not computed: %v", ph.Err), ph.Port)
			continue
		}
		if ph.SpeedAssumed != "" {
			add(ph.SpeedAt, fmt.Sprintf("%s: headroom computed for %s (write speed on the ports, or portSpeed)",
				ph.SpeedAssumed, headroom.SpeedText(ph.SpeedMbps)), ph.Port)
		}
		// An uncabled port has no link to write a length on: the default
		// stands, as the plan shows.
		if ph.LengthAssumed != "" && ph.Cabled {
			add(ph.LengthAt, fmt.Sprintf("%s: headroom computed for %d m (write the link's length, or pfc.cableLength)",
				ph.LengthAssumed, ph.Length), ph.Port)
		}
	}
	for _, g := range groups {
		label := "port"
		if len(g.ports) > 1 {
			label = "ports"
		}
		c.warnf(g.at, CodeHeadroomAssumed, "switch %s %s %s: %s", sw.Name, label, renderers.CompactPortNames(g.ports), g.msg)
	}
}

func portNames(ps []renderers.PortHeadroom) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Port
	}
	return out
}

func (c *checker) hostRules(h *intent.Host) {
	if h.Netns == "" && h.Address.Host == "" && !h.Spec.Has("address") {
		c.errorf(h.Spec.At("address"), CodeMissingAddress, "host %s has no address (address: host or host:port, or netns for a lab host)", h.Name)
	}
}

// hostMTUFit reports each written host MTU that exceeds the smallest switch
// MTU once, with the number of hosts it affects, rather than once per host.
func (c *checker) hostMTUFit() {
	smallest, smallestSwitch := 0, ""
	for _, sw := range c.r.Switches {
		e, err := c.reg.Lookup(sw.Platform)
		if err != nil {
			continue
		}
		if mtu := e.SwitchMTU(sw.Policy); mtu > 0 && (smallest == 0 || mtu < smallest) {
			smallest, smallestSwitch = mtu, sw.Name
		}
	}
	if smallest == 0 {
		return
	}
	type group struct {
		mtu   int
		hosts []string
	}
	byOrigin := map[intent.Loc]*group{}
	var order []intent.Loc
	for _, h := range c.r.Hosts {
		if h.Policy.HostMTU <= smallest {
			continue
		}
		at := h.Policy.Origin("mtu.host")
		g := byOrigin[at]
		if g == nil {
			g = &group{mtu: h.Policy.HostMTU}
			byOrigin[at] = g
			order = append(order, at)
		}
		g.hosts = append(g.hosts, h.Name)
	}
	for _, at := range order {
		g := byOrigin[at]
		c.errorf(at, CodeHostMTUFit, "%s: MTU %d does not fit switch %s MTU %d: RoCE never fragments, so the largest RoCE packets would be dropped", devicesPhrase("host", "hosts", g.hosts), g.mtu, smallestSwitch, smallest)
	}
}

func (c *checker) addresses() {
	type owner struct {
		name string
		at   intent.Loc
	}
	seen := make(map[string]owner, len(c.r.Switches)+len(c.r.Hosts))
	check := func(name string, a intent.Address, defPort int, at intent.Loc) {
		if a.Host == "" {
			return
		}
		key := a.WithDefaultPort(defPort)
		if prev, dup := seen[key]; dup {
			c.errorf(at, CodeDuplicateAddress, "%s has the same management address %s as %s (%s)", name, key, prev.name, prev.at)
			return
		}
		seen[key] = owner{name, at}
	}
	for _, sw := range c.r.Switches {
		port := 22
		if e, err := c.reg.Lookup(sw.Platform); err == nil && e.Transport(sw) == "gnmi" {
			port = 57400
		}
		check("switch "+sw.Name, sw.Address, port, sw.Spec.At("address"))
	}
	for _, h := range c.r.Hosts {
		check("host "+h.Name, h.Address, 22, h.Spec.At("address"))
	}
}

func (c *checker) cabling() {
	cabled := make(map[string]intent.Loc, 2*len(c.r.Links))
	// The RoCE ports of each switch by name, made when a link first needs
	// them: a scan per link end was quadratic on switches with thousands of
	// ports.
	roce := map[*intent.Switch]map[string]bool{}
	isRoCEPort := func(sw *intent.Switch, port string) bool {
		names, ok := roce[sw]
		if !ok {
			names = make(map[string]bool, len(sw.Ports))
			for _, p := range sw.Ports {
				names[p.Name] = true
			}
			roce[sw] = names
		}
		return names[port]
	}
	mark := func(e intent.Endpoint, at intent.Loc) {
		key := e.String()
		if prev, dup := cabled[key]; dup {
			c.errorf(at, CodeCabledTwice, "%s is already cabled at %s", key, prev)
			return
		}
		cabled[key] = at
	}
	for _, l := range c.r.Links {
		mark(l.A, l.At)
		mark(l.B, l.At)
		ends := []intent.Endpoint{l.SwitchEnd}
		if l.HostEnd == nil {
			ends = []intent.Endpoint{l.A, l.B}
		}
		for _, e := range ends {
			sw := c.r.Switch(e.Device)
			if sw == nil {
				continue
			}
			if !isRoCEPort(sw, e.Port) {
				c.errorf(l.At, CodeLinkNotRoCEPort, "link %s – %s: %s is not one of %s's RoCE ports (add it under ports)", l.A, l.B, e.Port, sw.Name)
			}
		}
	}
	for _, h := range c.r.Hosts {
		for _, n := range h.NICs {
			if _, ok := cabled[h.Name+":"+n.Netdev]; !ok {
				c.errorf(n.At, CodeNICNotCabled, "host %s NIC %s is not cabled to a RoCE port (add a link %s:%s – switch:port)", h.Name, n.Netdev, h.Name, n.Netdev)
			}
		}
	}
}

func (c *checker) probe() {
	p := c.r.Probe
	at := func(field string) intent.Loc {
		l := p.FieldAt(field)
		if l.Line == 0 && len(c.r.Files) > 0 {
			l.File, l.Line, l.Col = c.r.Files[0], 1, 1
		}
		return l
	}
	if p.PKey < 1 || p.PKey > 0xFFFF {
		c.errorf(at("pkey"), CodeProbeSettings, "probe pkey 0x%x is outside 0x0001..0xFFFF", p.PKey)
	}
	switch {
	case p.QPMin < 2:
		c.errorf(at("qpMin"), CodeProbeSettings, "probe qpMin 0x%x is below 0x2 (QP 0 and 1 are special)", p.QPMin)
	case p.QPMax > 0xFFFFFF:
		c.errorf(at("qpMax"), CodeProbeSettings, "probe qpMax 0x%x is above 0xFFFFFF (QP numbers are 24 bits)", p.QPMax)
	case p.QPMin > p.QPMax:
		c.errorf(at("qpMax"), CodeProbeSettings, "probe QP range 0x%x..0x%x is empty: qpMin must not exceed qpMax", p.QPMin, p.QPMax)
	}
	for _, s := range p.Sizes {
		if s < 1 || s > 9000 {
			c.errorf(at("sizes"), CodeProbeSettings, "probe size %d is outside 1..9000", s)
		}
	}
	if p.Count < 1 {
		c.errorf(at("count"), CodeProbeSettings, "probe count %d must be at least 1", p.Count)
	}
	if p.RatePPS < 1 {
		c.errorf(at("ratePps"), CodeProbeSettings, "probe ratePps %d must be at least 1", p.RatePPS)
	}
	for _, pair := range p.List {
		for _, end := range []struct{ field, name string }{{"from", pair.From}, {"to", pair.To}} {
			if c.r.Host(end.name) == nil {
				var hosts []string
				for _, h := range c.r.Hosts {
					hosts = append(hosts, h.Name)
				}
				c.errorf(pair.At(end.field), CodeProbeSettings, "probe pair names %q, which is not a host%s", end.name, suggest(end.name, hosts))
			}
		}
	}
	if p.Pairs == "listed" && len(p.List) == 0 {
		c.errorf(at("pairs"), CodeProbeSettings, "probe pairs: listed, but the list is empty")
	}
}

// dedupe drops identical diagnostics reported for many devices that share
// one fabric-wide value.
func dedupe(ds intent.Diagnostics) intent.Diagnostics {
	seen := map[string]bool{}
	out := ds[:0]
	for _, d := range ds {
		k := d.String()
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, d)
	}
	return out
}

// fallbackRefused is why an OpenConfig switch of platform fb cannot carry
// its PFC (the platform's NoPFCFallback), or "".
func (c *checker) fallbackRefused(fb string) string {
	if e, err := c.reg.Lookup(fb); err == nil {
		return e.Attrs.NoPFCFallback
	}
	return ""
}

// fallbackCarriers names the platforms whose native PFC an OpenConfig
// switch can carry: "a or b".
func (c *checker) fallbackCarriers() string {
	var names []string
	for _, n := range c.reg.Names() {
		if e, _ := c.reg.Lookup(n); e.Attrs.PFCFallback != nil && e.Attrs.NoPFCFallback == "" {
			names = append(names, n)
		}
	}
	return strings.Join(names, " or ")
}
