package probe

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// The flows of cleanPair: four forward flows from host-a's ports, four
// reverse flows from host-b's.
var (
	fwdPorts = []uint16{49001, 49002, 49003, 49004}
	revPorts = []uint16{50001, 50002, 50003, 50004}
)

func flowStats(port uint16, kind PacketKind, n int, dscp uint8) FlowStats {
	return FlowStats{SrcPort: port, Kind: kind, Sent: n, Received: n, DSCPReceived: map[uint8]int{dscp: n}, ECNReceived: map[ECN]int{ECT0: n}}
}

// cleanPair is what a healthy path measures; cases below change one thing.
// Forward: 300 data packets, 75 per flow. Reverse: 264 ACKs and 36 READ
// responses, 66 and 9 per flow.
func cleanPair() PairResult {
	dir := func() Direction {
		return Direction{Sent: 300, Received: 300, DSCPSent: 26, DSCPReceived: map[uint8]int{26: 300},
			ECNSent: ECT0, ECNReceived: map[ECN]int{ECT0: 300}, FlowsComplete: true}
	}
	m := Measurements{
		Reachable: true, StatsExchanged: true, Flows: 4,
		RTT:       RTT{Samples: 300, Min: 20, Mean: 40, P50: 38, P90: 50, P99: 80, P999: 95, Max: 99, Clock: "kernel"},
		Direction: dir(), Reverse: dir(), CNPDSCPSent: 48,
		PathMTU: 9000, PathMTUReverse: 9000, IntentMTU: 9000, IPOverhead: 28,
	}
	for i := range fwdPorts {
		m.PerFlow = append(m.PerFlow, flowStats(fwdPorts[i], KindData, 75, 26))
		m.MTUByFlow = append(m.MTUByFlow, FlowMTU{Direction: "forward", SrcPort: fwdPorts[i], PathMTU: 9000})
	}
	for _, k := range []PacketKind{KindACK, KindReadResponse} {
		for _, p := range revPorts {
			m.Reverse.PerFlow = append(m.Reverse.PerFlow, flowStats(p, k, map[PacketKind]int{KindACK: 66, KindReadResponse: 9}[k], 26))
		}
	}
	for _, p := range revPorts {
		m.MTUByFlow = append(m.MTUByFlow, FlowMTU{Direction: "reverse", SrcPort: p, PathMTU: 9000})
	}
	return PairResult{From: "host-a", To: "host-b", Measurements: m}
}

// flowsOf returns pointers to the flows of kind in fs.
func flowsOf(fs []FlowStats, k PacketKind) []*FlowStats {
	var out []*FlowStats
	for i := range fs {
		if fs[i].Kind == k {
			out = append(out, &fs[i])
		}
	}
	return out
}

// remark moves every packet of the flows to DSCP d.
func remark(d uint8, fs ...*FlowStats) {
	for _, f := range fs {
		f.DSCPReceived = map[uint8]int{d: f.Received}
	}
}

// lose takes n packets off a flow's received count.
func lose(f *FlowStats, n int) {
	f.Received -= n
	for k := range f.DSCPReceived {
		f.DSCPReceived[k] -= n
	}
	for k := range f.ECNReceived {
		f.ECNReceived[k] -= n
	}
}

// withCNPs adds 5 CNPs on each of two reverse flows.
func withCNPs(m *Measurements, dscp uint8) {
	m.CEMarked, m.CEFraction, m.CNPsSent, m.CNPsReceived = 10, 10.0/300, 10, 10
	m.ECNReceived = map[ECN]int{ECT0: 290, CE: 10}
	m.PerFlow[0].ECNReceived = map[ECN]int{ECT0: 65, CE: 10}
	m.CNPDSCPReceived = map[uint8]int{dscp: 10}
	m.Reverse.PerFlow = append(m.Reverse.PerFlow, flowStats(50001, KindCNP, 5, dscp), flowStats(50002, KindCNP, 5, dscp))
}

