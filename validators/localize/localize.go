// Package localize names the fabric element most likely at fault, from
// what flows saw and the paths they took: a link in one direction (or
// both), or a device, with the evidence, or "inconclusive" with the
// candidates when the evidence cannot tell them apart.
//
// It is pure: observations in, findings out. Each observation is one
// measurement of one flow (end to end at the responder, or up to a hop
// from that hop's ICMP reply) over an ordered list of path segments; a
// segment is the element crossed, or the candidates where the path is not
// known there. Per symptom class, a greedy cover picks the element that
// explains the most bad observations not yet explained while few good
// observations crossed it, until every bad observation is explained or
// no element explains enough.
package localize

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/rocefab/rocefab/finding"
)

// Class is a kind of symptom, localized on its own.
type Class string

// Classes.
const (
	DSCP Class = "dscp_remarked" // DSCP rewritten
	ECN  Class = "ecn_bleached"  // ECT rewritten (to Not-ECT or the other ECT)
	CE   Class = "ce_marked"     // packets arrive CE-marked
	Loss Class = "loss"          // packets lost
	MTU  Class = "mtu_blackhole" // packets of the host MTU lost
)

// Classes lists every class in report order.
var Classes = []Class{DSCP, ECN, CE, Loss, MTU}

// Kind of element.
const (
	KindLink   = "link"
	KindDevice = "device"
)

// Element is a place a fault can live: a cable in one direction (leaving
// Device's Port, entering Peer's PeerPort) or a device.
type Element struct {
	Kind     string `json:"kind"`
	Device   string `json:"device"`
	Port     string `json:"port,omitempty"`
	Peer     string `json:"peer,omitempty"`
	PeerPort string `json:"peerPort,omitempty"`
}

// Link is the element for a cable in one direction.
func Link(device, port, peer, peerPort string) Element {
	return Element{Kind: KindLink, Device: device, Port: port, Peer: peer, PeerPort: peerPort}
}

// Device is the element for a device.
func Device(name string) Element { return Element{Kind: KindDevice, Device: name} }

func (e Element) String() string {
	if e.Kind == KindDevice {
		return e.Device
	}
	return e.Device + " " + e.Port + " → " + e.Peer + " " + e.PeerPort
}

// Reverse is the same cable the other way.
func (e Element) Reverse() Element {
	if e.Kind != KindLink {
		return e
	}
	return Link(e.Peer, e.PeerPort, e.Device, e.Port)
}

// Segment is one step of a path: one element when known, the candidates
// when not (none: nothing is known there).
type Segment []Element

// Observation is one measurement of one flow.
type Observation struct {
	// Flow names the flow ("h1:50123 → h3"); observations of one flow
	// share it.
	Flow  string `json:"flow"`
	Class Class  `json:"class"`
	// Hop is 0 for the end-to-end measurement at the responder, else the
	// TTL whose reply measured the path up to that hop. At is where it was
	// measured: the responder or the hop's device ("" if unknown).
	Hop int    `json:"hop"`
	At  string `json:"at,omitempty"`
	Bad bool   `json:"bad"`
	// Affected of Total packets showed the symptom. Expected and Value are
	// what was sent and what arrived most (DSCP, ECN codepoint, packet size).
	Affected int `json:"affected"`
	Total    int `json:"total"`
	Expected int `json:"expected,omitempty"`
	Value    int `json:"value,omitempty"`
	// Note is extra evidence in words ("leaf1 answered fragmentation
	// needed, MTU 1500").
	Note string    `json:"note,omitempty"`
	Path []Segment `json:"path"`
}

// Options tune the analysis; the zero value means the defaults.
type Options struct {
	// MinFlows is how many different flows must show a symptom before an
	// element is named for it (default 2): one odd flow is noise, not a
	// fault.
	MinFlows int
}

// Status of a finding.
type Status string

// Statuses.
const (
	Localized    Status = "localized"
	Inconclusive Status = "inconclusive"
)

// Verdict of a result.
type Verdict string

// Verdicts: nothing to localize, at least one element named, or symptoms
// without a single element to name.
const (
	VerdictClean        Verdict = "clean"
	VerdictLocalized    Verdict = "localized"
	VerdictInconclusive Verdict = "inconclusive"
)

