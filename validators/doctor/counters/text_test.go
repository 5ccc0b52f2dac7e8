package counters_test

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rocefab/rocefab/internal/shareddir"

	"github.com/google/go-cmp/cmp"

	"github.com/rocefab/rocefab/internal/corpus"
	"github.com/rocefab/rocefab/internal/netnstest"
	"github.com/rocefab/rocefab/validators/doctor/counters"
	"github.com/rocefab/rocefab/validators/doctor/rdmasys"
	"github.com/rocefab/rocefab/validators/doctor/sysfstest"
)

// corpusCounters is ../shared/corpus/counters (or ROCEFAB_CORPUS_DIR's):
// real mlx5 output published by others. It skips with a message where
// ../shared is absent, and fails instead under ROCEFAB_REQUIRE_NETNS=1 (CI).
func corpusCounters(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(shareddir.Path("ROCEFAB_CORPUS_DIR", "corpus"), "counters")
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("ROCEFAB_REQUIRE_NETNS") == "1" {
			t.Fatalf("counter corpus not found at %s: %v", dir, err)
		}
		t.Skipf("counter corpus not found at %s (a checkout without ../shared): skipping", dir)
	}
	return dir
}

// lossless are the counters the corpus README lists as lossless-relevant,
// written down from it and the mlx5 driver, not from our rules.
func losslessByName(key string) bool {
	name, isEthtool := strings.CutPrefix(key, counters.PrefixEthtool)
	if isEthtool {
		for _, p := range []string{"_pause", "_pause_duration", "_buf_discard", "_cong_discard", "_marked"} {
			var prio int
			var rest string
			if _, err := fmt.Sscanf(name, "rx_prio%d%s", &prio, &rest); err == nil && rest == p {
				return true
			}
			if _, err := fmt.Sscanf(name, "tx_prio%d%s", &prio, &rest); err == nil && rest == p && strings.Contains(p, "pause") {
				return true
			}
		}
		return name == "rx_ecn_mark"
	}
	switch strings.TrimPrefix(key, counters.PrefixHW) {
	case "np_ecn_marked_roce_packets", "np_cnp_sent", "rp_cnp_handled", "rp_cnp_ignored", "out_of_sequence", "packet_seq_err", "local_ack_timeout_err":
		return strings.HasPrefix(key, counters.PrefixHW)
	}
	return false
}

// Every item in the counter corpus parses, and every lossless-relevant
// counter in it is kept by the filter and classified (congestion or error,
// with a label of its own). The walk covers files added later too.
func TestCorpusCountersAreKeptAndClassified(t *testing.T) {
	dir := corpusCounters(t)
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	items := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".src") {
			continue
		}
		items++
		t.Run(filepath.Base(f), func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			vals, err := counters.ParseText(string(b))
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			if len(vals) == 0 {
				t.Fatal("no counters parsed")
			}
			for key := range vals {
				if !losslessByName(key) {
					continue
				}
				seen[key] = true
				if name, ok := strings.CutPrefix(key, counters.PrefixEthtool); ok && !counters.KeepEthtool(name) {
					t.Errorf("%s is dropped by the ethtool filter", key)
				}
				if k := counters.KindOf(key); k == counters.KindTraffic {
					t.Errorf("%s is classified as traffic", key)
				}
				if l := counters.Label(key); strings.HasSuffix(key, l) {
					t.Errorf("%s has no label of its own (%q)", key, l)
				}
				if !counters.Lossless(key) {
					t.Errorf("%s is not reported as a lossless counter", key)
				}
			}
		})
	}
	if items == 0 {
		t.Fatalf("no corpus items in %s", dir)
	}
	// The items the issue names: the walk must have met them.
	for _, k := range []string{"ethtool/rx_prio0_buf_discard", "ethtool/rx_prio0_cong_discard", "ethtool/rx_prio0_marked",
		"ethtool/rx_ecn_mark", "hw_counters/np_ecn_marked_roce_packets", "hw_counters/np_cnp_sent", "hw_counters/rp_cnp_handled",
		"hw_counters/rp_cnp_ignored", "hw_counters/out_of_sequence", "hw_counters/packet_seq_err", "hw_counters/local_ack_timeout_err"} {
		if !seen[k] {
			t.Errorf("the corpus walk never met %s", k)
		}
	}
}