// allCE marks every forward data packet CE, with a CNP for each.
func allCE(m *Measurements) {
	m.ECNReceived, m.CEMarked, m.CEFraction, m.CNPsSent, m.CNPsReceived = map[ECN]int{CE: 300}, 300, 1, 300, 300
	for _, f := range flowsOf(m.PerFlow, KindData) {
		f.ECNReceived = map[ECN]int{CE: f.Received}
	}
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
	fwd := func(m *Measurements) []*FlowStats { return flowsOf(m.PerFlow, KindData) }
	acks := func(m *Measurements) []*FlowStats { return flowsOf(m.Reverse.PerFlow, KindACK) }
	reads := func(m *Measurements) []*FlowStats { return flowsOf(m.Reverse.PerFlow, KindReadResponse) }
	// mtuLost marks forward or reverse flows as losing sizes above mtu.
	mtuLost := func(m *Measurements, dir string, mtu int, confirmed bool, ports ...uint16) {
		for i := range m.MTUByFlow {
			if fm := &m.MTUByFlow[i]; fm.Direction == dir && slices.Contains(ports, fm.SrcPort) {
				fm.PathMTU, fm.Lost, fm.Confirmed = mtu, mtu+4, confirmed
			}
		}
	}
	const fa, ra = "forward host-a → host-b: ", "reverse host-b → host-a: "
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
		{"DSCP remarked forward on every flow", nil, func(m *Measurements) {
			m.DSCPReceived = map[uint8]int{8: 300}
			remark(8, fwd(m)...)
		}, []want{{CodeDSCPRemarked, SeverityError, fa + "DSCP 26 arrived as 8 on all 4 flows"}}},
		{"DSCP remarked forward on two flows: they are named", nil, func(m *Measurements) {
			m.DSCPReceived = map[uint8]int{26: 150, 8: 150}
			remark(8, fwd(m)[0], fwd(m)[2])
		}, []want{{CodeDSCPRemarked, SeverityError, fa + "DSCP 26 arrived as 8 on 2 of 4 flows (UDP source ports 49001, 49003)"}}},
		{"ACK DSCP remarked on the reverse path only, one flow", nil, func(m *Measurements) {
			m.Reverse.DSCPReceived = map[uint8]int{26: 234, 8: 66}
			remark(8, acks(m)[1])
		}, []want{{CodeDSCPRemarked, SeverityError, ra + "ACK DSCP 26 arrived as 8 on 1 of 4 flows (UDP source port 50002)"}}},
		{"READ responses remarked, ACKs not", nil, func(m *Measurements) { remark(10, reads(m)...) },
			[]want{{CodeDSCPRemarked, SeverityError, ra + "READ response DSCP 26 arrived as 10 on all 4 flows"}}},
		{"the same remark both ways names each direction and kind", nil, func(m *Measurements) {
			remark(8, fwd(m)...)
			remark(8, acks(m)...)
			remark(8, reads(m)...)
		}, []want{{CodeDSCPRemarked, SeverityError, fa + "DSCP 26 arrived as 8 on all 4 flows"},
			{CodeDSCPRemarked, SeverityError, ra + "ACK DSCP 26 arrived as 8 on all 4 flows"},
			{CodeDSCPRemarked, SeverityError, ra + "READ response DSCP 26 arrived as 8 on all 4 flows"}}},
		{"CNP DSCP remarked", nil, func(m *Measurements) { withCNPs(m, 0) },
			[]want{{CodeDSCPRemarked, SeverityError, ra + "CNP DSCP 48 arrived as 0 on both flows"},
				{CodeCEMarked, SeverityWarning, fa + "CE marked on 3.3% of data packets on 1 of 4 flows (UDP source port 49001) (congestion on the path)"}}},
		{"ECN bleached forward", nil, func(m *Measurements) {
			for _, f := range fwd(m) {
				f.ECNReceived = map[ECN]int{NotECT: f.Received}
			}
		}, []want{{CodeECNBleached, SeverityError, fa + "ECN bleached: sent ECT(0), received Not-ECT on all 4 flows"}}},
		{"ECT(0) to ECT(1) on ACKs is a warning", nil, func(m *Measurements) {
			for _, f := range acks(m) {
				f.ECNReceived = map[ECN]int{ECT1: f.Received}
			}
		}, []want{{CodeECNRemarked, SeverityWarning, ra + "ACK ECN changed: sent ECT(0), received ECT(1) on all 4 flows"}}},
		{"CE with CNPs under dcqcn is congestion, not failure", nil, allCE,
			[]want{{CodeCEMarked, SeverityWarning, fa + "CE marked on 100.0% of data packets on all 4 flows (congestion on the path)"}}},
		{"a little CE is info", nil, func(m *Measurements) {
			m.CEMarked, m.CNPsSent, m.CNPsReceived = 1, 1, 1
			fwd(m)[3].ECNReceived = map[ECN]int{ECT0: 74, CE: 1}
		}, []want{{CodeCEMarked, SeverityInfo, fa + "CE marked on 0.3% of data packets on 1 of 4 flows (UDP source port 49004) (congestion on the path)"}}},
		{"CE under pfc-only fails", pfc, allCE,
			[]want{{CodeCEMarked, SeverityError, fa + "CE marked on 100.0% of data packets on all 4 flows, but the pfc-only profile has ECN off"}}},
		{"CE without CNP always fails", ecnOnly(1), func(m *Measurements) {
			allCE(m)
			m.CNPsReceived = 0
		}, []want{{CodeCEMarked, SeverityWarning, fa + "CE marked on 100.0% of data packets on all 4 flows (congestion on the path)"},
			{CodeCEWithoutCNP, SeverityError, ra + "CE marked but no CNP returned"}}},
		{"reverse CE needs no CNP", nil, func(m *Measurements) {
			acks(m)[0].ECNReceived = map[ECN]int{ECT0: 63, CE: 3}
		}, []want{{CodeCEMarked, SeverityWarning, ra + "CE marked on 1.1% of ACKs on 1 of 4 flows (UDP source port 50001) (congestion on the path)"}}},
		{"forward loss on one flow", nil, func(m *Measurements) { lose(fwd(m)[1], 32) },
			[]want{{CodeLoss, SeverityError, fa + "10.7% of data packets lost on 1 of 4 flows (UDP source port 49002) in the lossless class"}}},
		{"ACK loss on the reverse path only", nil, func(m *Measurements) {
			lose(acks(m)[0], 7)
			lose(acks(m)[3], 7)
		}, []want{{CodeLoss, SeverityError, ra + "5.3% of ACKs lost on 2 of 4 flows (UDP source ports 50001, 50004) in the lossless class"}}},
		{"a reverse flow that lost everything is still named", nil, func(m *Measurements) {
			for _, f := range flowsOf(m.Reverse.PerFlow, KindReadResponse)[2:3] {
				*f = FlowStats{SrcPort: f.SrcPort, Kind: f.Kind, Sent: 9}
			}
		}, []want{{CodeLoss, SeverityError, ra + "25.0% of READ responses lost on 1 of 4 flows (UDP source port 50003) in the lossless class"}}},
		{"lost CNPs warn", nil, func(m *Measurements) {
			withCNPs(m, 48)
			cnp := flowsOf(m.Reverse.PerFlow, KindCNP)
			cnp[1].Received, cnp[1].DSCPReceived = 4, map[uint8]int{48: 4}
		}, []want{{CodeCEMarked, SeverityWarning, fa + "CE marked on 3.3% of data packets on 1 of 4 flows (UDP source port 49001) (congestion on the path)"},
			{CodeLoss, SeverityWarning, ra + "10.0% of CNPs lost on 1 of 2 flows (UDP source port 50002)"}}},
		{"loss in pfc-only", pfc, func(m *Measurements) { lose(reads(m)[0], 1) },
			[]want{{CodeLoss, SeverityError, ra + "2.8% of READ responses lost on 1 of 4 flows (UDP source port 50001) in the lossless class"}}},
		{"ecn-only above the limit", ecnOnly(1), func(m *Measurements) { lose(fwd(m)[0], 10) },
			[]want{{CodeLoss, SeverityError, fa + "3.3% of data packets lost on 1 of 4 flows (UDP source port 49001), above the 1.0% the ecn-only profile allows"}}},
		{"ecn-only within the limit", ecnOnly(5), func(m *Measurements) { lose(fwd(m)[0], 10) },
			[]want{{CodeLoss, SeverityWarning, fa + "3.3% of data packets lost on 1 of 4 flows (UDP source port 49001), within the 5.0% the ecn-only profile allows"}}},
		{"MTU confirmed on every flow both ways", nil, func(m *Measurements) {
			m.PathMTU, m.PathMTUReverse = 1500, 1500
			mtuLost(m, "forward", 1500, true, fwdPorts...)
			mtuLost(m, "reverse", 1500, true, revPorts...)
		}, []want{{CodeMTUBlackhole, SeverityError, fa + "packets above 1500 bytes lost on all 4 flows: path MTU 1500 is below intent 9000"},
			{CodeMTUBlackhole, SeverityError, ra + "packets above 1500 bytes lost on all 4 flows: path MTU 1500 is below intent 9000"}}},
		{"MTU on some reverse flows only", nil, func(m *Measurements) {
			m.PathMTUReverse = 4000
			mtuLost(m, "reverse", 4000, true, 50002, 50004)
		}, []want{{CodeMTUBlackhole, SeverityError, ra + "packets above 4000 bytes lost on 2 of 4 flows (UDP source ports 50002, 50004): path MTU 4000 is below intent 9000"}}},
		{"MTU over IPv6 names the IP size", nil, func(m *Measurements) {
			m.PathMTU, m.IPOverhead = 1500, 48
			mtuLost(m, "forward", 1500, true, fwdPorts...)
		}, []want{{CodeMTUBlackhole, SeverityError, fa + "packets above 1500 bytes lost on all 4 flows: path MTU 1500 is below intent 9000"}}},
		{"an unconfirmed loss is no black hole", nil, func(m *Measurements) {
			mtuLost(m, "forward", 1500, false, fwdPorts...)
		}, nil},
		{"a report without per-flow sweeps", nil, func(m *Measurements) {
			m.MTUByFlow, m.PathMTU, m.PathMTUReverse = nil, 4000, 9000
		}, []want{{CodeMTUBlackhole, SeverityError, fa + "packets above 4000 bytes lost: path MTU 4000 is below intent 9000"}}},
		{"an older responder without flows: reverse loss from the totals", nil, func(m *Measurements) {
			m.PerFlow, m.FlowsComplete, m.Reverse.FlowsComplete = nil, false, false
			for i := range m.Reverse.PerFlow {
				f := &m.Reverse.PerFlow[i]
				f.Sent = f.Received
			}
			m.Reverse.Received = 290
			lose(acks(m)[0], 10)
		}, []want{{CodeLoss, SeverityError, ra + "3.3% of replies lost in the lossless class"}}},
		{"ICRC errors each way", nil, func(m *Measurements) {
			m.ICRCErrors, fwd(m)[0].ICRCErrors = 3, 3
			acks(m)[2].ICRCErrors = 1
		}, []want{{CodeICRCError, SeverityError, fa + "3 data packets failed the ICRC check on 1 of 4 flows (UDP source port 49001): corrupted on the path"},
			{CodeICRCError, SeverityError, ra + "1 ACKs failed the ICRC check on 1 of 4 flows (UDP source port 50003): corrupted on the path"}}},
		{"reordering and duplicates warn", nil, func(m *Measurements) { m.Reordered, m.Reverse.Duplicates = 2, 1 },
			[]want{{CodeReordering, SeverityWarning, fa + "2 data packets arrived out of order"},
				{CodeDuplicates, SeverityWarning, ra + "1 replies arrived twice"}}},
		{"no stats: cannot prove, round-trip loss shown", nil, func(m *Measurements) {
			m.StatsExchanged, m.StatsError, m.DSCPReceived = false, "the responder returned no statistics", map[uint8]int{}
			m.PerFlow, m.FlowsComplete, m.Reverse.FlowsComplete = nil, false, false
			m.Sent, m.Received = 1000, 990
		}, []want{{CodeStatsUnavailable, SeverityError, "the responder returned no statistics: forward DSCP, ECN and loss cannot be proven"},
			{CodeLoss, SeverityError, "host-a → host-b and back: 1.0% of data packets unanswered in the lossless class"}}},
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
				t.Fatalf("findings\n got  %q\n want %q", gw, tc.want)
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

// Direction, packet kind and the flows hit are fields, not only words.
func TestFindingFields(t *testing.T) {
	pair := cleanPair()
	m := &pair.Measurements
	remark(8, flowsOf(m.PerFlow, KindData)[1])
	lose(flowsOf(m.Reverse.PerFlow, KindACK)[3], 6)
	withCNPs(m, 0)
	for i := range m.MTUByFlow {
		if fm := &m.MTUByFlow[i]; fm.Direction == "reverse" && fm.SrcPort == 50001 {
			fm.PathMTU, fm.Lost, fm.Confirmed = 2048, 2052, true
		}
	}
	type fields struct {
		code  Code
		dir   string
		kind  PacketKind
		flows []uint16
		total int
	}
	var got []fields
	for _, f := range Evaluate(pair, DefaultPolicy()) {
		got = append(got, fields{f.Code, f.Direction, f.PacketKind, f.Flows, f.FlowsTotal})
	}
	want := []fields{
		{CodeDSCPRemarked, "forward", KindData, []uint16{49002}, 4},
		{CodeDSCPRemarked, "reverse", KindCNP, []uint16{50001, 50002}, 2},
		{CodeCEMarked, "forward", KindData, []uint16{49001}, 4},
		{CodeLoss, "reverse", KindACK, []uint16{50004}, 4},
		{CodeMTUBlackhole, "reverse", KindReadResponse, []uint16{50001}, 4},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("fields\n got  %+v\n want %+v", got, want)
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
