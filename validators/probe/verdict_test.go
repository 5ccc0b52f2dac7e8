package probe

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// cleanPair is what a healthy path measures; cases below change one thing.
func cleanPair() PairResult {
	dir := func() Direction {
		return Direction{Sent: 300, Received: 300, DSCPSent: 26, DSCPReceived: map[uint8]int{26: 300},
			ECNSent: ECT0, ECNReceived: map[ECN]int{ECT0: 300}}
	}
	return PairResult{From: "host-a", To: "host-b", Measurements: Measurements{
		Reachable: true, StatsExchanged: true, Flows: 8,
		RTT:       RTT{Samples: 300, Min: 20, Mean: 40, P50: 38, P90: 50, P99: 80, P999: 95, Max: 99, Clock: "kernel"},
		Direction: dir(), Reverse: dir(), CNPDSCPSent: 48,
		PathMTU: 9000, PathMTUReverse: 9000, IntentMTU: 9000, IPOverhead: 28,
	}}
}

type want struct {
	code Code
	sev  Severity
	msg  string
}

func TestEvaluate(t *testing.T) {
	pfc := func(p *Policy) { p.Profile = ProfilePFCOnly }
	ecnOnly := func(max float64) func(p *Policy) {
		return func(p *Policy) { p.Profile, p.MaxLossPercent = ProfileECNOnly, max }
	}
	loss := func(m *Measurements, lost int) { m.Received = m.Sent - lost; m.LossPercent = percent(lost, m.Sent) }
	tests := []struct {
		name   string
		policy func(*Policy)
		mutate func(m *Measurements)
		want   []want
	}{
		{"clean path", nil, nil, nil},
		{"unreachable", nil, func(m *Measurements) {
			*m = Measurements{Error: "no probe responder answered at 198.51.100.1:4791 within 2s"}
		}, []want{{CodeNoResponder, SeverityError, "no probe responder answered at host-b"}}},
		{"DSCP remarked forward", nil, func(m *Measurements) { m.DSCPReceived = map[uint8]int{8: 300} },
			[]want{{CodeDSCPRemarked, SeverityError, "DSCP 26 arrived as 8 (remarked on the path)"}}},
		{"DSCP partly remarked: the other value is named", nil, func(m *Measurements) { m.DSCPReceived = map[uint8]int{26: 290, 10: 10} },
			[]want{{CodeDSCPRemarked, SeverityError, "DSCP 26 arrived as 10 (remarked on the path)"}}},
		{"same remark both ways is one finding", nil, func(m *Measurements) {
			m.DSCPReceived, m.Reverse.DSCPReceived = map[uint8]int{8: 300}, map[uint8]int{8: 300}
		}, []want{{CodeDSCPRemarked, SeverityError, "DSCP 26 arrived as 8 (remarked on the path)"}}},
		{"CNP DSCP remarked", nil, func(m *Measurements) { m.CNPsReceived, m.CNPDSCPReceived = 5, map[uint8]int{0: 5} },
			[]want{{CodeDSCPRemarked, SeverityError, "DSCP 48 arrived as 0 (remarked on the path)"}}},
		{"ECN bleached", nil, func(m *Measurements) { m.ECNReceived = map[ECN]int{NotECT: 300} },
			[]want{{CodeECNBleached, SeverityError, "ECN bleached: sent ECT(0), received Not-ECT"}}},
		{"ECT(0) to ECT(1) is a warning", nil, func(m *Measurements) { m.Reverse.ECNReceived = map[ECN]int{ECT1: 300} },
			[]want{{CodeECNRemarked, SeverityWarning, "ECN changed: sent ECT(0), received ECT(1)"}}},
		{"CE with CNPs under dcqcn is congestion, not failure", nil, func(m *Measurements) {
			m.ECNReceived, m.CEMarked, m.CEFraction, m.CNPsSent, m.CNPsReceived = map[ECN]int{CE: 300}, 300, 1, 300, 300
		}, []want{{CodeCEMarked, SeverityWarning, "CE marked on 100.0% of packets (congestion on the path)"}}},
		{"a little CE is info", nil, func(m *Measurements) {
			m.CEMarked, m.CEFraction, m.CNPsSent, m.CNPsReceived = 1, 1.0/300, 1, 1
		}, []want{{CodeCEMarked, SeverityInfo, "CE marked on 0.3% of packets (congestion on the path)"}}},
		{"CE under pfc-only fails", pfc, func(m *Measurements) {
			m.CEMarked, m.CEFraction, m.CNPsSent, m.CNPsReceived = 300, 1, 300, 300
		}, []want{{CodeCEMarked, SeverityError, "CE marked on 100.0% of packets, but the pfc-only profile has ECN off"}}},
		{"CE without CNP always fails", ecnOnly(1), func(m *Measurements) {
			m.CEMarked, m.CEFraction, m.CNPsSent = 30, 0.1, 30
		}, []want{{CodeCEMarked, SeverityWarning, "CE marked on 10.0% of packets (congestion on the path)"},
			{CodeCEWithoutCNP, SeverityError, "CE marked but no CNP returned"}}},
		{"reverse CE only needs no CNP", nil, func(m *Measurements) { m.Reverse.CEMarked, m.Reverse.CEFraction = 3, 0.01 },
			[]want{{CodeCEMarked, SeverityWarning, "CE marked on 1.0% of packets (congestion on the path)"}}},
		{"loss in dcqcn", nil, func(m *Measurements) { m.Sent = 1000; loss(m, 32) },
			[]want{{CodeLoss, SeverityError, "3.2% loss in the lossless class"}}},
		{"loss in pfc-only", pfc, func(m *Measurements) { m.Reverse.LossPercent = 0.05 },
			[]want{{CodeLoss, SeverityError, "0.05% loss in the lossless class"}}},
		{"ecn-only above the limit", ecnOnly(1), func(m *Measurements) { m.Sent = 1000; loss(m, 32) },
			[]want{{CodeLoss, SeverityError, "3.2% loss in the RoCE class, above the 1.0% the ecn-only profile allows"}}},
		{"ecn-only within the limit", ecnOnly(5), func(m *Measurements) { m.Sent = 1000; loss(m, 32) },
			[]want{{CodeLoss, SeverityWarning, "3.2% loss in the RoCE class, within the 5.0% the ecn-only profile allows"}}},
		{"MTU both ways", nil, func(m *Measurements) { m.PathMTU, m.PathMTUReverse = 1500, 1500 },
			[]want{{CodeMTUBlackhole, SeverityError, "packets above 1472 bytes lost: path MTU 1500 is below intent 9000"}}},
		{"MTU over IPv6", nil, func(m *Measurements) { m.PathMTU, m.PathMTUReverse, m.IPOverhead = 1500, 9000, 48 },
			[]want{{CodeMTUBlackhole, SeverityError, "packets above 1452 bytes lost: path MTU 1500 is below intent 9000"}}},
		{"MTU differs per direction", nil, func(m *Measurements) { m.PathMTU, m.PathMTUReverse = 4000, 1500 },
			[]want{{CodeMTUBlackhole, SeverityError, "packets above 3972 bytes lost: path MTU 4000 is below intent 9000"},
				{CodeMTUBlackhole, SeverityError, "packets above 1472 bytes lost: path MTU 1500 is below intent 9000"}}},
		{"ICRC errors", nil, func(m *Measurements) { m.ICRCErrors, m.Reverse.ICRCErrors = 3, 1 },
			[]want{{CodeICRCError, SeverityError, "4 packets failed the ICRC check (corrupted on the path)"}}},
		{"reordering and duplicates warn", nil, func(m *Measurements) { m.Reordered, m.Reverse.Duplicates = 2, 1 },
			[]want{{CodeReordering, SeverityWarning, "2 packets arrived out of order"}, {CodeDuplicates, SeverityWarning, "1 duplicate packets"}}},
		{"no stats: cannot prove, round-trip loss shown", nil, func(m *Measurements) {
			m.StatsExchanged, m.StatsError, m.DSCPReceived = false, "the responder returned no statistics", map[uint8]int{}
			m.Sent = 1000
			loss(m, 10)
		}, []want{{CodeStatsUnavailable, SeverityError, "the responder returned no statistics: forward DSCP, ECN and loss cannot be proven"},
			{CodeLoss, SeverityError, "1.0% loss in the lossless class"}}},
		{"stats version mismatch", nil, func(m *Measurements) {
			m.StatsExchanged, m.StatsVersionMismatch, m.StatsError = false, true, "responder 10.0.0.2 speaks probe stats version 2; this probe speaks 1"
		}, []want{{CodeStatsVersion, SeverityError, "responder speaks another probe stats version: forward DSCP, ECN and loss cannot be proven"}}},
		{"RTT limit", func(p *Policy) { p.MaxRTTP99 = 50 * time.Microsecond }, nil,
			[]want{{CodeRTTHigh, SeverityError, "RTT p99 80.0 µs is above the 50.0 µs limit"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pol := DefaultPolicy()
			if tc.policy != nil {
				tc.policy(&pol)
			}
			pair := cleanPair()
			if tc.mutate != nil {
				tc.mutate(&pair.Measurements)
			}
			before := cleanCopy(pair)
			got := Evaluate(pair, pol)
			var gw []want
			for _, f := range got {
				gw = append(gw, want{f.Code, f.Severity, f.Message})
				if f.Pair != "host-a -> host-b" || f.Measurement == "" || f.Expected == "" {
					t.Errorf("finding lacks pair, measurement or expectation: %+v", f)
				}
			}
			if !slices.Equal(gw, tc.want) {
				t.Fatalf("findings\n got  %v\n want %v", gw, tc.want)
			}
			if !reflect.DeepEqual(pair, before) || !reflect.DeepEqual(Evaluate(pair, pol), got) {
				t.Fatal("Evaluate changed its input or is not deterministic")
			}
			fails := slices.ContainsFunc(got, func(f Finding) bool { return f.Severity == SeverityError })
			if rep := NewReport([]PairResult{pair}, pol); rep.Pass() == fails || (rep.Pairs[0].Verdict == VerdictFail) != fails {
				t.Fatalf("report verdict %s with findings %v", rep.Verdict, gw)
			}
		})
	}
}

// TestNoResponderNamesThePortProbed: the no_responder expectation names
// the UDP port the pair was probed on, the RoCEv2 default when the report
// did not record one.
func TestNoResponderNamesThePortProbed(t *testing.T) {
	for _, tc := range []struct {
		port uint16
		want string
	}{
		{0, "UDP 4791"},
		{4791, "UDP 4791"},
		{14791, "UDP 14791"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			pair := PairResult{From: "host-a", To: "host-b", Measurements: Measurements{Port: tc.port}}
			got := Evaluate(pair, DefaultPolicy())
			if len(got) != 1 || got[0].Code != CodeNoResponder {
				t.Fatalf("want one no_responder finding, got %+v", got)
			}
			if !strings.HasSuffix(got[0].Expected, tc.want) {
				t.Errorf("expectation %q does not end in %q", got[0].Expected, tc.want)
			}
		})
	}
}

