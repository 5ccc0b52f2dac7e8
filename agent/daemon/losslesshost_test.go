package daemon

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rocefab/rocefab/agent/daemon/history"
	"github.com/rocefab/rocefab/agent/daemon/notify"
	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
	"github.com/rocefab/rocefab/validators/doctor/counters"
	"github.com/rocefab/rocefab/validators/doctor/rdmasys"
	"github.com/rocefab/rocefab/validators/doctor/sysfstest"
	"github.com/rocefab/rocefab/validators/telemetry"
)

// hostNIC plays a ConnectX port of the host the agent runs on: its RDMA
// hw_counters in a fake sysfs tree, read by the agent's own host source
// (rdmasys), and its ethtool statistics. Each counter grows at its rate
// from the moment the rate is set, as gnmisim's Rate does.
type hostNIC struct {
	mu    sync.Mutex
	tree  *sysfstest.Tree
	base  map[string]float64
	rates map[string]nicRate
}

type nicRate struct {
	perSec float64
	since  time.Time
}

func newHostNIC(t *testing.T) *hostNIC {
	tr := sysfstest.New(t)
	tr.AddNIC(sysfstest.ConnectX("mlx5_0", "ens1f0np0", "192.0.2.101"))
	return &hostNIC{tree: tr, base: map[string]float64{}, rates: map[string]nicRate{}}
}

// source is what the agent reads: the production host source over the
// fake tree and these ethtool statistics.
func (n *hostNIC) source() counters.Source {
	return &hostNICSource{n: n, src: counters.HostSource{Host: "gpu01", Sys: rdmasys.New(n.tree.Root),
		Ports: []counters.HostPort{{Device: "mlx5_0", Port: 1, Netdev: "ens1f0np0"}}, Stats: n}}
}

// Rate sets a counter's growth a second: "hw_counters/np_cnp_sent" or
// "ethtool/tx_prio0_packets".
func (n *hostNIC) Rate(name string, perSec float64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	now := time.Now()
	n.base[name] = n.value(name, now)
	n.rates[name] = nicRate{perSec: perSec, since: now}
}

func (n *hostNIC) value(name string, now time.Time) float64 {
	v := n.base[name]
	if r, ok := n.rates[name]; ok {
		v += r.perSec * now.Sub(r.since).Seconds()
	}
	return v
}

