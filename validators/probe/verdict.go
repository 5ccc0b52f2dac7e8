package probe

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rocefab/rocefab/finding"
)

// Verdict is pass or fail.
type Verdict string

// Verdicts.
const (
	VerdictPass Verdict = "pass"
	VerdictFail Verdict = "fail"
)

// Severity ranks a finding; only errors fail the verdict.
type Severity string

// Severities.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
	SeverityInfo    Severity = "info"
)

// Code is a finding's stable identifier, the shared finding code.
type Code = finding.Code

// Finding codes. They are part of the report schema: never rename one.
const (
	CodeNoResponder      Code = "no_responder"
	CodeStatsVersion     Code = "stats_version"
	CodeStatsUnavailable Code = "stats_unavailable"
	CodeICRCError        Code = "icrc_error"
	CodeDSCPRemarked     Code = "dscp_remarked"
	CodeECNBleached      Code = "ecn_bleached"
	CodeECNRemarked      Code = "ecn_remarked"
	CodeCEMarked         Code = "ce_marked"
	CodeCEWithoutCNP     Code = "ce_without_cnp"
	CodeLoss             Code = "loss"
	CodeMTUBlackhole     Code = "mtu_blackhole"
	CodeReordering       Code = "reordering"
	CodeDuplicates       Code = "duplicates"
	CodeRTTHigh          Code = "rtt_high"
)

// Finding is one thing the probe found on a pair, in words a person can act on.
type Finding struct {
	Code     Code     `json:"code"`
	Severity Severity `json:"severity"`
	Pair     string   `json:"pair"`
	// Direction is "forward" (sender → responder), "reverse" or "round
	// trip"; empty for findings about the pair as a whole.
	Direction string `json:"direction,omitempty"`
	// PacketKind is the kind of packet that was hurt: data, ACK, READ
	// response or CNP.
	PacketKind PacketKind `json:"packetKind,omitempty"`
	// Flows are the UDP source ports of the flows it hurt, out of
	// FlowsTotal flows that carried that kind in that direction. Empty when
	// per-flow counts were not available.
	Flows       []uint16 `json:"flows,omitempty"`
	FlowsTotal  int      `json:"flowsTotal,omitempty"`
	Measurement string   `json:"measurement"` // what was measured
	Expected    string   `json:"expected"`    // what the intent expected
	Message     string   `json:"message"`
}

// Finding maps the severity onto the shared scale (the same words).
func (s Severity) Finding() finding.Severity {
	switch s {
	case SeverityError:
		return finding.Error
	case SeverityWarning:
		return finding.Warning
	case SeverityInfo:
		return finding.Info
	}
	return 0
}

// AsFinding is the finding in the shared shape (source probe): the pair
// and direction are the subject and Where is the pair; what was measured
// and expected, the packet kind and the hurt flows are evidence.
func (f Finding) AsFinding() finding.Finding {
	out := finding.Finding{Source: finding.SourceProbe, Code: f.Code, Severity: f.Severity.Finding(),
		Subject: finding.Subject{Pair: f.Pair, Direction: f.Direction}, Message: f.Message, Where: f.Pair}
	text := func(name, v string) {
		if v != "" {
			out.Evidence = append(out.Evidence, finding.Evidence{Name: name, Text: v})
		}
	}
	text("measured", f.Measurement)
	text("expected", f.Expected)
	text("packetKind", string(f.PacketKind))
	if len(f.Flows) > 0 {
		ports := make([]string, len(f.Flows))
		for i, p := range f.Flows {
			ports[i] = fmt.Sprint(p)
		}
		text("flows", strings.Join(ports, ","))
		out.Evidence = append(out.Evidence, finding.Evidence{Name: "flowsHurt", Value: float64(len(f.Flows)), Unit: "flows"},
			finding.Evidence{Name: "flowsTotal", Value: float64(f.FlowsTotal), Unit: "flows"})
	}
	return out
}