func TestParseText(t *testing.T) {
	got, err := counters.ParseText("NIC statistics:\n     rx_prio3_pause: 12\n\n     rx_ecn_mark: 0\n# a comment\nPort 1 hw counters:\nnp_cnp_sent: 7\nPort 1 counters:\nport_rcv_data: 99\n")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]uint64{"ethtool/rx_prio3_pause": 12, "ethtool/rx_ecn_mark": 0, "hw_counters/np_cnp_sent": 7, "counters/port_rcv_data": 99}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	for _, tc := range []struct{ in, err string }{
		{"rx_prio3_pause: 1\n", "line 1: counter \"rx_prio3_pause\" before a"},
		{"NIC statistics:\n  rx_prio3_pause 1\n", "line 2: \"rx_prio3_pause 1\" is not \"name: value\""},
		{"NIC statistics:\n  rx_prio3_pause: -1\n", "line 2: counter rx_prio3_pause: value \"-1\" is not an unsigned integer"},
		{"NIC statistics:\n  rx prio: 1\n", "line 2: \"rx prio: 1\" is not \"name: value\""},
	} {
		if _, err := counters.ParseText(tc.in); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("ParseText(%q) = %v, want an error containing %q", tc.in, err, tc.err)
		}
	}
}

func FuzzParseText(f *testing.F) {
	// Seeds in testdata/fuzz/FuzzParseText: both formats, comments, bad
	// lines and values; plus real ethtool -S and hw counter output from
	// the shared corpus, read where it is.
	corpus.SeedWith(f, func(b []byte) { f.Add(string(b)) }, "counters")
	f.Fuzz(func(t *testing.T, text string) {
		vals, err := counters.ParseText(text)
		if err != nil {
			return
		}
		// What parses prints back as the same counters.
		var b strings.Builder
		for _, prefix := range []string{counters.PrefixEthtool, counters.PrefixHW, counters.PrefixPort} {
			b.WriteString(map[string]string{counters.PrefixEthtool: "NIC statistics:\n", counters.PrefixHW: "Port 1 hw counters:\n",
				counters.PrefixPort: "Port 1 counters:\n"}[prefix])
			for k, v := range vals {
				if name, ok := strings.CutPrefix(k, prefix); ok {
					fmt.Fprintf(&b, "%s: %d\n", name, v)
				}
			}
		}
		back, err := counters.ParseText(b.String())
		if err != nil {
			t.Fatalf("re-printed counters do not parse: %v\n%s", err, b.String())
		}
		if diff := cmp.Diff(vals, back); diff != "" {
			t.Fatalf("round trip (-first +again)\n%s", diff)
		}
	})
}

// recordedMlx5 is `ethtool -S` of a ConnectX port as the mlx5 driver
// prints it, trimmed to the counters that matter here (our own fixture).
func recordedMlx5(pause3, bufDiscard3, marked3, ecnMark uint64) string {
	return fmt.Sprintf(`NIC statistics:
     rx_packets: 1226
     rx_ecn_mark: %d
     rx_prio3_bytes: 99000
     rx_prio3_packets: 1100
     rx_prio3_pause: %d
     rx_prio3_pause_duration: 0
     tx_prio3_pause: 0
     tx_prio3_pause_duration: 0
     rx_prio3_discards: 0
     rx_prio3_buf_discard: %d
     rx_prio3_cong_discard: 0
     rx_prio3_marked: %d
`, ecnMark, pause3, bufDiscard3, marked3)
}

