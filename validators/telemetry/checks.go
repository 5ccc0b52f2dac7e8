package telemetry

import (
	"fmt"
	"time"
)

// pauseHow is how a paused fraction was measured.
type pauseHow uint8

const (
	pauseTime   pauseHow = iota // the port's pause-duration counter
	pauseStall                  // pause frames kept coming and the queue sent nothing
	pauseFrames                 // estimated from the pause-frame count
)

func (h pauseHow) phrase(frames uint64, el time.Duration) string {
	switch h {
	case pauseTime:
		return "by its pause-time counter"
	case pauseStall:
		return fmt.Sprintf("the queue sent nothing while %s pause frames arrived", count(frames))
	}
	return fmt.Sprintf("estimated from %s pause frames/s, one refresh per half of the longest pause", count(uint64(float64(frames)/el.Seconds()+0.5)))
}

// pausedFraction is the share of the interval the port's priority was
// paused by its neighbour.
func (d *Detector) pausedFraction(r ref, p int, dl *deltas) (float64, pauseHow, bool) {
	el := dl.elapsed.Seconds()
	if us, ok := dl.p(p, PauseRxMicros); ok {
		return min(1, float64(us)/1e6/el), pauseTime, true
	}
	frames, ok := dl.p(p, PauseRx)
	if !ok {
		return 0, 0, false
	}
	if tx, ok := dl.p(p, TxPackets); ok && tx == 0 && float64(frames) >= max(1, el) {
		return 1, pauseStall, true
	}
	return min(1, float64(frames)*d.devs[r.dev].quantum/2/el), pauseFrames, true
}

func (d *Detector) peerName(r ref) string {
	if p := d.topo.port(r).peer; p != noRef {
		return d.topo.endpoint(p)
	}
	return "its neighbour"
}

func (d *Detector) checkStorm(r ref, p int, dl *deltas) {
	k := key{CodePFCStorm, r.dev, r.port, int8(p)}
	frac, how, fok := d.pausedFraction(r, p, dl)
	storms, wok := dl.p(p, WatchdogStorms)
	if ek := (edgeKey{r, int8(p)}); fok && frac >= d.cfg.Propagation.ClearFraction {
		d.paused[ek] = pauseEdge{r: r, prio: p, frac: frac, from: dl.from, to: dl.to, gap: dl.gap, arrived: d.devs[r.dev].arrived}
	} else if fok && len(d.paused) > 0 { // a pause counter unknown this interval (a glitch) is no end of the pause
		delete(d.paused, ek)
	}
	if !fok && !wok {
		return
	}
	c := d.cfg.Storm
	paused := fok && (frac >= c.PausedFraction || (frac >= c.ClearFraction && d.active(r, k)))
	tripped := wok && storms > 0
	// A watchdog counter that moved faster than it can count (40 trips in
	// 20 ms: a torn read, a counter re-based by a supervisor failover or a
	// reload) says nothing by itself, and a glitch must not page: it is a
	// new baseline. It is a storm when the queue's own pause counters
	// show it held paused at least ClearFraction of the same interval,
	// and then counts as one trip, the least the watchdog did.
	jump := dl.wdJump[p]
	corroborated := jump > 0 && fok && frac >= c.ClearFraction
	if corroborated && !tripped {
		tripped, wok, storms = true, true, 1
	}
	if !paused && !tripped {
		d.quiet(r, k, dl.to)
		return
	}
	frames, _ := dl.p(p, PauseRx)
	var what string
	switch {
	case corroborated:
		what = fmt.Sprintf("its PFC watchdog counter jumped by %s in %s, more than a watchdog can count, while the queue was paused %s of the time (%s): "+
			"taken as at least one storm", count(jump), dl.elapsed.Round(time.Millisecond), pct(frac), how.phrase(frames, dl.elapsed))
	case tripped && paused:
		what = fmt.Sprintf("the PFC watchdog detected %s storm(s) and the queue was paused %s of the last %s (%s)",
			count(storms), pct(frac), secs(dl.elapsed), how.phrase(frames, dl.elapsed))
	case tripped:
		what = fmt.Sprintf("the PFC watchdog detected %s storm(s) in the last %s", count(storms), secs(dl.elapsed))
	default:
		what = fmt.Sprintf("the queue was paused %s of the last %s (%s)", pct(frac), secs(dl.elapsed), how.phrase(frames, dl.elapsed))
	}
	ev := []Evidence{}
	if fok {
		ev = append(ev, Evidence{"paused_fraction", frac, ""})
	}
	if _, ok := dl.p(p, PauseRx); ok {
		ev = append(ev, Evidence{"pause_frames_rx_rate", float64(frames) / dl.elapsed.Seconds(), "frames/s"})
	}
	if wok {
		ev = append(ev, Evidence{"watchdog_storms", float64(storms), "storms"})
	}
	if corroborated {
		ev = append(ev, Evidence{"watchdog_counter_jump", float64(jump), "storms"})
	}
	d.hit(observation{key: k, sev: SeverityError, dl: dl, immediate: tripped,
		msg: fmt.Sprintf("%s priority %d is storming: %s; %s keeps pausing it (threshold %s paused for %s)",
			d.topo.endpoint(r), p, what, d.peerName(r), pct(c.PausedFraction), secs(c.For)),
		ev: ev, total: float64(storms), totalName: "watchdog_storms_total", totalUnit: "storms"})
}