// Stats is the ethtool side (ETHTOOL_GSTATS).
func (n *hostNIC) Stats(netdev string) (map[string]uint64, error) {
	if netdev != "ens1f0np0" {
		return nil, fmt.Errorf("no netdev %s", netdev)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	now := time.Now()
	out := map[string]uint64{}
	for name := range n.rates {
		if s, ok := strings.CutPrefix(name, counters.PrefixEthtool); ok {
			out[s] = uint64(n.value(name, now))
		}
	}
	return out, nil
}

// Set puts a counter at v, its rate going on from there (a driver
// reload clears them all).
func (n *hostNIC) Set(name string, v float64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	r := n.rates[name]
	r.since = time.Now()
	n.rates[name], n.base[name] = r, v
}

// sync writes the hw_counters as the NIC would have them now.
func (n *hostNIC) sync() {
	n.mu.Lock()
	defer n.mu.Unlock()
	now := time.Now()
	for name := range n.rates {
		if s, ok := strings.CutPrefix(name, counters.PrefixHW); ok {
			n.tree.SetCounter("mlx5_0", 1, "hw_counters/"+s, uint64(n.value(name, now)))
		}
	}
}

type hostNICSource struct {
	n   *hostNIC
	src counters.HostSource
}

func (s *hostNICSource) Name() string { return s.src.Name() }

func (s *hostNICSource) Read(ctx context.Context) ([]counters.Sample, error) {
	s.n.sync()
	return s.src.Read(ctx)
}

// hostFabric is the fixture's fabric with gpu01 (the host the agent runs
// on) cabled to leaf1 Ethernet1, and leaf1 Ethernet2 to leaf2 Ethernet2.
func hostFabric(f *fixture) string {
	return f.intent("150KB", "9216") + `  hosts:
    - name: gpu01
      address: 192.0.2.101
      nics:
        - {netdev: ens1f0np0, rdmaDevice: mlx5_0, address: 192.0.2.101}
  links:
    - {a: gpu01:ens1f0np0, b: leaf1:Ethernet1, length: 3m}
    - {a: leaf1:Ethernet2, b: leaf2:Ethernet2, length: 3m}
`
}

// healthyNIC: RoCE both ways on priority 3, a little TCP on 0, CE marks
// answered with CNPs and the CNPs received acted on, no retransmission.
func healthyNIC(n *hostNIC) {
	for name, v := range map[string]float64{
		"ethtool/tx_vport_rdma_unicast_packets": 1_000_000, "ethtool/rx_vport_rdma_unicast_packets": 1_000_000,
		"ethtool/tx_prio3_packets": 1_000_000, "ethtool/rx_prio3_packets": 1_000_000,
		"ethtool/tx_prio0_packets": 10_000, "ethtool/rx_prio0_packets": 10_000,
		"hw_counters/np_ecn_marked_roce_packets": 200_000, "hw_counters/np_cnp_sent": 20_000,
		"hw_counters/rp_cnp_handled": 20_000, "hw_counters/rp_cnp_ignored": 0,
		"hw_counters/out_of_sequence": 0, "hw_counters/packet_seq_err": 0, "hw_counters/local_ack_timeout_err": 0,
	} {
		n.Rate(name, v)
	}
}

// TestEveryLosslessDetectorThroughTheAgent: each anomaly, played by the
// simulated switches (streamed by gNMI) or by the NIC of the host the
// agent runs on (read through sysfs hw_counters and ethtool statistics by
// the agent's host source), raises its own finding on its own subject,
// and nothing else, after quiet rounds on a healthy stream. The finding
// is recorded as a lossless run with its evidence and announced by a
// finding_raised webhook; once the anomaly stops it clears, recorded and
// announced by finding_cleared.
func TestEveryLosslessDetectorThroughTheAgent(t *testing.T) {
	type env struct {
		f   *fixture
		nic *hostNIC
	}
	sw := func(dev, port string, prio int) telemetry.Subject {
		return telemetry.Subject{Device: dev, Port: port, Priority: prio}
	}
	nicSubject := telemetry.Subject{Device: "gpu01", Port: "ens1f0np0", Priority: telemetry.NoPriority}
	for _, tc := range []struct {
		name     string
		start    func(e env)
		stop     func(e env) // nil: a one-off the counters do not repeat
		code     telemetry.Code
		subject  telemetry.Subject
		severity string // webhook severity
		evidence map[string]func(float64) bool
		msg      []string
		related  []telemetry.Subject
	}{
		{name: "lossless drop", code: telemetry.CodeLosslessDrop, subject: sw("leaf1", "Ethernet2", 3), severity: notify.SeverityCritical,
			start:    func(e env) { e.f.sims["leaf1"].Jump("Ethernet2", 3, gnmisim.QueueDrops, 40) },
			evidence: map[string]func(float64) bool{"drops": eq(40), "queue_drops": eq(40)},
			msg:      []string{"leaf1 Ethernet2 dropped 40 packets on lossless priority 3"}},
		{name: "cnp drop", code: telemetry.CodeCNPDrop, subject: sw("leaf1", "Ethernet2", 6), severity: notify.SeverityWarning,
			start:    func(e env) { e.f.sims["leaf1"].Jump("Ethernet2", 6, gnmisim.QueueDrops, 40) },
			evidence: map[string]func(float64) bool{"drops": eq(40)},
			msg:      []string{"dropped 40 packets on CNP priority 6"}},
		{name: "watchdog storm", code: telemetry.CodePFCStorm, subject: sw("leaf1", "Ethernet2", 3), severity: notify.SeverityCritical,
			start:    func(e env) { e.f.sims["leaf1"].Jump("Ethernet2", 3, gnmisim.WatchdogStorms, 2) },
			evidence: map[string]func(float64) bool{"watchdog_storms": eq(2)},
			msg:      []string{"the PFC watchdog detected 2 storm(s)", "leaf2 Ethernet2 keeps pausing it"}},
		{name: "pause propagation", code: telemetry.CodePausePropagation, subject: sw("gpu01", "", 3), severity: notify.SeverityCritical,
			// gpu01 pauses leaf1 half the time, and leaf1, its queue to
			// gpu01 held, pauses leaf2: two hops upstream from the host.
			start: func(e env) {
				e.f.sims["leaf1"].Rate("Ethernet1", 3, gnmisim.PFCRxMicros, 500_000)
				e.f.sims["leaf2"].Rate("Ethernet2", 3, gnmisim.PFCRxMicros, 500_000)
			},
			stop: func(e env) {
				e.f.sims["leaf1"].Rate("Ethernet1", 3, gnmisim.PFCRxMicros, 0)
				e.f.sims["leaf2"].Rate("Ethernet2", 3, gnmisim.PFCRxMicros, 0)
			},
			// The most paused hop reads about half; an agent stalled
			// behind a loaded machine can see one interval's pause in
			// less time (a stamp held back by the sample clock), so up
			// to all of it. Holds keep such a reading from raising
			// anything by itself.
			evidence: map[string]func(float64) bool{"hops": eq(2), "paused_ports": eq(2), "max_paused_fraction": within(0.3, 1)},
			msg:      []string{"spreads 2 hops upstream from gpu01 ens1f0np0: gpu01 ens1f0np0 → leaf1 Ethernet1 (paused", "→ leaf2 Ethernet2 (paused", "gpu01 is a host"},
			related:  []telemetry.Subject{sw("leaf1", "Ethernet1", 3), sw("leaf2", "Ethernet2", 3)}},
		{name: "ecn without cnp", code: telemetry.CodeECNWithoutCNP, subject: nicSubject, severity: notify.SeverityCritical,
			start:    func(e env) { e.nic.Rate("hw_counters/np_cnp_sent", 0) },
			stop:     func(e env) { e.nic.Rate("hw_counters/np_cnp_sent", 20_000) },
			evidence: map[string]func(float64) bool{"ce_received": above(1000), "cnp_sent": eq(0)},
			msg:      []string{"gpu01 ens1f0np0 received", "CE-marked RoCE packets", "sent no CNPs"}},
		{name: "cnp ignored", code: telemetry.CodeCNPIgnored, subject: nicSubject, severity: notify.SeverityCritical,
			start: func(e env) {
				e.nic.Rate("hw_counters/rp_cnp_handled", 0)
				e.nic.Rate("hw_counters/rp_cnp_ignored", 50_000)
			},
			stop: func(e env) {
				e.nic.Rate("hw_counters/rp_cnp_ignored", 0)
				e.nic.Rate("hw_counters/rp_cnp_handled", 20_000)
			},
			evidence: map[string]func(float64) bool{"cnp_ignored": above(100), "cnp_handled": eq(0), "ignored_share": eq(1)},
			msg:      []string{"its DCQCN reaction point is off"}},
		{name: "wrong queue", code: telemetry.CodeWrongQueue, subject: nicSubject, severity: notify.SeverityCritical,
			// RoCE leaves on priority 0 (a ToS the DSCP map sends to the lossy class).
			start: func(e env) {
				e.nic.Rate("ethtool/tx_prio3_packets", 0)
				e.nic.Rate("ethtool/tx_prio0_packets", 1_010_000)
			},
			stop: func(e env) {
				e.nic.Rate("ethtool/tx_prio0_packets", 10_000)
				e.nic.Rate("ethtool/tx_prio3_packets", 1_000_000)
			},
			evidence: map[string]func(float64) bool{"roce_tx_packets": above(0), "roce_priority_tx_packets": eq(0),
				"landed_priority": eq(0), "landed_priority_packets": above(0)},
			msg: []string{"the host puts RoCE on the wrong queue", "priority 0 (lossy) carried"}},
		{name: "retransmits", code: telemetry.CodeRetransmits, subject: nicSubject, severity: notify.SeverityWarning,
			start:    func(e env) { e.nic.Rate("hw_counters/out_of_sequence", 300) },
			stop:     func(e env) { e.nic.Rate("hw_counters/out_of_sequence", 0) },
			evidence: map[string]func(float64) bool{"out_of_sequence": above(0), "packet_seq_err": eq(0), "local_ack_timeout_err": eq(0)},
			msg:      []string{"gpu01 ens1f0np0 is retransmitting: out_of_sequence +"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, 2, func(o *gnmisim.Options) { o.Counters.Priorities = []int{3, 6} })
			e := env{f: f, nic: newHostNIC(t)}
			c1 := f.commit("first", hostFabric(f))
			f.converge("150KB", "9216")
			healthyNIC(e.nic)
			f.sims["leaf1"].Rate("Ethernet1", 3, gnmisim.QueueTxPackets, 1_000_000)
			f.sims["leaf1"].Rate("Ethernet1", 3, gnmisim.ECNMarked, 200_000)
			cfg := f.config()
			cfg.CountersInterval = 20 * time.Millisecond
			cfg.LosslessTune = fastHolds
			deps := f.deps()
			deps.HostCounters = e.nic.source()
			a := f.start(cfg, deps)
			a.waitRun(history.KindPlan, history.TriggerCommit, c1)
			waitFor(t, "gpu01's and both switches' counters", func() bool {
				_, h := a.hub.value(counters.Key{Device: "gpu01", Port: "mlx5_0/1", Counter: "hw_counters/np_cnp_sent"})
				_, e := a.hub.value(counters.Key{Device: "gpu01", Port: "ens1f0np0", Counter: "ethtool/tx_vport_rdma_unicast_packets"})
				_, s1 := a.hub.value(counters.Key{Device: "leaf1", Port: "Ethernet2", Counter: "queue6/drops"})
				_, s2 := a.hub.value(counters.Key{Device: "leaf2", Port: "Ethernet2", Counter: "pfc3/rx-pause-us"})
				return h && e && s1 && s2
			})
			waitRounds(t, a, 25) // half a second of healthy stream
			if got := a.activeLossless(); len(got) != 0 {
				t.Fatalf("findings on the healthy stream: %v", got)
			}
			tc.start(e)
			raised := waitHook(t, f.hooks, notify.FindingRaised, tc.code)
			if tc.stop != nil {
				waitRounds(t, a, 10) // it lasts a while
				tc.stop(e)
			}
			cleared := waitHook(t, f.hooks, notify.FindingCleared, tc.code)

			for _, fc := range []notify.FindingChange{raised, cleared} {
				if fc.Device != tc.subject.Device || fc.Port != tc.subject.Port || (fc.Priority == nil) != (tc.subject.Priority == telemetry.NoPriority) ||
					(fc.Priority != nil && *fc.Priority != tc.subject.Priority) {
					t.Errorf("%s webhook about %s %s %v, want %s", fc.Event, fc.Device, fc.Port, fc.Priority, tc.subject)
				}
			}
			if raised.Severity != tc.severity || cleared.Severity != notify.SeverityInfo {
				t.Errorf("webhook severities %s, %s; want %s, info", raised.Severity, cleared.Severity, tc.severity)
			}
			for _, ev := range losslessHooks(t, f.hooks) {
				for _, fc := range ev.Findings {
					if fc.Code != string(tc.code) {
						t.Errorf("also announced: %s %s on %s %s", fc.Event, fc.Code, fc.Device, fc.Port)
					}
				}
			}
			runs := losslessRuns(t, a)
			if len(runs) != 2 || len(runs[0].Lossless) != 1 || len(runs[1].Lossless) != 1 ||
				runs[0].Lossless[0].Event != history.LosslessRaised || runs[1].Lossless[0].Event != history.LosslessCleared {
				t.Fatalf("lossless runs %+v, want one raised and one cleared", runs)
			}
			got := runs[0].Lossless[0].Finding
			if got.Code != tc.code || got.Subject != tc.subject {
				t.Fatalf("recorded %s on %s, want %s on %s", got.Code, got.Subject, tc.code, tc.subject)
			}
			for name, ok := range tc.evidence {
				if v, found := got.Value(name); !found || !ok(v) {
					t.Errorf("evidence %s = %g (%v); all %v", name, v, found, got.Evidence)
				}
			}
			for _, part := range tc.msg {
				if !strings.Contains(got.Message, part) {
					t.Errorf("message %q lacks %q", got.Message, part)
				}
			}
			if tc.related != nil && !reflect.DeepEqual(got.Related, tc.related) {
				t.Errorf("related %v, want %v", got.Related, tc.related)
			}
			if c := runs[1].Lossless[0].Finding; c.Cleared.IsZero() || c.Subject != tc.subject {
				t.Errorf("cleared finding %+v", c)
			}
			if len(a.activeLossless()) != 0 {
				t.Errorf("still active after clearing: %v", a.activeLossless())
			}
		})
	}
}

