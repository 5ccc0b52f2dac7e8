// Package effect classes plan and drift changes by what they do to the
// lossless class: a difference breaks it (PFC, the classification of the
// RoCE DSCP, the no-drop queue, trust, MTU, VLAN, buffers), degrades it
// (ECN marking, CNP handling, the PFC watchdog) or is neutral.
//
// It needs no table per platform: it learns from the renderers which
// rendered entries each intent field decides. For every device it renders
// the intent once more with each lossless field moved to another valid
// value; an entry that changes with a field takes that field's class. A
// new platform is classed correctly the day it renders.
package effect

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/rocefab/rocefab/agent/compliance"
	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/renderers"
	"github.com/rocefab/rocefab/renderers/host"
)

// Field is one lossless intent field and what a difference in what it
// renders does to the lossless class.
type Field struct {
	Name   string
	Effect devcfg.Effect
	// Moves are other values for the field; each reports false when the
	// field does not apply to the policy. An entry depends on the field
	// when every move that renders changes it: with two moves, an entry
	// that only one of the chosen values happens to touch (the map entry
	// of DSCP 46 when the CNP moves to 46) is not taken for one that
	// depends on the field.
	Moves []func(p *intent.Policy) bool
}

// Fields are the fields the classes are learnt from.
var Fields = []Field{
	{"noDropPriority", devcfg.EffectBreaks, []func(*intent.Policy) bool{moveNoDrop(0), moveNoDrop(1)}},
	{"roceDscp", devcfg.EffectBreaks, []func(*intent.Policy) bool{moveRoCEDSCP(0), moveRoCEDSCP(1)}},
	// Trust decides the whole classification table; what it alone decides
	// (the mapping of DSCPs that are neither RoCE's nor the CNP's) queues
	// other traffic: a difference there degrades the class. A change of
	// trust itself also moves the RoCE DSCP's entry, which breaks it.
	{"trust", devcfg.EffectDegrades, []func(*intent.Policy) bool{moveTrust}},
	{"mtu.switch", devcfg.EffectBreaks, []func(*intent.Policy) bool{moveSwitchMTU(9000, 8000), moveSwitchMTU(8500, 7000)}},
	{"mtu.host", devcfg.EffectBreaks, []func(*intent.Policy) bool{
		func(p *intent.Policy) bool { p.HostMTU -= 500; return true },
		func(p *intent.Policy) bool { p.HostMTU -= 1000; return true }}},
	{"vlan", devcfg.EffectBreaks, []func(*intent.Policy) bool{moveVLAN(1), moveVLAN(2)}},
	{"pfc.enabled", devcfg.EffectBreaks, []func(*intent.Policy) bool{func(p *intent.Policy) bool {
		if !p.PFCOn() {
			return false
		}
		p.PFCEnabled = false
		return true
	}}},
	{"pfc.headroom", devcfg.EffectBreaks, []func(*intent.Policy) bool{func(p *intent.Policy) bool { p.Headroom = grow(p.Headroom, 200_000); return p.PFCOn() }}},
	{"pfc.xoff", devcfg.EffectBreaks, []func(*intent.Policy) bool{func(p *intent.Policy) bool { p.Xoff = grow(p.Xoff, 100_000); return p.PFCOn() }}},
	{"pfc.xon", devcfg.EffectBreaks, []func(*intent.Policy) bool{func(p *intent.Policy) bool { p.Xon = grow(p.Xon, 50_000); return p.PFCOn() }}},
	{"pfc.cableLength", devcfg.EffectBreaks, []func(*intent.Policy) bool{func(p *intent.Policy) bool {
		p.CableLength = int(grow(uint64(p.CableLength), 300))
		return p.PFCOn()
	}}},
	{"profile=pfc-only", devcfg.EffectDegrades, []func(*intent.Policy) bool{func(p *intent.Policy) bool {
		if p.Profile != intent.ProfileDCQCN {
			return false
		}
		p.Profile = intent.ProfilePFCOnly
		return true
	}}},
	{"ecn.minThreshold", devcfg.EffectDegrades, ecnMoves(func(p *intent.Policy) *uint64 { return &p.ECNMin })},
	{"ecn.maxThreshold", devcfg.EffectDegrades, ecnMoves(func(p *intent.Policy) *uint64 { return &p.ECNMax })},
	// Watchdog, CNP: a difference degrades the class.
	{"ecn.markProbability", devcfg.EffectDegrades, []func(*intent.Policy) bool{func(p *intent.Policy) bool {
		if p.MarkProbability == 50 {
			p.MarkProbability = 100
		} else {
			p.MarkProbability = 50
		}
		return p.ECNOn()
	}}},
	{"cnp.dscp", devcfg.EffectDegrades, []func(*intent.Policy) bool{moveCNPDSCP(0), moveCNPDSCP(1)}},
	{"cnp.priority", devcfg.EffectDegrades, []func(*intent.Policy) bool{moveCNPPriority(0), moveCNPPriority(1)}},
	{"pfc.watchdog", devcfg.EffectDegrades, []func(*intent.Policy) bool{func(p *intent.Policy) bool {
		p.Watchdog.Enabled = !p.Watchdog.Enabled
		return p.PFCOn()
	}}},
	{"pfc.watchdog.times", devcfg.EffectDegrades, []func(*intent.Policy) bool{func(p *intent.Policy) bool {
		p.Watchdog.Detection = growDuration(p.Watchdog.Detection, 200*time.Millisecond)
		p.Watchdog.Restoration = growDuration(p.Watchdog.Restoration, 400*time.Millisecond)
		return p.PFCOn() && p.Watchdog.Enabled
	}}},
	{"pfc.watchdog.action", devcfg.EffectDegrades, []func(*intent.Policy) bool{func(p *intent.Policy) bool {
		if p.Watchdog.Action == "forward" {
			p.Watchdog.Action = "drop"
		} else {
			p.Watchdog.Action = "forward"
		}
		return p.PFCOn() && p.Watchdog.Enabled
	}}},
}

