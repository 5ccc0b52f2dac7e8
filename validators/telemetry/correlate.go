package telemetry

import (
	"slices"
	"time"
)

// ProbeRun is one probe run: when it ran and which host pairs it probed.
type ProbeRun struct {
	ID    string      `json:"id"`
	Start time.Time   `json:"start"`
	End   time.Time   `json:"end"`
	Pairs []ProbePair `json:"pairs"`
}

// ProbePair is a sender and a responder host, by intent name.
type ProbePair struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Overlap says that a finding was seen while a probe run ran.
type Overlap struct {
	Run     string `json:"run"`
	Finding int    `json:"finding"` // index into the findings given
	// Pairs are the run's pairs whose path has the finding's device on
	// it; empty when the run and the finding only overlap in time.
	Pairs []ProbePair `json:"pairs,omitempty"`
}

// PathFunc names the devices a pair's traffic may cross.
type PathFunc func(ProbePair) []string

// Correlate says which findings overlap which probe runs: a finding seen
// (FirstSeen to LastSeen) at any moment of a run (Start to End), with the
// run's pairs whose path, by path, crosses the finding's device or one of
// its related ports. path nil means time alone. Runs keep their order,
// and findings theirs within a run.
func Correlate(runs []ProbeRun, findings []Finding, path PathFunc) []Overlap {
	var out []Overlap
	for _, run := range runs {
		var paths [][]string
		if path != nil {
			paths = make([][]string, len(run.Pairs))
			for i, p := range run.Pairs {
				paths[i] = path(p)
			}
		}
		for fi, f := range findings {
			if f.LastSeen.Before(run.Start) || f.FirstSeen.After(run.End) {
				continue
			}
			o := Overlap{Run: run.ID, Finding: fi}
			for i, p := range paths {
				if crosses(p, f) {
					o.Pairs = append(o.Pairs, run.Pairs[i])
				}
			}
			out = append(out, o)
		}
	}
	return out
}

func crosses(path []string, f Finding) bool {
	if slices.Contains(path, f.Subject.Device) {
		return true
	}
	for _, r := range f.Related {
		if slices.Contains(path, r.Device) {
			return true
		}
	}
	return false
}

// CablePath is the path the cabling alone allows: the two hosts, the
// switches their NICs are cabled to, and, when those differ, every switch
// cabled to both (the spines ECMP may pick). It names no device the
// traffic cannot cross, but not the one hop ECMP chose; a traced path is
// better where there is one.
func (t *Topology) CablePath(p ProbePair) []string {
	leaves := func(host string) []int32 {
		di, ok := t.byName[host]
		if !ok {
			return nil
		}
		var out []int32
		for _, pt := range t.devs[di].ports {
			if pt.peer != noRef && !slices.Contains(out, pt.peer.dev) {
				out = append(out, pt.peer.dev)
			}
		}
		return out
	}
	a, b := leaves(p.From), leaves(p.To)
	out := []string{p.From, p.To}
	add := func(dev int32) {
		if n := t.devs[dev].name; !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	for _, l := range append(slices.Clone(a), b...) {
		add(l)
	}
	if slices.Equal(a, b) {
		return out
	}
	up := func(leaves []int32) map[int32]bool {
		m := map[int32]bool{}
		for _, l := range leaves {
			for _, pt := range t.devs[l].ports {
				if pt.peer != noRef && !t.devs[pt.peer.dev].host {
					m[pt.peer.dev] = true
				}
			}
		}
		return m
	}
	ua, ub := up(a), up(b)
	var spines []int32
	for s := range ua {
		if ub[s] {
			spines = append(spines, s)
		}
	}
	slices.Sort(spines)
	for _, s := range spines {
		add(s)
	}
	return out
}
