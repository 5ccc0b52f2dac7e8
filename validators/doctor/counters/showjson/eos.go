package showjson

import (
	"errors"
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

// ParseEOSPFCDetail reads `show interfaces <port> priority-flow-control
// counters detail | json`: interfaces.<port>.priorities.<prio> rxFrames
// and txFrames.
func ParseEOSPFCDetail(out []byte, _ string) ([]counters.Sample, error) {
	root, err := decode(out)
	if err != nil {
		return nil, err
	}
	ifs, ok := root["interfaces"].(map[string]any)
	if !ok {
		return nil, errors.New(`no "interfaces" object in the output`)
	}
	var res []counters.Sample
	for port, v := range ifs {
		for p, c := range obj(obj(v)["priorities"]) {
			prio, ok := leadingInt(p)
			if !ok {
				continue
			}
			if n, ok := num(obj(c)["rxFrames"]); ok {
				res = append(res, sample(port, counters.SwitchPFCRx(prio), n))
			}
			if n, ok := num(obj(c)["txFrames"]); ok {
				res = append(res, sample(port, counters.SwitchPFCTx(prio), n))
			}
		}
	}
	return named(res), nil
}

// ParseEOSWatchdog reads `show priority-flow-control counters watchdog |
// json`: interfaces.<port>.txQueues.<queue>.stuckCount, the times the
// watchdog found the queue stuck. EOS lists an interface only after its
// first event, so {"interfaces": {}} is a valid answer.
func ParseEOSWatchdog(out []byte, _ string) ([]counters.Sample, error) {
	root, err := decode(out)
	if err != nil {
		return nil, err
	}
	ifs, ok := root["interfaces"].(map[string]any)
	if !ok {
		return nil, errors.New(`no "interfaces" object in the output`)
	}
	var res []counters.Sample
	for port, v := range ifs {
		for qs, c := range obj(obj(v)["txQueues"]) {
			q, ok := leadingInt(qs)
			if !ok {
				continue
			}
			if n, ok := num(obj(c)["stuckCount"]); ok {
				res = append(res, sample(port, counters.SwitchPFCWatchdog(q), n))
			}
		}
	}
	return named(res), nil
}

// ParseEOSECN reads `show qos interfaces ecn counters queue | json`:
// intfQueueCounters.<port>.queueCounters.<queue>, ECN-marked packets as a
// string, "-" where the queue has no ECN.
func ParseEOSECN(out []byte, _ string) ([]counters.Sample, error) {
	root, err := decode(out)
	if err != nil {
		return nil, err
	}
	ifs, ok := root["intfQueueCounters"].(map[string]any)
	if !ok {
		return nil, errors.New(`no "intfQueueCounters" object in the output`)
	}
	var res []counters.Sample
	for port, v := range ifs {
		for qs, c := range obj(obj(v)["queueCounters"]) {
			q, ok := leadingInt(qs)
			if !ok {
				continue
			}
			if n, ok := num(c); ok {
				res = append(res, sample(port, counters.SwitchECNMarked(q), n))
			}
		}
	}
	return named(res), nil
}

// ParseEOSQueueDetail reads `show interfaces counters queue detail |
// json`: egressQueueCounters.interfaces.<port>.ucastQueues.trafficClasses
// .TC<n>.dropPrecedences.DP<k>.droppedPackets, summed over the drop
// precedences (RoCE is unicast).
func ParseEOSQueueDetail(out []byte, _ string) ([]counters.Sample, error) {
	root, err := decode(out)
	if err != nil {
		return nil, err
	}
	ifs, ok := obj(root["egressQueueCounters"])["interfaces"].(map[string]any)
	if !ok {
		return nil, errors.New(`no "egressQueueCounters.interfaces" object in the output`)
	}
	var res []counters.Sample
	for port, v := range ifs {
		for tc, c := range obj(obj(obj(v)["ucastQueues"])["trafficClasses"]) {
			q, ok := leadingInt(strings.TrimPrefix(tc, "TC"))
			if !ok {
				continue
			}
			var drops uint64
			seen := false
			for _, dp := range obj(obj(c)["dropPrecedences"]) {
				if n, ok := num(obj(dp)["droppedPackets"]); ok {
					drops, seen = drops+n, true
				}
			}
			if seen {
				res = append(res, sample(port, counters.SwitchQueueDrops(q), drops))
			}
		}
	}
	return named(res), nil
}