func grow(v, from uint64) uint64 {
	if v == 0 {
		return from
	}
	return v * 2
}

func growDuration(v, from time.Duration) time.Duration {
	if v == 0 {
		return from
	}
	return v * 2
}

// nthFree is the nth candidate not in used.
func nthFree(n int, cands []int, used ...int) (int, bool) {
	for _, c := range cands {
		if slices.Contains(used, c) {
			continue
		}
		if n == 0 {
			return c, true
		}
		n--
	}
	return 0, false
}

func moveNoDrop(n int) func(*intent.Policy) bool {
	return func(p *intent.Policy) bool {
		np, ok := nthFree(n, []int{4, 2, 5, 1}, append([]int{p.NoDropPriority, p.CNPPriority}, p.PFCPriorities...)...)
		if !ok {
			return false
		}
		old := p.NoDropPriority
		p.NoDropPriority = np
		prios := slices.Clone(p.PFCPriorities)
		for i, v := range prios {
			if v == old {
				prios[i] = np
			}
		}
		p.PFCPriorities = prios
		return true
	}
}

func moveRoCEDSCP(n int) func(*intent.Policy) bool {
	return func(p *intent.Policy) bool {
		d, ok := nthFree(n, []int{24, 34, 10}, append([]int{p.CNPDSCP}, p.RoCEDSCP...)...)
		if !ok {
			return false
		}
		p.RoCEDSCP = []int{d}
		return true
	}
}

func moveTrust(p *intent.Policy) bool {
	if p.VLAN == 0 {
		return false
	}
	if p.Trust == "pcp" {
		p.Trust = "dscp"
	} else {
		p.Trust = "pcp"
	}
	return true
}

func moveSwitchMTU(v, instead int) func(*intent.Policy) bool {
	return func(p *intent.Policy) bool {
		if !p.SwitchMTU.Max && p.SwitchMTU.Value == v {
			v = instead
		}
		p.SwitchMTU = intent.SwitchMTU{Value: v}
		return true
	}
}

func moveVLAN(by int) func(*intent.Policy) bool {
	return func(p *intent.Policy) bool {
		if p.VLAN == 0 {
			return false
		}
		p.VLAN = (p.VLAN+by-1)%4094 + 1
		return true
	}
}

