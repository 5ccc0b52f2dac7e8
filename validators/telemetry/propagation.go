package telemetry

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

// pauseEdge is a port paused by its neighbour this round.
type pauseEdge struct {
	r        ref // the paused port
	prio     int
	frac     float64
	from, to time.Time
	gap      bool
	arrived  time.Time // when the sample that found it arrived
}

type edgeKey struct {
	r    ref
	prio int8
}

// pausedEdges are this round's paused ports: those read paused this
// round, and those read paused last time whose device has not been read
// since, for up to an interval and a half (a sample that arrived just
// after the round). Longer, they are forgotten: a device not read is not
// known to be paused. Sorted, so a round's findings do not depend on map
// order.
func (d *Detector) pausedEdges(now time.Time) {
	carry := d.cfg.Interval + d.cfg.Interval/2
	for k, e := range d.paused {
		if now.Sub(e.arrived) > carry {
			delete(d.paused, k)
			continue
		}
		d.edges = append(d.edges, e)
	}
	sort.Slice(d.edges, func(i, j int) bool {
		a, b := d.edges[i], d.edges[j]
		if a.r.dev != b.r.dev {
			return a.r.dev < b.r.dev
		}
		if a.r.port != b.r.port {
			return a.r.port < b.r.port
		}
		return a.prio < b.prio
	})
}

// checkPropagation follows pause upstream, hop by hop: a paused port's
// neighbour (by the cabling) is pausing it; if that neighbour is itself
// paused on some port, the pause came from further on. A device that
// pauses without being paused is a source. A spread of at least MinHops
// paused links from one source is a finding about the source; paused
// devices no source reaches pause each other in a loop (a PFC deadlock).
func (d *Detector) checkPropagation(now time.Time) {
	if !d.rated {
		return // no switch gave rates: hold what is known
	}
	c := d.cfg.Propagation
	pick := func(p int, thr float64) []int {
		var sel []int
		for i := range d.edges {
			e := &d.edges[i]
			if e.prio == p && e.frac >= thr && d.topo.port(e.r).peer != noRef {
				sel = append(sel, i)
			}
		}
		return sel
	}
	for p := range NumPriorities {
		if sel := pick(p, c.PausedFraction); len(sel) > 0 {
			d.spread(p, sel, false)
		}
		// A spread already reported holds while its hops stay above the
		// lower threshold (hysteresis); the lower threshold raises nothing.
		if d.activeCode(CodePausePropagation, p) {
			if sel := pick(p, c.ClearFraction); len(sel) > 0 {
				d.spread(p, sel, true)
			}
		}
	}
	for k, e := range d.findings {
		if k.code == CodePausePropagation && e.hitRound != d.round && d.readUnpaused(e) {
			e.quietRound, e.quietAt = d.round, now
		}
	}
}

// readUnpaused reports whether this round read a port the finding
// reported and found it paused less than its threshold (the lower one
// once active): the spread is gone. A spread not found because the
// devices of its ports were not read this round (their samples late or
// lost) is not known to be gone, and is left as it is, as a port's own
// finding is when its device is not read.
func (d *Detector) readUnpaused(e *entry) bool {
	thr := d.cfg.Propagation.PausedFraction
	if e.active {
		thr = d.cfg.Propagation.ClearFraction
	}
	for _, s := range e.f.Related {
		di, ok := d.topo.byName[s.Device]
		if !ok {
			continue
		}
		pi, ok := d.topo.devs[di].byPort[s.Port]
		if !ok || d.devs[di].ports[pi].evalRound != d.round {
			continue
		}
		if pe, paused := d.paused[edgeKey{ref{di, pi}, int8(s.Priority)}]; !paused || pe.frac < thr {
			return true
		}
	}
	return false
}

// activeCode reports whether some finding of code at prio is active.
func (d *Detector) activeCode(code Code, prio int) bool {
	for k, e := range d.findings {
		if k.code == code && int(k.prio) == prio && e.active {
			return true
		}
	}
	return false
}