// The mlx5 path: an RDMA port in a fake sysfs root and recorded ethtool
// output. Every lossless counter is in the report with its delta.
func TestHostProbeReadsAnMlx5NIC(t *testing.T) {
	tr := sysfstest.New(t)
	tr.AddNIC(sysfstest.ConnectX("mlx5_0", "ens1f0np0", "192.0.2.11"))
	for _, c := range []string{"np_ecn_marked_roce_packets", "np_cnp_sent", "rp_cnp_handled", "rp_cnp_ignored", "out_of_sequence", "packet_seq_err", "local_ack_timeout_err"} {
		tr.SetCounter("mlx5_0", 1, "hw_counters/"+c, 10)
	}
	stats := counters.TextStats{"ens1f0np0": recordedMlx5(5, 0, 0, 0)}
	hp := counters.NewHostProbe("gpu01", rdmasys.New(tr.Root), stats, []string{"ens1f0np0"})
	if hp.Unavailable != "" || !cmp.Equal(hp.Ports, []string{"mlx5_0/1"}) {
		t.Fatalf("unavailable %q, ports %v", hp.Unavailable, hp.Ports)
	}
	finish := hp.Start(context.Background())
	// The probe runs: pause frames, a buffer drop, ECN marks, CNPs.
	stats["ens1f0np0"] = recordedMlx5(17, 2, 40, 40)
	tr.SetCounter("mlx5_0", 1, "hw_counters/np_ecn_marked_roce_packets", 50)
	tr.SetCounter("mlx5_0", 1, "hw_counters/np_cnp_sent", 50)
	rep := finish(context.Background())
	if len(rep.Errors) != 0 {
		t.Fatalf("errors %v", rep.Errors)
	}
	got := map[string]uint64{}
	for _, c := range rep.Counters {
		got[c.Port+" "+c.Counter] = c.Delta
	}
	want := map[string]uint64{
		"ens1f0np0 ethtool/rx_ecn_mark": 40, "ens1f0np0 ethtool/rx_prio3_pause": 12, "ens1f0np0 ethtool/rx_prio3_pause_duration": 0,
		"ens1f0np0 ethtool/tx_prio3_pause": 0, "ens1f0np0 ethtool/tx_prio3_pause_duration": 0, "ens1f0np0 ethtool/rx_prio3_discards": 0,
		"ens1f0np0 ethtool/rx_prio3_buf_discard": 2, "ens1f0np0 ethtool/rx_prio3_cong_discard": 0, "ens1f0np0 ethtool/rx_prio3_marked": 40,
		"mlx5_0/1 hw_counters/np_ecn_marked_roce_packets": 40, "mlx5_0/1 hw_counters/np_cnp_sent": 40, "mlx5_0/1 hw_counters/rp_cnp_handled": 0,
		"mlx5_0/1 hw_counters/rp_cnp_ignored": 0, "mlx5_0/1 hw_counters/out_of_sequence": 0, "mlx5_0/1 hw_counters/packet_seq_err": 0,
		"mlx5_0/1 hw_counters/local_ack_timeout_err": 0,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("deltas (-want +got)\n%s", diff)
	}
	var moved []string
	for _, c := range rep.Moved() {
		moved = append(moved, c.Message(""))
	}
	if !cmp.Equal(moved[0], "CE-marked packets received (rx_ecn_mark) rose by 40 on gpu01 ens1f0np0") ||
		!strings.Contains(strings.Join(moved, "\n"), "priority 3 packets discarded for lack of receive buffer (rx_prio3_buf_discard) rose by 2 on gpu01 ens1f0np0") {
		t.Errorf("messages:\n%s", strings.Join(moved, "\n"))
	}
}

// The veth path: a real netns whose NIC has no RDMA device and whose
// ethtool statistics (veth's own) carry none of the counters. The report
// says so once and lists nothing.
func TestHostProbeOnAVethSaysUnavailableOnce(t *testing.T) {
	l := netnstest.NewLine(t, netnstest.LineOptions{})
	var hp *counters.HostProbe
	var nics []string
	err := l.A.Do(func() error {
		eth, err := counters.OpenEthtool()
		if err != nil {
			return err
		}
		defer eth.Close()
		if nics, err = counters.NICsFor([]netip.Addr{l.BAddr, l.BAddr6}); err != nil {
			return err
		}
		hp = counters.NewHostProbe("host-a", rdmasys.New(t.TempDir()), eth, nics)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(nics, []string{"eth0"}) {
		t.Fatalf("NICs towards B: %v, want [eth0]", nics)
	}
	want := "unavailable on this NIC: eth0 has no RDMA device (so no hw_counters) and no per-priority pause, discard or ECN-mark counters in its ethtool statistics"
	if hp.Unavailable != want {
		t.Fatalf("unavailable %q\nwant %q", hp.Unavailable, want)
	}
	rep := hp.Start(context.Background())(context.Background())
	if rep.Unavailable != want || len(rep.Counters) != 0 || strings.Count(rep.Unavailable, "unavailable") != 1 {
		t.Fatalf("report %+v", rep)
	}
}