func moveCNPDSCP(n int) func(*intent.Policy) bool {
	return func(p *intent.Policy) bool {
		d, ok := nthFree(n, []int{46, 40, 56}, append([]int{p.CNPDSCP}, p.RoCEDSCP...)...)
		if !ok || !p.ECNOn() {
			return false
		}
		p.CNPDSCP = d
		return true
	}
}

func moveCNPPriority(n int) func(*intent.Policy) bool {
	return func(p *intent.Policy) bool {
		np, ok := nthFree(n, []int{7, 5, 1}, append([]int{p.CNPPriority, p.NoDropPriority}, p.PFCPriorities...)...)
		if !ok || !p.ECNOn() {
			return false
		}
		p.CNPPriority = np
		return true
	}
}

// ecnMoves double and halve a threshold, and nudge it: some platforms
// take thresholds only in whole percent of a buffer (Junos), so some
// values do not render there.
func ecnMoves(field func(p *intent.Policy) *uint64) []func(*intent.Policy) bool {
	mv := func(f func(uint64) uint64) func(*intent.Policy) bool {
		return func(p *intent.Policy) bool {
			v := field(p)
			*v = f(*v)
			return p.ECNOn() && p.ECNMin < p.ECNMax
		}
	}
	return []func(*intent.Policy) bool{
		mv(func(v uint64) uint64 { return v * 2 }),
		mv(func(v uint64) uint64 { return v / 2 }),
		mv(func(v uint64) uint64 { return v + v/10 }),
	}
}

// Classifier learns and caches the classes per device shape, so a fleet
// of identical leaves is learnt once.
type Classifier struct {
	reg *renderers.Registry
	mu  sync.Mutex
	// learnt is keyed by the device's render inputs without its name.
	learnt map[string]*attribution
}

// New returns a classifier over the registry's renderers.
func New(reg *renderers.Registry) *Classifier {
	return &Classifier{reg: reg, learnt: map[string]*attribution{}}
}

// Annotate sets the Effect of every change of the plan's switches and
// hosts that r describes; devices r does not know keep theirs.
func Annotate(p *compliance.Plan, r *intent.Resolved, reg *renderers.Registry) {
	New(reg).Annotate(p, r)
}

// Annotate sets the Effect of every change in p.
func (c *Classifier) Annotate(p *compliance.Plan, r *intent.Resolved) {
	if p == nil || r == nil {
		return
	}
	for i := range p.Devices {
		d := &p.Devices[i]
		if len(d.Changes) == 0 {
			continue
		}
		var a *attribution
		switch d.Kind {
		case "host":
			if h := r.Host(d.Device); h != nil {
				a = c.host(h, r)
			}
		default:
			if sw := r.Switch(d.Device); sw != nil {
				a = c.switchAttr(sw)
			}
		}
		if a == nil {
			continue
		}
		for j := range d.Changes {
			d.Changes[j].Effect = a.classify(d.Changes[j])
		}
	}
}

// attribution maps rendered entries (and their parents and path prefixes)
// to the worst class of the fields that decide them.
type attribution struct {
	syn     devcfg.Syntax
	tree    bool
	entries map[string]devcfg.Effect
	// shapes and prefixes are for an entry the render does not hold (a
	// removal): the worst class of the entries of the same shape (the same
	// text but for its numbers: another DSCP in the CNP's classifier), and
	// of the entries under each prefix.
	shapes   map[string]devcfg.Effect
	prefixes map[string]devcfg.Effect
}

func (c *Classifier) switchAttr(sw *intent.Switch) *attribution {
	e, err := c.reg.Lookup(sw.Platform)
	if err != nil {
		return nil
	}
	key := shapeKey(sw)
	c.mu.Lock()
	a, ok := c.learnt[key]
	c.mu.Unlock()
	if ok {
		return a
	}
	render := func(p intent.Policy) (*devcfg.Config, error) {
		s := *sw
		s.Policy = p
		return c.reg.Render(&s)
	}
	a = learn(e.Attrs.Platform.Syntax, sw.Policy, render)
	c.mu.Lock()
	c.learnt[key] = a
	c.mu.Unlock()
	return a
}

