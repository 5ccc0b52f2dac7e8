package counters_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rocefab/rocefab/validators/doctor/counters"
	"github.com/rocefab/rocefab/validators/doctor/rdmasys"
	"github.com/rocefab/rocefab/validators/doctor/sysfstest"
)

// fakeStats is a NIC whose ethtool statistics the test sets.
type fakeStats struct {
	m   map[string]map[string]uint64
	err error
}

func (f *fakeStats) Stats(netdev string) (map[string]uint64, error) {
	if f.err != nil {
		return nil, f.err
	}
	out := map[string]uint64{}
	for k, v := range f.m[netdev] {
		out[k] = v
	}
	return out, nil
}

func TestFormatCount(t *testing.T) {
	for n, want := range map[uint64]string{
		0: "0", 7: "7", 999: "999", 1000: "1,000", 1204: "1,204", 12345: "12,345",
		123456: "123,456", 1234567: "1,234,567", 18446744073709551615: "18,446,744,073,709,551,615",
	} {
		if got := counters.FormatCount(n); got != want {
			t.Errorf("FormatCount(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestHostDeltaAcrossTwoReads(t *testing.T) {
	tr := sysfstest.New(t)
	tr.AddNIC(sysfstest.ConnectX("mlx5_0", "ens1f0np0", "10.0.1.11"))
	tr.SetCounter("mlx5_0", 1, "hw_counters/np_cnp_sent", 100)
	tr.SetCounter("mlx5_0", 1, "hw_counters/out_of_sequence", 5)
	tr.SetCounter("mlx5_0", 1, "counters/port_xmit_data", 1_000_000)
	stats := &fakeStats{m: map[string]map[string]uint64{"ens1f0np0": {
		"rx_prio3_pause": 10, "tx_prio3_pause": 0, "rx_bytes": 99, "rx_discards_phy": 0,
	}}}
	clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s := counters.Sampler{
		Sources: []counters.Source{counters.HostSource{Host: "host1", Sys: rdmasys.New(tr.Root),
			Ports: []counters.HostPort{{Device: "mlx5_0", Port: 1, Netdev: "ens1f0np0"}}, Stats: stats}},
		Now: func() time.Time { clock = clock.Add(time.Second); return clock },
	}
	before, err := s.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := before.Values[counters.Key{Device: "host1", Port: "ens1f0np0", Counter: "ethtool/rx_bytes"}]; ok {
		t.Error("rx_bytes is not a counter the snapshot keeps")
	}

	// The probe runs: congestion and one retransmission-class error.
	tr.SetCounter("mlx5_0", 1, "hw_counters/np_cnp_sent", 2_100)
	tr.SetCounter("mlx5_0", 1, "hw_counters/out_of_sequence", 8)
	tr.SetCounter("mlx5_0", 1, "counters/port_xmit_data", 5_000_000)
	stats.m["ens1f0np0"]["rx_prio3_pause"] = 1_214
	stats.m["ens1f0np0"]["rx_bytes"] = 1 << 40

	after, err := s.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	d := counters.Diff(before, after)
	got := map[string]uint64{}
	for _, c := range d.Changes {
		got[c.Port+" "+c.Counter] = c.Delta
	}
	want := map[string]uint64{
		"mlx5_0/1 hw_counters/np_cnp_sent":     2_000,
		"mlx5_0/1 hw_counters/out_of_sequence": 3,
		"mlx5_0/1 counters/port_xmit_data":     4_000_000,
		"ens1f0np0 ethtool/rx_prio3_pause":     1_204,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("deltas (-want +got):\n%s", diff)
	}
	msgs := d.Messages("during the probe")
	wantMsgs := []string{
		"priority 3 pause frames received rose by 1,204 on host1 ens1f0np0 during the probe",
		"CNPs sent (np_cnp_sent) rose by 2,000 on host1 mlx5_0/1 during the probe",
		"out-of-sequence packets (out_of_sequence) rose by 3 on host1 mlx5_0/1 during the probe",
	}
	if diff := cmp.Diff(wantMsgs, msgs); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if !d.To.After(d.From) {
		t.Errorf("interval %v..%v", d.From, d.To)
	}
}

func TestDiffReset(t *testing.T) {
	k := counters.Key{Device: "leaf2", Port: "Ethernet1/5", Counter: counters.SwitchPFCRx(3)}
	before := &counters.Snapshot{Values: map[counters.Key]uint64{k: 5_000}}
	after := &counters.Snapshot{Values: map[counters.Key]uint64{k: 40}}
	d := counters.Diff(before, after)
	if len(d.Changes) != 1 || !d.Changes[0].Reset || d.Changes[0].Delta != 40 {
		t.Fatalf("changes = %+v", d.Changes)
	}
	want := "priority 3 pause frames received was reset (from 5,000 to 40) on leaf2 Ethernet1/5 during the probe"
	if got := d.Changes[0].Message("during the probe"); got != want {
		t.Errorf("message = %q, want %q", got, want)
	}
}

func TestDiffSkipsCountersInOneSnapshotOnly(t *testing.T) {
	a := counters.Key{Device: "h", Port: "p", Counter: "hw_counters/np_cnp_sent"}
	b := counters.Key{Device: "h", Port: "p", Counter: "hw_counters/packet_seq_err"}
	d := counters.Diff(&counters.Snapshot{Values: map[counters.Key]uint64{a: 1}},
		&counters.Snapshot{Values: map[counters.Key]uint64{a: 1, b: 9}})
	if len(d.Changes) != 0 {
		t.Errorf("changes = %+v", d.Changes)
	}
}

type failing struct{}

func (failing) Name() string { return "leaf9" }
func (failing) Read(context.Context) ([]counters.Sample, error) {
	return nil, errors.New("connection refused")
}

func TestSnapshotKeepsGoingPastAFailedSource(t *testing.T) {
	tr := sysfstest.New(t)
	tr.AddNIC(sysfstest.ConnectX("mlx5_0", "ens1f0np0", "10.0.1.11"))
	s := counters.Sampler{Sources: []counters.Source{failing{},
		counters.HostSource{Host: "host1", Sys: rdmasys.New(tr.Root), Ports: []counters.HostPort{{Device: "mlx5_0", Port: 1}}}}}
	snap, err := s.Snapshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Errors) != 1 || !strings.Contains(snap.Errors[0], "leaf9: connection refused") {
		t.Errorf("errors = %q", snap.Errors)
	}
	if len(snap.Values) == 0 {
		t.Error("host counters were dropped with the failed switch")
	}
	if _, err := (counters.Sampler{Sources: []counters.Source{failing{}}}).Snapshot(context.Background()); err == nil {
		t.Error("every source failed and Snapshot returned no error")
	}
}

func TestHostSourceEthtoolErrorKeepsRDMACounters(t *testing.T) {
	tr := sysfstest.New(t)
	tr.AddNIC(sysfstest.ConnectX("mlx5_0", "ens1f0np0", "10.0.1.11"))
	src := counters.HostSource{Host: "h", Sys: rdmasys.New(tr.Root),
		Ports: []counters.HostPort{{Device: "mlx5_0", Port: 1, Netdev: "ens1f0np0"}},
		Stats: &fakeStats{err: counters.ErrUnsupported}}
	samples, err := src.Read(context.Background())
	if !errors.Is(err, counters.ErrUnsupported) {
		t.Errorf("err = %v", err)
	}
	if len(samples) == 0 {
		t.Error("RDMA counters lost")
	}
}

func TestLabelsAndKinds(t *testing.T) {
	for _, tc := range []struct {
		counter, label string
		kind           counters.Kind
	}{
		{"ethtool/tx_prio3_pause", "priority 3 pause frames sent", counters.KindCongestion},
		{counters.SwitchECNMarked(3), "queue 3 ECN-marked packets", counters.KindCongestion},
		{counters.SwitchPFCWatchdog(3), "priority 3 PFC watchdog storms", counters.KindError},
		{"hw_counters/local_ack_timeout_err", "ACK timeouts and retransmissions (local_ack_timeout_err)", counters.KindError},
		{"ethtool/rx_prio3_buf_discard", "priority 3 packets discarded for lack of receive buffer (rx_prio3_buf_discard)", counters.KindError},
		{"ethtool/rx_prio3_cong_discard", "priority 3 packets discarded by receive congestion (rx_prio3_cong_discard)", counters.KindError},
		{"ethtool/rx_prio3_marked", "priority 3 packets ECN-marked by the NIC (rx_prio3_marked)", counters.KindCongestion},
		{"ethtool/rx_ecn_mark", "CE-marked packets received (rx_ecn_mark)", counters.KindCongestion},
		{"hw_counters/something_new", "something_new", counters.KindTraffic},
		{"counters/port_rcv_data", "RDMA data received", counters.KindTraffic},
	} {
		if got := counters.Label(tc.counter); got != tc.label {
			t.Errorf("Label(%q) = %q, want %q", tc.counter, got, tc.label)
		}
		if got := counters.KindOf(tc.counter); got != tc.kind {
			t.Errorf("KindOf(%q) = %q, want %q", tc.counter, got, tc.kind)
		}
	}
}