func (d *Detector) checkLosslessDrop(r ref, p int, dl *deltas) {
	k := key{CodeLosslessDrop, r.dev, r.port, int8(p)}
	qd, qok := dl.p(p, Drops)
	pg, pgok := dl.p(p, PGDrops)
	if !qok && !pgok {
		return
	}
	n := qd + pg
	if n < d.cfg.Drops.MinDrops {
		d.quiet(r, k, dl.to)
		return
	}
	q, g := "egress queue", "ingress priority group"
	if d.topo.devs[r.dev].host {
		q, g = "receive discards", "host buffer discards"
	}
	detail := fmt.Sprintf("%s %s, %s %s", q, count(qd), g, count(pg))
	if storms, ok := dl.p(p, WatchdogStorms); ok && storms > 0 {
		detail += ", while the PFC watchdog was dropping the stormed queue"
	}
	d.hit(observation{key: k, sev: SeverityError, dl: dl, immediate: true,
		msg: fmt.Sprintf("%s dropped %s packets on lossless priority %d in %s (%s)",
			d.topo.endpoint(r), count(n), p, secs(dl.elapsed), detail),
		ev: []Evidence{{"drops", float64(n), "packets"}, {"queue_drops", float64(qd), "packets"},
			{"pg_drops", float64(pg), "packets"}, {"drop_rate", float64(n) / dl.elapsed.Seconds(), "packets/s"}},
		total: float64(n), totalName: "drops_total", totalUnit: "packets"})
}

func (d *Detector) checkCNPDrop(r ref, p int, dl *deltas) {
	k := key{CodeCNPDrop, r.dev, r.port, int8(p)}
	n, ok := dl.p(p, Drops)
	if !ok {
		return
	}
	if n < d.cfg.Drops.MinDrops {
		d.quiet(r, k, dl.to)
		return
	}
	d.hit(observation{key: k, sev: SeverityWarning, dl: dl, immediate: true,
		msg: fmt.Sprintf("%s dropped %s packets on CNP priority %d in %s: senders miss congestion notifications and fall back on PFC",
			d.topo.endpoint(r), count(n), p, secs(dl.elapsed)),
		ev:    []Evidence{{"drops", float64(n), "packets"}, {"drop_rate", float64(n) / dl.elapsed.Seconds(), "packets/s"}},
		total: float64(n), totalName: "drops_total", totalUnit: "packets"})
}