// Evaluate turns one pair's measurements and the policy into findings. It
// is pure: no sockets, no clock, no randomness.
func Evaluate(pair PairResult, pol Policy) []Finding {
	pol = pol.withDefaults()
	m := pair.Measurements
	v := evaluator{pair: pair.Name(), pol: pol, from: pair.From, to: pair.To}
	if f, ok := v.silenceFinding(pair, pol); !m.Reachable && ok {
		v.add(f)
		return v.out
	}
	if !m.Reachable {
		meas := m.Error
		if meas == "" {
			meas = "no reply to any probe packet"
		}
		port := m.Port
		if port == 0 {
			port = DefaultPort
		}
		f := Finding{Code: CodeNoResponder, Severity: SeverityError, Measurement: meas,
			Expected: fmt.Sprintf("a probe responder answering P_Key 0x%04x on UDP %d", pol.PKey, port),
			Message:  fmt.Sprintf("no probe responder answered at %s", pair.To)}
		silenceNote(&f, m.Silence)
		v.add(f)
		return v.out
	}
	switch {
	case m.StatsVersionMismatch:
		v.add(Finding{Code: CodeStatsVersion, Severity: SeverityError, Measurement: m.StatsError,
			Expected: fmt.Sprintf("probe stats version %d", StatsVersion),
			Message:  "responder speaks another probe stats version: forward DSCP, ECN and loss cannot be proven"})
	case !m.StatsExchanged:
		v.add(Finding{Code: CodeStatsUnavailable, Severity: SeverityError, Measurement: m.StatsError,
			Expected: "the responder reports what it received",
			Message:  "the responder returned no statistics: forward DSCP, ECN and loss cannot be proven"})
	}
	views := v.views(m)
	for _, w := range views {
		v.icrc(w)
	}
	for _, w := range views {
		v.dscp(w)
	}
	for _, w := range views {
		v.ecn(w)
	}
	noCNP := v.ce(m, views)
	for _, w := range views {
		if !(noCNP && w.kind == KindCNP) {
			v.loss(w)
		}
	}
	v.mtu(m)
	v.order(CodeReordering, m.Reordered, m.Reverse.Reordered, "arrived out of order", "packets in order")
	v.order(CodeDuplicates, m.Duplicates, m.Reverse.Duplicates, "arrived twice", "no duplicates")
	if lim := pol.MaxRTTP99; lim > 0 && m.RTT.Samples > 0 && m.RTT.P99 > float64(lim.Nanoseconds())/1e3 {
		v.add(Finding{Code: CodeRTTHigh, Severity: SeverityError, Direction: "round trip",
			Measurement: fmt.Sprintf("RTT p99 %.1f µs over %d samples", m.RTT.P99, m.RTT.Samples),
			Expected:    fmt.Sprintf("RTT p99 at most %.1f µs", float64(lim.Nanoseconds())/1e3),
			Message:     fmt.Sprintf("RTT p99 %.1f µs is above the %.1f µs limit", m.RTT.P99, float64(lim.Nanoseconds())/1e3)})
	}
	return v.out
}

type evaluator struct {
	pair     string
	from, to string
	pol      Policy
	out      []Finding
}

func (v *evaluator) add(f Finding) {
	f.Pair = v.pair
	v.out = append(v.out, f)
}

// path names a direction with its hosts: "forward gpu01 → gpu02".
func (v *evaluator) path(dir string) string {
	switch dir {
	case "forward":
		return "forward " + v.from + " → " + v.to
	case "reverse":
		return "reverse " + v.to + " → " + v.from
	}
	return v.from + " → " + v.to + " and back"
}

// view is one kind of packet in one direction, per flow where known.
type view struct {
	dir       string
	kind      PacketKind
	dscpSent  uint8
	ecnSent   ECN
	flows     []FlowStats // nil: only the totals are known
	total     FlowStats
	rxKnown   bool // what arrived is known (forward: the responder said)
	sentKnown bool // what was sent is known too, so loss can be judged
	lossless  bool // its loss counts against a lossless class (CNPs' does not)
	lossOnly  bool // the replies as one, only for loss: the per-kind views judge the rest
}

