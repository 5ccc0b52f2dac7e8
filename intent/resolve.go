package intent

import (
	"slices"
	"sort"
	"sync"
	"time"
)

// Resolved is the fabric after defaults and precedence (device > group >
// fabric): one flat model per device, which is what renderers consume.
type Resolved struct {
	Name     string
	Files    []string
	Policy   Policy // the fabric-wide policy, before group and device overrides
	Security SecuritySpec
	Probe    Probe
	Groups   map[string]*GroupSpec
	Switches []*Switch
	Hosts    []*Host
	Links    []Link

	switchByName map[string]*Switch
	hostByName   map[string]*Host
	// hostLinks indexes host links by host, built on first use.
	hostLinks *hostLinkIndex
	// groupPolicy is each group's policy, made once and shared by members
	// that override nothing themselves.
	groupPolicy map[*GroupSpec]Policy
}

// Policy is the concrete lossless policy of one device.
type Policy struct {
	Profile         string
	VLAN            int // 0: routed, no lossless VLAN
	NoDropPriority  int
	RoCEDSCP        []int
	Trust           string
	CNPDSCP         int
	CNPPriority     int
	ECNMin          uint64 // bytes
	ECNMax          uint64 // bytes
	MarkProbability int    // percent
	PFCEnabled      bool
	PFCPriorities   []int
	Headroom        uint64 // bytes; 0: the platform computes it
	Xoff            uint64 // bytes; 0: the platform computes it
	Xon             uint64 // bytes; 0: the platform computes it
	CableLength     int    // meters; 0: the platform default
	Watchdog        Watchdog
	SwitchMTU       SwitchMTU
	HostMTU         int
	RoCEMode        string
	// PlatformDefaults are the fields the user accepts a platform keeps at
	// its own default instead of rendering them (lossless.platformDefaults).
	PlatformDefaults []string

	// origin says where each field was set, by its path under lossless
	// ("ecn.minThreshold"); fields left at their default point at the
	// fabric's lossless section or the document.
	origin map[string]Loc
}

// Watchdog is the resolved PFC watchdog.
type Watchdog struct {
	Enabled     bool
	Detection   time.Duration // 0: platform default
	Restoration time.Duration // 0: platform default
	Action      string        // drop (the default) or forward
}

// Origin is where a policy field was set, for diagnostics.
func (p Policy) Origin(field string) Loc {
	if l, ok := p.origin[field]; ok {
		return l
	}
	if l, ok := p.origin[""]; ok {
		l.Field = joinField(l.Field, field)
		return l
	}
	return Loc{Field: "spec.lossless." + field}
}

// Written returns where a field was written in the intent, and false when
// it holds the default.
func (p Policy) Written(field string) (Loc, bool) {
	l, ok := p.origin[field]
	return l, ok
}

// ECNOn reports whether the profile marks ECN (not pfc-only).
func (p Policy) ECNOn() bool { return p.Profile != ProfilePFCOnly }

// PFCOn reports whether PFC is rendered (enabled, and not ecn-only).
func (p Policy) PFCOn() bool { return p.Profile != ProfileECNOnly && p.PFCEnabled }

// PFCBitmap is the IEEE PFC enable bitmap, zero when PFC is off.
func (p Policy) PFCBitmap() uint8 {
	if !p.PFCOn() {
		return 0
	}
	var b uint8
	for _, prio := range p.PFCPriorities {
		if prio >= 0 && prio < 8 {
			b |= 1 << prio
		}
	}
	return b
}

// RoCEToS is the host ToS for RoCE traffic: the first RoCE DSCP with ECT(0),
// e.g. 106 for DSCP 26.
func (p Policy) RoCEToS() int {
	if len(p.RoCEDSCP) == 0 {
		return 0
	}
	return p.RoCEDSCP[0]<<2 | 0b10
}