func (d *Detector) spread(p int, sel []int, keepOnly bool) {
	c := d.cfg.Propagation
	paused := map[int32][]int{} // device -> its paused ports (edges)
	rev := map[int32][]int{}    // device -> the ports it pauses (edges)
	for _, i := range sel {
		e := &d.edges[i]
		paused[e.r.dev] = append(paused[e.r.dev], i)
		peer := d.topo.port(e.r).peer
		rev[peer.dev] = append(rev[peer.dev], i)
	}
	// A source pauses without being paused. A host is one whenever it
	// pauses: a NIC does not forward, so pauses it receives cannot be
	// what makes it pause.
	var sources []int32
	for dev := range rev {
		if _, ok := paused[dev]; !ok || d.topo.devs[dev].host {
			sources = append(sources, dev)
		}
	}
	d.sortDevs(sources)
	reached := map[int32]bool{}
	for _, s := range sources {
		dist := map[int32]int{s: 0}
		parent := map[int32]int{}
		order := []int32{s}
		var tree []int
		var most float64
		for qi := 0; qi < len(order); qi++ {
			x := order[qi]
			if x != s && d.topo.devs[x].host {
				continue // a paused host relays nothing
			}
			for _, i := range rev[x] {
				e := &d.edges[i]
				tree = append(tree, i)
				most = max(most, e.frac)
				if _, seen := dist[e.r.dev]; !seen {
					dist[e.r.dev] = dist[x] + 1
					parent[e.r.dev] = i
					order = append(order, e.r.dev)
				}
			}
		}
		far := s
		for _, dev := range order {
			reached[dev] = true
			if dist[dev] > dist[far] || (dist[dev] == dist[far] && d.topo.devs[dev].name < d.topo.devs[far].name) {
				far = dev
			}
		}
		hops := dist[far]
		if hops < c.MinHops || keepOnly && !d.keeps(key{CodePausePropagation, s, -1, int8(p)}, tree) {
			continue
		}
		var chain []int
		for dev := far; dev != s; {
			i := parent[dev]
			chain = append(chain, i)
			dev = d.topo.port(d.edges[i].r).peer.dev
		}
		for i, j := 0, len(chain)-1; i < j; i, j = i+1, j-1 {
			chain[i], chain[j] = chain[j], chain[i]
		}
		d.hitSpread(s, p, chain, tree, most, hops)
	}
	var stuck []int32
	for dev := range paused {
		if !reached[dev] {
			stuck = append(stuck, dev)
		}
	}
	if len(stuck) > 0 {
		d.sortDevs(stuck)
		var loop []int
		for _, dev := range stuck {
			loop = append(loop, paused[dev]...)
		}
		if !keepOnly || d.keeps(key{CodePausePropagation, stuck[0], -1, int8(p)}, loop) {
			d.hitDeadlock(p, stuck, paused)
		}
	}
}

// keeps reports whether the lower threshold holds k this round: k is an
// active finding not yet seen this round, and the pause found now shares a
// paused port with what it reported last. A new spread, or random hops of
// a busy fabric around the same source, must pass the full threshold.
func (d *Detector) keeps(k key, edges []int) bool {
	e := d.findings[k]
	return e != nil && e.active && e.hitRound != d.round && d.overlaps(e, edges, int(k.prio))
}

// continues reports whether a spread found now goes on with the one
// pending under k: a spread is sustained along the same ports, not by
// different short bursts around one source round after round.
func (d *Detector) continues(k key, edges []int) bool {
	e := d.findings[k]
	return e == nil || e.active || d.overlaps(e, edges, int(k.prio))
}

func (d *Detector) overlaps(e *entry, edges []int, prio int) bool {
	for _, i := range edges {
		s := d.topo.subject(d.edges[i].r, prio)
		if slices.Contains(e.f.Related, s) {
			return true
		}
	}
	return false
}