// views splits the measurements into what each finding judges: forward
// data, reverse ACKs, READ responses and CNPs.
func (v *evaluator) views(m Measurements) []view {
	fwd := view{dir: "forward", kind: KindData, dscpSent: m.DSCPSent, ecnSent: m.ECNSent, rxKnown: m.StatsExchanged,
		sentKnown: true, lossless: true, total: FlowStats{Sent: m.Sent, Received: m.Received, ICRCErrors: m.ICRCErrors,
			DSCPReceived: m.DSCPReceived, ECNReceived: m.ECNReceived}}
	if !m.StatsExchanged {
		fwd.dir = "round trip" // only unanswered requests are known
	}
	if m.FlowsComplete {
		if fwd.flows = ofKind(m.PerFlow, KindData); len(fwd.flows) > 0 {
			fwd.total = sumFlows(fwd.flows)
		}
	}
	out := []view{fwd}
	rv := m.Reverse
	if len(rv.PerFlow) == 0 {
		// A report without per-flow counts: the replies as one.
		out = append(out, view{dir: "reverse", dscpSent: rv.DSCPSent, ecnSent: rv.ECNSent, rxKnown: true,
			sentKnown: m.StatsExchanged, lossless: true, total: FlowStats{Sent: rv.Sent, Received: rv.Received,
				ICRCErrors: rv.ICRCErrors, DSCPReceived: rv.DSCPReceived, ECNReceived: rv.ECNReceived}})
		if m.CNPsSent > 0 || m.CNPsReceived > 0 {
			out = append(out, view{dir: "reverse", kind: KindCNP, dscpSent: m.CNPDSCPSent, ecnSent: rv.ECNSent, rxKnown: true,
				sentKnown: m.StatsExchanged, total: FlowStats{Sent: m.CNPsSent, Received: m.CNPsReceived, DSCPReceived: m.CNPDSCPReceived}})
		}
		return out
	}
	for _, k := range []PacketKind{KindACK, KindReadResponse, KindCNP} {
		fs := ofKind(rv.PerFlow, k)
		if len(fs) == 0 {
			continue
		}
		w := view{dir: "reverse", kind: k, dscpSent: rv.DSCPSent, ecnSent: rv.ECNSent, flows: fs, rxKnown: true,
			sentKnown: rv.FlowsComplete, lossless: k != KindCNP, total: sumFlows(fs)}
		if k == KindCNP {
			w.dscpSent = m.CNPDSCPSent
		}
		out = append(out, w)
	}
	if !rv.FlowsComplete && m.StatsExchanged {
		// The responder reported no flows (an older release): the
		// per-kind views know what arrived, the totals what was sent.
		out = append(out, view{dir: "reverse", lossless: true, sentKnown: true, lossOnly: true,
			total: FlowStats{Sent: rv.Sent, Received: rv.Received}})
		if m.CNPsSent > 0 || m.CNPsReceived > 0 {
			out = append(out, view{dir: "reverse", kind: KindCNP, sentKnown: true, lossOnly: true,
				total: FlowStats{Sent: m.CNPsSent, Received: m.CNPsReceived}})
		}
	}
	return out
}

func ofKind(fs []FlowStats, k PacketKind) []FlowStats {
	var out []FlowStats
	for _, f := range fs {
		if f.Kind == k {
			out = append(out, f)
		}
	}
	return out
}

func sumFlows(fs []FlowStats) FlowStats {
	t := FlowStats{DSCPReceived: map[uint8]int{}, ECNReceived: map[ECN]int{}}
	for _, f := range fs {
		t.Sent += f.Sent
		t.Received += f.Received
		t.ICRCErrors += f.ICRCErrors
		for k, n := range f.DSCPReceived {
			t.DSCPReceived[k] += n
		}
		for k, n := range f.ECNReceived {
			t.ECNReceived[k] += n
		}
	}
	return t
}

// carried counts the flows with packets of the view's kind.
func (w view) carried(arrived bool) int {
	n := 0
	for _, f := range w.flows {
		if (arrived && f.Received > 0) || (!arrived && (f.Sent > 0 || f.Received > 0)) {
			n++
		}
	}
	return n
}

// kindPrefix is how a message names the kind before a field: "ACK DSCP 26".
func kindPrefix(k PacketKind) string {
	if k == KindData || k == "" {
		return ""
	}
	return string(k) + " "
}

// onFlows says which flows: "" for one flow or unknown flows, " on all 8
// flows", or " on 2 of 8 flows (UDP source ports 49160, 50011)".
func onFlows(hit []uint16, total int) string {
	switch {
	case total <= 1 || len(hit) == 0:
		return ""
	case len(hit) == total && total == 2:
		return " on both flows"
	case len(hit) == total:
		return fmt.Sprintf(" on all %d flows", total)
	}
	ports := make([]string, 0, len(hit))
	for i, p := range hit {
		if i == 8 {
			ports = append(ports, fmt.Sprintf("and %d more", len(hit)-8))
			break
		}
		ports = append(ports, fmt.Sprint(p))
	}
	noun := "ports"
	if len(hit) == 1 {
		noun = "port"
	}
	return fmt.Sprintf(" on %d of %d flows (UDP source %s %s)", len(hit), total, noun, strings.Join(ports, ", "))
}