// Switch is one resolved switch.
type Switch struct {
	Name       string
	Group      string
	Platform   string
	Transport  string // "" until the platform default is applied
	Address    Address
	Creds      Credentials
	TLS        TLSSpec
	Model      string
	OSVersion  string
	PortSpeed  Speed // the switch's (or its group's) portSpeed; zero if not written
	ASIC       string
	Netns      string
	OCFallback string // OpenConfig PFC fallback platform, "" if none
	// Sections are the platform sections: the switch's own, else its
	// group's, each one whole.
	Sections
	Ports  []Port
	Policy Policy
	Spec   *SwitchSpec
}

// SectionKey is what the switch's platform section sets, as a key for
// caches of its render: equal keys, equal settings.
func (s *Switch) SectionKey() string { return s.Sections.Key() }

// Port is one RoCE-facing switch port.
type Port struct {
	Name string
	Mode string // routed, trunk or access
	LAG  string
	At   Loc
	// LAGAt is where the lag is written; zero when it is not.
	LAGAt Loc
	// Speed is the ports entry's speed, else the switch's portSpeed; zero
	// when neither is written. SpeedAt is where it was written, or the
	// ports entry when it was not.
	Speed   Speed
	SpeedAt Loc
	// Cable is the link cabled to the port, nil when it is not cabled.
	Cable *Cable
}

// Cable is what a port knows of the link cabled to it.
type Cable struct {
	// Length is the link's length in meters; 0 when not written.
	Length int
	// At is the link (or its length, when written).
	At Loc
	// Peer is the other end; PeerIsHost when it is a host NIC.
	Peer       Endpoint
	PeerIsHost bool
	// PeerMTU is the peer's L3 MTU: a host's MTU, or a switch's (which may
	// be "max", its platform's ceiling).
	PeerMTU SwitchMTU
}

// Port returns the RoCE port with that name.
func (s *Switch) Port(name string) (Port, bool) {
	for _, p := range s.Ports {
		if p.Name == name {
			return p, true
		}
	}
	return Port{}, false
}

// AttrAt is where a device attribute was written: on the device, else on
// its group, else the device itself.
func (s *Switch) AttrAt(r *Resolved, field string) Loc {
	if s.Spec.Has(field) {
		return s.Spec.At(field)
	}
	if g := r.Groups[s.Group]; g != nil && g.Has(field) {
		return g.At(field)
	}
	return s.Spec.At(field)
}

// Host is one resolved host.
type Host struct {
	Name    string
	Group   string
	Address Address
	Creds   Credentials
	NICs    []NIC
	Netns   string
	Policy  Policy
	Spec    *HostSpec
}

// NIC is one RDMA NIC port of a host.
type NIC struct {
	Netdev     string
	RDMADevice string
	RDMAPort   int
	Address    string
	At         Loc
}

// Link is one cable, with its ends resolved.
type Link struct {
	A, B Endpoint
	// HostEnd is set when one end is a host NIC; SwitchEnd is the switch
	// port cabled to it (or the A end of a switch-to-switch link).
	HostEnd   *Endpoint
	SwitchEnd Endpoint
	// AAddress and BAddress are the ends' IP addresses as written, or "".
	AAddress, BAddress string
	At                 Loc
	Spec               *LinkSpec
	// Length is the cable length in meters; 0 when not written.
	Length   int
	LengthAt Loc
}

// Probe is the resolved probe configuration.
type Probe struct {
	Pairs           string
	CrossLeafSample int
	List            []PairSpec
	Sizes           []int
	Count           int
	Duration        time.Duration
	RatePPS         int
	PKey            int
	QPMin, QPMax    int
	MaxLossPercent  float64
	At              Loc
	// Spec is the probe section as written, nil when it is absent.
	Spec *ProbeSpec
}

// FieldAt is where a probe field was written, or the probe section (or the
// first intent file) when it holds its default.
func (p Probe) FieldAt(field string) Loc {
	if p.Spec != nil {
		return p.Spec.At(field)
	}
	l := p.At
	if l.Field == "" {
		l.Field = "spec.probe"
	}
	l.Field = joinField(l.Field, field)
	return l
}

// Switch returns the switch with that name.
func (r *Resolved) Switch(name string) *Switch { return r.switchByName[name] }

// Host returns the host with that name.
func (r *Resolved) Host(name string) *Host { return r.hostByName[name] }

