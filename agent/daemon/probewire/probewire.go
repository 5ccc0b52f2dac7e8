package probewire

import (
	"context"
	"fmt"

	"github.com/rocefab/rocefab/agent/daemon"
	"github.com/rocefab/rocefab/agent/daemon/history"
	"github.com/rocefab/rocefab/intent"
	"github.com/rocefab/rocefab/validators/probe"
	"github.com/rocefab/rocefab/validators/probe/mesh"
)

// Runner is the agent's ProbeRunner over the probe mesh: the pairs from the
// intent's cabling (or its list) whose sender the agent owns, each probed
// where the sender is (prober decides: in-process, a lab namespace, SSH).
func Runner(prober mesh.Prober, parallel int) daemon.ProbeRunner {
	return func(ctx context.Context, r *intent.Resolved, owns func(string) bool) (daemon.ProbeSummary, error) {
		pairs := mesh.Owned(mesh.Pairs(r), owns)
		if len(pairs) == 0 {
			return daemon.ProbeSummary{}, fmt.Errorf("%w: no host pairs to probe (cable hosts, or list pairs under spec.probe)", probe.ErrNoTargets)
		}
		rep := mesh.Run(ctx, r, pairs, prober, parallel)
		return Summarise(rep), ctx.Err()
	}
}

// Summarise keeps what the agent records and exports of a report.
func Summarise(rep *probe.Report) daemon.ProbeSummary {
	s := daemon.ProbeSummary{Verdict: daemon.VerdictFail}
	if rep.Pass() {
		s.Verdict = daemon.VerdictPass
	}
	for _, p := range rep.Pairs {
		m := p.Measurements
		loss := m.Direction.LossPercent
		if m.RoundTripLossPercent > loss {
			loss = m.RoundTripLossPercent
		}
		if !m.Reachable {
			loss = 100
		}
		s.Pairs = append(s.Pairs, history.ProbePair{From: p.From, To: p.To, Verdict: string(p.Verdict), Reachable: m.Reachable,
			LossPercent: loss, RTTMeanMicros: m.RTT.Mean, RTTP99Micros: m.RTT.P99})
	}
	for _, f := range rep.Findings {
		hf := f.AsFinding()
		// The run's one line keeps what was measured and expected in words.
		if f.Measurement != "" || f.Expected != "" {
			hf.Message = fmt.Sprintf("%s (measured %s, expected %s)", f.Message, f.Measurement, f.Expected)
		}
		s.Findings = append(s.Findings, hf)
	}
	return s
}