func (v *evaluator) icrc(w view) {
	if w.lossOnly {
		return
	}
	n := w.total.ICRCErrors
	if n == 0 {
		return
	}
	var hit []uint16
	for _, f := range w.flows {
		if f.ICRCErrors > 0 {
			hit = append(hit, f.SrcPort)
		}
	}
	v.add(Finding{Code: CodeICRCError, Severity: SeverityError, Direction: w.dir, PacketKind: w.kind, Flows: hit, FlowsTotal: w.carried(false),
		Measurement: fmt.Sprintf("%s: %d %s failed the ICRC check", w.dir, n, w.kind.plural()), Expected: "no ICRC errors",
		Message: fmt.Sprintf("%s: %d %s failed the ICRC check%s: corrupted on the path", v.path(w.dir), n, w.kind.plural(), onFlows(hit, w.carried(false)))})
}

// mostCommonOther returns the most frequent value other than want, its
// count and the total; ties go to the lower value so output is stable.
func mostCommonOther[K ~uint8](hist map[K]int, want K, skip ...K) (K, int, int) {
	var best K
	bestN, total := 0, 0
	keys := make([]K, 0, len(hist))
	for k := range hist {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		n := hist[k]
		total += n
		if k == want || slices.Contains(skip, k) {
			continue
		}
		if n > bestN {
			best, bestN = k, n
		}
	}
	return best, bestN, total
}

// hitFlows lists the flows on which bad reports a problem.
func hitFlows(fs []FlowStats, bad func(FlowStats) bool) []uint16 {
	var out []uint16
	for _, f := range fs {
		if bad(f) {
			out = append(out, f.SrcPort)
		}
	}
	return out
}

func (v *evaluator) dscp(w view) {
	if w.lossOnly {
		return
	}
	if !w.rxKnown {
		return
	}
	got, n, total := mostCommonOther(w.total.DSCPReceived, w.dscpSent)
	if n == 0 {
		return
	}
	hit := hitFlows(w.flows, func(f FlowStats) bool { _, n, _ := mostCommonOther(f.DSCPReceived, w.dscpSent); return n > 0 })
	v.add(Finding{Code: CodeDSCPRemarked, Severity: SeverityError, Direction: w.dir, PacketKind: w.kind, Flows: hit, FlowsTotal: w.carried(true),
		Measurement: fmt.Sprintf("%s %s: DSCP %d on %d of %d packets (%s)", w.dir, w.kind.plural(), got, n, total, histString(w.total.DSCPReceived)),
		Expected:    fmt.Sprintf("DSCP %d", w.dscpSent),
		Message:     fmt.Sprintf("%s: %sDSCP %d arrived as %d%s", v.path(w.dir), kindPrefix(w.kind), w.dscpSent, got, onFlows(hit, w.carried(true)))})
}

func (v *evaluator) ecn(w view) {
	if w.lossOnly {
		return
	}
	sent := w.ecnSent
	if !w.rxKnown || (sent != ECT0 && sent != ECT1) {
		return
	}
	// CE is congestion, judged separately; only a changed capability here.
	got, n, total := mostCommonOther(w.total.ECNReceived, sent, CE)
	if n == 0 {
		return
	}
	hit := hitFlows(w.flows, func(f FlowStats) bool { _, n, _ := mostCommonOther(f.ECNReceived, sent, CE); return n > 0 })
	f := Finding{Code: CodeECNRemarked, Severity: SeverityWarning, Direction: w.dir, PacketKind: w.kind, Flows: hit, FlowsTotal: w.carried(true),
		Measurement: fmt.Sprintf("%s %s: %s on %d of %d packets", w.dir, w.kind.plural(), got, n, total), Expected: sent.String(),
		Message: fmt.Sprintf("%s: %sECN changed: sent %s, received %s%s", v.path(w.dir), kindPrefix(w.kind), sent, got, onFlows(hit, w.carried(true)))}
	if got == NotECT {
		f.Code, f.Severity = CodeECNBleached, SeverityError
		f.Message = fmt.Sprintf("%s: %sECN bleached: sent %s, received %s%s", v.path(w.dir), kindPrefix(w.kind), sent, got, onFlows(hit, w.carried(true)))
	}
	v.add(f)
}

