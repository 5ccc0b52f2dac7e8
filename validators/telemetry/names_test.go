package telemetry

import (
	"testing"
	"time"
)

func TestReadingFromNamedSamples(t *testing.T) {
	topo := unitTopology(t)
	samples := []NamedSample{
		{"ens1f0np0", "ethtool/rx_prio3_pause", 11},
		{"ens1f0np0", "ethtool/tx_prio3_pause_duration", 12},
		{"ens1f0np0", "ethtool/rx_prio3_discards", 13},
		{"ens1f0np0", "ethtool/rx_prio3_buf_discard", 14},
		{"ens1f0np0", "ethtool/rx_prio3_cong_discard", 15},
		{"ens1f0np0", "ethtool/rx_prio3_marked", 16},
		{"ens1f0np0", "ethtool/tx_prio0_packets", 17},
		{"ens1f0np0", "ethtool/tx_vport_rdma_unicast_packets", 18},
		{"ens1f0np0", "ethtool/tx_pause_storm_error_events", 19},
		{"ens1f0np0", "ethtool/rx_bytes", 99},       // not a detector's: skipped
		{"ens1f0np0", "ethtool/rx_prio9_pause", 99}, // no such priority
		{"mlx5_0/1", "hw_counters/np_cnp_sent", 20}, // the RDMA port joins its NIC
		{"mlx5_0/1", "hw_counters/out_of_sequence", 21},
		{"mlx5_0/1", "hw_counters/req_cqe_error", 99},
		{"mlx5_9/1", "hw_counters/np_cnp_sent", 22}, // no such port
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
		{"Ethernet2", "pfc3/rx-pause", 1}, {"Ethernet2", "pfc3/rx-pause-us", 2}, {"Ethernet2", "pfc3/watchdog-storms", 3},
		{"Ethernet2", "queue3/drops", 4}, {"Ethernet2", "queue6/tx-packets", 5}, {"Ethernet2", "queue3/ecn-marked", 6},
		{"Ethernet2", "pg3/drops", 7}, {"Ethernet2", "mac/rx-pause", 8}, {"Ethernet1", "pfc8/rx-pause", 9},
		{"Ethernet9", "pfc3/rx-pause", 10},
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
	if r, unplaced := topo.ReadingFrom("nobody", t0, samples[:2]); len(r.Ports) != 0 || len(unplaced) != 2 {
		t.Errorf("unknown device: %+v %v", r, unplaced)
	}
}
