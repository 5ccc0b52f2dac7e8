package telemetry

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// The unit fabric: two leaves and a spine, three hosts.
//
//	gpu1 ens1f0np0 ── leaf1 Ethernet1   leaf1 Ethernet49 ── spine1 Ethernet1
//	gpu2 ens1f0np0 ── leaf1 Ethernet2   leaf2 Ethernet49 ── spine1 Ethernet2
//	gpu3 ens1f0np0 ── leaf2 Ethernet1
func unitTopology(tb testing.TB) *Topology {
	pol := Policy{Lossless: 1 << 3, RoCE: 3, CNP: 6, ECN: true}
	sw := func(name string, ports ...string) DeviceSpec {
		d := DeviceSpec{Name: name, Policy: pol}
		for _, p := range ports {
			d.Ports = append(d.Ports, PortSpec{Name: p})
		}
		return d
	}
	host := func(name string) DeviceSpec {
		return DeviceSpec{Name: name, Host: true, Policy: pol, Ports: []PortSpec{{Name: "ens1f0np0", RDMA: "mlx5_0/1"}}}
	}
	c := func(a, ap, b, bp string) Cable { return Cable{A: Endpoint{a, ap}, B: Endpoint{b, bp}} }
	topo, err := NewTopology(
		[]DeviceSpec{sw("leaf1", "Ethernet1", "Ethernet2", "Ethernet49"), sw("leaf2", "Ethernet1", "Ethernet49"),
			sw("spine1", "Ethernet1", "Ethernet2"), host("gpu1"), host("gpu2"), host("gpu3")},
		[]Cable{c("gpu1", "ens1f0np0", "leaf1", "Ethernet1"), c("gpu2", "ens1f0np0", "leaf1", "Ethernet2"),
			c("gpu3", "ens1f0np0", "leaf2", "Ethernet1"), c("leaf1", "Ethernet49", "spine1", "Ethernet1"),
			c("leaf2", "Ethernet49", "spine1", "Ethernet2")})
	if err != nil {
		tb.Fatal(err)
	}
	return topo
}

var (
	allPrio = PrioSet(1<<NumPrioMetrics - 1)
	allPort = PortSet(1<<NumPortMetrics - 1)
	hosts   = []string{"gpu1", "gpu2", "gpu3"}
	sws     = []string{"leaf1", "leaf2", "spine1"}
)

const el = 10 * time.Second

// healthy is an unremarkable interval: every host sends and receives a
// million RoCE packets on priority 3, some are CE-marked and answered with
// CNPs on priority 6, TCP runs on priority 0, and leaf1 pauses gpu1 for 1 %.
func healthy(s *sim) {
	for _, h := range hosts {
		s.add(h, "ens1f0np0", 3, TxPackets, 1_000_000)
		s.add(h, "ens1f0np0", 3, RxPackets, 1_000_000)
		s.add(h, "ens1f0np0", 0, TxPackets, 50_000)
		s.add(h, "ens1f0np0", 0, RxPackets, 50_000)
		s.add(h, "ens1f0np0", 6, TxPackets, 300)
		s.add(h, "ens1f0np0", 6, RxPackets, 300)
		s.addPort(h, "ens1f0np0", RoCETxPackets, 1_000_300)
		s.addPort(h, "ens1f0np0", RoCERxPackets, 1_000_300)
		s.addPort(h, "ens1f0np0", CEReceived, 2_000)
		s.addPort(h, "ens1f0np0", CNPSent, 300)
		s.addPort(h, "ens1f0np0", CNPHandled, 300)
	}
	for _, sp := range [][2]string{{"leaf1", "Ethernet1"}, {"leaf1", "Ethernet2"}, {"leaf2", "Ethernet1"},
		{"leaf1", "Ethernet49"}, {"leaf2", "Ethernet49"}, {"spine1", "Ethernet1"}, {"spine1", "Ethernet2"}} {
		s.add(sp[0], sp[1], 3, TxPackets, 1_000_000)
		s.add(sp[0], sp[1], 0, TxPackets, 50_000)
		s.add(sp[0], sp[1], 6, TxPackets, 300)
		s.add(sp[0], sp[1], 3, ECNMarked, 700)
	}
	s.pause("gpu1", "ens1f0np0", 3, 0.01, el)
}

type scenario struct {
	name   string
	setup  func(s *sim)
	rounds int
	step   func(s *sim, round int)
	check  func(t *testing.T, h *history)
}

type history struct {
	reports []Report
	raised  map[int][]Finding // by round
	cleared map[int][]Finding
}

func (h *history) all(kind map[int][]Finding) []Finding {
	var out []Finding
	for r := 0; r <= len(h.reports); r++ {
		out = append(out, kind[r]...)
	}
	return out
}

// raisedAt is the round a finding on subject was raised, or 0.
func (h *history) raisedAt(code Code, subject string) (int, Finding) {
	for r := 0; r <= len(h.reports); r++ {
		for _, f := range h.raised[r] {
			if f.Code == code && f.Subject.String() == subject {
				return r, f
			}
		}
	}
	return 0, Finding{}
}

func (h *history) clearedAt(code Code, subject string) (int, Finding) {
	for r := 0; r <= len(h.reports); r++ {
		for _, f := range h.cleared[r] {
			if f.Code == code && f.Subject.String() == subject {
				return r, f
			}
		}
	}
	return 0, Finding{}
}

func (h *history) codes() []string {
	var out []string
	for _, f := range h.all(h.raised) {
		out = append(out, string(f.Code)+" "+f.Subject.String())
	}
	return out
}