// Finding is one localized fault, or one set of symptoms the evidence
// cannot pin on one element.
type Finding struct {
	Class  Class  `json:"class"`
	Status Status `json:"status"`
	// Element is what is at fault (localized). Both: the fault is on the
	// link in both directions (Element is one of them).
	Element *Element `json:"element,omitempty"`
	Both    bool     `json:"bothDirections,omitempty"`
	// Candidates are the elements the evidence cannot separate
	// (inconclusive), best first.
	Candidates []Element `json:"candidates,omitempty"`
	Evidence   Evidence  `json:"evidence"`
	// Summary is one line a person can act on; Details back it up.
	Summary string   `json:"summary"`
	Details []string `json:"details,omitempty"`
}

// AsFinding is the finding in the shared shape (source localize): the
// class is the code; a localized fault is an error (CE marks only a
// warning), symptoms no one element explains are a warning. The element
// is the subject; flow and packet counts are evidence.
func (f Finding) AsFinding() finding.Finding {
	sev := finding.Error
	if f.Status != Localized || f.Class == CE {
		sev = finding.Warning
	}
	out := finding.Finding{Source: finding.SourceLocalize, Code: finding.Code(f.Class), Severity: sev, Message: f.Summary}
	if e := f.Element; e != nil {
		out.Subject = finding.Subject{Device: e.Device, Port: e.Port, Peer: e.Peer, PeerPort: e.PeerPort}
		if e.Kind == KindLink {
			out.Subject.Link = e.String()
		}
	}
	ev := f.Evidence
	for _, n := range []struct {
		name string
		v    int
		unit string
	}{{"flowsThrough", ev.FlowsThrough, "flows"}, {"badThrough", ev.BadThrough, "flows"},
		{"flowsElsewhere", ev.FlowsElsewhere, "flows"}, {"badElsewhere", ev.BadElsewhere, "flows"},
		{"affectedPackets", ev.Affected, "packets"}, {"totalPackets", ev.Total, "packets"}} {
		out.Evidence = append(out.Evidence, finding.Evidence{Name: n.name, Value: float64(n.v), Unit: n.unit})
	}
	for _, c := range f.Candidates {
		out.Evidence = append(out.Evidence, finding.Evidence{Name: "candidate", Text: c.String()})
	}
	return out
}

// Evidence counts flows, by their end-to-end observation where they have
// one.
type Evidence struct {
	// BadThrough of FlowsThrough flows through the element showed the
	// symptom; BadElsewhere of FlowsElsewhere other flows did, not counting
	// those another finding of this class explains.
	FlowsThrough   int `json:"flowsThrough"`
	BadThrough     int `json:"badThrough"`
	FlowsElsewhere int `json:"flowsElsewhere"`
	BadElsewhere   int `json:"badElsewhere"`
	// Affected of Total packets on the bad flows through it.
	Affected int `json:"affectedPackets"`
	Total    int `json:"totalPackets"`
	// Unknown counts bad flows through it whose path is partly unknown.
	Unknown int `json:"partlyUnknownPaths,omitempty"`
}

// Result is the localization of one run.
type Result struct {
	Verdict  Verdict   `json:"verdict"`
	Findings []Finding `json:"findings"`
	// Observations and BadObservations count the input, per class.
	Observations    map[Class]int `json:"observations"`
	BadObservations map[Class]int `json:"badObservations"`
}

// eligible is the share of the observations through an element that must
// be bad for it to be named: a remark or a black hole hits every packet,
// random loss may miss a flow.
func eligible(c Class) float64 {
	if c == Loss {
		return 0.3
	}
	return 0.75
}