// fastHolds shortens every detector's For and Clear to a few of the
// tests' 20 ms rounds.
func fastHolds(c *telemetry.Config) {
	for _, h := range []*telemetry.Hold{&c.Storm.Hold, &c.Propagation.Hold, &c.Drops.Hold, &c.ECNWithoutCNP.Hold,
		&c.CNPIgnored.Hold, &c.WrongQueue.Hold, &c.Retransmits.Hold} {
		h.For, h.Clear = 100*time.Millisecond, 400*time.Millisecond
	}
	c.Drops.For = 0
}

// jitteredSampling makes the simulated switches sample a stream's
// subscriptions spread over spread and take each cycle up to jitter late,
// as busy switches do; seeded, the seed logged for a replay.
func jitteredSampling(t *testing.T, spread, jitter time.Duration) func(*gnmisim.Options) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("sample jitter seed %d", seed)
	return func(o *gnmisim.Options) {
		o.SampleSpread, o.SampleJitter, o.SampleSeed = spread, jitter, seed
		seed++
	}
}

// hostAgent is the agent on gpu01 reading counters every interval, with
// fast holds and pause propagation held for hold.
func hostAgent(f *fixture, nic *hostNIC, interval, hold time.Duration) (Config, Deps) {
	cfg := f.config()
	cfg.CountersInterval = interval
	cfg.LosslessTune = func(c *telemetry.Config) {
		fastHolds(c)
		c.Propagation.For = hold
	}
	deps := f.deps()
	deps.HostCounters = nic.source()
	return cfg, deps
}