// run plays a scenario on the unit fabric: round 0 is the baseline, then
// each round is a healthy interval plus what step adds.
func run(t *testing.T, sc scenario, cfg Config) *history {
	t.Helper()
	topo := unitTopology(t)
	s := newSim(t, topo)
	s.reports(allPrio, 0, sws...)
	s.reports(allPrio, allPort, hosts...)
	if sc.setup != nil {
		sc.setup(s)
	}
	det, err := New(topo, cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := &history{raised: map[int][]Finding{}, cleared: map[int][]Finding{}}
	det.Observe(s.round(0))
	for r := 1; r <= sc.rounds; r++ {
		healthy(s)
		if sc.step != nil {
			sc.step(s, r)
		}
		rep := det.Observe(s.round(el))
		h.reports = append(h.reports, rep)
		h.raised[r], h.cleared[r] = rep.Raised, rep.Cleared
		for _, f := range rep.Raised {
			t.Logf("round %d: %s", r, f)
		}
	}
	return h
}

func wantOnly(t *testing.T, h *history, want ...string) {
	t.Helper()
	got := h.codes()
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("raised %q, want %q", got, want)
	}
}

func wantIn(t *testing.T, f Finding, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(f.Message, p) {
			t.Errorf("message %q lacks %q", f.Message, p)
		}
	}
}

func wantEvidence(t *testing.T, f Finding, name string, want float64) {
	t.Helper()
	got, ok := f.Value(name)
	if !ok || got < want*0.999 || got > want*1.001 {
		t.Errorf("evidence %s = %g (%v), want %g; all %v", name, got, ok, want, f.Evidence)
	}
}

func between(lo, hi int) func(int) bool { return func(r int) bool { return r >= lo && r <= hi } }