// ce judges CE marks per view, and CE-marked requests without a CNP. It
// reports whether ce_without_cnp was found (CNP loss is then not repeated).
func (v *evaluator) ce(m Measurements, views []view) bool {
	for _, w := range views {
		if !w.rxKnown || w.kind == KindCNP || w.lossOnly {
			continue
		}
		ce := w.total.ECNReceived[CE]
		if ce == 0 {
			continue
		}
		frac := fraction(ce, w.total.Received)
		hit := hitFlows(w.flows, func(f FlowStats) bool { return f.ECNReceived[CE] > 0 })
		f := Finding{Code: CodeCEMarked, Direction: w.dir, PacketKind: w.kind, Flows: hit, FlowsTotal: w.carried(true),
			Measurement: fmt.Sprintf("%s %s: CE on %d of %d packets; %d CNPs received", w.dir, w.kind.plural(), ce, w.total.Received, m.CNPsReceived),
			Expected:    "CE marks only under congestion"}
		what := fmt.Sprintf("%s: CE marked on %s of %s", v.path(w.dir), pct(100*frac), w.kind.plural())
		switch {
		case v.pol.Profile == ProfilePFCOnly:
			f.Severity, f.Expected = SeverityError, "no CE marks (ECN is off in the pfc-only profile)"
			f.Message = what + onFlows(hit, w.carried(true)) + ", but the pfc-only profile has ECN off"
		case frac < 0.01:
			f.Severity, f.Message = SeverityInfo, what+onFlows(hit, w.carried(true))+" (congestion on the path)"
		default:
			f.Severity, f.Message = SeverityWarning, what+onFlows(hit, w.carried(true))+" (congestion on the path)"
		}
		v.add(f)
	}
	if m.StatsExchanged && m.CEMarked > 0 && m.CNPsReceived == 0 {
		v.add(Finding{Code: CodeCEWithoutCNP, Severity: SeverityError, Direction: "reverse", PacketKind: KindCNP,
			Measurement: fmt.Sprintf("%d requests arrived CE-marked; the responder sent %d CNPs (%d rate-limited); 0 arrived",
				m.CEMarked, m.CNPsSent, m.CNPsRateLimited),
			Expected: "a CNP for CE-marked requests", Message: v.path("reverse") + ": CE marked but no CNP returned"})
		return true
	}
	return false
}

func (v *evaluator) loss(w view) {
	if !w.sentKnown {
		return
	}
	lost, sent := max(0, w.total.Sent-w.total.Received), w.total.Sent
	var hit []uint16
	if w.flows != nil {
		lost = 0
		for _, f := range w.flows {
			if d := f.Sent - f.Received; d > 0 {
				lost += d
				hit = append(hit, f.SrcPort)
			}
		}
	}
	if lost <= 0 || sent <= 0 {
		return
	}
	p := percent(lost, sent)
	verb := "lost"
	if w.dir == "round trip" {
		verb = "unanswered"
	}
	f := Finding{Code: CodeLoss, Direction: w.dir, PacketKind: w.kind, Flows: hit, FlowsTotal: w.carried(false),
		Measurement: fmt.Sprintf("%s %s: %d of %d %s", w.dir, w.kind.plural(), lost, sent, verb)}
	what := fmt.Sprintf("%s: %s of %s %s%s", v.path(w.dir), pct(p), w.kind.plural(), verb, onFlows(hit, w.carried(false)))
	switch {
	case !w.lossless:
		// CNPs travel outside the lossless class; losing them weakens
		// DCQCN but is not a lossless-class failure.
		f.Severity, f.Expected, f.Message = SeverityWarning, "every CNP arrives", what
	case v.pol.Profile.Lossless():
		f.Severity, f.Expected, f.Message = SeverityError, "no loss (lossless class)", what+" in the lossless class"
	case p > v.pol.MaxLossPercent:
		f.Severity, f.Expected = SeverityError, fmt.Sprintf("at most %s loss", pct(v.pol.MaxLossPercent))
		f.Message = fmt.Sprintf("%s, above the %s the ecn-only profile allows", what, pct(v.pol.MaxLossPercent))
	default:
		f.Severity, f.Expected = SeverityWarning, fmt.Sprintf("at most %s loss", pct(v.pol.MaxLossPercent))
		f.Message = fmt.Sprintf("%s, within the %s the ecn-only profile allows", what, pct(v.pol.MaxLossPercent))
	}
	v.add(f)
}

