package gnmi_test

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/rocefab/rocefab/devcfg"
	"github.com/rocefab/rocefab/drivers/gnmi"
	"github.com/rocefab/rocefab/drivers/sim/gnmisim"
)

const (
	macRx   = "/interfaces/interface[name=Ethernet1]/ethernet/state/counters/in-mac-pause-frames"
	drops3  = "/qos/interfaces/interface[interface-id=Ethernet1]/output/queues/queue[name=3]/state/dropped-pkts"
	ecn3    = "/qos/interfaces/interface[interface-id=Ethernet1]/output/queues/queue[name=3]/state/ecn-marked-pkts"
	sonicRx = "/COUNTERS/Ethernet0/SAI_PORT_STAT_PFC_3_RX_PKTS"
	sonicWD = "/COUNTERS/Ethernet0/Pfcwd/Ethernet0:3/PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED"
	sonicQ  = "/COUNTERS/Ethernet0/Queues/Ethernet0:3/SAI_QUEUE_STAT_DROPPED_PACKETS"
)

func TestCountersOnceDeltas(t *testing.T) {
	sim := startSim(t, gnmisim.Options{}) // counters still: only jumps move them
	d := dial(t, options(t, sim, ocPlatform(), devcfg.Scope{}))
	ctx := context.Background()
	paths := []string{"/interfaces/interface[name=Ethernet1]/ethernet", ecn3}
	sim.Jump("Ethernet1", 3, gnmisim.PFCRx, 40)
	before, err := d.Counters(ctx, paths)
	if err != nil {
		t.Fatal(err)
	}
	if before[macRx] != 40 {
		t.Fatalf("before = %v", before)
	}
	sim.Jump("Ethernet1", 3, gnmisim.PFCRx, 1204)
	sim.Jump("Ethernet1", 3, gnmisim.ECNMarked, 77)
	sim.Jump("Ethernet2", 3, gnmisim.PFCRx, 5) // another port: not asked for
	after, err := d.Counters(ctx, paths)
	if err != nil {
		t.Fatal(err)
	}
	deltas := gnmi.Deltas(before, after)
	want := map[string]uint64{macRx: 1204, ecn3: 77}
	for k, v := range want {
		if deltas[k] != v {
			t.Errorf("delta %s = %d, want %d", k, deltas[k], v)
		}
	}
	for k, v := range deltas {
		if _, named := want[k]; !named && v != 0 {
			t.Errorf("unexpected movement %s += %d", k, v)
		}
	}
}

// TestSONiCCounters: SONiC's counters are asked for under target
// COUNTERS_DB, as sonic-gnmi serves them: a port field comes back as one
// value, a port's Pfcwd and Queues as JSON objects whose numeric fields
// become counters below the path asked for.
func TestSONiCCounters(t *testing.T) {
	sim := startSim(t, gnmisim.Options{Personality: gnmisim.SONiC})
	d := dial(t, options(t, sim, ocPlatform(), devcfg.Scope{}))
	sim.Jump("Ethernet0", 3, gnmisim.PFCRx, 9)
	sim.Jump("Ethernet0", 3, gnmisim.WatchdogStorms, 2)
	sim.Jump("Ethernet0", 3, gnmisim.QueueDrops, 5)
	got, err := d.Counters(context.Background(), []string{"COUNTERS_DB@" + sonicRx, "COUNTERS_DB@/COUNTERS/Ethernet0/Pfcwd", "COUNTERS_DB@/COUNTERS/Ethernet0/Queues"})
	if err != nil {
		t.Fatal(err)
	}
	if got[sonicRx] != 9 || got[sonicWD] != 2 || got[sonicQ] != 5 {
		t.Errorf("sonic counters: rx=%d wd=%d drops=%d (of %v)", got[sonicRx], got[sonicWD], got[sonicQ], got)
	}
	// Without the target the same paths are not COUNTERS_DB's.
	if got, err := d.Counters(context.Background(), []string{sonicRx}); err == nil && got[sonicRx] != 0 {
		t.Errorf("a path without the target read COUNTERS_DB: %v", got)
	}
	if _, err := d.Counters(context.Background(), []string{"COUNTERS_DB@" + sonicRx, macRx}); err == nil {
		t.Error("paths under two targets in one subscription were accepted")
	}
}

func TestSubscribeSample(t *testing.T) {
	sim := startSim(t, gnmisim.Options{})
	d := dial(t, options(t, sim, ocPlatform(), devcfg.Scope{}))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ch, err := d.Subscribe(ctx, []string{macRx}, gnmi.Sample, 30*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	var values []uint64
	synced := false
	for b := range ch {
		if b.Err != nil {
			t.Fatal(b.Err)
		}
		for _, c := range b.Counters {
			if c.Path != macRx {
				t.Fatalf("unexpected path %s", c.Path)
			}
			values = append(values, c.Value)
		}
		if b.Sync {
			synced = true
			sim.Jump("Ethernet1", 3, gnmisim.PFCRx, 1204)
		}
		if synced && len(values) > 0 && values[len(values)-1] == 1204 {
			cancel()
		}
	}
	if !synced || len(values) < 2 || values[0] != 0 || values[len(values)-1] != 1204 {
		t.Fatalf("samples %v (synced %v): want 0 first and 1204 after the jump", values, synced)
	}
}

func TestCountersMoveByThemselves(t *testing.T) {
	var per gnmisim.PerTick
	per[gnmisim.QueueDrops], per[gnmisim.ECNMarked] = 3, 11
	sim := startSim(t, gnmisim.Options{Counters: gnmisim.CounterOptions{Tick: 10 * time.Millisecond, PerTick: per}})
	d := dial(t, options(t, sim, ocPlatform(), devcfg.Scope{}))
	a, err := d.Counters(context.Background(), []string{drops3, ecn3})
	if err != nil {
		t.Fatal(err)
	}
	// Read again until the counters moved: on a loaded machine the ticks
	// may come late, but they must come.
	var b map[string]uint64
	var dl map[string]uint64
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, err = d.Counters(context.Background(), []string{drops3, ecn3}); err != nil {
			t.Fatal(err)
		}
		if dl = gnmi.Deltas(a, b); dl[drops3] != 0 && dl[ecn3] != 0 {
			break
		}
	}
	// Each subscribed path is sampled on its own, as on a device, so ticks
	// may fall between the two paths' samples (more than one on a loaded
	// machine): each counter moves by whole ticks of its own amount.
	if dl[drops3] == 0 || dl[drops3]%3 != 0 || dl[ecn3] == 0 || dl[ecn3]%11 != 0 {
		t.Errorf("deltas %v: want whole ticks of 3 and 11", dl)
	}
	if diff := cmp.Diff([]string{drops3, ecn3}, keys(b)); diff != "" {
		t.Error(diff)
	}
}

func keys(m map[string]uint64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
