package daemon

import (
	"fmt"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/rocefab/rocefab/validators/doctor/counters"
	"github.com/rocefab/rocefab/validators/telemetry"
)

const (
	benchCounterSwitches = 1000
	benchCounterPorts    = 64
)

// benchCounterFabric is 1,000 switches × 64 ports as the detectors see
// them, every priority lossless-capable.
func benchCounterFabric(b *testing.B) *telemetry.Topology {
	pol := telemetry.Policy{Lossless: 1 << 3, RoCE: 3, CNP: 6, ECN: true}
	devs := make([]telemetry.DeviceSpec, benchCounterSwitches)
	for i := range devs {
		devs[i] = telemetry.DeviceSpec{Name: fmt.Sprintf("leaf%d", i), Policy: pol, Speed: 400e9}
		for p := range benchCounterPorts {
			devs[i].Ports = append(devs[i].Ports, telemetry.PortSpec{Name: fmt.Sprintf("Ethernet%d", p)})
		}
	}
	topo, err := telemetry.NewTopology(devs, nil)
	if err != nil {
		b.Fatal(err)
	}
	return topo
}

// benchSamples are one switch's counters of one round: per port and
// priority PFC pause received and sent, watchdog, queue drops and ECN
// marks (as SONiC's COUNTERS_DB gives them), plus link pause.
func benchSamples(sw, round int) []counters.Sample {
	out := make([]counters.Sample, 0, benchCounterPorts*(8*5+2))
	dev := fmt.Sprintf("leaf%d", sw)
	for p := range benchCounterPorts {
		port := fmt.Sprintf("Ethernet%d", p)
		add := func(c string, v uint64) {
			out = append(out, counters.Sample{Key: counters.Key{Device: dev, Port: port, Counter: c}, Value: v})
		}
		base := uint64(round) * 1000
		for prio := range 8 {
			add(counters.SwitchPFCRx(prio), base)
			add(counters.SwitchPFCTx(prio), base/2)
			add(counters.SwitchPFCWatchdog(prio), 0)
			add(counters.SwitchQueueDrops(prio), 0)
			add(counters.SwitchECNMarked(prio), base*3)
		}
		add(counters.SwitchMACRxPause, 0)
		add(counters.SwitchMACTxPause, 0)
	}
	return out
}

func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkCounterRound1000 is the agent's side of one sample round of
// 1,000 switches × 64 ports × 8 priorities (2.7 million counters, every
// 10 s in production): the samples stored in the counter hub, the hub
// read as one detector round and observed (every counter), and the hub
// gathered for /metrics (its export bound). Run with -cpu 1: one core
// must keep up with the interval.
func BenchmarkCounterRound1000(b *testing.B) {
	topo := benchCounterFabric(b)
	samples := make([][]counters.Sample, benchCounterSwitches)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	// The agent's default bounds: every counter held for the detectors,
	// the key series (priorities 3 and 6, link pause) exported up to the
	// export bound.
	hub := newCounterHub(0, 0, nil)
	for i := range benchCounterSwitches {
		hub.setKeyPriorities(fmt.Sprintf("leaf%d", i), []int{3, 6})
	}
	det, err := telemetry.New(topo, telemetry.DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(hub)
	at := time.Unix(1_800_000_000, 0)
	for i := range samples {
		samples[i] = benchSamples(i, 0)
		hub.set(roleSwitch, samples[i], at)
	}
	det.Observe(hub.readings(topo)) // the baseline
	runtime.GC()
	runtime.ReadMemStats(&after)
	heldMiB := float64(after.HeapAlloc-before.HeapAlloc) / (1 << 20)

	round, exported := 0, 0
	var cpuIngest, cpuDetect, cpuGather time.Duration
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		round++
		at = at.Add(10 * time.Second)
		for i := range samples {
			samples[i] = benchSamples(i, round)
		}
		c0 := processCPU(b)
		b.StartTimer()
		for i := range samples {
			hub.set(roleSwitch, samples[i], at)
		}
		c1 := processCPU(b)
		rep := det.Observe(hub.readings(topo))
		c2 := processCPU(b)
		fams, err := reg.Gather()
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		c3 := processCPU(b)
		exported = 0
		for _, f := range fams {
			if strings.HasSuffix(f.GetName(), "_total") && f.GetName() != "rocefab_telemetry_series_dropped_total" {
				exported += len(f.GetMetric())
			}
		}
		if exported != DefaultCountersMaxSeries {
			b.Fatalf("%d counter series exported, want the bound %d", exported, DefaultCountersMaxSeries)
		}
		cpuIngest += c1 - c0
		cpuDetect += c2 - c1
		cpuGather += c3 - c2
		if len(rep.Raised) > 0 {
			b.Fatalf("a healthy round raised %v", rep.Raised[0])
		}
		if len(rep.Readings) != benchCounterSwitches || rep.Readings[0].State != telemetry.ReadingRated {
			b.Fatalf("the detectors rated %d devices (%v)", len(rep.Readings), rep.Readings[0].State)
		}
		b.StartTimer()
	}
	n := float64(b.N)
	b.ReportMetric(float64(cpuIngest+cpuDetect+cpuGather)/n/1e6, "cpu-ms/round")
	b.ReportMetric(float64(cpuIngest)/n/1e6, "ingest-cpu-ms")
	b.ReportMetric(float64(cpuDetect)/n/1e6, "detect-cpu-ms")
	b.ReportMetric(float64(cpuGather)/n/1e6, "gather-cpu-ms")
	b.ReportMetric(heldMiB, "held-MiB")
	b.ReportMetric(float64(exported), "exported-series")
}