// Localize analyses the observations.
func Localize(obs []Observation, opt Options) Result {
	if opt.MinFlows <= 0 {
		opt.MinFlows = 2
	}
	res := Result{Verdict: VerdictClean, Findings: []Finding{}, Observations: map[Class]int{}, BadObservations: map[Class]int{}}
	byClass := map[Class][]*Observation{}
	for i := range obs {
		o := &obs[i]
		byClass[o.Class] = append(byClass[o.Class], o)
		res.Observations[o.Class]++
		if o.Bad {
			res.BadObservations[o.Class]++
		}
	}
	classes := slices.Clone(Classes)
	for c := range byClass {
		if !slices.Contains(classes, c) {
			classes = append(classes, c)
		}
	}
	for _, c := range classes {
		if len(byClass[c]) > 0 {
			res.Findings = append(res.Findings, localizeClass(c, byClass[c], opt)...)
		}
	}
	for _, f := range res.Findings {
		switch {
		case f.Status == Localized:
			res.Verdict = VerdictLocalized
		case res.Verdict == VerdictClean:
			res.Verdict = VerdictInconclusive
		}
	}
	return res
}

// analysis is one class's observations indexed by element.
type analysis struct {
	class Class
	obs   []*Observation
	ids   map[Element]int
	elems []Element
	// through[e] lists the observations (indices) that certainly cross e;
	// bad ones first is not assumed.
	through [][]int
	// certain[o] lists the elements observation o certainly crosses.
	certain [][]int
	// flowOf[o] is observation o's flow; e2e[f] is flow f's end-to-end
	// observation (-1: none); badObs[f] lists its bad observations.
	flowOf []int32
	e2e    []int32
	badObs map[int32][]int
}

func newAnalysis(c Class, obs []*Observation) *analysis {
	a := &analysis{class: c, obs: obs, ids: map[Element]int{}, certain: make([][]int, len(obs))}
	// Only elements some bad observation crosses can be named: index
	// those, from the bad observations, then count every observation
	// through them.
	for _, o := range obs {
		if !o.Bad {
			continue
		}
		for _, seg := range o.Path {
			if len(seg) == 1 {
				if _, ok := a.ids[seg[0]]; !ok {
					a.ids[seg[0]] = len(a.elems)
					a.elems = append(a.elems, seg[0])
				}
			}
		}
	}
	a.through = make([][]int, len(a.elems))
	a.flowOf = make([]int32, len(obs))
	a.badObs = map[int32][]int{}
	flowIdx := map[string]int32{}
	prev, prevIdx := "", int32(-1)
	for i, o := range obs {
		fi := prevIdx
		if o.Flow != prev || prevIdx < 0 {
			var ok bool
			if fi, ok = flowIdx[o.Flow]; !ok {
				fi = int32(len(a.e2e))
				flowIdx[o.Flow] = fi
				a.e2e = append(a.e2e, -1)
			}
			prev, prevIdx = o.Flow, fi
		}
		a.flowOf[i] = fi
		if o.Hop == 0 {
			a.e2e[fi] = int32(i)
		}
		if o.Bad {
			a.badObs[fi] = append(a.badObs[fi], i)
		}
	}
	// Few elements are candidates: filter on the device name before
	// hashing the whole element.
	devices := map[string]bool{}
	for _, e := range a.elems {
		devices[e.Device] = true
	}
	for i, o := range obs {
		for _, seg := range o.Path {
			if len(seg) != 1 || !devices[seg[0].Device] {
				continue
			}
			id, ok := a.ids[seg[0]]
			if !ok {
				continue
			}
			if !slices.Contains(a.certain[i], id) {
				a.certain[i] = append(a.certain[i], id)
				a.through[id] = append(a.through[id], i)
			}
		}
	}
	return a
}