// hostLinkIndex finds a host's links without a scan of every link per
// host, which is quadratic over a fabric of thousands of hosts.
type hostLinkIndex struct {
	once   sync.Once
	byHost map[string][]int
}

// WithLinks is a copy of r with only the given links, for checks that
// trust a subset of the cabling (the links LLDP verified). Switches and
// hosts are shared; the host link index is the copy's own.
func (r *Resolved) WithLinks(links []Link) *Resolved {
	c := *r
	c.Links = append([]Link(nil), links...)
	c.hostLinks = &hostLinkIndex{}
	return &c
}

// HostLinksOf returns the links of one host's NICs, sorted by NIC.
func (r *Resolved) HostLinksOf(host string) []Link {
	if r.hostLinks == nil { // a Resolved not made by Resolve
		var out []Link
		for _, l := range r.HostLinks() {
			if l.HostEnd.Device == host {
				out = append(out, l)
			}
		}
		return out
	}
	r.hostLinks.once.Do(func() {
		idx := map[string][]int{}
		for i, l := range r.Links {
			if l.HostEnd != nil {
				idx[l.HostEnd.Device] = append(idx[l.HostEnd.Device], i)
			}
		}
		for _, is := range idx {
			sort.SliceStable(is, func(a, b int) bool { return r.Links[is[a]].HostEnd.Port < r.Links[is[b]].HostEnd.Port })
		}
		r.hostLinks.byHost = idx
	})
	is := r.hostLinks.byHost[host]
	out := make([]Link, len(is))
	for i, j := range is {
		out[i] = r.Links[j]
	}
	return out
}

// HostLinks returns the host-to-switch links, sorted by host then NIC.
func (r *Resolved) HostLinks() []Link {
	var out []Link
	for _, l := range r.Links {
		if l.HostEnd != nil {
			out = append(out, l)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].HostEnd.Device != out[j].HostEnd.Device {
			return out[i].HostEnd.Device < out[j].HostEnd.Device
		}
		return out[i].HostEnd.Port < out[j].HostEnd.Port
	})
	return out
}

// Resolve applies defaults and precedence. Unknown group and device
// references are reported; everything else is lint's job.
func Resolve(f *Fabric) (*Resolved, Diagnostics) {
	var diags Diagnostics
	r := &Resolved{
		Name:         f.Name,
		Files:        f.Files,
		Groups:       make(map[string]*GroupSpec, len(f.Groups)),
		Switches:     withCap[*Switch](len(f.Switches)),
		Hosts:        withCap[*Host](len(f.Hosts)),
		Links:        withCap[Link](len(f.Links)),
		switchByName: make(map[string]*Switch, len(f.Switches)),
		hostByName:   make(map[string]*Host, len(f.Hosts)),
		hostLinks:    &hostLinkIndex{},
		groupPolicy:  map[*GroupSpec]Policy{},
	}
	r.Policy = defaultPolicy(f)
	r.Policy.apply(f.Lossless)
	if f.Security != nil {
		r.Security = *f.Security
	}
	r.Probe = resolveProbe(f.Probe, r.Policy)
	for i := range f.Groups {
		g := &f.Groups[i]
		if _, dup := r.Groups[g.Name]; !dup {
			r.Groups[g.Name] = g
		}
	}
	for i := range f.Switches {
		sw := r.resolveSwitch(&f.Switches[i], &diags)
		if _, dup := r.switchByName[sw.Name]; dup {
			continue // already reported by the loader
		}
		r.Switches = append(r.Switches, sw)
		r.switchByName[sw.Name] = sw
	}
	for i := range f.Hosts {
		h := r.resolveHost(&f.Hosts[i], &diags)
		if _, dup := r.hostByName[h.Name]; dup {
			continue
		}
		if _, clash := r.switchByName[h.Name]; clash {
			continue
		}
		r.Hosts = append(r.Hosts, h)
		r.hostByName[h.Name] = h
	}
	for i := range f.Links {
		r.resolveLink(&f.Links[i], &diags)
	}
	r.cablePorts()
	diags.Sort()
	return r, diags
}