// mtu reports a black hole per direction. It is declared only on flows
// where a size was lost again in a confirmation round (see sweep), and the
// path MTU named is the largest size that passed on them.
func (v *evaluator) mtu(m Measurements) {
	intent := m.IntentMTU
	if intent == 0 {
		intent = v.pol.HostMTU
	}
	for d, dir := range dirNames {
		kind := KindData
		if d == dirReverse {
			kind = KindReadResponse
		}
		var hit []uint16
		pathMTU, lost, total := 0, 0, 0
		for _, fm := range m.MTUByFlow {
			if fm.Direction != dir {
				continue
			}
			total++
			if !fm.Confirmed || fm.PathMTU <= 0 || fm.PathMTU >= intent {
				continue
			}
			hit = append(hit, fm.SrcPort)
			if pathMTU == 0 || fm.PathMTU < pathMTU {
				pathMTU, lost = fm.PathMTU, fm.Lost
			}
		}
		if m.MTUByFlow == nil {
			// A report from before per-flow sweeps: its path MTU is all
			// there is.
			pathMTU = map[int]int{dirForward: m.PathMTU, dirReverse: m.PathMTUReverse}[d]
			if pathMTU <= 0 || pathMTU >= intent {
				continue
			}
		} else if len(hit) == 0 {
			continue
		}
		meas := fmt.Sprintf("%s: largest IP packet through %d bytes", dir, pathMTU)
		if lost > 0 {
			meas += fmt.Sprintf("; %d bytes lost again in a confirmation round that waited the full reply timeout", lost)
		}
		if ps := sweepString(m.MTUProbes, dir); ps != "" {
			meas += " (" + ps + ")"
		}
		v.add(Finding{Code: CodeMTUBlackhole, Severity: SeverityError, Direction: dir, PacketKind: kind, Flows: hit, FlowsTotal: total,
			Measurement: meas, Expected: fmt.Sprintf("path MTU ≥ %d", intent),
			Message: fmt.Sprintf("%s: packets above %d bytes lost%s: path MTU %d is below intent %d",
				v.path(dir), pathMTU, onFlows(hit, total), pathMTU, intent)})
	}
}

// order reports reordering or duplicates per direction (warnings).
func (v *evaluator) order(code Code, fwd, rev int, what, expected string) {
	for _, d := range []struct {
		dir  string
		n    int
		kind PacketKind
	}{{"forward", fwd, KindData}, {"reverse", rev, ""}} {
		if d.n > 0 {
			v.add(Finding{Code: code, Severity: SeverityWarning, Direction: d.dir, PacketKind: d.kind,
				Measurement: fmt.Sprintf("forward %d, reverse %d", fwd, rev), Expected: expected,
				Message: fmt.Sprintf("%s: %d %s %s", v.path(d.dir), d.n, d.kind.plural(), what)})
		}
	}
}

// pct formats a percentage with enough digits that small loss never shows
// as 0.0%.
func pct(v float64) string {
	switch {
	case v == 0 || v >= 0.1:
		return fmt.Sprintf("%.1f%%", v)
	case v >= 0.01:
		return fmt.Sprintf("%.2f%%", v)
	default:
		return fmt.Sprintf("%.3f%%", v)
	}
}

func histString[K ~uint8](h map[K]int) string {
	keys := make([]K, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%v×%d", k, h[k]))
	}
	return strings.Join(parts, " ")
}

func sweepString(ps []SizeProbe, dir string) string {
	var parts []string
	for _, p := range ps {
		if p.Direction != dir {
			continue
		}
		switch {
		case p.Passed:
			parts = append(parts, fmt.Sprintf("%d ok", p.Size))
		case p.Flows > 1:
			parts = append(parts, fmt.Sprintf("%d lost on %d of %d flows", p.Size, len(p.LostOn), p.Flows))
		default:
			parts = append(parts, fmt.Sprintf("%d lost", p.Size))
		}
	}
	return strings.Join(parts, ", ")
}
