package daemon

import (
	"strings"
	"testing"
	"time"

	"github.com/rocefab/rocefab/validators/doctor/counters"
	"github.com/rocefab/rocefab/validators/telemetry"
)

// TestHubShowsWholeCycles: a gNMI target sends each subscription's
// sample in its own notification, so a detector round can fall between
// two notifications of one port. The detectors read each port one whole
// cycle at a time, every counter moved once, stamped with the cycle's
// newest sample; a counter that does not come again is left out of the
// cycle (not read), never shown unmoved.
func TestHubShowsWholeCycles(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	us, tx := counters.SwitchPFCRxMicros(3), counters.SwitchQueueTxPackets(3)
	type part struct {
		port, counter string
		v             uint64
		at            time.Duration // sample time after t0
		sync          bool          // the target's sync_response after it
	}
	type shown struct {
		port  string
		us    int64 // -1: not read
		tx    int64
		taken time.Duration
	}
	for _, tc := range []struct {
		name  string
		parts []part
		whole bool // one host-style read, not notifications
		want  []shown
	}{
		{name: "first cycle waits for its sync", parts: []part{
			{"Ethernet1", us, 100, 0, false}, {"Ethernet1", tx, 10, 5, false}},
			want: nil},
		{name: "first cycle shown at its sync", parts: []part{
			{"Ethernet1", us, 100, 0, false}, {"Ethernet1", tx, 10, 5, true}},
			want: []shown{{"Ethernet1", 100, 10, 5}}},
		{name: "a round between two notifications of a cycle sees the last cycle", parts: []part{
			{"Ethernet1", us, 100, 0, false}, {"Ethernet1", tx, 10, 5, true},
			{"Ethernet1", us, 600, 1000, false}},
			want: []shown{{"Ethernet1", 100, 10, 5}}},
		{name: "the cycle shown once every counter came again", parts: []part{
			{"Ethernet1", us, 100, 0, false}, {"Ethernet1", tx, 10, 5, true},
			{"Ethernet1", us, 600, 1000, false}, {"Ethernet1", tx, 20, 1004, false}},
			want: []shown{{"Ethernet1", 600, 20, 1004}}},
		{name: "a counter that comes twice starts a cycle; one missing is not read", parts: []part{
			{"Ethernet1", us, 100, 0, false}, {"Ethernet1", tx, 10, 5, true},
			{"Ethernet1", us, 600, 1000, false}, {"Ethernet1", us, 1100, 2000, false}},
			want: []shown{{"Ethernet1", 600, -1, 1000}}},
		{name: "back to whole after a missing counter", parts: []part{
			{"Ethernet1", us, 100, 0, false}, {"Ethernet1", tx, 10, 5, true},
			{"Ethernet1", us, 600, 1000, false}, {"Ethernet1", us, 1100, 2000, false},
			{"Ethernet1", tx, 30, 2003, false}, {"Ethernet1", us, 1600, 3000, false}},
			want: []shown{{"Ethernet1", 1100, 30, 2003}}},
		{name: "a counter missing two cycles running is not waited for", parts: []part{
			{"Ethernet1", us, 100, 0, false}, {"Ethernet1", tx, 10, 5, true},
			{"Ethernet1", us, 600, 1000, false}, {"Ethernet1", us, 1100, 2000, false},
			{"Ethernet1", us, 1600, 3000, false}, {"Ethernet1", us, 2100, 4000, false}},
			want: []shown{{"Ethernet1", 2100, -1, 4000}}},
		{name: "and is waited for again once back", parts: []part{
			{"Ethernet1", us, 100, 0, false}, {"Ethernet1", tx, 10, 5, true},
			{"Ethernet1", us, 600, 1000, false}, {"Ethernet1", us, 1100, 2000, false},
			{"Ethernet1", us, 1600, 3000, false}, {"Ethernet1", us, 2100, 4000, false},
			{"Ethernet1", tx, 50, 4005, false}, {"Ethernet1", us, 2600, 5000, false},
			{"Ethernet1", tx, 60, 5005, false}, {"Ethernet1", us, 3100, 6000, false}},
			want: []shown{{"Ethernet1", 3100, 60, 6000}}},
		{name: "ports keep their own cycles and stamps", parts: []part{
			{"Ethernet1", us, 100, 0, false}, {"Ethernet1", tx, 10, 1, false},
			{"Ethernet2", us, 200, 2, false}, {"Ethernet2", tx, 20, 3, true},
			{"Ethernet2", us, 700, 1002, false}, {"Ethernet2", tx, 30, 1003, false},
			{"Ethernet1", us, 600, 1010, false}},
			want: []shown{{"Ethernet1", 100, 10, 1}, {"Ethernet2", 700, 30, 1003}}},
		{name: "a whole read is shown at once", whole: true, parts: []part{
			{"Ethernet1", us, 100, 7, false}, {"Ethernet1", tx, 10, 7, false}},
			want: []shown{{"Ethernet1", 100, 10, 7}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newCounterHub(0, 0, nil)
			topo, err := telemetry.NewTopology([]telemetry.DeviceSpec{{Name: "leaf1",
				Policy: telemetry.Policy{Lossless: 1 << 3, RoCE: 3, CNP: 6},
				Ports:  []telemetry.PortSpec{{Name: "Ethernet1"}, {Name: "Ethernet2"}}}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			var whole []counters.Sample
			for _, p := range tc.parts {
				s := counters.Sample{Key: counters.Key{Device: "leaf1", Port: p.port, Counter: p.counter}, Value: p.v}
				at := t0.Add(p.at * time.Millisecond)
				if tc.whole {
					whole = append(whole, s)
					continue
				}
				h.setSampled(roleSwitch, []counters.Sample{s}, at, at)
				if p.sync {
					h.endCycle("leaf1")
				}
			}
			if tc.whole {
				h.set(roleSwitch, whole, t0.Add(tc.parts[0].at*time.Millisecond))
			}
			rs := h.readings(topo)
			var got []shown
			for _, r := range rs {
				for _, pc := range r.Ports {
					s := shown{port: pc.Name, us: -1, tx: -1, taken: pc.Taken.Sub(t0) / time.Millisecond}
					if pc.Prio[3].Has.Has(telemetry.PauseRxMicros) {
						s.us = int64(pc.Prio[3].V[telemetry.PauseRxMicros])
					}
					if pc.Prio[3].Has.Has(telemetry.TxPackets) {
						s.tx = int64(pc.Prio[3].V[telemetry.TxPackets])
					}
					got = append(got, s)
				}
			}
			byPort := map[string]shown{}
			for _, s := range got {
				byPort[s.port] = s
			}
			if len(byPort) != len(tc.want) {
				t.Fatalf("shown %+v, want %+v", got, tc.want)
			}
			for _, w := range tc.want {
				if g, ok := byPort[w.port]; !ok || g != w {
					t.Errorf("shown %+v, want %+v", g, w)
				}
			}
			// The latest value is what /metrics exports, cycle or not.
			last := map[string]uint64{}
			for _, p := range tc.parts {
				last[p.port+" "+p.counter] = p.v
			}
			for k, v := range last {
				port, counter, _ := strings.Cut(k, " ")
				if got, _ := h.value(counters.Key{Device: "leaf1", Port: port, Counter: counter}); got != v {
					t.Errorf("%s exported %d, want the latest %d", k, got, v)
				}
			}
		})
	}
}