func TestDetectors(t *testing.T) {
	cfg := DefaultConfig()
	tests := []scenario{
		{
			name: "healthy with pause bursts and congestion stays silent", rounds: 60,
			step: func(s *sim, r int) {
				// Bursts up to 70 % for a round, 30 % for two rounds, spread over two hops.
				frac := []float64{0, 0.05, 0.7, 0, 0.3, 0.3, 0, 0.02, 0.15, 0.1}[r%10]
				s.pause("leaf2", "Ethernet1", 3, frac, el)
				s.pause("spine1", "Ethernet2", 3, frac/2, el)
				if r%7 == 0 {
					s.addPort("gpu2", "ens1f0np0", OutOfSequence, 2) // a one-off retransmission
					s.addPort("gpu3", "ens1f0np0", CNPIgnored, 20)   // a few CNPs for QPs gone
				}
			},
			check: func(t *testing.T, h *history) { wantOnly(t, h) },
		},
		{
			name: "storm by the pause-time counter", rounds: 16,
			step: func(s *sim, r int) {
				if r <= 6 {
					s.pause("leaf1", "Ethernet1", 3, 0.95, el)
				}
			},
			check: func(t *testing.T, h *history) {
				wantOnly(t, h, "pfc_storm leaf1 Ethernet1 priority 3")
				r, f := h.raisedAt(CodePFCStorm, "leaf1 Ethernet1 priority 3")
				if r != 3 {
					t.Errorf("raised in round %d, want 3 (30 s sustained)", r)
				}
				wantIn(t, f, "leaf1 Ethernet1 priority 3 is storming", "paused 95% of the last 10s (by its pause-time counter)",
					"gpu1 ens1f0np0 keeps pausing it", "threshold 80% paused for 30s")
				wantEvidence(t, f, "paused_fraction", 0.95)
				if !f.FirstSeen.Equal(t0) || f.Severity != SeverityError {
					t.Errorf("first seen %v severity %s", f.FirstSeen, f.Severity)
				}
				if c, cf := h.clearedAt(CodePFCStorm, "leaf1 Ethernet1 priority 3"); c != 12 || cf.Rounds != 6 {
					t.Errorf("cleared in round %d after %d rounds, want round 12 (60 s quiet) after 6", c, cf.Rounds)
				}
			},
		},
		{
			name: "storm by a watchdog trip is raised at once", rounds: 3,
			setup: func(s *sim) { s.reports(PrioSetOf(PauseRx, PauseTx, WatchdogStorms, TxPackets), 0, "leaf2") },
			step: func(s *sim, r int) {
				if r == 2 {
					s.add("leaf2", "Ethernet1", 3, WatchdogStorms, 1)
				}
			},
			check: func(t *testing.T, h *history) {
				wantOnly(t, h, "pfc_storm leaf2 Ethernet1 priority 3")
				r, f := h.raisedAt(CodePFCStorm, "leaf2 Ethernet1 priority 3")
				if r != 2 {
					t.Errorf("raised in round %d, want 2", r)
				}
				wantIn(t, f, "the PFC watchdog detected 1 storm(s) in the last 10s", "gpu3 ens1f0np0 keeps pausing it")
			},
		},
		{
			name: "storm by a stalled queue where there is no pause-time counter", rounds: 4,
			setup: func(s *sim) {
				d := s.dev("leaf2")
				for i := range d.ports {
					for p := range NumPriorities {
						d.ports[i].Prio[p].Has = PrioSetOf(PauseRx, PauseTx, TxPackets)
					}
				}
			},
			step: func(s *sim, r int) {
				s.add("leaf2", "Ethernet1", 3, PauseRx, 3_000)
				pc := s.port("leaf2", "Ethernet1")
				pc.Prio[3].V[TxPackets] -= 1_000_000 // healthy() added it; the queue sent nothing
				host := s.port("gpu3", "ens1f0np0")  // so gpu3 received no RoCE
				host.Port.V[RoCERxPackets] -= 1_000_000
				host.Prio[3].V[RxPackets] -= 1_000_000
			},
			check: func(t *testing.T, h *history) {
				wantOnly(t, h, "pfc_storm leaf2 Ethernet1 priority 3")
				_, f := h.raisedAt(CodePFCStorm, "leaf2 Ethernet1 priority 3")
				wantIn(t, f, "paused 100% of the last 10s (the queue sent nothing while 3,000 pause frames arrived)")
			},
		},
		{
			name: "storm estimated from the pause-frame rate alone", rounds: 4,
			setup: func(s *sim) {
				d := s.dev("spine1")
				for i := range d.ports {
					for p := range NumPriorities {
						d.ports[i].Prio[p].Has = PrioSetOf(PauseRx, PauseTx)
					}
				}
			},
			step: func(s *sim, r int) { s.pause("spine1", "Ethernet2", 3, 0.9, el) },
			check: func(t *testing.T, h *history) {
				wantOnly(t, h, "pfc_storm spine1 Ethernet2 priority 3")
				_, f := h.raisedAt(CodePFCStorm, "spine1 Ethernet2 priority 3")
				wantIn(t, f, "estimated from 21,458 pause frames/s")
			},
		},
		{
			name: "NIC pause-storm guard", rounds: 3,
			step: func(s *sim, r int) {
				if r == 2 {
					s.addPort("gpu2", "ens1f0np0", StormWarnings, 3)
					s.addPort("gpu2", "ens1f0np0", StormErrors, 1)
				}
			},
			check: func(t *testing.T, h *history) {
				wantOnly(t, h, "pfc_storm gpu2 ens1f0np0")
				_, f := h.raisedAt(CodePFCStorm, "gpu2 ens1f0np0")
				wantIn(t, f, "stopped its pause frames 1 time(s) after a long stall (3 warning(s))", "it pauses leaf1 Ethernet2")
				if f.Subject.Priority != NoPriority {
					t.Errorf("subject %v", f.Subject)
				}
			},
		},
		{
			name: "a storm that dips to 60 % stays one finding (hysteresis)", rounds: 20,
			step: func(s *sim, r int) {
				switch {
				case r <= 4, r == 8, r == 9:
					s.pause("leaf1", "Ethernet1", 3, 0.95, el)
				case r <= 7:
					s.pause("leaf1", "Ethernet1", 3, 0.6, el)
				}
			},
			check: func(t *testing.T, h *history) {
				wantOnly(t, h, "pfc_storm leaf1 Ethernet1 priority 3")
				c, f := h.clearedAt(CodePFCStorm, "leaf1 Ethernet1 priority 3")
				if c != 15 || f.Rounds != 9 {
					t.Errorf("cleared in round %d after %d rounds, want 15 and 9", c, f.Rounds)
				}
			},
		},
		{
			name: "60 % never starts a storm; a storm that ends and comes back after the clear time is a new finding", rounds: 30,
			step: func(s *sim, r int) {
				switch {
				case r <= 5:
					s.pause("leaf1", "Ethernet1", 3, 0.6, el)
				case r >= 6 && r <= 9, r >= 20 && r <= 23:
					s.pause("leaf1", "Ethernet1", 3, 0.9, el)
				}
			},
			check: func(t *testing.T, h *history) {
				var rounds []int
				for r, fs := range h.raised {
					for range fs {
						rounds = append(rounds, r)
					}
				}
				slices.Sort(rounds)
				if !slices.Equal(rounds, []int{8, 22}) {
					t.Errorf("raised in rounds %v, want [8 22]", rounds)
				}
			},
		},
		{
			name: "drop on the lossless priority", rounds: 3,
			step: func(s *sim, r int) {
				s.add("leaf1", "Ethernet49", 0, Drops, 500) // lossy: not a finding
				if r == 2 {
					s.add("leaf1", "Ethernet2", 3, PGDrops, 3)
				}
			},
			check: func(t *testing.T, h *history) {
				wantOnly(t, h, "lossless_drop leaf1 Ethernet2 priority 3")
				r, f := h.raisedAt(CodeLosslessDrop, "leaf1 Ethernet2 priority 3")
				if r != 2 {
					t.Errorf("raised in round %d", r)
				}
				wantIn(t, f, "leaf1 Ethernet2 dropped 3 packets on lossless priority 3 in 10s (egress queue 0, ingress priority group 3)")
				wantEvidence(t, f, "drops_total", 3)
			},
		},
		{
			name: "NIC receive discards on the lossless priority", rounds: 2,
			step: func(s *sim, r int) { s.add("gpu3", "ens1f0np0", 3, Drops, 40) },
			check: func(t *testing.T, h *history) {
				wantOnly(t, h, "lossless_drop gpu3 ens1f0np0 priority 3")
				_, f := h.raisedAt(CodeLosslessDrop, "gpu3 ens1f0np0 priority 3")
				wantIn(t, f, "receive discards 40, host buffer discards 0")
			},
		},
		{
			name: "CNP queue drops", rounds: 2,
			step: func(s *sim, r int) { s.add("spine1", "Ethernet1", 6, Drops, 25) },
			check: func(t *testing.T, h *history) {
				wantOnly(t, h, "cnp_drop spine1 Ethernet1 priority 6")
				_, f := h.raisedAt(CodeCNPDrop, "spine1 Ethernet1 priority 6")
				wantIn(t, f, "dropped 25 packets on CNP priority 6 in 10s")
				if f.Severity != SeverityWarning {
					t.Errorf("severity %s", f.Severity)
				}
			},
		},
		{
			name: "CE marks without CNPs: notification point off", rounds: 4,
			step: func(s *sim, r int) {
				pc := s.port("gpu3", "ens1f0np0")
				pc.Port.V[CNPSent] -= 300 // healthy() added them
				s.addPort("gpu3", "ens1f0np0", CEReceived, 18_000)
			},
			check: func(t *testing.T, h *history) {
				wantOnly(t, h, "ecn_without_cnp gpu3 ens1f0np0")
				r, f := h.raisedAt(CodeECNWithoutCNP, "gpu3 ens1f0np0")
				if r != 2 {
					t.Errorf("raised in round %d, want 2 (20 s)", r)
				}
				wantIn(t, f, "received 20,000 CE-marked RoCE packets in 10s (leaf2 Ethernet1 marked 700 packets on its RoCE queue in its last 10s) "+
					"and sent no CNPs", "notification point is off")
				wantEvidence(t, f, "switch_ecn_marked", 700)
			},
		},
		{
			name: "CE marks without CNPs are judged per NIC: few marks, or any CNP, is no finding", rounds: 4,
			step: func(s *sim, r int) {
				s.port("gpu3", "ens1f0np0").Port.V[CNPSent] -= 300 // gpu3: 2,000 CE and no CNP
				s.port("gpu2", "ens1f0np0").Port.V[CNPSent] -= 299 // gpu2: 2,000 CE and one CNP
				s.port("gpu1", "ens1f0np0").Port.V[CEReceived] -= 1_500
				s.port("gpu1", "ens1f0np0").Port.V[CNPSent] -= 300 // gpu1: 500 CE (under 1,000) and no CNP
			},
			check: func(t *testing.T, h *history) { wantOnly(t, h, "ecn_without_cnp gpu3 ens1f0np0") },
		},
		{
			name: "CNPs ignored: reaction point off", rounds: 3,
			step: func(s *sim, r int) {
				s.port("gpu2", "ens1f0np0").Port.V[CNPHandled] -= 300
				s.addPort("gpu2", "ens1f0np0", CNPIgnored, 2_400)
				s.addPort("gpu1", "ens1f0np0", CNPIgnored, 60) // a few: silent
			},
			check: func(t *testing.T, h *history) {
				wantOnly(t, h, "cnp_ignored gpu2 ens1f0np0")
				_, f := h.raisedAt(CodeCNPIgnored, "gpu2 ens1f0np0")
				wantIn(t, f, "ignored 2,400 of the 2,400 CNPs it received in 10s", "reaction point is off (priority 3)")
			},
		},
		{
			name: "RoCE sent on a lossy priority", rounds: 3,
			step: func(s *sim, r int) {
				pc := s.port("gpu1", "ens1f0np0")
				pc.Prio[3].V[TxPackets] -= 1_000_000
				s.add("gpu1", "ens1f0np0", 0, TxPackets, 1_000_000)
			},
			check: func(t *testing.T, h *history) {
				wantOnly(t, h, "wrong_queue gpu1 ens1f0np0")
				_, f := h.raisedAt(CodeWrongQueue, "gpu1 ens1f0np0")
				wantIn(t, f, "sent 1,000,000 RoCE packets in 10s but only 0 on priority 3, the RoCE priority; priority 0 (lossy) carried 1,050,000")
			},
		},
		{
			name: "switch classifies RoCE to a lossy queue", rounds: 3,
			step: func(s *sim, r int) {
				pc := s.port("leaf1", "Ethernet2")
				pc.Prio[3].V[TxPackets] -= 1_000_000
				s.add("leaf1", "Ethernet2", 1, TxPackets, 1_000_000)
			},
			check: func(t *testing.T, h *history) {
				wantOnly(t, h, "wrong_queue leaf1 Ethernet2")
				_, f := h.raisedAt(CodeWrongQueue, "leaf1 Ethernet2")
				wantIn(t, f, "leaf1 Ethernet2 counted 0 packets on queue 3, the RoCE queue, while gpu2 ens1f0np0 received 1,000,000 RoCE packets",
					"queue 1 (lossy) carried 1,000,000")
			},
		},
		{
			name: "RoCE arrives on a lossy priority where the switch counts no queues", rounds: 3,
			setup: func(s *sim) {
				d := s.dev("leaf2")
				for i := range d.ports {
					for p := range NumPriorities {
						d.ports[i].Prio[p].Has &^= PrioSetOf(TxPackets)
					}
				}
			},
			step: func(s *sim, r int) {
				pc := s.port("gpu3", "ens1f0np0")
				pc.Prio[3].V[RxPackets] -= 1_000_000
				s.add("gpu3", "ens1f0np0", 0, RxPackets, 1_000_000)
			},
			check: func(t *testing.T, h *history) {
				wantOnly(t, h, "wrong_queue gpu3 ens1f0np0")
				_, f := h.raisedAt(CodeWrongQueue, "gpu3 ens1f0np0")
				wantIn(t, f, "received 1,000,000 RoCE packets in 10s but only 0 on priority 3", "leaf2 Ethernet1 classifies it differently")
			},
		},
		{
			name: "retransmissions growing", rounds: 4,
			step: func(s *sim, r int) {
				s.addPort("gpu1", "ens1f0np0", OutOfSequence, 50)
				s.addPort("gpu1", "ens1f0np0", LocalAckTimeout, 2)
				if r == 1 || r == 2 {
					s.addPort("gpu2", "ens1f0np0", PacketSeqErr, 3) // a burst across two samples: not growing
				}
			},
			check: func(t *testing.T, h *history) {
				wantOnly(t, h, "retransmits gpu1 ens1f0np0")
				r, f := h.raisedAt(CodeRetransmits, "gpu1 ens1f0np0")
				if r != 3 {
					t.Errorf("raised in round %d, want 3 (30 s)", r)
				}
				wantIn(t, f, "out_of_sequence +50, packet_seq_err +0, local_ack_timeout_err +2 in the last 10s")
				wantEvidence(t, f, "retransmit_events_total", 156)
			},
		},
		{
			name: "pause spreading three hops from a host", rounds: 5,
			step: func(s *sim, r int) {
				s.pause("leaf2", "Ethernet1", 3, 0.5, el)  // gpu3 pauses leaf2
				s.pause("spine1", "Ethernet2", 3, 0.4, el) // leaf2 pauses spine1
				s.pause("leaf1", "Ethernet49", 3, 0.3, el) // spine1 pauses leaf1
				s.pause("gpu2", "ens1f0np0", 3, 0.25, el)  // leaf1 pauses gpu2
			},
			check: func(t *testing.T, h *history) {
				wantOnly(t, h, "pause_propagation gpu3 priority 3")
				r, f := h.raisedAt(CodePausePropagation, "gpu3 priority 3")
				if r != 3 {
					t.Errorf("raised in round %d", r)
				}
				wantIn(t, f, "pause on priority 3 spreads 4 hops upstream from gpu3 ens1f0np0: gpu3 ens1f0np0 → leaf2 Ethernet1 (paused 50%) → "+
					"spine1 Ethernet2 (paused 40%) → leaf1 Ethernet49 (paused 30%) → gpu2 ens1f0np0 (paused 25%)", "gpu3 is a host")
				wantEvidence(t, f, "hops", 4)
				wantEvidence(t, f, "paused_ports", 4)
				if f.Severity != SeverityError || len(f.Related) != 4 || f.Related[0].String() != "leaf2 Ethernet1 priority 3" {
					t.Errorf("severity %s related %v", f.Severity, f.Related)
				}
			},
		},
		{
			// The switches' readings carry their own sample times, two
			// intervals before they arrived; the hosts' are stamped on
			// arrival. Which pauses are current is judged by arrival, so
			// the spread is the same as above.
			name: "pause spreading from a host, switches stamped by their own clocks", rounds: 5,
			setup: func(s *sim) {
				for _, d := range s.devs {
					if !d.host {
						d.lag = 2 * el
					}
				}
			},
			step: func(s *sim, r int) {
				s.pause("leaf2", "Ethernet1", 3, 0.5, el)
				s.pause("spine1", "Ethernet2", 3, 0.4, el)
				s.pause("leaf1", "Ethernet49", 3, 0.3, el)
				s.pause("gpu2", "ens1f0np0", 3, 0.25, el)
			},
			check: func(t *testing.T, h *history) {
				wantOnly(t, h, "pause_propagation gpu3 priority 3")
				_, f := h.raisedAt(CodePausePropagation, "gpu3 priority 3")
				wantEvidence(t, f, "hops", 4)
			},
		},
		{
			// Guo et al., SIGCOMM 2016: a NIC whose receive path stalls pauses
			// its ToR without end; the ToR pauses the spine, the spine the
			// other ToRs, they their hosts. leaf2's watchdog trips and drops
			// the stormed queue.
			name: "a stalled NIC: the storm, its spread and the watchdog's drops", rounds: 6,
			step: func(s *sim, r int) {
				s.pause("leaf2", "Ethernet1", 3, 1, el)
				s.pause("spine1", "Ethernet2", 3, 0.7, el)
				s.pause("leaf1", "Ethernet49", 3, 0.55, el)
				s.pause("gpu1", "ens1f0np0", 3, 0.3, el)
				s.pause("gpu2", "ens1f0np0", 3, 0.3, el)
				if r == 2 {
					s.add("leaf2", "Ethernet1", 3, WatchdogStorms, 1)
				}
				if r >= 2 {
					s.add("leaf2", "Ethernet1", 3, Drops, 40_000)
				}
			},
			check: func(t *testing.T, h *history) {
				wantOnly(t, h, "pfc_storm leaf2 Ethernet1 priority 3", "pause_propagation gpu3 priority 3", "lossless_drop leaf2 Ethernet1 priority 3")
				if r, _ := h.raisedAt(CodePFCStorm, "leaf2 Ethernet1 priority 3"); r != 2 {
					t.Errorf("storm raised in round %d, want 2 (the watchdog trip)", r)
				}
				_, f := h.raisedAt(CodePausePropagation, "gpu3 priority 3")
				wantIn(t, f, "spreads 4 hops upstream from gpu3 ens1f0np0", "5 ports paused in all, the most 100%")
				_, f = h.raisedAt(CodeLosslessDrop, "leaf2 Ethernet1 priority 3")
				wantIn(t, f, "dropped 40,000 packets", "while the PFC watchdog was dropping the stormed queue")
			},
		},
		{
			name: "a storming host paused back by its leaf is still the source", rounds: 5,
			step: func(s *sim, r int) {
				s.pause("leaf2", "Ethernet1", 3, 0.6, el)  // gpu3 pauses leaf2
				s.pause("gpu3", "ens1f0np0", 3, 0.3, el)   // leaf2 pauses gpu3 too
				s.pause("spine1", "Ethernet2", 3, 0.4, el) // and spine1
				s.pause("leaf1", "Ethernet49", 3, 0.3, el)
			},
			check: func(t *testing.T, h *history) {
				wantOnly(t, h, "pause_propagation gpu3 priority 3")
				_, f := h.raisedAt(CodePausePropagation, "gpu3 priority 3")
				wantIn(t, f, "spreads 3 hops upstream from gpu3 ens1f0np0", "4 ports paused in all")
			},
		},
		{
			name: "one paused hop is no spread", rounds: 5,
			step:  func(s *sim, r int) { s.pause("leaf2", "Ethernet1", 3, 0.6, el) },
			check: func(t *testing.T, h *history) { wantOnly(t, h) },
		},
		{
			name: "congestion spreading from a switch", rounds: 5,
			step: func(s *sim, r int) {
				s.pause("spine1", "Ethernet2", 3, 0.4, el)
				s.pause("leaf1", "Ethernet49", 3, 0.3, el)
			},
			check: func(t *testing.T, h *history) {
				wantOnly(t, h, "pause_propagation leaf2 priority 3")
				_, f := h.raisedAt(CodePausePropagation, "leaf2 priority 3")
				wantIn(t, f, "spreads 2 hops upstream from leaf2 Ethernet49", "leaf2 is not paused itself")
				if f.Severity != SeverityWarning {
					t.Errorf("severity %s", f.Severity)
				}
			},
		},
		{
			name: "pause in a loop, every hop stuck: a deadlock", rounds: 4,
			step: func(s *sim, r int) {
				s.pause("leaf1", "Ethernet49", 3, 0.9, el)
				s.pause("spine1", "Ethernet1", 3, 0.9, el)
			},
			check: func(t *testing.T, h *history) {
				// Each hop is a storm as well.
				wantOnly(t, h, "pause_propagation leaf1 priority 3", "pfc_storm leaf1 Ethernet49 priority 3", "pfc_storm spine1 Ethernet1 priority 3")
				_, f := h.raisedAt(CodePausePropagation, "leaf1 priority 3")
				wantIn(t, f, "goes round in a loop with no source", "leaf1 Ethernet49 (paused 90% by spine1 Ethernet1)", "that is a PFC deadlock")
				if f.Severity != SeverityError {
					t.Errorf("severity %s", f.Severity)
				}
			},
		},
		{
			name: "pause in a loop, not stuck: congested switches pausing each other", rounds: 4,
			step: func(s *sim, r int) {
				s.pause("leaf1", "Ethernet49", 3, 0.6, el)
				s.pause("spine1", "Ethernet1", 3, 0.4, el)
			},
			check: func(t *testing.T, h *history) {
				wantOnly(t, h, "pause_propagation leaf1 priority 3")
				_, f := h.raisedAt(CodePausePropagation, "leaf1 priority 3")
				wantIn(t, f, "goes round in a loop with no source", "several congested switches pause each other")
				if f.Severity != SeverityWarning {
					t.Errorf("severity %s", f.Severity)
				}
			},
		},
	}
	for _, sc := range tests {
		t.Run(sc.name, func(t *testing.T) { sc.check(t, run(t, sc, cfg)) })
	}
}