func localizeClass(c Class, obs []*Observation, opt Options) []Finding {
	uncovered := map[int]bool{}
	for i, o := range obs {
		if o.Bad {
			uncovered[i] = true
		}
	}
	if len(uncovered) == 0 {
		return nil
	}
	a := newAnalysis(c, obs)
	bad := func(id int) (n int) {
		for _, o := range a.through[id] {
			if a.obs[o].Bad {
				n++
			}
		}
		return n
	}
	type pick struct {
		ids     []int
		covered []int
	}
	var picks []pick
	explainedBy := map[int]int{} // observation -> pick index
	for len(uncovered) > 0 {
		type cand struct {
			id, cov, good, bad int
			covered            []int
		}
		var best []cand
		seen := map[int]bool{}
		for o := range uncovered {
			for _, id := range a.certain[o] {
				if seen[id] || a.elems[id].Kind != KindLink {
					continue // devices are named only from their links, below
				}
				seen[id] = true
				b := bad(id)
				good := len(a.through[id]) - b
				if float64(b) < eligible(c)*float64(b+good) {
					continue
				}
				var covered []int
				for _, oi := range a.through[id] {
					if uncovered[oi] {
						covered = append(covered, oi)
					}
				}
				slices.Sort(covered)
				x := cand{id: id, cov: len(covered), good: good, bad: b, covered: covered}
				if x.cov-x.good <= 0 {
					continue
				}
				if len(best) == 0 {
					best = []cand{x}
					continue
				}
				y := best[0]
				switch {
				case x.cov-x.good > y.cov-y.good,
					x.cov-x.good == y.cov-y.good && x.good < y.good:
					best = []cand{x}
				case x.cov-x.good == y.cov-y.good && x.good == y.good && x.cov == y.cov:
					best = append(best, x)
				}
			}
		}
		if len(best) == 0 {
			break
		}
		// The candidates that explain exactly the same observations with
		// the same good count are indistinguishable; others wait a round.
		slices.SortFunc(best, func(x, y cand) int { return cmp.Compare(a.elems[x.id].String(), a.elems[y.id].String()) })
		first := best[0]
		ids := []int{first.id}
		for _, x := range best[1:] {
			if slices.Equal(x.covered, first.covered) {
				ids = append(ids, x.id)
			}
		}
		if flows(a.obs, first.covered) < opt.MinFlows {
			break
		}
		for _, o := range first.covered {
			delete(uncovered, o)
			explainedBy[o] = len(picks)
		}
		picks = append(picks, pick{ids: ids, covered: first.covered})
	}
	// A device whose links (two cables or more) are all named, and whose
	// every flow shows the symptom, is the simpler explanation: a policy
	// on the device rather than that many cables.
	for id, e := range a.elems {
		if e.Kind != KindDevice || float64(bad(id)) < eligible(c)*float64(len(a.through[id])) {
			continue
		}
		cables := map[Element]bool{}
		var members []int
		var union []int
		for pi, p := range picks {
			if len(p.ids) != 1 {
				continue
			}
			l := a.elems[p.ids[0]]
			if l.Device != e.Device && l.Peer != e.Device {
				continue
			}
			key := l
			if l.Device > l.Peer {
				key = l.Reverse()
			}
			cables[key] = true
			members = append(members, pi)
			union = append(union, p.covered...)
		}
		if len(cables) < 2 || !a.allCross(union, id) {
			continue
		}
		slices.Sort(union)
		merged := pick{ids: []int{id}, covered: union}
		var kept []pick
		for pi, p := range picks {
			if !slices.Contains(members, pi) {
				kept = append(kept, p)
			}
		}
		picks = append(kept, merged)
		for pi, p := range picks {
			for _, o := range p.covered {
				explainedBy[o] = pi
			}
		}
	}
	// The two directions of one cable, each named, are one finding.
	both := map[int]bool{}
	for i := 0; i < len(picks); i++ {
		if len(picks[i].ids) != 1 || a.elems[picks[i].ids[0]].Kind != KindLink {
			continue
		}
		for j := i + 1; j < len(picks); j++ {
			if len(picks[j].ids) == 1 && a.elems[picks[j].ids[0]] == a.elems[picks[i].ids[0]].Reverse() {
				picks[i].ids = append(picks[i].ids, picks[j].ids[0])
				picks[i].covered = append(picks[i].covered, picks[j].covered...)
				slices.Sort(picks[i].covered)
				picks = slices.Delete(picks, j, j+1)
				both[i] = true
				break
			}
		}
	}
	for pi, p := range picks {
		for _, o := range p.covered {
			explainedBy[o] = pi
		}
	}
	var out []Finding
	for pi, p := range picks {
		out = append(out, a.finding(p.ids, p.covered, explainedBy, pi, both[pi]))
	}
	if len(uncovered) > 0 {
		out = append(out, a.unexplained(uncovered))
	}
	return out
}