func (d *Detector) checkNICStorm(r ref, dl *deltas) {
	k := key{CodePFCStorm, r.dev, r.port, NoPriority}
	warn, wok := dl.n(StormWarnings)
	errs, eok := dl.n(StormErrors)
	if !wok && !eok {
		return
	}
	if warn == 0 && errs == 0 {
		d.quiet(r, k, dl.to)
		return
	}
	sev, what := SeverityWarning, fmt.Sprintf("its pause-storm guard warned %s time(s) that it had been sending pause frames for long", count(warn))
	if errs > 0 {
		sev = SeverityError
		what = fmt.Sprintf("its pause-storm guard stopped its pause frames %s time(s) after a long stall (%s warning(s)); "+
			"while they are off the lossless class can drop", count(errs), count(warn))
	}
	d.hit(observation{key: k, sev: sev, dl: dl, immediate: true,
		msg:   fmt.Sprintf("%s is storming in the last %s: %s; it pauses %s", d.topo.endpoint(r), secs(dl.elapsed), what, d.peerName(r)),
		ev:    []Evidence{{"storm_warnings", float64(warn), "events"}, {"storm_errors", float64(errs), "events"}},
		total: float64(warn + errs), totalName: "storm_events_total", totalUnit: "events"})
}

// checkECNWithoutCNP runs once every port is read, so the message can say
// what the switch port facing the NIC marked.
func (d *Detector) checkECNWithoutCNP(h ref) {
	k := key{CodeECNWithoutCNP, h.dev, h.port, NoPriority}
	hs := &d.devs[h.dev].ports[h.port]
	if !hs.ceOK || !hs.cnpOK {
		return
	}
	if hs.ce < d.cfg.ECNWithoutCNP.MinCE || hs.cnp > 0 {
		d.quiet(h, k, hs.at)
		return
	}
	el := hs.at.Sub(hs.from)
	dl := deltas{from: hs.from, to: hs.at, elapsed: el, gap: el > d.cfg.MaxGap}
	ev := []Evidence{{"ce_received", float64(hs.ce), "packets"}, {"cnp_sent", float64(hs.cnp), "packets"},
		{"ce_rate", float64(hs.ce) / el.Seconds(), "packets/s"}}
	marked := ""
	if peer := d.topo.port(h).peer; peer != noRef {
		if ps := &d.devs[peer.dev].ports[peer.port]; ps.evalRound == d.round && ps.ecnOK {
			marked = fmt.Sprintf(" (%s marked %s packets on its RoCE queue in its last %s)", d.topo.endpoint(peer),
				count(ps.ecn), secs(ps.at.Sub(ps.from)))
			ev = append(ev, Evidence{"switch_ecn_marked", float64(ps.ecn), "packets"})
		}
	}
	pol := d.topo.devs[h.dev].policy
	d.hit(observation{key: k, sev: SeverityError, dl: &dl, ev: ev,
		msg: fmt.Sprintf("%s received %s CE-marked RoCE packets in %s%s and sent no CNPs: its DCQCN notification point is off "+
			"(priority %d), so its senders are never told to slow down and congestion is left to PFC",
			d.topo.endpoint(h), count(hs.ce), secs(el), marked, pol.RoCE)})
}

func (d *Detector) checkCNPIgnored(r ref, dl *deltas) {
	k := key{CodeCNPIgnored, r.dev, r.port, NoPriority}
	ign, iok := dl.n(CNPIgnored)
	if !iok {
		return
	}
	handled, _ := dl.n(CNPHandled)
	c := d.cfg.CNPIgnored
	if ign < c.MinIgnored || float64(ign) < c.Share*float64(ign+handled) {
		d.quiet(r, k, dl.to)
		return
	}
	pol := d.topo.devs[r.dev].policy
	d.hit(observation{key: k, sev: SeverityError, dl: dl,
		msg: fmt.Sprintf("%s ignored %s of the %s CNPs it received in %s: its DCQCN reaction point is off (priority %d), "+
			"so it never slows down when the fabric marks congestion", d.topo.endpoint(r), count(ign), count(ign+handled),
			secs(dl.elapsed), pol.RoCE),
		ev: []Evidence{{"cnp_ignored", float64(ign), "packets"}, {"cnp_handled", float64(handled), "packets"},
			{"ignored_share", float64(ign) / float64(ign+handled), ""}}})
}