func defaultPolicy(f *Fabric) Policy {
	p := Policy{
		Profile:         DefaultProfile,
		NoDropPriority:  DefaultNoDropPriority,
		RoCEDSCP:        []int{DefaultRoCEDSCP},
		Trust:           DefaultTrust,
		CNPDSCP:         DefaultCNPDSCP,
		CNPPriority:     DefaultCNPPriority,
		ECNMin:          DefaultECNMin,
		ECNMax:          DefaultECNMax,
		MarkProbability: DefaultMarkProbability,
		PFCEnabled:      true,
		PFCPriorities:   []int{DefaultNoDropPriority},
		Watchdog:        Watchdog{Enabled: true, Action: DefaultWatchdogAction},
		SwitchMTU:       SwitchMTU{Max: true},
		HostMTU:         DefaultHostMTU,
		RoCEMode:        DefaultRoCEMode,
		origin:          map[string]Loc{},
	}
	if f.Lossless != nil {
		p.origin[""] = f.Lossless.Loc()
	} else if len(f.Files) > 0 {
		p.origin[""] = Loc{File: f.Files[0], Line: 1, Col: 1, Field: "spec.lossless"}
	}
	return p
}

// withOverrides layers a group's and a device's overrides on base.
func (p Policy) withOverrides(layers ...*LosslessSpec) Policy {
	any := false
	for _, l := range layers {
		any = any || l != nil
	}
	if !any {
		return p
	}
	out := p
	out.RoCEDSCP = slices.Clone(p.RoCEDSCP)
	out.PFCPriorities = slices.Clone(p.PFCPriorities)
	out.PlatformDefaults = slices.Clone(p.PlatformDefaults)
	out.origin = make(map[string]Loc, len(p.origin))
	for k, v := range p.origin {
		out.origin[k] = v
	}
	for _, l := range layers {
		out.apply(l)
	}
	return out
}

// apply copies every field written in s over p and records where it was set.
func (p *Policy) apply(s *LosslessSpec) {
	if s == nil {
		return
	}
	o := overlay{origin: p.origin}
	if s.NoDropPriority != nil && (s.PFC == nil || s.PFC.Priorities == nil) && slices.Equal(p.PFCPriorities, []int{p.NoDropPriority}) {
		// PFC follows the no-drop priority unless its priorities are written.
		p.PFCPriorities = []int{*s.NoDropPriority}
		o.origin["pfc.priorities"] = s.At("noDropPriority")
	}
	take(o, &p.Profile, s.Profile, "profile", s.Src)
	take(o, &p.VLAN, s.VLAN, "vlan", s.Src)
	take(o, &p.NoDropPriority, s.NoDropPriority, "noDropPriority", s.Src)
	takeSlice(o, &p.RoCEDSCP, s.RoCEDSCP, "roceDscp", s.Src)
	take(o, &p.Trust, s.Trust, "trust", s.Src)
	take(o, &p.RoCEMode, s.RoCEMode, "roceMode", s.Src)
	takeSlice(o, &p.PlatformDefaults, s.PlatformDefaults, "platformDefaults", s.Src)
	if c := s.CNP; c != nil {
		take(o.in("cnp"), &p.CNPDSCP, c.DSCP, "dscp", c.Src)
		take(o.in("cnp"), &p.CNPPriority, c.Priority, "priority", c.Src)
	}
	if e := s.ECN; e != nil {
		o := o.in("ecn")
		takeBytes(o, &p.ECNMin, e.MinThreshold, "minThreshold", e.Src)
		takeBytes(o, &p.ECNMax, e.MaxThreshold, "maxThreshold", e.Src)
		take(o, &p.MarkProbability, e.MarkProbability, "markProbability", e.Src)
	}
	if f := s.PFC; f != nil {
		o := o.in("pfc")
		take(o, &p.PFCEnabled, f.Enabled, "enabled", f.Src)
		takeSlice(o, &p.PFCPriorities, f.Priorities, "priorities", f.Src)
		takeBytes(o, &p.Headroom, f.Headroom, "headroom", f.Src)
		takeBytes(o, &p.Xoff, f.Xoff, "xoff", f.Src)
		takeBytes(o, &p.Xon, f.Xon, "xon", f.Src)
		if f.CableLength != nil {
			p.CableLength = f.CableLength.N
			o.set("cableLength", f.Src)
		}
		if w := f.Watchdog; w != nil {
			o := o.in("watchdog")
			take(o, &p.Watchdog.Enabled, w.Enabled, "enabled", w.Src)
			if w.DetectionTime != nil {
				p.Watchdog.Detection = w.DetectionTime.D
				o.set("detectionTime", w.Src)
			}
			if w.RestorationTime != nil {
				p.Watchdog.Restoration = w.RestorationTime.D
				o.set("restorationTime", w.Src)
			}
			take(o, &p.Watchdog.Action, w.Action, "action", w.Src)
		}
	}
	if m := s.MTU; m != nil {
		take(o.in("mtu"), &p.SwitchMTU, m.Switch, "switch", m.Src)
		take(o.in("mtu"), &p.HostMTU, m.Host, "host", m.Src)
	}
}