func (d *Detector) sortDevs(devs []int32) {
	sort.Slice(devs, func(i, j int) bool { return d.topo.devs[devs[i]].name < d.topo.devs[devs[j]].name })
}

// interval is the time the given edges are all known paused: from the
// latest start of their samples (a device read after a long wait shows
// only its average over the wait) to the latest end.
func (d *Detector) interval(edges []int) deltas {
	var dl deltas
	for _, i := range edges {
		e := &d.edges[i]
		if e.from.After(dl.from) {
			dl.from = e.from
		}
		if e.to.After(dl.to) {
			dl.to = e.to
		}
		dl.gap = dl.gap || e.gap
	}
	dl.elapsed = dl.to.Sub(dl.from)
	return dl
}

func (d *Detector) hitSpread(src int32, p int, chain, tree []int, most float64, hops int) {
	k := key{CodePausePropagation, src, -1, int8(p)}
	ports := len(tree)
	first := d.topo.port(d.edges[chain[0]].r).peer // the source's port
	var b strings.Builder
	b.WriteString(d.topo.endpoint(first))
	related := make([]Subject, 0, len(chain))
	for _, i := range chain {
		e := &d.edges[i]
		fmt.Fprintf(&b, " → %s (paused %s)", d.topo.endpoint(e.r), pct(e.frac))
		related = append(related, d.topo.subject(e.r, p))
	}
	sev, why := SeverityWarning, fmt.Sprintf("%s is not paused itself, so it is congested on its own (an incast or an oversubscribed link) and spreads it", d.topo.devs[src].name)
	if d.topo.devs[src].host {
		sev, why = SeverityError, fmt.Sprintf("%s is a host, so its NIC is pausing the fabric (a stalled receive path pauses without end)", d.topo.devs[src].name)
	}
	dl := d.interval(chain)
	d.hit(observation{key: k, sev: sev, dl: &dl, where: &first, restart: !d.continues(k, tree),
		msg: fmt.Sprintf("pause on priority %d spreads %d hops upstream from %s: %s; %d ports paused in all, the most %s; %s",
			p, hops, d.topo.endpoint(first), b.String(), ports, pct(most), why),
		ev: []Evidence{{"hops", float64(hops), "links"}, {"paused_ports", float64(ports), "ports"},
			{"max_paused_fraction", most, ""}},
		related: related})
}

func (d *Detector) hitDeadlock(p int, stuck []int32, paused map[int32][]int) {
	var edges []int
	var related []Subject
	var names []string
	stuckAll := true // every port of the loop held paused: the queues are stuck
	for _, dev := range stuck {
		for _, i := range paused[dev] {
			edges = append(edges, i)
			e := &d.edges[i]
			stuckAll = stuckAll && e.frac >= d.cfg.Storm.PausedFraction
			related = append(related, d.topo.subject(e.r, p))
			names = append(names, fmt.Sprintf("%s (paused %s by %s)", d.topo.endpoint(e.r), pct(e.frac), d.peerName(e.r)))
		}
	}
	sev, what := SeverityError, "that is a PFC deadlock, which only the watchdog or a restart breaks"
	if !stuckAll {
		sev, what = SeverityWarning, fmt.Sprintf("several congested switches pause each other; if every hop reaches %s it is a PFC deadlock",
			pct(d.cfg.Storm.PausedFraction))
	}
	dl := d.interval(edges)
	k := key{CodePausePropagation, stuck[0], -1, int8(p)}
	d.hit(observation{key: k, sev: sev, dl: &dl, restart: !d.continues(k, edges),
		msg:     fmt.Sprintf("pause on priority %d goes round in a loop with no source: %s; %s", p, strings.Join(names, ", "), what),
		ev:      []Evidence{{"hops", float64(len(edges)), "links"}, {"paused_ports", float64(len(edges)), "ports"}},
		related: related})
}
