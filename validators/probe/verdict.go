package probe

import (
	"fmt"
	"slices"
	"strings"
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

// Code is a finding's stable identifier.
type Code string

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
	Code        Code     `json:"code"`
	Severity    Severity `json:"severity"`
	Pair        string   `json:"pair"`
	Measurement string   `json:"measurement"` // what was measured
	Expected    string   `json:"expected"`    // what the intent expected
	Message     string   `json:"message"`
}

// Evaluate turns one pair's measurements and the policy into findings. It
// is pure: no sockets, no clock, no randomness.
func Evaluate(pair PairResult, pol Policy) []Finding {
	pol = pol.withDefaults()
	m := pair.Measurements
	v := evaluator{pair: pair.Name(), pol: pol}
	if !m.Reachable {
		meas := m.Error
		if meas == "" {
			meas = "no reply to any probe packet"
		}
		port := m.Port
		if port == 0 {
			port = DefaultPort
		}
		v.add(CodeNoResponder, SeverityError, meas,
			fmt.Sprintf("a probe responder answering P_Key 0x%04x on UDP %d", pol.PKey, port),
			"no probe responder answered at %s", pair.To)
		return v.out
	}
	switch {
	case m.StatsVersionMismatch:
		v.add(CodeStatsVersion, SeverityError, m.StatsError, fmt.Sprintf("probe stats version %d", StatsVersion),
			"responder speaks another probe stats version: forward DSCP, ECN and loss cannot be proven")
	case !m.StatsExchanged:
		v.add(CodeStatsUnavailable, SeverityError, m.StatsError, "the responder reports what it received",
			"the responder returned no statistics: forward DSCP, ECN and loss cannot be proven")
	}
	v.icrc(m)
	var dscps, ecns []Finding
	if m.StatsExchanged {
		dscps = append(dscps, v.dscp("forward", m.DSCPSent, m.DSCPReceived)...)
		ecns = append(ecns, v.ecn("forward", m.ECNSent, m.ECNReceived)...)
	}
	dscps = append(dscps, v.dscp("reverse", m.Reverse.DSCPSent, m.Reverse.DSCPReceived)...)
	dscps = append(dscps, v.dscp("CNPs", m.CNPDSCPSent, m.CNPDSCPReceived)...)
	ecns = append(ecns, v.ecn("reverse", m.Reverse.ECNSent, m.Reverse.ECNReceived)...)
	v.out = append(v.out, merge(dscps)...)
	v.out = append(v.out, merge(ecns)...)
	v.ce(m)
	v.loss(m)
	v.mtu(m)
	if n := m.Reordered + m.Reverse.Reordered; n > 0 {
		v.add(CodeReordering, SeverityWarning, fmt.Sprintf("forward %d, reverse %d", m.Reordered, m.Reverse.Reordered),
			"packets in order", "%d packets arrived out of order", n)
	}
	if n := m.Duplicates + m.Reverse.Duplicates; n > 0 {
		v.add(CodeDuplicates, SeverityWarning, fmt.Sprintf("forward %d, reverse %d", m.Duplicates, m.Reverse.Duplicates),
			"no duplicates", "%d duplicate packets", n)
	}
	if lim := pol.MaxRTTP99; lim > 0 && m.RTT.Samples > 0 && m.RTT.P99 > float64(lim.Nanoseconds())/1e3 {
		v.add(CodeRTTHigh, SeverityError, fmt.Sprintf("RTT p99 %.1f µs over %d samples", m.RTT.P99, m.RTT.Samples),
			fmt.Sprintf("RTT p99 at most %.1f µs", float64(lim.Nanoseconds())/1e3),
			"RTT p99 %.1f µs is above the %.1f µs limit", m.RTT.P99, float64(lim.Nanoseconds())/1e3)
	}
	return v.out
}

type evaluator struct {
	pair string
	pol  Policy
	out  []Finding
}

func (v *evaluator) add(code Code, sev Severity, meas, expected, format string, args ...any) {
	v.out = append(v.out, v.finding(code, sev, meas, expected, format, args...))
}