// overlay records where each written policy field came from, under a
// field-path prefix ("pfc.watchdog.").
type overlay struct {
	origin map[string]Loc
	prefix string
}

func (o overlay) in(section string) overlay {
	return overlay{origin: o.origin, prefix: o.prefix + section + "."}
}

func (o overlay) set(field string, src Src) { o.origin[o.prefix+field] = src.At(field) }

// take copies a written field over the policy's value.
func take[T any](o overlay, dst *T, src *T, field string, from Src) {
	if src != nil {
		*dst = *src
		o.set(field, from)
	}
}

func takeSlice[T any](o overlay, dst *[]T, src []T, field string, from Src) {
	if src != nil {
		*dst = slices.Clone(src)
		o.set(field, from)
	}
}

func takeBytes(o overlay, dst *uint64, src *Bytes, field string, from Src) {
	if src != nil {
		*dst = src.N
		o.set(field, from)
	}
}

// policyFor layers a device's overrides on its group's policy, which is
// made once per group: thousands of members share it and its maps.
func (r *Resolved) policyFor(g *GroupSpec, own *LosslessSpec) Policy {
	base := r.Policy
	if g != nil && g.Overrides != nil {
		gp, ok := r.groupPolicy[g]
		if !ok {
			gp = r.Policy.withOverrides(g.Overrides)
			r.groupPolicy[g] = gp
		}
		base = gp
	}
	return base.withOverrides(own)
}

func (r *Resolved) group(name string, at Loc, diags *Diagnostics) *GroupSpec {
	if name == "" {
		return nil
	}
	g, ok := r.Groups[name]
	if !ok {
		diags.Errorf(at, CodeUnknownRef, "group %q is not defined%s", name, suggestName(name, mapKeys(r.Groups)))
	}
	return g
}

func (r *Resolved) resolveSwitch(s *SwitchSpec, diags *Diagnostics) *Switch {
	g := r.group(s.Group, s.At("group"), diags)
	var attrs DeviceAttrs
	if g != nil {
		attrs = g.DeviceAttrs
	}
	layerAttrs(&attrs, s.DeviceAttrs)
	sw := &Switch{
		Name: s.Name, Group: s.Group, Platform: attrs.Platform, Transport: attrs.Transport,
		Model: attrs.Model, OSVersion: attrs.OSVersion, ASIC: attrs.ASIC,
		Netns: attrs.Netns, Spec: s,
		Policy: r.policyFor(g, s.Overrides),
	}
	if s.Address != nil {
		sw.Address = *s.Address
	}
	if attrs.PortSpeed != nil {
		sw.PortSpeed = *attrs.PortSpeed
	}
	if attrs.Credentials != nil {
		sw.Creds = *attrs.Credentials
	}
	if attrs.TLS != nil {
		sw.TLS = *attrs.TLS
	}
	sw.Sections = attrs.Sections
	if attrs.OpenConfig != nil && attrs.OpenConfig.PFCFallback != nil {
		sw.OCFallback = attrs.OpenConfig.PFCFallback.Platform
	}
	defaultMode := "routed"
	if sw.Policy.VLAN != 0 {
		defaultMode = "trunk"
	}
	nPorts := 0
	for _, ps := range s.Ports {
		nPorts += len(ps.Names.Names)
	}
	sw.Ports = withCap[Port](nPorts)
	for _, ps := range s.Ports {
		mode := ps.Mode
		if mode == "" {
			mode = defaultMode
		}
		speed, speedAt := sw.PortSpeed, sw.AttrAt(r, "portSpeed")
		if !speed.Written() {
			speedAt = ps.At("speed")
		}
		if ps.Speed != nil {
			speed, speedAt = *ps.Speed, ps.At("speed")
		}
		var lagAt Loc
		if ps.LAG != "" {
			lagAt = ps.At("lag")
		}
		for _, name := range ps.Names.Names {
			sw.Ports = append(sw.Ports, Port{Name: name, Mode: mode, LAG: ps.LAG, At: ps.At("names"), LAGAt: lagAt, Speed: speed, SpeedAt: speedAt})
		}
	}
	return sw
}

