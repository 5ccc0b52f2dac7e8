package counters_test

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	gnmipb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/rocefab/rocefab/drivers/gnmi/gnmipath"
	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
	"github.com/rocefab/rocefab/renderers/all"
	"github.com/rocefab/rocefab/validators/doctor/counters"
)

// TestGNMISimCounters reads the simulator's moving PFC/ECN counters with
// gNMI Subscribe around a "probe" and reports exact deltas.
func TestGNMISimCounters(t *testing.T) {
	for _, tc := range []struct {
		name        string
		personality gnmisim.Personality
		platform    string
		port        string
		sample      time.Duration
	}{
		{"openconfig once", gnmisim.OpenConfig, "eos", "Ethernet1/5", 0},
		{"openconfig sample", gnmisim.OpenConfig, "eos", "Ethernet1/5", 20 * time.Millisecond},
		{"sonic once", gnmisim.SONiC, "sonic", "Ethernet4", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sim, err := gnmisim.Start(gnmisim.Options{Name: "leaf2", Personality: tc.personality, Ports: []string{tc.port}, NoAuth: true, Plaintext: true})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(sim.Stop)
			conn, err := grpc.NewClient(sim.Addr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = conn.Close() })
			src := counters.GNMISource{Device: "leaf2", Client: gnmipb.NewGNMIClient(conn),
				Paths: counters.PathsWith(all.Renderers(), tc.platform, []string{tc.port}, []int{3}), SampleInterval: tc.sample}
			s := counters.Sampler{Sources: []counters.Source{src}}
			sim.Jump(tc.port, 3, gnmisim.PFCRx, 10)
			before, err := s.Snapshot(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(before.Errors) != 0 {
				t.Fatalf("errors: %v", before.Errors)
			}
			sim.Jump(tc.port, 3, gnmisim.PFCRx, 1_204)
			sim.Jump(tc.port, 3, gnmisim.PFCTx, 2)
			sim.Jump(tc.port, 3, gnmisim.ECNMarked, 35_000)
			sim.Jump(tc.port, 3, gnmisim.QueueDrops, 12)
			sim.Jump(tc.port, 4, gnmisim.QueueDrops, 99)   // not a RoCE queue: not asked for
			sim.Jump(tc.port, 3, gnmisim.PFCRxMicros, 640) // SONiC's pause time; OpenConfig has none
			after, err := s.Snapshot(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			got := counters.Diff(before, after).Messages("during the probe")
			var want []string
			if tc.personality == gnmisim.OpenConfig {
				// OpenConfig has no per-priority PFC counter: the link-level
				// pause counters carry the pause frames.
				want = []string{
					"link-level (802.3x) pause frames received rose by 1,204 on leaf2 " + tc.port + " during the probe",
					"link-level (802.3x) pause frames sent rose by 2 on leaf2 " + tc.port + " during the probe",
				}
			} else {
				want = []string{
					"priority 3 pause frames received rose by 1,204 on leaf2 " + tc.port + " during the probe",
					"priority 3 pause time received (µs) rose by 640 on leaf2 " + tc.port + " during the probe",
					"priority 3 pause frames sent rose by 2 on leaf2 " + tc.port + " during the probe",
				}
			}
			want = append(want,
				"queue 3 dropped packets rose by 12 on leaf2 "+tc.port+" during the probe",
				"queue 3 ECN-marked packets rose by 35,000 on leaf2 "+tc.port+" during the probe")
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
			}
		})
	}
}

// pathReader answers requests ("TARGET@path") with the leaves at or
// below them, keyed by leaf path, as the gNMI driver does.
type pathReader map[string]uint64

func (p pathReader) Counters(_ context.Context, paths []string) (map[string]uint64, error) {
	out := map[string]uint64{}
	for _, q := range paths {
		for k, v := range p {
			if k == q || strings.HasPrefix(k, q+"/") {
				_, leaf := gnmipath.SplitTarget(k)
				out[leaf] = v
			}
		}
	}
	return out, nil
}

func TestDriverSource(t *testing.T) {
	paths := counters.PathsWith(all.Renderers(), "sonic", []string{"Ethernet4"}, []int{3})
	r := pathReader{
		"COUNTERS_DB@/COUNTERS/Ethernet4/SAI_PORT_STAT_PFC_3_RX_PKTS":                       42,
		"COUNTERS_DB@/COUNTERS/Ethernet4/Queues/Ethernet4:3/SAI_QUEUE_STAT_DROPPED_PACKETS": 7,
		"COUNTERS_DB@/COUNTERS/Ethernet4/Queues/Ethernet4:4/SAI_QUEUE_STAT_DROPPED_PACKETS": 9, // not a RoCE queue
		"/COUNTERS/Ethernet4/SAI_PORT_STAT_PFC_3_TX_PKTS":                                   5, // no target: not COUNTERS_DB
	}
	got, err := counters.DriverSource{Device: "leaf2", Reader: r, Paths: paths}.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(got, func(i, j int) bool { return got[i].Key.Counter < got[j].Key.Counter })
	want := []counters.Sample{
		{Key: counters.Key{Device: "leaf2", Port: "Ethernet4", Counter: counters.SwitchPFCRx(3)}, Value: 42},
		{Key: counters.Key{Device: "leaf2", Port: "Ethernet4", Counter: counters.SwitchQueueDrops(3)}, Value: 7},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := (counters.DriverSource{Device: "leaf2", Reader: pathReader{}, Paths: paths}).Read(context.Background()); err == nil {
		t.Error("no error when nothing answered")
	}
}