func TestStormAcrossAGapRestartsTheCount(t *testing.T) {
	topo := unitTopology(t)
	s := newSim(t, topo)
	s.reports(allPrio, 0, sws...)
	s.reports(allPrio, allPort, hosts...)
	det, err := New(topo, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	det.Observe(s.round(0))
	var raisedAt []time.Duration
	step := func(dt time.Duration) {
		s.pause("leaf1", "Ethernet1", 3, 0.95, dt)
		rep := det.Observe(s.round(dt))
		for range rep.Raised {
			raisedAt = append(raisedAt, s.now.Sub(t0))
		}
	}
	step(el)
	step(el)
	step(time.Minute) // leaf1 unread for a minute: the average is a storm, but no proof it lasted
	step(el)
	step(el)
	if len(raisedAt) != 0 {
		t.Fatalf("raised at %v, before 30 s after the gap", raisedAt)
	}
	step(el)
	if !slices.Equal(raisedAt, []time.Duration{110 * time.Second}) {
		t.Fatalf("raised at %v, want [1m50s]", raisedAt)
	}
}

func TestFindingHoldsWhileItsDeviceIsNotRead(t *testing.T) {
	topo := unitTopology(t)
	s := newSim(t, topo)
	s.reports(allPrio, allPort, append(slices.Clone(sws), hosts...)...)
	det, _ := New(topo, DefaultConfig())
	det.Observe(s.round(0))
	s.add("leaf1", "Ethernet2", 3, Drops, 1)
	if rep := det.Observe(s.round(el)); len(rep.Raised) != 1 {
		t.Fatalf("raised %v", rep.Raised)
	}
	for i := range 100 { // leaf1 unreachable for 1000 s: the finding stays
		s.dev("leaf1").skip = true
		if rep := det.Observe(s.round(el)); len(rep.Cleared) != 0 || len(rep.Active) != 1 {
			t.Fatalf("round %d: cleared %v active %v", i, rep.Cleared, rep.Active)
		}
	}
	// Back, and quiet: the long interval counts as quiet, so it clears.
	rep := det.Observe(s.round(el))
	if len(rep.Cleared) != 1 || !rep.Readings[0].Gap {
		t.Fatalf("cleared %v, readings %+v", rep.Cleared, rep.Readings[0])
	}
}

// TestCountersResetAndWrapMidStorm: a clear of every counter and a 32-bit
// wrap of the pause-time counter neither break a storm nor make one.
func TestCountersResetAndWrapMidStorm(t *testing.T) {
	topo := unitTopology(t)
	s := newSim(t, topo)
	s.reports(allPrio, allPort, append(slices.Clone(sws), hosts...)...)
	s.dev("leaf2").narrow = Widths{Prio: PrioSetOf(PauseRxMicros, PauseRx)}
	s.port("leaf2", "Ethernet1").Prio[3].V[PauseRxMicros] = 1<<32 - 15_000_000 // wraps in the second storm interval
	det, _ := New(topo, DefaultConfig())
	det.Observe(s.round(0))
	var log []string
	for r := 1; r <= 8; r++ {
		healthy(s)
		s.pause("leaf2", "Ethernet1", 3, 0.97, el)
		if r == 4 { // clear counters on leaf1 while gpu1's port is quiet
			for i := range s.dev("leaf1").ports {
				pc := &s.dev("leaf1").ports[i]
				for p := range NumPriorities {
					pc.Prio[p].V = [NumPrioMetrics]uint64{}
				}
			}
			healthy(s)
		}
		rep := det.Observe(s.round(el))
		for _, f := range rep.Raised {
			log = append(log, fmt.Sprintf("%d %s %s", r, f.Code, f.Subject))
		}
		for _, rs := range rep.Readings {
			if rs.Device == "leaf1" && r == 4 && rs.Resets == 0 {
				t.Errorf("the clear was not seen as resets: %+v", rs)
			}
			if rs.Device == "leaf2" && r == 2 && rs.Wraps != 1 {
				t.Errorf("the wrap was not seen: %+v", rs)
			}
		}
	}
	if !slices.Equal(log, []string{"3 pfc_storm leaf2 Ethernet1 priority 3"}) {
		t.Fatalf("raised %q", log)
	}
}

// TestWatchdogCounterJump: a PFC watchdog counter that moves faster than
// a watchdog can count is a counter glitch, not 40 storms, unless the
// queue's pause counters show it held paused in the same interval; a
// reset is not a storm, the trips counted after it are.
func TestWatchdogCounterJump(t *testing.T) {
	type step struct {
		dt     time.Duration
		storms uint64  // watchdog counter growth
		set    bool    // the counter goes back to storms (a reset)
		paused float64 // share of dt the queue was paused
	}
	for _, tc := range []struct {
		name        string
		steps       []step
		raisedAt    int // round, 0 none
		implausible int // round whose reading must count it
		evidence    map[string]float64
		msg         []string
	}{
		{name: "40 in 20 ms on a quiet queue is a glitch",
			steps:       []step{{dt: 20 * time.Millisecond, storms: 40, paused: 0.01}, {dt: el, paused: 0.01}, {dt: el, paused: 0.3}},
			implausible: 1},
		{name: "a glitch does not hide a real trip after it",
			steps:       []step{{dt: 20 * time.Millisecond, storms: 40, paused: 0.01}, {dt: el, paused: 0.01}, {dt: el, storms: 1, paused: 0.3}},
			implausible: 1, raisedAt: 3, evidence: map[string]float64{"watchdog_storms": 1}},
		{name: "40 in 20 ms on a held queue is a storm",
			steps:       []step{{dt: el, paused: 0.01}, {dt: 20 * time.Millisecond, storms: 40, paused: 0.9}},
			implausible: 2, raisedAt: 2,
			evidence: map[string]float64{"watchdog_storms": 1, "watchdog_counter_jump": 40, "paused_fraction": 0.9},
			msg:      []string{"jumped by 40 in 20ms", "more than a watchdog can count", "paused 90%", "at least one storm"}},
		{name: "pause under the storm's clear share does not vouch for a jump",
			steps:       []step{{dt: 20 * time.Millisecond, storms: 40, paused: 0.45}},
			implausible: 1},
		{name: "a reset to zero is not a storm",
			steps: []step{{dt: el, storms: 7}, {dt: el, set: true, storms: 0, paused: 0.01}, {dt: el, paused: 0.01}},
			// 7 plausible trips in the first interval raise at once.
			raisedAt: 1, evidence: map[string]float64{"watchdog_storms": 7}},
		{name: "trips counted since a reset are storms",
			steps:    []step{{dt: el, set: true, storms: 0}, {dt: el, set: true, storms: 2, paused: 0.2}},
			raisedAt: 2, evidence: map[string]float64{"watchdog_storms": 2}},
		{name: "a reset to a value it cannot have counted since is a glitch",
			steps:       []step{{dt: el, paused: 0.01}, {dt: 20 * time.Millisecond, set: true, storms: 300, paused: 0.01}, {dt: el, paused: 0.01}},
			implausible: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			topo := unitTopology(t)
			s := newSim(t, topo)
			s.reports(allPrio, allPort, append(slices.Clone(sws), hosts...)...)
			s.port("leaf2", "Ethernet1").Prio[3].V[WatchdogStorms] = 1_000_000 // a switch up for years
			det, err := New(topo, DefaultConfig())
			if err != nil {
				t.Fatal(err)
			}
			det.Observe(s.round(0))
			raised := 0
			var f Finding
			for i, st := range tc.steps {
				r := i + 1
				pc := s.port("leaf2", "Ethernet1")
				if st.set {
					pc.Prio[3].V[WatchdogStorms] = st.storms
				} else {
					s.add("leaf2", "Ethernet1", 3, WatchdogStorms, st.storms)
				}
				s.pause("leaf2", "Ethernet1", 3, st.paused, st.dt)
				rep := det.Observe(s.round(st.dt))
				for _, x := range rep.Raised {
					if raised != 0 || x.Code != CodePFCStorm || x.Subject != (Subject{Device: "leaf2", Port: "Ethernet1", Priority: 3}) {
						t.Fatalf("round %d raised %s (already at %d)", r, x, raised)
					}
					raised, f = r, x
				}
				for _, rs := range rep.Readings {
					if rs.Device == "leaf2" && (rs.Implausible > 0) != (r == tc.implausible) {
						t.Errorf("round %d: leaf2 reading %+v, implausible expected in round %d", r, rs, tc.implausible)
					}
				}
			}
			if raised != tc.raisedAt {
				t.Fatalf("raised in round %d, want %d", raised, tc.raisedAt)
			}
			for name, v := range tc.evidence {
				wantEvidence(t, f, name, v)
			}
			wantIn(t, f, tc.msg...)
		})
	}
}