// layerAttrs copies every attribute the device sets over the group's.
func layerAttrs(dst *DeviceAttrs, src DeviceAttrs) {
	for _, f := range []struct{ d, s *string }{
		{&dst.Platform, &src.Platform}, {&dst.Transport, &src.Transport}, {&dst.Model, &src.Model},
		{&dst.OSVersion, &src.OSVersion}, {&dst.ASIC, &src.ASIC},
		{&dst.Netns, &src.Netns},
	} {
		if *f.s != "" {
			*f.d = *f.s
		}
	}
	if src.PortSpeed != nil {
		dst.PortSpeed = src.PortSpeed
	}
	if src.Credentials != nil {
		dst.Credentials = src.Credentials
	}
	if src.TLS != nil {
		dst.TLS = src.TLS
	}
	dst.Sections.layer(src.Sections)
	if src.OpenConfig != nil {
		dst.OpenConfig = src.OpenConfig
	}
}

func (r *Resolved) resolveHost(h *HostSpec, diags *Diagnostics) *Host {
	g := r.group(h.Group, h.At("group"), diags)
	creds := h.Credentials
	if g != nil && creds == nil {
		creds = g.Credentials
	}
	out := &Host{Name: h.Name, Group: h.Group, Netns: h.Netns, Spec: h,
		Policy: r.policyFor(g, h.Overrides)}
	if h.Address != nil {
		out.Address = *h.Address
	}
	if creds != nil {
		out.Creds = *creds
	}
	for _, n := range h.NICs {
		out.NICs = append(out.NICs, NIC{Netdev: n.Netdev, RDMADevice: n.RDMADevice, RDMAPort: max(n.RDMAPort, 1), Address: n.Address, At: n.Loc()})
	}
	return out
}

func (r *Resolved) resolveLink(l *LinkSpec, diags *Diagnostics) {
	if l.A.Device == "" || l.B.Device == "" {
		return // an end that did not parse was reported by the loader
	}
	link := Link{A: l.A, B: l.B, AAddress: l.AAddress, BAddress: l.BAddress, At: l.Loc(), Spec: l, LengthAt: l.At("length")}
	if l.Length != nil {
		if l.Length.N == 0 {
			diags.Errorf(l.At("length"), CodeBadUnit, "cable length 0 m: a cable is at least 1 m long (leave length out for the platform default)")
		}
		link.Length = l.Length.N
	}
	ok := true
	kind := func(e Endpoint, field string) string {
		if h := r.hostByName[e.Device]; h != nil {
			for _, n := range h.NICs {
				if n.Netdev == e.Port {
					return "host"
				}
			}
			diags.Errorf(l.At(field), CodeUnknownRef, "host %q has no NIC %q", e.Device, e.Port)
			ok = false
			return "host"
		}
		if r.switchByName[e.Device] != nil {
			return "switch"
		}
		diags.Errorf(l.At(field), CodeUnknownRef, "device %q is not defined", e.Device)
		ok = false
		return ""
	}
	ka, kb := kind(l.A, "a"), kind(l.B, "b")
	if !ok {
		return
	}
	switch {
	case ka == "host" && kb == "host":
		diags.Errorf(l.Loc(), CodeUnknownRef, "link %s – %s joins two hosts; cable each host to a switch port", l.A, l.B)
		return
	case ka == "host":
		a := l.A
		link.HostEnd, link.SwitchEnd = &a, l.B
	case kb == "host":
		b := l.B
		link.HostEnd, link.SwitchEnd = &b, l.A
	default:
		link.SwitchEnd = l.A
	}
	r.Links = append(r.Links, link)
}

