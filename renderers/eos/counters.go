package eos

import (
	"fmt"
	"strings"

	"github.com/rocefab/rocefab/devcfg/observe"
)

// ShowCounters reads EOS: per-port PFC detail, then three device-wide tables.
func ShowCounters(ports []string) []observe.CounterCommand {
	return append(
		observe.PerPort(ports, func(p string) string { return "show interfaces " + p + " priority-flow-control counters detail | json" }, ParseEOSPFCDetail),
		observe.CounterCommand{Line: "show priority-flow-control counters watchdog | json", Parse: ParseEOSWatchdog, AbsentIsZero: observe.SwitchPFCWatchdog},
		observe.CounterCommand{Line: "show qos interfaces ecn counters queue | json", Parse: ParseEOSECN},
		observe.CounterCommand{Line: "show interfaces counters queue detail | json", Parse: ParseEOSQueueDetail})
}

// eosEntries decodes an EOS table reached by the keys of top, holding
// ports, each holding (under the keys of below) entries numbered by a
// priority, queue or "TC<n>" traffic class; each calls fn, whose samples
// are collected.
func eosEntries(out []byte, top, below []string, fn func(port string, n int, entry any) []observe.Sample) ([]observe.Sample, error) {
	root, err := observe.DecodeShowObject(out)
	if err != nil {
		return nil, err
	}
	var ifs any = root
	for _, k := range top {
		ifs = observe.Obj(ifs)[k]
	}
	ports, ok := ifs.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("no %q object in the output", strings.Join(top, "."))
	}
	var res []observe.Sample
	for port, v := range ports {
		for _, k := range below {
			v = observe.Obj(v)[k]
		}
		for key, entry := range observe.Obj(v) {
			if n, ok := observe.LeadingInt(strings.TrimPrefix(key, "TC")); ok {
				res = append(res, fn(port, n, entry)...)
			}
		}
	}
	return observe.NamedPorts(res), nil
}

// one is the sample of a counter when v holds a number, else none.
func one(port, counter string, v any) []observe.Sample {
	if n, ok := observe.Num(v); ok {
		return []observe.Sample{observe.NewSample(port, counter, n)}
	}
	return nil
}

// ParseEOSPFCDetail reads `show interfaces <port> priority-flow-control
// counters detail | json`: interfaces.<port>.priorities.<prio> rxFrames
// and txFrames.
func ParseEOSPFCDetail(out []byte, _ string) ([]observe.Sample, error) {
	return eosEntries(out, []string{"interfaces"}, []string{"priorities"}, func(port string, prio int, c any) []observe.Sample {
		return append(one(port, observe.SwitchPFCRx(prio), observe.Obj(c)["rxFrames"]), one(port, observe.SwitchPFCTx(prio), observe.Obj(c)["txFrames"])...)
	})
}

// ParseEOSWatchdog reads `show priority-flow-control counters watchdog |
// json`: interfaces.<port>.txQueues.<queue>.stuckCount, the times the
// watchdog found the queue stuck. EOS lists an interface only after its
// first event, so {"interfaces": {}} is a valid answer.
func ParseEOSWatchdog(out []byte, _ string) ([]observe.Sample, error) {
	return eosEntries(out, []string{"interfaces"}, []string{"txQueues"}, func(port string, q int, c any) []observe.Sample {
		return one(port, observe.SwitchPFCWatchdog(q), observe.Obj(c)["stuckCount"])
	})
}

// ParseEOSECN reads `show qos interfaces ecn counters queue | json`:
// intfQueueCounters.<port>.queueCounters.<queue>, ECN-marked packets as a
// string, "-" where the queue has no ECN.
func ParseEOSECN(out []byte, _ string) ([]observe.Sample, error) {
	return eosEntries(out, []string{"intfQueueCounters"}, []string{"queueCounters"}, func(port string, q int, c any) []observe.Sample {
		return one(port, observe.SwitchECNMarked(q), c)
	})
}

// ParseEOSQueueDetail reads `show interfaces counters queue detail |
// json`: egressQueueCounters.interfaces.<port>.ucastQueues.trafficClasses
// .TC<n>.dropPrecedences.DP<k>.droppedPackets, summed over the drop
// precedences (RoCE is unicast).
func ParseEOSQueueDetail(out []byte, _ string) ([]observe.Sample, error) {
	return eosEntries(out, []string{"egressQueueCounters", "interfaces"}, []string{"ucastQueues", "trafficClasses"}, func(port string, q int, c any) []observe.Sample {
		var drops uint64
		seen := false
		for _, dp := range observe.Obj(observe.Obj(c)["dropPrecedences"]) {
			if n, ok := observe.Num(observe.Obj(dp)["droppedPackets"]); ok {
				drops, seen = drops+n, true
			}
		}
		if !seen {
			return nil
		}
		return []observe.Sample{observe.NewSample(port, observe.SwitchQueueDrops(q), drops)}
	})
}

// Where each command and JSON shape comes from. The testdata/counters fixtures are
// written in those shapes with rocefab's own numbers. The shared corpus
// holds no switch counter output yet, so the fuzz targets are seeded from
// the fixtures.
var ShowCounterSources = map[string]string{
	"show interfaces priority-flow-control counters detail": "facebook/DNE-TaaC taac/health_checks/dsf_health_checks/dsf_pfc_health_check.py " +
		"_get_eos_pfc_counters (`show interface <intf> priority-flow-control counters detail | json`, interfaces.<intf>.priorities.<prio> rxFrames/txFrames); " +
		"aristanetworks/anta anta/tests/interfaces.py VerifyInterfacesPFCCounters (rxFrames/txFrames per interface)",
	"show priority-flow-control counters watchdog": "facebook/DNE-TaaC taac/health_checks/device_health_checks/pfc_wd_health_check.py " +
		"_get_eos_pfc_wd_counters (interfaces.<intf>.txQueues.<queue> stuckCount/recoveryCount; {\"interfaces\": {}} until the first event); " +
		"Arista EOS User Manual, DCBX and Flow Control, PFC Watchdog (https://www.arista.com/en/um-eos/eos-dcbx-and-flow-control)",
	"show qos interfaces ecn counters queue": "aristanetworks/anta anta/tests/interfaces.py VerifyInterfacesECNCounters and " +
		"tests/units/anta_tests/test_interfaces.py (intfQueueCounters.<intf>.queueCounters.<queue> as a string, \"-\" where ECN is off)",
	"show interfaces counters queue detail": "aristanetworks/anta anta/tests/interfaces.py VerifyInterfacesEgressQueueDrops and " +
		"tests/units/anta_tests/test_interfaces.py (egressQueueCounters.interfaces.<intf>.ucastQueues|mcastQueues.trafficClasses.TC<n>" +
		".dropPrecedences.DP<k>.droppedPackets)",
}
