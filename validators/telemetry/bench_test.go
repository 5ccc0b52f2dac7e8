package telemetry

import (
	"encoding/json"
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"
)

const (
	benchSwitches = 1000
	benchPorts    = 64
)

// benchFabric is 667 leaves (32 host ports, 32 uplinks) and 333 spines (64
// ports) cabled leaf to spine: 1,000 switches × 64 ports, every port
// reading all ten per-priority counters on all eight priorities (5.1
// million counters a round).
func benchFabric(tb testing.TB) (*Topology, []Reading) {
	pol := Policy{Lossless: 1 << 3, RoCE: 3, CNP: 6, ECN: true}
	leaves, spines := benchSwitches*2/3, benchSwitches-benchSwitches*2/3
	var devs []DeviceSpec
	for i := range benchSwitches {
		name := fmt.Sprintf("leaf%d", i)
		if i >= leaves {
			name = fmt.Sprintf("spine%d", i-leaves)
		}
		d := DeviceSpec{Name: name, Policy: pol, Speed: 400e9}
		for p := range benchPorts {
			d.Ports = append(d.Ports, PortSpec{Name: fmt.Sprintf("Ethernet%d", p)})
		}
		devs = append(devs, d)
	}
	var cables []Cable
	next := 0 // spine port to cable next
	for l := range leaves {
		for up := 32; up < benchPorts && next < spines*benchPorts; up++ {
			cables = append(cables, Cable{A: Endpoint{fmt.Sprintf("leaf%d", l), fmt.Sprintf("Ethernet%d", up)},
				B: Endpoint{fmt.Sprintf("spine%d", next%spines), fmt.Sprintf("Ethernet%d", next/spines)}})
			next++
		}
	}
	topo, err := NewTopology(devs, cables)
	if err != nil {
		tb.Fatal(err)
	}
	readings := make([]Reading, benchSwitches)
	for i := range readings {
		r := &readings[i]
		r.Device, r.Taken = devs[i].Name, t0
		r.Ports = make([]PortCounters, benchPorts)
		for p := range r.Ports {
			pc := &r.Ports[p]
			pc.Name = devs[i].Ports[p].Name
			for prio := range NumPriorities {
				pc.Prio[prio].Has = allPrio
				for m := range NumPrioMetrics {
					pc.Prio[prio].V[m] = uint64(i*7919+p*104729+prio*1299709+int(m)) << 20
				}
			}
		}
	}
	return topo, readings
}

// advance moves every counter on by one healthy 10 s round: traffic on
// every queue, and pause bursts on one port-priority in 50 (up to 30 %),
// some of them two hops, so the spread walk has work.
func advance(readings []Reading, round int) {
	for i := range readings {
		r := &readings[i]
		r.Taken = r.Taken.Add(el)
		for p := range r.Ports {
			pc := &r.Ports[p]
			for prio := range NumPriorities {
				v := &pc.Prio[prio].V
				v[TxPackets] += 50_000_000 + uint64(p)
				v[RxPackets] += 50_000_000 + uint64(prio)
				v[ECNMarked] += 5_000
				h := (i*31 + p*17 + prio*13 + round*7) % 50
				if h == 0 {
					frac := float64((i+p+round)%30+1) / 100
					us := uint64(frac * 10e6)
					v[PauseRxMicros] += us
					v[PauseRx] += uint64(frac*10/(65535*512/400e9/2)) + 2
					v[PauseTxMicros] += us / 2
					v[PauseTx] += 100
				}
			}
		}
	}
}

func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkRound is the detector path for one sample round of 1,000
// switches × 64 ports × 8 priorities: rate math on 5.1 million counters,
// every per-port detector, the pause-spread walk and the findings.
func BenchmarkRound(b *testing.B) {
	topo, readings := benchFabric(b)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	det, err := New(topo, DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	det.Observe(readings) // the baseline
	runtime.GC()
	runtime.ReadMemStats(&after)
	stateMiB := float64(after.HeapAlloc-before.HeapAlloc) / (1 << 20)

	b.Run("Observe", func(b *testing.B) {
		b.ReportAllocs()
		var cpu time.Duration
		round := 0
		for b.Loop() {
			b.StopTimer()
			round++
			advance(readings, round)
			c := cpuTime(b)
			b.StartTimer()
			rep := det.Observe(readings)
			b.StopTimer()
			cpu += cpuTime(b) - c
			if len(rep.Raised) > 0 {
				b.Fatalf("healthy bench round raised %v", rep.Raised[0])
			}
			b.StartTimer()
		}
		// CPU time, all threads and GC included: on a shared machine it
		// varies less than wall time.
		b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
		// The detector's own memory: every counter's last value and the
		// port state, measured after the baseline round.
		b.ReportMetric(stateMiB, "state-MiB")
	})
	b.Run("State", func(b *testing.B) {
		var size int
		for b.Loop() {
			buf, err := json.Marshal(det.State())
			if err != nil {
				b.Fatal(err)
			}
			size = len(buf)
		}
		b.ReportMetric(float64(size)/(1<<20), "json-MiB")
	})
}

// BenchmarkReadingFrom is the named-counter adapter for one switch of 64
// ports × 8 priorities × 10 counters, for comparison with typed readings.
func BenchmarkReadingFrom(b *testing.B) {
	topo, readings := benchFabric(b)
	var samples []NamedSample
	for _, pc := range readings[0].Ports {
		for p := range NumPriorities {
			for m := range NumPrioMetrics {
				samples = append(samples, NamedSample{Port: pc.Name, Counter: swNames[m][p], Value: pc.Prio[p].V[m]})
			}
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if r, _ := topo.ReadingFrom(readings[0].Device, t0, samples); len(r.Ports) != benchPorts {
			b.Fatal(len(r.Ports))
		}
	}
}