// TestSpreadAcrossDevicesReadOutOfStep: devices are not read in
// lockstep, so a round may lack a hop's device; its last pause is carried
// for up to an interval and a half, and a spread held that long is still
// one spread. A device unread for longer is not known to be paused, nor
// known to have stopped: the spread pending is left as it is until a read
// shows one of its ports no longer paused, and spine1's counters, read
// again, tell what it did meanwhile.
func TestSpreadAcrossDevicesReadOutOfStep(t *testing.T) {
	for _, tc := range []struct {
		name     string
		skip     func(r int) bool // spine1 unread in round r
		calm     func(r int) bool // gpu3 stops pausing leaf2 in round r
		raisedAt int
	}{
		{"every device every round", func(int) bool { return false }, nil, 3},
		{"spine1 misses every other round", func(r int) bool { return r%2 == 0 }, nil, 3},
		// Read once, then not again: its pause is carried one round, then
		// not known, so the spread is never seen held for 30 s.
		{"spine1 read once", func(r int) bool { return r >= 2 }, nil, 0},
		// Unread for two rounds mid-hold, then read paused all along: the
		// hold went on; it is raised as spine1 is read again.
		{"spine1 unread two rounds mid-hold", func(r int) bool { return r == 2 || r == 3 }, nil, 4},
		// While spine1 is unread, leaf2 is read unpaused: the spread ended
		// there, and the hold starts again after it, from the end of
		// leaf2's calm interval (round 3), not from the start of spine1's
		// long one (round 1).
		{"leaf2 read calm while spine1 unread", func(r int) bool { return r == 2 || r == 3 }, func(r int) bool { return r == 3 }, 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := run(t, scenario{rounds: 9, step: func(s *sim, r int) {
				if tc.calm == nil || !tc.calm(r) {
					s.pause("leaf2", "Ethernet1", 3, 0.5, el) // gpu3 pauses leaf2
				}
				s.pause("spine1", "Ethernet2", 3, 0.4, el) // leaf2 pauses spine1
				if tc.skip(r) {
					s.dev("spine1").skip = true
				}
			}}, DefaultConfig())
			r, _ := h.raisedAt(CodePausePropagation, "gpu3 priority 3")
			if r != tc.raisedAt {
				t.Fatalf("raised in round %d, want %d; all %q", r, tc.raisedAt, h.codes())
			}
			if tc.raisedAt != 0 {
				wantOnly(t, h, "pause_propagation gpu3 priority 3")
			}
		})
	}
}