func eq(want float64) func(float64) bool  { return func(v float64) bool { return v == want } }
func above(lo float64) func(float64) bool { return func(v float64) bool { return v > lo } }
func within(lo, hi float64) func(float64) bool {
	return func(v float64) bool { return v >= lo && v <= hi }
}

// waitRounds waits for n more detector rounds.
func waitRounds(t *testing.T, a *running, n int) {
	t.Helper()
	rounds := func() int { a.watch.mu.Lock(); defer a.watch.mu.Unlock(); return a.watch.rounds }
	start := rounds()
	waitFor(t, fmt.Sprintf("%d detector rounds", n), func() bool { return rounds()-start >= n })
}

// waitHook waits for a lossless webhook announcing event for code.
func waitHook(t *testing.T, h *hookSink, event string, code telemetry.Code) notify.FindingChange {
	t.Helper()
	var out notify.FindingChange
	waitFor(t, event+" "+string(code), func() bool {
		for _, ev := range losslessHooks(t, h) {
			for _, fc := range ev.Findings {
				if fc.Event == event && fc.Code == string(code) {
					out = fc
					return true
				}
			}
		}
		return false
	})
	return out
}

// TestLosslessLongHealthyRun: hundreds of agent rounds of a healthy
// fabric raise nothing: pause bursts from gpu01 spreading two hops
// (leaf1, then leaf2) at 45 % but shorter than the spread's hold, a
// 64-bit queue counter wrapping, leaf1's counters cleared and gpu01's
// NIC counters reset by a driver reload mid-run, and an agent restart.
// The same burst held past the hold is then a pause_propagation, so the
// run came near a threshold and stayed under it. The switches sample
// their subscriptions apart and late, as busy switches do.
func TestLosslessLongHealthyRun(t *testing.T) {
	f := newFixture(t, 2, func(o *gnmisim.Options) { o.Counters.Priorities = []int{3, 6} },
		jitteredSampling(t, 10*time.Millisecond, 20*time.Millisecond))
	nic := newHostNIC(t)
	c1 := f.commit("first", hostFabric(f))
	f.converge("150KB", "9216")
	healthyNIC(nic)
	leaf1, leaf2 := f.sims["leaf1"], f.sims["leaf2"]
	for _, sw := range []*gnmisim.Target{leaf1, leaf2} {
		for _, port := range []string{"Ethernet1", "Ethernet2"} {
			sw.Rate(port, 3, gnmisim.QueueTxPackets, 1_000_000)
			sw.Rate(port, 3, gnmisim.ECNMarked, 2_000)
			sw.Rate(port, 6, gnmisim.QueueTxPackets, 20_000)
			sw.SetCounter(port, 3, gnmisim.WatchdogStorms, 5) // storms long ago
			sw.SetCounter(port, 3, gnmisim.QueueDrops, 120)   // drops long ago
		}
	}
	// Rounds of 40 ms, a spread held for 30 of them: bursts last 5.
	const hold = 1200 * time.Millisecond
	cfg, deps := hostAgent(f, nic, 40*time.Millisecond, hold)
	a := f.start(cfg, deps)
	a.waitRun(history.KindPlan, history.TriggerCommit, c1)
	waitFor(t, "gpu01's and both switches' counters", func() bool {
		_, h := a.hub.value(counters.Key{Device: "gpu01", Port: "mlx5_0/1", Counter: "hw_counters/np_cnp_sent"})
		_, s2 := a.hub.value(counters.Key{Device: "leaf2", Port: "Ethernet2", Counter: "pfc3/rx-pause-us"})
		return h && s2
	})
	burst := func(on bool) {
		us, frames := 0.0, 0.0
		if on {
			us, frames = 450_000, 3_000
		}
		leaf1.Rate("Ethernet1", 3, gnmisim.PFCRxMicros, us)
		leaf1.Rate("Ethernet1", 3, gnmisim.PFCRx, frames)
		leaf2.Rate("Ethernet2", 3, gnmisim.PFCRxMicros, us)
		leaf2.Rate("Ethernet2", 3, gnmisim.PFCRx, frames)
		nic.Rate("ethtool/tx_prio3_pause", frames)
		nic.Rate("ethtool/tx_prio3_pause_duration", us)
	}
	rounds := 0
	var moves telemetry.ReadingStatus
	count := func(r *running) int { r.watch.mu.Lock(); defer r.watch.mu.Unlock(); return r.watch.rounds }
	tally := func(r *running) {
		r.watch.mu.Lock()
		defer r.watch.mu.Unlock()
		moves.Resets += r.watch.moves.Resets
		moves.Wraps += r.watch.moves.Wraps
	}
	cur := a
	base := count(cur)
	const cycles = 24
	for i := range cycles {
		burst(true)
		time.Sleep(hold / 6)
		burst(false)
		time.Sleep(hold / 3)
		switch i {
		case 1: // half a second of traffic from the top of its 64 bits: it wraps
			leaf2.SetCounter("Ethernet2", 3, gnmisim.QueueTxPackets, math.MaxUint64-500_000)
		case cycles / 3: // clear counters on leaf1, a driver reload on gpu01
			for _, port := range []string{"Ethernet1", "Ethernet2"} {
				for _, c := range []gnmisim.Counter{gnmisim.PFCRx, gnmisim.PFCTx, gnmisim.PFCRxMicros, gnmisim.PFCTxMicros,
					gnmisim.QueueTxPackets, gnmisim.ECNMarked, gnmisim.WatchdogStorms, gnmisim.QueueDrops} {
					for _, prio := range []int{3, 6} {
						leaf1.SetCounter(port, prio, c, 0)
					}
				}
			}
			nic.mu.Lock()
			names := make([]string, 0, len(nic.rates))
			for name := range nic.rates {
				names = append(names, name)
			}
			nic.mu.Unlock()
			for _, name := range names {
				nic.Set(name, 0)
			}
		case 2 * cycles / 3: // the agent restarts
			rounds += count(cur) - base
			cur.stop()
			tally(cur)
			cur = f.start(f.config2(cfg), deps)
			base = count(cur)
		}
	}
	rounds += count(cur) - base
	tally(cur)
	if rounds < 250 {
		t.Errorf("only %d detector rounds", rounds)
	}
	if moves.Resets == 0 || moves.Wraps == 0 {
		t.Errorf("the detector saw %d resets and %d wraps; the run must have both", moves.Resets, moves.Wraps)
	}
	if got := cur.activeLossless(); len(got) != 0 {
		t.Fatalf("findings on a healthy run: %v", got)
	}
	if runs := losslessRuns(t, cur); len(runs) != 0 {
		t.Fatalf("%d lossless runs on a healthy run: %+v", len(runs), runs[0].Lossless)
	}
	if hooks := losslessHooks(t, f.hooks); len(hooks) != 0 {
		t.Fatalf("%d lossless webhooks on a healthy run: %+v", len(hooks), hooks)
	}

	// The same burst, held: a spread.
	burst(true)
	fc := waitHook(t, f.hooks, notify.FindingRaised, telemetry.CodePausePropagation)
	if fc.Device != "gpu01" || fc.Priority == nil || *fc.Priority != 3 {
		t.Errorf("the held burst raised %+v", fc)
	}
	t.Logf("%d healthy rounds, %d resets, %d wraps", rounds, moves.Resets, moves.Wraps)
}