// cablePorts gives every cabled switch port its cable: length and peer. A
// port cabled twice (lint's RF125) keeps its first cable.
func (r *Resolved) cablePorts() {
	index := map[*Switch]map[string]int{}
	portOf := func(e Endpoint) *Port {
		sw := r.switchByName[e.Device]
		if sw == nil {
			return nil
		}
		idx, ok := index[sw]
		if !ok {
			idx = make(map[string]int, len(sw.Ports))
			for i, p := range sw.Ports {
				if _, dup := idx[p.Name]; !dup {
					idx[p.Name] = i
				}
			}
			index[sw] = idx
		}
		i, ok := idx[e.Port]
		if !ok {
			return nil
		}
		return &sw.Ports[i]
	}
	for _, l := range r.Links {
		for _, end := range []struct {
			self, peer Endpoint
		}{{l.A, l.B}, {l.B, l.A}} {
			p := portOf(end.self)
			if p == nil || p.Cable != nil {
				continue
			}
			c := &Cable{Length: l.Length, At: l.LengthAt, Peer: end.peer}
			if h := r.hostByName[end.peer.Device]; h != nil {
				c.PeerIsHost, c.PeerMTU = true, SwitchMTU{Value: h.Policy.HostMTU}
			} else if sw := r.switchByName[end.peer.Device]; sw != nil {
				c.PeerMTU = sw.Policy.SwitchMTU
			}
			p.Cable = c
		}
	}
}

func resolveProbe(s *ProbeSpec, p Policy) Probe {
	out := Probe{
		Pairs: DefaultProbePairs, CrossLeafSample: DefaultCrossLeafSample,
		Sizes: slices.Clone(DefaultProbeSizes), Count: DefaultProbeCount, Duration: DefaultProbeDuration,
		RatePPS: DefaultProbeRatePPS, PKey: DefaultProbePKey, QPMin: DefaultProbeQPMin, QPMax: DefaultProbeQPMax,
	}
	if p.Profile == ProfileECNOnly {
		out.MaxLossPercent = DefaultLossyLossPercent
	}
	if s == nil {
		return out
	}
	out.At = s.Loc()
	out.Spec = s
	if s.Pairs != nil {
		out.Pairs = *s.Pairs
	}
	if s.CrossLeafSample != nil {
		out.CrossLeafSample = *s.CrossLeafSample
	}
	out.List = s.List
	if s.Sizes != nil {
		out.Sizes = slices.Clone(s.Sizes)
	}
	if s.Count != nil {
		out.Count = *s.Count
	}
	if s.Duration != nil {
		out.Duration = s.Duration.D
	}
	if s.RatePPS != nil {
		out.RatePPS = *s.RatePPS
	}
	if s.PKey != nil {
		out.PKey = *s.PKey
	}
	if s.QPMin != nil {
		out.QPMin = *s.QPMin
	}
	if s.QPMax != nil {
		out.QPMax = *s.QPMax
	}
	if s.MaxLossPercent != nil {
		out.MaxLossPercent = *s.MaxLossPercent
	}
	return out
}

// withCap is an empty slice with room for n, or nil when n is 0, so an
// absent list stays nil.
func withCap[T any](n int) []T {
	if n == 0 {
		return nil
	}
	return make([]T, 0, n)
}

func mapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func suggestName(name string, known []string) string {
	best, bestDist := "", 3
	for _, k := range known {
		if d := levenshtein(name, k); d < bestDist {
			best, bestDist = k, d
		}
	}
	if best == "" {
		return ""
	}
	return " (did you mean \"" + best + "\"?)"
}
