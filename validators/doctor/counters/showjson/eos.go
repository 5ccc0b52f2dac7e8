package showjson

import (
	"fmt"
	"strings"

	"github.com/rocefab/rocefab/validators/doctor/counters"
)

// eosPlatform reads EOS: per-port PFC detail, then three device-wide tables.
var eosPlatform = &Platform{Name: "eos", commands: func(ports []string) []Command {
	return append(
		perPort(ports, func(p string) string { return "show interfaces " + p + " priority-flow-control counters detail | json" }, ParseEOSPFCDetail),
		Command{Line: "show priority-flow-control counters watchdog | json", parse: ParseEOSWatchdog, absentIsZero: counters.SwitchPFCWatchdog},
		Command{Line: "show qos interfaces ecn counters queue | json", parse: ParseEOSECN},
		Command{Line: "show interfaces counters queue detail | json", parse: ParseEOSQueueDetail})
}}

// eosEntries decodes an EOS table reached by the keys of top, holding
// ports, each holding (under the keys of below) entries numbered by a
// priority, queue or "TC<n>" traffic class; each calls fn, whose samples
// are collected.
func eosEntries(out []byte, top, below []string, fn func(port string, n int, entry any) []counters.Sample) ([]counters.Sample, error) {
	root, err := decode(out)
	if err != nil {
		return nil, err
	}
	var ifs any = root
	for _, k := range top {
		ifs = obj(ifs)[k]
	}
	ports, ok := ifs.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("no %q object in the output", strings.Join(top, "."))
	}
	var res []counters.Sample
	for port, v := range ports {
		for _, k := range below {
			v = obj(v)[k]
		}
		for key, entry := range obj(v) {
			if n, ok := leadingInt(strings.TrimPrefix(key, "TC")); ok {
				res = append(res, fn(port, n, entry)...)
			}
		}
	}
	return named(res), nil
}

// one is the sample of a counter when v holds a number, else none.
func one(port, counter string, v any) []counters.Sample {
	if n, ok := num(v); ok {
		return []counters.Sample{sample(port, counter, n)}
	}
	return nil
}

// ParseEOSPFCDetail reads `show interfaces <port> priority-flow-control
// counters detail | json`: interfaces.<port>.priorities.<prio> rxFrames
// and txFrames.
func ParseEOSPFCDetail(out []byte, _ string) ([]counters.Sample, error) {
	return eosEntries(out, []string{"interfaces"}, []string{"priorities"}, func(port string, prio int, c any) []counters.Sample {
		return append(one(port, counters.SwitchPFCRx(prio), obj(c)["rxFrames"]), one(port, counters.SwitchPFCTx(prio), obj(c)["txFrames"])...)
	})
}

// ParseEOSWatchdog reads `show priority-flow-control counters watchdog |
// json`: interfaces.<port>.txQueues.<queue>.stuckCount, the times the
// watchdog found the queue stuck. EOS lists an interface only after its
// first event, so {"interfaces": {}} is a valid answer.
func ParseEOSWatchdog(out []byte, _ string) ([]counters.Sample, error) {
	return eosEntries(out, []string{"interfaces"}, []string{"txQueues"}, func(port string, q int, c any) []counters.Sample {
		return one(port, counters.SwitchPFCWatchdog(q), obj(c)["stuckCount"])
	})
}

// ParseEOSECN reads `show qos interfaces ecn counters queue | json`:
// intfQueueCounters.<port>.queueCounters.<queue>, ECN-marked packets as a
// string, "-" where the queue has no ECN.
func ParseEOSECN(out []byte, _ string) ([]counters.Sample, error) {
	return eosEntries(out, []string{"intfQueueCounters"}, []string{"queueCounters"}, func(port string, q int, c any) []counters.Sample {
		return one(port, counters.SwitchECNMarked(q), c)
	})
}

// ParseEOSQueueDetail reads `show interfaces counters queue detail |
// json`: egressQueueCounters.interfaces.<port>.ucastQueues.trafficClasses
// .TC<n>.dropPrecedences.DP<k>.droppedPackets, summed over the drop
// precedences (RoCE is unicast).
func ParseEOSQueueDetail(out []byte, _ string) ([]counters.Sample, error) {
	return eosEntries(out, []string{"egressQueueCounters", "interfaces"}, []string{"ucastQueues", "trafficClasses"}, func(port string, q int, c any) []counters.Sample {
		var drops uint64
		seen := false
		for _, dp := range obj(obj(c)["dropPrecedences"]) {
			if n, ok := num(obj(dp)["droppedPackets"]); ok {
				drops, seen = drops+n, true
			}
		}
		if !seen {
			return nil
		}
		return []counters.Sample{sample(port, counters.SwitchQueueDrops(q), drops)}
	})
}
