package probe

import (
	"context"
	"fmt"
	"go.uber.org/zap"
	"math/rand/v2"
	"strings"
	"time"
)

// When a responder does not answer, the operator must know which box to
// go to: the destination host (nothing serves the probe there: no_responder)
// or the network between (no route, forwarding off, an ICMP unreachable:
// no_path). A silent pair is traced on a flow of its own, TTL by TTL
// (FlowRun's path discovery, which needs a raw ICMP socket): the
// destination answering port unreachable proves the path works and the
// responder is missing; routers that stop answering at some hop, or no
// route from here at all, say the path is broken there.

// CodeNoPath is a pair whose packets do not get to the destination.
const CodeNoPath Code = "no_path"

// Silence is what the trace of a silent pair showed.
type Silence struct {
	// Verdict is no_path, no_responder, or empty when it cannot be told
	// (no raw ICMP socket to trace with).
	Verdict Code `json:"verdict,omitempty"`
	// Hops are the routers that answered, TTL 1 first ("-" for a silent
	// hop before an answering one).
	Hops []string `json:"hops,omitempty"`
	// Reason says what showed it, in words an operator acts on.
	Reason string `json:"reason"`
}

// explainSilence traces every pair nothing answered and records why in
// its measurements. It runs on the caller's goroutine, after the pairs,
// so its sockets are opened in the network namespace the run's are.
func (e *Endpoint) explainSilence(ctx context.Context, results []PairResult, targets []Target, pol Policy) {
	var flows []FlowSpec
	var which []int
	for i := range results {
		if results[i].Measurements.Reachable || ctx.Err() != nil {
			continue
		}
		// A port of its own: ICMP errors find their flow by the quoted
		// 5-tuple, so the source port must be known before sending.
		flows = append(flows, FlowSpec{ID: fmt.Sprint(i), Target: targets[i], Trace: true, SrcPort: uint16(49152 + rand.IntN(16000))})
		which = append(which, i)
	}
	if len(flows) == 0 {
		return
	}
	tp := pol
	tp.ConnectTimeout = 250 * time.Millisecond // one Begin: the pair already waited for the responder
	frs, err := e.RunFlows(ctx, FlowRun{Flows: flows, Policy: tp, From: e.cfg.Name})
	for k := range frs {
		if strings.Contains(frs[k].Error, "address already in use") {
			// Another program had the port: once more on another.
			flows[k].SrcPort = uint16(49152 + rand.IntN(16000))
			if again, err := e.RunFlows(ctx, FlowRun{Flows: flows[k : k+1], Policy: tp, From: e.cfg.Name}); err == nil && len(again) == 1 {
				frs[k] = again[0]
			}
		}
	}
	for k, i := range which {
		m := &results[i].Measurements
		if err != nil && k >= len(frs) {
			m.Silence = &Silence{Reason: "the path could not be traced: " + err.Error()}
			continue
		}
		e.log.Debug("silent pair traced", zap.String("pair", results[i].Name()), zap.Any("trace", frs[k].Trace), zap.String("error", frs[k].Error))
		s := ClassifySilence(frs[k])
		m.Silence = &s
	}
}

// ClassifySilence reads the trace of a flow to a destination whose
// responder did not answer.
func ClassifySilence(fr FlowResult) Silence {
	dst := fr.Dst.String()
	if fr.Error != "" {
		low := strings.ToLower(fr.Error)
		if strings.Contains(low, "unreachable") || strings.Contains(low, "no route") {
			return Silence{Verdict: CodeNoPath, Reason: "this host has no route to " + dst + ": " + fr.Error}
		}
		return Silence{Reason: "the path could not be traced: " + fr.Error}
	}
	tr := fr.Trace
	if tr == nil {
		why := fr.TraceError
		if why == "" {
			why = "no trace"
		}
		return Silence{Reason: "the path could not be traced (" + why + "): run as root to tell a broken path from a missing responder"}
	}
	var hops []string
	last := 0
	for i, h := range tr.Hops {
		if h.Answered() {
			last = i + 1
		}
	}
	for _, h := range tr.Hops[:last] {
		if h.Answered() {
			hops = append(hops, h.From.String())
		} else {
			hops = append(hops, "-")
		}
	}
	switch {
	case tr.NoResponder:
		return Silence{Verdict: CodeNoResponder, Hops: hops,
			Reason: fmt.Sprintf("%s answered ICMP port unreachable: the host is up and the path to it works, but nothing serves UDP %d there (start `rocefab probe serve` on it)", dst, fr.DstPort)}
	case tr.Reached:
		return Silence{Verdict: CodeNoResponder, Hops: hops,
			Reason: dst + " answered the trace but not the probe's handshake: its responder is overloaded or another program holds the port"}
	case last == 0:
		return Silence{Verdict: CodeNoPath,
			Reason: fmt.Sprintf("no router on the path to %s answered, not even the first: the first hop does not forward (forwarding off), has no route, or drops ICMP", dst)}
	}
	return Silence{Verdict: CodeNoPath, Hops: hops,
		Reason: fmt.Sprintf("the path to %s stops after hop %d (%s): nothing answered beyond it, so the next router does not forward (forwarding off) or has no route on, or %s itself is down", dst, last, hops[last-1], dst)}
}

// silenceFinding is the finding of a pair nothing answered, when its
// trace tells where the fault is.
func (v *evaluator) silenceFinding(pair PairResult, pol Policy) (Finding, bool) {
	s := pair.Measurements.Silence
	if s == nil || s.Verdict != CodeNoPath {
		return Finding{}, false
	}
	meas := s.Reason
	if len(s.Hops) > 0 {
		meas += "; hops: " + strings.Join(s.Hops, " ")
	}
	return Finding{Code: CodeNoPath, Severity: SeverityError, Measurement: meas,
		Expected: fmt.Sprintf("a route to %s through routers that forward", pair.To),
		Message:  fmt.Sprintf("packets do not get to %s: %s", pair.To, s.Reason)}, true
}

// silenceNote adds what the trace showed to a no_responder finding.
func silenceNote(f *Finding, s *Silence) {
	if s == nil {
		return
	}
	f.Measurement += "; " + s.Reason
	if s.Verdict == CodeNoResponder {
		f.Message += ": " + s.Reason
	}
}
