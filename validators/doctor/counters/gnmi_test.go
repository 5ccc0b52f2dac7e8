package counters_test

import (
	"context"
	"encoding/json"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	gnmipb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/rocefab/rocefab/drivers/gnmi/gnmipath"
	"github.com/rocefab/rocefab/renderers/all"
	"github.com/rocefab/rocefab/validators/doctor/counters"
)

// fakeTarget answers Subscribe ONCE (and STREAM, with one sync) from a leaf
// map the test moves between reads, as a switch's counters move. It stands
// in for drivers/sim/gnmisim until that simulator serves Subscribe.
type fakeTarget struct {
	gnmipb.UnimplementedGNMIServer
	mu     sync.Mutex
	leaves map[string]uint64
	ietf   bool // answer in JSON_IETF strings instead of uint_val
	modes  []gnmipb.SubscriptionList_Mode
}

func (f *fakeTarget) add(path string, n uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.leaves[path] += n
}

func (f *fakeTarget) Subscribe(stream gnmipb.GNMI_SubscribeServer) error {
	req, err := stream.Recv()
	if err != nil {
		return err
	}
	list := req.GetSubscribe()
	f.mu.Lock()
	f.modes = append(f.modes, list.GetMode())
	var updates []*gnmipb.Update
	for _, s := range list.GetSubscription() {
		key := gnmipath.Format(s.GetPath())
		v, ok := f.leaves[key]
		var val *gnmipb.TypedValue
		switch {
		case ok && f.ietf:
			val = &gnmipb.TypedValue{Value: &gnmipb.TypedValue_JsonIetfVal{JsonIetfVal: []byte(`"` + itoa(v) + `"`)}}
		case ok:
			val = &gnmipb.TypedValue{Value: &gnmipb.TypedValue_UintVal{UintVal: v}}
		default:
			// A path above leaves is answered as one JSON object of the
			// subtree, as SONiC answers a port's Queues.
			tree := map[string]any{}
			for leaf, n := range f.leaves {
				if leaf == key || !gnmipath.Under(leaf, key) {
					continue
				}
				rel, _ := gnmipath.Rel(s.GetPath(), gnmipath.MustParse(leaf))
				node := tree
				for i, e := range rel {
					if i == len(rel)-1 {
						node[e.GetName()] = itoa(n)
						break
					}
					next, _ := node[e.GetName()].(map[string]any)
					if next == nil {
						next = map[string]any{}
						node[e.GetName()] = next
					}
					node = next
				}
			}
			if len(tree) == 0 {
				continue
			}
			raw, err := json.Marshal(tree)
			if err != nil {
				f.mu.Unlock()
				return err
			}
			val = &gnmipb.TypedValue{Value: &gnmipb.TypedValue_JsonIetfVal{JsonIetfVal: raw}}
		}
		// Answer with the origin in the prefix and the rest in the update,
		// as targets do.
		updates = append(updates, &gnmipb.Update{Path: &gnmipb.Path{Elem: s.GetPath().GetElem()}, Val: val})
	}
	f.mu.Unlock()
	origin := ""
	if len(list.GetSubscription()) > 0 {
		origin = list.GetSubscription()[0].GetPath().GetOrigin()
	}
	if err := stream.Send(&gnmipb.SubscribeResponse{Response: &gnmipb.SubscribeResponse_Update{Update: &gnmipb.Notification{
		Timestamp: time.Now().UnixNano(), Prefix: &gnmipb.Path{Origin: origin}, Update: updates}}}); err != nil {
		return err
	}
	if err := stream.Send(&gnmipb.SubscribeResponse{Response: &gnmipb.SubscribeResponse_SyncResponse{SyncResponse: true}}); err != nil {
		return err
	}
	if list.GetMode() == gnmipb.SubscriptionList_STREAM {
		<-stream.Context().Done()
	}
	return nil
}

func itoa(v uint64) string { return strconv.FormatUint(v, 10) }

func startTarget(t *testing.T, f *fakeTarget) gnmipb.GNMIClient {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	gnmipb.RegisterGNMIServer(srv, f)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return gnmipb.NewGNMIClient(conn)
}

func TestGNMISwitchCountersDelta(t *testing.T) {
	for _, tc := range []struct {
		name     string
		platform string
		ietf     bool
		sample   time.Duration
	}{
		{"openconfig once uint", "eos", false, 0},
		{"openconfig sample json_ietf", "nxos", true, 50 * time.Millisecond},
		{"sonic once", "sonic", false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			port := "Ethernet1/5"
			if tc.platform == "sonic" {
				port = "Ethernet4"
			}
			paths := counters.PathsWith(all.Renderers(), tc.platform, []string{port}, []int{3})
			f := &fakeTarget{leaves: map[string]uint64{}, ietf: tc.ietf}
			// The target exposes every counter but the watchdog's.
			for _, cp := range paths {
				if cp.Counter == counters.SwitchPFCWatchdog(3) {
					continue
				}
				canon, err := gnmipath.Canonical(cp.Path)
				if err != nil {
					t.Fatal(err)
				}
				f.leaves[canon] = 7_000
			}
			src := counters.GNMISource{Device: "leaf2", Client: startTarget(t, f), Paths: paths, SampleInterval: tc.sample}
			s := counters.Sampler{Sources: []counters.Source{src}}
			before, err := s.Snapshot(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for _, cp := range paths {
				canon, _ := gnmipath.Canonical(cp.Path)
				switch cp.Counter {
				case counters.SwitchQueueDrops(3):
					f.add(canon, 1_204)
				case counters.SwitchECNMarked(3):
					f.add(canon, 35_000)
				}
			}
			after, err := s.Snapshot(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			msgs := counters.Diff(before, after).Messages("during the probe")
			want := []string{
				"queue 3 dropped packets rose by 1,204 on leaf2 " + port + " during the probe",
				"queue 3 ECN-marked packets rose by 35,000 on leaf2 " + port + " during the probe",
			}
			if diff := cmp.Diff(want, msgs); diff != "" {
				t.Errorf("messages (-want +got):\n%s", diff)
			}
			wantMode := gnmipb.SubscriptionList_ONCE
			if tc.sample > 0 {
				wantMode = gnmipb.SubscriptionList_STREAM
			}
			for _, m := range f.modes {
				if m != wantMode {
					t.Errorf("subscription mode %v, want %v", m, wantMode)
				}
			}
		})
	}
}

func TestGNMINoPathAnswered(t *testing.T) {
	f := &fakeTarget{leaves: map[string]uint64{}}
	src := counters.GNMISource{Device: "leaf1", Client: startTarget(t, f), Paths: counters.OpenConfigPaths([]string{"Ethernet1"}, []int{3}, nil)}
	if _, err := src.Read(context.Background()); err == nil {
		t.Fatal("no error when the switch exposes none of the counters")
	}
}