func (c *Classifier) host(h *intent.Host, r *intent.Resolved) *attribution {
	render := func(p intent.Policy) (*devcfg.Config, error) {
		hh := *h
		hh.Policy = p
		rh, err := host.Render(&hh, r)
		if err != nil {
			return nil, err
		}
		return rh.Config, nil
	}
	return learn(devcfg.Syntax{}, h.Policy, render)
}

// shapeKey is everything a switch's render depends on but its name,
// address and credentials.
func shapeKey(sw *intent.Switch) string {
	data, _ := json.Marshal(struct {
		Platform, Transport, Model, OSVersion, ASIC, OCFallback string
		PortSpeed                                               intent.Speed
		Section                                                 string
		Ports                                                   []portShape
		Policy                                                  intent.Policy
	}{sw.Platform, sw.Transport, sw.Model, sw.OSVersion, sw.ASIC, sw.OCFallback, sw.PortSpeed, sw.SectionKey(), portsOnly(sw.Ports), sw.Policy})
	return string(data)
}

// portShape is what of a port a render depends on: its name and mode, its
// speed and the length of its cable (headroom).
type portShape struct {
	Name, Mode, LAG string
	Speed           intent.Speed
	Cable           int
}

func portsOnly(ps []intent.Port) []portShape {
	out := make([]portShape, len(ps))
	for i, p := range ps {
		out[i] = portShape{Name: p.Name, Mode: p.Mode, LAG: p.LAG, Speed: p.Speed}
		if p.Cable != nil {
			out[i].Cable = p.Cable.Length + 1 // cabled, of that length
		}
	}
	return out
}

func learn(syn devcfg.Syntax, base intent.Policy, render func(intent.Policy) (*devcfg.Config, error)) *attribution {
	a := &attribution{syn: syn, entries: map[string]devcfg.Effect{}, shapes: map[string]devcfg.Effect{}, prefixes: map[string]devcfg.Effect{}}
	cfg, err := render(base)
	if err != nil {
		return a
	}
	a.tree = cfg.Shape == devcfg.ShapeTree
	before := a.flatten(cfg)
	// Each entry takes the class of the most specific field that changes
	// it (the one that changes fewest entries): turning PFC off removes
	// the watchdog too, but the watchdog's own field says what it is.
	type hit struct {
		effect devcfg.Effect
		size   int
	}
	best := map[string]hit{}
	for _, f := range Fields {
		var changed map[string]bool
		for _, move := range f.Moves {
			p := clonePolicy(base)
			if !move(&p) {
				continue
			}
			moved, err := render(p)
			if err != nil {
				continue // not a value this platform takes
			}
			after := a.flatten(moved)
			this := map[string]bool{}
			for k, v := range before {
				if w, ok := after[k]; !ok || w != v {
					this[k] = true
				}
			}
			for k := range after {
				if _, ok := before[k]; !ok {
					this[k] = true // an entry the field adds: what removing it does
				}
			}
			if changed == nil {
				changed = this
				continue
			}
			for k := range changed {
				if !this[k] {
					delete(changed, k)
				}
			}
		}
		for k := range changed {
			h, ok := best[k]
			// On a tie the milder class: a false "breaks" pages someone.
			if !ok || len(changed) < h.size || (len(changed) == h.size && f.Effect.Rank() < h.effect.Rank()) {
				best[k] = hit{f.Effect, len(changed)}
			}
		}
	}
	for k, h := range best {
		a.entries[k] = h.effect
	}
	for k := range before {
		if _, ok := a.entries[k]; !ok {
			a.entries[k] = devcfg.EffectNeutral
		}
	}
	// Parents and prefixes take the worst class of the entries below them
	// in the render (not of entries only a moved field renders).
	for k := range before {
		e := a.entries[k]
		a.shapes[shape(k)] = maxEffect(a.shapes[shape(k)], e)
		for _, p := range a.parents(k) {
			a.prefixes[p] = maxEffect(a.prefixes[p], e)
		}
	}
	return a
}