// allCross reports whether every observation certainly crosses id.
func (a *analysis) allCross(obs []int, id int) bool {
	for _, o := range obs {
		if !slices.Contains(a.certain[o], id) {
			return false
		}
	}
	return true
}

// flows counts the distinct flows among observations.
func flows(obs []*Observation, idx []int) int {
	seen := map[string]bool{}
	for _, i := range idx {
		seen[obs[i].Flow] = true
	}
	return len(seen)
}

// flowView is a flow's verdict for evidence: its end-to-end observation if
// it has one, else its bad observations.
type flowView struct {
	bad      bool
	unknown  bool
	affected int
	total    int
	values   map[int]int
	expected int
}

func (a *analysis) view(f int32) flowView {
	v := flowView{values: map[int]int{}}
	pick := a.badObs[f]
	if e := a.e2e[f]; e >= 0 {
		pick = []int{int(e)}
	}
	for _, i := range pick {
		o := a.obs[i]
		if o.Bad {
			v.bad = true
			v.affected += o.Affected
			v.values[o.Value]++
			v.expected = o.Expected
		}
		v.total += o.Total
		for _, s := range o.Path {
			if len(s) != 1 {
				v.unknown = true
			}
		}
	}
	return v
}

// flowsThrough are the flows with an observation that certainly crosses
// one of ids, in order.
func (a *analysis) flowsThrough(ids []int) []int32 {
	seen := map[int32]bool{}
	var out []int32
	for _, id := range ids {
		for _, o := range a.through[id] {
			if f := a.flowOf[o]; !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	slices.Sort(out)
	return out
}

func (a *analysis) finding(ids, covered []int, explainedBy map[int]int, self int, both bool) Finding {
	f := Finding{Class: a.class, Status: Localized, Both: both}
	for _, id := range ids {
		f.Candidates = append(f.Candidates, a.elems[id])
	}
	if len(ids) == 1 || both {
		e := a.elems[ids[0]]
		f.Element, f.Candidates = &e, nil
	} else {
		f.Status = Inconclusive
	}
	ev := &f.Evidence
	values := map[int]int{}
	expected := 0
	through := a.flowsThrough(ids)
	for _, fl := range through {
		v := a.view(fl)
		ev.FlowsThrough++
		if v.bad {
			ev.BadThrough++
			ev.Affected += v.affected
			ev.Total += v.total
			for k, n := range v.values {
				values[k] += n
			}
			expected = v.expected
			if v.unknown {
				ev.Unknown++
			}
		}
	}
	ev.FlowsElsewhere = len(a.e2e) - len(through)
	for fl := range a.badObs {
		if _, in := slices.BinarySearch(through, fl); in || a.explainedElsewhere(fl, explainedBy, self) {
			continue
		}
		if a.view(fl).bad {
			ev.BadElsewhere++
		}
	}
	subject := f.subject()
	f.Summary = fmt.Sprintf("%s: %s on %d of %d flows through it; %d of %d flows elsewhere",
		subject, a.symptom(expected, values, ev), ev.BadThrough, ev.FlowsThrough, ev.BadElsewhere, ev.FlowsElsewhere)
	if f.Status == Inconclusive {
		f.Summary = fmt.Sprintf("inconclusive, one of %s: %s on %d of %d flows through them; the probes cannot tell them apart",
			subject, a.symptom(expected, values, ev), ev.BadThrough, ev.FlowsThrough)
	}
	f.Details = a.details(ids, covered)
	if ev.Unknown > 0 {
		f.Details = append(f.Details, fmt.Sprintf("%d of the flows through it have partly unknown paths", ev.Unknown))
	}
	return f
}

// explainedElsewhere: the flow's bad observations are explained by
// another finding of this class.
func (a *analysis) explainedElsewhere(fl int32, explainedBy map[int]int, self int) bool {
	for _, i := range a.badObs[fl] {
		if p, ok := explainedBy[i]; ok && p != self {
			return true
		}
	}
	return false
}

func (f *Finding) subject() string {
	if f.Element != nil && f.Both {
		return bothName(*f.Element)
	}
	if f.Element != nil {
		return f.Element.String()
	}
	names := make([]string, len(f.Candidates))
	for i, c := range f.Candidates {
		names[i] = c.String()
	}
	return strings.Join(names, ", ")
}

var ecnNames = map[int]string{0: "Not-ECT", 1: "ECT(1)", 2: "ECT(0)", 3: "CE"}

// symptom says what went wrong, from the most common value.
func (a *analysis) symptom(expected int, values map[int]int, ev *Evidence) string {
	common, n := 0, -1
	for _, k := range slices.Sorted(mapKeys(values)) {
		if values[k] > n {
			common, n = k, values[k]
		}
	}
	switch a.class {
	case DSCP:
		return fmt.Sprintf("DSCP %d arrived as %d", expected, common)
	case ECN:
		return fmt.Sprintf("ECN %s arrived as %s", ecnNames[expected], ecnNames[common])
	case CE:
		return "packets arrived CE-marked"
	case Loss:
		return fmt.Sprintf("%d of %d packets lost (%s)", ev.Affected, ev.Total, percent(ev.Affected, ev.Total))
	case MTU:
		return fmt.Sprintf("packets of %d bytes lost", common)
	}
	return string(a.class)
}

func mapKeys(m map[int]int) func(func(int) bool) {
	return func(yield func(int) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func percent(part, whole int) string {
	if whole == 0 {
		return "0%"
	}
	v := 100 * float64(part) / float64(whole)
	if v < 0.1 && part > 0 {
		return fmt.Sprintf("%.2f%%", v)
	}
	return fmt.Sprintf("%.1f%%", v)
}

// details are what the hop replies saw just before and just after the
// element, and the notes of the observations it explains.
func (a *analysis) details(ids, covered []int) []string {
	var out []string
	for _, id := range ids {
		line := a.hopDetails(id)
		if line != "" && len(ids) > 1 {
			line = a.elems[id].String() + ": " + line
		}
		if line != "" {
			out = append(out, line)
		}
	}
	notes := map[string]int{}
	var norder []string
	for _, i := range covered {
		if n := a.obs[i].Note; n != "" {
			if notes[n] == 0 {
				norder = append(norder, n)
			}
			notes[n]++
		}
	}
	for _, n := range norder {
		out = append(out, fmt.Sprintf("%s (%d observations)", n, notes[n]))
	}
	return out
}

// hopDetails says what hop replies saw just before and after element id.
func (a *analysis) hopDetails(id int) string {
	type tally struct {
		bad, all, affected, total int
		values                    map[int]int
	}
	before, after := map[string]*tally{}, map[string]*tally{}
	var order []string
	add := func(m map[string]*tally, at string, o *Observation) {
		t := m[at]
		if t == nil {
			t = &tally{values: map[int]int{}}
			m[at] = t
		}
		if !slices.Contains(order, at) {
			order = append(order, at)
		}
		t.all++
		t.affected += o.Affected
		t.total += o.Total
		t.values[o.Value]++
		if o.Bad {
			t.bad++
		}
	}
	{
		e := a.elems[id]
		for i, o := range a.obs {
			if o.Hop == 0 || o.At == "" || len(o.Path) == 0 {
				continue
			}
			last := o.Path[len(o.Path)-1]
			if c := a.class; c == Loss {
				// A loss observation ends with the reply's way back; its
				// last forward link is the one into o.At.
				last = nil
				for _, seg := range o.Path {
					if len(seg) == 1 && seg[0].Kind == KindLink && seg[0].Peer == o.At {
						last = seg
						break
					}
				}
			}
			if len(last) != 1 || last[0].Kind != KindLink {
				continue
			}
			crosses := slices.Contains(a.certain[i], id)
			switch {
			case e.Kind == KindLink && last[0] == e:
				add(after, o.At, o)
			case e.Kind == KindLink && last[0].Peer == e.Device && !crosses && a.sharesFlow(o, id):
				add(before, o.At, o)
			case e.Kind == KindDevice && last[0].Device == e.Device && crosses:
				add(after, o.At, o)
			case e.Kind == KindDevice && last[0].Peer == e.Device && a.sharesFlow(o, id):
				add(before, o.At, o)
			}
		}
	}
	phrase := func(at string, t *tally) string {
		common, n := 0, -1
		for _, k := range slices.Sorted(mapKeys(t.values)) {
			if t.values[k] > n {
				common, n = k, t.values[k]
			}
		}
		switch a.class {
		case Loss:
			return fmt.Sprintf("%d of %d TTL-limited probes to %s unanswered", t.affected, t.total, at)
		case MTU:
			return fmt.Sprintf("packets of the host MTU reached %s on %d of %d flows", at, t.all-t.bad, t.all)
		case DSCP:
			return fmt.Sprintf("DSCP %d entering %s on %d of %d flows", common, at, n, t.all)
		case ECN:
			return fmt.Sprintf("%s entering %s on %d of %d flows", ecnNames[common], at, n, t.all)
		case CE:
			if t.bad == 0 {
				return fmt.Sprintf("no CE mark entering %s on %d flows", at, t.all)
			}
			return fmt.Sprintf("CE-marked entering %s on %d of %d flows", at, t.bad, t.all)
		}
		return fmt.Sprintf("%s at %s on %d of %d flows", a.class, at, t.bad, t.all)
	}
	var parts []string
	for _, m := range []map[string]*tally{before, after} {
		for _, at := range order {
			if t := m[at]; t != nil {
				parts = append(parts, phrase(at, t))
			}
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "hop replies: " + strings.Join(parts, "; ")
}

// sharesFlow: o belongs to a flow that crosses element id.
func (a *analysis) sharesFlow(o *Observation, id int) bool {
	for _, i := range a.through[id] {
		if a.obs[i].Flow == o.Flow {
			return true
		}
	}
	return false
}

func bothName(e Element) string {
	return e.Device + " " + e.Port + " ↔ " + e.Peer + " " + e.PeerPort + " (both directions)"
}

// unexplained reports bad observations no element explains well enough.
func (a *analysis) unexplained(left map[int]bool) Finding {
	idx := slices.Sorted(func(yield func(int) bool) {
		for i := range left {
			if !yield(i) {
				return
			}
		}
	})
	score := map[int]int{}
	for _, i := range idx {
		for _, id := range a.certain[i] {
			score[id]++
		}
	}
	ids := slices.Collect(func(yield func(int) bool) {
		for id := range score {
			if !yield(id) {
				return
			}
		}
	})
	ratio := func(id int) float64 {
		b := 0
		for _, o := range a.through[id] {
			if a.obs[o].Bad {
				b++
			}
		}
		return float64(b) / float64(len(a.through[id]))
	}
	slices.SortFunc(ids, func(x, y int) int {
		if c := cmp.Compare(score[y], score[x]); c != 0 {
			return c
		}
		if c := cmp.Compare(ratio(y), ratio(x)); c != 0 {
			return c
		}
		return cmp.Compare(a.elems[x].String(), a.elems[y].String())
	})
	f := Finding{Class: a.class, Status: Inconclusive}
	for _, id := range ids[:min(5, len(ids))] {
		f.Candidates = append(f.Candidates, a.elems[id])
	}
	n := flows(a.obs, idx)
	names := make([]string, len(f.Candidates))
	for i, c := range f.Candidates {
		names[i] = c.String()
	}
	values := map[int]int{}
	expected := 0
	ev := &f.Evidence
	seen := map[int32]bool{}
	for _, i := range idx {
		fl := a.flowOf[i]
		if seen[fl] {
			continue
		}
		seen[fl] = true
		v := a.view(fl)
		ev.BadThrough++
		ev.Affected += v.affected
		ev.Total += v.total
		for k, c := range v.values {
			values[k] += c
		}
		expected = v.expected
		if v.unknown {
			ev.Unknown++
		}
	}
	ev.FlowsThrough = ev.BadThrough
	what := "the flows"
	if len(names) > 0 {
		what = "likeliest " + strings.Join(names, ", ")
	}
	f.Summary = fmt.Sprintf("inconclusive: %s on %d flows that no single element explains (%s)", a.symptom(expected, values, ev), n, what)
	return f
}