// misplaced: RoCE (roce, counted by the RDMA counters) is missing from
// its priority (on) and a lossy one (landed) carried at least Share of
// what is missing. Requiring the traffic to show up elsewhere keeps apart
// a queue that really carries RoCE from two counters read at different
// moments while a job starts or stops.
func misplaced(c WrongQueueConfig, roce, on, landed float64) bool {
	return on < c.Share*roce && landed >= c.Share*(roce-on)
}

// busiest is the priority other than skip with the most packets in q.
func busiest(ok uint8, q *[NumPriorities]uint64, skip int) (int, uint64) {
	best, bv := -1, uint64(0)
	for p := range NumPriorities {
		if p != skip && ok&(1<<p) != 0 && (best < 0 || q[p] > bv) {
			best, bv = p, q[p]
		}
	}
	return best, bv
}

func (d *Detector) lossyWord(dev int32, p int) string {
	if d.topo.devs[dev].policy.lossless(p) {
		return "lossless"
	}
	return "lossy"
}

func (d *Detector) checkHostTxQueue(r ref, dl *deltas) {
	k := key{CodeWrongQueue, r.dev, r.port, NoPriority}
	pol := d.topo.devs[r.dev].policy
	roce, ok := dl.n(RoCETxPackets)
	if !ok || pol.RoCE < 0 {
		return
	}
	on, ok := dl.p(pol.RoCE, TxPackets)
	if !ok {
		return
	}
	if cnp, ok := dl.n(CNPSent); ok {
		roce = sub(roce, cnp)
	}
	c := d.cfg.WrongQueue
	var tx [NumPriorities]uint64
	var txOK uint8
	for p := range NumPriorities {
		if v, ok := dl.p(p, TxPackets); ok {
			tx[p], txOK = v, txOK|1<<p
		}
	}
	lp, lv := busiest(txOK, &tx, pol.RoCE)
	if float64(roce)/dl.elapsed.Seconds() < c.MinRate || !misplaced(c, float64(roce), float64(on), float64(lv)) {
		d.quiet(r, k, dl.to)
		return
	}
	landed := ""
	if lp >= 0 {
		landed = fmt.Sprintf("; priority %d (%s) carried %s", lp, d.lossyWord(r.dev, lp), count(lv))
	}
	d.hit(observation{key: k, sev: SeverityError, dl: dl,
		msg: fmt.Sprintf("%s sent %s RoCE packets in %s but only %s on priority %d, the RoCE priority%s: "+
			"the host puts RoCE on the wrong queue (check its RoCE ToS and its DSCP-to-priority map)",
			d.topo.endpoint(r), count(roce), secs(dl.elapsed), count(on), pol.RoCE, landed),
		ev: []Evidence{{"roce_tx_packets", float64(roce), "packets"}, {"roce_priority_tx_packets", float64(on), "packets"},
			{"landed_priority", float64(lp), ""}, {"landed_priority_packets", float64(lv), "packets"}}})
}

func (d *Detector) checkRetransmits(r ref, dl *deltas) {
	k := key{CodeRetransmits, r.dev, r.port, NoPriority}
	var total uint64
	var any bool
	ev := make([]Evidence, 0, 3)
	for _, m := range [...]PortMetric{OutOfSequence, PacketSeqErr, LocalAckTimeout} {
		if v, ok := dl.n(m); ok {
			total += v
			any = true
			ev = append(ev, Evidence{m.String(), float64(v), "events"})
		}
	}
	if !any {
		return
	}
	if total < d.cfg.Retransmits.MinEvents {
		d.quiet(r, k, dl.to)
		return
	}
	var parts string
	for i, e := range ev {
		if i > 0 {
			parts += ", "
		}
		parts += fmt.Sprintf("%s +%s", e.Name, count(uint64(e.Value)))
	}
	d.hit(observation{key: k, sev: SeverityWarning, dl: dl,
		msg: fmt.Sprintf("%s is retransmitting: %s in the last %s; in a lossless fabric each is a lost or reordered packet "+
			"or an ACK that timed out", d.topo.endpoint(r), parts, secs(dl.elapsed)),
		ev: ev, total: float64(total), totalName: "retransmit_events_total", totalUnit: "events"})
}