func maxEffect(a, b devcfg.Effect) devcfg.Effect {
	if b.Rank() > a.Rank() || a == "" {
		if b == "" {
			return a
		}
		return b
	}
	return a
}

func clonePolicy(p intent.Policy) intent.Policy {
	p.RoCEDSCP = slices.Clone(p.RoCEDSCP)
	p.PFCPriorities = slices.Clone(p.PFCPriorities)
	return p
}

// flatten keys every entry: "parent > parent > line key" for CLI trees,
// the path for the others; the value is the line or the path's value.
func (a *attribution) flatten(cfg *devcfg.Config) map[string]string {
	out := map[string]string{}
	switch cfg.Shape {
	case devcfg.ShapeTree:
		var walk func(parents []string, nodes []*devcfg.Node)
		walk = func(parents []string, nodes []*devcfg.Node) {
			for _, n := range nodes {
				out[a.treeKey(parents, n.Line)] = n.Line
				walk(append(slices.Clone(parents), n.Line), n.Children)
			}
		}
		if cfg.Tree != nil {
			walk(nil, cfg.Tree.Nodes)
		}
	case devcfg.ShapeHost:
		if cfg.Host != nil {
			for p, v := range cfg.Host.Paths() {
				out[p] = string(v)
			}
		}
	default:
		for p, v := range cfg.Paths {
			out[p] = string(v)
		}
	}
	return out
}

func (a *attribution) treeKey(parents []string, line string) string {
	k := a.syn.LineKey(line)
	if len(parents) == 0 {
		return k
	}
	return strings.Join(parents, " > ") + " > " + k
}

// parents are the keys above k: its enclosing lines (trees) or its
// prefixes of at least two elements (paths and statements).
func (a *attribution) parents(k string) []string {
	var out []string
	if a.tree {
		parts := strings.Split(k, " > ")
		for i := len(parts) - 1; i >= 1; i-- {
			out = append(out, a.treeKey(parts[:i-1], parts[i-1]))
		}
		return out
	}
	segs := 0
	for i := 0; i < len(k); i++ {
		switch k[i] {
		case '/', ' ', '|':
			if i > 0 && k[i-1] != '/' && k[i-1] != ' ' && k[i-1] != '|' {
				segs++
				if segs >= 2 {
					out = append(out, k[:i])
				}
			}
		}
	}
	slices.Reverse(out) // the nearest first
	return out
}

// shape is an entry's text with its numbers taken out.
func shape(k string) string {
	var b strings.Builder
	digits := false
	for i := 0; i < len(k); i++ {
		if k[i] >= '0' && k[i] <= '9' {
			if !digits {
				b.WriteByte('#')
			}
			digits = true
			continue
		}
		digits = false
		b.WriteByte(k[i])
	}
	return b.String()
}

// classify is the worst class of the entries a change touches: its line
// or path (and an added or removed block), else what encloses it.
func (a *attribution) classify(c devcfg.Change) devcfg.Effect {
	var keys []string
	if a.tree || len(c.Parents) > 0 {
		line := c.New
		switch c.Action {
		case devcfg.Modify:
			line = c.Path
		case devcfg.Remove:
			line = c.Old
		}
		if line == "" {
			line = c.Path
		}
		keys = append(keys, a.treeKey(c.Parents, line))
		var walk func(parents []string, nodes []*devcfg.Node)
		walk = func(parents []string, nodes []*devcfg.Node) {
			for _, n := range nodes {
				keys = append(keys, a.treeKey(parents, n.Line))
				walk(append(slices.Clone(parents), n.Line), n.Children)
			}
		}
		walk(append(slices.Clone(c.Parents), line), c.Block)
	} else {
		keys = append(keys, c.Path)
	}
	var worst devcfg.Effect
	found := false
	for _, k := range keys {
		if e, ok := a.entries[k]; ok {
			worst, found = maxEffect(worst, e), true
		}
	}
	if found {
		return worst
	}
	if e, ok := a.shapes[shape(keys[0])]; ok {
		return e
	}
	for _, p := range a.parents(keys[0]) {
		if e, ok := a.prefixes[p]; ok {
			return e
		}
	}
	return devcfg.EffectNeutral
}