func cleanCopy(p PairResult) PairResult {
	c := p
	cp := func(d *Direction) {
		d.DSCPReceived = copyMap(d.DSCPReceived)
		d.ECNReceived = copyMap(d.ECNReceived)
	}
	cp(&c.Measurements.Direction)
	cp(&c.Measurements.Reverse)
	return c
}

func copyMap[K comparable](m map[K]int) map[K]int {
	if m == nil {
		return nil
	}
	out := make(map[K]int, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func TestPolicyValidate(t *testing.T) {
	good := DefaultPolicy()
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, mutate := range map[string]func(*Policy){
		"DSCP 64":         func(p *Policy) { p.RoCEDSCP = 64 },
		"Not-ECT":         func(p *Policy) { p.ECN = NotECT },
		"unknown profile": func(p *Policy) { p.Profile = "lossy" },
		"odd QP start":    func(p *Policy) { p.QPMin = 0xF00001 },
		"QP 0xFFFFFF":     func(p *Policy) { p.QPMax = 0xFFFFFF },
		"tiny MTU":        func(p *Policy) { p.HostMTU = 500 },
		"sweep too big":   func(p *Policy) { p.Sizes = []int{9216} },
		"loss over 100":   func(p *Policy) { p.MaxLossPercent = 101 },
	} {
		p := DefaultPolicy()
		mutate(&p)
		if err := p.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	var e ECN
	if err := e.UnmarshalText([]byte("ect(1)")); err != nil || e != ECT1 {
		t.Errorf("ECN text: %v %v", e, err)
	}
	if tg, err := ParseTarget("host-b=2001:db8:b::1"); err != nil || tg.Name != "host-b" || tg.Addr.String() != "2001:db8:b::1" {
		t.Errorf("ParseTarget: %+v %v", tg, err)
	}
}