func (v *evaluator) icrc(m Measurements) {
	if n := m.ICRCErrors + m.Reverse.ICRCErrors; n > 0 {
		v.add(CodeICRCError, SeverityError, fmt.Sprintf("forward %d, reverse %d", m.ICRCErrors, m.Reverse.ICRCErrors),
			"no ICRC errors", "%d packets failed the ICRC check (corrupted on the path)", n)
	}
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

func (v *evaluator) finding(code Code, sev Severity, meas, expected, format string, args ...any) Finding {
	return Finding{Code: code, Severity: sev, Pair: v.pair, Measurement: meas, Expected: expected, Message: fmt.Sprintf(format, args...)}
}

// merge folds findings that say the same thing about several directions
// (a remark usually hits requests and replies alike) into one whose
// measurement lists each direction.
func merge(fs []Finding) []Finding {
	var out []Finding
	for _, f := range fs {
		i := slices.IndexFunc(out, func(o Finding) bool { return o.Code == f.Code && o.Message == f.Message })
		if i < 0 {
			out = append(out, f)
			continue
		}
		out[i].Measurement += "; " + f.Measurement
	}
	return out
}

func (v *evaluator) dscp(dir string, sent uint8, hist map[uint8]int) []Finding {
	got, n, total := mostCommonOther(hist, sent)
	if n == 0 {
		return nil
	}
	return []Finding{v.finding(CodeDSCPRemarked, SeverityError,
		fmt.Sprintf("%s: DSCP %d on %d of %d packets (%s)", dir, got, n, total, histString(hist)),
		fmt.Sprintf("DSCP %d", sent), "DSCP %d arrived as %d (remarked on the path)", sent, got)}
}

func (v *evaluator) ecn(dir string, sent ECN, hist map[ECN]int) []Finding {
	if sent != ECT0 && sent != ECT1 {
		return nil
	}
	// CE is congestion, judged separately; only a changed capability here.
	got, n, total := mostCommonOther(hist, sent, CE)
	if n == 0 {
		return nil
	}
	meas := fmt.Sprintf("%s: %s on %d of %d packets", dir, got, n, total)
	if got == NotECT {
		return []Finding{v.finding(CodeECNBleached, SeverityError, meas, sent.String(), "ECN bleached: sent %s, received %s", sent, got)}
	}
	return []Finding{v.finding(CodeECNRemarked, SeverityWarning, meas, sent.String(), "ECN changed: sent %s, received %s", sent, got)}
}

func (v *evaluator) ce(m Measurements) {
	fwd := 0.0
	if m.StatsExchanged {
		fwd = m.CEFraction
	}
	worst := max(fwd, m.Reverse.CEFraction)
	meas := fmt.Sprintf("CE on %s of requests, %s of replies; %d CNPs received",
		pct(100*fwd), pct(100*m.Reverse.CEFraction), m.CNPsReceived)
	if worst > 0 {
		switch {
		case v.pol.Profile == ProfilePFCOnly:
			v.add(CodeCEMarked, SeverityError, meas, "no CE marks (ECN is off in the pfc-only profile)",
				"CE marked on %s of packets, but the pfc-only profile has ECN off", pct(100*worst))
		case worst < 0.01:
			v.add(CodeCEMarked, SeverityInfo, meas, "CE marks only under congestion",
				"CE marked on %s of packets (congestion on the path)", pct(100*worst))
		default:
			v.add(CodeCEMarked, SeverityWarning, meas, "CE marks only under congestion",
				"CE marked on %s of packets (congestion on the path)", pct(100*worst))
		}
	}
	if m.StatsExchanged && m.CEMarked > 0 && m.CNPsReceived == 0 {
		v.add(CodeCEWithoutCNP, SeverityError,
			fmt.Sprintf("%d requests arrived CE-marked; the responder sent %d CNPs (%d rate-limited); 0 arrived",
				m.CEMarked, m.CNPsSent, m.CNPsRateLimited),
			"a CNP for CE-marked requests", "CE marked but no CNP returned")
	}
}

func (v *evaluator) loss(m Measurements) {
	worst := max(m.LossPercent, m.Reverse.LossPercent)
	if worst <= 0 {
		return
	}
	meas := fmt.Sprintf("forward %s (%d of %d lost)", pct(m.LossPercent), max(0, m.Sent-m.Received), m.Sent)
	if m.StatsExchanged {
		meas += fmt.Sprintf(", reverse %s (%d of %d lost)", pct(m.Reverse.LossPercent),
			max(0, m.Reverse.Sent-m.Reverse.Received), m.Reverse.Sent)
	} else {
		meas = "round trip " + meas
	}
	switch {
	case v.pol.Profile.Lossless():
		v.add(CodeLoss, SeverityError, meas, "no loss (lossless class)", "%s loss in the lossless class", pct(worst))
	case worst > v.pol.MaxLossPercent:
		v.add(CodeLoss, SeverityError, meas, fmt.Sprintf("at most %s loss", pct(v.pol.MaxLossPercent)),
			"%s loss in the RoCE class, above the %s the ecn-only profile allows", pct(worst), pct(v.pol.MaxLossPercent))
	default:
		v.add(CodeLoss, SeverityWarning, meas, fmt.Sprintf("at most %s loss", pct(v.pol.MaxLossPercent)),
			"%s loss in the RoCE class, within the %s the ecn-only profile allows", pct(worst), pct(v.pol.MaxLossPercent))
	}
}

func (v *evaluator) mtu(m Measurements) {
	intent := m.IntentMTU
	if intent == 0 {
		intent = v.pol.HostMTU
	}
	bad := func(p int) bool { return p > 0 && p < intent }
	report := func(dir string, p int) {
		v.add(CodeMTUBlackhole, SeverityError,
			fmt.Sprintf("%s: largest packet through %d bytes (%s)", dir, p, sweepString(m.MTUProbes, dir)),
			fmt.Sprintf("path MTU ≥ %d", intent),
			"packets above %d bytes lost: path MTU %d is below intent %d", p-m.IPOverhead, p, intent)
	}
	switch {
	case bad(m.PathMTU) && m.PathMTU == m.PathMTUReverse:
		report("both directions", m.PathMTU)
	default:
		if bad(m.PathMTU) {
			report("forward", m.PathMTU)
		}
		if bad(m.PathMTUReverse) {
			report("reverse", m.PathMTUReverse)
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
		if dir != "both directions" && p.Direction != dir {
			continue
		}
		mark := "ok"
		if !p.Passed {
			mark = "lost"
		}
		if dir == "both directions" {
			short := map[string]string{"forward": "fwd", "reverse": "rev"}[p.Direction]
			parts = append(parts, fmt.Sprintf("%s %d %s", short, p.Size, mark))
		} else {
			parts = append(parts, fmt.Sprintf("%d %s", p.Size, mark))
		}
	}
	return strings.Join(parts, ", ")
}