// TestLosslessReadsWholeSampleCycles: the switches send each counter
// subscription's sample on its own timer, spread over a quarter of the
// interval, and a busy switch CPU takes each cycle up to half an
// interval late, so detector rounds keep falling between two
// notifications of one port. A steady pause spreading two hops (45 %,
// over the 20 % threshold, under the storm's 80 %) is held through every
// round and raised after its hold, and nothing else is: read as they
// came, a port whose pause counter had not come yet would read unpaused
// one round (restarting the hold) and paused twice as long the next.
func TestLosslessReadsWholeSampleCycles(t *testing.T) {
	const interval = 40 * time.Millisecond
	f := newFixture(t, 2, func(o *gnmisim.Options) { o.Counters.Priorities = []int{3, 6} },
		jitteredSampling(t, interval/4, interval/2))
	nic := newHostNIC(t)
	c1 := f.commit("first", hostFabric(f))
	f.converge("150KB", "9216")
	healthyNIC(nic)
	for _, sw := range []*gnmisim.Target{f.sims["leaf1"], f.sims["leaf2"]} {
		for _, port := range []string{"Ethernet1", "Ethernet2"} {
			sw.Rate(port, 3, gnmisim.QueueTxPackets, 1_000_000)
			sw.Rate(port, 3, gnmisim.ECNMarked, 2_000)
		}
	}
	const hold = 1200 * time.Millisecond // 30 rounds
	a := f.start(hostAgent(f, nic, interval, hold))
	a.waitRun(history.KindPlan, history.TriggerCommit, c1)
	waitFor(t, "both switches' pause counters", func() bool {
		_, s1 := a.hub.value(counters.Key{Device: "leaf1", Port: "Ethernet1", Counter: "pfc3/rx-pause-us"})
		_, s2 := a.hub.value(counters.Key{Device: "leaf2", Port: "Ethernet2", Counter: "pfc3/rx-pause-us"})
		return s1 && s2
	})
	waitRounds(t, a, 25)
	if got := a.activeLossless(); len(got) != 0 {
		t.Fatalf("findings on the healthy stream: %v", got)
	}
	start := time.Now()
	f.sims["leaf1"].Rate("Ethernet1", 3, gnmisim.PFCRxMicros, 450_000)
	f.sims["leaf2"].Rate("Ethernet2", 3, gnmisim.PFCRxMicros, 450_000)
	fc := waitHook(t, f.hooks, notify.FindingRaised, telemetry.CodePausePropagation)
	took := time.Since(start)
	if fc.Device != "gpu01" || fc.Priority == nil || *fc.Priority != 3 {
		t.Errorf("raised %+v", fc)
	}
	for _, ev := range losslessHooks(t, f.hooks) {
		for _, c := range ev.Findings {
			if c.Code != string(telemetry.CodePausePropagation) {
				t.Errorf("also announced: %s %s on %s %s", c.Event, c.Code, c.Device, c.Port)
			}
		}
	}
	runs := losslessRuns(t, a)
	if len(runs) != 1 || len(runs[0].Lossless) != 1 {
		t.Fatalf("lossless runs %+v", runs)
	}
	got := runs[0].Lossless[0].Finding
	if v, _ := got.Value("max_paused_fraction"); v < 0.3 || v > 0.7 {
		t.Errorf("the most paused hop read %.2f, want about 0.45; %s", v, got.Message)
	}
	t.Logf("raised after %s (hold %s)", took.Round(time.Millisecond), hold)
}