// checkAcrossCables runs the NIC checks that look at the switch port
// facing the NIC: CE marks without CNPs, and what the NIC received as RoCE
// against the queues that port counted (or the NIC's own receive
// priorities where the switch has no queue counters).
func (d *Detector) checkAcrossCables() {
	c := d.cfg.WrongQueue
	for _, h := range d.topo.hostNICs {
		hs := &d.devs[h.dev].ports[h.port]
		if hs.evalRound != d.round {
			continue
		}
		if d.topo.devs[h.dev].policy.ECN {
			d.checkECNWithoutCNP(h)
		}
		if !hs.roceRxOK {
			continue
		}
		rp := d.topo.devs[h.dev].policy.RoCE
		if rp < 0 {
			continue
		}
		roceRate := float64(hs.roceRx) / hs.at.Sub(hs.from).Seconds()
		judge, src := h, hs
		if peer := d.topo.port(h).peer; peer != noRef {
			if ps := &d.devs[peer.dev].ports[peer.port]; ps.evalRound == d.round && ps.qOK&(1<<rp) != 0 {
				judge, src = peer, ps
			}
		}
		if src.qOK&(1<<rp) == 0 {
			continue
		}
		k := key{CodeWrongQueue, judge.dev, judge.port, NoPriority}
		if judge == h && d.hitThisRound(k) {
			continue // the NIC's own send side already reported this round
		}
		// Rates over windows that differ (a missed or slow read on one
		// side) do not compare while traffic changes: judge only windows
		// that overlap by 80 %.
		if judge != h {
			overlap := minTime(hs.at, src.at).Sub(maxTime(hs.from, src.from))
			if float64(overlap) < 0.8*float64(max(hs.at.Sub(hs.from), src.at.Sub(src.from))) {
				continue
			}
		}
		el := src.at.Sub(src.from)
		onRate := float64(src.q[rp]) / el.Seconds()
		lp, lv := busiest(src.qOK, &src.q, rp)
		if roceRate < c.MinRate || !misplaced(c, roceRate, onRate, float64(lv)/el.Seconds()) {
			d.quiet(judge, k, src.at)
			continue
		}
		landed, word := "", "priority"
		if judge != h {
			word = "queue"
		}
		if lp >= 0 {
			landed = fmt.Sprintf("; %s %d (%s) carried %s", word, lp, d.lossyWord(judge.dev, lp), count(lv))
		}
		dl := deltas{from: src.from, to: src.at, elapsed: el, gap: el > d.cfg.MaxGap || hs.at.Sub(hs.from) > d.cfg.MaxGap}
		var msg string
		if judge == h {
			msg = fmt.Sprintf("%s received %s RoCE packets in %s but only %s on priority %d, the RoCE priority%s: "+
				"RoCE reaches it on the wrong queue (%s classifies it differently)", d.topo.endpoint(h),
				count(hs.roceRx), secs(hs.at.Sub(hs.from)), count(src.q[rp]), rp, landed, d.peerName(h))
		} else {
			msg = fmt.Sprintf("%s counted %s packets on queue %d, the RoCE queue, while %s received %s RoCE packets (%s/s against %s/s)%s: "+
				"the switch classifies RoCE to a lossy queue (check its DSCP or PCP map and trust)", d.topo.endpoint(judge),
				count(src.q[rp]), rp, d.topo.endpoint(h), count(hs.roceRx), count(uint64(onRate)), count(uint64(roceRate)), landed)
		}
		d.hit(observation{key: k, sev: SeverityError, dl: &dl, msg: msg,
			ev: []Evidence{{"roce_rx_packets", float64(hs.roceRx), "packets"}, {"roce_queue_packets", float64(src.q[rp]), "packets"},
				{"landed_priority", float64(lp), ""}, {"landed_priority_packets", float64(lv), "packets"}}})
	}
}
