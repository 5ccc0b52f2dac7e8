package telemetry

import (
	"testing"
	"time"
)

func TestReadingFromNamedSamples(t *testing.T) {
	topo := unitTopology(t)
	samples := []NamedSample{
		{Port: "ens1f0np0", Counter: "ethtool/rx_prio3_pause", Value: 11},
		{Port: "ens1f0np0", Counter: "ethtool/tx_prio3_pause_duration", Value: 12},
		{Port: "ens1f0np0", Counter: "ethtool/rx_prio3_discards", Value: 13},
		{Port: "ens1f0np0", Counter: "ethtool/rx_prio3_buf_discard", Value: 14},
		{Port: "ens1f0np0", Counter: "ethtool/rx_prio3_cong_discard", Value: 15},
		{Port: "ens1f0np0", Counter: "ethtool/rx_prio3_marked", Value: 16},
		{Port: "ens1f0np0", Counter: "ethtool/tx_prio0_packets", Value: 17},
		{Port: "ens1f0np0", Counter: "ethtool/tx_vport_rdma_unicast_packets", Value: 18},
		{Port: "ens1f0np0", Counter: "ethtool/tx_pause_storm_error_events", Value: 19},
		{Port: "ens1f0np0", Counter: "ethtool/rx_bytes", Value: 99},       // not a detector's: skipped
		{Port: "ens1f0np0", Counter: "ethtool/rx_prio9_pause", Value: 99}, // no such priority
		{Port: "mlx5_0/1", Counter: "hw_counters/np_cnp_sent", Value: 20}, // the RDMA port joins its NIC
		{Port: "mlx5_0/1", Counter: "hw_counters/out_of_sequence", Value: 21},
		{Port: "mlx5_0/1", Counter: "hw_counters/req_cqe_error", Value: 99},
		{Port: "mlx5_9/1", Counter: "hw_counters/np_cnp_sent", Value: 22}, // no such port
	}
	r, unplaced := topo.ReadingFrom("gpu1", t0, samples)
	if len(r.Ports) != 1 || r.Ports[0].Name != "ens1f0np0" || r.Device != "gpu1" || !r.Taken.Equal(t0) {
		t.Fatalf("reading %+v", r)
	}
	pc := r.Ports[0]
	for _, c := range []struct {
		prio int
		m    PrioMetric
		want uint64
	}{{3, PauseRx, 11}, {3, PauseTxMicros, 12}, {3, Drops, 13}, {3, PGDrops, 29}, {3, ECNMarked, 16}, {0, TxPackets, 17}} {
		if !pc.Prio[c.prio].Has.Has(c.m) || pc.Prio[c.prio].V[c.m] != c.want {
			t.Errorf("priority %d %s = %d (%v), want %d", c.prio, c.m, pc.Prio[c.prio].V[c.m], pc.Prio[c.prio].Has.Has(c.m), c.want)
		}
	}
	for m, want := range map[PortMetric]uint64{RoCETxPackets: 18, StormErrors: 19, CNPSent: 20, OutOfSequence: 21} {
		if !pc.Port.Has.Has(m) || pc.Port.V[m] != want {
			t.Errorf("%s = %d, want %d", m, pc.Port.V[m], want)
		}
	}
	if pc.Port.Has.Len() != 4 || pc.Prio[3].Has.Len() != 5 {
		t.Errorf("extra counters: %+v", pc)
	}
	if len(unplaced) != 1 || unplaced[0].Port != "mlx5_9/1" {
		t.Errorf("unplaced %v", unplaced)
	}

	sw, unplaced := topo.ReadingFrom("leaf1", t0.Add(time.Second), []NamedSample{
		{Port: "Ethernet2", Counter: "pfc3/rx-pause", Value: 1}, {Port: "Ethernet2", Counter: "pfc3/rx-pause-us", Value: 2}, {Port: "Ethernet2", Counter: "pfc3/watchdog-storms", Value: 3},
		{Port: "Ethernet2", Counter: "queue3/drops", Value: 4}, {Port: "Ethernet2", Counter: "queue6/tx-packets", Value: 5}, {Port: "Ethernet2", Counter: "queue3/ecn-marked", Value: 6},
		{Port: "Ethernet2", Counter: "pg3/drops", Value: 7}, {Port: "Ethernet2", Counter: "mac/rx-pause", Value: 8}, {Port: "Ethernet1", Counter: "pfc8/rx-pause", Value: 9},
		{Port: "Ethernet9", Counter: "pfc3/rx-pause", Value: 10},
	})
	if len(sw.Ports) != 1 || len(unplaced) != 1 {
		t.Fatalf("ports %+v unplaced %v", sw.Ports, unplaced)
	}
	p := sw.Ports[0]
	if p.Prio[3].V[PauseRx] != 1 || p.Prio[3].V[PauseRxMicros] != 2 || p.Prio[3].V[WatchdogStorms] != 3 ||
		p.Prio[3].V[Drops] != 4 || p.Prio[6].V[TxPackets] != 5 || p.Prio[3].V[ECNMarked] != 6 || p.Prio[3].V[PGDrops] != 7 ||
		p.Prio[3].Has.Len() != 6 || p.Prio[6].Has.Len() != 1 {
		t.Errorf("switch port %+v", p)
	}
	// Counters stamped apart: the port's moment is its newest counter's.
	st, _ := topo.ReadingFrom("leaf1", t0.Add(time.Second), []NamedSample{
		{Port: "Ethernet2", Counter: "pfc3/rx-pause", Value: 1, Taken: t0.Add(300 * time.Millisecond)},
		{Port: "Ethernet2", Counter: "pfc3/rx-pause-us", Value: 2, Taken: t0.Add(700 * time.Millisecond)},
		{Port: "Ethernet1", Counter: "pfc3/rx-pause", Value: 3}})
	for _, pc := range st.Ports {
		want := map[string]time.Time{"Ethernet2": t0.Add(700 * time.Millisecond), "Ethernet1": {}}[pc.Name]
		if !pc.Taken.Equal(want) {
			t.Errorf("%s taken %v, want %v", pc.Name, pc.Taken, want)
		}
	}
	if r, unplaced := topo.ReadingFrom("nobody", t0, samples[:2]); len(r.Ports) != 0 || len(unplaced) != 2 {
		t.Errorf("unknown device: %+v %v", r, unplaced)
	}
}
