package telemetry

import "time"

// key identifies a finding: its code and subject by topology indices.
type key struct {
	code Code
	dev  int32
	port int32 // -1: the device
	prio int8  // NoPriority: the whole port
}

// entry is a finding being watched: pending until its condition has held
// for the code's For, active until it has been absent for Clear.
type entry struct {
	f           Finding
	active      bool
	since       time.Time // start of the current run of the condition
	lastHit     time.Time // end of the latest interval that showed it
	hitRound    uint32
	quietRound  uint32 // a round whose check ran and found nothing
	quietAt     time.Time
	raisedRound uint32
	total       float64
}

// observation is one interval that showed a condition.
type observation struct {
	key       key
	sev       Severity
	dl        *deltas
	immediate bool // raise at once (a watchdog trip, a drop)
	msg       string
	ev        []Evidence
	related   []Subject
	// total is added up over the finding's life under totalName.
	total     float64
	totalName string
	totalUnit string
	where     *ref // the port whose intent line the finding points at, when not the subject's
	// restart: this interval does not continue the pending condition (a
	// different spread from the same source); count from it again.
	restart bool
}

func (d *Detector) subjectOf(k key) (Subject, ref) {
	r := ref{k.dev, k.port}
	return d.topo.subject(r, int(k.prio)), r
}

func (d *Detector) hit(o observation) {
	e := d.findings[o.key]
	if e == nil {
		subj, r := d.subjectOf(o.key)
		if o.where != nil {
			r = *o.where
		}
		e = &entry{f: Finding{Code: o.key.code, Subject: subj, Where: d.topo.where(r)}, since: o.dl.from}
		d.findings[o.key] = e
		if o.key.port >= 0 {
			d.devs[o.key.dev].ports[o.key.port].tracked++
		}
	}
	ev := o.ev
	if o.totalName != "" {
		ev = append(ev, Evidence{o.totalName, e.total + o.total, o.totalUnit})
	}
	if e.hitRound == d.round { // a second condition of the same finding this round
		e.f.Message += "; " + o.msg
		e.f.Evidence = append(e.f.Evidence, ev...)
		e.total += o.total
		if o.sev.rank() > e.f.Severity.rank() {
			e.f.Severity = o.sev
		}
		d.maybeRaise(e, o)
		return
	}
	switch {
	case o.dl.gap && !e.active:
		// A long gap is no evidence that the condition lasted: count from
		// the end of it.
		e.since, e.f.Rounds = o.dl.to, 0
	case o.restart && !e.active:
		e.since, e.f.Rounds = o.dl.from, 0
	}
	e.hitRound = d.round
	e.lastHit = o.dl.to
	e.total += o.total
	e.f.Severity, e.f.Message, e.f.Evidence, e.f.Related = o.sev, o.msg, ev, o.related
	e.f.LastSeen = o.dl.to
	e.f.Rounds++
	d.maybeRaise(e, o)
}

// maybeRaise activates a finding whose condition has held for the code's
// For, in at least two samples (one long interval with one event in it
// shows no trend), or at once for an immediate one.
func (d *Detector) maybeRaise(e *entry, o observation) {
	held := e.lastHit.Sub(e.since) >= d.cfg.hold(o.key.code).For && e.f.Rounds >= 2
	if e.active || !(o.immediate || held) {
		return
	}
	e.active = true
	e.raisedRound = d.round
	e.f.FirstSeen = e.since
}

// quiet records that a check ran for k this round and found nothing.
func (d *Detector) quiet(r ref, k key, at time.Time) {
	if r.port >= 0 && d.devs[r.dev].ports[r.port].tracked == 0 {
		return
	}
	if e := d.findings[k]; e != nil && e.hitRound != d.round {
		e.quietRound, e.quietAt = d.round, at
	}
}

// active reports whether k is an active finding, which the lower threshold
// keeps (hysteresis); a pending one must pass the full threshold.
func (d *Detector) active(r ref, k key) bool {
	if r.port >= 0 && d.devs[r.dev].ports[r.port].tracked == 0 {
		return false
	}
	e := d.findings[k]
	return e != nil && e.active
}

func (d *Detector) hitThisRound(k key) bool {
	e := d.findings[k]
	return e != nil && e.hitRound == d.round
}

func (d *Detector) forget(k key) {
	delete(d.findings, k)
	if k.port >= 0 {
		d.devs[k.dev].ports[k.port].tracked--
	}
}

// finish ends a round: a pending condition that was checked and absent is
// dropped, an active one clears after its clear time without it, and a
// finding whose device was not read is left as it is.
func (d *Detector) finish(rep *Report) {
	for k, e := range d.findings {
		if e.hitRound == d.round {
			if e.raisedRound == d.round {
				rep.Raised = append(rep.Raised, e.f)
			}
			if e.active {
				rep.Active = append(rep.Active, e.f)
			}
			continue
		}
		if e.quietRound != d.round {
			if e.active {
				rep.Active = append(rep.Active, e.f)
			}
			continue
		}
		if !e.active {
			d.forget(k)
			continue
		}
		if e.quietAt.Sub(e.lastHit) >= d.cfg.hold(k.code).Clear {
			f := e.f
			f.Cleared = e.quietAt
			rep.Cleared = append(rep.Cleared, f)
			d.forget(k)
			continue
		}
		rep.Active = append(rep.Active, e.f)
	}
	sortFindings(rep.Raised)
	sortFindings(rep.Cleared)
	sortFindings(rep.Active)
}

// Active returns every active finding.
func (d *Detector) Active() []Finding {
	var out []Finding
	for _, e := range d.findings {
		if e.active {
			out = append(out, e.f)
		}
	}
	sortFindings(out)
	return out
}