// TestPortStampedApartFromItsReading: a port sampled at its own moment
// (gNMI samples each subscription on its own timer) gets its rates over
// its own interval, not the reading's. leaf2 Ethernet1 is paused half the
// time, sampled 3 s before its reading in round 1 and with it in round 2.
func TestPortStampedApartFromItsReading(t *testing.T) {
	for _, tc := range []struct {
		name     string
		stamped  bool
		fraction [2]float64
	}{
		{"port stamped", true, [2]float64{0.5, 0.5}},
		// The same counters taken at the reading's moment: 3.5 s of pause
		// in 10 s, then 6.5 s in 10 s.
		{"port not stamped", false, [2]float64{0.35, 0.65}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			topo := unitTopology(t)
			s := newSim(t, topo)
			s.reports(allPrio, 0, "leaf2")
			det, err := New(topo, DefaultConfig())
			if err != nil {
				t.Fatal(err)
			}
			det.Observe(s.round(0))
			for i, lag := range []time.Duration{3 * time.Second, 0} {
				port := s.port("leaf2", "Ethernet1")
				stamp := s.now.Add(el - lag)
				prev := t0
				if i > 0 {
					prev = s.now.Add(-3 * time.Second)
				}
				s.pause("leaf2", "Ethernet1", 3, 0.5, stamp.Sub(prev))
				if tc.stamped {
					port.Taken = stamp
				}
				det.Observe(s.round(el))
				ek := edgeKey{ref{topo.byName["leaf2"], topo.devs[topo.byName["leaf2"]].byPort["Ethernet1"]}, 3}
				if got := det.paused[ek].frac; math.Abs(got-tc.fraction[i]) > 1e-6 {
					t.Errorf("round %d: paused %.4f, want %.4f", i+1, got, tc.fraction[i])
				}
			}
		})
	}
}
